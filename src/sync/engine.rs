//! One sync pass against each relay.

use std::collections::HashSet;
use std::time::Duration;

use negentropy::{Id, Negentropy, NegentropyStorageVector};
use nostr::JsonUtil;
use serde_json::{json, Value};

use super::transport::{Connection, TransportError};
use super::{RelayReport, RelayUrl, SyncOptions};
use crate::codec::{KIND_APP_DATA, KIND_DELETION, KIND_DM};
use crate::error::{Error, Result};
use crate::store::RelayInfo;
use crate::{ImportReport, MemoryStore};

/// NIP-77 frame limit (bytes of a message), as nostr-relay-builder uses.
const NEG_FRAME_LIMIT: u64 = 60_000;
/// How long to wait for a NIP-77 answer before deciding the relay lacks it.
const NEG_PROBE: Duration = Duration::from_millis(1500);
/// Ids per `REQ` when fetching what NIP-77 found missing.
const IDS_PER_REQ: usize = 500;

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl From<TransportError> for Error {
    fn from(e: TransportError) -> Self {
        Error::Relay(e.to_string())
    }
}

fn merge(into: &mut ImportReport, part: ImportReport) {
    into.applied += part.applied;
    into.merged += part.merged;
    into.duplicate += part.duplicate;
    into.stale += part.stale;
    into.deleted += part.deleted;
    for (k, v) in part.rejected {
        *into.rejected.entry(k).or_default() += v;
    }
}

impl MemoryStore {
    /// One pass with every configured relay, concurrently. A relay that fails is reported
    /// (and its error kept in [`RelayInfo::last_error`]); the others carry on.
    pub async fn sync(&self, opts: &SyncOptions) -> Result<Vec<RelayReport>> {
        let relays = self.relays().await?;
        let passes = relays.into_iter().map(|info| self.sync_relay(info, opts));
        Ok(futures_util::future::join_all(passes).await)
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
        let outcome = async {
            let conn = Connection::connect(&url, opts.connect_timeout).await?;
            self.pass(&conn, &info, opts, &mut report).await
        }
        .await;
        if let Err(e) = outcome {
            let msg = e.to_string();
            tracing::warn!(relay = %url, error = %msg, "sync pass failed");
            let _ = self.relay_failed(&url, &msg).await;
            report.error = Some(msg);
        }
        report.pending = self.pending_for(&url, usize::MAX).await.map(|p| p.len() as u64).unwrap_or(0);
        report
    }

    /// Pull, then push, over an open connection.
    pub(crate) async fn pass(
        &self,
        conn: &Connection,
        info: &RelayInfo,
        opts: &SyncOptions,
        report: &mut RelayReport,
    ) -> Result<()> {
        let url = conn.url().clone();
        let negentropy = match info.negentropy {
            Some(known) => known,
            None => {
                let filter = self.app_filter(None, None, None);
                let initial = self.neg_initial(&[]).await?;
                let supported = conn.probe_negentropy(filter, initial, NEG_PROBE).await;
                self.set_negentropy(&url, supported).await?;
                supported
            }
        };
        let now = now_secs();
        if negentropy {
            report.method = "negentropy".into();
            self.pull_negentropy(conn, opts, report).await?;
            self.relay_synced(&url, now, true).await?;
        } else {
            let stale_full = info.last_full.is_none_or(|t| now - t > opts.full_every.as_secs() as i64);
            let full = opts.full || stale_full;
            let since = (!full).then(|| (info.checkpoint - opts.overlap.as_secs() as i64).max(0));
            report.method = if full { "full" } else { "since" }.into();
            let (served, newest) = self.pull_since(conn, since, opts, report).await?;
            if full {
                // What the relay no longer serves must be pushed again (relay repair).
                self.reconcile_acks(&url, served).await?;
            }
            self.relay_synced(&url, newest.max(info.checkpoint), full).await?;
        }
        self.push(conn, opts, report).await
    }

    fn app_filter(&self, since: Option<i64>, until: Option<i64>, limit: Option<usize>) -> Value {
        let mut f = json!({"authors": [self.public_key().to_hex()], "kinds": [KIND_APP_DATA, KIND_DELETION]});
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

    /// Reads everything matching our filters since `since` (all if `None`), page by page.
    /// Returns the ids served and the newest `created_at` seen. Errors unless every page
    /// ended with `EOSE`: a partial read never moves a checkpoint.
    async fn pull_since(
        &self,
        conn: &Connection,
        since: Option<i64>,
        opts: &SyncOptions,
        report: &mut RelayReport,
    ) -> Result<(Vec<String>, i64)> {
        let mut served = Vec::new();
        let mut newest = 0;
        for dm in [false, true] {
            let mut seen: HashSet<String> = HashSet::new();
            let mut until: Option<i64> = None;
            loop {
                let filter = if dm {
                    self.dm_filter(since, until, Some(opts.page))
                } else {
                    self.app_filter(since, until, Some(opts.page))
                };
                let page = conn.subscribe(vec![filter])?.collect_stored(opts.timeout).await?;
                let full_page = page.len() >= opts.page;
                let oldest = page.iter().filter_map(|e| e["created_at"].as_i64()).min();
                let fresh: Vec<Value> = page
                    .into_iter()
                    .filter(|e| e["id"].as_str().is_some_and(|id| seen.insert(id.to_string())))
                    .collect();
                for e in &fresh {
                    newest = newest.max(e["created_at"].as_i64().unwrap_or(0));
                }
                let progress = fresh.len();
                self.ingest_page(conn.url(), fresh, report, &mut served).await?;
                if let Some(p) = &opts.progress {
                    p(conn.url().as_str(), "pull", report.pulled.applied, seen.len() as u64);
                }
                match (full_page, oldest) {
                    (false, _) | (_, None) => break,
                    (true, Some(t)) if progress > 0 => until = Some(t),
                    (true, Some(t)) => {
                        // A whole page at one second: read that second without a limit.
                        let f = if dm {
                            self.dm_filter(Some(t), Some(t), None)
                        } else {
                            self.app_filter(Some(t), Some(t), None)
                        };
                        let rest = conn.subscribe(vec![f])?.collect_stored(opts.timeout).await?;
                        let fresh: Vec<Value> = rest
                            .into_iter()
                            .filter(|e| e["id"].as_str().is_some_and(|id| seen.insert(id.to_string())))
                            .collect();
                        self.ingest_page(conn.url(), fresh, report, &mut served).await?;
                        if t == 0 || since.is_some_and(|s| t <= s) {
                            break;
                        }
                        until = Some(t - 1);
                    }
                }
            }
        }
        Ok((served, newest))
    }

    async fn ingest_page(
        &self,
        url: &RelayUrl,
        events: Vec<Value>,
        report: &mut RelayReport,
        served: &mut Vec<String>,
    ) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        served.extend(events.iter().filter_map(|e| e["id"].as_str().map(str::to_string)));
        let part = self.ingest_from_relay(url, events).await?;
        merge(&mut report.pulled, part);
        Ok(())
    }

    async fn neg_initial(&self, items: &[(u64, String)]) -> Result<String> {
        let mut neg = negotiator(items)?;
        Ok(hex::encode(neg.initiate().map_err(|e| Error::Relay(format!("negentropy: {e}")))?))
    }

    /// NIP-77: learn which ids each side lacks, fetch what we lack, and mark what the
    /// relay lacks as unacknowledged so the push sends it.
    async fn pull_negentropy(&self, conn: &Connection, opts: &SyncOptions, report: &mut RelayReport) -> Result<()> {
        let url = conn.url().clone();
        for (kinds, filter) in [
            (vec![KIND_APP_DATA, KIND_DELETION], self.app_filter(None, None, None)),
            (vec![KIND_DM], self.dm_filter(None, None, None)),
        ] {
            let items = self.event_items(kinds).await?;
            let mut neg = negotiator(&items)?;
            let initial = hex::encode(neg.initiate().map_err(|e| Error::Relay(format!("negentropy: {e}")))?);
            let mut session = conn.neg_open(filter, initial)?;
            let (mut have, mut need) = (Vec::new(), Vec::new());
            loop {
                let reply = session.neg_reply(opts.timeout).await?;
                let bytes = hex::decode(&reply).map_err(|_| Error::Relay("negentropy: bad hex from relay".into()))?;
                match neg
                    .reconcile_with_ids(&bytes, &mut have, &mut need)
                    .map_err(|e| Error::Relay(format!("negentropy: {e}")))?
                {
                    Some(next) => session.neg_msg(hex::encode(next))?,
                    None => break,
                }
            }
            drop(session);
            let have: Vec<String> = have.iter().map(|id| hex::encode(id.as_bytes())).collect();
            self.clear_acks(&url, have).await?;
            let need: Vec<String> = need.iter().map(|id| hex::encode(id.as_bytes())).collect();
            let mut served = Vec::new();
            for chunk in need.chunks(IDS_PER_REQ) {
                let page = conn.subscribe(vec![json!({"ids": chunk})])?.collect_stored(opts.timeout).await?;
                self.ingest_page(&url, page, report, &mut served).await?;
            }
        }
        Ok(())
    }

    /// Sends every event the relay has not acknowledged, `window` at a time, and records
    /// each `OK true`. A refusal is reported and retried on the next pass.
    pub(crate) async fn push(&self, conn: &Connection, opts: &SyncOptions, report: &mut RelayReport) -> Result<()> {
        let url = conn.url().clone();
        let pending = self.pending_for(&url, usize::MAX).await?;
        let total = pending.len() as u64;
        let mut done = 0u64;
        for window in pending.chunks(opts.window.max(1)) {
            let sends = window.iter().map(|e| async move {
                let value: Value = serde_json::from_str(&e.as_json()).expect("an event is JSON");
                conn.publish(&e.id.to_hex(), value, opts.timeout).await
            });
            let results = futures_util::future::join_all(sends).await;
            let mut acked = Vec::new();
            for (e, r) in window.iter().zip(results) {
                let ack = r?;
                // "duplicate:" means the relay already holds it, even when it says false.
                if ack.accepted || ack.message.starts_with("duplicate:") {
                    acked.push(e.id.to_hex());
                } else {
                    report.refused.push((e.id.to_hex(), ack.message));
                }
            }
            report.pushed += acked.len() as u64;
            done += window.len() as u64;
            self.mark_acked(&url, acked).await?;
            if let Some(p) = &opts.progress {
                p(url.as_str(), "push", done, total);
            }
        }
        Ok(())
    }
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
    let err = |e: negentropy::Error| Error::Relay(format!("negentropy: {e}"));
    let mut storage = NegentropyStorageVector::with_capacity(items.len());
    for (ts, id) in items {
        let bytes: [u8; 32] = hex::decode(id)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| Error::Relay(format!("negentropy: bad stored id {id}")))?;
        storage.insert(*ts, Id::from_byte_array(bytes)).map_err(err)?;
    }
    storage.seal().map_err(err)?;
    Negentropy::owned(storage, NEG_FRAME_LIMIT).map_err(err)
}
