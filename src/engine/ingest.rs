//! The one door for events from elsewhere: an import file, a relay's page, a live
//! subscription. Every check an untrusted event meets lives here, in this order:
//!
//! 1. it parses as a NIP-01 event (else `malformed_event`);
//! 2. a relay's event lies inside the window memstr asked for (else `out_of_window`);
//! 3. `Codec::decode`: signature, author, kind, d tag, size, decryption, payload rules;
//! 4. it is not dated more than [`FUTURE_SLACK`] ahead of the system clock, else it waits
//!    in the quarantine until its time comes (a clock it did not take never decides the
//!    future here);
//! 5. `apply::apply`, then the books: a relay's acknowledgement, the outbox for imports.
//!
//! Refusals are counted per reason, never fatal.

use nostr::{Event, JsonUtil};
use rusqlite::{params, Transaction};

use std::sync::Arc;

use super::apply::{self, Outcome};
use super::records::ImportReport;
use super::write::enqueue;
use super::Engine;
use crate::clock::system_secs as system_now;
use crate::codec::{Decoded, Payload};
use crate::error::{RejectReason, Result};

/// How far ahead of the system clock an event may be dated and still be applied: clocks
/// differ by seconds to minutes; anything further is a broken clock or an attack.
pub const FUTURE_SLACK: i64 = 15 * 60;

/// Events per transaction: large enough to amortise fsync, small enough that a failure
/// midway keeps most of the work.
pub(crate) const BATCH: usize = 500;

/// Where a batch came from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A backup or another tool: applied events are queued for every relay.
    Import,
    /// A relay: what it serves counts as held by it. `window` is the `since..=until` the
    /// request asked for (live subscriptions and fetches by id have none).
    #[cfg(feature = "sync")]
    Relay { url: String, window: Option<(i64, i64)> },
}

impl Source {
    fn name(&self) -> &str {
        match self {
            Source::Import => "import",
            #[cfg(feature = "sync")]
            Source::Relay { url, .. } => url,
        }
    }
}

/// One event as it arrived: parsed, or not a NIP-01 event at all.
pub(crate) type Incoming = Option<Event>;

/// What a batch did.
#[derive(Debug, Default)]
pub(crate) struct Admitted {
    pub report: ImportReport,
    /// Newest `created_at` of the events that were applied, merged, duplicate or stale:
    /// the only ones a relay's read checkpoint may move by.
    pub newest: Option<i64>,
}

impl Admitted {
    pub(crate) fn absorb(&mut self, other: Admitted) {
        self.report.absorb(other.report);
        self.newest = self.newest.max(other.newest);
    }
}

/// Parses a relay's raw event object (anything it sent, unverified).
#[cfg(feature = "sync")]
pub(crate) fn parse_value(v: serde_json::Value) -> Incoming {
    serde_json::from_value::<Event>(v).ok()
}

/// An event with what [`crate::codec::Codec::decode`] said of it, when that was worked out
/// before the transaction ([`decode_parallel`]); `None`: decoded in the transaction.
pub(crate) type Prepared = (Incoming, Option<std::result::Result<Decoded, RejectReason>>);

/// Decodes `events` (signature, decryption, payload rules) on every core, outside any
/// transaction: these checks need no database and are most of a pull's work, and the
/// writer then holds the database only for what must be written.
pub(crate) fn decode_parallel(engine: &Engine, events: Vec<Incoming>) -> Vec<Prepared> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from).min(8);
    let codec = engine.codec();
    let decode = |e: &Incoming| e.as_ref().map(|e| codec.decode(e));
    if cores < 2 || events.len() < 32 {
        let decoded: Vec<_> = events.iter().map(decode).collect();
        return events.into_iter().zip(decoded).collect();
    }
    let per = events.len().div_ceil(cores);
    let decoded: Vec<Option<std::result::Result<Decoded, RejectReason>>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            events.chunks(per).map(|chunk| scope.spawn(move || chunk.iter().map(decode).collect::<Vec<_>>())).collect();
        // A decoding thread that panicked leaves its events to be decoded in the transaction.
        handles
            .into_iter()
            .zip(events.chunks(per))
            .flat_map(|(h, chunk)| h.join().unwrap_or_else(|_| vec![None; chunk.len()]))
            .collect()
    });
    events.into_iter().zip(decoded).collect()
}

/// Checks and applies a batch inside one transaction (see the module doc).
pub(crate) fn admit(tx: &Transaction, engine: &Engine, source: &Source, events: Vec<Incoming>) -> Result<Admitted> {
    admit_prepared(tx, engine, source, events.into_iter().map(|e| (e, None)).collect())
}

/// [`admit`] of events some of which are decoded already.
pub(crate) fn admit_prepared(
    tx: &Transaction,
    engine: &Engine,
    source: &Source,
    events: Vec<Prepared>,
) -> Result<Admitted> {
    let now = system_now();
    let mut out = release_due(tx, engine, now)?;
    #[cfg(feature = "sync")]
    let mut acked: Vec<String> = Vec::new();
    for (incoming, predecoded) in events {
        let Some(event) = incoming else {
            apply::count_rejection(tx, RejectReason::MalformedEvent, None)?;
            out.report.count(Outcome::Rejected(RejectReason::MalformedEvent));
            continue;
        };
        let id = event.id.to_hex();
        let created_at = event.created_at.as_secs() as i64;
        #[cfg(feature = "sync")]
        if let Source::Relay { window: Some((since, until)), .. } = source {
            if created_at < *since || created_at > *until {
                apply::count_rejection(tx, RejectReason::OutOfWindow, Some(&id))?;
                out.report.count(Outcome::Rejected(RejectReason::OutOfWindow));
                continue;
            }
        }
        let mut decoded = match predecoded.unwrap_or_else(|| engine.codec().decode(&event)) {
            Ok(d) => d,
            Err(reason) => {
                apply::count_rejection(tx, reason, Some(&id))?;
                out.report.count(Outcome::Rejected(reason));
                continue;
            }
        };
        if created_at > now.saturating_add(FUTURE_SLACK) {
            quarantine(tx, &event, source.name(), now)?;
            out.report.quarantined += 1;
            continue;
        }
        if let Decoded::Record { payload: Payload::Persona(p), .. } = &mut decoded {
            // Times inside a payload are the writer's word: no later than the slack the
            // door allows for `created_at`, or they would win every merge to come.
            crate::model::merge::clamp_times(p, now.saturating_add(FUTURE_SLACK) as f64);
        }
        let outcome = apply::apply(tx, engine.codec(), &event, &decoded)?;
        if matches!(outcome, Outcome::Applied | Outcome::Merged) {
            engine.touch_events();
        }
        if matches!(outcome, Outcome::Applied | Outcome::Merged | Outcome::Duplicate | Outcome::Stale) {
            out.newest = out.newest.max(Some(created_at));
        }
        match source {
            Source::Import => {
                if outcome == Outcome::Applied {
                    enqueue(tx, &event)?;
                }
            }
            #[cfg(feature = "sync")]
            Source::Relay { url, .. } => relay_books(tx, engine, url, &event, &decoded, outcome, now, &mut acked)?,
        }
        out.report.count(outcome);
    }
    #[cfg(feature = "sync")]
    super::books::prune_outbox_ids(tx, &acked)?;
    Ok(out)
}

/// What an event a relay served says about that relay: an applied or held event is
/// acknowledged; a relay serving an outdated version loses its acknowledgement of ours, so
/// the next push repairs it.
#[cfg(feature = "sync")]
#[allow(clippy::too_many_arguments)]
fn relay_books(
    tx: &Transaction,
    engine: &Engine,
    relay: &str,
    event: &Event,
    decoded: &Decoded,
    outcome: Outcome,
    now: i64,
    acked: &mut Vec<String>,
) -> Result<()> {
    let id = event.id.to_hex();
    let path = match decoded {
        Decoded::Record { path, .. } => Some(path.to_d()),
        Decoded::Deletion { .. } | Decoded::RelayList(_) => None,
    };
    match (outcome, path) {
        (Outcome::Applied | Outcome::Duplicate, _) => {
            // Asked first and inserted from values: an INSERT ... SELECT under a foreign key
            // opens a statement savepoint, at which FTS5 writes out its pending index
            // (docs/ARCHITECTURE.md, "Statements").
            let held: bool = tx
                .prepare_cached("SELECT EXISTS (SELECT 1 FROM events WHERE id = ?1)")?
                .query_row([&id], |r| r.get(0))?;
            if held {
                tx.prepare_cached("INSERT OR IGNORE INTO acks (event_id, relay, acked_at) VALUES (?1, ?2, ?3)")?
                    .execute(params![id, relay, now])?;
            }
            acked.push(id);
        }
        (Outcome::Stale, Some(path)) => {
            tx.prepare_cached(
                "DELETE FROM acks WHERE relay = ?1 AND event_id = (SELECT event_id FROM records WHERE path = ?2)",
            )?
            .execute(params![relay, path])?;
            // Same second, our version wins by id, yet the relay serves its own: it keeps
            // first arrivals and will never take ours at that second. Sign the winner one
            // second newer.
            let tie: bool = tx
                .prepare_cached(
                    "SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND created_at = ?2)",
                )?
                .query_row(params![path, event.created_at.as_secs() as i64], |r| r.get(0))?;
            if tie {
                super::write::republish(tx, engine, &path)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn quarantine(tx: &Transaction, event: &Event, source: &str, now: i64) -> rusqlite::Result<()> {
    tracing::debug!(event_id = %event.id, created_at = event.created_at.as_secs(), source, "quarantined: dated in the future");
    tx.prepare_cached(
        "INSERT OR IGNORE INTO quarantine (id, created_at, json, source, received_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![event.id.to_hex(), event.created_at.as_secs() as i64, event.as_json(), source, now])?;
    Ok(())
}

/// Applies the quarantined events whose time has come (as imports: they were checked on
/// arrival, and are checked again).
pub(crate) fn release_due(tx: &Transaction, engine: &Engine, now: i64) -> Result<Admitted> {
    let limit = now.saturating_add(FUTURE_SLACK);
    let due: Vec<String> = tx
        .prepare_cached("SELECT json FROM quarantine WHERE created_at <= ?1 ORDER BY created_at, id")?
        .query_map([limit], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if due.is_empty() {
        return Ok(Admitted::default());
    }
    tx.prepare_cached("DELETE FROM quarantine WHERE created_at <= ?1")?.execute([limit])?;
    let events = due.iter().map(|j| Event::from_json(j).ok()).collect();
    admit(tx, engine, &Source::Import, events)
}

/// Whether [`repair_future`] has anything to do (a read, so a read-only store opens).
pub(crate) fn needs_repair(conn: &rusqlite::Connection) -> rusqlite::Result<bool> {
    let now = system_now();
    let limit = now.saturating_add(FUTURE_SLACK);
    conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM events WHERE created_at > ?2)
             OR EXISTS(SELECT 1 FROM quarantine WHERE created_at <= ?2)
             OR EXISTS(SELECT 1 FROM relays WHERE checkpoint > ?1)",
    )?
    .query_row([now, limit], |r| r.get(0))
}

/// Repairs a store poisoned by an earlier memstr, which signed with whatever clock it was
/// given and applied whatever date a relay served (docs/sync.md, repair):
///
/// - read checkpoints later than now come back to now;
/// - quarantined events whose time has come are applied;
/// - a version of ours dated beyond the slack is deleted by event id (never by address,
///   which would take its replacement too) and its content signed again at the system
///   clock's time, so later edits are no longer stamped after it;
/// - a deletion dated beyond the slack is dropped (what it deleted stays deleted; it no
///   longer blocks new versions until its date).
///
/// Returns how many events were repaired.
pub(crate) fn repair_future(tx: &Transaction, engine: &Engine) -> Result<u64> {
    let now = system_now();
    let limit = now.saturating_add(FUTURE_SLACK);
    #[cfg(feature = "sync")]
    tx.prepare_cached("UPDATE relays SET checkpoint = ?1 WHERE checkpoint > ?1")?.execute([now])?;
    release_due(tx, engine, now)?;
    let poisoned: Vec<String> = tx
        .prepare("SELECT json FROM events WHERE created_at > ?1 ORDER BY created_at")?
        .query_map([limit], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for json in &poisoned {
        let Ok(event) = Event::from_json(json) else { continue };
        let id = event.id.to_hex();
        tracing::warn!(event_id = %id, created_at = event.created_at.as_secs(), "repairing an event dated in the future");
        tx.prepare_cached("DELETE FROM events WHERE id = ?1")?.execute([&id])?;
        tx.prepare_cached("DELETE FROM deletions WHERE request_id = ?1")?.execute([&id])?;
        let Ok(Decoded::Record { path, payload, .. }) = engine.codec().decode(&event) else { continue };
        let del = engine.codec().deletion_event(std::slice::from_ref(&id), &[], now as u64)?;
        let decoded = engine
            .codec()
            .decode(&del)
            .map_err(|reason| crate::Error::Rejected { event_id: del.id.to_hex(), reason })?;
        apply::apply(tx, engine.codec(), &del, &decoded)?;
        enqueue(tx, &del)?;
        let current = apply::current(tx, &path.to_d())?.is_some_and(|c| c.event_id == id);
        if current {
            super::write::write_record(tx, engine, &path, payload)?;
        }
        engine.touch_events();
    }
    Ok(poisoned.len() as u64)
}

/// Events decoded ahead of their transaction ([`Engine::check`]), in arrival order.
#[derive(Default)]
pub(crate) struct Checked(Vec<Prepared>);

impl Engine {
    /// Decodes `events` on every core in the blocking pool ([`decode_parallel`]): a caller
    /// that holds the next batch checks it while the one before is written.
    pub(crate) async fn check(self: &Arc<Self>, events: Vec<Incoming>) -> Result<Checked> {
        if events.is_empty() {
            return Ok(Checked::default());
        }
        let me = self.clone();
        super::blocking(move || Ok(Checked(decode_parallel(&me, events)))).await
    }

    /// Writes checked events through the rest of the door, in transactions of [`BATCH`].
    pub(crate) async fn admit_checked(self: &Arc<Self>, source: Source, checked: Checked) -> Result<Admitted> {
        let mut total = Admitted::default();
        let mut events = checked.0.into_iter().peekable();
        while events.peek().is_some() {
            let chunk: Vec<Prepared> = events.by_ref().take(BATCH).collect();
            let source = source.clone();
            total.absorb(self.write(move |tx, engine| admit_prepared(tx, engine, &source, chunk)).await?);
        }
        Ok(total)
    }

    /// Runs `events` through the door in transactions of [`BATCH`], each batch decoded
    /// while the one before it is written (the writer is one thread; decoding takes the
    /// other cores).
    pub(crate) async fn admit_all(self: &Arc<Self>, source: Source, events: Vec<Incoming>) -> Result<Admitted> {
        let mut total = Admitted::default();
        let mut events = events.into_iter().peekable();
        let mut checked = self.check(events.by_ref().take(BATCH).collect()).await?;
        while !checked.0.is_empty() {
            let next: Vec<Incoming> = events.by_ref().take(BATCH).collect();
            let (written, next) = tokio::join!(self.admit_checked(source.clone(), checked), self.check(next));
            total.absorb(written?);
            checked = next?;
        }
        Ok(total)
    }
}
