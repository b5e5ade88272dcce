//! Calibrating the search cutoff (`memstr::search::MIN_STRENGTH`, issue 12 point 4): for
//! candidate thresholds, how many answerable LoCoMo questions would lose their evidence
//! from the top 10, and how many unrelated queries would return nothing.
//!
//! cargo run --release --example cutoff -- [--no-vectors] [--holdout] [--sizes 1000,10000] [--dump FILE] [DIR]
//!
//! DIR holds the dev set (default ../shared/bench/locomo-dev). Turns are written as in
//! examples/locomo.rs. At 1k, one store per conversation: its turns, padded with the two
//! other conversations' turns. Past 1k, one store for all three conversations (so the model
//! embeds the filler once, not three times), padded with synthetic turns of two sentences
//! drawn at random from the conversations' turns: they read like conversation, and may echo
//! a question's evidence without counting as it (which can only lower hit@10). Filler is
//! dated at random within the conversations' span; each conversation's questions are asked
//! with "now" the day after its last session.
//!
//! Every search runs with `min_strength: Some(0.0)` (no cutoff) and `strengthen: false`;
//! the cutoff is then applied to the returned order, which is what the store does (weak
//! hits take part in ranking and are dropped before the `limit`). Per threshold:
//!
//! - questions: categories 1-4 with evidence; `hit@10` and `R@10` without and with the
//!   cutoff; `ev cut`: of the evidence turns in the top 10 without a cutoff, the share
//!   below it; `q lost`: of the questions with an evidence hit in the top 10, the share
//!   with none left after the cutoff.
//! - unrelated queries (examples/data/unrelated_queries.json, against every conversation's
//!   store): `empty`, the share that return nothing; separately for the tune and holdout
//!   halves (holdout only with `--holdout`, so tuning never sees it).
//! - near-miss questions (examples/data/near_miss_queries.json, issue 23 point 4): questions
//!   that share people, topics and words with one conversation but whose answer it does not
//!   hold, each asked against its own conversation's store (at 1k, that conversation's
//!   store; past 1k, the one store) with that conversation's "now": `near tune` and
//!   `near hold`, the share that return nothing (holdout only with `--holdout`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use memstr::index::Embedder;
use memstr::search::{Kind, SearchHit, SearchQuery};
use memstr::{Found, Identity, ManualClock, MemoryStore, StoreOptions};
use serde_json::{json, Value};

#[path = "support/locomo_data.rs"]
mod locomo_data;
#[allow(dead_code)] // each example uses its own subset
#[path = "support/mod.rs"]
mod support;

use locomo_data::{clean_evidence, turns, Turn};
use support::Rng;

/// Candidate cutoffs (strength); the store's own (`memstr::search::min_strength`) is marked.
const THRESHOLDS: [f64; 14] = [0.0, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.28, 0.3, 0.32, 0.34, 0.36, 0.4];

/// One question's ranking without a cutoff: (is evidence, strength) for each hit, best first.
struct Ranked {
    hits: Vec<(bool, f64)>,
    evidence: usize,
}

/// `n` filler texts from `others`' turns: the turns themselves (when `verbatim`), then
/// synthetic ones.
fn filler(others: &[&Vec<Turn>], n: usize, verbatim: bool, rng: &mut Rng) -> Vec<String> {
    let mut out: Vec<String> = if verbatim {
        others.iter().flat_map(|t| t.iter().map(|t| t.text.clone())).take(n).collect()
    } else {
        Vec::new()
    };
    let mut sentences: Vec<(String, String)> = Vec::new();
    for t in others.iter().flat_map(|t| t.iter()) {
        let (speaker, text) = t.text.split_once(": ").unwrap_or(("", &t.text));
        for s in text.split_inclusive(['.', '!', '?']).map(str::trim).filter(|s| s.split_whitespace().count() >= 3) {
            sentences.push((speaker.to_string(), s.to_string()));
        }
    }
    while out.len() < n {
        let (speaker, a) = &sentences[rng.below(sentences.len())];
        let (_, b) = &sentences[rng.below(sentences.len())];
        out.push(format!("{speaker}: {a} {b}"));
    }
    out
}

fn query(text: &str, limit: usize) -> SearchQuery {
    let mut q = SearchQuery::new(text).limit(limit).kinds(&[Kind::Journal]);
    q.strengthen = false;
    q.min_strength = Some(0.0);
    q
}

fn cosine(h: &SearchHit) -> Option<f64> {
    h.signals.iter().find(|s| s.name == "vector").map(|s| s.value)
}

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_vectors = args.iter().any(|a| a == "--no-vectors");
    // The holdout half is printed only when asked: tuning looks at the tune half alone.
    let show_holdout = args.iter().any(|a| a == "--holdout");
    let mut sizes = vec![1000usize, 10_000];
    let mut dump: Option<String> = None;
    let mut dir = "../shared/bench/locomo-dev".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = it.next().expect("--sizes N,N").split(',').map(|s| s.parse().expect("a size")).collect()
            }
            "--dump" => dump = Some(it.next().expect("--dump FILE").clone()),
            "--no-vectors" | "--holdout" => {}
            other => dir = other.to_string(),
        }
    }
    let embedder: Option<Arc<dyn Embedder>> = support::embedder(no_vectors);
    let unrelated: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/unrelated_queries.json"))
            .expect("the unrelated queries"),
    )
    .expect("JSON");
    let half = |name: &str| -> Vec<String> {
        unrelated[name].as_array().expect("a list").iter().filter_map(|q| q.as_str().map(String::from)).collect()
    };
    let (tune, holdout) = (half("tune"), half("holdout"));
    let near_miss: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/near_miss_queries.json"))
            .expect("the near-miss questions"),
    )
    .expect("JSON");
    // (conversation, question) for each half of the near-miss questions.
    let near_half = |name: &str| -> Vec<(String, String)> {
        near_miss[name]
            .as_array()
            .expect("a list")
            .iter()
            .map(|q| (q["conv"].as_str().expect("conv").to_string(), q["q"].as_str().expect("q").to_string()))
            .collect()
    };
    let (near_tune, near_holdout) = (near_half("tune"), near_half("holdout"));
    let conv_ids = ["26", "30", "41"];
    let convs: Vec<Value> = conv_ids
        .iter()
        .map(|c| serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{c}.json")).expect("a conversation")))
        .collect::<Result<_, _>>()
        .expect("JSON");
    let all_turns: Vec<Vec<Turn>> = convs.iter().map(turns).collect();
    let mut dump_out: Vec<Value> = Vec::new();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    println!(
        "Search cutoff calibration (LoCoMo dev, 3 conversations, vectors {})",
        if embedder.is_some() { "on" } else { "off" }
    );
    for size in &sizes {
        let started = std::time::Instant::now();
        let mut questions: Vec<Ranked> = Vec::new();
        // Strength of the strongest hit of each unrelated query, per half.
        let mut best: HashMap<&str, Vec<f64>> = HashMap::new();
        // The same for the near-miss questions, per half.
        let mut near_best: HashMap<&str, Vec<f64>> = HashMap::new();
        // Up to 1k, one store per conversation (the protocol); past it, one store holding all
        // three conversations and the filler, so the model embeds 10k texts once, not thrice.
        let groups: Vec<Vec<usize>> =
            if *size > 1000 { vec![(0..convs.len()).collect()] } else { (0..convs.len()).map(|c| vec![c]).collect() };
        for (gi, group) in groups.iter().enumerate() {
            let own: Vec<(usize, &Turn)> =
                group.iter().flat_map(|c| all_turns[*c].iter().map(move |t| (*c, t))).collect();
            let others: Vec<&Vec<Turn>> =
                (0..convs.len()).filter(|j| !group.contains(j) || groups.len() == 1).map(|j| &all_turns[j]).collect();
            let mut rng = Rng(0x5eed ^ (*size as u64) << 8 ^ gi as u64);
            let pad = filler(&others, size.saturating_sub(own.len()), groups.len() > 1, &mut rng);
            let clock = Arc::new(ManualClock::new(0.0));
            let mut opts = StoreOptions::default().clock(clock.clone());
            if let Some(e) = &embedder {
                opts = opts.embedder(e.clone());
            }
            let store =
                MemoryStore::open(tmp.path().join(format!("g{gi}-{size}.db")), Identity::generate(), opts).await?;
            let mut by_time: HashMap<u64, (usize, String)> = HashMap::new();
            for (c, t) in &own {
                clock.set(t.ts);
                store.journal_at(&t.text, t.ts).await?;
                // Two conversations' turns at the same second: the second is moved by the
                // store, and not counted as evidence (none collide in the dev set).
                by_time.entry(t.ts.to_bits()).or_insert((*c, t.id.clone()));
            }
            let first = own.iter().map(|(_, t)| t.ts).fold(f64::MAX, f64::min);
            let last_of = |c: usize| all_turns[c].iter().map(|t| t.ts).fold(0.0, f64::max);
            let last = group.iter().map(|c| last_of(*c)).fold(0.0, f64::max);
            for text in &pad {
                let ts = first + (rng.next() % ((last - first) as u64).max(1)) as f64 + 0.25;
                clock.set(ts);
                store.journal_at(text, ts).await?;
            }
            for &ci in group {
                let conv = &convs[ci];
                let known: HashSet<String> = all_turns[ci].iter().map(|t| t.id.clone()).collect();
                clock.set((last_of(ci) / 86_400.0).floor() * 86_400.0 + 2.0 * 86_400.0);
                for qa in conv["qa"].as_array().expect("qa") {
                    let cat = qa["category"].as_u64().unwrap_or(0);
                    let evidence = clean_evidence(qa["evidence"].as_array().map(Vec::as_slice).unwrap_or(&[]), &known);
                    if evidence.is_empty() || !(1..=4).contains(&cat) {
                        continue;
                    }
                    let q = qa["question"].as_str().unwrap_or("");
                    let hits = store.search(query(q, 60)).await?;
                    let ev: HashSet<&String> = evidence.iter().collect();
                    let ranked: Vec<(bool, f64)> = hits
                        .iter()
                        .map(|h| {
                            let id = match &h.found {
                                Found::Journal(j) => by_time.get(&j.created_at.to_bits()).filter(|(c, _)| *c == ci),
                                _ => None,
                            };
                            (id.is_some_and(|(_, id)| ev.contains(id)), h.strength)
                        })
                        .collect();
                    if dump.is_some() {
                        let rows: Vec<Value> = hits
                            .iter()
                            .zip(&ranked)
                            .map(|(h, (e, _))| json!([e, h.strength, cosine(h), h.coverage]))
                            .collect();
                        dump_out.push(
                            json!({"set": "question", "size": size, "conv": ci, "cat": cat, "q": q, "hits": rows}),
                        );
                    }
                    questions.push(Ranked { hits: ranked, evidence: evidence.len() });
                }
            }
            for (name, list) in [("tune", &tune), ("holdout", &holdout)] {
                for q in list.iter() {
                    // Every candidate: the strongest may rank anywhere.
                    let hits = store.search(query(q, 100_000)).await?;
                    let top = hits.iter().map(|h| h.strength).fold(0.0, f64::max);
                    best.entry(name).or_default().push(top);
                    // Only the tune half is dumped for exploration.
                    if dump.is_some() && name == "tune" {
                        let mut rows: Vec<(f64, Option<f64>, f64)> =
                            hits.iter().map(|h| (h.strength, cosine(h), h.coverage)).collect();
                        rows.sort_by(|a, b| b.0.total_cmp(&a.0));
                        rows.truncate(5);
                        dump_out.push(json!({"set": name, "size": size, "store": gi, "q": q, "hits": rows}));
                    }
                }
            }
            for &ci in group {
                clock.set((last_of(ci) / 86_400.0).floor() * 86_400.0 + 2.0 * 86_400.0);
                for (name, list) in [("tune", &near_tune), ("holdout", &near_holdout)] {
                    for (_, q) in list.iter().filter(|(c, _)| c == conv_ids[ci]) {
                        let hits = store.search(query(q, 100_000)).await?;
                        let top = hits.iter().map(|h| h.strength).fold(0.0, f64::max);
                        near_best.entry(name).or_default().push(top);
                        if dump.is_some() && name == "tune" {
                            let mut rows: Vec<(f64, Option<f64>, f64)> =
                                hits.iter().map(|h| (h.strength, cosine(h), h.coverage)).collect();
                            rows.sort_by(|a, b| b.0.total_cmp(&a.0));
                            rows.truncate(5);
                            dump_out.push(json!({"set": "near tune", "size": size, "conv": ci, "q": q, "hits": rows}));
                        }
                    }
                }
            }
        }
        println!(
            "\n{size} memories per store ({} questions, {} + {} unrelated queries x {} stores, {} + {} near-miss; {:.0} s)",
            questions.len(),
            tune.len(),
            holdout.len(),
            if *size > 1000 { 1 } else { 3 },
            near_tune.len(),
            near_holdout.len(),
            started.elapsed().as_secs_f64()
        );
        println!(
            "{:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>12} {:>10} {:>10}",
            "threshold", "hit@10", "R@10", "ev cut", "q lost", "", "empty tune", "empty hold", "near tune", "near hold"
        );
        let chosen = memstr::search::min_strength(embedder.is_some());
        let mut thresholds = THRESHOLDS.to_vec();
        if !thresholds.contains(&chosen) {
            thresholds.push(chosen);
            thresholds.sort_by(f64::total_cmp);
        }
        for t in thresholds {
            let (mut hit, mut recall, mut ev_top, mut ev_cut, mut had, mut lost) =
                (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
            for q in &questions {
                let top10 = &q.hits[..q.hits.len().min(10)];
                let kept: Vec<&(bool, f64)> = q.hits.iter().filter(|(_, s)| *s >= t).take(10).collect();
                let found = kept.iter().filter(|(e, _)| *e).count();
                recall += found as f64 / q.evidence as f64;
                hit += f64::from(u8::from(found > 0));
                let before = top10.iter().filter(|(e, _)| *e).count();
                ev_top += before as f64;
                ev_cut += top10.iter().filter(|(e, s)| *e && *s < t).count() as f64;
                if before > 0 {
                    had += 1.0;
                    lost += f64::from(u8::from(found == 0));
                }
            }
            let n = questions.len() as f64;
            let share_below = |b: &Vec<f64>| b.iter().filter(|s| **s < t).count() as f64 / b.len().max(1) as f64;
            let empty = |name: &str| share_below(&best[name]);
            let near_empty = |name: &str| share_below(&near_best[name]);
            println!(
                "{:>9} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8} {:>10.3} {:>12} {:>10.3} {:>10}",
                format!("{}{t:.2}", if t == chosen { "*" } else { "" }),
                hit / n,
                recall / n,
                ev_cut / ev_top.max(1.0),
                lost / had.max(1.0),
                "",
                empty("tune"),
                if show_holdout { format!("{:.3}", empty("holdout")) } else { "-".into() },
                near_empty("tune"),
                if show_holdout { format!("{:.3}", near_empty("holdout")) } else { "-".into() }
            );
        }
    }
    if let Some(path) = dump {
        let text: String = dump_out.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(path, text).expect("the dump is written");
    }
    Ok(())
}
