//! The knowledge graph's learned edges as stored (table `edges`, local to this store):
//! reads by endpoint and kind, the day's decay and prune, and writes that never bring back
//! an edge of a purged memory.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::records::path_is_live;
use crate::error::Result;

/// A learned graph edge as stored: endpoints, kind name, weight, creation time.
pub(crate) type EdgeRow = (String, String, String, f64, f64);

/// Every stored edge, in order.
pub(crate) fn edges(conn: &Connection) -> Result<Vec<EdgeRow>> {
    let mut stmt = conn.prepare("SELECT a, b, kind, weight, created_at FROM edges ORDER BY a, b, kind")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Edges of which a memory is no longer live (forgotten, purged): `(a, b, kind)`. Each
/// distinct endpoint is looked up once (not each edge's two: 1.2 million row reads at
/// 100,000 memories took 5 s); the edges are read only when one is gone.
pub(crate) fn dead_edges(conn: &Connection) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare(
        "WITH ends(p) AS (SELECT a FROM edges UNION SELECT b FROM edges)
         SELECT p FROM ends WHERE NOT EXISTS
             (SELECT 1 FROM records r WHERE r.path = ends.p AND r.deleted = 0 AND r.payload IS NOT NULL)",
    )?;
    let gone: std::collections::HashSet<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    if gone.is_empty() {
        return Ok(Vec::new());
    }
    Ok(edges(conn)?
        .into_iter()
        .filter(|(a, b, _, _, _)| gone.contains(a) || gone.contains(b))
        .map(|(a, b, kind, _, _)| (a, b, kind))
        .collect())
}

/// The stored edge of `kind` between `a` and `b`, in either orientation: its `(a, b)` as
/// stored, weight and creation time.
pub(crate) fn edge_between(conn: &Connection, a: &str, b: &str, kind: &str) -> Result<Option<EdgeRow>> {
    // `kind IN (?3)`, as in persona_sql: one plan for every call.
    let mut stmt = conn.prepare_cached(
        "SELECT a, b, kind, weight, created_at FROM edges
         WHERE kind IN (?3) AND ((a = ?1 AND b = ?2) OR (a = ?2 AND b = ?1)) LIMIT 1",
    )?;
    Ok(stmt
        .query_row(params![a, b, kind], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .optional()?)
}

/// Whether any edge joins `a` and `b`, either way.
pub(crate) fn edge_exists(conn: &Connection, a: &str, b: &str) -> Result<bool> {
    let mut stmt =
        conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM edges WHERE (a = ?1 AND b = ?2) OR (a = ?2 AND b = ?1))")?;
    Ok(stmt.query_row(params![a, b], |r| r.get(0))?)
}

/// How many edges there are ...
pub(crate) fn edge_count(conn: &Connection) -> Result<usize> {
    Ok(conn.query_row("SELECT count(*) FROM edges", [], |r| r.get::<_, i64>(0))? as usize)
}

/// ... and which a decay by `factor` leaves below `min`: `(a, b, kind)`.
pub(crate) fn edges_decaying_below(conn: &Connection, factor: f64, min: f64) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare("SELECT a, b, kind FROM edges WHERE NOT (weight * ?1 >= ?2)")?;
    let rows = stmt.query_map(params![factor, min], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Multiplies every edge's weight by `factor`.
pub(crate) fn decay_edges(tx: &Transaction, factor: f64) -> Result<()> {
    tx.execute("UPDATE edges SET weight = weight * ?1", [factor])?;
    Ok(())
}

/// Removes the edges below `min` (and any whose weight is not a number).
pub(crate) fn prune_edges_below(tx: &Transaction, min: f64) -> Result<usize> {
    Ok(tx.execute("DELETE FROM edges WHERE NOT (weight >= ?1)", [min])?)
}

/// Deletes these edges (`a`, `b`, kind).
pub(crate) fn delete_edges(tx: &Transaction, keys: &[(String, String, String)]) -> Result<()> {
    let mut stmt = tx.prepare_cached("DELETE FROM edges WHERE a = ?1 AND b = ?2 AND kind = ?3")?;
    for (a, b, kind) in keys {
        stmt.execute(params![a, b, kind])?;
    }
    Ok(())
}

/// Writes these edges (added, or replacing the stored ones of the same `a`, `b`, kind),
/// each only while both its memories are live: one purged since the edges were worked
/// out on a reader must not get an edge back. Returns how many were written.
pub(crate) fn upsert_live_edges(tx: &Transaction, edges: &[EdgeRow]) -> Result<usize> {
    let mut stmt =
        tx.prepare_cached("INSERT OR REPLACE INTO edges (a, b, kind, weight, created_at) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    let mut written = 0;
    for (a, b, kind, weight, created_at) in edges {
        if path_is_live(tx, a)? && path_is_live(tx, b)? {
            stmt.execute(params![a, b, kind, weight, created_at])?;
            written += 1;
        }
    }
    Ok(written)
}
