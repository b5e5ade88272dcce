//! Sync through a real nostr-rs-relay 0.8.12 process (relay-fixtures/install-relay.sh).

mod support;

use std::time::Duration;

use memstr::sync::transport::{Connection, PageCaps};
use memstr::sync::{RelayUrl, SyncOptions};
use memstr::{MemoryStore, PersonaInput, PersonaQuery};
use serde_json::json;
use support::relay::LocalRelay;
use support::*;

/// A fixed instant in the past (2026-09-21): payload times only; events are signed with the
/// system clock's time.
const T0: f64 = 1_790_000_000.0;

fn opts() -> SyncOptions {
    SyncOptions { timeout: Duration::from_secs(10), connect_timeout: Duration::from_secs(5), ..Default::default() }
}

async fn device(dir: &std::path::Path, relays: &[&LocalRelay]) -> (MemoryStore, std::sync::Arc<memstr::ManualClock>) {
    let (store, clock) = open_at(dir, T0).await;
    for r in relays {
        store.add_relay(&r.url(), false).await.unwrap();
    }
    (store, clock)
}

async fn sync_ok(store: &MemoryStore) {
    for r in store.sync(&opts()).await.unwrap() {
        assert!(r.error.is_none(), "{r:?}");
        assert!(r.refused.is_empty(), "{r:?}");
    }
}

/// What a fresh reader sees on the relay: all events of our key, by id.
async fn relay_events(url: &str) -> Vec<serde_json::Value> {
    let conn = Connection::connect(&RelayUrl::parse(url, false).unwrap(), Duration::from_secs(5), None).await.unwrap();
    let filter = json!({"authors": [test_identity().public_key().to_hex()]});
    conn.subscribe(vec![filter])
        .unwrap()
        .collect_stored(Duration::from_secs(10), PageCaps { events: 100_000, bytes: 1 << 30 })
        .await
        .unwrap()
        .0
}

#[tokio::test]
async fn two_devices_converge_after_offline_edits() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, ca) = device(da.path(), &[&relay]).await;
    let (b, cb) = device(db.path(), &[&relay]).await;
    // Offline on both.
    a.remember("from-a", "written on the laptop").await.unwrap();
    a.journal("laptop diary").await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea"])).await.unwrap();
    b.remember("from-b", "written on the server").await.unwrap();
    b.persona_remember(PersonaInput::new("projects", "decisions", "db", "SQLite")).await.unwrap();
    // The same key on both: the later write wins everywhere. Later means later by the
    // system clock, which signs every event (a store's own clock dates only payloads).
    ca.set(T0 + 10.0);
    a.remember("shared", "a's version").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    cb.set(T0 + 20.0);
    b.remember("shared", "b's version").await.unwrap();

    sync_ok(&a).await;
    sync_ok(&b).await;
    sync_ok(&a).await;

    for s in [&a, &b] {
        let all: Vec<(String, String)> = s.recall_all().await.unwrap().into_iter().map(|m| (m.key, m.value)).collect();
        assert_eq!(
            all,
            [
                ("from-a".to_string(), "written on the laptop".to_string()),
                ("from-b".into(), "written on the server".into()),
                ("shared".into(), "b's version".into())
            ]
        );
        assert_eq!(s.recent(5).await.unwrap()[0].content, "laptop diary");
        assert_eq!(s.persona_peek(PersonaQuery::all()).await.unwrap().len(), 2);
        let st = s.stats().await.unwrap();
        assert_eq!(st.outbox, 0, "everything acknowledged");
    }
    assert_eq!(a.persona_peek(PersonaQuery::all()).await.unwrap(), b.persona_peek(PersonaQuery::all()).await.unwrap());
    // The relay holds one version per record: nothing duplicated.
    let events = relay_events(&relay.url()).await;
    assert_eq!(events.len() as u64, a.stats().await.unwrap().events);
}

#[tokio::test]
async fn forget_holds_across_devices_and_against_a_stale_republish() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, ca) = device(da.path(), &[&relay]).await;
    let (b, _) = device(db.path(), &[&relay]).await;
    a.remember("secret", "the plan").await.unwrap();
    sync_ok(&a).await;
    sync_ok(&b).await;
    assert!(b.recall("secret").await.unwrap().is_some());
    // The memory's version (the relay also holds the agent's relay list, kind 10013).
    let old: Vec<_> = relay_events(&relay.url()).await.into_iter().filter(|e| e["kind"] == 30078).collect();
    assert_eq!(old.len(), 1);

    ca.set(T0 + 60.0);
    a.forget("secret").await.unwrap();
    sync_ok(&a).await;
    sync_ok(&b).await;
    assert!(b.recall("secret").await.unwrap().is_none(), "forgotten on the other device");

    // A stale device sends the old version again, straight to the relay.
    let conn = Connection::connect(&RelayUrl::parse(&relay.url(), false).unwrap(), Duration::from_secs(5), None)
        .await
        .unwrap();
    let ack = conn.publish(old[0]["id"].as_str().unwrap(), old[0].clone(), Duration::from_secs(5)).await.unwrap();
    drop(conn);
    let _ = ack; // whatever the relay says, readers must not bring it back
    let mut full = opts();
    full.full = true;
    for r in b.sync(&full).await.unwrap() {
        assert!(r.error.is_none(), "{r:?}");
    }
    assert!(b.recall("secret").await.unwrap().is_none(), "the stale version did not resurrect it");
    // And the relay serves no version of the memory itself.
    let served = relay_events(&relay.url()).await;
    assert!(
        served.iter().all(|e| e["kind"] != 30078 || e["id"] != old[0]["id"]),
        "nostr-rs-relay hides the e-deleted version"
    );
}

#[tokio::test]
async fn a_relay_killed_mid_push_loses_nothing_and_duplicates_nothing() {
    let mut relay = LocalRelay::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = device(dir.path(), &[&relay]).await;
    for i in 0..400 {
        a.remember(&format!("k{i:03}"), &format!("value {i}")).await.unwrap();
    }
    let pushing = {
        let a = a.clone();
        tokio::spawn(async move {
            let mut o = opts();
            o.window = 20;
            a.sync(&o).await.unwrap()
        })
    };
    // Kill it as soon as the first acknowledgements land: mid-push.
    // 400 memories and the relay list.
    while a.stats().await.unwrap().outbox == 401 {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    relay.kill();
    let reports = pushing.await.unwrap();
    let pending_after_kill = reports[0].pending;
    assert!(reports[0].error.is_some() && pending_after_kill > 0, "the kill interrupted the push: {reports:?}");
    relay.restart();
    sync_ok(&a).await;
    assert_eq!(a.stats().await.unwrap().outbox, 0);
    let served = relay_events(&relay.url()).await;
    let served = served.iter().filter(|e| e["kind"] == 30078).count();
    assert_eq!(served, 400, "every memory exactly once (pending after the kill: {pending_after_kill})");
    let dir_b = tempfile::tempdir().unwrap();
    let (b, _) = device(dir_b.path(), &[&relay]).await;
    sync_ok(&b).await;
    assert_eq!(b.recall_all().await.unwrap().len(), 400);
}

#[tokio::test]
async fn two_relays_one_down_during_writes_are_healed() {
    let r1 = LocalRelay::start();
    let mut r2 = LocalRelay::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = device(dir.path(), &[&r1, &r2]).await;
    r2.kill();
    for i in 0..20 {
        a.remember(&format!("k{i}"), "v").await.unwrap();
    }
    let reports = a.sync(&opts()).await.unwrap();
    let (ok, down): (Vec<_>, Vec<_>) = reports.iter().partition(|r| r.url == r1.url());
    // The 20 memories and the relay list.
    assert!(ok[0].error.is_none() && ok[0].pushed == 21, "{ok:?}");
    assert!(down[0].error.is_some() && down[0].pending == 21, "{down:?}");
    assert_eq!(a.stats().await.unwrap().outbox, 21, "not on every relay yet");
    let info = a.relays().await.unwrap();
    assert!(info.iter().any(|r| r.last_error.is_some()));
    r2.restart();
    sync_ok(&a).await;
    assert_eq!(a.stats().await.unwrap().outbox, 0);
    // A device that only knows the healed relay has everything.
    let dir_b = tempfile::tempdir().unwrap();
    let (b, _) = device(dir_b.path(), &[&r2]).await;
    sync_ok(&b).await;
    assert_eq!(b.recall_all().await.unwrap().len(), 20);
}

#[tokio::test]
async fn live_mode_shows_changes_within_seconds_and_survives_a_relay_restart() {
    let mut relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = device(da.path(), &[&relay]).await;
    let (b, _) = device(db.path(), &[&relay]).await;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let watcher = {
        let a = a.clone();
        tokio::spawn(async move {
            a.watch(opts(), async {
                let _ = stop_rx.await;
            })
            .await
        })
    };
    let wait_for = |store: MemoryStore, key: &'static str| async move {
        for _ in 0..100 {
            if store.recall(key).await.unwrap().is_some() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    b.remember("first", "hello").await.unwrap();
    sync_ok(&b).await;
    assert!(wait_for(a.clone(), "first").await, "live update within 10 s");
    // Local writes on the watching device go out without a sync call.
    a.remember("from-watcher", "pushed live").await.unwrap();
    let mut seen = false;
    for _ in 0..50 {
        sync_ok(&b).await;
        if b.recall("from-watcher").await.unwrap().is_some() {
            seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(seen, "the watcher pushed its own write");
    relay.restart();
    b.remember("after-restart", "still live").await.unwrap();
    sync_ok(&b).await;
    assert!(wait_for(a.clone(), "after-restart").await, "reconnected after the relay restart");
    stop_tx.send(()).unwrap();
    watcher.await.unwrap().unwrap();
}

#[tokio::test]
async fn concurrent_persona_edits_merge_without_loss_and_converge() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, ca) = device(da.path(), &[&relay]).await;
    let (b, cb) = device(db.path(), &[&relay]).await;
    let q = || PersonaQuery::exact("people", "facts", "alice");
    a.persona_remember(PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea", "mornings"]))
        .await
        .unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "bob", "knows alice")).await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "carol", "knows alice")).await.unwrap();
    sync_ok(&a).await;
    sync_ok(&b).await;

    // Offline on both: A connects, adds a theme and reads three times; B changes the
    // value later, drops a theme, connects elsewhere and reads twice.
    ca.set(T0 + 100.0);
    a.persona_connect("alice", "bob").await.unwrap();
    a.persona_remember(PersonaInput::new("people", "facts", "alice", "likes tea").themes(["tea", "mornings", "green"]))
        .await
        .unwrap();
    for _ in 0..3 {
        a.persona_recall(q()).await.unwrap();
    }
    a.flush_accesses().await.unwrap();
    cb.set(T0 + 200.0);
    b.persona_remember(PersonaInput::new("people", "facts", "alice", "switched to coffee").themes(["mornings"]))
        .await
        .unwrap();
    b.persona_connect("alice", "carol").await.unwrap();
    for _ in 0..2 {
        b.persona_recall(q()).await.unwrap();
    }
    b.flush_accesses().await.unwrap();

    for _ in 0..2 {
        sync_ok(&a).await;
        sync_ok(&b).await;
    }
    let ma = a.persona_peek(q()).await.unwrap().pop().unwrap();
    let mb = b.persona_peek(q()).await.unwrap().pop().unwrap();
    assert_eq!(ma, mb, "both devices hold the same merged memory");
    assert_eq!(ma.value, "switched to coffee", "the later value edit wins");
    let mut themes = ma.themes.clone();
    themes.sort();
    assert_eq!(themes, ["green", "mornings"], "A's added theme kept, B's removal of tea kept");
    let mut conns = ma.connections.clone();
    conns.sort();
    assert_eq!(conns, ["bob", "carol"], "both connections kept");
    assert_eq!(ma.access_count, 5, "3 reads on A plus 2 on B");
    assert_eq!(ma.last_accessed, T0 + 200.0);
    // Settled: another round changes nothing and the relay holds one version.
    let again = a.sync(&opts()).await.unwrap();
    assert_eq!((again[0].pulled.applied, again[0].pulled.merged, again[0].pushed), (0, 0, 0), "{again:?}");
    let served = relay_events(&relay.url()).await;
    // A default store: the relay holds alice under her blinded d tag.
    let codec =
        memstr::codec::Codec::new(memstr::nostr::Keys::parse(TEST_SECRET).unwrap(), memstr::DTagMode::Blinded).unwrap();
    let alice = codec.d_tag(&memstr::MemoryPath::Persona {
        domain: "people".into(),
        facet: "facts".into(),
        key: "alice".into(),
    });
    let alice_versions =
        served.iter().filter(|e| e["tags"].as_array().unwrap().iter().any(|t| t[1] == alice.as_str())).count();
    assert_eq!(alice_versions, 1);
}

#[tokio::test]
async fn same_second_edits_on_two_devices_converge_despite_first_arrival_relays() {
    // nostr-rs-relay keeps the first of two versions with equal created_at and answers the
    // other "duplicate:"; NIP-01 (and memstr) prefer the lower id. The device holding the
    // lower id must get its version onto the relay, or the two devices never agree.
    for round in 0..6 {
        let relay = LocalRelay::start();
        let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (a, _) = device(da.path(), &[&relay]).await;
        let (b, _) = device(db.path(), &[&relay]).await;
        a.remember("k", &format!("a{round}")).await.unwrap();
        b.remember("k", &format!("b{round}")).await.unwrap();
        for _ in 0..3 {
            sync_ok(&a).await;
            sync_ok(&b).await;
        }
        let (va, vb) = (a.recall("k").await.unwrap().unwrap().value, b.recall("k").await.unwrap().unwrap().value);
        assert_eq!(va, vb, "round {round}: devices disagree");
        let served = relay_events(&relay.url()).await;
        let on_relay: Vec<&serde_json::Value> = served.iter().filter(|e| e["kind"] == 30078).collect();
        assert_eq!(on_relay.len(), 1);
        let keys = memstr::nostr::Keys::parse(TEST_SECRET).unwrap();
        let plain = memstr::codec::Cipher::new(keys.secret_key(), &keys.public_key())
            .unwrap()
            .decrypt(on_relay[0]["content"].as_str().unwrap())
            .unwrap();
        let served_value: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(served_value["value"].as_str(), Some(va.as_str()), "round {round}: the relay serves the winner");
    }
}

/// A new device whose first pull needs more than one pass's allowance of events gets every
/// memory over several passes: each pass goes on below where the last one stopped (it used
/// to start again from the newest, so a store past the allowance never arrived whole), and
/// the relay is never called misbehaving for serving the full pages it was asked for.
#[tokio::test]
async fn a_pull_larger_than_one_pass_goes_on_where_it_stopped() {
    use memstr::codec::Cipher;
    use memstr::nostr::{EventBuilder, Keys, Kind, Tag, Timestamp};
    const N: u64 = 150;
    let relay = LocalRelay::start();
    let keys = Keys::parse(TEST_SECRET).unwrap();
    let cipher = Cipher::new(keys.secret_key(), &keys.public_key()).unwrap();
    // Seven seconds apart, a day ago: pages end inside the window, not on one second.
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() - 86_400;
    let events: Vec<_> = (0..N)
        .map(|i| {
            let payload =
                json!({"type": "sense-memory:kv", "key": format!("n{i}"), "value": format!("value {i}"), "ts": T0});
            EventBuilder::new(Kind::from(30078), cipher.encrypt(&payload.to_string()).unwrap())
                .tags([Tag::identifier(format!("sense-memory/n{i}"))])
                .custom_created_at(Timestamp::from(start + i * 7))
                .sign_with_keys(&keys)
                .unwrap()
        })
        .collect();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Plain d tags, as the published client writes them: a store in that mode pushes them.
    let (a, _) = open_compatible_at(da.path(), T0).await;
    a.add_relay(&relay.url(), false).await.unwrap();
    assert_eq!(a.import_events(events).await.unwrap().applied, N);
    sync_ok(&a).await;

    let (b, _) = device(db.path(), &[&relay]).await;
    let small = SyncOptions { max_events: 60, page: 25, ..opts() };
    let mut passes = 0;
    loop {
        passes += 1;
        assert!(passes <= 5, "the pull never finished");
        let r = b.sync(&small).await.unwrap().remove(0);
        assert_eq!(r.misbehaved, None, "pass {passes}: {r:?}");
        assert!(r.pulled.applied > 0 || r.error.is_none(), "pass {passes} made no progress: {r:?}");
        match &r.error {
            Some(e) => assert!(e.contains("allowance") && e.contains("goes on"), "pass {passes}: {e}"),
            None => break,
        }
    }
    // 150 memories and the relay list, 60 events a pass (a page's boundary second is read
    // again by the pass after it).
    assert_eq!(passes, 3);
    assert_eq!(b.recall_all().await.unwrap().len() as u64, N);
    let info = b.relays().await.unwrap().remove(0);
    assert_eq!((info.misbehaving, info.backoff_until, info.last_error), (None, None, None));
    assert!(info.last_full.is_some() && info.checkpoint > 0);

    // `sync_to_end` runs the same passes in one call, saying how each went, and stops at
    // its bound of passes with the read still going on.
    let (dc, dd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c, _) = device(dc.path(), &[&relay]).await;
    let mut seen = Vec::new();
    let total = c.sync_to_end(&small, 10, |pass, reports| seen.push((pass, reports[0].read_goes_on()))).await.unwrap();
    assert_eq!(seen, [(1, true), (2, true), (3, false)]);
    assert_eq!((total.len(), total[0].error.as_deref(), total[0].read_goes_on()), (1, None, false), "{total:?}");
    assert_eq!(total[0].pulled.applied, N, "the three passes' counts add up: {total:?}");
    assert_eq!(c.recall_all().await.unwrap().len() as u64, N);
    let (d, _) = device(dd.path(), &[&relay]).await;
    let one = d.sync_to_end(&small, 1, |_, _| {}).await.unwrap();
    assert!(one[0].read_goes_on() && one[0].error.as_deref().is_some_and(|e| e.contains("goes on")), "{one:?}");

    // The finished read set the checkpoint: what comes later arrives by a read since it.
    a.remember("late", "written after the first pull").await.unwrap();
    sync_ok(&a).await;
    let r = b.sync(&opts()).await.unwrap().remove(0);
    assert_eq!((r.error.as_deref(), r.method.as_str()), (None, "since"), "{r:?}");
    assert_eq!(b.recall("late").await.unwrap().map(|m| m.value).as_deref(), Some("written after the first pull"));
}
