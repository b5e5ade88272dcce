//! The memory lifecycle through the store's public API, on real SQLite files: decay
//! policies, pinning, pruning and dissolution, novelty gating, keyed facts, introspection,
//! compression, consolidation (with a property test of its idempotence), the knowledge
//! graph and automatic consolidation. No embedding model: similarity is lexical.

mod support;

use std::path::Path;
use std::sync::Arc;

use memstr::lifecycle::compress::CompressOptions;
use memstr::lifecycle::gate::GateDecision;
use memstr::lifecycle::{DecayPolicy, Fsrs6, FSRS6_DEFAULT_PARAMS};
use memstr::nostr::Kind;
use memstr::search::{Found, Kind as SearchKind};
use memstr::{
    DTagMode, Error, FactVersion, LifecycleOptions, ManualClock, MemoryState, MemoryStore, PersonaInput, PersonaMemory,
    PersonaQuery, Rule, SearchQuery, StoreOptions, ValidationError,
};
use proptest::prelude::*;
use support::*;

const T0: f64 = 1_800_000_000.0;
const DAY: f64 = 86_400.0;

/// Lifecycle options with no automatic consolidation, so nothing runs behind a test's back.
fn quiet() -> LifecycleOptions {
    let mut o = LifecycleOptions::default();
    o.consolidate_every = 0;
    o.consolidate_idle = None;
    o
}

/// A store in `dir` for the test key, its clock at `now`, with `life` and (if given) a
/// decay policy other than the default.
async fn open_with(
    dir: &Path,
    now: f64,
    life: LifecycleOptions,
    decay: Option<Arc<dyn DecayPolicy>>,
) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(now));
    let mut options = StoreOptions::default().clock(clock.clone()).lifecycle(life);
    if let Some(d) = decay {
        options = options.decay(d);
    }
    let store = MemoryStore::open(dir.join("memstr.db"), test_identity(), options).await.unwrap();
    (store, clock)
}

async fn open_quiet(dir: &Path, now: f64) -> (MemoryStore, Arc<ManualClock>) {
    open_with(dir, now, quiet(), None).await
}

/// The one memory at `address` (`domain/facet/key`), read without counting an access.
async fn peek(store: &MemoryStore, address: &str) -> Option<PersonaMemory> {
    let p: Vec<&str> = address.split('/').collect();
    store.persona_peek(PersonaQuery::exact(p[0], p[1], p[2])).await.unwrap().pop()
}

async fn all(store: &MemoryStore) -> Vec<PersonaMemory> {
    store.persona_peek(PersonaQuery::all()).await.unwrap()
}

/// Three journal entries close enough to recur (consolidation promotes them).
const DOG_WALKS: [&str; 3] = [
    "Walked the dog in the park before breakfast",
    "Walked the dog in the park before breakfast again",
    "walked the dog in the park before breakfast today",
];

/// A journal of `days` days from T0, one unrelated entry a day (words of its own besides
/// "entry" and "topic"), and `text` on each of `on_days`, two hours after that day's entry.
/// Promotion needs distinct episodes and words specific to a few of the journal's days.
async fn journal_over_days(store: &MemoryStore, days: u32, text: &str, on_days: &[u32]) {
    for d in 0..days {
        let day = T0 + f64::from(d) * DAY;
        store.journal_at(&format!("entry {d} about topic q{d}x"), day + 3_600.0).await.unwrap();
        if on_days.contains(&d) {
            store.journal_at(text, day + 7_200.0).await.unwrap();
        }
    }
}

/// Waits (up to 20 s) for a consolidation running by itself to promote exactly one fact.
async fn wait_for_one_promotion(store: &MemoryStore, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let p = promoted(store).await;
        if !p.is_empty() {
            assert_eq!(p.len(), 1, "{p:?}");
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

fn input(address: &str, value: &str) -> PersonaInput {
    let p: Vec<&str> = address.split('/').collect();
    PersonaInput::new(p[0], p[1], p[2], value)
}

/// The d tag (compatible mode) of a persona memory.
fn persona_path(address: &str) -> String {
    format!("sense-memory/persona/{address}")
}

// ---------------------------------------------------------------------------------------
// 1. Decay
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn default_decay_equals_the_published_clients_formula() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea").themes(["tea"])).await.unwrap();
    clock.set(T0 + 3.0 * DAY);
    store.persona_remember(input("people/facts/bob-cello", "Bob plays the cello").halflife_days(7.0)).await.unwrap();
    store
        .persona_remember(input("self/beliefs/tabs", "Tabs beat spaces").confidence(0.4).at(T0 - 20.0 * DAY))
        .await
        .unwrap();
    clock.set(T0 + 5.0 * DAY);
    store.persona_connect("alice-tea", "bob-cello").await.unwrap();
    store.persona_contradict("tabs", "alice-tea").await.unwrap();
    let ms = all(&store).await;
    assert_eq!(ms.len(), 3);
    for m in &ms {
        assert!(m.sync.life.is_empty(), "no lifecycle extras on plain API writes: {m:?}");
        for days in [-1.0, 0.0, 0.5, 1.0, 7.0, 30.0, 52.0, 100.0, 200.0, 400.0] {
            let t = T0 + days * DAY;
            let (relevance, state) = store.live(m, t);
            assert_eq!(relevance.to_bits(), m.current_relevance(t).to_bits(), "{} at {days} days", m.key);
            assert_eq!(state, m.compute_state(t), "{} at {days} days", m.key);
        }
    }
    // The store's own counts use the same states.
    clock.set(T0 + 60.0 * DAY);
    let stats = store.persona_stats().await.unwrap();
    for s in MemoryState::ALL {
        let want = ms.iter().filter(|m| m.compute_state(T0 + 60.0 * DAY) == s).count() as u64;
        assert_eq!(stats.by_state[s.as_str()], want, "{s}");
    }
}

#[tokio::test]
async fn fsrs6_policy_changes_relevance_and_follows_fsrs_states() {
    let dir = tempfile::tempdir().unwrap();
    let fsrs = Fsrs6::default();
    let (store, clock) = open_with(dir.path(), T0, quiet(), Some(Arc::new(fsrs))).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea")).await.unwrap();
    let m = peek(&store, "people/facts/alice-tea").await.unwrap();

    let (r1, s1) = store.live(&m, T0 + DAY);
    assert_eq!(r1, fsrs.relevance(&m, T0 + DAY));
    assert_ne!(r1, m.current_relevance(T0 + DAY), "FSRS is not the halflife curve");
    assert_eq!(s1, MemoryState::Active);
    // R(S, S) = 0.9 at the initial Good stability.
    let (rs, _) = store.live(&m, T0 + FSRS6_DEFAULT_PARAMS[2] * DAY);
    assert!((rs - 0.9).abs() < 1e-12, "{rs}");
    // 100 days on: lower, and only fading, where the client's halflife says forgotten.
    let (r100, s100) = store.live(&m, T0 + 100.0 * DAY);
    assert!(r100 < r1, "{r100} vs {r1}");
    assert_eq!(s100, MemoryState::Fading);
    assert_eq!(m.compute_state(T0 + 100.0 * DAY), MemoryState::Forgotten);
    clock.set(T0 + 100.0 * DAY);
    assert_eq!(store.persona_stats().await.unwrap().by_state["fading"], 1);

    // An access is an FSRS review: the state is kept and stability grows.
    clock.set(T0 + 10.0 * DAY);
    store.persona_recall(PersonaQuery::exact("people", "facts", "alice-tea")).await.unwrap();
    let m = peek(&store, "people/facts/alice-tea").await.unwrap();
    let st = m.sync.life.fsrs.expect("FSRS state recorded on access");
    assert_eq!(st.reviews, 2);
    assert_eq!(st.last_review, T0 + 10.0 * DAY);
    assert!(st.stability > FSRS6_DEFAULT_PARAMS[2], "{st:?}");
    assert_eq!(store.live(&m, T0 + 10.0 * DAY), (1.0, MemoryState::Active));
    // Stronger now: at 100 days it beats the unreviewed memory.
    assert!(store.live(&m, T0 + 100.0 * DAY).0 > r100);
}

// ---------------------------------------------------------------------------------------
// 2. Pinning
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn pinned_memories_never_decay_nor_get_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("self/facts/name", "My name is Sense")).await.unwrap();
    store.persona_remember(input("people/facts/old", "Bob once had a bike")).await.unwrap();
    store.persona_pin("name", true).await.unwrap();
    assert!(peek(&store, "self/facts/name").await.unwrap().sync.life.pinned);
    assert!(matches!(store.persona_pin("nobody", true).await, Err(Error::NotFound(_))));

    let later = T0 + 3650.0 * DAY;
    clock.set(later);
    let m = peek(&store, "self/facts/name").await.unwrap();
    assert_eq!(store.live(&m, later), (1.0, MemoryState::Active));
    let report = store.persona_prune().await.unwrap();
    assert_eq!(report.transitions, vec![("people/facts/old".to_string(), MemoryState::Active, MemoryState::Dissolved)]);
    assert!(report.deleted.is_empty());
    clock.set(later + 31.0 * DAY);
    let report = store.persona_prune().await.unwrap();
    assert_eq!(report.archived, vec!["people/facts/old".to_string()]);
    assert!(report.deleted.is_empty() && report.transitions.is_empty(), "{report:?}");
    let m = peek(&store, "self/facts/name").await.expect("pinned memory kept");
    assert_eq!(m.sync.life.archived_at, None, "a pinned memory never reaches the archive");
    assert_eq!(m.state, MemoryState::Active);
    assert_eq!(m.sync.life.dissolved_at, None);

    // Unpinned, it decays from its last access again: ten years is far past dissolved.
    store.persona_pin("self/facts/name", false).await.unwrap();
    let m = peek(&store, "self/facts/name").await.unwrap();
    assert!(!m.sync.life.pinned);
    let (r, s) = store.live(&m, later + 31.0 * DAY);
    assert!(r < 0.01, "{r}");
    assert_eq!(s, MemoryState::Dissolved);
    assert_eq!(m.state, MemoryState::Dissolved);
}

// ---------------------------------------------------------------------------------------
// 3. Access revives
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn recalling_a_fading_memory_makes_it_active_again() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea")).await.unwrap();
    let t = T0 + 80.0 * DAY;
    clock.set(t);
    let m = peek(&store, "people/facts/alice-tea").await.unwrap();
    assert_eq!(store.live(&m, t).1, MemoryState::Fading);
    let got = store.persona_recall(PersonaQuery::exact("people", "facts", "alice-tea")).await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].access_count, 0, "recall returns the memory as it stood");
    let m = peek(&store, "people/facts/alice-tea").await.unwrap();
    assert_eq!(m.access_count, 1);
    assert_eq!(m.last_accessed, t);
    assert_eq!(store.live(&m, t), (1.0, MemoryState::Active));
    assert_eq!(m.state, MemoryState::Active);
    // Nothing left for pruning to do, and the access is signed once on flush.
    assert_eq!(store.persona_prune().await.unwrap().count(), 0);
    assert_eq!(store.stats().await.unwrap().unsigned_accesses, 1);
    assert_eq!(store.flush_accesses().await.unwrap(), 1);
}

// ---------------------------------------------------------------------------------------
// 4. Pruning and dissolution
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn prune_reports_transitions_and_archives_thirty_days_after_dissolving() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    let bob = "people/facts/bob-cello";
    let carol = "people/facts/carol-cello";
    store.persona_remember(input(bob, "Bob plays the cello")).await.unwrap();
    store.persona_remember(input(carol, "Carol tunes a cello")).await.unwrap();
    let of = |r: &memstr::PruneReport, a: &str| {
        r.transitions.iter().filter(|(x, _, _)| x == a).map(|(_, f, t)| (*f, *t)).collect::<Vec<_>>()
    };

    clock.set(T0 + 10.0 * DAY);
    assert_eq!(store.persona_prune().await.unwrap().count(), 0);
    clock.set(T0 + 60.0 * DAY);
    let r = store.persona_prune().await.unwrap();
    assert_eq!(r.count(), 2);
    assert_eq!(of(&r, bob), [(MemoryState::Active, MemoryState::Fading)]);
    // A second prune at the same instant changes nothing.
    assert_eq!(store.persona_prune().await.unwrap().count(), 0);

    clock.set(T0 + 120.0 * DAY);
    store.persona_remember(input("people/facts/alice-cello", "Alice sells a cello bow")).await.unwrap();
    let r = store.persona_prune().await.unwrap();
    assert_eq!(of(&r, bob), [(MemoryState::Fading, MemoryState::Forgotten)]);
    assert_eq!(of(&r, carol), [(MemoryState::Fading, MemoryState::Forgotten)]);
    // Forgotten memories leave search results, unless asked for by state or revived by a
    // strong cue.
    let mut q = SearchQuery::new("cello");
    q.strengthen = false;
    q.revive = false;
    let hits = store.search(q.clone()).await.unwrap();
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, [persona_path("people/facts/alice-cello")]);
    q.states = vec![MemoryState::Forgotten];
    let hits = store.search(q).await.unwrap();
    assert_eq!(hits.len(), 2, "{hits:#?}");
    // ... but exact reads still find them.
    assert_eq!(peek(&store, bob).await.unwrap().state, MemoryState::Forgotten);
    let got = store.persona_recall(PersonaQuery::exact("people", "facts", "carol-cello")).await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].state, MemoryState::Forgotten);

    let dissolved_at = T0 + 210.0 * DAY;
    clock.set(dissolved_at);
    let r = store.persona_prune().await.unwrap();
    assert_eq!(of(&r, bob), [(MemoryState::Forgotten, MemoryState::Dissolved)]);
    assert!(r.deleted.is_empty());
    assert_eq!(peek(&store, bob).await.unwrap().sync.life.dissolved_at, Some(dissolved_at));
    // The recalled one was revived at day 120 and is only fading now.
    assert_eq!(of(&r, carol), [(MemoryState::Active, MemoryState::Fading)]);

    clock.set(dissolved_at + 29.0 * DAY);
    let r = store.persona_prune().await.unwrap();
    assert!(r.deleted.is_empty() && of(&r, bob).is_empty(), "{r:?}");
    let m = peek(&store, bob).await.expect("kept until 30 days dissolved");
    assert_eq!(m.sync.life.dissolved_at, Some(dissolved_at));

    let before = store.stats().await.unwrap();
    clock.set(dissolved_at + 31.0 * DAY);
    let r = store.persona_prune().await.unwrap();
    assert_eq!(r.archived, vec![bob.to_string()]);
    assert!(r.deleted.is_empty() && of(&r, bob).is_empty(), "{r:?}");
    let m = peek(&store, bob).await.expect("archived, not deleted");
    assert_eq!(m.sync.life.archived_at, Some(dissolved_at + 31.0 * DAY));
    let after = store.stats().await.unwrap();
    assert_eq!((after.persona, after.deleted), (before.persona, before.deleted));
    assert!(store.export_events().await.unwrap().iter().all(|e| e.kind != Kind::from(5)), "nothing deleted");
    // Pruning leaves an archived memory be.
    assert_eq!(store.persona_prune().await.unwrap().count(), 0);
}

#[tokio::test]
async fn dissolve_delete_policy_deletes_thirty_days_after_dissolving() {
    let dir = tempfile::tempdir().unwrap();
    let mut life = quiet();
    life.dissolve = memstr::Dissolve::Delete;
    let (store, clock) = open_with(dir.path(), T0, life, None).await;
    let bob = "people/facts/bob-cello";
    store.persona_remember(input(bob, "Bob plays the cello")).await.unwrap();
    store.fact_set("people", "bob", "instrument", "cello").await.unwrap();
    let dissolved_at = T0 + 400.0 * DAY;
    clock.set(dissolved_at);
    store.persona_prune().await.unwrap();
    let before = store.stats().await.unwrap();
    clock.set(dissolved_at + 31.0 * DAY);
    let r = store.persona_prune().await.unwrap();
    assert_eq!(r.deleted, vec![bob.to_string()], "keyed facts are never deleted by the lifecycle: {r:?}");
    assert!(peek(&store, bob).await.is_none());
    assert_eq!(store.fact_get("people", "bob", "instrument").await.unwrap().as_deref(), Some("cello"));
    let after = store.stats().await.unwrap();
    assert_eq!(after.persona, before.persona - 1);
    assert_eq!(after.deleted, before.deleted + 1);
    // A NIP-09 deletion naming the memory's (blinded: a default store's) address is queued
    // for relays.
    let pk = store.public_key().to_hex();
    let codec = memstr::codec::Codec::new(memstr::nostr::Keys::parse(TEST_SECRET).unwrap(), DTagMode::Blinded).unwrap();
    let a_tag = format!("30078:{pk}:{}", codec.d_tag(&memstr::MemoryPath::parse(&persona_path(bob)).unwrap()));
    let export = store.export_events().await.unwrap();
    let del = export
        .iter()
        .find(|e| e.kind == Kind::from(5) && e.tags.iter().any(|t| t.as_slice() == ["a", a_tag.as_str()]))
        .expect("a deletion for the dissolved memory");
    assert!(store.outbox().await.unwrap().contains(&del.id.to_hex()));
}

// ---------------------------------------------------------------------------------------
// 5. Novelty gating
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn gate_reinforces_duplicates_supersedes_corrections_creates_novelty() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-coffee", "Alice drinks coffee every morning")).await.unwrap();
    clock.set(T0 + DAY);

    // The same value under a new key: the existing memory is strengthened, nothing added.
    let got = store
        .persona_ingest(input("people/facts/alice-coffee-2", "Alice drinks coffee every morning").themes(["drinks"]))
        .await
        .unwrap();
    assert_eq!(
        got.decision,
        GateDecision::Reinforce {
            path: "people/facts/alice-coffee".into(),
            key: "alice-coffee".into(),
            similarity: 1.0
        }
    );
    assert_eq!(got.address, "people/facts/alice-coffee");
    assert!(peek(&store, "people/facts/alice-coffee-2").await.is_none());
    let m = peek(&store, "people/facts/alice-coffee").await.unwrap();
    assert_eq!(m.access_count, 1);
    assert_eq!(m.last_accessed, T0 + DAY);
    assert_eq!(m.themes, ["drinks"]);
    assert_eq!(all(&store).await.len(), 1);

    // A correction (a negation of the same words): stored under its own key, the old one
    // superseded and contradicted.
    let got = store
        .persona_ingest(input("people/facts/alice-no-coffee", "Alice does not drink coffee every morning"))
        .await
        .unwrap();
    assert!(
        matches!(&got.decision, GateDecision::Supersede { key, cue, .. } if key == "alice-coffee" && cue == "negation"),
        "{:?}",
        got.decision
    );
    assert_eq!(got.address, "people/facts/alice-no-coffee");
    assert!(peek(&store, "people/facts/alice-no-coffee").await.is_some());
    let old = peek(&store, "people/facts/alice-coffee").await.unwrap();
    assert_eq!(old.superseded_by.as_deref(), Some("alice-no-coffee"));
    assert!(old.contradicts.contains(&"alice-no-coffee".to_string()));
    // Superseded: it decays four times faster and has half its relevance.
    // (29 days since the reinforcing access, × 4, and one contradiction.)
    let (r, _) = store.live(&old, T0 + 30.0 * DAY);
    assert!((r - 0.5 * 0.5f64.powf(4.0 * 29.0 / 30.0)).abs() < 1e-12, "{r}");

    // Novel content.
    let got = store.persona_ingest(input("people/facts/bob-cello", "Bob is learning the cello")).await.unwrap();
    assert_eq!(got.decision, GateDecision::Create);
    assert_eq!(got.address, "people/facts/bob-cello");
    assert_eq!(peek(&store, "people/facts/bob-cello").await.unwrap().value, "Bob is learning the cello");

    // Only the same domain and facet are compared.
    let got = store.persona_ingest(input("people/beliefs/coffee", "Alice drinks coffee every morning")).await.unwrap();
    assert_eq!(got.decision, GateDecision::Create);

    // Writing to an existing key is an explicit update, gate or not; what the old value said
    // stays (an update never drops a detail).
    let got = store.persona_ingest(input("people/facts/bob-cello", "Bob plays the viola")).await.unwrap();
    assert!(matches!(got.decision, GateDecision::Update { ref key, .. } if key == "bob-cello"), "{:?}", got.decision);
    assert_eq!(
        peek(&store, "people/facts/bob-cello").await.unwrap().value,
        "Bob is learning the cello. Bob plays the viola"
    );
}

#[tokio::test]
async fn gate_corrections_are_caught_by_each_cue_without_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-coffee", "Alice likes coffee")).await.unwrap();
    store.persona_remember(input("people/facts/alice-home", "Alice lives at 12 Oak Street")).await.unwrap();
    let got = store.persona_ingest(input("people/facts/alice-coffee-2", "Alice does not like coffee")).await.unwrap();
    assert!(
        matches!(&got.decision, GateDecision::Supersede { key, cue, .. } if key == "alice-coffee" && cue == "negation"),
        "{:?}",
        got.decision
    );
    let got = store.persona_ingest(input("people/facts/alice-home-2", "Alice lives at 14 Oak Street")).await.unwrap();
    assert!(
        matches!(&got.decision, GateDecision::Supersede { key, cue, .. } if key == "alice-home" && cue.starts_with("number")),
        "{:?}",
        got.decision
    );
    assert_eq!(peek(&store, "people/facts/alice-home").await.unwrap().superseded_by.as_deref(), Some("alice-home-2"));
}

/// The issue's own example, without a model. The words overlap 0.6 (3 of 5 content words
/// each side): under the cosine threshold (0.70), so word overlap has its own thresholds
/// (`gate_lexical`, supersede from 0.5). Guards against comparing overlap with cosine
/// thresholds, which created a second, uncontradicted memory.
#[tokio::test]
async fn gate_supersedes_the_issue_correction_without_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-coffee", "Alice drinks coffee every morning")).await.unwrap();
    let got = store
        .persona_ingest(input("people/facts/alice-no-coffee", "Actually, Alice no longer drinks coffee"))
        .await
        .unwrap();
    assert!(
        matches!(&got.decision, GateDecision::Supersede { key, .. } if key == "alice-coffee"),
        "{:?}",
        got.decision
    );
    let old = peek(&store, "people/facts/alice-coffee").await.unwrap();
    assert_eq!(old.superseded_by.as_deref(), Some("alice-no-coffee"));
    assert!(old.contradicts.contains(&"alice-no-coffee".to_string()));
}

/// With the model, the same example is a supersede (cosine 0.78 with the indexed text).
/// Guards against comparing a memory written since the last search (not yet embedded) by
/// word overlap: `persona_ingest` embeds pending records first.
#[tokio::test]
async fn gate_with_a_model_compares_memories_written_since_the_last_search() {
    let dir = tempfile::tempdir().unwrap();
    let e = onnx_embedder();
    let clock = Arc::new(ManualClock::new(T0));
    let options = StoreOptions::default().clock(clock).lifecycle(quiet()).embedder(Arc::new(e));
    let store = MemoryStore::open(dir.path().join("memstr.db"), test_identity(), options).await.unwrap();
    store.persona_remember(input("people/facts/alice-coffee", "Alice drinks coffee every morning")).await.unwrap();
    // No search in between: the new memory has no vector yet.
    let got = store
        .persona_ingest(input("people/facts/alice-no-coffee", "Actually, Alice no longer drinks coffee"))
        .await
        .unwrap();
    assert!(
        matches!(&got.decision, GateDecision::Supersede { key, .. } if key == "alice-coffee"),
        "{:?}",
        got.decision
    );
}

#[tokio::test]
async fn gate_thresholds_come_from_the_options() {
    const OLD: &str = "Alice drinks strong black coffee every morning";
    // 7 of 8 content words shared: similarity 0.935, and one word added.
    const MORE: &str = "Alice drinks strong black coffee every morning at home";
    async fn ingest(life: LifecycleOptions, key: &str, value: &str) -> (MemoryStore, GateDecision, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open_with(dir.path(), T0, life, None).await;
        store.persona_remember(input("people/facts/alice-coffee", OLD)).await.unwrap();
        let got = store.persona_ingest(input(&format!("people/facts/{key}"), value)).await.unwrap();
        (store, got.decision, dir)
    }
    let is = |d: &GateDecision, want: &str| match d {
        GateDecision::Reinforce { key, .. } => want == "reinforce" && key == "alice-coffee",
        GateDecision::Update { key, .. } => want == "update" && key == "alice-coffee",
        GateDecision::Supersede { key, .. } => want == "supersede" && key == "alice-coffee",
        GateDecision::Create => want == "create",
        GateDecision::Related { key, .. } => want == "related" && key == "alice-coffee",
        _ => false,
    };

    // Defaults (word overlap, no model): at or above 0.9, a reinforce.
    let (_, d, _t) = ingest(quiet(), "more", MORE).await;
    assert!(is(&d, "reinforce"), "{d:?}");

    // "reinforce" out of reach: the same text adding a word is an update of the old memory.
    let mut life = quiet();
    life.gate_lexical.reinforce = 1.01;
    let (store, d, _t) = ingest(life.clone(), "more", MORE).await;
    assert!(is(&d, "update"), "{d:?}");
    let updated = peek(&store, "people/facts/alice-coffee").await.unwrap();
    assert_eq!(updated.value, MORE);
    // The value it replaced stays in the memory's history.
    assert_eq!(updated.sync.life.history.len(), 1);
    assert_eq!(updated.sync.life.history[0].value, OLD);
    assert!(peek(&store, "people/facts/more").await.is_none());
    // An exact duplicate adds no word, so the update band still reinforces it.
    let (_, d, _t) = ingest(life.clone(), "dup", OLD).await;
    assert!(is(&d, "reinforce"), "{d:?}");

    // Both bands out of reach: a duplicate is a new memory, linked as another fact of Alice.
    life.gate_lexical.update = 1.01;
    let (store, d, _t) = ingest(life, "dup", OLD).await;
    assert!(is(&d, "related"), "{d:?}");
    assert_eq!(all(&store).await.len(), 2);

    // The supersede band decides a correction nothing names: "Actually, Alice drinks tea"
    // against coffee (overlap 0.75) supersedes at the default band and is only named as a
    // possible correction (might_correct) when the band is out of reach.
    let correct = |band: f64| async move {
        let mut life = quiet();
        life.gate_lexical.supersede_low = band;
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open_with(dir.path(), T0, life, None).await;
        store.persona_remember(input("people/facts/alice-coffee", "Alice drinks coffee every morning")).await.unwrap();
        let got = store
            .persona_ingest(input("people/facts/alice-tea", "Actually, Alice drinks tea every morning"))
            .await
            .unwrap();
        got.decision
    };
    let d = correct(0.55).await;
    assert!(
        matches!(&d, GateDecision::Supersede { key, cue, .. } if key == "alice-coffee" && cue == "actually"),
        "{d:?}"
    );
    let d = correct(1.01).await;
    assert!(matches!(&d, GateDecision::MightCorrect { key, .. } if key == "alice-coffee"), "{d:?}");
}

// ---------------------------------------------------------------------------------------
// 6. Keyed facts
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn keyed_facts_keep_one_value_and_a_history() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    assert_eq!(store.fact_get("people", "alice", "city").await.unwrap(), None);
    assert!(store.fact_history("people", "alice", "city").await.unwrap().is_empty());
    store.fact_set("people", "alice", "city", "Warsaw").await.unwrap();
    clock.set(T0 + 10.0 * DAY);
    store.fact_set("people", "alice", "city", "Berlin").await.unwrap();
    assert_eq!(store.fact_get("people", "alice", "city").await.unwrap().as_deref(), Some("Berlin"));
    // `FactVersion` is non-exhaustive: compared field by field.
    let fields = |h: Vec<FactVersion>| h.into_iter().map(|v| (v.value, v.from, v.until)).collect::<Vec<_>>();
    let want = vec![("Warsaw".to_string(), T0, Some(T0 + 10.0 * DAY)), ("Berlin".to_string(), T0 + 10.0 * DAY, None)];
    assert_eq!(fields(store.fact_history("people", "alice", "city").await.unwrap()), want);
    // The same value again adds no history.
    clock.set(T0 + 20.0 * DAY);
    store.fact_set("people", "alice", "city", "Berlin").await.unwrap();
    assert_eq!(fields(store.fact_history("people", "alice", "city").await.unwrap()), want);
    // It is a persona memory in the facts facet, and other attributes are separate.
    let m = peek(&store, "people/facts/alice:city").await.unwrap();
    assert_eq!(m.value, "Berlin");
    store.fact_set("people", "alice", "pet", "cat").await.unwrap();
    assert_eq!(store.fact_get("people", "alice", "city").await.unwrap().as_deref(), Some("Berlin"));
    assert_eq!(store.fact_get("people", "alice", "pet").await.unwrap().as_deref(), Some("cat"));

    // ':' joins subject and attribute, so neither may hold one.
    for (subject, attribute, field) in [("a:b", "city", "subject"), ("alice", "ci:ty", "attribute")] {
        match store.fact_set("people", subject, attribute, "x").await {
            Err(Error::Validation(ValidationError { field: f, rule: Rule::ForbiddenChar(':') })) => {
                assert_eq!(f, field)
            }
            other => panic!("{subject} {attribute}: {other:?}"),
        }
        assert!(matches!(store.fact_get("people", subject, attribute).await, Err(Error::Validation(_))));
    }
    assert!(matches!(store.fact_set("a/b", "alice", "city", "x").await, Err(Error::Validation(_))));
}

// ---------------------------------------------------------------------------------------
// 7. Introspection
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn introspection_of_a_known_persona() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0 - 2.0 * DAY).await;
    let add = |address: &'static str, value: &'static str, themes: &'static [&'static str]| {
        let store = store.clone();
        async move { store.persona_remember(input(address, value).themes(themes.iter().copied())).await.unwrap() }
    };
    add("people/facts/alice-coffee", "Alice drinks coffee", &["alice", "drinks"]).await;
    clock.set(T0 - DAY);
    add("people/facts/alice-tea", "Alice likes green tea", &["drinks", "alice"]).await;
    clock.set(T0);
    add("people/facts/alice-decaf", "Alice switched to decaf", &["alice", "drinks"]).await;
    add("projects/facts/memstr-lang", "memstr is written in Rust", &["rust", "code"]).await;
    add("skills/procedures/cargo-test", "Run cargo test before each commit", &["rust", "code"]).await;
    add("self/beliefs/tests-matter", "Tests catch regressions", &[]).await;
    store
        .persona_remember(input("self/beliefs/tabs-better", "Tabs beat spaces").confidence(0.3).at(T0 - 60.0 * DAY))
        .await
        .unwrap();
    store.persona_remember(input("world/facts/lost", "An old fact").at(T0 - 150.0 * DAY)).await.unwrap();
    store.persona_remember(input("world/facts/ancient", "An ancient fact").at(T0 - 400.0 * DAY)).await.unwrap();
    store.persona_connect("alice-coffee", "alice-tea").await.unwrap();
    store.persona_connect("cargo-test", "tests-matter").await.unwrap();
    store.persona_contradict("alice-coffee", "alice-decaf").await.unwrap();

    let r = store.persona_introspect().await.unwrap();
    let strings = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let pairs = |xs: &[(&str, &str)]| xs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    assert_eq!((r.total_memories, r.active, r.fading, r.forgotten, r.dissolved), (9, 6, 1, 1, 1), "{r:#?}");
    assert_eq!(r.contradictions, pairs(&[("alice-coffee", "alice-decaf")]));
    assert_eq!(r.orphaned, strings(&["alice-decaf", "memstr-lang", "tabs-better"]));
    assert_eq!(r.suggested_connections, pairs(&[("alice-decaf", "alice-tea"), ("cargo-test", "memstr-lang")]));
    assert_eq!(r.stale_beliefs, strings(&["tabs-better"]));
    assert_eq!(r.suggested_revisions, strings(&["tabs-better"]));
    assert!(r.overloaded_facets.is_empty() && r.suggested_compressions.is_empty());
    // Stored state "active" for the three written in the past; their live states differ.
    assert_eq!(r.pruned_count, 3);
    assert_eq!(r.timestamp, T0);

    // The report is kept as an introspection event.
    let stored = store.introspections(10).await.unwrap();
    assert_eq!(stored, vec![r.clone()]);
    assert_eq!(store.stats().await.unwrap().introspection, 1);
    // Introspection changes no memory.
    assert_eq!(peek(&store, "self/beliefs/tabs-better").await.unwrap().state, MemoryState::Active);
}

// ---------------------------------------------------------------------------------------
// 8. Compression
// ---------------------------------------------------------------------------------------

#[derive(serde::Deserialize)]
struct Entry {
    domain: String,
    facet: String,
    key: String,
    value: String,
    themes: Vec<String>,
}

#[tokio::test]
async fn compress_quotes_the_fifty_memory_persona_newest_first_within_500_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let now = 1_790_000_000.0;
    let (store, _) = open_quiet(dir.path(), now).await;
    let entries: Vec<Entry> =
        serde_json::from_str(include_str!("../src/lifecycle/persona50.json")).expect("persona50.json parses");
    assert_eq!(entries.len(), 50);
    for (i, e) in entries.iter().enumerate() {
        let at = now - 3600.0 * i as f64;
        store
            .persona_remember(PersonaInput::new(&e.domain, &e.facet, &e.key, &e.value).themes(e.themes.clone()).at(at))
            .await
            .unwrap();
    }
    let out = store.persona_compress_with(CompressOptions::default()).await.unwrap();
    assert!(out.estimated_tokens <= 500, "{}", out.estimated_tokens);
    assert!(out.covered >= 15 && out.total == 50 && out.covered + out.omitted == 50, "{out:?}");
    // Written an hour apart in file order: the newest are the ones covered.
    let newest: Vec<String> =
        entries.iter().take(out.covered).map(|e| format!("{}/{}/{}", e.domain, e.facet, e.key)).collect();
    assert_eq!(out.included, newest);
    let real = tiktoken_rs::cl100k_base().unwrap().encode_with_special_tokens(&out.text).len();
    assert!(real <= 500, "cl100k_base: {real} tokens");
    assert!(out.estimated_tokens >= real, "the estimate errs high: {} < {real}", out.estimated_tokens);
    // persona_compress is the same text.
    assert_eq!(store.persona_compress(None).await.unwrap(), out.text);
    // With no limit, every memory is quoted whole under its facet.
    let out = store.persona_compress_with(CompressOptions { max_tokens: None, ..Default::default() }).await.unwrap();
    assert_eq!((out.covered, out.omitted), (50, 0));
    for e in &entries {
        let header = format!("[domain:{}/facet:{}]", e.domain, e.facet);
        let section = out.text.split_once(&header).unwrap_or_else(|| panic!("no {header}")).1;
        let section = section.split("[domain:").next().unwrap();
        let line = format!("{}: {}", e.key, e.value.trim_end_matches('.'));
        assert!(section.lines().any(|l| l == line), "{line} missing:\n{}", out.text);
    }
}

#[tokio::test]
async fn compress_takes_current_memories_newest_first_and_filters_by_domain() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea")).await.unwrap();
    store.persona_remember(input("people/facts/zed-bikes", "Zed rides bikes").at(T0 - 60.0 * DAY)).await.unwrap();
    store.persona_remember(input("self/facts/motto", "Keep memories small").at(T0 - 400.0 * DAY)).await.unwrap();
    store.persona_remember(input("projects/decisions/db", "We chose SQLite over Postgres")).await.unwrap();
    store.persona_pin("motto", true).await.unwrap();

    // A fading memory is current: its state follows reads, the context must not.
    let out = store.persona_compress_with(CompressOptions::default()).await.unwrap();
    assert_eq!(
        out.included,
        ["self/facts/motto", "people/facts/alice-tea", "projects/decisions/db", "people/facts/zed-bikes"]
    );
    assert!(out.text.contains("db: We chose SQLite over Postgres\n"), "{}", out.text);
    assert_eq!((out.covered, out.total), (4, 4));

    let people = store.persona_compress(Some("people")).await.unwrap();
    assert!(people.starts_with("[domain:people/facet:facts]\nalice-tea: Alice drinks green tea\n"), "{people}");
    assert!(!people.contains("[domain:self") && !people.contains("[domain:projects"), "{people}");
    assert_eq!(store.persona_compress(Some("nowhere")).await.unwrap(), "");

    // A tiny budget drops the oldest and says so.
    let tight =
        store.persona_compress_with(CompressOptions { max_tokens: Some(30), ..Default::default() }).await.unwrap();
    assert!(tight.omitted > 0 && tight.covered > 0, "{tight:?}");
    assert!(tight.text.contains("more)"), "{}", tight.text);

    // Searching and recalling other memories does not change what is shown.
    let before =
        store.persona_compress_with(CompressOptions { max_tokens: Some(40), ..Default::default() }).await.unwrap();
    for _ in 0..5 {
        store.search(SearchQuery::new("Zed rides bikes")).await.unwrap();
        store.persona_recall(PersonaQuery::exact("people", "facts", "zed-bikes")).await.unwrap();
    }
    let after =
        store.persona_compress_with(CompressOptions { max_tokens: Some(40), ..Default::default() }).await.unwrap();
    assert_eq!(before.included, after.included);
    assert!(!after.included.contains(&"people/facts/zed-bikes".to_string()), "{after:?}");
}

/// Issue 11: a superseded memory is never compressed in, whatever its relevance.
#[tokio::test]
async fn compress_leaves_out_superseded_memories() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/priya-home", "Priya lives in Berlin")).await.unwrap();
    store.persona_remember(input("people/facts/priya-city", "Priya moved to Lisbon").at(T0 - DAY)).await.unwrap();
    store.persona_remember(input("people/facts/priya-allergy", "Priya is allergic to peanuts")).await.unwrap();
    store.persona_contradict("priya-home", "priya-city").await.unwrap();
    for domain in [None, Some("people".to_string())] {
        let out = store.persona_compress_with(CompressOptions { domain, ..Default::default() }).await.unwrap();
        assert!(!out.text.contains("Berlin") && out.text.contains("Lisbon"), "{}", out.text);
        assert!(out.text.contains("priya-allergy: Priya is allergic to peanuts"), "{}", out.text);
        assert_eq!((out.included.len(), out.omitted, out.replaced, out.total), (2, 0, 1, 2));
    }
}

// ---------------------------------------------------------------------------------------
// 9. Consolidation
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn recurring_journal_content_is_promoted_once() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    journal_over_days(&store, 20, "", &[]).await;
    for (i, day) in [2.0, 9.0, 16.0].iter().enumerate() {
        store.journal_at(DOG_WALKS[i], T0 + day * DAY + 7_200.0).await.unwrap();
    }
    store.journal_at("Fixed the kitchen sink", T0 + 0.5 * DAY).await.unwrap();
    clock.set(T0 + 20.0 * DAY);
    let r = store.consolidate().await.unwrap();
    assert_eq!(r.promoted.len(), 1, "{r:?}");
    let address = &r.promoted[0];
    assert!(address.starts_with("self/facts/recurring-"), "{address}");
    let m = peek(&store, address).await.expect("the promoted memory");
    assert_eq!(m.value, "Walked the dog in the park before breakfast");
    assert_eq!(m.source, "consolidation: 3 similar journal entries in 3 episodes");
    // An inference from the journal, not the user's word: below a written memory's 1.0.
    assert!(m.confidence < 1.0 && m.themes.is_empty(), "{m:?}");
    assert!(r.changed());

    let r = store.consolidate().await.unwrap();
    assert!(r.promoted.is_empty() && !r.changed(), "{r:?}");
    // A fourth occurrence does not promote it again.
    store.journal_at("Walked the dog in the park before breakfast once more", T0 + 19.0 * DAY).await.unwrap();
    let r = store.consolidate().await.unwrap();
    assert!(r.promoted.is_empty(), "{r:?}");
    let recurring: Vec<_> = all(&store).await.into_iter().filter(|m| m.key.starts_with("recurring-")).collect();
    assert_eq!(recurring.len(), 1);
    // Two similar entries on two days are not a pattern.
    store.journal_at("Baked sourdough bread at home", T0 + 3.1 * DAY).await.unwrap();
    store.journal_at("Baked sourdough bread at home again", T0 + 6.2 * DAY).await.unwrap();
    assert!(store.consolidate().await.unwrap().promoted.is_empty());
}

#[tokio::test]
async fn templated_lines_repeated_over_many_days_are_not_promoted() {
    // The import case: daily template lines, cycles running as the journal grows. A
    // standup whose topic varies shares only its frame; an identical daily line shares
    // words found on every day. Neither says anything specific.
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    let topics = ["deploy", "migration", "release", "outage", "roadmap"];
    for d in 0..40u32 {
        let day = T0 + f64::from(d) * DAY;
        store.journal_at(&format!("entry {d} about topic q{d}x"), day + 3_600.0).await.unwrap();
        store
            .journal_at(&format!("Daily standup: discussed the {}.", topics[d as usize % 5]), day + 9.0 * 3_600.0)
            .await
            .unwrap();
        store.journal_at("Lunch break; checked email.", day + 12.0 * 3_600.0).await.unwrap();
        if [5, 17, 29].contains(&d) {
            store.journal_at("Repaired the greenhouse heater with Tomas", day + 15.0 * 3_600.0).await.unwrap();
        }
        clock.set(day + 20.0 * 3_600.0);
        store.consolidate().await.unwrap();
    }
    // Only the specific pattern is a fact.
    let p = promoted(&store).await;
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("greenhouse"), "{p:?}");
}

#[tokio::test]
async fn a_burst_of_identical_lines_is_one_episode_and_not_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    journal_over_days(&store, 20, "", &[]).await;
    // Ten copies within 45 minutes: one episode.
    for i in 0..10 {
        store.journal_at("Repotted the fig tree on the balcony", T0 + 5.0 * DAY + f64::from(i) * 300.0).await.unwrap();
    }
    clock.set(T0 + 20.0 * DAY);
    let r = store.consolidate().await.unwrap();
    assert!(r.promoted.is_empty(), "{r:?}");
    // The same line on two more days: three episodes, a pattern.
    store.journal_at("Repotted the fig tree on the balcony", T0 + 9.0 * DAY).await.unwrap();
    store.journal_at("Repotted the fig tree on the balcony", T0 + 13.0 * DAY).await.unwrap();
    let r = store.consolidate().await.unwrap();
    assert_eq!(r.promoted.len(), 1, "{r:?}");
    assert!(peek(&store, &r.promoted[0]).await.unwrap().source.ends_with("12 similar journal entries in 3 episodes"));
}

/// A pattern an existing persona memory (of any domain) already states is not promoted:
/// the fact would repeat it and, matching its words, compete with it in search.
#[tokio::test]
async fn a_pattern_a_persona_memory_already_states_is_not_promoted() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/marco", "Marco plays bass in a jazz trio")).await.unwrap();
    journal_over_days(&store, 20, "Lunch with Marco; talked about playing bass.", &[3, 10, 17]).await;
    for d in [4.0, 11.0, 18.0] {
        store.journal_at(DOG_WALKS[0], T0 + d * DAY + 9_000.0).await.unwrap();
    }
    clock.set(T0 + 20.0 * DAY);
    let first = store.consolidate().await.unwrap();
    // The dog walks, which no memory states, are promoted: the rule is not "promote nothing".
    assert_eq!(first.promoted.len(), 1, "{first:?}");
    assert!(first.promoted[0].contains("dog"), "{first:?}");
    let events = store.stats().await.unwrap().events;
    let second = store.consolidate().await.unwrap();
    assert!(!second.changed(), "second cycle changed something: {second:?}\nfirst: {first:?}");
    assert_eq!(store.stats().await.unwrap().events, events);
}

/// Where `path` ranks in `hits` (0 first), if there.
fn rank_of(hits: &[memstr::SearchHit], path: &str) -> Option<usize> {
    hits.iter().position(|h| h.path == path)
}

/// The query with every copy of a repeated line shown (search shows one by default), so
/// each piece of evidence can be ranked.
fn every_copy(mut q: SearchQuery) -> SearchQuery {
    q.weights = Some(memstr::search::Weights { collapse_repeats: false, ..Default::default() });
    q
}

#[tokio::test]
async fn promoted_facts_rank_below_their_evidence_and_written_memories() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("music/facts/trio", "Marco plays bass in the jazz trio")).await.unwrap();
    let rehearsal = "Rehearsed with the jazz trio at the Blue Note";
    journal_over_days(&store, 20, rehearsal, &[2, 9, 16]).await;
    clock.set(T0 + 20.0 * DAY);
    let r = store.consolidate().await.unwrap();
    assert_eq!(r.promoted.len(), 1, "{r:?}");
    let fact = persona_path(&r.promoted[0]);
    let evidence: Vec<String> =
        [2.0, 9.0, 16.0].iter().map(|d| memstr::MemoryPath::journal(T0 + d * DAY + 7_200.0).to_d()).collect();

    // The written memory and the fact both contain the query's words.
    let hits = store.search(every_copy(SearchQuery::new("jazz trio").limit(20))).await.unwrap();
    let fact_rank = rank_of(&hits, &fact).expect("the promoted fact is found");
    let written = rank_of(&hits, &persona_path("music/facts/trio")).expect("the written memory is found");
    assert!(written < fact_rank, "written memory at {written}, promoted fact at {fact_rank}: {hits:#?}");
    for e in &evidence {
        let at = rank_of(&hits, e).expect("evidence found");
        assert!(at < fact_rank, "evidence {e} at {at}, promoted fact at {fact_rank}");
    }
    // A query only the evidence and the fact answer.
    let hits = store.search(every_copy(SearchQuery::new("blue note rehearsed").limit(20))).await.unwrap();
    let fact_rank = rank_of(&hits, &fact).expect("the promoted fact is found");
    assert_eq!(fact_rank, 3, "below its three entries: {hits:#?}");
    let demoted = &hits[fact_rank];
    assert!(hits[fact_rank - 1].score >= demoted.score, "scores stay in rank order");
}

#[tokio::test]
async fn consolidation_strengthens_co_retrieved_memories_and_links_similar_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea daily")).await.unwrap();
    store.persona_remember(input("people/facts/alice-tea-2", "Alice drinks green tea daily at noon")).await.unwrap();
    store.persona_remember(input("people/facts/bob-tea", "Bob brews oolong tea")).await.unwrap();
    store.search(SearchQuery::new("tea")).await.unwrap();
    let r = store.consolidate().await.unwrap();
    assert!(r.linked >= 1, "lexically similar memories get a semantic edge: {r:?}");
    assert!(r.strengthened >= 1, "{r:?}");
    assert!(r.edges >= 2, "{r:?}");
    let n = store.graph_neighbours("alice-tea").await.unwrap();
    assert!(n.iter().any(|x| x.edge == "semantic" && x.id == persona_path("people/facts/alice-tea-2")), "{n:#?}");
    assert!(n.iter().any(|x| x.edge == "co_activated"), "{n:#?}");
    // Days later, learned edges decay once per whole day.
    clock.set(T0 + 3.0 * DAY);
    let r = store.consolidate().await.unwrap();
    assert_eq!(r.decay_days, 3);
    let r = store.consolidate().await.unwrap();
    assert!(!r.changed(), "{r:?}");
}

/// TEST DOUBLE: an embedder that gives every text nearly the same vector (one shared
/// direction, nudged by a hash of the text), so every pair of memories is alike.
#[cfg(feature = "vectors")]
struct NearlyTheSame;

#[cfg(feature = "vectors")]
impl memstr::index::Embedder for NearlyTheSame {
    fn model_id(&self) -> &str {
        "nearly-the-same"
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let h = t.bytes().fold(1469598103934665603u64, |h, b| (h ^ b as u64).wrapping_mul(1099511628211));
                let v: Vec<f32> = (0..8).map(|i| 1.0 + 0.02 * (((h >> (i * 8)) & 0xff) as f32 / 255.0)).collect();
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

/// Semantic links per memory, from the graph.
async fn semantic_links(store: &MemoryStore, keys: &[String]) -> Vec<usize> {
    let mut out = Vec::new();
    for k in keys {
        let n = store.graph_neighbours(&format!("people/facts/{k}")).await.unwrap();
        out.push(n.iter().filter(|x| x.edge == "semantic").count());
    }
    out
}

/// A store of thousands of near-identical memories (templated lines, and an embedder that
/// puts them all at cosine > 0.99: every pair passes the link threshold) used to keep the
/// cycle, and `close()` waiting on it, busy for many minutes learning millions of links.
/// Each memory now gets at most `link_max_per_memory` links a cycle, and the cycle is quick.
#[cfg(feature = "vectors")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consolidation_of_near_identical_memories_is_bounded() {
    const N: usize = 2_500;
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let options = StoreOptions::default().clock(clock.clone()).lifecycle(quiet()).embedder(Arc::new(NearlyTheSame));
    let store = MemoryStore::open(dir.path().join("memstr.db"), test_identity(), options).await.unwrap();
    let keys: Vec<String> = (0..N).map(|i| format!("m{i:05}")).collect();
    for (i, k) in keys.iter().enumerate() {
        let value = format!("Alice prefers green tea on weekends (note {i})");
        store.persona_remember(input(&format!("people/facts/{k}"), &value)).await.unwrap();
    }
    store.index_pending().await.unwrap();
    let cap = LifecycleOptions::default().link_max_per_memory;
    assert_eq!(cap, memstr::lifecycle::LINK_MAX_PER_MEMORY);
    let started = std::time::Instant::now();
    let r = store.consolidate().await.unwrap();
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(60), "one cycle took {took:?}");
    assert!(r.linked > 0 && r.linked <= N * cap / 2, "{r:?}");
    let links = semantic_links(&store, &keys).await;
    assert!(links.iter().all(|&n| n <= cap), "max {:?} links for one memory", links.iter().max());
    // Near-identical memories all find their share: nearly every memory is linked to the cap.
    // (2,385 of 2,500 at the cap, none under 9, when written.)
    assert!(links.iter().all(|&n| n > 0), "every memory is linked");
    assert!(links.iter().filter(|&&n| n == cap).count() >= N * 9 / 10, "{:?}", &links[..20]);
    // Found again the next cycle: nothing changes, the bound holds.
    let again = store.consolidate().await.unwrap();
    assert!(!again.changed(), "{again:?}");
    // A further write and close(): the cycle close() waits for is bounded too.
    store.persona_remember(input("people/facts/late", "Alice prefers green tea on weekends (late)")).await.unwrap();
    let started = std::time::Instant::now();
    store.consolidate().await.unwrap();
    assert_eq!(semantic_links(&store, &["late".to_string()]).await, [cap]);
    store.close().await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// The same without a model: word overlap links every pair of templated lines.
#[tokio::test]
async fn consolidation_of_near_identical_memories_without_a_model_is_bounded() {
    const N: usize = 1_000;
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    let keys: Vec<String> = (0..N).map(|i| format!("m{i:05}")).collect();
    for (i, k) in keys.iter().enumerate() {
        let value = format!("Alice prefers green tea on weekends at home (note {i})");
        store.persona_remember(input(&format!("people/facts/{k}"), &value)).await.unwrap();
    }
    let started = std::time::Instant::now();
    let r = store.consolidate().await.unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
    let cap = LifecycleOptions::default().link_max_per_memory;
    assert!(r.linked > 0, "{r:?}");
    let links = semantic_links(&store, &keys).await;
    assert!(links.iter().all(|&n| n <= cap), "max {:?}", links.iter().max());
    store.close().await.unwrap();
}

/// Issue 26: a consolidation cycle never blocks a search. The cycle reads on a reader and
/// writes in short batches (here every memory changes state, so it signs thousands of new
/// versions), and search neither waits for the writer behind a whole cycle nor for the
/// lifecycle's locks: searches, whose hits count accesses (a write), finish one after
/// another while the cycle is still running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_finish_while_a_cycle_runs() {
    const N: usize = 2_000;
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    for i in 0..N {
        let value = format!("Note {i}: {} met {} about the {} project", ["Ana", "Ben", "Cy"][i % 3], i % 17, i % 29);
        store.persona_remember(input(&format!("people/facts/n{i:05}"), &value)).await.unwrap();
    }
    // Weeks later: every memory has faded, so the cycle's pruning writes each one.
    clock.set(T0 + 90.0 * DAY);
    let store = Arc::new(store);
    let s = store.clone();
    let started = std::time::Instant::now();
    let cycle = tokio::spawn(async move {
        let r = s.consolidate().await.unwrap();
        (r, std::time::Instant::now())
    });
    let mut during = Vec::new();
    while !cycle.is_finished() {
        let t = std::time::Instant::now();
        let hits = store.search(SearchQuery::new("Ana project")).await.unwrap();
        let (took, ended) = (t.elapsed(), std::time::Instant::now());
        assert!(!hits.is_empty());
        if !cycle.is_finished() {
            during.push((took, ended));
        }
    }
    let (report, cycle_ended) = cycle.await.unwrap();
    let cycle_took = cycle_ended - started;
    assert!(report.prune.transitions.len() >= N / 2, "{:?}", report.prune.transitions.len());
    // Searches finished before the cycle did: none waited for the whole of it.
    assert!(during.len() >= 3, "{} searches finished during a cycle of {cycle_took:?}", during.len());
    assert!(during.iter().all(|(_, ended)| *ended < cycle_ended));
    let longest = during.iter().map(|(t, _)| *t).max().unwrap();
    assert!(longest < cycle_took / 2, "a search took {longest:?} of a cycle of {cycle_took:?}");
    drop(store);
}

#[derive(Debug, Clone)]
enum Op {
    Journal(usize),
    Persona(usize, usize, usize),
    Connect(usize, usize),
    Search(usize),
    Advance(u32),
    Consolidate,
}

const JOURNAL: [&str; 5] = [
    "Walked the dog in the park before breakfast",
    "Walked the dog in the park before breakfast again",
    "Reviewed pull requests for the sync engine",
    "Reviewed pull requests for the sync engine today",
    "Called mum about the holiday plans",
];
const VALUES: [&str; 5] = [
    "Alice drinks green tea daily",
    "Alice drinks green tea daily at noon",
    // Overlaps the dog-walk entries, below the link threshold.
    "Dogs need long walks in the park",
    "The sync engine uses negentropy",
    "Bob brews oolong tea",
];
const THEMES: [&[&str]; 3] = [&["tea", "alice"], &["alice", "tea", "habits"], &["sync", "code"]];
const QUERIES: [&str; 3] = ["tea", "dog park", "sync engine"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..JOURNAL.len()).prop_map(Op::Journal),
        3 => (0..4usize, 0..VALUES.len(), 0..THEMES.len()).prop_map(|(k, v, t)| Op::Persona(k, v, t)),
        1 => (0..4usize, 0..4usize).prop_map(|(a, b)| Op::Connect(a, b)),
        2 => (0..QUERIES.len()).prop_map(Op::Search),
        1 => (0u32..72).prop_map(Op::Advance),
        1 => Just(Op::Consolidate),
    ]
}

async fn apply_ops(store: &MemoryStore, clock: &ManualClock, ops: &[Op]) {
    let key = |i: usize| format!("mem-{i}");
    for op in ops {
        match op {
            Op::Journal(i) => {
                store.journal(JOURNAL[*i]).await.unwrap();
            }
            Op::Persona(k, v, t) => {
                let p = PersonaInput::new("self", "facts", &key(*k), VALUES[*v]).themes(THEMES[*t].iter().copied());
                store.persona_remember(p).await.unwrap();
            }
            Op::Connect(a, b) => {
                // Either may not exist yet, or be the same memory: both are errors.
                let _ = store.persona_connect(&key(*a), &key(*b)).await;
            }
            Op::Search(q) => {
                store.search(SearchQuery::new(QUERIES[*q])).await.unwrap();
            }
            Op::Advance(hours) => clock.set(clock_now(clock) + *hours as f64 * 3600.0),
            Op::Consolidate => {
                store.consolidate().await.unwrap();
            }
        }
        // Entries in one second would share a timestamp path: keep time moving.
        clock.set(clock_now(clock) + 1.0);
    }
}

fn clock_now(clock: &ManualClock) -> f64 {
    use memstr::Clock;
    clock.now()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// A cycle run twice in a row changes nothing the second time: not the report, not the
    /// events.
    #[test]
    fn consolidation_is_idempotent(ops in proptest::collection::vec(op(), 1..14)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let dir = tempfile::tempdir().unwrap();
            let (store, clock) = open_quiet(dir.path(), T0).await;
            apply_ops(&store, &clock, &ops).await;
            let first = store.consolidate().await.unwrap();
            let events = store.stats().await.unwrap().events;
            let second = store.consolidate().await.unwrap();
            prop_assert!(!second.changed(), "second cycle changed something: {:?}\nfirst: {:?}\nops: {:?}", second, first, ops);
            prop_assert_eq!(second.edges, first.edges);
            prop_assert_eq!(store.stats().await.unwrap().events, events);
            Ok(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------
// 10. The knowledge graph
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn graph_neighbours_show_every_edge_kind() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/alice-tea", "Alice drinks green tea").themes(["drinks"])).await.unwrap();
    store.persona_remember(input("people/facts/alice-cats", "Alice has two cats")).await.unwrap();
    store.persona_remember(input("people/facts/alice-coffee", "Alice drinks coffee")).await.unwrap();
    store.persona_remember(input("people/facts/alice-decaf", "Alice switched to decaf")).await.unwrap();
    store.persona_connect("alice-tea", "alice-cats").await.unwrap();
    store.persona_contradict("alice-coffee", "alice-decaf").await.unwrap();

    let n = store.graph_neighbours("alice-tea").await.unwrap();
    let cats = n.iter().find(|x| x.id == persona_path("people/facts/alice-cats")).expect("connected memory");
    assert_eq!((cats.node.as_str(), cats.edge.as_str()), ("memory", "connection"));
    assert!(cats.weight > 0.0 && cats.weight <= 1.0);
    let theme = n.iter().find(|x| x.id == "theme:drinks").expect("theme node");
    assert_eq!((theme.node.as_str(), theme.edge.as_str()), ("theme", "shared_theme"));
    // Symmetric: the other side sees the connection too (by full address and by path).
    let back = store.graph_neighbours("people/facts/alice-cats").await.unwrap();
    assert!(back.iter().any(|x| x.id == persona_path("people/facts/alice-tea") && x.edge == "connection"));
    let by_path = store.graph_neighbours(&persona_path("people/facts/alice-cats")).await.unwrap();
    assert_eq!(by_path, back);

    let old = store.graph_neighbours("alice-coffee").await.unwrap();
    let decaf = persona_path("people/facts/alice-decaf");
    assert!(old.iter().any(|x| x.id == decaf && x.edge == "contradicts"), "{old:#?}");
    assert!(old.iter().any(|x| x.id == decaf && x.edge == "supersedes" && x.outgoing), "{old:#?}");
    let new = store.graph_neighbours("alice-decaf").await.unwrap();
    let coffee = persona_path("people/facts/alice-coffee");
    assert!(new.iter().any(|x| x.id == coffee && x.edge == "supersedes" && !x.outgoing), "{new:#?}");

    // Journal entries close in time are linked in order; far apart, not.
    store.journal_at("Started the graph work", T0 + 100.0).await.unwrap();
    store.journal_at("Finished the graph work", T0 + 700.0).await.unwrap();
    store.journal_at("Unrelated, days later", T0 + 5.0 * DAY).await.unwrap();
    let first = memstr::MemoryPath::journal(T0 + 100.0).to_d();
    let second = memstr::MemoryPath::journal(T0 + 700.0).to_d();
    let third = memstr::MemoryPath::journal(T0 + 5.0 * DAY).to_d();
    let n = store.graph_neighbours(&first).await.unwrap();
    assert!(n.iter().any(|x| x.id == second && x.edge == "temporal" && x.outgoing), "{n:#?}");
    let n = store.graph_neighbours(&second).await.unwrap();
    assert!(n.iter().any(|x| x.id == first && x.edge == "temporal" && !x.outgoing), "{n:#?}");
    assert!(!n.iter().any(|x| x.id == third), "{n:#?}");

    assert!(matches!(store.graph_neighbours("nobody").await, Err(Error::NotFound(_))));
}

#[tokio::test]
async fn search_explains_a_graph_signal_from_a_connected_strong_hit() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("travel/facts/lisbon", "Alice adores Lisbon sunsets")).await.unwrap();
    store.persona_remember(input("travel/facts/tram", "Tram 28 rattles past the cathedral")).await.unwrap();
    store.persona_remember(input("travel/facts/porto", "Porto sunsets over the Douro")).await.unwrap();
    store.persona_remember(input("travel/facts/paris", "Paris museums close on Tuesdays")).await.unwrap();
    store.persona_connect("lisbon", "tram").await.unwrap();

    // A memory the graph brings matches no word of the query: it has no strength of its
    // own and the default cutoff drops it (issue 12 point 4); the signal is tested without.
    // Graph activation is off by default (it did not earn its place on the benchmarks):
    // asked for with a weight.
    let mut q = SearchQuery::new("lisbon sunsets");
    q.min_strength = Some(0.0);
    q.weights = Some(memstr::search::Weights { graph: 0.2, ..Default::default() });
    assert!(!store.search(SearchQuery::new("lisbon sunsets")).await.unwrap().iter().any(|h| h.path.ends_with("/tram")));
    let hits = store.search(q).await.unwrap();
    let hit = |path: &str| hits.iter().find(|h| h.path == path);
    let graph = |path: &str| hit(path).and_then(|h| h.signals.iter().find(|s| s.name == "graph").cloned());
    let tram = graph(&persona_path("travel/facts/tram")).expect("the connected memory is found through the graph");
    assert!(tram.value > 0.0 && tram.rank == Some(1) && tram.contribution > 0.0, "{tram:?}");
    // It matched no word of the query: the graph brought it.
    let tram_hit = hit(&persona_path("travel/facts/tram")).unwrap();
    let matching = tram_hit.signals.iter().find(|s| s.name == "matching").unwrap();
    assert_eq!(matching.value, 0.0);
    assert!(matches!(&tram_hit.found, Found::Persona(p) if p.key == "tram"));
    // An unconnected weaker match gets nothing from the graph.
    let porto = graph(&persona_path("travel/facts/porto")).expect("graph signal present for every candidate");
    assert_eq!(porto.value, 0.0);
    assert!(hit(&persona_path("travel/facts/paris")).is_none());
    // Persona-only searches still carry the signal.
    let mut q = SearchQuery::new("lisbon sunsets").kinds(&[SearchKind::Persona]);
    q.min_strength = Some(0.0);
    q.weights = Some(memstr::search::Weights { graph: 0.2, ..Default::default() });
    let hits = store.search(q).await.unwrap();
    assert!(hits.iter().any(|h| h.path.ends_with("/tram")));
}

// ---------------------------------------------------------------------------------------
// 11. Automatic consolidation
// ---------------------------------------------------------------------------------------

async fn promoted(store: &MemoryStore) -> Vec<String> {
    all(store).await.into_iter().filter(|m| m.key.starts_with("recurring-")).map(|m| m.address()).collect()
}

/// A store in `dir` whose journal holds a pattern ready to promote (see
/// [`journal_over_days`]), written with no cycle run, then closed.
async fn prepare_recurring_journal(dir: &Path) {
    let (store, _) = open_quiet(dir, T0).await;
    journal_over_days(&store, 20, DOG_WALKS[0], &[2, 9, 16]).await;
    store.close().await.unwrap();
}

#[tokio::test]
async fn consolidation_runs_by_itself_every_n_writes() {
    let dir = tempfile::tempdir().unwrap();
    prepare_recurring_journal(dir.path()).await;
    let mut life = quiet();
    life.consolidate_every = 5;
    let (store, _) = open_with(dir.path(), T0 + 20.0 * DAY, life, None).await;
    for i in 0..4 {
        store.remember(&format!("k{i}"), "v").await.unwrap();
    }
    // Four writes: no cycle yet.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(promoted(&store).await.is_empty());
    // The fifth starts one in the background.
    store.remember("shell", "fish").await.unwrap();
    wait_for_one_promotion(&store, "no automatic consolidation after 5 writes").await;
}

#[tokio::test]
async fn settle_waits_for_the_background_cycle() {
    let dir = tempfile::tempdir().unwrap();
    prepare_recurring_journal(dir.path()).await;
    let mut life = quiet();
    life.consolidate_every = 1;
    let (store, _) = open_with(dir.path(), T0 + 20.0 * DAY, life, None).await;
    // Settling with no cycle running returns at once.
    store.settle().await;
    store.remember("shell", "fish").await.unwrap();
    // No polling: once settled, the cycle the write started has finished.
    store.settle().await;
    assert_eq!(promoted(&store).await.len(), 1, "settle returned before the automatic cycle ended");
}

#[tokio::test]
async fn no_automatic_consolidation_when_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    prepare_recurring_journal(dir.path()).await;
    let (store, _) = open_quiet(dir.path(), T0 + 20.0 * DAY).await;
    for i in 0..60 {
        store.remember(&format!("k{i}"), "v").await.unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(promoted(&store).await.is_empty());
    // The entries do recur: a cycle run by hand promotes them.
    assert_eq!(store.consolidate().await.unwrap().promoted.len(), 1);
}

// ---------------------------------------------------------------------------------------
// Importance and salience (seed 000)
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn importance_slows_decay_and_ingest_measures_salience() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/plain", "Alice likes tea")).await.unwrap();
    store
        .persona_remember(input("people/facts/vital", "Alice is allergic to penicillin").importance(1.0))
        .await
        .unwrap();
    clock.set(T0 + 60.0 * DAY);
    let now = T0 + 60.0 * DAY;
    let plain = peek(&store, "people/facts/plain").await.unwrap();
    let vital = peek(&store, "people/facts/vital").await.unwrap();
    // Two halflives for the plain memory; importance 1 doubles the halflife: one.
    assert!((store.live(&plain, now).0 - 0.25).abs() < 1e-9);
    assert!((store.live(&vital, now).0 - 0.5).abs() < 1e-9);
    assert_eq!(vital.sync.life.importance, Some(1.0));

    // Out of range is a typed validation error naming the field.
    let err = store.persona_remember(input("people/facts/bad", "x").importance(1.5)).await.unwrap_err();
    assert!(matches!(err, memstr::Error::Validation(ref v) if v.field == "importance"), "{err:?}");

    // Novel content ingested through the gate gets a salience; a near-copy of it scores
    // lower novelty, so less salience.
    let novel = store
        .persona_ingest(input("world/facts/volcano", "Mount Etna erupted twice during the spring expedition"))
        .await
        .unwrap();
    assert_eq!(novel.decision, GateDecision::Create);
    let s1 = peek(&store, "world/facts/volcano").await.unwrap().sync.life.salience.unwrap();
    assert!(s1 > 0.4 && s1 <= 1.0, "{s1}");
    let related = store.persona_ingest(input("world/facts/volcano-2", "Etna erupted last spring")).await.unwrap();
    assert_eq!(related.decision, GateDecision::Create);
    let s2 = peek(&store, "world/facts/volcano-2").await.unwrap().sync.life.salience.unwrap();
    assert!(s2 < s1, "{s2} !< {s1}");
}

// ---------------------------------------------------------------------------------------
// Regressions from the review of the lifecycle code
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn recurrence_reaches_entries_older_than_one_batch() {
    // Consolidation examines 1,000 journal entries a cycle: the oldest unexamined first,
    // so a pattern among the earliest of 1,200 is found and the later cycles add nothing.
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    for day in [0.0, 5.0, 10.0] {
        store.journal_at("Watered the tomato plants on the balcony", T0 + day * DAY).await.unwrap();
    }
    for i in 0..1_200 {
        let at = T0 + 10.0 + f64::from(i % 20) * DAY + f64::from(i);
        store.journal_at(&format!("entry {i} about topic q{i}x"), at).await.unwrap();
    }
    clock.set(T0 + 21.0 * DAY);
    let mut promoted = Vec::new();
    for _ in 0..3 {
        promoted.extend(store.consolidate().await.unwrap().promoted);
    }
    assert_eq!(promoted.len(), 1, "{promoted:?}");
    assert!(promoted[0].contains("tomato"), "{promoted:?}");
}

#[tokio::test]
async fn a_pattern_seen_more_than_twenty_times_is_promoted_once() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    let meeting = |i: u32| format!("Stand-up meeting with the platform team, day {i}");
    // Every fifth day: on a fifth of the journal's days, not routine.
    for d in 0..125u32 {
        let day = T0 + f64::from(d) * DAY;
        store.journal_at(&format!("entry {d} about topic q{d}x"), day + 3_600.0).await.unwrap();
        if d % 5 == 0 {
            store.journal_at(&meeting(d / 5), day + 7_200.0).await.unwrap();
        }
    }
    clock.set(T0 + 130.0 * DAY);
    let first = store.consolidate().await.unwrap();
    assert_eq!(first.promoted.len(), 1, "{first:?}");
    for i in 25..30 {
        store.journal_at(&meeting(i), T0 + f64::from(i * 5) * DAY + 7_200.0).await.unwrap();
    }
    let again = store.consolidate().await.unwrap();
    assert!(again.promoted.is_empty(), "{again:?}");
}

#[tokio::test]
async fn rewriting_a_dissolved_memory_restarts_its_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/carol", "Carol collects stamps")).await.unwrap();
    clock.set(T0 + 300.0 * DAY);
    store.persona_prune().await.unwrap();
    assert!(peek(&store, "people/facts/carol").await.unwrap().sync.life.dissolved_at.is_some());
    // Rewritten 10 days later: alive again, the mark goes.
    clock.set(T0 + 310.0 * DAY);
    store.persona_remember(input("people/facts/carol", "Carol collects stamps and coins")).await.unwrap();
    assert_eq!(peek(&store, "people/facts/carol").await.unwrap().sync.life.dissolved_at, None);
    // Dissolved again much later: the first prune marks it and does not delete it.
    clock.set(T0 + 700.0 * DAY);
    let r = store.persona_prune().await.unwrap();
    assert!(r.deleted.is_empty(), "{r:?}");
    assert!(peek(&store, "people/facts/carol").await.is_some());
}

#[tokio::test]
async fn the_store_remembers_its_decay_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_with(dir.path(), T0, quiet(), Some(Arc::new(Fsrs6::default()))).await;
    store.persona_remember(input("people/facts/dave", "Dave runs marathons")).await.unwrap();
    store.close().await.unwrap();
    // Reopened without naming a policy: still FSRS-6 (halflife would say forgotten here).
    let (store, _) = open_with(dir.path(), T0 + 100.0 * DAY, quiet(), None).await;
    let m = peek(&store, "people/facts/dave").await.unwrap();
    let (relevance, state) = store.live(&m, T0 + 100.0 * DAY);
    let fsrs = Fsrs6::default().relevance(&m, T0 + 100.0 * DAY);
    assert_eq!(relevance, fsrs);
    assert_eq!(state, MemoryState::Fading);
}

#[tokio::test]
async fn consolidation_runs_by_itself_when_the_store_is_idle() {
    let dir = tempfile::tempdir().unwrap();
    prepare_recurring_journal(dir.path()).await;
    let mut life = quiet();
    life.consolidate_idle = Some(std::time::Duration::from_millis(200));
    let (store, _) = open_with(dir.path(), T0 + 20.0 * DAY, life, None).await;
    // Writes keep coming for a while: no cycle while they do.
    for i in 0..5 {
        store.remember(&format!("k{i}"), "v").await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(promoted(&store).await.is_empty());
    // Then the store is quiet: a cycle runs by itself.
    wait_for_one_promotion(&store, "no consolidation after the store went idle").await;
}

/// The issue's case, measured (not tuned on): six months of an agent's journal, about
/// 2,000 entries loaded in order with a cycle every 50 writes. Template lines (a daily
/// standup with a varying topic, an identical daily check, lunches with varying people,
/// a weekly identical lunch with Marco), a burst, filler, two patterns no memory states
/// and one a persona memory states. Prints what was promoted and where the written
/// answers rank. `cargo test --test lifecycle -- --ignored --nocapture six_months`
#[tokio::test]
#[ignore]
async fn six_months_of_templated_journal() {
    // Seed 1 was looked at while setting MIN_SHARED_SHARE; seed 2 was not (held out).
    for seed in [0x2545_f491_4f6c_dd1d_u64, 0x9e37_79b9_7f4a_7c15] {
        println!("seed {seed:#x}");
        six_months(seed).await;
    }
}

async fn six_months(mut seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_quiet(dir.path(), T0).await;
    store.persona_remember(input("people/facts/marco", "Marco plays bass in a jazz trio")).await.unwrap();
    store.persona_remember(input("people/facts/rosa", "Grandma Rosa grows tomatoes in her garden")).await.unwrap();
    let topics = ["deploy", "migration", "release", "outage", "roadmap", "budget", "hiring", "oncall"];
    let people = ["Ana", "Ben", "Chloe", "Dev", "Emre", "Fatima"];
    let subjects = ["travel", "movies", "football", "cooking", "books", "weather"];
    let vocab: Vec<String> = (0..400).map(|i| format!("w{}z{}", i * 7 % 400, i % 13)).collect();
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut writes = 0;
    let mut entries: Vec<(f64, String)> = Vec::new();
    for d in 0..180u32 {
        let day = T0 + f64::from(d) * DAY;
        let h = |x: f64| day + x * 3_600.0;
        entries.push((h(9.0), format!("Daily standup: discussed the {}.", topics[next(topics.len())])));
        entries.push((h(9.5), "Checked the CI dashboard; all green.".into()));
        if d % 7 < 3 {
            let (p, s) = (people[next(people.len())], subjects[next(subjects.len())]);
            entries.push((h(12.5), format!("Lunch with {p}; talked about {s}.")));
        }
        if d % 7 == 4 {
            entries.push((h(12.5), "Lunch with Marco; talked about playing bass.".into()));
        }
        for k in 0..7 {
            let w: Vec<&str> = (0..4).map(|_| vocab[next(vocab.len())].as_str()).collect();
            entries.push((h(10.0 + f64::from(k)), format!("Worked on {} {} {} {}", w[0], w[1], w[2], w[3])));
        }
        if [20, 61, 130].contains(&d) {
            entries.push((h(18.0), "Fed the neighbour's cat Miso while they travel".into()));
        }
        if [33, 34, 90].contains(&d) {
            entries.push((h(19.0), "Replaced the bike chain at the Velo workshop".into()));
        }
        if [15, 45, 100, 150].contains(&d) {
            entries.push((h(20.0), "Called grandma Rosa about her garden".into()));
        }
        if d == 50 {
            for i in 0..8 {
                entries.push((h(21.0) + f64::from(i) * 200.0, "Restarted the flaky integration runner".into()));
            }
        }
    }
    for (at, text) in &entries {
        store.journal_at(text, *at).await.unwrap();
        writes += 1;
        if writes % 50 == 0 {
            clock.set(*at + 1.0);
            store.consolidate().await.unwrap();
        }
    }
    clock.set(T0 + 181.0 * DAY);
    store.consolidate().await.unwrap();
    println!("journal entries: {}", entries.len());
    let facts = promoted(&store).await;
    println!("promoted ({}):", facts.len());
    for f in &facts {
        println!("  {f}: {}", peek(&store, f).await.unwrap().value);
    }
    for (q, answer) in [
        ("What does Marco play?", "people/facts/marco"),
        ("Marco bass", "people/facts/marco"),
        ("grandma Rosa garden", "people/facts/rosa"),
    ] {
        let hits = store.search(SearchQuery::new(q).limit(100)).await.unwrap();
        let at = rank_of(&hits, &persona_path(answer));
        let first_fact =
            hits.iter().position(|h| matches!(&h.found, Found::Persona(p) if p.key.starts_with("recurring-")));
        println!("{q:?}: answer {answer} at rank {at:?}; first promoted fact at {first_fact:?}");
    }
    for q in ["neighbour cat Miso", "bike chain Velo"] {
        let hits = store.search(SearchQuery::new(q).limit(100)).await.unwrap();
        let first_entry = hits.iter().position(|h| matches!(h.found, Found::Journal(_)));
        let first_fact =
            hits.iter().position(|h| matches!(&h.found, Found::Persona(p) if p.key.starts_with("recurring-")));
        println!("{q:?}: first journal entry at {first_entry:?}; first promoted fact at {first_fact:?}");
    }
}
