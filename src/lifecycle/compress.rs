//! Seed 003's compressed persona format: the whole active persona as shorthand an LLM can
//! take in at a glance, within a token budget (500 by default).
//!
//! ```text
//! [domain:people/facet:facts]
//! alice: pets two cats no dogs, tea drinks green every morning
//! [domain:projects/facet:decisions]
//! voxrelay: voice orpheus-3b>kokoro (warmth)
//! ```
//!
//! One header per domain/facet, then one line per *subject*: the first meaningful segment of
//! the key (`alice-pets` → `alice`), with the memories about it as comma-separated items,
//! each the rest of its key (so subject and item spell the key) and what the value adds.
//! Seed 003's own example reads this way, and it is what makes 50 memories fit in 500
//! tokens: header and line overhead alone take half of that. Each value loses its stop
//! words, keeps numbers and negations, turns "X over Y" into `X>Y` and a "because" clause
//! into a parenthetical, and is cut to a few words, fewer as the persona grows.

use std::collections::BTreeMap;

use crate::model::{MemoryState, PersonaMemory};
use crate::search::STOP_WORDS;

/// The budget when [`CompressOptions::max_tokens`] is left at its default (seed 003's target).
pub const DEFAULT_MAX_TOKENS: usize = 500;

/// How much of each value survives: the richest level at which every memory fits the budget
/// is used, so a small persona reads fuller and a large one loses detail before it loses
/// memories. Numbers and negations are kept at every level.
#[derive(Debug, Clone, Copy)]
struct Level {
    /// Content words kept from a value's main clause.
    words: usize,
    /// Content words kept from a reason (0: no parenthetical).
    reason: usize,
    /// Content words on each side of `X>Y`.
    side: usize,
}

const LEVELS: &[Level] = &[
    Level { words: 6, reason: 4, side: 2 },
    Level { words: 4, reason: 3, side: 2 },
    Level { words: 3, reason: 2, side: 2 },
    Level { words: 2, reason: 2, side: 2 },
    Level { words: 1, reason: 0, side: 2 },
    Level { words: 0, reason: 0, side: 1 },
];

/// Stop words that carry the meaning of a value and so are never dropped.
const KEEP: &[&str] = &["no", "nor", "not", "never", "against", "only", "before", "after", "more", "most", "off"];

/// Fillers an agent writes that an LLM can do without.
const FILLER: &[&str] = &[
    "actually",
    "basically",
    "currently",
    "definitely",
    "ever",
    "finally",
    "genuinely",
    "just",
    "quite",
    "really",
    "still",
    "such",
    "today",
    "whenever",
    "would",
];

/// Phrases that open a reason, which becomes a parenthetical.
const REASON_MARKERS: &[&str] = &["because of", "because", "since", "due to", "so that", "given that", "so"];

/// Verbs after which "over" means "chosen over".
const CHOICE_VERBS: &[&str] =
    &["chose", "choose", "chosen", "picked", "pick", "prefer", "prefers", "preferred", "selected", "favor", "favors"];

/// Words that end the Y of "X over Y" (what follows is context, not the alternative).
const SIDE_STOPS: &[&str] = &["for", "in", "on", "at", "with", "to", "because", "since", "as", "when", "by"];

/// How [`compress`] renders a persona.
#[derive(Debug, Clone, PartialEq)]
pub struct CompressOptions {
    /// Token budget, as counted by [`estimate_tokens`]; `None` for no limit.
    pub max_tokens: Option<usize>,
    /// Only this domain; `None` for all.
    pub domain: Option<String>,
    /// When to measure relevance for the ordering; `None` for the latest access among the
    /// memories given, so that the result depends on nothing but its input.
    pub now: Option<f64>,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions { max_tokens: Some(DEFAULT_MAX_TOKENS), domain: None, now: None }
    }
}

/// [`compress_detailed`]'s result: the text and what went into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Compressed {
    /// The compressed persona.
    pub text: String,
    /// Addresses (`domain/facet/key`) of the memories the text includes, most relevant first.
    pub included: Vec<String>,
    /// How many eligible memories the budget left out (the text's `(+N more)`).
    pub omitted: usize,
    /// [`estimate_tokens`] of `text`.
    pub estimated_tokens: usize,
}

/// The active part of a persona in seed 003's compressed format.
///
/// Only memories whose state is [`MemoryState::Active`] (or that are pinned) appear; the
/// caller passes the state, since it owns the decay policy.
pub fn compress(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> String {
    compress_detailed(memories, options).text
}

/// One memory on its way into the text.
struct Item<'a> {
    memory: &'a PersonaMemory,
    subject: String,
    text: String,
}

/// [`compress`], also telling which memories made it in.
pub fn compress_detailed(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> Compressed {
    let eligible: Vec<&PersonaMemory> = memories
        .iter()
        .filter(|(m, state)| *state == MemoryState::Active || m.sync.life.pinned)
        .filter(|(m, _)| options.domain.as_deref().is_none_or(|d| m.domain == d))
        .map(|(m, _)| *m)
        .collect();
    let now = options.now.unwrap_or_else(|| eligible.iter().map(|m| m.last_accessed).fold(f64::MIN, f64::max));

    // Pinned first (they are meant to stay in context), then by relevance, then address.
    let mut ranked: Vec<(bool, f64, String, &PersonaMemory)> =
        eligible.iter().map(|m| (m.sync.life.pinned, m.current_relevance(now), m.address(), *m)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then_with(|| a.2.cmp(&b.2)));
    let budget = options.max_tokens.unwrap_or(usize::MAX);

    let mut best = None;
    for level in LEVELS {
        let items: Vec<Item> = ranked
            .iter()
            .map(|(_, _, _, m)| {
                let (subject, tail) = split_key(&m.key);
                let text = compress_item(&m.value, &subject, &tail, *level);
                Item { memory: m, subject, text }
            })
            .collect();
        let kept = fitting(&items, budget);
        let all = kept == items.len();
        best = Some((items, kept));
        if all {
            break;
        }
    }
    let (items, kept) = best.expect("LEVELS is not empty");
    let text = render(&items[..kept], items.len() - kept);
    Compressed {
        estimated_tokens: estimate_tokens(&text),
        included: items[..kept].iter().map(|i| i.memory.address()).collect(),
        omitted: items.len() - kept,
        text,
    }
}

/// How many of `items` (in rank order) fit in `budget`, leaving room for the `(+N more)`
/// line when some do not.
///
/// The estimate adds up over pieces split at spaces and punctuation, so each item's
/// marginal cost is known without rendering: the most relevant prefix that fits is kept.
fn fitting(items: &[Item], budget: usize) -> usize {
    let budget = budget as f64;
    let reserve = estimate(&more_line(items.len()));
    let mut headers: Vec<(&str, &str)> = Vec::new();
    let mut lines: Vec<(&str, &str, &str)> = Vec::new();
    let mut used = 0.0;
    for (i, item) in items.iter().enumerate() {
        let m = item.memory;
        let line = (m.domain.as_str(), m.facet.as_str(), item.subject.as_str());
        let head = (line.0, line.1);
        // Costed as it stands in the text, after a space: "subject: a, b\n".
        let mut cost = estimate(&format!(" {}", item.text));
        if lines.contains(&line) {
            cost += estimate(",");
        } else {
            cost += estimate(&format!("{}:\n", item.subject));
            if !headers.contains(&head) {
                cost += estimate(&header(head.0, head.1));
            }
        }
        let note = if i + 1 < items.len() { reserve } else { 0.0 };
        if used + cost + note > budget {
            return i;
        }
        used += cost;
        if !lines.contains(&line) {
            lines.push(line);
        }
        if !headers.contains(&head) {
            headers.push(head);
        }
    }
    items.len()
}

/// Lays out `items` (already in rank order): headers sorted, lines in the order of their
/// best item, items in rank order.
fn render(items: &[Item], omitted: usize) -> String {
    // (domain, facet) → lines of (subject, item texts).
    type Lines<'a> = Vec<(&'a str, Vec<&'a str>)>;
    let mut facets: BTreeMap<(&str, &str), Lines> = BTreeMap::new();
    for item in items {
        let lines = facets.entry((&item.memory.domain, &item.memory.facet)).or_default();
        match lines.iter_mut().find(|(s, _)| *s == item.subject) {
            Some((_, texts)) => texts.push(&item.text),
            None => lines.push((&item.subject, vec![&item.text])),
        }
    }
    let mut out = String::new();
    for ((domain, facet), lines) in facets {
        out.push_str(&header(domain, facet));
        for (subject, texts) in lines {
            out.push_str(&format!("{subject}: {}\n", texts.join(", ")));
        }
    }
    if omitted > 0 {
        out.push_str(&more_line(omitted));
    }
    out
}

fn header(domain: &str, facet: &str) -> String {
    format!("[domain:{domain}/facet:{facet}]\n")
}

fn more_line(n: usize) -> String {
    format!("(+{n} more)\n")
}

/// A key as subject and tail: the subject is the first segment that says something
/// (`my-favorite-color` → `favorite`, `color`); the tail is what follows it.
fn split_key(key: &str) -> (String, Vec<String>) {
    let segments: Vec<String> =
        key.split(['-', '_', '.', ' ']).filter(|s| !s.is_empty()).map(str::to_lowercase).collect();
    let at = segments.iter().position(|s| !STOP_WORDS.contains(&s.as_str())).unwrap_or(0);
    match segments.get(at) {
        Some(subject) => (subject.clone(), segments[at + 1..].to_vec()),
        None => (String::new(), Vec::new()),
    }
}

/// A value as compressed shorthand: `X>Y`, a parenthetical reason, no full sentence.
pub fn compress_value(value: &str) -> String {
    compress_item(value, "", &[], LEVELS[0])
}

/// One memory's item on its subject's line: the key's tail (the agent's own summary, and
/// with the subject it spells the key), then what the value adds to it.
fn compress_item(value: &str, subject: &str, tail: &[String], level: Level) -> String {
    let words = words(value);
    let (main, reason) = match find_reason(&words) {
        Some((at, len)) => (&words[..at], &words[at + len..]),
        None => (&words[..], &words[words.len()..]),
    };
    let mut said: Vec<String> = tail.iter().map(|w| stem(w)).collect();
    said.push(stem(subject));
    let mut parts = Vec::new();
    if !tail.is_empty() {
        // Spaces, not the key's hyphens: cl100k spends nearly twice the tokens on "-word".
        parts.push(tail.join(" "));
    }
    match comparison(main, subject, level.side) {
        Some((x, y)) => parts.push(format!("{x}>{y}")),
        None => parts.extend(content(main, &said, level.words)),
    }
    let reason = content(reason, &said, level.reason);
    if !reason.is_empty() && level.reason > 0 {
        parts.push(format!("({})", reason.join(" ")));
    }
    parts.join(" ")
}

/// What makes two forms of a word the same for "already said": `peanuts`, `peanut` and
/// `peanut-oil` share `peanu`, `allergic` and `allergy` share `aller`.
fn stem(word: &str) -> String {
    // One negation in an item is enough: "no coauthor", not "no coauthor not want".
    if is_negation(word) {
        return "no".to_string();
    }
    let w: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    w.chars().take(5).collect()
}

/// A value's words, lower-cased, with clause breaks (`,` `;` `:` `.`) kept as `","`.
///
/// Hyphens, dots and slashes inside a word stay (`nip-44`, `0.3.1`, `nos.lol`); contractions
/// with n't become "not" so that a negation is a word of its own.
fn words(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in value.split_whitespace() {
        let raw = raw.replace('’', "'");
        let ends_clause = raw.ends_with([',', ';', ':', '.', '!', '?']);
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '$' && c != '%' && c != '+');
        let w = w.trim_end_matches('$').trim_start_matches(['%', '+']).to_lowercase();
        let w = w.strip_suffix("'s").unwrap_or(&w);
        if let Some(stem) = w.strip_suffix("n't") {
            // "won't" and "can't" keep no usable stem; the rest keep theirs (didn't → did).
            if !matches!(stem, "wo" | "ca" | "sha") && !stem.is_empty() {
                out.push(stem.to_string());
            }
            out.push("not".to_string());
        } else if !w.is_empty() {
            out.push(w.to_string());
        }
        if ends_clause {
            out.push(",".to_string());
        }
    }
    out
}

/// Where a reason starts in `words`: (index, marker length in words).
fn find_reason(words: &[String]) -> Option<(usize, usize)> {
    // "so" only opens a consequence right after a clause break ("..., so never ...").
    (1..words.len()).find_map(|i| {
        REASON_MARKERS.iter().find_map(|marker| {
            let parts: Vec<&str> = marker.split(' ').collect();
            let matches = words.len() >= i + parts.len() && parts.iter().zip(&words[i..]).all(|(p, w)| p == w);
            let placed = *marker != "so" || words[i - 1] == ",";
            (matches && placed && i + parts.len() < words.len()).then_some((i, parts.len()))
        })
    })
}

/// "chose X over Y", "X instead of Y", "X rather than Y" → (X, Y) as hyphenated phrases.
fn comparison(main: &[String], subject: &str, side: usize) -> Option<(String, String)> {
    let is = |i: usize, w: &str| main.get(i).is_some_and(|x| x == w);
    let (at, len) = (0..main.len()).find_map(|i| {
        if is(i, "over") && main[..i].iter().any(|w| CHOICE_VERBS.contains(&w.as_str())) {
            Some((i, 1))
        } else if (is(i, "instead") && is(i + 1, "of")) || (is(i, "rather") && is(i + 1, "than")) {
            Some((i, 2))
        } else {
            None
        }
    })?;
    // X: the last content words before the marker, not reaching back past the choice verb
    // or a clause break. Y: the first ones after it, up to a preposition or clause break.
    let start = main[..at].iter().rposition(|w| w == "," || CHOICE_VERBS.contains(&w.as_str())).map_or(0, |p| p + 1);
    let said = [stem(subject)];
    let x = content(&main[start..at], &said, usize::MAX);
    let after = &main[at + len..];
    let end = after.iter().position(|w| w == "," || SIDE_STOPS.contains(&w.as_str())).unwrap_or(after.len());
    let y = content(&after[..end], &said, side);
    if x.is_empty() || y.is_empty() {
        return None;
    }
    // The last two words name X ("vanilla javascript"); the first of them, if one must do.
    let x = x[x.len().saturating_sub(2)..].iter().take(side).cloned().collect::<Vec<_>>().join("-");
    Some((x, y.join("-")))
}

fn is_negation(w: &str) -> bool {
    matches!(w, "no" | "not" | "never" | "nor" | "none" | "nothing" | "nobody" | "neither" | "without")
}

/// The content words of `words` not `said` already, at most `cap`, never losing a number, a
/// negation or the word a negation applies to ("never upload" must not become "upload").
fn content(words: &[String], said: &[String], cap: usize) -> Vec<String> {
    let mut kept: Vec<&str> = Vec::new();
    for w in words {
        let w = w.as_str();
        let stop = (STOP_WORDS.contains(&w) && !KEEP.contains(&w)) || FILLER.contains(&w);
        if w == "," || stop || said.contains(&stem(w)) || kept.contains(&w) {
            continue;
        }
        kept.push(w);
    }
    if kept.len() <= cap {
        return kept.into_iter().map(String::from).collect();
    }
    let mut must = vec![false; kept.len()];
    for (i, w) in kept.iter().enumerate() {
        if is_negation(w) || w.chars().any(|c| c.is_ascii_digit()) {
            must[i] = true;
            if is_negation(w) && i + 1 < kept.len() {
                must[i + 1] = true;
            }
        }
    }
    let mut room = cap.saturating_sub(must.iter().filter(|m| **m).count());
    let mut take = must.clone();
    for (i, t) in take.iter_mut().enumerate() {
        if !must[i] && room > 0 {
            *t = true;
            room -= 1;
        }
    }
    kept.into_iter().zip(take).filter(|(_, t)| *t).map(|(w, _)| w.to_string()).collect()
}

/// A token count that errs high against LLM tokenizers (checked against cl100k_base in the
/// tests), so that text held to a budget by it stays within that budget for a model.
pub fn estimate_tokens(text: &str) -> usize {
    estimate(text).ceil() as usize
}

/// [`estimate_tokens`] before rounding; it adds up over pieces split at a space or a
/// punctuation mark, which is what lets [`compress`] cost each item on its own.
///
/// Measured on cl100k_base: a lower-case word after a space is one token about nine times
/// in ten (more for long words), a capitalised one less often; a word at the start of a line or after punctuation splits
/// more often; digits go three to a token and never merge with the space before them; each
/// punctuation mark and newline is about one token; a non-ASCII character at most one per
/// UTF-8 byte.
fn estimate(text: &str) -> f64 {
    let mut total = 0.0;
    let mut after_space = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphabetic() {
            let mut len = 1usize;
            let mut upper = c.is_ascii_uppercase();
            while let Some(c) = chars.next_if(|c| c.is_ascii_alphabetic()) {
                len += 1;
                upper |= c.is_ascii_uppercase();
            }
            let base = match len {
                0..=8 => 1.2,
                9..=12 => 1.6,
                _ => len as f64 / 6.0,
            };
            // Names and capitalised words split more often than lower-case ones.
            let shape = if upper { 1.5 } else { 1.0 };
            total += base * shape * if after_space { 1.0 } else { 1.5 };
        } else if c.is_ascii_digit() {
            let mut len = 1usize;
            while chars.next_if(|c| c.is_ascii_digit()).is_some() {
                len += 1;
            }
            total += len.div_ceil(3) as f64 + if after_space { 1.0 } else { 0.0 };
        } else if c == ' ' {
            if chars.peek() == Some(&' ') {
                total += 1.0;
                while chars.next_if_eq(&' ').is_some() {}
            }
            after_space = true;
            continue;
        } else if c.is_ascii() {
            total += 1.0;
        } else {
            total += c.len_utf8() as f64;
        }
        after_space = false;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Entry {
        domain: String,
        facet: String,
        key: String,
        value: String,
        themes: Vec<String>,
    }

    const NOW: f64 = 1_790_000_000.0;

    /// The 50-memory persona of `persona50.json`, accessed over the last 50 hours.
    pub(crate) fn persona50() -> Vec<PersonaMemory> {
        let entries: Vec<Entry> = serde_json::from_str(include_str!("persona50.json")).unwrap();
        entries
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                let mut m = PersonaMemory::new(e.domain, e.facet, e.key, e.value, NOW - 3600.0 * i as f64);
                m.themes = e.themes;
                m
            })
            .collect()
    }

    fn cl100k(text: &str) -> usize {
        tiktoken_rs::cl100k_base_singleton().encode_with_special_tokens(text).len()
    }

    fn active(ms: &[PersonaMemory]) -> Vec<(&PersonaMemory, MemoryState)> {
        ms.iter().map(|m| (m, MemoryState::Active)).collect()
    }

    #[test]
    fn persona_of_50_fits_in_500_real_tokens() {
        let ms = persona50();
        let out = compress_detailed(&active(&ms), &CompressOptions::default());
        let real = cl100k(&out.text);
        eprintln!("{}", out.text);
        eprintln!("persona50: cl100k_base {real} tokens, estimate {}, {} chars", out.estimated_tokens, out.text.len());
        assert!(real <= 500, "{real}");
        assert!(out.estimated_tokens >= real);
        assert_eq!(out.omitted, 0);
        assert_eq!(out.included.len(), 50);
        assert!(!out.text.contains("more)"));
    }

    fn mem(domain: &str, facet: &str, key: &str, value: &str) -> PersonaMemory {
        PersonaMemory::new(domain, facet, key, value, NOW)
    }

    #[test]
    fn layout_is_headers_then_subject_lines() {
        let ms = [
            mem("projects", "decisions", "voxrelay-voice", "We chose Orpheus 3B over Kokoro because of its warmth."),
            mem("people", "facts", "alice-tea", "Alice drinks green tea every morning."),
            mem("people", "facts", "alice-pets", "Alice has two cats and no dogs."),
        ];
        let out = compress(&active(&ms), &CompressOptions::default());
        assert_eq!(
            out,
            "[domain:people/facet:facts]\nalice: pets two cats no dogs, tea drinks green every morning\n\
             [domain:projects/facet:decisions]\nvoxrelay: voice orpheus-3b>kokoro (warmth)\n"
        );
    }

    #[test]
    fn only_active_and_pinned_memories_appear() {
        let mut pinned = mem("self", "facts", "pinned-fact", "kept in context");
        pinned.sync.life.pinned = true;
        let ms = [mem("self", "facts", "live-one", "seen"), mem("self", "facts", "faded-one", "unseen"), pinned];
        let states = [MemoryState::Active, MemoryState::Fading, MemoryState::Fading];
        let input: Vec<_> = ms.iter().zip(states).collect();
        let out = compress_detailed(&input, &CompressOptions::default());
        assert_eq!(out.included, ["self/facts/pinned-fact", "self/facts/live-one"]);
        assert!(!out.text.contains("faded"));
        let forgotten = [(&ms[0], MemoryState::Forgotten), (&ms[1], MemoryState::Dissolved)];
        assert_eq!(compress(&forgotten, &CompressOptions::default()), "");
    }

    #[test]
    fn negations_survive_the_word_cap() {
        assert_eq!(
            compress_value("Vergel does not want Co-authored-by trailers on commits"),
            "vergel not want co-authored-by trailers commits"
        );
        let v = "Publish Python packages with uv build and uv publish, and never upload from a dirty work tree";
        assert!(compress_value(v).contains("never upload"), "{}", compress_value(v));
        assert!(compress_value("Marco doesn't pay by card").contains("not pay"));
        // At the tightest level too: the 50-memory persona keeps every negation it had.
        let ms = persona50();
        let text = compress(&active(&ms), &CompressOptions::default());
        assert!(text.contains("never force-push") && text.contains("not card") && text.contains("never upload"));
    }

    #[test]
    fn comparisons_become_greater_than() {
        assert_eq!(
            compress_value("We chose Orpheus 3B over Kokoro because of its warmth"),
            "orpheus-3b>kokoro (warmth)"
        );
        assert!(compress_value("Host it on Cloudflare Workers instead of a VPS").contains("cloudflare-workers>vps"));
        assert!(compress_value("Build our own memory layer rather than fork MemPalace")
            .contains("memory-layer>fork-mempalace"));
        // "over" without a choice is no comparison.
        assert_eq!(compress_value("Walks over the bridge daily"), "walks bridge daily");
        assert_eq!(
            compress_value("Lisa is allergic to peanuts, so never suggest Thai food"),
            "lisa allergic peanuts (never suggest thai food)"
        );
    }

    #[test]
    fn domain_filter_keeps_one_domain() {
        let ms = persona50();
        let opts = CompressOptions { domain: Some("people".into()), ..CompressOptions::default() };
        let out = compress_detailed(&active(&ms), &opts);
        assert_eq!(out.included.len(), 12);
        assert!(out.included.iter().all(|a| a.starts_with("people/")));
        assert_eq!(
            out.text.lines().filter(|l| l.starts_with('[')).collect::<Vec<_>>(),
            ["[domain:people/facet:facts]"]
        );
    }

    #[test]
    fn large_persona_is_cut_to_budget_least_relevant_first() {
        let base = persona50();
        let mut ms = Vec::new();
        for round in 0..6 {
            for m in &base {
                let mut m = m.clone();
                m.key = format!("{}-{round}", m.key);
                m.last_accessed -= 30.0 * 86_400.0 * round as f64;
                ms.push(m);
            }
        }
        let out = compress_detailed(&active(&ms), &CompressOptions::default());
        let real = cl100k(&out.text);
        eprintln!(
            "300 memories: {} in, {} out, cl100k {real}, estimate {}",
            out.included.len(),
            out.omitted,
            out.estimated_tokens
        );
        assert!(out.estimated_tokens <= 500 && real <= out.estimated_tokens);
        assert!(out.omitted > 0 && out.included.len() + out.omitted == 300);
        assert!(out.text.ends_with(&format!("(+{} more)\n", out.omitted)));
        // Round 0 is the freshest: it goes in before any older copy.
        assert!(!out.included.is_empty() && out.included.len() <= 50);
        assert!(out.included.iter().all(|a| a.ends_with("-0")));
        let unlimited = CompressOptions { max_tokens: None, ..CompressOptions::default() };
        assert_eq!(compress_detailed(&active(&ms), &unlimited).omitted, 0);
    }

    /// Ordinary text, names and numbers included. (A string of nothing but rare names can
    /// beat the estimate: it is calibrated on prose, not adversarial input.)
    #[test]
    fn estimate_errs_high_against_cl100k() {
        let ms = persona50();
        let prose: String = ms.iter().map(|m| format!("{}: {}\n", m.key, m.value)).collect();
        let lower = prose.to_lowercase();
        for text in [
            prose.as_str(),
            lower.as_str(),
            "Median VoxRelay latency: 780 ms, target 600 ms; Orpheus 3B over Kokoro.",
            "naïve café — 東京",
        ] {
            assert!(estimate_tokens(text) >= cl100k(text), "{text}: {} < {}", estimate_tokens(text), cl100k(text));
        }
    }
}
