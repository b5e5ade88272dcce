//! A store's embedder and vector index: loaded (or rebuilt from SQLite) on a thread of its
//! own at open, saved beside the database by the process that owns it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rusqlite::OptionalExtension;

use super::vectors::{from_blob, IndexLock, VectorIndex};
use super::Embedder;
use crate::error::{Error, Result};

/// The thread loading an index: the index and the points it could not save.
type Loader = std::thread::JoinHandle<Result<(VectorIndex, usize)>>;

/// A store's embedder and index.
pub(crate) struct VectorState {
    pub(crate) embedder: Arc<dyn Embedder>,
    /// The index, once loaded (see [`VectorState::index`]).
    index: OnceLock<RwLock<VectorIndex>>,
    /// The thread loading (or rebuilding) the index, until someone needs it.
    loader: Mutex<Option<Loader>>,
    pub(crate) dir: PathBuf,
    /// The key the index files are sealed with, when the store is encrypted at rest.
    seal: Option<crate::at_rest::IndexKey>,
    /// Points inserted since the index was last saved.
    pub(crate) unsaved: std::sync::atomic::AtomicUsize,
    /// Whether this process saves the index files (another process on the same store may
    /// own them: [`IndexLock`]).
    pub(crate) lock: Arc<IndexLock>,
    /// Held for each batch of an embedding pass: two passes at once (a search and a
    /// background pass) would embed the same records and insert their points twice.
    pub(crate) pending: tokio::sync::Mutex<()>,
}

impl VectorState {
    /// Starts loading the saved index (or rebuilding it from SQLite, then adding the
    /// vectors written since it was saved) on a thread of its own, so opening a store does
    /// not wait for it: the first use of the index does. Vectors of another model are
    /// discarded here, and their records queued for embedding.
    pub(crate) fn open(engine: &crate::engine::Engine, embedder: Arc<dyn Embedder>) -> Result<Self> {
        engine.with_writer(|conn| Self::open_on(conn, engine.path(), embedder, engine.at_rest_keys()))
    }

    fn open_on(
        conn: &rusqlite::Connection,
        db: &std::path::Path,
        embedder: Arc<dyn Embedder>,
        at_rest: Option<Arc<crate::at_rest::StoreKeys>>,
    ) -> Result<Self> {
        let model = embedder.model_id().to_string();
        let dims = embedder.dims();
        // Two range probes on the model index, so a store whose vectors all come from this
        // model opens without touching the vectors themselves.
        let other: Option<i64> = conn
            .query_row("SELECT vid FROM vectors WHERE model < ?1 OR model > ?1 LIMIT 1", [&model], |r| r.get(0))
            .ok();
        if other.is_some() {
            conn.execute(
                "UPDATE records SET needs_vec = 1 WHERE rid IN (SELECT rid FROM vectors WHERE model != ?1)",
                [&model],
            )?;
            conn.execute("DELETE FROM vectors WHERE model != ?1", [&model])?;
        }
        let dir = VectorIndex::dir_for(db);
        let lock = Arc::new(IndexLock::new(db));
        lock.acquire();
        let (db, thread_dir) = (db.to_path_buf(), dir.clone());
        let loader = std::thread::Builder::new()
            .name("memstr-vectors".into())
            .spawn({
                let at_rest = at_rest.clone();
                let lock = lock.clone();
                move || load_or_build(&db, &thread_dir, &model, dims, at_rest.as_deref(), &lock)
            })
            .map_err(|e| Error::Task(format!("starting the vector index loader: {e}")))?;
        Ok(VectorState {
            embedder,
            index: OnceLock::new(),
            loader: Mutex::new(Some(loader)),
            dir,
            seal: at_rest.map(|k| k.index.clone()),
            unsaved: std::sync::atomic::AtomicUsize::new(0),
            lock,
            pending: tokio::sync::Mutex::new(()),
        })
    }

    /// The index, waiting for the loader if it has not finished. Blocking: call it from
    /// blocking code.
    pub(crate) fn index(&self) -> Result<&RwLock<VectorIndex>> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let mut loader = self.loader.lock().map_err(|_| Error::Task("vector index loader poisoned".into()))?;
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let handle = loader.take().ok_or_else(|| Error::Task("the vector index failed to load".into()))?;
        let (index, unsaved) = handle.join().map_err(|_| Error::Task("the vector index loader panicked".into()))??;
        self.unsaved.fetch_add(unsaved, std::sync::atomic::Ordering::SeqCst);
        let _ = self.index.set(RwLock::new(index));
        Ok(self.index.get().expect("set just above"))
    }

    /// Saves the index when this process owns it ([`IndexLock`]); otherwise leaves the
    /// files to their owner and keeps its points counted as unsaved.
    pub(crate) fn save(&self) -> Result<()> {
        if !self.lock.acquire() {
            tracing::debug!("vector index owned by another process: not saved");
            return Ok(());
        }
        let mut index = self.index()?.write().map_err(|_| Error::Task("vector index poisoned".into()))?;
        index.blank_unreferenced();
        index.save_with(&self.dir, self.seal.as_ref())?;
        self.unsaved.store(0, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }
}

/// Loads the saved index, or rebuilds it from SQLite; then reconciles it with the
/// `vectors` table (adding what it lacks, forgetting deleted records), and saves it when it
/// added any point. Runs on the loader thread, with a
/// read-only connection of its own. Returns the index and the points it could not save.
fn load_or_build(
    db: &std::path::Path,
    dir: &std::path::Path,
    model: &str,
    dims: usize,
    at_rest: Option<&crate::at_rest::StoreKeys>,
    lock: &IndexLock,
) -> Result<(VectorIndex, usize)> {
    let conn = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(Error::db(db))?;
    if let Some(keys) = at_rest {
        keys.apply(&conn, db)?;
    }
    conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(Error::db(db))?;
    let live = conn.query_row("SELECT count(*) FROM vectors", [], |r| r.get::<_, i64>(0))? as usize;
    // Points of old versions stay in the graph (search skips them); once they outnumber
    // the live ones, a rebuild is cheaper than carrying them.
    let seal = at_rest.map(|k| &k.index);
    let saved = VectorIndex::load_with(dir, model, dims, seal).filter(|idx| idx.points() <= 2 * live + 1_000);
    let mut index = match saved {
        Some(idx) => idx,
        None => {
            tracing::info!("building the vector index from {live} stored vectors");
            VectorIndex::new(model, dims, live)
        }
    };
    // Which point is each record's, by the table: from the (rid, vid) index, without
    // reading a vector. (Open already removed other models' vectors.)
    let mut pairs: Vec<(i64, i64)> = Vec::with_capacity(live);
    let mut stmt = conn.prepare("SELECT rid, vid FROM vectors")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
        pairs.push(row?);
    }
    drop(stmt);
    let mut missing = index.reconcile(&pairs);
    drop(pairs);
    missing.sort_unstable();
    // The vectors the graph lacks, streamed into it in vid order (a rebuild never holds
    // every f32 vector at once): one pass over the table when many are missing, point
    // lookups when few.
    let mut added = 0;
    let mut add = |vid: i64, rid: i64, blob: Vec<u8>| {
        let v = from_blob(&blob);
        if v.len() == dims {
            index.insert(vid, rid, &v);
            added += 1;
        }
    };
    let row = |r: &rusqlite::Row| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Vec<u8>>(2)?));
    if missing.len() > 1_000 {
        let wanted: std::collections::HashSet<i64> = missing.iter().copied().collect();
        let mut stmt = conn.prepare("SELECT vid, rid, vec FROM vectors WHERE vid >= ?1 ORDER BY vid")?;
        for r in stmt.query_map([missing[0]], row)? {
            let (vid, rid, blob) = r?;
            if wanted.contains(&vid) {
                add(vid, rid, blob);
            }
        }
    } else {
        let mut stmt = conn.prepare("SELECT vid, rid, vec FROM vectors WHERE vid = ?1")?;
        for vid in &missing {
            if let Some((vid, rid, blob)) = stmt.query_row([vid], row).optional()? {
                add(vid, rid, blob);
            }
        }
    }
    // Only the owner rewrites the files: it blanks the points of records deleted or purged
    // since the last save (by any process), so no vector of a purged memory stays on disk.
    let blanked = if lock.acquire() { index.blank_unreferenced() } else { 0 };
    let unsaved = if (added > 0 || blanked > 0) && lock.acquire() {
        match index.save_with(dir, seal) {
            Ok(()) => 0,
            Err(e) => {
                tracing::warn!("vector index not saved: {e}");
                added
            }
        }
    } else {
        added
    };
    crate::disk::release_free_memory();
    Ok((index, unsaved))
}
