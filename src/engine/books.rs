//! What the store knows about relays: the list, per-relay acknowledgements and read
//! checkpoints, and [`SyncStorage`], the one interface through which relay sync
//! (the `sync` module) sees the store: these books and the ingestion door. Sync moves events;
//! this keeps the books. Relay addresses arrive here already checked, as strings.

use std::future::Future;
use std::sync::Arc;

use nostr::{Event, JsonUtil, PublicKey};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::ingest::{Admitted, Checked, Incoming, Source};
use super::write::AccessFlush;
use super::Engine;
use crate::clock::system_secs as now_secs;
use crate::error::{Error, Result};

/// A configured relay and its state.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RelayInfo {
    /// The relay's address.
    pub url: String,
    /// When it was added (Unix seconds).
    pub added_at: i64,
    /// Newest `created_at` read completely from this relay (0: never read).
    pub checkpoint: i64,
    /// The last completed pass (Unix seconds).
    pub last_sync: Option<i64>,
    /// The last completed full read (Unix seconds).
    pub last_full: Option<i64>,
    /// Why the last pass failed, until one succeeds.
    pub last_error: Option<String>,
    /// NIP-77 support, once probed.
    pub negentropy: Option<bool>,
    /// Events the relay has not acknowledged yet.
    pub pending: u64,
    /// The last rule it broke, until a clean pass clears it (docs/sync.md, bounds).
    pub misbehaving: Option<String>,
    /// No pass with it before this time (Unix seconds) after it misbehaved.
    pub backoff_until: Option<i64>,
    /// Where a read cut short goes on, if one was.
    #[serde(skip)]
    pub(crate) resume: Option<Resume>,
}

/// Where a read of a relay that stopped early (its deadline, its allowance of events) goes
/// on: everything of the phase newer than `until` was read and went through the door.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resume {
    /// When the interrupted read began: the checkpoint it sets once complete.
    pub started: i64,
    /// The next read asks for events up to this second, inclusive.
    pub until: i64,
    /// Newest `created_at` applied or held so far in this read.
    pub newest: Option<i64>,
    /// A full read (from the beginning), not one since the checkpoint.
    pub full: bool,
    /// Reading the direct messages (the app's events are done).
    pub dm: bool,
}

impl Engine {
    /// Adds a relay (persisted). `allow_insecure` admits `ws://` to non-loopback hosts.
    pub(crate) async fn add_relay(self: &Arc<Self>, url: String) -> Result<()> {
        self.write(move |tx, engine| {
            let n = tx
                .prepare_cached("INSERT OR IGNORE INTO relays (url, added_at) VALUES (?1, ?2)")?
                .execute(params![url, now_secs()])?;
            // The agent's relay list follows, so other devices find this relay.
            if n > 0 {
                super::relay_list::local_change(tx, engine, &url, true)?;
            }
            Ok(())
        })
        .await?;
        Ok(())
    }

    /// Removes a relay; returns whether it was configured.
    pub(crate) async fn remove_relay(self: &Arc<Self>, url: String) -> Result<bool> {
        self.write(move |tx, engine| {
            let n = tx.prepare_cached("DELETE FROM relays WHERE url = ?1")?.execute([&url])?;
            prune_outbox(tx)?;
            if n > 0 {
                super::relay_list::local_change(tx, engine, &url, false)?;
            }
            Ok(n > 0)
        })
        .await
    }

    /// Relays of the agent's list not configured here: those to add (in use there, not
    /// removed here since) and those to drop (removed there after they were added here).
    pub(crate) async fn relay_list_delta(self: &Arc<Self>) -> Result<(Vec<String>, Vec<String>)> {
        self.read(|conn, _| {
            let list = super::relay_list::entries(conn)?;
            let mut stmt = conn.prepare("SELECT url FROM relays")?;
            let here: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            let add = list.iter().filter(|e| e.live() && !here.contains(&e.url)).map(|e| e.url.clone()).collect();
            let drop = list.iter().filter(|e| !e.live() && here.contains(&e.url)).map(|e| e.url.clone()).collect();
            Ok((add, drop))
        })
        .await
    }

    /// Adds or removes a relay as the agent's list says, without signing a new list.
    pub(crate) async fn follow_relay_list(self: &Arc<Self>, add: Vec<String>, drop: Vec<String>) -> Result<()> {
        self.write(move |tx, _| {
            for url in &add {
                tx.prepare_cached("INSERT OR IGNORE INTO relays (url, added_at) VALUES (?1, ?2)")?
                    .execute(params![url, now_secs()])?;
            }
            for url in &drop {
                tx.prepare_cached("DELETE FROM relays WHERE url = ?1")?.execute([url])?;
            }
            prune_outbox(tx)?;
            Ok(())
        })
        .await
    }

    /// Signs the agent's relay list when it differs from the newest signed one (a store
    /// from before lists were kept has none yet).
    pub(crate) async fn sign_relay_list(self: &Arc<Self>) -> Result<()> {
        self.write(|tx, engine| super::relay_list::republish_if_changed(tx, engine.codec())).await
    }

    /// The configured relays and their state.
    pub(crate) async fn relays(self: &Arc<Self>) -> Result<Vec<RelayInfo>> {
        self.relays_counted(true).await
    }

    /// The configured relays and their state; with `count`, how many events each lacks
    /// ([`RelayInfo::pending`], else 0). Sync reads the state without the count: at a
    /// million events it is a walk of every event, seconds each pass.
    pub(crate) async fn relays_counted(self: &Arc<Self>, count: bool) -> Result<Vec<RelayInfo>> {
        self.read(move |conn, engine| {
            // The push's own count: what it would send this relay (status agrees).
            let pending = match count {
                true => format!("(SELECT count(*) FROM {})", unacked(engine, "r.url")),
                false => "0".to_string(),
            };
            let mut stmt = conn.prepare(&format!(
                "SELECT r.url, r.added_at, r.checkpoint, r.last_sync, r.last_full, r.last_error, r.negentropy,
                        {pending},
                        r.misbehaving, r.backoff_until,
                        r.resume_started, r.resume_until, r.resume_newest, r.resume_full, r.resume_dm
                 FROM relays r ORDER BY r.url"
            ))?;
            let rows = stmt.query_map([], |r| {
                Ok(RelayInfo {
                    url: r.get(0)?,
                    added_at: r.get(1)?,
                    checkpoint: r.get(2)?,
                    last_sync: r.get(3)?,
                    last_full: r.get(4)?,
                    last_error: r.get(5)?,
                    negentropy: r.get::<_, Option<i64>>(6)?.map(|n| n != 0),
                    pending: r.get::<_, i64>(7)?.max(0) as u64,
                    misbehaving: r.get(8)?,
                    backoff_until: r.get(9)?,
                    resume: match (r.get::<_, Option<i64>>(10)?, r.get::<_, Option<i64>>(11)?) {
                        (Some(started), Some(until)) => Some(Resume {
                            started,
                            until,
                            newest: r.get(12)?,
                            full: r.get::<_, Option<bool>>(13)?.unwrap_or(true),
                            dm: r.get::<_, Option<bool>>(14)?.unwrap_or(false),
                        }),
                        _ => None,
                    },
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
    pub(crate) async fn pending_ids(self: &Arc<Self>, relay: &str) -> Result<Vec<String>> {
        let relay = relay.to_string();
        self.read(move |conn, engine| {
            let mut stmt =
                conn.prepare(&format!("SELECT id FROM {} ORDER BY created_at, kind DESC, id", unacked(engine, "?1")))?;
            let rows = stmt.query_map(params![relay], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// How many events `relay` has not acknowledged.
    pub(crate) async fn pending_count(self: &Arc<Self>, relay: &str) -> Result<u64> {
        let relay = relay.to_string();
        self.read(move |conn, engine| {
            Ok(conn.query_row(&format!("SELECT count(*) FROM {}", unacked(engine, "?1")), params![relay], |r| {
                r.get::<_, i64>(0)
            })? as u64)
        })
        .await
    }

    /// The stored events with these ids (those still held), in the order given.
    pub(crate) async fn events_by_id(self: &Arc<Self>, ids: Vec<String>) -> Result<Vec<Event>> {
        self.read(move |conn, _| {
            let mut stmt = conn.prepare_cached("SELECT json FROM events WHERE id = ?1")?;
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                let json: Option<String> = stmt.query_row([id], |r| r.get(0)).optional()?;
                if let Some(j) = json {
                    out.push(Event::from_json(j).map_err(|e| Error::Crypto(crate::Cause::from("stored event", e)))?);
                }
            }
            Ok(out)
        })
        .await
    }

    /// Records that `relay` holds `ids`; events every relay holds leave the outbox.
    pub(crate) async fn mark_acked(self: &Arc<Self>, relay: &str, ids: Vec<String>) -> Result<()> {
        self.record_acks(relay, ids.into_iter().map(|id| (id, None)).collect()).await
    }

    /// Records that `relay` refused these events for good (`(id, its message)`): settled
    /// for it, never pending again, never sent again by a reconciliation.
    pub(crate) async fn mark_refused(self: &Arc<Self>, relay: &str, refused: Vec<(String, String)>) -> Result<()> {
        self.record_acks(relay, refused.into_iter().map(|(id, why)| (id, Some(why))).collect()).await
    }

    /// Acknowledgements (`None`) and final refusals (`Some(message)`) from `relay`; events
    /// every relay has settled leave the outbox.
    async fn record_acks(self: &Arc<Self>, relay: &str, acks: Vec<(String, Option<String>)>) -> Result<()> {
        if acks.is_empty() {
            return Ok(());
        }
        let relay = relay.to_string();
        self.write(move |tx, _| {
            let now = now_secs();
            let mut insert = tx.prepare_cached(
                "INSERT OR IGNORE INTO acks (event_id, relay, acked_at, refused)
                 SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM events WHERE id = ?1)",
            )?;
            for (id, why) in &acks {
                insert.execute(params![id, relay, now, why])?;
            }
            let ids: Vec<String> = acks.into_iter().map(|(id, _)| id).collect();
            prune_outbox_ids(tx, &ids)?;
            Ok(())
        })
        .await
    }

    /// Notes a completed read of `relay` up to `checkpoint` (which may be earlier than the
    /// last one: a checkpoint poisoned by a relay's dates comes back).
    pub(crate) async fn relay_synced(self: &Arc<Self>, relay: &str, checkpoint: i64, full: bool) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            let now = now_secs();
            tx.prepare_cached(
                "UPDATE relays SET checkpoint = ?2, last_sync = ?3, last_error = NULL,
                     last_full = CASE WHEN ?4 THEN ?3 ELSE last_full END,
                     resume_started = NULL, resume_until = NULL, resume_newest = NULL,
                     resume_full = NULL, resume_dm = NULL
                 WHERE url = ?1",
            )?
            .execute(params![relay, checkpoint, now, full])?;
            Ok(())
        })
        .await
    }

    /// Where the read of `relay` that stopped early goes on next pass.
    pub(crate) async fn relay_resume(self: &Arc<Self>, relay: &str, at: Resume) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            tx.prepare_cached(
                "UPDATE relays SET resume_started = ?2, resume_until = ?3, resume_newest = ?4,
                     resume_full = ?5, resume_dm = ?6
                 WHERE url = ?1",
            )?
            .execute(params![relay, at.started, at.until, at.newest, at.full, at.dm])?;
            Ok(())
        })
        .await
    }

    /// Notes a failure talking to `relay`: one escaped, bounded line, since its words may be
    /// the relay's own and `relay list` and `status` show it.
    pub(crate) async fn relay_failed(self: &Arc<Self>, relay: &str, error: &str) -> Result<()> {
        let (relay, error) = (relay.to_string(), crate::display::relay_text(error));
        self.write(move |tx, _| {
            tx.prepare_cached("UPDATE relays SET last_error = ?2 WHERE url = ?1")?.execute(params![relay, error])?;
            Ok(())
        })
        .await
    }

    /// Records how `relay` behaved in a pass: a broken rule marks it and backs it off (one
    /// minute, doubling with each pass that breaks one, up to an hour); a clean pass
    /// clears the mark.
    pub(crate) async fn relay_conduct(self: &Arc<Self>, relay: &str, broke: Option<&str>) -> Result<()> {
        let (relay, broke) = (relay.to_string(), broke.map(str::to_string));
        self.write(move |tx, _| {
            match broke {
                Some(rule) => {
                    let strikes: i64 = tx
                        .prepare_cached("SELECT strikes FROM relays WHERE url = ?1")?
                        .query_row([&relay], |r| r.get(0))
                        .unwrap_or(0);
                    let wait = (60i64 << strikes.clamp(0, 6)).min(3600);
                    tx.prepare_cached(
                        "UPDATE relays SET misbehaving = ?2, strikes = strikes + 1, backoff_until = ?3 WHERE url = ?1",
                    )?
                    .execute(params![relay, rule, now_secs().saturating_add(wait)])?;
                }
                None => {
                    tx.prepare_cached(
                        "UPDATE relays SET misbehaving = NULL, strikes = 0, backoff_until = NULL WHERE url = ?1",
                    )?
                    .execute([&relay])?;
                }
            }
            Ok(())
        })
        .await
    }

    /// Records whether `relay` speaks NIP-77.
    pub(crate) async fn set_negentropy(self: &Arc<Self>, relay: &str, supported: bool) -> Result<()> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            tx.prepare_cached("UPDATE relays SET negentropy = ?2 WHERE url = ?1")?
                .execute(params![relay, supported])?;
            Ok(())
        })
        .await
    }

    /// Forgets every acknowledgement of `relay` for events it no longer serves: called
    /// after a complete full read, with the ids it did serve.
    pub(crate) async fn reconcile_acks(self: &Arc<Self>, relay: &str, served: Vec<String>) -> Result<u64> {
        let relay = relay.to_string();
        self.write(move |tx, _| {
            tx.prepare_cached("CREATE TEMP TABLE IF NOT EXISTS served (id TEXT PRIMARY KEY)")?.execute([])?;
            tx.prepare_cached("DELETE FROM temp.served")?.execute([])?;
            for id in &served {
                tx.prepare_cached("INSERT OR IGNORE INTO temp.served (id) VALUES (?1)")?.execute([id])?;
            }
            let n = tx.prepare_cached("DELETE FROM acks WHERE relay = ?1 AND refused IS NULL AND event_id NOT IN (SELECT id FROM temp.served)")?.execute([&relay],
            )?;
            tx.prepare_cached("DELETE FROM temp.served")?.execute([])?;
            Ok(n as u64)
        })
        .await
    }
}
impl Engine {
    /// `(created_at, id)` of every event held of the given kinds: our side of a NIP-77
    /// reconciliation.
    pub(crate) async fn event_items(self: &Arc<Self>, kinds: Vec<u16>) -> Result<Vec<(u64, String)>> {
        self.read(move |conn, _| {
            let list = kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(",");
            let mut stmt = conn.prepare(&format!("SELECT created_at, id FROM events WHERE kind IN ({list})"))?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Forgets `relay`'s acknowledgement of `ids` (it turned out not to hold them).
    pub(crate) async fn clear_acks(self: &Arc<Self>, relay: &str, ids: Vec<String>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let relay = relay.to_string();
        self.write(move |tx, engine| {
            for id in &ids {
                let cleared = tx
                    .prepare_cached("DELETE FROM acks WHERE relay = ?1 AND event_id = ?2 AND refused IS NULL")?
                    .execute(params![relay, id])?;
                if cleared > 0 {
                    engine.touch_events();
                }
            }
            Ok(())
        })
        .await
    }

    /// The stored state of one relay, without counting what it lacks (`pending` 0).
    pub(crate) async fn relay_info(self: &Arc<Self>, relay: &str) -> Result<Option<RelayInfo>> {
        Ok(self.relays_counted(false).await?.into_iter().find(|r| r.url == relay))
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
    tx.prepare_cached(
        "DELETE FROM outbox WHERE EXISTS (SELECT 1 FROM relays)
           AND NOT EXISTS (SELECT 1 FROM relays r WHERE NOT EXISTS
               (SELECT 1 FROM acks a WHERE a.event_id = outbox.event_id AND a.relay = r.url))",
    )?
    .execute([])?;
    Ok(())
}

/// The events `relay` (an SQL expression) has not acknowledged and this store may push
/// it: a `FROM ... WHERE` for a count or a listing. Walked by the `(created_at, id)` index,
/// which holds the id the acknowledgement check needs: a scan of the table read every
/// event's JSON (a gigabyte at a million events, seconds after every pass), while the
/// index reads an event's row only for the few not acknowledged, to check its tags.
fn unacked(engine: &Engine, relay: &str) -> String {
    format!(
        "events e INDEXED BY events_created
         WHERE NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id AND a.relay = {relay}) AND {}",
        pushable(engine)
    )
}

/// SQL true for the stored events `e` this store may push: all in compatible mode; in
/// blinded mode those without a plain path in any tag.
fn pushable(engine: &Engine) -> String {
    match engine.codec().mode() {
        crate::DTagMode::Compatible => "1".into(),
        _ => format!("NOT {}", crate::codec::PLAIN_PATH_SQL),
    }
}

/// What relay sync may read and write of the store: the relay books, the events it
/// holds, and the ingestion door (rust-nostr's `NostrDatabase` is the model). Relay
/// addresses are passed as checked strings.
pub(crate) trait SyncStorage: Clone + Send + Sync + 'static {
    /// The key whose events are synced.
    fn public_key(&self) -> PublicKey;
    /// A signed NIP-42 answer to `challenge` from `relay`.
    fn auth_event(&self, challenge: &str, relay: &str) -> Result<Event>;
    /// Sees a new value after every commit that changed events.
    fn changes(&self) -> tokio::sync::watch::Receiver<u64>;
    /// Changes when another process commits.
    fn data_version(&self) -> impl Future<Output = Result<i64>> + Send;
    /// Signs pending accesses when a batch is due, so a pass carries them.
    fn flush_accesses_if_due(&self) -> impl Future<Output = Result<usize>> + Send;
    /// The configured relays and their state, without counting what each lacks (`pending` 0).
    fn relays(&self) -> impl Future<Output = Result<Vec<RelayInfo>>> + Send;
    /// One relay's state, without counting what it lacks (`pending` 0).
    fn relay_info(&self, relay: &str) -> impl Future<Output = Result<Option<RelayInfo>>> + Send;
    /// Events `relay` has not acknowledged, oldest first.
    fn pending_ids(&self, relay: &str) -> impl Future<Output = Result<Vec<String>>> + Send;
    /// How many events `relay` has not acknowledged.
    fn pending_count(&self, relay: &str) -> impl Future<Output = Result<u64>> + Send;
    /// The stored events with these ids, in the order given.
    fn events_by_id(&self, ids: Vec<String>) -> impl Future<Output = Result<Vec<Event>>> + Send;
    /// `(created_at, id)` of the events held of these kinds.
    fn event_items(&self, kinds: Vec<u16>) -> impl Future<Output = Result<Vec<(u64, String)>>> + Send;
    /// `relay` holds `ids`.
    fn mark_acked(&self, relay: &str, ids: Vec<String>) -> impl Future<Output = Result<()>> + Send;
    /// `relay` refused these events for good (`(id, its message)`).
    fn mark_refused(&self, relay: &str, refused: Vec<(String, String)>) -> impl Future<Output = Result<()>> + Send;
    /// `relay` turned out not to hold `ids`.
    fn clear_acks(&self, relay: &str, ids: Vec<String>) -> impl Future<Output = Result<()>> + Send;
    /// After a complete full read: acknowledgements of events `relay` no longer serves go.
    fn reconcile_acks(&self, relay: &str, served: Vec<String>) -> impl Future<Output = Result<u64>> + Send;
    /// A completed read of `relay` up to `checkpoint`.
    fn relay_synced(&self, relay: &str, checkpoint: i64, full: bool) -> impl Future<Output = Result<()>> + Send;
    /// Where the read of `relay` that stopped early goes on next pass.
    fn relay_resume(&self, relay: &str, at: Resume) -> impl Future<Output = Result<()>> + Send;
    /// A failure talking to `relay`.
    fn relay_failed(&self, relay: &str, error: &str) -> impl Future<Output = Result<()>> + Send;
    /// How `relay` behaved in a pass (a broken rule backs it off).
    fn relay_conduct(&self, relay: &str, broke: Option<&str>) -> impl Future<Output = Result<()>> + Send;
    /// Whether `relay` speaks NIP-77.
    fn set_negentropy(&self, relay: &str, supported: bool) -> impl Future<Output = Result<()>> + Send;
    /// Events from a relay through the one door.
    fn admit(&self, source: Source, events: Vec<Incoming>) -> impl Future<Output = Result<Admitted>> + Send;
    /// The door's checks that need no database (signature, decryption, payload rules), so
    /// a page is checked while the one before it is written.
    fn check(&self, events: Vec<Incoming>) -> impl Future<Output = Result<Checked>> + Send;
    /// Checked events through the rest of the door.
    fn admit_checked(&self, source: Source, checked: Checked) -> impl Future<Output = Result<Admitted>> + Send;
    /// The agent's relay list against the configured relays: `(to add, to drop)`.
    fn relay_list_delta(&self) -> impl Future<Output = Result<(Vec<String>, Vec<String>)>> + Send;
    /// Configures and drops relays as the list says (already checked against its bounds).
    fn follow_relay_list(&self, add: Vec<String>, drop: Vec<String>) -> impl Future<Output = Result<()>> + Send;
    /// Signs the relay list when it changed since it was last signed.
    fn sign_relay_list(&self) -> impl Future<Output = Result<()>> + Send;
}

/// The store's side of sync: the engine and when accesses are signed.
#[derive(Clone)]
pub(crate) struct Books {
    pub engine: Arc<Engine>,
    pub flush: AccessFlush,
    /// Called after a transaction that changed memories (pulled events, signed accesses):
    /// the facade counts it toward automatic consolidation, as any write.
    pub on_change: Arc<dyn Fn() + Send + Sync>,
}

impl SyncStorage for Books {
    fn public_key(&self) -> PublicKey {
        self.engine.codec().public_key()
    }
    fn auth_event(&self, challenge: &str, relay: &str) -> Result<Event> {
        self.engine.codec().auth_event(challenge, relay)
    }
    fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.engine.changes()
    }
    async fn data_version(&self) -> Result<i64> {
        self.engine.data_version().await
    }
    async fn flush_accesses_if_due(&self) -> Result<usize> {
        let n = self.engine.flush_accesses_if_due(self.flush).await?;
        if n > 0 {
            (self.on_change)();
        }
        Ok(n)
    }
    async fn relays(&self) -> Result<Vec<RelayInfo>> {
        self.engine.relays_counted(false).await
    }
    async fn relay_info(&self, relay: &str) -> Result<Option<RelayInfo>> {
        self.engine.relay_info(relay).await
    }
    async fn pending_ids(&self, relay: &str) -> Result<Vec<String>> {
        self.engine.pending_ids(relay).await
    }
    async fn pending_count(&self, relay: &str) -> Result<u64> {
        self.engine.pending_count(relay).await
    }
    async fn events_by_id(&self, ids: Vec<String>) -> Result<Vec<Event>> {
        self.engine.events_by_id(ids).await
    }
    async fn event_items(&self, kinds: Vec<u16>) -> Result<Vec<(u64, String)>> {
        self.engine.event_items(kinds).await
    }
    async fn mark_acked(&self, relay: &str, ids: Vec<String>) -> Result<()> {
        self.engine.mark_acked(relay, ids).await
    }
    async fn mark_refused(&self, relay: &str, refused: Vec<(String, String)>) -> Result<()> {
        self.engine.mark_refused(relay, refused).await
    }
    async fn clear_acks(&self, relay: &str, ids: Vec<String>) -> Result<()> {
        self.engine.clear_acks(relay, ids).await
    }
    async fn reconcile_acks(&self, relay: &str, served: Vec<String>) -> Result<u64> {
        self.engine.reconcile_acks(relay, served).await
    }
    async fn relay_synced(&self, relay: &str, checkpoint: i64, full: bool) -> Result<()> {
        self.engine.relay_synced(relay, checkpoint, full).await
    }
    async fn relay_resume(&self, relay: &str, at: Resume) -> Result<()> {
        self.engine.relay_resume(relay, at).await
    }
    async fn relay_failed(&self, relay: &str, error: &str) -> Result<()> {
        self.engine.relay_failed(relay, error).await
    }
    async fn relay_conduct(&self, relay: &str, broke: Option<&str>) -> Result<()> {
        self.engine.relay_conduct(relay, broke).await
    }
    async fn set_negentropy(&self, relay: &str, supported: bool) -> Result<()> {
        self.engine.set_negentropy(relay, supported).await
    }
    async fn admit(&self, source: Source, events: Vec<Incoming>) -> Result<Admitted> {
        let admitted = self.engine.admit_all(source, events).await?;
        if admitted.report.applied + admitted.report.merged > 0 {
            (self.on_change)();
        }
        Ok(admitted)
    }
    async fn check(&self, events: Vec<Incoming>) -> Result<Checked> {
        self.engine.check(events).await
    }
    async fn admit_checked(&self, source: Source, checked: Checked) -> Result<Admitted> {
        let admitted = self.engine.admit_checked(source, checked).await?;
        if admitted.report.applied + admitted.report.merged > 0 {
            (self.on_change)();
        }
        Ok(admitted)
    }
    async fn relay_list_delta(&self) -> Result<(Vec<String>, Vec<String>)> {
        self.engine.relay_list_delta().await
    }
    async fn follow_relay_list(&self, add: Vec<String>, drop: Vec<String>) -> Result<()> {
        self.engine.follow_relay_list(add, drop).await
    }
    async fn sign_relay_list(&self) -> Result<()> {
        self.engine.sign_relay_list().await
    }
}
