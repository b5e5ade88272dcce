//! The consolidation cycle (seeds 000 and 001): prune lifecycle states, promote
//! recurring journal content to persona facts, link similar persona memories, strengthen
//! edges between memories retrieved together, decay and drop weak learned edges.
//!
//! Idempotent: every step is a function of the store's contents plus what happened
//! since the last cycle (new journal entries, co-retrievals, whole days elapsed), so a
//! second run with nothing new in between changes nothing.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rusqlite::{Connection, Transaction};
use serde::Serialize;

use super::gate::lexical_similarity;
use super::graph::{self, EdgeKind, StoredEdge};
use super::persona::{prune_addresses, prune_due, PruneReport};
use super::runtime::{relock, Lifecycle};
use super::similar::{link_pairs, Compare};
use super::Parts;
use crate::engine::edges;
use crate::engine::links::MemoChanges;
use crate::engine::records::{self, meta_get, meta_set};
use crate::engine::Engine;
use crate::error::Result;
use crate::model::PersonaMemory;
use crate::text::{content_terms, folded_content_words, fts_any};

const DAY: f64 = 86_400.0;
/// Journal entries examined for recurrence per cycle (oldest unexamined first); later
/// cycles take the rest.
const RECUR_BATCH: usize = 1_000;
/// Co-retrieval of two memories adds this much to their edge (Vestige: 0..2 strength).
const COACTIVATION_STEP: f64 = 0.2;

/// What one consolidation cycle changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ConsolidationReport {
    /// Lifecycle state changes and deletions ([`crate::MemoryStore::persona_prune`]).
    pub prune: PruneReport,
    /// Persona memories created from recurring journal content, by address.
    pub promoted: Vec<String>,
    /// Semantic edges added or re-weighted between similar persona memories.
    pub linked: usize,
    /// Co-activation edges strengthened (memories retrieved together).
    pub strengthened: usize,
    /// Whole days of edge decay applied ...
    pub decay_days: u64,
    /// ... and the weak edges dropped.
    pub edges_pruned: usize,
    /// Learned edges after the cycle.
    pub edges: usize,
    /// Trajectory summaries written (new, or grown since the last), by key
    /// ([`super::summary`]).
    pub summarised: Vec<String>,
    /// When it ran.
    pub at: f64,
    /// Dream insights stored after the cycle (`Behaviour::DreamInsights`; empty when off),
    /// each with the memories it rests on.
    pub insights: Vec<crate::model::Insight>,
    /// Insight records this cycle wrote (new or changed) ...
    pub insights_written: usize,
    /// ... and retired (no longer found).
    pub insights_retired: usize,
    /// Whether linking compared every persona memory (the first cycle, new settings, or
    /// much changed since the last), or only those changed since the last cycle ...
    pub compared_all: bool,
    /// ... and how many it compared with their candidates.
    pub compared: usize,
    /// Seconds each step of the cycle took, in order: where a slow cycle's time went.
    pub steps: Vec<(&'static str, f64)>,
}

impl ConsolidationReport {
    /// Whether the cycle changed anything.
    pub fn changed(&self) -> bool {
        self.prune.changed()
            || !self.promoted.is_empty()
            || self.linked > 0
            || self.strengthened > 0
            || self.decay_days > 0
            || self.edges_pruned > 0
            || !self.summarised.is_empty()
            || self.insights_written > 0
            || self.insights_retired > 0
    }
}

/// Journal entries of one pattern closer in time than this (to the previous one) belong
/// to one episode: a burst of copies is one occurrence, not a habit.
const EPISODE_GAP: f64 = 6.0 * 3_600.0;
/// ... and an episode lasts at most this long, so steady writing does not chain days.
const EPISODE_SPAN: f64 = DAY;
/// A word on more than this share of the journal's days is routine (day-IDF below
/// ln 4): it says nothing specific about any one day.
const COMMON_DAY_SHARE: f64 = 0.25;
/// Specific (not routine) content words a pattern must share to be worth a fact.
const MIN_SPECIFIC_WORDS: usize = 2;
/// How many times more days than chance a pattern's two rarest specific words must share.
const MIN_LIFT: f64 = 4.0;
/// Share of the first entry's content words the cluster must share.
const MIN_SHARED_SHARE: f64 = 2.0 / 3.0;
/// Candidates examined for each fresh entry's cluster (FTS5 rank order).
const NEIGHBOURS: usize = 50;
/// What `source` of a promoted fact starts with; search ranks such facts below their
/// evidence ([`promoted_below_evidence`]).
pub(crate) const PROMOTED_SOURCE: &str = "consolidation:";
/// A promoted fact is an inference from routine text, not something the user said.
const PROMOTED_CONFIDENCE: f64 = 0.5;

/// Recurring journal content: a cluster of at least `recur_min` similar entries from as
/// many distinct episodes, sharing enough specific words.
struct Recurrence {
    /// Earliest entry's content, how many entries recur, and in how many episodes.
    content: String,
    count: usize,
    episodes: usize,
}

/// A journal entry: rid, content, time.
type Entry = (i64, String, f64);

fn slug(text: &str) -> String {
    let words: Vec<String> = content_terms(text).into_iter().take(6).collect();
    let s = words.join("-");
    if s.is_empty() {
        "entry".into()
    } else {
        s.chars().take(80).collect()
    }
}

/// Distinct episodes among entry times: a new one starts `EPISODE_GAP` after the
/// previous entry, or `EPISODE_SPAN` after the episode's first.
fn episodes(times: &mut [f64]) -> usize {
    times.sort_by(f64::total_cmp);
    let (mut n, mut start, mut last) = (0, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for t in times.iter() {
        if t - last >= EPISODE_GAP || t - start >= EPISODE_SPAN {
            n += 1;
            start = *t;
        }
        last = *t;
    }
    n
}

/// How routine the journal's words are: its days, and per word (cached) the days it
/// appears on.
struct DayFrequency<'c> {
    conn: &'c Connection,
    days: u64,
    cache: BTreeMap<String, u64>,
}

impl<'c> DayFrequency<'c> {
    fn new(conn: &'c Connection) -> Result<Self> {
        Ok(DayFrequency { conn, days: records::journal_days(conn, None)?, cache: BTreeMap::new() })
    }

    /// Days with a journal entry containing `word` (FTS5's stemmer matches its forms).
    fn days_of(&mut self, word: &str) -> Result<u64> {
        if let Some(d) = self.cache.get(word) {
            return Ok(*d);
        }
        let Some(expr) = fts_any(&[word.to_string()]) else { return Ok(0) };
        let d = records::journal_days(self.conn, Some(&expr))?;
        self.cache.insert(word.to_string(), d);
        Ok(d)
    }

    /// Whether `word` is specific: on at most `COMMON_DAY_SHARE` of the journal's days
    /// (its day-IDF, ln(days / days_of), at least ln 4).
    fn specific(&mut self, word: &str) -> Result<bool> {
        Ok((self.days_of(word)? as f64) <= COMMON_DAY_SHARE * self.days as f64)
    }
}

/// Whether a cluster says something specific: most of its first entry's content words
/// (at least `MIN_SHARED_SHARE`) are found in at least half of its entries, so the text
/// promoted is what recurs and not one occurrence's details; and `MIN_SPECIFIC_WORDS` of
/// those shared words are specific over the journal's days, the two rarest of them together
/// in its entries on `recur_min` days and on `MIN_LIFT` times the days chance would give.
fn informative(cluster: &[Entry], freq: &mut DayFrequency, recur_min: usize) -> Result<bool> {
    let words: Vec<BTreeMap<String, String>> = cluster.iter().map(|(_, c, _)| folded_content_words(c)).collect();
    let shared: Vec<(&String, &String)> = words[0]
        .iter()
        .filter(|(folded, _)| 2 * words.iter().filter(|w| w.contains_key(*folded)).count() >= cluster.len())
        .collect();
    if (shared.len() as f64) < MIN_SHARED_SHARE * words[0].len() as f64 {
        return Ok(false);
    }
    let mut specific: Vec<(u64, &String)> = Vec::new();
    for (folded, form) in shared {
        if freq.specific(form)? {
            specific.push((freq.days_of(form)?, folded));
        }
    }
    if specific.len() < MIN_SPECIFIC_WORDS {
        return Ok(false);
    }
    // Its two rarest specific words must come together, in its entries, on `recur_min`
    // days and on `MIN_LIFT` times the days chance would give them (their day frequencies,
    // independent): "Ana" and "weather" of "Lunch with Ana; talked about weather", in a
    // cluster of lunches with anyone about anything, meet by coincidence if at all.
    specific.sort();
    let ((da, a), (db, b)) = (specific[0], specific[1]);
    let together: BTreeSet<i64> = cluster
        .iter()
        .zip(&words)
        .filter(|(_, w)| w.contains_key(a) && w.contains_key(b))
        .map(|((_, _, t), _)| (t / DAY).floor() as i64)
        .collect();
    let chance = (da * db) as f64 / freq.days.max(1) as f64;
    Ok(together.len() >= recur_min && together.len() as f64 >= MIN_LIFT * chance)
}

/// Entries lexically similar to `text` (FTS5 candidates, then word overlap): the fallback
/// when there are no vectors.
fn lexical_neighbours(conn: &Connection, text: &str, threshold: f64) -> Result<Vec<Entry>> {
    let Some(expr) = fts_any(&content_terms(text)) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for (rid, e) in records::journal_matching(conn, &expr, NEIGHBOURS)? {
        if lexical_similarity(text, &e.content) >= threshold {
            out.push((rid, e.content, e.created_at));
        }
    }
    Ok(out)
}

/// Runs one cycle now; cycles never overlap: a call waits for a running one.
pub(crate) async fn consolidate(parts: &Parts) -> Result<ConsolidationReport> {
    let one_at_a_time = parts.life.cycle.running.clone().lock_owned().await;
    consolidate_locked(parts, one_at_a_time).await
}

/// Waits until no consolidation cycle is running (see [`crate::MemoryStore::settle`]).
pub(crate) async fn settle(life: &Lifecycle) {
    drop(life.cycle.running.lock().await);
}

/// A cycle, for the holder of the consolidation lock.
pub(super) async fn consolidate_locked(
    parts: &Parts,
    _lock: tokio::sync::OwnedMutexGuard<()>,
) -> Result<ConsolidationReport> {
    let life = &parts.life;
    let writes_at_start = life.cycle.writes.load(Ordering::SeqCst);
    let coactive: BTreeMap<(String, String), u32> = std::mem::take(&mut *relock(&life.cycle.coactive));
    let result = cycle(parts, coactive.clone()).await;
    match &result {
        Ok(_) => {
            // Writes made during the cycle still count toward the next one.
            let _ = life
                .cycle
                .writes
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| Some(n.saturating_sub(writes_at_start)));
        }
        Err(_) => {
            // Nothing learned is lost: the co-retrievals wait for the next cycle.
            let mut log = relock(&life.cycle.coactive);
            for (k, n) in coactive {
                *log.entry(k).or_default() += n;
            }
        }
    }
    // Learned edges changed without any event changing: the cached graph is stale.
    if matches!(&result, Ok(r) if r.changed()) {
        life.edges_changed();
    }
    result
}

async fn cycle(parts: &Parts, coactive: BTreeMap<(String, String), u32>) -> Result<ConsolidationReport> {
    let (engine, life) = (&parts.engine, parts.life.clone());
    let mut steps = Steps::default();
    // Promotion first, in its own transaction: the facts it creates take part in this
    // cycle's linking, so the next cycle finds nothing new to link.
    let (recurring, watermark) = recurrence_inputs(engine, &life).await?;
    // The cycle's own writes count toward the next cycle, as any write.
    let promoted = parts
        .write(move |tx, engine, life| {
            let promoted = promote(tx, engine, life, &recurring, engine.now())?;
            meta_set(tx, "consolidated_journal_rid", &watermark.to_string())?;
            Ok(promoted)
        })
        .await?;
    steps.done("promote recurring journal content");
    // Linking compares persona memories only: the rest waits for its own pass.
    #[cfg(feature = "vectors")]
    crate::index::pipeline::embed_persona(engine, &parts.vectors).await?;
    steps.done("embed persona memories");
    let (similar, full, compared, memo, persona) = similar_inputs(parts).await?;
    steps.done("find similar pairs");
    let now = engine.now();
    let summarised = super::summary::summarise_trajectories(parts).await?;
    steps.done("summarise trajectories");
    let mut report =
        ConsolidationReport { at: now, promoted, summarised, compared_all: full, compared, ..Default::default() };
    // Pruning is chosen on a reader and written `WRITE_BATCH` memories a transaction, each
    // judged again on the row it writes: the writer is never held for the whole store, so
    // a search's accesses and other writes get in between.
    // Chosen from the persona as linking read it (each is judged again as it is written).
    let choose = |persona: &[(i64, PersonaMemory)], now: f64| -> Vec<(String, String, String)> {
        persona
            .iter()
            .filter(|(_, m)| prune_due(&life, m, now))
            .map(|(_, m)| (m.domain.clone(), m.facet.clone(), m.key.clone()))
            .collect()
    };
    let due = match &persona {
        Some(persona) => choose(persona, now),
        None => engine.read(move |conn, _| records::all_persona(conn)).await.map(|p| choose(&p, now))?,
    };
    for chunk in due.chunks(WRITE_BATCH) {
        let chunk = chunk.to_vec();
        let part = parts
            .write(move |tx, engine, life| {
                let mut part = PruneReport::default();
                prune_addresses(tx, engine, life, &chunk, &mut part)?;
                Ok(part)
            })
            .await?;
        report.prune.transitions.extend(part.transitions);
        report.prune.archived.extend(part.archived);
        report.prune.deleted.extend(part.deleted);
        report.prune.marked.extend(part.marked);
    }
    steps.done("prune");
    let dreaming = life.options.behaviours.is_on(super::Behaviour::DreamInsights);
    let dream_pairs: Vec<(String, String, f64)> =
        if dreaming { similar.iter().map(|(a, b, sim, _)| (a.clone(), b.clone(), *sim)).collect() } else { Vec::new() };
    // The learned edges after this cycle, worked out on a reader from the stored ones:
    // only what changes is read and written, so a steady cycle's work follows its changes.
    let plan = engine.read(move |conn, _| edge_plan(conn, now, &similar, full, &coactive)).await?;
    report.linked = plan.linked;
    report.strengthened = plan.strengthened;
    report.decay_days = plan.decay_days;
    report.edges_pruned = plan.pruned;
    for chunk in plan.removed.chunks(EDGE_BATCH) {
        let chunk = chunk.to_vec();
        engine.write(move |tx, _| edges::delete_edges(tx, &chunk)).await?;
    }
    let today = plan.today;
    if let Some(factor) = plan.decay {
        // Decayed once per day: the day is recorded with the decay. Until this cycle's memo
        // is written, the next cycle relinks everything (restoring what this one found).
        engine
            .write(move |tx, _| {
                edges::decay_edges(tx, factor)?;
                crate::engine::links::distrust(tx)?;
                meta_set(tx, "edges_decayed_day", &today.to_string())
            })
            .await?;
    }
    for chunk in plan.upserts.chunks(EDGE_BATCH) {
        let chunk = chunk.to_vec();
        engine.write(move |tx, _| edges::upsert_live_edges(tx, &chunk).map(|_| ())).await?;
    }
    report.edges = engine
        .write(move |tx, _| {
            if plan.decay.is_some() {
                edges::prune_edges_below(tx, graph::PRUNE_BELOW)?;
            }
            meta_set(tx, "edges_decayed_day", &today.to_string())?;
            meta_set(tx, "last_consolidation", &now.to_string())?;
            edges::edge_count(tx)
        })
        .await?;
    // The memo last: a cycle cut short before it compares again what this one did.
    for part in memo.split(EDGE_BATCH) {
        engine.write(move |tx, _| crate::engine::links::apply_part(tx, &part)).await?;
    }
    steps.done("plan and write edges");
    if dreaming {
        // The persona as linking read it, with the memories pruning changed read again.
        let read = persona.map(|p| {
            let prune = &report.prune;
            let touched = prune.transitions.iter().map(|t| &t.0).chain(&prune.archived).chain(&prune.deleted);
            (p, touched.chain(&prune.marked).cloned().collect())
        });
        let dreamt = super::dreams::dream(parts, dream_pairs, read).await?;
        (report.insights, report.insights_written, report.insights_retired) =
            (dreamt.insights, dreamt.written, dreamt.retired);
        steps.done("dream");
        steps.0.extend(dreamt.steps);
    }
    report.steps = steps.0;
    Ok(report)
}

/// Each step's wall time since the previous one.
struct Steps(Vec<(&'static str, f64)>, std::time::Instant);

impl Default for Steps {
    fn default() -> Self {
        Steps(Vec::new(), std::time::Instant::now())
    }
}

impl Steps {
    fn done(&mut self, step: &'static str) {
        self.0.push((step, self.1.elapsed().as_secs_f64()));
        self.1 = std::time::Instant::now();
    }
}

/// Memories pruned, or edges written, per write transaction of a cycle: a few
/// milliseconds of the writer each.
const WRITE_BATCH: usize = 256;
const EDGE_BATCH: usize = 2_000;

/// The learned edges a cycle leaves, as a difference from the stored ones.
struct EdgePlan {
    /// Edges of memories that are gone.
    removed: Vec<(String, String, String)>,
    /// Written after the decay (if any): found links at their similarity, co-retrievals.
    upserts: Vec<edges::EdgeRow>,
    /// The factor every edge decays by this cycle, when a day has passed since the last.
    decay: Option<f64>,
    linked: usize,
    strengthened: usize,
    decay_days: u64,
    pruned: usize,
    /// The day edges are decayed to (`edges_decayed_day`).
    today: i64,
}

/// Edges of memories that are gone go with them; whole days of decay since the last cycle;
/// the similar pairs found linked (restored to their similarity); co-retrievals
/// strengthened. Reads only the edges it may change: the pairs found (of these, only
/// those marked fresh, unless `all` or a decay day restores every found link; the rest
/// were restored by the last cycle and nothing has decayed since), the co-retrieved
/// pairs, and one pass in SQLite for edges of memories gone.
fn edge_plan(
    conn: &Connection,
    now: f64,
    similar: &[(String, String, f64, bool)],
    all: bool,
    coactive: &BTreeMap<(String, String), u32>,
) -> Result<EdgePlan> {
    let removed = edges::dead_edges(conn)?;
    let dead: HashSet<(&str, &str)> = removed.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
    let mut pruned = removed.len();
    // Decay counts whole days since the last decay, so a second cycle on the same day
    // decays nothing.
    let today = (now / DAY).floor() as i64;
    let last: i64 = meta_get(conn, "edges_decayed_day")?.and_then(|s| s.parse().ok()).unwrap_or(today);
    let (mut decay_days, mut decay) = (0, None);
    if today > last {
        decay_days = (today - last) as u64;
        let factor = graph::CYCLE_DECAY.powi(decay_days as i32);
        decay = Some(factor);
        // Edges of gone memories that would also decay below the floor count once.
        pruned += edges::edges_decaying_below(conn, factor, graph::PRUNE_BELOW)?
            .iter()
            .filter(|(a, b, _)| !dead.contains(&(a.as_str(), b.as_str())))
            .count();
    }
    let restore_all = all || decay.is_some();
    let mut upserts: Vec<edges::EdgeRow> = Vec::new();
    let mut linked = 0;
    let semantic = EdgeKind::Semantic.as_str();
    for (a, b, sim, fresh) in similar {
        if !fresh && !restore_all {
            continue;
        }
        // A link dates from its discovery; found again, it keeps that date and is restored
        // to its similarity (only links no longer found fade out).
        let stored = edges::edge_between(conn, a, b, semantic)?;
        let weight = stored.as_ref().map(|e| e.3);
        if weight != Some(*sim) {
            linked += 1;
        }
        if weight != Some(*sim) || decay.is_some() {
            let (a, b, created_at) = match stored {
                Some((sa, sb, _, _, created_at)) => (sa, sb, created_at),
                None => (a.clone(), b.clone(), now),
            };
            upserts.push((a, b, semantic.to_string(), *sim, created_at));
        }
    }
    let mut strengthened = 0;
    let co = EdgeKind::CoActivated.as_str();
    for ((a, b), n) in coactive {
        if a == b || !records::path_is_live(conn, a)? || !records::path_is_live(conn, b)? {
            continue;
        }
        strengthened += 1;
        let mut edges: Vec<StoredEdge> = Vec::new();
        if let Some((sa, sb, _, weight, created_at)) = edges::edge_between(conn, a, b, co)? {
            if !dead.contains(&(sa.as_str(), sb.as_str())) {
                // The day's decay comes first; an edge it takes below the floor starts again.
                let weight = weight * decay.unwrap_or(1.0);
                if weight >= graph::PRUNE_BELOW {
                    edges.push(StoredEdge { a: sa, b: sb, kind: EdgeKind::CoActivated, weight, created_at });
                }
            }
        }
        graph::strengthen(&mut edges, a, b, COACTIVATION_STEP * f64::from(*n), now);
        upserts.extend(edges.into_iter().map(|e| (e.a, e.b, co.to_string(), e.weight, e.created_at)));
    }
    upserts.sort_by(|x, y| (&x.0, &x.1, &x.2).cmp(&(&y.0, &y.1, &y.2)));
    Ok(EdgePlan { removed, upserts, decay, linked, strengthened, decay_days, pruned, today: today.max(last) })
}

/// Consolidation's pairs ([`link_pairs`], with the last cycle's memo): `(a, b,
/// similarity, fresh)` by path, `a < b` (fresh: it involves a memory compared this cycle),
/// whether every memory was compared and how many were, and the memo to keep.
/// The similar pairs by path, whether every memory was compared, how many were, the memo's
/// changes, and the persona as linking read it (every live persona memory, in address
/// order; `None` when linking is off and read none).
async fn similar_inputs(parts: &Parts) -> Result<SimilarInputs> {
    let life = &parts.life;
    let how = Compare {
        vectors_on: parts.vectors.is_some(),
        themes: true,
        link: life.options.link_similarity,
        cap: life.options.link_max_per_memory,
    };
    let vectors = parts.vectors.clone();
    parts
        .engine
        .read(move |conn, _| {
            let memo = crate::engine::links::load(conn)?;
            let l = link_pairs(conn, how, &vectors, Some(&memo))?;
            let persona = &l.persona;
            let pairs: Vec<(String, String, f64, bool)> = l
                .pairs
                .iter()
                .zip(&l.fresh)
                .map(|((i, j, sim), fresh)| {
                    let (a, b) = (persona[*i].0.clone(), persona[*j].0.clone());
                    let (a, b) = if a <= b { (a, b) } else { (b, a) };
                    (a, b, *sim, *fresh)
                })
                .collect();
            // As `records::all_persona` orders them: by address.
            let read = (how.cap > 0).then(|| {
                let mut read: Vec<(i64, PersonaMemory)> = l.persona.into_iter().map(|(_, rid, m)| (rid, m)).collect();
                read.sort_by(|(_, a), (_, b)| (&a.domain, &a.facet, &a.key).cmp(&(&b.domain, &b.facet, &b.key)));
                read
            });
            Ok((pairs, l.full, l.compared, l.memo, read))
        })
        .await
}

/// What [`similar_inputs`] returns.
type SimilarInputs = (Vec<(String, String, f64, bool)>, bool, usize, MemoChanges, Option<Vec<(i64, PersonaMemory)>>);

/// Recurring journal content among the entries since the last cycle, and the newest
/// journal rid examined. A cluster qualifies with `recur_min` distinct episodes and
/// `MIN_SPECIFIC_WORDS` specific shared words; one that does not is judged again when
/// a new entry of it comes (the journal's days have grown by then).
async fn recurrence_inputs(engine: &Arc<Engine>, life: &Arc<Lifecycle>) -> Result<(Vec<Recurrence>, i64)> {
    let (recur, recur_min) = (life.options.recur_similarity, life.options.recur_min);
    engine
        .read(move |conn, _| {
            // Journal: entries since the last cycle, each with its similar entries.
            let after: i64 = meta_get(conn, "consolidated_journal_rid")?.and_then(|s| s.parse().ok()).unwrap_or(0);
            let fresh = records::journal_after(conn, after, RECUR_BATCH)?;
            let watermark = fresh.iter().map(|(rid, _)| *rid).max().unwrap_or(after).max(after);
            let mut freq = DayFrequency::new(conn)?;
            let mut seen: BTreeSet<i64> = BTreeSet::new();
            let mut recurring = Vec::new();
            for (rid, entry) in &fresh {
                if seen.contains(rid) {
                    continue;
                }
                let mut cluster = lexical_neighbours(conn, &entry.content, recur)?;
                if !cluster.iter().any(|(r, _, _)| r == rid) {
                    cluster.push((*rid, entry.content.clone(), entry.created_at));
                }
                if cluster.len() < recur_min {
                    continue;
                }
                cluster.sort_by_key(|(r, _, _)| *r);
                // Judged once per cycle: its other fresh entries would find the same cluster.
                seen.extend(cluster.iter().map(|(r, _, _)| *r));
                let n_episodes = episodes(&mut cluster.iter().map(|(_, _, t)| *t).collect::<Vec<_>>());
                if n_episodes < recur_min {
                    continue;
                }
                if !informative(&cluster, &mut freq, recur_min)? {
                    continue;
                }
                recurring.push(Recurrence {
                    content: cluster[0].1.clone(),
                    count: cluster.len(),
                    episodes: n_episodes,
                });
            }
            Ok((recurring, watermark))
        })
        .await
}

/// Creates a persona fact for each recurring pattern no persona memory states yet.
fn promote(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    recurring: &[Recurrence],
    now: f64,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    if recurring.is_empty() {
        return Ok(out);
    }
    // Every persona memory, of any domain and state, earlier promotions included: a
    // pattern one of them already states (words overlapping as much as the entries of a
    // cluster do) would only repeat it.
    let mut known: Vec<String> = records::all_persona(tx)?.into_iter().map(|(_, m)| m.value).collect();
    for r in recurring {
        let key = format!("recurring-{}", slug(&r.content));
        let exists = records::persona_exists(tx, "self", "facts", &key)?;
        if exists || known.iter().any(|v| lexical_similarity(v, &r.content) >= life.options.recur_similarity) {
            continue;
        }
        known.push(r.content.clone());
        let value: String = r.content.chars().take(2_000).collect();
        let mut m = PersonaMemory::new("self", "facts", &key, &value, now);
        // No themes: its words are its evidence's; themes would count them twice in search.
        m.source = format!("{PROMOTED_SOURCE} {} similar journal entries in {} episodes", r.count, r.episodes);
        m.confidence = PROMOTED_CONFIDENCE;
        m.state = life.live_state(&m, now).1;
        out.push(m.address());
        life.save(tx, engine, None, m, true)?;
    }
    Ok(out)
}

/// Whether a persona memory was promoted by consolidation rather than written.
pub(crate) fn is_promoted(m: &PersonaMemory) -> bool {
    m.source.starts_with(PROMOTED_SOURCE)
}
