//! The compressed persona on fixtures and generated personas: every shown value quoted at
//! every budget, coverage, the estimate against cl100k.

use super::*;

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
pub(super) struct Generated {
    pub(super) memory: PersonaMemory,
    answer: Vec<String>,
}

/// A deterministic persona of `n` memories: people (allergies, cities, drinks, birthdays,
/// children, employers, phone numbers, a caffeine rule), projects (budgets, deadlines,
/// databases, leads), each value with a specific answer. About one in twelve has an old
/// value still in the persona, replaced by `superseded_by` or by the newer memory's
/// `contradicts`. Returns the current memories and the replaced ones (whose answers must
/// never be shown); `seed` shuffles which memories exist and their last access.
pub(super) fn persona(n: usize, seed: u64) -> (Vec<Generated>, Vec<Generated>) {
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
