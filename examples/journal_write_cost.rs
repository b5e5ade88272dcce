//! What a journal write costs: N entries written one by one with `journal_at` (each its own
//! signed event and transaction), no model, automatic consolidation off, times 5 to 95
//! minutes apart as a person's notes are (so most entries have an episode neighbour,
//! docs/search.md "Episodes"). Prints the median and 90th percentile write time and the
//! rate, per block of N/10 writes, and the store's size.
//!
//! ```sh
//! cargo run --release --example journal_write_cost -- [N]   # default 5000
//! ```

use std::sync::Arc;
use std::time::Instant;

use memstr::{Identity, LifecycleOptions, ManualClock, MemoryStore, StoreOptions};

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5_000);
    let start = 1_767_603_600.0;
    let clock = Arc::new(ManualClock::new(start));
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let opts = StoreOptions::default().clock(clock.clone()).lifecycle(life);
    let store = MemoryStore::open(dir.path().join("memstr.db"), Identity::generate(), opts).await?;
    // A fixed linear congruential sequence: the same gaps and words every run.
    let mut x: u64 = 42;
    let mut next = move || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as usize
    };
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
    let mut ts = start;
    let mut times = Vec::with_capacity(n);
    let all = Instant::now();
    for i in 0..n {
        ts += 60.0 * (5 + next() % 91) as f64;
        clock.set(ts);
        let text: Vec<&str> = (0..12).map(|_| WORDS[next() % WORDS.len()]).collect();
        let t = Instant::now();
        store.journal_at(&format!("{} (note {i})", text.join(" ")), ts).await?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let total = all.elapsed().as_secs_f64();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p) as usize];
    println!("journal writes: {n} in {total:.2} s, {:.0} writes/s", n as f64 / total);
    println!("per write: median {:.3} ms, p90 {:.3} ms", q(0.5), q(0.9));
    for (b, block) in times.chunks(n.div_ceil(10)).enumerate() {
        let mut s = block.to_vec();
        s.sort_by(f64::total_cmp);
        println!("  writes {:>6}..{:<6} median {:.3} ms", b * block.len(), (b + 1) * block.len(), s[s.len() / 2]);
    }
    store.close().await?;
    let bytes: u64 = std::fs::read_dir(dir.path())
        .expect("the store's directory")
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("store on disk: {:.1} MB ({:.0} bytes per entry)", bytes as f64 / 1e6, bytes as f64 / n as f64);
    Ok(())
}
