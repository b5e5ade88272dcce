//! Bulk writes (issue 26): the rate of N memories written one call per memory (each its
//! own transaction, committed and fsynced) beside the batch call
//! (`MemoryStore::write_batch`, `MAX_BATCH` memories a transaction), on fresh stores, the
//! same records both ways: flat memories, journal entries (5 to 95 minutes apart, so most
//! have an episode neighbour) and persona memories in turn. No model, automatic
//! consolidation off. Prints each run, the medians over the runs and their ratio.
//!
//! ```sh
//! cargo run --release --example bulk_write -- [N] [RUNS]   # default 5000 3
//! ```

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;

use std::sync::Arc;
use std::time::Instant;

use memstr::{BatchItem, Identity, LifecycleOptions, ManualClock, MemoryStore, PersonaInput, StoreOptions, MAX_BATCH};

const START: f64 = 1_767_603_600.0;

const WORDS: [&str; 16] = [
    "reviewed",
    "the",
    "invoice",
    "ledger",
    "with",
    "Dana",
    "after",
    "standup",
    "deploy",
    "migration",
    "relay",
    "kitchen",
    "garden",
    "train",
    "budget",
    "draft",
];

/// The same N records every run: a fixed linear congruential sequence picks the words and
/// the gaps.
fn records(n: usize) -> Vec<BatchItem> {
    let mut x: u64 = 42;
    let mut next = move || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as usize
    };
    let mut ts = START;
    (0..n)
        .map(|i| {
            ts += 60.0 * (5 + next() % 91) as f64;
            let text: Vec<&str> = (0..12).map(|_| WORDS[next() % WORDS.len()]).collect();
            let text = format!("{} (note {i})", text.join(" "));
            match i % 3 {
                0 => BatchItem::kv(format!("key-{i}"), text),
                1 => BatchItem::journal(text),
                _ => BatchItem::persona(
                    PersonaInput::new("work", "notes", &format!("note-{i}"), &text).themes([WORDS[i % 16]]),
                ),
            }
            .at(ts)
        })
        .collect()
}

async fn fresh(dir: &std::path::Path) -> memstr::Result<MemoryStore> {
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let opts = StoreOptions::default().clock(Arc::new(ManualClock::new(START))).lifecycle(life);
    MemoryStore::open(dir.join("memstr.db"), Identity::generate(), opts).await
}

/// Seconds to write `items` one call per memory.
async fn singly(store: &MemoryStore, items: Vec<BatchItem>) -> memstr::Result<f64> {
    let t = Instant::now();
    for item in items {
        let at = item.time().expect("every record has its time");
        match item {
            BatchItem::Kv { key, value, .. } => store.remember_at(&key, &value, at).await?,
            BatchItem::Journal { content, .. } => store.journal_at(&content, at).await?,
            BatchItem::Persona(input) => store.persona_remember(input).await?,
            _ => unreachable!("the records above"),
        };
    }
    Ok(t.elapsed().as_secs_f64())
}

/// Seconds to write `items` with the batch call, `MAX_BATCH` at a time.
async fn batched(store: &MemoryStore, mut items: Vec<BatchItem>) -> memstr::Result<f64> {
    let t = Instant::now();
    while !items.is_empty() {
        let rest = items.split_off(items.len().min(MAX_BATCH));
        store.write_batch(std::mem::replace(&mut items, rest)).await?;
    }
    Ok(t.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or("?".into(), |s| s.trim().to_string())
}

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let arg = |i: usize, default: usize| std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (n, runs) = (arg(1, 5_000), arg(2, 3).max(1));
    println!("bulk_write: {n} memories (flat, journal, persona in turn), {runs} runs, batches of {MAX_BATCH}");
    println!("commit:    {}", commit());
    println!("machine:   {}", support::machine());
    println!("load:      {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    let (mut one, mut many) = (Vec::new(), Vec::new());
    for run in 1..=runs {
        // Fresh stores each time, the two ways in turn so a slow spell of the machine
        // does not fall on one way only.
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = fresh(&dir.path().join("single")).await?;
        let s = singly(&store, records(n)).await?;
        store.close().await?;
        let store = fresh(&dir.path().join("batch")).await?;
        let b = batched(&store, records(n)).await?;
        let stats = store.stats().await?;
        assert_eq!(stats.outbox as usize, n, "every memory its own event, queued");
        store.close().await?;
        println!(
            "run {run}: one call per memory {:>8.0} writes/s ({s:.2} s), batch call {:>8.0} writes/s ({b:.2} s)",
            n as f64 / s,
            n as f64 / b
        );
        one.push(n as f64 / s);
        many.push(n as f64 / b);
    }
    let (one, many) = (median(one), median(many));
    println!("median: one call per memory {one:.0} writes/s, batch call {many:.0} writes/s, ratio {:.1}x", many / one);
    Ok(())
}
