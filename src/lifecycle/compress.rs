//! The compressed persona: the current memories, quoted, within a token budget (500 by
//! default), for an LLM's context.
//!
//! ```text
//! [domain:people/facet:facts]
//! alice-pets: Alice has two cats and no dogs
//! priya-birthday: Priya's birthday is on May 3…
//! [domain:projects/facet:decisions]
//! voxrelay-voice: We chose Orpheus 3B over Kokoro because of its warmth
//! (+12 more)
//! ```
//!
//! One header per domain/facet, then one line per memory: its key, then its value quoted.
//! A value is never rewritten: it is shown whole, or trimmed to its first clauses (ending in
//! `…`), never cut inside a clause ([`clauses`]), so "blood type A positive" cannot lose
//! its "A" nor "never deploy on Fridays" its "never". A quote is a substring of the value
//! with its whitespace runs as single spaces, and a trimmed clause end (comma, full stop).
//!
//! Which memories are shown is decided by what the agent wrote, not by what it read:
//! pinned first, then importance, then the memory's own time (created, or last written or
//! connected), so that a search or a recall, which counts accesses and moves decay, does
//! not reshuffle the context from one call to the next. Coverage is the longest run of that
//! order whose shortest quotes fit the budget; room left over lets the first of them read
//! fuller. [`Compressed`] says how many it covers of how many.

mod clauses;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::{MemoryState, PersonaMemory};

/// The budget when [`CompressOptions::max_tokens`] is left at its default (seed 003's target).
pub const DEFAULT_MAX_TOKENS: usize = 500;

/// A memory whose shortest quote costs more than this (estimated tokens, its line included)
/// is never shown under a budget: one long paragraph must not hold the rest of the persona
/// out. A fixed number, not a share of the budget, so that coverage only grows with it.
pub const MAX_QUOTE_TOKENS: usize = 100;

/// What ends a trimmed quote: the value goes on (recall the memory for all of it).
pub const TRIMMED: &str = "…";

/// Importance of a memory that has none set: neutral, between 0 and 1.
const NEUTRAL_IMPORTANCE: f64 = 0.5;

/// How [`compress`] renders a persona.
#[derive(Debug, Clone, PartialEq)]
pub struct CompressOptions {
    /// Token budget, as counted by [`estimate_tokens`]; `None` for no limit.
    pub max_tokens: Option<usize>,
    /// Only this domain; `None` for all.
    pub domain: Option<String>,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions { max_tokens: Some(DEFAULT_MAX_TOKENS), domain: None }
    }
}

/// [`compress_detailed`]'s result: the text and what went into it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Compressed {
    /// The compressed persona.
    pub text: String,
    /// Addresses (`domain/facet/key`) of the memories the text includes, in the order that
    /// decides coverage (pinned, importance, newest).
    pub included: Vec<String>,
    /// How many current memories the text shows (`included.len()`).
    pub covered: usize,
    /// How many current memories there are: shown, or left out for room (`covered +
    /// omitted`). Replaced memories are not current and not counted.
    pub total: usize,
    /// How many current memories the budget left out (the text's `(+N more)`).
    pub omitted: usize,
    /// How many otherwise eligible memories were left out because a newer one replaces them
    /// (`superseded_by` set, or contradicted by a newer memory); never counted in `omitted`.
    pub replaced: usize,
    /// [`estimate_tokens`] of `text`.
    pub estimated_tokens: usize,
}

impl Compressed {
    /// The coverage as one line, the same in the CLI and for agents: `covers 33 of 179
    /// memories`, and how many replaced ones were left out as history.
    pub fn coverage(&self) -> String {
        let noun = if self.total == 1 { "memory" } else { "memories" };
        let mut line = format!("covers {} of {} {noun}", self.covered, self.total);
        if self.replaced > 0 {
            line.push_str(&format!(" ({} replaced by a newer one left out)", self.replaced));
        }
        line
    }
}

/// The current part of a persona, compressed (see the module documentation).
///
/// Every memory that is not archived, not dissolved (pinned ones always count) and not
/// replaced by a newer memory is current; the caller passes the state, since it owns the
/// decay policy. A fading or forgotten memory is current too: its state moves with reads,
/// and the context must not. Give every memory of the persona, not only the domain wanted:
/// a memory in another domain can be the one that replaces a memory of this one.
pub fn compress(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> String {
    compress_detailed(memories, options).text
}

/// Whether a memory is current by itself: not archived, and not dissolved unless pinned.
///
/// This is the one place that decides on a memory by itself; [`entering`] adds the checks
/// that need the other memories (superseded, contradicted by a newer one). Active, fading
/// and forgotten are alike here: those states follow reads, and a read of one memory must
/// not move another in or out.
fn is_live(m: &PersonaMemory, state: MemoryState) -> bool {
    // An archived memory is out of context until restored, pinned or not.
    let dissolved = state == MemoryState::Dissolved || m.sync.life.dissolved_at.is_some();
    m.sync.life.archived_at.is_none() && (m.sync.life.pinned || !dissolved)
}

/// The memories that may enter the text, in input order, and how many of those in the
/// domain wanted were left out because a newer memory replaces them.
///
/// A memory enters when it is live ([`is_live`]), is in the domain asked for, has no
/// `superseded_by`, and no other live memory contradicts it as the newer of the two.
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

/// The order that decides coverage: pinned first, then importance, then the memory's own
/// time, newest first, then address (so that equal memories keep one order).
///
/// Only what writes set is read here. Not `last_accessed`, `access_count`, the live state
/// or the decayed relevance: every search and recall moves those, and the context would
/// follow the last searches rather than the persona.
fn rank_order(a: &PersonaMemory, b: &PersonaMemory) -> std::cmp::Ordering {
    let importance = |m: &PersonaMemory| m.sync.life.importance.unwrap_or(NEUTRAL_IMPORTANCE);
    let own_time = |m: &PersonaMemory| m.created_at.max(m.last_reinforced);
    b.sync
        .life
        .pinned
        .cmp(&a.sync.life.pinned)
        .then(importance(b).total_cmp(&importance(a)))
        .then(own_time(b).total_cmp(&own_time(a)))
        .then_with(|| (&a.domain, &a.facet, &a.key).cmp(&(&b.domain, &b.facet, &b.key)))
}

/// One memory's possible quotes, shortest first (the first clause, then each clause more,
/// the last the whole value), with the estimated cost of the line each makes.
struct Quotes<'a> {
    memory: &'a PersonaMemory,
    texts: Vec<String>,
    costs: Vec<f64>,
}

impl<'a> Quotes<'a> {
    fn new(memory: &'a PersonaMemory) -> Self {
        let value = clauses::normalize(&memory.value);
        let ends = clauses::clause_ends(&value);
        let texts: Vec<String> = if ends.is_empty() {
            vec![String::new()]
        } else {
            ends.iter()
                .map(|&e| {
                    let quote = clauses::trimmed(&value[..e]);
                    if e < value.len() {
                        format!("{quote}{TRIMMED}")
                    } else {
                        quote.to_string()
                    }
                })
                .collect()
        };
        let costs = texts.iter().map(|t| estimate(&line(&memory.key, t))).collect();
        Quotes { memory, texts, costs }
    }
}

/// [`compress`], also telling which memories made it in and the coverage.
pub fn compress_detailed(memories: &[(&PersonaMemory, MemoryState)], options: &CompressOptions) -> Compressed {
    let (mut ranked, replaced) = entering(memories, options);
    ranked.sort_by(|a, b| rank_order(a, b));
    let quotes: Vec<Quotes> = ranked.iter().map(|m| Quotes::new(m)).collect();
    let total = quotes.len();
    // Float sums in another order can differ in the last bits: keep clear of the edge.
    let budget = options.max_tokens.map_or(f64::INFINITY, |b| b as f64 - 1e-6);
    let long = MAX_QUOTE_TOKENS as f64;
    let reserve = estimate(&more_line(total));

    // Coverage: the longest run, in rank order, whose shortest quotes fit (a memory too
    // long to quote skipped), leaving room for the `(+N more)` line while some are out.
    let mut headers: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut shown: Vec<(usize, usize)> = Vec::new(); // (index into quotes, quote chosen)
    let mut used = 0.0;
    for (i, q) in quotes.iter().enumerate() {
        if options.max_tokens.is_some() && q.costs[0] > long {
            continue;
        }
        let head = (q.memory.domain.as_str(), q.memory.facet.as_str());
        let head_cost = if headers.contains(&head) { 0.0 } else { estimate(&header(head.0, head.1)) };
        let note = if shown.len() + 1 < total { reserve } else { 0.0 };
        if used + head_cost + q.costs[0] + note > budget {
            break;
        }
        used += head_cost + q.costs[0];
        headers.insert(head);
        shown.push((i, 0));
    }
    let omitted = total - shown.len();
    let note = if omitted > 0 { reserve } else { 0.0 };

    // The room left reads the first memories fuller: each takes the longest quote that fits.
    let mut left = budget - used - note;
    for (i, chosen) in &mut shown {
        let costs = &quotes[*i].costs;
        if let Some(longer) = (1..costs.len()).rev().find(|&l| costs[l] - costs[0] <= left) {
            left -= costs[longer] - costs[0];
            *chosen = longer;
        }
    }

    let mut text = render(&quotes, &shown);
    if omitted > 0 && used + note <= budget {
        text.push_str(&more_line(omitted));
    }
    Compressed {
        estimated_tokens: estimate_tokens(&text),
        included: shown.iter().map(|(i, _)| quotes[*i].memory.address()).collect(),
        covered: shown.len(),
        total,
        omitted,
        replaced,
        text,
    }
}

/// Lays out the shown quotes: headers sorted, memories in rank order under each.
fn render(quotes: &[Quotes], shown: &[(usize, usize)]) -> String {
    let mut facets: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for &(i, chosen) in shown {
        let q = &quotes[i];
        facets.entry((&q.memory.domain, &q.memory.facet)).or_default().push(line(&q.memory.key, &q.texts[chosen]));
    }
    let mut out = String::new();
    for ((domain, facet), lines) in facets {
        out.push_str(&header(domain, facet));
        for l in lines {
            out.push_str(&l);
        }
    }
    out
}

fn line(key: &str, quote: &str) -> String {
    format!("{key}: {quote}\n")
}

fn header(domain: &str, facet: &str) -> String {
    format!("[domain:{domain}/facet:{facet}]\n")
}

fn more_line(n: usize) -> String {
    format!("(+{n} more)\n")
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
mod tests;
