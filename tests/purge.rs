//! A purge leaves no byte of a memory on this device, whatever happened to it before: its
//! words, its payload and (in the default blinded mode) its key are gone from every file of
//! the store after `memstr index`, an edit, archive and restore, consolidation, and a newer
//! version received from another device. FTS5 stores terms prefix-compressed, so the check
//! looks for the tail of each word as well as the whole word.

mod support;

use std::path::Path;
use std::sync::Arc;

use memstr::{Identity, MemoryStore, PersonaInput, StoreOptions};
use support::*;

/// Invented words: no dictionary, stemmer or other memory shares them.
const PERSONA: [&str; 3] = ["qorvaxtil", "blenquimor", "zathrupex"];
const FLAT: [&str; 3] = ["vimtrosk", "plondexur", "gravethix"];
const JOURNAL: [&str; 3] = ["murzopfen", "klathrivo", "dwenspuxa"];
const EDITED: [&str; 3] = ["frobnakel", "yusterpig", "wolmdrenx"];
const PERSONA_KEY: &str = "skelvordin-pref";
const FLAT_KEY: &str = "trapnoxel-code";

/// Every fragment of `words` that could betray them: the word and its last six letters.
fn fragments(words: &[&str]) -> Vec<String> {
    words.iter().flat_map(|w| [w.to_string(), w[w.len() - 6..].to_string()]).collect()
}

/// The fragments found in any file of the store's directory, with the file they were in.
fn left_on_disk(dir: &Path, fragments: &[String]) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap().to_ascii_lowercase();
        for f in fragments {
            if bytes.windows(f.len()).any(|w| w == f.as_bytes()) {
                hits.push(format!("{f} in {}", path.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    hits
}

async fn open(dir: &Path, vectors: bool) -> MemoryStore {
    let mut opts = StoreOptions::default();
    if vectors {
        opts = opts.embedder(Arc::new(onnx_embedder()));
    }
    MemoryStore::open(dir.join("memstr.db"), test_identity(), opts).await.unwrap()
}

/// One memory of each kind with the words above; returns their addresses.
async fn three(store: &MemoryStore) -> [String; 3] {
    let [a, b, c] = PERSONA;
    store
        .persona_remember(PersonaInput::new("self", "prefs", PERSONA_KEY, &format!("I like {a} with {b} and {c}")))
        .await
        .unwrap();
    let [a, b, c] = FLAT;
    store.remember(FLAT_KEY, &format!("the {a} door opens with {b} then {c}")).await.unwrap();
    let [a, b, c] = JOURNAL;
    store.journal_at(&format!("Walked past {a} and {b} near {c}"), 1_790_000_000.0).await.unwrap();
    let journal = store.resolve(&memstr::MemoryPath::journal(1_790_000_000.0).to_d()).await.unwrap();
    [format!("self/prefs/{PERSONA_KEY}"), format!("kv/{FLAT_KEY}"), journal.address]
}

/// Purges the three memories, closes the store, and insists nothing of them is left.
async fn purge_and_check(dir: &Path, store: MemoryStore, addresses: &[String], extra: &[&str]) {
    let mut words: Vec<&str> = PERSONA.iter().chain(&FLAT).chain(&JOURNAL).copied().collect();
    words.extend(extra);
    let all = fragments(&words);
    assert!(!left_on_disk(dir, &all).is_empty(), "the words are on disk before the purge");
    for address in addresses {
        store.purge(address).await.unwrap();
    }
    let left = left_on_disk(dir, &all);
    assert!(left.is_empty(), "left after the purge, store open: {left:?}");
    store.close().await.unwrap();
    let mut all = all;
    // The keys too: the store is blinded (the default), so no file needs them.
    all.extend([PERSONA_KEY.to_string(), FLAT_KEY.to_string()]);
    let left = left_on_disk(dir, &all);
    assert!(left.is_empty(), "left after the purge, store closed: {left:?}");
}

#[tokio::test]
async fn purge_after_index_leaves_no_word_payload_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true).await;
    let addresses = three(&store).await;
    assert!(store.index_pending().await.unwrap() >= 3);
    assert!(store.embedding(PERSONA_KEY).await.unwrap().is_some(), "index published the persona vector");
    purge_and_check(dir.path(), store, &addresses, &[]).await;
}

#[tokio::test]
async fn purge_after_an_edit_leaves_no_word_of_either_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), false).await;
    let addresses = three(&store).await;
    let [a, b, c] = EDITED;
    store.persona_remember(PersonaInput::new("self", "prefs", PERSONA_KEY, &format!("now {a} and {b}"))).await.unwrap();
    store.remember(FLAT_KEY, &format!("changed to {c}")).await.unwrap();
    purge_and_check(dir.path(), store, &addresses, &EDITED).await;
}

#[tokio::test]
async fn purge_after_archive_and_restore_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), false).await;
    let addresses = three(&store).await;
    for address in &addresses {
        store.archive(address).await.unwrap();
        store.restore(address).await.unwrap();
    }
    purge_and_check(dir.path(), store, &addresses, &[]).await;
}

#[tokio::test]
async fn purge_after_consolidation_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), true).await;
    let addresses = three(&store).await;
    let [a, ..] = PERSONA;
    store
        .persona_remember(PersonaInput::new("self", "prefs", "neighbour", &format!("{a} is best in winter")))
        .await
        .unwrap();
    store.index_pending().await.unwrap();
    store.consolidate().await.unwrap();
    store.persona_compress(None).await.unwrap();
    store.forget("self/prefs/neighbour").await.unwrap();
    purge_and_check(dir.path(), store, &addresses, &[]).await;
}

#[tokio::test]
async fn purge_after_another_device_rewrote_it_leaves_neither_version() {
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let store = open(dir.path(), false).await;
    let addresses = three(&store).await;
    // The same key on a second device writes newer versions (signed a second later, so
    // they win); they arrive as events.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let device = MemoryStore::open(
        other.path().join("memstr.db"),
        Identity::from_secret(TEST_SECRET).unwrap(),
        StoreOptions::default(),
    )
    .await
    .unwrap();
    let [a, b, c] = EDITED;
    device.persona_remember(PersonaInput::new("self", "prefs", PERSONA_KEY, &format!("{a} {b}"))).await.unwrap();
    device.remember(FLAT_KEY, c).await.unwrap();
    let report = store.import_events(device.export_events().await.unwrap()).await.unwrap();
    assert!(report.applied + report.merged >= 2, "{report:?}");
    assert!(store.recall(FLAT_KEY).await.unwrap().unwrap().value.contains(c), "the newer version won");
    purge_and_check(dir.path(), store, &addresses, &EDITED).await;
}

/// Through the CLI (the process that purges is the only one, as from a shell): the purged
/// memory's point is blanked in the saved vector index at once, not at the next command that
/// loads the index. A retest found the embedding still in `graph.bin` after a CLI purge.
#[test]
fn a_cli_purge_blanks_the_vector_in_the_saved_index_at_once() {
    let dir = tempfile::tempdir().unwrap();
    model_dir(); // the CLI finds the model in the cache fetch.sh fills
    init_store(dir.path());
    let memstr_in = |args: &[&str]| run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(args));
    memstr_in(&["remember", "gate-code", "the garage gate code is 4417"]);
    memstr_in(&["remember", "ferry", "the zanzibar ferry leaves at dawn"]);
    memstr_in(&["index"]);
    let model = onnx_embedder();
    let point = memstr::index::vectors::quantize(
        &memstr::index::Embedder::embed(&model, &["gate-code: the garage gate code is 4417"]).unwrap()[0],
    );
    let holds = || {
        let bytes: Vec<u8> = point.iter().map(|&x| x as u8).collect();
        std::fs::read_dir(dir.path().join("memstr.db.vectors")).unwrap().any(|f| {
            let data = std::fs::read(f.unwrap().path()).unwrap();
            data.windows(bytes.len()).any(|w| w == bytes.as_slice())
        })
    };
    assert!(holds(), "the saved index holds the memory's vector");
    memstr_in(&["purge", "gate-code"]);
    assert!(!holds(), "the purged memory's vector is still in the index files");
}
