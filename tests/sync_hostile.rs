//! A hostile relay: every bad event it serves is refused and counted, none is fatal, and
//! the good one beside them is applied.
//!
//! TEST DOUBLE: nostr-rs-relay verifies what it stores, so it cannot serve forged or
//! garbled events. This is a minimal websocket relay written for the test, which answers
//! every `REQ` with a fixed set of events.

mod support;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use memstr::codec::Cipher;
use memstr::nostr::{EventBuilder, JsonUtil, Keys, Kind, Tag};
use memstr::sync::SyncOptions;
use serde_json::{json, Value};
use support::*;
use tokio_tungstenite::tungstenite::Message;

fn event(keys: &Keys, d: &str, plaintext: &str) -> Value {
    let content = Cipher::new(keys.secret_key(), &keys.public_key()).unwrap().encrypt(plaintext).unwrap();
    let e = EventBuilder::new(Kind::from(30078), content).tag(Tag::identifier(d)).sign_with_keys(keys).unwrap();
    serde_json::from_str(&e.as_json()).unwrap()
}

fn kv(key: &str, value: &str) -> String {
    json!({"type": "sense-memory:kv", "key": key, "value": value, "ts": 1.8e9}).to_string()
}

/// The events the hostile relay serves.
fn payloads() -> Vec<Value> {
    let me = Keys::parse(TEST_SECRET).unwrap();
    let good = event(&me, "sense-memory/good", &kv("good", "kept"));
    let mut forged = event(&me, "sense-memory/victim", &kv("victim", "forged"));
    forged["content"] = event(&me, "sense-memory/victim", &kv("victim", "swapped"))["content"].clone();
    let stranger = Keys::generate();
    let foreign = event(&stranger, "sense-memory/victim", &kv("victim", "not yours"));
    let garbled = json!({"id": "zz", "kind": "thirty", "tags": "none"});
    let mut oversized = event(&me, "sense-memory/big", &kv("big", "x"));
    // Re-sign a huge content so only its size is wrong.
    let huge = EventBuilder::new(Kind::from(30078), "A".repeat(200_000))
        .tag(Tag::identifier("sense-memory/big"))
        .sign_with_keys(&me)
        .unwrap();
    oversized = serde_json::from_str::<Value>(&huge.as_json()).unwrap_or(oversized);
    let to_other = Cipher::new(me.secret_key(), &stranger.public_key()).unwrap().encrypt(&kv("victim", "x")).unwrap();
    let undecryptable: Value = serde_json::from_str(
        &EventBuilder::new(Kind::from(30078), to_other)
            .tag(Tag::identifier("sense-memory/victim"))
            .sign_with_keys(&me)
            .unwrap()
            .as_json(),
    )
    .unwrap();
    vec![forged, foreign, garbled, oversized, undecryptable, good]
}

async fn hostile_relay() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else { return };
                while let Some(Ok(Message::Text(text))) = ws.next().await {
                    let msg: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                    let replies: Vec<Value> = match msg[0].as_str() {
                        Some("REQ") => {
                            let id = msg[1].clone();
                            let wants_memories = msg[2]["kinds"].as_array().is_some_and(|k| k.contains(&json!(30078)));
                            let served = if wants_memories { payloads() } else { Vec::new() };
                            let mut r: Vec<Value> = served.into_iter().map(|e| json!(["EVENT", id, e])).collect();
                            r.push(json!(["EOSE", id]));
                            r
                        }
                        Some("EVENT") => vec![json!(["OK", msg[1]["id"], true, ""])],
                        Some("NEG-OPEN") => vec![json!(["NOTICE", "unknown command"])],
                        _ => vec![],
                    };
                    for r in replies {
                        if ws.send(Message::Text(r.to_string().into())).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    url
}

#[tokio::test]
async fn a_relay_serving_forged_foreign_garbled_and_oversized_events_is_survived_and_counted() {
    let url = hostile_relay().await;
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), 1.8e9).await;
    store.remember("victim", "original").await.unwrap();
    store.add_relay(&url, false).await.unwrap();
    let opts = SyncOptions { timeout: Duration::from_secs(5), ..Default::default() };
    let reports = store.sync(&opts).await.unwrap();
    let r = &reports[0];
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(r.pulled.applied, 1, "{r:?}");
    let rejected = &r.pulled.rejected;
    for reason in ["bad_signature", "foreign_author", "malformed_event", "oversized", "undecryptable"] {
        assert_eq!(rejected.get(reason), Some(&1), "{reason}: {rejected:?}");
    }
    assert_eq!(store.recall("good").await.unwrap().unwrap().value, "kept");
    assert_eq!(store.recall("victim").await.unwrap().unwrap().value, "original");
    let stats = store.stats().await.unwrap();
    assert_eq!(stats.rejected.get("bad_signature"), Some(&1), "counted in the store's statistics");
    // A second pass counts again and still changes nothing.
    store.sync(&opts).await.unwrap();
    assert_eq!(store.stats().await.unwrap().rejected.get("foreign_author"), Some(&2));
    assert_eq!(store.recall("victim").await.unwrap().unwrap().value, "original");
}

// ---------------------------------------------------------------------------------------
// Attacks on the pass itself: each must end by itself, leave the honest nostr-rs-relay
// beside it fully synced, and be counted and reported (relay-fixtures/hostile_relay.rs).
// ---------------------------------------------------------------------------------------

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;

use hostile_relay::{Attack, HostileRelay};
use memstr::sync::RelayReport;
use memstr::MemoryStore;
use std::time::Instant;
use support::relay::LocalRelay;

/// Short bounds, so an attack is cut off in seconds.
fn bounded() -> SyncOptions {
    SyncOptions {
        timeout: Duration::from_secs(3),
        connect_timeout: Duration::from_secs(3),
        deadline: Duration::from_secs(8),
        ..Default::default()
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A store with 20 memories, syncing with `hostile` and an honest relay. Returns the reports
/// of one pass (hostile first), how long it took, and the store.
async fn attacked(
    hostile: &HostileRelay,
    honest: &LocalRelay,
    opts: SyncOptions,
) -> (RelayReport, RelayReport, Duration, MemoryStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), 1.79e9).await;
    for i in 0..20 {
        store.remember(&format!("k{i}"), "kept").await.unwrap();
    }
    store.add_relay(&hostile.url(), false).await.unwrap();
    store.add_relay(&honest.url(), false).await.unwrap();
    let started = Instant::now();
    let reports = store.sync(&opts).await.unwrap();
    let took = started.elapsed();
    let find = |url: &str| reports.iter().find(|r| r.url == url).cloned().unwrap();
    (find(&hostile.url()), find(&honest.url()), took, store, dir)
}

/// The honest relay got everything: a second device reading only it finds all 20.
async fn honest_relay_holds_everything(honest: &LocalRelay, report: &RelayReport) {
    assert!(report.error.is_none() && report.misbehaved.is_none(), "{report:?}");
    // The 20 memories and the relay list (signed when the relays were added).
    assert_eq!(report.pushed, 21, "{report:?}");
    let dir = tempfile::tempdir().unwrap();
    let (other, _) = open_at(dir.path(), 1.79e9).await;
    other.add_relay(&honest.url(), false).await.unwrap();
    let r = other.sync(&bounded()).await.unwrap();
    assert!(r[0].error.is_none(), "{r:?}");
    for i in 0..20 {
        assert_eq!(other.recall(&format!("k{i}")).await.unwrap().unwrap().value, "kept");
    }
}

async fn misbehaving(store: &MemoryStore, url: &str) -> Option<String> {
    let info = store.relays().await.unwrap().into_iter().find(|r| r.url == url).unwrap();
    if info.misbehaving.is_some() {
        assert!(info.backoff_until.is_some_and(|t| t > now_secs()), "backed off: {info:?}");
    }
    info.misbehaving
}

#[tokio::test]
async fn endless_pages_of_fresh_junk_end_the_pass_as_misbehaving() {
    let (hostile, honest) = (HostileRelay::start(Attack::EndlessPages).await, LocalRelay::start());
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, bounded()).await;
    assert!(took < Duration::from_secs(11), "the pass ended by itself: {took:?}");
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("no honest relay serves")), "{bad:?}");
    assert!(bad.pulled.rejected.get("foreign_author").is_some_and(|n| *n > 100), "counted: {bad:?}");
    assert!(hostile.stats().reqs < 10, "cut off after a page or two, not {} requests", hostile.stats().reqs);
    assert!(misbehaving(&store, &hostile.url()).await.is_some());
    honest_relay_holds_everything(&honest, &good).await;
    // Backed off: the next pass does not talk to it at all.
    let reqs = hostile.stats().reqs;
    let again = store.sync(&bounded()).await.unwrap();
    let bad = again.iter().find(|r| r.url == hostile.url()).unwrap();
    assert!(bad.error.as_deref().is_some_and(|e| e.contains("backed off")), "{bad:?}");
    assert_eq!(hostile.stats().reqs, reqs);
}

/// Our own valid events, served whatever the window: the relay ignores `until`.
#[tokio::test]
async fn a_relay_ignoring_until_is_caught_when_its_page_leaves_the_window() {
    let me = Keys::parse(TEST_SECRET).unwrap();
    let now = now_secs() as u64;
    let served: Vec<Value> = (0..10)
        .map(|i| {
            let content =
                Cipher::new(me.secret_key(), &me.public_key()).unwrap().encrypt(&kv(&format!("old{i}"), "v")).unwrap();
            let e = EventBuilder::new(Kind::from(30078), content)
                .tag(Tag::identifier(format!("sense-memory/old{i}")))
                .custom_created_at(memstr::nostr::Timestamp::from(now - 100 - i))
                .sign_with_keys(&me)
                .unwrap();
            serde_json::from_str(&e.as_json()).unwrap()
        })
        .collect();
    let (hostile, honest) = (HostileRelay::start(Attack::Serve(served)).await, LocalRelay::start());
    let opts = SyncOptions { page: 10, ..bounded() };
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, opts).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert_eq!(bad.pulled.applied, 10, "its events were still read once: {bad:?}");
    assert!(bad.pulled.rejected.get("out_of_window").is_some_and(|n| *n >= 10), "{bad:?}");
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("nothing in the requested window")), "{bad:?}");
    assert!(hostile.stats().reqs <= 6, "the window moved every page: {} requests", hostile.stats().reqs);
    assert!(misbehaving(&store, &hostile.url()).await.is_some());
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn created_at_of_minus_two_to_the_63_neither_panics_nor_loops() {
    let (hostile, honest) = (HostileRelay::start(Attack::MinTimestamp).await, LocalRelay::start());
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, bounded()).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert!(bad.pulled.rejected.get("malformed_event").is_some_and(|n| *n > 0), "{bad:?}");
    assert!(bad.misbehaved.is_some(), "{bad:?}");
    assert!(misbehaving(&store, &hostile.url()).await.is_some());
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn endless_negentropy_falls_back_to_since_reads_and_is_not_marked_capable() {
    let (hostile, honest) =
        (HostileRelay::start(Attack::EndlessNegentropy { ids: hostile_relay::NEG_IDS }).await, LocalRelay::start());
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, bounded()).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert!(bad.error.is_none(), "the since read after it completed: {bad:?}");
    assert_eq!(bad.pushed, 21, "the memories and the relay list: {bad:?}");
    assert!(bad.misbehaved.is_some(), "{bad:?}");
    assert!(hostile.stats().neg_msgs <= 2, "no endless rounds: {:?}", hostile.stats());
    let info = store.relays().await.unwrap().into_iter().find(|r| r.url == hostile.url()).unwrap();
    assert_eq!(info.negentropy, Some(false), "{info:?}");
    assert!(info.misbehaving.is_some(), "{info:?}");
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn nip77_rounds_are_capped_and_the_pass_falls_back_to_since_reads() {
    // Small messages this time, so only the round cap can end the session.
    let attack = Attack::EndlessNegentropy { ids: 50 };
    let (hostile, honest) = (HostileRelay::start(attack).await, LocalRelay::start());
    let opts = SyncOptions { neg_rounds: 10, ..bounded() };
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, opts).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("more than 10 rounds")), "{bad:?}");
    assert_eq!((bad.method.as_str(), bad.pushed, bad.error.as_deref()), ("full", 21, None), "{bad:?}");
    assert!(hostile.stats().neg_msgs <= 12, "{:?}", hostile.stats());
    let info = store.relays().await.unwrap().into_iter().find(|r| r.url == hostile.url()).unwrap();
    assert_eq!(info.negentropy, Some(false), "{info:?}");
    honest_relay_holds_everything(&honest, &good).await;
    // And the ids it names are capped by what is left of the pass's event cap.
    let (hostile, honest) = (HostileRelay::start(Attack::EndlessNegentropy { ids: 300 }).await, LocalRelay::start());
    let opts = SyncOptions { max_events: 500, ..bounded() };
    let (bad, _, _, _, _dir) = attacked(&hostile, &honest, opts).await;
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("we lack")), "{bad:?}");
}

#[tokio::test]
async fn a_stuck_relay_is_cut_off_and_never_delays_the_honest_one() {
    let attack = Attack::Stuck { every: Duration::from_millis(500) };
    let (hostile, honest) = (HostileRelay::start(attack).await, LocalRelay::start());
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, bounded()).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("without EOSE")), "{bad:?}");
    assert!(misbehaving(&store, &hostile.url()).await.is_some());
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn huge_events_are_refused_before_they_are_buffered() {
    let attack = Attack::HugeEvents { bytes: 3 << 20 };
    let (hostile, honest) = (HostileRelay::start(attack).await, LocalRelay::start());
    let (bad, good, took, store, _dir) = attacked(&hostile, &honest, bounded()).await;
    assert!(took < Duration::from_secs(11), "{took:?}");
    assert!(bad.misbehaved.as_deref().is_some_and(|m| m.contains("limit")), "{bad:?}");
    assert!(misbehaving(&store, &hostile.url()).await.is_some());
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn events_dated_2100_neither_apply_nor_move_the_checkpoint() {
    let me = Keys::parse(TEST_SECRET).unwrap();
    let sign = |keys: &Keys, d: &str, at: u64| -> Value {
        let content = Cipher::new(keys.secret_key(), &keys.public_key()).unwrap().encrypt(&kv(d, "from 2100")).unwrap();
        let e = EventBuilder::new(Kind::from(30078), content)
            .tag(Tag::identifier(format!("sense-memory/{d}")))
            .custom_created_at(memstr::nostr::Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap();
        serde_json::from_str(&e.as_json()).unwrap()
    };
    let mut forged = sign(&me, "forged", 4_102_444_800);
    forged["content"] = sign(&me, "forged", 4_102_444_800)["content"].clone();
    let ours = sign(&me, "future", 4_102_444_800);
    let (hostile, honest) = (HostileRelay::start(Attack::Serve(vec![forged, ours])).await, LocalRelay::start());
    let opts = SyncOptions { full: true, ..bounded() };
    let (bad, good, _, store, _dir) = attacked(&hostile, &honest, opts).await;
    assert!(bad.error.is_none(), "{bad:?}");
    // A pass asks for events up to its start plus the 15-minute slack: both are outside.
    assert!(bad.pulled.rejected.get("out_of_window").is_some_and(|n| *n >= 2), "{bad:?}");
    assert_eq!((bad.pulled.applied, bad.pulled.quarantined), (0, 0), "{bad:?}");
    assert!(store.recall("future").await.unwrap().is_none());
    let info = store.relays().await.unwrap().into_iter().find(|r| r.url == hostile.url()).unwrap();
    assert!(info.checkpoint <= now_secs(), "the checkpoint stays at the read's start: {info:?}");
    // The same event of ours, arriving where no window applies (a live subscription, an
    // import), waits in the quarantine instead.
    let ours: Vec<memstr::nostr::Event> = vec![serde_json::from_value(sign(&me, "future", 4_102_444_800)).unwrap()];
    assert_eq!(store.import_events(ours).await.unwrap().quarantined, 1);
    assert_eq!(store.stats().await.unwrap().quarantined, 1);
    honest_relay_holds_everything(&honest, &good).await;
}

#[tokio::test]
async fn a_live_flood_is_cut_off_while_the_honest_relay_stays_live() {
    let attack = Attack::LiveFlood { bytes: 60_000 };
    let (hostile, honest) = (HostileRelay::start(attack).await, LocalRelay::start());
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = open_at(da.path(), 1.79e9).await;
    let (b, _) = open_at(db.path(), 1.79e9).await;
    a.add_relay(&hostile.url(), false).await.unwrap();
    a.add_relay(&honest.url(), false).await.unwrap();
    b.add_relay(&honest.url(), false).await.unwrap();
    let watcher = a.clone();
    let opts = bounded();
    let live = tokio::spawn(async move { watcher.watch(opts, tokio::time::sleep(Duration::from_secs(20))).await });
    tokio::time::sleep(Duration::from_secs(2)).await;
    b.remember("through-the-honest-relay", "arrived").await.unwrap();
    b.sync(&bounded()).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let got = a.recall("through-the-honest-relay").await.unwrap();
        let flagged = misbehaving(&a, &hostile.url()).await;
        if let (Some(_), Some(rule)) = (&got, &flagged) {
            assert!(rule.contains("live subscription"), "{rule}");
            break;
        }
        assert!(Instant::now() < deadline, "live write arrived: {got:?}; flood flagged: {flagged:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    live.abort();
    let rejected = a.stats().await.unwrap().rejected.get("foreign_author").copied().unwrap_or(0);
    assert!(rejected > 100, "the flood was counted: {rejected}");
}

/// The live subscription opens before the catch-up and is read through it: a flood that
/// starts while the relay stalls the catch-up is counted and cut off by a pull's rules, not
/// left unread (the old code read it only once the catch-up ended).
#[tokio::test]
async fn a_live_flood_during_a_stalled_catch_up_is_counted_and_cut_off_at_once() {
    let attack = Attack::FloodDuringCatchUp { bytes: 60_000, stall: Duration::from_secs(40) };
    let hostile = HostileRelay::start(attack).await;
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = open_at(dir.path(), 1.79e9).await;
    a.add_relay(&hostile.url(), false).await.unwrap();
    let watcher = a.clone();
    let live = tokio::spawn(async move { watcher.watch(bounded(), tokio::time::sleep(Duration::from_secs(30))).await });
    let deadline = Instant::now() + Duration::from_secs(10);
    let rule = loop {
        if let Some(rule) = misbehaving(&a, &hostile.url()).await {
            break rule;
        }
        assert!(Instant::now() < deadline, "the flood was not cut off within 10 s of a 40 s catch-up stall");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(rule.contains("live subscription"), "{rule}");
    live.abort();
    let rejected = a.stats().await.unwrap().rejected.get("foreign_author").copied().unwrap_or(0);
    assert!(rejected > 100, "the flood was counted: {rejected}");
    let sent = hostile.stats().bytes_sent;
    assert!(sent < 64 << 20, "the relay sent {sent} bytes before it was cut off");
}

/// A pass that runs into its deadline ends between pages, so every page it wrote is
/// counted: before, the deadline dropped the pass while a page was being written (or
/// written beside the next page's read), the page committed and its count was lost (a
/// million-memory pull reported 993,500 applied of the 1,000,000 it held). The relay is
/// slow on purpose (a test double: nostr-rs-relay cannot be slowed), so passes are cut.
#[tokio::test]
async fn a_pass_cut_by_its_deadline_counts_every_page_it_wrote() {
    let me = Keys::parse(TEST_SECRET).unwrap();
    let events: Vec<Value> = (0..800)
        .map(|i| {
            let content = Cipher::new(me.secret_key(), &me.public_key()).unwrap().encrypt(&kv(&format!("k{i}"), "v"));
            let e = EventBuilder::new(Kind::from(30078), content.unwrap())
                .tag(Tag::identifier(format!("sense-memory/k{i}")))
                .custom_created_at(memstr::nostr::Timestamp::from(1_789_000_000 - i))
                .sign_with_keys(&me)
                .unwrap();
            serde_json::from_str(&e.as_json()).unwrap()
        })
        .collect();
    let slow = HostileRelay::start(Attack::Slow { events, wait: Duration::from_millis(150) }).await;
    let dir = tempfile::tempdir().unwrap();
    let (b, _) = open_at(dir.path(), 1.79e9).await;
    b.add_relay(&slow.url(), false).await.unwrap();
    let opts = SyncOptions { page: 40, deadline: Duration::from_millis(2500), ..bounded() };
    let mut cut = 0;
    let total = b
        .sync_to_end(&opts, 30, |_, reports| {
            cut += usize::from(reports[0].error.as_deref().is_some_and(|e| e.contains("did not finish")));
        })
        .await
        .unwrap();
    let held = b.recall_all().await.unwrap().len() as u64;
    assert_eq!(held, 800, "{total:?}");
    assert!(cut >= 1, "no pass was cut by its deadline: the test proves nothing ({total:?})");
    assert!(total[0].misbehaved.is_none(), "{total:?}");
    assert_eq!(total[0].pulled.applied, held, "every page a pass wrote is counted ({cut} passes cut)");
}
