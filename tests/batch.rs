//! Bulk writes (issue 26 point 6): a batch writes many memories in one transaction, each
//! still its own signed event, all or nothing, and leaves the store as the same single
//! calls in the same order would. Without the model.

mod support;

use std::path::Path as FsPath;

use memstr::codec::{Codec, Decoded, Payload};
use memstr::nostr::Keys;
use memstr::{
    BatchItem, DTagMode, Error, Found, MemoryStore, PersonaInput, PersonaQuery, Rule, SearchQuery, StoreOptions,
    MAX_BATCH,
};
use support::*;

const T0: f64 = 1_700_000_000.0;

fn items() -> Vec<BatchItem> {
    vec![
        BatchItem::kv("editor", "vim with the dark theme").at(T0 - 50.0),
        BatchItem::journal("Caroline: Have you been to the pottery workshop yet?").at(T0 - 40.0),
        BatchItem::journal("Melanie: Yes, last Tuesday, with my sister.").at(T0 - 39.0),
        BatchItem::persona(
            PersonaInput::new("people", "facts", "alice-tea", "Alice drinks green tea every morning")
                .themes(["tea", "alice"])
                .at(T0 - 30.0),
        ),
        BatchItem::kv("shell", "fish").at(T0 - 20.0),
    ]
}

/// Writes `items` one call per memory, as before batches.
async fn write_singly(store: &MemoryStore, items: Vec<BatchItem>) -> Vec<String> {
    let mut ids = Vec::new();
    for item in items {
        let at = item.time().unwrap();
        ids.push(match item {
            BatchItem::Kv { key, value, .. } => store.remember_at(&key, &value, at).await.unwrap(),
            BatchItem::Journal { content, .. } => store.journal_at(&content, at).await.unwrap(),
            BatchItem::Persona(input) => store.persona_remember(input).await.unwrap(),
            _ => unreachable!(),
        });
    }
    ids
}

/// A record's row as a search and the embedding queue see it: its path, its kind, whether
/// it waits for a vector, its text's fingerprint, its full-text value and episode context.
type Row = (String, String, i64, Option<String>, Option<String>, Option<String>);

/// The rows of a store file, by path.
fn rows(db: &FsPath) -> Vec<Row> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT r.path, r.kind, r.needs_vec, r.text_hash, f.value, f.context
             FROM records r LEFT JOIN records_fts f ON f.rowid = r.rid ORDER BY r.path",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[tokio::test]
async fn a_bad_item_names_its_index_and_rule_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let mut batch = items();
    batch.insert(3, BatchItem::kv("bad/key", "a slash breaks the d-tag path"));
    match store.write_batch(batch).await {
        Err(Error::BatchItem { index: 3, source }) => {
            assert_eq!((source.field, source.rule.name()), ("key", "forbidden-character"), "{source}");
        }
        other => panic!("expected item 3 to be refused: {other:?}"),
    }
    let bad_persona = BatchItem::persona(PersonaInput::new("people", "facts", "k", "v").confidence(2.0));
    let err = store.write_batch(vec![BatchItem::journal("fine"), bad_persona]).await.unwrap_err();
    assert!(err.to_string().starts_with("batch item 1: invalid confidence"), "{err}");
    assert!(err.to_string().contains("nothing of the batch was written"), "{err}");
    let s = store.stats().await.unwrap();
    assert_eq!((s.kv, s.journal, s.persona, s.events, s.outbox), (0, 0, 0, 0, 0), "nothing written");
}

#[tokio::test]
async fn an_item_too_large_to_encrypt_fails_the_whole_batch() {
    // Each field within its own limit, the encoded payload past what NIP-44 encrypts: only
    // signing finds it, and the batch must still be all or nothing.
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    // 40,000 characters (within a value's 65,000), 80,000 bytes of UTF-8 (past 65,535).
    let batch = vec![BatchItem::kv("first", "written only with the rest"), BatchItem::kv("big", "é".repeat(40_000))];
    match store.write_batch(batch).await {
        Err(Error::BatchItem { index: 1, source }) => assert_eq!(source.rule.name(), "nip44-size", "{source}"),
        other => panic!("expected item 1 to be refused: {other:?}"),
    }
    assert!(store.recall("first").await.unwrap().is_none(), "the good item was not written either");
    assert_eq!(store.stats().await.unwrap().outbox, 0);
}

#[tokio::test]
async fn a_batch_over_the_bound_is_refused_whole_and_one_at_the_bound_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let too_many: Vec<BatchItem> = (0..=MAX_BATCH).map(|i| BatchItem::kv(format!("k{i}"), "v")).collect();
    match store.write_batch(too_many).await {
        Err(Error::Validation(v)) => {
            assert_eq!(v.rule, Rule::BatchTooLarge { max: MAX_BATCH, len: MAX_BATCH + 1 });
            assert_eq!(v.rule.name(), "batch-size");
        }
        other => panic!("expected the batch size rule: {other:?}"),
    }
    assert_eq!(store.stats().await.unwrap().kv, 0);
    let ids = store.journal_batch((0..MAX_BATCH).map(|i| format!("entry {i}"))).await.unwrap();
    assert_eq!(ids.len(), MAX_BATCH);
    let s = store.stats().await.unwrap();
    assert_eq!((s.journal, s.events, s.outbox), (MAX_BATCH as u64, MAX_BATCH as u64, MAX_BATCH as u64));
    // Without times of their own, entries keep the batch's order.
    let recent = store.recent(2).await.unwrap();
    assert_eq!((recent[0].content.as_str(), recent[1].content.as_str()), ("entry 999", "entry 998"));
    assert!(store.write_batch(Vec::new()).await.unwrap().is_empty(), "an empty batch writes nothing");
}

#[tokio::test]
async fn batch_events_have_the_shape_of_single_writes_and_are_queued_for_relays() {
    let dir = tempfile::tempdir().unwrap();
    let (single, _) = open_at(&dir.path().join("single"), T0).await;
    let (batched, _) = open_at(&dir.path().join("batched"), T0).await;
    let single_ids = write_singly(&single, items()).await;
    let batch_ids = batched.write_batch(items()).await.unwrap();
    assert_eq!(batch_ids.len(), single_ids.len());

    let codec = Codec::new(Keys::parse(TEST_SECRET).unwrap(), DTagMode::default()).unwrap();
    let decoded = |events: Vec<memstr::nostr::Event>| -> Vec<(String, u16, Payload)> {
        let mut out: Vec<(String, u16, Payload)> = events
            .iter()
            .map(|e| {
                e.verify().expect("a valid signature");
                match codec.decode(e).expect("decodes as untrusted input") {
                    Decoded::Record { path, payload, .. } => (path.to_d(), e.kind.as_u16(), payload),
                    other => panic!("a record, not {other:?}"),
                }
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    let a = decoded(single.export_events().await.unwrap());
    let b = decoded(batched.export_events().await.unwrap());
    assert_eq!(a.len(), items().len());
    for ((pa, ka, xa), (pb, kb, xb)) in a.iter().zip(&b) {
        assert_eq!((pa, ka), (pb, kb));
        match (xa, xb) {
            // Version vectors name each store's own device: the rest must match.
            (Payload::Persona(x), Payload::Persona(y)) => {
                let mut y = y.clone();
                y.sync = x.sync.clone();
                assert_eq!(*x, y);
            }
            (x, y) => assert_eq!(x, y),
        }
    }
    // Every event is queued for relays, the ids returned are the events stored.
    let mut outbox = batched.outbox().await.unwrap();
    let mut ids = batch_ids.clone();
    outbox.sort();
    ids.sort();
    assert_eq!(outbox, ids);
    // The same rows for search and the embedding queue (full text, episodes, vectors).
    drop((single, batched));
    let (ra, rb) = (rows(&dir.path().join("single/memstr.db")), rows(&dir.path().join("batched/memstr.db")));
    assert_eq!(ra, rb);
    assert!(rb.iter().all(|r| r.2 == rb[0].2), "every record waits for its vector alike: {rb:?}");
}

#[tokio::test]
async fn search_finds_memories_a_batch_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.write_batch(items()).await.unwrap();
    for (query, want) in [("dark theme editor", "vim"), ("green tea", "Alice"), ("pottery workshop", "pottery")] {
        let mut q = SearchQuery::new(query);
        q.min_strength = Some(0.0);
        let hits = store.search(q).await.unwrap();
        let text = |f: &Found| match f {
            Found::Persona(m) => m.value.clone(),
            Found::Memory(m) => m.value.clone(),
            Found::Journal(j) => j.content.clone(),
            _ => String::new(),
        };
        assert!(hits.first().is_some_and(|h| text(&h.found).contains(want)), "{query}: {:?}", hits.first());
    }
}

#[tokio::test]
async fn a_journal_batch_gives_each_entry_the_episode_context_single_writes_give() {
    // Out of order, two at one instant, one an hour and more away: the context column of
    // every row must be what single calls in the same order leave.
    let entries = [
        ("Melanie: Yes, last Tuesday, with my sister.", T0 + 60.0),
        ("Caroline: Have you been to the pottery workshop yet?", T0),
        ("Caroline: Lovely. Did she like it?", T0 + 60.0),
        ("Melanie: The train was late again.", T0 + 3.0 * 3_600.0),
        ("Melanie: She wants to go back.", T0 + 120.0),
    ];
    let batch = || entries.iter().map(|(c, at)| BatchItem::journal(*c).at(*at)).collect::<Vec<_>>();
    let dir = tempfile::tempdir().unwrap();
    let (single, _) = open_at(&dir.path().join("single"), T0).await;
    let (batched, _) = open_at(&dir.path().join("batched"), T0).await;
    write_singly(&single, batch()).await;
    batched.write_batch(batch()).await.unwrap();
    let mut q = SearchQuery::new("pottery workshop");
    q.min_strength = Some(0.0);
    q.weights = Some(memstr::search::Weights { bridge: 0.0, ..Default::default() });
    let hits = batched.search(q).await.unwrap();
    let found: Vec<String> = hits
        .into_iter()
        .filter(|h| h.signals.iter().any(|s| s.name == "matching" && s.value > 0.0))
        .filter_map(|h| match h.found {
            Found::Journal(j) => Some(j.content),
            _ => None,
        })
        .collect();
    assert!(found.iter().any(|c| c.contains("last Tuesday")), "the reply, by its episode: {found:?}");
    assert!(!found.iter().any(|c| c.contains("train")), "another episode: {found:?}");
    drop((single, batched));
    let (ra, rb) = (rows(&dir.path().join("single/memstr.db")), rows(&dir.path().join("batched/memstr.db")));
    assert_eq!(ra.len(), entries.len(), "two entries at one instant both kept");
    assert_eq!(ra, rb);
}

#[tokio::test]
async fn a_later_item_at_the_same_address_updates_the_earlier_as_single_calls_would() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    store.persona_remember(PersonaInput::new("people", "facts", "bob", "Bob is a chef").at(T0 - 100.0)).await.unwrap();
    store
        .write_batch(vec![
            BatchItem::kv("k", "one"),
            BatchItem::persona(PersonaInput::new("people", "facts", "bob", "Bob is a chef in Lyon").connections(["a"])),
            BatchItem::kv("k", "two"),
            BatchItem::persona(PersonaInput::new("people", "facts", "bob", "Bob is a chef in Lyon").connections(["b"])),
        ])
        .await
        .unwrap();
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "two");
    let bob = store.persona_peek(PersonaQuery::exact("people", "facts", "bob")).await.unwrap().pop().unwrap();
    assert_eq!(bob.value, "Bob is a chef in Lyon");
    assert_eq!(bob.created_at, T0 - 100.0, "an update keeps the memory's history");
    assert_eq!(bob.connections, ["a", "b"], "the second update saw the first");
    let s = store.stats().await.unwrap();
    assert_eq!((s.kv, s.persona, s.events, s.outbox), (1, 1, 2, 2), "only current versions kept and queued");
}

#[tokio::test]
async fn a_batch_is_one_change_for_live_sync() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let changes = store.changes();
    let before = *changes.borrow();
    store.remember_batch((0..20).map(|i| (format!("k{i}"), format!("value {i}")))).await.unwrap();
    assert_eq!(*changes.borrow(), before + 1);
    assert_eq!(store.recall_all().await.unwrap().len(), 20);
}

#[tokio::test]
async fn a_store_evaluating_at_a_fixed_time_refuses_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    drop(store);
    let opts = StoreOptions::default().evaluate_at(T0);
    let store = MemoryStore::open(dir.path().join("memstr.db"), test_identity(), opts).await.unwrap();
    let err = store.journal_batch(["x"]).await.unwrap_err();
    assert!(matches!(err, Error::EvaluateOnly(_)), "{err}");
}
