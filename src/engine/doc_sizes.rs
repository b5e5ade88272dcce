//! Each full-text row's size in tokens, held in memory, and the BM25 that reads it.
//!
//! FTS5's `bm25()` looks up every matching row's size in its `docsize` table: one B-tree
//! seek per row, most of the cost of scoring a word (at 100k memories, 2 µs of the 2.5 µs
//! a matching row takes). `memstr_bm25()` is the same function, operation for operation,
//! with the size read from [`DocSizes`]: from an array instead of a seek, the same scores
//! to the bit on x86-64 (the tests compare them), where SQLite's C is compiled without
//! fused multiply-adds; a compiler that fuses them (arm64) may differ in the last bits. A
//! row it does not know, or a map not loaded or found inconsistent, falls back to FTS5's
//! own lookup.
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
//! ([`DocSizes::refresh`] returns it; [`with_sizes`] hands it to the statements on this
//! thread): a search whose snapshot is older than the map scores with FTS5's lookup, and
//! the map never goes back to it.

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

thread_local! {
    /// The map the statements this thread runs score with (see [`with_sizes`]).
    static IN_USE: RefCell<Option<Sizes>> = const { RefCell::new(None) };
}

/// Runs `f` with `memstr_bm25()` reading row sizes from `sizes` on this thread (`None`:
/// FTS5's own lookup). The map must be the one [`DocSizes::refresh`] returned inside the
/// read transaction `f` reads in.
pub(crate) fn with_sizes<T>(sizes: Option<Sizes>, f: impl FnOnce() -> T) -> T {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            IN_USE.with(|c| c.borrow_mut().take());
        }
    }
    IN_USE.with(|c| *c.borrow_mut() = sizes);
    let _clear = Clear;
    f()
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
            let mut size = conn.prepare_cached("SELECT sz FROM records_fts_docsize WHERE id = ?1")?;
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
                let blob: Option<Vec<u8>> = size.query_row([rid], |r| r.get(0)).optional()?;
                if let Some(new) = blob.map(|b| row_size(&b)) {
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

/// Registers `memstr_bm25()` and `memstr_holds()` on `conn` (sizes from [`with_sizes`]).
///
/// - `memstr_bm25(table, weights...)`: FTS5's `bm25()`, the same arguments and result.
/// - `memstr_holds(table, n)`: 1 when the query's first phrase occurs in one of the first
///   `n` columns of the row, else 0.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: `fts5_api` comes from SQLite for this connection, which outlives it; the
    // functions keep no data of their own (the map comes from `with_sizes`).
    unsafe {
        let api = fts5_api(conn)?;
        let create = (*api).xCreateFunction.ok_or_else(|| misuse("fts5 xCreateFunction"))?;
        for (name, f) in [(c"memstr_bm25", bm25 as Fts5Fn), (c"memstr_holds", holds as Fts5Fn)] {
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

/// What one statement's `memstr_bm25()` computes once: as FTS5's `Fts5Bm25Data`, and the
/// map's snapshot.
struct Query {
    idf: Vec<f64>,
    freq: Vec<f64>,
    avgdl: f64,
    sizes: Option<Sizes>,
}

unsafe extern "C" fn drop_query(data: *mut c_void) {
    drop(Box::from_raw(data as *mut Query));
}

unsafe extern "C" fn count_hit(_: *const ffi::Fts5ExtensionApi, _: *mut ffi::Fts5Context, data: *mut c_void) -> c_int {
    *(data as *mut i64) += 1;
    ffi::SQLITE_OK
}

/// FTS5's `fts5Bm25GetData`, keeping the map's snapshot beside it.
unsafe fn query_data(api: &ffi::Fts5ExtensionApi, fts: *mut ffi::Fts5Context) -> Result<*mut Query, c_int> {
    let (Some(get), Some(set)) = (api.xGetAuxdata, api.xSetAuxdata) else { return Err(ffi::SQLITE_MISUSE) };
    let found = get(fts, 0) as *mut Query;
    if !found.is_null() {
        return Ok(found);
    }
    let (Some(phrases), Some(row_count), Some(total), Some(query_phrase)) =
        (api.xPhraseCount, api.xRowCount, api.xColumnTotalSize, api.xQueryPhrase)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let n = phrases(fts).max(0) as usize;
    let (mut rows, mut tokens) = (0i64, 0i64);
    let rc = row_count(fts, &mut rows);
    if rc != ffi::SQLITE_OK {
        return Err(rc);
    }
    let rc = total(fts, -1, &mut tokens);
    if rc != ffi::SQLITE_OK {
        return Err(rc);
    }
    let avgdl = tokens as f64 / rows as f64;
    let mut idf = Vec::with_capacity(n);
    for i in 0..n {
        let mut hits = 0i64;
        let rc = query_phrase(fts, i as c_int, (&mut hits as *mut i64).cast(), Some(count_hit));
        if rc != ffi::SQLITE_OK {
            return Err(rc);
        }
        // As FTS5 computes it, to the bit: `(nRow - nHit)` in integers, then doubles.
        let x = ((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5);
        let v = x.ln();
        idf.push(if v <= 0.0 { 1e-6 } else { v });
    }
    // During thread teardown there is no map: FTS5's lookup.
    let sizes = IN_USE.try_with(|c| c.borrow().clone()).ok().flatten();
    let data = Box::into_raw(Box::new(Query { idf, freq: vec![0.0; n], avgdl, sizes }));
    let rc = set(fts, data.cast(), Some(drop_query));
    if rc != ffi::SQLITE_OK {
        return Err(rc);
    }
    Ok(data)
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

/// FTS5's `fts5Bm25Function`, the row's size from the map where it is known.
unsafe extern "C" fn bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let api = &*api;
    let result = (|| -> Result<f64, c_int> {
        let q = &mut *query_data(api, fts)?;
        let (Some(rowid), Some(column_size)) = (api.xRowid, api.xColumnSize) else {
            return Err(ffi::SQLITE_MISUSE);
        };
        q.freq.iter_mut().for_each(|f| *f = 0.0);
        instances(api, fts, |ip, ic| {
            let w = if n_val > ic { ffi::sqlite3_value_double(*values.add(ic as usize)) } else { 1.0 };
            if let Some(f) = q.freq.get_mut(ip as usize) {
                *f += w;
            }
        })?;
        let known =
            q.sizes.as_ref().and_then(|s| s.get(usize::try_from(rowid(fts)).ok()?).copied()).filter(|&v| v != 0);
        let d = match known {
            Some(v) => f64::from(v - 1),
            None => {
                #[cfg(test)]
                tests::FALLBACKS.with(|n| n.set(n.get() + 1));
                let mut n_tok = 0;
                let rc = column_size(fts, -1, &mut n_tok);
                if rc != ffi::SQLITE_OK {
                    return Err(rc);
                }
                f64::from(n_tok)
            }
        };
        let mut score = 0.0;
        for (idf, f) in q.idf.iter().zip(&q.freq) {
            score += idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / q.avgdl)));
        }
        Ok(-score)
    })();
    match result {
        Ok(v) => ffi::sqlite3_result_double(ctx, v),
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

/// Whether the row holds the first phrase in one of its first `n` columns.
unsafe extern "C" fn holds(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    let columns = if n_val > 0 { ffi::sqlite3_value_int(*values) } else { 0 };
    let mut held = false;
    match instances(&*api, fts, |ip, ic| held |= ip == 0 && ic < columns) {
        Ok(()) => ffi::sqlite3_result_int(ctx, c_int::from(held)),
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
        with_sizes(map, || assert_same_scores(&tx));
        tx.finish().unwrap();
        FALLBACKS.with(Cell::get) - before
    }

    fn text(seed: u64, words: usize) -> String {
        (0..words).map(|i| WORDS[((seed >> (i % 16 * 4)) as usize + i) % WORDS.len()]).collect::<Vec<_>>().join(" ")
    }

    /// Every word's scores both ways, bit for bit, and the own-words flag.
    fn assert_same_scores(conn: &Connection) {
        for w in WORDS {
            let mut stmt = conn
                .prepare(
                    "SELECT rowid, bm25(records_fts, 3.0, 2.0, 1.0, 0.2), memstr_bm25(records_fts, 3.0, 2.0, 1.0, 0.2),
                        bm25(records_fts, 3.0, 2.0, 1.0, 0.0) != 0.0, memstr_holds(records_fts, 3)
                     FROM records_fts WHERE records_fts MATCH ?1",
                )
                .unwrap();
            let rows = stmt
                .query_map([format!("\"{w}\"")], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, f64>(1)?,
                        r.get::<_, f64>(2)?,
                        r.get::<_, bool>(3)?,
                        r.get::<_, bool>(4)?,
                    ))
                })
                .unwrap();
            for row in rows {
                let (rid, fts5, ours, own, holds) = row.unwrap();
                #[cfg(target_arch = "x86_64")]
                assert_eq!(fts5.to_bits(), ours.to_bits(), "{w}, row {rid}: {fts5} vs {ours}");
                #[cfg(not(target_arch = "x86_64"))]
                assert!((fts5 - ours).abs() <= 1e-12 * fts5.abs().max(1.0), "{w}, row {rid}: {fts5} vs {ours}");
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
        fn memstr_bm25_equals_fts5s_bm25_as_rows_are_written(
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
        with_sizes(None, || assert_same_scores(&old));
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
