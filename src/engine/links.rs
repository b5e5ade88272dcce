//! What consolidation's linking compared last: each persona memory's fingerprint (its
//! vector version, text and themes, hashed) as of the last cycle, the similar pairs that
//! cycle chose (by rid, similarity in thousandths) and the settings it compared with. The
//! next cycle compares only the memories whose fingerprint changed (`lifecycle::similar`).
//! Local to this device, like the learned edges; a purge drops the memory's rows.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::records::{meta_get, meta_set};
use crate::error::Result;

/// The settings the memo was made with: a memo of other settings is not used.
const SETTINGS: &str = "link_settings";

/// The last cycle's linking.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct LinkMemo {
    pub settings: Option<String>,
    pub fingerprints: crate::ids::IdMap<u64>,
    /// `(a, b, milli)`, `a < b` by rid.
    pub pairs: Vec<(i64, i64, i64)>,
}

/// The stored memo (empty before the first cycle that kept one).
pub(crate) fn load(conn: &Connection) -> Result<LinkMemo> {
    let settings = meta_get(conn, SETTINGS)?;
    let mut stmt = conn.prepare_cached("SELECT rid, fingerprint FROM link_memo")?;
    let fingerprints = stmt
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)? as u64)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached("SELECT a, b, milli FROM link_pairs")?;
    let pairs = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
    Ok(LinkMemo { settings, fingerprints, pairs })
}

/// Changes to the memo, written in bounded transactions ([`apply_part`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct MemoChanges {
    pub settings: String,
    pub fingerprints: Vec<(i64, u64)>,
    pub forgotten: Vec<i64>,
    pub pairs_added: Vec<(i64, i64, i64)>,
    pub pairs_removed: Vec<(i64, i64)>,
}

impl MemoChanges {
    /// Splits into parts of at most `rows` rows each, the settings alone in the last part,
    /// so a memo is only ever trusted once every part before it is written.
    pub fn split(self, rows: usize) -> Vec<MemoChanges> {
        let rows = rows.max(1);
        let part = MemoChanges::default;
        let mut parts: Vec<MemoChanges> = Vec::new();
        parts.extend(self.fingerprints.chunks(rows).map(|c| MemoChanges { fingerprints: c.to_vec(), ..part() }));
        parts.extend(self.forgotten.chunks(rows).map(|c| MemoChanges { forgotten: c.to_vec(), ..part() }));
        parts.extend(self.pairs_removed.chunks(rows).map(|c| MemoChanges { pairs_removed: c.to_vec(), ..part() }));
        parts.extend(self.pairs_added.chunks(rows).map(|c| MemoChanges { pairs_added: c.to_vec(), ..part() }));
        parts.push(MemoChanges { settings: self.settings, ..part() });
        parts
    }
}

/// Writes one part. A part without settings first clears them: until the last part is
/// in, the memo is incomplete, and a cycle that finds no settings compares everything.
pub(crate) fn apply_part(tx: &Transaction, part: &MemoChanges) -> Result<()> {
    if part.settings.is_empty() {
        tx.execute("DELETE FROM meta WHERE name = ?1", [SETTINGS])?;
    }
    let mut put = tx.prepare_cached("INSERT OR REPLACE INTO link_memo (rid, fingerprint) VALUES (?1, ?2)")?;
    for (rid, f) in &part.fingerprints {
        put.execute(params![rid, *f as i64])?;
    }
    for rid in &part.forgotten {
        forget(tx, *rid)?;
    }
    let mut drop = tx.prepare_cached("DELETE FROM link_pairs WHERE a = ?1 AND b = ?2")?;
    for (a, b) in &part.pairs_removed {
        drop.execute(params![a, b])?;
    }
    let mut add = tx.prepare_cached("INSERT OR REPLACE INTO link_pairs (a, b, milli) VALUES (?1, ?2, ?3)")?;
    for (a, b, milli) in &part.pairs_added {
        add.execute(params![a, b, milli])?;
    }
    if !part.settings.is_empty() {
        meta_set(tx, SETTINGS, &part.settings)?;
    }
    Ok(())
}

/// Makes the next cycle compare everything, until a memo is written again: the links
/// are about to change in a way the memo does not record (a day's decay).
pub(crate) fn distrust(tx: &Transaction) -> Result<()> {
    tx.execute("DELETE FROM meta WHERE name = ?1", [SETTINGS])?;
    Ok(())
}

/// Drops a memory from the memo (it is gone, or purged).
pub(crate) fn forget(conn: &Connection, rid: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM link_memo WHERE rid = ?1")?.execute([rid])?;
    conn.prepare_cached("DELETE FROM link_pairs WHERE a = ?1 OR b = ?1")?.execute([rid])?;
    Ok(())
}

/// Each persona memory's current vector version (`vid`): a new text or model gives a new
/// one. Read from the rid index alone, not the vectors.
pub(crate) fn vector_versions(conn: &Connection) -> Result<HashMap<i64, i64>> {
    let mut stmt = conn.prepare_cached("SELECT rid, vid FROM vectors")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The vectors of these rids, as stored.
pub(crate) fn vectors_of(conn: &Connection, rids: &[i64]) -> Result<HashMap<i64, Vec<f32>>> {
    let mut stmt = conn.prepare_cached("SELECT vec FROM vectors WHERE rid = ?1")?;
    let mut out = HashMap::with_capacity(rids.len());
    for rid in rids {
        let blob: Option<Vec<u8>> = stmt.query_row([rid], |r| r.get(0)).optional()?;
        if let Some(b) = blob {
            out.insert(*rid, crate::codec::from_blob(&b));
        }
    }
    Ok(out)
}
