//! Search performance at 1k, 10k and 100k memories: hybrid search latency with and without
//! the query's embedding, the floors under it (raw FTS5, brute-force cosine), ingest rate
//! with batched embedding, time to open an existing store, and peak RSS, in one run.
//!
//! ```text
//! cargo run --release --example search_bench -- [--sizes 1000,10000,100000] [--queries 200]
//!     [--dir PATH] [--reuse] [--stand-in]
//! ```
//!
//! Needs the embedding model (`memstr model install` or `bash scripts/models/fetch.sh`),
//! unless `--stand-in` replaces it with a deterministic word-hash embedder (`StandIn`
//! below: not a model, named as such in the output) so a million memories build in
//! minutes; latency then excludes the model, whose cost per query does not grow with the
//! store.
//! `--dir` keeps the stores (default: a temporary directory, removed at the end);
//! `--reuse` skips building a size whose store is already in `--dir` (its ingest columns
//! are then empty); when that store's embedding was interrupted, a child first finishes it
//! with `index_pending()` and reports that part as "embedding finished on reuse".
//!
//! Each size runs in two fresh processes (this program re-executes itself with a hidden
//! `--child` flag), so each peak RSS (VmHWM in /proc/self/status) belongs to one job:
//!
//! 1. build: N journal entries of generated sentences (8 to 25 words: names, places,
//!    objects, dates, projects, from word lists and 16 templates), written one by one with
//!    `journal_at` under a `ManualClock` (gaps of 5 to 95 minutes; past 10k, a thousand at
//!    a time with `write_batch`), then `index_pending()`
//!    embeds them all in memstr's batches, then `close()` saves the vector index.
//!    Automatic consolidation is off while building, so the ingest figure is writing plus
//!    embedding alone. Peak RSS of this process: writing, embedding and building the HNSW graph.
//! 2. measure: loads the model, then opens the store three times (each: `MemoryStore::open`,
//!    `index_pending()` which must return 0, the first search), keeping the last one open;
//!    runs `--queries` searches without query embedding, then the same with it, then the
//!    first pass again (warm caches), then (a diagnostic) with the episode expansion off;
//!    reads the
//!    peak RSS (the "serving" number: model + open store + searches); then the floors:
//!    the same queries as a raw FTS5 query through rusqlite on the store file, and as a
//!    brute-force cosine scan over the stored vectors (loaded once into memory; only the
//!    scan and top 10 are timed). Last, the steps of opening are timed one by one.
//!
//! "Without query embedding" means search's cost minus the model calls: the store's
//! embedder wraps the real model and, in that pass, answers a query text from vectors the
//! same model computed beforehand (for the query as written and as the search reads it,
//! a time its words name taken out); the pass fails if any query text reaches the model.
//! Documents always go to the real model. "With" sends
//! the query to the model as well. Queries come from the same sentence generator with
//! another seed, are distinct, and are never identical to a stored text.

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;
use support::{utc_now, Rng};

use memstr::index::vectors::{from_blob, VectorIndex};
use memstr::index::{Embedder, OnnxEmbedder};
use memstr::search::{content_terms, fts_any, SearchQuery, Weights};
use memstr::{BatchItem, Identity, LifecycleOptions, ManualClock, MemoryStore, StoreOptions};

type BoxResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Targets from the issue, at 100k memories.
const TARGET_SEARCH_P50_MS: f64 = 10.0;
const TARGET_OPEN_S: f64 = 1.0;
const TARGET_RSS_MB: f64 = 500.0;
/// Warm-up searches before each timed pass (extra queries, not counted).
const WARMUP: usize = 10;
/// 2023-01-01T00:00:00Z: the first journal entry.
const START_TS: f64 = 1_672_531_200.0;

// ---------------------------------------------------------------------------------------
// Sentences

const NAMES: &str = "Alice|Bob|Carmen|Dmitri|Elena|Farid|Grace|Hiroshi|Ines|Jamal|Kofi|Lena|Mateo|Nadia|Oscar|Priya|\
    Quentin|Rosa|Sven|Tariq|Uma|Victor|Wen|Ximena|Yusuf|Zoe|Amara|Bjorn|Chiara|Diego|Esther|Felix|Gita|\
    Hugo|Isla|Jonas|Keiko|Liam|Mira|Noah|Olga|Pablo|Rania|Samir|Tessa|Ulrich|Vera|Wiktor|Yara|Zeynep|\
    Mom|Dad|Grandma|my manager|the landlord|the dentist|my sister|my neighbour|the plumber|Coach Rivera";
const RELATIONS: &str =
    "daughter|son|partner|brother|sister|mother|father|cousin|best friend|roommate|boss|grandfather|\
    niece|nephew|colleague";
const PLACES: &str = "the office|the gym|the library|the farmers market|the airport|the cafe on Main Street|\
    the train station|the park|the hospital|the hardware store|the bakery|the lake house|\
    the conference center|the school|the museum|the garage|the clinic|the beach|the ski lodge|\
    the coworking space|the pharmacy|the post office|the community garden|the swimming pool|\
    the bookshop|the climbing wall|the vet|the city hall|the night market|the repair shop";
const CITIES: &str =
    "Lisbon|Berlin|Nairobi|Osaka|Toronto|Austin|Bogota|Krakow|Melbourne|Oslo|Seoul|Cairo|Denver|Dublin|\
    Hanoi|Lima|Madrid|Mumbai|Prague|Quebec|Reykjavik|Santiago|Tbilisi|Vienna|Zurich|Chicago|Athens|\
    Jakarta|Marseille|Porto|Accra|Helsinki";
const OBJECTS: &str =
    "laptop|bicycle|passport|umbrella|blue notebook|spare key|tax return|birthday cake|guitar|camera|\
    winter coat|running shoes|coffee grinder|lease agreement|insurance form|car battery|garden hose|\
    phone charger|concert tickets|library book|hiking boots|printer|wifi router|kitchen scale|yoga mat|\
    watercolor set|backpack|headphones|sourdough starter|desk lamp|electric kettle|tent|sewing machine|\
    drill|bookshelf|microwave|smoke detector|dishwasher|office chair|monitor|keyboard|suitcase|\
    wedding invitation|medical records|vaccination card|house plant|fish tank|snow shovel|toolbox|\
    baby stroller";
const VERBS: &str =
    "bought|lost|found|borrowed|returned|fixed|broke|sold|ordered|repaired|painted|cleaned|packed|forgot|\
    shipped|replaced|wrapped|misplaced|recommended|reviewed|measured|assembled|inspected|donated|rented";
const FOODS: &str =
    "spicy ramen|oat milk lattes|dark chocolate|pineapple pizza|green tea|lentil soup|sushi|black coffee|\
    mango sticky rice|falafel|cheesecake|kimchi|peanut butter|sparkling water|blue cheese|pho|\
    tacos al pastor|croissants|paella|dumplings|grilled salmon|banana bread";
const ALLERGENS: &str = "peanuts|shellfish|gluten|lactose|cats|pollen|penicillin|soy|eggs";
const FEELINGS: &str =
    "excited|anxious|relieved|frustrated|tired|grateful|confused|proud|nervous|happy|overwhelmed|hopeful|\
    annoyed|calm";
const TOPICS: &str = "the budget|the deadline|hiring|the roadmap|the contract|holiday plans|the move|the vet bill|\
    the school play|the server outage|pricing|the new policy|vacation days|the lease|the refactor|\
    the mortgage|the reunion|the garden fence|the insurance claim|the team offsite|the tax deadline";
const PROJECTS: &str = "billing migration|mobile app|search service|quarterly report|data pipeline|website redesign|\
    onboarding flow|grant proposal|kitchen renovation|wedding plan|thesis draft|podcast episode|\
    garden plot|budget spreadsheet|customer survey|analytics dashboard|fundraiser|book club";
const COMPONENTS: &str = "database|cache|load balancer|build server|payment gateway|message queue|DNS resolver|disk|\
    TLS certificate|cron job|backup script|search index";
const RESOURCES: &str = "memory|disk space|file handles|connections|CPU credits|quota";
const HOBBIES: &str = "bouldering|chess|salsa dancing|birdwatching|pottery|marathon training|baking bread|\
    learning Japanese|woodworking|photography|sailing|knitting|playing the cello|beekeeping";
const BOOKS: &str =
    "The Overstory|Dune|Middlemarch|Project Hail Mary|Thinking Fast and Slow|The Left Hand of Darkness|\
    Educated|Piranesi|Sapiens|The Remains of the Day|Klara and the Sun|The Name of the Rose";
const SUBJECTS: &str = "octopuses|volcanoes|the moon landing|deep sea vents|ancient Rome|jazz in Harlem|coral reefs|\
    the printing press|honey bees|glaciers|the silk road|black holes";
const WEEKDAYS: &str = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday";
const MONTHS: &str = "January|February|March|April|May|June|July|August|September|October|November|December";
const WHEN: &str = "yesterday|this morning|last night|last weekend|on Sunday afternoon|two weeks ago|earlier today|\
    before lunch|after the standup|during the storm|over the holidays|last month";
const TIMES: &str = "9 am|10:30|noon|2 pm|3:15 pm|5 pm|7 in the evening|8:45";
const EVENTS: &str = "a wedding|a job interview|the conference|a funeral|a family reunion|a marathon|a product launch|\
    a medical appointment|the graduation|a concert";
const CONTAINERS: &str = "top drawer|blue folder|glovebox|kitchen cabinet|shoebox|email archive";
const TAILS: &str = ", which took longer than expected|, and it cost more than planned|, according to the email|\
    , even though it was raining|, so follow up next week|, and nobody was surprised|, worth remembering for next time";

fn date(r: &mut Rng) -> String {
    match r.below(3) {
        0 => format!("{} {}", r.pick_bar(MONTHS), 1 + r.below(28)),
        1 => format!("next {}", r.pick_bar(WEEKDAYS)),
        _ => format!("{} {}", r.pick_bar(MONTHS), 2019 + r.below(7)),
    }
}

fn other(r: &mut Rng, list: &'static str, not: &str) -> &'static str {
    loop {
        let x = r.pick_bar(list);
        if x != not {
            return x;
        }
    }
}

/// One sentence of 8 to 25 words.
fn sentence(r: &mut Rng) -> String {
    loop {
        let n = r.pick_bar(NAMES);
        let mut s = match r.below(16) {
            0 => format!(
                "{n} {} the {} at {} {}",
                r.pick_bar(VERBS),
                r.pick_bar(OBJECTS),
                r.pick_bar(PLACES),
                r.pick_bar(WHEN)
            ),
            1 => {
                let f = r.pick_bar(FOODS);
                let g = other(r, FOODS, f);
                format!("{n} said they prefer {f} over {g} and are allergic to {}", r.pick_bar(ALLERGENS))
            }
            2 => {
                let m = other(r, NAMES, n);
                format!(
                    "Meeting with {n} and {m} about {} for the {} moved to {} at {}",
                    r.pick_bar(TOPICS),
                    r.pick_bar(PROJECTS),
                    r.pick_bar(WEEKDAYS),
                    r.pick_bar(TIMES)
                )
            }
            3 => {
                let c = r.pick_bar(CITIES);
                let d = other(r, CITIES, c);
                format!("{n} is flying from {c} to {d} on {} for {}", date(r), r.pick_bar(EVENTS))
            }
            4 => format!(
                "The {} deploy failed {} because the {} ran out of {}; {n} rolled it back",
                r.pick_bar(PROJECTS),
                r.pick_bar(WHEN),
                r.pick_bar(COMPONENTS),
                r.pick_bar(RESOURCES)
            ),
            5 => format!(
                "I felt {} after talking to {n} about {} {}",
                r.pick_bar(FEELINGS),
                r.pick_bar(TOPICS),
                r.pick_bar(WHEN)
            ),
            6 => format!(
                "{n} recommended {} while we were having {} in {}",
                r.pick_bar(BOOKS),
                r.pick_bar(FOODS),
                r.pick_bar(CITIES)
            ),
            7 => format!(
                "Remember that {n}'s {} has a birthday on {} and loves {}",
                r.pick_bar(RELATIONS),
                date(r),
                r.pick_bar(HOBBIES)
            ),
            8 => format!(
                "{n} started {} {} and practices at {} every {}",
                r.pick_bar(HOBBIES),
                r.pick_bar(WHEN),
                r.pick_bar(PLACES),
                r.pick_bar(WEEKDAYS)
            ),
            9 => format!(
                "Paid {} dollars for the {} at {}; the receipt is in the {}",
                5 + r.below(995),
                r.pick_bar(OBJECTS),
                r.pick_bar(PLACES),
                r.pick_bar(CONTAINERS)
            ),
            10 => format!(
                "The {} alert fired {} times {}, so {n} opened a ticket for the {}",
                r.pick_bar(COMPONENTS),
                2 + r.below(40),
                r.pick_bar(WHEN),
                r.pick_bar(PROJECTS)
            ),
            11 => format!(
                "{n} asked me to pick up the {} from {} before {} at {}",
                r.pick_bar(OBJECTS),
                r.pick_bar(PLACES),
                r.pick_bar(WEEKDAYS),
                r.pick_bar(TIMES)
            ),
            12 => format!(
                "Note to self: call {n} about the {} and {} after the trip to {}",
                r.pick_bar(OBJECTS),
                r.pick_bar(TOPICS),
                r.pick_bar(CITIES)
            ),
            13 => format!(
                "{n} and I watched a documentary about {} at {} {}",
                r.pick_bar(SUBJECTS),
                r.pick_bar(PLACES),
                r.pick_bar(WHEN)
            ),
            14 => format!(
                "{n} moved to {} in {} and now works on the {} with my {}",
                r.pick_bar(CITIES),
                date(r),
                r.pick_bar(PROJECTS),
                r.pick_bar(RELATIONS)
            ),
            _ => format!(
                "Felt {} {} because {n} finished the {} before {}",
                r.pick_bar(FEELINGS),
                r.pick_bar(WHEN),
                r.pick_bar(PROJECTS),
                r.pick_bar(TOPICS)
            ),
        };
        if r.chance(0.4) {
            s.push_str(r.pick_bar(TAILS));
        }
        if r.chance(0.25) {
            let m = r.pick_bar(NAMES);
            s.push_str(&format!(" and {m} joined later"));
        }
        s.push('.');
        let mut chars = s.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
        let s = first + chars.as_str();
        let words = s.split_whitespace().count();
        if (8..=25).contains(&words) {
            return s;
        }
    }
}

/// The stored texts: `n` distinct sentences with their timestamps (seed 1).
///
/// Distinct, ignoring case (the model is uncased): two equal texts would be one point
/// twice, which tells a search benchmark nothing.
fn corpus(n: usize) -> Vec<(String, f64)> {
    let mut r = Rng(1);
    let mut ts = START_TS;
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let s = sentence(&mut r);
        if seen.insert(s.to_lowercase()) {
            ts += 300.0 + r.below(5400) as f64;
            out.push((s, ts));
        }
    }
    out
}

/// `n` distinct query texts (seed 2), none equal to a stored text (ignoring case).
fn queries(n: usize, stored: &HashSet<String>) -> Vec<String> {
    let mut r = Rng(2);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    while out.len() < n {
        let q = sentence(&mut r);
        let lower = q.to_lowercase();
        if !stored.contains(&lower) && seen.insert(lower) {
            out.push(q);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The embedder wrapper

/// The real model for documents; for queries, vectors computed beforehand by the same
/// model when `cached` is on (the "without query embedding" pass).
struct BenchEmbedder {
    model: Arc<dyn Embedder>,
    known: RwLock<HashMap<String, Vec<f32>>>,
    cached: AtomicBool,
    model_nanos: AtomicU64,
    model_texts: AtomicU64,
    cache_hits: AtomicU64,
    /// Print progress to stderr every this many texts (0: never).
    progress: u64,
}

impl BenchEmbedder {
    fn new(model: Arc<dyn Embedder>, progress: u64) -> Self {
        BenchEmbedder {
            model,
            known: RwLock::new(HashMap::new()),
            cached: AtomicBool::new(false),
            model_nanos: AtomicU64::new(0),
            model_texts: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            progress,
        }
    }
}

impl Embedder for BenchEmbedder {
    fn model_id(&self) -> &str {
        self.model.model_id()
    }
    fn dims(&self) -> usize {
        self.model.dims()
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        if self.cached.load(Ordering::SeqCst) && texts.len() == 1 {
            if let Some(v) = self.known.read().unwrap().get(texts[0]) {
                self.cache_hits.fetch_add(1, Ordering::SeqCst);
                return Ok(vec![v.clone()]);
            }
        }
        let t = Instant::now();
        let out = self.model.embed(texts)?;
        self.model_nanos.fetch_add(t.elapsed().as_nanos() as u64, Ordering::SeqCst);
        let before = self.model_texts.fetch_add(texts.len() as u64, Ordering::SeqCst);
        let after = before + texts.len() as u64;
        if self.progress > 0 && after / self.progress > before / self.progress {
            eprintln!(
                "  embedded {after} texts ({:.0} s in the model)",
                self.model_nanos.load(Ordering::SeqCst) as f64 / 1e9
            );
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------
// Measuring

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// (p50, p95) in milliseconds, nearest rank.
fn pcts(samples: &[f64]) -> (f64, f64) {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1] * 1000.0;
    (at(0.50), at(0.95))
}

fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A field of /proc/self/status in kB.
fn status_kb(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// User + system CPU seconds of this process (/proc/self/stat fields 14 and 15).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: u64 = rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum();
    ticks as f64 / 100.0
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn dir_bytes(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => {
            std::fs::read_dir(p).map(|d| d.flatten().map(|e| dir_bytes(&e.path())).sum()).unwrap_or(0)
        }
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Emits one result for the parent.
fn result(key: &str, value: impl std::fmt::Display) {
    println!("RESULT {key}={value}");
}

fn load_model() -> BoxResult<(Arc<dyn Embedder>, f64)> {
    if stand_in() {
        return Ok((Arc::new(StandIn), 0.0));
    }
    let t = Instant::now();
    let model = OnnxEmbedder::from_cache().map_err(|e| format!("{e} (run `bash scripts/models/fetch.sh`)"))?;
    Ok((Arc::new(model), secs(t)))
}

/// `--stand-in` (passed to the children in the environment).
fn stand_in() -> bool {
    std::env::var_os("SEARCH_BENCH_STAND_IN").is_some()
}

/// A deterministic stand-in for the embedding model, NOT a model: each word (its first six
/// letters, lower case) is a fixed pseudo-random direction, and a text is the normalised
/// sum of its words'. Texts that share words are close, as with a model, so the index and
/// the search do the same work; what the vectors mean is not measured. It lets the large
/// sizes run in minutes instead of hours of model time; its model id keeps its vectors
/// apart from a real model's.
struct StandIn;

impl Embedder for StandIn {
    fn model_id(&self) -> &str {
        "stand-in-word-hash-384"
    }
    fn dims(&self) -> usize {
        384
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 384];
                for w in t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                    let stem: String = w.to_lowercase().chars().take(6).collect();
                    let mut h = stem
                        .bytes()
                        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x1000_0000_01b3));
                    for x in v.iter_mut() {
                        h ^= h << 13;
                        h ^= h >> 7;
                        h ^= h << 17;
                        *x += (h >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                    }
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                v.iter_mut().for_each(|x| *x /= norm);
                v
            })
            .collect())
    }
}

// ---------------------------------------------------------------------------------------
// Child 1: build

async fn build(n: usize, dir: &Path) -> BoxResult<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    result("load_start", loadavg());
    let (model, _) = load_model()?;
    let texts = corpus(n);
    let identity = Identity::generate();
    std::fs::write(dir.join("key.nsec"), identity.reveal_nsec().as_bytes())?;
    let emb = Arc::new(BenchEmbedder::new(model, if n >= 10_000 { 5_000 } else { 0 }));
    let clock = Arc::new(ManualClock::new(START_TS));
    // Automatic consolidation off: it would embed pending records in the background every
    // 50 writes, and this measures batched embedding on its own.
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let opts = StoreOptions::default().clock(clock.clone()).embedder(emb.clone()).lifecycle(life);
    let store = MemoryStore::open(dir.join("store.db"), identity, opts).await?;

    let words: usize = texts.iter().map(|(s, _)| s.split_whitespace().count()).sum();
    result("avg_words", format!("{:.1}", words as f64 / n as f64));
    // Past 10k, through the batch call (a thousand entries a transaction, each its own
    // signed event): one call per entry would take most of an hour at a million.
    let batched = n > 10_000;
    result("write_batched", batched);
    eprintln!("  build {n}: writing {n} journal entries{}", if batched { " in batches of 1000" } else { "" });
    let (t, c) = (Instant::now(), cpu_secs());
    if batched {
        for (b, chunk) in texts.chunks(1000).enumerate() {
            clock.set(chunk.last().map_or(START_TS, |(_, ts)| *ts));
            store
                .write_batch(chunk.iter().map(|(text, ts)| BatchItem::journal(text.as_str()).at(*ts)).collect())
                .await?;
            let done = (b + 1) * 1000;
            if done % (n / 10).max(1000) == 0 {
                eprintln!("  wrote {done} ({:.0} s)", secs(t));
            }
        }
    } else {
        for (i, (text, ts)) in texts.iter().enumerate() {
            clock.set(*ts);
            store.journal_at(text, *ts).await?;
            if n >= 10_000 && (i + 1) % (n / 10) == 0 {
                eprintln!("  wrote {} ({:.0} s)", i + 1, secs(t));
            }
        }
    }
    let (write_s, write_cpu) = (secs(t), cpu_secs() - c);
    result("write_s", format!("{write_s:.3}"));
    result("write_cpu", format!("{write_cpu:.2}"));
    result("load_after_write", loadavg());

    eprintln!("  build {n}: index_pending()");
    let (t, c) = (Instant::now(), cpu_secs());
    let embedded = store.index_pending().await?;
    let (embed_s, embed_cpu) = (secs(t), cpu_secs() - c);
    if embedded != n {
        return Err(format!("index_pending embedded {embedded}, expected {n}").into());
    }
    result("embed_s", format!("{embed_s:.3}"));
    result("embed_cpu", format!("{embed_cpu:.2}"));
    result("embed_model_s", format!("{:.3}", emb.model_nanos.load(Ordering::SeqCst) as f64 / 1e9));
    result("embedded", embedded);

    let t = Instant::now();
    store.close().await?;
    result("close_s", format!("{:.3}", secs(t)));
    result("build_hwm_kb", status_kb("VmHWM:"));
    let db = dir.join("store.db");
    let sqlite_bytes =
        ["", "-wal", "-shm"].iter().map(|s| dir_bytes(Path::new(&format!("{}{s}", db.display())))).sum::<u64>();
    result("db_bytes", sqlite_bytes);
    result("index_bytes", dir_bytes(&VectorIndex::dir_for(&db)));
    result("load_end_build", loadavg());
    Ok(())
}

/// `--reuse` of a store whose build stopped during `index_pending()` (a long run cut
/// short): embeds what is left, with the build's settings, and saves the index.
async fn finish(dir: &Path) -> BoxResult<()> {
    let (model, _) = load_model()?;
    let nsec = std::fs::read_to_string(dir.join("key.nsec"))?;
    let emb = Arc::new(BenchEmbedder::new(model, 5_000));
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let opts = StoreOptions::default().embedder(emb.clone()).lifecycle(life);
    let store = MemoryStore::open(dir.join("store.db"), Identity::from_secret(&nsec)?, opts).await?;
    let (t, c) = (Instant::now(), cpu_secs());
    let embedded = store.index_pending().await?;
    result("finish_embedded", embedded);
    result("finish_s", format!("{:.3}", secs(t)));
    result("finish_cpu", format!("{:.2}", cpu_secs() - c));
    store.close().await?;
    result("finish_hwm_kb", status_kb("VmHWM:"));
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Where a pass spends its time: the library's "search pass" debug event, captured

/// The step times of each search pass since the last [`take_passes`], from the library's
/// `search pass` debug event (the same one `MEMSTR_LOG=memstr=debug` prints).
static PASSES: std::sync::Mutex<Vec<HashMap<&'static str, f64>>> = std::sync::Mutex::new(Vec::new());

fn take_passes() -> Vec<HashMap<&'static str, f64>> {
    std::mem::take(&mut *PASSES.lock().unwrap())
}

/// A subscriber that keeps only the `search pass` events' numbers: every other call site
/// is disabled once, so the bench pays nothing for the library's other events, and about
/// a microsecond a pass (a lock, a map) for these.
struct PassSteps;

fn is_pass(m: &tracing::Metadata<'_>) -> bool {
    m.is_event() && m.fields().field("pass_ms").is_some()
}

impl tracing::Subscriber for PassSteps {
    fn register_callsite(&self, m: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        if is_pass(m) {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }
    fn enabled(&self, m: &tracing::Metadata<'_>) -> bool {
        is_pass(m)
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::DEBUG)
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(HashMap<&'static str, f64>);
        impl tracing::field::Visit for Fields {
            fn record_f64(&mut self, f: &tracing::field::Field, v: f64) {
                self.0.insert(f.name(), v);
            }
            fn record_bool(&mut self, f: &tracing::field::Field, v: bool) {
                self.0.insert(f.name(), if v { 1.0 } else { 0.0 });
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        let mut fields = Fields(HashMap::new());
        event.record(&mut fields);
        PASSES.lock().unwrap().push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The median of each step over `passes`, as RESULT lines `{prefix}_{step}`.
fn pass_steps(prefix: &str, passes: &[HashMap<&'static str, f64>]) {
    let steps = ["before_ms", "words_ms", "model_ms", "index_ms", "waited_ms", "after_ms", "pass_ms"];
    // A pass that reused its search's vector ran neither the model nor the index: its steps
    // are another kind of pass's, counted apart.
    let reused = |p: &&HashMap<&'static str, f64>| p.get("reused") == Some(&1.0);
    let ran: Vec<&HashMap<&'static str, f64>> = passes.iter().filter(|p| !reused(p)).collect();
    for step in steps {
        let v: Vec<f64> = ran.iter().filter_map(|p| p.get(step).copied()).collect();
        if !v.is_empty() {
            result(&format!("{prefix}_{}", step.trim_end_matches("_ms")), format!("{:.2}", median(&v)));
        }
    }
    result(&format!("{prefix}_passes"), ran.len());
    result(&format!("{prefix}_reused"), passes.len() - ran.len());
}

// ---------------------------------------------------------------------------------------
// Child 2: measure

async fn measure(n: usize, nq: usize, dir: &Path) -> BoxResult<()> {
    result("load_start_measure", loadavg());
    tracing::subscriber::set_global_default(PassSteps)?;
    let (model, model_load_s) = load_model()?;
    result("model_load_s", format!("{model_load_s:.3}"));
    let texts = corpus(n);
    let stored: HashSet<String> = texts.iter().map(|(s, _)| s.to_lowercase()).collect();
    let all_q = queries(nq + WARMUP + 3, &stored);
    let (warm, rest) = all_q.split_at(WARMUP);
    let (qs, first_qs) = rest.split_at(nq);
    let last_ts = texts.last().map_or(START_TS, |t| t.1);
    drop(stored);
    drop(texts);

    // The model's own cost per query, and the vectors of the "without" pass.
    let emb = Arc::new(BenchEmbedder::new(model.clone(), 0));
    let mut embed_alone = Vec::new();
    {
        let mut known = emb.known.write().unwrap();
        for q in &all_q {
            let t = Instant::now();
            let v = model.embed(&[q])?.pop().ok_or("no vector")?;
            embed_alone.push(secs(t));
            known.insert(q.clone(), v);
            // A time the words name ("on 14 March") leaves the text the search embeds.
            if let Some(e) = memstr::search::time::find_expression(q, last_ts + 86_400.0) {
                let rest = e.rest(q);
                let v = model.embed(&[&rest])?.pop().ok_or("no vector")?;
                known.insert(rest, v);
            }
        }
    }
    let (p50, p95) = pcts(&embed_alone[WARMUP..WARMUP + nq]);
    result("query_embed_p50", format!("{p50:.2}"));
    result("query_embed_p95", format!("{p95:.2}"));
    emb.cached.store(true, Ordering::SeqCst);

    // Open three times: open, index_pending (must be 0), first search.
    let db = dir.join("store.db");
    let nsec = std::fs::read_to_string(dir.join("key.nsec"))?;
    let clock = Arc::new(ManualClock::new(last_ts + 86_400.0));
    let mut opens = Vec::new();
    let mut firsts = Vec::new();
    let mut pendings = Vec::new();
    let mut store = None;
    let mut first_hits = Vec::new();
    for (i, q) in first_qs.iter().enumerate() {
        if let Some(s) = store.take() {
            MemoryStore::close(s).await?;
        }
        let identity = Identity::from_secret(&nsec)?;
        let opts = StoreOptions::default().clock(clock.clone()).embedder(emb.clone());
        let t = Instant::now();
        let s = MemoryStore::open(&db, identity, opts).await?;
        opens.push(secs(t));
        let t = Instant::now();
        let pending = s.index_pending().await?;
        pendings.push(secs(t));
        if pending != 0 {
            return Err(format!("open {}: index_pending() embedded {pending} after reopen", i + 1).into());
        }
        let t = Instant::now();
        let hits = s.search(SearchQuery::new(q)).await?;
        firsts.push(secs(t));
        if hits.is_empty() {
            return Err("first search after open found nothing".into());
        }
        first_hits = hits.iter().map(|h| h.path.clone()).collect::<Vec<_>>();
        store = Some(s);
    }
    let store = store.ok_or("no store")?;
    result("open_s_all", opens.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>().join("/"));
    result("open_s", format!("{:.3}", median(&opens)));
    result("first_search_ms", format!("{:.2}", median(&firsts) * 1000.0));
    result("pending_after_open_ms", format!("{:.2}", median(&pendings) * 1000.0));
    result("pending_after_open", 0);

    // Searches: without query embedding, then with it.
    let pass = |cached: bool, weights: Option<Weights>| {
        let store = store.clone();
        let emb = emb.clone();
        let query = move |q: &str| SearchQuery { weights: weights.clone(), ..SearchQuery::new(q) };
        async move {
            emb.cached.store(cached, Ordering::SeqCst);
            for q in warm {
                store.search(query(q)).await?;
            }
            take_passes();
            let (hits0, model0) = (emb.cache_hits.load(Ordering::SeqCst), emb.model_texts.load(Ordering::SeqCst));
            let (t0, c0) = (Instant::now(), cpu_secs());
            let mut lat = Vec::new();
            let mut found = 0usize;
            for q in qs {
                let (t, m) = (Instant::now(), emb.model_nanos.load(Ordering::SeqCst));
                let hits = store.search(query(q)).await?;
                // Without query embedding: a query text not computed beforehand (the second
                // pass's, which adds the names the first pass's hits mention) still goes to
                // the model, and that model time is taken out of the search's.
                let model = if cached { (emb.model_nanos.load(Ordering::SeqCst) - m) as f64 / 1e9 } else { 0.0 };
                lat.push(secs(t) - model);
                found += hits.len();
            }
            let (wall, cpu) = (secs(t0), cpu_secs() - c0);
            let hits = emb.cache_hits.load(Ordering::SeqCst) - hits0;
            let model_calls = emb.model_texts.load(Ordering::SeqCst) - model0;
            Ok::<_, memstr::Error>((lat, found, wall, cpu, hits, model_calls))
        }
    };
    let (lat, found, wall, cpu, hits, calls) = pass(true, None).await?;
    // Every query text the search embeds was computed beforehand (a query that names only
    // a time lists it and embeds nothing): a model call here would be a text the bench did
    // not foresee, its time taken out above but its cost real.
    if hits == 0 || calls != 0 {
        return Err(
            format!("without-embedding pass: {hits} cached vectors, {calls} model calls for {nq} queries").into()
        );
    }
    result("cached_query_vectors", hits);
    let (p50, p95) = pcts(&lat);
    result("search_p50", format!("{p50:.2}"));
    result("search_p95", format!("{p95:.2}"));
    result("search_cpu_per_wall", format!("{:.2}", cpu / wall));
    result("hits_per_query", format!("{:.1}", found as f64 / nq as f64));
    let (lat, _, wall, cpu, hits, calls) = pass(false, None).await?;
    pass_steps("steps_embed", &take_passes());
    if hits != 0 || (calls as usize) < nq {
        return Err(format!("with-embedding pass: {hits} cached vectors, {calls} model calls").into());
    }
    let (p50, p95) = pcts(&lat);
    result("search_embed_p50", format!("{p50:.2}"));
    result("search_embed_p95", format!("{p95:.2}"));
    result("search_embed_cpu_per_wall", format!("{:.2}", cpu / wall));
    // The "without" pass again: the first ran on cold caches (pages of a store just opened,
    // document frequencies of new query words); this one shows a process that has been
    // serving for a while.
    let (lat, _, wall, cpu, _, _) = pass(true, None).await?;
    pass_steps("steps_warm", &take_passes());
    let (p50, p95) = pcts(&lat);
    result("search_warm_p50", format!("{p50:.2}"));
    result("search_warm_p95", format!("{p95:.2}"));
    result("search_warm_cpu_per_wall", format!("{:.2}", cpu / wall));
    // Diagnostic: the same "without" pass with the episode expansion off, to show its cost.
    let no_episode = Weights { episode: 0.0, ..Weights::default() };
    let (lat, _, wall, cpu, _, _) = pass(true, Some(no_episode)).await?;
    let (p50, p95) = pcts(&lat);
    result("search_noepisode_p50", format!("{p50:.2}"));
    result("search_noepisode_p95", format!("{p95:.2}"));
    result("search_noepisode_cpu_per_wall", format!("{:.2}", cpu / wall));
    // The last first search again, on the store that has served every pass since: a cold
    // store must return what a warm one does.
    let again: Vec<String> = store
        .search(SearchQuery::new(first_qs.last().ok_or("no query")?))
        .await?
        .iter()
        .map(|h| h.path.clone())
        .collect();
    if again != first_hits {
        return Err(
            format!("the first search after open returned {first_hits:?}, the same search warm {again:?}").into()
        );
    }
    result("first_equals_warm", true);
    result("serve_hwm_kb", status_kb("VmHWM:"));
    result("serve_rss_kb", status_kb("VmRSS:"));
    // Resident pages of mapped files (the HNSW vectors, the model) versus the heap.
    result("serve_rss_file_kb", status_kb("RssFile:"));
    result("serve_rss_anon_kb", status_kb("RssAnon:"));
    result("load_after_search", loadavg());

    // Floor 1: raw FTS5, the same words memstr's search sends (stop words dropped).
    let conn = rusqlite::Connection::open(&db)?;
    let mut stmt =
        conn.prepare("SELECT rowid FROM records_fts WHERE records_fts MATCH ?1 ORDER BY bm25(records_fts) LIMIT 10")?;
    let exprs: Vec<String> = all_q.iter().map(|q| fts_any(&content_terms(q)).unwrap_or_default()).collect();
    for e in &exprs[..WARMUP] {
        stmt.query_map([e], |r| r.get::<_, i64>(0))?.count();
    }
    let mut lat = Vec::new();
    for e in &exprs[WARMUP..WARMUP + nq] {
        let t = Instant::now();
        let rows: Vec<i64> = stmt.query_map([e], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        lat.push(secs(t));
        std::hint::black_box(rows);
    }
    let (p50, p95) = pcts(&lat);
    result("fts_p50", format!("{p50:.2}"));
    result("fts_p95", format!("{p95:.2}"));
    let mut count = conn.prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?1")?;
    let mut matches = Vec::new();
    let mut terms = 0usize;
    for (q, e) in all_q[WARMUP..WARMUP + nq].iter().zip(&exprs[WARMUP..WARMUP + nq]) {
        matches.push(count.query_row([e], |r| r.get::<_, i64>(0))? as f64);
        terms += content_terms(q).len();
    }
    result("fts_matches_median", format!("{:.0}", median(&matches)));
    result("fts_terms_mean", format!("{:.1}", terms as f64 / nq as f64));
    drop(count);
    drop(stmt);

    // Floor 2: brute-force cosine over every stored vector (unit vectors: dot product).
    let dims = emb.dims();
    let mut flat: Vec<f32> = Vec::with_capacity(n * dims);
    let mut rids: Vec<i64> = Vec::with_capacity(n);
    {
        let mut stmt = conn.prepare("SELECT rid, vec FROM vectors ORDER BY vid")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            rids.push(row.get(0)?);
            flat.extend(from_blob(&row.get::<_, Vec<u8>>(1)?));
        }
    }
    if rids.len() != n {
        return Err(format!("{} stored vectors, expected {n}", rids.len()).into());
    }
    let vectors: Vec<Vec<f32>> = {
        let known = emb.known.read().unwrap();
        all_q[..WARMUP + nq].iter().map(|q| known[q].clone()).collect()
    };
    let mut lat = Vec::new();
    for (i, qv) in vectors.iter().enumerate() {
        let t = Instant::now();
        let top = brute_top10(&flat, dims, qv);
        let took = secs(t);
        std::hint::black_box(top.iter().map(|(_, i)| rids[*i]).sum::<i64>());
        if i >= WARMUP {
            lat.push(took);
        }
    }
    let (p50, p95) = pcts(&lat);
    result("brute_p50", format!("{p50:.2}"));
    result("brute_p95", format!("{p95:.2}"));
    // How much of the exact top 10 the HNSW index (int8 points) finds, asked for memstr's
    // usual 125 candidates: the recall the speed is bought with.
    {
        let idx =
            VectorIndex::load(&VectorIndex::dir_for(&db), emb.model_id(), dims).ok_or("saved index did not load")?;
        let (mut found10, mut found125) = (0usize, 0usize);
        for qv in &vectors[WARMUP..] {
            let exact: HashSet<i64> = brute_top10(&flat, dims, qv).iter().map(|(_, i)| rids[*i]).collect();
            let hits: Vec<i64> = idx.search(qv, 125).iter().map(|h| h.rid).collect();
            found10 += hits.iter().take(10).filter(|r| exact.contains(r)).count();
            found125 += hits.iter().filter(|r| exact.contains(r)).count();
        }
        result("hnsw_recall10_at10", format!("{:.3}", found10 as f64 / (10 * nq) as f64));
        result("hnsw_recall10_at125", format!("{:.3}", found125 as f64 / (10 * nq) as f64));
    }
    drop(flat);
    drop(conn);
    MemoryStore::close(store).await?;

    // The steps of opening, one by one (VectorState::open in src/store/vectors.rs), with the
    // store closed: each statement as the store runs it, then loading the saved HNSW graph
    // (one file of flat arrays, read whole).
    let model_id = emb.model_id().to_string();
    let mut steps: Vec<(&str, Vec<f64>)> =
        vec![("sqlite_open_pragmas", vec![]), ("probe_other_model", vec![]), ("hnsw_load", vec![])];
    for _ in 0..3 {
        let t = Instant::now();
        let c = rusqlite::Connection::open(&db)?;
        c.pragma_update(None, "journal_mode", "WAL")?;
        c.pragma_update(None, "synchronous", "FULL")?;
        c.pragma_update(None, "foreign_keys", "ON")?;
        c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?;
        steps[0].1.push(secs(t));
        let t = Instant::now();
        let other: Option<i64> = c
            .query_row("SELECT vid FROM vectors WHERE model < ?1 OR model > ?1 LIMIT 1", [&model_id], |r| r.get(0))
            .ok();
        steps[1].1.push(secs(t));
        if other.is_some() {
            return Err("vectors of another model in the store".into());
        }
        drop(c);
        let t = Instant::now();
        let idx = VectorIndex::load(&VectorIndex::dir_for(&db), &model_id, dims).ok_or("saved index did not load")?;
        steps[2].1.push(secs(t));
        if idx.points() != n {
            return Err(format!("saved index has {} points, expected {n}", idx.points()).into());
        }
        result("hnsw_heap_mb", format!("{:.1}", idx.heap_bytes() as f64 / 1e6));
    }
    for (name, v) in &steps {
        result(&format!("open_step_{name}_ms"), format!("{:.1}", median(v) * 1000.0));
    }
    result("load_end", loadavg());
    Ok(())
}

/// The 10 largest dot products: (score, row), best first.
fn brute_top10(flat: &[f32], dims: usize, q: &[f32]) -> Vec<(f32, usize)> {
    let mut top: Vec<(f32, usize)> = Vec::with_capacity(11);
    for (i, row) in flat.chunks_exact(dims).enumerate() {
        let mut acc = [0f32; 8];
        for (a, b) in row.chunks_exact(8).zip(q.chunks_exact(8)) {
            for k in 0..8 {
                acc[k] += a[k] * b[k];
            }
        }
        let mut s: f32 = acc.iter().sum();
        for k in dims - dims % 8..dims {
            s += row[k] * q[k];
        }
        if top.len() < 10 || s > top[top.len() - 1].0 {
            let at = top.partition_point(|(v, _)| *v >= s);
            top.insert(at, (s, i));
            top.truncate(10);
        }
    }
    top
}

// ---------------------------------------------------------------------------------------
// The parent: one build and one measure process per size, then the tables.

struct Args {
    sizes: Vec<usize>,
    queries: usize,
    dir: Option<PathBuf>,
    reuse: bool,
    child: Option<String>,
    size: usize,
}

fn parse_args() -> BoxResult<Args> {
    let mut a =
        Args { sizes: vec![1_000, 10_000, 100_000], queries: 200, dir: None, reuse: false, child: None, size: 0 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--sizes" => a.sizes = value()?.split(',').map(|s| s.trim().parse()).collect::<Result<_, _>>()?,
            "--queries" => a.queries = value()?.parse()?,
            "--dir" => a.dir = Some(PathBuf::from(value()?)),
            "--reuse" => a.reuse = true,
            // The children read it from the environment they inherit.
            "--stand-in" => std::env::set_var("SEARCH_BENCH_STAND_IN", "1"),
            "--child" => a.child = Some(value()?),
            "--size" => a.size = value()?.parse()?,
            "-h" | "--help" => {
                println!(
                    "usage: search_bench [--sizes 1000,10000,100000] [--queries 200] [--dir PATH] [--reuse] [--stand-in]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other} (try --help)").into()),
        }
    }
    if a.queries == 0 || a.sizes.is_empty() || a.sizes.contains(&0) {
        return Err("--queries and every size must be at least 1".into());
    }
    Ok(a)
}

/// Runs this program as a child; returns its RESULT lines.
fn child(mode: &str, size: usize, queries: usize, dir: &Path) -> BoxResult<HashMap<String, String>> {
    let me = std::env::current_exe()?;
    let mut c = Command::new(me)
        .args(["--child", mode, "--size", &size.to_string(), "--queries", &queries.to_string(), "--dir"])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut out = HashMap::new();
    for line in BufReader::new(c.stdout.take().ok_or("no stdout")?).lines() {
        let line = line?;
        match line.strip_prefix("RESULT ").and_then(|l| l.split_once('=')) {
            Some((k, v)) => {
                out.insert(k.to_string(), v.to_string());
            }
            None => println!("{line}"),
        }
    }
    let status = c.wait()?;
    if !status.success() {
        return Err(format!("{mode} child for {size} failed: {status}").into());
    }
    Ok(out)
}

fn f(r: &HashMap<String, String>, k: &str) -> Option<f64> {
    r.get(k).and_then(|v| v.parse().ok())
}

fn get<'a>(r: &'a HashMap<String, String>, k: &str) -> &'a str {
    r.get(k).map_or("-", String::as_str)
}

fn print_table(n: usize, nq: usize, r: &HashMap<String, String>) {
    let num = |k: &str, d: usize| f(r, k).map_or("-".to_string(), |v| format!("{v:.d$}"));
    let rate = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{:.0}/s", n as f64 / s));
    let mb = |k: &str, per: f64| f(r, k).map_or("-".to_string(), |v| format!("{:.0} MB", v / per));
    let line = |name: &str, a: String, b: String, note: String| println!("{name:<46} {a:>10} {b:>10}  {note}");
    println!();
    println!("== {n} memories ({} words per sentence on average), {nq} queries ==", get(r, "avg_words"));
    println!(
        "load (1, 5, 15 min): build {} -> {}, measure {} -> {}",
        get(r, "load_start"),
        get(r, "load_end_build"),
        get(r, "load_start_measure"),
        get(r, "load_end")
    );
    line("search (ms)", "p50".into(), "p95".into(), "notes".into());
    let lat =
        |name: &str, k: &str, note: String| line(name, num(&format!("{k}_p50"), 2), num(&format!("{k}_p95"), 2), note);
    let cpu = |k: &str| format!("CPU/wall {}", get(r, k));
    lat("hybrid search, without query embedding", "search", cpu("search_cpu_per_wall"));
    lat("hybrid search, with query embedding", "search_embed", cpu("search_embed_cpu_per_wall"));
    lat("  without, second pass (warm caches)", "search_warm", cpu("search_warm_cpu_per_wall"));
    lat("  same as first row, episode=0 (diagnostic)", "search_noepisode", cpu("search_noepisode_cpu_per_wall"));
    lat("query embedding alone (model call)", "query_embed", String::new());
    line(
        "a pass with the query embedding, by step",
        "median".into(),
        String::new(),
        format!(
            "of {} passes ({} more reused their search's vector); model and index on a thread of their own",
            get(r, "steps_embed_passes"),
            get(r, "steps_embed_reused")
        ),
    );
    for (name, k, note) in [
        ("  before its reader", "before", ""),
        ("  the words' half", "words", "beside the model"),
        ("  the model, in the search", "model", ""),
        ("  the vector index", "index", ""),
        ("  then waited for the vector", "waited", ""),
        ("  after the vector", "after", "candidates, fusion, current first"),
        ("  the pass", "pass", ""),
    ] {
        let without = match k {
            // The warm pass: its words were read by the first, as the pass with the model's were.
            "words" | "after" | "pass" => format!("{} without the model, warm", num(&format!("steps_warm_{k}"), 2)),
            _ => String::new(),
        };
        let note = [note, &without].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ");
        line(name, num(&format!("steps_embed_{k}"), 2), String::new(), note);
    }
    let matches =
        format!("{} terms/query, median {} rows match", get(r, "fts_terms_mean"), get(r, "fts_matches_median"));
    lat("floor: raw FTS5 (bm25, LIMIT 10)", "fts", matches);
    lat("floor: brute-force cosine, top 10", "brute", format!("{n} x 384 f32, in memory"));
    line("ingest", "seconds".into(), "rate".into(), String::new());
    let write_cpu = format!("CPU {} s", get(r, "write_cpu"));
    let writes = match get(r, "write_batched") {
        "true" => "writes (write_batch, 1000 a transaction)",
        _ => "writes (journal_at, a transaction each)",
    };
    line(writes, num("write_s", 1), rate(f(r, "write_s")), write_cpu);
    let embed = format!("model {} s, CPU {} s", num("embed_model_s", 1), get(r, "embed_cpu"));
    line("batched embedding (index_pending)", num("embed_s", 1), rate(f(r, "embed_s")), embed);
    let total = f(r, "write_s").zip(f(r, "embed_s")).map(|(a, b)| a + b);
    line("total", total.map_or("-".into(), |t| format!("{t:.1}")), rate(total), String::new());
    line("close (saves the HNSW index)", num("close_s", 2), String::new(), String::new());
    if let Some(k) = f(r, "finish_embedded").filter(|k| *k > 0.0) {
        let note = format!("CPU {} s, {} peak RSS", get(r, "finish_cpu"), mb("finish_hwm_kb", 1024.0));
        let rate = f(r, "finish_s").map_or("-".to_string(), |s| format!("{:.0}/s", k / s));
        line(&format!("embedding finished on reuse ({k:.0} texts)"), num("finish_s", 1), rate, note);
    }
    line("open (ms)", "median".into(), String::new(), "of 3".into());
    let opens = format!("all {} s; model load {} s, not included", get(r, "open_s_all"), get(r, "model_load_s"));
    line(
        "MemoryStore::open, existing store",
        f(r, "open_s").map_or("-".into(), |s| format!("{:.1}", s * 1000.0)),
        String::new(),
        opens,
    );
    let pending = format!("returned {} (must be 0)", get(r, "pending_after_open"));
    line("index_pending() right after open", num("pending_after_open_ms", 2), String::new(), pending);
    let same = format!("same hits as warm: {}", get(r, "first_equals_warm"));
    line("first search after open", num("first_search_ms", 2), String::new(), same);
    let to_first = ["open_s", "pending_after_open_ms", "first_search_ms"];
    if let [Some(o), Some(p), Some(f)] = to_first.map(|k| f(r, k)) {
        line(
            "  open to first hits (the three above)",
            format!("{:.2}", o * 1000.0 + p + f),
            String::new(),
            String::new(),
        );
    }
    for (step, k) in [
        ("  step: SQLite open + pragmas", "sqlite_open_pragmas"),
        ("  step: probe for another model's vectors", "probe_other_model"),
        ("  step: load saved HNSW graph", "hnsw_load"),
    ] {
        let note =
            if k == "hnsw_load" { format!("graph in memory: {} MB", get(r, "hnsw_heap_mb")) } else { String::new() };
        line(step, num(&format!("open_step_{k}_ms"), 1), String::new(), note);
    }
    line(
        "HNSW recall of the exact top 10",
        num("hnsw_recall10_at125", 3),
        String::new(),
        format!("in its first 125 (memstr's pool); {} in its first 10", get(r, "hnsw_recall10_at10")),
    );
    line("memory", "VmHWM".into(), String::new(), String::new());
    let serve = format!(
        "model + open store + searches (VmRSS then {}: heap {}, mapped files {})",
        mb("serve_rss_kb", 1024.0),
        mb("serve_rss_anon_kb", 1024.0),
        mb("serve_rss_file_kb", 1024.0)
    );
    line("peak RSS, measure process", mb("serve_hwm_kb", 1024.0), String::new(), serve);
    line(
        "peak RSS, build process",
        mb("build_hwm_kb", 1024.0),
        String::new(),
        "writes + embedding + HNSW + close".into(),
    );
    let index = format!("+ {} of saved HNSW index", mb("index_bytes", 1e6));
    line("SQLite file on disk", mb("db_bytes", 1e6), String::new(), index);
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "FAIL"
    }
}

fn parent(a: Args) -> BoxResult<()> {
    let tmp = tempfile::tempdir()?;
    let base = a.dir.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    println!("search_bench: sizes {:?}, {} queries (+{WARMUP} warm-up) per pass", a.sizes, a.queries);
    if stand_in() {
        println!("embedder:  STAND-IN (deterministic word hashes, not a model: --stand-in)");
    }
    println!("date:      {}", utc_now());
    println!("machine:   {}", support::machine());
    println!("load:      {} (1, 5, 15 min) at start", loadavg());
    let mut all = Vec::new();
    for &n in &a.sizes {
        let dir = base.join(format!("size-{n}"));
        let mut r = HashMap::new();
        if a.reuse && dir.join("store.db").exists() && dir.join("key.nsec").exists() {
            eprintln!("size {n}: reusing {}", dir.display());
            r.extend(child("finish", n, a.queries, &dir)?);
        } else {
            eprintln!("size {n}: build");
            r.extend(child("build", n, a.queries, &dir)?);
        }
        eprintln!("size {n}: measure");
        r.extend(child("measure", n, a.queries, &dir)?);
        print_table(n, a.queries, &r);
        all.push((n, r));
    }
    println!();
    println!("targets (issue: at 100k): search p50 without embedding < {TARGET_SEARCH_P50_MS} ms, open < {TARGET_OPEN_S} s, RSS < {TARGET_RSS_MB} MB");
    println!(
        "{:>8} {:>22} {:>16} {:>22} {:>22}",
        "size", "search p50 (no embed)", "open", "RSS measure process", "RSS build process"
    );
    for (n, r) in &all {
        let cell = |v: Option<f64>, unit: &str, max: f64, scale: f64| {
            v.map_or("-".to_string(), |v| format!("{:.1} {unit} {}", v * scale, verdict(v * scale < max)))
        };
        println!(
            "{n:>8} {:>22} {:>16} {:>22} {:>22}",
            cell(f(r, "search_p50"), "ms", TARGET_SEARCH_P50_MS, 1.0),
            cell(f(r, "open_s"), "s", TARGET_OPEN_S, 1.0),
            cell(f(r, "serve_hwm_kb"), "MB", TARGET_RSS_MB, 1.0 / 1024.0),
            cell(f(r, "build_hwm_kb"), "MB", TARGET_RSS_MB, 1.0 / 1024.0),
        );
    }
    println!("load:      {} (1, 5, 15 min) at end", loadavg());
    Ok(())
}

#[tokio::main]
async fn main() -> BoxResult<()> {
    let a = parse_args()?;
    match a.child.as_deref() {
        None => parent(a),
        Some(mode) => {
            let dir = a.dir.clone().ok_or("--child needs --dir")?;
            match mode {
                "build" => build(a.size, &dir).await,
                "measure" => measure(a.size, a.queries, &dir).await,
                "finish" => finish(&dir).await,
                other => Err(format!("unknown child mode {other}").into()),
            }
        }
    }
}
