//! Guards the statement cache: the paths that run a statement thousands of times (a pull,
//! an import, a search, a cycle) must not pay SQLite's parser on each call.

use std::sync::Arc;

use crate::{Identity, MemoryStore, PersonaInput, SearchQuery, StoreOptions};

/// A deterministic test embedder (word hashes), so search and consolidation run their
/// vector paths without the model.
#[cfg(feature = "vectors")]
struct WordHash;

#[cfg(feature = "vectors")]
impl crate::index::Embedder for WordHash {
    fn model_id(&self) -> &str {
        "test-word-hash-64"
    }
    fn dims(&self) -> usize {
        64
    }
    fn embed(&self, texts: &[&str]) -> crate::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 64];
                for w in t.split_whitespace() {
                    let h =
                        w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
                    v[(h % 64) as usize] += 1.0;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

fn options() -> StoreOptions {
    let options = StoreOptions::default();
    #[cfg(feature = "vectors")]
    let options = options.embedder(Arc::new(WordHash));
    options
}

const WORDS: [&str; 12] =
    ["tea", "coffee", "invoice", "ledger", "Dana", "Berlin", "budget", "deadline", "rust", "relay", "garden", "piano"];

fn sentence(i: usize) -> String {
    (0..8).map(|j| WORDS[(i * 7 + j * 5 + j * j) % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

/// No statement of the write, import, search and lifecycle paths is prepared again on
/// every call. SQLite 3.54 re-plans a read that orders or takes `max()` by a column under
/// a bound `=` parameter on every bind; such a statement here cost a pull 7% of its time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hot_statements_are_not_prepared_again_on_every_call() {
    let dir = tempfile::tempdir().unwrap();
    let key = Identity::generate();
    let a = MemoryStore::open(dir.path().join("a.db"), key.clone(), options()).await.unwrap();
    let start = 1_767_225_600.0;
    for i in 0..40 {
        a.remember(&format!("note-{i}"), &sentence(i)).await.unwrap();
        a.journal_at(&sentence(i + 100), start + i as f64 * 600.0).await.unwrap();
        let input = PersonaInput::new("work", "facts", &format!("fact-{i}"), &sentence(i + 200))
            .themes([WORDS[i % WORDS.len()], WORDS[(i + 3) % WORDS.len()]]);
        a.persona_remember(input).await.unwrap();
    }
    a.remember("note-1", "changed: tea with Dana in Berlin").await.unwrap();
    a.forget("note-2").await.unwrap();
    for q in ["tea Dana", "invoice budget", "relay", "piano garden deadline"] {
        a.search(SearchQuery::new(q)).await.unwrap();
        a.recall("note-3").await.unwrap();
    }
    a.recall_all().await.unwrap();
    a.recent(10).await.unwrap();
    a.consolidate().await.unwrap();
    a.persona_introspect().await.unwrap();
    a.persona_compress(None).await.unwrap();

    // The door every relay page and import goes through, into a second store.
    let events = a.export_events().await.unwrap();
    let b = MemoryStore::open(dir.path().join("b.db"), key, options()).await.unwrap();
    for chunk in events.chunks(16) {
        b.import_events(chunk.to_vec()).await.unwrap();
    }
    b.import_events(events).await.unwrap();
    for q in ["tea Dana", "ledger rust"] {
        b.search(SearchQuery::new(q)).await.unwrap();
    }

    for (name, store) in [("a", &a), ("b", &b)] {
        // FTS5's own statements (on its shadow tables) are SQLite's to prepare.
        let again: Vec<_> = store
            .engine
            .reprepared_statements(10)
            .into_iter()
            .filter(|(sql, ..)| !sql.contains("'records_fts_"))
            .collect();
        assert!(again.is_empty(), "store {name}: statements prepared again on most of their runs: {again:#?}");
    }
}

/// FTS5's count of leaves written so far in `store`'s full-text index (`None` before the
/// index has a structure record).
#[cfg(feature = "sync")]
async fn leaves(store: &MemoryStore) -> Option<u64> {
    store.engine.read(|conn, _| Ok(crate::engine::fts::leaves_written(conn))).await.unwrap()
}

/// The relay the pages below come from.
#[cfg(feature = "sync")]
const RELAY: &str = "wss://relay.example.com";

/// Opens a new store at `path` for `key` and admits `events` into it as one page from
/// [`RELAY`], in one transaction: the store, what was applied, and the leaves FTS5 wrote.
#[cfg(feature = "sync")]
async fn admit_page(path: std::path::PathBuf, key: Identity, events: Vec<nostr::Event>) -> (MemoryStore, u64, u64) {
    use crate::engine::ingest::{self, Source};
    let store = MemoryStore::open(path, key, StoreOptions::default()).await.unwrap();
    store.add_relay(RELAY, false).await.unwrap();
    let before = leaves(&store).await.unwrap_or(0);
    let source = Source::Relay { url: RELAY.to_string(), window: None };
    let incoming: Vec<_> = events.into_iter().map(Some).collect();
    let admitted = store.engine.write(move |tx, engine| ingest::admit(tx, engine, &source, incoming)).await.unwrap();
    let written = leaves(&store).await.expect("FTS5 structure record after a page") - before;
    (store, admitted.report.applied, written)
}

/// A batch of events from a relay or an import is indexed in one flush of FTS5's pending
/// terms, not one per event: a statement savepoint on the per-event path (an upsert with
/// RETURNING, an INSERT ... SELECT under a foreign key) makes FTS5 write its pending terms
/// out as a new segment, and merging those was a fifth of a pull.
#[cfg(feature = "sync")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_events_is_indexed_in_one_flush() {
    const N: usize = 400;
    let dir = tempfile::tempdir().unwrap();
    let key = Identity::generate();
    let a = MemoryStore::open(dir.path().join("a.db"), key.clone(), StoreOptions::default()).await.unwrap();
    let items: Vec<(String, String)> = (0..N).map(|i| (format!("note-{i}"), sentence(i))).collect();
    a.remember_batch(items.iter().map(|(k, v)| (k.as_str(), v.as_str()))).await.unwrap();
    let events = a.export_events().await.unwrap();
    assert!(events.len() >= N);

    let (b, applied, written) = admit_page(dir.path().join("b.db"), key, events).await;
    assert_eq!(applied as usize, N);
    assert!(written < N as u64 / 10, "{written} leaves written for {N} events");
    // And every event is acknowledged as held by the relay that served it.
    let acked: i64 = b
        .engine
        .read(move |conn, _| Ok(conn.query_row("SELECT count(*) FROM acks WHERE relay = ?1", [RELAY], |r| r.get(0))?))
        .await
        .unwrap();
    assert!(acked as usize >= N);
}

/// A page of journal entries is indexed in a few flushes too, whichever order the events
/// come in (a relay serves the newest first, an import the oldest), and every entry's row
/// ends up with its episode context as it would be written alone. Each entry changes
/// its neighbour's context, a row with a lower rowid, and FTS5 writes its pending terms
/// out whenever a lower rowid comes in: rewritten at once, the neighbours cost a segment
/// an entry.
#[cfg(feature = "sync")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_journal_entries_is_indexed_in_a_few_flushes() {
    use crate::model::BatchItem;
    const N: usize = 400;
    let dir = tempfile::tempdir().unwrap();
    let key = Identity::generate();
    let a = MemoryStore::open(dir.path().join("a.db"), key.clone(), StoreOptions::default()).await.unwrap();
    // A minute apart: one long episode, every entry with two neighbours.
    let start = 1_767_225_600.0;
    let items: Vec<BatchItem> =
        (0..N).map(|i| BatchItem::Journal { content: sentence(i), at: Some(start + i as f64 * 60.0) }).collect();
    let before = leaves(&a).await.unwrap_or(0);
    a.write_batch(items).await.unwrap();
    let written = leaves(&a).await.expect("FTS5 structure record after a batch") - before;
    assert!(written < N as u64 / 10, "a batch of {N} entries wrote {written} leaves");
    let mut events = a.export_events().await.unwrap();
    events.retain(|e| e.kind.as_u16() != crate::codec::KIND_DELETION);
    events.sort_by_key(|e| e.created_at);

    for (name, newest_first) in [("newest first", true), ("oldest first", false)] {
        let mut page = events.clone();
        if newest_first {
            page.reverse();
        }
        let (b, applied, written) =
            admit_page(dir.path().join(format!("b-{newest_first}.db")), key.clone(), page).await;
        assert_eq!(applied as usize, N, "{name}");
        assert!(written < N as u64 / 10, "{name}: {written} leaves written for {N} entries");
        // Every row's context is the one its neighbours give it now.
        let wrong: Vec<i64> = b
            .engine
            .write(|tx, _| {
                let rids: Vec<i64> = tx
                    .prepare("SELECT rowid FROM records_fts")?
                    .query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                let mut wrong = Vec::new();
                for rid in rids {
                    let stored: String =
                        tx.query_row("SELECT context FROM records_fts WHERE rowid = ?1", [rid], |r| r.get(0))?;
                    if Some(stored) != crate::engine::episodes::context(tx, rid)? {
                        wrong.push(rid);
                    }
                }
                Ok(wrong)
            })
            .await
            .unwrap();
        assert!(wrong.is_empty(), "{name}: rows with a stale context: {wrong:?}");
        let with_context: i64 = b
            .engine
            .read(|conn, _| {
                Ok(conn.query_row("SELECT count(*) FROM records_fts WHERE context != ''", [], |r| r.get(0))?)
            })
            .await
            .unwrap();
        assert_eq!(with_context as usize, N, "{name}");
    }
}
