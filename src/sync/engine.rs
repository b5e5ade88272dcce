//! One sync pass against each relay, bounded in time, pages, events and bytes.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use negentropy::{Id, Negentropy, NegentropyStorageVector};
use nostr::JsonUtil;
use serde_json::{json, Value};

use super::transport::{AuthSigner, Connection, PageCaps, TransportError};
use super::{RelayReport, RelayUrl, SyncOptions};
use crate::clock::system_secs;
use crate::codec::{KIND_APP_DATA, KIND_DELETION, KIND_DM, KIND_PRIVATE_RELAYS};
use crate::engine::books::SyncStorage;
use crate::engine::books::{RelayInfo, Resume};
use crate::engine::ingest::{self, Source};
use crate::error::{Error, RejectReason, Result};
use crate::ImportReport;

/// NIP-77 frame limit (bytes of a message), as nostr-relay-builder uses.
const NEG_FRAME_LIMIT: u64 = 60_000;
/// How long to wait for a NIP-77 answer before deciding the relay lacks it.
const NEG_PROBE: Duration = Duration::from_millis(1500);
/// Ids per `REQ` when fetching what NIP-77 found missing.
const IDS_PER_REQ: usize = 500;

/// Rejections no honest relay causes for memstr's filters: it asked for its own events
/// of its kinds in a window, so these mean forgery, junk, or a relay ignoring the filter.
const VIOLATIONS: [RejectReason; 6] = [
    RejectReason::BadSignature,
    RejectReason::ForeignAuthor,
    RejectReason::UnsupportedKind,
    RejectReason::NotToSelf,
    RejectReason::MalformedEvent,
    RejectReason::OutOfWindow,
];

/// How many of a report's rejections are [`VIOLATIONS`].
pub(crate) fn violations(report: &ImportReport) -> u64 {
    VIOLATIONS.iter().map(|r| report.rejected.get(r.as_str()).copied().unwrap_or(0)).sum()
}

/// What one pass has used of its caps, and what it learned.
struct Budget<'a> {
    opts: &'a SyncOptions,
    url: String,
    pages: usize,
    events: usize,
    bytes: u64,
    /// Ids of every event read this pass (to count each once, and for relay repair).
    seen: HashSet<[u8; 32]>,
    served: Vec<String>,
    /// Newest `created_at` of the events that may move the checkpoint.
    newest: Option<i64>,
    /// What the door did, counted as it happens (a pass cut off at its deadline keeps it).
    report: &'a mut RelayReport,
    /// The read under way: when it began, whether it is full, and the newest event a pass
    /// before this one took from it (a read resumed).
    read: Resume,
    /// When the pass stops asking for pages ([`SyncOptions::deadline`]).
    stop_at: tokio::time::Instant,
}

impl<'a> Budget<'a> {
    fn new(opts: &'a SyncOptions, url: &RelayUrl, report: &'a mut RelayReport, stop_at: tokio::time::Instant) -> Self {
        Budget {
            opts,
            url: url.to_string(),
            pages: 0,
            events: 0,
            bytes: 0,
            seen: HashSet::new(),
            served: Vec::new(),
            newest: None,
            report,
            read: Resume { started: 0, until: 0, newest: None, full: false, dm: false },
            stop_at,
        }
    }

    /// Whether the pass is past its deadline. Checked before each page is asked for, so a
    /// pass ends between pages and every page it read is written and counted: cut in the
    /// middle of a write (as a timeout around the pass does), a page commits uncounted.
    fn past_deadline(&self) -> bool {
        tokio::time::Instant::now() >= self.stop_at
    }

    /// Ends the pass at its deadline: marks the report so (the caller then decides whether
    /// the relay got anywhere) and returns the error.
    fn stop_at_deadline(&mut self) -> Error {
        self.report.out_of_time = true;
        let secs = self.opts.deadline.as_secs_f64();
        Error::relay(format!("{}: the pass did not finish within {secs} s; it goes on next time", self.url))
    }

    /// Caps for the read of one whole second: [`SyncOptions::boundary_events`], whatever is
    /// left of the pass's allowance of events.
    fn boundary_caps(&mut self) -> Result<PageCaps> {
        let mut caps = self.page_caps(self.opts.boundary_events)?;
        caps.events = self.opts.boundary_events;
        Ok(caps)
    }

    /// Events this pass may still read.
    fn left(&self) -> usize {
        self.opts.max_events.saturating_sub(self.events)
    }

    /// The pass read its allowance of events: not the relay's fault, and the read goes on
    /// next pass where this one stopped.
    fn spent(&self) -> Error {
        Error::relay(format!(
            "{}: read this pass's allowance of {} events; the read goes on next pass",
            self.url, self.opts.max_events
        ))
    }

    /// Everything of phase `dm` newer than `until` went through the door: a pass that stops
    /// now goes on from there.
    fn reached(&mut self, dm: bool, until: i64) {
        let newest = self.read.newest.max(self.newest);
        self.report.resume = Some(Resume { until, newest, dm, ..self.read });
    }

    fn misbehaved(&self, rule: String) -> Error {
        Error::RelayMisbehaved { url: self.url.clone(), rule }
    }

    /// Caps for the next page: what is left of the pass's allowance, within a page's own.
    fn page_caps(&mut self, events: usize) -> Result<PageCaps> {
        if self.past_deadline() {
            return Err(self.stop_at_deadline());
        }
        self.caps(events)
    }

    /// [`Budget::page_caps`] for a caller that has just checked the deadline itself.
    fn caps(&mut self, events: usize) -> Result<PageCaps> {
        self.pages += 1;
        if self.pages > self.opts.max_pages {
            return Err(self.misbehaved(format!("more than {} pages in one pass", self.opts.max_pages)));
        }
        let left_events = self.opts.max_events.saturating_sub(self.events);
        let left_bytes = self.opts.max_bytes.saturating_sub(self.bytes).min(usize::MAX as u64) as usize;
        Ok(PageCaps { events: events.min(left_events), bytes: self.opts.page_bytes.min(left_bytes) })
    }

    /// Counts a page read in full and keeps the events not seen before in this pass (and
    /// every event outside `window`, so the door counts each as `out_of_window`).
    fn take(&mut self, (page, bytes): (Vec<Value>, usize), window: Option<(i64, i64)>) -> Vec<Value> {
        self.events += page.len();
        self.bytes += bytes as u64;
        page.into_iter()
            .filter(|e| {
                let inside =
                    e["created_at"].as_i64().is_some_and(|t| window.is_none_or(|(lo, hi)| (lo..=hi).contains(&t)));
                if !inside {
                    return true;
                }
                let Some(id) = e["id"].as_str() else { return true };
                let Some(key) = hex::decode(id).ok().and_then(|b| <[u8; 32]>::try_from(b).ok()) else { return true };
                if !self.seen.insert(key) {
                    return false;
                }
                self.served.push(id.to_string());
                true
            })
            .collect()
    }

    fn violations(&self) -> u64 {
        violations(&self.report.pulled)
    }
}

impl<S: SyncStorage> super::Syncer<S> {
    /// One pass with every configured relay, concurrently, each within its own deadline
    /// ([`SyncOptions::deadline`]). A relay that fails is reported (its error kept in
    /// [`RelayInfo::last_error`]); a relay that broke a rule is also marked misbehaving
    /// and backed off. The others carry on.
    pub async fn sync(&self, opts: &SyncOptions) -> Result<Vec<RelayReport>> {
        self.flush_accesses_if_due().await?;
        self.sign_relay_list().await?;
        let relays = self.relays().await?;
        let passes = relays.into_iter().map(|info| self.sync_relay(info, opts));
        let mut reports = futures_util::future::join_all(passes).await;
        // The agent's list, merged from what the passes read, may name relays this device
        // lacks (added on another device): they are configured and synced now.
        let mut list = super::ListReport::default();
        self.follow_list(false, &mut list).await?;
        for (url, why) in &list.skipped {
            tracing::warn!(relay = %url, "the agent's relay list names a relay not configured: {why}");
        }
        let added: Vec<RelayInfo> = self.relays().await?.into_iter().filter(|r| list.added.contains(&r.url)).collect();
        let passes = added.into_iter().map(|info| self.sync_relay(info, opts));
        reports.extend(futures_util::future::join_all(passes).await);
        Ok(reports)
    }

    async fn sync_relay(&self, info: RelayInfo, opts: &SyncOptions) -> RelayReport {
        let mut report = RelayReport { url: info.url.clone(), ..Default::default() };
        let url = match RelayUrl::parse(&info.url, true) {
            Ok(u) => u,
            Err(e) => {
                report.error = Some(e.to_string());
                return report;
            }
        };
        if let Some(until) = info.backoff_until.filter(|t| *t > system_secs()) {
            let why = info.misbehaving.clone().unwrap_or_default();
            report.error = Some(format!("backed off until {until} (Unix seconds) after misbehaving: {why}"));
            report.pending = self.pending_count(&url).await.unwrap_or(0);
            return report;
        }
        // The pass stops asking for pages at the deadline (`Budget::past_deadline`); this
        // cuts off what does not end by itself (a stalled read, a push, the NIP-77 rounds),
        // two answers' time later: a read asked for just before the deadline may take one,
        // and its authentication retry another.
        let stop_at = tokio::time::Instant::now() + opts.deadline;
        let timed = tokio::time::timeout(opts.deadline + 2 * opts.timeout, async {
            let mut conn = Connection::connect(&url, opts.connect_timeout, Some(self.auth_signer(&url))).await?;
            self.pass(&mut conn, &info, opts, &mut report, stop_at).await
        })
        .await;
        let outcome = match timed {
            Ok(Err(_)) if report.out_of_time => Err(out_of_time(url.as_str(), opts, &report)),
            Ok(outcome) => outcome,
            Err(_) => Err(out_of_time(url.as_str(), opts, &report)),
        };
        let clean = outcome.is_ok() && report.misbehaved.is_none();
        if let (Err(_), Some(at)) = (&outcome, report.resume) {
            // A read cut short (deadline, allowance, a failure): the next pass goes on here.
            let _ = self.relay_resume(&url, at).await;
        }
        if let Err(e) = outcome {
            let msg = e.to_string();
            // The report carries the error to the caller (`memstr sync` prints it): a
            // warning here would say it twice.
            tracing::info!(relay = %url, error = %msg, "sync pass failed");
            if let Error::RelayMisbehaved { rule, .. } = &e {
                report.misbehaved.get_or_insert(rule.clone());
            }
            let _ = self.relay_failed(&url, &msg).await;
            report.error = Some(msg);
        }
        if clean || report.misbehaved.is_some() {
            let _ = self.relay_conduct(&url, report.misbehaved.as_deref()).await;
        }
        report.pending = self.pending_count(&url).await.unwrap_or(0);
        report
    }

    /// Signs NIP-42 answers for `url` with the store's key.
    pub(crate) fn auth_signer(&self, url: &RelayUrl) -> AuthSigner {
        let store = self.clone();
        let url = url.to_string();
        Arc::new(move |challenge: &str| {
            let event = store.auth_event(challenge, &url).ok()?;
            serde_json::from_str(&event.as_json()).ok()
        })
    }

    /// Pull, then push, over an open connection. A failed NIP-77 session falls back to
    /// `since` reads (on a new connection if the session took the old one down).
    pub(crate) async fn pass(
        &self,
        conn: &mut Connection,
        info: &RelayInfo,
        opts: &SyncOptions,
        report: &mut RelayReport,
        stop_at: tokio::time::Instant,
    ) -> Result<()> {
        let url = conn.url().clone();
        let started = system_secs();
        let mut budget = Budget::new(opts, &url, report, stop_at);
        let negentropy = match info.negentropy {
            Some(known) => known,
            None => {
                let filter = self.app_filter(None, None, None);
                let initial = self.neg_initial(&[]).await?;
                let supported = conn.probe_negentropy(filter, initial, NEG_PROBE).await;
                if !supported {
                    self.set_negentropy(&url, false).await?;
                }
                supported && conn.is_alive()
            }
        };
        let mut done = false;
        if negentropy {
            budget.report.method = "negentropy".into();
            match self.pull_negentropy(conn, &mut budget).await {
                Ok(()) => {
                    self.set_negentropy(&url, true).await?;
                    self.relay_synced(&url, started, true).await?;
                    done = true;
                }
                // Out of time is not a failed session: the next pass reconciles again.
                Err(e) if budget.report.out_of_time => return Err(e),
                Err(e) => {
                    // Not capable after all: read as from a relay without NIP-77, and say so.
                    tracing::info!(relay = %url, error = %e, "NIP-77 session failed; reading with since");
                    self.set_negentropy(&url, false).await?;
                    budget.report.misbehaved = Some(format!("NIP-77 session failed: {e}"));
                }
            }
        }
        if !done && !conn.is_alive() {
            // The probe or the session took the connection down (an oversized answer, say).
            if let TransportError::Misbehaved { rule, .. } = conn.closed_error() {
                budget.report.misbehaved.get_or_insert(rule);
            }
            *conn = Connection::connect(&url, opts.connect_timeout, Some(self.auth_signer(&url))).await?;
        }
        if !done {
            let stale_full =
                info.last_full.is_none_or(|t| started.saturating_sub(t) > opts.full_every.as_secs() as i64);
            // Up to what the door would apply (clocks differ, and a burst of edits to one
            // record is stamped a few seconds ahead); the checkpoint stays at `started`.
            // A read an earlier pass left unfinished goes on below where it stopped, with
            // the start and the kind it had.
            let (read, from) = match info.resume {
                Some(r) => (Resume { until: r.started.saturating_add(ingest::FUTURE_SLACK), ..r }, r.until),
                None => {
                    let top = started.saturating_add(ingest::FUTURE_SLACK);
                    let full = opts.full || stale_full;
                    (Resume { started, until: top, newest: None, full, dm: false }, top)
                }
            };
            let since = (!read.full).then(|| info.checkpoint.saturating_sub(opts.overlap.as_secs() as i64).max(0));
            budget.report.method = if read.full { "full" } else { "since" }.into();
            budget.read = read;
            self.pull_since(conn, since, from, &mut budget).await?;
            budget.report.resume = None;
            if read.full && info.resume.is_none() {
                // What the relay no longer serves must be pushed again (relay repair). Only
                // after a full read in one pass: one spread over passes saw only its part.
                self.reconcile_acks(&url, std::mem::take(&mut budget.served)).await?;
            }
            // Only events that were applied or already held move the checkpoint, never
            // past the moment the read began: a relay's dates are its word, not ours.
            let newest = budget.newest.max(read.newest).unwrap_or(0).max(info.checkpoint);
            self.relay_synced(&url, newest.min(read.started), read.full).await?;
        }
        self.push(conn, opts, report).await
    }

    fn app_filter(&self, since: Option<i64>, until: Option<i64>, limit: Option<usize>) -> Value {
        let mut f = json!({"authors": [self.public_key().to_hex()], "kinds": [KIND_APP_DATA, KIND_DELETION, KIND_PRIVATE_RELAYS]});
        set_bounds(&mut f, since, until, limit);
        f
    }

    /// New events only (`limit 0`: no stored events), for the live subscription.
    pub(crate) fn live_filter(&self, dm: bool) -> Value {
        if dm {
            self.dm_filter(None, None, Some(0))
        } else {
            self.app_filter(None, None, Some(0))
        }
    }

    fn dm_filter(&self, since: Option<i64>, until: Option<i64>, limit: Option<usize>) -> Value {
        let me = self.public_key().to_hex();
        let mut f = json!({"authors": [me], "kinds": [KIND_DM], "#p": [me]});
        set_bounds(&mut f, since, until, limit);
        f
    }

    /// Reads everything matching our filters from `since` (all if `None`) to `until`,
    /// page by page, newest first. Each page must move the window back: the next `until`
    /// is the page's oldest in-window second, and a page that falls on one second is
    /// followed by one capped read of that whole second. Errors unless every page ended
    /// with `EOSE`: a partial read never moves a checkpoint.
    async fn pull_since(
        &self,
        conn: &Connection,
        since: Option<i64>,
        until: i64,
        budget: &mut Budget<'_>,
    ) -> Result<()> {
        let opts = budget.opts;
        let lo = since.unwrap_or(0);
        let top = budget.read.until;
        for dm in [false, true] {
            if !dm && budget.read.dm {
                // A resumed read that had finished the app's events.
                continue;
            }
            let until = if dm == budget.read.dm { until } else { top };
            budget.reached(dm, until);
            let filter = |since: Option<i64>, until: i64, limit: Option<usize>| {
                if dm {
                    self.dm_filter(since, Some(until), limit)
                } else {
                    self.app_filter(since, Some(until), limit)
                }
            };
            let mut until = until;
            // The page read last, written while the next one is read and checked: the store
            // writes one page (one thread) as the relay serves the next and the other cores
            // check its signatures and decrypt it (at most one page ahead, so the caps and
            // the violation count still stop a bad relay within a page).
            let mut waiting: Option<(ingest::Checked, (i64, i64), i64)> = None;
            loop {
                if budget.past_deadline() {
                    // The page checked last goes in before the pass ends: it was read.
                    if let Some((checked, window, next)) = waiting.take() {
                        let part = self.admit_checked(relay_source(conn.url(), window), checked).await?;
                        self.absorb_page(conn.url(), part, budget)?;
                        budget.reached(dm, next);
                    }
                    return Err(budget.stop_at_deadline());
                }
                // Never ask for more than the pass may still read: an honest relay serving
                // the page asked for never breaks a cap.
                let limit = opts.page.min(budget.left());
                let caps = budget.caps(limit)?;
                let window = (lo, until);
                let read = async {
                    if limit == 0 {
                        return Ok(None);
                    }
                    let page = conn
                        .subscribe(vec![filter(since, until, Some(limit))])?
                        .collect_stored(opts.timeout, caps)
                        .await?;
                    let full_page = page.0.len() >= limit;
                    let oldest = page
                        .0
                        .iter()
                        .filter_map(|e| e["created_at"].as_i64())
                        .filter(|t| (lo..=until).contains(t))
                        .min();
                    let fresh = budget.take(page, Some(window));
                    let checked = self.check(fresh.into_iter().map(ingest::parse_value).collect()).await?;
                    Ok::<_, Error>(Some((full_page, oldest, checked)))
                };
                let admit = async {
                    match waiting.take() {
                        Some((checked, window, next)) => {
                            Some((self.admit_checked(relay_source(conn.url(), window), checked).await, next))
                        }
                        None => None,
                    }
                };
                let (page, admitted) = tokio::join!(read, admit);
                if let Some((part, next)) = admitted {
                    self.absorb_page(conn.url(), part?, budget)?;
                    budget.reached(dm, next);
                }
                let Some((full_page, oldest, checked)) = page? else { return Err(budget.spent()) };
                if !full_page || oldest.is_none_or(|t| t >= until) {
                    // A page that ends the read here or falls on one second: admitted now.
                    let part = self.admit_checked(relay_source(conn.url(), window), checked).await?;
                    self.absorb_page(conn.url(), part, budget)?;
                    if !full_page {
                        break;
                    }
                } else if let Some(t) = oldest {
                    waiting = Some((checked, window, t));
                }
                match oldest {
                    None => {
                        return Err(budget.misbehaved("served a full page with nothing in the requested window".into()))
                    }
                    Some(t) if t < until => until = t,
                    Some(t) => {
                        // A whole page at one second: read that second in full, once, even
                        // past what is left of the allowance (by at most `boundary_events`):
                        // stopping here would stop every later pass here too.
                        let caps = budget.boundary_caps()?;
                        let rest = conn
                            .subscribe(vec![filter(Some(t), t, None)])?
                            .collect_stored(opts.timeout, caps)
                            .await
                            .map_err(|e| match e {
                                TransportError::Misbehaved { rule, .. } => {
                                    budget.misbehaved(format!("second {t} holds too much: {rule}"))
                                }
                                e => e.into(),
                            })?;
                        let fresh = budget.take(rest, Some((t, t)));
                        self.admit_page(conn.url(), fresh, Some((t, t)), budget).await?;
                        if t <= lo {
                            break;
                        }
                        until = t - 1;
                        budget.reached(dm, until);
                    }
                }
            }
        }
        Ok(())
    }

    /// Sends a page through the store's one door, and cuts the relay off once it has
    /// served more junk than [`SyncOptions::max_violations`].
    async fn admit_page(
        &self,
        url: &RelayUrl,
        events: Vec<Value>,
        window: Option<(i64, i64)>,
        budget: &mut Budget<'_>,
    ) -> Result<()> {
        let part = self.admit_events(url, events, window).await?;
        self.absorb_page(url, part, budget)
    }

    /// A page through the store's door, nothing else (see [`Self::absorb_page`]).
    async fn admit_events(
        &self,
        url: &RelayUrl,
        events: Vec<Value>,
        window: Option<(i64, i64)>,
    ) -> Result<ingest::Admitted> {
        if events.is_empty() {
            return Ok(ingest::Admitted::default());
        }
        let source = Source::Relay { url: url.to_string(), window };
        self.admit(source, events.into_iter().map(ingest::parse_value).collect()).await
    }

    /// Counts what a page did, reports progress, and cuts the relay off once it has
    /// served more junk than [`SyncOptions::max_violations`].
    fn absorb_page(&self, url: &RelayUrl, part: ingest::Admitted, budget: &mut Budget<'_>) -> Result<()> {
        budget.newest = budget.newest.max(part.newest);
        budget.report.pulled.absorb(part.report);
        if let Some(p) = &budget.opts.progress {
            p(url.as_str(), "pull", budget.report.pulled.applied, budget.events as u64);
        }
        let violations = budget.violations();
        if violations > budget.opts.max_violations {
            return Err(budget.misbehaved(format!("served {violations} events no honest relay serves for this filter")));
        }
        Ok(())
    }

    async fn neg_initial(&self, items: &[(u64, String)]) -> Result<String> {
        let mut neg = negotiator(items)?;
        Ok(hex::encode(neg.initiate()?))
    }

    /// NIP-77: learn which ids each side lacks, fetch what we lack, and mark what the
    /// relay lacks as unacknowledged so the push sends it. At most
    /// [`SyncOptions::neg_rounds`] rounds and what is left of the pass's event cap.
    async fn pull_negentropy(&self, conn: &Connection, budget: &mut Budget<'_>) -> Result<()> {
        let url = conn.url().clone();
        let opts = budget.opts;
        for (kinds, filter) in [
            (vec![KIND_APP_DATA, KIND_DELETION, KIND_PRIVATE_RELAYS], self.app_filter(None, None, None)),
            (vec![KIND_DM], self.dm_filter(None, None, None)),
        ] {
            let items = self.event_items(kinds).await?;
            let mut neg = negotiator(&items)?;
            let initial = hex::encode(neg.initiate()?);
            let mut session = conn.neg_open(filter, initial)?;
            let (mut have, mut need) = (Vec::new(), Vec::new());
            let mut rounds = 0;
            loop {
                rounds += 1;
                if rounds > opts.neg_rounds {
                    return Err(budget.misbehaved(format!("NIP-77 took more than {} rounds", opts.neg_rounds)));
                }
                let reply = session.neg_reply(opts.timeout).await?;
                let bytes = hex::decode(&reply).map_err(|_| budget.misbehaved("NIP-77: bad hex".into()))?;
                let next = neg
                    .reconcile_with_ids(&bytes, &mut have, &mut need)
                    .map_err(|e| budget.misbehaved(format!("NIP-77: {e}")))?;
                if need.len() > opts.max_events.saturating_sub(budget.events) {
                    return Err(budget.misbehaved(format!("NIP-77 named more than {} events we lack", need.len())));
                }
                match next {
                    Some(next) => session.neg_msg(hex::encode(next))?,
                    None => break,
                }
            }
            drop(session);
            let have: Vec<String> = have.iter().map(|id| hex::encode(id.as_bytes())).collect();
            self.clear_acks(&url, have).await?;
            let need: Vec<String> = need.iter().map(|id| hex::encode(id.as_bytes())).collect();
            for chunk in need.chunks(IDS_PER_REQ) {
                let caps = budget.page_caps(chunk.len())?;
                let page = conn.subscribe(vec![json!({"ids": chunk})])?.collect_stored(opts.timeout, caps).await?;
                let fresh = budget.take(page, None);
                self.admit_page(&url, fresh, None, budget).await?;
            }
        }
        Ok(())
    }

    /// Sends every event the relay has not acknowledged, `window` at a time, and records
    /// each `OK true`. A refusal is reported and retried on the next pass.
    pub(crate) async fn push(&self, conn: &Connection, opts: &SyncOptions, report: &mut RelayReport) -> Result<()> {
        let url = conn.url().clone();
        let pending = self.pending_ids(&url).await?;
        let total = pending.len() as u64;
        let mut done = 0u64;
        for ids in pending.chunks(opts.window.max(1)) {
            let window = self.events_by_id(ids.to_vec()).await?;
            let sends = window.iter().map(|e| async move {
                let value: Value = serde_json::from_str(&e.as_json()).expect("an event is JSON");
                conn.publish(&e.id.to_hex(), value, opts.timeout).await
            });
            let results = futures_util::future::join_all(sends).await;
            let mut acked = Vec::new();
            let mut settled = Vec::new();
            for (e, r) in window.iter().zip(results) {
                let ack = r?;
                // "duplicate:" means the relay already holds it, even when it says false.
                if ack.accepted || ack.message.starts_with("duplicate:") {
                    acked.push(e.id.to_hex());
                } else {
                    // A refusal that can never change settles the event for this relay:
                    // reported once, never pending again.
                    if is_final_refusal(&ack.message) {
                        settled.push((e.id.to_hex(), ack.message.clone()));
                    }
                    report.refused.push((e.id.to_hex(), ack.message));
                }
            }
            report.pushed += acked.len() as u64;
            done += ids.len() as u64;
            self.mark_acked(&url, acked).await?;
            self.mark_refused(&url, settled).await?;
            if let Some(p) = &opts.progress {
                p(url.as_str(), "push", done, total);
            }
        }
        Ok(())
    }
}

/// The error of a pass that ran out of time: it goes on next time, unless it got nowhere
/// (then the relay is marked misbehaving).
fn out_of_time(url: &str, opts: &SyncOptions, report: &RelayReport) -> Error {
    let secs = opts.deadline.as_secs_f64();
    let progress = report.pulled.applied + report.pulled.merged + report.pulled.duplicate + report.pushed;
    if progress == 0 {
        Error::RelayMisbehaved { url: url.to_string(), rule: format!("the pass got nowhere in {secs} s") }
    } else {
        Error::relay(format!("{url}: the pass did not finish within {secs} s; it goes on next time"))
    }
}

/// What a page read with `window` from the relay at `url` is, to the door.
fn relay_source(url: &RelayUrl, window: (i64, i64)) -> Source {
    Source::Relay { url: url.to_string(), window: Some(window) }
}

/// Whether a relay's refusal is final: it already holds the event, its deletion, or a
/// newer version of it, so the same event would be refused again forever. nostr-relay-builder
/// (`memstr relay serve`) answers every such database refusal (duplicate, deleted, replaced)
/// with exactly `error: unknown`, and a failing database with `error: database error`,
/// which is retried. Rate limits, authentication and other refusals are retried.
pub(crate) fn is_final_refusal(message: &str) -> bool {
    let m = message.trim().to_ascii_lowercase();
    m.starts_with("duplicate:")
        || (m.starts_with("blocked:") && m.contains("deleted"))
        || m.contains("newer")
        || m.contains("already have a more recent")
        || m == "error: unknown"
}

fn set_bounds(f: &mut Value, since: Option<i64>, until: Option<i64>, limit: Option<usize>) {
    if let Some(s) = since {
        f["since"] = json!(s);
    }
    if let Some(u) = until {
        f["until"] = json!(u);
    }
    if let Some(l) = limit {
        f["limit"] = json!(l);
    }
}

fn negotiator(items: &[(u64, String)]) -> Result<Negentropy<'static, NegentropyStorageVector>> {
    let err = Error::from;
    let mut storage = NegentropyStorageVector::with_capacity(items.len());
    for (ts, id) in items {
        let bytes: [u8; 32] = hex::decode(id)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| Error::relay(format!("negentropy: bad stored id {id}")))?;
        storage.insert(*ts, Id::from_byte_array(bytes)).map_err(err)?;
    }
    storage.seal().map_err(err)?;
    Negentropy::owned(storage, NEG_FRAME_LIMIT).map_err(err)
}
