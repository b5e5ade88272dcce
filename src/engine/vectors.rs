//! The embedding queue and the `vectors` table: which records wait for a vector
//! ([`VecState`], `records.needs_vec`), and the stored vectors themselves. The embedding
//! pipeline (`index::pipeline`) decides what to embed; these are its reads and writes.

// Without the vector index only the states are used (a write queues its record).
#![cfg_attr(not(feature = "vectors"), allow(dead_code))]

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Transaction};

use crate::codec::{to_blob, RecordKind};
use crate::error::Result;

/// Where a record stands with its vector (`records.needs_vec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VecState {
    /// Its vector is current (or it has no text to embed).
    Current,
    /// Its text changed since it was last embedded: waiting for a vector.
    Pending,
    /// A persona vector a search computed and stored without signing its embedding event;
    /// the next full pass signs it.
    Unsigned,
}

impl VecState {
    fn code(self) -> i64 {
        match self {
            VecState::Current => 0,
            VecState::Pending => 1,
            VecState::Unsigned => 2,
        }
    }
}

impl ToSql for VecState {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.code()))
    }
}

impl FromSql for VecState {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value.as_i64()? {
            0 => Ok(VecState::Current),
            1 => Ok(VecState::Pending),
            2 => Ok(VecState::Unsigned),
            n => Err(FromSqlError::OutOfRange(n)),
        }
    }
}

/// Which pending records a pass takes: all, the persona memories, or those of one facet.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// Only persona memories (consolidation and introspection compare those).
    pub persona_only: bool,
    /// Only persona memories of this domain and facet (the novelty gate compares those).
    pub persona_facet: Option<(String, String)>,
}

impl Scope {
    /// The condition on records waiting for a vector in the scope, its parameters from `?2`
    /// (`?1` is the caller's). The state and the kind are written into the statement: a
    /// partial index's condition compared with a bound value makes SQLite prepare the
    /// statement again each time that value is bound.
    fn sql(&self) -> String {
        let persona = format!(" AND kind IN ({})", super::kinds::sql_list(&[RecordKind::Persona]));
        let scope = match (&self.persona_facet, self.persona_only) {
            // `IN (?n)`: under `= ?n` SQLite weighs the bound values and prepares the
            // statement again each time they are bound (as [`super::records::persona`]).
            (Some(_), _) => format!("{persona} AND domain IN (?2) AND facet IN (?3)"),
            (None, true) => persona,
            (None, false) => String::new(),
        };
        format!("needs_vec = {} AND deleted = 0{scope}", VecState::Pending.code())
    }

    fn params(&self, first: i64) -> Vec<rusqlite::types::Value> {
        use rusqlite::types::Value;
        let mut out = vec![Value::Integer(first)];
        if let Some((d, f)) = &self.persona_facet {
            out.push(Value::Text(d.clone()));
            out.push(Value::Text(f.clone()));
        }
        out
    }
}

/// Records waiting for a vector in `scope`.
pub(crate) fn count_pending(conn: &Connection, scope: &Scope) -> Result<usize> {
    let sql = format!("SELECT count(*) FROM records WHERE {} AND ?1 = ?1", scope.sql());
    Ok(conn.query_row(&sql, params_from_iter(scope.params(0)), |r| r.get::<_, i64>(0))? as usize)
}

/// A record waiting for its vector: rid, kind, payload, the hash of the text it had.
pub(crate) type PendingRow = (i64, RecordKind, Option<String>, Option<String>);

/// The newest `limit` records waiting for a vector in `scope` (the partial index on
/// `needs_vec` holds them in rid order). The limit is bound as `?1 + 0`: SQLite's planner
/// reads a bare bound LIMIT's value, and then prepares the statement again each time it is
/// bound.
pub(crate) fn pending(conn: &Connection, scope: &Scope, limit: usize) -> Result<Vec<PendingRow>> {
    let sql = format!(
        "SELECT rid, kind, payload, text_hash FROM records WHERE {} ORDER BY rid DESC LIMIT ?1 + 0",
        scope.sql()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(scope.params(limit as i64)), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A record with nothing to embed is not pending any more, unless its text changed since
/// it was read (`hash`).
pub(crate) fn mark_nothing_to_embed(tx: &Transaction, rid: i64, hash: Option<&str>) -> Result<()> {
    // States written in (see `Scope::sql`): bound, they would prepare it again each time.
    let sql = format!(
        "UPDATE records SET needs_vec = {} WHERE rid = ?1 AND needs_vec = {} AND text_hash IS ?2",
        VecState::Current.code(),
        VecState::Pending.code()
    );
    tx.prepare_cached(&sql)?.execute(params![rid, hash])?;
    Ok(())
}

/// Stores `v` as record `rid`'s vector, if its text is still the one embedded (`hash`),
/// and leaves it in `state`. Returns the vector's id, or None when the text changed.
pub(crate) fn store(
    tx: &Transaction,
    rid: i64,
    hash: &str,
    state: VecState,
    model: &str,
    v: &[f32],
) -> Result<Option<i64>> {
    let n = tx
        .prepare_cached("UPDATE records SET needs_vec = ?3 WHERE rid = ?1 AND text_hash = ?2 AND deleted = 0")?
        .execute(params![rid, hash, state])?;
    if n == 0 {
        return Ok(None);
    }
    tx.prepare_cached("DELETE FROM vectors WHERE rid = ?1")?.execute([rid])?;
    let vid: i64 = tx
        .prepare_cached("INSERT INTO vectors (rid, model, text_hash, vec) VALUES (?1, ?2, ?3, ?4) RETURNING vid")?
        .query_row(params![rid, model, hash, to_blob(v)], |r| r.get(0))?;
    Ok(Some(vid))
}

/// Whether any persona vector waits for its embedding event.
pub(crate) fn any_unsigned(conn: &Connection) -> Result<bool> {
    let sql = format!(
        "SELECT EXISTS(SELECT 1 FROM records WHERE kind IN ({}) AND needs_vec = {} AND deleted = 0)",
        super::kinds::sql_list(&[RecordKind::Persona]),
        VecState::Unsigned.code()
    );
    Ok(conn.prepare_cached(&sql)?.query_row([], |r| r.get(0))?)
}

/// A persona vector waiting for its embedding event: rid, key, text hash, vector bytes.
pub(crate) type UnsignedRow = (i64, String, String, Vec<u8>);

/// Up to `limit` persona vectors of `model` waiting for their embedding event.
pub(crate) fn unsigned(tx: &Transaction, model: &str, limit: usize) -> Result<Vec<UnsignedRow>> {
    let sql = format!(
        "SELECT r.rid, r.key, v.text_hash, v.vec FROM records r JOIN vectors v ON v.rid = r.rid
         WHERE r.kind IN ({}) AND r.deleted = 0 AND r.needs_vec = {}
           AND v.model = ?1 AND v.text_hash = r.text_hash LIMIT ?2 + 0",
        super::kinds::sql_list(&[RecordKind::Persona]),
        VecState::Unsigned.code()
    );
    let rows = tx
        .prepare_cached(&sql)?
        .query_map(params![model, limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Record `rid`'s vector is current.
pub(crate) fn mark_current(tx: &Transaction, rid: i64) -> Result<()> {
    tx.prepare_cached("UPDATE records SET needs_vec = ?2 WHERE rid = ?1")?.execute(params![rid, VecState::Current])?;
    Ok(())
}

/// Persona records still marked unsigned (their vector is of another model or text) are
/// embedded again.
pub(crate) fn requeue_unsigned(tx: &Transaction) -> Result<()> {
    tx.prepare_cached("UPDATE records SET needs_vec = ?2 WHERE kind = ?1 AND needs_vec = ?3 AND deleted = 0")?
        .execute(params![RecordKind::Persona, VecState::Pending, VecState::Unsigned])?;
    Ok(())
}

/// Drops the vectors of any model but `model`, queueing their records (at open).
pub(crate) fn keep_model(conn: &Connection, model: &str) -> Result<()> {
    // Two range probes on the model index, so a store whose vectors all come from this
    // model opens without touching the vectors themselves.
    let other: Option<i64> = conn
        .query_row("SELECT vid FROM vectors WHERE model < ?1 OR model > ?1 LIMIT 1", [model], |r| r.get(0))
        .optional()?;
    if other.is_some() {
        conn.prepare_cached(
            "UPDATE records SET needs_vec = ?2 WHERE rid IN (SELECT rid FROM vectors WHERE model != ?1)",
        )?
        .execute(params![model, VecState::Pending])?;
        conn.prepare_cached("DELETE FROM vectors WHERE model != ?1")?.execute([model])?;
    }
    Ok(())
}

/// Stored vectors.
pub(crate) fn count(conn: &Connection) -> Result<usize> {
    Ok(conn.prepare_cached("SELECT count(*) FROM vectors")?.query_row([], |r| r.get::<_, i64>(0))? as usize)
}

/// `(rid, vid)` of every stored vector, from the index on them (no vector is read).
pub(crate) fn ids(conn: &Connection) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare("SELECT rid, vid FROM vectors")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Calls `f(vid, rid, bytes)` for each vector from `first_vid` on, in vid order (one
/// pass over the table).
pub(crate) fn each_from(conn: &Connection, first_vid: i64, mut f: impl FnMut(i64, i64, Vec<u8>)) -> Result<()> {
    let mut stmt = conn.prepare("SELECT vid, rid, vec FROM vectors WHERE vid >= ?1 ORDER BY vid")?;
    for row in stmt.query_map([first_vid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
        let (vid, rid, blob) = row?;
        f(vid, rid, blob);
    }
    Ok(())
}

/// One vector by id: `(vid, rid, bytes)`.
pub(crate) fn by_vid(conn: &Connection, vid: i64) -> Result<Option<(i64, i64, Vec<u8>)>> {
    let mut stmt = conn.prepare_cached("SELECT vid, rid, vec FROM vectors WHERE vid = ?1")?;
    Ok(stmt.query_row([vid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).optional()?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// How often SQLite prepared again the statements whose SQL starts with `start`.
    pub(crate) fn reprepared(conn: &Connection, start: &str) -> i32 {
        crate::engine::statement_runs(conn).iter().filter(|(sql, ..)| sql.starts_with(start)).map(|r| r.2).sum()
    }

    #[test]
    fn pending_reads_are_not_prepared_again_each_time_they_run() {
        let conn = Connection::open_in_memory().unwrap();
        // The store's partial indexes on these columns (schema.rs writes the kind with `=`;
        // SQLite reads a one-item IN as `=`).
        let persona = super::super::kinds::sql_list(&[RecordKind::Persona]);
        conn.execute_batch(&format!(
            "CREATE TABLE records (rid INTEGER PRIMARY KEY, kind TEXT, payload TEXT, text_hash TEXT,
                 needs_vec INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0,
                 domain TEXT, facet TEXT, key TEXT);
             CREATE INDEX records_needs_vec ON records(needs_vec) WHERE needs_vec = 1;
             CREATE INDEX records_persona ON records(domain, facet, key) WHERE kind IN ({persona});
             INSERT INTO records (kind, needs_vec, domain, facet, key) VALUES ({persona}, 1, 'd', 'f', 'k');"
        ))
        .unwrap();
        let facet = Some(("d".to_string(), "f".to_string()));
        let scopes = [
            Scope::default(),
            Scope { persona_only: true, persona_facet: None },
            Scope { persona_only: true, persona_facet: facet },
        ];
        for limit in 1..=12 {
            for scope in &scopes {
                assert_eq!(pending(&conn, scope, limit).unwrap().len(), 1);
            }
        }
        assert_eq!(reprepared(&conn, "SELECT rid, kind, payload, text_hash FROM records"), 0);
    }
}
