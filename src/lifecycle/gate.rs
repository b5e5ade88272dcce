//! Novelty gating: whether a new value is a new memory, a repeat of one, a fuller form of
//! one, a correction of one, or another fact about the same subject (Vestige's Prediction
//! Error Gating, seed 001, with seed 003's contradiction handling on store).
//!
//! | the closest memories | decision |
//! |---|---|
//! | ≥ `reinforce` (0.92), nothing changed | [`GateDecision::Reinforce`] (a duplicate) |
//! | names the old value it replaces ("moved from Berlin to Lisbon", "stopped running", a negation) | [`GateDecision::Supersede`] |
//! | ≥ `supersede_low` (0.70) with a correction cue or a changed value after the same relation | [`GateDecision::Supersede`] |
//! | ≥ `update` (0.75), nothing changed | [`GateDecision::Update`] if the new value adds words, else `Reinforce` |
//! | ≥ `correct_low` (0.45) with a changed value after the same subject and relation | [`GateDecision::Supersede`] |
//! | a changed value after the same subject and relation, further apart | [`GateDecision::MightCorrect`]: created, linked, named |
//! | the same subject, another attribute | [`GateDecision::Related`]: created and linked |
//! | anything else | [`GateDecision::Create`] |
//!
//! An update never loses a detail: the store rewrites the value only when the new one holds
//! every content word of the old, and otherwise appends the new sentence to the old value
//! ([`merged_value`]). Two facts about one subject with different relations ("Ben Carter is
//! the ops lead at Acme", "Ben Carter's team works from Rotterdam") are never a correction:
//! the contradiction rules compare what follows the same subject and the same relation.

use crate::text::{fold, is_number, tokenize, STOP_WORDS};

mod contradiction;
use contradiction::speaks_for_writer;
pub use contradiction::{contradiction, same_subject};
pub(crate) use contradiction::{finding, finding_between, Clause};

/// The similarity thresholds of the gate (seed 001's values by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateOptions {
    /// At or above: the same memory again.
    pub reinforce: f64,
    /// At or above (without a correction): the same memory, reworded or extended.
    pub update: f64,
    /// At or above, with a correction cue: the new value replaces the old.
    pub supersede_low: f64,
    /// At or above, a changed value after the same subject and relation supersedes even
    /// though nothing names the old value; below, the memory is created, linked, and
    /// reported as a possible correction ([`GateDecision::MightCorrect`]).
    pub correct_low: f64,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions { reinforce: 0.92, update: 0.75, supersede_low: 0.70, correct_low: 0.45 }
    }
}

/// An existing memory the new value is compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct GateCandidate {
    /// Where it lives (`domain/facet/key` or any id the caller uses).
    pub path: String,
    /// Its key.
    pub key: String,
    /// Its value.
    pub value: String,
    /// Similarity to the new value: cosine of embeddings, or [`lexical_similarity`].
    pub similarity: f64,
    /// Already superseded by a newer memory: it may still be reinforced or updated, but a
    /// correction corrects the newer memory, so it is never superseded a second time.
    pub superseded: bool,
}

/// What to do with a new value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GateDecision {
    /// Nothing close: store it as a new memory.
    Create,
    /// Already known: strengthen the existing memory instead of storing a copy.
    Reinforce {
        /// The existing memory's path.
        path: String,
        /// The existing memory's key.
        key: String,
        /// Its similarity to the new value.
        similarity: f64,
    },
    /// The same memory said more fully: rewrite its value with the new one.
    Update {
        /// The existing memory's path.
        path: String,
        /// The existing memory's key.
        key: String,
        /// Its similarity to the new value.
        similarity: f64,
    },
    /// A correction: store the new value and mark the old memory superseded by it.
    Supersede {
        /// The superseded memory's path.
        path: String,
        /// The superseded memory's key.
        key: String,
        /// Its similarity to the new value.
        similarity: f64,
        /// What showed it to be a correction (see [`correction_cue`]).
        cue: String,
    },
    /// Perhaps a correction: a changed value after what reads as the same relation, but
    /// nothing names the old value and the two are not close. Stored as a new memory,
    /// linked to the old one, which the calling agent can confirm with a contradiction.
    MightCorrect {
        /// The memory it might correct.
        path: String,
        /// Its key.
        key: String,
        /// Its similarity to the new value.
        similarity: f64,
        /// What looked like a correction.
        cue: String,
    },
    /// Another fact about the same subject: stored as a new memory and linked to it.
    Related {
        /// The closest memory about the same subject.
        path: String,
        /// Its key.
        key: String,
        /// Its similarity to the new value.
        similarity: f64,
    },
}

impl GateDecision {
    /// `create`, `reinforce`, `update`, `supersede`, `might_correct` or `related`.
    pub fn as_str(&self) -> &'static str {
        match self {
            GateDecision::Create => "create",
            GateDecision::Reinforce { .. } => "reinforce",
            GateDecision::Update { .. } => "update",
            GateDecision::Supersede { .. } => "supersede",
            GateDecision::MightCorrect { .. } => "might_correct",
            GateDecision::Related { .. } => "related",
        }
    }

    /// The existing memory the decision is about (`domain/facet/key`), if any.
    pub fn existing(&self) -> Option<&str> {
        match self {
            GateDecision::Create => None,
            GateDecision::Reinforce { path, .. }
            | GateDecision::Update { path, .. }
            | GateDecision::Supersede { path, .. }
            | GateDecision::MightCorrect { path, .. }
            | GateDecision::Related { path, .. } => Some(path),
        }
    }
}

/// The value an update leaves: the new one when it holds every content word of the old
/// (a fuller wording), else the old value with the new sentence after it, so no detail is
/// lost ("Priya is allergic to nuts; she carries an EpiPen." + "Priya is allergic to
/// peanuts."). `None` when the old value already says everything the new one does.
pub fn merged_value(old: &str, new: &str) -> Option<String> {
    let (old_words, new_words) = (content_words(old), content_words(new));
    if new_words.iter().all(|w| old_words.contains(w)) {
        return None;
    }
    if old_words.iter().all(|w| new_words.contains(w)) {
        return Some(new.to_string());
    }
    let old = old.trim_end();
    let joint = if old.ends_with(['.', '!', '?', ';']) { " " } else { ". " };
    Some(format!("{old}{joint}{}", new.trim()))
}

/// Phrases with which a writer corrects what was known before.
const CORRECTION_PHRASES: &[&str] = &[
    "actually",
    "no longer",
    "not anymore",
    "anymore",
    "instead",
    "changed to",
    "now prefers",
    "now uses",
    "now lives",
    "moved to",
    "switched to",
    "turns out",
    "correction",
];

/// Decides what storing `new_value` should do, given the existing memories to compare it
/// with (the store passes every live memory of the same domain and facet).
///
/// In order: a near-duplicate that changes nothing reinforces (even when a less similar
/// candidate carries a cue: that correction, if real, was made when the duplicate was
/// stored); a candidate whose value the new one names as replaced (a switch from it, a stop,
/// a negation) is superseded at any similarity, the closest first; a correction cue or a
/// changed value at or above `supersede_low` supersedes; a close candidate (≥ `update`)
/// that nothing contradicts is updated or reinforced; a changed value at or above
/// `correct_low` supersedes, further apart it might be a correction; a candidate about the same subject is related; else
/// a new memory. Superseded candidates are never superseded a second time.
pub fn decide(new_value: &str, candidates: &[GateCandidate], options: &GateOptions) -> GateDecision {
    let mut ranked: Vec<&GateCandidate> = candidates.iter().filter(|c| c.similarity.is_finite()).collect();
    ranked.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.path.cmp(&b.path)));
    let Some(top) = ranked.first() else {
        return GateDecision::Create;
    };
    let hit = |c: &GateCandidate| (c.path.clone(), c.key.clone(), c.similarity);
    let findings: Vec<_> = ranked.iter().map(|c| finding(new_value, &c.value)).collect();
    let cue_of = |i: usize| correction_cue(new_value, &ranked[i].value);
    if top.similarity >= options.reinforce && findings[0].is_none() && cue_of(0).is_none() {
        let (path, key, similarity) = hit(top);
        return GateDecision::Reinforce { path, key, similarity };
    }
    let current = |i: &usize| !ranked[*i].superseded;
    let supersede = |i: usize, cue: String| {
        let (path, key, similarity) = hit(ranked[i]);
        GateDecision::Supersede { path, key, similarity, cue }
    };
    if let Some(i) = (0..ranked.len()).filter(current).find(|&i| findings[i].as_ref().is_some_and(|f| f.explicit)) {
        return supersede(i, findings[i].clone().map(|f| f.cue).unwrap_or_default());
    }
    let close = (0..ranked.len()).take_while(|&i| ranked[i].similarity >= options.supersede_low);
    for i in close.filter(current) {
        let about_it = same_subject(new_value, &ranked[i].value) || ranked[i].similarity >= options.update;
        if let Some(cue) = cue_of(i).filter(|_| about_it) {
            return supersede(i, cue);
        }
        if let Some(f) = &findings[i] {
            return supersede(i, f.cue.clone());
        }
    }
    // A change said without naming the old value ("the standup is at 10:00 now", "Ledgerly
    // is at 12 people"): the closest memory it could change is named for the agent to
    // confirm, never superseded on this alone.
    let maybe = (0..ranked.len())
        .take_while(|&i| ranked[i].similarity >= options.correct_low)
        .filter(current)
        .find_map(|i| change_signal(new_value, &ranked[i].value).map(|cue| (i, cue)));
    if let Some((i, cue)) = maybe {
        let (path, key, similarity) = hit(ranked[i]);
        return GateDecision::MightCorrect { path, key, similarity, cue };
    }
    if top.similarity >= options.update && findings[0].is_none() {
        let (path, key, similarity) = hit(top);
        let old = content_words(&top.value);
        let adds = content_words(new_value).iter().any(|w| !old.contains(w));
        return if adds {
            GateDecision::Update { path, key, similarity }
        } else {
            GateDecision::Reinforce { path, key, similarity }
        };
    }
    if let Some(i) = (0..ranked.len()).filter(current).find(|&i| findings[i].is_some()) {
        let cue = findings[i].clone().map(|f| f.cue).unwrap_or_default();
        let (path, key, similarity) = hit(ranked[i]);
        return GateDecision::MightCorrect { path, key, similarity, cue };
    }
    // Everything the writer says of themself shares a subject: only a close one is related.
    let related = |c: &&&GateCandidate| {
        same_subject(new_value, &c.value) && (c.similarity >= options.correct_low || !speaks_for_writer(new_value))
    };
    if let Some(c) = ranked.iter().find(related) {
        let (path, key, similarity) = hit(c);
        return GateDecision::Related { path, key, similarity };
    }
    GateDecision::Create
}

/// Words with which a writer says that something changed.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "longer",
    "anymore",
    "instead",
    "actually",
    "moved",
    "switched",
    "migrated",
    "replaced",
    "changed",
    "went",
    "raised",
    "dropped",
    "extended",
    "upgraded",
    "downgraded",
    "pushed",
    "postponed",
    "rescheduled",
    "left",
    "joined",
    "started",
    "stopped",
    "quit",
    "increased",
    "decreased",
    "rose",
    "fell",
    "cut",
    "renamed",
    "became",
    "new",
    "newly",
    "shortened",
    "reduced",
    "grew",
    "hired",
    "retired",
    "replaces",
    "took",
];

/// Why `new_value` might change what `old_value` says, though no rule is sure: the same
/// subject (or a shared name) and either a change word the old value lacks or a value of
/// the old one missing from the new.
fn change_signal(new_value: &str, old_value: &str) -> Option<String> {
    let (new_words, old_words) = (content_words(new_value), content_words(old_value));
    let shared_name = new_words.iter().filter(|w| !is_number(w)).any(|w| old_words.contains(w));
    if !(same_subject(new_value, old_value) || shared_name) {
        return None;
    }
    let new_text = normalise(new_value);
    let old_text = normalise(old_value);
    let said = |t: &str, w: &str| t.split(' ').any(|x| x == w);
    if let Some(w) = CHANGE_WORDS.iter().find(|w| said(&new_text, w) && !said(&old_text, w)) {
        return Some(format!("changed? {w}"));
    }
    let numbers = |ws: &[String]| ws.iter().filter(|w| is_number(w)).cloned().collect::<Vec<_>>();
    let (new_numbers, old_numbers) = (numbers(&new_words), numbers(&old_words));
    if !new_numbers.is_empty() && old_numbers.iter().any(|n| !new_numbers.contains(n)) {
        return Some(format!("changed? {} -> {}", old_numbers.join(","), new_numbers.join(",")));
    }
    None
}

/// Why `new_value` reads as a correction of `old_value`, if it does: a correction phrase
/// the old value lacks ("actually", "no longer", ...), a negation on one side only over
/// shared content words, or a number that changed in an otherwise unchanged sentence.
pub fn correction_cue(new_value: &str, old_value: &str) -> Option<String> {
    let new_text = normalise(new_value);
    let old_text = normalise(old_value);
    for phrase in CORRECTION_PHRASES {
        if has_phrase(&new_text, phrase) && !has_phrase(&old_text, phrase) {
            return Some((*phrase).to_string());
        }
    }
    // The same subject, not only the same words: "Sara does not like TypeScript" says
    // nothing about Tom, and "Tom dislikes TypeScript" agrees with "Tom does not like it".
    if contradiction::negation_flip(new_value, old_value) {
        return Some("negation".to_string());
    }
    let (new_words, old_words) = (content_words(new_value), content_words(old_value));
    // "Lives at 12 Oak St" → "lives at 14 Oak St" is a changed fact; "ran 5 km Monday" →
    // "ran 10 km Tuesday" is another event, which the context words tell apart.
    let numbers = |ws: &[String]| ws.iter().filter(|w| is_number(w)).cloned().collect::<Vec<_>>();
    let context = |ws: &[String]| ws.iter().filter(|w| !is_number(w)).cloned().collect::<Vec<_>>();
    let (new_numbers, old_numbers) = (numbers(&new_words), numbers(&old_words));
    if !new_numbers.is_empty()
        && !old_numbers.is_empty()
        && old_numbers.iter().any(|n| !new_numbers.contains(n))
        && set_cosine(&context(&new_words), &context(&old_words)) >= 0.8
    {
        return Some(format!("number {} -> {}", old_numbers.join(","), new_numbers.join(",")));
    }
    None
}

/// Similarity of two texts without an embedding model: the cosine of their sets of content
/// words (stop words dropped, crude plural/tense endings folded), in [0, 1].
///
/// Paraphrases score lower than with embeddings ("likes" and "enjoys" share nothing), so
/// with the default thresholds the gate errs toward [`GateDecision::Create`], whose cost
/// is a near-duplicate rather than a lost memory.
pub fn lexical_similarity(a: &str, b: &str) -> f64 {
    set_cosine(&content_words(a), &content_words(b))
}

/// Distinct content words, folded (see [`lexical_similarity`]), in order of appearance.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in tokenize(text) {
        if STOP_WORDS.contains(&w.as_str()) {
            continue;
        }
        let w = fold(&w);
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn set_cosine(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.iter().filter(|w| b.contains(w)).count();
    shared as f64 / ((a.len() * b.len()) as f64).sqrt()
}

/// Lower case, typographic apostrophes straightened, words separated by single spaces.
fn normalise(text: &str) -> String {
    let text = text.to_lowercase().replace('’', "'");
    text.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

fn has_phrase(text: &str, phrase: &str) -> bool {
    format!(" {text} ").contains(&format!(" {phrase} "))
}

/// Whether a sentence says "not": a negation word or an n't contraction (with or without
/// its apostrophe: "doesn't", "doesnt").
fn negated(text: &str) -> bool {
    const WORDS: &[&str] = &["not", "no", "never", "nor", "none", "nothing", "neither", "nobody", "cannot"];
    const BARE: &[&str] = &["dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "cant", "wont", "shouldnt"];
    text.split(' ').any(|w| WORDS.contains(&w) || BARE.contains(&w) || w.ends_with("n't"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(key: &str, value: &str, similarity: f64) -> GateCandidate {
        GateCandidate {
            path: format!("people/facts/{key}"),
            key: key.into(),
            value: value.into(),
            similarity,
            superseded: false,
        }
    }

    fn lexical(new: &str, key: &str, old: &str) -> GateDecision {
        decide(new, &[cand(key, old, lexical_similarity(new, old))], &GateOptions::default())
    }

    #[test]
    fn nothing_to_compare_creates() {
        assert_eq!(decide("Alice likes tea", &[], &GateOptions::default()), GateDecision::Create);
    }

    #[test]
    fn exact_duplicate_reinforces() {
        let d = lexical("Alice likes green tea.", "alice-tea", "alice likes green tea");
        assert_eq!(
            d,
            GateDecision::Reinforce { path: "people/facts/alice-tea".into(), key: "alice-tea".into(), similarity: 1.0 }
        );
    }

    #[test]
    fn paraphrase_uses_the_given_similarity() {
        let old = cand("alice-tea", "Alice enjoys green tea", 0.95);
        let d = decide("Alice is fond of green tea", std::slice::from_ref(&old), &GateOptions::default());
        assert!(matches!(d, GateDecision::Reinforce { ref key, .. } if key == "alice-tea"));
        // Related but adding detail: the value is rewritten.
        let d = decide(
            "Alice enjoys green tea with honey",
            &[cand("alice-tea", &old.value, 0.85)],
            &GateOptions::default(),
        );
        assert!(matches!(d, GateDecision::Update { ref key, .. } if key == "alice-tea"));
        // Related and adding nothing: reinforced.
        let d = decide("Alice enjoys tea", &[cand("alice-tea", &old.value, 0.85)], &GateOptions::default());
        assert!(matches!(d, GateDecision::Reinforce { .. }));
    }

    #[test]
    fn correction_phrase_supersedes() {
        let d = decide(
            "Actually, Alice prefers oolong tea",
            &[cand("alice-tea", "Alice prefers green tea", 0.72)],
            &GateOptions::default(),
        );
        assert_eq!(
            d,
            GateDecision::Supersede {
                path: "people/facts/alice-tea".into(),
                key: "alice-tea".into(),
                similarity: 0.72,
                cue: "actually".into()
            }
        );
        // Too far apart, even with the cue: a new memory.
        let d = decide(
            "Actually, Bob moved to Lisbon",
            &[cand("alice-tea", "Alice prefers green tea", 0.4)],
            &GateOptions::default(),
        );
        assert_eq!(d, GateDecision::Create);
    }

    #[test]
    fn negation_flip_supersedes() {
        assert_eq!(correction_cue("Alice does not like coffee", "Alice likes coffee").as_deref(), Some("negation"));
        assert_eq!(correction_cue("Alice doesnt like coffee", "Alice likes coffee").as_deref(), Some("negation"));
        let d = lexical("Alice does not like coffee", "alice-coffee", "Alice likes coffee");
        assert!(
            matches!(d, GateDecision::Supersede { ref cue, similarity, .. } if cue == "negation" && similarity == 1.0)
        );
        // Negated on both sides: no flip, so a duplicate.
        assert!(matches!(
            lexical("Alice never drinks coffee", "k", "Alice never drinks coffee"),
            GateDecision::Reinforce { .. }
        ));
        // A negation about something else is no flip.
        assert_eq!(correction_cue("Bob never skis", "Alice likes coffee"), None);
    }

    #[test]
    fn changed_number_in_the_same_sentence_supersedes() {
        let (new, old) = ("Alice lives at 14 Oak St", "Alice lives at 12 Oak St");
        assert_eq!(correction_cue(new, old).as_deref(), Some("number 12 -> 14"));
        assert!(matches!(lexical(new, "alice-address", old), GateDecision::Supersede { .. }));
        // Another event, not a correction.
        assert_eq!(correction_cue("Ran 10 km on Tuesday", "Ran 5 km on Monday"), None);
    }

    #[test]
    fn novel_content_creates() {
        let d = lexical("Bob is learning the cello", "alice-tea", "Alice likes green tea");
        assert_eq!(d, GateDecision::Create);
        assert_eq!(lexical_similarity("Bob is learning the cello", "Alice likes green tea"), 0.0);
    }

    #[test]
    fn the_closest_candidate_wins_and_ties_go_by_path() {
        let cs = [cand("b", "Alice likes tea", 0.95), cand("a", "Alice likes tea", 0.95), cand("c", "x", 0.99)];
        let d = decide("Alice likes tea", &cs, &GateOptions::default());
        assert!(matches!(d, GateDecision::Reinforce { ref key, .. } if key == "c"));
        let d = decide("Alice likes tea", &cs[..2], &GateOptions::default());
        assert!(matches!(d, GateDecision::Reinforce { ref key, .. } if key == "a"));
    }

    /// One labelled pair of `gate_cases.json`.
    #[derive(serde::Deserialize)]
    struct Case {
        split: String,
        category: String,
        old: String,
        new: String,
        supersede: bool,
    }

    /// Precision and recall of the supersede decision on one split, through [`decide`] on
    /// the lexical path with the store's `gate_lexical` thresholds (0.9, 0.7, 0.5).
    fn measure(split: &str) -> (f64, f64, usize, Vec<String>) {
        #[derive(serde::Deserialize)]
        struct File {
            cases: Vec<Case>,
        }
        let file: File = serde_json::from_str(include_str!("gate_cases.json")).expect("gate_cases.json parses");
        let options = GateOptions { reinforce: 0.9, update: 0.7, supersede_low: 0.5, correct_low: 0.25 };
        let (mut tp, mut fp, mut fneg, mut n) = (0usize, 0usize, 0usize, 0usize);
        let mut wrong = Vec::new();
        for c in file.cases.iter().filter(|c| c.split == split) {
            n += 1;
            let d = decide(&c.new, &[cand("old", &c.old, lexical_similarity(&c.new, &c.old))], &options);
            // The rules found it: superseded, or (far apart) named as a possible correction
            // by a rule (not by a change word alone, which no rule read).
            let got = match &d {
                GateDecision::Supersede { .. } => true,
                GateDecision::MightCorrect { cue, .. } => !cue.starts_with("changed?"),
                _ => false,
            };
            match (got, c.supersede) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fneg += 1,
                (false, false) => {}
            }
            if got != c.supersede {
                wrong.push(format!("[{}] {:?} -> {:?}: {:?}", c.category, c.old, c.new, d));
            }
        }
        let precision = tp as f64 / (tp + fp).max(1) as f64;
        let recall = tp as f64 / (tp + fneg).max(1) as f64;
        (precision, recall, n, wrong)
    }

    /// The contradiction rules on the crafted cases, tuned on `tune` only; `holdout` was
    /// not looked at while tuning. `cargo test --lib lifecycle::gate -- --nocapture`
    /// prints the figures.
    #[test]
    fn contradictions_without_cues_meet_precision_and_recall_floors() {
        let (tp, tr, tn, wrong) = measure("tune");
        println!("gate cases, tune: {tn} pairs, precision {tp:.3}, recall {tr:.3}");
        for w in &wrong {
            println!("  tune miss: {w}");
        }
        let mut held = Vec::new();
        for split in ["holdout", "holdout2"] {
            let (p, r, n, wrong) = measure(split);
            println!("gate cases, {split}: {n} pairs, precision {p:.3}, recall {r:.3}");
            if std::env::var_os("GATE_SHOW_HOLDOUT").is_some() {
                for w in &wrong {
                    println!("  {split} miss: {w}");
                }
            }
            held.push((p, r, n));
        }
        assert!(tn >= 40 && held[0].2 >= 40 && held[1].2 >= 40, "{tn} {held:?}");
        // Floors a little under the figures measured (docs/lifecycle.md section 3).
        // Recall 0.944 since a change word names a possible correction before the weaker rules read it.
        assert!(tp >= 0.95 && tr >= 0.94, "tune: precision {tp}, recall {tr}");
        assert!(held[0].0 >= 0.95 && held[0].1 >= 0.95, "holdout: {:?}", held[0]);
        assert!(held[1].0 >= 0.9 && held[1].1 >= 0.9, "holdout2: {:?}", held[1]);
    }
}
