//! A store's embedder and vector index: loaded (or rebuilt from SQLite) on a thread of its
//! own at open, saved beside the database by the process that owns it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use super::vectors::{from_blob, IndexLock, VectorIndex};
use super::Embedder;
use crate::engine::vectors as queue;
use crate::engine::Engine;
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
    /// The engine's generation plus one when a search last found nothing to embed (0: not
    /// known): until something is written, searches need not look again.
    pub(crate) clean_at: std::sync::atomic::AtomicU64,
}

impl VectorState {
    /// Starts loading the saved index (or rebuilding it from SQLite, then adding the
    /// vectors written since it was saved) on a thread of its own, so opening a store does
    /// not wait for it: the first use of the index does. Vectors of another model are
    /// discarded here, and their records queued for embedding.
    pub(crate) fn open(engine: &Arc<Engine>, embedder: Arc<dyn Embedder>) -> Result<Self> {
        let model = embedder.model_id().to_string();
        let dims = embedder.dims();
        if !engine.read_only() {
            engine.with_writer(|conn| queue::keep_model(conn, &model))?;
        }
        let at_rest = engine.at_rest_keys();
        let dir = VectorIndex::dir_for(engine.path());
        let lock = Arc::new(IndexLock::new(engine.path()));
        lock.acquire();
        let loader = std::thread::Builder::new()
            .name("memstr-vectors".into())
            .spawn({
                let (engine, dir, at_rest, lock) = (engine.clone(), dir.clone(), at_rest.clone(), lock.clone());
                // A connection of its own, closed after the load: it reads every vector once,
                // and a pooled reader would keep those pages cached for the process's life.
                move || {
                    let conn = engine.private_reader()?;
                    load_or_build(&conn, &dir, &model, dims, at_rest.as_deref(), &lock)
                }
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
            clean_at: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The index, waiting for the loader if it has not finished. Blocking: call it from
    /// blocking code.
    pub(crate) fn index(&self) -> Result<&RwLock<VectorIndex>> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let mut loader = self.loader.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let handle = loader.take().ok_or_else(|| Error::Task("the vector index failed to load".into()))?;
        let waited = std::time::Instant::now();
        let (index, unsaved) = handle.join().map_err(|_| Error::Task("the vector index loader panicked".into()))??;
        tracing::debug!(ms = waited.elapsed().as_secs_f64() * 1e3, "waited for the vector index to load");
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
        let mut index = self.index()?.write().unwrap_or_else(std::sync::PoisonError::into_inner);
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
    conn: &rusqlite::Connection,
    dir: &std::path::Path,
    model: &str,
    dims: usize,
    at_rest: Option<&crate::at_rest::StoreKeys>,
    lock: &IndexLock,
) -> Result<(VectorIndex, usize)> {
    let seal = at_rest.map(|k| &k.index);
    // The saved graph is read on a thread of its own while this one reads the table's
    // (rid, vid) pairs: the first search waits for both, and at a million points the file
    // alone takes 0.3 to 0.6 s (docs/benchmarks.md).
    let (saved, live, pairs) = std::thread::scope(|s| {
        let file = std::thread::Builder::new()
            .name("memstr-vectors-file".into())
            .spawn_scoped(s, || VectorIndex::load_with(dir, model, dims, seal))
            .map_err(|e| Error::Task(format!("starting the vector index's file reader: {e}")))?;
        let table = queue::count(conn).and_then(|live| Ok((live, queue::ids(conn)?)));
        let saved = file.join().map_err(|_| Error::Task("the vector index's file reader panicked".into()))?;
        let (live, pairs) = table?;
        Ok::<_, Error>((saved, live, pairs))
    })?;
    // Points of old versions stay in the graph (search skips them); once they outnumber
    // the live ones, a rebuild is cheaper than carrying them.
    let saved = saved.filter(|idx| idx.points() <= 2 * live + 1_000);
    let mut index = match saved {
        Some(idx) => idx,
        None => {
            tracing::info!("building the vector index from {live} stored vectors");
            VectorIndex::new(model, dims, live)
        }
    };
    // Which point is each record's, by the table (`pairs`): from the (rid, vid) index,
    // without reading a vector. (Open already removed other models' vectors.)
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
    if missing.len() > 1_000 {
        let wanted: std::collections::HashSet<i64> = missing.iter().copied().collect();
        queue::each_from(conn, missing[0], |vid, rid, blob| {
            if wanted.contains(&vid) {
                add(vid, rid, blob);
            }
        })?;
    } else {
        for vid in &missing {
            if let Some((vid, rid, blob)) = queue::by_vid(conn, *vid)? {
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
