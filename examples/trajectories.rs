//! Calibrates where a new trajectory starts within an episode (issue 27, point 1) on the
//! labelled sequences of examples/data/trajectories.json: for each pair of consecutive
//! observations, the cosine of their embeddings with the model memstr ships (and their
//! word similarity, the fallback without it); a pair below the threshold is a predicted
//! switch. The threshold is chosen on half the sequences, those at positions 0 and 1 modulo 4
//! (best F1 of switch detection, ties to the lower threshold), and reported on both halves,
//! with neighbours. (The file alternates sequences with and without switches, so a split by
//! parity put nearly every switch on one side; the first run, with that split, is in
//! docs/lifecycle.md.)
//!
//! cargo run --example trajectories -- [--file F] [--show]

use memstr::index::Embedder;
use memstr::lifecycle::gate::lexical_similarity;
use memstr::lifecycle::trajectory::{TRAJECTORY_COSINE, TRAJECTORY_OVERLAP};

#[derive(serde::Deserialize)]
struct File {
    sequences: Vec<Sequence>,
}

#[derive(serde::Deserialize)]
struct Sequence {
    id: String,
    observations: Vec<String>,
    switches: Vec<usize>,
}

/// One consecutive pair: its similarity by each measure and whether it is a switch.
struct Pair {
    cosine: f64,
    words: f64,
    switch: bool,
}

#[derive(Default, Clone, Copy)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Score {
    fn precision(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fp).max(1) as f64
    }
    fn recall(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fn_).max(1) as f64
    }
    fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn score(pairs: &[&Pair], t: f64, by: fn(&Pair) -> f64) -> Score {
    let mut s = Score::default();
    for p in pairs {
        match (by(p) < t, p.switch) {
            (true, true) => s.tp += 1,
            (true, false) => s.fp += 1,
            (false, true) => s.fn_ += 1,
            (false, false) => {}
        }
    }
    s
}

/// `also`: further thresholds to show (Mnemosyne's 0.75, set for another model).
fn report(name: &str, tune: &[&Pair], held: &[&Pair], by: fn(&Pair) -> f64, shipped: f64, also: &[f64]) {
    let grid: Vec<f64> = (0..=90).map(|i| i as f64 / 100.0).collect();
    let best = grid
        .iter()
        .copied()
        .max_by(|a, b| score(tune, *a, by).f1().total_cmp(&score(tune, *b, by).f1()).then(b.total_cmp(a)))
        .unwrap();
    println!("\n{name}: best on tune {best:.2}, shipped {shipped:.2}");
    println!("threshold  tune P / R / F1          held-out P / R / F1");
    let mut rows: Vec<f64> =
        [-0.1, -0.05, 0.0, 0.05, 0.1].iter().map(|d| ((best + d) * 100.0).round() / 100.0).collect();
    for t in std::iter::once(shipped).chain(also.iter().copied()) {
        if !rows.iter().any(|r| (r - t).abs() < 1e-9) {
            rows.push(t);
        }
    }
    for t in rows.into_iter().filter(|t| *t >= 0.0) {
        let (a, b) = (score(tune, t, by), score(held, t, by));
        let mark = if (t - shipped).abs() < 1e-9 { " <- shipped" } else { "" };
        println!(
            "{t:>9.2}  {:.2} / {:.2} / {:.2} ({}+{}/{})   {:.2} / {:.2} / {:.2} ({}+{}/{}){mark}",
            a.precision(),
            a.recall(),
            a.f1(),
            a.tp,
            a.fp,
            a.tp + a.fn_,
            b.precision(),
            b.recall(),
            b.f1(),
            b.tp,
            b.fp,
            b.tp + b.fn_
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .iter()
        .position(|a| a == "--file")
        .map(|i| args[i + 1].clone())
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/trajectories.json").into());
    let show = args.iter().any(|a| a == "--show");
    let data: File = serde_json::from_str(&std::fs::read_to_string(&file).expect("read the file")).expect("parse");
    let model = memstr::index::OnnxEmbedder::from_cache().expect("the model (scripts/models/fetch.sh)");
    let (mut tune, mut held) = (Vec::new(), Vec::new());
    for (i, s) in data.sequences.iter().enumerate() {
        let texts: Vec<&str> = s.observations.iter().map(String::as_str).collect();
        let vectors = model.embed(&texts).expect("embed");
        for j in 1..texts.len() {
            let cosine: f64 = vectors[j].iter().zip(&vectors[j - 1]).map(|(a, b)| f64::from(a * b)).sum();
            let pair =
                Pair { cosine, words: lexical_similarity(texts[j - 1], texts[j]), switch: s.switches.contains(&j) };
            if show {
                let label = if pair.switch { "SWITCH" } else { "same" };
                println!("{} {j}: {label:>6} cosine {:.3} words {:.3}", s.id, pair.cosine, pair.words);
            }
            if i % 4 < 2 { &mut tune } else { &mut held }.push(pair);
        }
    }
    let (tune, held): (Vec<&Pair>, Vec<&Pair>) = (tune.iter().collect(), held.iter().collect());
    let count = |v: &[&Pair]| (v.len(), v.iter().filter(|p| p.switch).count());
    println!(
        "{} sequences; tune (positions 0, 1 mod 4): {:?} pairs/switches; held out (2, 3 mod 4): {:?}",
        data.sequences.len(),
        count(&tune),
        count(&held)
    );
    report("cosine (all-MiniLM-L6-v2 int8)", &tune, &held, |p| p.cosine, TRAJECTORY_COSINE, &[0.75]);
    report("word similarity (no model)", &tune, &held, |p| p.words, TRAJECTORY_OVERLAP, &[]);
}
