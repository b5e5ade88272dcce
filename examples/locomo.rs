//! LoCoMo retrieval benchmark (../shared/bench/locomo-dev/README.md), through memstr's
//! public API and its normal search.
//!
//! cargo run --release --example locomo -- FILE... [--json] [--no-vectors] [--set NAME=VALUE]... [--phrasings FILE] [--behaviour NAME=on|off]...
//!
//! `--phrasings examples/data/agent_phrasings.json` adds to each question the phrasings and
//! hypothetical answer a calling agent wrote seeing only the question.
//!
//! `--set` changes one search weight or constant (see `memstr::search::Weights`), for
//! ablations: `--set episode=0 --set k=30`. `--grid NAME=V1,V2,...` asks every question
//! under each value too and chooses the value leave-one-conversation-out: for each
//! conversation, the value best on the others (pooled R@10, then MRR@10), scored on it.
//! `--variant 'A=1;B=2'` adds one set of changes (repeatable). Every run prints each
//! conversation's figures (the folds).
//!
//! Each conversation is its own store; every dialog turn is one journal entry written with
//! `journal_at` at its session's date (plus its turn index in seconds, to keep order), text
//! "{speaker}: {text}" and " [image: {caption}]" when the turn shared an image. "Now" is
//! the day after the last session. Each question takes the top 20 of `search`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use memstr::index::Embedder;
use memstr::search::{Kind, SearchQuery};
use memstr::{Found, Identity, ManualClock, MemoryStore, StoreOptions};
use serde_json::{json, Value};

#[allow(dead_code)] // each example uses its own subset
#[path = "support/mod.rs"]
mod support;

#[allow(dead_code)] // turns() is for examples/cutoff.rs
#[path = "support/locomo_data.rs"]
mod locomo_data;
use locomo_data::{clean_evidence, parse_date};

const KS: [usize; 4] = [1, 5, 10, 20];

#[derive(Default, Clone)]
struct Acc {
    n: f64,
    recall: [f64; 4],
    hit10: f64,
    mrr10: f64,
}

impl Acc {
    fn add(&mut self, ranked: &[String], evidence: &[String]) {
        self.n += 1.0;
        let ev: HashSet<&String> = evidence.iter().collect();
        for (i, k) in KS.iter().enumerate() {
            let found = ranked.iter().take(*k).filter(|d| ev.contains(d)).count();
            self.recall[i] += found as f64 / ev.len() as f64;
        }
        if let Some(pos) = ranked.iter().take(10).position(|d| ev.contains(d)) {
            self.hit10 += 1.0;
            self.mrr10 += 1.0 / (pos + 1) as f64;
        }
    }
    fn merge(&mut self, o: &Acc) {
        self.n += o.n;
        for i in 0..4 {
            self.recall[i] += o.recall[i];
        }
        self.hit10 += o.hit10;
        self.mrr10 += o.mrr10;
    }
    fn json(&self) -> Value {
        let d = self.n.max(1.0);
        json!({"questions": self.n as u64, "recall@1": self.recall[0] / d, "recall@5": self.recall[1] / d,
            "recall@10": self.recall[2] / d, "recall@20": self.recall[3] / d, "hit@10": self.hit10 / d, "mrr@10": self.mrr10 / d})
    }
}

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json_out = args.iter().any(|a| a == "--json");
    let no_vectors = args.iter().any(|a| a == "--no-vectors");
    let mut weights = serde_json::to_value(memstr::search::Weights::default()).expect("weights serialise");
    let mut it = args.iter();
    let mut files: Vec<&String> = Vec::new();
    let mut specs: Vec<String> = Vec::new();
    while let Some(a) = it.next() {
        if a == "--set" {
            let kv = it.next().expect("--set NAME=VALUE");
            let (k, v) = kv.split_once('=').expect("--set NAME=VALUE");
            weights[k] = serde_json::from_str(v).expect("a JSON value");
        } else if a == "--grid" {
            let kv = it.next().expect("--grid NAME=V1,V2");
            let (k, vs) = kv.split_once('=').expect("--grid NAME=V1,V2");
            specs.extend(vs.split(',').map(|v| format!("{k}={v}")));
        } else if a == "--variant" {
            specs.push(it.next().expect("--variant 'A=1;B=2'").clone());
        } else if a == "--phrasings" || a == "--behaviour" {
            it.next();
        } else if !a.starts_with("--") {
            files.push(a);
        }
    }
    let mut variants: Vec<(String, memstr::search::Weights)> =
        vec![("default".into(), serde_json::from_value(weights.clone()).expect("valid weights"))];
    for spec in &specs {
        let mut w = weights.clone();
        for kv in spec.split(';') {
            let (k, v) = kv.split_once('=').expect("NAME=VALUE");
            w[k] = serde_json::from_str(v).expect("a JSON value");
        }
        variants.push((spec.clone(), serde_json::from_value(w).expect("valid weights")));
    }
    support::load_phrasings(&args);
    if files.is_empty() {
        eprintln!("usage: locomo FILE... [--json] [--no-vectors]");
        std::process::exit(2);
    }
    let embedder: Option<Arc<dyn Embedder>> = support::embedder(no_vectors);
    let life = support::lifecycle_options(&args);
    let mut by_cat: BTreeMap<u64, Acc> = BTreeMap::new();
    // Categories 1-4 per variant and conversation.
    let mut folds: Vec<Vec<Acc>> = vec![vec![Acc::default(); files.len()]; variants.len()];
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let started = std::time::Instant::now();
    for (fi, file) in files.iter().enumerate() {
        let conv: Value = serde_json::from_str(&std::fs::read_to_string(file).expect("readable file")).expect("JSON");
        let clock = Arc::new(ManualClock::new(0.0));
        let mut opts = StoreOptions::default().clock(clock.clone()).lifecycle(life.clone());
        if let Some(e) = &embedder {
            opts = opts.embedder(e.clone());
        }
        let store = MemoryStore::open(tmp.path().join(format!("c{fi}.db")), Identity::generate(), opts).await?;
        let mut by_time: HashMap<u64, String> = HashMap::new();
        let mut known = HashSet::new();
        let mut last = 0f64;
        for s in 1.. {
            let Some(turns) = conv.get(format!("session_{s}")).and_then(Value::as_array) else { break };
            let date = conv[format!("session_{s}_date_time")].as_str().and_then(parse_date).expect("a session date");
            for (i, t) in turns.iter().enumerate() {
                let mut text = format!("{}: {}", t["speaker"].as_str().unwrap_or(""), t["text"].as_str().unwrap_or(""));
                if let Some(c) = t["blip_caption"].as_str() {
                    text.push_str(&format!(" [image: {c}]"));
                }
                let ts = date + i as f64;
                clock.set(ts);
                store.journal_at(&text, ts).await?;
                let id = t["dia_id"].as_str().unwrap_or("").to_string();
                by_time.insert(ts.to_bits(), id.clone());
                known.insert(id);
                last = last.max(ts);
            }
        }
        // Everything embedded before the questions: a search embeds only a few itself.
        store.index_pending().await?;
        clock.set((last / 86_400.0).floor() * 86_400.0 + 2.0 * 86_400.0);
        for qa in conv["qa"].as_array().expect("qa") {
            let evidence = clean_evidence(qa["evidence"].as_array().map(Vec::as_slice).unwrap_or(&[]), &known);
            if evidence.is_empty() {
                continue;
            }
            let cat = qa["category"].as_u64().unwrap_or(0);
            let q = qa["question"].as_str().unwrap_or("");
            for (vi, (_, w)) in variants.iter().enumerate() {
                let mut sq = SearchQuery::new(q).limit(20).kinds(&[Kind::Journal]);
                sq.weights = Some(w.clone());
                support::apply_phrasings(&mut sq);
                let hits = store.search(sq).await?;
                let ranked: Vec<String> = hits
                    .iter()
                    .filter_map(|h| match &h.found {
                        Found::Journal(j) => by_time.get(&j.created_at.to_bits()).cloned(),
                        _ => None,
                    })
                    .collect();
                if vi == 0 {
                    by_cat.entry(cat).or_default().add(&ranked, &evidence);
                }
                if (1..=4).contains(&cat) {
                    folds[vi][fi].add(&ranked, &evidence);
                }
            }
        }
    }
    let mut overall = Acc::default();
    for (c, a) in &by_cat {
        if (1..=4).contains(c) {
            overall.merge(a);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "LoCoMo retrieval ({} conversations, vectors {})",
        files.len(),
        if embedder.is_some() { "on" } else { "off" }
    );
    println!(
        "{:<12} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "category", "questions", "R@1", "R@5", "R@10", "R@20", "hit@10", "MRR@10"
    );
    let row = |name: &str, a: &Acc| {
        let j = a.json();
        println!(
            "{:<12} {:>9} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            name,
            j["questions"],
            j["recall@1"].as_f64().unwrap(),
            j["recall@5"].as_f64().unwrap(),
            j["recall@10"].as_f64().unwrap(),
            j["recall@20"].as_f64().unwrap(),
            j["hit@10"].as_f64().unwrap(),
            j["mrr@10"].as_f64().unwrap()
        );
    };
    for (c, a) in &by_cat {
        row(&format!("cat {c}"), a);
    }
    row("overall 1-4", &overall);
    for (fi, file) in files.iter().enumerate() {
        let name = std::path::Path::new(file.as_str()).file_stem().map(|s| s.to_string_lossy().to_string());
        row(&format!("fold {}", name.unwrap_or_default()), &folds[0][fi]);
    }
    println!("({elapsed:.1} s including ingest and embedding)");
    if variants.len() > 1 {
        leave_one_out(&variants, &folds);
    }
    if json_out {
        let cats: BTreeMap<String, Value> = by_cat.iter().map(|(c, a)| (c.to_string(), a.json())).collect();
        let mut o = overall.json();
        let questions = o.as_object_mut().unwrap().remove("questions").unwrap();
        println!("{}", json!({"questions": questions, "overall": o, "by_category": cats}));
    }
    Ok(())
}

/// Each variant's R@10 / MRR@10 per conversation, then per conversation the variant the
/// other conversations choose (pooled R@10, then MRR@10) and its figures there.
fn leave_one_out(variants: &[(String, memstr::search::Weights)], folds: &[Vec<Acc>]) {
    let score = |a: &Acc| (a.recall[2] / a.n.max(1.0), a.mrr10 / a.n.max(1.0));
    println!("\nvariants, R@10 / MRR@10 per conversation (categories 1-4):");
    for (vi, (name, _)) in variants.iter().enumerate() {
        let mut all = Acc::default();
        let cells: Vec<String> = folds[vi]
            .iter()
            .map(|a| {
                all.merge(a);
                let (r, m) = score(a);
                format!("{r:.3} / {m:.3}")
            })
            .collect();
        let (r, m) = score(&all);
        println!("  {name:<28} {}   pooled {r:.3} / {m:.3}", cells.join("   "));
    }
    println!("leave one conversation out:");
    let (mut held, mut worst) = (Acc::default(), f64::INFINITY);
    for out in 0..folds[0].len() {
        let pick = (0..variants.len())
            .max_by(|&a, &b| {
                let rest = |vi: usize| {
                    let mut acc = Acc::default();
                    folds[vi].iter().enumerate().filter(|(f, _)| *f != out).for_each(|(_, x)| acc.merge(x));
                    score(&acc)
                };
                let (ra, ma) = rest(a);
                let (rb, mb) = rest(b);
                // Earlier variants win ties: the default first.
                ra.total_cmp(&rb).then(ma.total_cmp(&mb)).then(b.cmp(&a))
            })
            .expect("a variant");
        let (r, m) = score(&folds[pick][out]);
        worst = worst.min(r);
        held.merge(&folds[pick][out]);
        println!("  conversation {}: chose {} -> R@10 {r:.3}, MRR@10 {m:.3}", out + 1, variants[pick].0);
    }
    let (r, m) = score(&held);
    println!("  held out, pooled: R@10 {r:.3}, MRR@10 {m:.3}; worst fold R@10 {worst:.3}");
}
