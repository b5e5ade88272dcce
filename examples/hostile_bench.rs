//! Peak memory of a sync against each hostile relay attack (issue: untrusted relays).
//!
//!   cargo run --release --example hostile_bench [-- --seconds 20]
//!
//! Runs each attack in a child process of its own (so each peak is that attack's): a
//! store opened as `memstr sync` opens it (no model), one hostile relay (the test double
//! in relay-fixtures/hostile_relay.rs), then `sync` (or `watch` for the live flood) for
//! the given time. Prints the pass's duration, what was counted, and the child's peak
//! resident memory (VmHWM) against the 250 MB target.
//!
//! `--no-junk-cap` turns off the rule that cuts a relay off after 100 events no honest relay
//! serves (`SyncOptions::max_violations`), so the other bounds (deadline, page, event and
//! byte caps, queue backpressure, batches) are what holds the attack.

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;
#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;

use std::time::{Duration, Instant};

use hostile_relay::{Attack, HostileRelay};
use memstr::sync::SyncOptions;
use memstr::{Identity, MemoryStore, StoreOptions};
use support::peak_rss_mb;

const ATTACKS: [&str; 8] = [
    "endless-pages",
    "ignores-until",
    "min-timestamp",
    "endless-negentropy",
    "stuck",
    "huge-events",
    "live-flood",
    "flood-during-catch-up",
];

fn attack(name: &str) -> Attack {
    match name {
        "endless-pages" => Attack::EndlessPages,
        "ignores-until" => Attack::IgnoresUntil,
        "min-timestamp" => Attack::MinTimestamp,
        "endless-negentropy" => Attack::EndlessNegentropy { ids: hostile_relay::NEG_IDS },
        "stuck" => Attack::Stuck { every: Duration::from_secs(2) },
        "huge-events" => Attack::HugeEvents { bytes: 3 << 20 },
        "live-flood" => Attack::LiveFlood { bytes: 60_000 },
        "flood-during-catch-up" => Attack::FloodDuringCatchUp { bytes: 60_000, stall: Duration::from_secs(600) },
        other => panic!("unknown attack {other}"),
    }
}

async fn run_one(name: &str, seconds: u64, junk_cap: bool) {
    let relay = HostileRelay::start(attack(name)).await;
    let dir = tempfile::tempdir().unwrap();
    let store =
        MemoryStore::open(dir.path().join("memstr.db"), Identity::generate(), StoreOptions::default()).await.unwrap();
    store.remember("k", "v").await.unwrap();
    store.add_relay(&relay.url(), false).await.unwrap();
    let mut opts = SyncOptions { deadline: Duration::from_secs(seconds), ..Default::default() };
    if !junk_cap {
        opts.max_violations = u64::MAX;
    }
    let started = Instant::now();
    let summary = if name == "live-flood" || name == "flood-during-catch-up" {
        store.watch(opts, tokio::time::sleep(Duration::from_secs(seconds))).await.unwrap();
        let r = store.relays().await.unwrap().remove(0);
        format!("misbehaving: {:?}", r.misbehaving)
    } else {
        let r = store.sync(&opts).await.unwrap().remove(0);
        format!(
            "pulled {} rejected {:?}; misbehaved: {:?}; error: {:?}",
            r.pulled.applied, r.pulled.rejected, r.misbehaved, r.error
        )
    };
    let took = started.elapsed().as_secs_f64();
    let stats = relay.stats();
    println!(
        "{name}\t{took:.1} s\tpeak RSS {:.0} MB\trelay sent {} events, {:.1} MB\t{summary}",
        peak_rss_mb(),
        stats.events_sent,
        stats.bytes_sent as f64 / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let seconds: u64 = arg("--seconds").and_then(|s| s.parse().ok()).unwrap_or(20);
    let junk_cap = !args.iter().any(|a| a == "--no-junk-cap");
    if let Some(name) = arg("--attack") {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        rt.block_on(run_one(&name, seconds, junk_cap));
        return;
    }
    println!("junk cap (max_violations): {}", if junk_cap { "on (100)" } else { "off" });
    println!("attack\tpass\tpeak RSS (target < 250 MB)\twhat the relay sent\twhat memstr did");
    let exe = std::env::current_exe().unwrap();
    let mut worst: f64 = 0.0;
    for name in ATTACKS {
        let mut child = std::process::Command::new(&exe);
        child.args(["--attack", name, "--seconds", &seconds.to_string()]);
        if !junk_cap {
            child.arg("--no-junk-cap");
        }
        let out = child.output().expect("running one attack");
        let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() {
            println!("{name}\tFAILED: {}", String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or(""));
            continue;
        }
        if let Some(mb) =
            line.split("peak RSS ").nth(1).and_then(|r| r.split(' ').next()).and_then(|v| v.parse::<f64>().ok())
        {
            worst = worst.max(mb);
        }
        println!("{line}");
    }
    println!("worst peak RSS {worst:.0} MB: {}", if worst < 250.0 { "PASS (< 250 MB)" } else { "FAIL (>= 250 MB)" });
}
