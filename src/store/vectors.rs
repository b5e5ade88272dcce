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

/// Texts per model call when catching up (and the longest a search or a gated write
/// waits for another pass: one batch).
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
    /// Held for each batch of an embedding pass: two passes at once (a search and a
    /// background pass) would embed the same records and insert their points twice.
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

/// Pending records a search embeds before it runs, at most: one model call, the newest
/// records first, taking well under a second with the default model. The others are
/// found by their words (FTS5) until [`MemoryStore::embed_pending`] reaches them (the
/// `memstr index` command, or [`MemoryStore::spawn_background_embedding`] in a server),
/// so a search never waits for a bulk load to be embedded.
pub const SEARCH_EMBED_BUDGET: usize = 32;

/// What [`MemoryStore::embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct EmbedReport {
    /// Records given a vector (computed, or reused from another device's embedding event).
    pub embedded: usize,
    /// Of those, vectors reused from an embedding event another device published.
    pub reused: usize,
    /// Embedding events signed for persona memories (`sense-memory/embed/{key}`),
    /// including those of vectors a search computed earlier without signing.
    pub published: usize,
    /// Records still waiting for a vector afterwards (written meanwhile, or beyond `max`).
    pub remaining: usize,
}

/// Which pending records a pass embeds.
#[derive(Clone, Default)]
struct Scope {
    /// Only persona memories (consolidation and introspection compare those).
    persona_only: bool,
    /// Only persona memories of this domain and facet (the novelty gate compares those).
    persona_facet: Option<(String, String)>,
}

impl Scope {
    fn sql(&self) -> &'static str {
        match (&self.persona_facet, self.persona_only) {
            (Some(_), _) => " AND kind = 'persona' AND domain = ?2 AND facet = ?3",
            (None, true) => " AND kind = 'persona'",
            (None, false) => "",
        }
    }

    fn params(&self, first: i64) -> Vec<rusqlite::types::Value> {
        let mut out = vec![rusqlite::types::Value::Integer(first)];
        if let Some((d, f)) = &self.persona_facet {
            out.push(rusqlite::types::Value::Text(d.clone()));
            out.push(rusqlite::types::Value::Text(f.clone()));
        }
        out
    }
}

/// How a pass embeds.
struct Pass {
    /// Records to embed at most (None: all that are pending).
    max: Option<usize>,
    /// Sign embedding events for fresh persona vectors now; otherwise they are marked
    /// (`needs_vec = 2`) and signed by the next [`MemoryStore::embed_pending`].
    publish: bool,
    /// Wait for another pass's batch to finish; otherwise stop when one is running.
    wait: bool,
    scope: Scope,
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
    /// Embeds every record whose text changed since it was last embedded, in batches, and
    /// adds the vectors to the index. Returns how many were embedded. The same as
    /// [`MemoryStore::embed_pending`] without a limit or progress.
    pub async fn index_pending(&self) -> Result<usize> {
        Ok(self.embed_pending(None, |_, _| {}).await?.embedded)
    }

    /// Embeds records waiting for a vector, newest first, 32 per model call, at most
    /// `max` of them (None: all), and adds them to the index; then signs the embedding
    /// events of persona vectors a search computed without signing. `progress(done, total)`
    /// is called after each batch. Safe to run beside searches and writes (a background
    /// task, `memstr index`): it takes the embedding lock one batch at a time, so a search
    /// or a gated write waits for one batch at most. Without an embedder it does nothing.
    pub async fn embed_pending(
        &self,
        max: Option<usize>,
        mut progress: impl FnMut(usize, usize) + Send,
    ) -> Result<EmbedReport> {
        let Some(state) = self.inner.vectors.clone() else { return Ok(EmbedReport::default()) };
        let pass = Pass { max, publish: true, wait: true, scope: Scope::default() };
        let mut report = self.embed_batches(&state, pass, &mut progress).await?;
        if !self.inner.evaluate_only {
            report.published += self.publish_unsigned_vectors(&state).await?;
        }
        report.remaining = self.pending_embeddings().await?;
        Ok(report)
    }

    /// Records waiting for a vector (0 without an embedder).
    pub async fn pending_embeddings(&self) -> Result<usize> {
        if self.inner.vectors.is_none() {
            return Ok(0);
        }
        self.read(|conn, _| {
            Ok(conn.query_row("SELECT count(*) FROM records WHERE needs_vec = 1 AND deleted = 0", [], |r| {
                r.get::<_, i64>(0)
            })? as usize)
        })
        .await
    }

    /// A search's share: at most [`SEARCH_EMBED_BUDGET`] pending records, signing nothing,
    /// and none while another pass holds the embedding lock (it is embedding them).
    pub(crate) async fn embed_for_search(&self) -> Result<usize> {
        let Some(state) = self.inner.vectors.clone() else { return Ok(0) };
        if self.inner.read_only {
            return Ok(0);
        }
        let pass = Pass { max: Some(SEARCH_EMBED_BUDGET), publish: false, wait: false, scope: Scope::default() };
        Ok(self.embed_batches(&state, pass, &mut |_, _| {}).await?.embedded)
    }

    /// The novelty gate's share: the pending persona memories of one facet, which it
    /// compares a new memory with, and nothing else.
    pub(crate) async fn embed_for_gate(&self, domain: &str, facet: &str) -> Result<usize> {
        let Some(state) = self.inner.vectors.clone() else { return Ok(0) };
        let scope = Scope { persona_facet: Some((domain.to_string(), facet.to_string())), ..Default::default() };
        let pass = Pass { max: None, publish: true, wait: true, scope };
        Ok(self.embed_batches(&state, pass, &mut |_, _| {}).await?.embedded)
    }

    /// Consolidation's and introspection's share: the pending persona memories, whose
    /// vectors they compare; journal entries and flat memories wait for their pass.
    pub(crate) async fn embed_persona(&self) -> Result<usize> {
        let Some(state) = self.inner.vectors.clone() else { return Ok(0) };
        let scope = Scope { persona_only: true, ..Default::default() };
        let pass = Pass { max: None, publish: true, wait: true, scope };
        Ok(self.embed_batches(&state, pass, &mut |_, _| {}).await?.embedded)
    }

    /// Starts a task that embeds pending records after every change to the store (and
    /// once at the start), so searches find new records by meaning without embedding them
    /// themselves: for a long-running process such as a server. The task stops when the
    /// returned handle is dropped or every handle to the store is. Needs a Tokio runtime;
    /// without an embedder, or on a read-only store, it does nothing.
    pub fn spawn_background_embedding(&self) -> BackgroundEmbedding {
        let active = self.inner.vectors.is_some() && !self.inner.read_only;
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return BackgroundEmbedding { task: None } };
        if !active {
            return BackgroundEmbedding { task: None };
        }
        let weak = Arc::downgrade(&self.inner);
        let mut changes = self.changes();
        let task = handle.spawn(async move {
            loop {
                // A strong handle only while embedding: the store closes when its users are gone.
                let Some(inner) = weak.upgrade() else { break };
                let store = MemoryStore { inner };
                if let Err(e) = store.embed_pending(None, |_, _| {}).await {
                    tracing::warn!("background embedding failed: {e}");
                }
                drop(store);
                // Its own embedding events are changes too: one more pass finds nothing.
                if changes.changed().await.is_err() {
                    break;
                }
            }
        });
        BackgroundEmbedding { task: Some(task) }
    }

    /// Embeds pending records batch by batch, as `pass` says.
    async fn embed_batches(
        &self,
        state: &Arc<VectorState>,
        pass: Pass,
        progress: &mut (dyn FnMut(usize, usize) + Send),
    ) -> Result<EmbedReport> {
        let loading = state.clone();
        tokio::task::spawn_blocking(move || loading.index().map(|_| ()))
            .await
            .map_err(|e| Error::Task(e.to_string()))??;
        let mut report = EmbedReport::default();
        let model = state.embedder.model_id().to_string();
        let dims = state.embedder.dims();
        let scope = pass.scope.clone();
        let pending: usize = self
            .read(move |conn, _| {
                let sql = format!(
                    "SELECT count(*) FROM records WHERE needs_vec = 1 AND deleted = 0 AND ?1 = ?1{}",
                    scope.sql()
                );
                Ok(conn.query_row(&sql, rusqlite::params_from_iter(scope.params(0)), |r| r.get::<_, i64>(0))? as usize)
            })
            .await?;
        let total = pass.max.map_or(pending, |m| m.min(pending));
        let mut done = 0;
        // A fresh persona vector not signed now waits, marked, for the next full pass;
        // nothing is signed at all by a store that only evaluates.
        let publish = pass.publish && !self.inner.evaluate_only;
        loop {
            let want = pass.max.map_or(EMBED_BATCH, |m| m.saturating_sub(done).min(EMBED_BATCH));
            if want == 0 {
                break;
            }
            // One batch at a time under the lock: two passes at once would embed the same
            // records and insert their points twice.
            let _batch_lock = if pass.wait {
                state.pending.lock().await
            } else {
                match state.pending.try_lock() {
                    Ok(guard) => guard,
                    Err(_) => break,
                }
            };
            let (model_for_read, scope) = (model.clone(), pass.scope.clone());
            let (batch, unreadable): (Vec<Pending>, Vec<(i64, Option<String>)>) = self
                .read(move |conn, _| {
                    let model = model_for_read;
                    // Newest first: the partial index on needs_vec holds them in rid order.
                    let sql = format!(
                        "SELECT rid, kind, payload, text_hash FROM records WHERE needs_vec = 1 AND deleted = 0{} \
                         ORDER BY rid DESC LIMIT ?1",
                        scope.sql()
                    );
                    let mut stmt = conn.prepare(&sql)?;
                    let rows = stmt.query_map(rusqlite::params_from_iter(scope.params(want as i64)), |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, Option<String>>(3)?,
                        ))
                    })?;
                    let (mut out, mut unreadable) = (Vec::new(), Vec::new());
                    for row in rows {
                        let (rid, kind, json, stored_hash) = row?;
                        let payload = match (kind.as_str(), json) {
                            ("kv", Some(j)) => Payload::Kv(serde_json::from_str(&j)?),
                            ("journal", Some(j)) => Payload::Journal(serde_json::from_str(&j)?),
                            ("persona", Some(j)) => Payload::Persona(serde_json::from_str(&j)?),
                            _ => {
                                unreadable.push((rid, stored_hash));
                                continue;
                            }
                        };
                        let Some(text) = embedding_text(&payload) else {
                            unreadable.push((rid, stored_hash));
                            continue;
                        };
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
                    Ok((out, unreadable))
                })
                .await?;
            if batch.is_empty() && unreadable.is_empty() {
                break;
            }
            let fetched = batch.len() + unreadable.len();
            let embedder = state.embedder.clone();
            // Only texts without a vector published by another device go to the model.
            let texts: Vec<String> = batch.iter().filter(|p| p.reuse.is_none()).map(|p| p.text.clone()).collect();
            let mut computed = if texts.is_empty() {
                Vec::new().into_iter()
            } else {
                tokio::task::spawn_blocking(move || {
                    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                    embedder.embed(&refs)
                })
                .await
                .map_err(|e| Error::Task(e.to_string()))??
                .into_iter()
            };
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
            let model_for_write = model.clone();
            let (stored, reused, published) = self
                .write_derived(move |tx, inner| {
                    let model = model_for_write;
                    // Nothing to embed in these (no text, or a kind without vectors): not
                    // pending any more, unless they changed since they were read.
                    for (rid, hash) in &unreadable {
                        tx.execute(
                            "UPDATE records SET needs_vec = 0 WHERE rid = ?1 AND needs_vec = 1 AND text_hash IS ?2",
                            params![rid, hash],
                        )?;
                    }
                    let (mut stored, mut reused, mut published) = (Vec::new(), 0, 0);
                    for (p, (v, fresh)) in batch.iter().zip(vectors) {
                        // A fresh persona vector that is not signed now is marked for the
                        // next full pass, which signs it.
                        let unsigned = fresh && !publish && p.persona_key.is_some();
                        // Only if the text is still what was embedded.
                        let n = tx.execute(
                            "UPDATE records SET needs_vec = ?3 WHERE rid = ?1 AND text_hash = ?2 AND deleted = 0",
                            params![p.rid, p.hash, if unsigned { 2 } else { 0 }],
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
                        if let (true, true, Some(key)) = (fresh, publish, &p.persona_key) {
                            sign_embedding(tx, inner, key, &v, &model, &p.hash)?;
                            published += 1;
                        }
                        reused += usize::from(!fresh);
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
                    Ok((stored.len(), reused, published))
                })
                .await?;
            report.embedded += stored;
            report.reused += reused;
            report.published += published;
            done += fetched;
            // Records written meanwhile can make more than counted at the start.
            progress(done, total.max(done));
        }
        Ok(report)
    }

    /// Signs the embedding events of persona vectors stored without one (by a search),
    /// a chunk per transaction. Returns how many were signed.
    async fn publish_unsigned_vectors(&self, state: &Arc<VectorState>) -> Result<usize> {
        const CHUNK: i64 = 256;
        // Usually there are none: a read, not a write transaction, tells.
        let any: bool = self
            .read(|conn, _| {
                Ok(conn.query_row(
                    "SELECT EXISTS(SELECT 1 FROM records WHERE kind = 'persona' AND needs_vec = 2 AND deleted = 0)",
                    [],
                    |r| r.get(0),
                )?)
            })
            .await?;
        if !any {
            return Ok(0);
        }
        let mut total = 0;
        loop {
            let (model, dims) = (state.embedder.model_id().to_string(), state.embedder.dims());
            let (seen, signed) = self
                .write_derived(move |tx, inner| {
                    let rows: Vec<(i64, String, String, Vec<u8>)> = tx
                        .prepare(
                            "SELECT r.rid, r.key, v.text_hash, v.vec FROM records r JOIN vectors v ON v.rid = r.rid
                             WHERE r.kind = 'persona' AND r.deleted = 0 AND r.needs_vec = 2
                               AND v.model = ?1 AND v.text_hash = r.text_hash LIMIT ?2",
                        )?
                        .query_map(params![model, CHUNK], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                        .collect::<rusqlite::Result<_>>()?;
                    let mut signed = 0;
                    for (rid, key, hash, blob) in &rows {
                        let v = from_blob(blob);
                        // Another device may have published this very vector meanwhile.
                        if published_vector(tx, key, &model, dims, hash)?.is_none() {
                            sign_embedding(tx, inner, key, &v, &model, hash)?;
                            signed += 1;
                        }
                        tx.execute("UPDATE records SET needs_vec = 0 WHERE rid = ?1", [rid])?;
                    }
                    // Marked records whose vector is of another model or text: embedded again.
                    if (rows.len() as i64) < CHUNK {
                        tx.execute(
                            "UPDATE records SET needs_vec = 1 WHERE kind = 'persona' AND needs_vec = 2 AND deleted = 0",
                            [],
                        )?;
                    }
                    Ok((rows.len(), signed))
                })
                .await?;
            total += signed;
            if (seen as i64) < CHUNK {
                return Ok(total);
            }
        }
    }
}

/// Signs persona memory `key`'s vector as an embedding event (`sense-memory/embed/{key}`).
fn sign_embedding(
    tx: &rusqlite::Transaction,
    inner: &super::Inner,
    key: &str,
    v: &[f32],
    model: &str,
    hash: &str,
) -> Result<()> {
    let e = crate::codec::Embedding {
        key: key.to_string(),
        embedding: v.to_vec(),
        model: model.to_string(),
        created_at: inner.clock.now(),
        text_hash: Some(hash.to_string()),
    };
    super::write_record(tx, inner, &crate::codec::Path::Embed { key: key.to_string() }, Payload::Embed(e))?;
    Ok(())
}

/// The task [`MemoryStore::spawn_background_embedding`] started; dropping it stops the task
/// (a batch being stored is stored whole).
#[derive(Debug)]
pub struct BackgroundEmbedding {
    task: Option<tokio::task::JoinHandle<()>>,
}

impl BackgroundEmbedding {
    /// Whether a task is running (false without an embedder, a runtime, or on a read-only
    /// store).
    pub fn is_running(&self) -> bool {
        self.task.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for BackgroundEmbedding {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl MemoryStore {
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
