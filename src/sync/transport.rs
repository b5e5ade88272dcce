//! A minimal NIP-01 client over one websocket: publish with `OK` acknowledgements,
//! subscriptions until `EOSE` or live, NIP-77 sessions, and NIP-42 authentication.
//!
//! memstr's own rather than nostr-sdk's pool because the pool drops events with bad
//! signatures or excess size before a caller sees them, and memstr must count every
//! refused event. Raw event JSON goes up untouched; the store checks it.
//!
//! A relay is untrusted, so everything it can make this side hold is bounded: a frame
//! larger than [`MAX_MESSAGE`] is refused by the websocket layer before it is buffered,
//! each subscription queues at most [`SUB_QUEUE`] messages (the reader then waits, so the
//! socket pushes back on the relay), and a page stops at its event and byte caps.

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

/// Largest websocket message (and frame) accepted. A valid memstr event is under 200 kB
/// (NIP-44 caps the plaintext at 64 KiB); oversized events below this still arrive and are
/// counted, larger frames end the connection before a byte of them is buffered.
pub const MAX_MESSAGE: usize = 512 << 10;
/// A ping this often keeps a quiet connection (a live subscription) open through relays and
/// proxies that close idle ones (`memstr relay serve` closes one after 120 s of silence).
pub const PING_EVERY: Duration = Duration::from_secs(30);
/// Messages queued per subscription before the socket reader waits for the consumer.
const SUB_QUEUE: usize = 256;
/// How long the reader waits for a slow consumer before giving up on that subscription:
/// a relay must not stall the `OK`s of the whole connection behind one full queue.
const SUB_STALL: Duration = Duration::from_secs(10);

/// Signs a NIP-42 answer to a relay's challenge: the event as JSON, or `None`.
pub type AuthSigner = Arc<dyn Fn(&str) -> Option<Value> + Send + Sync>;

/// What went wrong talking to a relay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The websocket connection could not be opened.
    #[error("{url}: cannot connect: {reason}")]
    Connect {
        /// The relay's address.
        url: String,
        /// The underlying error, as text.
        reason: String,
    },
    /// The relay did not answer in time.
    #[error("{url}: no answer within {secs} s")]
    Timeout {
        /// The relay's address.
        url: String,
        /// The timeout that ran out, in seconds.
        secs: u64,
    },
    /// The connection ended.
    #[error("{url}: connection closed")]
    Closed {
        /// The relay's address.
        url: String,
    },
    /// The relay ended a subscription (`CLOSED` or `NEG-ERR`).
    #[error("{url}: subscription closed by relay: {reason}")]
    SubscriptionClosed {
        /// The relay's address.
        url: String,
        /// The message the relay gave.
        reason: String,
    },
    /// The relay broke a bound (a page over its caps, a subscription it flooded).
    #[error("{url}: {rule}")]
    Misbehaved {
        /// The relay's address.
        url: String,
        /// The bound it broke, as text.
        rule: String,
    },
}

/// A message for one subscription.
#[derive(Debug)]
#[non_exhaustive]
pub enum SubMsg {
    /// An event object as the relay sent it (unverified), and the size of its message.
    Event(Value, usize),
    /// End of stored events.
    Eose,
    /// The relay closed the subscription.
    Closed(String),
    /// A NIP-77 message (`NEG-MSG` or `NEG-ERR`) for this id.
    Neg {
        /// The message type: `NEG-MSG` or `NEG-ERR`.
        kind: String,
        /// The message's third element: the hex-encoded negentropy message or the error reason.
        payload: String,
    },
}

/// A relay's verdict on a published event (`OK` message).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ack {
    /// Whether the relay accepted the event.
    pub accepted: bool,
    /// The relay's explanation, possibly empty (e.g. `duplicate: ...`).
    pub message: String,
}

impl Ack {
    fn auth_required(&self) -> bool {
        !self.accepted && self.message.starts_with("auth-required")
    }
}

/// The most a page of stored events may hold.
#[derive(Debug, Clone, Copy)]
pub struct PageCaps {
    /// Most events in one page.
    pub events: usize,
    /// Most bytes in one page, counted as the sizes of the relay's `EVENT` messages.
    pub bytes: usize,
}

#[derive(Default)]
struct Routes {
    oks: HashMap<String, oneshot::Sender<Ack>>,
    subs: HashMap<String, mpsc::Sender<SubMsg>>,
    /// Subscriptions dropped because their consumer fell [`SUB_STALL`] behind.
    stalled: std::collections::HashSet<String>,
}

struct Shared {
    url: RelayUrl,
    routes: Mutex<Routes>,
    alive: AtomicBool,
    notices: broadcast::Sender<String>,
    next_id: AtomicU64,
    signer: Option<AuthSigner>,
    /// Set once an `AUTH` answer went out (nostr-rs-relay 0.8.12 sends no `OK` for it).
    authed: tokio::sync::watch::Sender<bool>,
    /// The bound the relay broke, when that is why the connection ended.
    fault: Mutex<Option<String>>,
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
    /// Opens a websocket to `url`. With a `signer`, a relay's NIP-42 challenge is answered.
    pub async fn connect(
        url: &RelayUrl,
        timeout: Duration,
        signer: Option<AuthSigner>,
    ) -> Result<Self, TransportError> {
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
        // Only this side writes to it, at rates this side sets (a push window, one pong per
        // ping read), so it needs no bound of its own.
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        let shared = Arc::new(Shared {
            url: url.clone(),
            routes: Mutex::new(Routes::default()),
            alive: AtomicBool::new(true),
            notices: broadcast::channel(16).0,
            next_id: AtomicU64::new(0),
            signer,
            authed: tokio::sync::watch::channel(false).0,
            fault: Mutex::new(None),
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
                        Ok(Message::Text(text)) => shared.dispatch(&text, &out).await,
                        Ok(Message::Ping(p)) => {
                            let _ = out.send(Message::Pong(p));
                        }
                        Ok(Message::Close(_)) => break,
                        Err(e) => {
                            tracing::debug!(url = %shared.url, error = %e, "websocket failed");
                            if let tokio_tungstenite::tungstenite::Error::Capacity(c) = &e {
                                *shared.fault.lock().expect("fault") =
                                    Some(format!("sent a message over the {MAX_MESSAGE}-byte limit ({c})"));
                            }
                            break;
                        }
                        Ok(_) => {}
                    }
                }
                shared.shut();
            })
        };
        let pinger = {
            let out = out.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(PING_EVERY);
                every.tick().await; // the first tick is now
                loop {
                    every.tick().await;
                    if out.send(Message::Ping(Vec::new().into())).is_err() {
                        break;
                    }
                }
            })
        };
        Ok(Connection { shared, out, tasks: vec![writer, reader, pinger] })
    }

    /// The relay's address.
    pub fn url(&self) -> &RelayUrl {
        &self.shared.url
    }

    /// Whether the socket is still open.
    pub fn is_alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    /// Why the connection ended: [`TransportError::Misbehaved`] when the relay broke a
    /// bound (an oversized message), else [`TransportError::Closed`].
    pub fn closed_error(&self) -> TransportError {
        self.shared.closed()
    }

    /// Whether this side answered a NIP-42 challenge on this connection.
    pub fn authenticated(&self) -> bool {
        *self.shared.authed.borrow()
    }

    /// Waits up to `timeout` for this side to answer a challenge; true once it has.
    pub async fn wait_auth(&self, timeout: Duration) -> bool {
        self.shared.wait_auth(timeout).await
    }

    fn closed(&self) -> TransportError {
        self.shared.closed()
    }

    fn send(&self, v: Value) -> Result<(), TransportError> {
        if !self.is_alive() {
            return Err(self.closed());
        }
        self.out.send(Message::Text(v.to_string().into())).map_err(|_| self.closed())
    }

    /// Publishes an event (its JSON object) and waits for the relay's `OK`. A refusal for
    /// want of authentication is sent once more after this side authenticates.
    pub async fn publish(&self, id: &str, event: Value, timeout: Duration) -> Result<Ack, TransportError> {
        let ack = self.publish_once(id, event.clone(), timeout).await?;
        if ack.auth_required() && self.shared.signer.is_some() && self.wait_auth(timeout).await {
            return self.publish_once(id, event, timeout).await;
        }
        Ok(ack)
    }

    async fn publish_once(&self, id: &str, event: Value, timeout: Duration) -> Result<Ack, TransportError> {
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
        let req = Value::Array(req);
        self.send(req.clone())?;
        Ok(Subscription { id, rx, out: self.out.clone(), shared: self.shared.clone(), close: "CLOSE", req: Some(req) })
    }

    /// Opens a NIP-77 session (`NEG-OPEN`) with our first message (hex).
    pub fn neg_open(&self, filter: Value, initial: String) -> Result<Subscription, TransportError> {
        let id = self.new_id("neg");
        let rx = self.route(&id);
        self.send(json!(["NEG-OPEN", id, filter, initial]))?;
        Ok(Subscription { id, rx, out: self.out.clone(), shared: self.shared.clone(), close: "NEG-CLOSE", req: None })
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

    fn route(&self, id: &str) -> mpsc::Receiver<SubMsg> {
        let (tx, rx) = mpsc::channel(SUB_QUEUE);
        self.shared.routes.lock().expect("routes").subs.insert(id.to_string(), tx);
        rx
    }
}

impl Shared {
    async fn dispatch(&self, text: &str, out: &mpsc::UnboundedSender<Message>) {
        let Ok(Value::Array(mut msg)) = serde_json::from_str::<Value>(text) else {
            tracing::debug!(url = %self.url, "unparseable relay message");
            return;
        };
        let kind = msg.first().and_then(Value::as_str).unwrap_or("").to_string();
        let id = msg.get(1).and_then(Value::as_str).unwrap_or("").to_string();
        let text_at = |msg: &[Value], i: usize| msg.get(i).and_then(Value::as_str).unwrap_or("").to_string();
        // What a relay says in words is kept (a relay's last error) and shown: one escaped
        // line, bounded (src/display.rs).
        let said =
            |msg: &[Value], i: usize| crate::display::relay_text(msg.get(i).and_then(Value::as_str).unwrap_or(""));
        let (tx, m) = match kind.as_str() {
            "OK" => {
                if let Some(tx) = self.routes.lock().expect("routes").oks.remove(&id) {
                    let accepted = msg.get(2).and_then(Value::as_bool).unwrap_or(false);
                    let _ = tx.send(Ack { accepted, message: said(&msg, 3) });
                }
                return;
            }
            "EVENT" | "EOSE" | "CLOSED" | "NEG-MSG" | "NEG-ERR" => {
                let Some(tx) = self.routes.lock().expect("routes").subs.get(&id).cloned() else { return };
                let m = match kind.as_str() {
                    "EVENT" => SubMsg::Event(if msg.len() > 2 { msg.swap_remove(2) } else { Value::Null }, text.len()),
                    "EOSE" => SubMsg::Eose,
                    "CLOSED" => SubMsg::Closed(said(&msg, 2)),
                    "NEG-ERR" => SubMsg::Neg { kind, payload: said(&msg, 2) },
                    _ => SubMsg::Neg { kind, payload: text_at(&msg, 2) },
                };
                (tx, m)
            }
            "AUTH" => {
                self.answer_auth(&id, out);
                return;
            }
            "NOTICE" => {
                let notice = crate::display::relay_text(&id);
                tracing::debug!(url = %self.url, notice = %notice, "relay notice");
                let _ = self.notices.send(notice);
                return;
            }
            _ => return,
        };
        // Backpressure: the socket is not read while a subscription's queue is full. A
        // consumer that does not drain it in time loses the subscription (it sees it
        // closed), not the whole connection.
        match tokio::time::timeout(SUB_STALL, tx.send(m)).await {
            Ok(_) => {}
            Err(_) => {
                tracing::debug!(url = %self.url, sub = %id, "subscription queue stalled: dropped");
                let mut routes = self.routes.lock().expect("routes");
                routes.subs.remove(&id);
                routes.stalled.insert(id);
            }
        }
    }

    fn answer_auth(&self, challenge: &str, out: &mpsc::UnboundedSender<Message>) {
        let Some(signer) = &self.signer else { return };
        let Some(event) = signer(challenge) else { return };
        if out.send(Message::Text(json!(["AUTH", event]).to_string().into())).is_ok() {
            tracing::debug!(url = %self.url, "answered AUTH challenge");
            self.authed.send_replace(true);
        }
    }

    async fn wait_auth(&self, timeout: Duration) -> bool {
        let mut rx = self.authed.subscribe();
        let answered = tokio::time::timeout(timeout, rx.wait_for(|a| *a)).await.is_ok_and(|r| r.is_ok());
        answered
    }

    /// Why the connection is unusable: the bound the relay broke, or just closed.
    fn closed(&self) -> TransportError {
        let url = self.url.to_string();
        match self.fault.lock().expect("fault").clone() {
            Some(rule) => TransportError::Misbehaved { url, rule },
            None => TransportError::Closed { url },
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
    rx: mpsc::Receiver<SubMsg>,
    out: mpsc::UnboundedSender<Message>,
    shared: Arc<Shared>,
    close: &'static str,
    /// The `REQ` as sent, to send again after authenticating.
    req: Option<Value>,
}

impl Subscription {
    /// Sends the next NIP-77 message (hex) of this session.
    pub fn neg_msg(&self, hex: String) -> Result<(), TransportError> {
        self.out
            .send(Message::Text(json!(["NEG-MSG", self.id, hex]).to_string().into()))
            .map_err(|_| self.shared.closed())
    }

    /// The next NIP-77 answer within `timeout`: `Ok(hex)` for `NEG-MSG`.
    pub async fn neg_reply(&mut self, timeout: Duration) -> Result<String, TransportError> {
        let url = self.shared.url.to_string();
        loop {
            match tokio::time::timeout(timeout, self.next()).await {
                Err(_) => return Err(TransportError::Timeout { url, secs: timeout.as_secs() }),
                Ok(None) => return Err(self.shared.closed()),
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

    /// Whether the connection dropped this subscription because its messages were not
    /// taken for [`SUB_STALL`] (the channel then ends after what was queued).
    pub fn stalled(&self) -> bool {
        self.shared.routes.lock().expect("routes").stalled.contains(&self.id)
    }

    /// Messages already queued, without waiting (at most `max`).
    pub fn drain_ready(&mut self, max: usize) -> Vec<SubMsg> {
        let mut out = Vec::new();
        while out.len() < max {
            match self.rx.try_recv() {
                Ok(m) => out.push(m),
                Err(_) => break,
            }
        }
        out
    }

    /// Collects events until `EOSE`, within `caps`. Errors when the relay closes the
    /// subscription, the connection drops, a cap is passed, or `timeout` passes before
    /// `EOSE` (a trickle does not extend it): a partial fetch is never a result. A refusal for want of authentication is
    /// retried once after this side authenticates.
    /// Returns the events and the bytes of their messages.
    pub async fn collect_stored(
        &mut self,
        timeout: Duration,
        caps: PageCaps,
    ) -> Result<(Vec<Value>, usize), TransportError> {
        let url = self.shared.url.to_string();
        let mut events = Vec::new();
        let mut bytes = 0usize;
        let mut retried = false;
        let mut deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.next()).await {
                // A relay still sending but never ending the page is stalling on purpose.
                Err(_) if !events.is_empty() => {
                    let rule = format!("kept a page open for {} s without EOSE", timeout.as_secs());
                    return Err(TransportError::Misbehaved { url, rule });
                }
                Err(_) => return Err(TransportError::Timeout { url, secs: timeout.as_secs() }),
                Ok(None) => return Err(self.shared.closed()),
                Ok(Some(SubMsg::Event(e, size))) => {
                    bytes = bytes.saturating_add(size);
                    events.push(e);
                    if events.len() > caps.events || bytes > caps.bytes {
                        let rule = format!(
                            "a page passed its cap ({} events, {} bytes; caps {} and {})",
                            events.len(),
                            bytes,
                            caps.events,
                            caps.bytes
                        );
                        return Err(TransportError::Misbehaved { url, rule });
                    }
                }
                Ok(Some(SubMsg::Eose)) => return Ok((events, bytes)),
                Ok(Some(SubMsg::Closed(reason))) => {
                    let can_retry = !retried && reason.starts_with("auth-required") && self.shared.signer.is_some();
                    if can_retry && self.shared.wait_auth(timeout).await {
                        if let Some(req) = &self.req {
                            retried = true;
                            deadline = tokio::time::Instant::now() + timeout;
                            events.clear();
                            bytes = 0;
                            self.out
                                .send(Message::Text(req.to_string().into()))
                                .map_err(|_| TransportError::Closed { url: url.clone() })?;
                            continue;
                        }
                    }
                    return Err(TransportError::SubscriptionClosed { url, reason });
                }
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
