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
    let entries: Vec<Entry> = serde_json::from_str(include_str!("../persona50.json")).unwrap();
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

// ---------------------------------------------------------------------------------------
// Fixtures and generated personas
// ---------------------------------------------------------------------------------------

/// A budget (in estimated tokens) at which all of `persona50` is shown (the test prints the
/// smallest).
const PERSONA50_ALL_IN: usize = 3000;

#[test]
fn persona_of_50_within_500_real_tokens_newest_first() {
    let ms = persona50();
    let out = compress_detailed(&active(&ms), &CompressOptions::default());
    let real = cl100k(&out.text);
    eprintln!("{}", out.text);
    eprintln!(
        "persona50 at 500: covers {} of {}; cl100k_base {real} tokens, estimate {}, {} chars",
        out.covered,
        out.total,
        out.estimated_tokens,
        out.text.len()
    );
    check_lines(&out, &ms.iter().collect::<Vec<_>>());
    assert!(real <= 500 && out.estimated_tokens >= real && out.estimated_tokens <= 500, "{real}");
    assert_eq!(out.total, 50);
    assert!(out.covered >= 15, "{}", out.covered);
    // Written an hour apart in file order: the newest go in.
    let newest: Vec<String> = ms.iter().map(PersonaMemory::address).take(out.covered).collect();
    assert_eq!(out.included, newest);

    let (budget, out) = (500..=PERSONA50_ALL_IN)
        .step_by(10)
        .map(|b| (b, compress_detailed(&active(&ms), &with_budget(b))))
        .find(|(_, out)| out.omitted == 0)
        .expect("all 50 fit within PERSONA50_ALL_IN");
    let real = cl100k(&out.text);
    eprintln!("persona50: all 50 from a budget of {budget}: cl100k_base {real}, estimate {}", out.estimated_tokens);
    assert!(real <= out.estimated_tokens && out.estimated_tokens <= budget);
}

/// For budgets from nothing to everything: each shown value is quoted, coverage never
/// shrinks as the budget grows, and the text holds to the budget.
fn check_budgets(name: &str, ms: &[PersonaMemory], states: &[MemoryState], budgets: &[usize]) -> Vec<usize> {
    let input: Vec<_> = ms.iter().zip(states.iter().copied()).collect();
    let all: Vec<&PersonaMemory> = ms.iter().collect();
    let mut covered = Vec::new();
    let mut last = 0;
    for &budget in budgets {
        let out = compress_detailed(&input, &with_budget(budget));
        check_lines(&out, &all);
        assert!(out.estimated_tokens <= budget, "{name} at {budget}: {} tokens", out.estimated_tokens);
        assert!(out.covered >= last, "{name}: coverage fell from {last} to {} at budget {budget}", out.covered);
        last = out.covered;
        covered.push(out.covered);
    }
    let out = compress_detailed(&input, &CompressOptions { max_tokens: None, ..CompressOptions::default() });
    check_lines(&out, &all);
    assert_eq!(out.covered, out.total, "{name}: no budget shows every current memory");
    assert!(last <= out.total);
    // Whole values when there is room: nothing trimmed.
    assert!(!out.text.contains(TRIMMED) || ms.iter().any(|m| m.value.contains(TRIMMED)), "{name}");
    covered
}

fn budgets() -> Vec<usize> {
    (0..80).chain((80..3000).step_by(23)).chain([5000, 20_000]).collect()
}

#[test]
fn every_shown_value_is_quoted_at_every_budget_in_the_fixtures() {
    let ms = persona50();
    let covered = check_budgets("persona50", &ms, &vec![MemoryState::Active; ms.len()], &budgets());
    eprintln!("persona50: covered {covered:?}");
    for (n, seed) in [(500, 7), (250, 404)] {
        let (current, replaced) = persona(n, seed);
        let ms: Vec<PersonaMemory> = current.into_iter().chain(replaced).map(|g| g.memory).collect();
        check_budgets(&format!("persona({n}, {seed})"), &ms, &vec![MemoryState::Active; ms.len()], &budgets());
    }
}

#[test]
fn every_shown_value_is_quoted_at_every_budget_in_a_realistic_persona() {
    let (ms, states) = realistic(500, 23);
    let covered = check_budgets("realistic(500)", &ms, &states, &budgets());
    let at = |b: usize| covered[budgets().iter().position(|x| *x >= b).unwrap()];
    eprintln!("realistic(500): covers {} at 500 tokens, {} at 2000", at(500), at(2000));
    assert!(at(500) >= 10 && at(2000) > at(500));
    // Replaced, archived and dissolved memories never show, at any budget.
    let input: Vec<_> = ms.iter().zip(states.iter().copied()).collect();
    let out = compress_detailed(&input, &CompressOptions { max_tokens: None, ..CompressOptions::default() });
    let live = ms
        .iter()
        .zip(&states)
        .filter(|(m, s)| m.sync.life.archived_at.is_none() && (**s != MemoryState::Dissolved || m.sync.life.pinned));
    assert_eq!(out.total + out.replaced, live.count());
    assert!(out.replaced > 0);
    for m in &ms {
        if m.is_superseded() || m.sync.life.archived_at.is_some() {
            assert!(!out.included.contains(&m.address()), "{} shown", m.address());
        }
    }
}

/// A seeded persona of `n` memories written the way agents write: sentences with numbers,
/// names, versions, negations, one to three clauses joined by commas, conjunctions,
/// semicolons and full stops; some pinned or important, some superseded or contradicted by
/// a later one, archived, or in any decay state. Returns the memories and their states.
fn realistic(n: usize, seed: u64) -> (Vec<PersonaMemory>, Vec<MemoryState>) {
    const PEOPLE: &[&str] = &["Priya", "Omar", "Ana", "Kenji", "Lucia", "Dr. Ona", "Greta", "J. R. Pell", "Mei"];
    const CITIES: &[&str] = &["Lisbon", "Berlin", "Osaka", "Nairobi", "Quito", "São Paulo", "Tallinn"];
    const DEVICES: &[(&str, &str)] = &[("iPhone", "13"), ("Pixel", "9"), ("ThinkPad", "X1"), ("Galaxy", "S24")];
    const THINGS: &[&str] = &["peanuts", "shellfish", "gluten", "espresso", "red wine", "cilantro"];
    const DAYS: &[&str] = &["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
    const PROJECTS: &[&str] = &["VoxRelay", "memstr", "Tidewatch", "Ledgerly", "Quillpad"];
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut ms = Vec::new();
    let mut states = Vec::new();
    for i in 0..n {
        let mut r = || next();
        let p = PEOPLE[r() % PEOPLE.len()];
        let q = PEOPLE[r() % PEOPLE.len()];
        let city = CITIES[r() % CITIES.len()];
        let (dev, model) = DEVICES[r() % DEVICES.len()];
        let (dev2, model2) = DEVICES[r() % DEVICES.len()];
        let thing = THINGS[r() % THINGS.len()];
        let day = DAYS[r() % DAYS.len()];
        let proj = PROJECTS[r() % PROJECTS.len()];
        let num = r() % 10_000;
        let first = match r() % 12 {
            0 => format!("My blood type is {} {}", ["A", "B", "AB", "O"][r() % 4], ["positive", "negative"][r() % 2]),
            1 => format!("I replaced my {dev} {model} with a {dev2} {model2}"),
            2 => format!("We never deploy {proj} to production on {day} afternoons"),
            3 => format!("{p} moved to {city} in {} {}", ["May", "June", "March"][r() % 3], 2019 + r() % 7),
            4 => format!("{p} is allergic to {thing}"),
            5 => format!("{p} doesn't drink {thing} after {} pm", 1 + r() % 11),
            6 => format!("The {proj} release is version {}.{}.{}", r() % 3, r() % 20, r() % 10),
            7 => format!("{p}'s phone number ends in {num:04}"),
            8 => format!("We chose Postgres over SQLite for {proj}"),
            9 => format!("The standup with {p} is every {day} at {}:{:02}", 8 + r() % 4, 15 * (r() % 4)),
            10 => format!("The {proj} budget is {num} dollars a month, approved by {p}"),
            _ => format!("{p} lives in {city} with {} cats and no dogs", 1 + r() % 3),
        };
        let second = match r() % 8 {
            0 => format!("{q} will review it by {day}"),
            1 => "not everyone on the team likes it".to_string(),
            2 => format!("the old setup broke in {}", 2020 + r() % 5),
            3 => format!("it costs {num} dollars, e.g. for the relay"),
            4 => format!("{q} signed off on it in {city}"),
            5 => "the decision was made after a long discussion".to_string(),
            6 => format!("{q} keeps the spare keys"),
            _ => "never change it without asking".to_string(),
        };
        let value = match r() % 9 {
            0 | 1 => first,
            2 => format!("{first}, and {second}."),
            3 => format!("{first}, but {second}"),
            4 => format!("{first}; {second}"),
            5 => format!("{first}. {}{}.", second[..1].to_uppercase(), &second[1..]),
            6 => format!("{first} because {second}"),
            7 => format!("{first}, so {second}.\n{q} agreed, which settles it"),
            _ => format!("{first}, which {} since {}", ["matters", "helps"][r() % 2], 2018 + r() % 6),
        };
        let (domain, facet) = [("people", "facts"), ("projects", "decisions"), ("self", "preferences")][r() % 3];
        let mut m = PersonaMemory::new(domain, facet, format!("m{i:03}"), value, NOW - DAY * (r() % 400) as f64);
        m.last_reinforced = m.created_at + DAY * (r() % 5) as f64;
        m.last_accessed = NOW - DAY * (r() % 90) as f64;
        m.access_count = (r() % 20) as u64;
        match r() % 40 {
            0 => m.sync.life.pinned = true,
            1..=6 => m.sync.life.importance = Some((r() % 11) as f64 / 10.0),
            7 if i > 0 => m.superseded_by = Some(format!("m{:03}", r() % i)),
            8 if i > 0 => m.contradicts = vec![format!("{domain}/{facet}/m{:03}", r() % i)],
            9 => m.sync.life.archived_at = Some(NOW - DAY),
            _ => {}
        }
        ms.push(m);
        states.push(MemoryState::ALL[[0, 0, 0, 1, 1, 2, 3][r() % 7]]);
    }
    (ms, states)
}

/// Issue 11: a large persona never shows a memory that a newer one replaces, and each shown
/// memory carries its answer (its quote is its first clause at least, which holds it).
#[test]
fn persona_of_500_keeps_every_shown_answer_and_no_replaced_one() {
    let out = check_generated(500, 7, true);
    assert!(out.covered >= 15, "{}", out.covered);
}

/// The same checks on personas whose seeds were not looked at while the format was tuned.
#[test]
fn held_out_personas_keep_every_shown_answer_too() {
    for (n, seed) in [(500, 101), (500, 202), (400, 303), (250, 404), (120, 505)] {
        check_generated(n, seed, false);
    }
}

/// Compresses `persona(n, seed)` within the default budget and checks: it fits (cl100k
/// and the estimate, which errs high), every shown memory's quote carries each word of its
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
        "persona({n}, seed {seed}): covers {} of {}, {} replaced; cl100k_base {real}, estimate {}",
        out.covered, out.total, out.replaced, out.estimated_tokens
    );
    assert!(real <= 500 && out.estimated_tokens <= 500 && real <= out.estimated_tokens, "{real}");
    assert_eq!(out.replaced, replaced.len());
    assert_eq!(out.total, current.len());
    assert!(out.omitted == 0 || out.text.ends_with(&format!("(+{} more)\n", out.omitted)));
    let answers: HashMap<String, &Vec<String>> = current.iter().map(|g| (g.memory.address(), &g.answer)).collect();
    for (address, quote) in check_lines(&out, &all) {
        for word in answers[&address] {
            assert!(has_word(&quote, word), "seed {seed}: {address} shows `{quote}` without `{word}`");
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

/// Whether `text` has `word` as a word of its own, whatever the case.
fn has_word(text: &str, word: &str) -> bool {
    text.split(TRIMMED)
        .flat_map(|t| t.split([' ', '>', '-', '(', ')', '\n', ',', ':', '.', ';', '\'']))
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// The report of issue 11: 186 memories compressed to `priya: allergy` with no allergy,
/// and a superseded belief shown.
#[test]
fn persona_of_186_shows_priyas_allergy_and_not_her_old_city() {
    let (mut current, mut replaced) = persona(184, 3);
    current.retain(|g| g.memory.key != "priya-allergy" && g.memory.key != "priya-city");
    replaced.retain(|g| !g.memory.key.starts_with("priya-"));
    let allergy = PersonaMemory::new("people", "facts", "priya-allergy", "Priya is allergic to peanuts", NOW);
    let city = PersonaMemory::new("people", "facts", "priya-city", "Priya moved to Lisbon in May", NOW);
    let mut old = PersonaMemory::new("people", "facts", "priya-home", "Priya lives in Berlin", NOW);
    old.superseded_by = Some("priya-city".into());
    let mut all: Vec<&PersonaMemory> = current.iter().chain(&replaced).map(|g| &g.memory).collect();
    all.extend([&allergy, &city, &old]);
    let input: Vec<_> = all.iter().map(|m| (*m, MemoryState::Active)).collect();
    let out = compress_detailed(&input, &CompressOptions::default());
    assert!(cl100k(&out.text) <= 500);
    let shown = check_lines(&out, &all);
    assert_eq!(shown["people/facts/priya-allergy"], "Priya is allergic to peanuts");
    assert_eq!(shown["people/facts/priya-city"], "Priya moved to Lisbon in May");
    assert!(!has_word(&out.text, "berlin") && !out.included.contains(&old.address()));
}

#[test]
fn superseded_and_contradicted_memories_are_left_out() {
    let mut old_city = mem("people", "facts", "tom-home", "Tom lives in Berlin");
    old_city.superseded_by = Some("tom-city".into());
    let new_city = mem("people", "facts", "tom-city", "Tom lives in Porto");
    let mut old_diet = mem("people", "facts", "tom-diet", "Tom is vegan");
    old_diet.created_at = NOW - DAY;
    // The correction names what it corrects, from another domain.
    let mut new_diet = mem("self", "beliefs", "tom-eats-fish", "Tom eats fish now");
    new_diet.contradicts = vec!["people/facts/tom-diet".into()];
    // A contradiction recorded on the older side is enough: the newer one stands.
    let mut old_pet = mem("people", "facts", "tom-pet", "Tom has a hamster");
    old_pet.created_at = NOW - DAY;
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

/// Fading and forgotten memories are current (their state follows reads); archived and
/// dissolved ones are not, unless pinned (a pinned memory never dissolves).
#[test]
fn archived_and_dissolved_stay_out_fading_and_forgotten_stay_in() {
    let mut pinned = mem("self", "facts", "pinned-fact", "Kept in context");
    pinned.sync.life.pinned = true;
    let mut archived = mem("self", "facts", "archived-fact", "Put away");
    archived.sync.life.archived_at = Some(NOW);
    let mut marked = mem("self", "facts", "marked-fact", "Found dissolved by pruning");
    marked.sync.life.dissolved_at = Some(NOW);
    let ms = [
        mem("self", "facts", "live-one", "Seen"),
        mem("self", "facts", "fading-one", "Fading"),
        mem("self", "facts", "forgotten-one", "Forgotten"),
        mem("self", "facts", "dissolved-one", "Dissolved"),
        pinned,
        archived,
        marked,
    ];
    let states = [
        MemoryState::Active,
        MemoryState::Fading,
        MemoryState::Forgotten,
        MemoryState::Dissolved,
        MemoryState::Dissolved,
        MemoryState::Active,
        MemoryState::Active,
    ];
    let input: Vec<_> = ms.iter().zip(states).collect();
    let out = compress_detailed(&input, &CompressOptions::default());
    assert_eq!(
        out.included,
        ["self/facts/pinned-fact", "self/facts/fading-one", "self/facts/forgotten-one", "self/facts/live-one"]
    );
    assert_eq!(out.total, 4);
}

#[test]
fn layout_is_headers_then_one_quoted_line_per_memory() {
    let mut ms = [
        mem("projects", "decisions", "voxrelay-voice", "We chose Orpheus 3B over Kokoro because of its warmth."),
        mem("people", "facts", "alice-tea", "Alice drinks green tea every morning."),
        mem("people", "facts", "alice-pets", "Alice has two cats and no dogs."),
    ];
    ms[1].created_at -= 60.0;
    let out = compress(&active(&ms), &CompressOptions::default());
    assert_eq!(
        out,
        "[domain:people/facet:facts]\nalice-pets: Alice has two cats and no dogs\n\
         alice-tea: Alice drinks green tea every morning\n\
         [domain:projects/facet:decisions]\nvoxrelay-voice: We chose Orpheus 3B over Kokoro because of its warmth\n"
    );
}

#[test]
fn domain_filter_keeps_one_domain() {
    let ms = persona50();
    let opts = CompressOptions { domain: Some("people".into()), max_tokens: None };
    let out = compress_detailed(&active(&ms), &opts);
    assert_eq!(out.included.len(), 12);
    assert!(out.included.iter().all(|a| a.starts_with("people/")));
    assert_eq!(out.text.lines().filter(|l| l.starts_with('[')).collect::<Vec<_>>(), ["[domain:people/facet:facts]"]);
}

#[test]
fn large_persona_is_cut_to_budget_oldest_first() {
    let base = persona50();
    let mut ms = Vec::new();
    for round in 0..6 {
        for m in &base {
            let mut m = m.clone();
            m.key = format!("{}-{round}", m.key);
            m.created_at -= 30.0 * DAY * round as f64;
            m.last_reinforced = m.created_at;
            ms.push(m);
        }
    }
    let out = compress_detailed(&active(&ms), &CompressOptions::default());
    let real = cl100k(&out.text);
    eprintln!(
        "300 memories: covers {} of {}, cl100k {real}, estimate {}",
        out.covered, out.total, out.estimated_tokens
    );
    assert!(out.estimated_tokens <= 500 && real <= out.estimated_tokens);
    assert!(out.omitted > 0 && out.total == 300);
    assert!(out.text.ends_with(&format!("(+{} more)\n", out.omitted)));
    // Round 0 is the newest: it goes in before any older copy.
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
    let generated: String = realistic(200, 5).0.iter().map(|m| line(&m.key, &normalize(&m.value))).collect();
    for text in [
        prose.as_str(),
        lower.as_str(),
        generated.as_str(),
        "Median VoxRelay latency: 780 ms, target 600 ms; Orpheus 3B over Kokoro.",
        "naïve café — 東京",
        "I replaced my iPhone 13 with a Pixel 9…",
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
struct Generated {
    memory: PersonaMemory,
    answer: Vec<String>,
}

/// A deterministic persona of `n` memories: people (allergies, cities, drinks, birthdays,
/// children, employers, phone numbers, a caffeine rule), projects (budgets, deadlines,
/// databases, leads), each value with a specific answer. About one in twelve has an old
/// value still in the persona, replaced by `superseded_by` or by the newer memory's
/// `contradicts`. Returns the current memories and the replaced ones (whose answers must
/// never be shown); `seed` shuffles which memories exist and their last access.
fn persona(n: usize, seed: u64) -> (Vec<Generated>, Vec<Generated>) {
    const PEOPLE: &[&str] = &[
        "Priya", "Tomas", "Ana", "Kenji", "Lucia", "Omar", "Greta", "Ravi", "Sofia", "Malik", "Elena", "Hugo", "Ines",
        "Jonas", "Mei", "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wes", "Ximena",
        "Yusuf", "Zara", "Bruno", "Chloe", "Dario", "Emeka", "Farah", "Gus", "Hana", "Ivan", "Jade", "Kofi", "Lena",
        "Milo", "Nadia", "Oscar", "Petra", "Rahul", "Selin", "Theo", "Uma", "Viktor",
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
        let (month, day, kids, phone) = (pick(next(), MONTHS), 1 + next() % 28, 1 + next() % 4, 1000 + next() % 9000);
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
            ("people", "facts", f("employer"), format!("{person} works at {e} on the payments team."), vec![e], None),
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
            ("projects", "facts", format!("{j}-deadline"), format!("{proj} must ship in {month}."), vec![month], None),
            ("projects", "facts", format!("{j}-lead"), format!("{lead} leads the {proj} project."), vec![lead], None),
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
