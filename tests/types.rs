//! Memory types and tiers, procedures that learn, feedback (issue 27, points 2 and 3),
//! through the store's public API on real SQLite files, with a manual clock. No embedding
//! model: similarity is lexical, which is all these crafted stores need.

mod support;

use std::path::Path;
use std::sync::Arc;

use memstr::lifecycle::{tier_scale, Behaviour, SEMANTIC_AGE_DAYS};
use memstr::search::Found;
use memstr::{
    Error, GoalStatus, LifecycleOptions, ManualClock, MemoryStore, MemoryType, PersonaInput, PersonaMemory,
    PersonaQuery, Rule, SearchQuery, StoreOptions, Tier,
};
use support::*;

/// In the past (June 2025): a store caps incoming payload times at the system clock, and
/// the merge test compares two devices' edit times.
const T0: f64 = 1_750_000_000.0;
const DAY: f64 = 86_400.0;

/// Options with no automatic consolidation and `on` switched on, `off` off.
fn options(on: &[Behaviour], off: &[Behaviour]) -> LifecycleOptions {
    let mut o = LifecycleOptions::default();
    o.consolidate_every = 0;
    o.consolidate_idle = None;
    for b in on {
        o.behaviours.set(*b, true);
    }
    for b in off {
        o.behaviours.set(*b, false);
    }
    o
}

async fn open(dir: &Path, life: LifecycleOptions) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let opts = StoreOptions::default().clock(clock.clone()).lifecycle(life);
    (MemoryStore::open(dir.join("memstr.db"), test_identity(), opts).await.unwrap(), clock)
}

async fn peek(store: &MemoryStore, address: &str) -> PersonaMemory {
    let p: Vec<&str> = address.split('/').collect();
    store.persona_peek(PersonaQuery::exact(p[0], p[1], p[2])).await.unwrap().pop().expect("stored")
}

fn paths(hits: &[memstr::SearchHit]) -> Vec<String> {
    hits.iter()
        .map(|h| match &h.found {
            Found::Persona(p) => p.address(),
            other => other.text(),
        })
        .collect()
}

fn lexical(text: &str) -> SearchQuery {
    let mut q = SearchQuery::new(text);
    q.strengthen = false;
    q.min_strength = Some(0.0);
    q
}

#[tokio::test]
async fn a_type_travels_through_the_wire_and_an_untyped_memory_takes_its_facets() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = open(dir.path(), options(&[], &[])).await;
    a.persona_remember(PersonaInput::new("self", "plans", "ship", "Ship the dashboard").memory_type(MemoryType::Goal))
        .await
        .unwrap();
    a.persona_remember(PersonaInput::new("skills", "procedures", "deploy", "Run make deploy")).await.unwrap();
    let events = a.export_events().await.unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let (b, _) = open(dir2.path(), options(&[], &[])).await;
    b.import_events(events).await.unwrap();
    let goal = peek(&b, "self/plans/ship").await;
    assert_eq!(goal.sync.life.kind, Some(MemoryType::Goal), "the type is in the payload");
    assert_eq!((goal.memory_type(), goal.goal_status()), (MemoryType::Goal, Some(GoalStatus::Open)));
    let deploy = peek(&b, "skills/procedures/deploy").await;
    assert_eq!(deploy.sync.life.kind, None, "no type given, none stored");
    assert_eq!(deploy.memory_type(), MemoryType::Procedure, "the facet's type");
    // A status on another type is refused, with the rule it broke.
    let bad = PersonaInput::new("self", "facts", "x", "y").memory_type(MemoryType::Fact).goal_status(GoalStatus::Done);
    match a.persona_remember(bad).await {
        Err(Error::Validation(e)) => assert_eq!(e.rule.name(), "goal-status-on-goal"),
        other => panic!("expected a validation error, got {other:?}"),
    }
    match a.set_goal_status("deploy", GoalStatus::Done).await {
        Err(Error::Validation(e)) => assert!(matches!(e.rule, Rule::NotAGoal(_))),
        other => panic!("expected a validation error, got {other:?}"),
    }
    let done = a.set_goal_status("ship", GoalStatus::Done).await.unwrap();
    assert_eq!(done.goal_status(), Some(GoalStatus::Done));
}

#[tokio::test]
async fn the_type_filter_keeps_to_its_types_and_introspect_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let (s, _) = open(dir.path(), options(&[], &[])).await;
    for (facet, key, value) in [
        ("procedures", "deploy", "deploy the relay with make deploy"),
        ("decisions", "relay-host", "we deploy the relay on Hetzner"),
        ("facts", "relay-port", "the relay listens on port 7447"),
        ("goals", "relay-v2", "deploy relay v2 by June"),
        ("goals", "relay-v1", "deploy relay v1"),
    ] {
        s.persona_remember(PersonaInput::new("projects", facet, key, value)).await.unwrap();
    }
    s.journal("deployed the relay today").await.unwrap();
    s.set_goal_status("relay-v1", GoalStatus::Done).await.unwrap();
    let all = s.search(lexical("deploy relay")).await.unwrap();
    assert!(all.len() >= 5, "{:?}", paths(&all));
    let mut q = lexical("deploy relay");
    q.types = vec![MemoryType::Procedure, MemoryType::Decision];
    let got = paths(&s.search(q).await.unwrap());
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.contains(&"projects/procedures/deploy".to_string())
            && got.contains(&"projects/decisions/relay-host".into())
    );
    let mut q = lexical("deploy relay");
    q.types = vec![MemoryType::Goal];
    let hits = s.search(q).await.unwrap();
    assert_eq!(hits.len(), 2, "no journal entry passes a type filter: {:?}", paths(&hits));
    assert!(hits.iter().all(|h| h.typed.as_ref().is_some_and(|t| t.memory_type == MemoryType::Goal)));
    let r = s.persona_introspect().await.unwrap();
    assert_eq!(r.by_type.get("goal"), Some(&2));
    assert_eq!(r.by_type.get("procedure"), Some(&1));
    assert_eq!(r.by_type.values().sum::<u64>(), 5);
    assert_eq!(r.open_goals, vec!["relay-v2".to_string()]);
}

#[tokio::test]
async fn type_defaults_apply_only_with_their_switch_and_only_where_the_writer_said_nothing() {
    for on in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let life = if on { options(&[Behaviour::TypeDefaults], &[]) } else { options(&[], &[Behaviour::TypeDefaults]) };
        let (s, _) = open(dir.path(), life).await;
        s.persona_remember(PersonaInput::new("skills", "procedures", "deploy", "make deploy")).await.unwrap();
        s.persona_remember(
            PersonaInput::new("self", "events", "trip", "went to Oslo").importance(0.9).halflife_days(5.0),
        )
        .await
        .unwrap();
        let p = peek(&s, "skills/procedures/deploy").await;
        let e = peek(&s, "self/events/trip").await;
        if on {
            assert_eq!(p.sync.life.importance, Some(MemoryType::Procedure.default_importance()));
            assert_eq!(p.halflife_days, MemoryType::Procedure.default_halflife_days());
        } else {
            assert_eq!((p.sync.life.importance, p.halflife_days), (None, 30.0), "off: the client's defaults");
        }
        assert_eq!((e.sync.life.importance, e.halflife_days), (Some(0.9), 5.0), "the writer's values win");
    }
}

#[tokio::test]
async fn tiers_follow_recall_over_a_timeline_and_change_decay_only_when_on() {
    let dir = tempfile::tempdir().unwrap();
    let (s, clock) = open(dir.path(), options(&[Behaviour::Tiers], &[])).await;
    let dir_off = tempfile::tempdir().unwrap();
    let (off, clock_off) = open(dir_off.path(), options(&[], &[Behaviour::Tiers])).await;
    for st in [&s, &off] {
        st.persona_remember(PersonaInput::new("self", "facts", "city", "I live in Oslo")).await.unwrap();
    }
    let tier = |m: &PersonaMemory| memstr::lifecycle::tier_of(m);
    assert_eq!(tier(&peek(&s, "self/facts/city").await), Tier::Working);
    // Working fades twice as fast with tiers on: after 20 days, the same memory is weaker.
    clock.set(T0 + 20.0 * DAY);
    clock_off.set(T0 + 20.0 * DAY);
    let m = peek(&s, "self/facts/city").await;
    let (with, without) = (s.live(&m, T0 + 20.0 * DAY).0, off.live(&m, T0 + 20.0 * DAY).0);
    assert!((with - 0.5f64.powf(20.0 / (30.0 * tier_scale(Tier::Working)))).abs() < 1e-9, "{with}");
    assert!((without - 0.5f64.powf(20.0 / 30.0)).abs() < 1e-9, "{without}");
    // Recalled twice: episodic; five times over more than a week: semantic, slowest.
    let q = PersonaQuery::exact("self", "facts", "city");
    for day in [20.0, 21.0] {
        clock.set(T0 + day * DAY);
        s.persona_recall(q.clone()).await.unwrap();
    }
    s.flush_accesses().await.unwrap();
    assert_eq!(tier(&peek(&s, "self/facts/city").await), Tier::Episodic);
    for day in [22.0, 23.0, 21.0 + SEMANTIC_AGE_DAYS] {
        clock.set(T0 + day * DAY);
        s.persona_recall(q.clone()).await.unwrap();
    }
    s.flush_accesses().await.unwrap();
    let m = peek(&s, "self/facts/city").await;
    assert_eq!(tier(&m), Tier::Semantic);
    let later = m.last_accessed + 60.0 * DAY;
    assert!((s.live(&m, later).0 - 0.5f64.powf(60.0 / 90.0)).abs() < 1e-9, "semantic: three times the halflife");
    let mut q = lexical("Oslo");
    q.tiers = vec![Tier::Semantic];
    assert_eq!(paths(&s.search(q).await.unwrap()), vec!["self/facts/city".to_string()]);
    let mut q = lexical("Oslo");
    q.tiers = vec![Tier::Working];
    assert!(s.search(q).await.unwrap().is_empty());
}

#[tokio::test]
async fn outcomes_update_a_beta_posterior_and_merge_across_devices_without_loss() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = open(da.path(), options(&[], &[])).await;
    let (b, _) = open(db.path(), options(&[], &[])).await;
    a.persona_remember(PersonaInput::new("skills", "procedures", "deploy", "make deploy")).await.unwrap();
    b.import_events(a.export_events().await.unwrap()).await.unwrap();
    // Concurrent outcomes on two devices.
    let r = a.record_outcome("deploy", true).await.unwrap();
    assert_eq!((r.successes, r.failures, r.alpha, r.beta), (1, 0, 2.0, 1.0));
    a.record_outcome("deploy", true).await.unwrap();
    b.record_outcome("deploy", false).await.unwrap();
    // A user edit on one side does not lose the other's counts either.
    b.persona_remember(PersonaInput::new("skills", "procedures", "deploy", "make deploy-all")).await.unwrap();
    let (ea, eb) = (a.export_events().await.unwrap(), b.export_events().await.unwrap());
    assert_eq!(a.import_events(eb).await.unwrap().merged, 1);
    assert_eq!(b.import_events(ea).await.unwrap().merged, 1);
    for s in [&a, &b] {
        let m = peek(s, "skills/procedures/deploy").await;
        let r = m.reliability().expect("a procedure");
        assert_eq!((r.successes, r.failures), (2, 1), "every device's outcomes, none twice");
        assert!((r.mean - 3.0 / 5.0).abs() < 1e-12);
        assert_eq!(m.value, "make deploy-all", "the user edit wins the value");
    }
    match a.record_outcome("nope", true).await {
        Err(Error::NotFound(_)) => {}
        other => panic!("expected not found, got {other:?}"),
    }
    a.persona_remember(PersonaInput::new("self", "facts", "name", "Ada")).await.unwrap();
    match a.record_outcome("name", true).await {
        Err(Error::Validation(e)) => assert_eq!(e.rule.name(), "outcome-on-procedure"),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// A store where "rust borrow checker" has one clearly best answer and distractors.
async fn crafted(s: &MemoryStore) {
    s.persona_remember(
        PersonaInput::new("world", "facts", "borrow-checker", "the rust borrow checker enforces ownership rules")
            .themes(["rust", "borrow checker"]),
    )
    .await
    .unwrap();
    for (k, v) in [
        ("rust-book", "the rust book is a good start"),
        ("checker-game", "a checker game on the table"),
        ("borrow-money", "never borrow money from friends"),
        ("rust-bike", "rust on the old bike"),
        ("ownership", "ownership of the flat is shared"),
    ] {
        s.persona_remember(PersonaInput::new("world", "facts", k, v)).await.unwrap();
    }
}

#[tokio::test]
async fn feedback_is_neutral_unused_and_one_vote_does_not_bury_the_best_answer() {
    let (d_on, d_off) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (on, _) = open(d_on.path(), options(&[Behaviour::Feedback], &[])).await;
    let (off, _) = open(d_off.path(), options(&[], &[Behaviour::Feedback])).await;
    crafted(&on).await;
    crafted(&off).await;
    let ranked = |hits: Vec<memstr::SearchHit>| hits.into_iter().map(|h| (h.path, h.score)).collect::<Vec<_>>();
    let q = "rust borrow checker";
    assert_eq!(
        ranked(on.search(lexical(q)).await.unwrap()),
        ranked(off.search(lexical(q)).await.unwrap()),
        "no feedback given: the same ranking, score for score, on or off"
    );
    let best = paths(&on.search(lexical(q)).await.unwrap())[0].clone();
    assert_eq!(best, "world/facts/borrow-checker");
    let r = on.feedback("borrow-checker", false).await.unwrap();
    assert_eq!((r.successes, r.failures), (0, 1));
    let after = on.search(lexical(q)).await.unwrap();
    let at = paths(&after).iter().position(|p| *p == best).expect("still found");
    assert!(at < 3, "one vote moved the best answer to {at}: {:?}", paths(&after));
    let fb = after[at].signals.iter().find(|s| s.name == "feedback").expect("the term is explained");
    assert!(fb.contribution < 0.0 && fb.rank.is_none());
    // The term is bounded whatever the number of votes: at most `feedback / (k + 1)`.
    for _ in 0..50 {
        on.feedback("borrow-checker", false).await.unwrap();
    }
    let hits = on.search(lexical(q)).await.unwrap();
    let w = memstr::search::Weights::default();
    for h in &hits {
        for s in h.signals.iter().filter(|s| s.name == "feedback") {
            assert!(s.contribution.abs() <= w.feedback / (w.k.unwrap() + 1.0) + 1e-12, "{s:?}");
        }
    }
    // Votes on a memory the search does not rank are not hits' business; a useful vote lifts.
    on.feedback("rust-book", true).await.unwrap();
    let hits = on.search(lexical(q)).await.unwrap();
    let lifted = hits.iter().find(|h| h.path.ends_with("rust-book")).expect("found");
    assert!(lifted.signals.iter().any(|s| s.name == "feedback" && s.contribution > 0.0));
    assert_eq!(lifted.typed.as_ref().and_then(|t| t.feedback).map(|f| f.successes), Some(1));
}

#[tokio::test]
async fn how_to_questions_rank_a_reliable_procedure_above_an_unreliable_one_of_equal_relevance() {
    for on in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let life = if on { options(&[Behaviour::Reliability], &[]) } else { options(&[], &[Behaviour::Reliability]) };
        let (s, _) = open(dir.path(), life).await;
        // Same words, so equal relevance; the unreliable one wins ties by its address.
        for key in ["a-deploy", "b-deploy"] {
            s.persona_remember(PersonaInput::new("skills", "procedures", key, "deploy the relay with the script"))
                .await
                .unwrap();
        }
        for _ in 0..8 {
            s.record_outcome("a-deploy", false).await.unwrap();
            s.record_outcome("b-deploy", true).await.unwrap();
        }
        let hits = s.search(lexical("how do I deploy the relay?")).await.unwrap();
        let order = paths(&hits);
        let first = if on { "skills/procedures/b-deploy" } else { "skills/procedures/a-deploy" };
        assert_eq!(order[0], first, "reliability {}: {order:?}", if on { "on" } else { "off" });
        let rel = hits[0].typed.as_ref().and_then(|t| t.reliability).expect("the hit says how reliable");
        assert_eq!(rel.outcomes(), 8);
        // Not a how-to question: reliability does not rank, on or off.
        let plain = paths(&s.search(lexical("deploy the relay")).await.unwrap());
        assert_eq!(plain[0], "skills/procedures/a-deploy", "{plain:?}");
    }
}
