//! A process killed while writing loses nothing it was told had succeeded, and leaves a
//! consistent database.
//!
//! The test runs its own binary again as the writer (selected by an environment
//! variable), kills it with SIGKILL at random moments, and checks the store.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use memstr::{PersonaInput, PersonaQuery};
use support::*;

const CHILD_DIR: &str = "MEMSTR_CRASH_TEST_DIR";
const CHILD_BASE: &str = "MEMSTR_CRASH_TEST_BASE";
const TEST_NAME: &str = "a_killed_writer_loses_nothing_acknowledged";

/// The child: write forever, acknowledging each returned call on stdout.
async fn writer(dir: &str, base: u64) -> ! {
    let (store, _) = open_at(std::path::Path::new(dir), 1_800_000_000.0).await;
    for i in base.. {
        store.remember(&format!("k{i}"), &format!("value {i}")).await.unwrap();
        if i % 3 == 0 {
            store
                .persona_remember(PersonaInput::new("self", "facts", &format!("p{i}"), &format!("fact {i}")))
                .await
                .unwrap();
        }
        if i % 5 == 0 {
            store.journal(&format!("entry {i}")).await.unwrap();
        }
        if i % 7 == 0 && i > base {
            store.forget(&format!("k{}", i - 1)).await.unwrap();
        }
        println!("ack {i}");
    }
    unreachable!()
}

#[tokio::test]
async fn a_killed_writer_loses_nothing_acknowledged() {
    if let (Ok(dir), Ok(base)) = (std::env::var(CHILD_DIR), std::env::var(CHILD_BASE)) {
        writer(&dir, base.parse().unwrap()).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut acked: Vec<u64> = Vec::new();
    let mut rng = 0x9e3779b97f4a7c15u64;
    for round in 0..5u64 {
        let base = round * 100_000;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([TEST_NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_BASE, base.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let target = 10 + rng % 60;
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut n = 0;
        while n < target {
            let line = lines.next().expect("writer died early").unwrap();
            if let Some(i) = line.strip_prefix("ack ") {
                acked.push(i.parse().unwrap());
                n += 1;
            }
        }
        // Land the kill at varying points of the next write.
        std::thread::sleep(Duration::from_micros(rng % 4_000));
        child.kill().unwrap();
        child.wait().unwrap();
        // Acks printed before the kill but not read yet count too.
        for line in lines.map_while(Result::ok) {
            if let Some(i) = line.strip_prefix("ack ") {
                acked.push(i.parse().unwrap());
            }
        }
    }
    assert!(acked.len() >= 50);

    let (store, _) = open_at(dir.path(), 1_800_000_000.0).await;
    let acked_set: std::collections::HashSet<u64> = acked.iter().copied().collect();
    let journal: std::collections::HashSet<String> =
        store.recent(100_000).await.unwrap().into_iter().map(|j| j.content).collect();
    for &i in &acked {
        let got = store.recall(&format!("k{i}")).await.unwrap().map(|m| m.value);
        if (i + 1) % 7 != 0 {
            assert_eq!(got, Some(format!("value {i}")), "k{i} lost");
        } else if acked_set.contains(&(i + 1)) {
            assert_eq!(got, None, "k{i} was forgotten, and that was acknowledged");
        } else {
            // The forget may or may not have committed before the kill; either is fine.
            assert!(got.is_none() || got == Some(format!("value {i}")), "k{i}: {got:?}");
        }
        if i % 3 == 0 {
            let p = store.persona_peek(PersonaQuery::exact("self", "facts", &format!("p{i}"))).await.unwrap();
            assert_eq!(p.len(), 1, "p{i} lost");
        }
        if i % 5 == 0 {
            assert!(journal.contains(&format!("entry {i}")), "entry {i} lost");
        }
    }
    drop(store);

    let conn = rusqlite::Connection::open(dir.path().join("memstr.db")).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    conn.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')", []).unwrap();
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(q("SELECT count(*) FROM records r WHERE deleted = 0 AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = r.event_id)"), 0, "live record without its event");
    assert_eq!(q("SELECT count(*) FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = o.event_id)"), 0);
    assert_eq!(
        q("SELECT count(*) FROM records WHERE deleted = 0 AND kind IN ('kv','journal','persona')"),
        q("SELECT count(*) FROM records_fts"),
        "index out of step"
    );
}
