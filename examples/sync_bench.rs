//! Sync throughput: memstr's push and pull of N memories through a local nostr-rs-relay,
//! next to a bare nostr-sdk publish and fetch of N events of the same size, in one run.
//!
//! ```text
//! cargo run --release --example sync_bench -- [--n 10000] [--runs 3] [--relay-bin PATH] [--concurrency 200]
//! ```
//!
//! Every timed phase gets a fresh nostr-rs-relay (free loopback port, temporary database),
//! so no phase sees another's events. The relay binary comes from
//! `relay-fixtures/install-relay.sh` unless `--relay-bin` is given. The table shows the
//! median of `--runs` runs; the ratio is memstr's time over nostr-sdk's time for the same
//! work, so 1.0 means no overhead. CPU columns: this process (the client) and the relay
//! process, from `/proc`, to show which side was busy.
//!
//! What is timed:
//! - memstr writes: N sequential `remember` calls (local SQLite only; not part of sync).
//! - memstr push: the first `sync` of that store: N events up, each acknowledged.
//! - memstr pull: `sync` of a second, empty store with the same key: N events down,
//!   verified, decrypted and applied.
//! - nostr-sdk build: NIP-44 encryption to self and signing of N kind-30078 events with
//!   the plaintext and d tag memstr writes, and the `created_at` memstr gave each memory
//!   in the same run (see `sdk_run`). Outside the publish timing.
//! - nostr-sdk publish: `Client::send_event` for every event, at most `--concurrency` in
//!   flight, each waiting for the relay's `OK`.
//! - nostr-sdk fetch: `Client::fetch_events` of the author's kind-30078 events, until
//!   all N are back. Signatures are verified by nostr-sdk; nothing is decrypted or stored.

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::{cpu_secs, relay_binary, utc_now, RelayProcess, Rng};

use futures_util::StreamExt;
use memstr::sync::SyncOptions;
use memstr::{DTagMode, Identity, MemoryStore, StoreOptions};
use nostr_sdk::prelude::*;

type BoxResult<T> = std::result::Result<T, Box<dyn Error>>;

fn fail<T>(msg: String) -> BoxResult<T> {
    Err(msg.into())
}

// ---------------------------------------------------------------------------------------
// Arguments

struct Args {
    n: usize,
    runs: usize,
    relay_bin: Option<PathBuf>,
    concurrency: usize,
}

fn parse_args() -> BoxResult<Args> {
    let mut args = Args { n: 10_000, runs: 3, relay_bin: None, concurrency: 200 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--n" => args.n = value()?.parse()?,
            "--runs" => args.runs = value()?.parse()?,
            "--relay-bin" => args.relay_bin = Some(PathBuf::from(value()?)),
            "--concurrency" => args.concurrency = value()?.parse()?,
            "-h" | "--help" => {
                println!(
                    "usage: sync_bench [--n 10000] [--runs 3] [--relay-bin PATH] [--concurrency 200]\n\
                     --concurrency: nostr-sdk publishes in flight at once (memstr's push window is 200)"
                );
                std::process::exit(0);
            }
            other => return fail(format!("unknown argument {other} (try --help)")),
        }
    }
    if args.n == 0 || args.runs == 0 || args.concurrency == 0 {
        return fail("--n, --runs and --concurrency must be at least 1".into());
    }
    Ok(args)
}

// ---------------------------------------------------------------------------------------
// Timing: wall clock, plus CPU time of this process and of the relay, to see who was busy.

/// One timed phase.
#[derive(Clone, Copy, Default)]
struct Phase {
    secs: f64,
    /// CPU seconds of this process (client side) during the phase.
    client_cpu: f64,
    /// CPU seconds of the relay during the phase.
    relay_cpu: f64,
}

struct Stopwatch {
    start: Instant,
    client: f64,
    relay: Option<(String, f64)>,
}

impl Stopwatch {
    fn start(relay: Option<&Relay>) -> Stopwatch {
        let relay = relay.map(|r| {
            let pid = r.process.pid();
            let cpu = cpu_secs(&pid);
            (pid, cpu)
        });
        Stopwatch { start: Instant::now(), client: cpu_secs("self"), relay }
    }

    fn stop(self) -> Phase {
        let secs = self.start.elapsed().as_secs_f64();
        let relay_cpu = self.relay.map_or(0.0, |(pid, cpu)| cpu_secs(&pid) - cpu);
        Phase { secs, client_cpu: cpu_secs("self") - self.client, relay_cpu }
    }
}

// ---------------------------------------------------------------------------------------
// The relay: one nostr-rs-relay process, killed when dropped (also on error or panic).

struct Relay {
    process: RelayProcess,
    // Held for its Drop: the relay's database directory goes with it.
    _data: tempfile::TempDir,
}

impl Relay {
    fn start(bin: &Path) -> BoxResult<Relay> {
        let data = tempfile::tempdir()?;
        Ok(Relay { process: RelayProcess::start(bin, data.path(), Duration::from_secs(20))?, _data: data })
    }

    fn url(&self) -> String {
        self.process.url()
    }
}

// ---------------------------------------------------------------------------------------
// Workload: N memories with keys `note-00042` and sentence values of 60 to 200 characters.

const SUBJECTS: &[&str] = &[
    "Alice",
    "Bob",
    "The user",
    "Carol from support",
    "The build server",
    "Our release manager",
    "The staging database",
    "Dave",
    "The design team",
    "Erin",
    "The nightly job",
    "Frank",
];
const VERBS: &[&str] = &[
    "prefers",
    "asked for",
    "mentioned",
    "decided on",
    "keeps forgetting",
    "needs",
    "reported",
    "approved",
    "rejected",
    "is waiting for",
    "wants to revisit",
    "switched to",
];
const OBJECTS: &[&str] = &[
    "dark mode in every editor",
    "the quarterly budget review",
    "a shorter standup",
    "the migration to SQLite",
    "weekly backups to the cold storage bucket",
    "vegetarian lunch options",
    "the new onboarding checklist",
    "two-factor login for the admin panel",
    "the Berlin office move",
    "a rollback plan for the payment service",
    "larger fonts in the dashboard",
    "the flaky integration tests",
];
const TAILS: &[&str] = &[
    "before the next release",
    "on Tuesday mornings",
    "after the incident last March",
    "because the old setup was too slow",
    "until the contract is renewed",
    "when the team is in the office",
    "as discussed in the retro",
    "for the customer demo",
    "once the audit is done",
    "every other week",
];

fn sentence(rng: &mut Rng) -> String {
    let target = 60 + rng.below(141); // 60..=200 characters
    let mut s = String::new();
    while s.len() < target {
        let clause = format!("{} {} {} {}", rng.pick(SUBJECTS), rng.pick(VERBS), rng.pick(OBJECTS), rng.pick(TAILS));
        if s.is_empty() {
            s = clause;
        } else {
            s.push_str(if rng.below(2) == 0 { ", and " } else { "; also, " });
            s.push_str(&clause.to_lowercase());
        }
    }
    if s.len() > 199 {
        // Cut at a word boundary so the value stays within 200 characters with its period.
        let cut = s[..199].rfind(' ').unwrap_or(199);
        s.truncate(cut);
        s = s.trim_end_matches([',', ';']).to_string();
    }
    s.push('.');
    s
}

fn workload(n: usize) -> Vec<(String, String)> {
    let mut rng = Rng(0x6d65_6d73_7472);
    (0..n).map(|i| (format!("note-{i:05}"), sentence(&mut rng))).collect()
}

// ---------------------------------------------------------------------------------------
// The two sides.

struct MemstrRun {
    writes: Phase,
    push: Phase,
    pull: Phase,
    /// `created_at` of each memory's event, by index: the baseline signs with the same.
    stamps: Vec<u64>,
    avg_event_bytes: f64,
}

async fn memstr_run(bin: &Path, items: &[(String, String)]) -> BoxResult<MemstrRun> {
    let n = items.len() as u64;
    let relay = Relay::start(bin)?;
    let dir = tempfile::tempdir()?;
    let key = Identity::generate();
    let opts = SyncOptions::default();

    // Compatible: the same plain d tags as the SDK baseline's events (and read back below).
    let a_opts = StoreOptions::default().d_tag_mode(DTagMode::Compatible);
    let a = MemoryStore::open(dir.path().join("a.db"), key.clone(), a_opts).await?;
    a.add_relay(&relay.url(), false).await?;
    // One call per memory, one after another, as an agent writes them.
    let sw = Stopwatch::start(Some(&relay));
    for (k, v) in items {
        a.remember(k, v).await?;
    }
    let writes = sw.stop();

    let sw = Stopwatch::start(Some(&relay));
    let reports = a.sync(&opts).await?;
    let push = sw.stop();
    let r = &reports[0];
    // The memories, and the store's private relay list once it names a relay.
    if r.error.is_some() || !(n..=n + 1).contains(&r.pushed) || !r.refused.is_empty() {
        return fail(format!("memstr push: expected {n} pushed, got {r:?}"));
    }

    // Untimed: what went up, for the baseline's timestamps and the size comparison.
    let events = a.export_events().await?;
    let bytes: usize = events.iter().map(|e| e.as_json().len()).sum();
    let mut stamps = vec![0; items.len()];
    for e in &events {
        let d = e.tags.identifier().unwrap_or_default();
        if let Some(i) = d.strip_prefix("sense-memory/note-").and_then(|i| i.parse::<usize>().ok()) {
            stamps[i] = e.created_at.as_secs();
        }
    }
    if stamps.contains(&0) {
        return fail("memstr export: a memory's event is missing".into());
    }

    let b = MemoryStore::open(dir.path().join("b.db"), key, StoreOptions::default()).await?;
    b.add_relay(&relay.url(), false).await?;
    let sw = Stopwatch::start(Some(&relay));
    let reports = b.sync(&opts).await?;
    let pull = sw.stop();
    let r = &reports[0];
    if r.error.is_some() || !(n..=n + 1).contains(&r.pulled.applied) {
        return fail(format!("memstr pull: expected {n} applied, got {r:?}"));
    }
    Ok(MemstrRun { writes, push, pull, stamps, avg_event_bytes: bytes as f64 / events.len().max(1) as f64 })
}

struct SdkRun {
    build: Phase,
    publish: Phase,
    fetch: Phase,
    avg_event_bytes: f64,
}

/// The event memstr writes for a flat memory: the same plaintext (`src/codec/payload.rs`)
/// encrypted to self, the same d tag.
fn kv_event(keys: &Keys, key: &str, value: &str, created_at: u64) -> BoxResult<Event> {
    let ts = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64();
    let plain = serde_json::json!({"type": "sense-memory:kv", "key": key, "value": value, "ts": ts}).to_string();
    let content = nip44::encrypt(keys.secret_key(), &keys.public_key(), plain, nip44::Version::V2)?;
    Ok(EventBuilder::new(Kind::ApplicationSpecificData, content)
        .tag(Tag::identifier(format!("sense-memory/{key}")))
        .custom_created_at(Timestamp::from(created_at))
        .sign_with_keys(keys)?)
}

async fn connected_client(keys: &Keys, url: &str) -> BoxResult<Client> {
    let client = Client::builder().signer(keys.clone()).build();
    client.add_relay(url).await?;
    // Returns once the socket is up (or fails), so the timed phases below do not include
    // connecting. (memstr's `sync` does include its connect: milliseconds on loopback.)
    client.try_connect_relay(url, Duration::from_secs(10)).await?;
    Ok(client)
}

/// `stamps`: the `created_at` memstr gave each memory in the same run. nostr-rs-relay's
/// check for a newer version of a kind-30078 event looks at the author's events at or
/// after its `created_at`; events all signed within the same second or two make that
/// check, and so the publish, slower the more events the relay holds. Same timestamps,
/// same work for the relay.
async fn sdk_run(bin: &Path, items: &[(String, String)], stamps: &[u64], concurrency: usize) -> BoxResult<SdkRun> {
    let n = items.len();
    let keys = Keys::generate();

    let sw = Stopwatch::start(None);
    let events =
        items.iter().zip(stamps).map(|((k, v), &at)| kv_event(&keys, k, v, at)).collect::<BoxResult<Vec<Event>>>()?;
    let build = sw.stop();
    let avg_event_bytes = events.iter().map(|e| e.as_json().len()).sum::<usize>() as f64 / n as f64;

    let relay = Relay::start(bin)?;
    let url = relay.url();

    // Publish: a sliding window of `concurrency` send_event calls, each resolving on the
    // relay's OK. (One call at a time would measure round trips; each waiter scans every
    // notification, so an unbounded burst of N waiters is quadratic.)
    let client = connected_client(&keys, &url).await?;
    let sw = Stopwatch::start(Some(&relay));
    let outputs: Vec<_> =
        futures_util::stream::iter(&events).map(|e| client.send_event(e)).buffer_unordered(concurrency).collect().await;
    let publish = sw.stop();
    let mut ok = 0;
    for out in outputs {
        let out = out?;
        if let Some((_, why)) = out.failed.iter().next() {
            return fail(format!("nostr-sdk publish: relay refused {}: {why}", out.val));
        }
        ok += out.success.len();
    }
    if ok != n {
        return fail(format!("nostr-sdk publish: {ok} of {n} acknowledged"));
    }
    client.shutdown().await;

    // Fetch with a fresh client, as memstr pulls into a fresh store. nostr-rs-relay serves
    // every match of a filter without a limit; the loop pages back with `until` in case a
    // relay caps the answer.
    let client = connected_client(&keys, &url).await?;
    let filter = Filter::new().author(keys.public_key()).kind(Kind::ApplicationSpecificData);
    let sw = Stopwatch::start(Some(&relay));
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut until: Option<Timestamp> = None;
    loop {
        let f = match until {
            Some(u) => filter.clone().until(u),
            None => filter.clone(),
        };
        let page = client.fetch_events(f, Duration::from_secs(60)).await?;
        let oldest = page.iter().map(|e| e.created_at).min();
        let before = seen.len();
        seen.extend(page.iter().map(|e| e.id));
        if seen.len() >= n || seen.len() == before {
            break;
        }
        until = oldest;
    }
    let fetch = sw.stop();
    client.shutdown().await;
    if seen.len() != n {
        return fail(format!("nostr-sdk fetch: {} of {n} events came back", seen.len()));
    }
    Ok(SdkRun { build, publish, fetch, avg_event_bytes })
}

// ---------------------------------------------------------------------------------------
// Reporting

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// The median of each field over runs (each field separately).
fn median_phase(runs: &[Phase]) -> Phase {
    Phase {
        secs: median(runs.iter().map(|p| p.secs).collect()),
        client_cpu: median(runs.iter().map(|p| p.client_cpu).collect()),
        relay_cpu: median(runs.iter().map(|p| p.relay_cpu).collect()),
    }
}

fn proc_field(file: &str, field: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

const HEADER: [&str; 6] = ["phase", "events", "seconds", "events/s", "client CPU s", "relay CPU s"];

fn row(phase: &str, n: usize, p: Phase, relay: bool) {
    let relay_cpu = if relay { format!("{:.2}", p.relay_cpu) } else { "-".into() };
    println!("{phase:<42} {n:>7} {:>9.3} {:>10.0} {:>12.2} {relay_cpu:>11}", p.secs, n as f64 / p.secs, p.client_cpu);
}

#[tokio::main]
async fn main() -> BoxResult<()> {
    let args = parse_args()?;
    let bin = relay_binary(args.relay_bin.clone())?;
    // Also checks early that the binary runs at all.
    let out = Command::new(&bin).arg("--version").output().map_err(|e| format!("{}: {e}", bin.display()))?;
    let relay_version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let items = workload(args.n);
    let value_bytes = items.iter().map(|(_, v)| v.len()).sum::<usize>() as f64 / args.n as f64;

    println!("sync_bench: {} memories, {} runs, median reported", args.n, args.runs);
    println!("date:      {}", utc_now());
    println!(
        "machine:   {} cores, {}, {} RAM",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        proc_field("/proc/cpuinfo", "model name").unwrap_or_else(|| "unknown CPU".into()),
        proc_field("/proc/meminfo", "MemTotal").unwrap_or_else(|| "unknown".into()),
    );
    println!("relay:     {relay_version}, fresh database per phase");
    println!("load:      {} (1, 5, 15 min) at start", load_average());
    println!("values:    {value_bytes:.0} characters on average (60 to 200)");
    println!("memstr:    SyncOptions::default() (push window 200, pull page 1000)");
    println!("nostr-sdk: send_event, {} in flight (buffer_unordered); fetch_events", args.concurrency);
    println!();

    let (mut m_runs, mut s_runs) = (Vec::new(), Vec::new());
    for run in 1..=args.runs {
        let m = memstr_run(&bin, &items).await?;
        let s = sdk_run(&bin, &items, &m.stamps, args.concurrency).await?;
        println!(
            "run {run}: memstr writes {:.3} s, push {:.3} s, pull {:.3} s | nostr-sdk build {:.3} s, \
             publish {:.3} s, fetch {:.3} s | load {}",
            m.writes.secs,
            m.push.secs,
            m.pull.secs,
            s.build.secs,
            s.publish.secs,
            s.fetch.secs,
            load_average()
        );
        m_runs.push(m);
        s_runs.push(s);
    }
    let med = |f: fn(&MemstrRun) -> Phase| median_phase(&m_runs.iter().map(f).collect::<Vec<_>>());
    let (writes, push, pull) = (med(|m| m.writes), med(|m| m.push), med(|m| m.pull));
    let med = |f: fn(&SdkRun) -> Phase| median_phase(&s_runs.iter().map(f).collect::<Vec<_>>());
    let (build, publish, fetch) = (med(|s| s.build), med(|s| s.publish), med(|s| s.fetch));

    println!();
    let [h0, h1, h2, h3, h4, h5] = HEADER;
    println!("{h0:<42} {h1:>7} {h2:>9} {h3:>10} {h4:>12} {h5:>11}");
    row("memstr local writes (remember)", args.n, writes, true);
    row("memstr push (sync, fresh relay)", args.n, push, true);
    row("memstr pull (sync, second store)", args.n, pull, true);
    row("nostr-sdk build (NIP-44 + sign; no relay)", args.n, build, false);
    row("nostr-sdk publish (send_event)", args.n, publish, true);
    row("nostr-sdk fetch (fetch_events)", args.n, fetch, true);
    println!();
    println!("memstr / nostr-sdk time ratio: push {:.2}, pull {:.2}", push.secs / publish.secs, pull.secs / fetch.secs);
    println!(
        "event size: memstr {:.0} bytes, nostr-sdk {:.0} bytes (JSON, average)",
        m_runs[0].avg_event_bytes, s_runs[0].avg_event_bytes
    );
    println!("load:      {} (1, 5, 15 min) at end", load_average());
    Ok(())
}
