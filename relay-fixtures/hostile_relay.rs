//! A HOSTILE RELAY TEST DOUBLE, for the tests and the examples (they include this file with
//! `#[path]`; it is not part of the library).
//!
//! nostr-rs-relay is honest: it verifies and stores what it is given and answers filters
//! correctly, so it cannot misbehave. This minimal websocket server, written for tests, plays
//! the attacker instead: it serves one [`Attack`] to every connection and counts what it did in
//! [`Stats`], so a test can check that the client bounded its work (pages, rounds, bytes).
//!
//! Common behaviour: `EVENT` from the client is answered `["OK", id, true, ""]` (counted in
//! `published`); `CLOSE` and `NEG-CLOSE` are ignored (an attacker need not stop); `NEG-OPEN`
//! is answered `NOTICE "unknown command"` except by [`Attack::EndlessNegentropy`]. A page's
//! size is the first filter's `limit` (default 500, capped at 10,000 so the double itself stays
//! small). Events are generated on the fly; a connection ends when a send to it fails.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use memstr::nostr::{EventBuilder, JsonUtil, Keys, Kind, Tag, Timestamp};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// A page's size when the filter has no `limit` (what many relays default to).
pub const DEFAULT_LIMIT: u64 = 500;
/// Whatever the client asks, a page never exceeds this: the double's memory stays bounded.
pub const MAX_LIMIT: u64 = 10_000;
/// Ids in each `EndlessNegentropy` message: 640 KB binary, 1.28 MB as hex.
pub const NEG_IDS: usize = 20_000;

#[derive(Debug, Clone)]
pub enum Attack {
    /// Every REQ page is exactly `limit` well-formed kind-30078 events (with a d tag), each
    /// signed by a freshly generated key, so every id is new; created_at lies in the filter's
    /// `[since, until]` (counting down from `until`, or now). Then EOSE. Never runs out.
    EndlessPages,
    /// Ignores `since`/`until`: every REQ gets the same first `limit` events of one fixed set
    /// (generated once, created_at = start time - i), then EOSE.
    IgnoresUntil,
    /// A full page of raw events whose created_at is the JSON number -9223372036854775808
    /// (i64::MIN), otherwise plausible (hex id, real pubkey, kind 30078, d tag, hex sig), then EOSE.
    MinTimestamp,
    /// Speaks NIP-77 but never lets reconciliation finish: every NEG-OPEN and NEG-MSG gets a
    /// NEG-MSG listing `ids` fresh random ids ([`NEG_IDS`] in the attack as measured), then a
    /// random fingerprint up to infinity,
    /// so the client always has another round. Every REQ (ids or not) gets just EOSE.
    EndlessNegentropy { ids: usize },
    /// A REQ gets one foreign-authored event at once and then one every `every`; never EOSE.
    Stuck { every: Duration },
    /// A REQ gets kind-30078 events whose content is `bytes` long (one template, signed once),
    /// as fast as the socket takes them; never EOSE.
    HugeEvents { bytes: usize },
    /// For live mode: every REQ (even `limit: 0`) gets EOSE at once, then the subscription is
    /// flooded, forever and as fast as the socket takes them, with fresh foreign-authored
    /// events whose content is `bytes` long.
    LiveFlood { bytes: usize },
    /// [`Attack::LiveFlood`] on the live subscription (a REQ whose first filter has
    /// `limit: 0`), while every other REQ (the catch-up reads) waits `stall` before its
    /// EOSE: the flood comes while the client is still catching up.
    FloodDuringCatchUp { bytes: usize, stall: Duration },
    /// Serves these event JSON values, as given, to every REQ, then EOSE.
    Serve(Vec<Value>),
    /// Not an attack: an honest relay that is slow. Serves these events by the filter's
    /// `ids`, `since`, `until` and `limit` (newest first; kinds, authors and tags are not
    /// looked at, so a read of direct messages gets the same events again, as duplicates),
    /// each answer after `wait`: a pass that runs into its deadline, at a pace a test can
    /// count on.
    Slow { events: Vec<Value>, wait: Duration },
    /// Says this text wherever a relay speaks in words: a `NOTICE` on connect, `CLOSED` to
    /// every REQ, `NEG-ERR` to every NEG-OPEN, and `OK false` to every EVENT. For text that
    /// tries to drive the client's terminal.
    Says(String),
}

/// What the relay did so far (a snapshot). `neg_msgs` counts NEG-OPEN and NEG-MSG received;
/// `events_sent` and `bytes_sent` count messages whose send completed (text bytes).
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub connections: u64,
    pub reqs: u64,
    pub neg_msgs: u64,
    pub events_sent: u64,
    pub bytes_sent: u64,
    pub published: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    reqs: AtomicU64,
    neg_msgs: AtomicU64,
    events_sent: AtomicU64,
    bytes_sent: AtomicU64,
    published: AtomicU64,
}

/// State shared by every connection of one relay.
struct Shared {
    attack: Attack,
    counters: Counters,
    started: u64,
    /// IgnoresUntil's fixed set (event JSON), grown to the largest `limit` asked so far.
    fixed: Mutex<Vec<Arc<str>>>,
    /// HugeEvents' one event (JSON), built and signed once; Serve's events, serialized once.
    template: String,
    served: Vec<String>,
}

pub struct HostileRelay {
    url: String,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl HostileRelay {
    /// Binds 127.0.0.1:0 and serves `attack` to every connection (spawns on the current
    /// tokio runtime).
    pub async fn start(attack: Attack) -> HostileRelay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding the hostile relay");
        let url = format!("ws://{}", listener.local_addr().unwrap());
        let template = match &attack {
            Attack::HugeEvents { bytes } => foreign_event(now(), &random_d(&mut Rng::new()), &"x".repeat(*bytes)),
            _ => String::new(),
        };
        let served = match &attack {
            Attack::Serve(events) => events.iter().map(Value::to_string).collect(),
            _ => Vec::new(),
        };
        let shared = Arc::new(Shared {
            attack,
            counters: Counters::default(),
            started: now(),
            fixed: Mutex::new(Vec::new()),
            template,
            served,
        });
        let s = shared.clone();
        let accept = tokio::spawn(async move {
            // The JoinSet owns every connection task: aborting this task (on drop) drops the
            // set, which aborts them all, and each of them drops its own producers in turn.
            let mut conns = JoinSet::new();
            loop {
                match listener.accept().await {
                    Ok((tcp, _)) => {
                        while conns.try_join_next().is_some() {}
                        conns.spawn(serve_connection(tcp, s.clone()));
                    }
                    // E.g. out of file descriptors: do not spin.
                    Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        });
        HostileRelay { url, shared, accept }
    }

    /// `ws://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        self.url.clone()
    }

    pub fn stats(&self) -> Stats {
        let c = &self.shared.counters;
        Stats {
            connections: c.connections.load(Relaxed),
            reqs: c.reqs.load(Relaxed),
            neg_msgs: c.neg_msgs.load(Relaxed),
            events_sent: c.events_sent.load(Relaxed),
            bytes_sent: c.bytes_sent.load(Relaxed),
            published: c.published.load(Relaxed),
        }
    }
}

impl Drop for HostileRelay {
    /// Stops the listener and every connection (see the JoinSet in `start`).
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// One outgoing text message; `event` says whether it counts in `events_sent`.
struct Out {
    text: Utf8Bytes,
    event: bool,
}

impl Out {
    fn event(text: impl Into<Utf8Bytes>) -> Out {
        Out { text: text.into(), event: true }
    }
    fn other(v: Value) -> Out {
        Out { text: v.to_string().into(), event: false }
    }
}

/// One connection: a reader that answers or spawns producers, and a writer that owns the
/// socket. Streams go through a small bounded channel, so producers run exactly as fast as
/// the socket drains; replies (OK, NOTICE, NEG-MSG) go through their own channel and are
/// written first, so a client being flooded still gets its OKs.
async fn serve_connection(tcp: TcpStream, shared: Arc<Shared>) {
    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else { return };
    shared.counters.connections.fetch_add(1, Relaxed);
    let (mut sink, mut stream) = ws.split();
    let (reply_tx, mut reply_rx) = mpsc::unbounded_channel::<Out>();
    let (data_tx, mut data_rx) = mpsc::channel::<Out>(2);

    let counters = &shared.counters;
    if let Attack::Says(words) = &shared.attack {
        let _ = reply_tx.send(Out::other(json!(["NOTICE", words])));
    }
    let writer = async {
        loop {
            let out = tokio::select! {
                biased;
                Some(out) = reply_rx.recv() => out,
                Some(out) = data_rx.recv() => out,
                else => return,
            };
            let len = out.text.len() as u64;
            if sink.send(Message::Text(out.text)).await.is_err() {
                return; // the client went away (or broke the socket): stop serving it
            }
            counters.bytes_sent.fetch_add(len, Relaxed);
            if out.event {
                counters.events_sent.fetch_add(1, Relaxed);
            }
        }
    };

    let reader = async {
        // Dropped with this future: every producer of this connection is aborted with it.
        let mut producers = JoinSet::new();
        let mut rng = Rng::new();
        while let Some(Ok(frame)) = stream.next().await {
            let Message::Text(text) = frame else {
                if frame.is_close() {
                    return;
                }
                continue; // pings are answered by tungstenite; binary is not nostr
            };
            let Ok(msg) = serde_json::from_str::<Value>(&text) else { continue };
            let reply = match msg[0].as_str() {
                Some("EVENT") => {
                    counters.published.fetch_add(1, Relaxed);
                    match &shared.attack {
                        Attack::Says(words) => Some(Out::other(json!(["OK", msg[1]["id"], false, words]))),
                        _ => Some(Out::other(json!(["OK", msg[1]["id"], true, ""]))),
                    }
                }
                Some("REQ") if matches!(shared.attack, Attack::Says(_)) => {
                    counters.reqs.fetch_add(1, Relaxed);
                    let Attack::Says(words) = &shared.attack else { unreachable!() };
                    Some(Out::other(json!(["CLOSED", msg[1], words])))
                }
                Some("REQ") => {
                    counters.reqs.fetch_add(1, Relaxed);
                    while producers.try_join_next().is_some() {}
                    producers.spawn(answer_req(shared.clone(), msg[1].clone(), msg[2].clone(), data_tx.clone()));
                    None
                }
                Some(kind @ ("NEG-OPEN" | "NEG-MSG")) => {
                    counters.neg_msgs.fetch_add(1, Relaxed);
                    match &shared.attack {
                        Attack::Says(words) if kind == "NEG-OPEN" => {
                            Some(Out::other(json!(["NEG-ERR", msg[1], words])))
                        }
                        Attack::EndlessNegentropy { ids } => {
                            let ids = *ids;
                            let hex_msg = hex::encode(endless_negentropy_message(&mut rng, ids));
                            Some(Out::other(json!(["NEG-MSG", msg[1], hex_msg])))
                        }
                        _ if kind == "NEG-OPEN" => Some(Out::other(json!(["NOTICE", "unknown command"]))),
                        _ => None,
                    }
                }
                _ => None, // CLOSE, NEG-CLOSE, AUTH...: ignored
            };
            if let Some(out) = reply {
                if reply_tx.send(out).is_err() {
                    return;
                }
            }
        }
    };

    // Whichever ends first (client gone, or socket broken) ends the connection.
    tokio::select! {
        _ = writer => {}
        _ = reader => {}
    }
}

/// Answers one REQ according to the attack; returns when done or when the connection is gone.
async fn answer_req(shared: Arc<Shared>, sub: Value, filter: Value, tx: mpsc::Sender<Out>) {
    // `?` on a failed send: the writer is gone, so is the client.
    let _ = async {
        let limit = filter["limit"].as_u64().unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT) as usize;
        let eose = || Out::other(json!(["EOSE", sub]));
        let mut rng = Rng::new();
        match &shared.attack {
            Attack::EndlessPages => {
                let top = filter["until"].as_u64().unwrap_or_else(now);
                let bottom = filter["since"].as_u64().unwrap_or(0).min(top);
                for i in 0..limit as u64 {
                    let at = top.saturating_sub(i).max(bottom);
                    let e = foreign_event(at, &random_d(&mut rng), "an endless page");
                    tx.send(Out::event(event_msg(&sub, &e))).await.ok()?;
                }
                tx.send(eose()).await.ok()?;
            }
            Attack::IgnoresUntil => {
                for e in shared.fixed_page(limit) {
                    tx.send(Out::event(event_msg(&sub, &e))).await.ok()?;
                }
                tx.send(eose()).await.ok()?;
            }
            Attack::MinTimestamp => {
                let pubkey = Keys::generate().public_key().to_hex();
                for _ in 0..limit {
                    let e = json!({
                        "id": hex::encode(rng.bytes::<32>()),
                        "pubkey": pubkey,
                        "created_at": i64::MIN,
                        "kind": 30078,
                        "tags": [["d", random_d(&mut rng)]],
                        "content": "from the beginning of time",
                        "sig": hex::encode([rng.bytes::<32>(), rng.bytes::<32>()].concat()),
                    });
                    tx.send(Out::event(event_msg(&sub, &e.to_string()))).await.ok()?;
                }
                tx.send(eose()).await.ok()?;
            }
            Attack::EndlessNegentropy { .. } => tx.send(eose()).await.ok()?,
            Attack::Stuck { every } => {
                let mut tick = tokio::time::interval(*every); // first tick at once
                loop {
                    tick.tick().await;
                    let e = foreign_event(now(), &random_d(&mut rng), "a trickle");
                    tx.send(Out::event(event_msg(&sub, &e))).await.ok()?;
                }
            }
            Attack::HugeEvents { .. } => {
                // One message per subscription; clones share its buffer (Utf8Bytes is a Bytes).
                let msg: Utf8Bytes = event_msg(&sub, &shared.template).into();
                loop {
                    tx.send(Out::event(msg.clone())).await.ok()?;
                }
            }
            Attack::FloodDuringCatchUp { bytes, stall } => {
                if filter["limit"].as_u64() != Some(0) {
                    tokio::time::sleep(*stall).await;
                    tx.send(eose()).await.ok()?;
                    return Some(());
                }
                tx.send(eose()).await.ok()?;
                let filler = "x".repeat(*bytes);
                loop {
                    let e = foreign_event(now(), &random_d(&mut rng), &filler);
                    tx.send(Out::event(event_msg(&sub, &e))).await.ok()?;
                }
            }
            Attack::LiveFlood { bytes } => {
                tx.send(eose()).await.ok()?;
                let filler = "x".repeat(*bytes);
                loop {
                    let e = foreign_event(now(), &random_d(&mut rng), &filler);
                    tx.send(Out::event(event_msg(&sub, &e))).await.ok()?;
                }
            }
            Attack::Says(_) => {}
            Attack::Slow { events, wait } => {
                tokio::time::sleep(*wait).await;
                let ids: Option<Vec<&str>> =
                    filter["ids"].as_array().map(|ids| ids.iter().filter_map(Value::as_str).collect());
                let (since, until) = (filter["since"].as_i64(), filter["until"].as_i64());
                let mut page: Vec<&Value> = events
                    .iter()
                    .filter(|e| ids.as_ref().is_none_or(|ids| ids.contains(&e["id"].as_str().unwrap_or_default())))
                    .filter(|e| {
                        let t = e["created_at"].as_i64().unwrap_or_default();
                        since.is_none_or(|s| t >= s) && until.is_none_or(|u| t <= u)
                    })
                    .collect();
                page.sort_by_key(|e| std::cmp::Reverse(e["created_at"].as_i64()));
                for e in page.into_iter().take(limit) {
                    tx.send(Out::event(event_msg(&sub, &e.to_string()))).await.ok()?;
                }
                tx.send(eose()).await.ok()?;
            }
            Attack::Serve(_) => {
                for e in &shared.served {
                    tx.send(Out::event(event_msg(&sub, e))).await.ok()?;
                }
                tx.send(eose()).await.ok()?;
            }
        }
        Some(())
    }
    .await;
}

impl Shared {
    /// The first `limit` events of IgnoresUntil's fixed set, generating what is missing.
    fn fixed_page(&self, limit: usize) -> Vec<Arc<str>> {
        let mut fixed = self.fixed.lock().unwrap();
        let mut rng = Rng::new();
        while fixed.len() < limit {
            let at = self.started.saturating_sub(fixed.len() as u64);
            fixed.push(foreign_event(at, &random_d(&mut rng), "the same page again").into());
        }
        fixed[..limit].to_vec()
    }
}

/// `["EVENT", sub, event]` without re-parsing the event JSON.
fn event_msg(sub: &Value, event_json: &str) -> String {
    format!(r#"["EVENT",{sub},{event_json}]"#)
}

/// A well-formed kind-30078 event signed by a key nobody else has (so a foreign author).
fn foreign_event(created_at: u64, d: &str, content: &str) -> String {
    EventBuilder::new(Kind::from(30078), content)
        .tag(Tag::identifier(d))
        .custom_created_at(Timestamp::from_secs(created_at))
        .sign_with_keys(&Keys::generate())
        .expect("signing a hostile event")
        .as_json()
}

fn random_d(rng: &mut Rng) -> String {
    format!("sense-memory/hostile-{:016x}", rng.next_u64())
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A NIP-77 (negentropy protocol v1) message that never lets the initiator finish:
/// an IdList range [0, now) of fresh random ids (the client "needs" them all), then a
/// Fingerprint range [now, infinity) with a random fingerprint no set matches, so the client
/// must split it and send another round.
pub fn endless_negentropy_message(rng: &mut Rng, ids: usize) -> Vec<u8> {
    let mut m = Vec::with_capacity(ids * 32 + 64);
    // Protocol version 1.
    m.push(0x61);
    // Bound: timestamp delta (+1, since 0 means infinity) against 0, then an empty id prefix.
    varint(&mut m, now() + 1);
    varint(&mut m, 0);
    varint(&mut m, 2); // IdList
    varint(&mut m, ids as u64);
    for _ in 0..ids {
        m.extend_from_slice(&rng.bytes::<32>());
    }
    varint(&mut m, 0); // bound: infinity
    varint(&mut m, 0);
    varint(&mut m, 1); // Fingerprint
    m.extend_from_slice(&rng.bytes::<16>());
    m
}

/// Negentropy's varint: base 128, most significant group first, high bit on all but the last.
fn varint(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            break;
        }
    }
    for b in &mut buf[i..9] {
        *b |= 0x80;
    }
    out.extend_from_slice(&buf[i..]);
}

/// SplitMix64: fresh ids need uniqueness, not secrecy, and no `rand` dependency is at hand.
pub struct Rng(u64);

impl Default for Rng {
    fn default() -> Self {
        Rng::new()
    }
}

impl Rng {
    pub fn new() -> Rng {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
        Rng(t ^ SEQ.fetch_add(0x9E37_79B9_7F4A_7C15, Relaxed).rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for chunk in out.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes()[..chunk.len()]);
        }
        out
    }
}
