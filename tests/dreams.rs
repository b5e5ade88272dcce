//! Dream insights (issue 27, point 6) through the store's public API, on real SQLite files
//! and a manual clock: for each of the five kinds a crafted store where it must be found and
//! a near miss where it must not; idempotence across cycles, updates, retirement when the
//! evidence is forgotten, the switch, search never returning one, and insights surviving a
//! reopen and travelling to a second store. No embedding model: similarity is lexical.

mod support;

use std::path::Path;
use std::sync::Arc;

use memstr::lifecycle::Behaviour;
use memstr::{
    Insight, InsightKind, LifecycleOptions, ManualClock, MemoryStore, PersonaInput, SearchQuery, StoreOptions,
};
use support::*;

const T0: f64 = 1_800_000_000.0;
const DAY: f64 = 86_400.0;

fn quiet() -> LifecycleOptions {
    let mut o = LifecycleOptions::default();
    o.consolidate_every = 0;
    o.consolidate_idle = None;
    o
}

async fn open_at(dir: &Path, now: f64, life: LifecycleOptions) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(now));
    let options = StoreOptions::default().clock(clock.clone()).lifecycle(life);
    (MemoryStore::open(dir.join("memstr.db"), test_identity(), options).await.unwrap(), clock)
}

async fn open(dir: &Path, now: f64) -> MemoryStore {
    open_at(dir, now, quiet()).await.0
}

/// Writes `domain/facet/key` = `value` with `themes`, dated `at`.
async fn put(store: &MemoryStore, address: &str, value: &str, themes: &[&str], at: f64) {
    let p: Vec<&str> = address.split('/').collect();
    let input = PersonaInput::new(p[0], p[1], p[2], value).themes(themes.iter().copied()).at(at);
    store.persona_remember(input).await.unwrap();
}

fn path(address: &str) -> String {
    format!("sense-memory/persona/{address}")
}

/// One cycle; the insights of `kind` it reports (and stores).
async fn dream(store: &MemoryStore, kind: InsightKind) -> Vec<Insight> {
    let report = store.consolidate().await.unwrap();
    let stored = store.insights().await.unwrap();
    assert_eq!(report.insights, stored, "the report lists what is stored");
    stored.into_iter().filter(|i| i.kind == kind).collect()
}

// ---------------------------------------------------------------------------------------
// Each kind: found, and its near miss
// ---------------------------------------------------------------------------------------

const LAG: &str = "Postgres replication lag spikes during the nightly backup window";
const LAG_AGAIN: &str = "Postgres replication lag spikes during the nightly backup window again";

#[tokio::test]
async fn hidden_connection_across_domains_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), T0).await;
    put(&store, "projects/facts/db-lag", LAG, &["infra"], T0 - DAY).await;
    put(&store, "people/facts/ops-complaint", LAG_AGAIN, &["ops"], T0 - 2.0 * DAY).await;
    let found = dream(&store, InsightKind::HiddenConnection).await;
    assert_eq!(found.len(), 1, "{found:?}");
    let mut evidence = found[0].evidence.clone();
    evidence.sort();
    assert_eq!(evidence, vec![path("people/facts/ops-complaint"), path("projects/facts/db-lag")]);
    assert!(found[0].strength >= 0.8 && found[0].text.contains("db-lag"), "{found:?}");
}

#[tokio::test]
async fn hidden_connection_near_misses_same_domain_shared_theme_or_connected() {
    for case in ["same domain", "shared theme", "connected"] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), T0).await;
        let (domain, theme) = match case {
            "same domain" => ("projects", "ops"),
            "shared theme" => ("people", "infra"),
            _ => ("people", "ops"),
        };
        put(&store, "projects/facts/db-lag", LAG, &["infra"], T0 - DAY).await;
        put(&store, &format!("{domain}/facts/ops-complaint"), LAG_AGAIN, &[theme], T0 - 2.0 * DAY).await;
        if case == "connected" {
            store.persona_connect("projects/facts/db-lag", "people/facts/ops-complaint").await.unwrap();
        }
        let found = dream(&store, InsightKind::HiddenConnection).await;
        assert!(found.is_empty(), "{case}: {found:?}");
    }
}

#[tokio::test]
async fn recurring_pattern_over_days_is_found_and_a_burst_or_too_few_is_not() {
    let notes = [
        "Ran 5k along the river",
        "Ran intervals on the track",
        "Long run in the hills",
        "Easy recovery run",
        "Ran with the club",
    ];
    for (case, count, spacing, expected) in
        [("five days", 5, DAY, true), ("one day", 5, 600.0, false), ("four days", 4, DAY, false)]
    {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), T0).await;
        for (i, note) in notes.iter().take(count).enumerate() {
            put(&store, &format!("self/facts/run-{i}"), note, &["Running"], T0 - 10.0 * DAY + i as f64 * spacing).await;
        }
        let found = dream(&store, InsightKind::RecurringPattern).await;
        assert_eq!(!found.is_empty(), expected, "{case}: {found:?}");
        if expected {
            assert_eq!(found[0].subject, "running");
            assert_eq!(found[0].evidence.len(), 5);
            // Newest first.
            assert_eq!(found[0].evidence[0], path("self/facts/run-4"));
        }
    }
}

#[tokio::test]
async fn contradiction_not_yet_marked_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), T0).await;
    put(&store, "self/facts/home", "I live in Berlin", &[], T0 - 30.0 * DAY).await;
    put(&store, "self/facts/home-now", "I live in Paris", &[], T0 - DAY).await;
    let found = dream(&store, InsightKind::Contradiction).await;
    assert_eq!(found.len(), 1, "{found:?}");
    // The newer first, then the older.
    assert_eq!(found[0].evidence, vec![path("self/facts/home-now"), path("self/facts/home")]);
}

#[tokio::test]
async fn contradiction_near_misses_marked_or_agreeing() {
    for case in ["marked", "agreeing"] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), T0).await;
        put(&store, "self/facts/home", "I live in Berlin", &[], T0 - 30.0 * DAY).await;
        let newer = if case == "marked" { "I live in Paris" } else { "I live in Berlin with my cat" };
        put(&store, "self/facts/home-now", newer, &[], T0 - DAY).await;
        if case == "marked" {
            store.persona_contradict("self/facts/home", "self/facts/home-now").await.unwrap();
        }
        let found = dream(&store, InsightKind::Contradiction).await;
        assert!(found.is_empty(), "{case}: {found:?}");
    }
}

#[tokio::test]
async fn knowledge_gap_a_name_mentioned_often_and_never_described() {
    for (case, expected) in [("undescribed", true), ("described", false), ("twice", false)] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), T0).await;
        put(&store, "work/facts/lunch", "Had lunch with Priya near the office", &[], T0 - 3.0 * DAY).await;
        put(&store, "work/facts/report", "Sent the quarterly report to Priya", &[], T0 - 2.0 * DAY).await;
        if case != "twice" {
            put(&store, "work/facts/budget", "Asked Priya about the travel budget", &[], T0 - DAY).await;
        }
        if case == "described" {
            put(&store, "people/facts/priya", "Priya is my manager at Acme", &[], T0 - 5.0 * DAY).await;
        }
        let found: Vec<Insight> =
            dream(&store, InsightKind::KnowledgeGap).await.into_iter().filter(|i| i.subject == "name priya").collect();
        assert_eq!(!found.is_empty(), expected, "{case}: {found:?}");
        if expected {
            assert_eq!(found[0].evidence.len(), 3);
            assert!(found[0].text.contains("Priya"));
        }
    }
}

#[tokio::test]
async fn knowledge_gap_a_theme_read_often_whose_memories_all_fade() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0, quiet()).await;
    let short =
        |k: &str, v: &str| PersonaInput::new("skills", "procedures", k, v).themes(["deploys"]).halflife_days(1.0);
    store.persona_remember(short("deploy-steps", "Deploy with the blue green script")).await.unwrap();
    store.persona_remember(short("deploy-rollback", "Roll back by switching the load balancer")).await.unwrap();
    for _ in 0..3 {
        store.persona_recall(memstr::PersonaQuery::exact("skills", "procedures", "deploy-steps")).await.unwrap();
        store.persona_recall(memstr::PersonaQuery::exact("skills", "procedures", "deploy-rollback")).await.unwrap();
    }
    // Still active: no gap yet.
    let found = dream(&store, InsightKind::KnowledgeGap).await;
    assert!(found.iter().all(|i| i.subject != "theme deploys"), "{found:?}");
    // Days later both have faded (halflife of a day), and nothing replaced them.
    clock.set(T0 + 2.0 * DAY);
    let found = dream(&store, InsightKind::KnowledgeGap).await;
    assert!(found.iter().any(|i| i.subject == "theme deploys" && i.evidence.len() == 2), "{found:?}");
}

#[tokio::test]
async fn temporal_trend_rising_and_falling_are_found_and_a_steady_theme_is_not() {
    let now = T0 + 200.0 * DAY;
    // (case, days ago of each memory, expected direction)
    let cases: [(&str, Vec<f64>, Option<&str>); 3] = [
        ("rising", vec![80.0, 20.0, 12.0, 6.0, 2.0], Some("rising")),
        ("falling", vec![100.0, 85.0, 70.0, 55.0, 40.0], Some("falling")),
        ("steady", (0..12).map(|i| 5.0 + 10.0 * i as f64).collect(), None),
    ];
    for (case, ages, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), now).await;
        for (i, age) in ages.iter().enumerate() {
            put(
                &store,
                &format!("self/facts/climb-{i}"),
                &format!("Climbing session number {i}"),
                &["climbing"],
                now - age * DAY,
            )
            .await;
        }
        let found = dream(&store, InsightKind::TemporalTrend).await;
        match expected {
            Some(direction) => {
                assert_eq!(found.len(), 1, "{case}: {found:?}");
                assert!(found[0].text.contains(direction), "{case}: {found:?}");
            }
            None => assert!(found.is_empty(), "{case}: {found:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Storage: idempotence, updates, retirement, the switch, search, reopen, another store
// ---------------------------------------------------------------------------------------

async fn running_store(dir: &Path, life: LifecycleOptions) -> MemoryStore {
    let (store, _) = open_at(dir, T0, life).await;
    for i in 0..5 {
        put(
            &store,
            &format!("self/facts/run-{i}"),
            &format!("Went running, session {i}"),
            &["running"],
            T0 - 10.0 * DAY + i as f64 * DAY,
        )
        .await;
    }
    store
}

#[tokio::test]
async fn a_second_cycle_with_nothing_new_writes_no_insight() {
    let dir = tempfile::tempdir().unwrap();
    let store = running_store(dir.path(), quiet()).await;
    let first = store.consolidate().await.unwrap();
    assert!(first.insights_written >= 1, "{first:?}");
    let events = store.stats().await.unwrap().events;
    let second = store.consolidate().await.unwrap();
    assert_eq!((second.insights_written, second.insights_retired), (0, 0), "{second:?}");
    assert_eq!(second.insights, first.insights);
    assert_eq!(store.stats().await.unwrap().events, events, "nothing signed again");
}

#[tokio::test]
async fn new_evidence_updates_the_same_insight_and_forgotten_evidence_retires_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = running_store(dir.path(), quiet()).await;
    let before = dream(&store, InsightKind::RecurringPattern).await;
    assert_eq!(before.len(), 1);
    put(&store, "self/facts/run-5", "Went running, session 5", &["running"], T0 - DAY).await;
    let after = dream(&store, InsightKind::RecurringPattern).await;
    assert_eq!(after.len(), 1);
    assert_eq!((&after[0].key, after[0].found_at), (&before[0].key, before[0].found_at), "the same record");
    assert_eq!(after[0].evidence.len(), 6);
    for i in 0..3 {
        store.forget(&format!("self/facts/run-{i}")).await.unwrap();
    }
    let report = store.consolidate().await.unwrap();
    assert!(report.insights_retired >= 1, "{report:?}");
    assert!(store.insights().await.unwrap().iter().all(|i| i.kind != InsightKind::RecurringPattern));
}

#[tokio::test]
async fn switched_off_a_cycle_finds_no_insight() {
    let dir = tempfile::tempdir().unwrap();
    let mut life = quiet();
    life.behaviours.set(Behaviour::DreamInsights, false);
    let store = running_store(dir.path(), life).await;
    let report = store.consolidate().await.unwrap();
    assert!(report.insights.is_empty() && report.insights_written == 0);
    assert!(store.insights().await.unwrap().is_empty());
    assert!(store.persona_introspect().await.unwrap().insights.is_empty());
}

#[tokio::test]
async fn insights_never_enter_search_results() {
    let dir = tempfile::tempdir().unwrap();
    let store = running_store(dir.path(), quiet()).await;
    assert!(!dream(&store, InsightKind::RecurringPattern).await.is_empty());
    for q in ["running", "recurs memories days", "recurring pattern"] {
        let hits = store.search(SearchQuery::new(q).limit(50)).await.unwrap();
        assert!(hits.iter().all(|h| h.path.starts_with("sense-memory/persona/")), "{q}: {hits:?}");
    }
}

#[tokio::test]
async fn introspect_shows_the_insights_with_their_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let store = running_store(dir.path(), quiet()).await;
    let stored = dream(&store, InsightKind::RecurringPattern).await;
    let report = store.persona_introspect().await.unwrap();
    let shown: Vec<&Insight> = report.insights.iter().filter(|i| i.kind == InsightKind::RecurringPattern).collect();
    assert_eq!(shown, stored.iter().collect::<Vec<_>>());
    // The stored introspection event keeps the published client's shape.
    assert!(store.introspections(1).await.unwrap()[0].insights.is_empty());
}

#[tokio::test]
async fn insights_survive_a_reopen_and_travel_to_another_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = running_store(dir.path(), quiet()).await;
    store.consolidate().await.unwrap();
    let stored = store.insights().await.unwrap();
    assert!(!stored.is_empty());
    let events = store.export_events().await.unwrap();
    store.close().await.unwrap();
    let store = open(dir.path(), T0).await;
    assert_eq!(store.insights().await.unwrap(), stored);
    let other = tempfile::tempdir().unwrap();
    let second = open(other.path(), T0).await;
    second.import_events(events).await.unwrap();
    assert_eq!(second.insights().await.unwrap(), stored);
}

// ---------------------------------------------------------------------------------------
// Scale
// ---------------------------------------------------------------------------------------

/// A cycle over 10,000 persona memories (200 themes, 100 names, five domains, 200 days)
/// with dreaming on stays within its caps, and what it costs beside a cycle without it.
/// Slow in a debug build; run with
/// `cargo test --test dreams dreaming_ten_thousand -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn dreaming_ten_thousand_memories_stays_within_its_caps() {
    const N: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let now = T0 + 200.0 * DAY;
    let mut off = quiet();
    off.behaviours.set(Behaviour::DreamInsights, false);
    let (store, _) = open_at(dir.path(), now, off).await;
    let domains = ["self", "people", "projects", "world", "skills"];
    let words = ["garden", "budget", "train", "report", "coffee", "river", "design", "server", "novel", "recipe"];
    let inputs: Vec<PersonaInput> = (0..N)
        .map(|i| {
            let value = format!(
                "Note {i} about the {} and the {} with Name{} on item {}",
                words[i % 10],
                words[(i / 10) % 10],
                i % 100,
                i * 7919 % 1000
            );
            PersonaInput::new(domains[i % 5], "facts", &format!("note-{i}"), &value)
                .themes([format!("theme{}", i % 200)])
                .at(now - (i % 200) as f64 * DAY - 3_600.0)
        })
        .collect();
    for chunk in inputs.chunks(1_000) {
        store.persona_remember_batch(chunk.to_vec()).await.unwrap();
    }
    store.consolidate().await.unwrap();
    // The second cycle without dreaming: what a cycle with nothing new costs.
    let t = std::time::Instant::now();
    store.consolidate().await.unwrap();
    let without = t.elapsed();
    store.close().await.unwrap();
    let (store, _) = open_at(dir.path(), now, quiet()).await;
    let t = std::time::Instant::now();
    let report = store.consolidate().await.unwrap();
    let with = t.elapsed();
    println!(
        "{N} memories: a steady cycle without dreaming {without:?}, the next with it {with:?}; {} insights, {} written",
        report.insights.len(),
        report.insights_written
    );
    for kind in InsightKind::ALL {
        println!("  {kind}: {}", report.insights.iter().filter(|i| i.kind == kind).count());
    }
    assert!(!report.insights.is_empty() && report.insights.len() <= 50, "{}", report.insights.len());
    assert!(report.insights.iter().all(|i| i.evidence.len() <= 12));
    let t = std::time::Instant::now();
    let again = store.consolidate().await.unwrap();
    println!("  a third cycle, nothing new: {:?}, {} written", t.elapsed(), again.insights_written);
    assert_eq!(again.insights_written, 0);
}
