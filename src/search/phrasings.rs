//! The calling agent's own phrasings: a search may carry other wordings of the question and
//! a hypothetical answer (a sentence the memory might read like), written by the agent's
//! language model at no cost to the store. Each is ranked as its own pass, with the same
//! filters and cutoff, and the passes are fused by reciprocal rank: a memory any wording
//! finds can come back, and one several find comes first.

use std::collections::HashMap;

use super::{SearchHit, Signal};

/// The most phrasings a search takes (the library cuts the rest; the MCP tool refuses more).
pub const MAX_PHRASINGS: usize = 4;

/// Reciprocal-rank constant of the fusion (as the bridge's: a short list's top matters).
const K: f64 = 10.0;

/// The extra texts of `phrasings` and `hypothetical`, trimmed, non-empty, distinct from the
/// query and each other, at most [`MAX_PHRASINGS`] phrasings plus the hypothetical.
pub(crate) fn texts(query: &str, phrasings: &[String], hypothetical: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let seen = |out: &Vec<String>, t: &str| t.eq_ignore_ascii_case(query.trim()) || out.iter().any(|o| o == t);
    for p in phrasings.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).take(MAX_PHRASINGS) {
        let p = crate::text::bounded_query(p).to_string();
        if !seen(&out, &p) {
            out.push(p);
        }
    }
    if let Some(h) = hypothetical.map(str::trim).filter(|h| !h.is_empty()) {
        let h = crate::text::bounded_query(h).to_string();
        if !seen(&out, &h) {
            out.push(h);
        }
    }
    out
}

/// Fuses the question's ranking (`first`) with one ranking per extra text, each with equal
/// weight. A hit keeps the strongest `strength` any pass gave it; the `phrasings` signal
/// (in `explain`) holds the fused score and the best rank an extra text gave it.
pub(crate) fn fuse(first: Vec<SearchHit>, others: Vec<Vec<SearchHit>>) -> Vec<SearchHit> {
    let mut score: HashMap<String, f64> = HashMap::new();
    let mut best_other: HashMap<String, usize> = HashMap::new();
    let mut strongest: HashMap<String, f64> = HashMap::new();
    let mut all: Vec<SearchHit> = Vec::new();
    for (pass, list) in std::iter::once(first).chain(others).enumerate() {
        for (r, h) in list.into_iter().enumerate() {
            *score.entry(h.path.clone()).or_default() += 1.0 / (K + r as f64);
            let s = strongest.entry(h.path.clone()).or_insert(h.strength);
            *s = s.max(h.strength);
            if pass > 0 {
                let best = best_other.entry(h.path.clone()).or_insert(r + 1);
                *best = (*best).min(r + 1);
            }
            if !all.iter().any(|a| a.path == h.path) {
                all.push(h);
            }
        }
    }
    for h in &mut all {
        let fused = score[&h.path];
        h.strength = strongest[&h.path];
        h.signals.push(Signal {
            name: "phrasings",
            value: fused,
            rank: best_other.get(&h.path).copied(),
            contribution: fused - h.score,
        });
        h.score = fused;
    }
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JournalEntry;
    use crate::search::Found;

    fn hit(path: &str, strength: f64) -> SearchHit {
        SearchHit {
            path: path.into(),
            found: Found::Journal(JournalEntry { content: path.into(), created_at: 0.0, archived_at: None }),
            score: 0.0,
            strength,
            coverage: 0.0,
            signals: Vec::new(),
            revived: false,
            status: crate::model::Status::Active,
            superseded_by: None,
        }
    }

    #[test]
    fn texts_are_trimmed_distinct_and_bounded() {
        let many: Vec<String> = (0..9).map(|i| format!("phrasing {i}")).collect();
        let t = texts("q", &many, Some(" a memory "));
        assert_eq!(t.len(), MAX_PHRASINGS + 1);
        assert_eq!(t.last().unwrap(), "a memory");
        let t = texts("Same", &["same".into(), " ".into(), "other".into(), "other".into()], Some(""));
        assert_eq!(t, ["other"]);
    }

    #[test]
    fn a_hit_only_a_phrasing_finds_comes_back_and_one_all_find_comes_first() {
        let fused =
            fuse(vec![hit("a", 0.5), hit("b", 0.4)], vec![vec![hit("c", 0.6), hit("b", 0.7)], vec![hit("b", 0.3)]]);
        let order: Vec<&str> = fused.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(order, ["b", "a", "c"]);
        assert_eq!(fused[0].strength, 0.7, "the strongest pass's strength");
        assert_eq!(fused[0].signals.last().unwrap().rank, Some(1));
        assert_eq!(fused[1].signals.last().unwrap().rank, None, "only the question found a");
    }
}
