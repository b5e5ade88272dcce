//! The realistic workload benchmark (docs/lifecycle.md, docs/benchmarks.md): six months of
//! an agent's memories written through the public API with the defaults a user gets
//! (gated persona writes, keyed facts, journal, flat keys; automatic consolidation on),
//! then questions with known answers, asked right after the load and again after
//! simulated months, each time after a consolidation.
//!
//! ```sh
//! cargo run --release --example workload -- examples/workload/dev.json [--no-vectors] [--json]
//! cargo run --release --example workload -- examples/workload/holdout.json
//! ```
//!
//! Prints found@3 per question type at each checkpoint (a question is found when one of
//! its answers is among the first three hits of `search`), and how many memories were
//! archived, forgotten and deleted, and at the first checkpoint the median search time with
//! and without the second hop. `--misses` lists each missed question with its answer's rank
//! and lifecycle state; `--explain` adds every signal's rank for the answer and the hits above
//! it. The load settles after each write (`MemoryStore::settle`), so every run prints the same
//! figures. Questions are asked without counting accesses
//! (`strengthen = false`), so a later checkpoint is not helped by an earlier one.
//! The data (examples/workload/) was written by a helper that had not read memstr's code,
//! and committed before anything was tuned on it; tune on `dev`, report `holdout` and
//! `holdout2` (written after the tuning; nobody has read its questions).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use memstr::index::Embedder;
use memstr::{
    Identity, ManualClock, MemoryPath, MemoryState, MemoryStore, PersonaInput, PersonaQuery, SearchQuery, StoreOptions,
};
use serde_json::{json, Value};

#[allow(dead_code)] // each example uses its own subset
#[path = "support/mod.rs"]
mod support;

const DAY: f64 = 86_400.0;
/// How deep the searches go: found@3 is the score; found@10 and found@30 say whether a
/// miss was among the candidates at all (what a better ordering could still win).
const DEEP: usize = 30;
/// Days after the workload's start at which questions are asked: right after the load
/// (183 days of memories), then a month, two and three months later with nothing new.
const CHECKPOINTS: [f64; 4] = [183.0, 220.0, 251.0, 282.0];

#[derive(Default)]
struct Tally {
    asked: usize,
    found: usize,
}

impl Tally {
    fn share(&self) -> f64 {
        if self.asked == 0 {
            return 0.0;
        }
        self.found as f64 / self.asked as f64
    }
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("field {k} in {v}"))
}

/// Writes one memory the way an agent would; returns the plain path now holding it.
async fn write(store: &MemoryStore, m: &Value) -> memstr::Result<String> {
    let at = m["at"].as_f64().expect("at");
    Ok(match str_of(m, "kind") {
        "persona" => {
            let (domain, facet, key) = (str_of(m, "domain"), str_of(m, "facet"), str_of(m, "key"));
            let mut input = PersonaInput::new(domain, facet, key, str_of(m, "value")).at(at);
            if let Some(themes) = m["themes"].as_array() {
                input = input.themes(themes.iter().filter_map(Value::as_str));
            }
            if let Some(i) = m["importance"].as_f64() {
                input = input.importance(i);
            }
            let got = store.persona_ingest(input).await?;
            format!("sense-memory/persona/{}", got.address)
        }
        "fact" => {
            let (domain, subject, attribute) = (str_of(m, "domain"), str_of(m, "subject"), str_of(m, "attribute"));
            store.fact_set(domain, subject, attribute, str_of(m, "value")).await?;
            format!("sense-memory/persona/{domain}/facts/{subject}:{attribute}")
        }
        "journal" => {
            store.journal_at(str_of(m, "content"), at).await?;
            MemoryPath::journal(at).to_d()
        }
        "kv" => {
            store.remember_at(str_of(m, "key"), str_of(m, "value"), at).await?;
            format!("sense-memory/{}", str_of(m, "key"))
        }
        other => panic!("unknown kind {other}"),
    })
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

/// Asks question `q` ([`DEEP`] results, no access counted) under `weights`; returns the hits and the
/// paths of the memories that answer it.
async fn ask<'a>(
    store: &MemoryStore,
    q: &Value,
    weights: &memstr::search::Weights,
    where_is: &'a HashMap<String, String>,
) -> memstr::Result<(Vec<memstr::SearchHit>, Vec<&'a String>)> {
    let mut sq = SearchQuery::new(str_of(q, "question")).limit(DEEP);
    sq.strengthen = false;
    sq.weights = Some(weights.clone());
    support::apply_phrasings(&mut sq);
    let hits = store.search(sq).await?;
    let answers = q["answers"]
        .as_array()
        .expect("answers")
        .iter()
        .filter_map(|a| a.as_str().and_then(|id| where_is.get(id)))
        .collect();
    Ok((hits, answers))
}

struct Counts {
    persona: BTreeMap<&'static str, usize>,
    archived: usize,
    deleted: u64,
}

async fn counts(store: &MemoryStore, now: f64) -> memstr::Result<Counts> {
    let mut persona = BTreeMap::new();
    let mut archived = 0;
    for m in store.persona_peek(PersonaQuery::all()).await? {
        if m.sync.life.archived_at.is_some() {
            archived += 1;
        }
        let state = store.live(&m, now).1;
        *persona.entry(state.as_str()).or_insert(0) += 1;
    }
    for m in store.recall_all().await? {
        archived += usize::from(m.archived_at.is_some());
    }
    let deleted = store.stats().await?.deleted;
    Ok(Counts { persona, archived, deleted })
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> memstr::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_vectors = args.iter().any(|a| a == "--no-vectors");
    let json_out = args.iter().any(|a| a == "--json");
    // `--set NAME=VALUE` changes a search weight or constant (memstr::search::Weights);
    // `--grid NAME=V1,V2,...` also asks every question under each value (for tuning on dev).
    let mut base = serde_json::to_value(memstr::search::Weights::default()).expect("weights serialise");
    let mut grid: Option<(String, Vec<Value>)> = None;
    let mut variant_specs: Vec<String> = Vec::new();
    let mut days: Vec<f64> = CHECKPOINTS.to_vec();
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--phrasings" | "--behaviour" => {
                it.next();
            }
            "--days" => {
                let list = it.next().expect("DAY,DAY");
                days = list.split(',').map(|d| d.parse().expect("a number of days")).collect();
            }
            "--variant" => {
                // NAME=VALUE;NAME=VALUE: one more set of weights every question is asked under.
                let spec = it.next().expect("NAME=VALUE;...");
                variant_specs.push(spec.clone());
            }
            "--set" | "--grid" => {
                let kv = it.next().expect("NAME=VALUE");
                let (k, v) = kv.split_once('=').expect("NAME=VALUE");
                if a == "--set" {
                    base[k] = serde_json::from_str(v).expect("a JSON value");
                } else {
                    grid =
                        Some((k.to_string(), v.split(',').map(|x| serde_json::from_str(x).expect("JSON")).collect()));
                }
            }
            _ if !a.starts_with("--") => file = Some(a.clone()),
            _ => {}
        }
    }
    let Some(file) = file else {
        eprintln!(
            "usage: workload FILE [--no-vectors] [--json] [--misses [--explain]] [--days 183,282] [--set NAME=VALUE] [--grid NAME=V1,V2] [--variant 'A=1;B=2'] [--phrasings FILE] [--behaviour NAME=on|off]"
        );
        std::process::exit(2);
    };
    let weights: memstr::search::Weights = serde_json::from_value(base.clone()).expect("valid weights");
    support::load_phrasings(&args);
    let mut variants: Vec<(String, memstr::search::Weights)> = Vec::new();
    for spec in &variant_specs {
        let mut w = base.clone();
        for kv in spec.split(';') {
            let (k, v) = kv.split_once('=').expect("NAME=VALUE");
            w[k] = serde_json::from_str(v).expect("a JSON value");
        }
        variants.push((spec.clone(), serde_json::from_value(w).expect("valid weights")));
    }
    if let Some((k, values)) = &grid {
        for v in values {
            let mut w = base.clone();
            w[k.as_str()] = v.clone();
            variants.push((format!("{k}={v}"), serde_json::from_value(w).expect("valid weights")));
        }
    }
    let data: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("readable file")).expect("JSON");
    let embedder: Option<Arc<dyn Embedder>> = support::embedder(no_vectors);
    let life = support::lifecycle_options(&args);
    let start = data["start"].as_f64().expect("start");
    let clock = Arc::new(ManualClock::new(start));
    // The defaults a user gets: automatic consolidation every 50 writes included.
    let mut opts = StoreOptions::default().clock(clock.clone()).lifecycle(life.clone());
    if let Some(e) = &embedder {
        opts = opts.embedder(e.clone());
    }
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let store = MemoryStore::open(tmp.path().join("memstr.db"), Identity::generate(), opts).await?;

    let started = std::time::Instant::now();
    let mut where_is: HashMap<String, String> = HashMap::new();
    let memories = data["memories"].as_array().expect("memories");
    for m in memories {
        clock.set(m["at"].as_f64().expect("at"));
        let path = write(&store, m).await?;
        // The automatic cycle a write starts runs in the background; had it run on while
        // the clock moves on, what it archives would differ from run to run.
        store.settle().await;
        where_is.insert(str_of(m, "id").to_string(), path);
    }
    // What `memstr mcp`'s background embedding (or `memstr index`) does between writes.
    store.index_pending().await?;
    let load_secs = started.elapsed().as_secs_f64();
    if !json_out {
        println!(
            "workload {} ({} memories, vectors {}): loaded in {load_secs:.1} s",
            str_of(&data, "name"),
            memories.len(),
            if embedder.is_some() { "on" } else { "off" }
        );
    }

    let questions = data["questions"].as_array().expect("questions");
    let mut report = Vec::new();
    let mut worst = f64::INFINITY;
    for day in days.iter().copied() {
        let now = start + day * DAY;
        clock.set(now);
        // A cycle, as a long-running agent gets by itself (prune, promote, link).
        let cycle = store.consolidate().await?;
        let mut by_type: BTreeMap<String, Tally> = BTreeMap::new();
        let mut state_of: HashMap<String, String> = HashMap::new();
        for m in store.persona_peek(PersonaQuery::all()).await? {
            let st = store.live(&m, now).1;
            let arch = if m.sync.life.archived_at.is_some() { "+archived" } else { "" };
            state_of.insert(format!("sense-memory/persona/{}", m.address()), format!("{}{arch}", st.as_str()));
        }
        let mut misses = Vec::new();
        // Milliseconds per search, and how many searches took the second hop.
        let (mut took, mut bridged) = (Vec::new(), 0usize);
        let mut unanswerable_hits = 0usize;
        let (mut deep10, mut deep30) = (0usize, 0usize);
        let mut unanswerable = 0usize;
        for q in questions {
            let kind = str_of(q, "type").to_string();
            let asked_at = std::time::Instant::now();
            let (hits, answers) = ask(&store, q, &weights, &where_is).await?;
            took.push(asked_at.elapsed().as_secs_f64() * 1000.0);
            bridged += usize::from(hits.iter().any(|h| h.signals.iter().any(|s| s.name == "bridge")));
            if kind == "unanswerable" {
                unanswerable += 1;
                unanswerable_hits += usize::from(!hits.is_empty());
                continue;
            }
            let rank = hits.iter().position(|h| answers.contains(&&h.path));
            let found = rank.is_some_and(|r| r < 3);
            deep10 += usize::from(rank.is_some_and(|r| r < 10));
            deep30 += usize::from(rank.is_some());
            let t = by_type.entry(kind).or_default();
            t.asked += 1;
            t.found += usize::from(found);
            if !found {
                misses.push(json!({
                    "question": q["question"],
                    "answers": answers,
                    "rank": rank.map(|r| r + 1),
                    "state": answers.iter().map(|a| state_of.get(*a).cloned().unwrap_or_default()).collect::<Vec<_>>(),
                    "top": hits.iter().take(3).map(|h| h.found.text()).collect::<Vec<_>>(),
                }));
                if args.iter().any(|a| a == "--explain") {
                    // Each signal as name:rank, for the answer and the hits above it.
                    let line = |h: &memstr::search::SearchHit| {
                        h.signals
                            .iter()
                            .map(|s| format!("{}:{}", s.name, s.rank.map_or("-".into(), |r| r.to_string())))
                            .collect::<Vec<_>>()
                            .join(" ")
                    };
                    let last = misses.last_mut().expect("just pushed");
                    last["signals"] = json!({
                        "answer": rank.map(|r| line(&hits[r])),
                        "top": hits.iter().take(3).map(line).collect::<Vec<_>>(),
                    });
                }
            }
        }
        let mut grid_out = Vec::new();
        let mut timing = None;
        if day == days[0] {
            // What the second hop costs: the same searches once more without it.
            let mut single = weights.clone();
            single.bridge = 0.0;
            let mut one_pass = Vec::new();
            for q in questions {
                let asked_at = std::time::Instant::now();
                ask(&store, q, &single, &where_is).await?;
                one_pass.push(asked_at.elapsed().as_secs_f64() * 1000.0);
            }
            timing = Some(format!(
                "  search: median {:.1} ms with the second hop (taken by {bridged} of {} searches), {:.1} ms without",
                median(&mut took),
                took.len(),
                median(&mut one_pass)
            ));
        }
        for (label, w) in &variants {
            let mut t = Tally::default();
            for q in questions.iter().filter(|q| str_of(q, "type") != "unanswerable") {
                let (hits, answers) = ask(&store, q, w, &where_is).await?;
                t.asked += 1;
                t.found += usize::from(hits.iter().take(3).any(|h| answers.contains(&&h.path)));
            }
            grid_out.push(format!("{label}: {:.3}", t.share()));
        }
        let all =
            Tally { asked: by_type.values().map(|t| t.asked).sum(), found: by_type.values().map(|t| t.found).sum() };
        worst = worst.min(all.share());
        let c = counts(&store, now).await?;
        if !json_out {
            println!(
                "\nday {day:.0}: found@3 {:.3} ({}/{}); consolidation archived {}, deleted {}, promoted {}",
                all.share(),
                all.found,
                all.asked,
                cycle.prune.archived.len(),
                cycle.prune.deleted.len(),
                cycle.promoted.len()
            );
            println!(
                "  found@10 {:.3}, found@30 {:.3}",
                deep10 as f64 / all.asked as f64,
                deep30 as f64 / all.asked as f64
            );
            if let Some(t) = &timing {
                println!("{t}");
            }
            for (k, t) in &by_type {
                println!("  {k:<12} {:.3} ({}/{})", t.share(), t.found, t.asked);
            }
            println!(
                "  memories: persona by state {:?}; archived {}; deleted (tombstones) {}; unanswerable questions with hits {}/{}",
                c.persona, c.archived, c.deleted, unanswerable_hits, unanswerable
            );
            for g in &grid_out {
                println!("  grid {g}");
            }
            if args.iter().any(|a| a == "--misses") {
                for m in &misses {
                    println!("  miss: {m}");
                }
            }
        }
        report.push(json!({
            "day": day,
            "found@3": all.share(),
            "by_type": by_type.iter().map(|(k, t)| (k.clone(), json!(t.share()))).collect::<serde_json::Map<_, _>>(),
            "archived": c.archived,
            "deleted": c.deleted,
            "persona_states": c.persona,
            "unanswerable_with_hits": unanswerable_hits,
        }));
    }
    let forgotten = report.last().and_then(|r| r["persona_states"][MemoryState::Forgotten.as_str()].as_u64());
    if json_out {
        println!("{}", json!({"workload": data["name"], "checkpoints": report, "worst_found@3": worst}));
    } else {
        println!("\nworst found@3 {worst:.3}; forgotten persona memories at the end {}", forgotten.unwrap_or(0));
    }
    store.close().await
}
