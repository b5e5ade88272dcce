//! Running a [`SearchQuery`]: a bounded share of pending embeddings, one or two ranked
//! passes (the second through the names the best hits mention), then the accesses the hits
//! count. Candidates and signal values come from [`super::candidates`], fusion from
//! [`super::hybrid`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::candidates::{candidates, lexical, Ctx, SearchState};
use super::hybrid::{collapse_repeats, fuse};
use super::{BelowCutoff, Found, SearchHit, SearchOutcome, SearchQuery, TimeRange, Weights};
use crate::error::Result;
use crate::lifecycle::Parts;

/// How deep each pass of a bridged search ranks ([`crate::search::bridge`]).
const BRIDGE_DEPTH: usize = 30;

/// Searches persona memories, flat memories and journal entries together (see
/// [`crate::MemoryStore::search`]).
pub(crate) async fn search(parts: &Parts, state: &Arc<SearchState>, query: SearchQuery) -> Result<Vec<SearchHit>> {
    Ok(search_outcome(parts, state, query).await?.hits)
}

/// [`search`], with what the strength cutoff left out (for an empty result's reason).
pub(crate) async fn search_outcome(
    parts: &Parts,
    state: &Arc<SearchState>,
    query: SearchQuery,
) -> Result<SearchOutcome> {
    let with_context = query.with_context;
    let mut outcome = outcome(parts, state, query).await?;
    if with_context && !outcome.hits.is_empty() {
        let mut hits = std::mem::take(&mut outcome.hits);
        outcome.hits = parts
            .engine
            .read(move |conn, _| {
                super::episode_context::attach(conn, &mut hits)?;
                Ok(hits)
            })
            .await?;
    }
    Ok(outcome)
}

async fn outcome(parts: &Parts, state: &Arc<SearchState>, mut query: SearchQuery) -> Result<SearchOutcome> {
    let bounded = crate::text::bounded_query(&query.text).len();
    query.text.truncate(bounded);
    let limit = if query.limit == 0 { 10 } else { query.limit };
    let (span, range) = resolve_time(&mut query, parts.engine.now());
    if range.is_some() && super::time::is_time_only(&query.text) {
        let (q, life) = (query.clone(), parts.life.clone());
        let (mut hits, total) =
            parts.engine.read(move |conn, engine| super::listing::list(conn, &life, engine.now(), &q, limit)).await?;
        super::reward::annotate(&mut hits);
        return Ok(SearchOutcome { hits, range, listed: Some(total), ..Default::default() });
    }
    if crate::text::tokenize(&query.text).is_empty() {
        // Nothing to match and no range to list.
        return Ok(SearchOutcome { range, ..Default::default() });
    }
    // A memory often tells of an event after it happened ("we went camping last month",
    // written in July about June): a ranked search by a time the words name keeps what was
    // written up to one more span after it (a week at least), and the `time` signal ranks
    // the named span itself first. A listing keeps to the span exactly.
    let (span, range) = match range {
        Some(mut r) if r.expression.is_some() => {
            let (start, end) = (r.since.unwrap_or(f64::MIN), r.until.unwrap_or(f64::MAX));
            if end < f64::MAX && start > f64::MIN {
                let widened = end + (end - start).max(super::time::WEEK);
                (query.until, r.until) = (Some(widened), Some(widened));
            }
            (Some((start, end)), Some(r))
        }
        r => (span, r),
    };
    let weights =
        super::reward::gated(query.weights.clone().unwrap_or_default(), &parts.life.options.behaviours, &query.text);
    let bridged = weights.bridge > 0.0 && weights.bridge_seeds > 0;
    // The second hop fuses two rankings: each must reach past the page asked for.
    let depth = if bridged { limit.max(BRIDGE_DEPTH) } else { limit };
    // A bounded share of what is pending, signing nothing, once per search (not per
    // pass): the rest is found by its words until `embed_pending` reaches it.
    #[cfg(feature = "vectors")]
    crate::index::pipeline::embed_for_search(&parts.engine, &parts.vectors).await?;
    let (mut hits, mut below_cutoff, vector) = ranked(parts, state, &query, &weights, depth, span, None).await?;
    let mut range = range;
    if hits.is_empty() && range.as_ref().is_some_and(|r| r.expression.is_some()) {
        // A memory may tell of a time long after it ("last summer we went camping",
        // written the next spring): when nothing dated in or just after the time the words
        // name matches, that time ranks (the `time` signal) instead of filtering. The text
        // is the same: so are its vector and the records nearest it, which no filter
        // shaped.
        (query.since, query.until, range) = (None, None, None);
        (hits, below_cutoff, _) = ranked(parts, state, &query, &weights, depth, span, vector).await?;
    }
    let extra = super::phrasings::texts(&query.text, &query.phrasings, query.hypothetical.as_deref());
    if !extra.is_empty() {
        let mut others = Vec::with_capacity(extra.len());
        for text in extra {
            let mut other = query.clone();
            other.text = text;
            others.push(ranked(parts, state, &other, &weights, depth, span, None).await?.0);
        }
        hits = super::phrasings::fuse(hits, others);
    }
    if bridged {
        let names = super::bridge::names(&query.text, &hits, weights.bridge_seeds);
        if !names.is_empty() {
            let mut second = query.clone();
            second.text = format!("{} {}", query.text, names.join(" "));
            let (more, _, _) = ranked(parts, state, &second, &weights, depth, span, None).await?;
            hits = super::bridge::fuse(hits, more, weights.bridge);
        }
    }
    hits.truncate(limit);
    super::reward::annotate(&mut hits);
    // The best few were retrieved together: consolidation strengthens their links.
    let top: Vec<String> = hits.iter().take(3).map(|h| h.path.clone()).collect();
    if top.len() > 1 {
        parts.life.note_coactivation(&top);
    }
    if query.strengthen {
        let paths: Vec<String> =
            hits.iter().filter(|h| h.revived || matches!(h.found, Found::Persona(_))).map(|h| h.path.clone()).collect();
        // The recalled memory's near duplicates below it lose (retrieval-induced forgetting).
        let contest: Vec<String> = match hits.first() {
            Some(h) if matches!(h.found, Found::Persona(_)) => {
                hits.iter().filter(|h| matches!(h.found, Found::Persona(_))).map(|h| h.path.clone()).collect()
            }
            _ => Vec::new(),
        };
        if !paths.is_empty() {
            let life = parts.life.clone();
            parts
                .engine
                .write(move |tx, engine| {
                    crate::lifecycle::persona::strengthen(tx, engine, &life, &paths)?;
                    crate::lifecycle::competition::after_recall(tx, engine, &life, &contest).map(|_| ())
                })
                .await?;
        }
    }
    Ok(SearchOutcome { hits, below_cutoff, range, listed: None })
}

/// The time a query names, applied: its words leave `query.text` (they name a time, not
/// content), and its range becomes `query.since`/`until` unless the caller gave either
/// (the caller's range wins; the words' range then only ranks, by the `time` signal).
/// Returns the words' range, for that signal, and the range the search keeps to.
fn resolve_time(query: &mut SearchQuery, now: f64) -> (Option<(f64, f64)>, Option<TimeRange>) {
    let found = super::time::find_expression(&query.text, now);
    let explicit = query.since.is_some() || query.until.is_some();
    let mut expression = None;
    if let Some(e) = &found {
        if !explicit {
            (query.since, query.until) = (Some(e.start), Some(e.end));
            expression = Some(e.words(&query.text).to_string());
        }
        query.text = e.rest(&query.text);
    }
    let range = (query.since.is_some() || query.until.is_some()).then_some(TimeRange {
        since: query.since,
        until: query.until,
        expression,
    });
    // Within a range the words set, every candidate is in it: the signal would say nothing.
    let span = found.filter(|_| explicit).map(|e| (e.start, e.end));
    (span, range)
}

/// One pass: candidates, signals, fusion, the cutoff; the best `limit` hits.
///
/// The query is embedded on a thread of its own while the reader works through the words'
/// half of the pass ([`super::candidates::lexical`]): on a machine with a core to spare the
/// words cost nothing beside the model. The reader is kept while it waits for the vector,
/// so a search holds one of the store's few readers for about the model's time (before, it
/// took one only after); reads beyond them wait their turn, none is refused. Given `vector`
/// (a pass of the same text ran before), the pass uses that query vector and its nearest
/// records instead; it returns the ones it used.
async fn ranked(
    parts: &Parts,
    state: &Arc<SearchState>,
    query: &SearchQuery,
    weights: &Weights,
    limit: usize,
    span: Option<(f64, f64)>,
    vector: Option<Arc<Nearest>>,
) -> Result<(Vec<SearchHit>, BelowCutoff, Option<Arc<Nearest>>)> {
    let (query, weights) = (query.clone(), weights.clone());
    let entered = Instant::now();
    let embedding = match vector {
        Some(found) => Some(Embedding::Ready(found)),
        None => vector_candidates(parts, &query.text, weights.pool).map(Embedding::Pending),
    };
    if embedding.is_none() && !state.warned_no_vectors.swap(true, std::sync::atomic::Ordering::SeqCst) {
        tracing::warn!(
            "vectors off: no embedding model (`memstr model install`); searching with words and lifecycle signals only"
        );
    }
    let has_query_vec = embedding.is_some();
    // The cutoff is applied before hits are counted as accesses: a weak hit is not a use.
    let min_strength = query.min_strength.unwrap_or_else(|| super::min_strength(has_query_vec));
    let graph = if weights.graph > 0.0 && weights.graph_seeds > 0 {
        Some(parts.life.graph(&parts.engine).await?)
    } else {
        None
    };
    let (life, state) = (parts.life.clone(), state.clone());
    #[cfg(feature = "vectors")]
    let vectors = parts.vectors.clone();
    parts
        .engine
        .read(move |conn, engine| {
            let reading = Instant::now();
            let now = engine.now();
            let context = query
                .context
                .as_deref()
                .filter(|_| life.options.behaviours.is_on(crate::lifecycle::Behaviour::ContextMatch));
            let ctx = Ctx {
                cache: &state,
                sizes: engine.doc_sizes(),
                life: &life,
                graph: graph.as_deref(),
                now,
                span,
                context,
            };
            let words = lexical(conn, &ctx, &query, &weights, has_query_vec)?;
            let words_done = Instant::now();
            // A pass that reused its search's vector ran neither the model nor the index.
            let reused = matches!(embedding, Some(Embedding::Ready(_)));
            let found =
                match embedding {
                    Some(Embedding::Pending(pending)) => Some(Arc::new(pending.recv().map_err(|_| {
                        crate::Error::Task("the query's embedding stopped before it finished".into())
                    })??)),
                    Some(Embedding::Ready(found)) => Some(found),
                    None => None,
                };
            let query_vec = found.as_ref().map(|f| &f.vector);
            let nearest: &[(i64, f64)] = found.as_ref().map_or(&[], |f| &f.nearest);
            let vector_here = Instant::now();
            // Cosines come from the index's int8 points, in memory: reading candidates'
            // f32 vectors from SQLite cost more than the rest of a search at 100k.
            #[cfg(feature = "vectors")]
            let index = match (&vectors, &query_vec) {
                (Some(v), Some(qv)) => Some((
                    v.index()?.read().unwrap_or_else(std::sync::PoisonError::into_inner),
                    crate::index::vectors::quantize(qv),
                )),
                _ => None,
            };
            let cosine_of = |rid: i64| -> Option<f64> {
                #[cfg(feature = "vectors")]
                if let Some((index, q)) = &index {
                    return index.cosine_of(rid, q).map(f64::from);
                }
                let _ = rid;
                None
            };
            // Without vectors compiled in, the vector is never read.
            #[cfg(not(feature = "vectors"))]
            let _ = &query_vec;
            let cands = candidates(conn, &ctx, &cosine_of, &query, &weights, words, nearest)?;
            let weak: Vec<f64> = cands.iter().map(|c| c.strength).filter(|s| *s < min_strength).collect();
            let below =
                BelowCutoff { hits: weak.len(), best: weak.iter().copied().fold(0.0, f64::max), cutoff: min_strength };
            // Every candidate, so a promoted fact moved down makes room for the next.
            let mut hits = fuse(cands, &weights, usize::MAX, min_strength);
            super::promoted::promoted_below_evidence(&mut hits, &query.text);
            // Only what can still reach the page is looked at: each superseded hit costs a
            // lookup of its replacement, and a pass may hold hundreds of candidates.
            let reach = limit.saturating_mul(2).saturating_add(10);
            if weights.collapse_repeats {
                collapse_repeats(&mut hits, reach);
            }
            hits.truncate(reach);
            super::current::current_first(conn, &life, now, &mut hits, query.history)?;
            hits.truncate(limit);
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            let (model, index) = match &found {
                Some(f) if !reused => (ms(f.model), ms(f.index)),
                _ => (0.0, 0.0),
            };
            // What a slow search spends its time on (`MEMSTR_LOG=memstr=debug`); the
            // vector's steps ran on their own thread, beside the words'.
            tracing::debug!(
                before_ms = ms(reading - entered),
                words_ms = ms(words_done - reading),
                model_ms = model,
                index_ms = index,
                waited_ms = ms(vector_here - words_done),
                after_ms = ms(vector_here.elapsed()),
                pass_ms = ms(entered.elapsed()),
                reused,
                "search pass"
            );
            Ok((hits, below, found))
        })
        .await
}

/// A pass's query vector: on its way from the model, or kept from a pass of the same text.
enum Embedding {
    Pending(std::sync::mpsc::Receiver<Result<Nearest>>),
    Ready(Arc<Nearest>),
}

/// The query's vector and the records nearest it, with the time each took.
struct Nearest {
    vector: Vec<f32>,
    /// `(rid, cosine)`, best first.
    nearest: Vec<(i64, f64)>,
    model: Duration,
    index: Duration,
}

/// Starts embedding the query and searching the vector index on a blocking thread, when
/// vectors are on; the receiver gets the query's vector and the records nearest it.
fn vector_candidates(parts: &Parts, text: &str, pool: usize) -> Option<std::sync::mpsc::Receiver<Result<Nearest>>> {
    #[cfg(feature = "vectors")]
    if let Some(state) = parts.vectors.clone() {
        let text = text.to_string();
        // Room for the one answer: the sender never waits, whether or not the pass still
        // listens (a pass whose words failed has returned its error).
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let found = state.embedder.embed_query(&text).and_then(|vector| {
                let model = started.elapsed();
                // The first search after opening may wait here for the graph to load: that
                // wait is in neither step (the reader's shows it).
                let index = state.index()?.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                let searching = Instant::now();
                // A few more than the pool, for hits of records deleted since the index loaded.
                let nearest =
                    index.search(&vector, pool + pool / 4).into_iter().map(|h| (h.rid, f64::from(h.cosine))).collect();
                Ok(Nearest { vector, nearest, model, index: searching.elapsed() })
            });
            let _ = tx.send(found);
        });
        return Some(rx);
    }
    let _ = (parts, text, pool);
    None
}
