//! The five rules of dream insights (docs/lifecycle.md, "Dream insights"): each reads the
//! current persona memories (and consolidation's similar pairs) and returns at most
//! [`MAX_PER_KIND`] findings, strongest first. Pure functions: no I/O, no clock.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::super::gate::{content_words, finding_between, Clause};
use super::super::pairs::{set_pairs_while, shared, SetRule};
use crate::model::{round3, Insight, InsightKind, MemoryState, PersonaMemory};
use crate::text::fold;

const DAY: f64 = 86_400.0;
/// Findings of one kind kept per cycle, strongest first: the report is for reading.
pub(crate) const MAX_PER_KIND: usize = 10;
/// Memories named per insight, at most (the most telling first).
pub(crate) const MAX_EVIDENCE: usize = 12;
/// A recurring pattern: a theme of at least this many current memories...
pub(crate) const PATTERN_MIN_MEMORIES: usize = 5;
/// ... written on at least this many distinct days (a burst of one day is no pattern).
pub(crate) const PATTERN_MIN_DAYS: usize = 3;
/// Contradiction candidates: pairs whose content words overlap at least this much (the
/// cosine of [`super::super::gate::lexical_similarity`]); "I live in Berlin" and "I live in
/// Paris" overlap 0.5.
pub(crate) const CONTRADICTION_OVERLAP: f64 = 0.34;
/// Pairs the contradiction rules compare per cycle, at most (each value is read once).
pub(crate) const CONTRADICTION_CHECKS: usize = 20_000;
/// A knowledge gap: a name in at least this many current memories, none describing it ...
pub(crate) const GAP_MENTIONS: usize = 3;
/// ... or a theme read at least this many times whose memories are all fading.
pub(crate) const GAP_ACCESSES: u64 = 5;
/// A temporal trend compares the last `TREND_WINDOW` with the three windows before it.
pub(crate) const TREND_WINDOW: f64 = 30.0 * DAY;
/// A theme needs this many memories in the four windows to have a trend ...
pub(crate) const TREND_MIN_MEMORIES: usize = 4;
/// ... and a rate this many times higher (rising) or lower (falling), smoothed by half a
/// memory a window so one memory is never a trend.
pub(crate) const TREND_RATIO: f64 = 3.0;

/// A current persona memory as the rules see it.
pub(crate) struct Seen {
    /// Its plain path (what evidence names).
    pub path: String,
    pub memory: PersonaMemory,
    pub state: MemoryState,
}

impl Seen {
    /// Themes as compared: trimmed, lower case, distinct.
    fn themes(&self) -> BTreeSet<String> {
        self.memory.themes.iter().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect()
    }
}

/// A finding before it is stored: kind, subject, text, strength, evidence.
pub(crate) fn insight(
    kind: InsightKind,
    subject: String,
    text: String,
    strength: f64,
    evidence: Vec<String>,
) -> Insight {
    let key = format!("{}-{:016x}", kind.as_str(), super::super::similar::fixed_hash(subject.as_bytes()));
    let mut evidence = evidence;
    evidence.truncate(MAX_EVIDENCE);
    Insight {
        key,
        kind,
        subject,
        text,
        strength: round3(strength.clamp(0.0, 1.0)),
        evidence,
        found_at: 0.0,
        updated_at: 0.0,
    }
}

/// Strongest first (then by subject, so a cycle's choice is the same on every device),
/// at most [`MAX_PER_KIND`].
fn strongest(mut found: Vec<Insight>) -> Vec<Insight> {
    found.sort_by(|a, b| b.strength.total_cmp(&a.strength).then_with(|| a.subject.cmp(&b.subject)));
    found.truncate(MAX_PER_KIND);
    found
}

/// Paths newest first (the memories' own times), for evidence.
fn newest_first(seen: &[Seen], mut idx: Vec<usize>) -> Vec<String> {
    idx.sort_by(|a, b| seen[*b].memory.created_at.total_cmp(&seen[*a].memory.created_at).then(a.cmp(b)));
    idx.into_iter().map(|i| seen[i].path.clone()).collect()
}

fn linked(a: &PersonaMemory, b: &PersonaMemory) -> bool {
    a.connections.contains(&b.key) || b.connections.contains(&a.key)
}

fn marked_contradicting(a: &PersonaMemory, b: &PersonaMemory) -> bool {
    a.contradicts.contains(&b.key)
        || b.contradicts.contains(&a.key)
        || a.superseded_by.as_deref() == Some(b.key.as_str())
        || b.superseded_by.as_deref() == Some(a.key.as_str())
}

/// **Hidden connection**: a pair consolidation found alike (`similar`, by path, at or
/// above the link threshold) whose memories are in different domains, share no theme,
/// and are neither connected nor marked as contradicting. Strength: their similarity.
pub(crate) fn hidden_connections(seen: &[Seen], similar: &[(String, String, f64)]) -> Vec<Insight> {
    let by_path: HashMap<&str, usize> = seen.iter().enumerate().map(|(i, s)| (s.path.as_str(), i)).collect();
    // Each memory's themes worked out once, when a pair first needs them (there are many
    // more pairs than memories).
    let mut themes: Vec<Option<BTreeSet<String>>> = vec![None; seen.len()];
    let mut found = Vec::new();
    for (a, b, sim) in similar {
        let (Some(&i), Some(&j)) = (by_path.get(a.as_str()), by_path.get(b.as_str())) else { continue };
        let (m, n) = (&seen[i].memory, &seen[j].memory);
        if m.domain == n.domain {
            continue;
        }
        for k in [i, j] {
            if themes[k].is_none() {
                themes[k] = Some(seen[k].themes());
            }
        }
        let disjoint = themes[i].as_ref().zip(themes[j].as_ref()).is_some_and(|(x, y)| x.is_disjoint(y));
        if !disjoint || linked(m, n) || marked_contradicting(m, n) {
            continue;
        }
        let text = format!(
            "\"{}\" ({}) and \"{}\" ({}) say alike things though filed apart (similarity {:.2})",
            m.key, m.domain, n.key, n.domain, sim
        );
        found.push(insight(InsightKind::HiddenConnection, format!("{a} {b}"), text, *sim, vec![a.clone(), b.clone()]));
    }
    strongest(found)
}

/// Current memories by theme.
fn by_theme(seen: &[Seen]) -> BTreeMap<String, Vec<usize>> {
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in seen.iter().enumerate() {
        for t in s.themes() {
            out.entry(t).or_default().push(i);
        }
    }
    out
}

/// **Recurring pattern**: a theme of at least [`PATTERN_MIN_MEMORIES`] current memories
/// written on at least [`PATTERN_MIN_DAYS`] distinct days. Strength: memories over twice
/// the minimum, at most 1.
pub(crate) fn recurring_patterns(seen: &[Seen]) -> Vec<Insight> {
    let mut found = Vec::new();
    for (theme, idx) in by_theme(seen) {
        let days: BTreeSet<i64> = idx.iter().map(|i| (seen[*i].memory.created_at / DAY).floor() as i64).collect();
        if idx.len() < PATTERN_MIN_MEMORIES || days.len() < PATTERN_MIN_DAYS {
            continue;
        }
        let text = format!("\"{theme}\" recurs: {} memories over {} days", idx.len(), days.len());
        let strength = idx.len() as f64 / (2 * PATTERN_MIN_MEMORIES) as f64;
        found.push(insight(InsightKind::RecurringPattern, theme, text, strength, newest_first(seen, idx)));
    }
    strongest(found)
}

/// **Contradiction**: two current memories whose words overlap at least
/// [`CONTRADICTION_OVERLAP`] and which the gate's contradiction rules read as disagreeing
/// (the newer against the older), not marked as contradicting or superseding each other.
/// Strength 0.9 when the rule is sure (a switch, a stop, a negation), 0.6 otherwise.
pub(crate) fn contradictions(seen: &[Seen]) -> Vec<Insight> {
    let mut ids = HashMap::new();
    let words: Vec<Vec<u32>> = seen
        .iter()
        .map(|s| {
            let mut v: Vec<u32> = content_words(&s.memory.value)
                .into_iter()
                .map(|w| {
                    let next = ids.len() as u32;
                    *ids.entry(w).or_insert(next)
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let order: Vec<usize> = (0..seen.len()).collect();
    let mut pairs = Vec::new();
    // The first `CONTRADICTION_CHECKS` candidate pairs; the index stops there.
    set_pairs_while(&words, &order, SetRule::Cosine(CONTRADICTION_OVERLAP), |i, j| {
        pairs.push((i.min(j), i.max(j)));
        pairs.len() < CONTRADICTION_CHECKS
    });
    pairs.sort_unstable();
    // Each value read once, and only the values a pair needs.
    let mut clauses: HashMap<usize, Clause> = HashMap::new();
    for &(i, j) in &pairs {
        for k in [i, j] {
            clauses.entry(k).or_insert_with(|| Clause::read(&seen[k].memory.value));
        }
    }
    let mut found = Vec::new();
    for (i, j) in pairs {
        let (wi, wj) = (&words[i], &words[j]);
        let overlap = shared(wi, wj) as f64 / ((wi.len() * wj.len()) as f64).sqrt();
        let (a, b) = (&seen[i], &seen[j]);
        if overlap < CONTRADICTION_OVERLAP || marked_contradicting(&a.memory, &b.memory) {
            continue;
        }
        let (old, new, o, n) =
            if (a.memory.created_at, &a.path) <= (b.memory.created_at, &b.path) { (a, b, i, j) } else { (b, a, j, i) };
        let Some(f) = finding_between(&clauses[&n], &clauses[&o]) else { continue };
        let text = format!(
            "\"{}\" disagrees with the older \"{}\" ({}) and neither is marked",
            new.memory.key, old.memory.key, f.cue
        );
        let strength = if f.explicit { 0.9 } else { 0.6 };
        let subject = format!("{} {}", (&a.path).min(&b.path), (&a.path).max(&b.path));
        found.push(insight(
            InsightKind::Contradiction,
            subject,
            text,
            strength,
            vec![new.path.clone(), old.path.clone()],
        ));
    }
    strongest(found)
}

/// Capitalised words that are not a sentence's first: names, roughly. Weekdays and months
/// are capitalised too and name nothing to describe.
fn names(text: &str) -> BTreeMap<String, String> {
    let is_calendar_word = |w: &&str| crate::text::WEEKDAYS.contains(w) || crate::text::MONTHS.contains(w);
    let mut out = BTreeMap::new();
    let mut sentence_start = true;
    for raw in text.split_whitespace() {
        // The leading run of letters and digits: "Acme's" is Acme.
        let word: String = raw
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        let starts_upper = word.chars().next().is_some_and(char::is_uppercase);
        let folded = fold(&word.to_lowercase());
        if !sentence_start
            && starts_upper
            && word.chars().count() >= 3
            && word != "I"
            && !is_calendar_word(&folded.as_str())
            && !crate::text::STOP_WORDS.contains(&word.to_lowercase().as_str())
        {
            out.entry(folded).or_insert(word);
        }
        sentence_start = raw.ends_with(['.', '!', '?', ':', ';']);
    }
    out
}

/// The names memories describe (folded): each one's key words, themes and first word.
/// One set for the persona, so a cycle never compares every name with every memory.
fn described(seen: &[Seen]) -> BTreeSet<String> {
    let folded = |w: &str| fold(&w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase());
    let mut out = BTreeSet::new();
    for s in seen {
        out.extend(s.memory.key.split(|c: char| !c.is_alphanumeric()).map(folded));
        out.extend(s.themes().iter().map(|t| folded(t)));
        out.extend(s.memory.value.split_whitespace().next().map(folded));
    }
    out
}

/// **Knowledge gap**: a name mentioned in at least [`GAP_MENTIONS`] current memories that
/// no memory describes (its key, a theme or its first word); or a theme whose memories
/// were read at least [`GAP_ACCESSES`] times in all and are none of them active any more.
/// Strength: mentions over twice the minimum, or reads over twice theirs, at most 1.
pub(crate) fn knowledge_gaps(seen: &[Seen]) -> Vec<Insight> {
    let mut mentions: BTreeMap<String, (String, Vec<usize>)> = BTreeMap::new();
    for (i, s) in seen.iter().enumerate() {
        for (folded, form) in names(&s.memory.value) {
            mentions.entry(folded).or_insert_with(|| (form, Vec::new())).1.push(i);
        }
    }
    let described = described(seen);
    let mut found = Vec::new();
    for (folded, (form, idx)) in mentions {
        if idx.len() < GAP_MENTIONS || described.contains(&folded) {
            continue;
        }
        let text = format!("\"{form}\" is mentioned in {} memories, and none says who or what it is", idx.len());
        let strength = idx.len() as f64 / (2 * GAP_MENTIONS) as f64;
        found.push(insight(
            InsightKind::KnowledgeGap,
            format!("name {folded}"),
            text,
            strength,
            newest_first(seen, idx),
        ));
    }
    for (theme, idx) in by_theme(seen) {
        let reads: u64 = idx.iter().map(|i| seen[*i].memory.access_count).sum();
        if idx.len() < 2 || reads < GAP_ACCESSES || idx.iter().any(|i| seen[*i].state == MemoryState::Active) {
            continue;
        }
        let text = format!("\"{theme}\" was read {reads} times, and its {} memories are all fading", idx.len());
        let strength = reads as f64 / (2 * GAP_ACCESSES) as f64;
        found.push(insight(
            InsightKind::KnowledgeGap,
            format!("theme {theme}"),
            text,
            strength,
            newest_first(seen, idx),
        ));
    }
    strongest(found)
}

/// **Temporal trend**: a theme with at least [`TREND_MIN_MEMORIES`] memories in the last
/// four [`TREND_WINDOW`]s whose rate in the last window is [`TREND_RATIO`] times its rate
/// in the three before (rising, with at least three recent memories) or a third of it
/// (falling, with at least three earlier ones); rates smoothed by half a memory a window.
/// Strength: |ln ratio| / ln 9, at most 1 (a ratio of 9 is sure).
pub(crate) fn temporal_trends(seen: &[Seen], now: f64) -> Vec<Insight> {
    let mut found = Vec::new();
    for (theme, idx) in by_theme(seen) {
        let age = |i: &usize| now - seen[*i].memory.created_at;
        let recent: Vec<usize> = idx.iter().copied().filter(|i| (0.0..TREND_WINDOW).contains(&age(i))).collect();
        let earlier: Vec<usize> =
            idx.iter().copied().filter(|i| (TREND_WINDOW..4.0 * TREND_WINDOW).contains(&age(i))).collect();
        if recent.len() + earlier.len() < TREND_MIN_MEMORIES {
            continue;
        }
        let ratio = (recent.len() as f64 + 0.5) / (earlier.len() as f64 / 3.0 + 0.5);
        let (direction, evidence) = if recent.len() >= 3 && ratio >= TREND_RATIO {
            ("rising", recent.clone())
        } else if earlier.len() >= 3 && ratio <= 1.0 / TREND_RATIO {
            ("falling", earlier.clone())
        } else {
            continue;
        };
        let text = format!(
            "\"{theme}\" is {direction}: {} memories in the last 30 days, {} in the 90 before",
            recent.len(),
            earlier.len()
        );
        let strength = ratio.ln().abs() / 9f64.ln();
        found.push(insight(InsightKind::TemporalTrend, theme, text, strength, newest_first(seen, evidence)));
    }
    strongest(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(key: &str, value: &str, themes: &[&str], at: f64) -> Seen {
        let mut memory = PersonaMemory::new("self", "facts", key, value, at);
        memory.themes = themes.iter().map(|t| t.to_string()).collect();
        Seen { path: format!("sense-memory/persona/self/facts/{key}"), memory, state: MemoryState::Active }
    }

    #[test]
    fn names_are_capitalised_words_inside_a_sentence() {
        let mut found: Vec<String> =
            names("Met Priya on Monday. Then Bob called; I said hi to Acme's CEO").into_values().collect();
        found.sort();
        assert_eq!(found, ["Acme", "Bob", "CEO", "Priya"]);
    }

    #[test]
    fn one_memory_is_never_a_trend_and_the_key_is_stable() {
        let now = 1_000.0 * DAY;
        let one = [seen("a", "x", &["t"], now - DAY)];
        assert!(temporal_trends(&one, now).is_empty());
        let a = insight(InsightKind::TemporalTrend, "t".into(), "x".into(), 2.0, vec![]);
        let b = insight(InsightKind::TemporalTrend, "t".into(), "y".into(), 0.5, vec![]);
        assert_eq!(a.key, b.key, "the key depends on the kind and subject only");
        assert_eq!(a.strength, 1.0, "strength is clamped");
    }

    /// The rules over 10,000 memories, timed (run with `cargo test --lib
    /// dreams::rules::tests::rules_over_ten_thousand -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn rules_over_ten_thousand_memories_stay_within_their_caps() {
        let now = 1_000.0 * DAY;
        let words = ["garden", "budget", "train", "report", "coffee", "river", "design", "server", "novel", "recipe"];
        let all: Vec<Seen> = (0..10_000)
            .map(|i| {
                let value = format!(
                    "Note {i} about the {} and the {} with Name{} on item {}",
                    words[i % 10],
                    words[(i / 10) % 10],
                    i % 100,
                    i * 7919 % 1000
                );
                let theme = format!("theme{}", i % 200);
                seen(&format!("note-{i}"), &value, &[theme.as_str()], now - (i % 150) as f64 * DAY)
            })
            .collect();
        let timed = |name: &str, rule: &dyn Fn() -> Vec<Insight>| {
            let t = std::time::Instant::now();
            let found = rule();
            println!("{name} over 10,000 memories: {:?}, {} found", t.elapsed(), found.len());
            found
        };
        let found = [
            timed("recurring patterns", &|| recurring_patterns(&all)),
            timed("contradictions", &|| contradictions(&all)),
            timed("knowledge gaps", &|| knowledge_gaps(&all)),
            timed("temporal trends", &|| temporal_trends(&all, now)),
        ];
        for f in &found {
            assert!(f.len() <= MAX_PER_KIND && f.iter().all(|i| i.evidence.len() <= MAX_EVIDENCE));
        }
    }
}
