//! A second hop for questions that name a thing by its role ("the PM", "the junior
//! engineer who started in January") while the memory that answers names it ("Priya wants
//! written specs"). The best hits of the first pass often say who that is ("Priya Nair is
//! our product manager"); the names they mention, added to the query, find the answer in a
//! second pass. The two rankings are fused, the first one weighing more, so a question
//! whose answer the first pass found keeps it.

use std::collections::{HashMap, HashSet};

use super::{Found, SearchHit, Signal, STOP_WORDS};

/// Smoothing constant of the fusion of the two passes: small, as both lists are short and
/// their heads are what counts.
const K: f64 = 10.0;

/// The names (capitalised words of three letters or more, not stop words) that the best
/// `seeds` hits mention and the query does not, in order of first mention.
pub fn names(query: &str, hits: &[SearchHit], seeds: usize) -> Vec<String> {
    let asked: HashSet<String> =
        query.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).filter(|w| !w.is_empty()).collect();
    let mut out: Vec<String> = Vec::new();
    for h in hits.iter().take(seeds) {
        let text = match &h.found {
            Found::Memory(m) => m.value.clone(),
            Found::Journal(j) => j.content.clone(),
            Found::Persona(p) => p.value.clone(),
        };
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            let lower = w.to_lowercase();
            let capitalised = w.chars().count() > 2 && w.chars().next().is_some_and(char::is_uppercase);
            if capitalised
                && !asked.contains(&lower)
                && !STOP_WORDS.contains(&lower.as_str())
                && !out.iter().any(|n| n.to_lowercase() == lower)
            {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// Fuses the first pass's ranking with the second's, weighted `share`: reciprocal ranks,
/// `1 / (K + rank)` and `share / (K + rank)` ([`fuse_passes`], signal `bridge`).
pub fn fuse(first: Vec<SearchHit>, second: Vec<SearchHit>, share: f64) -> Vec<SearchHit> {
    fuse_passes(vec![(first, 1.0), (second, share)], "bridge")
}

/// Fuses ranked passes by weighted reciprocal rank, `weight / (K + rank)` summed over the
/// passes that found a hit. Each hit keeps the fields of the pass it came from first but
/// its `strength`, the strongest any pass gave it; its `score` becomes the fused score, and
/// a signal `name` (value: the fused score; rank: its best place in the passes after the
/// first) holds the difference, so the signals still add up to the score.
pub(crate) fn fuse_passes(passes: Vec<(Vec<SearchHit>, f64)>, name: &'static str) -> Vec<SearchHit> {
    let mut score: HashMap<String, f64> = HashMap::new();
    let mut later_rank: HashMap<String, usize> = HashMap::new();
    let mut strongest: HashMap<String, f64> = HashMap::new();
    let mut all: Vec<SearchHit> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (pass, (list, weight)) in passes.into_iter().enumerate() {
        for (r, h) in list.into_iter().enumerate() {
            *score.entry(h.path.clone()).or_default() += weight / (K + r as f64);
            let s = strongest.entry(h.path.clone()).or_insert(h.strength);
            *s = s.max(h.strength);
            if pass > 0 {
                let best = later_rank.entry(h.path.clone()).or_insert(r + 1);
                *best = (*best).min(r + 1);
            }
            if seen.insert(h.path.clone()) {
                all.push(h);
            }
        }
    }
    for h in &mut all {
        let fused = score[&h.path];
        h.strength = strongest[&h.path];
        h.signals.push(Signal {
            name,
            value: fused,
            rank: later_rank.get(&h.path).copied(),
            contribution: fused - h.score,
        });
        h.score = fused;
    }
    all.sort_by(|a, b| b.score.total_cmp(&a.score));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JournalEntry;

    fn hit(path: &str, text: &str) -> SearchHit {
        SearchHit {
            path: path.into(),
            found: Found::Journal(JournalEntry::new(text, 0.0)),
            score: 0.0,
            strength: 1.0,
            coverage: 0.0,
            signals: Vec::new(),
            revived: false,
            status: crate::model::Status::Active,
            superseded_by: None,
            typed: None,
            context: None,
        }
    }

    #[test]
    fn names_are_the_capitalised_words_the_query_lacks() {
        let hits = [
            hit("a", "Priya Nair is our product manager; The team likes her."),
            hit("b", "Lunch with Marco and Priya."),
            hit("c", "Wei runs the infrastructure."),
        ];
        assert_eq!(names("What does the PM expect from marco?", &hits, 2), ["Priya", "Nair", "Lunch"]);
    }

    #[test]
    fn the_first_pass_wins_ties_and_the_second_adds_what_it_missed() {
        let first = vec![hit("a", ""), hit("b", ""), hit("c", "")];
        let second = vec![hit("d", ""), hit("a", "")];
        let order: Vec<String> = fuse(first, second, 0.3).into_iter().map(|h| h.path).collect();
        // a: 1/10 + 0.3/11; b: 1/11; c: 1/12; d: 0.3/10.
        assert_eq!(order, ["a", "b", "c", "d"]);
        let order: Vec<String> =
            fuse(vec![hit("a", ""), hit("b", "")], vec![hit("b", "")], 1.0).into_iter().map(|h| h.path).collect();
        assert_eq!(order, ["b", "a"]);
        for h in fuse(vec![hit("a", ""), hit("b", "")], vec![hit("b", "")], 1.0) {
            let sum: f64 = h.signals.iter().map(|s| s.contribution).sum();
            assert!((sum - h.score).abs() < 1e-12, "the signals add up to the score: {h:?}");
        }
    }
}
