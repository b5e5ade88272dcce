//! Facts consolidation promoted from recurring journal text rank below their evidence.

use super::{Found, SearchHit, Signal};
use crate::lifecycle::cycle::is_promoted;
use crate::text::folded_content_words;

/// The search-side rule for promoted facts (its one place): each ranks below every other
/// hit that is not promoted and matches the query at least as well, judged on the words
/// a person wrote (query content words its text contains; for the promoted fact, its value
/// only, since its key is made of the same words). When its value contains none of them
/// (a match by meaning), "as well" is the `matching` signal. A demoted fact takes the
/// score of the hit above it, and a signal `evidence` says by how much it fell. Its
/// evidence matches as well by construction: a promoted fact never outranks it.
pub(crate) fn promoted_below_evidence(hits: &mut Vec<SearchHit>, query: &str) {
    let promoted = |h: &SearchHit| matches!(&h.found, Found::Persona(p) if is_promoted(p));
    if !hits.iter().any(promoted) {
        return;
    }
    let terms: Vec<String> = folded_content_words(query).into_keys().collect();
    let covers = |text: &str| {
        let words = folded_content_words(text);
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
