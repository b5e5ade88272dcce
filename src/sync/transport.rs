//! A minimal NIP-01 client over one websocket: publish with `OK` acknowledgements,
//! subscriptions until `EOSE` or live, and a quick NIP-77 probe.
//!
//! memstr's own rather than nostr-sdk's pool because the pool drops events with bad
//! signatures or excess size before a caller sees them, and memstr must count every
//! refused event. Raw event JSON goes up untouched; the store checks it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use super::url::RelayUrl;

/// Largest websocket message accepted: well above any valid event, so oversized events
/// still arrive and are counted rather than breaking the connection.
const MAX_MESSAGE: usize = 4 << 20;

/// What went wrong talking to a relay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    #[error("{url}: cannot connect: {reason}")]
    Connect { url: String, reason: String },
    #[error("{url}: no answer within {secs} s")]
    Timeout { url: String, secs: u64 },
    #[error("{url}: connection closed")]
    Closed { url: String },
    #[error("{url}: subscription closed by relay: {reason}")]
    SubscriptionClosed { url: String, reason: String },
}

/// A message for one subscription.
#[derive(Debug)]
pub enum SubMsg {
    /// An event object as the relay sent it (unverified).
    Event(Value),
    /// End of stored events.
    Eose,
    /// The relay closed the subscription.
    Closed(String),
    /// A NIP-77 message (`NEG-MSG` or `NEG-ERR`) for this id.
    Neg { kind: String, payload: String },
}

/// A relay's verdict on a published event (`OK` message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    pub accepted: bool,
    pub message: String,
}

#[derive(Default)]
struct Routes {
    oks: HashMap<String, oneshot::Sender<Ack>>,
    subs: HashMap<String, mpsc::UnboundedSender<SubMsg>>,
}

struct Shared {
    url: RelayUrl,
    routes: Mutex<Routes>,
    alive: AtomicBool,
    notices: broadcast::Sender<String>,
    next_id: AtomicU64,
}

/// One open connection to one relay.
pub struct Connection {
    shared: Arc<Shared>,
    out: mpsc::UnboundedSender<Message>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn install_crypto() {
    // Idempotent; fails only when another provider is already installed, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl Connection {
    /// Opens a websocket to `url`.
    pub async fn connect(url: &RelayUrl, timeout: Duration) -> Result<Self, TransportError> {
        install_crypto();
        let mut config = WebSocketConfig::default();
        config.max_message_size = Some(MAX_MESSAGE);
        config.max_frame_size = Some(MAX_MESSAGE);
        let connecting = tokio_tungstenite::connect_async_with_config(url.as_str(), Some(config), false);
        let (ws, _) = match tokio::time::timeout(timeout, connecting).await {
            Err(_) => return Err(TransportError::Timeout { url: url.to_string(), secs: timeout.as_secs() }),
            Ok(Err(e)) => return Err(TransportError::Connect { url: url.to_string(), reason: e.to_string() }),
            Ok(Ok(ws)) => ws,
        };
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        let shared = Arc::new(Shared {
            url: url.clone(),
            routes: Mutex::new(Routes::default()),
            alive: AtomicBool::new(true),
            notices: broadcast::channel(16).0,
            next_id: AtomicU64::new(0),
        });
        let writer = {
            let shared = shared.clone();
            tokio::spawn(async move {
                while let Some(msg) = out_rx.recv().await {
                    if sink.send(msg).await.is_err() {
                        break;
                    }
                }
                shared.alive.store(false, Ordering::SeqCst);
            })
        };
        let reader = {
            let shared = shared.clone();
            let out = out.clone();
            tokio::spawn(async move {
                while let Some(frame) = stream.next().await {
                    match frame {
                        Ok(Message::Text(text)) => shared.dispatch(&text),
                        Ok(Message::Ping(p)) => {
                            let _ = out.send(Message::Pong(p));
                        }
                        Ok(Message::Close(_)) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                shared.shut();
            })
        };
        Ok(Connection { shared, out, tasks: vec![writer, reader] })
    }

    /// The relay's address.
    pub fn url(&self) -> &RelayUrl {
        &self.shared.url
    }

    /// Whether the socket is still open.
    pub fn is_alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    fn closed(&self) -> TransportError {
        TransportError::Closed { url: self.shared.url.to_string() }
    }

    fn send(&self, v: Value) -> Result<(), TransportError> {
        if !self.is_alive() {
            return Err(self.closed());
        }
        self.out.send(Message::Text(v.to_string().into())).map_err(|_| self.closed())
    }

    /// Publishes an event (its JSON object) and waits for the relay's `OK`.
    pub async fn publish(&self, id: &str, event: Value, timeout: Duration) -> Result<Ack, TransportError> {
        let (tx, rx) = oneshot::channel();
        self.shared.routes.lock().expect("routes").oks.insert(id.to_string(), tx);
        self.send(json!(["EVENT", event]))?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(ack)) => Ok(ack),
            Ok(Err(_)) => Err(self.closed()),
            Err(_) => {
                self.shared.routes.lock().expect("routes").oks.remove(id);
                Err(TransportError::Timeout { url: self.shared.url.to_string(), secs: timeout.as_secs() })
            }
        }
    }

    /// Opens a subscription (`REQ`) with `filters`.
    pub fn subscribe(&self, filters: Vec<Value>) -> Result<Subscription, TransportError> {
        let id = self.new_id("memstr");
        let rx = self.route(&id);
        let mut req = vec![json!("REQ"), json!(id)];
        req.extend(filters);
        self.send(Value::Array(req))?;
        Ok(Subscription { id, rx, out: self.out.clone(), shared: self.shared.clone(), close: "CLOSE" })
    }

    /// Opens a NIP-77 session (`NEG-OPEN`) with our first message (hex).
    pub fn neg_open(&self, filter: Value, initial: String) -> Result<Subscription, TransportError> {
        let id = self.new_id("neg");
        let rx = self.route(&id);
        self.send(json!(["NEG-OPEN", id, filter, initial]))?;
        Ok(Subscription { id, rx, out: self.out.clone(), shared: self.shared.clone(), close: "NEG-CLOSE" })
    }

    /// Asks whether the relay speaks NIP-77, answering within `timeout`: a relay without
    /// it ignores the request, or says so in a `NOTICE` or `NEG-ERR`.
    pub async fn probe_negentropy(&self, filter: Value, initial: String, timeout: Duration) -> bool {
        let id = self.new_id("neg");
        let mut rx = self.route(&id);
        let mut notices = self.shared.notices.subscribe();
        if self.send(json!(["NEG-OPEN", id, filter, initial])).is_err() {
            return false;
        }
        let verdict = tokio::time::timeout(timeout, async {
            loop {
                tokio::select! {
                    m = rx.recv() => return matches!(m, Some(SubMsg::Neg { ref kind, .. }) if kind == "NEG-MSG"),
                    n = notices.recv() => if n.is_ok() { return false },
                }
            }
        })
        .await
        .unwrap_or(false);
        let _ = self.send(json!(["NEG-CLOSE", id]));
        self.shared.routes.lock().expect("routes").subs.remove(&id);
        verdict
    }

    fn new_id(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.shared.next_id.fetch_add(1, Ordering::SeqCst))
    }

    fn route(&self, id: &str) -> mpsc::UnboundedReceiver<SubMsg> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.shared.routes.lock().expect("routes").subs.insert(id.to_string(), tx);
        rx
    }
}

impl Shared {
    fn dispatch(&self, text: &str) {
        let Ok(Value::Array(msg)) = serde_json::from_str::<Value>(text) else {
            tracing::debug!(url = %self.url, "unparseable relay message");
            return;
        };
        let kind = msg.first().and_then(Value::as_str).unwrap_or("");
        let id = msg.get(1).and_then(Value::as_str).unwrap_or("").to_string();
        let routes = &mut *self.routes.lock().expect("routes");
        match kind {
            "OK" => {
                if let Some(tx) = routes.oks.remove(&id) {
                    let accepted = msg.get(2).and_then(Value::as_bool).unwrap_or(false);
                    let message = msg.get(3).and_then(Value::as_str).unwrap_or("").to_string();
                    let _ = tx.send(Ack { accepted, message });
                }
            }
            "EVENT" | "EOSE" | "CLOSED" | "NEG-MSG" | "NEG-ERR" => {
                let Some(tx) = routes.subs.get(&id) else { return };
                let m = match kind {
                    "EVENT" => SubMsg::Event(msg.get(2).cloned().unwrap_or(Value::Null)),
                    "EOSE" => SubMsg::Eose,
                    "CLOSED" => SubMsg::Closed(msg.get(2).and_then(Value::as_str).unwrap_or("").to_string()),
                    _ => SubMsg::Neg {
                        kind: kind.to_string(),
                        payload: msg.get(2).and_then(Value::as_str).unwrap_or("").to_string(),
                    },
                };
                let _ = tx.send(m);
            }
            "NOTICE" => {
                tracing::debug!(url = %self.url, notice = %id, "relay notice");
                let _ = self.notices.send(id);
            }
            _ => {}
        }
    }

    /// The socket is gone: fail every waiter.
    fn shut(&self) {
        self.alive.store(false, Ordering::SeqCst);
        let mut routes = self.routes.lock().expect("routes");
        routes.oks.clear();
        routes.subs.clear();
    }
}

/// An open `REQ`; closed (`CLOSE`) when dropped.
pub struct Subscription {
    id: String,
    rx: mpsc::UnboundedReceiver<SubMsg>,
    out: mpsc::UnboundedSender<Message>,
    shared: Arc<Shared>,
    close: &'static str,
}

impl Subscription {
    /// Sends the next NIP-77 message (hex) of this session.
    pub fn neg_msg(&self, hex: String) -> Result<(), TransportError> {
        self.out
            .send(Message::Text(json!(["NEG-MSG", self.id, hex]).to_string().into()))
            .map_err(|_| TransportError::Closed { url: self.shared.url.to_string() })
    }

    /// The next NIP-77 answer within `timeout`: `Ok(hex)` for `NEG-MSG`.
    pub async fn neg_reply(&mut self, timeout: Duration) -> Result<String, TransportError> {
        let url = self.shared.url.to_string();
        loop {
            match tokio::time::timeout(timeout, self.next()).await {
                Err(_) => return Err(TransportError::Timeout { url, secs: timeout.as_secs() }),
                Ok(None) => return Err(TransportError::Closed { url }),
                Ok(Some(SubMsg::Neg { kind, payload })) if kind == "NEG-MSG" => return Ok(payload),
                Ok(Some(SubMsg::Neg { payload, .. })) | Ok(Some(SubMsg::Closed(payload))) => {
                    return Err(TransportError::SubscriptionClosed { url, reason: payload })
                }
                Ok(Some(_)) => {}
            }
        }
    }

    /// The next message; `None` when the connection is gone.
    pub async fn next(&mut self) -> Option<SubMsg> {
        self.rx.recv().await
    }

    /// Collects events until `EOSE`. Errors when the relay closes the subscription, the
    /// connection drops, or `timeout` passes first: a partial fetch is never a result.
    pub async fn collect_stored(&mut self, timeout: Duration) -> Result<Vec<Value>, TransportError> {
        let url = self.shared.url.to_string();
        let mut events = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Err(_) => return Err(TransportError::Timeout { url, secs: timeout.as_secs() }),
                Ok(None) => return Err(TransportError::Closed { url }),
                Ok(Some(SubMsg::Event(e))) => events.push(e),
                Ok(Some(SubMsg::Eose)) => return Ok(events),
                Ok(Some(SubMsg::Closed(reason))) => return Err(TransportError::SubscriptionClosed { url, reason }),
                Ok(Some(SubMsg::Neg { .. })) => {}
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.shared.routes.lock().expect("routes").subs.remove(&self.id);
        let _ = self.out.send(Message::Text(json!([self.close, self.id]).to_string().into()));
    }
}
