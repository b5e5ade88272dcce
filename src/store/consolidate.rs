//! The consolidation cycle (seeds 000 and 001): prune lifecycle states, promote
//! recurring journal content to persona facts, link similar persona memories, strengthen
//! edges between memories retrieved together, decay and drop weak learned edges.
//!
//! Idempotent: every step is a function of the store's contents plus what happened
//! since the last cycle (new journal entries, co-retrievals, whole days elapsed), so a
//! second run with nothing new in between changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;

use rusqlite::{Connection, Transaction};
use serde::Serialize;

use super::lifecycle::{live_state, load_edges, meta_get, meta_set, prune, save_edges, PruneReport};
use super::persona::save_with;
use super::{Inner, MemoryStore};
use crate::error::Result;
use crate::lifecycle::gate::{fold, lexical_similarity};
use crate::lifecycle::graph::{self, EdgeKind, StoredEdge};
use crate::model::{JournalEntry, PersonaMemory};
use crate::search;

const DAY: f64 = 86_400.0;
/// Journal entries examined for recurrence per cycle (oldest unexamined first); later
/// cycles take the rest.
const RECUR_BATCH: usize = 1_000;
/// Co-retrieval of two memories adds this much to their edge (Vestige: 0..2 strength).
const COACTIVATION_STEP: f64 = 0.2;

/// What one consolidation cycle changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ConsolidationReport {
    /// Lifecycle state changes and deletions ([`MemoryStore::persona_prune`]).
    pub prune: PruneReport,
    /// Persona memories created from recurring journal content, by address.
    pub promoted: Vec<String>,
    /// Semantic edges added or re-weighted between similar persona memories.
    pub linked: usize,
    /// Co-activation edges strengthened (memories retrieved together).
    pub strengthened: usize,
    /// Whole days of edge decay applied, and the weak edges dropped.
    pub decay_days: u64,
    pub edges_pruned: usize,
    /// Learned edges after the cycle.
    pub edges: usize,
    /// When it ran.
    pub at: f64,
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
const NEIGHBOURS: i64 = 50;
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
    let words: Vec<String> = search::content_terms(text).into_iter().take(6).collect();
    let s = words.join("-");
    if s.is_empty() {
        "entry".into()
    } else {
        s.chars().take(80).collect()
    }
}

/// Distinct content words of `text` (no stop words, numbers or single letters), folded,
/// each with the first form it took (what FTS5 is asked for).
fn content_words(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for w in search::tokenize(text) {
        if w.chars().count() < 2 || w.chars().all(|c| c.is_ascii_digit()) || search::STOP_WORDS.contains(&w.as_str()) {
            continue;
        }
        out.entry(fold(&w)).or_insert(w);
    }
    out
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

/// The UTC day of a time, as SQLite computes it below.
const DAY_SQL: &str = "CAST(r.ts / 86400 AS INTEGER)";

/// How routine the journal's words are: its days, and per word (cached) the days it
/// appears on.
struct DayFrequency<'c> {
    conn: &'c Connection,
    days: u64,
    cache: BTreeMap<String, u64>,
}

impl<'c> DayFrequency<'c> {
    fn new(conn: &'c Connection) -> Result<Self> {
        let days: i64 = conn.query_row(
            &format!("SELECT count(DISTINCT {DAY_SQL}) FROM records r WHERE r.kind = 'journal' AND r.deleted = 0"),
            [],
            |r| r.get(0),
        )?;
        Ok(DayFrequency { conn, days: days.max(0) as u64, cache: BTreeMap::new() })
    }

    /// Days with a journal entry containing `word` (FTS5's stemmer matches its forms).
    fn days_of(&mut self, word: &str) -> Result<u64> {
        if let Some(d) = self.cache.get(word) {
            return Ok(*d);
        }
        let Some(expr) = search::fts_any(&[word.to_string()]) else { return Ok(0) };
        let d: i64 = self
            .conn
            .prepare_cached(&format!(
                "SELECT count(DISTINCT {DAY_SQL}) FROM records_fts f JOIN records r ON r.rid = f.rowid
             WHERE records_fts MATCH ?1 AND r.kind = 'journal' AND r.deleted = 0"
            ))?
            .query_row([expr], |r| r.get(0))?;
        self.cache.insert(word.to_string(), d.max(0) as u64);
        Ok(d.max(0) as u64)
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
    let words: Vec<BTreeMap<String, String>> = cluster.iter().map(|(_, c, _)| content_words(c)).collect();
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

/// The first `RECUR_BATCH` journal entries after `after_rid`, with rid and content.
fn new_journal(conn: &Connection, after_rid: i64) -> Result<Vec<(i64, JournalEntry)>> {
    let mut stmt = conn.prepare(
        "SELECT rid, payload FROM records WHERE kind = 'journal' AND deleted = 0 AND payload IS NOT NULL AND rid > ?1
         ORDER BY rid LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![after_rid, RECUR_BATCH as i64], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (rid, json) = row?;
        out.push((rid, serde_json::from_str(&json)?));
    }
    Ok(out)
}

/// Entries lexically similar to `text` (FTS5 candidates, then word overlap): the fallback
/// when there are no vectors.
fn lexical_neighbours(conn: &Connection, text: &str, threshold: f64) -> Result<Vec<Entry>> {
    let Some(expr) = search::fts_any(&search::content_terms(text)) else { return Ok(Vec::new()) };
    let mut stmt = conn.prepare_cached(
        "SELECT r.rid, r.payload FROM records_fts f JOIN records r ON r.rid = f.rowid
         WHERE records_fts MATCH ?1 AND r.kind = 'journal' AND r.deleted = 0 ORDER BY f.rank LIMIT ?2",
    )?;
    let rows =
        stmt.query_map(rusqlite::params![expr, NEIGHBOURS], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (rid, json) = row?;
        let e: JournalEntry = serde_json::from_str(&json)?;
        if lexical_similarity(text, &e.content) >= threshold {
            out.push((rid, e.content, e.created_at));
        }
    }
    Ok(out)
}

impl MemoryStore {
    /// Runs one consolidation cycle now (see the module doc and docs/lifecycle.md). Cycles
    /// never overlap: a call waits for a running one.
    pub async fn consolidate(&self) -> Result<ConsolidationReport> {
        let one_at_a_time = self.inner.consolidation.clone().lock_owned().await;
        self.consolidate_locked(one_at_a_time).await
    }

    /// Waits until no consolidation cycle is running: the automatic one started by the
    /// `consolidate_every`-th write runs in the background, and what it archives or promotes
    /// depends on when it reads the store. Returns at once when none runs. A benchmark or a
    /// test that must see the same store on every run settles after each write;
    /// [`MemoryStore::close`] settles first, so a cycle is never cut off by the process
    /// ending.
    pub async fn settle(&self) {
        drop(self.inner.consolidation.lock().await);
    }

    /// A cycle, for the holder of the consolidation lock.
    async fn consolidate_locked(&self, _lock: tokio::sync::OwnedMutexGuard<()>) -> Result<ConsolidationReport> {
        let writes_at_start = self.inner.writes_since_consolidation.load(Ordering::SeqCst);
        let coactive: BTreeMap<(String, String), u32> =
            std::mem::take(&mut *self.inner.coactive.lock().map_err(|_| crate::Error::Task("log poisoned".into()))?);
        let result = self.cycle(coactive.clone()).await;
        match &result {
            Ok(_) => {
                // Writes made during the cycle still count toward the next one.
                let _ = self
                    .inner
                    .writes_since_consolidation
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| Some(n.saturating_sub(writes_at_start)));
            }
            Err(_) => {
                // Nothing learned is lost: the co-retrievals wait for the next cycle.
                if let Ok(mut log) = self.inner.coactive.lock() {
                    for (k, n) in coactive {
                        *log.entry(k).or_default() += n;
                    }
                }
            }
        }
        // Learned edges changed without any event changing: the cached graph is stale.
        if matches!(&result, Ok(r) if r.changed()) {
            self.inner.generation.fetch_add(1, Ordering::SeqCst);
        }
        result
    }

    async fn cycle(&self, coactive: BTreeMap<(String, String), u32>) -> Result<ConsolidationReport> {
        // Promotion first, in its own transaction: the facts it creates take part in this
        // cycle's linking, so the next cycle finds nothing new to link.
        let (recurring, watermark) = self.recurrence_inputs().await?;
        let promoted = self
            .write(move |tx, inner| {
                let promoted = promote(tx, inner, &recurring, inner.clock.now())?;
                meta_set(tx, "consolidated_journal_rid", &watermark.to_string())?;
                Ok(promoted)
            })
            .await?;
        // Linking compares persona memories only: the rest waits for its own pass.
        #[cfg(feature = "vectors")]
        self.embed_persona().await?;
        let similar = self.similar_inputs().await?;
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            let mut report = ConsolidationReport { at: now, promoted, ..Default::default() };
            report.prune = prune(tx, inner)?;
            let before = load_edges(tx)?;
            // Edges of memories that are gone go with them. Only the endpoints are looked up
            // (path is unique), not every record of the store.
            let live: BTreeSet<String> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL)",
                )?;
                let ends: BTreeSet<&String> =
                    before.iter().flat_map(|e| [&e.a, &e.b]).chain(coactive.keys().flat_map(|(a, b)| [a, b])).collect();
                let mut live = BTreeSet::new();
                for path in ends {
                    if stmt.query_row([path], |r| r.get::<_, bool>(0))? {
                        live.insert(path.clone());
                    }
                }
                live
            };
            let mut edges: Vec<StoredEdge> =
                before.iter().filter(|e| live.contains(&e.a) && live.contains(&e.b)).cloned().collect();
            report.edges_pruned = before.len() - edges.len();
            // Decay counts whole days since the last decay, so a second cycle on the same
            // day decays nothing.
            let today = (now / DAY).floor() as i64;
            let last: i64 = meta_get(tx, "edges_decayed_day")?.and_then(|s| s.parse().ok()).unwrap_or(today);
            if today > last {
                report.decay_days = (today - last) as u64;
                let factor = graph::CYCLE_DECAY.powi(report.decay_days as i32);
                report.edges_pruned += graph::decay_and_prune(&mut edges, factor, graph::PRUNE_BELOW);
            }
            meta_set(tx, "edges_decayed_day", &today.max(last).to_string())?;
            for (a, b, sim) in &similar {
                // A link dates from its discovery; found again, it keeps that date and is
                // restored to its similarity (only links no longer found fade out).
                let known = before.iter().find(|e| e.kind == EdgeKind::Semantic && e.a == *a && e.b == *b);
                let created_at = known.map_or(now, |e| e.created_at);
                if known.map(|e| e.weight) != Some(*sim) {
                    report.linked += 1;
                }
                let edge =
                    StoredEdge { a: a.clone(), b: b.clone(), kind: EdgeKind::Semantic, weight: *sim, created_at };
                graph::upsert(&mut edges, edge);
            }
            for ((a, b), n) in &coactive {
                if live.contains(a) && live.contains(b) {
                    graph::strengthen(&mut edges, a, b, COACTIVATION_STEP * *n as f64, now);
                    report.strengthened += 1;
                }
            }
            edges.sort_by(|x, y| (&x.a, &x.b, x.kind.as_str()).cmp(&(&y.a, &y.b, y.kind.as_str())));
            if edges != before {
                save_edges(tx, &edges)?;
            }
            report.edges = edges.len();
            meta_set(tx, "last_consolidation", &now.to_string())?;
            Ok(report)
        })
        .await
    }

    /// Similar persona pairs `(a, b, similarity)` with `a < b`: cosine of their embeddings,
    /// or word overlap without a model.
    async fn similar_inputs(&self) -> Result<Vec<(String, String, f64)>> {
        #[cfg(feature = "vectors")]
        let vectors_on = self.inner.vectors.is_some();
        #[cfg(not(feature = "vectors"))]
        let vectors_on = false;
        self.read(move |conn, inner| {
            let link = inner.life.link_similarity;
            // Persona memories: few (thousands at most), so every pair is compared.
            let persona = super::persona::load_all(conn)?;
            let mut vecs: BTreeMap<i64, Vec<f32>> = BTreeMap::new();
            if vectors_on {
                let mut stmt = conn.prepare(
                    "SELECT v.rid, v.vec FROM vectors v JOIN records r ON r.rid = v.rid WHERE r.kind = 'persona' AND r.deleted = 0",
                )?;
                for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))? {
                    let (rid, blob) = row?;
                    vecs.insert(rid, crate::index::from_blob(&blob));
                }
            }
            let path_of = |m: &PersonaMemory| {
                crate::codec::Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() }.to_d()
            };
            let mut similar = Vec::new();
            for (i, (ra, ma)) in persona.iter().enumerate() {
                for (rb, mb) in &persona[i + 1..] {
                    let sim = match (vecs.get(ra), vecs.get(rb)) {
                        (Some(x), Some(y)) => search::dot(x, y),
                        _ if vectors_on => continue,
                        _ => lexical_similarity(&ma.value, &mb.value),
                    };
                    if sim >= link {
                        let (a, b) = (path_of(ma), path_of(mb));
                        let (a, b) = if a <= b { (a, b) } else { (b, a) };
                        similar.push((a, b, search::round3(sim)));
                    }
                }
            }
            Ok(similar)
        })
        .await
    }

    /// Recurring journal content among the entries since the last cycle, and the newest
    /// journal rid examined. A cluster qualifies with `recur_min` distinct episodes and
    /// `MIN_SPECIFIC_WORDS` specific shared words; one that does not is judged again when
    /// a new entry of it comes (the journal's days have grown by then).
    async fn recurrence_inputs(&self) -> Result<(Vec<Recurrence>, i64)> {
        self.read(move |conn, inner| {
            let recur = inner.life.recur_similarity;
            // Journal: entries since the last cycle, each with its similar entries.
            let after: i64 = meta_get(conn, "consolidated_journal_rid")?.and_then(|s| s.parse().ok()).unwrap_or(0);
            let fresh = new_journal(conn, after)?;
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
                if cluster.len() < inner.life.recur_min {
                    continue;
                }
                cluster.sort_by_key(|(r, _, _)| *r);
                // Judged once per cycle: its other fresh entries would find the same cluster.
                seen.extend(cluster.iter().map(|(r, _, _)| *r));
                let n_episodes = episodes(&mut cluster.iter().map(|(_, _, t)| *t).collect::<Vec<_>>());
                if n_episodes < inner.life.recur_min {
                    continue;
                }
                if !informative(&cluster, &mut freq, inner.life.recur_min)? {
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

    /// Counts a write toward the next automatic cycle, and starts one when due.
    pub(crate) fn note_write(&self) {
        let every = self.inner.life.consolidate_every;
        let n = self.inner.writes_since_consolidation.fetch_add(1, Ordering::SeqCst) + 1;
        self.inner.last_write.store(self.inner.opened.elapsed().as_millis() as u64, Ordering::SeqCst);
        if every > 0 && n >= every {
            self.spawn_consolidation();
        }
    }

    fn spawn_consolidation(&self) {
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
        // A cycle running (or queued) already: this one would find nothing new.
        let Ok(lock) = self.inner.consolidation.clone().try_lock_owned() else { return };
        let store = self.clone();
        handle.spawn(async move {
            if let Err(e) = store.consolidate_locked(lock).await {
                tracing::warn!("automatic consolidation failed: {e}");
                // Try again after another round of writes, not after every one.
                store.inner.writes_since_consolidation.store(0, Ordering::SeqCst);
            }
        });
    }

    /// Starts the idle timer (when configured and a runtime is running): a cycle runs once
    /// no write has come for `consolidate_idle` and something was written since the last.
    pub(crate) fn start_idle_consolidation(self) -> Self {
        let Some(idle) = self.inner.life.consolidate_idle else { return self };
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return self };
        let weak = std::sync::Arc::downgrade(&self.inner);
        let tick = idle.min(std::time::Duration::from_secs(30)).max(std::time::Duration::from_millis(10));
        handle.spawn(async move {
            loop {
                tokio::time::sleep(tick).await;
                // The store is gone once every handle is dropped: stop with it.
                let Some(inner) = weak.upgrade() else { break };
                let store = MemoryStore { inner };
                let quiet = store.inner.opened.elapsed().as_millis() as u64
                    - store
                        .inner
                        .last_write
                        .load(Ordering::SeqCst)
                        .min(store.inner.opened.elapsed().as_millis() as u64);
                if store.inner.writes_since_consolidation.load(Ordering::SeqCst) > 0 && quiet >= idle.as_millis() as u64
                {
                    store.spawn_consolidation();
                }
            }
        });
        self
    }

    /// Notes that the memories at these paths were retrieved together (top search hits);
    /// the next cycle strengthens their edges.
    pub(crate) fn note_coactivation(&self, paths: &[String]) {
        let Ok(mut log) = self.inner.coactive.lock() else { return };
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                let key = if a <= b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) };
                *log.entry(key).or_default() += 1;
            }
        }
    }
}

/// Creates a persona fact for each recurring pattern no persona memory states yet.
fn promote(tx: &Transaction, inner: &Inner, recurring: &[Recurrence], now: f64) -> Result<Vec<String>> {
    let mut out = Vec::new();
    // Every persona memory, of any domain and state, earlier promotions included: a
    // pattern one of them already states (words overlapping as much as the entries of a
    // cluster do) would only repeat it.
    let mut known: Vec<String> = super::persona::load_all(tx)?.into_iter().map(|(_, m)| m.value).collect();
    for r in recurring {
        let key = format!("recurring-{}", slug(&r.content));
        let exists: bool = tx.query_row(
            "SELECT EXISTS(SELECT 1 FROM records WHERE kind = 'persona' AND domain = 'self' AND facet = 'facts' AND key = ?1)",
            [&key],
            |row| row.get(0),
        )?;
        if exists || known.iter().any(|v| lexical_similarity(v, &r.content) >= inner.life.recur_similarity) {
            continue;
        }
        known.push(r.content.clone());
        let value: String = r.content.chars().take(2_000).collect();
        let mut m = PersonaMemory::new("self", "facts", &key, &value, now);
        // No themes: its words are its evidence's; themes would count them twice in search.
        m.source = format!("{PROMOTED_SOURCE} {} similar journal entries in {} episodes", r.count, r.episodes);
        m.confidence = PROMOTED_CONFIDENCE;
        m.state = live_state(inner, &m, now).1;
        out.push(m.address());
        save_with(tx, inner, None, m, true)?;
    }
    Ok(out)
}

/// Whether a persona memory was promoted by consolidation rather than written.
pub(crate) fn is_promoted(m: &PersonaMemory) -> bool {
    m.source.starts_with(PROMOTED_SOURCE)
}

/// The search-side rule for promoted facts (its one place): each ranks below every other
/// hit that is not promoted and matches the query at least as well, judged on the words
/// a person wrote (query content words its text contains; for the promoted fact, its value
/// only, since its key is made of the same words). When its value contains none of them
/// (a match by meaning), "as well" is the `matching` signal. A demoted fact takes the
/// score of the hit above it, and a signal `evidence` says by how much it fell. Its
/// evidence matches as well by construction: a promoted fact never outranks it.
pub(crate) fn promoted_below_evidence(hits: &mut Vec<crate::search::SearchHit>, query: &str) {
    use crate::search::{Found, SearchHit, Signal};
    let promoted = |h: &SearchHit| matches!(&h.found, Found::Persona(p) if is_promoted(p));
    if !hits.iter().any(promoted) {
        return;
    }
    let terms: Vec<String> = content_words(query).into_keys().collect();
    let covers = |text: &str| {
        let words = content_words(text);
        terms.iter().filter(|t| words.contains_key(*t)).count()
    };
    let written_text = |h: &SearchHit| match &h.found {
        Found::Persona(p) if is_promoted(p) => p.value.clone(),
        Found::Persona(p) => format!("{} {} {}", p.key, p.themes.join(" "), p.value),
        other => other.text(),
    };
    let matching = |h: &SearchHit| h.signals.iter().find(|s| s.name == "matching").map_or(0.0, |s| s.value);
    let mut others: Vec<(SearchHit, usize, f64)> = Vec::new();
    // Each promoted fact with the number of other hits to place above it.
    let mut demoted: Vec<(usize, SearchHit)> = Vec::new();
    let mut facts: Vec<(usize, SearchHit)> = Vec::new();
    for h in hits.drain(..) {
        if promoted(&h) {
            facts.push((others.len(), h));
        } else {
            let (c, m) = (covers(&written_text(&h)), matching(&h));
            others.push((h, c, m));
        }
    }
    for (above, fact) in facts {
        let (c, m) = (covers(&written_text(&fact)), matching(&fact));
        let last_rival = others.iter().rposition(|(_, oc, om)| if c > 0 { *oc >= c } else { *om >= m });
        demoted.push((last_rival.map_or(above, |i| above.max(i + 1)), fact));
    }
    // Stable: facts keep their order among themselves.
    demoted.sort_by_key(|(slot, _)| *slot);
    let mut demoted = demoted.into_iter().peekable();
    for (i, (h, _, _)) in others.into_iter().enumerate() {
        while let Some((_, fact)) = demoted.next_if(|(slot, _)| *slot == i) {
            hits.push(fact);
        }
        hits.push(h);
    }
    hits.extend(demoted.map(|(_, fact)| fact));
    // Scores stay in rank order.
    for i in 1..hits.len() {
        let cap = hits[i - 1].score;
        if promoted(&hits[i]) && hits[i].score > cap {
            let fall = cap - hits[i].score;
            hits[i].score = cap;
            hits[i].signals.push(Signal { name: "evidence", value: 0.0, rank: None, contribution: fall });
        }
    }
}
