//! The three ways out of memory, for every kind of record (docs/lifecycle.md, "Archive,
//! forget, purge"): **archive** (out of search and context, kept everywhere, back with
//! `restore`), **forget** (a tombstone and a NIP-09 deletion, as the published client's
//! forget), and **purge** (forget, then wipe what is left of it on this device).
//!
//! Every verb takes a *reference*, resolved in one place ([`resolve`]): a memory's address
//! (`domain/facet/key`, `kv/{key}`, `journal/{ts}`), its plain d tag (`sense-memory/...`,
//! `sense-journal/...`), or a bare key. A bare key that names several memories is
//! [`Error::Ambiguous`] with their addresses: no verb ever guesses.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::persona::{resolve as resolve_persona, save_with};
use super::{write_record, Inner, MemoryStore};
use crate::codec::{Path, Payload};
use crate::error::{Error, Result};
use crate::model::{validate_key, JournalEntry, Memory, PersonaMemory};

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

/// The address of a record at `path`: `domain/facet/key`, `kv/{key}` or `journal/{ts}`.
pub fn address_of(path: &Path) -> String {
    match path {
        Path::Kv { key } => format!("kv/{key}"),
        Path::Journal { text, .. } => format!("journal/{text}"),
        Path::Persona { domain, facet, key } => format!("{domain}/{facet}/{key}"),
        other => other.to_d(),
    }
}

fn kind_name(path: &Path) -> &'static str {
    match path {
        Path::Kv { .. } => "kv",
        Path::Journal { .. } | Path::Kind4 { .. } => "journal",
        Path::Persona { .. } => "persona",
        Path::Embed { .. } => "embed",
        Path::Introspection { .. } => "introspection",
    }
}

fn live(conn: &Connection, path: &Path) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL)",
        [path.to_d()],
        |r| r.get(0),
    )?)
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
    let mut stmt = conn.prepare_cached(
        "SELECT domain, facet FROM records WHERE kind = 'persona' AND deleted = 0 AND key = ?1 ORDER BY domain, facet",
    )?;
    let rows = stmt.query_map([reference], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (domain, facet) = row?;
        found.push(Path::Persona { domain, facet, key: reference.to_string() });
    }
    match found.len() {
        0 if absent_flat_key => Ok(flat),
        0 => Err(not_found(reference)),
        1 => Ok(found.pop().expect("one")),
        _ => Err(Error::Ambiguous { key: reference.to_string(), candidates: found.iter().map(address_of).collect() }),
    }
}

/// The stored payload at `path` (live records only).
fn load(conn: &Connection, path: &Path) -> Result<Payload> {
    let json: String = conn
        .query_row("SELECT payload FROM records WHERE path = ?1 AND deleted = 0", [path.to_d()], |r| r.get(0))
        .optional()?
        .ok_or_else(|| not_found(&address_of(path)))?;
    Ok(match path {
        Path::Kv { .. } => Payload::Kv(serde_json::from_str::<Memory>(&json)?),
        Path::Journal { .. } | Path::Kind4 { .. } => Payload::Journal(serde_json::from_str::<JournalEntry>(&json)?),
        Path::Persona { .. } => Payload::Persona(serde_json::from_str::<PersonaMemory>(&json)?),
        _ => return Err(not_found(&address_of(path))),
    })
}

/// Whether a persona memory may be archived by the lifecycle: never a pinned memory, never
/// a keyed fact (seed 002: the current value of a fact stays until it is set again).
pub(crate) fn archivable(m: &PersonaMemory) -> bool {
    !m.sync.life.pinned && !is_keyed_fact(m)
}

/// A keyed fact's memory (`domain/facts/{subject}:{attribute}`, written by `fact_set`).
pub(crate) fn is_keyed_fact(m: &PersonaMemory) -> bool {
    m.facet == "facts" && m.key.contains(':')
}

/// Sets (`Some`) or clears (`None`) the archive mark of the record at `path` and signs the
/// new version; `user_edit` is false when the lifecycle archives. Unchanged: nothing signed.
pub(crate) fn set_archived(
    tx: &Transaction,
    inner: &Inner,
    path: &Path,
    at: Option<f64>,
    user_edit: bool,
) -> Result<bool> {
    let now = inner.clock.now();
    match load(tx, path)? {
        Payload::Persona(before) => {
            if before.sync.life.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            let mut m = before.clone();
            m.sync.life.archived_at = at;
            if at.is_none() {
                // Restored memories come back alive: an access now, as recall would count.
                super::persona::record_access(inner, &mut m, now);
            }
            save_with(tx, inner, Some(&before), m, user_edit)?;
        }
        Payload::Kv(mut m) => {
            if m.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            m.archived_at = at;
            write_record(tx, inner, path, Payload::Kv(m))?;
        }
        Payload::Journal(mut j) => {
            if j.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            j.archived_at = at;
            write_record(tx, inner, path, Payload::Journal(j))?;
        }
        _ => return Err(not_found(&address_of(path))),
    }
    Ok(true)
}

/// Wipes what a forgotten record left on this device: its learned graph edges, its
/// published embedding, and its address in the row that keeps older copies dead (the
/// deletion's d tag does that job). The vector point is blanked by the caller, which
/// holds the index; freed pages are overwritten because the purge runs with
/// `secure_delete` on, and FTS5's own `secure-delete` drops the terms from its segments.
fn wipe_remnants(tx: &Transaction, inner: &Inner, path: &Path) -> Result<Option<i64>> {
    let p = path.to_d();
    tx.execute("DELETE FROM edges WHERE a = ?1 OR b = ?1", [&p])?;
    let rid: Option<i64> = tx.query_row("SELECT rid FROM records WHERE path = ?1", [&p], |r| r.get(0)).optional()?;
    if let Path::Kv { key } | Path::Persona { key, .. } = path {
        let embed = Path::Embed { key: key.clone() };
        if live(tx, &embed)? && !key_used_elsewhere(tx, key, path)? {
            super::v1::forget_path(tx, inner, &embed)?;
        }
    }
    if let Some(rid) = rid {
        tx.execute("DELETE FROM vectors WHERE rid = ?1", [rid])?;
        tx.execute("DELETE FROM records_fts WHERE rowid = ?1", [rid])?;
        tx.execute(
            "UPDATE records SET path = 'purged:' || d_tag || ':' || rid, domain = NULL, facet = NULL, key = NULL,
                 payload = NULL, text_hash = NULL, needs_vec = 0, dirty = 0 WHERE rid = ?1",
            [rid],
        )?;
    }
    Ok(rid)
}

/// Whether another live memory shares `key` (an embedding event is addressed by key alone).
fn key_used_elsewhere(tx: &Transaction, key: &str, except: &Path) -> Result<bool> {
    Ok(tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM records WHERE key = ?1 AND deleted = 0 AND kind IN ('kv', 'persona') AND path != ?2)",
        params![key, except.to_d()],
        |r| r.get(0),
    )?)
}

impl MemoryStore {
    /// The memory `reference` names: an address (`domain/facet/key`, `kv/{key}`,
    /// `journal/{ts}`), a plain d tag, or a bare key (flat or persona). A bare key naming
    /// several memories is [`Error::Ambiguous`], listing their addresses.
    pub async fn resolve(&self, reference: &str) -> Result<Resolved> {
        let reference = reference.to_string();
        let path = self.read(move |conn, _| resolve(conn, &reference, false)).await?;
        Ok(Resolved { address: address_of(&path), path: path.to_d(), kind: kind_name(&path) })
    }

    /// Archives a memory of any kind: out of search and context, kept locally and on relays
    /// (a new encrypted version carries the mark), back with [`MemoryStore::restore`] or
    /// when a search matches it strongly. Returns its address. Archiving an archived
    /// memory changes nothing.
    pub async fn archive(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        self.write(move |tx, inner| {
            let path = resolve(tx, &reference, false)?;
            set_archived(tx, inner, &path, Some(inner.clock.now()), true)?;
            Ok(address_of(&path))
        })
        .await
    }

    /// Brings an archived memory back into search and context (counting an access, so it
    /// starts alive). Returns its address; restoring a memory that is not archived changes
    /// nothing.
    pub async fn restore(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        self.write(move |tx, inner| {
            let path = resolve(tx, &reference, false)?;
            set_archived(tx, inner, &path, None, true)?;
            Ok(address_of(&path))
        })
        .await
    }

    /// Forgets a memory of any kind everywhere: a tombstone replaces it and a NIP-09
    /// deletion asks relays to drop it; it leaves search at once. `reference` is a flat
    /// key (the published client's `forget`), an address, or a d tag; a bare key naming
    /// several memories is [`Error::Ambiguous`]. A flat key this device has never seen is
    /// still forgotten (relays may hold it). Returns the deletion's event id.
    pub async fn forget(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        self.write(move |tx, inner| {
            let path = resolve(tx, &reference, true)?;
            super::v1::forget_path(tx, inner, &path)
        })
        .await
    }

    /// Forgets a memory ([`MemoryStore::forget`]) and wipes its local remnants: the
    /// full-text rows (FTS5 secure-delete), its vector (the row, and the point in the
    /// index, blanked and saved), its learned graph edges, its published embedding, its
    /// address, and the freed database pages (SQLite `secure_delete`, then a WAL
    /// checkpoint that truncates the log). Returns the deletion's event id.
    pub async fn purge(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        let (id, rid) = self
            .write(move |tx, inner| {
                tx.execute_batch(
                    "PRAGMA secure_delete = ON; INSERT INTO records_fts(records_fts, rank) VALUES('secure-delete', 1);",
                )?;
                let path = resolve(tx, &reference, false)?;
                let id = super::v1::forget_path(tx, inner, &path)?;
                // The tombstone kept the record's row: its rid names the vector points.
                let rid = wipe_remnants(tx, inner, &path)?;
                tx.execute_batch("INSERT INTO records_fts(records_fts, rank) VALUES('secure-delete', 0);")?;
                Ok((id, rid))
            })
            .await?;
        #[cfg(feature = "vectors")]
        if let (Some(rid), Some(v)) = (rid, self.inner.vectors.clone()) {
            let blanked = tokio::task::spawn_blocking(move || -> Result<bool> {
                let index = v.index()?;
                let blanked = index.write().map_err(|_| Error::Task("vector index poisoned".into()))?.blank(rid);
                if blanked > 0 {
                    v.save()?;
                }
                Ok(blanked > 0)
            })
            .await
            .map_err(|e| Error::Task(e.to_string()))??;
            tracing::debug!("purge: vector points blanked: {blanked}");
        }
        #[cfg(not(feature = "vectors"))]
        let _ = rid;
        self.read(|conn, _| {
            conn.execute_batch("PRAGMA secure_delete = OFF;")?;
            // Copy every frame into the database and empty the log: the WAL would otherwise
            // keep earlier images of the purged pages until its next reset.
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            Ok(())
        })
        .await?;
        Ok(id)
    }
}
