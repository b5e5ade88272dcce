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

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{MemoryState, PersonaMemory};
use crate::text::STOP_WORDS;

/// The budget when [`CompressOptions::max_tokens`] is left at its default (seed 003's target).
pub const DEFAULT_MAX_TOKENS: usize = 500;

/// How much of each value survives: the richest level at which every memory fits the budget
/// is used, so a small persona reads fuller and a large one loses detail before it loses
/// memories, down to the last level, the floor. Below the floor the least relevant memories
/// are left out whole: a value is never cut to its key alone, which would show `priya:
/// allergy` and not the allergy.
///
/// At every level, the floor included, the words that answer "what" and that a reader could
/// not guess are kept whatever the cap: numbers, names (capitalised words, shown as written)
/// and negations with the word negated, in a reason too. The cap then fills with the value's
/// rarest words in the persona, the verb after the subject last, so that `priya: allergy` is
/// followed by `peanuts`.
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
    Level { words: 1, reason: 0, side: 1 },
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
#[non_exhaustive]
pub struct Compressed {
    /// The compressed persona.
    pub text: String,
    /// Addresses (`domain/facet/key`) of the memories the text includes, most relevant first.
    pub included: Vec<String>,
    /// How many eligible memories the budget left out (the text's `(+N more)`).
    pub omitted: usize,
    /// How many otherwise eligible memories were left out because a newer one replaces them
    /// (`superseded_by` set, or contradicted by a newer memory); never counted in `omitted`.
    pub replaced: usize,
    /// [`estimate_tokens`] of `text`.
    pub estimated_tokens: usize,
}

/// The active part of a persona in seed 003's compressed format.
///
/// Only memories whose state is [`MemoryState::Active`] (or that are pinned) appear, and none
/// that a newer memory replaces; the caller passes the state, since it owns the decay
/// policy. Give every memory of the persona, not only the domain wanted: a memory in another
/// domain can be the one that replaces a memory of this one.
pub fn compress(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> String {
    compress_detailed(memories, options).text
}

/// One memory on its way into the text.
struct Item<'a> {
    memory: &'a PersonaMemory,
    subject: String,
    text: String,
}

/// Whether a memory is live enough to be shown: active, or pinned whatever its state.
///
/// This is the one place that decides on a memory by itself (an archived memory is refused
/// here too, by one more condition on `m.sync.life`); [`entering`] adds the checks that need
/// the other memories (superseded, contradicted by a newer one).
fn is_live(m: &PersonaMemory, state: MemoryState) -> bool {
    // An archived memory is out of context until restored, pinned or not.
    m.sync.life.archived_at.is_none() && (state == MemoryState::Active || m.sync.life.pinned)
}

/// The memories that may enter the text, in input order, and how many of those in the
/// domain wanted were left out because a newer memory replaces them.
///
/// A memory enters when it is live ([`is_live`]), is in the domain asked for, has no
/// `superseded_by`, and no other live memory contradicts it as the newer of the two. Only
/// live memories contradict: a faded correction does not hide the belief still in use.
fn entering<'a>(
    memories: &[(&'a PersonaMemory, MemoryState)],
    options: &CompressOptions,
) -> (Vec<&'a PersonaMemory>, usize) {
    let live: Vec<&PersonaMemory> = memories.iter().filter(|(m, state)| is_live(m, *state)).map(|(m, _)| *m).collect();
    let in_domain = |m: &PersonaMemory| options.domain.as_deref().is_none_or(|d| m.domain == d);
    let superseded = live.iter().filter(|m| m.is_superseded() && in_domain(m)).count();
    let current: Vec<&PersonaMemory> = live.into_iter().filter(|m| !m.is_superseded()).collect();
    let stale = contradicted_by_newer(&current);
    let mut contradicted = 0;
    let mut out = Vec::new();
    for (i, m) in current.into_iter().enumerate() {
        if !in_domain(m) {
            continue;
        }
        if stale.contains(&i) {
            contradicted += 1;
        } else {
            out.push(m);
        }
    }
    (out, superseded + contradicted)
}

/// Indices of the memories in `current` that another one contradicts and is newer than.
///
/// A contradiction is recorded on either side (`contradicts` names a key, or a
/// `domain/facet/key` address); of the two memories the one whose value was set later
/// stands. On a tie the one that names the other stands, as a correction names what it
/// corrects.
fn contradicted_by_newer(current: &[&PersonaMemory]) -> BTreeSet<usize> {
    let set_at = |m: &PersonaMemory| m.created_at.max(m.sync.written);
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, m) in current.iter().enumerate() {
        by_name.entry(m.key.clone()).or_default().push(i);
        by_name.entry(m.address()).or_default().push(i);
    }
    let mut stale = BTreeSet::new();
    for (i, m) in current.iter().enumerate() {
        for name in &m.contradicts {
            for &j in by_name.get(name).into_iter().flatten() {
                if j == i {
                    continue;
                }
                stale.insert(if set_at(m) >= set_at(current[j]) { j } else { i });
            }
        }
    }
    stale
}

/// How often each content word occurs across the values to compress (once per memory):
/// what tells a distinctive word (`peanuts`) from a common one (`allergic`); and the
/// subjects of their keys, which are names even where a sentence starts with them.
#[derive(Debug, Default)]
struct Lexicon {
    df: HashMap<String, usize>,
    subjects: BTreeSet<String>,
    memories: usize,
}

impl Lexicon {
    fn new(memories: &[&PersonaMemory]) -> Self {
        let mut df: HashMap<String, usize> = HashMap::new();
        for m in memories {
            let seen: BTreeSet<String> = words(&m.value).into_iter().filter(|w| w != ",").collect();
            for w in seen {
                *df.entry(w).or_default() += 1;
            }
        }
        let subjects = memories.iter().map(|m| split_key(&m.key).0).collect();
        Lexicon { df, subjects, memories: memories.len() }
    }

    fn frequency(&self, word: &str) -> usize {
        self.df.get(word).copied().unwrap_or(0)
    }

    /// In a tenth of the values or more (and more than two).
    fn is_common(&self, word: &str) -> bool {
        let f = self.frequency(word);
        f > 2 && f * 10 >= self.memories
    }
}

/// [`compress`], also telling which memories made it in.
pub fn compress_detailed(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> Compressed {
    let (eligible, replaced) = entering(memories, options);
    let now = options.now.unwrap_or_else(|| eligible.iter().map(|m| m.last_accessed).fold(f64::MIN, f64::max));
    let lexicon = Lexicon::new(&eligible);

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
                let text = compress_item(&m.value, &subject, &tail, *level, &lexicon);
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
        replaced,
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
    compress_item(value, "", &[], LEVELS[0], &Lexicon::default())
}

/// One memory's item on its subject's line: the key's tail (the agent's own summary, and
/// with the subject it spells the key), then what the value adds to it.
fn compress_item(value: &str, subject: &str, tail: &[String], level: Level, lexicon: &Lexicon) -> String {
    let (words, mut names, initials) = words_and_names(value);
    for (lower, written) in initials {
        if lexicon.subjects.contains(&lower) {
            names.entry(lower).or_insert(written);
        }
    }
    let rank = Rank { names: &names, lexicon, subject: stem(subject) };
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
    match comparison(main, subject, &said, level.side, &rank) {
        Some((Some(x), y)) => parts.push(format!("{x}>{y}")),
        // The key's tail ends by naming X: `prefers vanilla js>frameworks`.
        Some((None, y)) => match parts.last_mut() {
            Some(tail) => tail.push_str(&format!(">{y}")),
            None => parts.push(y),
        },
        None => parts.extend(content(main, &said, level.words, &rank)),
    }
    // With no room for a reason, its numbers and negations still stand ("(never offer)").
    let reason = content(reason, &said, level.reason, &rank);
    if !reason.is_empty() {
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
    words_and_names(value).0
}

/// A value's words as a map from lower case to the case written.
type Written = BTreeMap<String, String>;

/// [`words`]; those of them written as names: capitalised other than at the start of a
/// sentence (`Lisbon`, `Priya`), or with a capital inside (`VoxRelay`, `SQLite`, `AI`); and
/// the capitalised words that start a sentence, which may be names too (`Priya leads ...`).
fn words_and_names(value: &str) -> (Vec<String>, Written, Written) {
    let mut out = Vec::new();
    let mut names = BTreeMap::new();
    let mut initials = BTreeMap::new();
    let mut sentence_start = true;
    for raw in value.split_whitespace() {
        let raw = raw.replace('’', "'");
        let ends_clause = raw.ends_with([',', ';', ':', '.', '!', '?']);
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '$' && c != '%' && c != '+');
        let w = w.trim_end_matches('$').trim_start_matches(['%', '+']);
        let capital_inside = w.chars().skip(1).any(|c| c.is_uppercase());
        let capitalised = w.chars().next().is_some_and(char::is_uppercase);
        let name = capital_inside || (capitalised && !sentence_start);
        let initial = capitalised && sentence_start;
        sentence_start = raw.ends_with(['.', '!', '?']);
        let written = w.strip_suffix("'s").unwrap_or(w);
        let w = w.to_lowercase();
        let w = w.strip_suffix("'s").unwrap_or(&w);
        if let Some(stem) = w.strip_suffix("n't") {
            // "won't" and "can't" keep no usable stem; the rest keep theirs (didn't → did).
            if !matches!(stem, "wo" | "ca" | "sha") && !stem.is_empty() {
                out.push(stem.to_string());
            }
            out.push("not".to_string());
        } else if !w.is_empty() {
            if !STOP_WORDS.contains(&w) && written.to_lowercase() == w {
                if name {
                    names.entry(w.to_string()).or_insert_with(|| written.to_string());
                } else if initial {
                    initials.entry(w.to_string()).or_insert_with(|| written.to_string());
                }
            }
            out.push(w.to_string());
        }
        if ends_clause {
            out.push(",".to_string());
        }
    }
    (out, names, initials)
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

/// "chose X over Y", "X instead of Y", "X rather than Y" → (X, Y) as hyphenated phrases; X is
/// `None` when the key (`said`) already names every word of it.
fn comparison(
    main: &[String],
    subject: &str,
    said: &[String],
    side: usize,
    rank: &Rank,
) -> Option<(Option<String>, String)> {
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
    let by_subject = [stem(subject)];
    let x = content(&main[start..at], &by_subject, usize::MAX, rank);
    let after = &main[at + len..];
    let end = after.iter().position(|w| w == "," || SIDE_STOPS.contains(&w.as_str())).unwrap_or(after.len());
    let y = content(&after[..end], &by_subject, side, rank);
    if x.is_empty() || y.is_empty() {
        return None;
    }
    // The last two words name X ("vanilla javascript"); the first of them, if one must do.
    let x: Vec<&String> = x[x.len().saturating_sub(2)..].iter().take(side).collect();
    let x = (!x.iter().all(|w| said.contains(&stem(w))))
        .then(|| x.iter().map(|w| w.as_str()).collect::<Vec<_>>().join("-"));
    Some((x, y.join("-")))
}

fn is_negation(w: &str) -> bool {
    matches!(w, "no" | "not" | "never" | "nor" | "none" | "nothing" | "nobody" | "neither" | "without")
}

/// What decides which words a cap keeps: the value's names, how common each word is, and
/// the subject (the word after it is taken for a verb).
struct Rank<'a> {
    /// Lower-cased → as written; a name is shown as written, which an LLM reads better and
    /// which costs fewer tokens (" Lisbon" is one, " lisbon" two).
    names: &'a BTreeMap<String, String>,
    lexicon: &'a Lexicon,
    subject: String,
}

impl Rank<'_> {
    fn show(&self, word: &str) -> String {
        self.names.get(word).cloned().unwrap_or_else(|| word.to_string())
    }
}

/// The content words of `words` not `said` already, in their order, at most `cap` of them
/// unless more must stay: a number, a name, a negation and the word it applies to ("never
/// upload" must not become "upload") are never dropped. The rest of the room goes to the
/// words rarest in the persona, and last to the verb that follows the subject ("priya is
/// allergic to peanuts": `peanuts` before `allergic`), the earlier on a tie.
fn content(words: &[String], said: &[String], cap: usize, rank: &Rank) -> Vec<String> {
    let mut kept: Vec<&str> = Vec::new();
    // The first word kept, right after the subject, is most often the verb of "subject verb
    // object": the part a reader of the key can guess.
    let mut after_subject = false;
    let mut verb = None;
    for w in words {
        let w = w.as_str();
        let stop = (STOP_WORDS.contains(&w) && !KEEP.contains(&w)) || FILLER.contains(&w);
        if w == "," || stop || kept.contains(&w) {
            continue;
        }
        if said.contains(&stem(w)) {
            after_subject = stem(w) == rank.subject;
            continue;
        }
        if kept.is_empty() && after_subject {
            verb = Some(0);
        }
        after_subject = false;
        kept.push(w);
    }
    if kept.len() <= cap {
        return kept.into_iter().map(|w| rank.show(w)).collect();
    }
    let mut must = vec![false; kept.len()];
    for (i, w) in kept.iter().enumerate() {
        // A name answers "what" in the value's own clause; in a reason cut to nothing it is
        // detail. A name in a tenth of the persona (the user, their company) tells nothing
        // about one memory.
        let name = cap > 0 && rank.names.contains_key(*w) && !rank.lexicon.is_common(w);
        if is_negation(w) || w.chars().any(|c| c.is_ascii_digit()) || name {
            must[i] = true;
            if is_negation(w) && i + 1 < kept.len() {
                must[i + 1] = true;
            }
        }
    }
    let room = cap.saturating_sub(must.iter().filter(|m| **m).count());
    let mut rest: Vec<usize> = (0..kept.len()).filter(|i| !must[*i]).collect();
    rest.sort_by_key(|i| (verb == Some(*i), rank.lexicon.frequency(kept[*i]), *i));
    let mut take = must;
    for i in rest.into_iter().take(room) {
        take[i] = true;
    }
    kept.into_iter().zip(take).filter(|(_, t)| *t).map(|(w, _)| rank.show(w)).collect()
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
///
/// A section header is costed by its own rule ([`header_estimate`]): charged as prose, its
/// punctuation-run words would cost a third more than cl100k spends on them.
fn estimate(text: &str) -> f64 {
    text.split_inclusive('\n').map(|line| header_estimate(line).unwrap_or_else(|| prose_estimate(line))).sum()
}

/// Tokens the fixed part of `[domain:D/facet:F]\n` takes in cl100k_base: `[`, `domain`, `:`,
/// `/f`, `acet`, `:`, `]\n` (a colon sometimes merges with the word after it, which only
/// makes it fewer). Checked in the tests.
const HEADER_FIXED_TOKENS: f64 = 7.0;

/// The cost of a section header line: its fixed tokens, and its two names as words after
/// punctuation. `None` for any other line.
fn header_estimate(line: &str) -> Option<f64> {
    let inner = line.strip_suffix('\n')?.strip_prefix("[domain:")?.strip_suffix(']')?;
    let (domain, facet) = inner.split_once("/facet:")?;
    Some(HEADER_FIXED_TOKENS + prose_estimate(domain) + prose_estimate(facet))
}

/// [`estimate`] for anything but a header.
fn prose_estimate(text: &str) -> f64 {
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
    use std::collections::HashMap;

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

    /// A budget (in estimated tokens) at which all of `persona50` is shown, each memory with
    /// its value (the test prints the smallest).
    const PERSONA50_ALL_IN: usize = 560;

    /// Within 500 real tokens, the 50-memory persona shows all but its least relevant few,
    /// every one with its value; [`PERSONA50_ALL_IN`] shows all 50.
    #[test]
    fn persona_of_50_fits_in_500_real_tokens() {
        let ms = persona50();
        let out = compress_detailed(&active(&ms), &CompressOptions::default());
        let real = cl100k(&out.text);
        eprintln!("{}", out.text);
        eprintln!(
            "persona50 at 500: {} shown, {} omitted; cl100k_base {real} tokens, estimate {}, {} chars",
            out.included.len(),
            out.omitted,
            out.estimated_tokens,
            out.text.len()
        );
        assert!(real <= 500, "{real}");
        assert!(out.estimated_tokens >= real && out.estimated_tokens <= 500);
        assert!(out.included.len() >= 45, "{}", out.included.len());
        assert_eq!(out.included.len() + out.omitted, 50);
        // The fixture is accessed an hour apart in file order: the last ones go.
        let by_recency: Vec<String> = ms.iter().map(PersonaMemory::address).take(out.included.len()).collect();
        let mut included = out.included.clone();
        included.sort();
        let mut expected = by_recency.clone();
        expected.sort();
        assert_eq!(included, expected);

        let all_in = (500..=PERSONA50_ALL_IN)
            .map(|b| {
                (b, compress_detailed(&active(&ms), &CompressOptions { max_tokens: Some(b), ..Default::default() }))
            })
            .find(|(_, out)| out.omitted == 0);
        let (budget, out) = all_in.expect("all 50 fit within PERSONA50_ALL_IN");
        let real = cl100k(&out.text);
        eprintln!("persona50: all 50 from a budget of {budget}: cl100k_base {real}, estimate {}", out.estimated_tokens);
        assert!(real <= out.estimated_tokens && out.estimated_tokens <= budget);
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
             [domain:projects/facet:decisions]\nvoxrelay: voice Orpheus-3B>Kokoro (warmth)\n"
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
            "vergel not want Co-authored-by trailers commits"
        );
        let v = "Publish Python packages with uv build and uv publish, and never upload from a dirty work tree";
        assert!(compress_value(v).contains("never upload"), "{}", compress_value(v));
        assert!(compress_value("Marco doesn't pay by card").contains("not pay"));
        // At the floor too: the 50-memory persona keeps every negation it had.
        let ms = persona50();
        let all_in = CompressOptions { max_tokens: Some(PERSONA50_ALL_IN), ..CompressOptions::default() };
        let text = compress(&active(&ms), &all_in);
        assert!(text.contains("never force-push") && text.contains("not card") && text.contains("never upload"));
        assert!(text.contains("(never suggest)"), "a negation in a reason stays: {text}");
    }

    #[test]
    fn comparisons_become_greater_than() {
        assert_eq!(
            compress_value("We chose Orpheus 3B over Kokoro because of its warmth"),
            "Orpheus-3B>Kokoro (warmth)"
        );
        assert!(compress_value("Host it on Cloudflare Workers instead of a VPS").contains("Cloudflare-Workers>VPS"));
        assert!(compress_value("Build our own memory layer rather than fork MemPalace")
            .contains("memory-layer>fork-MemPalace"));
        // "over" without a choice is no comparison.
        assert_eq!(compress_value("Walks over the bridge daily"), "walks bridge daily");
        assert_eq!(
            compress_value("Lisa is allergic to peanuts, so never suggest Thai food"),
            "lisa allergic peanuts (never suggest Thai food)"
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

    /// The fixed part of a header costs what [`HEADER_FIXED_TOKENS`] says, and every header
    /// of the fixtures is estimated at or above its cl100k count.
    #[test]
    fn header_estimate_errs_high_against_cl100k() {
        let bpe = tiktoken_rs::cl100k_base_singleton();
        let fixed = bpe.encode_with_special_tokens("[domain:/facet:]\n").len();
        assert!(fixed as f64 <= HEADER_FIXED_TOKENS, "{fixed}");
        let mut facets: Vec<(String, String)> = persona50().into_iter().map(|m| (m.domain, m.facet)).collect();
        facets.extend(persona(500, 7).0.into_iter().map(|g| (g.memory.domain, g.memory.facet)));
        facets.sort();
        facets.dedup();
        for (d, f) in facets {
            let h = header(&d, &f);
            assert!(estimate(&h) >= cl100k(&h) as f64, "{h}: {} < {}", estimate(&h), cl100k(&h));
        }
    }

    /// A generated memory and the words of its value that answer "what" (an allergy, a
    /// city, a number, a name): a line that shows the memory must show every one of them.
    pub(crate) struct Generated {
        pub(crate) memory: PersonaMemory,
        pub(crate) answer: Vec<String>,
    }

    /// A deterministic persona of `n` memories: people (allergies, cities, drinks, birthdays,
    /// children, employers, phone numbers, a caffeine rule), projects (budgets, deadlines,
    /// databases, leads), each value with a specific answer. About one in twelve has an old
    /// value still in the persona, replaced by `superseded_by` or by the newer memory's
    /// `contradicts`. Returns the current memories and the replaced ones (whose answers must
    /// never be shown); `seed` shuffles which memories exist and their last access.
    pub(crate) fn persona(n: usize, seed: u64) -> (Vec<Generated>, Vec<Generated>) {
        const PEOPLE: &[&str] = &[
            "Priya", "Tomas", "Ana", "Kenji", "Lucia", "Omar", "Greta", "Ravi", "Sofia", "Malik", "Elena", "Hugo",
            "Ines", "Jonas", "Mei", "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wes",
            "Ximena", "Yusuf", "Zara", "Bruno", "Chloe", "Dario", "Emeka", "Farah", "Gus", "Hana", "Ivan", "Jade",
            "Kofi", "Lena", "Milo", "Nadia", "Oscar", "Petra", "Rahul", "Selin", "Theo", "Uma", "Viktor",
        ];
        const ALLERGENS: &[&str] = &["peanuts", "shellfish", "gluten", "penicillin", "latex", "sesame", "pollen"];
        const CITIES: &[&str] = &[
            "Lisbon", "Porto", "Osaka", "Nairobi", "Quito", "Tallinn", "Leeds", "Hobart", "Tucson", "Bergen", "Cusco",
            "Dakar", "Gdansk", "Kyoto",
        ];
        const DRINKS: &[&str] = &["matcha", "espresso", "rooibos", "kombucha", "chai", "cortado"];
        const MONTHS: &[&str] = &["January", "March", "May", "July", "September", "November"];
        const COMPANIES: &[&str] = &["Stripe", "Shopify", "Figma", "Canva", "Atlassian", "Spotify", "Zalando"];
        const PROJECTS: &[&str] = &[
            "VoxRelay",
            "NostrKeep",
            "Tidewatch",
            "Ledgerly",
            "Pinecart",
            "Moonbase",
            "Quillpad",
            "Hearthcal",
            "Driftmap",
            "Saltbox",
            "Emberlog",
            "Glassjar",
            "Harborpay",
            "Inkwell",
            "Junipero",
            "Kettlebot",
            "Lumenfeed",
            "MapleID",
            "Nimbusly",
            "Orbitnote",
            "Pebblesync",
            "Quarry",
            "Ridgeline",
            "Sparrow",
            "Thimble",
            "Umbra",
            "Vantage",
            "Willow",
            "Yarrow",
            "Zephyr",
        ];
        const DATABASES: &[&str] = &["postgres", "sqlite", "redis", "cassandra", "duckdb", "clickhouse"];
        // Replaced values: words no current value uses, so a shown one is a leak.
        const OLD_CITIES: &[&str] = &["Berlin", "Madrid", "Boston", "Denver", "Vienna", "Prague", "Oslo", "Dublin"];
        const OLD_DRINKS: &[&str] = &["decaf", "lemonade", "horchata", "ovaltine"];

        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let pick = |r: usize, list: &[&'static str]| list[r % list.len()];
        let number = |k: usize| -> &'static str { Box::leak(k.to_string().into_boxed_str()) };
        // (domain, facet, key, value, answer, replaceable old value and answer)
        type Spec = (&'static str, &'static str, String, String, Vec<&'static str>, Option<(String, &'static str)>);
        let mut specs: Vec<Spec> = Vec::new();
        for person in PEOPLE {
            let p = person.to_lowercase();
            let a = pick(next(), ALLERGENS);
            let c = pick(next(), CITIES);
            let d = pick(next(), DRINKS);
            let old_c = pick(next(), OLD_CITIES);
            let old_d = pick(next(), OLD_DRINKS);
            let (month, day, kids, phone) =
                (pick(next(), MONTHS), 1 + next() % 28, 1 + next() % 4, 1000 + next() % 9000);
            let e = pick(next(), COMPANIES);
            let f = |key: &str| format!("{p}-{key}");
            specs.extend([
                ("people", "facts", f("allergy"), format!("{person} is allergic to {a}."), vec![a], None),
                (
                    "people",
                    "facts",
                    f("city"),
                    format!("{person} lives in {c} with two flatmates."),
                    vec![c],
                    Some((format!("{person} lives in {old_c} near the river."), old_c)),
                ),
                (
                    "people",
                    "facts",
                    f("drink"),
                    format!("{person} drinks {d} every morning before work."),
                    vec![d],
                    Some((format!("{person} drinks {old_d} every morning before work."), old_d)),
                ),
                (
                    "people",
                    "facts",
                    f("birthday"),
                    format!("{person}'s birthday is on {month} {day}; they like a quiet dinner."),
                    vec![month, number(day)],
                    None,
                ),
                (
                    "people",
                    "facts",
                    f("children"),
                    format!("{person} has {kids} children at the local school."),
                    vec![number(kids)],
                    None,
                ),
                (
                    "people",
                    "facts",
                    f("employer"),
                    format!("{person} works at {e} on the payments team."),
                    vec![e],
                    None,
                ),
                (
                    "people",
                    "facts",
                    f("phone"),
                    format!("{person}'s phone number ends in {phone}."),
                    vec![number(phone)],
                    None,
                ),
                (
                    "people",
                    "preferences",
                    f("caffeine"),
                    format!("{person} is avoiding caffeine, so never offer {d} after noon."),
                    vec!["never"],
                    None,
                ),
            ]);
        }
        for proj in PROJECTS {
            let j = proj.to_lowercase();
            let budget = 1000 * (5 + next() % 90);
            let db = pick(next(), DATABASES);
            let month = pick(next(), MONTHS);
            let lead = pick(next(), PEOPLE);
            specs.extend([
                (
                    "projects",
                    "facts",
                    format!("{j}-budget"),
                    format!("The {proj} budget for this year is {budget} dollars, approved by finance."),
                    vec![number(budget)],
                    None,
                ),
                (
                    "projects",
                    "decisions",
                    format!("{j}-database"),
                    format!("{proj} stores its data in {db} for the reporting service."),
                    vec![db],
                    None,
                ),
                (
                    "projects",
                    "facts",
                    format!("{j}-deadline"),
                    format!("{proj} must ship in {month}."),
                    vec![month],
                    None,
                ),
                (
                    "projects",
                    "facts",
                    format!("{j}-lead"),
                    format!("{lead} leads the {proj} project."),
                    vec![lead],
                    None,
                ),
            ]);
        }
        // A seeded shuffle decides which memories exist.
        for i in (1..specs.len()).rev() {
            specs.swap(i, next() % (i + 1));
        }
        let gen = |domain: &str, facet: &str, key: String, value: String, answer: &[&str], age_hours: f64| {
            let mut m = PersonaMemory::new(domain, facet, key, value, NOW - 3600.0 * age_hours);
            m.created_at = NOW - 86_400.0 * 400.0 + 3600.0 * age_hours;
            Generated { memory: m, answer: answer.iter().map(|a| a.to_lowercase()).collect() }
        };
        let (mut current, mut replaced) = (Vec::new(), Vec::new());
        let mut made = 0;
        for (domain, facet, key, value, answer, old) in specs {
            if made >= n {
                break;
            }
            let age = (next() % 2000) as f64;
            let new = gen(domain, facet, key.clone(), value, &answer, age);
            match old {
                Some((old_value, old_answer)) if made + 1 < n && next() % 3 == 0 => {
                    let mut old = gen(domain, facet, format!("{key}-before"), old_value, &[old_answer], age);
                    old.memory.created_at -= 86_400.0 * 100.0;
                    let mut new = new;
                    if next() % 2 == 0 {
                        old.memory.superseded_by = Some(key);
                    } else {
                        new.memory.contradicts = vec![old.memory.key.clone()];
                    }
                    replaced.push(old);
                    current.push(new);
                    made += 2;
                }
                _ => {
                    current.push(new);
                    made += 1;
                }
            }
        }
        assert_eq!(made, n, "the generator has {made} memories");
        (current, replaced)
    }

    /// The items of each shown line, matched to the memories `included` puts on it (both are
    /// in rank order), as (memory address, item text).
    fn shown_items(out: &Compressed, all: &[&PersonaMemory]) -> Vec<(String, String)> {
        let by_address: HashMap<String, &PersonaMemory> = all.iter().map(|m| (m.address(), *m)).collect();
        let mut lines: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
        let mut facet = (String::new(), String::new());
        for line in out.text.lines() {
            if let Some(inner) = line.strip_prefix("[domain:").and_then(|l| l.strip_suffix(']')) {
                let (d, f) = inner.split_once("/facet:").unwrap();
                facet = (d.to_string(), f.to_string());
            } else if let Some((subject, items)) = line.split_once(": ") {
                let items = items.split(", ").map(String::from).collect();
                lines.insert((facet.0.clone(), facet.1.clone(), subject.to_string()), items);
            }
        }
        let mut out_items = Vec::new();
        for address in &out.included {
            let m = by_address[address];
            let line = (m.domain.clone(), m.facet.clone(), split_key(&m.key).0);
            let items = lines.get_mut(&line).unwrap_or_else(|| panic!("{address}: no line {line:?}"));
            assert!(!items.is_empty(), "{address}: more memories than items on {line:?}");
            out_items.push((address.clone(), items.remove(0)));
        }
        assert!(lines.values().all(Vec::is_empty), "items no memory accounts for: {lines:?}");
        out_items
    }

    /// Whether `text` has `word` as a word of its own, whatever the case.
    fn has_word(text: &str, word: &str) -> bool {
        text.split([' ', '>', '-', '(', ')', '\n', ',', ':']).any(|w| w.eq_ignore_ascii_case(word))
    }

    /// Issue 11: a large persona loses whole memories before values, and never shows one
    /// that a newer memory replaces.
    #[test]
    fn persona_of_500_keeps_every_shown_value_and_no_replaced_one() {
        let out = check_generated(500, 7, true);
        assert!(out.included.len() >= 30, "{}", out.included.len());
    }

    /// The same checks on personas whose seeds were not looked at while the word choice was
    /// tuned (held out): other memories exist, accessed at other times.
    #[test]
    fn held_out_personas_keep_every_shown_value_too() {
        for (n, seed) in [(500, 101), (500, 202), (400, 303), (250, 404), (120, 505)] {
            check_generated(n, seed, false);
        }
    }

    /// Compresses `persona(n, seed)` within the default budget and checks: it fits (cl100k
    /// and the estimate, which errs high), every shown memory's item carries each word of its
    /// answer, no replaced memory is shown nor any word of its answer.
    fn check_generated(n: usize, seed: u64, print: bool) -> Compressed {
        let (current, replaced) = persona(n, seed);
        let all: Vec<&PersonaMemory> = current.iter().chain(&replaced).map(|g| &g.memory).collect();
        let input: Vec<_> = all.iter().map(|m| (*m, MemoryState::Active)).collect();
        let out = compress_detailed(&input, &CompressOptions::default());
        let real = cl100k(&out.text);
        if print {
            eprintln!("{}", out.text);
        }
        eprintln!(
            "persona({n}, seed {seed}): {} shown, {} omitted, {} replaced; cl100k_base {real}, estimate {}",
            out.included.len(),
            out.omitted,
            out.replaced,
            out.estimated_tokens
        );
        assert!(real <= 500 && out.estimated_tokens <= 500 && real <= out.estimated_tokens, "{real}");
        assert_eq!(out.replaced, replaced.len());
        assert_eq!(out.included.len() + out.omitted, current.len());
        assert!(out.omitted == 0 || out.text.ends_with(&format!("(+{} more)\n", out.omitted)));
        let answers: HashMap<String, &Vec<String>> = current.iter().map(|g| (g.memory.address(), &g.answer)).collect();
        for (address, item) in shown_items(&out, &all) {
            for word in answers[&address] {
                assert!(has_word(&item, word), "seed {seed}: {address} shows `{item}` without `{word}`");
            }
        }
        for g in &replaced {
            assert!(!out.included.contains(&g.memory.address()));
            for word in &g.answer {
                assert!(!has_word(&out.text, word), "seed {seed}: replaced {} shows `{word}`", g.memory.key);
            }
        }
        out
    }

    /// The report of issue 11: 186 memories compressed to `priya: allergy` with no allergy,
    /// and a superseded belief shown.
    #[test]
    fn persona_of_186_shows_priyas_allergy_and_not_her_old_city() {
        let (mut current, mut replaced) = persona(184, 3);
        current.retain(|g| g.memory.key != "priya-allergy" && g.memory.key != "priya-city");
        replaced.retain(|g| !g.memory.key.starts_with("priya-"));
        let mut allergy = PersonaMemory::new("people", "facts", "priya-allergy", "Priya is allergic to peanuts", NOW);
        allergy.access_count = 3;
        let city = PersonaMemory::new("people", "facts", "priya-city", "Priya moved to Lisbon in May", NOW);
        let mut old = PersonaMemory::new("people", "facts", "priya-home", "Priya lives in Berlin", NOW);
        old.superseded_by = Some("priya-city".into());
        let mut all: Vec<&PersonaMemory> = current.iter().chain(&replaced).map(|g| &g.memory).collect();
        all.extend([&allergy, &city, &old]);
        let n = all.len();
        let input: Vec<_> = all.iter().map(|m| (*m, MemoryState::Active)).collect();
        let out = compress_detailed(&input, &CompressOptions::default());
        let real = cl100k(&out.text);
        eprintln!(
            "persona186 ({n} memories): {} shown, {} omitted, {} replaced; cl100k_base {real}, estimate {}",
            out.included.len(),
            out.omitted,
            out.replaced,
            out.estimated_tokens
        );
        assert!((180..=190).contains(&n), "{n}");
        assert!(real <= 500);
        let items = shown_items(&out, &all);
        let shown = |a: &str| items.iter().find(|(addr, _)| addr == a).map(|(_, i)| i.clone());
        let allergy_item = shown("people/facts/priya-allergy").expect("the freshest memory is shown");
        assert!(has_word(&allergy_item, "peanuts"), "{allergy_item}");
        assert!(has_word(&shown("people/facts/priya-city").expect("shown"), "lisbon"));
        assert!(!has_word(&out.text, "berlin") && !out.included.contains(&old.address()));
    }

    #[test]
    fn superseded_and_contradicted_memories_are_left_out() {
        let mut old_city = mem("people", "facts", "tom-home", "Tom lives in Berlin");
        old_city.superseded_by = Some("tom-city".into());
        let new_city = mem("people", "facts", "tom-city", "Tom lives in Porto");
        let mut old_diet = mem("people", "facts", "tom-diet", "Tom is vegan");
        old_diet.created_at = NOW - 86_400.0;
        // The correction names what it corrects, from another domain.
        let mut new_diet = mem("self", "beliefs", "tom-eats-fish", "Tom eats fish now");
        new_diet.contradicts = vec!["people/facts/tom-diet".into()];
        // A contradiction recorded on the newer side is not needed: the newer one stands.
        let mut old_pet = mem("people", "facts", "tom-pet", "Tom has a hamster");
        old_pet.created_at = NOW - 86_400.0;
        old_pet.contradicts = vec!["tom-dog".into()];
        let new_pet = mem("people", "facts", "tom-dog", "Tom has a beagle");
        let ms = [old_city, new_city, old_diet, new_diet, old_pet, new_pet];
        let out = compress_detailed(&active(&ms), &CompressOptions::default());
        let mut included = out.included.clone();
        included.sort();
        assert_eq!(included, ["people/facts/tom-city", "people/facts/tom-dog", "self/beliefs/tom-eats-fish"]);
        assert_eq!((out.replaced, out.omitted), (3, 0));
        for gone in ["berlin", "vegan", "hamster"] {
            assert!(!has_word(&out.text, gone), "{gone}: {}", out.text);
        }
        // Narrowed to one domain, a memory of another still replaces one of this.
        let people = CompressOptions { domain: Some("people".into()), ..CompressOptions::default() };
        let out = compress_detailed(&active(&ms), &people);
        assert!(!has_word(&out.text, "vegan") && out.replaced == 3, "{}", out.text);
        // A pinned memory that was superseded is not shown either.
        let mut pinned = ms[0].clone();
        pinned.sync.life.pinned = true;
        assert!(!has_word(&compress(&[(&pinned, MemoryState::Active)], &CompressOptions::default()), "berlin"));
    }

    /// Below the budget whole memories go, never their values: the tightest budget that shows
    /// anything shows it with its answer.
    #[test]
    fn a_tight_budget_drops_memories_not_values() {
        let ms = [
            mem("people", "facts", "priya-allergy", "Priya is allergic to peanuts"),
            mem("people", "facts", "priya-city", "Priya lives in Lisbon"),
        ];
        for budget in 1..60 {
            let opts = CompressOptions { max_tokens: Some(budget), ..CompressOptions::default() };
            let out = compress_detailed(&active(&ms), &opts);
            assert!(out.estimated_tokens <= budget || out.included.is_empty(), "{budget}: {}", out.text);
            if out.included.contains(&"people/facts/priya-allergy".to_string()) {
                assert!(out.text.contains("allergy peanuts"), "{budget}: {}", out.text);
            }
            if out.included.contains(&"people/facts/priya-city".to_string()) {
                assert!(has_word(&out.text, "Lisbon"), "{budget}: {}", out.text);
            }
        }
    }
}
