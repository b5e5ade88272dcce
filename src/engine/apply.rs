//! The one way state changes: apply a decoded event inside a transaction.
//!
//! Local writes, imports and (later) relay pulls all come through here, so the rules
//! (replaceable winner, deletions, tombstones) are the same whatever the source.

use nostr::{Event, JsonUtil};
use rusqlite::{params, OptionalExtension, Transaction};

use super::vectors::VecState;
use crate::codec::{Codec, Decoded, Path, Payload, KIND_DELETION};
use crate::error::{RejectReason, Result};
use crate::model::merge::{self, Causality};
use crate::model::PersonaMemory;

/// What applying an event did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// It changed the store.
    Applied,
    /// The store already had this event.
    Duplicate,
    /// The store holds a newer version of the same record.
    Stale,
    /// A concurrent edit: merged with the local version into a new signed version.
    Merged,
    /// A deletion request covers it.
    Deleted,
    /// It failed a check, and was counted.
    Rejected(RejectReason),
}

/// The current row of a path.
pub(crate) struct Current {
    pub event_id: String,
    pub created_at: i64,
    pub deleted: bool,
    pub dirty: bool,
    pub d_tag: String,
    pub payload: Option<String>,
}

pub(crate) fn current(tx: &Transaction, path: &str) -> rusqlite::Result<Option<Current>> {
    tx.prepare_cached("SELECT event_id, created_at, deleted, dirty, d_tag, payload FROM records WHERE path = ?1")?
        .query_row([path], |r| {
            Ok(Current {
                event_id: r.get(0)?,
                created_at: r.get(1)?,
                deleted: r.get(2)?,
                dirty: r.get(3)?,
                d_tag: r.get(4)?,
                payload: r.get(5)?,
            })
        })
        .optional()
}

/// Newest `a`-tag deletion time for a d tag, if any.
pub(crate) fn deleted_until(tx: &Transaction, d_tag: &str) -> rusqlite::Result<Option<i64>> {
    // `IN (?1)`, not `= ?1`: SQLite plans `max()` under `= ?1` again on every binding,
    // a parse for each event a pull applies (docs/ARCHITECTURE.md, "Statements").
    tx.prepare_cached("SELECT max(created_at) FROM deletions WHERE target_d IN (?1)")?.query_row([d_tag], |r| r.get(0))
}

pub(crate) fn count_rejection(tx: &Transaction, reason: RejectReason, event_id: Option<&str>) -> rusqlite::Result<()> {
    tracing::debug!(reason = reason.as_str(), event_id, "rejected event");
    tx.prepare_cached(
        "INSERT INTO rejections (reason, count, last_event_id, last_at) VALUES (?1, 1, ?2, unixepoch())
         ON CONFLICT(reason) DO UPDATE SET count = count + 1, last_event_id = ?2, last_at = unixepoch()",
    )?
    .execute(params![reason.as_str(), event_id])?;
    Ok(())
}

/// Applies an event already known to be valid (`decoded` is its decoding).
pub(crate) fn apply(tx: &Transaction, codec: &Codec, event: &Event, decoded: &Decoded) -> Result<Outcome> {
    let id = event.id.to_hex();
    let exists: bool =
        tx.prepare_cached("SELECT EXISTS(SELECT 1 FROM events WHERE id = ?1)")?.query_row([&id], |r| r.get(0))?;
    if exists {
        return Ok(Outcome::Duplicate);
    }
    let created_at = event.created_at.as_secs() as i64;
    match decoded {
        Decoded::RelayList(entries) => super::relay_list::apply(tx, codec, event, entries),
        Decoded::Deletion { ids, d_tags } => {
            insert_event(tx, &id, KIND_DELETION as i64, created_at, &event.as_json())?;
            for target in ids {
                tx.prepare_cached("INSERT INTO deletions (request_id, target_id, created_at) VALUES (?1, ?2, ?3)")?
                    .execute(params![id, target, created_at])?;
                let hit: Option<i64> = tx
                    .query_row("SELECT rid FROM records WHERE event_id = ?1 AND deleted = 0", [target], |r| r.get(0))
                    .optional()?;
                if let Some(rid) = hit {
                    mark_deleted(tx, rid, target)?;
                }
            }
            for d in d_tags {
                tx.prepare_cached("INSERT INTO deletions (request_id, target_d, created_at) VALUES (?1, ?2, ?3)")?
                    .execute(params![id, d, created_at])?;
                let hits: Vec<(i64, String)> = tx
                    .prepare("SELECT rid, event_id FROM records WHERE d_tag = ?1 AND deleted = 0 AND created_at <= ?2")?
                    .query_map(params![d, created_at], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                for (rid, event_id) in hits {
                    mark_deleted(tx, rid, &event_id)?;
                }
            }
            Ok(Outcome::Applied)
        }
        Decoded::Record { path, d_tag, payload } => {
            let by_id: bool = tx
                .prepare_cached("SELECT EXISTS(SELECT 1 FROM deletions WHERE target_id = ?1)")?
                .query_row([&id], |r| r.get(0))?;
            // A tombstone is itself a deletion marker: keep it even when a deletion request
            // names it, so the store can hand it on to relays that ignore deletions.
            let tombstone = matches!(payload, Payload::Tombstone(_));
            if !tombstone && (by_id || deleted_until(tx, d_tag)?.is_some_and(|t| t >= created_at)) {
                return Ok(Outcome::Deleted);
            }
            let path_s = path.to_d();
            let cur = current(tx, &path_s)?;
            let mine: Option<PersonaMemory> = cur
                .as_ref()
                .filter(|c| !c.deleted)
                .and_then(|c| c.payload.as_deref())
                .and_then(|j| serde_json::from_str(j).ok());
            let mut payload = payload.clone();
            if let (Some(c), Some(mine), Payload::Persona(incoming)) = (&cur, &mine, &payload) {
                // Both versions carry memstr's bookkeeping: history decides, not clocks.
                if !mine.sync.vv.is_empty() && !incoming.sync.vv.is_empty() {
                    match merge::causality(&incoming.sync.vv, &mine.sync.vv) {
                        Causality::Before if !merge::diverged(incoming, mine) => return Ok(Outcome::Stale),
                        Causality::Same if incoming == mine => {}
                        Causality::After if !merge::diverged(mine, incoming) => {}
                        Causality::Same | Causality::Concurrent | Causality::Before | Causality::After => {
                            let merged = merge::merge(incoming, mine);
                            let at = (created_at.max(c.created_at) + 1) as u64;
                            let merged_event = codec.record_event(path, &Payload::Persona(merged.clone()), at)?;
                            let merged_id = merged_event.id.to_hex();
                            insert_event(
                                tx,
                                &merged_id,
                                merged_event.kind.as_u16() as i64,
                                at as i64,
                                &merged_event.as_json(),
                            )?;
                            tx.prepare_cached("DELETE FROM events WHERE id = ?1")?.execute([&c.event_id])?;
                            upsert_record(tx, path, d_tag, &merged_id, at as i64, &Payload::Persona(merged), false)?;
                            tx.prepare_cached(
                                "INSERT OR IGNORE INTO outbox (event_id, queued_at) VALUES (?1, unixepoch())",
                            )?
                            .execute([&merged_id])?;
                            return Ok(Outcome::Merged);
                        }
                    }
                }
            }
            if let Some(c) = cur.as_ref().filter(|c| orders_later_versions(tx, c).unwrap_or(true)) {
                let newer = created_at > c.created_at || (created_at == c.created_at && id < c.event_id);
                if !newer {
                    return Ok(Outcome::Stale);
                }
            }
            let mut dirty = false;
            if let (Some(c), Some(mine), Payload::Persona(incoming)) = (&cur, &mine, &mut payload) {
                // Local reads not yet signed must survive a newer version from elsewhere.
                if c.dirty {
                    dirty = merge::absorb_accesses(incoming, mine);
                }
            }
            insert_event(tx, &id, event.kind.as_u16() as i64, created_at, &event.as_json())?;
            if let Some(c) = &cur {
                // The superseded version has nothing left to say to anyone.
                tx.prepare_cached("DELETE FROM events WHERE id = ?1")?.execute([&c.event_id])?;
            }
            upsert_record(tx, path, d_tag, &id, created_at, &payload, dirty)?;
            Ok(Outcome::Applied)
        }
    }
}

/// Whether the current row of a path decides which versions are older. Every version does,
/// and so does a tombstone; a row whose version was deleted by event id alone (NIP-09
/// `e` tag, no `a` tag covering it) does not: only that event is gone, and the repair of a
/// version dated in the future (docs/sync.md) relies on this to sign its replacement.
pub(crate) fn orders_later_versions(tx: &Transaction, c: &Current) -> rusqlite::Result<bool> {
    if !c.deleted {
        return Ok(true);
    }
    let tombstone: bool = tx
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM events WHERE id = ?1)")?
        .query_row([&c.event_id], |r| r.get(0))?;
    Ok(tombstone || deleted_until(tx, &c.d_tag)?.is_some_and(|t| t >= c.created_at))
}

fn insert_event(tx: &Transaction, id: &str, kind: i64, created_at: i64, json: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT INTO events (id, kind, created_at, json) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![id, kind, created_at, json])?;
    Ok(())
}

/// A deletion reached the current version of a record: keep the row as a marker
/// (so older versions stay dead), drop its content, its index entry and its event.
fn mark_deleted(tx: &Transaction, rid: i64, event_id: &str) -> Result<()> {
    let neighbours = super::episodes::around(tx, rid)?;
    tx.prepare_cached("UPDATE records SET deleted = 1, payload = NULL, dirty = 0, needs_vec = ?2 WHERE rid = ?1")?
        .execute(params![rid, VecState::Current])?;
    tx.prepare_cached("DELETE FROM vectors WHERE rid = ?1")?.execute([rid])?;
    tx.prepare_cached("DELETE FROM records_fts WHERE rowid = ?1")?.execute([rid])?;
    super::doc_sizes::changed(tx, rid)?;
    tx.prepare_cached("DELETE FROM events WHERE id = ?1")?.execute([event_id])?;
    super::episodes::defer(tx, &neighbours)
}

/// Columns and index text of a payload.
struct Row<'a> {
    domain: Option<&'a str>,
    facet: Option<&'a str>,
    key: Option<&'a str>,
    ts: Option<f64>,
    themes: String,
    text: Option<&'a str>,
}

fn row_of(payload: &Payload) -> Row<'_> {
    let none = Row { domain: None, facet: None, key: None, ts: None, themes: String::new(), text: None };
    match payload {
        Payload::Kv(m) => Row { key: Some(&m.key), ts: Some(m.created_at), text: Some(&m.value), ..none },
        Payload::Journal(j) => Row { ts: Some(j.created_at), text: Some(&j.content), ..none },
        Payload::Persona(p) => Row {
            domain: Some(&p.domain),
            facet: Some(&p.facet),
            key: Some(&p.key),
            ts: Some(p.created_at),
            themes: p.themes.join(" "),
            text: Some(&p.value),
        },
        Payload::Embed(e) => Row { key: Some(&e.key), ts: Some(e.created_at), ..none },
        Payload::Introspection(r) => Row { ts: Some(r.timestamp), ..none },
        Payload::Tombstone(t) => Row { ts: Some(t.deleted_at), ..none },
        // No text: an insight is never in the full-text index, so no search finds it.
        Payload::Insight(i) => Row { key: Some(&i.key), ts: Some(i.updated_at), ..none },
        #[allow(unreachable_patterns)]
        _ => none,
    }
}

pub(crate) fn upsert_record(
    tx: &Transaction,
    path: &Path,
    d_tag: &str,
    event_id: &str,
    created_at: i64,
    payload: &Payload,
    dirty: bool,
) -> Result<()> {
    let tombstone = matches!(payload, Payload::Tombstone(_));
    let row = row_of(payload);
    let json = if tombstone { None } else { Some(payload_json(payload)?) };
    let kind = path.kind().as_str();
    let path_s = path.to_d();
    let embed_text = if tombstone { None } else { embedding_text(payload) };
    let text_hash = embed_text.as_deref().map(text_hash);
    // A journal entry that moves in time or is forgotten (a tombstone under its path) leaves
    // neighbours behind: their episode context is rewritten too.
    let journal = path.kind() == crate::codec::RecordKind::Journal;
    let old: Option<i64> =
        tx.prepare_cached("SELECT rid FROM records WHERE path = ?1")?.query_row([&path_s], |r| r.get(0)).optional()?;
    let mut neighbours = match (journal, old) {
        (true, Some(old)) => super::episodes::around(tx, old)?,
        _ => Vec::new(),
    };
    let values = params![
        path_s,
        kind,
        d_tag,
        event_id,
        created_at,
        tombstone,
        row.domain,
        row.facet,
        row.key,
        row.ts,
        json,
        dirty,
        text_hash,
        VecState::Pending,
        VecState::Current
    ];
    // An UPDATE or an INSERT, never an upsert with RETURNING: SQLite opens a statement
    // savepoint for those, and FTS5 writes its pending index to disk at every savepoint, so
    // a page of 1,000 events left 1,000 one-row segments to merge (docs/ARCHITECTURE.md,
    // "Statements").
    let rid = match old {
        Some(rid) => {
            tx.prepare_cached(
                "UPDATE records SET kind = ?2, d_tag = ?3, event_id = ?4, created_at = ?5, deleted = ?6,
                     domain = ?7, facet = ?8, key = ?9, ts = ?10, payload = ?11, dirty = ?12,
                     dirty_at = CASE WHEN ?12 THEN coalesce(dirty_at, unixepoch()) END,
                     needs_vec = CASE WHEN text_hash IS ?13 THEN needs_vec WHEN ?13 IS NOT NULL THEN ?14 ELSE ?15 END,
                     text_hash = ?13
                 WHERE path = ?1",
            )?
            .execute(values)?;
            rid
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO records (path, kind, d_tag, event_id, created_at, deleted, domain, facet, key, ts,
                     payload, dirty, text_hash, needs_vec, dirty_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
                     CASE WHEN ?13 IS NOT NULL THEN ?14 ELSE ?15 END, CASE WHEN ?12 THEN unixepoch() END)",
            )?
            .execute(values)?;
            tx.last_insert_rowid()
        }
    };
    if text_hash.is_none() {
        tx.prepare_cached("DELETE FROM vectors WHERE rid = ?1")?.execute([rid])?;
    }
    tx.prepare_cached("DELETE FROM records_fts WHERE rowid = ?1")?.execute([rid])?;
    super::doc_sizes::changed(tx, rid)?;
    if let (false, Some(text)) = (tombstone, row.text) {
        // A journal entry's row is written once, with its episode context.
        let context = match journal {
            true => super::episodes::context(tx, rid)?.unwrap_or_default(),
            false => String::new(),
        };
        tx.prepare_cached("INSERT INTO records_fts (rowid, key, themes, value, context) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![rid, row.key.unwrap_or(""), row.themes, text, context])?;
    }
    if journal || !neighbours.is_empty() {
        neighbours.push(rid);
        super::episodes::defer(tx, &neighbours)?;
    }
    Ok(())
}

/// What gets embedded for a record: the words a person would search for. `None` for
/// records that are not memories (embeddings, introspection reports).
pub(crate) fn embedding_text(payload: &Payload) -> Option<String> {
    match payload {
        Payload::Kv(m) => Some(format!("{}: {}", m.key, m.value)),
        Payload::Journal(j) => Some(j.content.clone()),
        Payload::Persona(p) if p.themes.is_empty() => Some(format!("{}: {}", p.key, p.value)),
        Payload::Persona(p) => Some(format!("{}: {} ({})", p.key, p.value, p.themes.join(", "))),
        _ => None,
    }
}

/// A short, stable fingerprint of embedded text.
pub(crate) fn text_hash(text: &str) -> String {
    use nostr::hashes::{sha256, Hash};
    hex::encode(&sha256::Hash::hash(text.as_bytes()).to_byte_array()[..12])
}

/// The stored (decoded) form of a payload: the model type's own serialisation.
pub(crate) fn payload_json(payload: &Payload) -> Result<String> {
    Ok(match payload {
        Payload::Kv(m) => serde_json::to_string(m)?,
        Payload::Journal(j) => serde_json::to_string(j)?,
        Payload::Persona(p) => serde_json::to_string(p)?,
        Payload::Embed(e) => serde_json::to_string(e)?,
        Payload::Introspection(r) => serde_json::to_string(r)?,
        Payload::Insight(i) => serde_json::to_string(i)?,
        other => serde_json::to_string(&other.to_value(None))?,
    })
}
