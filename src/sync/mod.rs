//! Relay sync: every device holding the key converges through one or more relays.
//!
//! One pass per relay: connect; read what is new (NIP-77 where the relay speaks it,
//! otherwise `since` the last complete read minus an overlap, and a full read now and
//! then); apply it through the store's one apply path; then push every event that relay
//! has not acknowledged with `OK true`. Writes never wait for any of this. See
//! `docs/sync.md` for the rules.

pub mod discover;
mod engine;
pub mod transport;
mod url;
mod watch;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

pub use discover::{bootstrap_relays, ListReport, DEFAULT_BOOTSTRAP, MAX_LIST_RELAYS};
pub use transport::{TransportError, MAX_MESSAGE};
pub use url::{RelayUrl, RelayUrlError};

use crate::ImportReport;

/// Relay sync over a store's books ([`SyncStorage`]): the passes and live mode.
#[derive(Clone)]
pub(crate) struct Syncer<S>(pub S);

impl<S> std::ops::Deref for Syncer<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.0
    }
}

/// Progress of a pass: `(relay, phase, done, total)`.
pub type ProgressFn = Arc<dyn Fn(&str, &str, u64, u64) + Send + Sync>;

/// What live sync ([`MemoryStore::watch`](crate::MemoryStore::watch)) is doing, for a
/// status line: connections made and lost, and the end.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WatchEvent {
    /// Connected to `relay`: it catches up, then follows live.
    Connected {
        /// The relay's address.
        relay: String,
    },
    /// The connection to `relay` ended or could not be made; the next attempt comes after
    /// `retry_in` (backoff, or the time a misbehaving relay is shut out).
    Disconnected {
        /// The relay's address.
        relay: String,
        /// Why, when it failed (`None`: the relay closed the connection).
        error: Option<String>,
        /// Until the next attempt.
        retry_in: Duration,
    },
    /// Live sync stopped: the shutdown future completed.
    Stopped,
}

/// Called with each [`WatchEvent`].
pub type WatchFn = Arc<dyn Fn(&WatchEvent) + Send + Sync>;

/// How a sync pass behaves.
#[derive(Clone)]
pub struct SyncOptions {
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Time allowed for one answer (a page of events, an `OK`, a NIP-77 round).
    pub timeout: Duration,
    /// Re-read this much before the last checkpoint: clocks differ and relays store late.
    pub overlap: Duration,
    /// Read everything, not just what is new.
    pub full: bool,
    /// Read everything anyway when the last full read is older than this.
    pub full_every: Duration,
    /// Events per page when reading.
    pub page: usize,
    /// Events in flight when pushing.
    pub window: usize,
    /// How long one pass with one relay reads, pull and push together: past it, no page is
    /// asked for (the page in hand is written and counted first), and what does not end by
    /// itself (a stalled read, the push) is cut off `2 × timeout` later. A relay that got
    /// nowhere is marked misbehaving; the other relays never wait for it. A read stopped
    /// here goes on where it stopped on the next pass.
    pub deadline: Duration,
    /// Pages one pass may read from one relay.
    pub max_pages: usize,
    /// Events one pass may read from one relay (whatever they turn out to be). Pages never
    /// ask for more than is left; a read that uses it all goes on where it stopped on the
    /// next pass (the relay is not at fault). Only the read of one whole second may pass it,
    /// by at most [`SyncOptions::boundary_events`].
    pub max_events: usize,
    /// Bytes of event messages one pass may read from one relay.
    pub max_bytes: u64,
    /// Bytes of event messages one page may hold.
    pub page_bytes: usize,
    /// Events one second may hold when a whole page falls on it and it is read again in
    /// full (NIP-01's `until` is inclusive, and memstr writes over a thousand a second).
    pub boundary_events: usize,
    /// NIP-77 rounds one reconciliation may take before it falls back to `since` reads.
    pub neg_rounds: usize,
    /// Events that fail checks no honest relay could fail (forged, foreign, outside the
    /// window, not an event) before the relay is cut off as misbehaving.
    pub max_violations: u64,
    /// Called as work proceeds.
    pub progress: Option<ProgressFn>,
    /// Live sync only: called when a relay connects, disconnects, and when it stops.
    pub on_watch: Option<WatchFn>,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(20),
            overlap: Duration::from_secs(600),
            full: false,
            full_every: Duration::from_secs(24 * 3600),
            page: 1000,
            window: 200,
            deadline: Duration::from_secs(60),
            max_pages: 2_000,
            max_events: 500_000,
            max_bytes: 1 << 30,
            page_bytes: 32 << 20,
            boundary_events: 50_000,
            neg_rounds: 64,
            max_violations: 100,
            progress: None,
            on_watch: None,
        }
    }
}

impl std::fmt::Debug for SyncOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncOptions")
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .field("full", &self.full)
            .field("page", &self.page)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

/// What one pass did with one relay.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RelayReport {
    /// The relay's address.
    pub url: String,
    /// How the relay was read: `negentropy`, `full` or `since`.
    pub method: String,
    /// Events read and what applying them did.
    pub pulled: ImportReport,
    /// Events the relay acknowledged with `OK true`.
    pub pushed: u64,
    /// Events it refused, with its reasons (retried next pass).
    pub refused: Vec<(String, String)>,
    /// Still not acknowledged after the pass.
    pub pending: u64,
    /// Why the pass stopped early, if it did.
    pub error: Option<String>,
    /// The rule the relay broke in this pass, if it broke one (it is then backed off).
    pub misbehaved: Option<String>,
    /// Where the read goes on next pass, while it is unfinished (kept when the pass stops).
    #[serde(skip)]
    pub(crate) resume: Option<crate::engine::books::Resume>,
    /// The pass stopped at its deadline (not a failure of the relay's, unless it got
    /// nowhere).
    #[serde(skip)]
    pub(crate) out_of_time: bool,
}

impl RelayReport {
    /// Whether this relay's read was cut short and goes on where it stopped next pass: by
    /// the pass's allowance or deadline, or by a failure (a lost connection, a full disk;
    /// [`RelayReport::error`] says which). False once the relay broke a rule.
    pub fn read_goes_on(&self) -> bool {
        self.resume.is_some() && self.misbehaved.is_none()
    }

    /// Adds a later pass with the same relay: the counts of events read and pushed add
    /// up; the rest (method, refusals, pending, error, where the read goes on) is the
    /// later pass's, since a refused event is offered again each pass. A rule the relay
    /// broke in any pass is kept.
    pub fn absorb(&mut self, later: RelayReport) {
        self.pulled.absorb(later.pulled);
        self.pushed += later.pushed;
        self.refused = later.refused;
        self.misbehaved = later.misbehaved.or(self.misbehaved.take());
        self.method = later.method;
        self.pending = later.pending;
        self.error = later.error;
        self.resume = later.resume;
        self.out_of_time = later.out_of_time;
    }
}

// Conversions from sync's own errors live here rather than in `error.rs`, which stays at the
// bottom of the layers (it imports no subsystem).
impl From<TransportError> for crate::Error {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Misbehaved { url, rule } => crate::Error::RelayMisbehaved { url, rule },
            e => crate::Error::Relay(crate::Cause::from("", e)),
        }
    }
}

impl From<RelayUrlError> for crate::Error {
    fn from(e: RelayUrlError) -> Self {
        crate::Error::Relay(crate::Cause::from("", e))
    }
}
