//! The lifecycle at scale (issue 26, point 7): one consolidation cycle and one
//! introspection over N persona memories, and searches run while each runs.
//!
//! ```text
//! cargo run --release --no-default-features --features vectors,onnx --example lifecycle_scale -- \
//!     [--memories 100000] [--model | --no-vectors] [--dir DIR] [--queries 100] [--new N]
//! ```
//!
//! Vectors come from a **deterministic stand-in embedder** (`StandInEmbedder`, model id
//! `stand-in-hashed-words-384`) unless `--model` loads the real one (embedding 100k
//! memories with the real model takes about 15 minutes on two cores): each content word
//! and each pair of neighbouring words is hashed onto four of 384 dimensions with a sign,
//! and the sum is normalised. Sentences sharing most of their words come out close
//! (near-duplicates at cosine 0.8-0.95), sentences from one template at 0.3-0.6, the rest
//! near 0. It has no notion of meaning: paraphrases are not close, as they are with the
//! model. It stands in for the model's cost profile (384 dimensions, unit vectors) and for
//! a store with near-duplicates, not for its neighbourhoods. `--no-vectors` runs without
//! vectors (word overlap).
//!
//! The store (in `--dir`, default `~/.cache/memstr/bench/lifecycle-{N}-{embedder}`) is
//! built once, by a child process, through the public API: N persona memories written a
//! thousand at a time with `persona_remember_batch` (automatic consolidation off), then
//! `index_pending`.
//! Memories are generated sentences (people, places, habits, projects, from word lists and
//! 14 templates), one to three themes from 40, and one in ten a near-duplicate of an earlier
//! one (a word changed or a few added). The build time is printed; an existing store is
//! reused.
//!
//! Then, in a fresh process (so its peak RSS is the measurement's alone): the store is
//! opened, `--queries` searches are timed with nothing else running (outside), then one
//! consolidation cycle runs in a task while searches run one after another until it ends
//! (during); then `--new` memories are written (default 1% of N, generated afresh and keyed
//! by the time, so reruns do not repeat them) and a second, steady cycle is timed the same way (it compares only what changed
//! since the first); then the same for one introspection. Printed: each one's time, the links the
//! cycle made, search p50 and worst outside and during, how many searches finished while
//! the cycle was still running, and peak RSS (VmHWM).

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memstr::index::Embedder;
use memstr::{Identity, LifecycleOptions, MemoryStore, PersonaInput, SearchQuery, StoreOptions};
use support::{peak_rss_mb, utc_now, Rng};

type BoxResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const DIMS: usize = 384;

/// The deterministic stand-in for an embedding model (see the module doc): hashed words
/// and word pairs, four signed dimensions each, normalised.
struct StandInEmbedder;

fn fnv(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    h ^ (h >> 29)
}

impl Embedder for StandInEmbedder {
    fn model_id(&self) -> &str {
        "stand-in-hashed-words-384"
    }
    fn dims(&self) -> usize {
        DIMS
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| stand_in_vector(t)).collect())
    }
}

fn stand_in_vector(text: &str) -> Vec<f32> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
        .filter(|w| !matches!(w.as_str(), "the" | "and" | "for" | "with" | "was" | "that" | "this" | "are" | "from"))
        .collect();
    let mut v = vec![0f32; DIMS];
    let mut add = |feature: &str, weight: f32| {
        for k in 0..4u64 {
            let h = fnv(feature.as_bytes(), k);
            let sign = if h & 1 == 0 { 1.0 } else { -1.0 };
            v[(h >> 1) as usize % DIMS] += sign * weight;
        }
    };
    for w in &words {
        add(w, 1.0);
    }
    for pair in words.windows(2) {
        add(&format!("{} {}", pair[0], pair[1]), 0.5);
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else {
        v[0] = 1.0;
    }
    v
}

const NAMES: &str = "Alice|Bob|Carmen|Dmitri|Elena|Farid|Grace|Hiroshi|Ines|Jamal|Kofi|Lena|Mateo|Nadia|Oscar|\
    Priya|Quentin|Rosa|Sven|Tariq|Uma|Victor|Wen|Ximena|Yusuf|Zoe|Amara|Bjorn|Chiara|Diego|Esther|Felix|Gita|Hugo|\
    Isla|Jonas|Keiko|Liam|Mira|Noah|Olga|Pablo|Rania|Samir|Tessa|Ulrich|Vera|Wiktor|Yara|Zeynep";
const PLACES: &str = "Lisbon|Berlin|Osaka|Toronto|Nairobi|Lima|Oslo|Hanoi|Austin|Porto|Krakow|Seoul|Dublin|\
    Marseille|Bogota|Tbilisi|Reykjavik|Valencia|Leeds|Adelaide";
const FOODS: &str = "green tea|oat milk|sourdough|ramen|dark chocolate|black coffee|miso soup|falafel|kimchi|\
    espresso|lentil curry|goat cheese|mango|oolong tea|pesto|tacos|dumplings|granola|hummus|pickled herring";
const HOBBIES: &str = "running|climbing|chess|woodworking|birdwatching|pottery|cycling|sailing|gardening|\
    photography|swimming|baking|knitting|fencing|rowing|painting|surfing|hiking|juggling|archery";
const PROJECTS: &str = "Atlas|Beacon|Cobalt|Delta|Ember|Falcon|Granite|Harbor|Iris|Juniper|Kestrel|Lumen|Meridian|\
    Nimbus|Orchid|Pylon|Quartz|Raven|Sierra|Tundra";
const TOOLS: &str = "Postgres|SQLite|Kafka|Redis|Terraform|Kubernetes|Rust|Go|TypeScript|Python|GraphQL|gRPC|\
    Vim|Emacs|Figma|Notion|Linear|Grafana|Sentry|Docker";
const DAYS: &str = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday";
const THEMES: [&str; 40] = [
    "food",
    "drinks",
    "family",
    "friends",
    "work",
    "health",
    "travel",
    "sport",
    "music",
    "reading",
    "home",
    "money",
    "projects",
    "tools",
    "meetings",
    "habits",
    "sleep",
    "learning",
    "pets",
    "garden",
    "cooking",
    "weekend",
    "city",
    "team",
    "deploys",
    "design",
    "writing",
    "movies",
    "fitness",
    "kids",
    "school",
    "car",
    "weather",
    "news",
    "shopping",
    "hobbies",
    "art",
    "languages",
    "planning",
    "privacy",
];
const DOMAINS: [(&str, &[&str]); 5] = [
    ("self", &["preferences", "habits", "beliefs", "facts"]),
    ("people", &["facts", "relationships"]),
    ("work", &["projects", "decisions", "procedures"]),
    ("places", &["facts", "visits"]),
    ("health", &["facts", "habits"]),
];

fn sentence(r: &mut Rng) -> String {
    let (n, p, f, h, pr, t, d) = (
        r.pick_bar(NAMES),
        r.pick_bar(PLACES),
        r.pick_bar(FOODS),
        r.pick_bar(HOBBIES),
        r.pick_bar(PROJECTS),
        r.pick_bar(TOOLS),
        r.pick_bar(DAYS),
    );
    let (n2, f2, t2) = (r.pick_bar(NAMES), r.pick_bar(FOODS), r.pick_bar(TOOLS));
    let k = r.below(90) + 3;
    match r.below(14) {
        0 => format!("{n} prefers {f} over {f2} most mornings"),
        1 => format!("I go {h} with {n} every {d} near {p}"),
        2 => format!("Project {pr} moved its storage from {t} to {t2} after the {d} review"),
        3 => format!("{n} lives in {p} and works on {pr} with {n2}"),
        4 => format!("We decided to keep {t} for {pr} because the team knows it well"),
        5 => format!("My doctor said to cut down on {f} and take up {h} twice a week"),
        6 => format!("{n}'s birthday dinner is at the {f} place in {p} on {d}"),
        7 => format!("The {pr} deploy runs every {d}; {n} owns the rollback checklist"),
        8 => format!("I visited {p} in spring and loved the {f} at the harbour market"),
        9 => format!("{n} is allergic to {f} and never eats {f2}"),
        10 => format!("Budget for {pr} is {k} thousand for the quarter, approved by {n}"),
        11 => format!("I sleep better after {h} and no screens after ten on {d}"),
        12 => format!("{n2} recommended {t} for {pr}, {n} would rather use {t2}"),
        _ => format!("Learning {h} in {p} took {k} weeks with {n} as coach"),
    }
}

/// Sentence `i` of the corpus: one in ten a near-duplicate of an earlier one.
fn corpus(n: usize) -> Vec<(String, String, String, Vec<String>)> {
    corpus_from(n, 0x11fe_c7c1_e5ca_1e26)
}

/// `n` generated memories from the generator seeded with `seed`.
fn corpus_from(n: usize, seed: u64) -> Vec<(String, String, String, Vec<String>)> {
    let mut r = Rng(seed);
    let mut out: Vec<(String, String, String, Vec<String>)> = Vec::with_capacity(n);
    for i in 0..n {
        let (domain, facets) = DOMAINS[r.below(DOMAINS.len())];
        let facet = facets[r.below(facets.len())];
        let value = if i > 10 && r.chance(0.1) {
            let (_, _, earlier, _) = &out[r.below(i)];
            match r.below(3) {
                0 => format!("{earlier} again"),
                1 => format!("{earlier}, as {} mentioned", r.pick_bar(NAMES)),
                _ => earlier.replacen(' ', &format!(" {} ", r.pick_bar(DAYS).to_lowercase()), 1),
            }
        } else {
            sentence(&mut r)
        };
        let themes: Vec<String> = (0..1 + r.below(3)).map(|_| THEMES[r.below(THEMES.len())].to_string()).collect();
        out.push((domain.to_string(), facet.to_string(), value, themes));
    }
    out
}

fn quiet_lifecycle() -> LifecycleOptions {
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    life
}

fn options(embedder: &Option<Arc<dyn Embedder>>) -> StoreOptions {
    let mut o = StoreOptions::default().lifecycle(quiet_lifecycle());
    if let Some(e) = embedder {
        o = o.embedder(e.clone());
    }
    o
}

async fn build(n: usize, dir: &Path, embedder: &Option<Arc<dyn Embedder>>) -> BoxResult<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let identity = Identity::generate();
    std::fs::write(dir.join("key.nsec"), identity.reveal_nsec().as_bytes())?;
    let store = MemoryStore::open(dir.join("store.db"), identity, options(embedder)).await?;
    let t = Instant::now();
    // A thousand a transaction (`persona_remember_batch`: each its own signed event, no
    // gate, as `persona_remember`): one call each took hours at 100k.
    let inputs: Vec<PersonaInput> = corpus(n)
        .into_iter()
        .enumerate()
        .map(|(i, (domain, facet, value, themes))| {
            PersonaInput::new(&domain, &facet, &format!("m{i:06}"), &value).themes(themes)
        })
        .collect();
    let mut done = 0;
    for chunk in inputs.chunks(1000) {
        store.persona_remember_batch(chunk.to_vec()).await?;
        done += chunk.len();
        if done % (n / 10).max(1000) == 0 {
            eprintln!("  wrote {done} ({:.0} s)", t.elapsed().as_secs_f64());
        }
    }
    let written = t.elapsed().as_secs_f64();
    let t2 = Instant::now();
    #[allow(unused_mut)]
    let mut embedded = 0;
    if embedder.is_some() {
        embedded = store.index_pending().await?;
    }
    let embed_s = t2.elapsed().as_secs_f64();
    store.close().await?;
    println!("build: {n} persona memories written in {written:.1} s, {embedded} embedded in {embed_s:.1} s");
    std::fs::write(dir.join("built"), format!("{n}\n"))?;
    Ok(())
}

fn percentile(ms: &mut [f64], p: f64) -> f64 {
    if ms.is_empty() {
        return f64::NAN;
    }
    ms.sort_by(f64::total_cmp);
    ms[((ms.len() - 1) as f64 * p).round() as usize]
}

fn queries(count: usize) -> Vec<String> {
    let mut r = Rng(0x5ea7c4);
    (0..count).map(|_| sentence(&mut r).split_whitespace().take(6).collect::<Vec<_>>().join(" ")).collect()
}

async fn one_search(store: &MemoryStore, text: &str) -> BoxResult<f64> {
    let t = Instant::now();
    store.search(SearchQuery::new(text)).await?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Searches one after another while `task` runs: (each search's ms, how many finished
/// before the task did).
async fn searches_during<T>(
    store: &Arc<MemoryStore>,
    texts: &[String],
    task: tokio::task::JoinHandle<T>,
) -> BoxResult<(Vec<f64>, usize, T, f64)> {
    let t = Instant::now();
    let mut ms = Vec::new();
    let mut i = 0;
    while !task.is_finished() {
        ms.push(one_search(store, &texts[i % texts.len()]).await?);
        i += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let ended = t.elapsed().as_secs_f64();
    let out = task.await?;
    // The last one may have ended after the task: counted only those before.
    let before = ms.len().saturating_sub(1);
    Ok((ms, before, out, ended))
}

/// One consolidation cycle, searches running while it runs; prints what it did and took.
async fn timed_cycle(store: &Arc<MemoryStore>, texts: &[String], label: &str) -> BoxResult<()> {
    let s = store.clone();
    let cycle = tokio::spawn(async move {
        let t = Instant::now();
        let r = s.consolidate().await;
        (r, t.elapsed().as_secs_f64())
    });
    let (mut during, finished, (report, took), _) = searches_during(store, texts, cycle).await?;
    let report = report?;
    println!(
        "{label}: {took:.2} s, compared {} ({}), linked {}, edges {}, pruned {} (state changes), promoted {}",
        report.compared,
        if report.compared_all { "all" } else { "changed since the last cycle" },
        report.linked,
        report.edges,
        report.prune.transitions.len(),
        report.promoted.len()
    );
    let steps: Vec<String> = report.steps.iter().map(|(step, s)| format!("{step} {s:.2}")).collect();
    println!("  steps (s): {}", steps.join(", "));
    let (p50, worst) = (percentile(&mut during, 0.5), percentile(&mut during, 1.0));
    println!(
        "search during the cycle: p50 {p50:.1} ms, worst {worst:.1} ms ({} searches, {finished} finished while it ran)",
        during.len()
    );
    Ok(())
}

async fn measure(
    n: usize,
    new: usize,
    dir: &Path,
    embedder: &Option<Arc<dyn Embedder>>,
    count: usize,
) -> BoxResult<()> {
    let identity = Identity::from_secret(std::fs::read_to_string(dir.join("key.nsec"))?.trim())?;
    let t = Instant::now();
    let store = Arc::new(MemoryStore::open(dir.join("store.db"), identity, options(embedder)).await?);
    println!("open: {:.2} s", t.elapsed().as_secs_f64());
    let texts = queries(count.max(10));
    for q in texts.iter().take(10) {
        one_search(&store, q).await?;
    }
    let mut outside = Vec::new();
    for q in &texts {
        outside.push(one_search(&store, q).await?);
    }
    let (p50_out, max_out) = (percentile(&mut outside, 0.5), percentile(&mut outside, 1.0));
    println!("search outside any cycle: p50 {p50_out:.1} ms, worst {max_out:.1} ms ({} searches)", outside.len());

    timed_cycle(&store, &texts, "consolidation").await?;
    // A steady cycle: `--new` memories written since the last (default 1% of the store),
    // as an agent's day of writing between two cycles. Keys carry the time, so a rerun on
    // the same store adds others.
    if new > 0 {
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
        // Texts of their own each run (seeded by the time), so a rerun on the same store does
        // not write copies of the last run's.
        let inputs: Vec<PersonaInput> = corpus_from(new, stamp)
            .into_iter()
            .enumerate()
            .map(|(i, (domain, facet, value, themes))| {
                PersonaInput::new(&domain, &facet, &format!("new{stamp}-{i:06}"), &value).themes(themes)
            })
            .collect();
        let t = Instant::now();
        for chunk in inputs.chunks(1000) {
            store.persona_remember_batch(chunk.to_vec()).await?;
        }
        let embedded = store.index_pending().await?;
        println!("wrote {new} new memories, {embedded} embedded, in {:.1} s", t.elapsed().as_secs_f64());
        timed_cycle(&store, &texts, "steady consolidation").await?;
    }

    let s = store.clone();
    let review = tokio::spawn(async move {
        let t = Instant::now();
        let r = s.persona_introspect().await;
        (r, t.elapsed().as_secs_f64())
    });
    let (mut during, finished, (report, took), _) = searches_during(&store, &texts, review).await?;
    let report = report?;
    println!(
        "introspection: {took:.2} s ({} suggested connections, {} orphaned listed, {} contradictions)",
        report.suggested_connections.len(),
        report.orphaned.len(),
        report.contradictions.len()
    );
    let (p50, worst) = (percentile(&mut during, 0.5), percentile(&mut during, 1.0));
    println!(
        "search during introspection: p50 {p50:.1} ms, worst {worst:.1} ms ({} searches, {finished} finished while it ran)",
        during.len()
    );
    println!("peak RSS: {:.0} MB ({n} persona memories)", peak_rss_mb());
    match Arc::try_unwrap(store) {
        Ok(store) => store.close().await?,
        Err(_) => eprintln!("store still shared at the end"),
    }
    Ok(())
}

#[tokio::main]
async fn main() -> BoxResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let n: usize = value("--memories").map_or(Ok(100_000), |v| v.parse())?;
    let count: usize = value("--queries").map_or(Ok(100), |v| v.parse())?;
    let (model, no_vectors) = (args.iter().any(|a| a == "--model"), args.iter().any(|a| a == "--no-vectors"));
    let name = if no_vectors {
        "words"
    } else if model {
        "model"
    } else {
        "stand-in"
    };
    let embedder: Option<Arc<dyn Embedder>> = if no_vectors {
        None
    } else if model {
        Some(Arc::new(memstr::index::OnnxEmbedder::from_cache()?))
    } else {
        Some(Arc::new(StandInEmbedder))
    };
    let dir = value("--dir")
        .map(PathBuf::from)
        .unwrap_or_else(|| memstr::index::cache_dir().join("bench").join(format!("lifecycle-{n}-{name}")));
    println!(
        "lifecycle_scale: {n} persona memories, vectors: {}",
        match (no_vectors, model) {
            (true, _) => "none (word overlap)".to_string(),
            (_, true) => format!("the model ({})", memstr::index::DEFAULT_MODEL),
            _ => "the deterministic stand-in embedder (hashed words, not a model)".to_string(),
        }
    );
    println!("date: {}; store: {}", utc_now(), dir.display());
    if args.iter().any(|a| a == "--build-only") {
        return build(n, &dir, &embedder).await;
    }
    if !dir.join("built").exists() {
        // The build in a child process, so the peak RSS below is the measurement's own.
        let status = std::process::Command::new(std::env::current_exe()?)
            .args(args.iter().skip(1))
            .arg("--build-only")
            .status()?;
        if !status.success() {
            return Err("build failed".into());
        }
    } else {
        println!("build: reusing the store");
    }
    let new: usize = value("--new").map_or(Ok(n / 100), |v| v.parse())?;
    measure(n, new, &dir, &embedder, count).await
}
