//! One search over everything remembered: candidates from FTS5 (BM25) and the vector
//! index, ranked by several signals fused with weighted reciprocal rank fusion.
//!
//! `RRF(d) = Σ_s w_s / (k + rank_s(d))` over the signals `s` that discriminate for this
//! query (a signal whose value is the same for every candidate is dropped). Each hit
//! keeps its per-signal ranks and values, so a score can be explained.

use serde::{Deserialize, Serialize};

use crate::model::{JournalEntry, Memory, MemoryState, MemoryType, PersonaMemory, Status, Tier};

/// What kind of record to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Kind {
    /// Flat key-value memories.
    Memory,
    /// Journal entries.
    Journal,
    /// Persona memories.
    Persona,
}

impl Kind {
    pub(crate) fn column(self) -> crate::codec::RecordKind {
        match self {
            Kind::Memory => crate::codec::RecordKind::Kv,
            Kind::Journal => crate::codec::RecordKind::Journal,
            Kind::Persona => crate::codec::RecordKind::Persona,
        }
    }
}

/// A search request. Unset filters match everything.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// The context searched from (an episode's `episode:{id}`, a project, a tool): with the
    /// `context-match` behaviour on, memories written in the same context rank higher
    /// ([`Weights::same_context`]); never a filter.
    pub context: Option<String>,
    /// What to search for, in plain words. A time named in it ("last week", "in August
    /// 2026", [`crate::search::time::find_expression`]) filters like `since`/`until` and is
    /// not searched for; with a range and nothing else to match (empty, or "what happened
    /// last week?") the search lists the range (docs/search.md).
    pub text: String,
    /// Results wanted (default 10).
    pub limit: usize,
    /// Only these kinds (empty: all).
    pub kinds: Vec<Kind>,
    /// Only persona memories in this domain (other kinds are then excluded).
    pub domain: Option<String>,
    /// Only persona memories with this facet (other kinds are then excluded).
    pub facet: Option<String>,
    /// Only persona memories in these states (others are unaffected).
    pub states: Vec<MemoryState>,
    /// Only persona memories of these types, their own or their facet's (other kinds are
    /// then excluded; empty: all).
    pub types: Vec<MemoryType>,
    /// Only persona memories in these tiers (other kinds are then excluded; empty: all).
    pub tiers: Vec<Tier>,
    /// Only records whose own time is at or after this (Unix seconds). With `until`, it
    /// wins over a time named in `text`, which then only ranks.
    pub since: Option<f64>,
    /// ... and before this.
    pub until: Option<f64>,
    /// Weights and fusion settings (default: [`Weights::default`]).
    pub weights: Option<Weights>,
    /// Count each persona hit as an access (the testing effect). On with [`SearchQuery::new`].
    pub strengthen: bool,
    /// Let memories that are asleep come back, marked [`SearchHit::revived`]: forgotten and
    /// dissolved persona memories as ordinary candidates (ranked on their own, low,
    /// lifecycle values), archived ones on a strong cue. On with [`SearchQuery::new`]; off
    /// in `persona_search`, which keeps the published client's rule.
    pub revive: bool,
    /// Return superseded memories too, each right after the memory that replaces it, marked
    /// [`Status::Superseded`]. Off (the default): a superseded memory never shows; the
    /// memory that replaces it is returned in its place.
    pub history: bool,
    /// Other wordings of the question from the caller (an agent's language model), each
    /// ranked as its own pass and fused with the question's (at most
    /// [`crate::search::phrasings::MAX_PHRASINGS`]; more are left out).
    pub phrasings: Vec<String>,
    /// A sentence the memory sought might read like, written by the caller without knowing
    /// it (a hypothetical answer): ranked and fused as a phrasing is.
    pub hypothetical: Option<String>,
    /// Hits weaker than this [`SearchHit::strength`] are dropped. `None`: the calibrated
    /// cutoff ([`min_strength`]); `Some(0.0)`: every hit, however weak (benchmarks).
    pub min_strength: Option<f64>,
    /// Bring each hit's episode context ([`SearchHit::context`]): the episode's title and
    /// outcome, its trajectory's summary, the observations beside it, bounded.
    pub with_context: bool,
}

impl SearchQuery {
    /// A query for `text`, top 10, no filters.
    pub fn new(text: &str) -> Self {
        SearchQuery { text: text.to_string(), limit: 10, strengthen: true, revive: true, ..Default::default() }
    }
    /// Sets the number of results wanted.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = n;
        self
    }
    /// Restricts the search to these kinds.
    pub fn kinds(mut self, kinds: &[Kind]) -> Self {
        self.kinds = kinds.to_vec();
        self
    }
}

/// The search cutoff: a hit whose [`SearchHit::strength`] is below this is not returned
/// (and so not counted as an access), so a query about something the store does not know
/// returns nothing rather than the least bad memories. This one is for searches with the
/// embedding model; [`MIN_STRENGTH_LEXICAL`] for searches without it. Chosen on the LoCoMo
/// dev set and unrelated queries written beforehand (docs/benchmarks.md, "Search cutoff");
/// a later retrieval issue recalibrates them here, and only here.
pub const MIN_STRENGTH: f64 = 0.32;
/// The cutoff when search runs without the embedding model (words only). Words alone tell
/// an unknown topic from a known one less well: this one keeps answerable hits at the cost
/// of letting more unrelated queries through (docs/benchmarks.md).
pub const MIN_STRENGTH_LEXICAL: f64 = 0.1;
/// What a record's term coverage counts for in [`SearchHit::strength`]: full coverage
/// (every informative query word present) weighs like a cosine of 0.6, a strong dense
/// match for the sentence model, so one scale serves both.
pub const COVERAGE_WEIGHT: f64 = 0.6;

/// The cutoff for a search with (`dense`) or without the embedding model.
pub fn min_strength(dense: bool) -> f64 {
    if dense {
        MIN_STRENGTH
    } else {
        MIN_STRENGTH_LEXICAL
    }
}

/// Signal weights and fusion constants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Weights {
    /// How well the text matches: `lexical_share * bm25/max + (1 - lexical_share) * cosine`.
    /// Lexical and dense scores are combined linearly before fusion: over pools of hundreds,
    /// rank fusion flattens the difference between a near-certain and a middling match
    /// (docs/locomo-research.md, rows D1-D7).
    pub matching: f64,
    /// Share of the lexical score in `matching`.
    pub lexical_share: f64,
    /// Cosine similarity with the query, as a signal of its own (off by default: it is
    /// part of `matching`).
    pub vector: f64,
    /// BM25 score, as a signal of its own (off by default: it is part of `matching`).
    pub bm25: f64,
    /// Seed 003's key x3 / themes x2 / value x1 word matches.
    pub theme: f64,
    /// Decay relevance (persona memories).
    pub relevance: f64,
    /// Newer memories first.
    pub recency: f64,
    /// ACT-R style: used often and lately.
    pub activation: f64,
    /// Stated confidence (persona memories). Off by default: it changed no answer on the
    /// workloads or LoCoMo (docs/benchmarks.md, "Which signals earn their place").
    pub confidence: f64,
    /// The best match among journal entries written within `episode_window` of this one:
    /// an entry of the same episode as a strong hit is likely relevant too (spreading
    /// activation along temporal edges).
    pub episode: f64,
    /// Records dated within a time the query names ("last week", "in May 2023").
    pub time: f64,
    /// Memories that speak of a time ([`crate::search::time::spoken_time`]: "we went
    /// camping last week"), when the question asks when something happened
    /// ([`crate::search::time::asks_when`]): the answer to "when did ...?" is a memory that
    /// tells of the event, and one that tells of it dates it. 1.0: chosen leave one
    /// conversation out on the LoCoMo dev set from 0, 0.2, 0.5 and 1 (every fold chose 1;
    /// docs/benchmarks.md, "Temporal questions").
    pub when: f64,
    /// Records of the kind the question's intent asks for (procedures for "how do I",
    /// people for "who", the journal for "what happened"). Off by default: the workloads
    /// found one question more each without it, LoCoMo the same (docs/benchmarks.md).
    pub intent: f64,
    /// Spreading activation in the knowledge graph from the strongest matches
    /// ([`crate::lifecycle::graph`]): memories linked to strong hits rank higher. Off by
    /// default: without it the workloads found 1-5 questions more, LoCoMo recall@10 lost
    /// 0.005 and MRR@10 gained 0.005 (docs/benchmarks.md); the graph still serves
    /// `neighbours`, `graph` and consolidation.
    pub graph: f64,
    /// Strong hits the activation spreads from.
    pub graph_seeds: usize,
    /// Half-width of an episode, in seconds.
    pub episode_window: f64,
    /// Strong hits whose episodes are added to the candidates.
    pub episode_seeds: usize,
    /// RRF smoothing constant; `None`: adaptive (a tenth of the candidates, within 10..60).
    pub k: Option<f64>,
    /// Candidates taken from each of FTS5 and the vector index.
    pub pool: usize,
    /// An archived memory comes back only as one of the best matches: its matching score at
    /// least this share of the best candidate's ... (Forgotten and dissolved persona memories
    /// need no cue: they are candidates ranked on their own lifecycle values.)
    pub revive_share: f64,
    /// ... and, with the model, a cosine with the query of at least this ...
    pub revive_cosine: f64,
    /// ... or, without the model, at least this share of the query's content words.
    pub revive_coverage: f64,
    /// Show one hit per text: a journal that says "Reminded Dana about paying rent." forty
    /// times would otherwise fill every place with copies of one line.
    pub collapse_repeats: bool,
    /// Most of the score the agent's feedback moves a persona memory, as a share of a
    /// first place in a weight-1 signal: `feedback · (2·mean − 1) / (k + 1)` over its
    /// votes' Beta(1, 1) posterior ([`crate::search::reward`]); one vote moves a third of
    /// it. 0 with [`crate::lifecycle::Behaviour::Feedback`] off.
    pub feedback: f64,
    /// The same for a procedure's reliability from its outcomes, in "how do I ..."
    /// questions, with [`crate::lifecycle::Behaviour::Reliability`] on.
    pub reliability: f64,
    /// Weight of the second hop ([`crate::search::bridge`]): the query plus the names its
    /// best hits mention is searched again, and that ranking is fused with the first at
    /// this share. 0 turns the second pass off: the default, because it did not pay for its
    /// second query embedding (search time about doubled for +2 / -1 questions on the
    /// workloads and -0.006 recall@10 on LoCoMo; docs/benchmarks.md).
    pub bridge: f64,
    /// How many of the first pass's best hits give their names to the second.
    pub bridge_seeds: usize,
    /// Rank a revived archived memory with neutral lifecycle values (relevance 1, activation
    /// 0) rather than its own. Off: on the dev workload its own values ranked as well or
    /// better once decayed memories stopped being hidden (docs/benchmarks.md).
    pub revived_neutral: bool,
    /// BM25 weight of a journal entry's episode context, the words of the entries beside
    /// it ([`crate::engine::fts`]'s `context` column); its own words weigh 1.
    pub context: f64,
    /// Memories written in the context the query is searched from (seed 001, encoding
    /// specificity; the `context-match` behaviour, off by default): a presence signal
    /// (only memories in the context carry it), so it adds exactly `same_context / (k + 1)`
    /// to theirs and nothing to the others: at 0.3 and k = 60, 0.0049, under a third of
    /// what the best `matching` rank adds (1/61): it reorders close matches, it does not
    /// lift a poor one over a good one. Never a filter.
    pub same_context: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            matching: 1.0,
            lexical_share: 0.3,
            vector: 0.0,
            bm25: 0.0,
            theme: 0.5,
            relevance: 0.3,
            recency: 0.1,
            activation: 0.2,
            confidence: 0.0,
            episode: 0.5,
            time: 0.5,
            intent: 0.0,
            when: 1.0,
            graph: 0.0,
            graph_seeds: 10,
            episode_window: 3600.0,
            episode_seeds: 10,
            k: Some(60.0),
            pool: 100,
            revive_share: 0.8,
            revive_cosine: 0.3,
            revive_coverage: 0.34,
            collapse_repeats: true,
            bridge: 0.0,
            bridge_seeds: 3,
            revived_neutral: false,
            context: 0.2,
            feedback: 0.1,
            reliability: 0.2,
            same_context: 0.3,
        }
    }
}

/// What a hit is.
// Hits are few (a page of results); boxing the persona variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Found {
    /// A flat key-value memory.
    Memory(Memory),
    /// A journal entry.
    Journal(JournalEntry),
    /// A persona memory.
    Persona(PersonaMemory),
}

impl Found {
    /// The text a person reads.
    pub fn text(&self) -> String {
        match self {
            Found::Memory(m) => format!("{}: {}", m.key, m.value),
            Found::Journal(j) => j.content.clone(),
            Found::Persona(p) => format!("{}: {}", p.address(), p.value),
        }
    }

    /// Whether it was written in `context`: a journal entry's or persona memory's own
    /// context; for an episode's record and its trajectories' summaries, the episode's
    /// (`episode:{id}`) or the context the episode was started in.
    pub fn in_context(&self, context: &str) -> bool {
        match self {
            Found::Memory(m) => {
                let episode =
                    m.episode.as_ref().map(|e| e.id.as_str()).or(m.summary_of.as_ref().map(|t| t.episode.as_str()));
                let started_in = m.episode.as_ref().and_then(|e| e.context.as_deref());
                episode.is_some_and(|id| context.strip_prefix("episode:") == Some(id)) || started_in == Some(context)
            }
            Found::Journal(j) => j.context.as_deref() == Some(context),
            Found::Persona(p) => p.sync.life.context.as_deref() == Some(context),
        }
    }

    /// The episode it belongs to: an observation's, an episode's record, a summary's.
    pub fn episode(&self) -> Option<&str> {
        match self {
            Found::Memory(m) => {
                m.episode.as_ref().map(|e| e.id.as_str()).or(m.summary_of.as_ref().map(|t| t.episode.as_str()))
            }
            Found::Journal(j) => j.observed.as_ref().map(|o| o.episode.as_str()),
            Found::Persona(_) => None,
        }
    }

    /// The record's own time.
    pub fn time(&self) -> f64 {
        match self {
            Found::Memory(m) => m.created_at,
            Found::Journal(j) => j.created_at,
            Found::Persona(p) => p.created_at,
        }
    }
}

/// One signal's part in a hit's score.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Signal {
    /// The signal's name (`"matching"`, `"recency"`, ...).
    pub name: &'static str,
    /// The signal's raw value for this hit.
    pub value: f64,
    /// 1-based rank among the candidates, when the signal ranked it.
    pub rank: Option<usize>,
    /// What the signal added to the hit's score (negative when it lowered it).
    pub contribution: f64,
}

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SearchHit {
    /// The record's path (its plain d tag).
    pub path: String,
    /// The record itself.
    pub found: Found,
    /// The fused score (higher is better). Rank-based: it orders the hits of one search and
    /// says nothing across searches.
    pub score: f64,
    /// How strongly the hit matches the query, on an absolute scale from 0 (nothing in
    /// common) to 1: the larger of its cosine with the query (when the model is loaded) and
    /// [`COVERAGE_WEIGHT`] times its term coverage. Unlike `score` it is comparable across
    /// searches and stores, and it only grows with either measure. Hits below the cutoff
    /// ([`min_strength`]) are not returned.
    pub strength: f64,
    /// The record's term coverage: the share of the query's searched words it contains,
    /// each weighted by its IDF (0 to 1). With the `vector` signal's value (the cosine), it
    /// makes `strength`.
    pub coverage: f64,
    /// Every signal that took part, in the order above.
    pub signals: Vec<Signal>,
    /// The memory was asleep (archived, or a forgotten or dissolved persona memory) and
    /// came back because the query matched it strongly; the search's access revives it.
    pub revived: bool,
    /// Where the memory stands: active, fading, dormant, archived, superseded or revived.
    pub status: Status,
    /// The address of the memory that replaces it now, when it is superseded (returned
    /// only with [`SearchQuery::history`]; otherwise the replacement takes its place).
    pub superseded_by: Option<String>,
    /// A persona memory's type, tier, goal status and reliability (None for other kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed: Option<crate::search::reward::Typed>,
    /// The episode it belongs to, with [`SearchQuery::with_context`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::search::episode_context::EpisodeContext>,
}

/// A candidate with its raw signal values (`None`: the signal says nothing about it).
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub path: String,
    pub found: Found,
    pub values: Values,
    /// See [`SearchHit::revived`].
    pub revived: bool,
    /// See [`SearchHit::strength`].
    pub strength: f64,
    /// See [`SearchHit::coverage`].
    pub coverage: f64,
}

/// The ranking signals. Each indexes its own value in [`Values`] and its own weight in
/// [`Weights`]: no signal is looked up by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SignalKind {
    Matching,
    Vector,
    Bm25,
    Theme,
    Relevance,
    Recency,
    Activation,
    Confidence,
    Episode,
    Time,
    When,
    Intent,
    Graph,
    SameContext,
}

impl SignalKind {
    /// Every signal, in the order of [`Values`].
    pub(crate) const ALL: [SignalKind; 14] = [
        SignalKind::Matching,
        SignalKind::Vector,
        SignalKind::Bm25,
        SignalKind::Theme,
        SignalKind::Relevance,
        SignalKind::Recency,
        SignalKind::Activation,
        SignalKind::Confidence,
        SignalKind::Episode,
        SignalKind::Time,
        SignalKind::When,
        SignalKind::Intent,
        SignalKind::Graph,
        SignalKind::SameContext,
    ];

    /// The name explanations and `--explain` show.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SignalKind::Matching => "matching",
            SignalKind::Vector => "vector",
            SignalKind::Bm25 => "bm25",
            SignalKind::Theme => "theme",
            SignalKind::Relevance => "relevance",
            SignalKind::Recency => "recency",
            SignalKind::Activation => "activation",
            SignalKind::Confidence => "confidence",
            SignalKind::Episode => "episode",
            SignalKind::Time => "time",
            SignalKind::When => "when",
            SignalKind::Intent => "intent",
            SignalKind::Graph => "graph",
            SignalKind::SameContext => "same_context",
        }
    }

    /// A signal only the candidates it favours carry (all with one value, so all ranked
    /// first), the others none: its part in a score is its weight over `k + 1`, or nothing.
    pub(crate) fn by_presence(self) -> bool {
        self == SignalKind::SameContext
    }

    /// Its weight in `w`.
    pub(crate) fn weight(self, w: &Weights) -> f64 {
        match self {
            SignalKind::Matching => w.matching,
            SignalKind::Vector => w.vector,
            SignalKind::Bm25 => w.bm25,
            SignalKind::Theme => w.theme,
            SignalKind::Relevance => w.relevance,
            SignalKind::Recency => w.recency,
            SignalKind::Activation => w.activation,
            SignalKind::Confidence => w.confidence,
            SignalKind::Episode => w.episode,
            SignalKind::Time => w.time,
            SignalKind::When => w.when,
            SignalKind::Intent => w.intent,
            SignalKind::Graph => w.graph,
            SignalKind::SameContext => w.same_context,
        }
    }
}

/// A candidate's raw signal values, one slot per [`SignalKind`] (`None`: the signal says
/// nothing about it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Values([Option<f64>; SignalKind::ALL.len()]);

impl std::ops::Index<SignalKind> for Values {
    type Output = Option<f64>;
    fn index(&self, s: SignalKind) -> &Option<f64> {
        &self.0[s as usize]
    }
}

impl std::ops::IndexMut<SignalKind> for Values {
    fn index_mut(&mut self, s: SignalKind) -> &mut Option<f64> {
        &mut self.0[s as usize]
    }
}

/// Keeps the best-ranked hit of each text (case and spacing aside), in order, and at most
/// `keep` of them: a pass ranks hundreds of candidates for a page of ten, and each text
/// compared is a lowercased copy.
pub(crate) fn collapse_repeats(hits: &mut Vec<SearchHit>, keep: usize) {
    let mut seen = std::collections::HashSet::new();
    // Flat and persona memories carry their key in the text, so only true repeats (journal
    // entries, mostly) collapse.
    hits.retain(|h| {
        seen.len() < keep
            && seen.insert(h.found.text().split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" "))
    });
}

/// Ranks by each discriminating signal and fuses; returns the best `limit` of those at
/// least `min_strength` strong. Weak candidates still take part in the ranking, so the cutoff
/// removes hits without reordering the rest.
pub(crate) fn fuse(mut cands: Vec<Candidate>, w: &Weights, limit: usize, min_strength: f64) -> Vec<SearchHit> {
    let n = cands.len();
    let k = w.k.unwrap_or_else(|| (n as f64 / 10.0).clamp(10.0, 60.0));
    let mut ranks: Vec<[Option<usize>; SignalKind::ALL.len()]> = vec![[None; SignalKind::ALL.len()]; n];
    for s in SignalKind::ALL {
        if s.weight(w) == 0.0 {
            continue;
        }
        let mut scored: Vec<(usize, f64)> =
            cands.iter().enumerate().filter_map(|(i, c)| c.values[s].map(|v| (i, v))).collect();
        // A presence signal discriminates when some candidates carry it and others not.
        let present = s.by_presence() && !scored.is_empty() && scored.len() < n;
        let discriminates = present || scored.windows(2).any(|p| p[0].1 != p[1].1) || (scored.len() == 1 && n > 1);
        if !discriminates {
            continue;
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        // Equal values share a rank.
        let mut rank = 0;
        let mut prev: Option<f64> = None;
        for (pos, (i, v)) in scored.iter().enumerate() {
            if prev != Some(*v) {
                rank = pos + 1;
                prev = Some(*v);
            }
            ranks[*i][s as usize] = Some(rank);
        }
    }
    let mut hits: Vec<SearchHit> = cands
        .drain(..)
        .zip(ranks)
        .map(|(c, r)| {
            let mut signals = Vec::new();
            let mut score = 0.0;
            for s in SignalKind::ALL {
                if let Some(v) = c.values[s] {
                    let rank = r[s as usize];
                    let contribution = rank.map_or(0.0, |rank| s.weight(w) / (k + rank as f64));
                    score += contribution;
                    signals.push(Signal { name: s.name(), value: v, rank, contribution });
                }
            }
            for t in super::reward::terms(&c.found, w, k) {
                score += t.contribution;
                signals.push(t);
            }
            SearchHit {
                path: c.path,
                found: c.found,
                score,
                strength: c.strength,
                coverage: c.coverage,
                signals,
                revived: c.revived,
                // Set with what the store knows of replacements (search::current).
                status: Status::Active,
                superseded_by: None,
                typed: None,
                context: None,
            }
        })
        .filter(|h| h.strength >= min_strength)
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    hits.truncate(limit);
    hits
}
