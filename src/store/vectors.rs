//! Keeping the vector index in step with the records: embedding what changed, in
//! batches, outside the database lock.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rusqlite::{params, OptionalExtension};

use super::apply::{embedding_text, text_hash};
use super::MemoryStore;
use crate::codec::Payload;
use crate::error::{Error, Result};
use crate::index::vectors::{from_blob, to_blob, IndexLock, VectorIndex};
use crate::index::Embedder;

/// Texts per model call when catching up.
const EMBED_BATCH: usize = 32;

/// The thread loading an index: the index and the points it could not save.
type Loader = std::thread::JoinHandle<Result<(VectorIndex, usize)>>;

/// A store's embedder and index.
pub(crate) struct VectorState {
    pub embedder: Arc<dyn Embedder>,
    /// The index, once loaded (see [`VectorState::index`]).
    index: OnceLock<RwLock<VectorIndex>>,
    /// The thread loading (or rebuilding) the index, until someone needs it.
    loader: Mutex<Option<Loader>>,
    pub dir: PathBuf,
    /// The key the index files are sealed with, when the store is encrypted at rest.
    seal: Option<crate::at_rest::IndexKey>,
    /// Points inserted since the index was last saved.
    pub unsaved: std::sync::atomic::AtomicUsize,
    /// Whether this process saves the index files (another process on the same store may
    /// own them: [`IndexLock`]).
    pub lock: Arc<IndexLock>,
    /// Held by `index_pending`: two catch-ups at once (a search and a consolidation) would
    /// embed the same records and insert their points twice.
    pub pending: tokio::sync::Mutex<()>,
}

impl VectorState {
    /// Starts loading the saved index (or rebuilding it from SQLite, then adding the
    /// vectors written since it was saved) on a thread of its own, so opening a store does
    /// not wait for it: the first use of the index does. Vectors of another model are
    /// discarded here, and their records queued for embedding.
    pub(crate) fn open(
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
    super::release_free_memory();
    Ok((index, unsaved))
}

/// A record waiting for its vector.
struct Pending {
    rid: i64,
    hash: String,
    text: String,
    /// For persona memories: the key, so the vector can be published as an embedding
    /// event, and a vector another device published for the same text, if any.
    persona_key: Option<String>,
    reuse: Option<Vec<f32>>,
}

/// A vector another device published for persona key `key` and this exact text.
fn published_vector(
    conn: &rusqlite::Connection,
    key: &str,
    model: &str,
    dims: usize,
    hash: &str,
) -> Result<Option<Vec<f32>>> {
    let Some(e) = super::derived::stored_embedding(conn, key)? else { return Ok(None) };
    let fits = e.model == model && e.embedding.len() == dims && e.text_hash.as_deref() == Some(hash);
    Ok(fits.then_some(e.embedding))
}

impl MemoryStore {
    /// Embeds every record whose text changed since it was last embedded, `EMBED_BATCH`
    /// at a time, and adds the vectors to the index. Returns how many were embedded.
    /// Search calls this first, so writes never wait for the model.
    pub async fn index_pending(&self) -> Result<usize> {
        let Some(state) = self.inner.vectors.clone() else { return Ok(0) };
        let _one_at_a_time = state.pending.lock().await;
        let loading = state.clone();
        tokio::task::spawn_blocking(move || loading.index().map(|_| ()))
            .await
            .map_err(|e| Error::Task(e.to_string()))??;
        let mut total = 0;
        let model = state.embedder.model_id().to_string();
        let dims = state.embedder.dims();
        loop {
            let model_for_read = model.clone();
            let batch: Vec<Pending> = self
                .read(move |conn, _| {
                    let model = model_for_read;
                    let mut stmt = conn.prepare(
                        "SELECT rid, kind, payload FROM records WHERE needs_vec = 1 AND deleted = 0 LIMIT ?1",
                    )?;
                    let rows = stmt.query_map([EMBED_BATCH as i64], |r| {
                        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?))
                    })?;
                    let mut out = Vec::new();
                    for row in rows {
                        let (rid, kind, json) = row?;
                        let Some(json) = json else { continue };
                        let payload = match kind.as_str() {
                            "kv" => Payload::Kv(serde_json::from_str(&json)?),
                            "journal" => Payload::Journal(serde_json::from_str(&json)?),
                            "persona" => Payload::Persona(serde_json::from_str(&json)?),
                            _ => continue,
                        };
                        if let Some(text) = embedding_text(&payload) {
                            let hash = text_hash(&text);
                            let persona_key = match &payload {
                                Payload::Persona(p) => Some(p.key.clone()),
                                _ => None,
                            };
                            let reuse = match &persona_key {
                                Some(k) => published_vector(conn, k, &model, dims, &hash)?,
                                None => None,
                            };
                            out.push(Pending { rid, hash, text, persona_key, reuse });
                        }
                    }
                    Ok(out)
                })
                .await?;
            if batch.is_empty() {
                return Ok(total);
            }
            let embedder = state.embedder.clone();
            // Only texts without a vector published by another device go to the model.
            let texts: Vec<String> = batch.iter().filter(|p| p.reuse.is_none()).map(|p| p.text.clone()).collect();
            let mut computed = tokio::task::spawn_blocking(move || {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                embedder.embed(&refs)
            })
            .await
            .map_err(|e| Error::Task(e.to_string()))??
            .into_iter();
            let vectors: Vec<(Vec<f32>, bool)> = batch
                .iter()
                .map(|p| match &p.reuse {
                    Some(v) => (v.clone(), false),
                    None => (computed.next().unwrap_or_default(), true),
                })
                .collect();
            // A model that answers fewer vectors, or vectors of another length, is an
            // error before anything is stored.
            if let Some((v, _)) = vectors.iter().find(|(v, _)| v.len() != dims) {
                return Err(Error::Model(format!(
                    "embedder {model} returned a vector of {} dimensions, expected {dims}",
                    v.len()
                )));
            }
            let model = model.clone();
            let stored: usize = self
                .write(move |tx, inner| {
                    let mut stored = Vec::new();
                    for (p, (v, fresh)) in batch.iter().zip(vectors) {
                        // Only if the text is still what was embedded.
                        let n = tx.execute(
                            "UPDATE records SET needs_vec = 0 WHERE rid = ?1 AND text_hash = ?2 AND deleted = 0",
                            params![p.rid, p.hash],
                        )?;
                        if n == 0 {
                            continue;
                        }
                        tx.execute("DELETE FROM vectors WHERE rid = ?1", [p.rid])?;
                        let vid: i64 = tx.query_row(
                            "INSERT INTO vectors (rid, model, text_hash, vec) VALUES (?1, ?2, ?3, ?4) RETURNING vid",
                            params![p.rid, model, p.hash, to_blob(&v)],
                            |r| r.get(0),
                        )?;
                        // Publish a freshly computed persona vector, so other devices with
                        // the same model need not compute it (seed 003's embed events).
                        if let (true, false, Some(key)) = (fresh, inner.evaluate_only, &p.persona_key) {
                            let e = crate::codec::Embedding {
                                key: key.clone(),
                                embedding: v.clone(),
                                model: model.clone(),
                                created_at: inner.clock.now(),
                                text_hash: Some(p.hash.clone()),
                            };
                            super::write_record(
                                tx,
                                inner,
                                &crate::codec::Path::Embed { key: key.clone() },
                                Payload::Embed(e),
                            )?;
                        }
                        stored.push((vid, p.rid, v));
                    }
                    // Into the index in the same blocking task as the rows: a search
                    // cancelled between the two would otherwise leave vectors in SQLite that
                    // the index lacks until the next open.
                    if let Some(state) = &inner.vectors {
                        let mut index =
                            state.index()?.write().map_err(|_| Error::Task("vector index poisoned".into()))?;
                        let mut inserted = 0;
                        for (vid, rid, v) in &stored {
                            if !index.contains_vid(*vid) {
                                index.insert(*vid, *rid, v);
                                inserted += 1;
                            }
                        }
                        state.unsaved.fetch_add(inserted, std::sync::atomic::Ordering::SeqCst);
                    }
                    Ok(stored.len())
                })
                .await?;
            total += stored;
        }
    }

    /// Whether this handle saves the store's vector index: it holds the advisory lock
    /// beside the index ([`IndexLock`]), which one process at a time can take. `false`
    /// without vectors. Another process on the same store still searches with an index of
    /// its own in memory, but leaves the files to the owner.
    pub fn owns_vector_index(&self) -> bool {
        self.inner.vectors.as_ref().is_some_and(|v| v.lock.acquire())
    }

    /// Whether semantic search is on (an embedder was given at open).
    pub fn has_vectors(&self) -> bool {
        self.inner.vectors.is_some()
    }
}
