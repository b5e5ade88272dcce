//! Episodes in the full-text index: each journal entry's row carries, in a column of its
//! own (`context`), the text of the entries beside it in its episode. An episode is a
//! run of journal entries each written within [`EPISODE_GAP`] of the one before (a
//! session of notes, a conversation's turns).
//!
//! Why: an answer often sits in a reply whose own words do not name the subject ("Yes,
//! last Tuesday, with my sister") while the turn before does; and a note written right
//! after another speaks of the same thing. Searching the neighbours' words at a small
//! weight (`search::Weights::context`, 0.2 by default) finds such entries; their own
//! words still count most (docs/benchmarks.md, "Contextual episodes").
//!
//! The column is kept true on every change: writing, moving, forgetting or purging an
//! entry rewrites its neighbours' rows, so a purged entry's words do not live on beside
//! it. Only the search's ranking reads the column: document frequencies, postings and the
//! journal's own matches read the record's own words ([`super::fts::own`]). (FTS5's BM25
//! counts a word's documents over every column, so the column shifts the ranking's term
//! weights a little too.) The meaning of the neighbours (their vectors' share in an
//! entry's cosine) was measured and left out: it lost on LoCoMo (docs/benchmarks.md).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::codec::RecordKind;
use crate::error::Result;

/// Entries at most this far apart (seconds) are neighbours in one episode.
pub const EPISODE_GAP: f64 = 3_600.0;

/// The live journal entries just before and just after the entry `rid` at `ts`, within
/// [`EPISODE_GAP`] of it (ties of time are ordered by rid, the order of arrival).
fn neighbours(tx: &Transaction, rid: i64, ts: f64) -> Result<[Option<i64>; 2]> {
    // The kind written in and the order as a row value: bound, SQLite would plan both
    // statements again on every call (docs/ARCHITECTURE.md, "Statements").
    let journal = super::kinds::sql_list(&[RecordKind::Journal]);
    let before = tx
        .prepare_cached(&format!(
            "SELECT rid FROM records WHERE kind IN ({journal}) AND deleted = 0 AND payload IS NOT NULL
               AND ts >= ?2 - ?3 AND (ts, rid) < (?2, ?1)
             ORDER BY ts DESC, rid DESC LIMIT 1"
        ))?
        .query_row(params![rid, ts, EPISODE_GAP], |r| r.get(0))
        .optional()?;
    let after = tx
        .prepare_cached(&format!(
            "SELECT rid FROM records WHERE kind IN ({journal}) AND deleted = 0 AND payload IS NOT NULL
               AND ts <= ?2 + ?3 AND (ts, rid) > (?2, ?1)
             ORDER BY ts, rid LIMIT 1"
        ))?
        .query_row(params![rid, ts, EPISODE_GAP], |r| r.get(0))
        .optional()?;
    Ok([before, after])
}

/// A live journal entry's time and text.
fn entry(tx: &Transaction, rid: i64) -> Result<Option<(f64, String)>> {
    Ok(tx
        .prepare_cached(
            "SELECT ts, json_extract(payload, '$.content') FROM records
             WHERE rid = ?1 AND kind = ?2 AND deleted = 0 AND payload IS NOT NULL",
        )?
        .query_row(params![rid, RecordKind::Journal], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// The neighbours of a journal entry that is about to change or go (its time or text, a
/// deletion, a purge): their rows are rewritten by [`refresh`] once it has.
pub(crate) fn around(tx: &Transaction, rid: i64) -> Result<Vec<i64>> {
    Ok(match entry(tx, rid)? {
        Some((ts, _)) => neighbours(tx, rid, ts)?.into_iter().flatten().collect(),
        None => Vec::new(),
    })
}

/// The `context` a live journal entry's row should hold: its neighbours' text, one per
/// line (`None`: no live journal entry).
pub(crate) fn context(tx: &Transaction, rid: i64) -> Result<Option<String>> {
    let Some((ts, _)) = entry(tx, rid)? else { return Ok(None) };
    let mut texts = Vec::new();
    for n in neighbours(tx, rid, ts)?.into_iter().flatten() {
        if let Some((_, text)) = entry(tx, n)? {
            texts.push(text);
        }
    }
    Ok(Some(texts.join("\n")))
}

/// Rewrites the `context` of each journal entry in `rids` from its neighbours as they
/// are now, and of the neighbours of each that is live (they are its neighbours' too).
/// A row whose context is already right is left alone: an FTS5 update tokenizes the whole
/// row again, and appending an entry changes only its predecessor's. Rows are rewritten
/// in rowid order: FTS5 writes its pending terms out as a segment whenever a lower rowid
/// than the last comes in.
pub(crate) fn refresh(tx: &Transaction, rids: &[i64]) -> Result<()> {
    let mut todo: Vec<i64> = Vec::new();
    for rid in rids {
        todo.push(*rid);
        todo.extend(around(tx, *rid)?);
    }
    todo.sort_unstable();
    todo.dedup();
    for rid in todo {
        let Some(context) = context(tx, rid)? else { continue };
        let stored: Option<String> = tx
            .prepare_cached("SELECT context FROM records_fts WHERE rowid = ?1")?
            .query_row([rid], |r| r.get(0))
            .optional()?;
        if stored.as_deref() != Some(context.as_str()) {
            tx.prepare_cached("UPDATE records_fts SET context = ?2 WHERE rowid = ?1")?
                .execute(params![rid, context])?;
            super::doc_sizes::changed(tx, rid)?;
        }
    }
    Ok(())
}

/// Creates, on the writer, the table of entries whose rows wait for [`settle`]: a
/// temporary table, so it lives and rolls back with the connection's transactions and
/// never reaches the file.
pub(crate) fn prepare_writer(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("CREATE TEMP TABLE IF NOT EXISTS episode_stale (rid INTEGER PRIMARY KEY)")
}

/// Marks entries (and, at [`settle`], their neighbours) for rewriting at the end of the
/// transaction instead of now. Why: a page of a pull or an import brings hundreds of
/// entries, each changing its neighbour's context, a row with a lower rowid than the
/// entry just written; rewritten at once, each forced FTS5 to write a segment (385 for
/// 400 entries), rewritten together in rowid order they cost one.
pub(crate) fn defer(tx: &Transaction, rids: &[i64]) -> Result<()> {
    let mut insert = tx.prepare_cached("INSERT OR IGNORE INTO temp.episode_stale (rid) VALUES (?1)")?;
    for rid in rids {
        insert.execute([rid])?;
    }
    Ok(())
}

/// Rewrites the rows [`defer`] marked, then forgets the marks. Run by the engine before
/// every commit of the writer (`Engine::write_tracked_now`), so no transaction commits a
/// stale context.
pub(crate) fn settle(tx: &Transaction) -> Result<()> {
    let rids: Vec<i64> = tx
        .prepare_cached("SELECT rid FROM temp.episode_stale ORDER BY rid")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if rids.is_empty() {
        return Ok(());
    }
    refresh(tx, &rids)?;
    tx.prepare_cached("DELETE FROM temp.episode_stale")?.execute([])?;
    Ok(())
}
