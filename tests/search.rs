//! The unified search, with the real embedding model (installed on first use by
//! scripts/models/fetch.sh) and without one.

mod support;

use std::sync::Arc;

use memstr::index::{Embedder, OnnxEmbedder};
use memstr::search::{Kind, SearchQuery};
use memstr::{Found, ManualClock, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};
use support::*;

const T0: f64 = 1_800_000_000.0;
const DAY: f64 = 86_400.0;

fn model() -> Arc<dyn Embedder> {
    static E: std::sync::OnceLock<Arc<OnnxEmbedder>> = std::sync::OnceLock::new();
    E.get_or_init(|| Arc::new(onnx_embedder())).clone()
}

async fn open(dir: &std::path::Path, embedder: Option<Arc<dyn Embedder>>) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let mut opts = StoreOptions::default().clock(clock.clone());
    if let Some(e) = embedder {
        opts = opts.embedder(e);
    }
    (MemoryStore::open(dir.join("memstr.db"), test_identity(), opts).await.unwrap(), clock)
}

async fn fill(store: &MemoryStore) {
    store.journal_at("We adopted a puppy named Biscuit last spring", T0 - 30.0 * DAY).await.unwrap();
    store.journal_at("The quarterly budget review is on Friday", T0 - 2.0 * DAY).await.unwrap();
    store.remember("wifi-password", "correct horse battery staple").await.unwrap();
    store
        .persona_remember(
            PersonaInput::new("people", "facts", "alice-dark-mode", "Alice prefers dark editor themes").themes(["ui"]),
        )
        .await
        .unwrap();
}

fn texts(hits: &[memstr::SearchHit]) -> Vec<String> {
    hits.iter().map(|h| h.found.text()).collect()
}

#[tokio::test]
async fn meaning_is_found_without_shared_words() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    let hits = store.search(SearchQuery::new("dog")).await.unwrap();
    assert!(texts(&hits)[0].contains("puppy"), "{:?}", texts(&hits));
    let hits = store.search(SearchQuery::new("network login credentials")).await.unwrap();
    assert!(texts(&hits)[0].contains("wifi-password"), "{:?}", texts(&hits));
}

#[tokio::test]
async fn every_hit_explains_its_score() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    let hits = store.search(SearchQuery::new("dark theme")).await.unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        let sum: f64 = h.signals.iter().map(|s| s.contribution).sum();
        assert!((sum - h.score).abs() < 1e-12, "{h:?}");
        assert!(h.signals.iter().any(|s| s.name == "matching" && s.rank.is_some()));
    }
}

#[tokio::test]
async fn filters_restrict_kind_domain_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    // Two topics in one query: each entry matches half of it, weakly, and the filters are
    // what is tested here, not the cutoff.
    let mut both = SearchQuery::new("budget puppy").kinds(&[Kind::Journal]);
    both.min_strength = Some(0.0);
    let journal = store.search(both).await.unwrap();
    assert!(journal.iter().all(|h| matches!(h.found, Found::Journal(_))) && journal.len() == 2);
    let mut recent = SearchQuery::new("budget puppy").kinds(&[Kind::Journal]);
    recent.min_strength = Some(0.0);
    recent.since = Some(T0 - 7.0 * DAY);
    let recent = store.search(recent).await.unwrap();
    assert_eq!(texts(&recent), ["The quarterly budget review is on Friday"]);
    let mut people = SearchQuery::new("dark");
    people.domain = Some("people".into());
    let people = store.search(people).await.unwrap();
    assert!(!people.is_empty() && people.iter().all(|h| matches!(h.found, Found::Persona(_))), "{:?}", texts(&people));
}

#[tokio::test]
async fn the_index_persists_and_is_rebuilt_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    assert_eq!(store.index_pending().await.unwrap(), 4);
    store.close().await.unwrap();
    let saved = dir.path().join("memstr.db.vectors");
    assert!(saved.join("meta.json").exists());
    // Reopened: nothing is embedded again.
    let (store, _) = open(dir.path(), Some(model())).await;
    assert_eq!(store.index_pending().await.unwrap(), 0);
    assert!(texts(&store.search(SearchQuery::new("dog")).await.unwrap())[0].contains("puppy"));
    drop(store);
    // The saved index gone: rebuilt from the vectors in SQLite, still without re-embedding.
    std::fs::remove_dir_all(&saved).unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    assert_eq!(store.index_pending().await.unwrap(), 0);
    assert!(texts(&store.search(SearchQuery::new("dog")).await.unwrap())[0].contains("puppy"));
}

#[tokio::test]
async fn a_damaged_or_old_format_index_is_rebuilt_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    assert_eq!(store.index_pending().await.unwrap(), 4);
    store.close().await.unwrap();
    let saved = dir.path().join("memstr.db.vectors");
    let graph = saved.join("graph.bin");
    // A link overwritten with garbage and the file cut short: the loader's checks refuse it.
    let mut bytes = std::fs::read(&graph).unwrap();
    let len = bytes.len();
    bytes[len - 40..].fill(0xEE);
    std::fs::write(&graph, &bytes[..len - 7]).unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    assert_eq!(store.index_pending().await.unwrap(), 0);
    assert!(texts(&store.search(SearchQuery::new("dog")).await.unwrap())[0].contains("puppy"));
    store.close().await.unwrap();
    assert_eq!(std::fs::metadata(&graph).unwrap().len() as usize, len, "rebuilt and saved whole");
    // An index whose meta names the format hnsw_rs wrote (3) is rebuilt too, though a
    // readable graph file sits beside it: the format alone decides.
    let meta_path = saved.join("meta.json");
    let format = |path: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(path).unwrap()).unwrap()["format"].clone()
    };
    let current = format(&meta_path);
    assert!(current.as_u64().is_some_and(|f| f > 3), "{current}");
    let mut meta: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    meta["format"] = serde_json::json!(3);
    std::fs::write(&meta_path, serde_json::to_vec(&meta).unwrap()).unwrap();
    std::fs::write(saved.join("vectors.hnsw.graph"), b"hnsw_rs bytes").unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    assert_eq!(store.index_pending().await.unwrap(), 0);
    assert!(texts(&store.search(SearchQuery::new("dog")).await.unwrap())[0].contains("puppy"));
    store.close().await.unwrap();
    assert_eq!(format(&meta_path), current, "rebuilt and saved in the current format");
    assert!(graph.exists() && !saved.join("vectors.hnsw.graph").exists());
}

/// TEST DOUBLE: a deterministic "model" with another name, to check that vectors of one
/// model are never mixed with another's.
struct OtherModel;

impl Embedder for OtherModel {
    fn model_id(&self) -> &str {
        "other-model"
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = [0f32; 8];
                for (i, b) in t.bytes().enumerate() {
                    v[i % 8] += b as f32;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

#[tokio::test]
async fn another_model_re_embeds_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    store.index_pending().await.unwrap();
    store.close().await.unwrap();
    let (store, _) = open(dir.path(), Some(Arc::new(OtherModel))).await;
    assert_eq!(store.index_pending().await.unwrap(), 4, "every record embedded again by the new model");
    assert_eq!(store.search(SearchQuery::new("puppy")).await.unwrap().len(), 4);
}

#[tokio::test]
async fn without_a_model_search_still_works_on_words_and_lifecycle() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    fill(&store).await;
    assert!(!store.has_vectors());
    let hits = store.search(SearchQuery::new("puppy")).await.unwrap();
    assert_eq!(texts(&hits), ["We adopted a puppy named Biscuit last spring"]);
    assert!(store.search(SearchQuery::new("dog")).await.unwrap().is_empty(), "no words in common, no vectors");
}

#[tokio::test]
async fn retrieval_strengthens_persona_memories_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    store.index_pending().await.unwrap(); // publishes the persona memory's embedding first
    let events = store.stats().await.unwrap().events;
    clock.set(T0 + 40.0 * DAY);
    for _ in 0..3 {
        store.search(SearchQuery::new("editor colours")).await.unwrap();
    }
    let m = store.persona_peek(PersonaQuery::exact("people", "facts", "alice-dark-mode")).await.unwrap().pop().unwrap();
    assert_eq!((m.access_count, m.last_accessed), (3, T0 + 40.0 * DAY));
    assert_eq!(store.stats().await.unwrap().events, events, "nothing signed per search");
    assert_eq!(store.flush_accesses().await.unwrap(), 1, "one event for three reads");
    let mut quiet = SearchQuery::new("editor colours");
    quiet.strengthen = false;
    store.search(quiet).await.unwrap();
    let m = store.persona_peek(PersonaQuery::exact("people", "facts", "alice-dark-mode")).await.unwrap().pop().unwrap();
    assert_eq!(m.access_count, 3);
}

/// TEST DOUBLE: the real model, counting the texts it is asked to embed.
struct Counting(Arc<dyn Embedder>, std::sync::atomic::AtomicUsize);

impl Embedder for Counting {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dims(&self) -> usize {
        self.0.dims()
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        self.1.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
        self.0.embed(texts)
    }
}

#[tokio::test]
async fn a_second_device_reuses_published_embeddings() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = open(da.path(), Some(model())).await;
    a.persona_remember(PersonaInput::new("people", "facts", "alice-dark-mode", "Alice prefers dark editor themes"))
        .await
        .unwrap();
    a.persona_remember(PersonaInput::new("pets", "facts", "biscuit", "Our puppy is called Biscuit")).await.unwrap();
    a.journal("a journal entry is not published as an embedding").await.unwrap();
    assert_eq!(a.index_pending().await.unwrap(), 3);
    assert!(a.embedding("biscuit").await.unwrap().is_some(), "published as sense-memory/embed/biscuit");
    let counting = Arc::new(Counting(model(), std::sync::atomic::AtomicUsize::new(0)));
    let (b, _) = open(db.path(), Some(counting.clone())).await;
    b.import_events(a.export_events().await.unwrap()).await.unwrap();
    assert_eq!(b.index_pending().await.unwrap(), 3, "every record indexed");
    assert_eq!(counting.1.load(std::sync::atomic::Ordering::SeqCst), 1, "only the journal entry was embedded");
    let found = texts(&b.search(SearchQuery::new("dog")).await.unwrap());
    assert!(found[0].contains("Biscuit"), "{found:?}");
    // A changed memory is embedded again, not matched to the stale published vector.
    b.persona_remember(PersonaInput::new("pets", "facts", "biscuit", "Biscuit learned to fetch")).await.unwrap();
    b.index_pending().await.unwrap();
    // journal entry + the query "dog" (no second hop by default) + the changed memory.
    assert_eq!(counting.1.load(std::sync::atomic::Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_large_journal_does_not_crowd_persona_memories_out_of_persona_search() {
    let dir = tempfile::tempdir().unwrap();
    // No automatic consolidation: a cycle promoting the recurring entries mid-test would
    // make the result depend on timing.
    let mut life = memstr::LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let opts = StoreOptions::default().clock(Arc::new(ManualClock::new(T0))).embedder(model()).lifecycle(life);
    let store = MemoryStore::open(dir.path().join("memstr.db"), test_identity(), opts).await.unwrap();
    for i in 0..400 {
        store
            .journal_at(&format!("Alice switched her editor to dark mode again, day {i}"), T0 + f64::from(i))
            .await
            .unwrap();
    }
    store
        .persona_remember(PersonaInput::new("people", "facts", "alice-theme", "Alice likes a dark colour scheme"))
        .await
        .unwrap();
    let hits = store.persona_search("Alice dark mode editor", 5).await.unwrap();
    assert!(
        hits.iter().any(|h| h.memory.key == "alice-theme"),
        "{:?}",
        hits.iter().map(|h| &h.memory.key).collect::<Vec<_>>()
    );
    // The same with the kind filter of the general search: persona memories only.
    let only = store.search(SearchQuery::new("Alice dark mode editor").kinds(&[Kind::Persona])).await.unwrap();
    assert!(only.iter().all(|h| matches!(h.found, Found::Persona(_))));
    assert!(only.iter().any(|h| h.path.ends_with("/alice-theme")), "{:?}", texts(&only));
}

#[tokio::test]
async fn the_vector_index_files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    store.search(SearchQuery::new("puppy")).await.unwrap();
    store.close().await.unwrap();
    let index = dir.path().join("memstr.db.vectors");
    assert!(index.is_dir(), "the index was saved");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&index), 0o700, "{}", index.display());
    for f in std::fs::read_dir(&index).unwrap() {
        let f = f.unwrap().path();
        assert_eq!(mode(&f), 0o600, "{}", f.display());
    }
}

// ---------------------------------------------------------------------------------------
// Embeddings off the critical path (issue 12 point 5, issue 13 point 3)
// ---------------------------------------------------------------------------------------

/// A store without automatic consolidation, whose own embedding pass would race a test's
/// counts.
async fn open_quiet(dir: &std::path::Path) -> MemoryStore {
    let mut life = memstr::LifecycleOptions::default();
    life.consolidate_every = 0;
    life.consolidate_idle = None;
    let opts = StoreOptions::default().clock(Arc::new(ManualClock::new(T0))).embedder(model()).lifecycle(life);
    MemoryStore::open(dir.join("memstr.db"), test_identity(), opts).await.unwrap()
}

/// A search after a bulk load embeds at most its budget, newest first, and still finds
/// an old, unembedded record by its words.
#[tokio::test]
async fn a_search_embeds_at_most_its_budget_and_finds_the_unembedded_by_their_words() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_quiet(dir.path()).await;
    // The oldest record: the last a newest-first budget would reach.
    store.journal_at("The zeppelin hangar in Friedrichshafen smelled of varnish", T0 - 600.0).await.unwrap();
    for i in 0..499 {
        store
            .journal_at(&format!("Routine standup note number {i} about tickets"), T0 - 500.0 + i as f64)
            .await
            .unwrap();
    }
    let before = store.pending_embeddings().await.unwrap();
    assert_eq!(before, 500);
    let hits = store.search(SearchQuery::new("zeppelin hangar")).await.unwrap();
    // Found by its words alone: the budget took the newest 32, never this one.
    let found = |hits: &[memstr::SearchHit]| texts(hits).iter().any(|t| t.contains("Friedrichshafen"));
    assert!(found(&hits), "{:?}", texts(&hits));
    let after = store.pending_embeddings().await.unwrap();
    let embedded = before - after;
    assert!(embedded > 0 && embedded <= memstr::SEARCH_EMBED_BUDGET, "a search embedded {embedded} records");
    // The rest waits for an explicit pass, which embeds everything.
    let report = store.embed_pending(None, |_, _| {}).await.unwrap();
    assert_eq!((report.embedded, report.remaining), (after, 0));
    assert_eq!(store.pending_embeddings().await.unwrap(), 0);
    let hits = store.search(SearchQuery::new("zeppelin hangar")).await.unwrap();
    assert!(found(&hits), "{:?}", texts(&hits));
}

/// A search signs nothing: embedding events of persona memories it embeds wait, marked,
/// for the next `embed_pending`, which signs them; no consolidation starts either.
#[tokio::test]
async fn a_search_signs_nothing_and_embed_pending_signs_what_it_deferred() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    // Fewer writes than trigger a consolidation (50), more than one search's budget (32).
    for i in 0..40 {
        store
            .persona_remember(PersonaInput::new(
                "work",
                "facts",
                &format!("project-{i}"),
                &format!("Project {i} ships in spring"),
            ))
            .await
            .unwrap();
    }
    let before = store.stats().await.unwrap();
    let mut changes = store.changes();
    changes.borrow_and_update();
    for query in ["project ships", "spring", "when does project 7 ship"] {
        let mut q = SearchQuery::new(query);
        q.strengthen = false;
        store.search(q).await.unwrap();
    }
    let after = store.stats().await.unwrap();
    assert_eq!((after.events, after.outbox, after.embed), (before.events, before.outbox, before.embed));
    assert!(!changes.has_changed().unwrap(), "a search announced a change");
    assert_eq!(store.pending_embeddings().await.unwrap(), 0, "three searches embedded all 40");
    // Their embedding events are signed now, by the pass meant for it.
    let report = store.embed_pending(None, |_, _| {}).await.unwrap();
    assert_eq!((report.embedded, report.published), (0, 40), "{report:?}");
    assert!(store.embedding("project-39").await.unwrap().is_some());
    assert_eq!(store.stats().await.unwrap().embed, 40);
}

/// `embed_pending` reports progress batch by batch, ending at the total.
#[tokio::test]
async fn embed_pending_reports_progress_up_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_quiet(dir.path()).await;
    for i in 0..150 {
        store.journal_at(&format!("Entry {i}"), T0 - 200.0 + i as f64).await.unwrap();
    }
    let mut seen = Vec::new();
    let report = store.embed_pending(Some(100), |done, total| seen.push((done, total))).await.unwrap();
    // Batches of 64 (the pipeline's EMBED_BATCH), the last one cut to the limit.
    assert_eq!(seen, vec![(64, 100), (100, 100)]);
    assert_eq!((report.embedded, report.remaining), (100, 50));
}

/// The background task embeds records as they are written, without any search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_embedding_embeds_new_records_without_a_search() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    store.journal_at("Written before the task started", T0 - 10.0).await.unwrap();
    let task = store.spawn_background_embedding();
    assert!(task.is_running());
    for i in 0..40 {
        store.journal_at(&format!("Written while it runs, number {i}"), T0 + i as f64).await.unwrap();
    }
    store.persona_remember(PersonaInput::new("people", "facts", "bob-tea", "Bob drinks green tea")).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while store.pending_embeddings().await.unwrap() > 0 {
        assert!(std::time::Instant::now() < deadline, "background embedding did not catch up");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Signed by the background pass (a write path), not left for a search.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while store.embedding("bob-tea").await.unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "the persona memory's embedding event was never signed");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    drop(task);
    // Without a task, a new record waits.
    store.journal_at("Written after the task stopped", T0 + 100.0).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(store.pending_embeddings().await.unwrap(), 1);
}

#[tokio::test]
async fn only_the_process_holding_the_index_lock_saves_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let other: Arc<dyn Embedder> = Arc::new(OtherModel);
    let (owner, _) = open(dir.path(), Some(other.clone())).await;
    fill(&owner).await;
    assert_eq!(owner.index_pending().await.unwrap(), 4);
    assert!(owner.owns_vector_index());
    // A second handle on the same file (another process, as far as flock goes: a lock
    // belongs to an open file description) cannot take the lock.
    let (second, _) = open(dir.path(), Some(other.clone())).await;
    assert!(!second.owns_vector_index(), "the lock is taken by the first handle");
    second.journal_at("Our second puppy is called Pretzel", T0).await.unwrap();
    assert_eq!(second.index_pending().await.unwrap(), 1);
    let hits = second.search(SearchQuery::new("Pretzel puppy")).await.unwrap();
    assert!(texts(&hits)[0].contains("Pretzel"), "the second handle still searches: {:?}", texts(&hits));
    second.close().await.unwrap();
    let saved = dir.path().join("memstr.db.vectors");
    assert!(!saved.exists(), "the handle without the lock saved the index");
    owner.close().await.unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(saved.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["points"], 4, "the owner saved its own points");
    // The owner gone, the lock is free: the next handle owns the index, and its loader
    // adds the point the second handle left in SQLite and saves it.
    let (next, _) = open(dir.path(), Some(other)).await;
    assert!(next.owns_vector_index());
    assert_eq!(next.index_pending().await.unwrap(), 0);
    next.close().await.unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(saved.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["points"], 5);
    assert!(dir.path().join("memstr.db.vectors.lock").exists());
}

#[tokio::test]
async fn repeated_journal_lines_take_one_place_in_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    for i in 0..10 {
        store.journal_at("Reminded Dana about paying rent.", T0 - f64::from(i) * DAY).await.unwrap();
    }
    store.journal_at("Dana pays the rent by bank transfer on the 1st", T0 - 40.0 * DAY).await.unwrap();
    let mut q = SearchQuery::new("how does Dana pay the rent").limit(3);
    q.strengthen = false;
    let hits = store.search(q.clone()).await.unwrap();
    let t = texts(&hits);
    assert_eq!(t.iter().filter(|x| x.contains("Reminded")).count(), 1, "{t:?}");
    assert!(t.iter().any(|x| x.contains("bank transfer")), "{t:?}");
    // Without collapsing, the copies crowd the answer out of the first places.
    q.weights = Some(memstr::search::Weights { collapse_repeats: false, ..Default::default() });
    let t = texts(&store.search(q).await.unwrap());
    assert!(t.iter().filter(|x| x.contains("Reminded")).count() > 1, "{t:?}");
}

// The cutoff (issue 12 point 4): a search about something the store does not hold returns
// nothing, not its least bad `limit` records.

#[tokio::test]
async fn a_query_about_an_absent_topic_returns_nothing_on_words_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    fill(&store).await;
    // "spring" and "review" are in the store; the informative words are not ("in spring"
    // would name a season, a time, not a word to match).
    for q in ["quantum chromodynamics lattice spacing for spring", "who won the 1958 world cup review"] {
        let mut all = SearchQuery::new(q);
        all.min_strength = Some(0.0);
        assert!(!store.search(all).await.unwrap().is_empty(), "{q}: a weak candidate exists");
        assert!(store.search(SearchQuery::new(q)).await.unwrap().is_empty(), "{q}: it is cut");
    }
}

#[tokio::test]
async fn a_query_about_an_absent_topic_returns_nothing_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    fill(&store).await;
    let q = "quantum chromodynamics lattice spacing";
    let mut all = SearchQuery::new(q);
    all.min_strength = Some(0.0);
    let weak = store.search(all).await.unwrap();
    assert!(!weak.is_empty(), "the vector index returns its nearest, however far");
    assert!(weak.iter().all(|h| h.strength < memstr::search::MIN_STRENGTH), "{weak:?}");
    assert!(store.search(SearchQuery::new(q)).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_real_match_is_kept_with_and_without_the_model() {
    for embedder in [None, Some(model())] {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open(dir.path(), embedder).await;
        fill(&store).await;
        let hits = store.search(SearchQuery::new("when did we adopt the puppy Biscuit")).await.unwrap();
        assert_eq!(texts(&hits)[0], "We adopted a puppy named Biscuit last spring");
        let min = memstr::search::min_strength(store.has_vectors());
        assert!(hits[0].strength >= min && hits[0].strength <= 1.0, "{}", hits[0].strength);
        assert!(hits.iter().all(|h| h.strength >= min), "nothing below the cutoff is returned");
    }
}

#[tokio::test]
async fn hits_below_the_cutoff_are_not_counted_as_accesses() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    fill(&store).await;
    // "alice" matches the persona memory; the rest of the query matches nothing.
    let q = "alice quantum chromodynamics lattice spacing gluon hadron renormalisation";
    let mut all = SearchQuery::new(q);
    all.min_strength = Some(0.0);
    all.strengthen = false;
    let weak = store.search(all).await.unwrap();
    assert!(weak.iter().any(|h| matches!(h.found, Found::Persona(_))), "a weak hit exists: {weak:?}");
    assert!(store.search(SearchQuery::new(q)).await.unwrap().is_empty());
    let m = store.persona_peek(PersonaQuery::exact("people", "facts", "alice-dark-mode")).await.unwrap().pop().unwrap();
    assert_eq!(m.access_count, 0, "a hit below the cutoff is not an access");
    // A strong hit still is.
    assert!(!store.search(SearchQuery::new("alice dark editor themes")).await.unwrap().is_empty());
    let m = store.persona_peek(PersonaQuery::exact("people", "facts", "alice-dark-mode")).await.unwrap().pop().unwrap();
    assert_eq!(m.access_count, 1);
}

/// Writes `n` short journal entries about coffee (each outranks a long one by BM25) from
/// `from`, an hour apart.
async fn coffee_noise(store: &MemoryStore, n: usize, from: f64) {
    for i in 0..n {
        store.journal_at(&format!("coffee {i}"), from + i as f64 * 3600.0).await.unwrap();
    }
}

#[tokio::test]
async fn a_time_range_filters_the_pools_so_the_limit_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    // 300 short entries outrank every long one for "coffee"; the 12 long ones all fall in
    // the week asked for.
    coffee_noise(&store, 300, T0 - 100.0 * DAY).await;
    let week = T0 - 7.0 * DAY;
    for i in 0..12 {
        let text = format!("Tried the new single-origin coffee at the roastery on the corner, visit {i}, with friends");
        store.journal_at(&text, week + i as f64 * 3600.0).await.unwrap();
    }
    let mut q = SearchQuery::new("coffee");
    q.since = Some(week);
    q.until = Some(week + 7.0 * DAY);
    let hits = store.search(q).await.unwrap();
    assert_eq!(hits.len(), 10, "a filtered search returns the limit when that many match");
    assert!(hits.iter().all(|h| (week..week + 7.0 * DAY).contains(&h.found.time())));
}

#[tokio::test]
async fn a_domain_filters_the_pools_so_the_limit_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    for i in 0..300 {
        store.persona_remember(PersonaInput::new("work", "facts", &format!("c{i}"), "coffee")).await.unwrap();
    }
    for i in 0..12 {
        let value = format!("Friend number {i} orders a long oat-milk coffee whenever we meet downtown on Sundays");
        store.persona_remember(PersonaInput::new("people", "facts", &format!("friend-{i}"), &value)).await.unwrap();
    }
    let mut q = SearchQuery::new("coffee");
    q.domain = Some("people".into());
    let hits = store.search(q).await.unwrap();
    assert_eq!(hits.len(), 10, "a filtered search returns the limit when that many match");
    assert!(hits.iter().all(|h| matches!(&h.found, Found::Persona(p) if p.domain == "people")));
}

#[tokio::test]
async fn a_kind_filter_with_the_model_still_reaches_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), Some(model())).await;
    coffee_noise(&store, 150, T0 - 100.0 * DAY).await;
    for i in 0..12 {
        store.remember(&format!("coffee-order-{i}"), &format!("a flat white with oat milk, order {i}")).await.unwrap();
    }
    store.index_pending().await.unwrap();
    let hits = store.search(SearchQuery::new("coffee order").kinds(&[Kind::Memory])).await.unwrap();
    assert_eq!(hits.len(), 10, "a filtered search returns the limit when that many match");
    assert!(hits.iter().all(|h| matches!(h.found, Found::Memory(_))));
}

#[tokio::test]
async fn a_state_filter_restricts_the_pools_so_the_limit_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open(dir.path(), None).await;
    // 300 memories a year old (long decayed) outrank every fresh one for "coffee".
    for i in 0..300 {
        let old = PersonaInput::new("work", "facts", &format!("c{i}"), "coffee").at(T0 - 365.0 * DAY);
        store.persona_remember(old).await.unwrap();
    }
    for i in 0..12 {
        let value = format!("Friend number {i} orders a long oat-milk coffee whenever we meet downtown on Sundays");
        store.persona_remember(PersonaInput::new("people", "facts", &format!("friend-{i}"), &value)).await.unwrap();
    }
    let mut q = SearchQuery::new("coffee");
    q.states = vec![memstr::MemoryState::Active];
    let hits = store.search(q).await.unwrap();
    assert_eq!(hits.len(), 10, "a filtered search returns the limit when that many match");
    assert!(hits.iter().all(|h| matches!(&h.found, Found::Persona(p) if p.domain == "people")));
}

/// TEST DOUBLE: [`OtherModel`] for documents, whose query embedding fails, by an error or
/// a panic: the one failure a real model could have that the test cannot cause.
struct QueryFails {
    panics: bool,
}

impl Embedder for QueryFails {
    fn model_id(&self) -> &str {
        "other-model"
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        OtherModel.embed(texts)
    }
    fn embed_query(&self, _: &str) -> memstr::Result<Vec<f32>> {
        if self.panics {
            panic!("the query embedding's planned panic");
        }
        Err(memstr::Error::Model(memstr::Cause::from("query", std::io::Error::other("planned failure"))))
    }
}

/// The query is embedded on its own thread while the reader scores the words: a failed or
/// panicked embedding must fail the search with its error (not hang the reader waiting for
/// a vector that never comes), and leave the store's readers free for what follows.
#[tokio::test]
async fn a_failed_query_embedding_fails_the_search_and_frees_the_reader() {
    for panics in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = open(dir.path(), Some(Arc::new(QueryFails { panics }))).await;
        fill(&store).await;
        // More searches than the store has readers: a reader kept by a failed search would
        // make the last of them, or the read after, wait for good.
        for _ in 0..6 {
            let search = store.search(SearchQuery::new("puppy named Biscuit"));
            let err = tokio::time::timeout(std::time::Duration::from_secs(60), search)
                .await
                .expect("the search returned")
                .expect_err("the query could not be embedded");
            let said = err.to_string();
            match panics {
                false => assert!(said.contains("planned failure"), "{said}"),
                true => assert!(said.contains("embedding stopped"), "{said}"),
            }
        }
        let read = tokio::time::timeout(std::time::Duration::from_secs(60), store.recall("wifi-password"));
        assert!(read.await.expect("the read returned").unwrap().is_some());
    }
}

/// A search whose named time holds nothing ranks by that time in a second pass of the
/// same text (tests/time_range.rs): the second pass reuses the first's vector and nearest
/// records instead of running the model again.
#[tokio::test]
async fn a_time_that_matched_nothing_is_ranked_without_embedding_the_query_twice() {
    let dir = tempfile::tempdir().unwrap();
    let counting = Arc::new(Counting(model(), std::sync::atomic::AtomicUsize::new(0)));
    let (store, _) = open(dir.path(), Some(counting.clone())).await;
    // Written in 2027 about the summer of 2024: nothing is dated then.
    store.journal_at("We went canoeing on the lake the summer of 2024", T0 - 10.0 * DAY).await.unwrap();
    store.journal_at("Bought a new paddle for the canoe", T0 - 3.0 * DAY).await.unwrap();
    // No word in common with the query: only the vector index's nearest records find it.
    let by_meaning = "We took a kayak out across the pond";
    store.journal_at(by_meaning, T0 - 5.0 * DAY).await.unwrap();
    store.index_pending().await.unwrap();
    let before = counting.1.load(std::sync::atomic::Ordering::SeqCst);
    let o = store.search_outcome(SearchQuery::new("canoeing on the lake in the summer of 2024")).await.unwrap();
    assert!(o.range.is_none(), "the named time ranked instead of filtering: {:?}", o.range);
    assert_eq!(o.hits.first().map(|h| h.found.text()), Some("We went canoeing on the lake the summer of 2024".into()));
    assert!(o.hits[0].signals.iter().any(|s| s.name == "vector"), "the second pass had the vector: {:?}", o.hits[0]);
    assert!(o.hits.iter().any(|h| h.found.text() == by_meaning), "and the nearest records: {:?}", texts(&o.hits));
    let embedded = counting.1.load(std::sync::atomic::Ordering::SeqCst) - before;
    assert_eq!(embedded, 1, "the query went through the model once");
}
