//! Episodes and trajectories, context match (issue 27, points 1 and 7) through the
//! store's public API, on real SQLite files: the episode lifecycle (start, observe, end, a
//! restart, errors), trajectory splitting with the real model and without it, the graph's
//! episode and trajectory nodes, consolidation's per-trajectory summary, `with_context`,
//! context match on and off, and an episode read on a second store.

mod support;

use std::path::Path;
use std::sync::Arc;

use memstr::model::Outcome;
use memstr::search::Found;
use memstr::{
    Behaviour, Error, LifecycleOptions, ManualClock, MemoryStore, ObservationInput, PersonaInput, SearchQuery,
    StoreOptions,
};
use support::*;

const T0: f64 = 1_800_000_000.0;

fn quiet(behaviours: &[(Behaviour, bool)]) -> LifecycleOptions {
    let mut o = LifecycleOptions::default();
    o.consolidate_every = 0;
    o.consolidate_idle = None;
    for (b, on) in behaviours {
        o.behaviours.set(*b, *on);
    }
    o
}

async fn open(dir: &Path, model: bool, behaviours: &[(Behaviour, bool)]) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let mut options = StoreOptions::default().clock(clock.clone()).lifecycle(quiet(behaviours));
    if model {
        options = options.embedder(Arc::new(onnx_embedder()));
    }
    (MemoryStore::open(dir.join("memstr.db"), test_identity(), options).await.unwrap(), clock)
}

fn rule(e: Error) -> &'static str {
    match e {
        Error::Validation(v) => v.rule.name(),
        other => panic!("not a validation error: {other}"),
    }
}

#[tokio::test]
async fn an_episode_starts_takes_observations_ends_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    let e = store.episode_start("Fix the billing deploy", Some("project:billing")).await.unwrap();
    assert!(e.id.starts_with("ep-") && e.ended_at.is_none());
    clock.set(T0 + 60.0);
    let o = store
        .observe(
            &e.id,
            ObservationInput::new("The staging deploy of billing failed on the migration.")
                .action("deploy billing")
                .outcome("failure"),
        )
        .await
        .unwrap();
    assert_eq!((o.trajectory, o.new_trajectory), (0, true));
    store.close().await.unwrap();

    // Data, not process state: open again, the episode is still open and takes more.
    let (store, clock) = open(dir.path(), false, &[]).await;
    assert_eq!(store.open_episode().await.unwrap().unwrap().id, e.id);
    assert_eq!(store.current_context().await.unwrap(), Some(format!("episode:{}", e.id)));
    clock.set(T0 + 120.0);
    store
        .observe(&e.id, ObservationInput::new("Raised the billing migration timeout; the staging deploy passed."))
        .await
        .unwrap();
    let obs = store.episode_observations(&e.id).await.unwrap();
    assert_eq!(obs.len(), 2);
    let first = obs[0].observed.as_ref().unwrap();
    assert_eq!(first.action.as_deref(), Some("deploy billing"));
    assert_eq!(first.outcome, Some(Outcome::Failure));
    assert_eq!(obs[0].context.as_deref(), Some(format!("episode:{}", e.id).as_str()));
    // The published client reads them as journal entries.
    assert_eq!(store.recent(10).await.unwrap().len(), 2);

    let ended = store.episode_end(&e.id, Some(Outcome::Success)).await.unwrap();
    assert_eq!(ended.ended_at, Some(T0 + 120.0));
    assert_eq!(store.episode(&e.id).await.unwrap().unwrap().outcome, Some(Outcome::Success));
    assert!(store.open_episode().await.unwrap().is_none());

    // Observing into an ended or unknown episode, ending twice, a bad id: typed errors,
    // and nothing written.
    let err = store.observe(&e.id, ObservationInput::new("too late")).await.unwrap_err();
    assert_eq!(rule(err), "open-episode");
    assert_eq!(rule(store.episode_end(&e.id, None).await.unwrap_err()), "open-episode");
    assert_eq!(rule(store.observe("ep-nothing", ObservationInput::new("x")).await.unwrap_err()), "known-episode");
    assert_eq!(rule(store.observe("../x", ObservationInput::new("x")).await.unwrap_err()), "forbidden-character");
    assert_eq!(rule(store.episode_start("", None).await.unwrap_err()), "non-empty");
    assert_eq!(store.episode_observations(&e.id).await.unwrap().len(), 2);
}

/// A crafted sequence: two observations on a deploy, then lunch plans.
const SEQUENCE: [&str; 4] = [
    "The staging deploy of the billing service failed: the database migration timed out.",
    "Raised the billing migration timeout to 120 seconds and redeployed billing to staging.",
    "Booked a table for lunch with Priya at the Thai restaurant on Friday.",
    "Sent Priya the address of the Thai restaurant for Friday's lunch.",
];

async fn trajectories(store: &MemoryStore, clock: &ManualClock) -> Vec<u32> {
    let e = store.episode_start("A working day", None).await.unwrap();
    let mut out = Vec::new();
    for (i, text) in SEQUENCE.iter().enumerate() {
        clock.set(T0 + 60.0 * (i as f64 + 1.0));
        out.push(store.observe(&e.id, ObservationInput::new(text)).await.unwrap().trajectory);
    }
    out
}

#[tokio::test]
async fn a_topic_switch_starts_a_trajectory_with_the_real_model() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), true, &[]).await;
    assert_eq!(trajectories(&store, &clock).await, vec![0, 0, 1, 1]);
}

#[tokio::test]
async fn without_the_model_word_overlap_splits_and_the_switch_off_keeps_one() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    assert_eq!(trajectories(&store, &clock).await, vec![0, 0, 1, 1]);
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[(Behaviour::Trajectories, false)]).await;
    assert_eq!(trajectories(&store, &clock).await, vec![0, 0, 0, 0]);
}

#[tokio::test]
async fn episodes_and_trajectories_are_graph_nodes_with_temporal_edges() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    let e = store.episode_start("A working day", None).await.unwrap();
    let mut paths = Vec::new();
    for (i, text) in SEQUENCE.iter().enumerate() {
        // Two days apart: only the episode ties them in time.
        clock.set(T0 + 2.0 * 86_400.0 * (i as f64 + 1.0));
        paths.push(store.observe(&e.id, ObservationInput::new(text)).await.unwrap().path);
    }
    let n = store.graph_neighbours(&paths[1]).await.unwrap();
    let has = |id: &str, edge: &str| n.iter().any(|x| x.id == id && x.edge == edge);
    assert!(has(&format!("trajectory:{}:0", e.id), "part_of"), "{n:?}");
    assert!(has(&paths[0], "temporal") && has(&paths[2], "temporal"), "{n:?}");
    let n = store.graph_neighbours(&paths[3]).await.unwrap();
    assert!(n.iter().any(|x| x.id == format!("trajectory:{}:1", e.id) && x.edge == "part_of"), "{n:?}");
}

#[tokio::test]
async fn consolidation_summarises_each_trajectory_once_and_again_when_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    let e = store.episode_start("A working day", None).await.unwrap();
    for (i, text) in SEQUENCE.iter().enumerate() {
        clock.set(T0 + 60.0 * (i as f64 + 1.0));
        let mut input = ObservationInput::new(text);
        if i == 1 {
            input = input.action("redeploy billing").outcome("success");
        }
        store.observe(&e.id, input).await.unwrap();
    }
    let report = store.consolidate().await.unwrap();
    let keys = [format!("memstr-trajectory:{}:0", e.id), format!("memstr-trajectory:{}:1", e.id)];
    assert_eq!(report.summarised, keys.to_vec());
    let first = store.recall(&keys[0]).await.unwrap().unwrap();
    assert!(first.value.contains("billing") && !first.value.contains("Priya"), "{}", first.value);
    assert!(first.value.contains("Outcomes: redeploy billing → success."), "{}", first.value);
    let second = store.recall(&keys[1]).await.unwrap().unwrap();
    assert!(second.value.contains("Entities:") && second.value.contains("Priya"), "{}", second.value);
    assert_eq!(second.summary_of.as_ref().unwrap().observations, 2);
    // Idempotent: nothing new, nothing rewritten.
    assert!(store.consolidate().await.unwrap().summarised.is_empty());
    assert_eq!(store.recall(&keys[1]).await.unwrap().unwrap(), second);
    // The trajectory grows: its summary follows.
    clock.set(T0 + 600.0);
    store.observe(&e.id, ObservationInput::new("Priya confirmed the Thai restaurant lunch for Friday.")).await.unwrap();
    assert_eq!(store.consolidate().await.unwrap().summarised, vec![keys[1].clone()]);
    assert_eq!(store.recall(&keys[1]).await.unwrap().unwrap().summary_of.unwrap().observations, 3);
}

#[tokio::test]
async fn with_context_brings_the_episode_title_summary_and_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    let e = store.episode_start("A working day", None).await.unwrap();
    for (i, text) in SEQUENCE.iter().enumerate() {
        clock.set(T0 + 60.0 * (i as f64 + 1.0));
        store.observe(&e.id, ObservationInput::new(text)).await.unwrap();
    }
    store.consolidate().await.unwrap();
    let mut q = SearchQuery::new("timeout 120 seconds");
    q.kinds = vec![memstr::search::Kind::Journal];
    let plain = store.search(q.clone()).await.unwrap();
    assert!(plain[0].context.is_none());
    q.with_context = true;
    let hits = store.search(q).await.unwrap();
    let c = hits[0].context.as_ref().expect("an observation has its episode");
    assert_eq!((c.title.as_str(), c.trajectory), ("A working day", Some(0)));
    assert_eq!(c.neighbours, vec![SEQUENCE[0].to_string()], "its trajectory's other observation, not lunch");
    assert!(c.summary.as_deref().is_some_and(|s| s.starts_with("Trajectory 0")));
}

async fn rank_of(store: &MemoryStore, context: Option<&str>, wanted: &str) -> usize {
    let mut q = SearchQuery::new("deploy checklist");
    q.context = context.map(str::to_string);
    q.strengthen = false;
    let hits = store.search(q).await.unwrap();
    hits.iter()
        .position(|h| matches!(&h.found, Found::Persona(p) if p.key == wanted))
        .unwrap_or_else(|| panic!("{wanted} not found"))
}

async fn context_store(dir: &Path, on: bool) -> MemoryStore {
    let (store, _) = open(dir, false, &[(Behaviour::ContextMatch, on)]).await;
    for (key, value, context) in [
        ("web", "The deploy checklist for the web app: tests, changelog, tag, deploy.", "project:web"),
        ("billing", "The deploy checklist for billing: migration dry run, tag, deploy.", "project:billing"),
        ("mobile", "The deploy checklist for the mobile app: build, sign, upload, deploy.", "project:mobile"),
    ] {
        store.persona_remember(PersonaInput::new("projects", "procedures", key, value).context(context)).await.unwrap();
    }
    store
}

#[tokio::test]
async fn a_memory_ranks_higher_when_searched_from_its_context_and_only_with_the_switch() {
    let dir = tempfile::tempdir().unwrap();
    let store = context_store(dir.path(), true).await;
    let without = rank_of(&store, None, "mobile").await;
    assert!(without > 0, "the crafted store must not already put it first");
    let with = rank_of(&store, Some("project:mobile"), "mobile").await;
    assert!(with < without, "in its context it moves up: {without} -> {with}");
    for key in ["web", "billing"] {
        let context = format!("project:{key}");
        assert!(rank_of(&store, Some(&context), key).await <= rank_of(&store, None, key).await);
    }
    // Never a filter: the others are still there.
    let mut q = SearchQuery::new("deploy checklist");
    q.context = Some("project:mobile".into());
    assert_eq!(store.search(q).await.unwrap().len(), 3);

    let dir = tempfile::tempdir().unwrap();
    let off = context_store(dir.path(), false).await;
    assert_eq!(rank_of(&off, Some("project:mobile"), "mobile").await, rank_of(&off, None, "mobile").await);
    let mut q = SearchQuery::new("deploy checklist");
    q.context = Some("project:mobile".into());
    assert!(off.search(q).await.unwrap().iter().all(|h| h.signals.iter().all(|s| s.name != "same_context")));
}

#[tokio::test]
async fn an_episode_written_on_one_store_is_read_and_continued_on_another() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, clock) = open(da.path(), false, &[]).await;
    let e = a.episode_start("Move the relay", Some("project:relay")).await.unwrap();
    clock.set(T0 + 30.0);
    a.observe(&e.id, ObservationInput::new("Copied the relay database to the new host.")).await.unwrap();
    let events = a.export_events().await.unwrap();
    let (b, clock_b) = open(db.path(), false, &[]).await;
    b.import_events(events).await.unwrap();
    let got = b.episode(&e.id).await.unwrap().expect("the episode crossed");
    assert_eq!(
        (got.title.as_str(), got.context.as_deref(), got.ended_at),
        ("Move the relay", Some("project:relay"), None)
    );
    clock_b.set(T0 + 60.0);
    let o = b.observe(&e.id, ObservationInput::new("Pointed the relay DNS name at the new host.")).await.unwrap();
    assert_eq!(o.episode, e.id);
    assert_eq!(b.episode_observations(&e.id).await.unwrap().len(), 2);
    b.episode_end(&e.id, Some(Outcome::from("moved"))).await.unwrap();
    a.import_events(b.export_events().await.unwrap()).await.unwrap();
    let back = a.episode(&e.id).await.unwrap().unwrap();
    assert_eq!(back.outcome, Some(Outcome::Other("moved".into())));
    assert_eq!(rule(a.observe(&e.id, ObservationInput::new("late")).await.unwrap_err()), "open-episode");
}

/// The published client (sense-memory 0.3.1) reads an episode's record as a flat memory and
/// its observations as journal entries: memstr's fields ride in the `"memstr"` object.
#[tokio::test]
async fn the_published_client_reads_episodes_as_memories_and_journal_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_compatible_at(dir.path(), T0).await;
    let e = store.episode_start("Fix the billing deploy", None).await.unwrap();
    clock.set(T0 + 60.0);
    let input = ObservationInput::new("The billing deploy failed.").action("deploy").outcome("failure");
    store.observe(&e.id, input).await.unwrap();
    store.episode_end(&e.id, Some(Outcome::Success)).await.unwrap();
    let file = dir.path().join("export.jsonl");
    let lines: Vec<String> =
        store.export_events().await.unwrap().iter().map(memstr::nostr::JsonUtil::as_json).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let expect = serde_json::json!({
        "kv": {format!("memstr-episode:{}", e.id): "Episode: Fix the billing deploy (ended: success)"},
        "journal_contents": ["The billing deploy failed."],
        "persona_keys": [],
    });
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    let out = std::process::Command::new(python())
        .arg(repo().join("scripts/interop/verify_events.py"))
        .arg(&file)
        .args(["--secret-hex", TEST_SECRET, "--expect"])
        .arg(&expect_file)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "verify_events.py failed:\n{stdout}\n{stderr}");
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["errors"], serde_json::json!([]), "{result}");
}

/// An observation whose action names a procedure feeds that procedure's reliability
/// (issue 27 point 2's action → outcome, through point 1's `observe`); free-text actions
/// and outcomes change no memory.
#[tokio::test]
async fn an_observed_action_naming_a_procedure_counts_its_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), false, &[]).await;
    store
        .persona_remember(PersonaInput::new("skills", "procedures", "deploy-billing", "Run make deploy in billing/."))
        .await
        .unwrap();
    let e = store.episode_start("Ship billing", None).await.unwrap();
    let steps = [
        ("deploy-billing", "success"),
        ("skills/procedures/deploy-billing", "failure"),
        ("deploy-billing", "it half worked"),
        ("restart the pods", "success"),
    ];
    for (i, (action, outcome)) in steps.into_iter().enumerate() {
        clock.set(T0 + 60.0 * (i as f64 + 1.0));
        store
            .observe(&e.id, ObservationInput::new("Deployed billing to staging.").action(action).outcome(outcome))
            .await
            .unwrap();
    }
    let m = store
        .persona_peek(memstr::PersonaQuery::exact("skills", "procedures", "deploy-billing"))
        .await
        .unwrap()
        .pop()
        .expect("stored");
    let r = m.reliability().expect("a procedure");
    assert_eq!((r.successes, r.failures), (1, 1), "one success and one failure, by key and by address; free text none");
}
