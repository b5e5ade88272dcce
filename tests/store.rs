//! Behaviour of the local store through its public API.

mod support;

use memstr::codec::{Cipher, Path};
use memstr::nostr::{Event, EventBuilder, JsonUtil, Keys, Kind, Tag, Timestamp};
use memstr::{DTagMode, Error, MemoryStore, Outcome, PersonaInput, PersonaQuery, Rule, StoreOptions};
use proptest::prelude::*;
use serde_json::json;
use support::*;

/// The stores' (payload) clock: in the past, so that events dated from it are applied at
/// once and payload times are never clamped as future ones at the door.
const T0: f64 = 1_700_000_000.0;
const DAY: f64 = 86_400.0;

/// The system clock in whole seconds: what every event memstr signs is dated by.
fn system_now() -> u64 {
    Timestamp::now().as_secs()
}

fn me() -> Keys {
    Keys::parse(TEST_SECRET).unwrap()
}

/// A kv version as another device would write it.
fn kv_event(key: &str, value: &str, created_at: u64) -> Event {
    let payload = json!({"type": "sense-memory:kv", "key": key, "value": value, "ts": created_at as f64});
    let content = Cipher::new(me().secret_key(), &me().public_key()).unwrap().encrypt(&payload.to_string()).unwrap();
    EventBuilder::new(Kind::from(30078), content)
        .tag(Tag::identifier(format!("sense-memory/{key}")))
        .custom_created_at(Timestamp::from(created_at))
        .sign_with_keys(&me())
        .unwrap()
}

fn lines(events: &[Event]) -> String {
    events.iter().map(|e| e.as_json()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn remember_recall_and_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    assert!(store.recall("k").await.unwrap().is_none());
    store.remember("k", "one").await.unwrap();
    clock.set(T0 + 1.0);
    store.remember("k", "two").await.unwrap();
    let m = store.recall("k").await.unwrap().unwrap();
    assert_eq!((m.value.as_str(), m.created_at), ("two", T0 + 1.0));
    assert_eq!(store.recall_all().await.unwrap().len(), 1);
    // Only the current version is kept and queued.
    let s = store.stats().await.unwrap();
    assert_eq!((s.events, s.outbox), (1, 1));
}

#[tokio::test]
async fn rewrite_in_the_same_second_still_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    for v in ["a", "b", "c"] {
        store.remember("k", v).await.unwrap();
    }
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "c");
}

#[tokio::test]
async fn forget_holds_against_stale_versions() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store.remember("k", "secret plan").await.unwrap();
    let old = store.export_events().await.unwrap();
    clock.set(T0 + 10.0);
    store.forget("k").await.unwrap();
    assert!(store.recall("k").await.unwrap().is_none());
    // A stale device replays the old version, and an even older one from elsewhere.
    let r = store.import_json_lines(&lines(&old)).await.unwrap();
    assert_eq!(r.applied, 0, "{r:?}");
    let r = store.import_events(vec![kv_event("k", "older", T0 as u64 - 100)]).await.unwrap();
    assert_eq!(r.applied, 0, "{r:?}");
    assert!(store.recall("k").await.unwrap().is_none());
    // The export carries the tombstone and a kind-5 with e, a and k tags.
    let export = store.export_events().await.unwrap();
    let del = export.iter().find(|e| e.kind == Kind::from(5)).expect("a deletion");
    let names: Vec<&str> = del.tags.iter().map(|t| t.as_slice()[0].as_str()).collect();
    assert!(names.contains(&"e") && names.contains(&"a") && names.contains(&"k"), "{names:?}");
    assert!(export.iter().any(|e| e.kind == Kind::from(30078)), "tombstone kept");
}

#[tokio::test]
async fn a_newer_version_after_a_deletion_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store.remember("k", "v1").await.unwrap();
    store.forget("k").await.unwrap();
    // Back to back (often in one second of the system clock): the new write is still ordered
    // after the deletion.
    store.remember("k", "v2").await.unwrap();
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "v2");
    let export = store.export_events().await.unwrap();
    let del = export.iter().find(|e| e.kind == Kind::from(5)).expect("a deletion");
    let versions: Vec<&Event> = export.iter().filter(|e| e.kind == Kind::from(30078)).collect();
    assert_eq!(versions.len(), 1, "only the current version is kept");
    let v2 = versions[0];
    assert!(v2.created_at > del.created_at, "{} after {}", v2.created_at.as_secs(), del.created_at.as_secs());
    clock.set(T0 + 100.0);
    // Another device writes a few seconds later (by the system clock, which dates events).
    let later = system_now() + 10;
    let r = store.import_events(vec![kv_event("k", "from another device", later)]).await.unwrap();
    assert_eq!(r.applied, 1, "{r:?}");
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "from another device");
}

#[tokio::test]
async fn deletion_arriving_before_its_event_still_applies() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let e = kv_event("k", "v", T0 as u64);
    let del = EventBuilder::new(Kind::from(5), "")
        .tag(Tag::parse(["e", &e.id.to_hex()]).unwrap())
        .sign_with_keys(&me())
        .unwrap();
    store.import_events(vec![del]).await.unwrap();
    let r = store.import_events(vec![e]).await.unwrap();
    assert_eq!(r.deleted, 1, "{r:?}");
    assert!(store.recall("k").await.unwrap().is_none());
}

#[tokio::test]
async fn a_tag_deletion_spares_newer_versions_and_handles_colons() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let pk = me().public_key().to_hex();
    let newer = kv_event("a:b", "newer", T0 as u64 + 10);
    store.import_events(vec![newer]).await.unwrap();
    let del = EventBuilder::new(Kind::from(5), "")
        .tag(Tag::parse(["a", &format!("30078:{pk}:sense-memory/a:b")]).unwrap())
        .custom_created_at(Timestamp::from(T0 as u64))
        .sign_with_keys(&me())
        .unwrap();
    store.import_events(vec![del]).await.unwrap();
    assert_eq!(store.recall("a:b").await.unwrap().unwrap().value, "newer");
    let r = store.import_events(vec![kv_event("a:b", "older", T0 as u64 - 10)]).await.unwrap();
    assert_eq!(r.stale + r.deleted, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Every device picks the same winner among versions of one memory, whatever order
    /// they arrive in: the newest `created_at`, ties to the lowest event id.
    #[test]
    fn the_winner_does_not_depend_on_arrival_order(
        stamps in proptest::collection::vec(0u64..4, 2..7),
        seed in any::<u64>(),
    ) {
        let events: Vec<Event> = stamps.iter().enumerate()
            .map(|(i, s)| kv_event("k", &format!("v{i}"), T0 as u64 + s))
            .collect();
        let winner = events.iter()
            .max_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| b.id.to_hex().cmp(&a.id.to_hex())))
            .unwrap();
        let want = serde_json::from_str::<serde_json::Value>(
            &Cipher::new(me().secret_key(), &me().public_key()).unwrap().decrypt(&winner.content).unwrap()
        ).unwrap()["value"].as_str().unwrap().to_string();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        for order in 0..3u64 {
            let mut shuffled = events.clone();
            let mut x = seed ^ order;
            for i in (1..shuffled.len()).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (x >> 33) as usize % (i + 1));
            }
            let got = rt.block_on(async {
                let dir = tempfile::tempdir().unwrap();
                let (store, _) = open_at(dir.path(), T0).await;
                for e in shuffled {
                    store.import_events(vec![e]).await.unwrap();
                }
                store.recall("k").await.unwrap().unwrap().value
            });
            prop_assert_eq!(&got, &want);
        }
    }
}

#[tokio::test]
async fn journal_entries_never_overwrite_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.journal_at("one", T0).await.unwrap();
    store.journal_at("two", T0).await.unwrap();
    store.journal_at("three", T0 + 1.0).await.unwrap();
    let got: Vec<String> = store.recent(10).await.unwrap().into_iter().map(|j| j.content).collect();
    assert_eq!(got, ["three", "two", "one"]);
    assert_eq!(store.recent(0).await.unwrap().len(), 1, "limit is at least one");
}

#[tokio::test]
async fn validation_errors_are_typed_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let rule = |e: Error| match e {
        Error::Validation(v) => (v.field, v.rule),
        other => panic!("not a validation error: {other}"),
    };
    assert_eq!(rule(store.remember("a/b", "v").await.unwrap_err()), ("key", Rule::ForbiddenChar('/')));
    assert_eq!(rule(store.remember("", "v").await.unwrap_err()), ("key", Rule::Empty));
    assert_eq!(rule(store.journal("").await.unwrap_err()), ("content", Rule::Empty));
    let e = store.persona_remember(PersonaInput::new("d", "f", "k", "v").confidence(1.5)).await.unwrap_err();
    assert_eq!(rule(e).1.name(), "range");
    let e = store.persona_remember(PersonaInput::new("d..", "f", "k", "v")).await.unwrap_err();
    assert_eq!(rule(e), ("domain", Rule::PathTraversal));
    // 65,000 characters of 4-byte text is a valid value the NIP-44 limit cannot carry.
    let e = store.remember("big", &"😀".repeat(20_000)).await.unwrap_err();
    assert_eq!(rule(e).1.name(), "nip44-size");
    assert_eq!(store.stats().await.unwrap().events, 0);
}

#[tokio::test]
async fn persona_update_keeps_history() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store
        .persona_remember(
            PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea"]).connections(["bob"]),
        )
        .await
        .unwrap();
    clock.set(T0 + DAY);
    store.persona_recall(PersonaQuery::exact("people", "facts", "alice")).await.unwrap();
    clock.set(T0 + 2.0 * DAY);
    store
        .persona_remember(PersonaInput::new("people", "facts", "alice", "likes green tea").connections(["carol"]))
        .await
        .unwrap();
    let m = store.persona_peek(PersonaQuery::exact("people", "facts", "alice")).await.unwrap().pop().unwrap();
    assert_eq!(m.value, "likes green tea");
    assert_eq!(m.created_at, T0);
    assert_eq!(m.access_count, 1);
    assert_eq!(m.themes, ["tea"]);
    assert_eq!(m.connections, ["bob", "carol"]);
    assert_eq!(m.last_reinforced, T0 + 2.0 * DAY);
}

#[tokio::test]
async fn recall_counts_accesses_and_flush_signs_one_event_per_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store.persona_remember(PersonaInput::new("self", "facts", "name", "Ada")).await.unwrap();
    store.persona_remember(PersonaInput::new("self", "facts", "job", "engineer")).await.unwrap();
    let events_before = store.stats().await.unwrap().events;
    clock.set(T0 + 40.0 * DAY);
    for _ in 0..5 {
        let got =
            store.persona_recall(PersonaQuery { domain: Some("self".into()), ..Default::default() }).await.unwrap();
        assert_eq!(got.len(), 2);
    }
    // Reads were recorded locally, none signed yet.
    let s = store.stats().await.unwrap();
    assert_eq!((s.events, s.unsigned_accesses), (events_before, 2));
    // The first recall saw the memory before counting itself.
    let peek = store.persona_peek(PersonaQuery::exact("self", "facts", "name")).await.unwrap().pop().unwrap();
    assert_eq!(peek.access_count, 5);
    assert_eq!(peek.last_accessed, T0 + 40.0 * DAY);
    assert_eq!(peek.current_relevance(T0 + 40.0 * DAY), 1.0, "access revives");
    assert_eq!(store.flush_accesses().await.unwrap(), 2);
    assert_eq!(store.flush_accesses().await.unwrap(), 0);
    let s = store.stats().await.unwrap();
    assert_eq!((s.events, s.outbox, s.unsigned_accesses), (2, 2, 0));
    // The signed versions carry the counts (readable by a fresh device).
    let dir2 = tempfile::tempdir().unwrap();
    let (other, _) = open_at(dir2.path(), T0 + 41.0 * DAY).await;
    other.import_events(store.export_events().await.unwrap()).await.unwrap();
    let m = other.persona_peek(PersonaQuery::exact("self", "facts", "name")).await.unwrap().pop().unwrap();
    assert_eq!(m.access_count, 5);
}

#[tokio::test]
async fn newer_version_from_elsewhere_keeps_local_unsigned_accesses() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store.persona_remember(PersonaInput::new("self", "facts", "name", "Ada")).await.unwrap();
    // Another device edits the value later.
    let dir2 = tempfile::tempdir().unwrap();
    let (other, other_clock) = open_at(dir2.path(), T0).await;
    other.import_events(store.export_events().await.unwrap()).await.unwrap();
    other_clock.set(T0 + 100.0);
    other.persona_remember(PersonaInput::new("self", "facts", "name", "Ada L.")).await.unwrap();
    // Meanwhile this device reads it (unsigned), then receives the edit.
    clock.set(T0 + 50.0);
    store.persona_recall(PersonaQuery::exact("self", "facts", "name")).await.unwrap();
    store.import_events(other.export_events().await.unwrap()).await.unwrap();
    let m = store.persona_peek(PersonaQuery::exact("self", "facts", "name")).await.unwrap().pop().unwrap();
    assert_eq!((m.value.as_str(), m.access_count), ("Ada L.", 1));
    assert_eq!(store.stats().await.unwrap().unsigned_accesses, 1);
}

#[tokio::test]
async fn connect_is_bidirectional_and_contradict_supersedes() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    for (k, v) in [("healthy", "coffee is fine"), ("harmful", "coffee is bad"), ("tea", "tea is fine")] {
        store.persona_remember(PersonaInput::new("world", "beliefs", k, v)).await.unwrap();
    }
    store.persona_connect("healthy", "world/beliefs/tea").await.unwrap();
    store.persona_contradict("healthy", "harmful").await.unwrap();
    let get = |k: &'static str| {
        let store = store.clone();
        async move { store.persona_peek(PersonaQuery::exact("world", "beliefs", k)).await.unwrap().pop().unwrap() }
    };
    let (h, t, n) = (get("healthy").await, get("tea").await, get("harmful").await);
    assert_eq!(h.connections, ["tea"]);
    assert_eq!(t.connections, ["healthy"]);
    assert_eq!(h.contradicts, ["harmful"]);
    assert_eq!(h.superseded_by.as_deref(), Some("harmful"));
    assert!(n.contradicts.is_empty() && n.superseded_by.is_none(), "the new belief is untouched");
    // One connection (x1.1), one contradiction (x0.5), superseded: 4x faster decay.
    assert!((h.current_relevance(T0) - 0.55).abs() < 1e-12);
    assert!((h.current_relevance(T0 + 30.0 * DAY) - 0.55 / 16.0).abs() < 1e-12);
    assert!(matches!(store.persona_connect("tea", "tea").await, Err(Error::Validation(_))));
    assert!(matches!(store.persona_connect("tea", "nope").await, Err(Error::NotFound(_))));
}

#[tokio::test]
async fn bare_keys_in_two_places_are_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.persona_remember(PersonaInput::new("people", "facts", "x", "1")).await.unwrap();
    store.persona_remember(PersonaInput::new("world", "facts", "x", "2")).await.unwrap();
    store.persona_remember(PersonaInput::new("world", "facts", "y", "3")).await.unwrap();
    match store.persona_connect("x", "y").await {
        Err(Error::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
        other => panic!("{other:?}"),
    }
    store.persona_connect("people/facts/x", "y").await.unwrap();
}

#[tokio::test]
async fn search_scores_key_themes_value_and_hides_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store
        .persona_remember(PersonaInput::new("people", "facts", "alice-dark-mode", "prefers dim screens"))
        .await
        .unwrap();
    store.persona_remember(PersonaInput::new("people", "facts", "bob", "likes the dark theme")).await.unwrap();
    store
        .persona_remember(PersonaInput::new("people", "facts", "carol", "editor setup").themes(["dark"]))
        .await
        .unwrap();
    store
        .persona_remember(PersonaInput::new("people", "facts", "old-dark", "dark, long ago").at(T0 - 200.0 * DAY))
        .await
        .unwrap();
    let hits = store.persona_search("dark", 10).await.unwrap();
    let keys: Vec<&str> = hits.iter().map(|h| h.memory.key.as_str()).collect();
    assert_eq!(keys, ["alice-dark-mode", "carol", "bob"], "key 3 > theme 2 > value 1; forgotten hidden");
    assert_eq!(hits[0].match_score, 3.0);
    assert!(store.persona_search("", 10).await.unwrap().is_empty());
    assert!(store.persona_search("\"dark\" OR NEAR(", 10).await.is_ok(), "query syntax is not interpreted");
    clock.set(T0);
    assert_eq!(store.persona_search("dark", 1).await.unwrap().len(), 1);
}

#[tokio::test]
async fn domains_facets_and_stats() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.persona_remember(PersonaInput::new("people", "facts", "a", "1")).await.unwrap();
    store.persona_remember(PersonaInput::new("people", "beliefs", "b", "2")).await.unwrap();
    store.persona_remember(PersonaInput::new("self", "facts", "c", "3").at(T0 - 60.0 * DAY)).await.unwrap();
    assert_eq!(store.persona_domains().await.unwrap(), ["people", "self"]);
    assert_eq!(store.persona_facets("people").await.unwrap(), ["beliefs", "facts"]);
    let s = store.persona_stats().await.unwrap();
    assert_eq!(s.total, 3);
    assert_eq!(s.by_state["active"], 2);
    assert_eq!(s.by_state["fading"], 1);
    assert_eq!(s.by_domain["people"], 2);
    assert_eq!(s.by_facet["people/beliefs"], 1);
}

#[tokio::test]
async fn blinded_mode_hides_paths_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let opts = StoreOptions::default().d_tag_mode(DTagMode::Blinded);
    let store = MemoryStore::open(dir.path().join("b.db"), test_identity(), opts).await.unwrap();
    store.remember("alice-phone-number", "555").await.unwrap();
    store.persona_remember(PersonaInput::new("people", "health", "alice-diagnosis", "private")).await.unwrap();
    store.journal("dear diary").await.unwrap();
    store.forget("alice-phone-number").await.unwrap();
    let export = store.export_events().await.unwrap();
    let text = lines(&export);
    for secret in ["alice", "health", "sense-memory", "sense-journal", "diary"] {
        assert!(!text.contains(secret), "{secret} visible to relays");
    }
    for e in export.iter().filter(|e| e.kind == Kind::from(30078)) {
        let d = e.tags.iter().find(|t| t.as_slice()[0] == "d").unwrap().as_slice()[1].clone();
        assert_eq!(d.len(), 64);
    }
    // Another device, in the default mode, reads it all.
    let dir2 = tempfile::tempdir().unwrap();
    let (other, _) = open_at(dir2.path(), T0).await;
    let r = other.import_events(export).await.unwrap();
    assert_eq!(r.rejected_total(), 0, "{r:?}");
    assert!(other.recall("alice-phone-number").await.unwrap().is_none());
    assert_eq!(other.persona_peek(PersonaQuery::exact("people", "health", "alice-diagnosis")).await.unwrap().len(), 1);
    assert_eq!(other.recent(1).await.unwrap()[0].content, "dear diary");
}

#[tokio::test]
async fn new_stores_are_blinded_and_existing_stores_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let store = MemoryStore::open(&path, test_identity(), StoreOptions::default()).await.unwrap();
    assert_eq!(store.d_tag_mode(), DTagMode::Blinded);
    drop(store);
    let compat = dir.path().join("c.db");
    let opts = StoreOptions::default().d_tag_mode(DTagMode::Compatible);
    drop(MemoryStore::open(&compat, test_identity(), opts).await.unwrap());
    let store = MemoryStore::open(&compat, test_identity(), StoreOptions::default()).await.unwrap();
    assert_eq!(store.d_tag_mode(), DTagMode::Compatible, "an existing store keeps its saved mode");
}

#[tokio::test]
async fn switching_to_blinded_retires_the_plain_version_by_id_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let opts = StoreOptions::default().d_tag_mode(DTagMode::Compatible);
    let store = MemoryStore::open(&path, test_identity(), opts).await.unwrap();
    let plain_id = store.remember("k", "plain").await.unwrap();
    drop(store);
    let store =
        MemoryStore::open(&path, test_identity(), StoreOptions::default().d_tag_mode(DTagMode::Blinded)).await.unwrap();
    store.remember("k", "blinded").await.unwrap();
    drop(store);
    // The mode is remembered.
    let store = MemoryStore::open(&path, test_identity(), StoreOptions::default()).await.unwrap();
    assert_eq!(store.d_tag_mode(), DTagMode::Blinded);
    let export = store.export_events().await.unwrap();
    let pk = me().public_key().to_hex();
    let plain = format!("30078:{pk}:{}", Path::Kv { key: "k".into() }.to_d());
    let deletions: Vec<_> = export.iter().filter(|e| e.kind == Kind::from(5)).collect();
    assert!(
        deletions.iter().any(|e| e.tags.iter().any(|t| t.as_slice() == ["e".to_string(), plain_id.clone()])),
        "the plain version is deleted by id"
    );
    assert!(
        deletions.iter().all(|e| e.tags.iter().all(|t| t.as_slice().get(1) != Some(&plain))),
        "the plain coordinate is not published again"
    );
    let dir2 = tempfile::tempdir().unwrap();
    let (other, _) = open_at(dir2.path(), T0).await;
    other.import_events(export).await.unwrap();
    assert_eq!(other.recall("k").await.unwrap().unwrap().value, "blinded");
}

#[tokio::test]
async fn export_import_round_trip_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = open_at(dir.path(), T0).await;
    a.remember("k", "v").await.unwrap();
    a.journal("j").await.unwrap();
    a.persona_remember(PersonaInput::new("d", "f", "p", "v")).await.unwrap();
    a.forget("gone").await.unwrap();
    let export = a.export_events().await.unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let (b, _) = open_at(dir2.path(), T0).await;
    let first = b.import_events(export.clone()).await.unwrap();
    assert_eq!(first.applied as usize, export.len());
    let again = b.import_events(export).await.unwrap();
    assert_eq!(again.applied, 0);
    assert_eq!(b.recall_all().await.unwrap(), a.recall_all().await.unwrap());
    assert_eq!(b.recent(5).await.unwrap(), a.recent(5).await.unwrap());
    assert_eq!(b.persona_peek(PersonaQuery::all()).await.unwrap(), a.persona_peek(PersonaQuery::all()).await.unwrap());
}

#[tokio::test]
async fn a_store_refuses_another_key_and_a_newer_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let store = MemoryStore::open(&path, test_identity(), StoreOptions::default()).await.unwrap();
    store.remember("k", "v").await.unwrap();
    drop(store);
    let other = memstr::Identity::generate();
    assert!(matches!(MemoryStore::open(&path, other, StoreOptions::default()).await, Err(Error::WrongKey { .. })));
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    match MemoryStore::open(&path, test_identity(), StoreOptions::default()).await {
        Err(Error::SchemaTooNew { found: 99, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn debug_output_never_shows_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let nsec = test_identity().reveal_nsec().to_string();
    for dbg in [format!("{store:?}"), format!("{:?}", test_identity()), format!("{:?}", StoreOptions::default())] {
        assert!(!dbg.contains(TEST_SECRET) && !dbg.contains(&nsec), "{dbg}");
    }
    let codec_dbg = format!("{:?}", memstr::codec::Codec::new(me(), DTagMode::Compatible).unwrap());
    assert!(!codec_dbg.contains(TEST_SECRET), "{codec_dbg}");
}

#[tokio::test]
async fn outcomes_are_reported_for_each_event() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let e = kv_event("k", "v", T0 as u64);
    let r = store.import_events(vec![e.clone(), e, kv_event("k", "old", T0 as u64 - 5)]).await.unwrap();
    assert_eq!((r.applied, r.duplicate, r.stale), (1, 1, 1));
    let _ = Outcome::Applied;
}

#[tokio::test]
async fn created_at_means_written_and_the_memorys_own_time_is_in_the_payload() {
    // An import of a 2023 memory today: relays filter by created_at, so it must be the
    // time of writing (the system clock's, whatever the store's clock says) or a `since`
    // pull on another device would never see it.
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let may_2023 = 1_683_554_160.0;
    let before = system_now();
    store.remember_at("k", "old news", may_2023).await.unwrap();
    store.journal_at("an old day", may_2023).await.unwrap();
    store.persona_remember(PersonaInput::new("d", "f", "p", "v").at(may_2023)).await.unwrap();
    let after = system_now();
    let export = store.export_events().await.unwrap();
    assert_eq!(export.len(), 3);
    for e in export {
        // Three first versions of three records: no floor pushes them past the clock.
        assert!((before..=after).contains(&e.created_at.as_secs()), "{before}..={after}: {}", e.as_json());
    }
    assert_eq!(store.recall("k").await.unwrap().unwrap().created_at, may_2023);
    assert_eq!(store.recent(1).await.unwrap()[0].created_at, may_2023);
    let p = store.persona_peek(PersonaQuery::all()).await.unwrap().pop().unwrap();
    assert_eq!((p.created_at, p.last_accessed), (may_2023, may_2023));
}

#[tokio::test]
async fn an_import_dated_far_ahead_waits_in_quarantine_and_never_lifts_the_floor() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.remember("k", "old").await.unwrap();
    // One of our own events, signed by a device whose clock is 100 days fast.
    let future = system_now() + 100 * 86_400;
    let r = store.import_events(vec![kv_event("k", "from a fast clock", future)]).await.unwrap();
    assert_eq!((r.quarantined, r.applied, r.stale, r.rejected_total()), (1, 0, 0, 0), "{r:?}");
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "old", "not applied");
    assert_eq!(store.stats().await.unwrap().quarantined, 1);
    // A local write afterwards is dated by the system clock, not after the waiting event.
    store.remember("k", "new").await.unwrap();
    let now = system_now();
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "new");
    let export = store.export_events().await.unwrap();
    assert!(export.iter().all(|e| e.created_at.as_secs() < future), "the quarantined event is not exported");
    let signed = export.iter().find(|e| e.kind == Kind::from(30078)).expect("the new version").created_at.as_secs();
    assert!(signed.abs_diff(now) <= 60, "signed at {signed}, system clock {now}");
    assert_eq!(store.stats().await.unwrap().quarantined, 1, "still waiting");
}

#[tokio::test]
async fn database_wal_and_shm_files_are_owner_only_while_open() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("new-store");
    let store = MemoryStore::open(store_dir.join("memstr.db"), test_identity(), StoreOptions::default()).await.unwrap();
    store.remember("k", "a secret").await.unwrap();
    let mode = |p: std::path::PathBuf| std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(store_dir.clone()), 0o700, "a directory the store created");
    for name in ["memstr.db", "memstr.db-wal", "memstr.db-shm"] {
        assert_eq!(mode(store_dir.join(name)), 0o600, "{name}");
    }
}

#[tokio::test]
async fn reads_are_signed_in_batches_by_count_and_age_not_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let open = |count: u64, after: u64| {
        let mut life = memstr::LifecycleOptions::default();
        life.access_flush_count = count;
        life.access_flush_after = std::time::Duration::from_secs(after);
        MemoryStore::open(dir.path().join("memstr.db"), test_identity(), StoreOptions::default().lifecycle(life))
    };
    let store = open(3, 3600).await.unwrap();
    for key in ["a", "b", "c"] {
        store.persona_remember(PersonaInput::new("d", "f", key, "v")).await.unwrap();
    }
    let events = store.stats().await.unwrap().events;
    // Two memories read, then closed (as every CLI command ends): nothing is signed.
    store.persona_recall(PersonaQuery::exact("d", "f", "a")).await.unwrap();
    store.persona_recall(PersonaQuery::exact("d", "f", "b")).await.unwrap();
    store.persona_recall(PersonaQuery::exact("d", "f", "b")).await.unwrap();
    store.close().await.unwrap();
    let store = open(3, 3600).await.unwrap();
    let stats = store.stats().await.unwrap();
    assert_eq!((stats.events, stats.unsigned_accesses), (events, 2), "{stats:?}");
    // A third memory makes the batch due: one event per memory, however many reads.
    store.persona_recall(PersonaQuery::exact("d", "f", "c")).await.unwrap();
    assert_eq!(store.flush_accesses_if_due().await.unwrap(), 3);
    let stats = store.stats().await.unwrap();
    assert_eq!(stats.unsigned_accesses, 0);
    let b = store.persona_peek(PersonaQuery::exact("d", "f", "b")).await.unwrap().pop().unwrap();
    assert_eq!(b.access_count, 2, "both reads of b are in its signed version");
    store.close().await.unwrap();
    // By age: with no delay allowed, the batch is due at once.
    let store = open(100, 0).await.unwrap();
    store.persona_recall(PersonaQuery::exact("d", "f", "a")).await.unwrap();
    assert_eq!(store.flush_accesses_if_due().await.unwrap(), 1);
}

/// `persona_ingest` decides and writes in one transaction: when the second half of a
/// supersede (marking the old memory) cannot be written, the new memory is not written
/// either.
#[tokio::test]
async fn persona_ingest_supersede_is_whole_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let old = |len: usize| {
        PersonaInput::new("people", "facts", "alice-coffee", "Alice drinks coffee every morning")
            .themes(["x".repeat(len)])
    };
    // The longest theme the old memory can carry (each length tried on a fresh store: a
    // store that held other themes keeps removal markers for them): it then has no room
    // left for the marks a supersede adds (`superseded_by`, `contradicts`).
    let (mut fits, mut too_long) = (1_000usize, 70_000usize);
    let mut probe = 0;
    while too_long - fits > 1 {
        let mid = (fits + too_long) / 2;
        probe += 1;
        let path = dir.path().join(format!("probe{probe}.db"));
        let store = MemoryStore::open(path, test_identity(), StoreOptions::default()).await.unwrap();
        match store.persona_remember(old(mid)).await {
            Ok(_) => fits = mid,
            Err(_) => too_long = mid,
        }
    }
    let store = MemoryStore::open(dir.path().join("m.db"), test_identity(), StoreOptions::default()).await.unwrap();
    // A little below the edge: a payload's length varies by a few bytes from store to store
    // (device ids, times); the marks a supersede adds take over 400.
    store.persona_remember(old(fits - 64)).await.unwrap();
    let new_key = format!("alice-quit-coffee-{}", "k".repeat(200));
    let input = PersonaInput::new("people", "facts", &new_key, "Actually, Alice no longer drinks coffee.");
    assert!(store.persona_ingest(input).await.is_err(), "the old memory cannot take the supersede marks");
    let new = store.persona_peek(PersonaQuery::exact("people", "facts", &new_key)).await.unwrap();
    assert!(new.is_empty(), "no half supersede: the new memory was not written either");
    let old = store.persona_peek(PersonaQuery::exact("people", "facts", "alice-coffee")).await.unwrap();
    assert_eq!(old[0].superseded_by, None);
}

/// A recall reads: it never waits behind a write transaction (another process holding the
/// write lock here), and the accesses it counts are written in one batch later, each one
/// counted once.
#[tokio::test]
async fn persona_recall_is_a_read_that_never_waits_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let store = MemoryStore::open(&path, test_identity(), StoreOptions::default()).await.unwrap();
    store.persona_remember(PersonaInput::new("people", "facts", "alice", "Alice likes tea")).await.unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    let first = store.persona_recall(PersonaQuery::exact("people", "facts", "alice")).await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "waited {:?}", started.elapsed());
    assert_eq!(first[0].access_count, 0, "as it stood before this recall");
    let second = store.persona_recall(PersonaQuery::exact("people", "facts", "alice")).await.unwrap();
    assert_eq!(second[0].access_count, 1, "as it stood: with the first recall's access");
    other.execute_batch("COMMIT").unwrap();
    let peeked = store.persona_peek(PersonaQuery::exact("people", "facts", "alice")).await.unwrap();
    assert_eq!(peeked[0].access_count, 2, "both accesses written, once each");
    store.close().await.unwrap();
    let store = MemoryStore::open(&path, test_identity(), StoreOptions::default()).await.unwrap();
    let again = store.persona_peek(PersonaQuery::exact("people", "facts", "alice")).await.unwrap();
    assert_eq!(again[0].access_count, 2, "and they survive closing");
}

/// Import streams its input: a line past `MAX_IMPORT_LINE` is skipped and counted
/// `oversized`, a line that is not UTF-8 `malformed_event`, and every valid line around them
/// is applied (one bad byte used to abort the whole import).
#[tokio::test]
async fn import_streams_lines_and_skips_and_counts_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (source, _) = open_at(dir.path(), T0).await;
    for i in 0..1200 {
        source.remember(&format!("k{i}"), &format!("value {i}")).await.unwrap();
    }
    let events = source.export_events().await.unwrap();
    let mut input: Vec<u8> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        input.extend_from_slice(e.as_json().as_bytes());
        input.push(b'\n');
        match i {
            10 => input.extend_from_slice(&vec![b'{'; memstr::MAX_IMPORT_LINE + 10]),
            20 => input.extend_from_slice(b"{\"id\": \"\xff\xfe not utf-8\"}"),
            30 => input.extend_from_slice(b"   "),
            _ => continue,
        }
        input.push(b'\n');
    }
    let other = tempfile::tempdir().unwrap();
    let (store, _) = open_at(other.path(), T0).await;
    let mut calls = 0;
    let r = store.import_reader(std::io::Cursor::new(input), |_| calls += 1).await.unwrap();
    assert_eq!(r.applied, events.len() as u64, "{r:?}");
    assert_eq!(r.rejected.get("oversized"), Some(&1), "{r:?}");
    assert_eq!(r.rejected.get("malformed_event"), Some(&1), "{r:?}");
    assert!(calls >= 3, "progress after each batch: {calls}");
    assert_eq!(store.recall("k1199").await.unwrap().unwrap().value, "value 1199");
    assert_eq!(store.stats().await.unwrap().rejected.get("oversized"), Some(&1), "kept in the statistics");
}
