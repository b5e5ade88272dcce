//! What encryption at rest costs: the same writes and searches on a plain store and on an
//! encrypted one (SQLCipher database, sealed vector index), medians per operation.
//!
//! ```sh
//! cargo run --release --features encryption --example encryption_bench
//! # same as: ... -- --writes 2000 --searches 200 --runs 1
//! ```
//!
//! Each run opens a fresh store per mode (plain, then encrypted) in a temporary directory
//! and times, one call after another: `remember` of `--writes` sentence values (each a
//! committed, fsynced transaction); `--searches` lexical searches (no embedder: FTS5 and
//! the lifecycle signals, all reads through SQLite); then, when the embedding model is
//! installed (`memstr model install`), the store is reopened with it, every memory
//! embedded (untimed), closed (the index saved, sealed or not), and reopened: the first
//! search after that open (loading the saved index) and `--searches` hybrid searches.

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;

use std::sync::Arc;
use std::time::Instant;

use memstr::search::SearchQuery;
use memstr::{Identity, MemoryStore, StoreOptions};

const WORDS: &[&str] = &[
    "garden", "violin", "harbour", "ledger", "coffee", "morning", "budget", "review", "puppy", "biscuit", "river",
    "mountain", "train", "station", "letter", "sister", "teacher", "kitchen", "window", "winter", "summer", "market",
    "bakery", "bicycle", "lantern", "museum", "painting", "recipe", "holiday", "meeting", "project", "deadline",
    "doctor", "concert", "novel", "poem", "island", "forest", "castle", "bridge",
];

struct Args {
    writes: usize,
    searches: usize,
    runs: usize,
}

fn args() -> Args {
    let mut a = Args { writes: 2_000, searches: 200, runs: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v: usize = it.next().and_then(|v| v.parse().ok()).expect("a number after each flag");
        match flag.as_str() {
            "--writes" => a.writes = v,
            "--searches" => a.searches = v,
            "--runs" => a.runs = v,
            other => panic!("unknown flag {other}: --writes N, --searches N, --runs N"),
        }
    }
    a
}

/// A deterministic word stream.
struct Words(u64);

impl Words {
    fn next(&mut self) -> &'static str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        WORDS[(self.0 % WORDS.len() as u64) as usize]
    }
    fn sentence(&mut self, n: usize) -> String {
        (0..n).map(|_| self.next()).collect::<Vec<_>>().join(" ")
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

fn p90(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() * 9 / 10).copied().unwrap_or(f64::NAN)
}

#[derive(Default)]
struct Samples {
    write_us: Vec<f64>,
    lexical_us: Vec<f64>,
    first_search_ms: Vec<f64>,
    hybrid_us: Vec<f64>,
    db_bytes: Vec<f64>,
}

async fn run(
    encrypt: bool,
    a: &Args,
    embedder: Option<Arc<dyn memstr::index::Embedder>>,
    s: &mut Samples,
) -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("memstr.db");
    let id = Identity::generate();
    let store = MemoryStore::open(&db, id.clone(), StoreOptions::default().encrypt(encrypt)).await?;
    let mut w = Words(0x9e37_79b9_7f4a_7c15);
    for i in 0..a.writes {
        let value = w.sentence(12);
        let t = Instant::now();
        store.remember(&format!("note-{i:05}"), &value).await?;
        s.write_us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let queries: Vec<String> = (0..a.searches).map(|_| w.sentence(2)).collect();
    for q in &queries {
        let t = Instant::now();
        let hits = store.search(SearchQuery::new(q)).await?;
        s.lexical_us.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(!hits.is_empty(), "no hit for {q}");
    }
    store.close().await?;
    s.db_bytes.push(std::fs::metadata(&db)?.len() as f64);
    if let Some(e) = embedder {
        let opts = || StoreOptions::default().embedder(e.clone());
        let store = MemoryStore::open(&db, id.clone(), opts()).await?;
        store.index_pending().await?; // embeds every memory (a search embeds only a few)
        store.close().await?;
        let t = Instant::now();
        let store = MemoryStore::open(&db, id.clone(), opts()).await?;
        store.search(SearchQuery::new(&queries[0])).await?;
        s.first_search_ms.push(t.elapsed().as_secs_f64() * 1e3);
        for q in &queries {
            let t = Instant::now();
            store.search(SearchQuery::new(q)).await?;
            s.hybrid_us.push(t.elapsed().as_secs_f64() * 1e6);
        }
        assert_eq!(store.is_encrypted(), encrypt);
        store.close().await?;
    }
    Ok(())
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
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a = args();
    let embedder: Option<Arc<dyn memstr::index::Embedder>> = match memstr::index::OnnxEmbedder::from_cache() {
        Ok(e) => Some(Arc::new(e)),
        Err(e) => {
            eprintln!("no embedding model ({e}): lexical search only");
            None
        }
    };
    println!("encryption_bench: {} writes, {} searches, {} run(s) per mode", a.writes, a.searches, a.runs);
    println!("commit:    {}", commit());
    println!("machine:   {}", support::machine());
    println!("load:      {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    let (mut plain, mut enc) = (Samples::default(), Samples::default());
    for _ in 0..a.runs {
        run(false, &a, embedder.clone(), &mut plain).await?;
        run(true, &a, embedder.clone(), &mut enc).await?;
    }
    println!(
        "{:<10} {:>12} {:>12} {:>14} {:>14} {:>16} {:>13} {:>13} {:>10}",
        "mode",
        "write med µs",
        "write p90 µs",
        "lexical med µs",
        "lexical p90 µs",
        "open+1st srch ms",
        "hybrid med µs",
        "hybrid p90 µs",
        "db MB"
    );
    for (name, s) in [("plain", &mut plain), ("encrypted", &mut enc)] {
        println!(
            "{:<10} {:>12.0} {:>12.0} {:>14.0} {:>14.0} {:>16.1} {:>13.0} {:>13.0} {:>10.2}",
            name,
            median(&mut s.write_us),
            p90(&mut s.write_us),
            median(&mut s.lexical_us),
            p90(&mut s.lexical_us),
            median(&mut s.first_search_ms),
            median(&mut s.hybrid_us),
            p90(&mut s.hybrid_us),
            median(&mut s.db_bytes) / 1e6
        );
    }
    println!("load:      {} (end)", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    Ok(())
}
