//! Keeping the vector index in step with the records: embedding what changed, in
//! batches, outside the database lock (docs/ARCHITECTURE.md, "Embedding, off the critical
//! path").

use std::sync::Arc;

use super::state::VectorState;
use super::vectors::from_blob;
use super::Vectors;
use crate::codec::{Payload, RecordKind};
use crate::engine::apply::{embedding_text, text_hash};
use crate::engine::vectors::{self as queue, Scope, VecState};
use crate::engine::{records, Engine};
use crate::error::{Error, Result};

/// Texts per model call when catching up (and the longest a search or a gated write
/// waits for another pass: one batch).
const EMBED_BATCH: usize = 64;

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
/// found by their words (FTS5) until [`crate::MemoryStore::embed_pending`] reaches them (the
/// `memstr index` command, or [`crate::MemoryStore::spawn_background_embedding`] in a server),
/// so a search never waits for a bulk load to be embedded.
pub const SEARCH_EMBED_BUDGET: usize = 32;

/// What [`crate::MemoryStore::embed_pending`] did.
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

/// How a pass embeds.
struct Pass {
    /// Records to embed at most (None: all that are pending).
    max: Option<usize>,
    /// Sign embedding events for fresh persona vectors now; otherwise they are marked
    /// ([`VecState::Unsigned`]) and signed by the next [`crate::MemoryStore::embed_pending`].
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
    let Some(e) = records::stored_embedding(conn, key)? else { return Ok(None) };
    let fits = e.model == model && e.embedding.len() == dims && e.text_hash.as_deref() == Some(hash);
    Ok(fits.then_some(e.embedding))
}

/// Embeds records waiting for a vector (see [`crate::MemoryStore::embed_pending`]).
pub(crate) async fn embed_pending(
    engine: &Arc<Engine>,
    vectors: &Vectors,
    max: Option<usize>,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<EmbedReport> {
    let Some(state) = vectors.clone() else { return Ok(EmbedReport::default()) };
    let pass = Pass { max, publish: true, wait: true, scope: Scope::default() };
    let mut report = embed_batches(engine, &state, pass, progress).await?;
    if !engine.evaluate_only() {
        report.published += publish_unsigned_vectors(engine, &state).await?;
    }
    report.remaining = pending_embeddings(engine, vectors).await?;
    Ok(report)
}

/// Records waiting for a vector (0 without an embedder).
pub(crate) async fn pending_embeddings(engine: &Arc<Engine>, vectors: &Vectors) -> Result<usize> {
    if vectors.is_none() {
        return Ok(0);
    }
    engine.read(|conn, _| queue::count_pending(conn, &Scope::default())).await
}

/// A search's share: at most [`SEARCH_EMBED_BUDGET`] pending records, signing nothing,
/// and none while another pass holds the embedding lock (it is embedding them).
pub(crate) async fn embed_for_search(engine: &Arc<Engine>, vectors: &Vectors) -> Result<usize> {
    let Some(state) = vectors.clone() else { return Ok(0) };
    if engine.read_only() {
        return Ok(0);
    }
    // Nothing written since a search found nothing pending: nothing to look for (three
    // hops to the database's threads saved on every search of a store at rest).
    let generation = engine.generation();
    if state.clean_at.load(std::sync::atomic::Ordering::SeqCst) == generation + 1 {
        return Ok(0);
    }
    let pass = Pass { max: Some(SEARCH_EMBED_BUDGET), publish: false, wait: false, scope: Scope::default() };
    let report = embed_batches(engine, &state, pass, &mut |_, _| {}).await?;
    if report.remaining == 0 {
        state.clean_at.store(generation + 1, std::sync::atomic::Ordering::SeqCst);
    }
    Ok(report.embedded)
}

/// The novelty gate's share: the pending persona memories of one facet, which it
/// compares a new memory with, and nothing else.
pub(crate) async fn embed_for_gate(
    engine: &Arc<Engine>,
    vectors: &Vectors,
    domain: &str,
    facet: &str,
) -> Result<usize> {
    let Some(state) = vectors.clone() else { return Ok(0) };
    let scope = Scope { persona_facet: Some((domain.to_string(), facet.to_string())), ..Default::default() };
    let pass = Pass { max: None, publish: true, wait: true, scope };
    Ok(embed_batches(engine, &state, pass, &mut |_, _| {}).await?.embedded)
}

/// Consolidation's and introspection's share: the pending persona memories, whose
/// vectors they compare; journal entries and flat memories wait for their pass.
pub(crate) async fn embed_persona(engine: &Arc<Engine>, vectors: &Vectors) -> Result<usize> {
    let Some(state) = vectors.clone() else { return Ok(0) };
    let scope = Scope { persona_only: true, ..Default::default() };
    let pass = Pass { max: None, publish: true, wait: true, scope };
    Ok(embed_batches(engine, &state, pass, &mut |_, _| {}).await?.embedded)
}

/// Starts a task that embeds pending records after every change to the store (see
/// [`crate::MemoryStore::spawn_background_embedding`]).
pub(crate) fn spawn_background(engine: &Arc<Engine>, vectors: &Vectors) -> BackgroundEmbedding {
    let active = vectors.is_some() && !engine.read_only();
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return BackgroundEmbedding { task: None } };
    let Some(state) = vectors.as_ref().filter(|_| active) else { return BackgroundEmbedding { task: None } };
    let (weak_engine, weak_state) = (Arc::downgrade(engine), Arc::downgrade(state));
    let mut changes = engine.changes();
    let task = handle.spawn(async move {
        loop {
            // Strong handles only while embedding: the store closes when its users are gone.
            let (Some(engine), Some(state)) = (weak_engine.upgrade(), weak_state.upgrade()) else { break };
            if let Err(e) = embed_pending(&engine, &Some(state), None, &mut |_, _| {}).await {
                tracing::warn!("background embedding failed: {e}");
            }
            drop(engine);
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
    engine: &Arc<Engine>,
    state: &Arc<VectorState>,
    pass: Pass,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<EmbedReport> {
    let loading = state.clone();
    crate::engine::blocking(move || loading.index().map(|_| ())).await?;
    let mut report = EmbedReport::default();
    let model = state.embedder.model_id().to_string();
    let dims = state.embedder.dims();
    let scope = pass.scope.clone();
    let pending: usize = engine.read(move |conn, _| queue::count_pending(conn, &scope)).await?;
    let total = pass.max.map_or(pending, |m| m.min(pending));
    let mut done = 0;
    // A fresh persona vector not signed now waits, marked, for the next full pass;
    // nothing is signed at all by a store that only evaluates.
    let publish = pass.publish && !engine.evaluate_only();
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
        let (batch, unreadable): (Vec<Pending>, Vec<(i64, Option<String>)>) = engine
            .read(move |conn, _| {
                let model = model_for_read;
                let rows = queue::pending(conn, &scope, want)?;
                let (mut out, mut unreadable) = (Vec::new(), Vec::new());
                for (rid, kind, json, stored_hash) in rows {
                    let payload = match (RecordKind::MEMORIES.contains(&kind), json) {
                        (true, Some(j)) => records::payload_of(kind, &j)?,
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
            crate::engine::blocking(move || {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                embedder.embed(&refs)
            })
            .await?
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
            return Err(Error::model(format!(
                "embedder {model} returned a vector of {} dimensions, expected {dims}",
                v.len()
            )));
        }
        let (model_for_write, state) = (model.clone(), state.clone());
        let (stored, reused, published) = engine
            .write(move |tx, engine| {
                let model = model_for_write;
                // Nothing to embed in these (no text, or a kind without vectors): not
                // pending any more, unless they changed since they were read.
                for (rid, hash) in &unreadable {
                    queue::mark_nothing_to_embed(tx, *rid, hash.as_deref())?;
                }
                let (mut stored, mut reused, mut published) = (Vec::new(), 0, 0);
                for (p, (v, fresh)) in batch.iter().zip(vectors) {
                    // A fresh persona vector that is not signed now is marked for the
                    // next full pass, which signs it.
                    let unsigned = fresh && !publish && p.persona_key.is_some();
                    // Only if the text is still what was embedded.
                    let state = if unsigned { VecState::Unsigned } else { VecState::Current };
                    let Some(vid) = queue::store(tx, p.rid, &p.hash, state, &model, &v)? else { continue };
                    // Publish a freshly computed persona vector, so other devices with
                    // the same model need not compute it (seed 003's embed events).
                    if let (true, true, Some(key)) = (fresh, publish, &p.persona_key) {
                        sign_embedding(tx, engine, key, &v, &model, &p.hash)?;
                        published += 1;
                    }
                    reused += usize::from(!fresh);
                    stored.push((vid, p.rid, v));
                }
                // Into the index in the same blocking task as the rows: a search
                // cancelled between the two would otherwise leave vectors in SQLite that
                // the index lacks until the next open.
                {
                    let mut index = state.index()?.write().unwrap_or_else(std::sync::PoisonError::into_inner);
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
    // What this pass left of what it counted at its start (`embed_pending` counts again).
    report.remaining = pending.saturating_sub(done);
    Ok(report)
}

/// Signs the embedding events of persona vectors stored without one (by a search),
/// a chunk per transaction. Returns how many were signed.
async fn publish_unsigned_vectors(engine: &Arc<Engine>, state: &Arc<VectorState>) -> Result<usize> {
    const CHUNK: usize = 256;
    // Usually there are none: a read, not a write transaction, tells.
    let any = engine.read(|conn, _| queue::any_unsigned(conn)).await?;
    if !any {
        return Ok(0);
    }
    let mut total = 0;
    loop {
        let (model, dims) = (state.embedder.model_id().to_string(), state.embedder.dims());
        let (seen, signed) = engine
            .write(move |tx, engine| {
                let rows = queue::unsigned(tx, &model, CHUNK)?;
                let mut signed = 0;
                for (rid, key, hash, blob) in &rows {
                    let v = from_blob(blob);
                    // Another device may have published this very vector meanwhile.
                    if published_vector(tx, key, &model, dims, hash)?.is_none() {
                        sign_embedding(tx, engine, key, &v, &model, hash)?;
                        signed += 1;
                    }
                    queue::mark_current(tx, *rid)?;
                }
                // Marked records whose vector is of another model or text: embedded again.
                if rows.len() < CHUNK {
                    queue::requeue_unsigned(tx)?;
                }
                Ok((rows.len(), signed))
            })
            .await?;
        total += signed;
        if seen < CHUNK {
            return Ok(total);
        }
    }
}

/// Signs persona memory `key`'s vector as an embedding event (`sense-memory/embed/{key}`).
fn sign_embedding(
    tx: &rusqlite::Transaction,
    engine: &Engine,
    key: &str,
    v: &[f32],
    model: &str,
    hash: &str,
) -> Result<()> {
    let e = crate::codec::Embedding {
        key: key.to_string(),
        embedding: v.to_vec(),
        model: model.to_string(),
        created_at: engine.now(),
        text_hash: Some(hash.to_string()),
    };
    crate::engine::write::write_record(
        tx,
        engine,
        &crate::codec::Path::Embed { key: key.to_string() },
        Payload::Embed(e),
    )?;
    Ok(())
}

/// The task [`crate::MemoryStore::spawn_background_embedding`] started; dropping it stops the task
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

/// Blanks the vector points of record `rid` (a purge) and saves the index when any was.
pub(crate) async fn blank(state: Arc<VectorState>, rid: i64) -> Result<()> {
    let blanked = crate::engine::blocking(move || -> Result<bool> {
        let index = state.index()?;
        let blanked = index.write().unwrap_or_else(std::sync::PoisonError::into_inner).blank(rid);
        if blanked > 0 {
            state.save()?;
        }
        Ok(blanked > 0)
    })
    .await?;
    tracing::debug!("purge: vector points blanked: {blanked}");
    Ok(())
}
