//! `memstr search` end to end on a 10k store (issue 26 point 5), beside the library's own
//! search in the same run: the release binary run as a user runs it, once per search, with
//! and without the model, with and without a running `memstr serve` to hand the search to
//! (src/bin/memstr/forward.rs); and what a process pays before it searches, step by step.
//!
//! ```sh
//! cargo build --release --bin memstr
//! cargo run --release --example cli_latency -- [--dir DIR] [--memories N] [--runs R]
//! ```
//!
//! DIR (default `~/.cache/memstr/bench/cli-10000`) is reused when it holds a store;
//! otherwise N persona memories (default 10,000) are written there and embedded (the
//! model from `memstr model install`). Each figure is the median (min, max) of R runs
//! (default 20), the queries taken in turn from a fixed list. The key is the tests'
//! public test key, handed to the binary in MEMSTR_NSEC: it protects nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memstr::index::OnnxEmbedder;
use memstr::{Identity, LifecycleOptions, MemoryStore, PersonaInput, SearchQuery, StoreOptions};

/// The tests' public key (tests/support): protects nothing.
const SECRET: &str = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a";

const QUERIES: [&str; 10] = [
    "who is allergic to peanuts",
    "which meetings happen on Friday",
    "who lives in Lisbon",
    "who took up bouldering",
    "the billing migration deadline",
    "who listens to jazz while working",
    "someone reading Dune",
    "who has a grey cat",
    "who is flying to Osaka",
    "birthday in March",
];

const NAMES: [&str; 12] =
    ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun", "Kofi", "Lena"];
const CITIES: [&str; 10] =
    ["Warsaw", "Lisbon", "Osaka", "Nairobi", "Toronto", "Tallinn", "Lagos", "Seoul", "Denver", "Porto"];
const THINGS: [&str; 12] = [
    "spicy ramen",
    "bouldering",
    "jazz",
    "Dune",
    "a grey cat",
    "the billing migration",
    "peanuts",
    "black coffee",
    "chess",
    "sailing",
    "Postgres",
    "Bach cantatas",
];
const DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The i-th memory: templates filled from word lists by a fixed sequence, so no two are
/// alike and every run builds the same store.
fn memory(i: usize, next: &mut impl FnMut() -> usize) -> String {
    let mut pick = |list: &[&'static str]| list[next() % list.len()];
    let (n, a, b, c) = (pick(&NAMES), pick(&THINGS), pick(&THINGS), pick(&CITIES));
    let (d, m) = (pick(&DAYS), pick(&MONTHS));
    match i % 6 {
        0 => format!("{n} prefers {a} over {b} and lives in {c} (note {i})"),
        1 => format!("{n} took up {a} in {c} and wants to try {b} next (note {i})"),
        2 => format!("{n} prefers meetings on {d}; the {a} review is due in {m} (note {i})"),
        3 => format!("{n} is flying to {c} on {d} to talk about {a} (note {i})"),
        4 => format!("{n}'s birthday is in {m}; they like {a} and {b} (note {i})"),
        _ => format!("{n} is allergic to {a}, keeps away from {b}, and visits {c} in {m} (note {i})"),
    }
}

struct Opts {
    dir: PathBuf,
    memories: usize,
    runs: usize,
}

fn opts() -> Opts {
    let mut o = Opts { dir: memstr::index::cache_dir().join("bench/cli-10000"), memories: 10_000, runs: 20 };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--dir" => o.dir = PathBuf::from(value()),
            "--memories" => o.memories = value().parse().expect("--memories N"),
            "--runs" => o.runs = value().parse().expect("--runs R"),
            other => panic!("unknown argument {other}: --dir DIR, --memories N, --runs R"),
        }
    }
    o
}

/// Median (min, max) in milliseconds.
fn stats(mut ms: Vec<f64>) -> String {
    ms.sort_by(f64::total_cmp);
    let median = if ms.len() % 2 == 1 { ms[ms.len() / 2] } else { (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0 };
    format!("{median:8.1} ms  ({:.1} .. {:.1})", ms[0], ms[ms.len() - 1])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The release binary beside this example (target/release/memstr).
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("this example's path");
    let bin = exe.parent().and_then(Path::parent).expect("target/release/examples").join("memstr");
    assert!(bin.exists(), "{} is missing: cargo build --release --bin memstr", bin.display());
    bin
}

fn cli(dir: &Path) -> Command {
    let mut c = Command::new(binary());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("MEMSTR_") {
            c.env_remove(k);
        }
    }
    c.env("MEMSTR_DIR", dir)
        .env("MEMSTR_NSEC", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Wall time of `runs` processes, the i-th given query i (in turn).
fn time_cli(runs: usize, mut make: impl FnMut(&str) -> Command) -> Vec<f64> {
    (0..runs)
        .map(|i| {
            let mut c = make(QUERIES[i % QUERIES.len()]);
            let t = Instant::now();
            let status = c.status().expect("running memstr");
            let took = ms(t.elapsed());
            assert!(status.success(), "{c:?} failed");
            took
        })
        .collect()
}

async fn build(db: &Path, n: usize, embedder: Arc<OnnxEmbedder>) -> memstr::Result<()> {
    let t = Instant::now();
    let mut life = LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let options = StoreOptions::default().embedder(embedder).lifecycle(life);
    let store = MemoryStore::open(db, Identity::from_secret(SECRET)?, options).await?;
    let mut x: u64 = 7;
    let mut next = move || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) as usize
    };
    for i in 0..n {
        let text = memory(i, &mut next);
        store.persona_remember(PersonaInput::new("people", "facts", &format!("note-{i}"), &text)).await?;
    }
    let written = t.elapsed();
    let report = store.embed_pending(None, |_, _| {}).await?;
    store.close().await?;
    println!(
        "built {}: {n} persona memories written in {:.1} s, embedded in {:.1} s ({report:?})",
        db.display(),
        written.as_secs_f64(),
        (t.elapsed() - written).as_secs_f64()
    );
    Ok(())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let o = opts();
    let db = o.dir.join("memstr.db");
    let runs = o.runs;

    // The library, in this process: each step of what a CLI process pays before searching.
    let t = Instant::now();
    let embedder = Arc::new(OnnxEmbedder::from_cache()?);
    let model_load = t.elapsed();
    if !db.exists() {
        std::fs::create_dir_all(&o.dir).expect("creating --dir");
        build(&db, o.memories, embedder.clone()).await?;
    }
    let id = Identity::from_secret(SECRET)?;
    let t = Instant::now();
    let plain = MemoryStore::open(&db, id.clone(), StoreOptions::default()).await?;
    let open_plain = t.elapsed();
    let persona = plain.persona_stats().await?.total;
    plain.close().await?;
    let t = Instant::now();
    let store = MemoryStore::open(&db, id, StoreOptions::default().embedder(embedder.clone())).await?;
    let open_model = t.elapsed();
    let t = Instant::now();
    store.search(SearchQuery::new(QUERIES[0])).await?;
    let first = t.elapsed();
    let mut library = Vec::new();
    for i in 0..runs {
        let t = Instant::now();
        store.search(SearchQuery::new(QUERIES[i % QUERIES.len()])).await?;
        library.push(ms(t.elapsed()));
    }
    store.close().await?;

    // The binary: one process per search, as a shell or an agent's tool call runs it.
    let version = time_cli(runs, |_| {
        let mut c = cli(&o.dir);
        c.arg("--version");
        c
    });
    let whoami = time_cli(runs, |_| {
        let mut c = cli(&o.dir);
        c.arg("whoami");
        c
    });
    let stats_cmd = time_cli(runs, |_| {
        let mut c = cli(&o.dir);
        c.args(["persona", "domains"]);
        c
    });
    let no_model = time_cli(runs, |q| {
        let mut c = cli(&o.dir);
        c.args(["search", "--no-vectors", q]);
        c
    });
    let direct = time_cli(runs, |q| {
        let mut c = cli(&o.dir);
        c.args(["--no-forward", "search", q]);
        c
    });

    // A server for the store: `memstr serve`, ready once it says so.
    let mut server = cli(&o.dir);
    server.arg("serve").stderr(Stdio::piped());
    let mut server = server.spawn().expect("starting memstr serve");
    {
        use std::io::BufRead;
        let mut line = String::new();
        let mut err = std::io::BufReader::new(server.stderr.take().expect("piped"));
        err.read_line(&mut line).expect("memstr serve's first line");
        assert!(line.starts_with("memstr: serving"), "memstr serve: {line}");
        // Keep reading, so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in err.lines() {});
    }
    // Its first search waits for the index to load: not part of a search's cost.
    let mut check = cli(&o.dir);
    check.args(["search", QUERIES[0]]).env("MEMSTR_LOG", "memstr::forward=debug").stderr(Stdio::piped());
    let checked = check.output().expect("running memstr");
    let answered = String::from_utf8_lossy(&checked.stderr).contains("answered by the server");
    let served = time_cli(runs, |q| {
        let mut c = cli(&o.dir);
        c.args(["search", q]);
        c
    });
    let served_json = time_cli(runs, |q| {
        let mut c = cli(&o.dir);
        c.args(["--json", "search", "--explain", q]);
        c
    });
    // SAFETY: kill only signals the child this example started.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGTERM);
    }
    let _ = server.wait();

    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    println!("store: {} ({persona} persona memories); {runs} runs each, median (min .. max)", db.display());
    println!("machine: {cpus} cores; load average {}", load_average());
    println!("library, in one process:");
    println!("  load ONNX Runtime and the model       {:8.1} ms", ms(model_load));
    println!("  open the store without the model      {:8.1} ms", ms(open_plain));
    println!("  open the store with the loaded model  {:8.1} ms", ms(open_model));
    println!("  first search (waits for the index)    {:8.1} ms", ms(first));
    println!("  search                                {}", stats(library));
    println!("memstr, one process per command:");
    println!("  memstr --version (process start)      {}", stats(version));
    println!("  memstr whoami (+ the key)             {}", stats(whoami));
    println!("  memstr persona domains (+ open, close){}", stats(stats_cmd));
    println!("  memstr search --no-vectors            {}", stats(no_model));
    println!("  memstr search, no server, the model   {}", stats(direct));
    println!("  memstr search via memstr serve        {}   target <= 150 ms (forwarded: {answered})", stats(served));
    println!("  ... --json --explain via memstr serve {}", stats(served_json));
    Ok(())
}
