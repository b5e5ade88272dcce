//! The candidates of one search pass and their signal values: FTS5 and vector pools,
//! episode and graph neighbours, then per candidate the values [`super::hybrid::fuse`]
//! ranks by, each hit's absolute strength, and the filters and states that keep it out.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use super::hybrid::{Candidate, SignalKind as S, Values};
use super::terms::Postings;
use super::Kind;
use super::{Found, SearchQuery, Weights};
use crate::codec::RecordKind;
use crate::engine::fts::{self, Filter};
use crate::engine::records;
use crate::error::Result;
use crate::ids::{IdMap, IdSet};
use crate::lifecycle::runtime::{graph_signal, relock, Lifecycle};
use crate::model::{round3, JournalEntry, Memory, MemoryState, PersonaMemory};
use crate::text::{content_terms, fts_any, query_terms, term_coverage};

const DAY: f64 = 86_400.0;
/// Memories the graph reaches that join the candidates (the most activated).
const GRAPH_EXTRA: usize = 20;
/// A filtered search compares the query's vector with every record the filter admits when
/// there are at most this many (cosines of in-memory int8 points: a few milliseconds);
/// beyond, it takes the vector index's nearest and filters them.
const SCAN_CAP: usize = 20_000;

/// Document frequencies of query terms: the highest rowid and the count of indexed
/// records they were counted at, and the frequencies, each with whether it is exact (else
/// the word is in at least that many records, more than the count reached; see
/// [`common_terms_dropped`]).
type DfCache = (u64, u64, std::collections::HashMap<String, (u64, bool)>);

/// What searching keeps between searches.
#[derive(Default)]
pub(crate) struct SearchState {
    df: Mutex<DfCache>,
    /// Each searched word's postings, between writes.
    terms: super::terms::TermCache,
    /// Whether "vectors off" was said already.
    pub(crate) warned_no_vectors: AtomicBool,
}

type Row = fts::CandidateRow;

/// The cosine of a record's vector with the query's, when both exist.
pub(crate) type CosineOf<'a> = &'a dyn Fn(i64) -> Option<f64>;

/// Loads the rows of `rids` not loaded yet.
fn load_rows(conn: &Connection, rids: impl Iterator<Item = i64>, rows: &mut BTreeMap<i64, Row>) -> Result<()> {
    let wanted: Vec<i64> = rids.filter(|r| !rows.contains_key(r)).collect();
    rows.extend(fts::rows(conn, &wanted)?);
    Ok(())
}

/// Cosines for candidates the vector index did not return (none without a query vector).
fn fill_cosine(cosine_of: CosineOf, rids: &[i64], cosine: &mut BTreeMap<i64, f64>) {
    for rid in rids {
        if !cosine.contains_key(rid) {
            if let Some(c) = cosine_of(*rid) {
                cosine.insert(*rid, c);
            }
        }
    }
}

/// Candidates found after the pools (episode neighbours, graph neighbours): their rows,
/// their cosines, and the BM25 score the one FTS5 pass gave them, if it matched them.
fn join_candidates(
    conn: &Connection,
    cosine_of: CosineOf,
    added: &[i64],
    lexical_all: &IdMap<f64>,
    rows: &mut BTreeMap<i64, Row>,
    cosine: &mut BTreeMap<i64, f64>,
    bm25: &mut BTreeMap<i64, f64>,
) -> Result<()> {
    if added.is_empty() {
        return Ok(());
    }
    load_rows(conn, added.iter().copied(), rows)?;
    fill_cosine(cosine_of, added, cosine);
    for rid in added {
        if let Some(score) = lexical_all.get(rid) {
            bm25.insert(*rid, *score);
        }
    }
    Ok(())
}

/// A term in more documents than this (and 2% of them) is dropped from the FTS5 query
/// when rarer terms remain: FTS5 scores every document matching any term, so one
/// common word costs as much as all the rest, for the least information (IDF).
const COMMON_DOCS: u64 = 2_000;
/// Terms always kept (the rarest), whatever their frequency.
const MIN_TERMS: usize = 2;
/// Postings the kept terms may add up to (by document frequency, rarest first, past the
/// `MIN_TERMS` rarest). FTS5's bm25 reads each matching row's size, so its cost grows
/// with the rows a query matches, not with the results wanted: a budget bounds it on any
/// corpus. The terms left out are the commonest, the least informative by IDF; vector
/// similarity still sees the whole query.
const POSTING_BUDGET: u64 = 3_000;

/// `terms` without the very common ones (see [`COMMON_DOCS`] and [`POSTING_BUDGET`]), in
/// their order. Document
/// frequencies are cached per store and refreshed when the store has grown by a tenth.
fn common_terms_dropped(conn: &Connection, cache: &SearchState, terms: Vec<String>) -> Result<Vec<String>> {
    if terms.len() <= MIN_TERMS {
        return Ok(terms);
    }
    // The highest rowid tells cheaply whether the store grew; the exact count of indexed
    // records is taken when the cache is (re)built.
    let top = fts::top_rowid(conn)?;
    if top <= COMMON_DOCS {
        return Ok(terms);
    }
    let mut cache = relock(&cache.df);
    if top > cache.0 + cache.0 / 10 || top < cache.0 {
        *cache = (top, fts::docs(conn)?, std::collections::HashMap::new());
    }
    let docs = cache.1;
    let limit = COMMON_DOCS.max(docs / 50);
    if docs <= limit {
        return Ok(terms);
    }
    // Only a frequency up to `cap` can keep a word past the rarest `MIN_TERMS`, so words are
    // counted that far first: (the count, whether it is exact).
    let cap = limit.min(POSTING_BUDGET);
    let count = |t: &String, reach: u64| -> Result<(u64, bool)> {
        let counted = fts::doc_freq_capped(conn, &fts_any(std::slice::from_ref(t)).unwrap_or_default(), reach)?;
        Ok((counted, counted <= reach))
    };
    let mut dfs = Vec::with_capacity(terms.len());
    for t in &terms {
        let df = match cache.2.get(t) {
            Some(df) => *df,
            None => *cache.2.entry(t.clone()).or_insert(count(t, cap)?),
        };
        dfs.push(df);
    }
    // The rarest `MIN_TERMS` are known once that many counts are exact and every inexact
    // one (a floor: the word is in more records than that) lies above them. Until then the
    // words still in doubt are counted again, four times further each round (on a large
    // store most words are past the cap, and counting a common one in full reads its every
    // posting). Past the store's size every count is exact.
    let mut reach = cap;
    loop {
        let mut exact: Vec<u64> = dfs.iter().filter(|(_, exact)| *exact).map(|(df, _)| *df).collect();
        exact.sort_unstable();
        let rarest = exact.get(MIN_TERMS - 1).copied();
        if rarest.is_some_and(|v| dfs.iter().all(|(df, exact)| *exact || *df > v)) {
            break;
        }
        reach = reach.saturating_mul(4);
        for (t, df) in terms.iter().zip(dfs.iter_mut()) {
            // A word known to be past `reach` stays past it.
            if !df.1 && df.0 <= reach {
                *df = count(t, reach)?;
                cache.2.insert(t.clone(), *df);
            }
        }
    }
    let dfs: Vec<u64> = dfs.into_iter().map(|(df, _)| df).collect();
    let mut by_rarity: Vec<usize> = (0..terms.len()).collect();
    by_rarity.sort_by_key(|i| (dfs[*i], *i));
    let mut spent = 0u64;
    let mut keep: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for (pos, i) in by_rarity.iter().enumerate() {
        if pos < MIN_TERMS || (dfs[*i] <= limit && spent + dfs[*i] <= POSTING_BUDGET) {
            keep.insert(*i);
            spent += dfs[*i];
        }
    }
    Ok(terms.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, t)| t).collect())
}

/// Records in the full-text index: exact on small stores, else the count cached with the
/// document frequencies (refreshed when the store has grown by a tenth).
fn doc_count(conn: &Connection, cache: &SearchState) -> Result<u64> {
    let top = fts::top_rowid(conn)?;
    if top <= COMMON_DOCS {
        return fts::docs(conn);
    }
    let mut cache = relock(&cache.df);
    if top > cache.0 + cache.0 / 10 || top < cache.0 {
        *cache = (top, fts::docs(conn)?, std::collections::HashMap::new());
    }
    Ok(cache.1)
}

/// Term coverage of each of `rids`: the IDF-weighted share of `terms` the record contains
/// (`Σ idf(t) [t ∈ record] / Σ idf(t)`, with `idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`).
/// Absolute, unlike BM25 normalised by the best hit: a record holding every informative
/// word of the query scores 1 whatever else the store holds, and one sharing only words
/// found everywhere scores near 0. `terms` are the searched ones ([`common_terms_dropped`]):
/// terms too common to search are too common to count.
fn coverage(
    conn: &Connection,
    cache: &SearchState,
    postings: &[Arc<Postings>],
    rids: &BTreeMap<i64, Row>,
) -> Result<BTreeMap<i64, f64>> {
    let mut out: BTreeMap<i64, f64> = BTreeMap::new();
    if postings.is_empty() || rids.is_empty() {
        return Ok(out);
    }
    let docs = doc_count(conn, cache)? as f64;
    let mut total = 0.0;
    // Each searched word's postings give its document frequency among own words and
    // which candidates hold it.
    for p in postings {
        let df = p.own_df();
        let holders: Vec<i64> = rids.keys().copied().filter(|rid| p.own_holds(*rid)).collect();
        let n = docs.max(df as f64);
        let idf = (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln();
        total += idf;
        for rid in holders {
            *out.entry(rid).or_default() += idf;
        }
    }
    if total > 0.0 {
        for v in out.values_mut() {
            *v /= total;
        }
    }
    Ok(out)
}

/// [`crate::search::SearchHit::strength`]: the larger of the cosine (when there is one)
/// and the weighted term coverage, within 0..=1. A record without a vector yet (not
/// embedded) still has its words.
fn strength(cosine: Option<f64>, coverage: f64) -> f64 {
    cosine.unwrap_or(0.0).max(crate::search::COVERAGE_WEIGHT * coverage).clamp(0.0, 1.0)
}

/// What ranking needs besides the query: the caches, the decay policy, the graph and the
/// time.
pub(crate) struct Ctx<'a> {
    pub cache: &'a SearchState,
    /// Full-text row sizes for BM25.
    pub sizes: &'a crate::engine::doc_sizes::DocSizes,
    pub life: &'a Lifecycle,
    pub graph: Option<&'a crate::lifecycle::graph::KnowledgeGraph>,
    pub now: f64,
    /// The range the query's words name, for the `time` signal (the filter is the query's
    /// since/until).
    pub span: Option<(f64, f64)>,
    /// The context searched from, when the `context-match` behaviour is on.
    pub context: Option<&'a str>,
}

/// How strongly a query matches a candidate, for reviving an archived memory.
struct Cue {
    /// The candidate's matching score (words and meaning, see `matching` below).
    matching: f64,
    /// The best matching score among all candidates.
    best: f64,
    /// Cosine of the query and the candidate, when vectors are on.
    cosine: Option<f64>,
}

impl Cue {
    /// A strong cue: the candidate is (nearly) the best match of the query, and the match
    /// stands on its own: a close meaning with the model, most of the query's words without.
    fn is_strong(&self, w: &Weights, terms: &[String], text: &str, has_query_vec: bool) -> bool {
        if self.best <= 0.0 || self.matching < w.revive_share * self.best {
            return false;
        }
        match (has_query_vec, self.cosine) {
            (true, Some(cos)) => cos >= w.revive_cosine,
            (true, None) => false,
            (false, _) => term_coverage(terms, text) >= w.revive_coverage,
        }
    }
}

/// The words' half of a pass: the searched words, their postings and BM25 pool, the
/// filters' sets and the pool's rows. None of it needs the query's vector, so it runs
/// while the query is embedded ([`super::run`]).
pub(crate) struct Lexical {
    other_states: IdSet,
    /// The records a filter admits, when few enough to scan by cosine.
    admitted: Option<Vec<i64>>,
    postings: Vec<Arc<Postings>>,
    /// Every matching record's BM25, within the filters.
    lexical_all: IdMap<f64>,
    /// The best `pool` of them.
    bm25: BTreeMap<i64, f64>,
    /// The rows of `bm25`'s records.
    rows: BTreeMap<i64, Row>,
    has_query_vec: bool,
}

/// Whether the query asks for types or tiers, which only persona memories have.
fn typed(q: &SearchQuery) -> bool {
    !q.types.is_empty() || !q.tiers.is_empty()
}

/// The words' half of a pass (see [`Lexical`]).
pub(crate) fn lexical(
    conn: &Connection,
    ctx: &Ctx,
    q: &SearchQuery,
    w: &Weights,
    has_query_vec: bool,
) -> Result<Lexical> {
    let now = ctx.now;
    let live = |p: &PersonaMemory| ctx.life.live_state(p, now);
    let searched = common_terms_dropped(conn, ctx.cache, content_terms(&q.text))?;
    let fts_expr = fts_any(&searched);
    // What the query may return restricts every pool at the source: a large journal
    // cannot crowd persona memories out, nor a busy month the week asked for.
    // A type or tier admits persona memories only.
    let filter = Filter {
        kinds: match typed(q) && q.kinds.is_empty() {
            true => vec![Kind::Persona.column()],
            false => q.kinds.iter().map(|k| k.column()).collect(),
        },
        domain: q.domain.clone(),
        facet: q.facet.clone(),
        since: q.since,
        until: q.until,
    };
    // Every matching row's BM25, in one pass: FTS5 scores every match anyway to sort
    // them, and a second MATCH for the episode rows below would compute the corpus
    // statistics again. Scores are kept aside; the pool is the best `w.pool`.
    // A filter on persona states, computed by the decay policy at `now` and not stored,
    // keeps out the persona memories in other states before the pools, as SQL keeps out
    // what the other filters do (flat memories and journal entries have no state).
    let other_states: IdSet = match q.states.is_empty() {
        true => Default::default(),
        false => records::all_persona(conn)?
            .into_iter()
            .filter(|(_, m)| !q.states.contains(&live(m).1))
            .map(|(rid, _)| rid)
            .collect(),
    };
    // The records a filter admits, when they are few enough to list (a time range, a
    // domain): the lexical pool and, with the model, the dense scan keep to them.
    let admitted = match (has_query_vec && !q.states.is_empty()) || !filter.is_open() {
        true => fts::admitted(conn, &filter, SCAN_CAP)?,
        false => None,
    };
    // Each searched word's postings, read once for the pass: BM25 below, coverage later.
    let postings = ctx.cache.terms.postings(conn, ctx.sizes, &searched, w.context)?;
    let mut lexical_all = match &fts_expr {
        // FTS5 sums one BM25 share per word: the kept shares give the same scores, within
        // what the filter admits.
        Some(_) if filter.is_open() || admitted.is_some() => {
            let within: Option<IdSet> =
                admitted.as_ref().filter(|_| !filter.is_open()).map(|a| a.iter().copied().collect());
            let held = postings.iter().map(|p| p.len()).sum();
            let mut all = IdMap::with_capacity_and_hasher(held, Default::default());
            for p in &postings {
                for (rid, score) in p.scores() {
                    if within.as_ref().is_none_or(|w| w.contains(&rid)) {
                        *all.entry(rid).or_insert(0.0) += score;
                    }
                }
            }
            all
        }
        Some(expr) => fts::bm25(conn, expr, &filter, w.context)?,
        None => IdMap::default(),
    };
    lexical_all.retain(|rid, _| !other_states.contains(rid));
    let mut ranked: Vec<(i64, f64)> = lexical_all.iter().map(|(r, s)| (*r, *s)).collect();
    if ranked.len() > w.pool && w.pool > 0 {
        ranked.select_nth_unstable_by(w.pool - 1, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(w.pool);
    } else if w.pool == 0 {
        ranked.clear();
    }
    let bm25: BTreeMap<i64, f64> = ranked.into_iter().collect();
    let mut rows: BTreeMap<i64, Row> = BTreeMap::new();
    load_rows(conn, bm25.keys().copied(), &mut rows)?;
    Ok(Lexical { other_states, admitted, postings, lexical_all, bm25, rows, has_query_vec })
}

/// The candidates of one pass and their signal values: the words' half ([`lexical`]) joined
/// with the records nearest the query's vector (`nearest`, `(rid, cosine)`).
pub(crate) fn candidates(
    conn: &Connection,
    ctx: &Ctx,
    cosine_of: CosineOf,
    q: &SearchQuery,
    w: &Weights,
    lex: Lexical,
    nearest: &[(i64, f64)],
) -> Result<Vec<Candidate>> {
    let now = ctx.now;
    let live = |p: &PersonaMemory| ctx.life.live_state(p, now);
    let typed = typed(q);
    let Lexical { other_states, admitted, postings, lexical_all, mut bm25, mut rows, has_query_vec } = lex;
    let mut cosine: BTreeMap<i64, f64> = BTreeMap::new();
    let journal_wanted = q.kinds.is_empty() || q.kinds.contains(&Kind::Journal);
    // A filtered search compares the query with every record the filter admits, when they
    // are few enough, where the shared index could return none of them.
    let admitted = admitted.filter(|_| has_query_vec);
    let scanned = admitted.is_some();
    if let Some(rids) = admitted {
        let mut all: Vec<(i64, f64)> = rids
            .into_iter()
            .filter(|rid| !other_states.contains(rid))
            .filter_map(|rid| cosine_of(rid).map(|c| (rid, c)))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        cosine.extend(all.into_iter().take(w.pool));
    }
    if !scanned && !nearest.is_empty() {
        // Records deleted since the index was loaded still have points: the pool's worth
        // of those whose rows load are kept. The index returned a few spare entries for
        // them; the spares are read only as far as rows failed to load.
        let eligible: Vec<(i64, f64)> =
            nearest.iter().filter(|(rid, _)| !other_states.contains(rid)).copied().collect();
        let mut near: BTreeMap<i64, Row> = BTreeMap::new();
        let (mut start, mut end) = (0, w.pool.min(eligible.len()));
        let loaded = |rid: &i64, near: &BTreeMap<i64, Row>| rows.contains_key(rid) || near.contains_key(rid);
        loop {
            load_rows(
                conn,
                eligible[start..end].iter().map(|(rid, _)| *rid).filter(|r| !rows.contains_key(r)),
                &mut near,
            )?;
            let found = eligible[..end].iter().filter(|(rid, _)| loaded(rid, &near)).count();
            if found >= w.pool || end == eligible.len() {
                break;
            }
            (start, end) = (end, (end + w.pool - found).min(eligible.len()));
        }
        cosine.extend(eligible[..end].iter().filter(|(rid, _)| loaded(rid, &near)).copied());
        rows.extend(near);
    }
    load_rows(conn, cosine.keys().copied(), &mut rows)?;
    let rids: Vec<i64> = rows.keys().copied().collect();
    fill_cosine(cosine_of, &rids, &mut cosine);
    // Normalise BM25 by the best of the first pool, so later additions compare alike.
    let best_bm25 = bm25.values().copied().fold(0.0f64, f64::max);
    // A record still waiting for its vector (beyond a search's embedding budget) is
    // matched by its words alone, as in a search without vectors: its meaning is unknown,
    // not absent, and must not sink it below embedded records that share no word.
    let matching = |rid: i64, row: &Row, bm25: &BTreeMap<i64, f64>, cosine: &BTreeMap<i64, f64>| -> f64 {
        let pending = row.pending;
        let lexical = if best_bm25 > 0.0 { bm25.get(&rid).copied().unwrap_or(0.0) / best_bm25 } else { 0.0 };
        match cosine.get(&rid) {
            Some(cos) => w.lexical_share * lexical + (1.0 - w.lexical_share) * cos,
            None if has_query_vec && !pending => w.lexical_share * lexical,
            None => lexical,
        }
    };

    // Episodes: journal entries near the strongest journal hits join the candidates.
    if w.episode > 0.0 && w.episode_seeds > 0 && journal_wanted {
        let mut seeds: Vec<(f64, f64)> = rows
            .iter()
            .filter(|(_, r)| r.kind == RecordKind::Journal)
            .map(|(rid, r)| (matching(*rid, r, &bm25, &cosine), r.ts))
            .collect();
        seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut added = Vec::new();
        for (_, ts) in seeds.iter().take(w.episode_seeds) {
            for rid in records::journal_between(conn, ts - w.episode_window, ts + w.episode_window, 200)? {
                if !rows.contains_key(&rid) && !added.contains(&rid) {
                    added.push(rid);
                }
            }
        }
        join_candidates(conn, cosine_of, &added, &lexical_all, &mut rows, &mut cosine, &mut bm25)?;
    }

    // Graph: activation spreads from the strongest matches; the memories it reaches most
    // join the candidates.
    let mut activation: BTreeMap<String, f64> = BTreeMap::new();
    if let Some(graph) = ctx.graph {
        let mut seeds: Vec<(String, f64)> =
            rows.iter().map(|(rid, r)| (r.path.clone(), matching(*rid, r, &bm25, &cosine))).collect();
        seeds.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        seeds.truncate(w.graph_seeds);
        seeds.retain(|(p, m)| *m > 0.0 && graph.contains(p));
        if !seeds.is_empty() {
            activation = graph_signal(graph, &seeds, now);
            let known: std::collections::HashSet<&str> = rows.values().map(|r| r.path.as_str()).collect();
            let mut extra: Vec<(&String, &f64)> =
                activation.iter().filter(|(p, a)| **a > 0.0 && !known.contains(p.as_str())).collect();
            extra.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let mut added = Vec::new();
            for (path, _) in extra.into_iter().take(GRAPH_EXTRA) {
                if let Some(rid) = records::rid_of(conn, path)? {
                    added.push(rid);
                }
            }
            join_candidates(conn, cosine_of, &added, &lexical_all, &mut rows, &mut cosine, &mut bm25)?;
        }
    }

    let match_of: BTreeMap<i64, f64> = rows.iter().map(|(rid, r)| (*rid, matching(*rid, r, &bm25, &cosine))).collect();
    let mut journal_times: Vec<(f64, f64)> =
        rows.iter().filter(|(_, r)| r.kind == RecordKind::Journal).map(|(rid, r)| (r.ts, match_of[rid])).collect();
    journal_times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let episode_best = |ts: f64| -> f64 {
        let lo = journal_times.partition_point(|(t, _)| *t < ts - w.episode_window);
        journal_times[lo..].iter().take_while(|(t, _)| *t <= ts + w.episode_window).map(|(_, m)| *m).fold(0.0, f64::max)
    };

    let covered = coverage(conn, ctx.cache, &postings, &rows)?;
    let terms = query_terms(&q.text);
    let best_match = match_of.values().copied().fold(0.0f64, f64::max);
    let cue_terms = content_terms(&q.text);
    let intent = crate::search::query::intent(&q.text);
    let asks_when = crate::search::time::asks_when(&q.text);
    let mut out = Vec::new();
    for (rid, row) in rows {
        let kind_ok = q.kinds.is_empty() || q.kinds.iter().any(|k| k.column() == row.kind);
        if !kind_ok {
            continue;
        }
        let found = match row.kind {
            RecordKind::Kv => Found::Memory(serde_json::from_str::<Memory>(&row.payload)?),
            RecordKind::Journal => Found::Journal(serde_json::from_str::<JournalEntry>(&row.payload)?),
            RecordKind::Persona => Found::Persona(serde_json::from_str::<PersonaMemory>(&row.payload)?),
            _ => continue,
        };
        // Archived records stay out unless the query is a strong cue for them. Forgotten and
        // dissolved persona memories are candidates like any other, ranked on their own
        // (low) lifecycle values: decay orders memories, it does not hide them. Either comes
        // back marked, and the access revives it (docs/lifecycle.md, "Sleeping memories").
        let archived = match &found {
            Found::Memory(m) => m.archived_at.is_some(),
            Found::Journal(j) => j.archived_at.is_some(),
            Found::Persona(p) => p.sync.life.archived_at.is_some(),
        };
        let faded = matches!(&found, Found::Persona(p)
            if q.states.is_empty() && matches!(live(p).1, MemoryState::Forgotten | MemoryState::Dissolved));
        let revived = if archived {
            q.revive && {
                let cue = Cue { matching: match_of[&rid], best: best_match, cosine: cosine.get(&rid).copied() };
                cue.is_strong(w, &cue_terms, &found.text(), has_query_vec)
            }
        } else {
            faded && q.revive
        };
        if (archived || faded) && !revived {
            continue;
        }
        let t = found.time();
        if q.since.is_some_and(|s| t < s) || q.until.is_some_and(|u| t >= u) {
            continue;
        }
        let mut values = Values::default();
        values[S::Matching] = Some(match_of[&rid]);
        values[S::Vector] = cosine.get(&rid).copied();
        values[S::Bm25] = bm25.get(&rid).copied();
        values[S::Recency] = Some(crate::search::time::recency(t, now));
        if ctx.graph.is_some() && !activation.is_empty() {
            values[S::Graph] = Some(round3(activation.get(&row.path).copied().unwrap_or(0.0)));
        }
        // A memory outside the journal is its own episode: the signal exists for every
        // candidate, so no kind gains by carrying it.
        values[S::Episode] = Some(if row.kind == RecordKind::Journal { episode_best(row.ts) } else { match_of[&rid] });
        if let Some(c) = ctx.context {
            values[S::SameContext] = found.in_context(c).then_some(1.0);
        }
        if let Some((a, b)) = ctx.span {
            values[S::Time] = Some(crate::search::time::closeness(t, a, b));
        }
        if asks_when && w.when > 0.0 {
            // The time the memory's own words speak of, resolved at its time.
            let speaks = crate::search::time::spoken_time(&found.text(), t).is_some();
            values[S::When] = Some(if speaks { 1.0 } else { 0.0 });
        }
        let fits = match (intent, &found) {
            (crate::search::query::Intent::Episodic, Found::Journal(_)) => true,
            (crate::search::query::Intent::Procedural, Found::Persona(p)) => p.facet == "procedures",
            (crate::search::query::Intent::Person, Found::Persona(p)) => p.domain == "people",
            _ => false,
        };
        if intent != crate::search::query::Intent::Factual {
            values[S::Intent] = Some(if fits { 1.0 } else { 0.0 });
        }
        // Flat memories and journal entries do not decay: neutral lifecycle values, so a
        // signal only persona memories carry cannot favour them by its mere presence.
        values[S::Relevance] = Some(1.0);
        values[S::Activation] = Some(0.0);
        values[S::Confidence] = Some(1.0);
        if let Found::Persona(p) = &found {
            if q.domain.as_ref().is_some_and(|d| *d != p.domain)
                || q.facet.as_ref().is_some_and(|f| *f != p.facet)
                || !crate::search::reward::admits(&q.types, &q.tiers, p)
            {
                continue;
            }
            let (relevance, state) = live(p);
            let wanted = if q.states.is_empty() {
                revived || matches!(state, MemoryState::Active | MemoryState::Fading)
            } else {
                q.states.contains(&state)
            };
            if !wanted {
                continue;
            }
            let (theme, _) = crate::search::theme_score(&terms, p);
            values[S::Theme] = (theme > 0.0).then_some(theme);
            // Rank fusion would treat a millisecond of decay as a difference: round first.
            values[S::Relevance] = Some(round3(relevance));
            let days = ((now - p.last_accessed) / DAY).max(0.0);
            values[S::Activation] = Some(round3((1.0 + p.access_count as f64).ln() - 0.5 * (1.0 + days).ln()));
            values[S::Confidence] = Some(round3(p.confidence));
            if revived && archived && w.revived_neutral {
                // A strong cue brought it back from the archive; ranked on its match, as if
                // fresh, when asked for.
                values[S::Relevance] = Some(1.0);
                values[S::Activation] = Some(0.0);
            }
        } else if q.domain.is_some() || q.facet.is_some() || typed {
            continue;
        }
        let coverage = covered.get(&rid).copied().unwrap_or(0.0);
        let strength = strength(cosine.get(&rid).copied(), coverage);
        out.push(Candidate { path: row.path, found, values, revived, strength, coverage });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The choice as made before frequencies were counted only up to the cap: every word
    /// counted exactly.
    fn dropped_counting_everything(conn: &Connection, terms: &[String]) -> Vec<String> {
        let limit = COMMON_DOCS.max(fts::docs(conn).unwrap() / 50);
        let dfs: Vec<u64> =
            terms.iter().map(|t| fts::doc_freq(conn, &fts_any(std::slice::from_ref(t)).unwrap()).unwrap()).collect();
        let mut by_rarity: Vec<usize> = (0..terms.len()).collect();
        by_rarity.sort_by_key(|i| (dfs[*i], *i));
        let mut spent = 0;
        let mut keep = Vec::new();
        for (pos, i) in by_rarity.iter().enumerate() {
            if pos < MIN_TERMS || (dfs[*i] <= limit && spent + dfs[*i] <= POSTING_BUDGET) {
                keep.push(*i);
                spent += dfs[*i];
            }
        }
        keep.sort();
        keep.into_iter().map(|i| terms[i].clone()).collect()
    }

    #[test]
    fn words_counted_only_up_to_the_cap_keep_the_same_words() {
        let conn = fts::bare_index();
        // (word, in how many of the 5,000 records): the cap is 2,000 here.
        let words = [
            ("everywhere", 5000),
            ("half", 2500),
            ("often", 2100),
            ("some", 1500),
            ("few", 700),
            ("rare", 50),
            ("single", 1),
        ];
        for i in 0..5000 {
            let value: Vec<&str> = words.iter().filter(|(_, n)| i < *n).map(|(w, _)| *w).collect();
            conn.execute("INSERT INTO records_fts (rowid, value) VALUES (?1, ?2)", (i + 1, value.join(" "))).unwrap();
        }
        let queries: [&[&str]; 6] = [
            &["everywhere", "rare", "some", "often"],
            &["everywhere", "half", "often"],
            &["half", "everywhere", "single"],
            &["few", "some", "rare", "single", "half"],
            &["often", "half", "everywhere", "few"],
            &["everywhere", "rare"],
        ];
        let state = SearchState::default();
        for q in queries {
            let terms: Vec<String> = q.iter().map(|t| t.to_string()).collect();
            let kept = common_terms_dropped(&conn, &state, terms.clone()).unwrap();
            assert_eq!(kept, dropped_counting_everything(&conn, &terms), "query {q:?}");
        }
        // The first query counted "everywhere" no further than the cap; a later query with
        // too few words under the cap counted it exactly.
        let cached = relock(&state.df).2.clone();
        assert_eq!(cached["everywhere"], (5000, true), "counted on to 8,000, past the store's 5,000");
        assert_eq!(cached["rare"], (50, true));
        let state = SearchState::default();
        common_terms_dropped(&conn, &state, queries[0].iter().map(|t| t.to_string()).collect()).unwrap();
        assert_eq!(relock(&state.df).2["everywhere"], (2001, false), "counted up to the cap and one more");
        // A count made exact by an earlier query ("often", 2,100) is ranked against a word
        // counted only to the cap ("half", at least 2,001; 2,500): the rarest two are
        // "single" and "often", not "half".
        let state = SearchState::default();
        for q in [&["often", "everywhere", "single"][..], &["single", "often", "half"]] {
            let terms: Vec<String> = q.iter().map(|t| t.to_string()).collect();
            let kept = common_terms_dropped(&conn, &state, terms.clone()).unwrap();
            assert_eq!(kept, dropped_counting_everything(&conn, &terms), "query {q:?} after the one before");
        }
    }
}
