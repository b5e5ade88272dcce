//! What stands between the network and `memstr relay serve`'s relay: nostr-relay-builder
//! accepts every connection, keeps it as long as the peer likes and buffers messages up to
//! 64 MiB, so this layer accepts instead and hands it only connections within bounds
//! (docs/sync.md, "relay serve"):
//!
//! - connections in total and per address are capped; one past a cap is closed at once;
//! - the websocket handshake must arrive within [`HANDSHAKE_WAIT`] and fit in
//!   [`MAX_HANDSHAKE`] bytes;
//! - a connection that sends nothing for the idle timeout is closed (memstr's client pings
//!   every 30 s), and with `--auth` one that has not sent `AUTH` within the auth timeout;
//! - every frame a client sends is checked as it arrives, before the relay buffers it: a
//!   frame or message over the size bound closes the connection.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use nostr_relay_builder::prelude::LocalRelay;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// How long a new connection has to complete its websocket handshake.
pub const HANDSHAKE_WAIT: Duration = Duration::from_secs(10);
/// Largest handshake request, in bytes.
pub const MAX_HANDSHAKE: usize = 8 << 10;

/// The bounds, from `relay serve`'s flags.
#[derive(Debug, Clone)]
pub struct Bounds {
    pub max_connections: usize,
    pub max_per_address: usize,
    pub idle: Duration,
    /// With `--auth`: how long a connection may go without sending `AUTH`.
    pub auth_wait: Option<Duration>,
    /// Largest frame, and largest message, a client may send.
    pub max_message: usize,
}

/// Counts of what the guard turned away, for the log at shutdown.
#[derive(Debug, Default)]
pub struct Refused {
    pub over_total: AtomicU64,
    pub over_address: AtomicU64,
    pub bad_handshake: AtomicU64,
    pub idle: AtomicU64,
    pub unauthenticated: AtomicU64,
    pub oversized: AtomicU64,
}

/// Accepts on `listener` and hands each connection within `bounds` to `relay`, until the
/// task is dropped.
pub async fn accept(listener: TcpListener, relay: LocalRelay, bounds: Bounds, refused: Arc<Refused>) {
    let total = Arc::new(Semaphore::new(bounds.max_connections));
    let per_address: Arc<Mutex<HashMap<IpAddr, usize>>> = Arc::default();
    loop {
        let (tcp, addr) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors, say: wait rather than spin.
                tracing::warn!("cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = total.clone().try_acquire_owned() else {
            refused.over_total.fetch_add(1, Ordering::Relaxed);
            continue; // dropped: closed at once
        };
        let Some(slot) = AddressSlot::take(&per_address, addr.ip(), bounds.max_per_address) else {
            refused.over_address.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        let (relay, bounds, refused) = (relay.clone(), bounds.clone(), refused.clone());
        tokio::spawn(async move {
            let _held = (permit, slot);
            serve_one(tcp, addr, relay, bounds, refused).await;
        });
    }
}

/// One address's share of the connections; given back when dropped.
struct AddressSlot {
    map: Arc<Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl AddressSlot {
    fn take(map: &Arc<Mutex<HashMap<IpAddr, usize>>>, ip: IpAddr, max: usize) -> Option<AddressSlot> {
        let mut m = map.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = m.entry(ip).or_default();
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(AddressSlot { map: map.clone(), ip })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut m = self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = m.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

async fn serve_one(mut tcp: TcpStream, addr: SocketAddr, relay: LocalRelay, bounds: Bounds, refused: Arc<Refused>) {
    let leftover = match tokio::time::timeout(HANDSHAKE_WAIT, handshake(&mut tcp)).await {
        Ok(Ok(rest)) => rest,
        _ => {
            refused.bad_handshake.fetch_add(1, Ordering::Relaxed);
            return;
        }
    };
    let watch = Arc::new(Activity::new());
    let stream =
        Watched { inner: tcp, pending: leftover, frames: Frames::new(bounds.max_message), watch: watch.clone() };
    tokio::select! {
        r = relay.take_connection(stream, addr) => {
            if let Err(e) = r {
                tracing::debug!(%addr, "relay connection ended: {e}");
            }
        }
        why = watchdog(&watch, &bounds) => {
            let counter = match why {
                Ended::Idle => &refused.idle,
                Ended::Unauthenticated => &refused.unauthenticated,
                Ended::Oversized => &refused.oversized,
            };
            counter.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(%addr, "closed: {why:?}");
        }
    }
}

/// Reads the HTTP upgrade request (bounded) and answers `101 Switching Protocols`. Returns
/// the bytes read past the request (frames a client sent without waiting).
async fn handshake(tcp: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buf.len() >= MAX_HANDSHAKE {
            return Err(io::Error::other("handshake too large"));
        }
        let mut chunk = [0u8; 1024];
        let n = tcp.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]);
    let key = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim().eq_ignore_ascii_case("sec-websocket-key").then(|| value.trim().to_string())
    });
    let upgrade = head.lines().any(|l| {
        l.split_once(':').is_some_and(|(n, v)| {
            n.trim().eq_ignore_ascii_case("upgrade") && v.to_ascii_lowercase().contains("websocket")
        })
    });
    let (Some(key), true, true) = (key, upgrade, head.starts_with("GET ")) else {
        let _ = tcp
            .write_all(b"HTTP/1.1 426 Upgrade Required\r\nUpgrade: websocket\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return Err(io::Error::other("not a websocket upgrade"));
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    tcp.write_all(
        format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
        )
        .as_bytes(),
    )
    .await?;
    Ok(buf[end..].to_vec())
}

/// What the watchdog sees of a connection.
struct Activity {
    start: Instant,
    /// Milliseconds after `start` of the last byte read from the client.
    last_read: AtomicU64,
    authed: AtomicBool,
    oversized: AtomicBool,
}

impl Activity {
    fn new() -> Self {
        Activity {
            start: Instant::now(),
            last_read: AtomicU64::new(0),
            authed: AtomicBool::new(false),
            oversized: AtomicBool::new(false),
        }
    }
    fn touch(&self) {
        self.last_read.store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

#[derive(Debug)]
enum Ended {
    Idle,
    Unauthenticated,
    Oversized,
}

/// Completes when the connection broke a bound; dropping the relay's future with it
/// closes the socket.
async fn watchdog(watch: &Activity, bounds: &Bounds) -> Ended {
    let tick = Duration::from_millis(250).min(bounds.idle / 4);
    loop {
        tokio::time::sleep(tick).await;
        if watch.oversized.load(Ordering::Relaxed) {
            return Ended::Oversized;
        }
        let now = watch.start.elapsed();
        let last = Duration::from_millis(watch.last_read.load(Ordering::Relaxed));
        if now.saturating_sub(last) > bounds.idle {
            return Ended::Idle;
        }
        if let Some(wait) = bounds.auth_wait {
            if now > wait && !watch.authed.load(Ordering::Relaxed) {
                return Ended::Unauthenticated;
            }
        }
    }
}

/// The client's socket as the relay reads it: every byte goes through [`Frames`] first.
struct Watched {
    inner: TcpStream,
    pending: Vec<u8>,
    frames: Frames,
    watch: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.watch.oversized.load(Ordering::Relaxed) {
            return Poll::Ready(Ok(())); // end of stream: the relay drops the connection
        }
        let before = buf.filled().len();
        if !this.pending.is_empty() {
            let n = this.pending.len().min(buf.remaining());
            buf.put_slice(&this.pending[..n]);
            this.pending.drain(..n);
        } else {
            std::task::ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        }
        let new = &buf.filled()[before..];
        if !new.is_empty() {
            this.watch.touch();
            match this.frames.feed(new) {
                Ok(auth) => {
                    if auth {
                        this.watch.authed.store(true, Ordering::Relaxed);
                    }
                }
                Err(()) => {
                    this.watch.oversized.store(true, Ordering::Relaxed);
                    buf.set_filled(before);
                    return Poll::Ready(Ok(()));
                }
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A reader of the websocket frames a client sends (RFC 6455 §5.2), as bytes arrive: it
/// keeps only a frame header, so it bounds frames and messages before anything buffers
/// them, and it unmasks the first bytes of each text message to see `["AUTH"`.
struct Frames {
    max: usize,
    header: Vec<u8>,
    /// Payload bytes left in the current frame, and where in it we are.
    left: u64,
    at: u64,
    mask: [u8; 4],
    /// Bytes of the current data message so far (continuations included).
    message: u64,
    /// The first payload bytes of a text message, unmasked, while deciding if it is AUTH.
    head: Option<Vec<u8>>,
}

const AUTH_PREFIX: &[u8] = b"[\"AUTH\"";

impl Frames {
    fn new(max: usize) -> Self {
        Frames { max, header: Vec::with_capacity(14), left: 0, at: 0, mask: [0; 4], message: 0, head: None }
    }

    /// Feeds bytes the client sent. `Ok(true)` when they completed the start of an `AUTH`
    /// message; `Err` when a frame or message is over the bound.
    fn feed(&mut self, mut bytes: &[u8]) -> Result<bool, ()> {
        let mut auth = false;
        while !bytes.is_empty() {
            if self.left > 0 {
                let n = (self.left as usize).min(bytes.len());
                if let Some(head) = &mut self.head {
                    for (i, b) in bytes[..n].iter().enumerate() {
                        if head.len() == 16 {
                            break;
                        }
                        let c = b ^ self.mask[((self.at + i as u64) % 4) as usize];
                        if !(head.is_empty() && c.is_ascii_whitespace()) {
                            head.push(c);
                        }
                    }
                    let compact: Vec<u8> = head.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
                    if compact.len() >= AUTH_PREFIX.len() || head.len() == 16 {
                        auth |= compact.starts_with(AUTH_PREFIX);
                        self.head = None;
                    }
                }
                self.left -= n as u64;
                self.at += n as u64;
                bytes = &bytes[n..];
                continue;
            }
            self.header.push(bytes[0]);
            bytes = &bytes[1..];
            let Some(len) = self.header_done() else { continue };
            let (b0, masked) = (self.header[0], self.header[1] & 0x80 != 0);
            let opcode = b0 & 0x0f;
            if len > self.max as u64 {
                return Err(());
            }
            if opcode < 8 {
                // 0 continues a message; 1 (text) and 2 (binary) start one.
                self.message = if opcode == 0 { self.message + len } else { len };
                if self.message > self.max as u64 {
                    return Err(());
                }
                if opcode == 1 {
                    self.head = Some(Vec::with_capacity(16));
                }
            }
            if masked {
                let n = self.header.len();
                self.mask.copy_from_slice(&self.header[n - 4..]);
            } else {
                self.mask = [0; 4];
            }
            self.header.clear();
            self.left = len;
            self.at = 0;
        }
        Ok(auth)
    }

    /// The payload length once the header is complete.
    fn header_done(&self) -> Option<u64> {
        let h = &self.header;
        if h.len() < 2 {
            return None;
        }
        let (masked, len7) = (h[1] & 0x80 != 0, h[1] & 0x7f);
        let ext = match len7 {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let need = 2 + ext + if masked { 4 } else { 0 };
        if h.len() < need {
            return None;
        }
        Some(match len7 {
            126 => u64::from(u16::from_be_bytes([h[2], h[3]])),
            127 => u64::from_be_bytes(h[2..10].try_into().expect("8 bytes")),
            n => u64::from(n),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A masked client frame.
    fn frame(opcode: u8, fin: bool, payload: &[u8]) -> Vec<u8> {
        let mask = [0x11, 0x22, 0x33, 0x44];
        let mut f = vec![if fin { 0x80 } else { 0 } | opcode];
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n if n < 65_536 => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                f.push(0x80 | 127);
                f.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        f
    }

    #[test]
    fn auth_is_seen_across_split_reads_and_other_messages_are_not_auth() {
        let mut fr = Frames::new(1 << 20);
        let bytes = frame(1, true, br#"  ["AUTH", {"id": "x"}]"#);
        let (a, b) = bytes.split_at(9);
        assert!(!fr.feed(a).unwrap());
        assert!(fr.feed(b).unwrap());
        let mut fr = Frames::new(1 << 20);
        assert!(!fr.feed(&frame(1, true, br#"["REQ","s",{}]"#)).unwrap());
        assert!(!fr.feed(&frame(9, true, b"ping")).unwrap());
        assert!(fr.feed(&frame(1, true, br#"["AUTH",{}]"#)).unwrap());
    }

    #[test]
    fn a_frame_or_message_over_the_bound_is_refused_from_its_header() {
        let mut fr = Frames::new(1000);
        assert!(fr.feed(&frame(1, true, &[b'x'; 1000])).is_ok());
        // The header alone says 1 GiB: refused before any payload arrives.
        let mut big = vec![0x81, 0x80 | 127];
        big.extend_from_slice(&(1u64 << 30).to_be_bytes());
        big.extend_from_slice(&[1, 2, 3, 4]); // the mask completes the header
        assert!(Frames::new(1000).feed(&big).is_err());
        // Continuations add up.
        let mut fr = Frames::new(1000);
        assert!(fr.feed(&frame(1, false, &[b'x'; 600])).is_ok());
        assert!(fr.feed(&frame(0, true, &[b'x'; 600])).is_err());
    }
}
