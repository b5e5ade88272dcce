//! The reads episodes make (docs/lifecycle.md, "Episodes and trajectories"): episode
//! records (flat memories at `memstr-episode:{id}`), an episode's observations (journal
//! entries whose payload names it), trajectory summaries.

use rusqlite::{params, Connection};

use super::records::put;
use super::Engine;
use crate::codec::{Path, Payload, RecordKind};
use crate::error::Result;
use crate::model::episode::{episode_key, EPISODE_KEY_PREFIX};
use crate::model::{Episode, JournalEntry, Memory};

/// The live flat memories whose key starts with `prefix` (which ends in `:`), by key: a
/// range of the key index, so asking costs nothing when there are none (the MCP tools ask
/// on every write, for the open episode's context).
fn kv_with_prefix(conn: &Connection, prefix: &str) -> Result<Vec<Memory>> {
    debug_assert!(prefix.ends_with(':'));
    let end = format!("{};", &prefix[..prefix.len() - 1]);
    let mut stmt = conn.prepare_cached(
        "SELECT payload FROM records WHERE key >= ?2 AND key < ?3 AND kind = ?1 AND deleted = 0
           AND payload IS NOT NULL ORDER BY key",
    )?;
    let rows = stmt.query_map(params![RecordKind::Kv, prefix, end], |r| r.get::<_, String>(0))?;
    rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
}

/// Every episode whose record is live, oldest first.
pub(crate) fn episodes(conn: &Connection) -> Result<Vec<Episode>> {
    let mut out: Vec<Episode> =
        kv_with_prefix(conn, EPISODE_KEY_PREFIX)?.into_iter().filter_map(|m| m.episode).collect();
    out.sort_by(|a, b| a.started_at.total_cmp(&b.started_at).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// The episode `id`, if its record is live.
pub(crate) fn episode(conn: &Connection, id: &str) -> Result<Option<Episode>> {
    Ok(match super::records::payload_at(conn, &Path::Kv { key: episode_key(id) })? {
        Some(Payload::Kv(m)) => m.episode,
        _ => None,
    })
}

/// Writes episode `e`'s record (a new version when it changes).
pub(crate) fn put_episode(tx: &rusqlite::Transaction, engine: &Engine, e: &Episode, at: f64) -> Result<String> {
    let mut m = Memory::new(&e.key(), &e.text(), at);
    m.episode = Some(e.clone());
    put(tx, engine, &Path::Kv { key: e.key() }, Payload::Kv(m))
}

/// Episode `id`'s live observations, in time order, with their paths.
pub(crate) fn observations(conn: &Connection, id: &str) -> Result<Vec<(String, JournalEntry)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT path, payload FROM records WHERE kind = ?1 AND deleted = 0 AND payload IS NOT NULL
           AND json_extract(payload, '$.observed.episode') = ?2 ORDER BY ts, rid",
    )?;
    let rows =
        stmt.query_map(params![RecordKind::Journal, id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (path, json) = row?;
        Ok((path, serde_json::from_str(&json)?))
    })
    .collect()
}
