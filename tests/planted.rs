//! A store another local user could have planted or can change is refused before SQLite
//! opens anything: a database, WAL, index file or lock that belongs to someone else or that
//! others can write, a symbolic link at any of those names, a directory others can create
//! files in. A file of the user's own that others could only read is narrowed instead.
//! Files memstr creates are owner-only whatever the umask (the index lock included).

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use memstr::{Error, MemoryStore, StoreOptions};
use support::*;

/// Tests run as root in CI; root can hand a file to another user (nobody, 65534).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

async fn open(db: &Path) -> Result<MemoryStore, Error> {
    MemoryStore::open(db, test_identity(), StoreOptions::default()).await
}

/// Opening fails with [`Error::NotPrivate`] naming `file`, and the message says `why`.
async fn refused(db: &Path, file: &Path, why: &str) {
    match open(db).await {
        Err(Error::NotPrivate { path, reason }) => {
            assert_eq!(path, file, "{reason}");
            assert!(reason.contains(why), "{reason:?} does not say {why:?}");
            let shown = Error::NotPrivate { path, reason }.to_string();
            assert!(shown.starts_with("refusing to use "), "{shown}");
        }
        Err(other) => panic!("expected a refusal of {}, got {other}", file.display()),
        Ok(_) => panic!("{} was opened", file.display()),
    }
}

fn write_mode(path: &Path, mode: u32) {
    std::fs::write(path, b"").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn a_database_planted_by_another_user_is_refused() {
    assert!(is_root(), "this test hands files to another user: run it as root (CI does)");
    let dir = private_dir();
    let db = dir.path().join("memstr.db");
    write_mode(&db, 0o666);
    std::os::unix::fs::chown(&db, Some(65534), Some(65534)).unwrap();
    refused(&db, &db, "belongs to another user").await;
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "nothing was written into it");
    // The same for a WAL planted beside a store of one's own, and a file in the index.
    let dir = private_dir();
    let db = dir.path().join("memstr.db");
    open(&db).await.unwrap().close().await.unwrap();
    let wal = dir.path().join("memstr.db-wal");
    write_mode(&wal, 0o600);
    std::os::unix::fs::chown(&wal, Some(65534), Some(65534)).unwrap();
    refused(&db, &wal, "belongs to another user").await;
    std::fs::remove_file(&wal).unwrap();
    let index = dir.path().join("memstr.db.vectors");
    std::fs::create_dir(&index).unwrap();
    std::fs::set_permissions(&index, std::fs::Permissions::from_mode(0o700)).unwrap();
    let planted = index.join("vectors.bin");
    write_mode(&planted, 0o600);
    std::os::unix::fs::chown(&planted, Some(65534), Some(65534)).unwrap();
    refused(&db, &planted, "belongs to another user").await;
    // A directory another user owns.
    let dir = private_dir();
    std::os::unix::fs::chown(dir.path(), Some(65534), Some(65534)).unwrap();
    let db = dir.path().join("memstr.db");
    refused(&db, dir.path(), "belongs to another user").await;
}

#[tokio::test]
async fn a_database_others_can_write_is_refused_and_one_they_can_only_read_is_narrowed() {
    let dir = private_dir();
    let db = dir.path().join("memstr.db");
    let store = open(&db).await.unwrap();
    store.remember("k", "v").await.unwrap();
    store.close().await.unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused(&db, &db, "writable by other users").await;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let store = open(&db).await.unwrap();
    assert_eq!(store.recall("k").await.unwrap().unwrap().value, "v");
    assert_eq!(std::fs::metadata(&db).unwrap().mode() & 0o777, 0o600, "narrowed to owner-only");
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_symbolic_link_at_any_store_file_is_refused_and_not_followed() {
    for name in ["memstr.db", "memstr.db-wal", "memstr.db-shm", "memstr.db.vectors.lock", "memstr.db.vectors"] {
        let dir = private_dir();
        let db = dir.path().join("memstr.db");
        if name != "memstr.db" {
            open(&db).await.unwrap().close().await.unwrap();
            let _ = std::fs::remove_file(dir.path().join(name));
        }
        // Pointed at a file the attacker reads.
        let target = dir.path().join("attacker-reads-this");
        write_mode(&target, 0o666);
        std::os::unix::fs::symlink(&target, dir.path().join(name)).unwrap();
        refused(&db, &dir.path().join(name), "symbolic link").await;
        assert_eq!(std::fs::metadata(&target).unwrap().len(), 0, "{name}: the link was followed");
    }
}

#[tokio::test]
async fn a_store_in_a_directory_others_can_write_is_refused() {
    for mode in [0o777, 0o1777, 0o773] {
        let dir = private_dir();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        let db = dir.path().join("memstr.db");
        refused(&db, dir.path(), "writable by other users").await;
        assert!(!db.exists(), "nothing was created in it");
    }
}

#[test]
fn the_cli_refuses_a_database_planted_in_a_shared_directory() {
    assert!(is_root(), "this test hands files to another user: run it as root (CI does)");
    // The attack: a directory anyone can write, a 0666 memstr.db pre-created there.
    let dir = private_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let db = dir.path().join("memstr.db");
    write_mode(&db, 0o666);
    std::os::unix::fs::chown(&db, Some(65534), Some(65534)).unwrap();
    let out = memstr(dir.path()).arg("--dir").arg(dir.path()).args(["init", "--from-env", "--no-key-file"]).output();
    let out = out.unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to use"), "{err}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "nothing was written into it");
    // And the shared directory is left as it was: narrowing it would lock its users out.
    let mode = std::fs::metadata(dir.path()).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o1777, "the CLI changed a shared directory's mode to {mode:o}");
}

#[tokio::test]
async fn the_index_lock_is_owner_only_whatever_the_umask() {
    let dir = private_dir();
    let db = dir.path().join("memstr.db");
    // SAFETY: umask only changes this process's file creation mask.
    let old = unsafe { libc_umask(0) };
    let store = MemoryStore::open(&db, test_identity(), StoreOptions::default().embedder(std::sync::Arc::new(Fake)))
        .await
        .unwrap();
    assert!(store.owns_vector_index());
    unsafe { libc_umask(old) };
    let lock = dir.path().join("memstr.db.vectors.lock");
    assert_eq!(std::fs::metadata(&lock).unwrap().mode() & 0o777, 0o600);
    store.close().await.unwrap();
}

extern "C" {
    #[link_name = "umask"]
    fn libc_umask(mask: u32) -> u32;
}

/// A TEST DOUBLE embedder: the lock test needs an index, not meaning.
struct Fake;
impl memstr::index::Embedder for Fake {
    fn model_id(&self) -> &str {
        "fake"
    }
    fn dims(&self) -> usize {
        4
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|_| vec![0.5; 4]).collect())
    }
}
