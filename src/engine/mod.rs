//! The storage engine: the one owner of the database.
//!
//! It holds the connections (one writer, a small pool of readers beside it in WAL mode),
//! the schema, typed reads and writes of rows, [`apply`] (the single path by which any
//! event changes state), [`ingest`] (the one door for events from elsewhere), references
//! ([`refs`]) and the relay books ([`books`]). It knows no ranking and no lifecycle rule:
//! search, the embedding pipeline and the lifecycle call it with the handles they need.

pub(crate) mod apply;
#[cfg(feature = "sync")]
pub(crate) mod books;
pub(crate) mod doc_sizes;
pub(crate) mod edges;
pub(crate) mod episodes;
#[cfg_attr(not(feature = "vectors"), allow(dead_code))]
pub(crate) mod fts;
pub(crate) mod ingest;
pub(crate) mod kinds;
pub(crate) mod links;
pub(crate) mod observations;
mod open;
pub(crate) mod records;
pub(crate) mod refs;
pub(crate) mod relay_list;
mod schema;
pub(crate) mod vectors;
pub(crate) mod write;

use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::clock::Clock;
use crate::codec::Codec;
use crate::error::{Error, Result};

pub use apply::Outcome;
pub use ingest::FUTURE_SLACK;
pub(crate) use open::Opened;
pub use records::{ImportReport, StoreStats};
pub use refs::{address_of, Resolved};

/// Reader connections at most: enough that a search, a recall and an export run while a
/// consolidation cycle reads, few enough that their page caches stay small.
const MAX_READERS: usize = 4;

/// What a handle may do to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read and write.
    ReadWrite,
    /// Evaluating at a fixed time (`--now`): reads are peeks, nothing is signed.
    Evaluate,
    /// The files are read-only: every write fails with [`Error::ReadOnlyStore`].
    ReadOnly,
}

/// Commits that changed events: announced to live sync, counted for caches.
struct Notify {
    /// Set inside a transaction that changed events; announced after it commits.
    changed: AtomicBool,
    /// Counts commits that changed events (live sync pushes on each).
    changes: tokio::sync::watch::Sender<u64>,
    /// Bumped by every committed change; caches (the knowledge graph) compare against it.
    generation: AtomicU64,
}

/// The writer and the pool of readers.
struct Connections {
    writer: Mutex<Connection>,
    /// Idle readers, the most recently used last (its page cache is the warmest).
    idle: Mutex<Vec<Connection>>,
    /// Readers open, idle or lent.
    open: Mutex<usize>,
    returned: Condvar,
}

/// The storage engine's handle. Shared as `Arc<Engine>`.
pub(crate) struct Engine {
    conns: Connections,
    path: PathBuf,
    codec: Codec,
    clock: Arc<dyn Clock>,
    /// This store's name in version vectors and access counters (random, per store file).
    device: String,
    access: Access,
    /// Opens another reader exactly as the writer was opened (flags, key, pragmas).
    reader: open::ReaderRecipe,
    notify: Notify,
    /// The log size past which [`Engine::bound_wal`] tries again after a checkpoint that
    /// readers kept from finishing (0: [`WAL_BOUND`]).
    wal_retry_above: AtomicU64,
}

/// A lock that outlives a panic: a panicking closure's transaction rolled back as it
/// unwound, so the connection is as it was before it; refusing every later call would
/// leave the store unusable for nothing.
fn relock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A reader lent to one closure; back to the pool on drop (also when the closure panics).
struct Lent<'a> {
    engine: &'a Engine,
    conn: Option<Connection>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if std::thread::panicking() {
                // A statement may have been left half read: drop it and open another later.
                drop(conn);
                *relock(&self.engine.conns.open) -= 1;
            } else {
                relock(&self.engine.conns.idle).push(conn);
            }
            self.engine.conns.returned.notify_one();
        }
    }
}

/// How long a connection waits for a lock another connection holds.
pub(crate) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The write-ahead log's size past which a commit empties it ([`Engine::bound_wal`]).
#[cfg(not(test))]
const WAL_BOUND: u64 = 128 << 20;
#[cfg(test)]
const WAL_BOUND: u64 = 1 << 20;

impl Engine {
    /// The SQLite file.
    pub(crate) fn path(&self) -> &FsPath {
        &self.path
    }

    /// Signs and decodes as this store.
    pub(crate) fn codec(&self) -> &Codec {
        &self.codec
    }

    /// "Now", per the store's clock.
    pub(crate) fn now(&self) -> f64 {
        self.clock.now()
    }

    /// This store's device id.
    pub(crate) fn device(&self) -> &str {
        &self.device
    }

    /// Opened to evaluate at a fixed time, or read-only on disk: sign nothing, count no access.
    pub(crate) fn evaluate_only(&self) -> bool {
        self.access != Access::ReadWrite
    }

    /// The store's files are read-only.
    pub(crate) fn read_only(&self) -> bool {
        self.access == Access::ReadOnly
    }

    /// Encrypted at rest (docs/encryption.md).
    pub(crate) fn encrypted(&self) -> bool {
        self.reader.encrypted()
    }

    /// Full-text row sizes in memory, for search's BM25 ([`doc_sizes`]).
    pub(crate) fn doc_sizes(&self) -> &doc_sizes::DocSizes {
        self.reader.sizes()
    }

    /// Notes that the running transaction changed events.
    pub(crate) fn touch_events(&self) {
        self.notify.changed.store(true, Ordering::SeqCst);
    }

    /// A receiver that sees a new value after every commit that changed events.
    pub(crate) fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.notify.changes.subscribe()
    }

    /// The count of committed changes (for caches).
    pub(crate) fn generation(&self) -> u64 {
        self.notify.generation.load(Ordering::SeqCst)
    }

    /// Takes an idle reader, opens one when fewer than [`MAX_READERS`] are open, else waits
    /// for one to come back.
    fn lend(&self) -> Result<Lent<'_>> {
        let mut idle = relock(&self.conns.idle);
        loop {
            if let Some(conn) = idle.pop() {
                return Ok(Lent { engine: self, conn: Some(conn) });
            }
            {
                let mut open = relock(&self.conns.open);
                if *open < MAX_READERS {
                    *open += 1;
                    drop(open);
                    drop(idle);
                    return match self.reader.open(&self.path) {
                        Ok(conn) => Ok(Lent { engine: self, conn: Some(conn) }),
                        Err(e) => {
                            *relock(&self.conns.open) -= 1;
                            Err(e)
                        }
                    };
                }
            }
            idle = self.conns.returned.wait(idle).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A reader outside the pool, for a one-off scan whose pages should not stay cached.
    #[cfg(feature = "vectors")]
    pub(crate) fn private_reader(&self) -> Result<Connection> {
        self.reader.open(&self.path)
    }

    /// Runs `f` on a reader connection, on the calling thread (inside a blocking task).
    pub(crate) fn read_now<T>(&self, f: impl FnOnce(&Connection, &Engine) -> Result<T>) -> Result<T> {
        let lent = self.lend()?;
        f(lent.conn.as_ref().expect("lent"), self)
    }

    /// Runs `f` on a reader in a blocking task: reads never wait behind a write, a graph
    /// build or a consolidation cycle (WAL readers see the last commit).
    pub(crate) async fn read<T, F>(self: &Arc<Self>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &Engine) -> Result<T> + Send + 'static,
    {
        let engine = self.clone();
        blocking(move || engine.read_now(f)).await
    }

    /// Runs `f` on the writer connection, outside a transaction, on the calling thread.
    #[cfg(feature = "vectors")]
    pub(crate) fn with_writer<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        f(&relock(&self.conns.writer))
    }

    /// Runs `f` on the writer connection itself, outside a transaction (pragmas, WAL
    /// checkpoints, `data_version`).
    pub(crate) async fn on_writer<T, F>(self: &Arc<Self>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let engine = self.clone();
        blocking(move || f(&relock(&engine.conns.writer))).await
    }

    /// Runs `f` in one immediate transaction, committed only if `f` succeeds (blocking).
    pub(crate) fn write_now<T>(&self, f: impl FnOnce(&Transaction, &Engine) -> Result<T>) -> Result<T> {
        Ok(self.write_tracked_now(f)?.0)
    }

    /// [`Engine::write_now`], also telling whether the transaction changed events.
    pub(crate) fn write_tracked_now<T>(&self, f: impl FnOnce(&Transaction, &Engine) -> Result<T>) -> Result<(T, bool)> {
        if self.read_only() {
            return Err(Error::ReadOnlyStore(self.path.clone()));
        }
        let mut conn = relock(&self.conns.writer);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(Error::db(&self.path))?;
        self.notify.changed.store(false, Ordering::SeqCst);
        let out = f(&tx, self)?;
        episodes::settle(&tx)?;
        tx.commit().map_err(Error::db(&self.path))?;
        self.bound_wal(&conn);
        let changed = self.notify.changed.swap(false, Ordering::SeqCst);
        if changed {
            self.notify.changes.send_modify(|n| *n += 1);
            self.notify.generation.fetch_add(1, Ordering::SeqCst);
        }
        Ok((out, changed))
    }

    /// Empties the write-ahead log once it passes [`WAL_BOUND`]. SQLite copies the log
    /// into the database every thousand pages, but starts writing it from the beginning
    /// again only at a moment no reader holds a snapshot that uses it: under steady reads
    /// beside steady writes (a long pull while consolidation cycles read) that moment never
    /// came, and the log grew to four times the database (docs/benchmarks.md, "A new
    /// device's pull of a million memories, to the end"). A checkpoint that truncates waits
    /// for the readers of the moment, 50 ms at most; if they do not finish, it is tried
    /// again once the log has grown by another eighth of the bound, so a long reader does
    /// not cost every commit the wait.
    fn bound_wal(&self, conn: &Connection) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let size = std::fs::metadata(&wal).map_or(0, |m| m.len());
        if size <= WAL_BOUND.max(self.wal_retry_above.load(Ordering::Relaxed)) {
            return;
        }
        let _ = conn.busy_timeout(std::time::Duration::from_millis(50));
        let emptied = matches!(conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)), Ok(0));
        let _ = conn.busy_timeout(BUSY_TIMEOUT);
        let retry = if emptied { 0 } else { size + WAL_BOUND / 8 };
        self.wal_retry_above.store(retry, Ordering::Relaxed);
        tracing::debug!(size, emptied, "write-ahead log past its bound: truncating checkpoint");
    }

    /// [`Engine::write_now`] in a blocking task.
    pub(crate) async fn write<T, F>(self: &Arc<Self>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Engine) -> Result<T> + Send + 'static,
    {
        let engine = self.clone();
        blocking(move || engine.write_now(f)).await
    }

    /// [`Engine::write_tracked_now`] in a blocking task.
    pub(crate) async fn write_tracked<T, F>(self: &Arc<Self>, f: F) -> Result<(T, bool)>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Engine) -> Result<T> + Send + 'static,
    {
        let engine = self.clone();
        blocking(move || engine.write_tracked_now(f)).await
    }

    /// SQLite's `data_version` on the writer: changes when another connection (another
    /// process) commits. Asked of the writer, whose own commits do not count.
    #[cfg(feature = "sync")]
    pub(crate) async fn data_version(self: &Arc<Self>) -> Result<i64> {
        self.on_writer(|conn| Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)).await
    }
}

#[cfg(test)]
impl Engine {
    /// The statements prepared on the writer and the idle readers that ran at least
    /// `runs` times and were prepared again on most of them: SQLite re-plans a statement on
    /// every new binding of a parameter its plan looked at (a bound `LIMIT`, a parameter
    /// compared with a partial index's condition), a parse per call on a hot path. Gives
    /// each one's SQL, runs and re-preparations.
    pub(crate) fn reprepared_statements(&self, runs: i32) -> Vec<(String, i32, i32)> {
        let mut out = statement_runs(&relock(&self.conns.writer));
        for conn in relock(&self.conns.idle).iter() {
            out.extend(statement_runs(conn));
        }
        out.retain(|(_, ran, again)| *ran >= runs && again * 2 > *ran);
        out
    }
}

/// Every statement prepared on `conn`: its SQL, runs and re-preparations.
#[cfg(test)]
pub(crate) fn statement_runs(conn: &Connection) -> Vec<(String, i32, i32)> {
    use rusqlite::ffi;
    let mut out = Vec::new();
    // SAFETY: the connection is borrowed for the whole walk, so no statement is finalized
    // meanwhile; SQLite owns the statements and the SQL text it returns.
    unsafe {
        let db = conn.handle();
        let mut stmt = ffi::sqlite3_next_stmt(db, std::ptr::null_mut());
        while !stmt.is_null() {
            let again = ffi::sqlite3_stmt_status(stmt, ffi::SQLITE_STMTSTATUS_REPREPARE, 0);
            let ran = ffi::sqlite3_stmt_status(stmt, ffi::SQLITE_STMTSTATUS_RUN, 0);
            let sql = std::ffi::CStr::from_ptr(ffi::sqlite3_sql(stmt)).to_string_lossy().into_owned();
            out.push((sql, ran, again));
            stmt = ffi::sqlite3_next_stmt(db, stmt);
        }
    }
    out
}

/// Runs `f` on Tokio's blocking pool. A panic in `f` comes back as [`Error::Task`]; the
/// store stays usable (see [`relock`]).
pub(crate) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f).await?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;

    fn engine(dir: &FsPath) -> Arc<Engine> {
        let opened = Opened { d_tag_mode: None, encrypt: None, evaluate_only: false, clock: Arc::new(SystemClock) };
        Arc::new(Engine::open(dir.join("m.db"), &crate::Identity::generate(), opened).unwrap())
    }

    /// The write-ahead log does not outgrow its bound for good: while a reader holds an
    /// old snapshot it grows (nothing can be done about that reader), and a commit soon
    /// after the reader lets go empties it. SQLite alone would start writing it
    /// from the beginning again but keep the file at its largest.
    #[test]
    fn the_write_ahead_log_is_emptied_once_past_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path());
        let wal = || std::fs::metadata(dir.path().join("m.db-wal")).map_or(0, |m| m.len());
        let write = |i: usize| {
            engine
                .write_now(|tx, _| {
                    let big = format!("{i:08}").repeat(16 << 10);
                    records::meta_set(tx, &format!("filler-{}", i % 4), &big)
                })
                .unwrap()
        };
        let mut reader = rusqlite::Connection::open(dir.path().join("m.db")).unwrap();
        let snapshot = reader.transaction().unwrap();
        snapshot.query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0)).unwrap();
        for i in 0..40 {
            write(i);
        }
        assert!(wal() > WAL_BOUND, "the reader's snapshot kept the log growing: {} bytes", wal());
        drop(snapshot);
        // Tried again once the log has grown a little more (not on every commit).
        for i in 40..43 {
            write(i);
        }
        assert!(wal() <= WAL_BOUND, "the log was not emptied: {} bytes", wal());
    }

    #[test]
    fn a_panicking_closure_leaves_the_engine_usable() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path());
        let e = engine.clone();
        let write = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            e.write_now(|tx, _| -> Result<()> {
                tx.execute("INSERT INTO meta (name, value) VALUES ('half', 'written')", [])?;
                panic!("a bug inside a write");
            })
        }));
        assert!(write.is_err());
        // Every reader lent and panicked on: none may be lost from the pool.
        for _ in 0..MAX_READERS + 1 {
            let e = engine.clone();
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                e.read_now(|_, _| -> Result<()> { panic!("a bug inside a read") })
            }));
            assert!(read.is_err());
        }
        engine.write_now(|tx, _| records::meta_set(tx, "after", "panic")).unwrap();
        let (after, half) = engine
            .read_now(|conn, _| Ok((records::meta_get(conn, "after")?, records::meta_get(conn, "half")?)))
            .unwrap();
        assert_eq!(after.as_deref(), Some("panic"));
        assert_eq!(half, None, "the panicking write rolled back");
    }

    #[test]
    fn readers_see_the_last_commit_and_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path());
        engine.write_now(|tx, _| records::meta_set(tx, "k", "1")).unwrap();
        assert_eq!(engine.read_now(|c, _| records::meta_get(c, "k")).unwrap().as_deref(), Some("1"));
        engine.write_now(|tx, _| records::meta_set(tx, "k", "2")).unwrap();
        assert_eq!(engine.read_now(|c, _| records::meta_get(c, "k")).unwrap().as_deref(), Some("2"));
        let wrote = engine.read_now(|c, _| Ok(c.execute("INSERT INTO meta (name, value) VALUES ('x', 'y')", [])?));
        assert!(wrote.is_err(), "readers are query-only");
    }
}
