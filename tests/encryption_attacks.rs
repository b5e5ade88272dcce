//! Encryption at rest under attack (the `encryption` feature), on a 5,000-memory store with
//! its vector index: `memstr encrypt` and `memstr decrypt` killed with SIGKILL at spread
//! points lose nothing, leave a store that opens, and a second run finishes the job; a
//! tampered or truncated sealed index file is a rebuild, never a crash or wrong results; a
//! wrong key is refused and changes no byte.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memstr::index::{Embedder, OnnxEmbedder};
use memstr::search::SearchQuery;
use memstr::{EncryptionProblem, Error, Identity, MemoryStore, StoreOptions};
use support::*;

const MEMORIES: usize = 5_000;
/// A memory search must keep finding first, whatever was done to the files.
const NEEDLE: &str = "Ottoline keeps the spare lighthouse key inside a hollow driftwood owl";

fn model() -> Arc<dyn Embedder> {
    static E: std::sync::OnceLock<Arc<OnnxEmbedder>> = std::sync::OnceLock::new();
    E.get_or_init(|| Arc::new(onnx_embedder())).clone()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("memstr.db")
}

async fn open(dir: &Path) -> memstr::Result<MemoryStore> {
    MemoryStore::open(db(dir), test_identity(), StoreOptions::default().embedder(model())).await
}

/// The 5,000-memory store with every memory embedded and the index saved, built once per
/// test binary and copied for each attack.
async fn pristine() -> PathBuf {
    static DIR: tokio::sync::OnceCell<tempfile::TempDir> = tokio::sync::OnceCell::const_new();
    DIR.get_or_init(|| build(MEMORIES)).await.path().to_path_buf()
}

/// A 400-memory store, for attacks whose every case rebuilds the index (a debug build
/// inserts about 30 points a second).
async fn small() -> PathBuf {
    static DIR: tokio::sync::OnceCell<tempfile::TempDir> = tokio::sync::OnceCell::const_new();
    DIR.get_or_init(|| build(400)).await.path().to_path_buf()
}

async fn build(memories: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await.unwrap();
    // Signed in a scratch store, then imported through the door (500 per transaction).
    let builder = tempfile::tempdir().unwrap();
    let source = MemoryStore::open(db(builder.path()), test_identity(), StoreOptions::default()).await.unwrap();
    for i in 0..memories - 1 {
        let line = format!("ordinary memory {i}: the meeting about budget line {} moved to room {}", i * 7, i % 40);
        source.remember(&format!("m{i}"), &line).await.unwrap();
    }
    store.import_events(source.export_events().await.unwrap()).await.unwrap();
    store.remember("needle", NEEDLE).await.unwrap();
    store.index_pending().await.unwrap();
    store.close().await.unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir(&target).unwrap();
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

fn fresh_copy(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(from, dir.path());
    dir
}

/// Every memory is there and search finds the needle first (by meaning: the query shares
/// few of its words).
async fn whole(dir: &Path, what: &str) {
    whole_of(dir, MEMORIES, what).await
}

async fn whole_of(dir: &Path, memories: usize, what: &str) {
    let store = open(dir).await.unwrap_or_else(|e| panic!("{what}: the store does not open: {e}"));
    assert_eq!(store.recall_all().await.unwrap().len(), memories, "{what}: memories lost");
    let mut q = SearchQuery::new("where is the spare key of the lighthouse hidden");
    q.strengthen = false;
    let hits = store.search(q).await.unwrap();
    let top = hits.first().unwrap_or_else(|| panic!("{what}: search found nothing"));
    assert_eq!(top.path, "sense-memory/needle", "{what}: search lost the needle: {hits:?}");
    let by_meaning = top.signals.iter().find(|s| s.name == "vector").map_or(0.0, |s| s.value);
    assert!(by_meaning > 0.5, "{what}: not found by meaning: {:?}", top.signals);
    store.close().await.unwrap();
}

fn cli(dir: &Path, verb: &str) -> Command {
    let mut c = memstr(dir);
    c.arg("--dir").arg(dir).arg(verb).stdout(Stdio::null()).stderr(Stdio::piped());
    c
}

/// Runs `verb` to the end; returns how long it took.
fn finish(dir: &Path, verb: &str) -> Duration {
    let start = Instant::now();
    let out = cli(dir, verb).output().unwrap();
    assert!(out.status.success(), "memstr {verb}: {}", String::from_utf8_lossy(&out.stderr));
    start.elapsed()
}

/// Plaintext of the store in any of its files.
fn leaks(dir: &Path) -> Vec<PathBuf> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                if bytes.windows(16).any(|w| w == b"SQLite format 3\0") || bytes.windows(9).any(|w| w == b"driftwood") {
                    hits.push(p);
                }
            }
        }
    }
    hits
}

/// Kills `verb` with SIGKILL at `points` spread over its usual duration, on fresh copies
/// of `from`; after each, the store is whole, and a second run finishes the job.
async fn kill_points(from: &Path, verb: &str, points: usize, check_after: impl Fn(&Path)) {
    let timing = fresh_copy(from);
    let took = finish(timing.path(), verb);
    for k in 0..points {
        // Spread over the run, offset by a fixed pseudo-random jitter.
        let frac = (k as f64 + 0.5 + 0.4 * ((k * 7919 % 13) as f64 / 13.0 - 0.5)) / points as f64;
        let at = took.mul_f64(frac);
        let dir = fresh_copy(from);
        let mut child = cli(dir.path(), verb).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        let _ = child.wait();
        let what = format!("{verb} killed after {at:?} of {took:?}");
        whole(dir.path(), &what).await;
        finish(dir.path(), verb);
        check_after(dir.path());
        whole(dir.path(), &format!("{what}, then run again")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encrypt_and_decrypt_killed_at_any_point_lose_nothing_and_a_second_run_finishes() {
    let plain = pristine().await;
    kill_points(&plain, "encrypt", 8, |dir| {
        assert_eq!(leaks(dir), Vec::<PathBuf>::new(), "plaintext left after encrypt ran again");
        assert!(!dir.join("memstr.db.migrating").exists());
    })
    .await;
    let encrypted = fresh_copy(&plain);
    finish(encrypted.path(), "encrypt");
    kill_points(encrypted.path(), "decrypt", 8, |dir| {
        let head = std::fs::read(db(dir)).unwrap();
        assert!(head.starts_with(b"SQLite format 3\0"), "decrypt ran again but the database is not plain");
        assert!(!dir.join("memstr.db.encrypted").exists());
    })
    .await;
}

/// The sealed index files of the store in `dir`.
fn index_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("memstr.db.vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_or_truncated_sealed_index_is_rebuilt_never_trusted() {
    let encrypted = fresh_copy(&small().await);
    finish(encrypted.path(), "encrypt");
    let files = index_files(encrypted.path());
    assert!(!files.is_empty());
    for (i, _) in files.iter().enumerate() {
        for damage in ["flip", "half", "garbage"] {
            let dir = fresh_copy(encrypted.path());
            let file = &index_files(dir.path())[i];
            let mut bytes = std::fs::read(file).unwrap();
            assert!(bytes.starts_with(b"memstrS1"), "sealed");
            match damage {
                "flip" => {
                    let at = bytes.len() / 2;
                    bytes[at] ^= 0x40;
                }
                "half" => bytes.truncate(bytes.len() / 2),
                _ => bytes = b"memstrS1".iter().copied().chain(std::iter::repeat_n(7u8, 4096)).collect(),
            }
            std::fs::write(file, &bytes).unwrap();
            whole_of(dir.path(), 400, &format!("{} {damage}", file.display())).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_is_refused_everywhere_and_changes_no_byte() {
    let dir = fresh_copy(&pristine().await);
    finish(dir.path(), "encrypt");
    let snapshot = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        let mut stack = vec![d.to_path_buf()];
        while let Some(x) = stack.pop() {
            for e in std::fs::read_dir(&x).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if !p.to_string_lossy().ends_with(".lock") {
                    all.push((p.clone(), std::fs::read(&p).unwrap()));
                }
            }
        }
        all.sort();
        all
    };
    let before = snapshot(dir.path());
    let other = Identity::generate();
    let err =
        MemoryStore::open(db(dir.path()), other.clone(), StoreOptions::default().embedder(model())).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { problem: EncryptionProblem::KeyRejected, .. }), "{err:?}");
    for result in [
        MemoryStore::decrypt_at_rest(db(dir.path()), &other).await,
        MemoryStore::encrypt_at_rest(db(dir.path()), &other).await,
    ] {
        match result {
            Err(Error::Encryption { problem: EncryptionProblem::KeyRejected, .. }) => {}
            other => panic!("a wrong key was not refused: {other:?}"),
        }
    }
    let out = memstr(dir.path())
        .arg("--dir")
        .arg(dir.path())
        .env("MEMSTR_NSEC", "1111111111111111111111111111111111111111111111111111111111111111")
        .arg("decrypt")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not open it"), "{out:?}");
    assert!(snapshot(dir.path()) == before, "a refused key changed a file");
    whole(dir.path(), "after the wrong keys").await;
}
