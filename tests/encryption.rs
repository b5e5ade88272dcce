//! Encryption at rest (the `encryption` feature): a copied disk reveals nothing without
//! the key; the store reopens with it and refuses without it or with another; migration
//! both ways keeps every memory, and search (FTS5 inside SQLCipher, the sealed vector
//! index) still works.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memstr::index::{Embedder, OnnxEmbedder};
use memstr::search::SearchQuery;
use memstr::{EncryptionProblem, Error, Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};
use support::*;

/// Distinctive strings, written as values, journal text, persona content and keys.
const SECRETS: [&str; 5] = [
    "zanzibar-octopus-violin",
    "Quibbleton marmalade is stored under the seventh floorboard",
    "xylophone-harbour-ledger",
    "Wendeline collects porcelain narwhals",
    "kumquat-gazebo",
];

fn model() -> Arc<dyn Embedder> {
    static E: std::sync::OnceLock<Arc<OnnxEmbedder>> = std::sync::OnceLock::new();
    E.get_or_init(|| Arc::new(onnx_embedder())).clone()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("memstr.db")
}

async fn open(dir: &Path, options: StoreOptions) -> memstr::Result<MemoryStore> {
    MemoryStore::open(db(dir), test_identity(), options).await
}

async fn fill(store: &MemoryStore) {
    store.remember("vault-code", SECRETS[0]).await.unwrap();
    store.journal(SECRETS[1]).await.unwrap();
    store.remember(SECRETS[2], "the key is the secret here").await.unwrap();
    store.persona_remember(PersonaInput::new("people", "facts", "wendeline-hobby", SECRETS[3])).await.unwrap();
    store.journal(&format!("remember the {}", SECRETS[4])).await.unwrap();
    for i in 0..40 {
        store.remember(&format!("filler-{i}"), &format!("ordinary filler memory number {i}")).await.unwrap();
    }
    // Everything embedded, as `memstr index` or a server's background task leaves it (a
    // search embeds only its budget), so the vector index on disk holds every memory.
    if store.has_vectors() {
        store.index_pending().await.unwrap();
    }
}

/// Every file of the store: the database, its WAL and SHM, the marker, the index files.
fn store_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        if entry.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("memstr.db"))
            || entry
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("memstr.db"))
        {
            out.push(entry);
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The stored strings found in the raw bytes of the store's files.
fn leaks(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut found = Vec::new();
    for file in store_files(dir) {
        let bytes = std::fs::read(&file).unwrap();
        for s in SECRETS {
            // A word of it is enough to count: FTS5 keeps terms, not sentences.
            for needle in [s, s.split([' ', '-']).max_by_key(|w| w.len()).unwrap()] {
                if contains(&bytes, needle.as_bytes()) {
                    found.push((file.clone(), s));
                }
            }
        }
    }
    found
}

fn index_files(dir: &Path) -> Vec<PathBuf> {
    walk(&dir.join("memstr.db.vectors"))
}

fn header_is_sqlite(dir: &Path) -> bool {
    std::fs::read(db(dir)).unwrap().starts_with(b"SQLite format 3\0")
}

async fn check_contents(store: &MemoryStore) {
    assert_eq!(store.recall("vault-code").await.unwrap().unwrap().value, SECRETS[0]);
    assert_eq!(store.recall(SECRETS[2]).await.unwrap().unwrap().value, "the key is the secret here");
    assert_eq!(store.recall_all().await.unwrap().len(), 42);
    assert_eq!(store.recent(10).await.unwrap().len(), 2);
    let persona = store.persona_recall(PersonaQuery::default()).await.unwrap();
    assert_eq!(persona.len(), 1);
    assert_eq!(persona[0].value, SECRETS[3]);
    // Words: FTS5.
    let hits = store.search(SearchQuery::new("marmalade floorboard")).await.unwrap();
    let texts: Vec<String> = hits.iter().map(|h| h.found.text()).collect();
    assert!(texts.iter().take(3).any(|t| t.contains("Quibbleton")), "{texts:?}");
}

#[tokio::test]
async fn an_encrypted_store_leaves_no_plaintext_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), StoreOptions::default().encrypt(true).embedder(model())).await.unwrap();
    assert!(store.is_encrypted());
    fill(&store).await;
    // Meaning: the vector index, built and searched.
    let hits = store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    assert!(hits[0].found.text().contains("narwhals"), "{:?}", hits.iter().map(|h| h.found.text()).collect::<Vec<_>>());
    // While open: the WAL holds the latest pages.
    assert!(dir.path().join("memstr.db-wal").exists());
    assert_eq!(leaks(dir.path()), [], "plaintext in the files of an open encrypted store");
    store.close().await.unwrap();
    assert_eq!(leaks(dir.path()), [], "plaintext in the files of a closed encrypted store");
    assert!(!header_is_sqlite(dir.path()));
    assert!(dir.path().join("memstr.db.encrypted").exists(), "the marker");
    let index = index_files(dir.path());
    assert_eq!(index.len(), 3, "{index:?}");
    for f in &index {
        assert!(std::fs::read(f).unwrap().starts_with(b"memstrS1"), "{} is not sealed", f.display());
    }

    // Reopened with the key (and nothing said about encryption): everything is there,
    // both searches work, the sealed index loads.
    let store = open(dir.path(), StoreOptions::default().embedder(model())).await.unwrap();
    assert!(store.is_encrypted());
    check_contents(&store).await;
    let hits = store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    assert!(hits[0].found.text().contains("narwhals"));
    store.close().await.unwrap();

    // The control: the same writes in a plain store are readable in its files, so the
    // scan above would have seen them.
    let plain = tempfile::tempdir().unwrap();
    let store = open(plain.path(), StoreOptions::default().embedder(model())).await.unwrap();
    fill(&store).await;
    store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    store.close().await.unwrap();
    assert!(!leaks(plain.path()).is_empty());
}

#[tokio::test]
async fn an_encrypted_store_refuses_another_key_and_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), StoreOptions::default().encrypt(true)).await.unwrap();
    fill(&store).await;
    store.close().await.unwrap();
    let before = std::fs::read(db(dir.path())).unwrap();

    // Another key.
    let other = Identity::generate();
    let err = MemoryStore::open(db(dir.path()), other.clone(), StoreOptions::default()).await.unwrap_err();
    assert!(matches!(&err, Error::Encryption { problem: EncryptionProblem::KeyRejected, .. }), "another key: {err:?}");
    assert!(err.to_string().contains("does not open it"), "{err}");
    assert!(!err.to_string().contains(&other.reveal_nsec()[..]), "no secret in errors");
    // Asked to open it as a plain store.
    let err = open(dir.path(), StoreOptions::default().encrypt(false)).await.unwrap_err();
    assert!(matches!(&err, Error::Encryption { problem: EncryptionProblem::Encrypted, .. }), "{err:?}");
    // No key at all: plain SQLite (SQLCipher without a key) sees no database.
    let conn = rusqlite::Connection::open(db(dir.path())).unwrap();
    let err = conn.query_row("SELECT count(*) FROM records", [], |r| r.get::<_, i64>(0)).unwrap_err();
    assert_eq!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::NotADatabase), "{err}");
    drop(conn);
    // Migrations with another key refuse too, and change nothing.
    let err = MemoryStore::decrypt_at_rest(db(dir.path()), &other).await.unwrap_err();
    assert!(matches!(&err, Error::Encryption { problem: EncryptionProblem::KeyRejected, .. }), "{err:?}");

    // Nothing was damaged: the file is as it was, and the key still opens it.
    assert_eq!(std::fs::read(db(dir.path())).unwrap(), before);
    let store = open(dir.path(), StoreOptions::default()).await.unwrap();
    check_contents(&store).await;
    store.close().await.unwrap();

    // And a plain store refuses to pass for an encrypted one.
    let plain = tempfile::tempdir().unwrap();
    open(plain.path(), StoreOptions::default()).await.unwrap().close().await.unwrap();
    let err = open(plain.path(), StoreOptions::default().encrypt(true)).await.unwrap_err();
    assert!(matches!(&err, Error::Encryption { problem: EncryptionProblem::NotEncrypted, .. }), "{err:?}");
}

#[tokio::test]
async fn migration_both_ways_keeps_every_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), StoreOptions::default().embedder(model())).await.unwrap();
    fill(&store).await;
    let before = store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    assert!(before[0].found.text().contains("narwhals"));

    // Not while it is open.
    let err = MemoryStore::encrypt_at_rest(db(dir.path()), &test_identity()).await.unwrap_err();
    assert!(matches!(&err, Error::Encryption { problem: EncryptionProblem::InUse, .. }), "{err:?}");
    store.close().await.unwrap();
    assert!(header_is_sqlite(dir.path()));
    assert!(!leaks(dir.path()).is_empty(), "plain to begin with");

    assert!(MemoryStore::encrypt_at_rest(db(dir.path()), &test_identity()).await.unwrap());
    assert!(!MemoryStore::encrypt_at_rest(db(dir.path()), &test_identity()).await.unwrap(), "already");
    assert_eq!(leaks(dir.path()), [], "plaintext left after encrypting");
    assert!(dir.path().join("memstr.db.encrypted").exists());
    for f in index_files(dir.path()) {
        assert!(std::fs::read(&f).unwrap().starts_with(b"memstrS1"), "{} is not sealed", f.display());
    }
    assert!(!dir.path().join("memstr.db.migrating").exists());

    let store = open(dir.path(), StoreOptions::default().embedder(model())).await.unwrap();
    assert!(store.is_encrypted());
    check_contents(&store).await;
    let after = store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    assert_eq!(after[0].found.text(), before[0].found.text());
    store.remember("written-encrypted", "after the migration").await.unwrap();
    store.close().await.unwrap();

    assert!(MemoryStore::decrypt_at_rest(db(dir.path()), &test_identity()).await.unwrap());
    assert!(header_is_sqlite(dir.path()));
    assert!(!dir.path().join("memstr.db.encrypted").exists());
    for f in index_files(dir.path()) {
        assert!(!std::fs::read(&f).unwrap().starts_with(b"memstrS1"), "{} is still sealed", f.display());
    }
    let store = open(dir.path(), StoreOptions::default().embedder(model())).await.unwrap();
    assert!(!store.is_encrypted());
    assert_eq!(store.recall("written-encrypted").await.unwrap().unwrap().value, "after the migration");
    assert_eq!(store.recall_all().await.unwrap().len(), 43);
    let hits = store.search(SearchQuery::new("marmalade floorboard")).await.unwrap();
    assert!(hits.iter().take(3).any(|h| h.found.text().contains("Quibbleton")));
    let again = store.search(SearchQuery::new("ceramic sea creatures")).await.unwrap();
    assert_eq!(again[0].found.text(), before[0].found.text());
    store.close().await.unwrap();
}

#[test]
fn cli_init_encrypt_and_migrations() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let mut init = memstr(&st);
    init.env("MEMSTR_PASSWORD", "pw").args(["init", "--from-env", "--log-n", "4", "--encrypt"]);
    let out = run_ok(&mut init);
    assert!(out.contains("at rest:  encrypted"), "{out}");
    run_ok(memstr(&st).args(["remember", "vault-code", SECRETS[0]]));
    assert_eq!(leaks(&st), []);
    let out = run_ok(memstr(&st).args(["decrypt"]));
    assert!(out.contains("now not encrypted"), "{out}");
    assert_eq!(run_ok(memstr(&st).args(["recall", "vault-code"])), format!("{}\n", SECRETS[0]));
    let out = run_ok(memstr(&st).args(["encrypt", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["encrypted"].as_bool(), v["changed"].as_bool()), (Some(true), Some(true)), "{out}");
    assert_eq!(leaks(&st), []);
    assert_eq!(run_ok(memstr(&st).args(["recall", "vault-code"])), format!("{}\n", SECRETS[0]));
    // Another key: a clear refusal naming the cause.
    let out = memstr(&st)
        .env("MEMSTR_NSEC", "1111111111111111111111111111111111111111111111111111111111111111")
        .args(["recall", "vault-code"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("encrypted at rest and this key does not open it"), "{err}");
}
