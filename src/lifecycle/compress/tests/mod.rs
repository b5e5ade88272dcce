//! Compression's tests: the trial of issue 23 (quotes, not rewrites; stable membership;
//! coverage; no replaced value), the property over fixtures and generated personas, and the
//! token estimate against cl100k_base.

use super::clauses::normalize;
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
const DAY: f64 = 86_400.0;

/// The 50-memory persona of `persona50.json`, written an hour apart in file order.
fn persona50() -> Vec<PersonaMemory> {
    let entries: Vec<Entry> = serde_json::from_str(include_str!("../../persona50.json")).unwrap();
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

fn mem(domain: &str, facet: &str, key: &str, value: &str) -> PersonaMemory {
    PersonaMemory::new(domain, facet, key, value, NOW)
}

fn with_budget(budget: usize) -> CompressOptions {
    CompressOptions { max_tokens: Some(budget), ..CompressOptions::default() }
}

/// The shown lines as (address, quote), in text order; panics on a line that is neither a
/// header, a memory nor the `(+N more)` line.
fn shown_lines(out: &Compressed) -> Vec<(String, String)> {
    let mut facet = None;
    let mut lines = Vec::new();
    for line in out.text.lines() {
        if let Some(inner) = line.strip_prefix("[domain:").and_then(|l| l.strip_suffix(']')) {
            let (d, f) = inner.split_once("/facet:").unwrap();
            facet = Some(format!("{d}/{f}"));
        } else if line.starts_with("(+") && line.ends_with(" more)") {
            assert!(out.omitted > 0, "a more line with nothing omitted: {}", out.text);
        } else {
            let (key, quote) = line.split_once(": ").unwrap_or_else(|| panic!("not a memory line: {line}"));
            let facet = facet.as_ref().unwrap_or_else(|| panic!("a line before any header: {line}"));
            lines.push((format!("{facet}/{key}"), quote.to_string()));
        }
    }
    lines
}

/// The quote `shown` stands for `value` as the format promises: without its trim mark, a
/// substring of the value (whitespace runs as one space) that cuts no word, and only a
/// trimmed quote stops short of the value's end.
fn assert_quotes(value: &str, shown: &str) {
    let value = normalize(value);
    let (quote, trimmed) = match shown.strip_suffix(TRIMMED) {
        Some(q) => (q, true),
        None => (shown, false),
    };
    let at = value.find(quote).unwrap_or_else(|| panic!("`{shown}` is not quoted from `{value}`"));
    let after = &value[at + quote.len()..];
    assert!(!after.starts_with(char::is_alphanumeric) && !quote.ends_with(' '), "`{shown}` cuts a word of `{value}`");
    let rest = after.trim_start_matches(['.', ',', ';', ':']).trim();
    assert_eq!(trimmed, !rest.is_empty(), "`{shown}` of `{value}`: the trim mark must say whether text follows");
}

/// Checks every line of `out` against `ms` (each shown quote is its memory's, each included
/// memory shown once, the counts agree) and returns the lines by address.
fn check_lines(out: &Compressed, ms: &[&PersonaMemory]) -> HashMap<String, String> {
    let by_address: HashMap<String, &PersonaMemory> = ms.iter().map(|m| (m.address(), *m)).collect();
    let lines = shown_lines(out);
    let mut shown = HashMap::new();
    for (address, quote) in &lines {
        let m = by_address.get(address).unwrap_or_else(|| panic!("{address}: no such memory"));
        assert_quotes(&m.value, quote);
        assert!(shown.insert(address.clone(), quote.clone()).is_none(), "{address} shown twice");
    }
    let mut included = out.included.clone();
    included.sort();
    let mut listed: Vec<String> = shown.keys().cloned().collect();
    listed.sort();
    assert_eq!(included, listed, "included and the lines disagree");
    assert_eq!(out.covered, out.included.len());
    assert_eq!(out.covered + out.omitted, out.total);
    assert!(out.covered <= out.total);
    assert_eq!(out.estimated_tokens, estimate_tokens(&out.text));
    shown
}

// ---------------------------------------------------------------------------------------
// The trial of issue 23
// ---------------------------------------------------------------------------------------

/// The trial's persona: its three sentences among other memories, so that tight budgets
/// leave some out.
fn trial() -> Vec<PersonaMemory> {
    let mut ms = vec![
        mem("self", "health", "blood", "My blood type is A positive."),
        mem("self", "devices", "me-phone", "I replaced my iPhone 13 with a Pixel 9, and my sister got the old one."),
        mem(
            "projects",
            "rules",
            "deploy",
            "We never deploy to production on Friday afternoons because the on-call team is thin.",
        ),
    ];
    for (i, v) in ["Alice reviews pull requests on Tuesdays", "Omar prefers tea to coffee", "The VPN is on port 51820"]
        .iter()
        .enumerate()
    {
        let mut m = mem("notes", "general", &format!("note-{i}"), v);
        m.created_at = NOW - DAY * (i + 1) as f64;
        m.last_reinforced = m.created_at;
        ms.push(m);
    }
    ms
}

/// Whether the text shows the memory at `address`, and its quote.
fn quote_of(out: &Compressed, address: &str) -> Option<String> {
    shown_lines(out).into_iter().find(|(a, _)| a == address).map(|(_, q)| q)
}

#[test]
fn blood_type_a_positive_is_quoted_whole() {
    let ms = trial();
    let mut seen = false;
    for budget in 0..200 {
        let out = compress_detailed(&active(&ms), &with_budget(budget));
        if let Some(q) = quote_of(&out, "self/health/blood") {
            assert_eq!(q, "My blood type is A positive", "budget {budget}");
            seen = true;
        }
        assert!(!out.text.contains("type positive"), "budget {budget}: {}", out.text);
    }
    assert!(seen);
}

#[test]
fn the_replaced_iphone_keeps_its_pixel_9() {
    let ms = trial();
    let (mut trimmed, mut whole) = (false, false);
    for budget in 0..200 {
        let out = compress_detailed(&active(&ms), &with_budget(budget));
        if let Some(q) = quote_of(&out, "self/devices/me-phone") {
            assert!(q.starts_with("I replaced my iPhone 13 with a Pixel 9"), "budget {budget}: {q}");
            trimmed |= q == format!("I replaced my iPhone 13 with a Pixel 9{TRIMMED}");
            whole |= q == "I replaced my iPhone 13 with a Pixel 9, and my sister got the old one";
        }
    }
    assert!(trimmed && whole, "a tight budget trims the second clause, a loose one shows it");
}

#[test]
fn the_friday_deploy_rule_keeps_its_never() {
    let ms = trial();
    let mut seen = 0;
    for budget in 0..200 {
        let out = compress_detailed(&active(&ms), &with_budget(budget));
        if let Some(q) = quote_of(&out, "projects/rules/deploy") {
            assert!(q.starts_with("We never deploy to production on Friday afternoons"), "budget {budget}: {q}");
            seen += 1;
        }
        assert!(!out.text.to_lowercase().contains("afternoons not"), "{}", out.text);
    }
    assert!(seen > 0);
}

/// The trial's "live: berlin flat kreuzberg" beside "moved berlin lisbon": the old memory is
/// history once the new one replaces it, by `superseded_by` or by a newer `contradicts`.
#[test]
fn the_superseded_berlin_flat_is_absent_beside_lisbon() {
    let mut berlin = mem("self", "home", "live", "I live in a flat in Kreuzberg, Berlin");
    berlin.created_at = NOW - 300.0 * DAY;
    berlin.sync.life.importance = Some(0.9);
    let lisbon = mem("self", "home", "moved", "I moved from Berlin to Lisbon in May");
    let mut by_superseded = berlin.clone();
    by_superseded.superseded_by = Some("moved".into());
    let mut by_contradiction = lisbon.clone();
    by_contradiction.contradicts = vec!["self/home/live".into()];
    for ms in [vec![by_superseded, lisbon.clone()], vec![berlin.clone(), by_contradiction]] {
        for budget in (0..120).chain([500]) {
            let out = compress_detailed(&active(&ms), &with_budget(budget));
            assert!(!out.text.contains("Kreuzberg") && !out.included.contains(&berlin.address()), "{}", out.text);
            assert_eq!((out.replaced, out.total), (1, 1), "{out:?}");
        }
        let out = compress_detailed(&active(&ms), &CompressOptions::default());
        assert_eq!(quote_of(&out, "self/home/moved").as_deref(), Some("I moved from Berlin to Lisbon in May"));
    }
}

/// Reads move `access_count`, `last_accessed`, the decayed relevance and so the live state
/// (a fading memory read is active again): none of it may change which memories are shown.
#[test]
fn membership_is_the_same_after_other_memories_are_read() {
    let (current, replaced) = persona(300, 11);
    let mut ms: Vec<PersonaMemory> = current.into_iter().chain(replaced).map(|g| g.memory).collect();
    let states = |ms: &[PersonaMemory], now: f64| -> Vec<MemoryState> {
        ms.iter()
            .map(|m| match m.compute_state(now) {
                // Dissolved stays out whatever: kept out of this test's reads.
                MemoryState::Dissolved => MemoryState::Forgotten,
                s => s,
            })
            .collect()
    };
    let run = |ms: &[PersonaMemory], states: &[MemoryState]| {
        let input: Vec<_> = ms.iter().zip(states.iter().copied()).collect();
        compress_detailed(&input, &CompressOptions::default())
    };
    let before = run(&ms, &states(&ms, NOW));
    assert!(before.omitted > 50, "the test needs memories left out: {}", before.omitted);
    // Search and recall the memories left out, many times, a week later.
    let later = NOW + 7.0 * DAY;
    for m in ms.iter_mut().filter(|m| !before.included.contains(&m.address())) {
        m.access_count += 25;
        m.last_accessed = later;
        *m.sync.acc.entry("device".into()).or_default() += 25;
    }
    let after = run(&ms, &states(&ms, later));
    assert_eq!(before.included, after.included);
    assert_eq!(before.text, after.text);
    // And the shown ones, once each: still the same.
    for m in ms.iter_mut().filter(|m| before.included.contains(&m.address())) {
        m.access_count += 1;
        m.last_accessed = later + DAY;
    }
    assert_eq!(run(&ms, &states(&ms, later + DAY)).included, before.included);
}

/// Current memories are counted, shown or not; replaced, archived and dissolved ones are not
/// current.
#[test]
fn coverage_counts_current_memories_shown_of_all() {
    let mut ms: Vec<PersonaMemory> = (0..5)
        .map(|i| {
            let mut m = mem("self", "facts", &format!("fact-{i}"), &format!("Fact number {i} is worth keeping"));
            m.created_at -= DAY * i as f64;
            m
        })
        .collect();
    let mut old = mem("self", "facts", "old-fact", "An old fact that was replaced");
    old.superseded_by = Some("fact-0".into());
    let mut archived = mem("self", "facts", "archived-fact", "An archived fact");
    archived.sync.life.archived_at = Some(NOW);
    let dissolved = mem("self", "facts", "dissolved-fact", "A dissolved fact");
    ms.extend([old, archived, dissolved]);
    let mut states = vec![MemoryState::Active; ms.len()];
    states[7] = MemoryState::Dissolved;
    states[1] = MemoryState::Forgotten;
    let input: Vec<_> = ms.iter().zip(states).collect();

    let all = compress_detailed(&input, &CompressOptions { max_tokens: None, ..CompressOptions::default() });
    check_lines(&all, &ms.iter().collect::<Vec<_>>());
    assert_eq!((all.covered, all.total, all.omitted, all.replaced), (5, 5, 0, 1));
    assert!(!all.text.contains("more)"));

    let one_line = estimate(&header("self", "facts")) + estimate(&line("fact-0", "Fact number 0 is worth keeping"));
    let two = (one_line + estimate(&line("fact-1", "Fact number 1 is worth keeping")) + estimate(&more_line(5))).ceil();
    let out = compress_detailed(&input, &with_budget(two as usize));
    check_lines(&out, &ms.iter().collect::<Vec<_>>());
    assert_eq!((out.covered, out.total, out.omitted, out.replaced), (2, 5, 3, 1));
    assert_eq!(out.included, ["self/facts/fact-0", "self/facts/fact-1"]);
    assert!(out.text.ends_with("(+3 more)\n"), "{}", out.text);
}

/// Pinned first, then importance, then the newest; a long paragraph first in that order is
/// left out rather than holding every other memory out.
#[test]
fn order_is_pins_importance_then_own_time() {
    let mut ms = vec![
        mem("a", "f", "newest", "The newest memory of all"),
        mem("a", "f", "important", "An important memory from last year"),
        mem("a", "f", "pinned", "A pinned memory from two years ago"),
        mem("a", "f", "older", "An older memory of no importance"),
    ];
    ms[1].created_at -= 365.0 * DAY;
    ms[1].sync.life.importance = Some(0.9);
    ms[2].created_at -= 730.0 * DAY;
    ms[2].sync.life.pinned = true;
    ms[3].created_at -= 10.0 * DAY;
    ms[3].last_reinforced = ms[3].created_at;
    let out = compress_detailed(&active(&ms), &CompressOptions::default());
    assert_eq!(out.included, ["a/f/pinned", "a/f/important", "a/f/newest", "a/f/older"]);
    // The last written or connected time counts, not only the first.
    ms[3].last_reinforced = NOW + 60.0;
    let out = compress_detailed(&active(&ms), &CompressOptions::default());
    assert_eq!(out.included, ["a/f/pinned", "a/f/important", "a/f/older", "a/f/newest"]);

    let paragraph = format!("A paragraph with no clause break {}", "that goes on and on ".repeat(40));
    let mut long = mem("a", "f", "long", &paragraph);
    long.sync.life.pinned = true;
    ms.push(long);
    let out = compress_detailed(&active(&ms), &CompressOptions::default());
    assert_eq!((out.covered, out.total), (4, 5), "{}", out.text);
    assert!(!out.included.contains(&"a/f/long".to_string()));
    let unlimited = CompressOptions { max_tokens: None, ..CompressOptions::default() };
    assert_eq!(compress_detailed(&active(&ms), &unlimited).covered, 5);
}

mod fixtures;
use fixtures::persona;
