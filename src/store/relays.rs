//! What the store knows about relays: the list, per-relay acknowledgements and read
//! checkpoints. The sync engine (`crate::sync`) moves events; this keeps the books.

use nostr::{Event, JsonUtil};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::MemoryStore;
use crate::error::{Error, Result};
use crate::sync::RelayUrl;

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
    /// The last rule it broke, until a clean pass clears it (docs/sync.md, bounds).
    pub misbehaving: Option<String>,
    /// No pass with it before this time (Unix seconds) after it misbehaved.
    pub backoff_until: Option<i64>,
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
                        (SELECT count(*) FROM acks a WHERE a.relay = r.url), r.misbehaving, r.backoff_until
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
                    misbehaving: r.get(8)?,
                    backoff_until: r.get(9)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Ids of the events `relay` has not acknowledged, oldest first (a tombstone before
    /// the deletion that names it). Ids only: a large outbox is read a window at a time.
    /// A blinded store withholds events with a plain path in a tag (versions and
    /// deletions from a compatible past): no relay gets them from it any more.
    pub(crate) async fn pending_ids(&self, relay: &RelayUrl) -> Result<Vec<String>> {
        let relay = relay.to_string();
        self.read(move |conn, inner| {
            let mut stmt = conn.prepare(&format!(
                "SELECT id FROM events e WHERE NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id AND a.relay = ?1)
                 AND {} ORDER BY created_at, kind DESC, id",
                pushable(inner)
            ))?;
            let rows = stmt.query_map(params![relay], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// How many events `relay` has not acknowledged.
    pub(crate) async fn pending_count(&self, relay: &RelayUrl) -> Result<u64> {
        let relay = relay.to_string();
        self.read(move |conn, inner| {
            Ok(conn.query_row(
                &format!(
                    "SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id AND a.relay = ?1)
                     AND {}",
                    pushable(inner)
                ),
                params![relay],
                |r| r.get::<_, i64>(0),
            )? as u64)
        })
        .await
    }

    /// The stored events with these ids (those still held), in the order given.
    pub(crate) async fn events_by_id(&self, ids: Vec<String>) -> Result<Vec<Event>> {
        self.read(move |conn, _| {
            let mut stmt = conn.prepare_cached("SELECT json FROM events WHERE id = ?1")?;
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                let json: Option<String> = stmt.query_row([id], |r| r.get(0)).optional()?;
                if let Some(j) = json {
                    out.push(Event::from_json(j).map_err(|e| Error::Crypto(format!("stored event: {e}")))?);
                }
            }
            Ok(out)
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

    /// Notes a completed read of `relay` up to `checkpoint` (which may be earlier than the
    /// last one: a checkpoint poisoned by a relay's dates comes back).
    pub(crate) async fn relay_synced(&self, relay: &RelayUrl, checkpoint: i64, full: bool) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            let now = now_secs();
            tx.execute(
                "UPDATE relays SET checkpoint = ?2, last_sync = ?3, last_error = NULL,
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

    /// Records how `relay` behaved in a pass: a broken rule marks it and backs it off (one
    /// minute, doubling with each pass that breaks one, up to an hour); a clean pass
    /// clears the mark.
    pub(crate) async fn relay_conduct(&self, relay: &RelayUrl, broke: Option<&str>) -> Result<()> {
        let (relay, broke) = (relay.to_string(), broke.map(str::to_string));
        self.write(move |tx, _| {
            match broke {
                Some(rule) => {
                    let strikes: i64 =
                        tx.query_row("SELECT strikes FROM relays WHERE url = ?1", [&relay], |r| r.get(0)).unwrap_or(0);
                    let wait = (60i64 << strikes.clamp(0, 6)).min(3600);
                    tx.execute(
                        "UPDATE relays SET misbehaving = ?2, strikes = strikes + 1, backoff_until = ?3 WHERE url = ?1",
                        params![relay, rule, now_secs().saturating_add(wait)],
                    )?;
                }
                None => {
                    tx.execute(
                        "UPDATE relays SET misbehaving = NULL, strikes = 0, backoff_until = NULL WHERE url = ?1",
                        [&relay],
                    )?;
                }
            }
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
pub(crate) fn prune_outbox_ids(tx: &rusqlite::Transaction, ids: &[String]) -> rusqlite::Result<()> {
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

/// SQL true for the stored events `e` this store may push: all in compatible mode; in
/// blinded mode those without a plain path in any tag.
fn pushable(inner: &super::Inner) -> String {
    match inner.codec.mode() {
        crate::DTagMode::Compatible => "1".into(),
        _ => format!("NOT {}", crate::codec::PLAIN_PATH_SQL),
    }
}
