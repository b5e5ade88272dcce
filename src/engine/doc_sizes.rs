//! Each full-text row's size in tokens, held in memory, and the BM25 that reads it.
//!
//! FTS5's `bm25()` looks up every matching row's size in its `docsize` table: one B-tree
//! seek per row, most of the cost of scoring a word (at 100k memories, 2 µs of the 2.5 µs
//! a matching row takes). [`word_shares`] is the same function, operation for operation,
//! with the size read from [`DocSizes`]: from an array instead of a seek, the same scores
//! to the bit on x86-64 (the tests compare them), where SQLite's C is compiled without
//! fused multiply-adds; a compiler that fuses them (arm64) may differ in the last bits. A
//! row it does not know, or a map not loaded or found inconsistent, takes its size from
//! FTS5's `docsize` table, as FTS5 does.
//!
//! FTS5 walks the word's rows itself (`memstr_postings`, through its `xQueryPhrase`), with
//! no SQL row, function call and column reads per match, and the score is computed after
//! the walk: a row's size is then a load from the array in a tight loop, where the
//! processor overlaps the cache misses of a large map (row by row inside FTS5, each miss
//! waited behind FTS5's own work for that row: at a million memories, three quarters of
//! the old scoring function's own time), and the number of rows holding the word, which
//! BM25's IDF needs, is the number walked (`bm25()` walks the word a second time to count
//! it). `memstr_count` counts a word's rows the same way, up to a cap.
//!
//! The map stays current through a log: every write to the full-text index, by any
//! process running this code, adds the row's rid to `fts_writes` in the same transaction
//! ([`changed`]). A search reads the entries since the last it applied and re-reads those
//! rows' sizes. The map must hold as many rows and tokens as FTS5's own totals say, checked
//! at every refresh; if not (a writer that does not log), it is read again whole, as it is
//! when the log was trimmed past it or a rebuild logged rid 0. What is left: a writer that
//! does not log (an older build on the same store while this one runs) and leaves both
//! totals exactly as they were.
//!
//! A search scores with the map its own read transaction was checked against
//! ([`DocSizes::refresh`] returns it): a search whose snapshot is older than the map
//! scores with FTS5's sizes, and the map never goes back to it.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};

use rusqlite::ffi;
use rusqlite::{Connection, OptionalExtension};

use super::relock;

/// Log entries kept: older ones are trimmed, and a map further behind is read again whole.
const LOG_KEEP: i64 = 100_000;
/// The log is trimmed once per this many entries.
const TRIM_EVERY: i64 = 4_096;
/// Past this many entries to apply (or an eighth of the rows, when more), reading the map
/// again is cheaper than one seek per entry.
const REREAD_ABOVE: u64 = 8_192;

/// A map of sizes by rid (size plus one; 0: not known).
pub(crate) type Sizes = Arc<Vec<u32>>;

/// What `memstr_postings()` walked: the rows `(rowid, weighted frequency, own)` and FTS5's
/// totals (rows, tokens).
type Walked = (Vec<(i64, f64, bool)>, (i64, i64));

thread_local! {
    /// What the last `memstr_postings()` on this thread walked, for [`word_shares`], which
    /// runs the statement and takes it (an SQL function returns one value; this is a
    /// word's whole postings, handed over without a copy).
    static WALKED: RefCell<Option<Walked>> = const { RefCell::new(None) };
}

/// One word's rows as FTS5's `bm25()` scores them: `(rowid, share, own)` ascending by rowid,
/// where the share is the word's part of an any-word query's BM25 (larger is better) with
/// column weights key 3, themes 2, value 1 and `context`, and `own` says whether the row's
/// own words hold it (key, themes or value; not only its episode's context). `expr` is the
/// word as one FTS5 phrase; `sizes` the map [`DocSizes::refresh`] returned in the read
/// transaction this runs in (`None`: FTS5's `docsize` table).
pub(crate) fn word_shares(
    conn: &Connection,
    expr: &str,
    context: f64,
    sizes: Option<&Sizes>,
) -> rusqlite::Result<Vec<(i64, f64, bool)>> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    // A weight is a number the caller chose, not text: written into the SQL, it keeps one
    // cached statement per weight. The function walks every row holding the word at the
    // first: one row is asked for.
    let sql = format!(
        "SELECT memstr_postings(records_fts, 3.0, 2.0, 1.0, {context:.4}, 3) \
         FROM records_fts WHERE records_fts MATCH ?1 LIMIT 1"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    WALKED.with(|w| w.borrow_mut().take());
    let found = stmt.query_row([expr], |_| Ok(())).optional();
    // Taken before an error returns, so a thread keeps no word's rows between reads.
    let walked = WALKED.with(|w| w.borrow_mut().take());
    let found = found?;
    let (mut rows, (total_rows, tokens)) = match (found, walked) {
        (None, _) => return Ok(Vec::new()),
        (Some(()), Some(walked)) => walked,
        (Some(()), None) => return Err(misuse("memstr_postings result")),
    };
    // As FTS5's `fts5Bm25GetData` computes them, to the bit: the rows holding the phrase
    // (`nHit`, the rows a one-phrase query returns), `(nRow - nHit)` in integers, then doubles.
    let avgdl = tokens as f64 / total_rows as f64;
    let hits = rows.len() as i64;
    let x = ((total_rows - hits) as f64 + 0.5) / (hits as f64 + 0.5);
    let idf = match x.ln() {
        v if v <= 0.0 => 1e-6,
        v => v,
    };
    let known = |rid: i64| -> Option<u32> {
        let v = *sizes?.get(usize::try_from(rid).ok()?)?;
        (v != 0).then(|| v - 1)
    };
    for (rid, f, _) in rows.iter_mut() {
        let d = match known(*rid) {
            Some(v) => f64::from(v),
            None => {
                #[cfg(test)]
                tests::FALLBACKS.with(|n| n.set(n.get() + 1));
                // A row FTS5 walked has its size stored, or FTS5's own lookup fails too.
                stored_size(conn, *rid)?.ok_or(rusqlite::Error::QueryReturnedNoRows)? as f64
            }
        };
        // FTS5's `fts5Bm25Function` for one phrase: its sum starts at 0.0, and it returns
        // the negated score, which a search negated back.
        let mut score = 0.0;
        score += idf * ((*f * (K1 + 1.0)) / (*f + K1 * (1.0 - B + B * d / avgdl)));
        *f = -(-score);
    }
    Ok(rows)
}

/// Runs `f` inside one read transaction on `conn`: the caller's, or one begun for it, so
/// every read `f` makes sees one state of the store.
pub(crate) fn in_read_transaction<T, E: From<rusqlite::Error>>(
    conn: &Connection,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let tx = match conn.is_autocommit() {
        true => Some(conn.unchecked_transaction()?),
        false => None,
    };
    let out = f();
    if let Some(tx) = tx {
        tx.finish()?;
    }
    out
}

/// Notes that the full-text row of `rid` was written or deleted (`rid` 0: all of them), in
/// the transaction that did it.
pub(crate) fn changed(conn: &Connection, rid: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO fts_writes (rid) VALUES (?1)")?.execute([rid])?;
    let seq = conn.last_insert_rowid();
    if seq % TRIM_EVERY == 0 {
        conn.prepare_cached("DELETE FROM fts_writes WHERE seq <= ?1")?.execute([seq - LOG_KEEP])?;
    }
    Ok(())
}

/// Row sizes, shared by a store's connections (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct DocSizes {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// By rid: the row's size in tokens plus one (0: not known). `None`: not loaded, or
    /// found inconsistent; every score then takes FTS5's own lookup.
    sizes: Option<Arc<Vec<u32>>>,
    /// The last log entry applied.
    seq: i64,
    /// Rows known and their tokens, to compare with FTS5's totals.
    rows: u64,
    tokens: u64,
    /// A load has run: from then on, searches keep the map current.
    loaded: bool,
    /// The log position and FTS5's totals when a whole read disagreed with the totals.
    failed: Option<(i64, Option<(u64, u64)>)>,
    /// The map cannot be kept (no log table: a store this build has not migrated).
    off: bool,
}

/// FTS5's totals: rows and tokens, from its averages record.
fn totals(conn: &Connection) -> rusqlite::Result<Option<(u64, u64)>> {
    let block: Option<Vec<u8>> =
        conn.query_row("SELECT block FROM records_fts_data WHERE id = 1", [], |r| r.get(0)).optional()?;
    let Some(block) = block else { return Ok(Some((0, 0))) };
    let mut fields = Varints(&block);
    // A table never written holds an empty record.
    let Some(rows) = fields.next() else { return Ok(block.is_empty().then_some((0, 0))) };
    Ok(Some((rows, fields.sum())))
}

/// The highest rid the map holds for a table of `rows` rows: rids are dense in a store, so a
/// rid far past them is held by FTS5's lookup instead of an array that large.
fn room(rows: u64) -> usize {
    usize::try_from(rows.saturating_mul(4).saturating_add(1 << 20)).unwrap_or(usize::MAX)
}

/// Sets `rid`'s size in `sizes` when it fits (`bound`); whether it was set.
fn put(sizes: &mut Vec<u32>, rid: i64, size: u64, bound: usize) -> bool {
    let (Ok(at), Ok(value)) = (usize::try_from(rid), u32::try_from(size + 1)) else { return false };
    if at > bound {
        return false;
    }
    if at >= sizes.len() {
        sizes.resize(at + 1, 0);
    }
    sizes[at] = value;
    true
}

/// A row's size: the sum of its columns' sizes, SQLite varints in its `docsize` blob.
fn row_size(blob: &[u8]) -> u64 {
    Varints(blob).sum()
}

/// `rid`'s size as FTS5 stored it in its `docsize` table (`None`: no such row).
fn stored_size(conn: &Connection, rid: i64) -> rusqlite::Result<Option<u64>> {
    let mut stmt = conn.prepare_cached("SELECT sz FROM records_fts_docsize WHERE id = ?1")?;
    let blob: Option<Vec<u8>> = stmt.query_row([rid], |r| r.get(0)).optional()?;
    Ok(blob.map(|b| row_size(&b)))
}

struct Varints<'a>(&'a [u8]);

impl Iterator for Varints<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let (v, n) = super::fts::sqlite_varint(self.0)?;
        self.0 = &self.0[n..];
        Some(v)
    }
}

impl DocSizes {
    /// Reads the whole map (blocking; in one read transaction on `conn`, so the sizes, the
    /// log position and the totals are of one state). Called in the background when a
    /// store opens, and by [`DocSizes::refresh`] when applying the log would cost more.
    pub(crate) fn load(&self, conn: &Connection) -> rusqlite::Result<()> {
        in_read_transaction(conn, || self.read_all(conn).map(|_| ()))
    }

    fn read_all(&self, tx: &Connection) -> rusqlite::Result<Option<Sizes>> {
        let seq: i64 = match tx.query_row("SELECT coalesce(max(seq), 0) FROM fts_writes", [], |r| r.get(0)) {
            Ok(seq) => seq,
            Err(e) if e.to_string().contains("no such table") => {
                // No log to keep the map current by (a store this build has not migrated):
                // FTS5's lookup it is.
                *relock(&self.state) = State { off: true, ..State::default() };
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        #[cfg(test)]
        tests::WHOLE_READS.with(|n| n.set(n.get() + 1));
        let expected = totals(tx)?;
        let bound = room(expected.map_or(0, |t| t.0));
        let mut sizes = Vec::new();
        let (mut rows, mut tokens) = (0u64, 0u64);
        {
            let mut stmt = tx.prepare("SELECT id, sz FROM records_fts_docsize")?;
            let mut it = stmt.query([])?;
            while let Some(r) = it.next()? {
                let (rid, size) = (r.get::<_, i64>(0)?, row_size(r.get_ref(1)?.as_blob().unwrap_or(&[])));
                rows += 1;
                tokens += size;
                put(&mut sizes, rid, size, bound);
            }
        }
        let sizes = (expected == Some((rows, tokens))).then(|| Arc::new(sizes));
        let mut state = relock(&self.state);
        // A slower reload of an older state does not replace a newer map.
        if !state.loaded || seq >= state.seq {
            let failed = sizes.is_none().then_some((seq, expected));
            *state = State { sizes: sizes.clone(), seq, rows, tokens, failed, loaded: true, off: false };
        }
        Ok(sizes)
    }

    /// The map as `conn` sees the index, for scores read in the same read transaction: the
    /// map brought up to it (the log's new entries applied, or the map read again). `None`
    /// (FTS5's lookup serves the scores) outside a transaction, before the first load, when
    /// the map is already past what `conn` sees (an older snapshot; the map stays ahead),
    /// and while a whole read does not agree with FTS5's totals (read again only once they
    /// or the log move).
    pub(crate) fn refresh(&self, conn: &Connection) -> rusqlite::Result<Option<Sizes>> {
        if conn.is_autocommit() {
            return Ok(None);
        }
        let mut state = relock(&self.state);
        if state.off || !state.loaded {
            return Ok(None);
        }
        let last: i64 = conn.query_row("SELECT coalesce(max(seq), 0) FROM fts_writes", [], |r| r.get(0))?;
        if last < state.seq {
            return Ok(None);
        }
        let now = totals(conn)?;
        if state.sizes.is_none() && state.failed == Some((last, now)) {
            return Ok(None);
        }
        let pending = (last - state.seq) as u64;
        if pending == 0 && state.sizes.is_some() && now == Some((state.rows, state.tokens)) {
            return Ok(state.sizes.clone());
        }
        let first: Option<i64> = conn
            .query_row("SELECT min(seq) FROM fts_writes WHERE seq > ?1", [state.seq], |r| r.get(0))
            .optional()?
            .flatten();
        let gap = first.is_some_and(|f| f != state.seq + 1);
        if state.sizes.is_none() || pending == 0 || gap || pending > REREAD_ABOVE.max(state.rows / 8) {
            drop(state);
            return self.read_all(conn);
        }
        let mut all = false;
        {
            let State { sizes, seq, rows, tokens, .. } = &mut *state;
            let bound = room(*rows);
            let sizes = Arc::make_mut(sizes.as_mut().expect("checked above"));
            let mut log = conn.prepare_cached("SELECT seq, rid FROM fts_writes WHERE seq > ?1 ORDER BY seq")?;
            let mut entries = log.query([*seq])?;
            while let Some(e) = entries.next()? {
                let (at, rid): (i64, i64) = (e.get(0)?, e.get(1)?);
                *seq = at;
                if rid == 0 {
                    all = true;
                    break;
                }
                // A row past the map's bound is not held: a change to it shows in the
                // totals, and the map is read again.
                if let Some(old) = usize::try_from(rid).ok().and_then(|i| sizes.get_mut(i)).filter(|v| **v != 0) {
                    *rows -= 1;
                    *tokens -= u64::from(*old - 1);
                    *old = 0;
                }
                if let Some(new) = stored_size(conn, rid)? {
                    if put(sizes, rid, new, bound) {
                        *rows += 1;
                        *tokens += new;
                    }
                }
            }
        }
        if all || now != Some((state.rows, state.tokens)) {
            drop(state);
            return self.read_all(conn);
        }
        Ok(state.sizes.clone())
    }

    /// Whether the map is loaded and agrees with FTS5.
    #[cfg(test)]
    pub(crate) fn loaded(&self) -> bool {
        relock(&self.state).sizes.is_some()
    }
}

/// Registers on `conn` the FTS5 functions the reads of words use, each walking the query's
/// first phrase (a word) over the whole table when called on the statement's one row:
///
/// - `memstr_postings(table, weights..., n)`: every row holding the word, for
///   [`word_shares`];
/// - `memstr_count(table, limit)`: the rows holding it, counted up to `limit`.
///
/// FTS5 walks the phrase itself (its `xQueryPhrase`): no SQL row per match, which cost a
/// fifth of a count and more of a read of postings.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: `fts5_api` comes from SQLite for this connection, which outlives it; the
    // functions keep no data of their own.
    unsafe {
        let api = fts5_api(conn)?;
        let create = (*api).xCreateFunction.ok_or_else(|| misuse("fts5 xCreateFunction"))?;
        for (name, f) in [(c"memstr_postings", postings as Fts5Fn), (c"memstr_count", count as Fts5Fn)] {
            let rc = create(api, name.as_ptr(), std::ptr::null_mut(), Some(f), None);
            if rc != ffi::SQLITE_OK {
                return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("fts5 function".into())));
            }
        }
    }
    Ok(())
}

type Fts5Fn = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

fn misuse(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_MISUSE), Some(format!("{what} missing")))
}

/// FTS5's API for `conn`, as SQLite hands it out (`SELECT fts5(?)` with a bound pointer).
unsafe fn fts5_api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    let db = conn.handle();
    let mut stmt = std::ptr::null_mut();
    let rc = ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, std::ptr::null_mut());
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("SELECT fts5(?1)".into())));
    }
    let mut api: *mut ffi::fts5_api = std::ptr::null_mut();
    ffi::sqlite3_bind_pointer(stmt, 1, (&mut api as *mut *mut ffi::fts5_api).cast(), c"fts5_api_ptr".as_ptr(), None);
    ffi::sqlite3_step(stmt);
    ffi::sqlite3_finalize(stmt);
    match api.is_null() {
        true => Err(misuse("fts5 API")),
        false => Ok(api),
    }
}

/// Calls `each(phrase, column)` for every instance of the query's phrases in the row.
unsafe fn instances(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    mut each: impl FnMut(c_int, c_int),
) -> Result<(), c_int> {
    let (Some(inst_count), Some(inst)) = (api.xInstCount, api.xInst) else { return Err(ffi::SQLITE_MISUSE) };
    let mut n_inst = 0;
    let rc = inst_count(fts, &mut n_inst);
    if rc != ffi::SQLITE_OK {
        return Err(rc);
    }
    for i in 0..n_inst {
        let (mut ip, mut ic, mut io) = (0, 0, 0);
        let rc = inst(fts, i, &mut ip, &mut ic, &mut io);
        if rc != ffi::SQLITE_OK {
            return Err(rc);
        }
        each(ip, ic);
    }
    Ok(())
}

/// `xQueryPhrase`'s walk of the query's first phrase over the whole table, in rowid order:
/// `each` is called with every row holding it and says whether to go on.
unsafe fn walk(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    mut each: impl FnMut(&ffi::Fts5ExtensionApi, *mut ffi::Fts5Context) -> Result<bool, c_int>,
) -> Result<(), c_int> {
    type Each<'a> = dyn FnMut(&ffi::Fts5ExtensionApi, *mut ffi::Fts5Context) -> Result<bool, c_int> + 'a;
    unsafe extern "C" fn step(
        api: *const ffi::Fts5ExtensionApi,
        fts: *mut ffi::Fts5Context,
        data: *mut c_void,
    ) -> c_int {
        let each = &mut *(data as *mut &mut Each);
        match each(&*api, fts) {
            Ok(true) => ffi::SQLITE_OK,
            Ok(false) => ffi::SQLITE_DONE,
            Err(rc) => rc,
        }
    }
    let Some(query_phrase) = api.xQueryPhrase else { return Err(ffi::SQLITE_MISUSE) };
    let mut each: &mut Each = &mut each;
    match query_phrase(fts, 0, (&mut each as *mut &mut Each).cast(), Some(step)) {
        ffi::SQLITE_OK => Ok(()),
        rc => Err(rc),
    }
}

/// `memstr_postings(table, weights..., n)`: walks every row holding the query's phrase (a
/// word) and leaves in [`WALKED`] each row's frequency of it, every instance counted by its
/// column's weight (`fts5Bm25Function`'s `aFreq`), and whether it occurs in one of the
/// first `n` columns; with FTS5's row and token totals, as `fts5Bm25GetData` reads them.
/// Returns 0.
unsafe extern "C" fn postings(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    let api = &*api;
    let result = (|| -> Result<Walked, c_int> {
        let (Some(row_count), Some(total), Some(rowid)) = (api.xRowCount, api.xColumnTotalSize, api.xRowid) else {
            return Err(ffi::SQLITE_MISUSE);
        };
        let args: Vec<*mut ffi::sqlite3_value> = (0..n_val.max(0) as usize).map(|i| *values.add(i)).collect();
        let (own, weights) = match args.split_last() {
            Some((own, weights)) => (ffi::sqlite3_value_int(*own), weights),
            None => return Err(ffi::SQLITE_MISUSE),
        };
        let weights: Vec<f64> = weights.iter().map(|v| ffi::sqlite3_value_double(*v)).collect();
        let (mut rows, mut tokens) = (0i64, 0i64);
        let rc = row_count(fts, &mut rows);
        if rc != ffi::SQLITE_OK {
            return Err(rc);
        }
        let rc = total(fts, -1, &mut tokens);
        if rc != ffi::SQLITE_OK {
            return Err(rc);
        }
        let mut found = Vec::new();
        walk(api, fts, |api, row| {
            let (mut freq, mut held) = (0.0, false);
            instances(api, row, |ip, ic| {
                if ip == 0 {
                    freq += weights.get(ic as usize).copied().unwrap_or(1.0);
                    held |= ic < own;
                }
            })?;
            found.push((rowid(row), freq, held));
            Ok(true)
        })?;
        Ok((found, (rows, tokens)))
    })();
    match result {
        Ok(walked) => match WALKED.try_with(|w| *w.borrow_mut() = Some(walked)) {
            Ok(()) => ffi::sqlite3_result_int(ctx, 0),
            // During thread teardown there is nowhere to leave it.
            Err(_) => ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE),
        },
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

/// `memstr_count(table, limit)`: the rows holding the query's phrase, counted no further
/// than `limit`.
unsafe extern "C" fn count(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    let limit = if n_val > 0 { ffi::sqlite3_value_int64(*values) } else { i64::MAX };
    let mut n = 0i64;
    let walked = walk(&*api, fts, |_, _| {
        n += 1;
        Ok(n < limit)
    });
    match walked {
        Ok(()) => ffi::sqlite3_result_int64(ctx, n),
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::Cell;

    thread_local! {
        /// Scores computed with FTS5's own size lookup, on this thread.
        pub(super) static FALLBACKS: Cell<u64> = const { Cell::new(0) };
        /// Whole reads of the map, on this thread.
        pub(super) static WHOLE_READS: Cell<u64> = const { Cell::new(0) };
    }

    const WORDS: [&str; 8] = ["garden", "paris", "train", "cake", "budget", "sister", "marathon", "piano"];

    fn index() -> (Connection, DocSizes) {
        let conn = crate::engine::fts::bare_index();
        conn.execute_batch("CREATE TABLE fts_writes (seq INTEGER PRIMARY KEY, rid INTEGER NOT NULL) STRICT;").unwrap();
        (conn, DocSizes::default())
    }

    /// Refreshes the map and compares every score as a search would read them (in one
    /// read transaction); how many scores looked their size up in FTS5's table.
    fn refreshed_and_compared(conn: &Connection, sizes: &DocSizes) -> u64 {
        let tx = conn.unchecked_transaction().unwrap();
        let map = sizes.refresh(&tx).unwrap();
        let before = FALLBACKS.with(Cell::get);
        assert_same_scores(&tx, map.as_ref());
        tx.finish().unwrap();
        FALLBACKS.with(Cell::get) - before
    }

    fn text(seed: u64, words: usize) -> String {
        (0..words).map(|i| WORDS[((seed >> (i % 16 * 4)) as usize + i) % WORDS.len()]).collect::<Vec<_>>().join(" ")
    }

    /// Every word's scores both ways, bit for bit, and the own-words flag.
    fn assert_same_scores(conn: &Connection, map: Option<&Sizes>) {
        for w in WORDS {
            let expr = format!("\"{w}\"");
            let mut stmt = conn
                .prepare(
                    "SELECT rowid, bm25(records_fts, 3.0, 2.0, 1.0, 0.2), bm25(records_fts, 3.0, 2.0, 1.0, 0.0) != 0.0
                     FROM records_fts WHERE records_fts MATCH ?1 ORDER BY rowid",
                )
                .unwrap();
            let fts5: Vec<(i64, f64, bool)> = stmt
                .query_map([&expr], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let ours = word_shares(conn, &expr, 0.2, map).unwrap();
            assert_eq!(fts5.len(), ours.len(), "{w}: rows");
            for ((rid, fts5, own), (our_rid, ours, holds)) in fts5.into_iter().zip(ours) {
                assert_eq!(rid, our_rid);
                #[cfg(target_arch = "x86_64")]
                assert_eq!((-fts5).to_bits(), ours.to_bits(), "{w}, row {rid}: {fts5} vs {ours}");
                #[cfg(not(target_arch = "x86_64"))]
                assert!((fts5 + ours).abs() <= 1e-12 * fts5.abs().max(1.0), "{w}, row {rid}: {fts5} vs {ours}");
                assert_eq!(own, holds, "{w}, row {rid}: own words");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Writes of every kind the store makes (new rows, rewritten context, deletions),
        /// logged as the store logs them: after each batch the map is current, no score
        /// falls back to FTS5's lookup, and every score equals FTS5's to the bit.
        #[test]
        fn word_shares_equal_fts5s_bm25_as_rows_are_written(
            ops in prop::collection::vec((0u8..4, 1i64..60, any::<u64>(), 1usize..12), 1..120),
            batch in 1usize..20,
        ) {
            let (conn, sizes) = index();
            sizes.load(&conn).unwrap();
            prop_assert!(sizes.loaded());
            for chunk in ops.chunks(batch) {
                let tx = conn.unchecked_transaction().unwrap();
                for &(op, rid, seed, n) in chunk {
                    tx.execute("DELETE FROM records_fts WHERE rowid = ?1", [rid]).unwrap();
                    match op {
                        0 => {}
                        1 => {
                            tx.execute(
                                "INSERT INTO records_fts (rowid, key, themes, value, context) VALUES (?1, ?2, '', ?3, ?4)",
                                (rid, text(seed, 1), text(seed >> 3, n), text(seed >> 7, n / 2)),
                            )
                            .unwrap();
                        }
                        _ => {
                            tx.execute(
                                "INSERT INTO records_fts (rowid, value, context) VALUES (?1, ?2, ?3)",
                                (rid, text(seed, n), text(seed >> 5, op as usize * 3)),
                            )
                            .unwrap();
                        }
                    }
                    changed(&tx, rid).unwrap();
                }
                tx.commit().unwrap();
                let fallbacks = refreshed_and_compared(&conn, &sizes);
                prop_assert!(sizes.loaded());
                prop_assert_eq!(fallbacks, 0, "a score looked its size up");
            }
        }
    }

    /// FTS5 saves its totals when a transaction commits: a word scored inside a writer's
    /// open transaction takes them from FTS5 itself, not from its saved averages record.
    #[test]
    fn words_scored_in_a_writers_open_transaction_equal_fts5s_bm25() {
        let (conn, sizes) = index();
        four_word_rows(&conn);
        sizes.load(&conn).unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        for rid in 21..=40i64 {
            tx.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (rid, text(rid as u64 * 7, 9)))
                .unwrap();
        }
        tx.execute("DELETE FROM records_fts WHERE rowid IN (2, 5)", []).unwrap();
        assert_same_scores(&tx, None);
        tx.finish().unwrap();
    }

    #[test]
    fn a_write_the_log_missed_is_found_by_the_totals_and_the_map_read_again() {
        let (conn, sizes) = index();
        for rid in 1..=50i64 {
            conn.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (rid, text(rid as u64, 3))).unwrap();
            changed(&conn, rid).unwrap();
        }
        sizes.load(&conn).unwrap();
        // A writer that does not log (an older build): row 7 grows, nothing says so.
        conn.execute("UPDATE records_fts SET context = 'garden garden piano' WHERE rowid = 7", []).unwrap();
        conn.execute("INSERT INTO records_fts (rowid, value) VALUES (51, 'cake')", []).unwrap();
        changed(&conn, 51).unwrap();
        assert_eq!(refreshed_and_compared(&conn, &sizes), 0);
        assert!(sizes.loaded());
    }

    /// Rewrites rows 1 to 3 so that the totals do not move: row 1 two tokens longer, row 2
    /// two shorter, row 3 the same length. Only the log can tell the map what changed.
    fn rewrite_keeping_the_totals(conn: &Connection, log: bool) {
        for (rid, value) in
            [(1, "garden paris train cake budget sister"), (2, "garden piano"), (3, "cake cake cake cake")]
        {
            conn.execute("DELETE FROM records_fts WHERE rowid = ?1", [rid]).unwrap();
            conn.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (rid, value)).unwrap();
            if log {
                changed(conn, rid).unwrap();
            }
        }
    }

    fn four_word_rows(conn: &Connection) {
        for rid in 1..=20i64 {
            conn.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (rid, text(rid as u64, 4))).unwrap();
            changed(conn, rid).unwrap();
        }
    }

    #[test]
    fn a_map_behind_a_trimmed_log_is_read_again() {
        let (conn, sizes) = index();
        four_word_rows(&conn);
        sizes.load(&conn).unwrap();
        rewrite_keeping_the_totals(&conn, true);
        // Trimmed past the map's position: the entries for rows 1 and 2 are gone, and
        // applying row 3's alone would leave totals that agree.
        conn.execute("DELETE FROM fts_writes WHERE seq < (SELECT max(seq) FROM fts_writes)", []).unwrap();
        assert_eq!(refreshed_and_compared(&conn, &sizes), 0);
        assert!(sizes.loaded());
    }

    #[test]
    fn a_rebuild_logged_as_rid_zero_reads_the_map_again() {
        let (conn, sizes) = index();
        four_word_rows(&conn);
        sizes.load(&conn).unwrap();
        // Changes the log does not name, then the entry a rebuild writes.
        rewrite_keeping_the_totals(&conn, false);
        changed(&conn, 0).unwrap();
        assert_eq!(refreshed_and_compared(&conn, &sizes), 0);
        assert!(sizes.loaded());
    }

    /// A whole read that disagrees with FTS5's totals leaves the map off (FTS5's lookup
    /// scores) and is not repeated at every search: only once the log or the totals move.
    #[test]
    fn a_map_that_disagrees_with_the_totals_is_read_again_only_when_something_moves() {
        let (conn, sizes) = index();
        four_word_rows(&conn);
        let reads = || WHOLE_READS.with(Cell::get);
        // Row 1's size in FTS5's own table, changed behind its back (4 words in `value`
        // said to be 9): a whole read sums to more than the totals say.
        let original: Vec<u8> =
            conn.query_row("SELECT sz FROM records_fts_docsize WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(original, [0, 0, 4, 0]);
        conn.execute("UPDATE records_fts_docsize SET sz = X'00000900' WHERE id = 1", []).unwrap();
        sizes.load(&conn).unwrap();
        assert!(!sizes.loaded());
        let before = reads();
        assert!(refreshed_and_compared(&conn, &sizes) > 0, "FTS5's lookup scores");
        assert!(refreshed_and_compared(&conn, &sizes) > 0);
        assert_eq!(reads(), before, "read again with nothing moved");
        // A logged write moves the log: read once more, still in disagreement.
        conn.execute("INSERT INTO records_fts (rowid, value) VALUES (21, 'cake')", []).unwrap();
        changed(&conn, 21).unwrap();
        assert!(refreshed_and_compared(&conn, &sizes) > 0);
        assert!(refreshed_and_compared(&conn, &sizes) > 0);
        assert_eq!(reads(), before + 1);
        assert!(!sizes.loaded());
        // Row 1 as FTS5 wrote it: the next move reads a map that agrees, and it is used.
        conn.execute("UPDATE records_fts_docsize SET sz = ?1 WHERE id = 1", [&original]).unwrap();
        changed(&conn, 1).unwrap();
        assert_eq!(refreshed_and_compared(&conn, &sizes), 0);
        assert_eq!(reads(), before + 2);
        assert!(sizes.loaded());
    }

    #[test]
    fn without_a_log_every_score_is_fts5s_own() {
        let conn = crate::engine::fts::bare_index();
        conn.execute("INSERT INTO records_fts (rowid, value) VALUES (1, 'garden paris')", []).unwrap();
        let sizes = DocSizes::default();
        sizes.load(&conn).unwrap();
        assert!(refreshed_and_compared(&conn, &sizes) > 0);
        assert!(!sizes.loaded());
    }

    #[test]
    fn a_search_older_than_the_map_scores_with_fts5s_lookup_and_leaves_the_map_ahead() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 CREATE VIRTUAL TABLE records_fts USING fts5(key, themes, value, context);
                 CREATE TABLE fts_writes (seq INTEGER PRIMARY KEY, rid INTEGER NOT NULL) STRICT;",
            )
            .unwrap();
        let reader = Connection::open(&path).unwrap();
        register(&reader).unwrap();
        let write = |rid: i64, value: &str| {
            writer.execute("DELETE FROM records_fts WHERE rowid = ?1", [rid]).unwrap();
            writer.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (rid, value)).unwrap();
            changed(&writer, rid).unwrap();
        };
        for rid in 1..=20 {
            write(rid, &text(rid as u64, 5));
        }
        let sizes = DocSizes::default();
        sizes.load(&reader).unwrap();
        // An older snapshot: its read transaction began before the next write.
        let old = reader.unchecked_transaction().unwrap();
        old.query_row("SELECT count(*) FROM fts_writes", [], |r| r.get::<_, i64>(0)).unwrap();
        write(3, "garden garden garden garden garden garden garden paris");
        // A newer search (on the writer's connection) brings the map past the old snapshot.
        register(&writer).unwrap();
        let tx = writer.unchecked_transaction().unwrap();
        let newer = sizes.refresh(&tx).unwrap().expect("the map, current");
        assert_eq!(newer[3], 8 + 1);
        tx.finish().unwrap();
        // The old snapshot gets no map: its scores come from FTS5's lookup, equal to bm25.
        assert!(sizes.refresh(&old).unwrap().is_none());
        let before = FALLBACKS.with(Cell::get);
        assert_same_scores(&old, None);
        assert!(FALLBACKS.with(Cell::get) > before);
        drop(old);
        // The map stayed ahead: a new read sees it current.
        let now = reader.unchecked_transaction().unwrap();
        assert_eq!(sizes.refresh(&now).unwrap().expect("current")[3], 8 + 1);
    }

    #[test]
    fn the_log_is_trimmed_as_it_grows() {
        let (conn, _) = index();
        for rid in 0..(LOG_KEEP + TRIM_EVERY * 2) {
            changed(&conn, rid % 100 + 1).unwrap();
        }
        let held: i64 = conn.query_row("SELECT count(*) FROM fts_writes", [], |r| r.get(0)).unwrap();
        assert!(held <= LOG_KEEP + TRIM_EVERY, "{held} entries held");
    }
}
