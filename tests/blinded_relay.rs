//! Guards the blinded default through a real nostr-rs-relay: whatever a new store does
//! (writes of every kind, searches, forgets, pruning, mode switches), no tag a relay
//! receives names a key, a domain or a facet, and no plain sense-memory path is
//! published once a store is blinded (docs/wire-format.md, "No plain path").

mod support;

use std::time::Duration;

use memstr::sync::transport::{Connection, PageCaps};
use memstr::sync::{RelayUrl, SyncOptions};
use memstr::{Clock, DTagMode, Embedding, ManualClock, MemoryStore, PersonaInput, SearchQuery, StoreOptions};
use serde_json::{json, Value};
use support::relay::LocalRelay;
use support::*;

const T0: f64 = 1_790_000_000.0;
const DAY: f64 = 86_400.0;

/// Names used by [`exercise`], `tag` appended. Each has a letter outside hex and a `-`
/// (never in base64), so no blinded tag, id, signature or ciphertext can contain one.
fn names(tag: &str) -> Vec<String> {
    ["zebra-key", "quokka-domain", "walrus-facet", "narwhal-person", "ibis-subject", "yak-attribute", "otter-gone"]
        .iter()
        .map(|n| format!("{n}{tag}"))
        .collect()
}

fn opts() -> SyncOptions {
    SyncOptions { timeout: Duration::from_secs(10), connect_timeout: Duration::from_secs(5), ..Default::default() }
}

async fn open(path: &std::path::Path, clock: &std::sync::Arc<ManualClock>, mode: Option<DTagMode>) -> MemoryStore {
    let mut o = StoreOptions::default().clock(clock.clone());
    if let Some(m) = mode {
        o = o.d_tag_mode(m);
    }
    MemoryStore::open(path, test_identity(), o).await.unwrap()
}

async fn sync_ok(store: &MemoryStore) {
    for r in store.sync(&opts()).await.unwrap() {
        assert!(r.error.is_none(), "{r:?}");
        assert!(r.refused.is_empty(), "{r:?}");
    }
}

/// Everything of our key a relay serves to a plain subscription.
async fn relay_events(url: &str) -> Vec<Value> {
    let conn = Connection::connect(&RelayUrl::parse(url, false).unwrap(), Duration::from_secs(5), None).await.unwrap();
    let filter = json!({"authors": [test_identity().public_key().to_hex()]});
    conn.subscribe(vec![filter])
        .unwrap()
        .collect_stored(Duration::from_secs(10), PageCaps { events: 100_000, bytes: 1 << 30 })
        .await
        .unwrap()
        .0
}

/// No tag value (nor a deletion's content) names a plain path or one of `names`.
fn assert_reveals_nothing(events: &[&Value], names: &[String]) {
    for e in events {
        for t in e["tags"].as_array().unwrap() {
            for v in t.as_array().unwrap().iter().filter_map(Value::as_str) {
                assert!(!v.starts_with("sense-memory/") && !v.starts_with("sense-journal/"), "plain d tag {v}: {e}");
                assert!(!memstr::names_plain_path(v), "plain path in {v}: {e}");
                for n in names {
                    assert!(!v.contains(n.as_str()), "{n} in tag {v}: {e}");
                }
            }
        }
        let content = e["content"].as_str().unwrap();
        for n in names {
            assert!(!content.contains(n.as_str()), "{n} in content: {e}");
        }
    }
}

/// Every kind of write, reads that sign accesses, searches, forgets and pruning, with
/// the names of `names(tag)`; syncs at the end when `sync`.
async fn exercise(store: &MemoryStore, clock: &ManualClock, tag: &str, sync: bool) {
    let n = names(tag);
    let (key, domain, facet, person, subject, attribute, gone) = (&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6]);
    let now = clock.now();
    store.remember(key, "a flat memory about tea").await.unwrap();
    store.remember(key, "a flat memory about green tea").await.unwrap();
    store.remember(gone, "soon forgotten").await.unwrap();
    store.journal("a diary entry about tea").await.unwrap();
    store
        .persona_remember(PersonaInput::new(domain, facet, person, "likes tea in the morning").themes(["tea"]))
        .await
        .unwrap();
    store
        .persona_remember(PersonaInput::new(domain, facet, gone, "a passing thought about tea").halflife_days(0.01))
        .await
        .unwrap();
    store.fact_set(domain, subject, attribute, "blue").await.unwrap();
    store.fact_set(domain, subject, attribute, "green").await.unwrap();
    store
        .put_embedding(Embedding {
            key: key.clone(),
            embedding: vec![0.1, 0.2, 0.3],
            model: "test-model".into(),
            created_at: now,
            text_hash: None,
        })
        .await
        .unwrap();
    assert!(!store.search(SearchQuery::new("tea")).await.unwrap().is_empty());
    store.persona_search("tea morning", 5).await.unwrap();
    store.flush_accesses().await.unwrap();
    store.forget(&format!("kv/{gone}")).await.unwrap();
    store.forget(&format!("never-stored-{gone}")).await.unwrap();
    // The short-lived persona memory dissolves, is archived a month later, then purged.
    store.persona_pin(&format!("{domain}/{facet}/{person}"), true).await.unwrap();
    clock.set(now + 10.0 * DAY);
    store.persona_prune().await.unwrap();
    clock.set(now + 45.0 * DAY);
    let pruned = store.persona_prune().await.unwrap();
    assert!(pruned.archived.iter().any(|a| a.ends_with(gone.as_str())), "{pruned:?}");
    store.restore(&format!("{domain}/{facet}/{gone}")).await.unwrap();
    store.archive(&format!("{domain}/{facet}/{gone}")).await.unwrap();
    store.purge(&format!("{domain}/{facet}/{gone}")).await.unwrap();
    store.persona_introspect().await.unwrap();
    clock.set(now + 46.0 * DAY);
    if sync {
        sync_ok(store).await;
    }
}

fn all_names() -> Vec<String> {
    ["", "-one", "-two"].iter().flat_map(|t| names(t)).collect()
}

#[tokio::test]
async fn a_new_store_shows_relays_no_key_domain_or_facet() {
    let relay = LocalRelay::start();
    let dir = tempfile::tempdir().unwrap();
    let clock = std::sync::Arc::new(ManualClock::new(T0));
    let store = open(&dir.path().join("memstr.db"), &clock, None).await;
    assert_eq!(store.d_tag_mode(), DTagMode::Blinded, "blinded by default");
    store.add_relay(&relay.url(), false).await.unwrap();
    exercise(&store, &clock, "", true).await;
    let served = relay_events(&relay.url()).await;
    let deletions: Vec<&Value> = served.iter().filter(|e| e["kind"] == 5).collect();
    assert!(served.len() >= 5 && !deletions.is_empty(), "{} events, {} deletions", served.len(), deletions.len());
    // Deletions name blinded coordinates.
    let pk = test_identity().public_key().to_hex();
    assert!(deletions.iter().any(|e| e["tags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t[0] == "a"
            && t[1].as_str().unwrap().strip_prefix(&format!("30078:{pk}:")).is_some_and(|d| d.len() == 64))));
    assert_reveals_nothing(&served.iter().collect::<Vec<_>>(), &all_names());
    assert_eq!(store.stats().await.unwrap().plain_published, 0);
}

#[tokio::test]
async fn a_store_gone_blinded_publishes_no_plain_path_again() {
    let (old_relay, new_relay) = (LocalRelay::start(), LocalRelay::start());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memstr.db");
    let clock = std::sync::Arc::new(ManualClock::new(T0));
    // A compatible store, shared with the Python client for a while: its relay holds plain paths.
    let store = open(&path, &clock, Some(DTagMode::Compatible)).await;
    store.add_relay(&old_relay.url(), false).await.unwrap();
    exercise(&store, &clock, "", true).await;
    // Written but never pushed before the switch.
    store.journal("unsent").await.unwrap();
    store.remember("unsent-key", "v").await.unwrap();
    let before: Vec<String> =
        relay_events(&old_relay.url()).await.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
    drop(store);

    let store = open(&path, &clock, Some(DTagMode::Blinded)).await;
    store.add_relay(&new_relay.url(), false).await.unwrap();
    // The same names again: rewrites retire plain versions, forgets delete them.
    exercise(&store, &clock, "", true).await;
    store.forget("unsent-key").await.unwrap();
    sync_ok(&store).await;

    let mut names = all_names();
    names.push("unsent-key".into());
    let fresh = relay_events(&new_relay.url()).await;
    assert!(!fresh.is_empty());
    assert_reveals_nothing(&fresh.iter().collect::<Vec<_>>(), &names);
    let old = relay_events(&old_relay.url()).await;
    let since_switch: Vec<&Value> =
        old.iter().filter(|e| !before.contains(&e["id"].as_str().unwrap().into())).collect();
    assert!(!since_switch.is_empty());
    assert_reveals_nothing(&since_switch, &names);
    let stats = store.stats().await.unwrap();
    assert!(stats.plain_published > 0, "{stats:?}");
    assert!(stats.plain_withheld > 0, "the unsent journal entry stays here: {stats:?}");
}

#[tokio::test]
async fn blinded_compatible_blinded_leaks_nothing_to_a_blinded_era_relay() {
    let relay = LocalRelay::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memstr.db");
    let clock = std::sync::Arc::new(ManualClock::new(T0));
    let store = open(&path, &clock, None).await;
    store.add_relay(&relay.url(), false).await.unwrap();
    exercise(&store, &clock, "-one", true).await;
    drop(store);
    // Compatible for a while, offline: its writes carry plain paths.
    let store = open(&path, &clock, Some(DTagMode::Compatible)).await;
    exercise(&store, &clock, "-one", false).await;
    exercise(&store, &clock, "-two", false).await;
    drop(store);
    // Blinded again: what syncs now reveals nothing, the compatible interlude included.
    let store = open(&path, &clock, Some(DTagMode::Blinded)).await;
    exercise(&store, &clock, "-two", true).await;
    let served = relay_events(&relay.url()).await;
    assert_reveals_nothing(&served.iter().collect::<Vec<_>>(), &all_names());
    // Every blinded-era record is still readable on another device from this relay.
    let other_dir = tempfile::tempdir().unwrap();
    let other = open(&other_dir.path().join("memstr.db"), &clock, None).await;
    other.add_relay(&relay.url(), false).await.unwrap();
    sync_ok(&other).await;
    assert_eq!(
        other.recall(&names("-two")[0]).await.unwrap().map(|m| m.value),
        Some("a flat memory about green tea".to_string())
    );
}
