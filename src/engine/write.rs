//! Local writes: sign a payload, apply it, queue it for relays.

use std::sync::Arc;

use nostr::Event;
use rusqlite::{params, Transaction};

use super::apply::{self, Outcome};
use super::Engine;
use crate::codec::{Decoded, Path, Payload, RecordKind};
use crate::error::{Error, Result};

/// Signs `payload` at `path`, applies it and queues it. The event's `created_at` is the
/// time of writing (per the system clock), raised past the current version and any
/// deletion so the write always wins. A memory's own time (an import's, say) travels in
/// the payload: relays order and filter by `created_at`, so it must mean "written".
pub(crate) fn write_record(tx: &Transaction, engine: &Engine, path: &Path, payload: Payload) -> Result<Event> {
    write_with(tx, engine, path, payload, None)
}

/// [`write_record`] with `payload` already signed as `signed` (by [`sign_ahead`], outside
/// the transaction, so a batch holds the write lock for its inserts only). The event is
/// used as it is when its `created_at` is still at or past the floor a write at `path`
/// needs now; otherwise (a version or deletion arrived since) the payload is signed again
/// here, exactly as [`write_record`] would.
pub(crate) fn write_signed(
    tx: &Transaction,
    engine: &Engine,
    path: &Path,
    payload: Payload,
    signed: Event,
) -> Result<Event> {
    write_with(tx, engine, path, payload, Some(signed))
}

/// Signs `payload` at `path` now, for [`write_signed`] later: the work of a write that
/// needs no lock (encryption, the signature).
pub(crate) fn sign_ahead(engine: &Engine, path: &Path, payload: &Payload) -> Result<Event> {
    if engine.evaluate_only() {
        return Err(Error::EvaluateOnly(format!("write {path}")));
    }
    engine.codec().record_event(path, payload, crate::clock::system_secs().max(0) as u64)
}

fn write_with(
    tx: &Transaction,
    engine: &Engine,
    path: &Path,
    payload: Payload,
    signed: Option<Event>,
) -> Result<Event> {
    if engine.evaluate_only() {
        return Err(Error::EvaluateOnly(format!("write {path}")));
    }
    let codec = engine.codec();
    let d = codec.d_tag(path);
    let cur = apply::current(tx, &path.to_d())?;
    let mut floor = 0;
    if let Some(c) = &cur {
        if apply::orders_later_versions(tx, c)? {
            floor = c.created_at.saturating_add(1);
        }
    }
    if let Some(t) = apply::deleted_until(tx, &d)? {
        floor = floor.max(t.saturating_add(1));
    }
    // The system clock, never the store's: a signed `created_at` from a clock set to
    // another time would stamp every later edit after it (docs/sync.md, clocks).
    let created_at = crate::clock::system_secs().max(floor).max(0) as u64;
    let event = match signed {
        Some(e) if e.created_at.as_secs() as i64 >= floor => e,
        _ => codec.record_event(path, &payload, created_at)?,
    };
    let created_at = event.created_at.as_secs();
    let decoded = Decoded::Record { path: path.clone(), d_tag: d.clone(), payload };
    let outcome = apply::apply(tx, codec, &event, &decoded)?;
    if outcome != Outcome::Applied {
        return Err(Error::Task(format!("own write to {path} was not applied: {outcome:?}")));
    }
    enqueue(tx, &event)?;
    engine.touch_events();
    if let Some(c) = cur.filter(|c| !c.deleted && !c.d_tag.is_empty() && c.d_tag != d) {
        // The d-tag mode changed: retire the version at the old tag. Into blinded mode by
        // `e` tag only: the old tag is plain, and a blinded store publishes no plain path
        // (it is public already; publishing it again would only repeat it to new relays).
        let del = codec.deletion_event(&[c.event_id], &codec.coordinates(&[c.d_tag]), created_at)?;
        let decoded = codec.decode(&del).map_err(|reason| Error::Rejected { event_id: del.id.to_hex(), reason })?;
        apply::apply(tx, codec, &del, &decoded)?;
        enqueue(tx, &del)?;
    }
    Ok(event)
}

/// Signs the current content of `path` again as a newer version. For a relay that kept
/// another version with the same `created_at` (first arrival wins there, lowest id here):
/// only a newer version gets the winner onto it.
#[cfg(feature = "sync")]
pub(crate) fn republish(tx: &Transaction, engine: &Engine, path_s: &str) -> Result<()> {
    use rusqlite::OptionalExtension;
    let row: Option<(RecordKind, Option<String>)> = tx
        .query_row("SELECT kind, payload FROM records WHERE path = ?1 AND deleted = 0", [path_s], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let (Some((kind, Some(json))), Ok(path)) = (row, Path::parse(path_s)) else { return Ok(()) };
    let payload = super::records::payload_of(kind, &json)?;
    write_record(tx, engine, &path, payload)?;
    Ok(())
}

/// Queues an event for relays.
pub(crate) fn enqueue(tx: &Transaction, event: &Event) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT OR IGNORE INTO outbox (event_id, queued_at) VALUES (?1, unixepoch())")?
        .execute(params![event.id.to_hex()])?;
    Ok(())
}

/// Forgets the record at `path`: a tombstone replaces it, and a NIP-09 deletion with `e`,
/// `a` and `k` tags asks relays to drop it (in blinded mode, `a` tags name blinded
/// coordinates only). Returns the deletion's event id.
pub(crate) fn forget_path(tx: &Transaction, engine: &Engine, path: &Path) -> Result<String> {
    let now = engine.now();
    let codec = engine.codec();
    let d = codec.d_tag(path);
    let cur = apply::current(tx, &path.to_d())?;
    let tomb = write_record(
        tx,
        engine,
        path,
        Payload::Tombstone(crate::codec::Tombstone { path: path.to_d(), deleted_at: now }),
    )?;
    let mut ids = Vec::new();
    let mut d_tags = vec![d.clone()];
    if let Some(c) = cur.filter(|c| !c.deleted) {
        ids.push(c.event_id);
        if c.d_tag != d {
            d_tags.push(c.d_tag);
        }
    }
    // The tombstone too: on relays that honour `e` deletions (nostr-rs-relay), the key
    // then serves nothing at all, which is what the published client needs to see
    // `recall` return None.
    ids.push(tomb.id.to_hex());
    // In blinded mode a plain d tag (a version from a compatible past) goes by its `e`
    // tag only: a blinded store never publishes a plain path.
    let d_tags = codec.coordinates(&d_tags);
    let del = codec.deletion_event(&ids, &d_tags, tomb.created_at.as_secs())?;
    let decoded = Decoded::Deletion { ids, d_tags };
    if apply::apply(tx, codec, &del, &decoded)? != Outcome::Applied {
        return Err(Error::Task("own deletion was not applied".into()));
    }
    enqueue(tx, &del)?;
    engine.touch_events();
    Ok(del.id.to_hex())
}

/// Signs every unsigned local change (accesses, revivals) into new versions of those
/// records, one event per record however many reads. Returns how many were signed.
pub(crate) fn flush_accesses(tx: &Transaction, engine: &Engine) -> Result<usize> {
    let dirty = super::records::dirty_rows(tx)?;
    for (kind, path, json) in &dirty {
        match kind {
            RecordKind::Persona => {
                let mut m: crate::model::PersonaMemory = serde_json::from_str(json)?;
                crate::model::merge::stamp(None, &mut m, engine.device(), engine.now(), false);
                let path = Path::of_persona(&m);
                write_record(tx, engine, &path, Payload::Persona(m))?;
            }
            // A flat memory or journal entry a search revived from the archive.
            RecordKind::Kv | RecordKind::Journal => {
                let path = Path::parse(path).map_err(|_| Error::Task(format!("stored path {path:?}")))?;
                write_record(tx, engine, &path, super::records::payload_of(*kind, json)?)?;
            }
            _ => {}
        }
    }
    Ok(dirty.len())
}

/// When unsigned accesses are signed: a batch is due when the oldest is `after` old or
/// `count` memories hold some (`LifecycleOptions::access_flush_after` / `_count`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AccessFlush {
    pub after: std::time::Duration,
    pub count: u64,
}

impl Engine {
    /// Signs the unsigned accesses if a batch is due (see [`AccessFlush`]). Returns how
    /// many memories were signed (0 when not due, or when the store only evaluates).
    pub(crate) async fn flush_accesses_if_due(self: &Arc<Self>, flush: AccessFlush) -> Result<usize> {
        if self.evaluate_only() {
            return Ok(0);
        }
        let (after, count) = (flush.after.as_secs() as i64, flush.count);
        if self.read(move |conn, _| super::records::accesses_due(conn, after, count)).await? {
            self.flush_accesses().await
        } else {
            Ok(0)
        }
    }

    /// Signs every unsigned access now.
    pub(crate) async fn flush_accesses(self: &Arc<Self>) -> Result<usize> {
        if self.evaluate_only() {
            return Ok(0);
        }
        self.write(flush_accesses).await
    }
}
