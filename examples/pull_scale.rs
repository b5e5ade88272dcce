//! A new device's pull of a whole large store through nostr-rs-relay (issue 26): the events
//! of an existing store (`search_bench --dir` leaves one per size, with its key) are put in
//! a fresh nostr-rs-relay 0.8.12 database, and a new, empty store with the same key syncs
//! from it, pass after pass, until a pass finishes. Prints each pass and the totals.
//!
//! ```sh
//! cargo run --release --example pull_scale -- --from /tmp/sbs/size-1000000 [--relay-bin PATH]
//! ```
//!
//! The relay's database is written directly, with the rows nostr-rs-relay's own write path
//! stores for each event (its `event` row, and a `tag` row per single-letter tag): publishing
//! a million events through its websocket runs at its pace, about 420 a second on two
//! cores (docs/benchmarks.md), 40 minutes before the pull could start. What is timed, the
//! pull, goes through the relay as a device's would: its queries, its websocket.

#[path = "support/mod.rs"]
#[allow(dead_code)] // each example uses its own subset
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::{cpu_secs, peak_rss_mb, relay_binary, RelayProcess};

use memstr::sync::SyncOptions;
use memstr::{Identity, MemoryStore, StoreOptions};

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

fn fail<T>(msg: String) -> BoxResult<T> {
    Err(msg.into())
}

/// Lets nostr-rs-relay create its schema, then writes every event of `store` into it as its
/// write path would. Returns how many events.
fn seed(bin: &Path, data: &Path, store: &Path) -> BoxResult<usize> {
    drop(RelayProcess::start(bin, data, Duration::from_secs(60))?);
    let relay = rusqlite::Connection::open(data.join("nostr.db"))?;
    relay.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")?;
    let source = rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let tx = relay.unchecked_transaction()?;
    let mut n = 0;
    {
        let mut event = tx.prepare(
            "INSERT OR IGNORE INTO event (event_hash, first_seen, created_at, expires_at, author, delegated_by, kind,
                 hidden, content)
             VALUES (?1, strftime('%s','now'), ?2, NULL, ?3, NULL, ?4, FALSE, ?5)",
        )?;
        let mut tag = tx.prepare(
            "INSERT OR IGNORE INTO tag (event_id, name, value, kind, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut rows = source.prepare("SELECT json FROM events ORDER BY created_at")?;
        let mut rows = rows.query([])?;
        while let Some(row) = rows.next()? {
            let json: String = row.get(0)?;
            let e: serde_json::Value = serde_json::from_str(&json)?;
            let hex = |k: &str| hex::decode(e[k].as_str().unwrap_or_default());
            let (created_at, kind) = (e["created_at"].as_i64().unwrap_or(0), e["kind"].as_i64().unwrap_or(0));
            if event.execute(rusqlite::params![hex("id")?, created_at, hex("pubkey")?, kind, json])? == 0 {
                continue;
            }
            let id = tx.last_insert_rowid();
            for t in e["tags"].as_array().into_iter().flatten() {
                let (Some(name), Some(value)) = (t[0].as_str(), t[1].as_str()) else { continue };
                if name.len() == 1 {
                    tag.execute(rusqlite::params![id, name, value, kind, created_at])?;
                }
            }
            n += 1;
            if n % 200_000 == 0 {
                eprintln!("  seeded {n}");
            }
        }
    }
    tx.commit()?;
    relay.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    Ok(n)
}

#[tokio::main]
async fn main() -> BoxResult<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("usage: pull_scale --from DIR (a search_bench store: store.db and key.nsec) [--relay-bin PATH]");
        return Ok(());
    }
    let Some(from) = value("--from").map(PathBuf::from) else { return fail("--from DIR is required".into()) };
    let bin = relay_binary(value("--relay-bin").map(PathBuf::from))?;
    let nsec = std::fs::read_to_string(from.join("key.nsec"))?;
    let work = tempfile::tempdir_in(from.parent().unwrap_or(Path::new("/tmp")))?;
    let data = work.path().join("relay");
    std::fs::create_dir_all(&data)?;

    println!("pull_scale: a new device's pull through nostr-rs-relay 0.8.12");
    println!("date:      {}", support::utc_now());
    println!("machine:   {}", support::machine());
    println!("from:      {}", from.join("store.db").display());
    let t = Instant::now();
    let events = seed(&bin, &data, &from.join("store.db"))?;
    println!(
        "seeded:    {events} events into the relay's database in {:.1} s (untimed below)",
        t.elapsed().as_secs_f64()
    );

    let relay = RelayProcess::start(&bin, &data, Duration::from_secs(60))?;
    let store =
        MemoryStore::open(work.path().join("device.db"), Identity::from_secret(nsec.trim())?, StoreOptions::default())
            .await?;
    store.add_relay(&relay.url(), false).await?;
    let opts = SyncOptions::default();
    println!(
        "memstr:    SyncOptions::default() (page {}, {} events and {} s a pass)",
        opts.page,
        opts.max_events,
        opts.deadline.as_secs()
    );
    let me = std::process::id().to_string();
    let (cpu0, relay_cpu0) = (cpu_secs(&me), cpu_secs(&relay.pid()));
    let start = Instant::now();
    // The loop a new device runs (`memstr init --discover`, `memstr sync`): passes until
    // the read is complete, each printed as it ends.
    let mut t = Instant::now();
    let mut so_far = 0;
    let device = work.path().join("device.db");
    let disk = move || {
        let mb = |name: &str| std::fs::metadata(device.with_file_name(name)).map_or(0.0, |m| m.len() as f64 / 1e6);
        format!("device.db {:.0} MB + WAL {:.0} MB", mb("device.db"), mb("device.db-wal"))
    };
    let on_pass = |pass: usize, reports: &[memstr::sync::RelayReport]| {
        let r = &reports[0];
        so_far += r.pulled.applied;
        println!(
            "pass {pass}: {:.1} s, applied {} ({so_far} in all), duplicate {}, rejected {}, pending {}, {}, error: {}",
            t.elapsed().as_secs_f64(),
            r.pulled.applied,
            r.pulled.duplicate,
            r.pulled.rejected.values().sum::<u64>(),
            r.pending,
            disk(),
            r.error.as_deref().unwrap_or("none")
        );
        t = Instant::now();
    };
    let total = store.sync_to_end(&opts, 50, on_pass).await?.remove(0);
    let applied = total.pulled.applied;
    if total.misbehaved.is_some() {
        return fail(format!("the relay was called misbehaving: {total:?}"));
    }
    if let Some(e) = &total.error {
        return fail(format!("the pull stopped after {applied} events: {e}"));
    }
    let secs = start.elapsed().as_secs_f64();
    println!();
    println!(
        "pull:      {applied} events applied in {secs:.1} s, {:.0} a second; client CPU {:.1} s, relay CPU {:.1} s",
        applied as f64 / secs,
        cpu_secs(&me) - cpu0,
        cpu_secs(&relay.pid()) - relay_cpu0
    );
    println!("peak RSS:  {:.0} MB (this process)", peak_rss_mb());
    let relay_mb: f64 = ["nostr.db", "nostr.db-wal"]
        .iter()
        .map(|f| std::fs::metadata(data.join(f)).map_or(0.0, |m| m.len() as f64 / 1e6))
        .sum();
    println!("on disk:   {}; the relay's database {relay_mb:.0} MB", disk());
    let stats = store.stats().await?;
    println!("the new device holds: {stats:?}");
    if applied < events as u64 * 99 / 100 {
        return fail(format!("only {applied} of {events} events arrived"));
    }
    Ok(())
}
