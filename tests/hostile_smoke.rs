//! The hostile relay test double (relay-fixtures/hostile_relay.rs) does what each attack
//! says, checked with a plain websocket client: the tests that rely on it can trust it.
#![cfg(feature = "sync")]

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;

use std::collections::HashSet;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hostile_relay::{Attack, HostileRelay};
use memstr::nostr::{Event, EventBuilder, JsonUtil, Keys, Kind, Tag, Timestamp};
use negentropy::{Id, Negentropy, NegentropyStorageVector};
use serde_json::{json, Value};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const WAIT: Duration = Duration::from_secs(20);

async fn connect(url: &str) -> Ws {
    let config = WebSocketConfig::default().max_message_size(Some(64 << 20)).max_frame_size(Some(64 << 20));
    let (ws, _) = timeout(WAIT, tokio_tungstenite::connect_async_with_config(url, Some(config), false))
        .await
        .expect("connect timed out")
        .expect("connect");
    ws
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next text message, raw; None on timeout.
async fn recv_raw(ws: &mut Ws, within: Duration) -> Option<String> {
    loop {
        match timeout(within, ws.next()).await {
            Err(_) => return None,
            Ok(Some(Ok(Message::Text(t)))) => return Some(t.to_string()),
            Ok(Some(Ok(_))) => continue,
            Ok(other) => panic!("connection ended: {other:?}"),
        }
    }
}

async fn recv(ws: &mut Ws) -> Value {
    serde_json::from_str(&recv_raw(ws, WAIT).await.expect("no message in time")).unwrap()
}

/// Sends a REQ and reads until its EOSE: the events' JSON.
async fn page(ws: &mut Ws, sub: &str, filter: Value) -> Vec<Value> {
    send(ws, json!(["REQ", sub, filter])).await;
    let mut events = Vec::new();
    loop {
        let m = recv(ws).await;
        match m[0].as_str() {
            Some("EVENT") => {
                assert_eq!(m[1], sub);
                events.push(m[2].clone());
            }
            Some("EOSE") => return events,
            _ => panic!("unexpected {m}"),
        }
    }
}

fn ids(events: &[Value]) -> HashSet<String> {
    events.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn endless_pages_are_full_fresh_and_inside_the_window() {
    let relay = HostileRelay::start(Attack::EndlessPages).await;
    let mut ws = connect(&relay.url()).await;
    let filter = json!({"kinds": [30078], "since": 1_600_000_000u64, "until": 1_700_000_000u64, "limit": 40});
    let a = page(&mut ws, "a", filter.clone()).await;
    let b = page(&mut ws, "b", filter).await;
    assert_eq!((a.len(), b.len()), (40, 40));
    assert!(ids(&a).is_disjoint(&ids(&b)));
    for e in a.iter().chain(&b) {
        let event = Event::from_json(e.to_string()).unwrap();
        event.verify().expect("well-formed and signed");
        assert_eq!(event.kind, Kind::from(30078));
        assert!(event.tags.identifier().is_some());
        assert!((1_600_000_000..=1_700_000_000).contains(&event.created_at.as_secs()));
    }
    let authors: HashSet<_> = a.iter().map(|e| e["pubkey"].clone()).collect();
    assert_eq!(authors.len(), 40, "a fresh key per event");
    assert_eq!(page(&mut ws, "c", json!({"kinds": [30078]})).await.len(), 500, "the default limit");
    let s = relay.stats();
    assert_eq!((s.connections, s.reqs, s.events_sent), (1, 3, 580), "{s:?}");
}

#[tokio::test]
async fn ignores_until_serves_the_same_page_whatever_the_window() {
    let relay = HostileRelay::start(Attack::IgnoresUntil).await;
    let mut ws = connect(&relay.url()).await;
    let a = page(&mut ws, "a", json!({"limit": 20})).await;
    let b = page(&mut ws, "b", json!({"limit": 20, "until": 1_000, "since": 0})).await;
    assert_eq!(a.len(), 20);
    assert_eq!(ids(&a), ids(&b));
    assert!(b.iter().all(|e| e["created_at"].as_u64().unwrap() > 1_000));
}

#[tokio::test]
async fn min_timestamp_serves_i64_min() {
    let relay = HostileRelay::start(Attack::MinTimestamp).await;
    let mut ws = connect(&relay.url()).await;
    send(&mut ws, json!(["REQ", "m", {"kinds": [30078], "limit": 5}])).await;
    for _ in 0..5 {
        let raw = recv_raw(&mut ws, WAIT).await.unwrap();
        assert!(raw.contains(r#""created_at":-9223372036854775808"#), "{raw}");
        let m: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(m[2]["created_at"].as_i64(), Some(i64::MIN));
        assert_eq!(m[2]["id"].as_str().unwrap().len(), 64);
        assert_eq!(m[2]["sig"].as_str().unwrap().len(), 128);
    }
    assert_eq!(recv(&mut ws).await, json!(["EOSE", "m"]));
}

#[tokio::test]
async fn endless_negentropy_always_leaves_another_round() {
    let relay = HostileRelay::start(Attack::EndlessNegentropy { ids: hostile_relay::NEG_IDS }).await;
    let mut ws = connect(&relay.url()).await;
    let mut storage = NegentropyStorageVector::new();
    storage.seal().unwrap();
    let mut neg = Negentropy::owned(storage, 60_000).unwrap();
    let mut out = neg.initiate().unwrap();
    send(&mut ws, json!(["NEG-OPEN", "n", {"kinds": [30078]}, hex::encode(&out)])).await;
    let mut seen: HashSet<Id> = HashSet::new();
    for round in 0..3 {
        let m = recv(&mut ws).await;
        assert_eq!((m[0].as_str(), m[1].as_str()), (Some("NEG-MSG"), Some("n")), "{m}");
        let bytes = hex::decode(m[2].as_str().unwrap()).unwrap();
        let (mut have, mut need) = (Vec::new(), Vec::new());
        out = neg.reconcile_with_ids(&bytes, &mut have, &mut need).unwrap().expect("another round");
        assert_eq!(need.len(), 20_000, "round {round}");
        assert!(need.iter().all(|id| seen.insert(*id)), "fresh ids every round");
        send(&mut ws, json!(["NEG-MSG", "n", hex::encode(&out)])).await;
    }
    let _ = recv(&mut ws).await; // the reply to the last round
    let some_id = hex::encode(**seen.iter().next().unwrap());
    assert_eq!(page(&mut ws, "f", json!({"ids": [some_id]})).await, Vec::<Value>::new());
    assert_eq!(page(&mut ws, "p", json!({"kinds": [30078]})).await, Vec::<Value>::new());
    assert_eq!(relay.stats().neg_msgs, 4);
}

#[tokio::test]
async fn stuck_trickles_and_never_ends() {
    let relay = HostileRelay::start(Attack::Stuck { every: Duration::from_secs(1) }).await;
    let mut ws = connect(&relay.url()).await;
    send(&mut ws, json!(["REQ", "s", {"kinds": [30078]}])).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    let mut events = 0;
    while let Some(raw) = recv_raw(&mut ws, deadline.saturating_duration_since(tokio::time::Instant::now())).await {
        let m: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(m[0], "EVENT", "never EOSE: {m}");
        events += 1;
    }
    assert!((1..=5).contains(&events), "{events}");
    send(&mut ws, json!(["NEG-OPEN", "n", {}, "61"])).await;
    loop {
        let m = recv(&mut ws).await;
        if m[0] != "EVENT" {
            assert_eq!(m, json!(["NOTICE", "unknown command"]));
            break;
        }
    }
}

#[tokio::test]
async fn huge_events_stream_and_a_stuck_client_blocks_no_one_else() {
    let bytes = 3_000_000;
    let relay = HostileRelay::start(Attack::HugeEvents { bytes }).await;
    let mut ws = connect(&relay.url()).await;
    send(&mut ws, json!(["REQ", "h", {"kinds": [30078]}])).await;
    for _ in 0..2 {
        let raw = recv_raw(&mut ws, WAIT).await.unwrap();
        assert!(raw.len() >= bytes && raw.starts_with(r#"["EVENT","h","#), "{}", raw.len());
    }
    // `ws` now reads nothing more: its sends back up. Another connection is still served.
    let mut other = connect(&relay.url()).await;
    send(&mut other, json!(["EVENT", {"id": "ab"}])).await;
    assert_eq!(recv(&mut other).await, json!(["OK", "ab", true, ""]));
    assert_eq!(relay.stats().published, 1);
    // A client that goes away is no longer served.
    drop(ws);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sent = relay.stats().bytes_sent;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(relay.stats().bytes_sent, sent, "still sending to a closed connection");
}

#[tokio::test]
async fn live_flood_says_eose_then_floods_and_still_acknowledges() {
    let relay = HostileRelay::start(Attack::LiveFlood { bytes: 60_000 }).await;
    let mut ws = connect(&relay.url()).await;
    send(&mut ws, json!(["REQ", "l", {"kinds": [30078], "limit": 0}])).await;
    assert_eq!(recv(&mut ws).await, json!(["EOSE", "l"]));
    let mut ids = HashSet::new();
    for _ in 0..20 {
        let m = recv(&mut ws).await;
        assert_eq!(m[0], "EVENT");
        assert!(m[2]["content"].as_str().unwrap().len() >= 60_000);
        ids.insert(m[2]["id"].clone());
    }
    assert_eq!(ids.len(), 20, "fresh events");
    send(&mut ws, json!(["EVENT", {"id": "cd"}])).await;
    loop {
        let m = recv(&mut ws).await;
        if m[0] == "OK" {
            assert_eq!(m, json!(["OK", "cd", true, ""]));
            break;
        }
    }
}

#[tokio::test]
async fn serve_gives_exactly_the_events_then_eose_and_drop_stops_the_relay() {
    let keys = Keys::generate();
    let future = EventBuilder::new(Kind::from(30078), "from the future")
        .tag(Tag::identifier("sense-memory/future"))
        .custom_created_at(Timestamp::from_secs(4_000_000_000))
        .sign_with_keys(&keys)
        .unwrap();
    let future: Value = serde_json::from_str(&future.as_json()).unwrap();
    let mut bad_sig = future.clone();
    bad_sig["sig"] = json!("00".repeat(64));
    let relay = HostileRelay::start(Attack::Serve(vec![future.clone(), bad_sig.clone()])).await;
    let url = relay.url();
    let mut ws = connect(&url).await;
    for sub in ["x", "y"] {
        assert_eq!(page(&mut ws, sub, json!({"kinds": [30078]})).await, vec![future.clone(), bad_sig.clone()]);
    }
    drop(relay);
    // The listener and the open connection both go away.
    let ended = timeout(WAIT, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                _ => {}
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the open connection was not closed");
    let refused = timeout(WAIT, async {
        while tokio_tungstenite::connect_async(url.as_str()).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(refused.is_ok(), "still listening after drop");
}
