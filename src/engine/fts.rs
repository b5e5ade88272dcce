//! The reads a search makes: full-text matches with their BM25 scores, document
//! frequencies and postings, the records a filter admits, and candidate rows by rid. A
//! [`Filter`] restricts every pool at the source, so a filtered search ranks among the
//! records it may return.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

use super::vectors::VecState;
use crate::codec::RecordKind;
use crate::error::Result;

/// What a search may return, as SQL sees it: kinds, a persona domain and facet, a time
/// range (`[since, until)`, on the record's own time). Unset parts admit everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Filter {
    pub kinds: Vec<RecordKind>,
    pub domain: Option<String>,
    pub facet: Option<String>,
    pub since: Option<f64>,
    pub until: Option<f64>,
}

impl Filter {
    /// Whether it admits every record.
    pub(crate) fn is_open(&self) -> bool {
        *self == Filter::default()
    }

    /// `AND ...` conditions on `r` (the records table), and their values, numbered from
    /// `first`.
    fn sql(&self, first: usize) -> (String, Vec<Value>) {
        let mut sql = match self.kinds.is_empty() {
            true => String::new(),
            false => format!(" AND r.kind IN ({})", super::kinds::sql_list(&self.kinds)),
        };
        // Flat memories and journal entries have no domain or facet: a filter on either
        // admits persona memories only.
        let conditions = [
            ("r.domain =", self.domain.clone().map(Value::Text)),
            ("r.facet =", self.facet.clone().map(Value::Text)),
            ("r.ts >=", self.since.map(Value::Real)),
            ("r.ts <", self.until.map(Value::Real)),
        ];
        let mut values = Vec::new();
        for (cond, value) in conditions {
            if let Some(v) = value {
                sql.push_str(&format!(" AND {cond} ?{}", first + values.len()));
                values.push(v);
            }
        }
        (sql, values)
    }
}

/// `expr` restricted to a record's own words (not its neighbours' in `context`): for
/// document frequencies, postings and coverage, which speak of what a record says.
pub(crate) fn own(expr: &str) -> String {
    format!("{{key themes value}} : ({expr})")
}

/// Every record matching the FTS5 expression `expr` within `filter`, with its BM25
/// (key 3, themes 2, value 1, the words of its episode's neighbours `context`, see
/// [`super::episodes`]; larger is better).
pub(crate) fn bm25(conn: &Connection, expr: &str, filter: &Filter, context: f64) -> Result<crate::ids::IdMap<f64>> {
    // A weight is a number the caller chose, not text: written into the SQL, it keeps one
    // cached statement per weight.
    let context = if context.is_finite() { context.max(0.0) } else { 0.0 };
    let sql = if filter.is_open() {
        format!(
            "SELECT rowid, bm25(records_fts, 3.0, 2.0, 1.0, {context:.4}) FROM records_fts WHERE records_fts MATCH ?1"
        )
    } else {
        let (cond, _) = filter.sql(2);
        format!(
            "SELECT f.rowid, bm25(records_fts, 3.0, 2.0, 1.0, {context:.4}) FROM records_fts f JOIN records r ON r.rid = f.rowid \
             WHERE records_fts MATCH ?1 AND r.deleted = 0{cond}"
        )
    };
    let mut values = vec![Value::Text(expr.to_string())];
    values.extend(filter.sql(2).1);
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut out = crate::ids::IdMap::default();
    for row in stmt.query_map(params_from_iter(values), |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))? {
        let (rid, score) = row?;
        out.insert(rid, -score);
    }
    Ok(out)
}

/// Every record holding `term` (one word): its share of an any-word BM25 ([`bm25`]
/// with the same `context` weight; FTS5 sums one such share per word of the query), and
/// whether its own words hold it (not only its episode's context), by rowid. Searches
/// keep these per word (the search's word cache).
pub(crate) fn term_postings(
    conn: &Connection,
    term: &str,
    context: f64,
    sizes: Option<&super::doc_sizes::Sizes>,
) -> Result<Vec<(i64, f64, bool)>> {
    let context = if context.is_finite() { context.max(0.0) } else { 0.0 };
    let Some(expr) = crate::text::fts_any(&[term.to_string()]) else { return Ok(Vec::new()) };
    Ok(super::doc_sizes::word_shares(conn, &expr, context, sizes)?)
}

/// What the full-text index looks like now, to tell whether anything was written to it
/// since (by any connection or process): FTS5's structure record (its segments and a
/// count of leaves written, which every write moves) and its averages record (rows and
/// tokens).
pub(crate) fn index_stamp(conn: &Connection) -> Result<Vec<u8>> {
    let mut stmt = conn.prepare_cached("SELECT id, block FROM records_fts_data WHERE id IN (1, 10) ORDER BY id")?;
    let mut stamp = Vec::new();
    for block in stmt.query_map([], |r| r.get::<_, Vec<u8>>(1))? {
        let block = block?;
        stamp.extend_from_slice(&(block.len() as u32).to_le_bytes());
        stamp.extend_from_slice(&block);
    }
    Ok(stamp)
}

/// How many leaves FTS5 has written to level 0 of the index in all (the structure record's
/// write counter): one flush of its pending terms writes at least one, so a batch flushed
/// once per row shows here as one leaf or more per row.
#[cfg(test)]
pub(crate) fn leaves_written(conn: &Connection) -> Option<u64> {
    let block: Vec<u8> = conn.query_row("SELECT block FROM records_fts_data WHERE id = 10", [], |r| r.get(0)).ok()?;
    // A 4-byte cookie, the 4-byte version 2 marker if any, then the number of levels, of
    // segments and the write counter, as SQLite varints.
    let mut at = if block.get(4..8) == Some(&[0xff, 0x00, 0x00, 0x01][..]) { 8 } else { 4 };
    let mut field = || {
        let (v, n) = block.get(at..).and_then(sqlite_varint)?;
        at += n;
        Some(v)
    };
    let (_levels, _segments) = (field()?, field()?);
    field()
}

/// The live records `filter` admits, at most `cap` (None: more than `cap` do).
pub(crate) fn admitted(conn: &Connection, filter: &Filter, cap: usize) -> Result<Option<Vec<i64>>> {
    let (cond, mut values) = filter.sql(1);
    values.push(Value::Integer(cap as i64 + 1));
    let sql = format!(
        "SELECT r.rid FROM records r WHERE r.deleted = 0 AND r.payload IS NOT NULL{cond} LIMIT ?{} + 0",
        values.len()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rids: Vec<i64> = stmt.query_map(params_from_iter(values), |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok((rids.len() <= cap).then_some(rids))
}

/// A record a time range holds ([`dated`]).
pub(crate) struct DatedRow {
    pub kind: RecordKind,
    pub path: String,
    pub payload: String,
    /// A flat memory or journal entry marked archived (persona memories keep the mark
    /// deeper in their payload: decode them).
    pub archived: bool,
}

/// Calls `f` with every live record of `kinds` that `filter` admits, newest first (by the
/// record's own time): a listing reads the whole range to count it, so one statement
/// streams it rather than loading it.
pub(crate) fn dated(
    conn: &Connection,
    kinds: &[RecordKind],
    filter: &Filter,
    mut f: impl FnMut(DatedRow) -> Result<()>,
) -> Result<()> {
    let filter = Filter { kinds: kinds.to_vec(), ..filter.clone() };
    let (cond, values) = filter.sql(1);
    let sql = format!(
        "SELECT r.kind, r.path, r.payload, json_extract(r.payload, '$.archived_at') IS NOT NULL \
         FROM records r WHERE r.deleted = 0 AND r.payload IS NOT NULL{cond} ORDER BY r.ts DESC, r.path"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    while let Some(r) = rows.next()? {
        f(DatedRow { kind: r.get(0)?, path: r.get(1)?, payload: r.get(2)?, archived: r.get(3)? })?;
    }
    Ok(())
}

/// The highest rowid in the full-text index: cheaply tells whether the store grew.
pub(crate) fn top_rowid(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row("SELECT coalesce(max(rowid), 0) FROM records_fts", [], |r| r.get::<_, i64>(0))? as u64)
}

/// Records in the full-text index. FTS5 keeps the count in its "averages" record (row 1
/// of its data table: a varint of the row count, then one per column of token totals), so
/// this is one point read; `count(*)` reads every row (7 ms at 10k records, warm, and
/// growing with the store). Counted the slow way only if that record cannot be read.
pub(crate) fn docs(conn: &Connection) -> Result<u64> {
    let averages: Option<Vec<u8>> =
        conn.query_row("SELECT block FROM records_fts_data WHERE id = 1", [], |r| r.get(0)).optional()?;
    if let Some(rows) = averages.as_deref().and_then(|b| sqlite_varint(b).map(|(v, _)| v)) {
        return Ok(rows);
    }
    Ok(conn.query_row("SELECT count(*) FROM records_fts", [], |r| r.get::<_, i64>(0))? as u64)
}

/// SQLite's varint (FTS5 writes its records with it): big-endian groups of 7 bits, the
/// high bit set on every byte but the last, and a ninth byte of 8 bits. The value and the
/// bytes it took; `None` when `b` ends first.
pub(crate) fn sqlite_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &x) in b.iter().enumerate().take(9) {
        if i == 8 {
            return Some(((v << 8) | u64::from(x), 9));
        }
        v = (v << 7) | u64::from(x & 0x7f);
        if x & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Records whose own words match the FTS5 expression `expr` (searches count with
/// [`doc_freq_capped`]; the tests check against this).
#[cfg(test)]
pub(crate) fn doc_freq(conn: &Connection, expr: &str) -> Result<u64> {
    let mut stmt = conn.prepare_cached("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?1")?;
    Ok(stmt.query_row([own(expr)], |r| r.get::<_, i64>(0))? as u64)
}

/// The records whose own words match `expr`, counted no further than `cap + 1`: FTS5 walks every match to count
/// them, so a word in half the store costs as much as reading half its postings, when all
/// a caller may need to know is that it is past `cap`.
pub(crate) fn doc_freq_capped(conn: &Connection, expr: &str, cap: u64) -> Result<u64> {
    // `memstr_count` walks the matches inside FTS5 (engine::doc_sizes), on the one row asked
    // for; no row: no match.
    let mut stmt = conn
        .prepare_cached("SELECT memstr_count(records_fts, ?2) FROM records_fts WHERE records_fts MATCH ?1 LIMIT 1")?;
    let limit = i64::try_from(cap.saturating_add(1)).unwrap_or(i64::MAX);
    let counted = stmt.query_row(rusqlite::params![own(expr), limit], |r| r.get::<_, i64>(0)).optional()?;
    Ok(counted.unwrap_or(0) as u64)
}

/// A candidate's row: kind, path, payload, time, and whether it waits for its vector.
pub(crate) struct CandidateRow {
    pub kind: RecordKind,
    pub path: String,
    pub payload: String,
    pub ts: f64,
    /// Waiting for its vector (not yet embedded): its words stand in for its meaning.
    pub pending: bool,
}

/// The live rows of `rids` (deleted ones are left out).
pub(crate) fn rows(conn: &Connection, rids: &[i64]) -> Result<Vec<(i64, CandidateRow)>> {
    let mut out = Vec::with_capacity(rids.len());
    // One statement per chunk rather than one per row: a hundred point lookups cost
    // milliseconds at 100k records. The list holds integers only.
    for chunk in rids.chunks(500) {
        let list = chunk.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let sql = format!(
            "SELECT rid, kind, path, payload, coalesce(ts, 0), needs_vec FROM records \
             WHERE rid IN ({list}) AND deleted = 0 AND payload IS NOT NULL"
        );
        let mut stmt = conn.prepare(&sql)?;
        let found = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                CandidateRow {
                    kind: r.get(1)?,
                    path: r.get(2)?,
                    payload: r.get(3)?,
                    ts: r.get(4)?,
                    pending: r.get::<_, VecState>(5)? == VecState::Pending,
                },
            ))
        })?;
        for row in found {
            out.push(row?);
        }
    }
    Ok(out)
}

/// An in-memory connection holding only a `records_fts` table as the store makes it, for
/// tests of what reads it.
#[cfg(test)]
pub(crate) fn bare_index() -> Connection {
    let conn = Connection::open_in_memory().expect("an in-memory database");
    conn.execute_batch(
        "CREATE VIRTUAL TABLE records_fts USING fts5(key, themes, value, context, \
         tokenize = 'porter unicode61 remove_diacritics 2');",
    )
    .expect("FTS5 is built in");
    super::doc_sizes::register(&conn).expect("fts5 functions");
    conn
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn sqlite_varints_decode_as_sqlite_writes_them() {
        assert_eq!(sqlite_varint(&[0x00]), Some((0, 1)));
        assert_eq!(sqlite_varint(&[0x7f]), Some((127, 1)));
        assert_eq!(sqlite_varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(sqlite_varint(&[0x86, 0x8d, 0x20]), Some((100_000, 3)));
        assert_eq!(sqlite_varint(&[0xff; 9]), Some((u64::MAX, 9)));
        assert_eq!(sqlite_varint(&[0x81]), None);
        assert_eq!(sqlite_varint(&[]), None);
    }

    #[test]
    fn document_count_from_the_averages_record_matches_count_star() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(docs(&conn).ok(), None, "no table: an error, not a guess");
        conn.execute_batch(
            "CREATE VIRTUAL TABLE records_fts USING fts5(key, themes, value, context, \
             tokenize = 'porter unicode61 remove_diacritics 2');",
        )
        .unwrap();
        assert_eq!(docs(&conn).unwrap(), 0);
        for i in 0..300 {
            conn.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (i, format!("entry number {i}")))
                .unwrap();
        }
        conn.execute("DELETE FROM records_fts WHERE rowid % 7 = 0", []).unwrap();
        let counted: i64 = conn.query_row("SELECT count(*) FROM records_fts", [], |r| r.get(0)).unwrap();
        assert_eq!(docs(&conn).unwrap(), counted as u64);
        assert_eq!(counted, 300 - 43);
    }

    #[test]
    fn summed_word_shares_are_the_any_word_bm25() {
        let conn = bare_index();
        let words = ["birthday", "present", "dana", "garden", "paris", "train", "cake", "budget"];
        for i in 0..400i64 {
            let pick = |k: i64| words[((i * 7 + k * 3) % words.len() as i64) as usize];
            let (key, themes) = if i % 5 == 0 { (pick(1), pick(2)) } else { ("", "") };
            let value = format!("{} and {} again {}", pick(3), pick(4), pick(3));
            let context = if i % 3 == 0 { pick(5) } else { "" };
            conn.execute(
                "INSERT INTO records_fts (rowid, key, themes, value, context) VALUES (?1, ?2, ?3, ?4, ?5)",
                (i + 1, key, themes, value, context),
            )
            .unwrap();
        }
        let terms: Vec<String> = ["birthday", "cake", "paris", "nowhere"].iter().map(|t| t.to_string()).collect();
        let expr = crate::text::fts_any(&terms).unwrap();
        let whole = bm25(&conn, &expr, &Filter::default(), 0.2).unwrap();
        let mut summed: HashMap<i64, f64> = HashMap::new();
        let mut own_rows = 0;
        for t in &terms {
            let postings = term_postings(&conn, t, 0.2, None).unwrap();
            assert!(postings.windows(2).all(|w| w[0].0 < w[1].0), "ascending by rowid");
            own_rows += postings.iter().filter(|p| p.2).count();
            for (rid, score, _) in postings {
                *summed.entry(rid).or_insert(0.0) += score;
            }
        }
        assert!(!whole.is_empty());
        assert_eq!(whole.len(), summed.len());
        for (rid, score) in &whole {
            assert!((score - summed[rid]).abs() < 1e-9, "row {rid}: {score} vs {}", summed[rid]);
        }
        // Own words: the rows a column filter on key, themes and value finds.
        let own: i64 = terms
            .iter()
            .map(|t| doc_freq(&conn, &crate::text::fts_any(std::slice::from_ref(t)).unwrap()).unwrap() as i64)
            .sum();
        assert_eq!(own_rows as i64, own);
        // Counted inside FTS5 up to a cap, the same rows: context-only ones left out.
        for t in &terms {
            let expr = crate::text::fts_any(std::slice::from_ref(t)).unwrap();
            let exact = doc_freq(&conn, &expr).unwrap();
            assert_eq!(doc_freq_capped(&conn, &expr, 1_000).unwrap(), exact, "{t}");
            if exact > 3 {
                assert_eq!(doc_freq_capped(&conn, &expr, 2).unwrap(), 3, "{t}: the cap and one more");
            }
        }
        assert!(own_rows < whole.len() * 2, "context-only rows are not counted as own");
    }

    #[test]
    fn word_counts_are_not_prepared_again_each_time_they_run() {
        let conn = bare_index();
        conn.execute("INSERT INTO records_fts (rowid, value) VALUES (1, 'garden paris')", []).unwrap();
        for cap in 1..=12 {
            for word in ["garden", "paris", "train"] {
                doc_freq_capped(&conn, &crate::text::fts_any(&[word.to_string()]).unwrap(), cap).unwrap();
            }
        }
        assert_eq!(crate::engine::vectors::tests::reprepared(&conn, "SELECT memstr_count("), 0);
    }

    #[test]
    fn the_index_stamp_moves_with_every_write() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE records_fts USING fts5(key, themes, value, context);").unwrap();
        let mut seen = vec![index_stamp(&conn).unwrap()];
        let mut write = |sql: &str| {
            conn.execute(sql, []).unwrap();
            let stamp = index_stamp(&conn).unwrap();
            assert!(!seen.contains(&stamp), "{sql}: the stamp did not move");
            seen.push(stamp);
        };
        write("INSERT INTO records_fts (rowid, value) VALUES (1, 'one two')");
        write("INSERT INTO records_fts (rowid, value) VALUES (2, 'three')");
        // Same number of tokens: only the structure record tells.
        write("UPDATE records_fts SET value = 'four five' WHERE rowid = 1");
        write("DELETE FROM records_fts WHERE rowid = 2");
    }
}
