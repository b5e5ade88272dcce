//! Typed reads and writes of rows: decoded records by kind, meta values, accesses,
//! exports and statistics. Every query the other modules need goes through here or
//! through [`super::refs`] and [`super::books`].

use std::collections::BTreeMap;

use nostr::{Event, JsonUtil};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::apply::Outcome;
use super::write::write_record;
use super::Engine;
use crate::codec::{DTagMode, Embedding, Path, Payload, RecordKind, PLAIN_PATH_SQL};
use crate::error::{Error, Result};
use crate::model::{IntrospectionReport, JournalEntry, Memory, PersonaMemory};

/// What an import did, event by event.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ImportReport {
    /// Events that changed the store.
    pub applied: u64,
    /// Concurrent edits merged into a new version (signed here, queued for relays).
    pub merged: u64,
    /// Events the store already held.
    pub duplicate: u64,
    /// Versions older than the one held.
    pub stale: u64,
    /// Events a deletion request covers.
    pub deleted: u64,
    /// Dated more than 15 minutes ahead of the system clock: kept aside, applied when their
    /// time comes (docs/sync.md).
    pub quarantined: u64,
    /// Refused events, per reason.
    pub rejected: BTreeMap<String, u64>,
}

impl ImportReport {
    pub(crate) fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Applied => self.applied += 1,
            Outcome::Merged => self.merged += 1,
            Outcome::Duplicate => self.duplicate += 1,
            Outcome::Stale => self.stale += 1,
            Outcome::Deleted => self.deleted += 1,
            Outcome::Rejected(r) => *self.rejected.entry(r.as_str().to_string()).or_default() += 1,
        }
    }

    /// Events that passed the checks, whatever applying them did (all but the rejected).
    pub fn accepted(&self) -> u64 {
        self.applied + self.merged + self.duplicate + self.stale + self.deleted + self.quarantined
    }

    /// Adds another report's counts to this one.
    pub fn absorb(&mut self, other: ImportReport) {
        self.applied += other.applied;
        self.merged += other.merged;
        self.duplicate += other.duplicate;
        self.stale += other.stale;
        self.deleted += other.deleted;
        self.quarantined += other.quarantined;
        for (k, v) in other.rejected {
            *self.rejected.entry(k).or_default() += v;
        }
    }

    /// Total refused.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.values().sum()
    }
}

/// What the store holds (see `memstr stats`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StoreStats {
    /// The database file.
    pub path: String,
    /// The store's public key (hex).
    pub public_key: String,
    /// `blinded` or `compatible`.
    pub d_tag_mode: String,
    /// `PRAGMA user_version`.
    pub schema_version: i64,
    /// Flat memories.
    pub kv: u64,
    /// Journal entries.
    pub journal: u64,
    /// Persona memories.
    pub persona: u64,
    /// Published embeddings.
    pub embed: u64,
    /// Introspection reports.
    pub introspection: u64,
    /// Records that were forgotten (kept as markers so old versions stay dead).
    pub deleted: u64,
    /// Signed events held.
    pub events: u64,
    /// Events not yet acknowledged by relays.
    pub outbox: u64,
    /// Persona memories read since their last signed update.
    pub unsigned_accesses: u64,
    /// Refused events, per reason, since the store was created.
    pub rejected: BTreeMap<String, u64>,
    /// Events waiting in the quarantine (dated too far ahead when they arrived).
    pub quarantined: u64,
    /// Blinded stores: events with a plain path in a tag (versions and deletions from a
    /// compatible past, or imported) that reached a relay (acknowledged, or served by
    /// one). Relays that have them keep them; this store no longer pushes them.
    pub plain_published: u64,
    /// Blinded stores: events with a plain path in a tag that no relay acknowledged.
    /// They are withheld from every relay (not counted in `outbox`).
    pub plain_withheld: u64,
}

/// The payload a stored row of `kind` decodes to.
pub(crate) fn payload_of(kind: RecordKind, json: &str) -> Result<Payload> {
    Ok(match kind {
        RecordKind::Kv => Payload::Kv(serde_json::from_str(json)?),
        RecordKind::Journal => Payload::Journal(serde_json::from_str(json)?),
        RecordKind::Persona => Payload::Persona(serde_json::from_str(json)?),
        RecordKind::Embed => Payload::Embed(serde_json::from_str(json)?),
        RecordKind::Introspection => Payload::Introspection(serde_json::from_str(json)?),
        RecordKind::Insight => Payload::Insight(serde_json::from_str(json)?),
    })
}

/// The decoded payload of the live record at `path`, if any.
pub(crate) fn payload_at(conn: &Connection, path: &Path) -> Result<Option<Payload>> {
    let json: Option<String> = conn
        .query_row("SELECT payload FROM records WHERE path = ?1 AND deleted = 0", [path.to_d()], |r| r.get(0))
        .optional()?
        .flatten();
    json.map(|j| payload_of(path.kind(), &j)).transpose()
}

/// Whether a live record with content is at `path`.
pub(crate) fn is_live(conn: &Connection, path: &Path) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL)",
        [path.to_d()],
        |r| r.get(0),
    )?)
}

/// Whether a live record with content has this path string (graph endpoints).
pub(crate) fn path_is_live(conn: &Connection, path: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL)",
    )?;
    Ok(stmt.query_row([path], |r| r.get::<_, bool>(0))?)
}

/// The rid of the live record at a path string.
pub(crate) fn rid_of(conn: &Connection, path: &str) -> Result<Option<i64>> {
    let mut stmt = conn.prepare_cached("SELECT rid FROM records WHERE path = ?1 AND deleted = 0")?;
    Ok(stmt.query_row([path], |r| r.get::<_, i64>(0)).optional()?)
}

/// Signs a new version of the record at `path`; returns the event id.
pub(crate) fn put(tx: &Transaction, engine: &Engine, path: &Path, payload: Payload) -> Result<String> {
    Ok(write_record(tx, engine, path, payload)?.id.to_hex())
}

/// Every flat memory, by key.
pub(crate) fn all_kv(conn: &Connection) -> Result<Vec<Memory>> {
    let mut stmt = conn.prepare("SELECT payload FROM records WHERE kind = ?1 AND deleted = 0 ORDER BY key")?;
    let rows = stmt.query_map([RecordKind::Kv], |r| r.get::<_, String>(0))?;
    rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
}

/// Appends a journal entry at `at`, never replacing one at the same instant (the
/// published client would): entries are addressed by their timestamp.
pub(crate) fn append_journal(tx: &Transaction, engine: &Engine, content: String, at: f64) -> Result<String> {
    Ok(append_entry(tx, engine, JournalEntry::new(&content, at))?.0)
}

/// [`append_journal`] for an entry with memstr's fields (an observation, a context);
/// returns the event id and the entry's path.
pub(crate) fn append_entry(tx: &Transaction, engine: &Engine, mut entry: JournalEntry) -> Result<(String, String)> {
    let mut ts = entry.created_at;
    while path_taken(tx, &Path::journal(ts))? {
        ts = f64::from_bits(ts.to_bits() + 1);
    }
    entry.created_at = ts;
    let path = Path::journal(ts);
    Ok((put(tx, engine, &path, Payload::Journal(entry))?, path.to_d()))
}

/// Whether `path` has a row: a record, or the marker of a deleted one.
pub(crate) fn path_taken(conn: &Connection, path: &Path) -> Result<bool> {
    Ok(conn.query_row("SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1)", [path.to_d()], |r| r.get(0))?)
}

/// The newest journal entries, newest first; archived entries are left out.
pub(crate) fn recent_journal(conn: &Connection, limit: usize) -> Result<Vec<JournalEntry>> {
    journal_dated(conn, f64::NEG_INFINITY, f64::INFINITY, limit)
}

/// The newest journal entries written in `[since, until)` (their own time), newest first.
pub(crate) fn journal_dated(conn: &Connection, since: f64, until: f64, limit: usize) -> Result<Vec<JournalEntry>> {
    let mut stmt = conn.prepare(
        "SELECT payload FROM records WHERE kind = ?1 AND deleted = 0 AND ts >= ?3 AND ts < ?4
         AND json_extract(payload, '$.archived_at') IS NULL ORDER BY ts DESC, path LIMIT ?2",
    )?;
    let (since, until) = (since.max(-1e18), until.min(1e18));
    let rows = stmt.query_map(params![RecordKind::Journal, limit as i64, since, until], |r| r.get::<_, String>(0))?;
    rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
}

/// The rows of `stmt` (rid, payload JSON), each payload decoded.
fn decoded<T: serde::de::DeserializeOwned>(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl rusqlite::Params,
) -> Result<Vec<(i64, T)>> {
    let rows = stmt.query_map(params, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (rid, json) = row?;
        Ok((rid, serde_json::from_str(&json)?))
    })
    .collect()
}

/// Journal entries after `after_rid`, at most `limit`, with their rids, oldest first.
pub(crate) fn journal_after(conn: &Connection, after_rid: i64, limit: usize) -> Result<Vec<(i64, JournalEntry)>> {
    let mut stmt = conn.prepare(
        "SELECT rid, payload FROM records WHERE kind = ?1 AND deleted = 0 AND payload IS NOT NULL AND rid > ?2
         ORDER BY rid LIMIT ?3",
    )?;
    decoded(&mut stmt, params![RecordKind::Journal, after_rid, limit as i64])
}

/// Journal entries matching the FTS5 expression `expr`, best first, at most `limit`.
pub(crate) fn journal_matching(conn: &Connection, expr: &str, limit: usize) -> Result<Vec<(i64, JournalEntry)>> {
    // The kind written in and a cast limit: bound as they are, SQLite would plan the
    // statement again on every call (docs/ARCHITECTURE.md, "Statements").
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.rid, r.payload FROM records_fts f JOIN records r ON r.rid = f.rowid
         WHERE records_fts MATCH ?1 AND r.kind IN ({}) AND r.deleted = 0 ORDER BY f.rank
         LIMIT CAST(?2 AS INTEGER)",
        super::kinds::sql_list(&[RecordKind::Journal])
    ))?;
    decoded(&mut stmt, params![super::fts::own(expr), limit as i64])
}

/// The UTC day of a record's time, as SQLite computes it.
const DAY_SQL: &str = "CAST(r.ts / 86400 AS INTEGER)";

/// Distinct days holding a journal entry; with `expr`, only entries matching it (FTS5).
pub(crate) fn journal_days(conn: &Connection, expr: Option<&str>) -> Result<u64> {
    let days: i64 = match expr {
        None => conn.query_row(
            &format!("SELECT count(DISTINCT {DAY_SQL}) FROM records r WHERE r.kind = ?1 AND r.deleted = 0"),
            [RecordKind::Journal],
            |r| r.get(0),
        )?,
        Some(expr) => conn
            .prepare_cached(&format!(
                "SELECT count(DISTINCT {DAY_SQL}) FROM records_fts f JOIN records r ON r.rid = f.rowid
                 WHERE records_fts MATCH ?1 AND r.kind = ?2 AND r.deleted = 0"
            ))?
            .query_row(params![super::fts::own(expr), RecordKind::Journal], |r| r.get(0))?,
    };
    Ok(days.max(0) as u64)
}

/// Journal entries timed within `[from, to]`, at most `limit` rids.
pub(crate) fn journal_between(conn: &Connection, from: f64, to: f64, limit: usize) -> Result<Vec<i64>> {
    // The kind written in, a cast limit: see journal_matching.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rid FROM records WHERE kind IN ({}) AND deleted = 0 AND ts BETWEEN ?1 AND ?2
         LIMIT CAST(?3 AS INTEGER)",
        super::kinds::sql_list(&[RecordKind::Journal])
    ))?;
    let rows = stmt.query_map(params![from, to, limit as i64], |r| r.get::<_, i64>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The embedding stored for memory `key`, if any.
pub(crate) fn stored_embedding(conn: &Connection, key: &str) -> Result<Option<Embedding>> {
    match payload_at(conn, &Path::Embed { key: key.to_string() })? {
        Some(Payload::Embed(e)) => Ok(Some(e)),
        _ => Ok(None),
    }
}

/// Stored introspection reports, newest first.
pub(crate) fn introspections(conn: &Connection, limit: usize) -> Result<Vec<IntrospectionReport>> {
    let mut stmt =
        conn.prepare("SELECT payload FROM records WHERE kind = ?1 AND deleted = 0 ORDER BY ts DESC LIMIT ?2")?;
    let rows = stmt.query_map(params![RecordKind::Introspection, limit as i64], |r| r.get::<_, String>(0))?;
    rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
}

/// Stored dream insights, by key.
pub(crate) fn insights(conn: &Connection) -> Result<Vec<crate::model::Insight>> {
    let mut stmt = conn.prepare("SELECT payload FROM records WHERE kind = ?1 AND deleted = 0 ORDER BY key")?;
    let rows = stmt.query_map([RecordKind::Insight], |r| r.get::<_, String>(0))?;
    rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
}

/// Live persona memories; each of `domain`, `facet`, `key` narrows when given.
///
/// Only the given parts go into the statement, and the kind is written literally: the
/// planner picks the partial index `records_persona` only when it sees the persona kind written into the statement
/// and `domain = ?` (a bound kind or `?2 IS NULL OR domain = ?2` hides both), and a bare
/// key goes through `records_key`. With those hidden, every persona write (which reads
/// its address first) scanned every persona row: 10k writes took 9 s at 5k memories and
/// 43 s at 10k.
pub(crate) fn persona(
    conn: &Connection,
    domain: Option<&str>,
    facet: Option<&str>,
    key: Option<&str>,
) -> Result<Vec<(i64, PersonaMemory)>> {
    let mut args: Vec<&dyn rusqlite::ToSql> = Vec::new();
    for v in [&domain, &facet, &key].into_iter().flatten() {
        args.push(v);
    }
    let sql = persona_sql(domain.is_some(), facet.is_some(), key.is_some());
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut out: Vec<(i64, PersonaMemory)> = decoded(&mut stmt, args.as_slice())?;
    if domain.is_none() {
        // Sorted here, not by SQLite: for the whole persona it built a temporary B-tree of
        // every row's payload (0.3 of 0.6 s at 116,000 memories). Byte order, as SQLite's.
        out.sort_unstable_by(|(_, a), (_, b)| (&a.domain, &a.facet, &a.key).cmp(&(&b.domain, &b.facet, &b.key)));
    }
    Ok(out)
}

/// [`persona`]'s statement for the parts given, numbered in the order domain, facet, key.
fn persona_sql(domain: bool, facet: bool, key: bool) -> String {
    let kind = super::kinds::sql_list(&[RecordKind::Persona]);
    // By address or within a domain: the partial index. By bare key: `+kind` keeps the
    // planner off `records_kind`, so `records_key` narrows to the key's few rows.
    let kind_term = if key && !domain { "+kind" } else { "kind" };
    let mut sql = format!("SELECT rid, payload FROM records WHERE {kind_term} = {kind} AND deleted = 0");
    let mut n = 0;
    for (column, given) in [("domain", domain), ("facet", facet), ("key", key)] {
        if given {
            n += 1;
            // `IN (?n)`: under `= ?n` and this ORDER BY, SQLite plans the statement again
            // on every call, a parse per persona write (docs/ARCHITECTURE.md, "Statements").
            sql.push_str(&format!(" AND {column} IN (?{n})"));
        }
    }
    // Within a domain the partial index gives the order for nothing.
    if domain {
        sql.push_str(" ORDER BY domain, facet, key");
    }
    sql
}

/// Every live persona memory, by address.
pub(crate) fn all_persona(conn: &Connection) -> Result<Vec<(i64, PersonaMemory)>> {
    persona(conn, None, None, None)
}

/// Finds one persona memory by `key` or `domain/facet/key`.
pub(crate) fn resolve_persona(conn: &Connection, reference: &str) -> Result<PersonaMemory> {
    let parts: Vec<&str> = reference.split('/').collect();
    let found = if let [domain, facet, key] = parts[..] {
        persona(conn, Some(domain), Some(facet), Some(key))?
    } else {
        crate::model::validate_key(reference)?;
        persona(conn, None, None, Some(reference))?
    };
    match found.len() {
        0 => Err(Error::NotFound(reference.to_string())),
        1 => Ok(found.into_iter().next().expect("one").1),
        _ => Err(Error::Ambiguous {
            key: reference.to_string(),
            candidates: found.iter().map(|(_, m)| m.address()).collect(),
        }),
    }
}

/// Whether a persona memory is stored at this address (live or not).
pub(crate) fn persona_exists(conn: &Connection, domain: &str, facet: &str, key: &str) -> Result<bool> {
    // The kind written literally, so the partial index `records_persona` serves it.
    let kind = super::kinds::sql_list(&[RecordKind::Persona]);
    Ok(conn.query_row(
        &format!(
            "SELECT EXISTS(SELECT 1 FROM records WHERE kind = {kind} AND domain = ?1 AND facet = ?2 AND key = ?3)"
        ),
        params![domain, facet, key],
        |row| row.get(0),
    )?)
}

/// Domains in use, sorted.
pub(crate) fn persona_domains(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT domain FROM records WHERE kind = ?1 AND deleted = 0 ORDER BY domain")?;
    let rows = stmt.query_map([RecordKind::Persona], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Facets in use within `domain`, sorted.
pub(crate) fn persona_facets(conn: &Connection, domain: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare("SELECT DISTINCT facet FROM records WHERE kind = ?1 AND deleted = 0 AND domain = ?2 ORDER BY facet")?;
    let rows = stmt.query_map(params![RecordKind::Persona, domain], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Stored vectors of live persona memories `(rid, key, vector)`; with a facet, of that
/// `domain`/`facet` only; by address.
pub(crate) fn persona_vectors(conn: &Connection, facet: Option<(&str, &str)>) -> Result<Vec<(i64, String, Vec<f32>)>> {
    let (domain, facet) = facet.unzip();
    let mut stmt = conn.prepare(
        "SELECT r.rid, r.key, v.vec FROM vectors v JOIN records r ON r.rid = v.rid
         WHERE r.kind = ?1 AND r.deleted = 0 AND (?2 IS NULL OR (r.domain = ?2 AND r.facet = ?3))
         ORDER BY r.domain, r.facet, r.key",
    )?;
    let rows = stmt.query_map(params![RecordKind::Persona, domain, facet], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
    })?;
    rows.map(|row| row.map(|(rid, k, b)| (rid, k, crate::codec::from_blob(&b))).map_err(Error::from)).collect()
}

/// A live record as the graph and search see it: kind, path, key, time, and the
/// persona memory when it is one.
pub(crate) struct MemoryRow {
    pub kind: RecordKind,
    pub path: String,
    pub key: String,
    pub ts: f64,
    pub persona: Option<PersonaMemory>,
    /// The episode an observation belongs to, with its trajectory; an episode's record
    /// names its own, without one.
    pub episode: Option<(String, Option<u32>)>,
}

/// Every live memory (flat, journal, persona).
pub(crate) fn memory_rows(conn: &Connection) -> Result<Vec<MemoryRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT kind, path, coalesce(key, ''), coalesce(ts, 0), CASE WHEN kind = ?1 THEN payload END,
                coalesce(json_extract(payload, '$.observed.episode'), json_extract(payload, '$.episode.id')),
                json_extract(payload, '$.observed.trajectory')
         FROM records WHERE deleted = 0 AND payload IS NOT NULL AND kind IN ({})",
        super::kinds::sql_list(&RecordKind::MEMORIES)
    ))?;
    let rows = stmt.query_map([RecordKind::Persona], |r| {
        let episode = r.get::<_, Option<String>>(5)?.map(|id| (id, r.get::<_, Option<u32>>(6).ok().flatten()));
        Ok((r.get::<_, RecordKind>(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get::<_, Option<String>>(4)?, episode))
    })?;
    rows.map(|row| {
        let (kind, path, key, ts, payload, episode) = row?;
        let persona = payload.map(|j| serde_json::from_str(&j)).transpose()?;
        Ok(MemoryRow { kind, path, key, ts, persona, episode })
    })
    .collect()
}

/// A meta value.
pub(crate) fn meta_get(conn: &Connection, name: &str) -> Result<Option<String>> {
    Ok(conn.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| r.get(0)).optional()?)
}

/// Sets a meta value.
pub(crate) fn meta_set(tx: &Transaction, name: &str, value: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2",
        params![name, value],
    )?;
    Ok(())
}

/// A live record read for an access: rid, kind, payload.
pub(crate) fn live_row(conn: &Connection, path: &str) -> Result<Option<(i64, RecordKind, String)>> {
    Ok(conn
        .query_row(
            "SELECT rid, kind, payload FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL",
            [path],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?)
}

/// Stores a record's payload as changed locally (an access, a revival), unsigned: the
/// next batch of accesses signs it.
pub(crate) fn mark_accessed(tx: &Transaction, rid: i64, json: &str) -> Result<()> {
    tx.execute(
        "UPDATE records SET payload = ?1, dirty = 1, dirty_at = coalesce(dirty_at, unixepoch()) WHERE rid = ?2",
        params![json, rid],
    )?;
    Ok(())
}

/// Whether a batch of unsigned accesses is due: `count` memories hold some, or the oldest
/// is `after` seconds old.
pub(crate) fn accesses_due(conn: &Connection, after: i64, count: u64) -> Result<bool> {
    let (n, oldest): (i64, Option<i64>) =
        conn.query_row("SELECT count(*), min(dirty_at) FROM records WHERE dirty = 1 AND deleted = 0", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let now = crate::clock::system_secs();
    Ok(n > 0 && (n as u64 >= count || oldest.is_none_or(|t| now.saturating_sub(t) >= after)))
}

/// Records holding unsigned local changes: kind, path, payload.
pub(crate) fn dirty_rows(tx: &Transaction) -> Result<Vec<(RecordKind, String, String)>> {
    let rows = tx
        .prepare("SELECT kind, path, payload FROM records WHERE dirty = 1 AND deleted = 0 AND payload IS NOT NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Every event held, oldest first.
pub(crate) fn all_events(conn: &Connection) -> Result<Vec<Event>> {
    let mut stmt = conn.prepare("SELECT json FROM events ORDER BY created_at, id")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    rows.map(|j| Event::from_json(j?).map_err(|e| Error::Crypto(crate::Cause::from("stored event", e)))).collect()
}

/// Ids of events waiting for relays, oldest first.
pub(crate) fn outbox(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT event_id FROM outbox ORDER BY queued_at, event_id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Events in the quarantine.
pub(crate) fn quarantined(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row("SELECT count(*) FROM quarantine", [], |r| r.get::<_, i64>(0))? as u64)
}

/// Counts of what the store holds.
pub(crate) fn stats(conn: &Connection, engine: &Engine) -> Result<StoreStats> {
    let count =
        |sql: &str| -> rusqlite::Result<u64> { conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64) };
    let per_kind = |kind: RecordKind| -> rusqlite::Result<u64> {
        conn.query_row("SELECT count(*) FROM records WHERE kind = ?1 AND deleted = 0", [kind], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    };
    let codec = engine.codec();
    let blinded = codec.mode() == DTagMode::Blinded;
    // Never out of this store: queued, and acknowledged by no relay.
    let withheld = "EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.id) \
                    AND NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id)";
    let mut rejected = BTreeMap::new();
    let mut stmt = conn.prepare("SELECT reason, count FROM rejections ORDER BY reason")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (k, v) = row?;
        rejected.insert(k, v as u64);
    }
    Ok(StoreStats {
        path: engine.path().display().to_string(),
        public_key: codec.public_key().to_hex(),
        d_tag_mode: codec.mode().as_str().to_string(),
        schema_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
        kv: per_kind(RecordKind::Kv)?,
        journal: per_kind(RecordKind::Journal)?,
        persona: per_kind(RecordKind::Persona)?,
        embed: per_kind(RecordKind::Embed)?,
        introspection: per_kind(RecordKind::Introspection)?,
        deleted: count("SELECT count(*) FROM records WHERE deleted = 1")?,
        events: count("SELECT count(*) FROM events")?,
        // Events some relay has not acknowledged, counted as the push counts them (so
        // `status` agrees with `relay list`); with no relay yet, the queue written here.
        outbox: {
            let pushable = if blinded { format!("NOT {PLAIN_PATH_SQL}") } else { "1".to_string() };
            count(&format!(
                "SELECT CASE WHEN EXISTS (SELECT 1 FROM relays)
                    THEN (SELECT count(*) FROM events e WHERE {pushable} AND EXISTS (SELECT 1 FROM relays r
                          WHERE NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id AND a.relay = r.url)))
                    ELSE (SELECT count(*) FROM outbox o JOIN events e ON e.id = o.event_id WHERE {pushable}) END"
            ))?
        },
        unsigned_accesses: count("SELECT count(*) FROM records WHERE dirty = 1")?,
        rejected,
        quarantined: count("SELECT count(*) FROM quarantine")?,
        plain_published: if blinded {
            count(&format!("SELECT count(*) FROM events e WHERE {PLAIN_PATH_SQL} AND NOT ({withheld})"))?
        } else {
            0
        },
        plain_withheld: if blinded {
            count(&format!("SELECT count(*) FROM events e WHERE {PLAIN_PATH_SQL} AND {withheld}"))?
        } else {
            0
        },
    })
}

/// Live persona memories written (`created_at`) within `[from, to]`, the nearest to `at`
/// first, at most `limit`: the memories an importance event may capture.
pub(crate) fn persona_written_between(
    conn: &Connection,
    from: f64,
    to: f64,
    at: f64,
    limit: usize,
) -> Result<Vec<(i64, PersonaMemory)>> {
    // The kind written in, a cast limit: see journal_matching.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rid, payload FROM records WHERE kind IN ({}) AND deleted = 0 AND ts BETWEEN ?1 AND ?2
         ORDER BY abs(ts - ?3), path LIMIT CAST(?4 AS INTEGER)",
        super::kinds::sql_list(&[RecordKind::Persona])
    ))?;
    decoded(&mut stmt, params![from, to, at, limit as i64])
}

/// The stored vector of record `rid`, if it has one.
pub(crate) fn vector_of(conn: &Connection, rid: i64) -> Result<Option<Vec<f32>>> {
    let blob: Option<Vec<u8>> =
        conn.query_row("SELECT vec FROM vectors WHERE rid = ?1", [rid], |r| r.get(0)).optional()?;
    Ok(blob.map(|b| crate::codec::from_blob(&b)))
}

/// The live persona memory of row `rid`, if it is one.
pub(crate) fn persona_at_rid(conn: &Connection, rid: i64) -> Result<Option<PersonaMemory>> {
    let json: Option<String> = conn
        .query_row(
            "SELECT payload FROM records WHERE rid = ?1 AND kind = ?2 AND deleted = 0 AND payload IS NOT NULL",
            params![rid, RecordKind::Persona],
            |r| r.get(0),
        )
        .optional()?;
    Ok(json.map(|j| serde_json::from_str(&j)).transpose()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the planner does with [`persona_sql`]'s statement for these parts.
    fn plan(domain: bool, facet: bool, key: bool) -> String {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap().unwrap();
        let n = [domain, facet, key].iter().filter(|g| **g).count();
        let args: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {}", persona_sql(domain, facet, key))).unwrap();
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| r.get::<_, String>(3)).unwrap();
        rows.map(|r| r.unwrap()).collect::<Vec<_>>().join("; ")
    }

    #[test]
    fn persona_lookups_by_address_domain_or_key_use_an_index_not_every_persona_row() {
        assert!(
            plan(true, true, true).contains("records_persona (domain=? AND facet=? AND key=?)"),
            "{}",
            plan(true, true, true)
        );
        assert!(plan(true, false, false).contains("records_persona (domain=?)"), "{}", plan(true, false, false));
        assert!(
            plan(true, true, false).contains("records_persona (domain=? AND facet=?)"),
            "{}",
            plan(true, true, false)
        );
        assert!(plan(false, false, true).contains("records_key (key=?)"), "{}", plan(false, false, true));
    }
}
