//! Finding memories by content: seed 003's theme scoring over FTS5 candidates.
//!
//! FTS5 narrows the store to memories sharing at least one word with the query; each
//! candidate is then scored as seed 003 describes: a query word found in the key counts
//! 3, in the themes 2, in the value 1, and the sum is multiplied by current relevance.

pub mod bridge;
pub(crate) mod candidates;
pub(crate) mod current;
pub mod episode_context;
pub mod hybrid;
mod listing;
pub mod phrasings;
mod promoted;
pub mod query;
pub mod reward;
pub(crate) mod run;
pub(crate) mod terms;
pub mod time;

pub use reward::Typed;

pub use hybrid::{
    min_strength, Found, Kind, SearchHit, SearchQuery, Signal, Weights, COVERAGE_WEIGHT, MIN_STRENGTH,
    MIN_STRENGTH_LEXICAL,
};

pub use crate::text::{
    bounded_query, content_terms, fts_any, query_terms, term_coverage, tokenize, MAX_QUERY_CHARS, MAX_QUERY_TERMS,
    STOP_WORDS,
};

use crate::model::{MemoryState, PersonaMemory};

/// Weight of a query word found in the key.
pub const KEY_WEIGHT: f64 = 3.0;
/// Weight of a query word found among the themes.
pub const THEME_WEIGHT: f64 = 2.0;
/// Weight of a query word found in the value.
pub const VALUE_WEIGHT: f64 = 1.0;

/// One result of [`crate::MemoryStore::persona_search`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct PersonaHit {
    /// The memory found.
    pub memory: PersonaMemory,
    /// `match_score * relevance`: what results are ordered by.
    pub score: f64,
    /// The weighted word matches alone.
    pub match_score: f64,
    /// Current relevance at the time of the search.
    pub relevance: f64,
    /// Current state at the time of the search.
    pub state: MemoryState,
}

/// Seed 003's weighted match of `terms` against a memory: (score, matched key or theme).
pub fn theme_score(terms: &[String], m: &PersonaMemory) -> (f64, bool) {
    let key = tokenize(&m.key);
    let themes: Vec<String> = m.themes.iter().flat_map(|t| tokenize(t)).collect();
    let value = tokenize(&m.value);
    let mut score = 0.0;
    let mut direct = false;
    for t in terms {
        if key.contains(t) {
            score += KEY_WEIGHT;
            direct = true;
        }
        if themes.contains(t) {
            score += THEME_WEIGHT;
            direct = true;
        }
        if value.contains(t) {
            score += VALUE_WEIGHT;
        }
    }
    (score, direct)
}

/// What the strength cutoff left out of a search: candidates that matched something of
/// the query, but more weakly than the cutoff.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct BelowCutoff {
    /// How many there were.
    pub hits: usize,
    /// The strongest of them (0 when none).
    pub best: f64,
    /// The cutoff they fell below.
    pub cutoff: f64,
}

/// A search's hits, and what the cutoff left out: so an empty result can say why.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SearchOutcome {
    /// The hits, best first (newest first when the search listed a range).
    pub hits: Vec<SearchHit>,
    /// Candidates below the strength cutoff (of the first pass).
    pub below_cutoff: BelowCutoff,
    /// The range of the memories' own times the search was restricted to, if any.
    pub range: Option<TimeRange>,
    /// Set when the search listed its range rather than matched words (a range and no
    /// words to match: an empty query, or one naming only a time, "what happened last
    /// week?"): how many records the range holds. The hits are the newest `limit` of them,
    /// with no strength cutoff.
    pub listed: Option<usize>,
}

/// The range of the memories' own times a search kept to, `[since, until)`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct TimeRange {
    /// Its start (Unix seconds; `None`: unbounded).
    pub since: Option<f64>,
    /// Its end, excluded.
    pub until: Option<f64>,
    /// The words of the query that named it ("in August 2026"); `None`: the caller's own
    /// since/until, which win over the query's words.
    pub expression: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_are_distinct_and_capped() {
        assert_eq!(query_terms("Tea, tea and TEA with Alice"), ["tea", "and", "with", "alice"]);
        let huge: String = (0..20_000).map(|i| format!("w{i} ")).collect();
        assert!(huge.len() > 100_000);
        let terms = query_terms(&huge);
        assert_eq!(terms.len(), MAX_QUERY_TERMS);
        assert_eq!(terms[0], "w0");
    }

    fn mem(key: &str, value: &str, themes: &[&str]) -> PersonaMemory {
        let mut m = PersonaMemory::new("people", "facts", key, value, 0.0);
        m.themes = themes.iter().map(|s| s.to_string()).collect();
        m
    }

    #[test]
    fn weights_are_key_3_themes_2_value_1() {
        let terms = query_terms("Dark mode");
        assert_eq!(terms, ["dark", "mode"]);
        assert_eq!(theme_score(&terms, &mem("alice-dark", "x", &[])).0, 3.0);
        assert_eq!(theme_score(&terms, &mem("alice", "x", &["dark mode"])).0, 4.0);
        assert_eq!(theme_score(&terms, &mem("alice", "prefers dark mode", &[])).0, 2.0);
        assert_eq!(theme_score(&terms, &mem("dark-mode", "dark mode", &["mode"])).0, 3.0 * 2.0 + 2.0 + 2.0);
    }

    #[test]
    fn fts_expression_quotes_terms() {
        assert_eq!(fts_any(&query_terms("or AND near")).unwrap(), "\"or\" OR \"and\" OR \"near\"");
        assert!(fts_any(&[]).is_none());
    }
}
