//! Near-repeats make room. A journal that logs "Mentoring session with Tom on 12 Mar: went
//! through his review feedback." every other week fills the first places of any question
//! about Tom's reviews with copies of one line, and the memory that answers ("Tom wants
//! blunt comments on his PRs") starts at place four. Maximal marginal relevance, in words:
//! a hit that mostly repeats the words of a better-placed hit loses a share of its score,
//! so the next distinct hit comes first. Nothing is dropped; a repeat only moves down, and
//! its `repeat` signal says by how much.

use std::collections::HashSet;

use super::{tokenize, Found, SearchHit, Signal, STOP_WORDS};

/// Words a hit is compared by: the content words of what it says (not its address), numbers
/// aside, since a date or a count is what tells two repeats of one template apart.
fn words(h: &SearchHit) -> HashSet<String> {
    let text = match &h.found {
        Found::Memory(m) => &m.value,
        Found::Journal(j) => &j.content,
        Found::Persona(p) => &p.value,
    };
    tokenize(text)
        .into_iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// Fewer content words than this say too little to call two texts repeats of each other
/// ("57" and "22 months" are two keyed values, not a template).
const MIN_WORDS: usize = 3;

/// How much of the shorter text's words the longer one repeats (0 to 1).
fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let small = a.len().min(b.len());
    if small < MIN_WORDS {
        return 0.0;
    }
    a.intersection(b).count() as f64 / small as f64
}

/// Reorders `hits` (best first) greedily: each place goes to the hit with the best score
/// after a penalty of `penalty * overlap * score` when its overlap with a hit already placed
/// is at least `threshold`. A penalised hit gets a `repeat` signal (value: the overlap,
/// contribution: the negative penalty), so its signals still add up to its score.
pub fn diversify(hits: &mut Vec<SearchHit>, penalty: f64, threshold: f64) {
    if penalty <= 0.0 || hits.len() < 2 {
        return;
    }
    let mut rest: Vec<(SearchHit, HashSet<String>, f64)> = hits
        .drain(..)
        .map(|h| {
            let w = words(&h);
            (h, w, 0.0)
        })
        .collect();
    let adjusted = |score: f64, sim: f64| if sim >= threshold { score * (1.0 - penalty * sim) } else { score };
    while !rest.is_empty() {
        // The first of equals wins, so ties keep the incoming order.
        let mut best = 0;
        for i in 1..rest.len() {
            if adjusted(rest[i].0.score, rest[i].2) > adjusted(rest[best].0.score, rest[best].2) {
                best = i;
            }
        }
        let (mut h, w, sim) = rest.remove(best);
        for (other, ow, osim) in rest.iter_mut() {
            let _ = other;
            *osim = osim.max(overlap(&w, ow));
        }
        let score = adjusted(h.score, sim);
        if score != h.score {
            h.signals.push(Signal { name: "repeat", value: sim, rank: None, contribution: score - h.score });
            h.score = score;
        }
        hits.push(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JournalEntry;

    fn hit(path: &str, text: &str, score: f64) -> SearchHit {
        SearchHit {
            path: path.into(),
            found: Found::Journal(JournalEntry { content: text.into(), created_at: 0.0, archived_at: None }),
            score,
            strength: 1.0,
            coverage: 0.0,
            signals: vec![Signal { name: "matching", value: 1.0, rank: Some(1), contribution: score }],
            revived: false,
        }
    }

    fn order(hits: &[SearchHit]) -> Vec<&str> {
        hits.iter().map(|h| h.path.as_str()).collect()
    }

    #[test]
    fn a_repeat_of_a_template_makes_room_for_a_distinct_hit() {
        let mut hits = vec![
            hit("a", "Mentoring session with Tom on 12 Mar: went through his review feedback.", 0.030),
            hit("b", "Mentoring session with Tom on 23 Apr: went through his review feedback.", 0.029),
            hit("c", "Tom wants blunt, specific comments on his pull requests.", 0.025),
        ];
        diversify(&mut hits, 0.5, 0.6);
        assert_eq!(order(&hits), ["a", "c", "b"]);
        for h in &hits {
            let sum: f64 = h.signals.iter().map(|s| s.contribution).sum();
            assert!((sum - h.score).abs() < 1e-12, "the signals add up to the score: {h:?}");
        }
        assert!(hits[2].signals.iter().any(|s| s.name == "repeat" && s.value == 1.0));
        assert!(!hits[1].signals.iter().any(|s| s.name == "repeat"));
    }

    #[test]
    fn distinct_hits_and_short_values_keep_their_order() {
        let mut hits = vec![
            hit("a", "Tom joined as a junior backend engineer.", 0.03),
            hit("b", "Tom moved to Lisbon from Hamburg.", 0.02),
            hit("c", "57", 0.01),
            hit("d", "57", 0.009),
        ];
        diversify(&mut hits, 0.5, 0.6);
        assert_eq!(order(&hits), ["a", "b", "c", "d"]);
        assert!(hits.iter().all(|h| h.signals.len() == 1));
        let mut off = vec![hit("a", "x y z w", 0.02), hit("b", "x y z w", 0.019), hit("c", "other words here", 0.01)];
        diversify(&mut off, 0.0, 0.6);
        assert_eq!(order(&off), ["a", "b", "c"]);
    }
}
