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
