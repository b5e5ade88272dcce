//! Live sync: one task per relay keeps a subscription open and pushes every change.

use std::future::Future;
use std::time::Duration;

use super::transport::{Connection, SubMsg, Subscription};
use super::{RelayReport, RelayUrl, SyncOptions, WatchEvent};
use crate::clock::system_secs;
use crate::engine::books::SyncStorage;
use crate::engine::ingest::{self, Source};
use crate::error::{Error, Result};

/// First wait before reconnecting; doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Pending events are retried this often even without a change.
const RETRY_EVERY: Duration = Duration::from_secs(30);
/// How often to look for commits by other processes (another `memstr` invocation).
const FOREIGN_WRITES_EVERY: Duration = Duration::from_secs(1);
/// Live events applied in one transaction at most: one fsync per batch, not per event.
const LIVE_BATCH: usize = 256;

impl<S: SyncStorage> super::Syncer<S> {
    /// Syncs with every configured relay until `shutdown` completes: catches up, then
    /// keeps a live subscription open (a change on another device shows here within
    /// seconds) and pushes each local change as it commits. Reconnects with backoff
    /// (1 s doubling to 60 s) across relay restarts and network loss; a relay that broke
    /// a rule waits out its backoff first.
    pub async fn watch<F: Future<Output = ()>>(&self, opts: SyncOptions, shutdown: F) -> Result<()> {
        let relays = self.relays().await?;
        if relays.is_empty() {
            return Err(Error::relay(
                "no relays configured: add one with `MemoryStore::add_relay` (`memstr relay add wss://...`)",
            ));
        }
        let mut tasks = Vec::new();
        for info in relays {
            let url = RelayUrl::parse(&info.url, true)?;
            let store = self.clone();
            let opts = opts.clone();
            tasks.push(tokio::spawn(async move { store.watch_relay(url, opts).await }));
        }
        shutdown.await;
        for t in tasks {
            t.abort();
        }
        if let Some(f) = &opts.on_watch {
            f(&WatchEvent::Stopped);
        }
        Ok(())
    }

    async fn watch_relay(&self, url: RelayUrl, opts: SyncOptions) {
        let mut backoff = MIN_BACKOFF;
        loop {
            let mut caught_up = false;
            let mut error = None;
            if let Err(e) = self.watch_session(&url, &opts, &mut caught_up).await {
                tracing::info!(relay = %url, error = %e, "live sync interrupted");
                let _ = self.relay_failed(&url, &e.to_string()).await;
                if let Error::RelayMisbehaved { rule, .. } = &e {
                    let _ = self.relay_conduct(&url, Some(rule)).await;
                }
                error = Some(e.to_string());
            }
            backoff = if caught_up { MIN_BACKOFF } else { (backoff * 2).min(MAX_BACKOFF) };
            let until = self.relay_info(&url).await.ok().flatten().and_then(|i| i.backoff_until).unwrap_or(0);
            let banned = Duration::from_secs(until.saturating_sub(system_secs()).max(0) as u64);
            let retry_in = backoff.max(banned);
            if let Some(f) = &opts.on_watch {
                f(&WatchEvent::Disconnected { relay: url.to_string(), error, retry_in });
            }
            tokio::time::sleep(retry_in).await;
        }
    }

    /// One connection's life: catch up, then follow. Returns when the relay goes away.
    async fn watch_session(&self, url: &RelayUrl, opts: &SyncOptions, caught_up: &mut bool) -> Result<()> {
        let mut conn = Connection::connect(url, opts.connect_timeout, Some(self.auth_signer(url))).await?;
        if let Some(f) = &opts.on_watch {
            f(&WatchEvent::Connected { relay: url.to_string() });
        }
        let mut changes = self.changes();
        changes.borrow_and_update();
        // Live first, so nothing stored between the catch-up read and the REQ is missed;
        // and read from the start, through the catch-up, by the rules of a pull.
        let mut live = conn.subscribe(vec![self.live_filter(false), self.live_filter(true)])?;
        let mut meter = LiveMeter::new(opts);
        let info = self.relay_info(url).await?.ok_or_else(|| Error::relay(format!("{url} was removed")))?;
        let mut report = RelayReport::default();
        let done = {
            // The pass stops itself at the deadline, between pages; this cuts off a stall.
            let stop_at = tokio::time::Instant::now() + opts.deadline;
            let catch_up = tokio::time::timeout(
                opts.deadline + 2 * opts.timeout,
                self.pass(&mut conn, &info, opts, &mut report, stop_at),
            );
            tokio::pin!(catch_up);
            loop {
                tokio::select! {
                    done = &mut catch_up => break done,
                    msg = live.next() => {
                        if !self.on_live(url, msg, &mut live, &mut meter).await? {
                            return Ok(());
                        }
                    }
                }
            }
        };
        let late = || Error::relay(format!("{url}: catching up took over {} s", opts.deadline.as_secs()));
        match done {
            Ok(Err(_)) if report.out_of_time => return Err(late()),
            Ok(outcome) => outcome?,
            Err(_) => return Err(late()),
        }
        if let Some(rule) = &report.misbehaved {
            self.relay_conduct(url, Some(rule)).await?;
        }
        *caught_up = true;
        let mut retry = tokio::time::interval(RETRY_EVERY);
        let mut foreign = tokio::time::interval(FOREIGN_WRITES_EVERY);
        let mut version = self.data_version().await?;
        loop {
            tokio::select! {
                msg = live.next() => {
                    if !self.on_live(url, msg, &mut live, &mut meter).await? {
                        return Ok(());
                    }
                }
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    self.push_now(&conn, opts).await?;
                }
                _ = retry.tick() => {
                    if !conn.is_alive() {
                        return Ok(());
                    }
                    self.flush_accesses_if_due().await?;
                    self.push_now(&conn, opts).await?;
                }
                _ = foreign.tick() => {
                    let v = self.data_version().await?;
                    if v != version {
                        version = v;
                        self.push_now(&conn, opts).await?;
                    }
                }
            }
        }
    }

    /// One message of the live subscription (and whatever is queued behind it), through
    /// the store's door and the meter. `Ok(false)` when the subscription ended cleanly.
    async fn on_live(
        &self,
        url: &RelayUrl,
        msg: Option<SubMsg>,
        live: &mut Subscription,
        meter: &mut LiveMeter,
    ) -> Result<bool> {
        let closed = |reason: &str| Error::relay(format!("{url} closed the live subscription: {reason}"));
        let first = match msg {
            Some(SubMsg::Event(e, bytes)) => (e, bytes),
            Some(SubMsg::Closed(reason)) => return Err(closed(&reason)),
            Some(_) => return Ok(true),
            None if live.stalled() => {
                // This side fell behind (a long write elsewhere): reconnect and catch up.
                return Err(Error::relay(format!(
                    "{url}: the live subscription was dropped: memstr fell 10 s behind it"
                )));
            }
            None => return Ok(false),
        };
        // Whatever else is already queued goes into the same transaction.
        let mut batch = vec![first];
        for m in live.drain_ready(LIVE_BATCH - 1) {
            match m {
                SubMsg::Event(e, bytes) => batch.push((e, bytes)),
                SubMsg::Closed(reason) => return Err(closed(&reason)),
                _ => {}
            }
        }
        meter.read(url, batch.len(), batch.iter().map(|(_, b)| *b as u64).sum())?;
        let events = batch.into_iter().map(|(e, _)| ingest::parse_value(e)).collect();
        let source = Source::Relay { url: url.to_string(), window: None };
        let admitted = self.admit(source, events).await?;
        meter.checked(url, super::engine::violations(&admitted.report))?;
        Ok(true)
    }

    async fn push_now(&self, conn: &Connection, opts: &SyncOptions) -> Result<()> {
        let mut report = RelayReport::default();
        self.push(conn, opts, &mut report).await
    }
}

/// The caps of a pull, applied to a live subscription: at most `max_events` events and
/// `max_bytes` bytes in any `deadline` window (a pass may read that much in that time),
/// and `max_violations` events that fail checks no honest relay fails, over the session.
struct LiveMeter {
    max_events: usize,
    max_bytes: u64,
    max_violations: u64,
    window: Duration,
    started: tokio::time::Instant,
    events: usize,
    bytes: u64,
    violations: u64,
}

impl LiveMeter {
    fn new(opts: &SyncOptions) -> Self {
        LiveMeter {
            max_events: opts.max_events,
            max_bytes: opts.max_bytes,
            max_violations: opts.max_violations,
            window: opts.deadline,
            started: tokio::time::Instant::now(),
            events: 0,
            bytes: 0,
            violations: 0,
        }
    }

    /// Counts events read, before they are checked.
    fn read(&mut self, url: &RelayUrl, events: usize, bytes: u64) -> Result<()> {
        if self.started.elapsed() > self.window {
            self.started = tokio::time::Instant::now();
            self.events = 0;
            self.bytes = 0;
        }
        self.events += events;
        self.bytes += bytes;
        if self.events > self.max_events || self.bytes > self.max_bytes {
            return Err(Error::RelayMisbehaved {
                url: url.to_string(),
                rule: format!(
                    "sent {} events ({} bytes) on a live subscription within {} s: more than a pass may read",
                    self.events,
                    self.bytes,
                    self.window.as_secs()
                ),
            });
        }
        Ok(())
    }

    /// Counts the events the door refused as no honest relay would serve them.
    fn checked(&mut self, url: &RelayUrl, violations: u64) -> Result<()> {
        self.violations += violations;
        if self.violations > self.max_violations {
            return Err(Error::RelayMisbehaved {
                url: url.to_string(),
                rule: format!("sent {} events that failed checks on a live subscription", self.violations),
            });
        }
        Ok(())
    }
}
