//! References to memories, resolved in one place, and the wipe of what a purged memory
//! leaves on this device (docs/lifecycle.md, "Archive, forget, purge").
//!
//! Every verb takes a *reference*, resolved in one place ([`resolve`]): a memory's address
//! (`domain/facet/key`, `kv/{key}`, `journal/{ts}`), its plain d tag (`sense-memory/...`,
//! `sense-journal/...`), or a bare key. A bare key that names several memories is
//! [`Error::Ambiguous`] with their addresses: no verb ever guesses.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::records::{is_live as live, resolve_persona};
use super::Engine;
use crate::codec::{Path, RecordKind};
use crate::error::{Error, Result};
use crate::model::validate_key;

/// A memory a reference named.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Resolved {
    /// Its address: `domain/facet/key`, `kv/{key}` or `journal/{ts}`.
    pub address: String,
    /// Its plain d tag (`sense-memory/...`).
    pub path: String,
    /// `persona`, `kv` or `journal`.
    pub kind: &'static str,
}

impl Resolved {
    /// What a resolved path is called.
    pub(crate) fn of(path: &Path) -> Resolved {
        Resolved { address: address_of(path), path: path.to_d(), kind: path.kind().as_str() }
    }
}

/// The address of a record at `path`: `domain/facet/key`, `kv/{key}` or `journal/{ts}`.
pub fn address_of(path: &Path) -> String {
    match path {
        Path::Kv { key } => format!("kv/{key}"),
        Path::Journal { text, .. } => format!("journal/{text}"),
        Path::Persona { domain, facet, key } => format!("{domain}/{facet}/{key}"),
        other => other.to_d(),
    }
}

fn not_found(reference: &str) -> Error {
    Error::NotFound(reference.to_string())
}

/// Resolves `reference` to the one live memory it names. With `absent_flat_key`, a bare
/// key that names nothing here resolves to the flat key anyway: the published client's
/// `forget(key)` deletes a key this device may never have seen (it is on relays).
pub(crate) fn resolve(conn: &Connection, reference: &str, absent_flat_key: bool) -> Result<Path> {
    let reference = reference.trim();
    if reference.is_empty() {
        return Err(not_found(reference));
    }
    let explicit = if reference.starts_with("sense-memory/") || reference.starts_with("sense-journal/") {
        Some(Path::parse(reference).map_err(|_| not_found(reference))?)
    } else if let Some(key) = reference.strip_prefix("kv/") {
        validate_key(key)?;
        Some(Path::Kv { key: key.to_string() })
    } else if let Some(ts) = reference.strip_prefix("journal/") {
        Some(Path::parse(&format!("sense-journal/{ts}")).map_err(|_| not_found(reference))?)
    } else {
        None
    };
    if let Some(path) = explicit {
        if !matches!(path, Path::Kv { .. } | Path::Journal { .. } | Path::Persona { .. }) {
            return Err(not_found(reference));
        }
        if live(conn, &path)? || (absent_flat_key && matches!(path, Path::Kv { .. })) {
            return Ok(path);
        }
        return Err(not_found(reference));
    }
    if reference.contains('/') {
        let m = resolve_persona(conn, reference)?;
        return Ok(Path::Persona { domain: m.domain, facet: m.facet, key: m.key });
    }
    validate_key(reference)?;
    let mut found: Vec<Path> = Vec::new();
    let flat = Path::Kv { key: reference.to_string() };
    if live(conn, &flat)? {
        found.push(flat.clone());
    }
    for (_, m) in super::records::persona(conn, None, None, Some(reference))? {
        found.push(Path::Persona { domain: m.domain, facet: m.facet, key: m.key });
    }
    match found.len() {
        0 if absent_flat_key => Ok(flat),
        0 => Err(not_found(reference)),
        1 => Ok(found.pop().expect("one")),
        _ => Err(Error::Ambiguous { key: reference.to_string(), candidates: found.iter().map(address_of).collect() }),
    }
}

/// Wipes what a forgotten record left on this device: its learned graph edges, its
/// published embedding, and its address in the row that keeps older copies dead (the
/// deletion's d tag does that job). The vector point is blanked by the caller, which
/// holds the index; freed pages and older versions are wiped by [`after_purge`].
pub(crate) fn wipe_remnants(tx: &Transaction, engine: &Engine, path: &Path) -> Result<Option<i64>> {
    let p = path.to_d();
    tx.execute("DELETE FROM edges WHERE a = ?1 OR b = ?1", [&p])?;
    if let Path::Kv { key } | Path::Persona { key, .. } = path {
        let embed = Path::Embed { key: key.clone() };
        if !key_used_elsewhere(tx, key, path)? {
            if live(tx, &embed)? {
                super::write::forget_path(tx, engine, &embed)?;
            }
            // The embedding's tombstone is addressed by the key too.
            anonymize(tx, &embed.to_d())?;
        }
    }
    anonymize(tx, &p)
}

/// Drops what names or holds the text of the record at `path`: its full-text row, its
/// vector, and its path, domain, facet, key and payload. The row stays, under its d tag
/// (blinded by default), so older copies of the record arriving later are still dead.
fn anonymize(tx: &Transaction, path: &str) -> Result<Option<i64>> {
    let rid: Option<i64> = tx.query_row("SELECT rid FROM records WHERE path = ?1", [path], |r| r.get(0)).optional()?;
    if let Some(rid) = rid {
        // Its words must not live on in its neighbours' episode context.
        let neighbours = super::episodes::around(tx, rid)?;
        tx.execute("DELETE FROM vectors WHERE rid = ?1", [rid])?;
        super::links::forget(tx, rid)?;
        tx.execute("DELETE FROM records_fts WHERE rowid = ?1", [rid])?;
        super::doc_sizes::changed(tx, rid)?;
        tx.execute(
            "UPDATE records SET path = 'purged:' || d_tag || ':' || rid, domain = NULL, facet = NULL, key = NULL,
                 payload = NULL, text_hash = NULL, needs_vec = ?2, dirty = 0 WHERE rid = ?1",
            params![rid, super::vectors::VecState::Current],
        )?;
        super::episodes::refresh(tx, &neighbours)?;
    }
    Ok(rid)
}

/// Whether another live memory shares `key` (an embedding event is addressed by key alone).
fn key_used_elsewhere(tx: &Transaction, key: &str, except: &Path) -> Result<bool> {
    Ok(tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM records WHERE key = ?1 AND deleted = 0 AND kind IN (?3, ?4) AND path != ?2)",
        params![key, except.to_d(), RecordKind::Kv, RecordKind::Persona],
        |r| r.get(0),
    )?)
}

/// Forgets the memory `reference` names and wipes its remnants on this device (the
/// database side of a purge: FTS5 and SQLite secure-delete on for the transaction).
/// Returns the deletion's event id and the record's rid, which names its vector points.
pub(crate) fn purge(tx: &Transaction, engine: &Engine, reference: &str) -> Result<(String, Option<i64>)> {
    tx.execute_batch(
        "PRAGMA secure_delete = ON; INSERT INTO records_fts(records_fts, rank) VALUES('secure-delete', 1);",
    )?;
    let path = resolve(tx, reference, false)?;
    let id = super::write::forget_path(tx, engine, &path)?;
    // The tombstone kept the record's row: its rid names the vector points.
    let rid = wipe_remnants(tx, engine, &path)?;
    Ok((id, rid))
}

/// After a purge, what older versions left: an edit, an archive, `memstr index` or a
/// newer version from a relay rewrote the record's row and its full-text terms, and the
/// old bytes stay in free pages and in older FTS5 segments (which keep terms
/// prefix-compressed; a secure delete drops a row's entries but may keep the term itself).
/// So the full-text index is rebuilt from the rows that remain, the database is rewritten
/// without free space (`VACUUM`), and
/// every WAL frame is copied into the database and the log emptied. The cost is a full
/// rewrite of the file: a purge is rare and explicit (docs/lifecycle.md gives the figure).
/// On the writer connection, outside any transaction.
pub(crate) fn after_purge(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT INTO records_fts(records_fts, rank) VALUES('secure-delete', 0);
         INSERT INTO records_fts(records_fts) VALUES('rebuild');
         INSERT INTO fts_writes (rid) VALUES (0);
         PRAGMA secure_delete = OFF;
         VACUUM;",
    )?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    Ok(())
}
