//! What the store knows about relays: the list, per-relay acknowledgements and read
//! checkpoints. The sync engine (`crate::sync`) moves events; this keeps the books.

use nostr::{Event, JsonUtil};
use rusqlite::params;
use serde::Serialize;

use super::{apply, MemoryStore, Outcome};
use crate::codec::Decoded;
use crate::error::{Error, RejectReason, Result};
use crate::sync::RelayUrl;
use crate::ImportReport;

/// A configured relay and its state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelayInfo {
    pub url: String,
    pub added_at: i64,
    /// Newest `created_at` read completely from this relay (0: never read).
    pub checkpoint: i64,
    pub last_sync: Option<i64>,
    pub last_full: Option<i64>,
    pub last_error: Option<String>,
    /// NIP-77 support, once probed.
    pub negentropy: Option<bool>,
    /// Events the relay has not acknowledged yet.
    pub pending: u64,
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl MemoryStore {
    /// Adds a relay (persisted). `allow_insecure` admits `ws://` to non-loopback hosts.
    pub async fn add_relay(&self, url: &str, allow_insecure: bool) -> Result<RelayUrl> {
        let url = RelayUrl::parse(url, allow_insecure).map_err(|e| Error::Relay(e.to_string()))?;
        let u = url.clone();
        self.write(move |tx, _| {
            tx.execute(
                "INSERT OR IGNORE INTO relays (url, added_at) VALUES (?1, ?2)",
                params![u.as_str(), now_secs()],
            )?;
            Ok(())
        })
        .await?;
        Ok(url)
    }

    /// Removes a relay; returns whether it was configured.
    pub async fn remove_relay(&self, url: &str) -> Result<bool> {
        let url = RelayUrl::parse(url, true).map_err(|e| Error::Relay(e.to_string()))?;
        self.write(move |tx, _| {
            let n = tx.execute("DELETE FROM relays WHERE url = ?1", [url.as_str()])?;
            prune_outbox(tx)?;
            Ok(n > 0)
        })
        .await
    }

    /// The configured relays and their state.
    pub async fn relays(&self) -> Result<Vec<RelayInfo>> {
        self.read(|conn, _| {
            let total: i64 = conn.query_row("SELECT count(*) FROM events", [], |r| r.get(0))?;
            let mut stmt = conn.prepare(
                "SELECT r.url, r.added_at, r.checkpoint, r.last_sync, r.last_full, r.last_error, r.negentropy,
                        (SELECT count(*) FROM acks a WHERE a.relay = r.url)
                 FROM relays r ORDER BY r.url",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(RelayInfo {
                    url: r.get(0)?,
                    added_at: r.get(1)?,
                    checkpoint: r.get(2)?,
                    last_sync: r.get(3)?,
                    last_full: r.get(4)?,
                    last_error: r.get(5)?,
                    negentropy: r.get::<_, Option<i64>>(6)?.map(|n| n != 0),
                    pending: (total - r.get::<_, i64>(7)?).max(0) as u64,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Up to `limit` events `relay` has not acknowledged, oldest first (a tombstone before
    /// the deletion that names it).
    pub(crate) async fn pending_for(&self, relay: &RelayUrl, limit: usize) -> Result<Vec<Event>> {
        let relay = relay.to_string();
        self.read(move |conn, _| {
            let mut stmt = conn.prepare(
                "SELECT json FROM events e WHERE NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id AND a.relay = ?1)
                 ORDER BY created_at, kind DESC, id LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![relay, limit as i64], |r| r.get::<_, String>(0))?;
            rows.map(|j| Event::from_json(j?).map_err(|e| Error::Crypto(format!("stored event: {e}")))).collect()
        })
        .await
    }

    /// Records that `relay` holds `ids`; events every relay holds leave the outbox.
    pub(crate) async fn mark_acked(&self, relay: &RelayUrl, ids: Vec<String>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let relay = relay.to_string();
        self.write(move |tx, _| {
            let now = now_secs();
            let mut insert = tx.prepare_cached(
                "INSERT OR IGNORE INTO acks (event_id, relay, acked_at)
                 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM events WHERE id = ?1)",
            )?;
            for id in &ids {
                insert.execute(params![id, relay, now])?;
            }
            prune_outbox_ids(tx, &ids)?;
            Ok(())
        })
        .await
    }

    /// Checks and applies events a relay served. Each applied or already-held event is
    /// acknowledged for that relay; a relay serving an outdated version of a record loses
    /// its acknowledgement of ours, so the next push repairs it.
    pub(crate) async fn ingest_from_relay(
        &self,
        relay: &RelayUrl,
        raw: Vec<serde_json::Value>,
    ) -> Result<ImportReport> {
        let relay = relay.to_string();
        self.write(move |tx, inner| {
            let mut report = ImportReport::default();
            let now = now_secs();
            let mut acked = Vec::new();
            for v in raw {
                let event = match serde_json::from_value::<Event>(v) {
                    Ok(e) => e,
                    Err(_) => {
                        apply::count_rejection(tx, RejectReason::MalformedEvent, None)?;
                        report.count(Outcome::Rejected(RejectReason::MalformedEvent));
                        continue;
                    }
                };
                let id = event.id.to_hex();
                let (outcome, path) = match inner.codec.decode(&event) {
                    Err(reason) => {
                        apply::count_rejection(tx, reason, Some(&id))?;
                        (Outcome::Rejected(reason), None)
                    }
                    Ok(decoded) => {
                        let path = match &decoded {
                            Decoded::Record { path, .. } => Some(path.to_d()),
                            Decoded::Deletion { .. } => None,
                        };
                        (apply::apply(tx, &inner.codec, &event, &decoded)?, path)
                    }
                };
                if matches!(outcome, Outcome::Applied | Outcome::Merged) {
                    inner.touch_events();
                }
                match (outcome, path) {
                    (Outcome::Applied | Outcome::Duplicate, _) => {
                        tx.execute(
                            "INSERT OR IGNORE INTO acks (event_id, relay, acked_at)
                             SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM events WHERE id = ?1)",
                            params![id, relay, now],
                        )?;
                        acked.push(id.clone());
                    }
                    (Outcome::Stale, Some(path)) => {
                        tx.execute(
                            "DELETE FROM acks WHERE relay = ?1 AND event_id = (SELECT event_id FROM records WHERE path = ?2)",
                            params![relay, path],
                        )?;
                        // Same second, our version wins by id, yet the relay serves its
                        // own: it keeps first arrivals and will never take ours at that
                        // second. Sign the winner one second newer.
                        let tie: bool = tx.query_row(
                            "SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND created_at = ?2)",
                            params![path, event.created_at.as_secs() as i64],
                            |r| r.get(0),
                        )?;
                        if tie {
                            super::republish(tx, inner, &path)?;
                        }
                    }
                    _ => {}
                }
                report.count(outcome);
            }
            prune_outbox_ids(tx, &acked)?;
            Ok(report)
        })
        .await
    }

    /// Notes a completed read of `relay` up to `checkpoint`.
    pub(crate) async fn relay_synced(&self, relay: &RelayUrl, checkpoint: i64, full: bool) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            let now = now_secs();
            tx.execute(
                "UPDATE relays SET checkpoint = max(checkpoint, ?2), last_sync = ?3, last_error = NULL,
                     last_full = CASE WHEN ?4 THEN ?3 ELSE last_full END
                 WHERE url = ?1",
                params![relay, checkpoint, now, full],
            )?;
            Ok(())
        })
        .await
    }

    /// Notes a failure talking to `relay`.
    pub(crate) async fn relay_failed(&self, relay: &RelayUrl, error: &str) -> Result<()> {
        let (relay, error) = (relay.to_string(), error.to_string());
        self.write(move |tx, _| {
            tx.execute("UPDATE relays SET last_error = ?2 WHERE url = ?1", params![relay, error])?;
            Ok(())
        })
        .await
    }

    /// Records whether `relay` speaks NIP-77.
    pub(crate) async fn set_negentropy(&self, relay: &RelayUrl, supported: bool) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            tx.execute("UPDATE relays SET negentropy = ?2 WHERE url = ?1", params![relay, supported])?;
            Ok(())
        })
        .await
    }

    /// Forgets every acknowledgement of `relay` for events it no longer serves: called
    /// after a complete full read, with the ids it did serve.
    pub(crate) async fn reconcile_acks(&self, relay: &RelayUrl, served: Vec<String>) -> Result<u64> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            tx.execute("CREATE TEMP TABLE IF NOT EXISTS served (id TEXT PRIMARY KEY)", [])?;
            tx.execute("DELETE FROM temp.served", [])?;
            for id in &served {
                tx.execute("INSERT OR IGNORE INTO temp.served (id) VALUES (?1)", [id])?;
            }
            let n = tx.execute(
                "DELETE FROM acks WHERE relay = ?1 AND event_id NOT IN (SELECT id FROM temp.served)",
                [&relay],
            )?;
            tx.execute("DELETE FROM temp.served", [])?;
            Ok(n as u64)
        })
        .await
    }
}
impl MemoryStore {
    /// `(created_at, id)` of every event held of the given kinds: our side of a NIP-77
    /// reconciliation.
    pub(crate) async fn event_items(&self, kinds: Vec<u16>) -> Result<Vec<(u64, String)>> {
        self.read(move |conn, _| {
            let list = kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",");
            let mut stmt = conn.prepare(&format!("SELECT created_at, id FROM events WHERE kind IN ({list})"))?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Forgets `relay`'s acknowledgement of `ids` (it turned out not to hold them).
    pub(crate) async fn clear_acks(&self, relay: &RelayUrl, ids: Vec<String>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let relay = relay.to_string();
        self.write(move |tx, inner| {
            for id in &ids {
                if tx.execute("DELETE FROM acks WHERE relay = ?1 AND event_id = ?2", params![relay, id])? > 0 {
                    inner.touch_events();
                }
            }
            Ok(())
        })
        .await
    }

    /// The stored state of one relay.
    pub(crate) async fn relay_info(&self, relay: &RelayUrl) -> Result<Option<RelayInfo>> {
        Ok(self.relays().await?.into_iter().find(|r| r.url == relay.as_str()))
    }
}

/// Events acknowledged by every configured relay leave the outbox. Only `ids` are checked
/// (a whole-table scan per acknowledged window made pushing quadratic).
fn prune_outbox_ids(tx: &rusqlite::Transaction, ids: &[String]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "DELETE FROM outbox WHERE event_id = ?1 AND EXISTS (SELECT 1 FROM relays)
           AND NOT EXISTS (SELECT 1 FROM relays r WHERE NOT EXISTS
               (SELECT 1 FROM acks a WHERE a.event_id = ?1 AND a.relay = r.url))",
    )?;
    for id in ids {
        stmt.execute([id])?;
    }
    Ok(())
}

/// The whole-table version, for when the set of relays changes.
fn prune_outbox(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM outbox WHERE EXISTS (SELECT 1 FROM relays)
           AND NOT EXISTS (SELECT 1 FROM relays r WHERE NOT EXISTS
               (SELECT 1 FROM acks a WHERE a.event_id = outbox.event_id AND a.relay = r.url))",
        [],
    )?;
    Ok(())
}
