//! Clocks, private relays and copied stores, against real relays: nostr-rs-relay 0.8.12
//! (with `reject_future_seconds` and NIP-42 turned on, as public and private relays run
//! it) and nostr-relay-builder's NIP-42 mode.

mod support;

use std::time::Duration;

use memstr::codec::{Codec, Payload};
use memstr::nostr::{JsonUtil, Keys};
use memstr::sync::SyncOptions;
use memstr::{DTagMode, Memory, MemoryPath, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};
use support::relay::LocalRelay;
use support::*;

/// 2100-01-01, the date the attacks used.
const Y2100: u64 = 4_102_444_800;

fn opts() -> SyncOptions {
    SyncOptions {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(5),
        deadline: Duration::from_secs(30),
        ..Default::default()
    }
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

fn codec() -> Codec {
    Codec::new(Keys::parse(TEST_SECRET).unwrap(), DTagMode::Compatible).unwrap()
}

/// A flat memory of ours, signed with `created_at`.
fn kv_event(key: &str, value: &str, created_at: u64) -> memstr::nostr::Event {
    let payload = Payload::Kv(Memory::new(key, value, created_at as f64));
    codec().record_event(&MemoryPath::Kv { key: key.into() }, &payload, created_at).unwrap()
}

async fn open(dir: &std::path::Path) -> MemoryStore {
    MemoryStore::open(dir.join("memstr.db"), test_identity(), StoreOptions::default()).await.unwrap()
}

async fn sync_clean(store: &MemoryStore) {
    for r in store.sync(&opts()).await.unwrap() {
        assert!(r.error.is_none() && r.refused.is_empty() && r.misbehaved.is_none(), "{r:?}");
    }
}

fn strict_relay() -> LocalRelay {
    LocalRelay::start_with("[options]\nreject_future_seconds = 1800\n")
}

#[tokio::test]
async fn an_event_of_ours_dated_2100_is_quarantined_and_later_edits_still_reach_a_strict_relay() {
    let relay = strict_relay();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = open(da.path()).await;
    let b = open(db.path()).await;
    for s in [&a, &b] {
        s.add_relay(&relay.url(), false).await.unwrap();
    }
    a.remember("k", "v1").await.unwrap();
    let r = a.import_events(vec![kv_event("k", "from 2100", Y2100)]).await.unwrap();
    assert_eq!((r.applied, r.quarantined), (0, 1), "{r:?}");
    assert_eq!(a.stats().await.unwrap().quarantined, 1);
    assert_eq!(a.recall("k").await.unwrap().unwrap().value, "v1");
    // The floor of later writes is not lifted: they are signed now, and the relay takes them.
    let id = a.remember("k", "v2").await.unwrap();
    let exported = a.export_events().await.unwrap();
    let signed = exported.iter().find(|e| e.id.to_hex() == id).unwrap();
    assert!(signed.created_at.as_secs() <= now() + 5, "{}", signed.as_json());
    sync_clean(&a).await;
    sync_clean(&b).await;
    assert_eq!(b.recall("k").await.unwrap().unwrap().value, "v2");
}

#[tokio::test]
async fn a_store_poisoned_by_an_earlier_version_is_repaired_on_open() {
    let relay = strict_relay();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = da.path().join("memstr.db");
    {
        let a = open(da.path()).await;
        a.add_relay(&relay.url(), false).await.unwrap();
        a.remember("k", "v1").await.unwrap();
        a.close().await.unwrap();
    }
    // What memstr before this version let `--now 4102444800` do: the current version of
    // `k` signed in 2100, and a relay's checkpoint lifted to 2100 by a forged event.
    let poisoned = kv_event("k", "read in 2100", Y2100);
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute("DELETE FROM events WHERE kind = 30078", []).unwrap();
        db.execute(
            "INSERT INTO events (id, kind, created_at, json) VALUES (?1, 30078, ?2, ?3)",
            rusqlite::params![poisoned.id.to_hex(), Y2100 as i64, poisoned.as_json()],
        )
        .unwrap();
        db.execute(
            "UPDATE records SET event_id = ?1, created_at = ?2 WHERE path = 'sense-memory/k'",
            rusqlite::params![poisoned.id.to_hex(), Y2100 as i64],
        )
        .unwrap();
        db.execute("UPDATE relays SET checkpoint = ?1", [Y2100 as i64]).unwrap();
    }
    let a = open(da.path()).await;
    let exported = a.export_events().await.unwrap();
    assert!(
        exported.iter().all(|e| e.created_at.as_secs() <= now() + 900),
        "nothing dated in the future is left: {exported:?}"
    );
    let deletion = exported.iter().find(|e| e.kind.as_u16() == 5).expect("a deletion of the poisoned version");
    assert!(deletion.tags.iter().any(|t| t.as_slice() == ["e", &poisoned.id.to_hex()]), "{}", deletion.as_json());
    assert!(!deletion.tags.iter().any(|t| t.as_slice()[0] == "a"), "by event id only: {}", deletion.as_json());
    assert!(a.relays().await.unwrap()[0].checkpoint <= now() as i64, "the checkpoint came back");
    // Later edits are stamped now, and a relay refusing future dates takes every event.
    a.remember("k", "edited after the repair").await.unwrap();
    sync_clean(&a).await;
    let b = open(db.path()).await;
    b.add_relay(&relay.url(), false).await.unwrap();
    sync_clean(&b).await;
    assert_eq!(b.recall("k").await.unwrap().unwrap().value, "edited after the repair");
}

#[tokio::test]
async fn copied_store_directories_edited_apart_converge() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = open(da.path()).await;
    a.add_relay(&relay.url(), false).await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea"])).await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "bob", "knows alice")).await.unwrap();
    sync_clean(&a).await;
    a.close().await.unwrap();
    // Copy the whole store directory, as a user moving to a second machine would.
    for entry in std::fs::read_dir(da.path()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), db.path().join(entry.file_name())).unwrap();
    }
    let a = open(da.path()).await;
    let b = open(db.path()).await;
    let q = || PersonaQuery::exact("people", "facts", "alice");
    // Edited apart: A twice, B once, each with an edit the other lacks.
    a.persona_connect("alice", "bob").await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea", "green"]))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    b.persona_remember(PersonaInput::new("people", "facts", "alice", "switched to coffee").themes(["tea"]))
        .await
        .unwrap();
    sync_clean(&a).await;
    sync_clean(&b).await;
    sync_clean(&a).await;
    let (ma, mb) =
        (a.persona_peek(q()).await.unwrap().pop().unwrap(), b.persona_peek(q()).await.unwrap().pop().unwrap());
    assert_eq!(ma, mb, "the copies converge");
    assert_eq!(ma.value, "switched to coffee", "B's later value edit is not dropped as stale");
    assert!(ma.themes.contains(&"green".to_string()) && ma.connections == ["bob"], "A's edits kept: {ma:?}");
    assert_eq!(ma.sync.vv.len(), 2, "two device ids, not one shared by both copies: {:?}", ma.sync.vv);
}

#[tokio::test]
async fn a_nip42_relay_serves_our_journal_notes_only_after_auth() {
    let relay = LocalRelay::start_with("[authorization]\nnip42_auth = true\nnip42_dms = true\n");
    // A kind-4 note to self (seed 003's journal form), put on the relay directly.
    let keys = Keys::parse(TEST_SECRET).unwrap();
    let content = memstr::codec::Cipher::new(keys.secret_key(), &keys.public_key())
        .unwrap()
        .encrypt(
            &serde_json::json!({"type": "sense-memory:journal", "content": "a private note", "ts": 1.79e9}).to_string(),
        )
        .unwrap();
    let note = memstr::nostr::EventBuilder::new(memstr::nostr::Kind::from(4), content)
        .tag(memstr::nostr::Tag::public_key(keys.public_key()))
        .allow_self_tagging()
        .sign_with_keys(&keys)
        .unwrap();
    let url = memstr::sync::RelayUrl::parse(&relay.url(), false).unwrap();
    let conn = memstr::sync::transport::Connection::connect(&url, Duration::from_secs(5), None).await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&note.as_json()).unwrap();
    let ack = conn.publish(&note.id.to_hex(), value, Duration::from_secs(5)).await.unwrap();
    assert!(ack.accepted, "{ack:?}");
    // Without AUTH, the relay hides it.
    let filter = serde_json::json!({"kinds": [4], "authors": [keys.public_key().to_hex()]});
    let caps = memstr::sync::transport::PageCaps { events: 100, bytes: 1 << 20 };
    let (anon, _) = conn.subscribe(vec![filter]).unwrap().collect_stored(Duration::from_secs(5), caps).await.unwrap();
    assert!(anon.is_empty(), "served before AUTH: {anon:?}");
    drop(conn);
    // memstr answers the challenge with the agent's key and reads it.
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    store.add_relay(&relay.url(), false).await.unwrap();
    let r = store.sync(&opts()).await.unwrap();
    assert!(r[0].error.is_none(), "{r:?}");
    let journal = store.recent(10).await.unwrap();
    assert!(journal.iter().any(|j| j.content == "a private note"), "{journal:?} {r:?}");
}

#[tokio::test]
async fn a_relay_that_refuses_reads_and_writes_without_auth_syncs_after_auth() {
    use nostr_relay_builder::prelude::{RateLimit, RelayBuilder, RelayBuilderNip42, RelayBuilderNip42Mode};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let builder = RelayBuilder::default()
        .port(port)
        .nip42(RelayBuilderNip42 { mode: RelayBuilderNip42Mode::Both })
        .rate_limit(RateLimit { max_reqs: 500, notes_per_minute: 100_000 });
    let relay = nostr_relay_builder::LocalRelay::new(builder);
    relay.run().await.unwrap();
    let url = relay.url().await.to_string();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = open(da.path()).await;
    let b = open(db.path()).await;
    for s in [&a, &b] {
        s.add_relay(&url, false).await.unwrap();
    }
    a.remember("k", "behind auth").await.unwrap();
    a.journal("a day behind auth").await.unwrap();
    let ra = a.sync(&opts()).await.unwrap();
    assert!(ra[0].error.is_none() && ra[0].refused.is_empty(), "{ra:?}");
    assert_eq!(ra[0].pushed, 3, "two memories and the relay list: {ra:?}");
    let rb = b.sync(&opts()).await.unwrap();
    assert!(rb[0].error.is_none(), "{rb:?}");
    assert_eq!(b.recall("k").await.unwrap().unwrap().value, "behind auth");
    assert_eq!(b.recent(1).await.unwrap()[0].content, "a day behind auth");
}
