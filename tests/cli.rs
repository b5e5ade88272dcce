//! End-to-end tests of the `memstr` binary: every command and flag, run as a child
//! process against its own temporary store, with the developer's `MEMSTR_*` environment
//! removed so nothing outside the test can leak in.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use memstr::nostr::nips::nip19::FromBech32;
use memstr::nostr::nips::nip49::EncryptedSecretKey;
use memstr::Identity;
use serde_json::Value;
use tempfile::TempDir;

/// A public test key; never a real one.
const SECRET_HEX: &str = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a";
/// Another valid key (the scalar 3).
const OTHER_HEX: &str = "0000000000000000000000000000000000000000000000000000000000000003";
const PASSWORD: &str = "correct horse battery staple";
const DAY: f64 = 86_400.0;
/// An arbitrary fixed instant (2023-11-14 22:13:20Z).
const T0: f64 = 1_700_000_000.0;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// The captured result of one run of the binary.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn from_output(o: Output) -> Self {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8(o.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(o.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Asserts exit status 0 and returns stdout.
    fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "expected success: {self:#?}");
        self.stdout
    }

    /// Asserts exit status `code` and returns the run for further checks.
    fn code(self, code: i32) -> Self {
        assert_eq!(self.code, Some(code), "expected exit {code}: {self:#?}");
        self
    }

    /// Asserts success and parses stdout as one JSON document.
    fn json(self) -> Value {
        let out = self.ok();
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out}"))
    }
}

/// [`support::bare`], its output captured.
fn bare(sandbox: &Path) -> Command {
    let mut c = support::bare(sandbox);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn run(mut c: Command) -> Run {
    Run::from_output(c.output().expect("memstr runs"))
}

/// Runs `c` with `input` on its standard input.
fn run_with_stdin(mut c: Command, input: &str) -> Run {
    c.stdin(Stdio::piped());
    let mut child = c.spawn().expect("memstr runs");
    child.stdin.take().expect("piped stdin").write_all(input.as_bytes()).expect("write stdin");
    Run::from_output(child.wait_with_output().expect("memstr finishes"))
}

/// One isolated store: a temporary directory, used as `--dir`, and a secret key given
/// through `MEMSTR_NSEC`.
struct Store {
    tmp: TempDir,
    secret: &'static str,
}

impl Store {
    /// A store made by `init --from-env --no-key-file` for the test key (only `init`
    /// creates a store).
    fn new() -> Self {
        Self::with_key(SECRET_HEX)
    }

    /// [`Store::new`] for another key.
    fn with_key(secret: &'static str) -> Self {
        let st = Self::blank_with_key(secret);
        st.ok(&["init", "--from-env", "--no-key-file"]);
        st
    }

    /// A directory with no store yet, for tests of `init` and of its absence.
    fn blank() -> Self {
        Self::blank_with_key(SECRET_HEX)
    }

    fn blank_with_key(secret: &'static str) -> Self {
        Store { tmp: tempfile::tempdir().expect("tempdir"), secret }
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("store")
    }

    fn path(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    /// The binary with `--dir` and `MEMSTR_NSEC` set, then `args`.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = bare(self.tmp.path());
        c.env("MEMSTR_NSEC", self.secret).arg("--dir").arg(self.dir()).args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Run {
        run(self.cmd(args))
    }

    fn ok(&self, args: &[&str]) -> String {
        self.run(args).ok()
    }

    /// Runs with `--json` appended (the flag is global) and parses the output.
    fn json(&self, args: &[&str]) -> Value {
        let mut c = self.cmd(args);
        c.arg("--json");
        run(c).json()
    }
}

fn s(x: f64) -> String {
    format!("{x}")
}

fn assert_close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
}

fn is_event_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

fn test_identity() -> Identity {
    Identity::from_secret(SECRET_HEX).expect("the test key is valid")
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// A persona memory at `T0` with the default halflife (30 days).
fn add_persona(st: &Store, domain: &str, facet: &str, key: &str, value: &str) {
    st.ok(&["persona", "add", domain, facet, key, value, "--at", &s(T0)]);
}

// ---------------------------------------------------------------------------------------
// Global options and their environment variables
// ---------------------------------------------------------------------------------------

#[test]
fn dir_flag_puts_the_store_in_dir() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    let db = st.dir().join("memstr.db");
    assert!(db.is_file(), "{} should exist", db.display());
    let stats = st.json(&["stats"]);
    assert_eq!(stats["path"], db.display().to_string());
    assert!(!st.path("xdg").exists() && !st.path("home").exists(), "nothing written to the default data dir");
}

#[test]
fn memstr_dir_env_selects_the_store() {
    let st = Store::new();
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_NSEC", SECRET_HEX).env("MEMSTR_DIR", st.dir()).args(["remember", "k", "from-env"]);
    run(c).ok();
    assert!(st.dir().join("memstr.db").is_file());
    // The same store, reached with --dir.
    assert_eq!(st.ok(&["recall", "k"]), "from-env\n");
}

#[test]
fn dir_flag_overrides_memstr_dir_env() {
    let st = Store::new();
    let elsewhere = st.path("elsewhere");
    let mut c = st.cmd(&["remember", "k", "v"]);
    c.env("MEMSTR_DIR", &elsewhere);
    run(c).ok();
    assert!(st.dir().join("memstr.db").is_file());
    assert!(!elsewhere.exists(), "MEMSTR_DIR must lose to --dir");
}

#[test]
fn store_directory_and_files_are_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let st = Store::new();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // A permissive umask, as a shared machine might have.
    let umask0 = |args: &str| {
        let mut c = bare(st.tmp.path());
        c.env("MEMSTR_NSEC", SECRET_HEX)
            .arg("--dir")
            .arg(st.dir())
            .args(args.split(' '))
            .env("MEMSTR_BIN", env!("CARGO_BIN_EXE_memstr"));
        let mut sh = Command::new("sh");
        sh.arg("-c").arg("umask 000; exec \"$MEMSTR_BIN\" \"$@\"").arg("sh").args(c.get_args());
        for (k, v) in c.get_envs() {
            match v {
                Some(v) => sh.env(k, v),
                None => sh.env_remove(k),
            };
        }
        run(sh).ok()
    };
    umask0("remember k v");
    let out = st.path("backup.jsonl");
    umask0(&format!("export --events --output {}", out.display()));
    assert_eq!(mode(&st.dir()), 0o700, "store directory");
    for name in ["memstr.db", "memstr.db-wal", "memstr.db-shm"] {
        let p = st.dir().join(name);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{name}");
        }
    }
    assert!(st.dir().join("memstr.db").exists());
    assert_eq!(mode(&out), 0o600, "export file");
    // A store made before this rule, with open modes, is narrowed when next opened.
    std::fs::set_permissions(st.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(st.dir().join("memstr.db"), std::fs::Permissions::from_mode(0o644)).unwrap();
    st.ok(&["recall", "k"]);
    assert_eq!(mode(&st.dir()), 0o700);
    assert_eq!(mode(&st.dir().join("memstr.db")), 0o600);
}

#[test]
fn model_install_hands_no_secrets_to_the_fetch_script() {
    let st = Store::new();
    let script = st.path("fetch.sh");
    let seen = st.path("env.txt");
    std::fs::write(&script, format!("env > '{}'\nexit 1\n", seen.display())).unwrap();
    let mut c = st.cmd(&["model", "install"]);
    c.env("MEMSTR_FETCH_SCRIPT", &script).env("MEMSTR_PASSWORD", PASSWORD);
    assert_ne!(run(c).code, Some(0), "the script failed on purpose");
    let env = std::fs::read_to_string(&seen).unwrap();
    assert!(env.contains("MEMSTR_FETCH_SCRIPT="), "the script ran with memstr's environment: {env}");
    for secret in ["MEMSTR_NSEC", "MEMSTR_PASSWORD", SECRET_HEX, PASSWORD] {
        assert!(!env.contains(secret), "{secret} reached the child process");
    }
}

#[test]
fn model_install_runs_the_script_built_into_the_binary_not_the_source_tree() {
    let st = Store::new();
    // A `bash` first on PATH that records how memstr called it, and fails.
    let bin = st.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (args, env) = (st.path("args.txt"), st.path("env.txt"));
    let fake = bin.join("bash");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nenv > '{}'\nexit 1\n", args.display(), env.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut c = st.cmd(&["model", "install"]);
    c.env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()))
        .env("MEMSTR_PASSWORD", PASSWORD)
        .env("MEMSTR_CACHE_DIR", st.path("cache"));
    assert_ne!(run(c).code, Some(0), "the fake bash failed on purpose");
    let args = std::fs::read_to_string(&args).expect("memstr ran bash");
    assert!(args.starts_with("-c\n"), "the script is handed over as text: {args}");
    assert!(args.contains("ORT_SHA256="), "the whole script, pins included: {args}");
    let source = env!("CARGO_MANIFEST_DIR");
    assert!(!args.contains(source), "the source tree ({source}) is not needed: {args}");
    let env = std::fs::read_to_string(&env).unwrap();
    for secret in ["MEMSTR_NSEC", "MEMSTR_PASSWORD", SECRET_HEX, PASSWORD] {
        assert!(!env.contains(secret), "{secret} reached the installer");
    }
}

#[test]
fn a_dash_reads_every_value_from_standard_input() {
    let st = Store::new();
    run_with_stdin(st.cmd(&["remember", "wifi", "-"]), "correct horse\n").ok();
    assert_eq!(st.ok(&["recall", "wifi"]), "correct horse\n");
    run_with_stdin(st.cmd(&["journal", "-"]), "a day\nwith two lines\r\n").ok();
    assert_eq!(st.json(&["recent"])[0]["content"], "a day\nwith two lines");
    run_with_stdin(st.cmd(&["persona", "add", "people", "facts", "alice", "-"]), "likes tea").ok();
    assert_eq!(st.json(&["persona", "get", "people", "facts", "alice", "--peek"])["value"], "likes tea");
    run_with_stdin(st.cmd(&["fact", "set", "people", "alice", "drink", "-"]), "green tea\n").ok();
    assert_eq!(st.ok(&["fact", "get", "people", "alice", "drink"]), "green tea\n");
}

#[test]
fn a_read_only_store_can_still_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    // Root ignores file modes: run the binary as nobody then (CI runs as root).
    let root = String::from_utf8(Command::new("id").arg("-u").output().unwrap().stdout).unwrap().trim() == "0";
    let memstr = |args: &[&str]| -> Run {
        let mut c = if root {
            std::os::unix::fs::chown(tmp.path(), Some(65534), Some(65534)).unwrap();
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_memstr")]);
            c
        } else {
            Command::new(env!("CARGO_BIN_EXE_memstr"))
        };
        c.env_clear()
            .env("HOME", tmp.path())
            .env("MEMSTR_NSEC", SECRET_HEX)
            .arg("--dir")
            .arg(&dir)
            .args(args)
            .stdin(Stdio::null());
        run(c)
    };
    memstr(&["init", "--from-env", "--no-key-file"]).ok();
    memstr(&["remember", "k", "kept"]).ok();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400)).unwrap();
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    assert_eq!(memstr(&["recall", "k"]).ok(), "kept\n");
    let r = memstr(&["remember", "k", "changed"]);
    assert_ne!(r.code, Some(0), "a write to a read-only store fails: {r:?}");
    assert!(r.stderr.contains("is read-only"), "and says why: {}", r.stderr);
    assert_eq!(memstr(&["recall", "k"]).ok(), "kept\n", "and changes nothing");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn payload_clock_dates_the_memory_but_never_the_signed_event() {
    let st = Store::new();
    st.ok(&["--payload-clock", "1234.5", "remember", "k", "v"]);
    let m = st.json(&["recall", "k"]);
    assert_eq!(m["created_at"], 1234.5);
    let exported = st.ok(&["export", "--events"]);
    let e: Value = serde_json::from_str(lines(&exported)[0]).unwrap();
    let signed = e["created_at"].as_f64().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    assert!((signed - now).abs() < 120.0, "created_at {signed} is not the system clock's {now}");
}

#[test]
fn now_flag_only_evaluates_it_refuses_writes_and_peeks() {
    let st = Store::new();
    let r = st.run(&["--now", "4102444800", "remember", "k", "v"]);
    assert_eq!(r.code, Some(2), "{r:#?}");
    assert!(r.stderr.contains("--now"), "the error names --now: {}", r.stderr);
    assert_eq!(st.json(&["stats"])["events"], 0, "nothing was signed");
    add_persona(&st, "people", "prefs", "alice", "likes tea");
    let events = st.json(&["stats"])["events"].clone();
    // A read in 2100: the memory is evaluated then, no access is counted, nothing signed.
    let far = st.json(&["--now", "4102444800", "persona", "get", "people", "prefs", "alice"]);
    assert_eq!(far["access_count"], 0, "{far}");
    let mut c = st.cmd(&["persona", "get", "people", "prefs", "alice", "--peek", "--json"]);
    c.env("MEMSTR_NOW", "4102444800");
    assert_eq!(run(c).json()["access_count"], 0);
    assert_eq!(st.json(&["stats"])["events"], events, "a read with --now signs nothing");
    let exported = st.ok(&["export", "--events"]);
    for line in lines(&exported) {
        let e: Value = serde_json::from_str(line).unwrap();
        assert!(e["created_at"].as_i64().unwrap() < 4_000_000_000, "nothing dated 2100: {e}");
    }
}

#[test]
fn json_flag_is_global_before_or_after_the_command() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    let before = run({
        let mut c = bare(st.tmp.path());
        c.env("MEMSTR_NSEC", SECRET_HEX).arg("--json").arg("--dir").arg(st.dir()).args(["recall", "k"]);
        c
    })
    .json();
    let after = st.json(&["recall", "k"]);
    assert_eq!(before, after);
    assert_eq!(after["key"], "k");
    assert_eq!(after["value"], "v");
}

#[test]
fn d_tags_default_is_blinded() {
    let st = Store::new();
    st.ok(&["remember", "hidden-key", "v"]);
    assert_eq!(st.json(&["stats"])["d_tag_mode"], "blinded");
    let exported = st.ok(&["export", "--events"]);
    assert!(!exported.contains("hidden-key"), "{exported}");
    assert!(!exported.contains("sense-memory/"), "{exported}");
}

#[test]
fn d_tags_compatible_writes_plain_paths_and_is_remembered() {
    let st = Store::new();
    st.ok(&["--d-tags", "compatible", "remember", "visible-key", "v"]);
    st.ok(&["remember", "second-key", "v"]);
    assert_eq!(st.json(&["stats"])["d_tag_mode"], "compatible");
    let exported = st.ok(&["export", "--events"]);
    assert!(exported.contains("sense-memory/visible-key"), "{exported}");
    assert!(exported.contains("sense-memory/second-key"), "{exported}");
}

#[test]
fn status_of_a_store_gone_blinded_counts_its_plain_events() {
    let st = Store::new();
    st.ok(&["--d-tags", "compatible", "remember", "k", "v"]);
    st.ok(&["forget", "k"]);
    st.ok(&["--d-tags", "blinded", "remember", "other", "v"]);
    let status = st.json(&["status"]);
    // The plain tombstone and deletion were never acknowledged by a relay: withheld, and
    // not counted as waiting in the outbox.
    assert_eq!(status["events"], 3, "{status}");
    assert_eq!(status["plain_published"], 0, "{status}");
    assert_eq!(status["plain_withheld"], 2, "{status}");
    assert_eq!(status["outbox"], 1, "{status}");
    let text = st.ok(&["status"]);
    assert!(text.contains("withheld: 2 events with plain paths"), "{text}");
}

#[test]
fn d_tags_blinded_hides_paths_and_is_remembered() {
    let st = Store::new();
    st.ok(&["--d-tags", "blinded", "remember", "hidden-key", "v"]);
    // Remembered by the store: no flag needed afterwards.
    assert_eq!(st.json(&["stats"])["d_tag_mode"], "blinded");
    assert_eq!(st.ok(&["recall", "hidden-key"]), "v\n");
    let exported = st.ok(&["export", "--events"]);
    assert!(!exported.contains("hidden-key"), "blinded d tags must not show the key: {exported}");
    assert!(!exported.contains("sense-memory/"), "{exported}");
}

#[test]
fn d_tags_compatible_switches_a_blinded_store_back() {
    let st = Store::new();
    st.ok(&["--d-tags", "blinded", "--payload-clock", &s(T0), "remember", "k", "old"]);
    st.ok(&["--d-tags", "compatible", "--payload-clock", &s(T0 + 10.0), "remember", "k", "new"]);
    assert_eq!(st.json(&["stats"])["d_tag_mode"], "compatible");
    assert_eq!(st.ok(&["recall", "--all"]), "k\tnew\n");
    let exported = st.ok(&["export", "--events"]);
    assert!(exported.contains("sense-memory/k"), "{exported}");
}

#[test]
fn memstr_d_tags_env_selects_blinded() {
    let st = Store::new();
    let mut c = st.cmd(&["remember", "hidden-key", "v"]);
    c.env("MEMSTR_D_TAGS", "blinded");
    run(c).ok();
    assert_eq!(st.json(&["stats"])["d_tag_mode"], "blinded");
    assert!(!st.ok(&["export", "--events"]).contains("hidden-key"));
}

#[test]
fn d_tags_rejects_unknown_mode() {
    let st = Store::blank();
    let r = st.run(&["--d-tags", "sideways", "remember", "k", "v"]).code(2);
    assert!(r.stderr.contains("sideways"), "{}", r.stderr);
    assert!(!st.dir().join("memstr.db").exists(), "nothing written on a usage error");
}

// ---------------------------------------------------------------------------------------
// init, key files, whoami
// ---------------------------------------------------------------------------------------

/// `memstr --dir DIR init --log-n 4` with the password in the environment and no MEMSTR_NSEC.
fn init_cmd(st: &Store, extra: &[&str]) -> Command {
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_PASSWORD", PASSWORD).arg("--dir").arg(st.dir()).arg("init").args(["--log-n", "4"]).args(extra);
    c
}

/// The binary with `--dir` and the password, but no MEMSTR_NSEC: the key comes from the file.
fn keyed_cmd(st: &Store, password: &str, args: &[&str]) -> Command {
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_PASSWORD", password).arg("--dir").arg(st.dir()).args(args);
    c
}

fn ncryptsec_log_n(path: &Path) -> u8 {
    let text = std::fs::read_to_string(path).expect("key file");
    EncryptedSecretKey::from_bech32(text.trim()).expect("a NIP-49 key").log_n()
}

#[test]
fn init_generates_key_file_and_store() {
    let st = Store::blank();
    let mut c = init_cmd(&st, &[]);
    c.arg("--json");
    let out = run(c).json();
    let key_file = st.dir().join("key.ncryptsec");
    assert_eq!(out["key_file"], key_file.display().to_string());
    assert_eq!(out["store"], st.dir().join("memstr.db").display().to_string());
    assert_eq!(out["d_tag_mode"], "blinded");
    assert!(out["relays_see"].as_str().unwrap().contains("N events"), "{out}");
    let npub = out["npub"].as_str().unwrap().to_string();
    assert!(npub.starts_with("npub1"), "{npub}");
    assert_ne!(npub, test_identity().npub(), "without --from-env a new key is generated");
    assert!(std::fs::read_to_string(&key_file).unwrap().starts_with("ncryptsec1"));
    assert_eq!(ncryptsec_log_n(&key_file), 4, "--log-n sets the scrypt cost");
    assert!(st.dir().join("memstr.db").is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // The key file now serves every command.
    assert_eq!(run(keyed_cmd(&st, PASSWORD, &["whoami"])).ok(), format!("{npub}\n"));
    run(keyed_cmd(&st, PASSWORD, &["remember", "k", "v"])).ok();
    assert_eq!(run(keyed_cmd(&st, PASSWORD, &["recall", "k"])).ok(), "v\n");
}

#[test]
fn init_text_output_names_key_file_and_store() {
    let st = Store::blank();
    let out = run(init_cmd(&st, &[])).ok();
    assert!(out.starts_with("created key npub1"), "{out}");
    assert!(out.contains(&st.dir().join("key.ncryptsec").display().to_string()), "{out}");
    assert!(out.contains("d tags:   blinded"), "{out}");
    assert!(out.contains("relays see only that this key stores N events"), "{out}");
}

#[test]
fn init_compatible_says_what_relays_see() {
    let st = Store::blank();
    let out = run(init_cmd(&st, &["--d-tags", "compatible"])).ok();
    assert!(out.contains("d tags:   compatible"), "{out}");
    assert!(out.contains("relays see every key, domain and facet name"), "{out}");
}

/// Without the `encryption` feature, asking for encryption at rest is a clear error naming
/// it, and leaves nothing behind (tests/encryption.rs covers the feature itself).
#[cfg(not(feature = "encryption"))]
#[test]
fn encryption_at_rest_without_the_feature_names_it() {
    let st = Store::blank();
    let r = run(init_cmd(&st, &["--encrypt"]));
    assert_ne!(r.code, Some(0), "{r:#?}");
    let err = r.stderr;
    assert!(err.contains("`encryption` cargo feature"), "{err}");
    assert!(!st.dir().join("key.ncryptsec").exists(), "no key file written");
    assert!(!st.dir().join("memstr.db").exists(), "no store created");
    st.ok(&["init", "--from-env", "--no-key-file"]);
    st.ok(&["remember", "k", "v"]);
    for cmd in ["encrypt", "decrypt"] {
        let r = st.run(&[cmd]);
        assert_ne!(r.code, Some(0), "{r:#?}");
        let err = r.stderr;
        assert!(err.contains("`encryption` cargo feature"), "{cmd}: {err}");
    }
    assert_eq!(st.ok(&["recall", "k"]), "v\n");
}

#[test]
fn commands_other_than_init_refuse_a_directory_with_no_store() {
    let st = Store::blank();
    for args in [
        &["recall", "--all"][..],
        &["remember", "k", "v"],
        &["search", "anything", "--no-vectors"],
        &["stats"],
        &["persona", "list"],
        &["relay", "add", "ws://127.0.0.1:7777"],
        &["sync"],
        &["import", "--events", "/dev/null"],
        &["--now", "3d", "recall", "--all"],
        &["encrypt"],
    ] {
        let r = st.run(args).code(2);
        assert!(r.stderr.contains("no store at") && r.stderr.contains("memstr init"), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {r:#?}");
    }
    assert!(!st.dir().join("memstr.db").exists(), "nothing created");
    // whoami needs only the key.
    assert_eq!(st.ok(&["whoami"]), format!("{}\n", test_identity().npub()));

    // `init --from-env --no-key-file` makes the store and no key file; then they work.
    let out = st.ok(&["init", "--from-env", "--no-key-file"]);
    assert!(out.contains("key file: none"), "{out}");
    assert!(st.dir().join("memstr.db").is_file());
    assert!(!st.dir().join("key.ncryptsec").exists(), "no key file, no password asked");
    st.ok(&["remember", "k", "v"]);
    assert_eq!(st.ok(&["recall", "k"]), "v\n");
    // Run again, it changes nothing.
    st.ok(&["init", "--from-env", "--no-key-file"]);
    assert_eq!(st.ok(&["recall", "k"]), "v\n");
    // Without --from-env the same: MEMSTR_NSEC set means that key (issue 22).
    let out = st.ok(&["init", "--no-key-file"]);
    assert!(out.contains("key from MEMSTR_NSEC") && out.contains("already there"), "{out}");
}

#[test]
fn init_from_env_encrypts_the_given_key() {
    let st = Store::new();
    let mut c = init_cmd(&st, &["--from-env"]);
    c.env("MEMSTR_NSEC", SECRET_HEX).arg("--json");
    let out = run(c).json();
    assert_eq!(out["npub"], test_identity().npub());
    assert_eq!(out["public_key"], test_identity().public_key().to_hex());
    // Loaded back from the file alone.
    assert_eq!(run(keyed_cmd(&st, PASSWORD, &["whoami"])).ok(), format!("{}\n", test_identity().npub()));
}

#[test]
fn init_from_env_without_memstr_nsec_fails() {
    let st = Store::new();
    let r = run(init_cmd(&st, &["--from-env"])).code(2);
    assert!(r.stderr.contains("--from-env") && r.stderr.contains("MEMSTR_NSEC"), "{}", r.stderr);
    assert!(!st.dir().join("key.ncryptsec").exists());
}

#[test]
fn init_with_default_log_n_writes_cost_16() {
    let st = Store::new();
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_PASSWORD", PASSWORD)
        .env("MEMSTR_NSEC", SECRET_HEX)
        .arg("--dir")
        .arg(st.dir())
        .args(["init", "--from-env"]);
    run(c).ok();
    assert_eq!(ncryptsec_log_n(&st.dir().join("key.ncryptsec")), 16);
}

#[test]
fn init_log_n_out_of_range_exits_2() {
    let st = Store::new();
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_PASSWORD", PASSWORD).arg("--dir").arg(st.dir()).args(["init", "--log-n", "0"]);
    run(c).code(2);
    assert!(!st.dir().join("key.ncryptsec").exists());
}

#[test]
fn init_never_overwrites_a_key_file_and_says_when_the_store_is_already_there() {
    let st = Store::blank();
    run(init_cmd(&st, &[])).ok();
    let key_file = st.dir().join("key.ncryptsec");
    let before = std::fs::read_to_string(&key_file).unwrap();
    // Again: the key file's own key, the store already there; nothing changes.
    let r = run(init_cmd(&st, &[])).ok();
    assert!(r.contains("key from the key file") && r.contains("already there for this key"), "{r}");
    // Another key, from the environment: refused, naming both keys.
    let mut c = init_cmd(&st, &["--from-env"]);
    c.env("MEMSTR_NSEC", SECRET_HEX);
    let r = run(c).code(2);
    assert!(
        r.stderr.contains("refusing to replace a key") && r.stderr.contains(&test_identity().npub()),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), before, "the key file is untouched");
}

#[test]
fn wrong_password_is_a_clear_error_exit_2() {
    let st = Store::blank();
    run(init_cmd(&st, &[])).ok();
    let r = run(keyed_cmd(&st, "not the password", &["whoami"])).code(2);
    assert!(r.stderr.contains("wrong password"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let r = run(keyed_cmd(&st, "not the password", &["recall", "k"])).code(2);
    assert!(r.stderr.contains("wrong password"), "{}", r.stderr);
}

#[test]
fn key_file_without_password_and_without_terminal_fails() {
    let st = Store::blank();
    run(init_cmd(&st, &[])).ok();
    let mut c = bare(st.tmp.path());
    c.arg("--dir").arg(st.dir()).arg("whoami");
    let r = run(c).code(2);
    assert!(r.stderr.contains("MEMSTR_PASSWORD"), "{}", r.stderr);
}

#[test]
fn missing_key_mentions_memstr_init() {
    let st = Store::blank();
    let mut c = bare(st.tmp.path());
    c.arg("--dir").arg(st.dir()).args(["recall", "k"]);
    let r = run(c).code(2);
    assert!(r.stderr.contains("memstr init"), "{}", r.stderr);
    assert!(!st.dir().join("memstr.db").exists(), "no store is created without a key");
}

#[test]
fn key_file_flag_and_env_locate_the_key() {
    let st = Store::new();
    let key_file = st.path("keys/agent.ncryptsec");
    let mut c = init_cmd(&st, &["--from-env"]);
    c.env("MEMSTR_NSEC", SECRET_HEX).arg("--key-file").arg(&key_file);
    run(c).ok();
    assert!(key_file.is_file());
    assert!(!st.dir().join("key.ncryptsec").exists(), "--key-file replaces DIR/key.ncryptsec");
    let npub = format!("{}\n", test_identity().npub());

    let mut c = keyed_cmd(&st, PASSWORD, &["whoami", "--key-file"]);
    c.arg(&key_file);
    assert_eq!(run(c).ok(), npub);

    let mut c = keyed_cmd(&st, PASSWORD, &["whoami"]);
    c.env("MEMSTR_KEY_FILE", &key_file);
    assert_eq!(run(c).ok(), npub);

    // Without either, the default location is empty.
    let r = run(keyed_cmd(&st, PASSWORD, &["whoami"])).code(2);
    assert!(r.stderr.contains("memstr init"), "{}", r.stderr);
}

#[test]
fn empty_environment_variables_count_as_unset() {
    let st = Store::blank();
    let npub = run(init_cmd(&st, &["--json"])).json()["npub"].as_str().unwrap().to_string();
    let mut c = keyed_cmd(&st, PASSWORD, &["whoami"]);
    for name in ["MEMSTR_NSEC", "MEMSTR_KEY_FILE", "MEMSTR_NOW", "MEMSTR_D_TAGS", "MEMSTR_DECAY", "MEMSTR_DISSOLVE"] {
        c.env(name, "");
    }
    // The key comes from the key file: the empty MEMSTR_NSEC is not a (bad) key.
    assert_eq!(run(c).ok(), format!("{npub}\n"));

    // An empty MEMSTR_DIR means the default directory, not the empty path.
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_DIR", "").env("MEMSTR_PASSWORD", PASSWORD).args(["init", "--log-n", "4", "--json"]);
    let store = run(c).json()["store"].as_str().unwrap().to_string();
    assert!(store.starts_with(&st.path("xdg").display().to_string()), "{store}");
}

#[test]
fn memstr_nsec_takes_precedence_over_key_file() {
    let st = Store::blank();
    run(init_cmd(&st, &[])).ok();
    let mut c = keyed_cmd(&st, "wrong password is never used", &["whoami"]);
    c.env("MEMSTR_NSEC", SECRET_HEX);
    assert_eq!(run(c).ok(), format!("{}\n", test_identity().npub()));
}

#[test]
fn whoami_prints_npub_of_memstr_nsec() {
    let st = Store::blank();
    let id = test_identity();
    assert_eq!(st.ok(&["whoami"]), format!("{}\n", id.npub()));
    let j = st.json(&["whoami"]);
    assert_eq!(j["npub"], id.npub());
    assert_eq!(j["public_key"], id.public_key().to_hex());
    // The same key given as an nsec.
    let mut c = bare(st.tmp.path());
    c.env("MEMSTR_NSEC", id.reveal_nsec().as_str()).arg("--dir").arg(st.dir()).arg("whoami");
    assert_eq!(run(c).ok(), format!("{}\n", id.npub()));
    assert!(!st.dir().join("memstr.db").exists(), "whoami does not open the store");
}

#[test]
fn store_of_another_key_refuses_to_open() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    let mut c = st.cmd(&["recall", "k"]);
    c.env("MEMSTR_NSEC", OTHER_HEX);
    let r = run(c).code(2);
    assert!(r.stderr.contains("belongs to public key"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------
// Flat memories: remember, recall, forget
// ---------------------------------------------------------------------------------------

#[test]
fn remember_prints_the_address_to_forget_it_by_and_the_event_id() {
    let st = Store::new();
    let out = st.ok(&["remember", "k", "v"]);
    let (address, id) = out.trim_end().split_once('\t').unwrap();
    assert_eq!(address, "kv/k");
    assert!(is_event_id(id), "{out}");
    let j = st.json(&["remember", "k2", "v"]);
    assert!(is_event_id(j["event_id"].as_str().unwrap()), "{j}");
    assert_eq!(j["address"], "kv/k2");
    st.ok(&["forget", address]);
    st.run(&["recall", "k"]).code(1);
}

#[test]
fn recall_prints_the_value() {
    let st = Store::new();
    st.ok(&["remember", "greeting", "hello world"]);
    assert_eq!(st.ok(&["recall", "greeting"]), "hello world\n");
}

#[test]
fn recall_json_has_key_value_and_at_timestamp() {
    let st = Store::new();
    st.ok(&["remember", "k", "v", "--at", "1000.25"]);
    let j = st.json(&["recall", "k"]);
    assert_eq!(j, serde_json::json!({"key": "k", "value": "v", "created_at": 1000.25}));
}

#[test]
fn remember_replaces_the_previous_value() {
    let st = Store::new();
    st.ok(&["remember", "k", "one", "--at", &s(T0)]);
    // Even with an older timestamp, the later write wins.
    st.ok(&["remember", "k", "two", "--at", &s(T0 - 100.0)]);
    assert_eq!(st.ok(&["recall", "k"]), "two\n");
    assert_eq!(st.json(&["stats"])["kv"], 1);
}

#[test]
fn recall_missing_key_exits_1() {
    let st = Store::new();
    let r = st.run(&["recall", "nothing-here"]).code(1);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("not found: nothing-here"), "{}", r.stderr);
}

#[test]
fn recall_missing_key_json_prints_null() {
    let st = Store::new();
    let mut c = st.cmd(&["recall", "nothing-here"]);
    c.arg("--json");
    let r = run(c).code(1);
    assert_eq!(r.stdout.trim_end(), "null");
}

#[test]
fn recall_all_lists_every_memory_by_key() {
    let st = Store::new();
    assert_eq!(st.ok(&["recall", "--all"]), "");
    assert_eq!(st.json(&["recall", "--all"]), serde_json::json!([]));
    st.ok(&["remember", "b", "two", "--at", "20"]);
    st.ok(&["remember", "a", "one", "--at", "10"]);
    assert_eq!(st.ok(&["recall", "--all"]), "a\tone\nb\ttwo\n");
    let j = st.json(&["recall", "--all"]);
    assert_eq!(
        j,
        serde_json::json!([
            {"key": "a", "value": "one", "created_at": 10.0},
            {"key": "b", "value": "two", "created_at": 20.0},
        ])
    );
}

#[test]
fn recall_needs_exactly_one_of_key_or_all() {
    let st = Store::new();
    st.run(&["recall"]).code(2);
    st.run(&["recall", "k", "--all"]).code(2);
}

#[test]
fn forget_makes_recall_exit_1() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    st.ok(&["remember", "keep", "w"]);
    let out = st.ok(&["forget", "k"]);
    assert!(is_event_id(out.trim_end()), "{out}");
    st.run(&["recall", "k"]).code(1);
    assert_eq!(st.ok(&["recall", "--all"]), "keep\tw\n");
    let stats = st.json(&["stats"]);
    assert_eq!(stats["kv"], 1);
    assert_eq!(stats["deleted"], 1);
}

#[test]
fn forget_json_prints_the_deletion_event_id() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    let j = st.json(&["forget", "k"]);
    let id = j["event_id"].as_str().unwrap();
    let exported = st.ok(&["export", "--events"]);
    let deletion = lines(&exported)
        .into_iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["id"] == id)
        .expect("the deletion is exported");
    assert_eq!(deletion["kind"], 5);
}

#[test]
fn remember_after_forget_restores_the_key() {
    let st = Store::new();
    st.ok(&["--payload-clock", &s(T0), "remember", "k", "v1"]);
    st.ok(&["--payload-clock", &s(T0 + 10.0), "forget", "k"]);
    st.ok(&["--payload-clock", &s(T0 + 20.0), "remember", "k", "v2"]);
    assert_eq!(st.ok(&["recall", "k"]), "v2\n");
}

#[test]
fn remember_key_with_slash_exits_2_naming_forbidden_character() {
    let st = Store::new();
    let r = st.run(&["remember", "a/b", "v"]).code(2);
    assert!(r.stderr.contains("forbidden-character"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    st.run(&["recall", "a/b"]).code(2);
    let r = st.run(&["remember", "a..b", "v"]).code(2);
    assert!(r.stderr.contains("no-path-traversal"), "{}", r.stderr);
    assert_eq!(st.json(&["stats"])["events"], 0);
}

// ---------------------------------------------------------------------------------------
// Journal
// ---------------------------------------------------------------------------------------

#[test]
fn recent_lists_newest_first() {
    let st = Store::new();
    st.ok(&["journal", "first", "--at", "0"]);
    st.ok(&["journal", "third", "--at", &s(2.0 * DAY + 3661.0)]);
    st.ok(&["journal", "second", "--at", &s(DAY)]);
    assert_eq!(
        st.ok(&["recent"]),
        "1970-01-03 01:01:01Z  third\n1970-01-02 00:00:00Z  second\n1970-01-01 00:00:00Z  first\n"
    );
    let j = st.json(&["recent"]);
    assert_eq!(j[0], serde_json::json!({"content": "third", "created_at": 2.0 * DAY + 3661.0}));
    assert_eq!(j.as_array().unwrap().len(), 3);
}

#[test]
fn recent_limit_and_n_cap_the_entries() {
    let st = Store::new();
    for i in 0..5 {
        st.ok(&["journal", &format!("entry {i}"), "--at", &s(T0 + f64::from(i))]);
    }
    let two = st.ok(&["recent", "-n", "2"]);
    assert_eq!(lines(&two).len(), 2);
    assert!(two.starts_with("2023-11-14 22:13:24Z  entry 4\n"), "{two}");
    assert!(two.ends_with("entry 3\n"), "{two}");
    let one = st.json(&["recent", "--limit", "1"]);
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(one[0]["content"], "entry 4");
    // The default limit is 20.
    assert_eq!(st.json(&["recent"]).as_array().unwrap().len(), 5);
}

#[test]
fn journal_prints_event_id_and_keeps_entries_at_the_same_instant() {
    let st = Store::new();
    let a = st.ok(&["journal", "one", "--at", &s(T0)]);
    let b = st.json(&["journal", "two", "--at", &s(T0)]);
    let (address, id) = a.trim_end().split_once('\t').unwrap();
    assert!(address.starts_with("journal/") && is_event_id(id), "{a}");
    assert!(b["address"].as_str().unwrap().starts_with("journal/"), "{b}");
    assert_ne!(b["event_id"].as_str().unwrap(), id);
    assert_eq!(st.json(&["recent"]).as_array().unwrap().len(), 2);
    assert_eq!(st.json(&["stats"])["journal"], 2);
}

#[test]
fn journal_rejects_empty_text() {
    let st = Store::new();
    let r = st.run(&["journal", ""]).code(2);
    assert!(r.stderr.contains("non-empty"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------
// Persona memories
// ---------------------------------------------------------------------------------------

const PERSONA_FIELDS: &[&str] = &[
    "domain",
    "facet",
    "key",
    "value",
    "relevance",
    "halflife_days",
    "last_accessed",
    "last_reinforced",
    "access_count",
    "connections",
    "contradicts",
    "superseded_by",
    "themes",
    "source",
    "confidence",
    "state",
    "created_at",
    "current_relevance",
    "stored_state",
];

#[test]
fn persona_add_stores_every_flag() {
    let st = Store::new();
    let out = st.ok(&[
        "persona",
        "add",
        "people",
        "prefs",
        "alice",
        "likes green tea",
        "--theme",
        "tea",
        "--theme",
        "drinks",
        "--connect",
        "bob",
        "--source",
        "chat 2023-11-14",
        "--confidence",
        "0.8",
        "--halflife",
        "10",
        "--at",
        &s(T0),
    ]);
    assert!(is_event_id(out.trim_end()), "{out}");
    let m = st.json(&["--payload-clock", &s(T0), "persona", "get", "people", "prefs", "alice", "--peek"]);
    let obj = m.as_object().unwrap();
    for f in PERSONA_FIELDS {
        assert!(obj.contains_key(*f), "missing {f}: {m}");
    }
    assert_eq!(obj.len(), PERSONA_FIELDS.len(), "unexpected fields: {m}");
    assert_eq!(m["domain"], "people");
    assert_eq!(m["facet"], "prefs");
    assert_eq!(m["key"], "alice");
    assert_eq!(m["value"], "likes green tea");
    assert_eq!(m["themes"], serde_json::json!(["tea", "drinks"]));
    assert_eq!(m["connections"], serde_json::json!(["bob"]));
    assert_eq!(m["contradicts"], serde_json::json!([]));
    assert_eq!(m["superseded_by"], Value::Null);
    assert_eq!(m["source"], "chat 2023-11-14");
    assert_eq!(m["confidence"], 0.8);
    assert_eq!(m["halflife_days"], 10.0);
    assert_eq!(m["relevance"], 1.0);
    assert_eq!(m["access_count"], 0);
    for t in ["created_at", "last_accessed", "last_reinforced"] {
        assert_eq!(m[t], T0, "{t}");
    }
    assert_eq!(m["state"], "active");
    assert_eq!(m["stored_state"], "active");
    // One connection: a 10% boost.
    assert_close(&m["current_relevance"], 1.1);
}

#[test]
fn persona_add_text_get_shows_the_memory() {
    let st = Store::new();
    st.ok(&[
        "persona",
        "add",
        "people",
        "prefs",
        "alice",
        "likes tea",
        "--theme",
        "tea",
        "--source",
        "chat",
        "--at",
        &s(T0),
    ]);
    let out = st.ok(&["--payload-clock", &s(T0), "persona", "get", "people", "prefs", "alice", "--peek"]);
    assert_eq!(
        out,
        "people/prefs/alice: likes tea\n  state active (relevance 1.000), accessed 0 times, last 2023-11-14 22:13:20Z\n  themes: tea\n  confidence 1, halflife 30 days, source chat\n"
    );
}

#[test]
fn persona_add_again_updates_value_and_keeps_history() {
    let st = Store::new();
    st.ok(&["persona", "add", "people", "prefs", "alice", "tea", "--theme", "a", "--connect", "x", "--at", &s(T0)]);
    st.ok(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "prefs", "alice"]);
    st.ok(&["persona", "add", "people", "prefs", "alice", "coffee", "--connect", "y", "--at", &s(T0 + 2.0 * DAY)]);
    let m = st.json(&["--payload-clock", &s(T0 + 2.0 * DAY), "persona", "get", "people", "prefs", "alice", "--peek"]);
    assert_eq!(m["value"], "coffee");
    assert_eq!(m["created_at"], T0);
    assert_eq!(m["access_count"], 1);
    assert_eq!(m["themes"], serde_json::json!(["a"]), "no --theme keeps the themes");
    assert_eq!(m["connections"], serde_json::json!(["x", "y"]), "--connect adds");
    assert_eq!(m["last_reinforced"], T0 + 2.0 * DAY);
    assert_eq!(st.json(&["stats"])["persona"], 1);
}

#[test]
fn persona_add_confidence_out_of_range_exits_2_naming_range() {
    let st = Store::new();
    let r = st.run(&["persona", "add", "d", "f", "k", "v", "--confidence", "1.5"]).code(2);
    assert!(r.stderr.contains("range"), "{}", r.stderr);
    assert!(r.stderr.contains("confidence"), "{}", r.stderr);
    st.run(&["persona", "get", "d", "f", "k", "--peek"]).code(1);
}

#[test]
fn persona_add_rejects_bad_halflife_and_self_connection() {
    let st = Store::new();
    let r = st.run(&["persona", "add", "d", "f", "k", "v", "--halflife", "0"]).code(2);
    assert!(r.stderr.contains("positive"), "{}", r.stderr);
    let r = st.run(&["persona", "add", "d", "f", "k", "v", "--connect", "k"]).code(2);
    assert!(r.stderr.contains("no-self-reference"), "{}", r.stderr);
    let r = st.run(&["persona", "add", "d/x", "f", "k", "v"]).code(2);
    assert!(r.stderr.contains("forbidden-character"), "{}", r.stderr);
}

#[test]
fn persona_get_missing_exits_1() {
    let st = Store::new();
    let r = st.run(&["persona", "get", "d", "f", "nobody"]).code(1);
    assert!(r.stderr.contains("not found: d/f/nobody"), "{}", r.stderr);
    let mut c = st.cmd(&["persona", "get", "d", "f", "nobody", "--peek"]);
    c.arg("--json");
    assert_eq!(run(c).code(1).stdout.trim_end(), "null");
}

#[test]
fn persona_get_counts_access_and_shows_state_before_the_read() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "v");
    let at = s(T0 + 30.0 * DAY);
    let first = st.json(&["--payload-clock", &at, "persona", "get", "people", "facts", "alice"]);
    assert_eq!(first["access_count"], 0);
    assert_eq!(first["last_accessed"], T0);
    assert_close(&first["current_relevance"], 0.5);
    assert_eq!(first["state"], "active");
    let second = st.json(&["--payload-clock", &at, "persona", "get", "people", "facts", "alice"]);
    assert_eq!(second["access_count"], 1, "the first get counted one access");
    assert_eq!(second["last_accessed"], T0 + 30.0 * DAY);
    assert_close(&second["current_relevance"], 1.0);
    // Accesses are signed in batches (by age and count), not when a command ends: a
    // relay does not learn which memory a command read.
    let stats = st.json(&["stats"]);
    assert_eq!(stats["unsigned_accesses"], 1, "{stats}");
    assert_eq!(stats["events"], 1, "only the memory's own version is signed: {stats}");
}

#[test]
fn persona_get_peek_does_not_count_access() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "v");
    let before = st.json(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice", "--peek"]);
    let again = st.json(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice", "--peek"]);
    assert_eq!(before, again);
    assert_eq!(again["access_count"], 0);
    assert_eq!(again["last_accessed"], T0);
    let exported = st.ok(&["export", "--events"]);
    assert_eq!(st.ok(&["export", "--events"]), exported, "peeking signs nothing");
    st.ok(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice"]);
    let after = st.json(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice", "--peek"]);
    assert_eq!(after["access_count"], 1);
    assert_ne!(st.ok(&["export", "--events"]), exported, "the access was signed as a new version");
}

#[test]
fn persona_relevance_halves_each_halflife() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "v");
    let at30 =
        st.json(&["--payload-clock", &s(T0 + 30.0 * DAY), "persona", "get", "people", "facts", "alice", "--peek"]);
    assert_close(&at30["current_relevance"], 0.5);
    assert_eq!(at30["state"], "active");
    let at60 =
        st.json(&["--payload-clock", &s(T0 + 60.0 * DAY), "persona", "get", "people", "facts", "alice", "--peek"]);
    assert_close(&at60["current_relevance"], 0.25);
    assert_eq!(at60["state"], "fading");
    assert_eq!(at60["stored_state"], "active", "peeking stores nothing");
}

#[test]
fn memstr_now_env_sets_the_decay_instant() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "v");
    let mut c = st.cmd(&["persona", "get", "people", "facts", "alice", "--peek", "--json"]);
    c.env("MEMSTR_PAYLOAD_CLOCK", s(T0 + 60.0 * DAY));
    let j = run(c).json();
    assert_close(&j["current_relevance"], 0.25);
}

#[test]
fn persona_list_filters_by_domain_and_facet() {
    let st = Store::new();
    add_persona(&st, "work", "projects", "memstr", "rust");
    add_persona(&st, "people", "prefs", "bob", "coffee");
    add_persona(&st, "people", "facts", "alice", "tea");
    let now = s(T0);
    assert_eq!(
        st.ok(&["--payload-clock", &now, "persona", "list", "--peek"]),
        "people/facts/alice\tactive\t1.000\ttea\npeople/prefs/bob\tactive\t1.000\tcoffee\nwork/projects/memstr\tactive\t1.000\trust\n"
    );
    let people = st.json(&["--payload-clock", &now, "persona", "list", "people", "--peek"]);
    let keys: Vec<&str> = people.as_array().unwrap().iter().map(|m| m["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["alice", "bob"]);
    assert_eq!(
        st.ok(&["--payload-clock", &now, "persona", "list", "people", "prefs", "--peek"]),
        "people/prefs/bob\tactive\t1.000\tcoffee\n"
    );
    assert_eq!(st.ok(&["--payload-clock", &now, "persona", "list", "nobody", "--peek"]), "");
    let one = st.json(&["--payload-clock", &now, "persona", "list", "work", "projects", "--peek"]);
    assert_eq!(one[0]["stored_state"], "active");
    assert_close(&one[0]["current_relevance"], 1.0);
}

#[test]
fn persona_list_without_peek_counts_access() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "tea");
    add_persona(&st, "work", "projects", "memstr", "rust");
    st.ok(&["--payload-clock", &s(T0 + DAY), "persona", "list", "people"]);
    let alice = st.json(&["persona", "get", "people", "facts", "alice", "--peek"]);
    let memstr = st.json(&["persona", "get", "work", "projects", "memstr", "--peek"]);
    assert_eq!(alice["access_count"], 1);
    assert_eq!(memstr["access_count"], 0, "outside the filter: not accessed");
}

#[test]
fn persona_search_ranks_key_match_above_value_match() {
    let st = Store::new();
    add_persona(&st, "people", "prefs", "breakfast", "coffee and toast");
    add_persona(&st, "people", "prefs", "coffee", "black, no sugar");
    add_persona(&st, "people", "prefs", "lunch", "soup");
    let now = s(T0);
    let hits = st.json(&["--payload-clock", &now, "persona", "search", "coffee"]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0]["memory"]["key"], "coffee");
    assert_eq!(hits[0]["match_score"], 3.0);
    assert_eq!(hits[1]["memory"]["key"], "breakfast");
    assert_eq!(hits[1]["match_score"], 1.0);
    assert_eq!(hits[0]["state"], "active");
    assert_close(&hits[0]["relevance"], 1.0);
    // Text output: one hit per line, best first (the fused score, then the address).
    let text = st.ok(&["--payload-clock", &now, "persona", "search", "coffee"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with("\tpeople/prefs/coffee\tblack, no sugar"), "{text}");
    assert!(lines[1].ends_with("\tpeople/prefs/breakfast\tcoffee and toast"), "{text}");
    let top = st.json(&["--payload-clock", &now, "persona", "search", "coffee", "-n", "1"]);
    assert_eq!(top.as_array().unwrap().len(), 1);
    assert_eq!(top[0]["memory"]["key"], "coffee");
    let limited = st.json(&["--payload-clock", &now, "persona", "search", "coffee", "--limit", "5"]);
    assert_eq!(limited.as_array().unwrap().len(), 2);
    assert_eq!(st.ok(&["--payload-clock", &now, "persona", "search", "pizza"]), "");
}

#[test]
fn persona_search_theme_match_counts_two() {
    let st = Store::new();
    st.ok(&["persona", "add", "people", "prefs", "alice", "x", "--theme", "coffee", "--at", &s(T0)]);
    let hits = st.json(&["--payload-clock", &s(T0), "persona", "search", "coffee"]);
    assert_eq!(hits[0]["match_score"], 2.0);
    // Retrieval strengthens memory: a search hit counts one access.
    assert_eq!(st.json(&["persona", "get", "people", "prefs", "alice", "--peek"])["access_count"], 1);
}

#[test]
fn persona_connect_links_both_ways() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "a");
    add_persona(&st, "people", "facts", "bob", "b");
    add_persona(&st, "work", "team", "carol", "c");
    let out = st.ok(&["--payload-clock", &s(T0), "persona", "connect", "alice", "bob"]);
    assert_eq!(out, "connected alice and bob\n");
    let j = st.json(&["--payload-clock", &s(T0), "persona", "connect", "people/facts/alice", "work/team/carol"]);
    assert_eq!(j, serde_json::json!({"ok": true}));
    let alice = st.json(&["--payload-clock", &s(T0), "persona", "get", "people", "facts", "alice", "--peek"]);
    let bob = st.json(&["--payload-clock", &s(T0), "persona", "get", "people", "facts", "bob", "--peek"]);
    let carol = st.json(&["--payload-clock", &s(T0), "persona", "get", "work", "team", "carol", "--peek"]);
    assert_eq!(alice["connections"], serde_json::json!(["bob", "carol"]));
    assert_eq!(bob["connections"], serde_json::json!(["alice"]));
    assert_eq!(carol["connections"], serde_json::json!(["alice"]));
    assert_close(&alice["current_relevance"], 1.2);
}

#[test]
fn persona_connect_errors_exit_2() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "a");
    add_persona(&st, "work", "facts", "alice", "a at work");
    add_persona(&st, "people", "facts", "bob", "b");
    let r = st.run(&["persona", "connect", "alice", "bob"]).code(2);
    assert!(
        r.stderr.contains("ambiguous") && r.stderr.contains("people/facts/alice, work/facts/alice"),
        "{}",
        r.stderr
    );
    let r = st.run(&["persona", "connect", "bob", "nobody"]).code(2);
    assert!(r.stderr.contains("nobody"), "{}", r.stderr);
    let r = st.run(&["persona", "connect", "bob", "people/facts/bob"]).code(2);
    assert!(r.stderr.contains("no-self-reference"), "{}", r.stderr);
}

#[test]
fn persona_contradict_supersedes_the_old_memory() {
    let st = Store::new();
    add_persona(&st, "people", "prefs", "tea", "likes tea");
    add_persona(&st, "people", "prefs", "coffee", "switched to coffee");
    let now = s(T0);
    let before = st.json(&["--payload-clock", &now, "persona", "get", "people", "prefs", "tea", "--peek"]);
    let out = st.ok(&["--payload-clock", &now, "persona", "contradict", "tea", "people/prefs/coffee"]);
    assert_eq!(out, "tea is superseded by people/prefs/coffee\n");
    let old = st.json(&["--payload-clock", &now, "persona", "get", "people", "prefs", "tea", "--peek"]);
    assert_eq!(old["superseded_by"], "coffee");
    assert_eq!(old["contradicts"], serde_json::json!(["coffee"]));
    let (b, a) = (before["current_relevance"].as_f64().unwrap(), old["current_relevance"].as_f64().unwrap());
    assert!(a < b, "relevance {a} should be below {b}");
    assert_close(&old["current_relevance"], 0.5);
    let new = st.json(&["--payload-clock", &now, "persona", "get", "people", "prefs", "coffee", "--peek"]);
    assert_eq!(new["superseded_by"], Value::Null);
    assert_eq!(new["contradicts"], serde_json::json!([]));
    // Superseded: decays four times faster. After one halflife: 0.5^4 * 0.5.
    let later =
        st.json(&["--payload-clock", &s(T0 + 30.0 * DAY), "persona", "get", "people", "prefs", "tea", "--peek"]);
    assert_close(&later["current_relevance"], 0.031_25);
    assert_eq!(later["state"], "forgotten");
    assert_eq!(
        st.json(&["--payload-clock", &now, "persona", "contradict", "tea", "coffee"]),
        serde_json::json!({"ok": true})
    );
}

#[test]
fn persona_domains_and_facets_list_sorted_names() {
    let st = Store::new();
    assert_eq!(st.ok(&["persona", "domains"]), "");
    add_persona(&st, "work", "projects", "memstr", "rust");
    add_persona(&st, "people", "prefs", "bob", "coffee");
    add_persona(&st, "people", "facts", "alice", "tea");
    add_persona(&st, "people", "facts", "carol", "water");
    assert_eq!(st.ok(&["persona", "domains"]), "people\nwork\n");
    assert_eq!(st.json(&["persona", "domains"]), serde_json::json!(["people", "work"]));
    assert_eq!(st.ok(&["persona", "facets", "people"]), "facts\nprefs\n");
    assert_eq!(st.json(&["persona", "facets", "work"]), serde_json::json!(["projects"]));
    assert_eq!(st.ok(&["persona", "facets", "nobody"]), "");
    st.run(&["persona", "facets", "a/b"]).code(2);
}

#[test]
fn persona_stats_counts_per_state_domain_and_facet() {
    let st = Store::new();
    add_persona(&st, "people", "facts", "alice", "tea");
    add_persona(&st, "people", "prefs", "bob", "coffee");
    st.ok(&["persona", "add", "work", "projects", "memstr", "rust", "--halflife", "1000", "--at", &s(T0)]);
    let j = st.json(&["--payload-clock", &s(T0 + 60.0 * DAY), "persona", "stats"]);
    assert_eq!(j["total"], 3);
    assert_eq!(j["by_state"], serde_json::json!({"active": 1, "fading": 2, "forgotten": 0, "dissolved": 0}));
    assert_eq!(j["by_domain"], serde_json::json!({"people": 2, "work": 1}));
    assert_eq!(j["by_facet"], serde_json::json!({"people/facts": 1, "people/prefs": 1, "work/projects": 1}));
    let text = st.ok(&["--payload-clock", &s(T0), "persona", "stats"]);
    assert!(text.starts_with("3 persona memories\n"), "{text}");
    assert!(text.contains("  active: 3\n") && text.contains("  domain people: 2\n"), "{text}");
}

// ---------------------------------------------------------------------------------------
// stats, export, import
// ---------------------------------------------------------------------------------------

#[test]
fn stats_json_counts_events_outbox_and_rejected() {
    let st = Store::new();
    let empty = st.json(&["stats"]);
    assert_eq!(empty["events"], 0);
    assert_eq!(empty["outbox"], 0);
    assert_eq!(empty["rejected"], serde_json::json!({}));
    st.ok(&["remember", "a", "1"]);
    st.ok(&["remember", "b", "2"]);
    st.ok(&["journal", "note"]);
    add_persona(&st, "people", "facts", "alice", "tea");
    let j = st.json(&["stats"]);
    assert_eq!(j["events"], 4);
    assert_eq!(j["outbox"], 4);
    assert_eq!(j["kv"], 2);
    assert_eq!(j["journal"], 1);
    assert_eq!(j["persona"], 1);
    assert_eq!(j["deleted"], 0);
    assert_eq!(j["public_key"], test_identity().public_key().to_hex());
    assert!(j["schema_version"].as_i64().unwrap() >= 1);
    assert_eq!(j["rejected"], serde_json::json!({}));
    let text = st.ok(&["stats"]);
    assert!(text.contains("events 4  outbox 4"), "{text}");
    assert!(text.contains("rejected events: none"), "{text}");
}

#[test]
fn export_events_writes_one_signed_event_per_line() {
    let st = Store::new();
    assert_eq!(st.ok(&["export", "--events"]), "");
    st.ok(&["remember", "k", "secret value"]);
    st.ok(&["journal", "dear diary"]);
    let out = st.ok(&["export", "--events"]);
    let events: Vec<Value> = lines(&out).into_iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 2);
    for e in &events {
        assert_eq!(e["pubkey"], test_identity().public_key().to_hex());
        assert_eq!(e["kind"], 30078);
        assert!(is_event_id(e["id"].as_str().unwrap()));
        assert_eq!(e["sig"].as_str().unwrap().len(), 128);
    }
    assert!(!out.contains("secret value") && !out.contains("dear diary"), "content is encrypted: {out}");
}

#[test]
fn export_to_file_matches_stdout() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    st.ok(&["journal", "j"]);
    let stdout = st.ok(&["export", "--events"]);
    let file = st.path("backup.jsonl");
    let r = st.run(&["export", "--events", "-o", file.to_str().unwrap()]);
    assert!(r.stderr.contains(&format!("exported 2 events to {}", file.display())), "{}", r.stderr);
    assert_eq!(r.ok(), "", "the events go to the file, not stdout");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout);
    let file2 = st.path("backup2.jsonl");
    let j = st.json(&["export", "--events", "--output", file2.to_str().unwrap()]);
    assert_eq!(j, serde_json::json!({"events": 2, "file": file2.display().to_string()}));
    assert_eq!(std::fs::read_to_string(&file2).unwrap(), stdout);
}

#[test]
fn export_and_import_require_the_events_flag() {
    let st = Store::new();
    st.run(&["export"]).code(2);
    let r = st.run(&["import"]).code(2);
    assert!(r.stderr.contains("<--events|--memories>"), "{}", r.stderr);
    let r = st.run(&["import", "--events", "--memories", "/dev/null"]).code(2);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
}

/// Memories of every kind as `memstr import --memories` reads them, a blank line among them.
const MEMORY_LINES: &str = r#"{"kind":"kv","key":"editor","value":"vim","at":1700000000}

{"kind":"journal","content":"Met Alice for coffee","at":1700000100}
{"kind":"persona","domain":"people","facet":"facts","key":"alice","value":"Alice likes tea","themes":["tea"],"confidence":0.9,"at":1700000200}
"#;

#[test]
fn import_memories_writes_every_kind_and_prints_a_summary() {
    let st = Store::new();
    let file = st.path("memories.jsonl");
    std::fs::write(&file, MEMORY_LINES).unwrap();
    let out = st.ok(&["import", "--memories", file.to_str().unwrap()]);
    assert_eq!(out, "imported 3 memories (1 flat, 1 journal, 1 persona) from 4 lines in 1 batches\n");
    assert_eq!(st.ok(&["recall", "editor"]).trim(), "vim");
    assert_eq!(st.json(&["recent"])[0]["content"], "Met Alice for coffee");
    let alice = st.json(&["persona", "get", "people", "facts", "alice", "--peek"]);
    assert_eq!(
        (alice["value"].as_str(), alice["created_at"].as_f64()),
        (Some("Alice likes tea"), Some(1_700_000_200.0))
    );
    // Each its own event, queued for relays.
    let stats = st.json(&["stats"]);
    assert_eq!((stats["events"].as_u64(), stats["outbox"].as_u64()), (Some(3), Some(3)));
}

#[test]
fn import_memories_reads_standard_input_and_reports_in_json() {
    let st = Store::new();
    let j = run_with_stdin(st.cmd(&["import", "--memories", "--json"]), MEMORY_LINES).json();
    assert_eq!(j, serde_json::json!({"imported": 3, "kv": 1, "journal": 1, "persona": 1, "batches": 1, "lines": 4}));
}

#[test]
fn import_memories_stops_at_a_bad_line_naming_it_and_writes_nothing_of_its_batch() {
    let st = Store::new();
    let bad_rule = format!("{}{}", MEMORY_LINES, r#"{"kind":"kv","key":"a/b","value":"x"}"#);
    let r = run_with_stdin(st.cmd(&["import", "--memories"]), &bad_rule).code(2);
    assert!(r.stderr.contains("line 5: invalid key"), "{}", r.stderr);
    assert!(
        r.stderr.contains("rule: forbidden-character") && r.stderr.contains("nothing was imported"),
        "{}",
        r.stderr
    );
    for (input, says) in [
        (r#"{"kind":"kv","key":"k","valu":"x"}"#, "line 1: unknown field `valu`"),
        (r#"{"kind":"note","text":"x"}"#, "line 1: unknown variant `note`, expected one of `kv`, `journal`, `persona`"),
        (r#"{"kind":"kv","key":"k","value":"v","at":"yesterday"}"#, "line 1: invalid type: string"),
        ("\n\nnot json", "line 3: expected ident"),
        (r#"{"kind":"journal","content":"x","at":-5}"#, "line 1: invalid at: is -5"),
        (r#"{"kind":"kv","key":"k","value":"v","\u001b[31m":1}"#, "line 1: unknown field `\\u{1b}[31m`"),
    ] {
        let r = run_with_stdin(st.cmd(&["import", "--memories"]), input).code(2);
        assert!(r.stderr.contains(says), "{input}: {}", r.stderr);
        assert!(!r.stderr.contains('\u{1b}'), "no escape reaches the terminal: {:?}", r.stderr);
    }
    let stats = st.json(&["stats"]);
    assert_eq!(
        (stats["kv"].as_u64(), stats["journal"].as_u64(), stats["events"].as_u64()),
        (Some(0), Some(0), Some(0))
    );
}

#[test]
fn import_memories_writes_in_batches_and_keeps_the_batches_before_a_bad_line() {
    let st = Store::new();
    let good: String =
        (0..1_500).map(|i| format!("{{\"kind\":\"kv\",\"key\":\"k{i}\",\"value\":\"v{i}\"}}\n")).collect();
    let j = run_with_stdin(st.cmd(&["import", "--memories", "--json"]), &good).json();
    assert_eq!((j["imported"].as_u64(), j["batches"].as_u64()), (Some(1_500), Some(2)), "batches of 1,000: {j}");
    let st = Store::new();
    let mut input: String = good.lines().take(1_200).map(|l| format!("{l}\n")).collect();
    input.push_str("{\"kind\":\"kv\",\"key\":\"\",\"value\":\"empty key\"}\n");
    let r = run_with_stdin(st.cmd(&["import", "--memories"]), &input).code(2);
    assert!(r.stderr.contains("line 1201: invalid key: must be a non-empty string"), "{}", r.stderr);
    assert!(
        r.stderr.contains("the 1000 memories of lines 1 to 1000 were (start again from line 1001)"),
        "{}",
        r.stderr
    );
    assert_eq!(st.json(&["stats"])["kv"].as_u64(), Some(1_000), "the first batch, whole; nothing of the second");
}

/// A store with some of everything, at fixed times.
fn populated() -> Store {
    let st = Store::new();
    st.ok(&["remember", "name", "Ada", "--at", &s(T0)]);
    st.ok(&["remember", "colour", "green", "--at", &s(T0 + 1.0)]);
    st.ok(&["remember", "doomed", "x", "--at", &s(T0 + 2.0)]);
    st.ok(&["--payload-clock", &s(T0 + 3.0), "forget", "doomed"]);
    st.ok(&["journal", "first day", "--at", &s(T0)]);
    st.ok(&["journal", "second day", "--at", &s(T0 + DAY)]);
    st.ok(&["persona", "add", "people", "facts", "alice", "tea", "--theme", "drinks", "--at", &s(T0)]);
    st.ok(&["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice"]);
    st
}

#[test]
fn import_export_into_fresh_store_reproduces_recall_and_recent() {
    let a = populated();
    let file = a.path("backup.jsonl");
    a.ok(&["export", "--events", "-o", file.to_str().unwrap()]);
    let n = std::fs::read_to_string(&file).unwrap().lines().count() as u64;

    let b = Store::new();
    let report = b.json(&["import", "--events", file.to_str().unwrap()]);
    assert_eq!(report["rejected"], serde_json::json!({}), "{report}");
    let total = ["applied", "duplicate", "stale", "deleted"].iter().map(|k| report[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(total, n, "every event is accounted for: {report}");
    assert!(report["applied"].as_u64().unwrap() > 0);

    for args in [&["recall", "--all"][..], &["recent"], &["persona", "list", "--peek"], &["persona", "domains"]] {
        assert_eq!(b.ok(args), a.ok(args), "{args:?}");
    }
    assert_eq!(b.json(&["recall", "--all"]), a.json(&["recall", "--all"]));
    assert_eq!(b.json(&["recent"]), a.json(&["recent"]));
    b.run(&["recall", "doomed"]).code(1);
    let get = ["--payload-clock", &s(T0 + DAY), "persona", "get", "people", "facts", "alice", "--peek"];
    assert_eq!(b.json(&get), a.json(&get));
    assert_eq!(b.json(&get)["access_count"], 1, "the signed access travels with the export");
}

#[test]
fn import_reads_standard_input() {
    let a = populated();
    let exported = a.ok(&["export", "--events"]);
    let b = Store::new();
    let report = run_with_stdin(b.cmd(&["import", "--events", "--json"]), &exported).json();
    assert!(report["applied"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(b.ok(&["recall", "--all"]), a.ok(&["recall", "--all"]));
    assert_eq!(b.ok(&["recent"]), a.ok(&["recent"]));
    // Importing the same events again changes nothing. (Not all `duplicate`: when the
    // forget's deletion sorts before its own tombstone, the tombstone is counted as
    // `deleted` instead, and is never stored.)
    let again = run_with_stdin(b.cmd(&["import", "--events", "--json"]), &exported).json();
    let n = exported.lines().count() as u64;
    assert_eq!(again["applied"], 0, "{again}");
    assert_eq!(again["stale"], 0, "{again}");
    assert_eq!(again["rejected"], serde_json::json!({}), "{again}");
    assert_eq!(again["duplicate"].as_u64().unwrap() + again["deleted"].as_u64().unwrap(), n, "{again}");
    assert_eq!(b.ok(&["recall", "--all"]), a.ok(&["recall", "--all"]));
}

#[test]
fn import_same_events_twice_counts_duplicates() {
    let a = Store::new();
    a.ok(&["remember", "k", "v", "--at", &s(T0)]);
    a.ok(&["journal", "note", "--at", &s(T0)]);
    add_persona(&a, "people", "facts", "alice", "tea");
    let exported = a.ok(&["export", "--events"]);
    let b = Store::new();
    let first = run_with_stdin(b.cmd(&["import", "--events"]), &exported).ok();
    assert_eq!(first, "applied 3, duplicate 0, stale 0, deleted 0, rejected 0, quarantined 0\n");
    let again = run_with_stdin(b.cmd(&["import", "--events"]), &exported).ok();
    assert_eq!(again, "applied 0, duplicate 3, stale 0, deleted 0, rejected 0, quarantined 0\n");
    assert_eq!(b.ok(&["export", "--events"]), exported, "a restored store exports the same events");
}

#[test]
fn import_counts_garbage_line_as_malformed_event() {
    let a = Store::new();
    a.ok(&["remember", "k", "v"]);
    let exported = a.ok(&["export", "--events"]);
    let input = format!("this is not an event\n\n{exported}");
    let b = Store::new();
    let r = run_with_stdin(b.cmd(&["import", "--events"]), &input).code(0);
    assert_eq!(
        r.stdout,
        "applied 1, duplicate 0, stale 0, deleted 0, rejected 1, quarantined 0\n  rejected malformed_event: 1\n"
    );
    // Some accepted: exit 0, and stderr says how many were not.
    assert!(r.stderr.contains("1 of 2 events rejected"), "{}", r.stderr);
    assert_eq!(b.ok(&["recall", "k"]), "v\n");
    let stats = b.json(&["stats"]);
    assert_eq!(stats["rejected"], serde_json::json!({"malformed_event": 1}));
    let r = run_with_stdin(b.cmd(&["import", "--events", "--json"]), "{\"id\": 1}\n").code(2);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["rejected"], serde_json::json!({"malformed_event": 1}));
    assert_eq!(b.json(&["stats"])["rejected"]["malformed_event"], 2);
    assert!(b.ok(&["stats"]).contains("rejected malformed_event: 2"));
}

#[test]
fn import_with_a_different_key_rejects_every_event_as_foreign_author() {
    let a = populated();
    let file = a.path("backup.jsonl");
    a.ok(&["export", "--events", "-o", file.to_str().unwrap()]);
    let n = std::fs::read_to_string(&file).unwrap().lines().count() as u64;
    assert!(n > 0);

    let b = Store::with_key(OTHER_HEX);
    let r = b.run(&["import", "--events", file.to_str().unwrap(), "--json"]).code(2);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["applied"], 0);
    assert_eq!(report["rejected"], serde_json::json!({"foreign_author": n}));
    assert_eq!(b.ok(&["recall", "--all"]), "");
    assert_eq!(b.ok(&["recent"]), "");
    let stats = b.json(&["stats"]);
    assert_eq!(stats["events"], 0);
    assert_eq!(stats["rejected"], serde_json::json!({"foreign_author": n}));
}

#[test]
fn an_import_that_rejects_every_event_exits_non_zero() {
    let st = Store::new();
    // A garbage file.
    let garbage = st.path("garbage.txt");
    std::fs::write(&garbage, "hello\nworld\n").unwrap();
    let r = st.run(&["import", "--events", garbage.to_str().unwrap()]).code(2);
    assert!(r.stderr.contains("nothing imported: all 2 events were rejected"), "{}", r.stderr);
    // Events of another key: every one foreign.
    let other = Store::with_key(OTHER_HEX);
    other.ok(&["remember", "k", "v"]);
    other.ok(&["journal", "j"]);
    let r = run_with_stdin(st.cmd(&["import", "--events"]), &other.ok(&["export", "--events"])).code(2);
    assert!(r.stdout.contains("rejected foreign_author: 2"), "{r:#?}");
    assert!(r.stderr.contains("all 2 events were rejected"), "{r:#?}");
    // An empty file rejects nothing: success.
    run_with_stdin(st.cmd(&["import", "--events"]), "").code(0);
    // Events already here are duplicates, not rejections.
    st.ok(&["remember", "mine", "v"]);
    run_with_stdin(st.cmd(&["import", "--events"]), &st.ok(&["export", "--events"])).code(0);
}

#[test]
fn import_missing_file_exits_2() {
    let st = Store::new();
    let missing = st.path("missing.jsonl");
    let r = st.run(&["import", "--events", missing.to_str().unwrap()]).code(2);
    assert!(r.stderr.contains("missing.jsonl"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------

fn assert_no_secret(r: &Run, what: &str) {
    let nsec = test_identity().reveal_nsec();
    for (name, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        let lower = text.to_lowercase();
        assert!(!lower.contains(SECRET_HEX), "{what}: {name} holds the secret hex: {text}");
        assert!(!lower.contains(nsec.as_str()), "{what}: {name} holds the nsec: {text}");
        // Fragments of a mangled secret must not be echoed either.
        assert!(!lower.contains(&SECRET_HEX[..32]), "{what}: {name} echoes part of the secret: {text}");
        assert!(!lower.contains(&nsec[..40]), "{what}: {name} echoes part of the nsec: {text}");
    }
}

#[test]
fn secrets_never_appear_in_output() {
    let st = Store::new();
    let file = st.path("backup.jsonl");
    let f = file.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["whoami"],
        vec!["remember", "k", "v"],
        vec!["recall", "k"],
        vec!["recall", "--all"],
        vec!["journal", "j"],
        vec!["recent"],
        vec!["persona", "add", "d", "f", "k", "v", "--theme", "t"],
        vec!["persona", "get", "d", "f", "k"],
        vec!["persona", "list"],
        vec!["persona", "search", "v"],
        vec!["persona", "stats"],
        vec!["stats"],
        vec!["export", "--events"],
        vec!["export", "--events", "-o", f],
        vec!["import", "--events", f],
        vec!["forget", "k"],
        vec!["recall", "k"],
        vec!["remember", "a/b", "v"],
    ];
    for args in &commands {
        for json in [false, true] {
            let mut c = st.cmd(args);
            c.env("MEMSTR_LOG", "trace");
            if json {
                c.arg("--json");
            }
            assert_no_secret(&run(c), &format!("{args:?} json={json}"));
        }
    }
    // init --from-env, in both output modes.
    for json in [false, true] {
        let sub = Store::new();
        let mut c = init_cmd(&sub, &["--from-env"]);
        c.env("MEMSTR_NSEC", SECRET_HEX).env("MEMSTR_LOG", "trace");
        if json {
            c.arg("--json");
        }
        let r = run(c);
        assert_no_secret(&r, "init --from-env");
        let r = r.code(0);
        assert!(!std::fs::read_to_string(sub.dir().join("key.ncryptsec")).unwrap().contains(SECRET_HEX), "{r:?}");
    }
}

#[test]
fn bad_memstr_nsec_errors_do_not_echo_the_secret() {
    let nsec = test_identity().reveal_nsec().to_string();
    let mut mangled_nsec = nsec.clone();
    let last = mangled_nsec.pop().unwrap();
    mangled_nsec.push(if last == 'q' { 'p' } else { 'q' });
    let bad: Vec<String> = vec![
        format!("{SECRET_HEX}0"),
        SECRET_HEX[..63].to_string(),
        format!("{}g", &SECRET_HEX[..63]),
        mangled_nsec,
        format!("{nsec}x"),
        format!("nsec{SECRET_HEX}"),
    ];
    for secret in &bad {
        for args in [&["whoami"][..], &["recall", "k"], &["init", "--from-env", "--log-n", "4"]] {
            let dir = tempfile::tempdir().unwrap();
            let mut c = bare(dir.path());
            c.env("MEMSTR_NSEC", secret)
                .env("MEMSTR_PASSWORD", PASSWORD)
                .env("MEMSTR_LOG", "trace")
                .arg("--dir")
                .arg(dir.path().join("store"))
                .args(args);
            let r = run(c);
            assert_no_secret(&r, &format!("{args:?} with a bad MEMSTR_NSEC"));
            assert!(!r.stderr.contains(secret.as_str()), "the bad value is echoed: {}", r.stderr);
            let r = r.code(2);
            assert!(r.stderr.contains("MEMSTR_NSEC"), "{args:?}: {}", r.stderr);
            assert!(!dir.path().join("store").join("key.ncryptsec").exists());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------------------------

#[test]
fn unknown_command_and_version() {
    let st = Store::new();
    st.run(&["frobnicate"]).code(2);
    let v = st.ok(&["--version"]);
    assert_eq!(v, format!("memstr {}\n", env!("CARGO_PKG_VERSION")));
}

// ---------------------------------------------------------------------------------------
// Regressions found in review
// ---------------------------------------------------------------------------------------

#[test]
fn init_uses_a_set_memstr_nsec_and_says_so() {
    let st = Store::new();
    let mut c = init_cmd(&st, &[]);
    c.env("MEMSTR_NSEC", SECRET_HEX);
    let r = run(c).ok();
    assert!(r.contains(&format!("key from MEMSTR_NSEC {}", test_identity().npub())), "{r}");
    assert!(st.dir().join("key.ncryptsec").exists(), "kept in a key file too (--no-key-file to keep it out)");
}

#[test]
fn init_checks_the_store_key_before_writing_a_key_file() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    let r = run(init_cmd(&st, &[]));
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("belongs to key") && r.stderr.contains(&test_identity().npub()), "{}", r.stderr);
    assert!(!st.dir().join("key.ncryptsec").exists(), "no orphan key file");
}

#[test]
fn init_rejects_an_empty_password_from_the_environment() {
    let st = Store::blank();
    let mut c = init_cmd(&st, &[]);
    c.env("MEMSTR_PASSWORD", "");
    let r = run(c);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("MEMSTR_PASSWORD is empty"), "{}", r.stderr);
}

#[test]
fn now_and_at_must_be_valid_times() {
    let st = Store::new();
    for bad in ["nan", "inf", "-5", "yesterday"] {
        let r = st.run(&["--now", bad, "recall", "--all"]);
        assert_eq!(r.code, Some(2), "--now {bad}");
        assert!(r.stderr.contains("not a time"), "--now {bad}: {}", r.stderr);
        let r = st.run(&["journal", "x", "--at", bad]);
        assert_eq!(r.code, Some(2), "--at {bad}");
    }
    assert_eq!(st.json(&["stats"])["events"], 0);
}

#[test]
fn every_time_option_takes_iso8601_spans_and_unix_seconds() {
    let st = Store::new();
    // T0 is 2023-11-14T22:13:20Z.
    st.ok(&["remember", "iso", "v", "--at", "2023-11-14T22:13:20Z"]);
    assert_eq!(st.json(&["recall", "iso"])["created_at"], T0);
    st.ok(&["remember", "offset", "v", "--at", "2023-11-15T00:13:20+02:00"]);
    assert_eq!(st.json(&["recall", "offset"])["created_at"], T0);
    st.ok(&["remember", "unix", "v", "--at", &s(T0)]);
    assert_eq!(st.json(&["recall", "unix"])["created_at"], T0);
    // A span counts back from the command's clock: --payload-clock here.
    st.ok(&["--payload-clock", "2023-11-14T22:13:20Z", "remember", "span", "v", "--at", "3d"]);
    assert_eq!(st.json(&["recall", "span"])["created_at"], T0 - 3.0 * DAY);
    st.ok(&["--payload-clock", "2023-11-14T22:13:20Z", "journal", "entry", "--at", "2h"]);
    assert_eq!(st.json(&["recent"])[0]["created_at"], T0 - 7200.0);
    st.ok(&["--payload-clock", &s(T0), "persona", "add", "people", "facts", "alice", "likes tea", "--at", "1w"]);
    let m = st.json(&["--payload-clock", &s(T0), "persona", "get", "people", "facts", "alice", "--peek"]);
    assert_eq!(m["created_at"], T0 - 7.0 * DAY);

    // --since / --until, with --now as ISO 8601: only the entry two hours before T0.
    let search = |extra: &[&str]| -> Vec<Value> {
        let mut args = vec!["--now", "2023-11-14T22:13:20Z", "search", "entry", "--no-vectors", "--kind", "journal"];
        args.extend_from_slice(extra);
        st.json(&args).as_array().unwrap().clone()
    };
    assert_eq!(search(&["--since", "3h"]).len(), 1);
    assert_eq!(search(&["--since", "1h"]).len(), 0);
    assert_eq!(search(&["--until", "2023-11-14"]).len(), 0);
    assert_eq!(search(&["--since", "2023-11-14", "--until", &s(T0)]).len(), 1);

    // --now as a span: evaluated three days ago by the system clock, so it is in the past.
    let r = st.run(&["--now", "3d", "remember", "x", "y"]).code(2);
    assert!(r.stderr.contains("--now"), "a write refused at a fixed time: {}", r.stderr);
    let help = st.ok(&["search", "--help"]);
    assert!(help.contains("ISO 8601"), "{help}");
}

#[test]
fn zero_limits_are_rejected_alike() {
    let st = Store::new();
    for args in [&["recent", "-n", "0"][..], &["persona", "search", "x", "-n", "0"][..]] {
        assert_eq!(st.run(args).code, Some(2), "{args:?}");
    }
}

#[test]
fn restore_keeps_the_forget_tombstone_whatever_the_order() {
    // The tombstone and its deletion share a created_at; either may come first.
    for _ in 0..6 {
        let a = Store::new();
        a.ok(&["--payload-clock", &s(T0), "remember", "k", "v"]);
        a.ok(&["--payload-clock", &s(T0 + 1.0), "forget", "k"]);
        let export = a.ok(&["export", "--events"]);
        let b = Store::new();
        let report = run_with_stdin(b.cmd(&["--json", "import", "--events"]), &export).json();
        assert_eq!(report["applied"], 2, "{report}");
        assert_eq!(lines(&b.ok(&["export", "--events"])).len(), 2);
        let reversed: Vec<&str> = lines(&export).into_iter().rev().collect();
        let c = Store::new();
        let report = run_with_stdin(c.cmd(&["--json", "import", "--events"]), &(reversed.join("\n") + "\n")).json();
        assert_eq!(report["applied"], 2, "{report}");
        assert_eq!(c.run(&["recall", "k"]).code, Some(1));
    }
}

// ---------------------------------------------------------------------------------------
// Relays, sync and status (against a real nostr-rs-relay 0.8.12)
// ---------------------------------------------------------------------------------------

mod support;

use std::process::Child;
use std::time::{Duration, Instant};

use support::relay::LocalRelay;

/// A loopback address nothing listens on: `relay add` never connects.
const IDLE_RELAY: &str = "ws://127.0.0.1:9";

impl Store {
    /// The configured relays, from `relay list --json`.
    fn relays(&self) -> Vec<Value> {
        self.json(&["relay", "list"]).as_array().expect("relay list --json is an array").clone()
    }

    fn relay_urls(&self) -> Vec<String> {
        self.relays().iter().map(|r| r["url"].as_str().expect("url is a string").to_string()).collect()
    }

    /// `sync --json` plus `extra`, insisting on exit 0 and an error-free report per relay.
    fn sync(&self, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["sync"];
        args.extend_from_slice(extra);
        let reports = self.json(&args).as_array().expect("sync --json is an array of reports").clone();
        for r in &reports {
            assert_eq!(r["error"], Value::Null, "{r}");
        }
        reports
    }
}

/// The one report of a pass with a single relay.
fn only(reports: Vec<Value>) -> Value {
    assert_eq!(reports.len(), 1, "{reports:?}");
    reports.into_iter().next().unwrap()
}

/// Two devices of one key (two stores, the same `MEMSTR_NSEC`), both syncing with `relay`.
fn two_devices(relay: &LocalRelay) -> (Store, Store) {
    let (a, b) = (Store::new(), Store::new());
    a.ok(&["relay", "add", &relay.url()]);
    b.ok(&["relay", "add", &relay.url()]);
    (a, b)
}

/// A `memstr sync --watch` child, killed when dropped (also when the test panics).
struct Watcher(Child);

impl Watcher {
    fn start(st: &Store) -> Self {
        Watcher(st.cmd(&["sync", "--watch"]).spawn().expect("memstr sync --watch starts"))
    }

    fn assert_running(&mut self) {
        assert!(self.0.try_wait().expect("watcher status").is_none(), "sync --watch exited early");
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `check` every 100 ms for up to `secs` seconds.
fn eventually(secs: u64, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn relay_add_accepts_loopback_ws() {
    let st = Store::new();
    for url in ["ws://127.0.0.1:7777", "ws://localhost:7777/path", "ws://[::1]:7777"] {
        assert_eq!(st.ok(&["relay", "add", url]), format!("added {url}\n"));
    }
    assert_eq!(st.relay_urls(), ["ws://127.0.0.1:7777", "ws://[::1]:7777", "ws://localhost:7777/path"]);
}

#[test]
fn relay_add_refuses_unencrypted_remote_ws_exit_2_naming_wss() {
    let st = Store::new();
    for url in ["ws://relay.example.com", "ws://10.0.0.1:7777"] {
        let r = st.run(&["relay", "add", url]).code(2);
        assert!(r.stderr.contains("wss://"), "{url}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{r:?}");
    }
    assert!(st.relays().is_empty(), "nothing added");
}

#[test]
fn relay_add_insecure_admits_remote_ws() {
    let st = Store::new();
    assert_eq!(st.ok(&["relay", "add", "ws://relay.example.com", "--insecure"]), "added ws://relay.example.com\n");
    assert_eq!(st.relay_urls(), ["ws://relay.example.com"]);
}

#[test]
fn relay_add_accepts_wss_normalised() {
    let st = Store::new();
    assert_eq!(st.ok(&["relay", "add", "wss://relay.example.com"]), "added wss://relay.example.com\n");
    assert_eq!(st.ok(&["relay", "add", "WSS://Nos.Example.org:443/inbox/"]), "added wss://nos.example.org:443/inbox\n");
    assert_eq!(st.relay_urls(), ["wss://nos.example.org:443/inbox", "wss://relay.example.com"]);
}

#[test]
fn relay_add_refuses_garbage_exit_2_even_with_insecure() {
    let st = Store::new();
    for bad in ["https://x", "relay", "relay.example.com", "wss://", "wss://user@host", "wss://h:99999", ""] {
        for insecure in [false, true] {
            let mut args = vec!["relay", "add", bad];
            if insecure {
                args.push("--insecure");
            }
            let r = st.run(&args).code(2);
            assert!(r.stderr.contains("not a websocket URL"), "{args:?}: {}", r.stderr);
        }
    }
    assert!(st.relays().is_empty(), "nothing added");
}

#[test]
fn relay_add_twice_is_idempotent() {
    let st = Store::new();
    st.ok(&["relay", "add", "wss://relay.example.com"]);
    st.ok(&["relay", "add", "wss://relay.example.com"]);
    st.ok(&["relay", "add", "wss://Relay.Example.COM/"]);
    assert_eq!(st.relay_urls(), ["wss://relay.example.com"]);
    assert_eq!(lines(&st.ok(&["relay", "list"])).len(), 1);
}

#[test]
fn relay_list_empty_says_no_relays() {
    let st = Store::new();
    assert_eq!(st.ok(&["relay", "list"]), "no relays\n");
    assert_eq!(st.json(&["relay", "list"]), serde_json::json!([]));
}

#[test]
fn relay_list_json_has_url_pending_last_sync_last_error_negentropy_checkpoint() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    st.ok(&["journal", "j"]);
    st.ok(&["relay", "add", IDLE_RELAY]);
    let relays = st.relays();
    assert_eq!(relays.len(), 1);
    let r = &relays[0];
    assert_eq!(r["url"], IDLE_RELAY);
    // Adding a relay signs the agent's relay list (docs/sync.md, "Add a device").
    assert_eq!(r["pending"], 3, "both events and the relay list wait for the new relay: {r}");
    assert_eq!(r["last_sync"], Value::Null);
    assert_eq!(r["last_error"], Value::Null);
    assert_eq!(r["negentropy"], Value::Null, "not probed yet");
    assert_eq!(r["checkpoint"], 0);
}

#[test]
fn relay_list_text_shows_url_pending_and_never_synced() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    st.ok(&["relay", "add", IDLE_RELAY]);
    let out = st.ok(&["relay", "list"]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 1, "{out}");
    let fields: Vec<&str> = ls[0].split('\t').collect();
    // The memory and the relay list adding the relay signed.
    assert_eq!(fields, [IDLE_RELAY, "pending 2", "last sync never", "unprobed"], "{out}");
}

#[test]
fn relay_remove_unknown_exits_1_not_found() {
    let st = Store::new();
    st.ok(&["relay", "add", "wss://relay.example.com"]);
    let r = st.run(&["relay", "remove", "wss://other.example.com"]).code(1);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{r:?}");
    assert_eq!(st.relay_urls(), ["wss://relay.example.com"], "the configured relay stays");
}

#[test]
fn relay_remove_then_list_is_empty() {
    let st = Store::new();
    st.ok(&["relay", "add", "wss://relay.example.com"]);
    // Normalised like `add`: case and a trailing slash do not matter.
    assert!(st.ok(&["relay", "remove", "WSS://relay.example.com/"]).starts_with("removed "));
    assert!(st.relays().is_empty());
    assert_eq!(st.ok(&["relay", "list"]), "no relays\n");
    st.run(&["relay", "remove", "wss://relay.example.com"]).code(1);
}

#[test]
fn relay_remove_garbage_exits_2() {
    let st = Store::new();
    let r = st.run(&["relay", "remove", "https://x"]).code(2);
    assert!(r.stderr.contains("not a websocket URL"), "{}", r.stderr);
}

#[test]
fn sync_without_relays_exits_2_naming_relay_add() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    for extra in [&[][..], &["--full"], &["--watch"]] {
        let mut args = vec!["sync"];
        args.extend_from_slice(extra);
        let r = st.run(&args).code(2);
        assert!(r.stderr.contains("memstr relay add"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn sync_carries_memories_journal_and_persona_to_another_store() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    a.ok(&["remember", "from-a", "written on the laptop"]);
    a.ok(&["journal", "laptop diary"]);
    a.ok(&["persona", "add", "people", "facts", "alice", "likes tea", "--theme", "tea"]);
    // Three memories and the relay list (signed when the relay was added).
    assert_eq!(a.json(&["stats"])["events"], 4);

    // nostr-rs-relay has no NIP-77: the first pass reads everything.
    let ra = only(a.sync(&[]));
    assert_eq!(ra["url"], relay.url());
    assert_eq!(ra["method"], "full");
    assert_eq!(ra["pushed"], 4, "{ra}");
    assert_eq!(ra["pending"], 0, "{ra}");
    assert_eq!(ra["pulled"]["applied"], 0, "{ra}");
    assert_eq!(ra["refused"], serde_json::json!([]));

    let rb = only(b.sync(&[]));
    assert_eq!(rb["method"], "full");
    assert_eq!(rb["pulled"]["applied"], 3, "{rb}");
    // B signed its own relay list when it added the relay, later than A's: A's list is
    // merged (stale as an event), and B's goes to the relay.
    assert_eq!(rb["pulled"]["stale"], 1, "{rb}");
    assert_eq!(rb["pushed"], 1, "{rb}");
    assert_eq!(rb["pending"], 0, "{rb}");

    assert_eq!(b.ok(&["recall", "from-a"]), "written on the laptop\n");
    assert!(b.ok(&["recent"]).ends_with("  laptop diary\n"));
    let got = b.json(&["persona", "get", "people", "facts", "alice"]);
    assert_eq!(got["value"], "likes tea");
    assert_eq!(got["themes"], serde_json::json!(["tea"]));

    // Reading a persona memory is an access, counted locally and signed only in a batch
    // (an hour after the first, or a hundred memories): the next pass pushes nothing.
    assert_eq!(only(b.sync(&[]))["pushed"], 0);
    assert_eq!(b.json(&["stats"])["unsigned_accesses"], 1);
    // Later passes read only what is new.
    let again = only(a.sync(&[]));
    assert_eq!(again["method"], "since", "{again}");
    assert_eq!(again["pending"], 0, "{again}");
    // B's access to alice is still local: B pushed nothing above. What A may apply is B's
    // relay list, when it was signed within the overlap A's `since` read keeps before its
    // checkpoint (a second boundary: this failed under load when only 0 was accepted).
    assert!(again["pulled"]["applied"].as_u64().is_some_and(|n| n <= 1), "{again}");
    assert_eq!(again["pulled"]["merged"], 0, "no persona memory changed on b's side: {again}");
    let status = a.json(&["status"]);
    assert_eq!(status["outbox"], 0, "{status}");
    let r = &status["relays"][0];
    assert_eq!(r["negentropy"], false, "{r}");
    assert!(r["last_sync"].as_i64().is_some(), "{r}");
    assert!(r["checkpoint"].as_i64().unwrap() > 0, "{r}");
}

#[test]
fn sync_text_output_names_relay_method_and_counts() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    a.ok(&["remember", "k", "v"]);
    let out = a.ok(&["sync"]);
    assert_eq!(
        out,
        format!(
            "{} (full): pulled 0 new, 0 known, 0 stale, 0 deleted, 0 rejected, 0 quarantined; pushed 2, refused 0, pending 0\n",
            relay.url()
        )
    );
    let out = b.ok(&["sync"]);
    assert!(out.starts_with(&format!("{} (full): pulled 1 new,", relay.url())), "{out}");
}

#[test]
fn sync_full_flag_reads_everything_again() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    // Signed long before the checkpoint (memstr signs with the system clock, so the old
    // event is made here and imported): a `since` pass (checkpoint minus the overlap) does
    // not read it again, a full one does.
    let codec =
        memstr::codec::Codec::new(memstr::nostr::Keys::parse(SECRET_HEX).unwrap(), memstr::DTagMode::Blinded).unwrap();
    let payload = memstr::codec::Payload::Kv(memstr::Memory::new("old", "v", T0));
    let old = codec.record_event(&memstr::MemoryPath::Kv { key: "old".into() }, &payload, T0 as u64).unwrap();
    run_with_stdin(a.cmd(&["import", "--events"]), &format!("{}\n", memstr::nostr::JsonUtil::as_json(&old))).ok();
    a.ok(&["remember", "new", "v"]);
    a.sync(&[]);
    // Besides the memories, the relay holds A's relay list (kind 10013): B, which signed
    // its own when it added the relay, counts it applied (A's is newer) or stale (signed
    // in the same second), so the counts below add the two.
    let read = |r: &Value, what: &str| r["pulled"][what].as_u64().unwrap();
    let first = only(b.sync(&[]));
    assert_eq!(read(&first, "applied") + read(&first, "stale"), 3, "two memories and the list: {first}");
    assert!(read(&first, "applied") >= 2, "{first}");
    let since = only(b.sync(&[]));
    assert_eq!(since["method"], "since", "{since}");
    assert_eq!(
        read(&since, "duplicate") + read(&since, "stale"),
        2,
        "only the recent memory (and the list) is read again: {since}"
    );
    let full = only(b.sync(&["--full"]));
    assert_eq!(full["method"], "full", "{full}");
    assert_eq!(read(&full, "duplicate") + read(&full, "stale"), 3, "the whole relay is read again: {full}");
    assert_eq!(full["pending"], 0, "{full}");
    assert_eq!(only(b.sync(&[]))["method"], "since", "--full is not remembered");
}

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;

#[test]
fn status_shows_a_misbehaving_relay_with_its_reason_and_the_quarantine() {
    // The hostile relay double runs on a runtime of its own while the CLI talks to it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hostile = rt.block_on(hostile_relay::HostileRelay::start(hostile_relay::Attack::MinTimestamp));
    let st = Store::new();
    st.ok(&["relay", "add", &hostile.url()]);
    let r = st.run(&["sync"]).code(3);
    assert!(r.stdout.contains("  misbehaving: "), "{r:?}");
    let status = st.ok(&["status"]);
    assert!(status.contains("MISBEHAVING: "), "{status}");
    let json = st.json(&["status"]);
    assert!(json["relays"][0]["misbehaving"].is_string() && json["relays"][0]["backoff_until"].is_i64(), "{json}");
    // A pass while it is backed off does not talk to it.
    let reqs = hostile.stats().reqs;
    let r = st.run(&["sync"]).code(3);
    assert!(r.stdout.contains("backed off until"), "{r:?}");
    assert_eq!(hostile.stats().reqs, reqs);
    // An event of ours dated 2100, imported: quarantined, said so, shown in status.
    let codec =
        memstr::codec::Codec::new(memstr::nostr::Keys::parse(SECRET_HEX).unwrap(), memstr::DTagMode::Compatible)
            .unwrap();
    let payload = memstr::codec::Payload::Kv(memstr::Memory::new("f", "v", 4.1e9));
    let future = codec.record_event(&memstr::MemoryPath::Kv { key: "f".into() }, &payload, 4_102_444_800).unwrap();
    let line = format!("{}\n", memstr::nostr::JsonUtil::as_json(&future));
    let out = run_with_stdin(st.cmd(&["import", "--events"]), &line).ok();
    assert!(out.starts_with("applied 0, duplicate 0, stale 0, deleted 0, rejected 0, quarantined 1\n"), "{out}");
    assert!(st.ok(&["status"]).contains("quarantined: 1 events"), "shown in status");
    assert_eq!(st.json(&["status"])["quarantined"], 1);
    st.run(&["recall", "f"]).code(1);
    drop(hostile);
}

#[test]
fn sync_with_relay_down_exits_3_and_status_keeps_the_error_until_it_is_back() {
    let mut relay = LocalRelay::start();
    let st = Store::new();
    st.ok(&["relay", "add", &relay.url()]);
    st.ok(&["remember", "k1", "v1"]);
    st.sync(&[]);

    relay.kill();
    st.ok(&["remember", "k2", "v2"]);
    let mut c = st.cmd(&["sync"]);
    c.arg("--json");
    let r = run(c).code(3);
    let report = only(serde_json::from_str::<Value>(&r.stdout).unwrap().as_array().unwrap().clone());
    let error = report["error"].as_str().unwrap_or_else(|| panic!("no error: {report}"));
    assert!(error.contains("cannot connect"), "{error}");
    assert_eq!(report["pending"], 1, "{report}");
    // The text form exits 3 too and shows the error.
    let r = st.run(&["sync"]).code(3);
    assert!(r.stdout.contains("  error: "), "{r:?}");

    let status = st.json(&["status"]);
    assert_eq!(status["outbox"], 1, "{status}");
    let last_error = status["relays"][0]["last_error"].as_str().unwrap_or_else(|| panic!("{status}"));
    assert!(last_error.contains("cannot connect"), "{last_error}");
    let text = st.ok(&["status"]);
    assert!(text.starts_with("outbox 1 of 3 events"), "two memories and the relay list: {text}");
    assert!(text.contains(&format!("\terror: {last_error}")), "{text}");

    relay.restart();
    let back = only(st.sync(&[]));
    assert_eq!(back["pushed"], 1, "{back}");
    assert_eq!(back["pending"], 0, "{back}");
    let status = st.json(&["status"]);
    assert_eq!(status["outbox"], 0, "{status}");
    assert_eq!(status["relays"][0]["last_error"], Value::Null, "{status}");
    assert_eq!(status["relays"][0]["pending"], 0, "{status}");
}

#[test]
fn a_failed_sync_says_its_error_once() {
    let mut relay = LocalRelay::start();
    let st = Store::new();
    st.ok(&["relay", "add", &relay.url()]);
    relay.kill();
    st.ok(&["remember", "k", "v"]);
    let r = st.run(&["sync"]).code(3);
    let said = format!("{}{}", r.stdout, r.stderr);
    assert_eq!(said.matches("cannot connect").count(), 1, "{r:#?}");
}

#[test]
fn stderr_is_plain_text_when_it_is_not_a_terminal() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    // No model in an empty cache: the store warns that vectors are off.
    let mut c = st.cmd(&["search", "k"]);
    c.env("MEMSTR_CACHE_DIR", st.path("empty-cache"));
    let r = run(c);
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert!(r.stderr.contains("vectors off"), "the warning under test: {r:#?}");
    assert!(!r.stderr.contains('\u{1b}'), "ANSI escapes in piped stderr: {:?}", r.stderr);
}

#[test]
fn status_json_has_outbox_events_unsigned_accesses_rejected_relays() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    st.ok(&["journal", "j"]);
    run_with_stdin(st.cmd(&["import", "--events"]), "not an event\n").code(2);
    let status = st.json(&["status"]);
    let mut keys: Vec<&str> = status.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "behaviours",
            "d_tag_mode",
            "events",
            "outbox",
            "plain_published",
            "plain_withheld",
            "quarantined",
            "rejected",
            "relays",
            "unsigned_accesses"
        ]
    );
    assert_eq!(status["events"], 2);
    assert_eq!(status["outbox"], 2, "no relay has anything yet");
    assert_eq!(status["unsigned_accesses"], 0);
    assert_eq!(status["rejected"], serde_json::json!({"malformed_event": 1}));
    assert_eq!(status["relays"], serde_json::json!([]));

    st.ok(&["relay", "add", IDLE_RELAY]);
    let status = st.json(&["status"]);
    assert_eq!(status["relays"].as_array().unwrap().len(), 1);
    assert_eq!(status["relays"][0]["url"], IDLE_RELAY);
    assert_eq!(status["relays"][0]["pending"], 3, "the two events and the relay list");
    assert_eq!(status["outbox"], 3, "status counts as the relay list does");
}

#[test]
fn status_text_shows_outbox_relays_and_rejected() {
    let st = Store::new();
    st.ok(&["remember", "k", "v"]);
    assert_eq!(
        st.ok(&["status"]),
        "outbox 1 of 1 events not yet on every relay; 0 unsigned accesses\nno relays\nrejected events: none\n"
    );
    st.ok(&["relay", "add", IDLE_RELAY]);
    run_with_stdin(st.cmd(&["import", "--events"]), "not an event\n").code(2);
    let out = st.ok(&["status"]);
    let ls = lines(&out);
    // The memory and the relay list (signed when the relay was added).
    assert_eq!(ls[0], "outbox 2 of 2 events not yet on every relay; 0 unsigned accesses");
    assert!(ls[1].starts_with(&format!("{IDLE_RELAY}\tpending 2\t")), "{out}");
    assert_eq!(ls[2], "rejected malformed_event: 1", "{out}");
    assert_eq!(ls.len(), 3, "{out}");
}

#[test]
fn sync_watch_pulls_another_stores_write_live() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    let mut watcher = Watcher::start(&a);
    // Wait for the watcher's catch-up pass, so what follows can only arrive live.
    assert!(
        eventually(10, || a.relays()[0]["last_sync"].is_i64()),
        "sync --watch never completed its first pass: {:?}",
        a.relays()
    );
    b.ok(&["remember", "live-key", "from b"]);
    b.sync(&[]);
    assert!(
        eventually(10, || a.run(&["recall", "live-key"]).code == Some(0)),
        "sync --watch did not pull b's write within 10 s"
    );
    assert_eq!(a.ok(&["recall", "live-key"]), "from b\n");
    watcher.assert_running();
}

#[test]
fn sync_watch_pushes_writes_of_other_invocations_promptly() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    let mut watcher = Watcher::start(&a);
    assert!(eventually(10, || a.relays()[0]["last_sync"].is_i64()), "no first pass: {:?}", a.relays());
    // Another `memstr` process writes to the watched store: the watcher should push it.
    a.ok(&["remember", "pushed-live", "from a"]);
    assert!(
        eventually(10, || {
            b.sync(&[]);
            b.run(&["recall", "pushed-live"]).code == Some(0)
        }),
        "sync --watch did not push a write made by another invocation within 10 s (outbox {})",
        a.json(&["status"])["outbox"]
    );
    watcher.assert_running();
}

/// Waits up to `secs` for a line of `lines` containing `what`; keeps every line in `seen`.
fn line_with(lines: &std::sync::mpsc::Receiver<String>, seen: &mut Vec<String>, what: &str, secs: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let hit = line.contains(what);
                seen.push(line);
                if hit {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn sync_watch_says_when_it_connects_reconnects_and_stops() {
    use std::io::BufRead;
    let mut relay = LocalRelay::start();
    let st = Store::new();
    st.ok(&["relay", "add", &relay.url()]);
    let mut child = st.cmd(&["sync", "--watch"]).spawn().expect("memstr sync --watch starts");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut watcher = Watcher(child);
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let connected = format!("connected to {}", relay.url());
    assert!(line_with(&lines, &mut seen, &connected, 10), "no {connected:?}: {seen:#?}");
    relay.kill();
    assert!(line_with(&lines, &mut seen, "reconnecting in", 10), "the lost relay is not reported: {seen:#?}");
    watcher.assert_running();
    let pid = watcher.0.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    assert!(line_with(&lines, &mut seen, "stopped", 10), "no word of stopping: {seen:#?}");
    let status = watcher.0.wait().unwrap();
    assert!(status.success(), "Ctrl-C is a clean stop: {status}, {seen:#?}");
    assert!(seen.iter().all(|l| !l.contains('\u{1b}')), "plain text: {seen:#?}");
}

#[test]
fn forget_then_sync_forgets_on_the_other_store() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    a.ok(&["remember", "k", "v"]);
    a.ok(&["remember", "kept", "stays"]);
    a.sync(&[]);
    b.sync(&[]);
    assert_eq!(b.ok(&["recall", "k"]), "v\n");

    a.ok(&["forget", "k"]);
    assert_eq!(only(a.sync(&[]))["pending"], 0);
    b.sync(&[]);
    b.run(&["recall", "k"]).code(1);
    assert_eq!(b.ok(&["recall", "--all"]), "kept\tstays\n");
}

// ---------------------------------------------------------------------------------------
// Embedding: a search embeds a budget, `memstr index` the rest (issue 13 point 3)
// ---------------------------------------------------------------------------------------

impl Store {
    /// The binary with the installed embedding model (the sandbox's cache has none).
    fn cmd_with_model(&self, args: &[&str]) -> Command {
        let cache = support::model_dir().parent().and_then(Path::parent).expect("CACHE/models/NAME").to_path_buf();
        let mut c = self.cmd(args);
        c.env("MEMSTR_CACHE_DIR", cache);
        c
    }
}

#[test]
fn a_search_signs_nothing_and_index_embeds_the_rest_with_progress_lines() {
    let st = Store::new();
    for i in 0..150 {
        st.ok(&["journal", &format!("Entry {i} about the allotment"), "--at", &s(T0 + i as f64)]);
    }
    // Dated now: a memory from T0 would have decayed out of search by the system clock.
    st.ok(&["persona", "add", "people", "facts", "alice", "Alice grows tomatoes"]);
    let before = st.json(&["stats"]);
    let mut search = st.cmd_with_model(&["search", "tomatoes"]);
    search.arg("--json");
    let hits = run(search).json();
    assert!(hits.as_array().unwrap().iter().any(|h| h["path"].as_str().unwrap().ends_with("/alice")), "{hits}");
    let after = st.json(&["stats"]);
    for field in ["events", "outbox", "embed"] {
        assert_eq!(after[field], before[field], "a search signed something ({field})");
    }
    // The search embedded the newest 32 of 151; `index` embeds the other 119 (batches of 64)
    // and signs the embedding event of the persona memory the search embedded without
    // signing.
    let r = run(st.cmd_with_model(&["index"]));
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert!(!r.stderr.contains('\u{1b}') && !r.stderr.contains('\r'), "escape codes off a terminal: {:?}", r.stderr);
    let progress: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("embedding ")).collect();
    assert_eq!(progress.last(), Some(&"embedding 119/119"), "{:?}", r.stderr);
    assert_eq!(progress, ["embedding 64/119", "embedding 119/119"], "a line per batch past each tenth");
    assert!(
        r.stdout.contains("embedded 119 records") && r.stdout.contains("signed 1 embedding events"),
        "{}",
        r.stdout
    );
    assert_eq!(st.json(&["stats"])["embed"], 1);
    let mut again = st.cmd_with_model(&["index"]);
    again.arg("--json");
    let report = run(again).json();
    assert_eq!((report["embedded"].as_u64(), report["remaining"].as_u64()), (Some(0), Some(0)), "{report}");
}

/// `MEMSTR_LOG=memstr=debug` tells where a slow search spent its time: each pass's steps,
/// the model's and the vector index's among them (docs/benchmarks.md reads them through
/// examples/search_bench.rs).
#[test]
fn a_search_logs_each_pass_by_step_at_debug_level() {
    let st = Store::new();
    st.ok(&["remember", "garden", "The allotment grows tomatoes and beans"]);
    run(st.cmd_with_model(&["index"])).code(0);
    let mut search = st.cmd_with_model(&["--no-forward", "search", "tomatoes"]);
    search.env("MEMSTR_LOG", "memstr=debug");
    let r = run(search).code(0);
    let pass = r.stderr.lines().find(|l| l.contains("search pass")).unwrap_or_else(|| panic!("{:?}", r.stderr));
    let step = |name: &str| -> f64 {
        let at = pass.find(&format!("{name}=")).unwrap_or_else(|| panic!("no {name} in {pass}"));
        pass[at + name.len() + 1..].split_whitespace().next().unwrap().parse().unwrap()
    };
    let [before, words, model, index, waited, after] =
        ["before_ms", "words_ms", "model_ms", "index_ms", "waited_ms", "after_ms"].map(step);
    assert!(model > 0.0 && index > 0.0, "the query went through the model and the index: {pass}");
    assert!([before, words, waited, after].iter().all(|s| *s >= 0.0), "{pass}");
    // The vector's thread starts with the pass and ends before the reader has the vector:
    // its two steps fit in the reader's steps up to then.
    assert!(model + index <= before + words + waited + 0.01, "{pass}");
    // The model and the index ran beside the words: the pass is its reader's steps.
    assert!(step("pass_ms") >= (before + words + waited + after) * 0.99, "{pass}");
}

#[test]
fn index_without_a_model_fails_and_says_how_to_install_one() {
    let st = Store::new();
    st.ok(&["journal", "something to embed"]);
    let r = st.run(&["index"]).code(2);
    assert!(r.stderr.contains("memstr model install"), "{}", r.stderr);
}

#[test]
fn search_about_an_absent_topic_says_no_memory_matches() {
    let st = Store::new();
    st.ok(&["journal", "We adopted a puppy named Biscuit last spring", "--at", &s(T0)]);
    let found = st.ok(&["search", "puppy Biscuit"]);
    assert!(found.contains("Biscuit"), "{found}");
    let absent = st.run(&["search", "quantum chromodynamics lattice spacing in spring"]).code(0);
    assert_eq!(absent.stdout, "");
    assert!(absent.stderr.contains("no memory matches"), "{absent:#?}");
    assert_eq!(st.json(&["search", "quantum chromodynamics lattice spacing in spring"]), serde_json::json!([]));
}

/// One behaviour per verb (issue 23): `recall` reads a reference as the MCP tool does
/// (kv/KEY, domain/facet/key, a bare key, ambiguity listed), `fact set --at` dates the
/// fact, and `search --no-vectors` does not warn about the model it was told not to use.
#[test]
fn recall_reads_references_as_mcp_does_and_fact_set_takes_at() {
    let st = Store::new();
    st.ok(&["remember", "tea", "green, no sugar"]);
    assert_eq!(st.ok(&["recall", "kv/tea"]), "green, no sugar\n");
    st.ok(&["persona", "add", "people", "habits", "tea", "Oolong in the afternoon"]);
    let r = st.run(&["recall", "tea"]).code(2);
    assert!(r.stderr.contains("kv/tea") && r.stderr.contains("people/habits/tea"), "{}", r.stderr);
    assert_eq!(st.ok(&["recall", "people/habits/tea"]), "Oolong in the afternoon\n");
    assert_eq!(st.ok(&["recall", "kv/tea"]), "green, no sugar\n");
    st.run(&["recall", "kv/nothing"]).code(1);

    st.ok(&["fact", "set", "self", "dana", "city", "Berlin", "--at", "2026-03-01"]);
    st.ok(&["fact", "set", "self", "dana", "city", "Lisbon", "--at", "2026-09-15"]);
    let h = st.json(&["fact", "history", "self", "dana", "city"]);
    assert_close(&h[0]["from"], 1_772_323_200.0);
    assert_close(&h[0]["until"], 1_789_430_400.0);

    let r = st.run(&["search", "tea", "--no-vectors"]).code(0);
    assert!(!r.stderr.contains("vectors off"), "asked for no vectors, warned anyway: {}", r.stderr);
}

/// Each hit shows its strength beside the score, `--min-strength` filters by it, and
/// `restore` of a memory that is not archived says so (issue 23).
#[test]
fn search_shows_strength_and_restore_says_when_nothing_was_archived() {
    let st = Store::new();
    st.ok(&["journal", "We adopted a puppy named Biscuit last spring", "--at", &s(T0)]);
    let out = st.ok(&["search", "puppy Biscuit", "--no-vectors"]);
    let fields: Vec<&str> = out.lines().next().unwrap().split('\t').collect();
    let strength: f64 = fields[1].parse().unwrap();
    assert!(strength > 0.0 && strength <= 1.0, "{out}");
    let none = st.run(&["search", "puppy Biscuit", "--no-vectors", "--min-strength", "0.999"]).code(0);
    assert_eq!(none.stdout, "", "{none:?}");
    st.run(&["search", "puppy", "--min-strength", "7"]).code(2);
    st.ok(&["remember", "k", "v"]);
    assert!(st.ok(&["restore", "kv/k"]).contains("was not archived"));
    st.ok(&["archive", "kv/k"]);
    assert_eq!(st.ok(&["restore", "kv/k"]), "restored kv/k\n");
}

/// `recent --since/--until` lists every journal entry in the range by its own time, with no
/// search cutoff: the trial's week of eight entries that a ranged search returned none of.
#[test]
fn recent_lists_every_entry_in_a_time_range() {
    let st = Store::new();
    let day = 86_400.0;
    for i in 0..8 {
        st.ok(&["journal", &format!("entry {i} of the week"), "--at", &s(T0 + i as f64 * day / 2.0)]);
    }
    st.ok(&["journal", "a month later", "--at", &s(T0 + 30.0 * day)]);
    let week = st.json(&["recent", "--since", &s(T0), "--until", &s(T0 + 7.0 * day), "-n", "100"]);
    assert_eq!(week.as_array().unwrap().len(), 8, "{week}");
    assert_eq!(week[0]["content"], "entry 7 of the week", "newest first");
    let later = st.json(&["recent", "--since", &s(T0 + 7.0 * day)]);
    assert_eq!(later.as_array().unwrap().len(), 1);
    assert_eq!(st.json(&["recent", "--until", &s(T0)]), serde_json::json!([]), "until is exclusive");
    st.run(&["recent", "--since", "whenever"]).code(2);
}

/// `search --since/--until` with no query lists every record dated in the range, newest
/// first, with no strength cutoff, and says how many the range holds when the limit cuts
/// it; a query naming only a time does the same; without a query or a range it is refused.
#[test]
fn search_with_a_range_and_no_query_lists_every_record_in_it() {
    let st = Store::new();
    let day = 86_400.0;
    for i in 0..8 {
        st.ok(&["journal", &format!("entry {i} of the week"), "--at", &s(T0 + i as f64 * day / 2.0)]);
    }
    st.ok(&["journal", "a month later", "--at", &s(T0 + 30.0 * day)]);
    let range = ["--since", &s(T0), "--until", &s(T0 + 7.0 * day)];
    let week = st.json(&[&["search", "--no-vectors", "-n", "50"], &range[..]].concat());
    assert_eq!(week.as_array().unwrap().len(), 8, "{week}");
    assert_eq!(week[0]["found"]["content"], "entry 7 of the week", "newest first");
    let r = st.run(&[&["search", "--no-vectors", "-n", "3"], &range[..]].concat()).code(0);
    assert_eq!(r.stdout.lines().count(), 3);
    assert!(r.stderr.contains("8 records dated") && r.stderr.contains("the newest 3"), "{}", r.stderr);
    // T0 is 2023-11-14: "in November 2023" names the same days and more.
    let named = st.json(&["search", "what happened in November 2023?", "--no-vectors", "-n", "50"]);
    assert_eq!(named.as_array().unwrap().len(), 8, "{named}");
    st.run(&["search", "--no-vectors"]).code(2);
}

/// Forgetting what is not here (already forgotten, or never stored) succeeds and says so,
/// in the CLI as in the MCP tool: forget is safe to retry (docs/skill/SKILL.md).
#[test]
fn forget_of_what_is_not_here_succeeds_and_says_so() {
    let st = Store::new();
    st.ok(&["persona", "add", "people", "facts", "bob", "plays cello"]);
    st.ok(&["forget", "people/facts/bob"]);
    let again = st.ok(&["forget", "people/facts/bob"]);
    assert!(again.contains("nothing to forget"), "{again}");
    let r = st.run(&["forget", "never-stored"]).code(0);
    assert!(is_event_id(r.stdout.trim_end()) && r.stderr.contains("was not here"), "{r:?}");
}

/// An empty search says why: nothing matched at all, or candidates fell below the strength
/// cutoff (how many, the best strength), with the flag that shows them (issue 23).
#[test]
fn an_empty_search_says_why() {
    let st = Store::new();
    st.ok(&["journal", "We adopted a puppy named Biscuit last spring", "--at", &s(T0)]);
    let r = st.run(&["search", "spring cleaning schedule for the garage", "--no-vectors"]).code(0);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("1 candidate(s) fell below the strength cutoff"), "{}", r.stderr);
    let shown = st.ok(&["search", "spring cleaning schedule for the garage", "--no-vectors", "--min-strength", "0"]);
    assert!(shown.contains("Biscuit"), "{shown}");
    let r = st.run(&["search", "quantum chromodynamics lattice", "--no-vectors"]).code(0);
    assert!(r.stderr.contains("nothing stored matches"), "{}", r.stderr);
}

#[test]
fn search_shows_each_hits_status_and_history_only_with_the_flag() {
    let st = Store::new();
    st.ok(&["persona", "add", "self", "facts", "home", "I live in Berlin, in a flat in Kreuzberg", "--at", &s(T0)]);
    st.ok(&["persona", "add", "self", "facts", "home-now", "I live in Lisbon now", "--at", &s(T0)]);
    st.ok(&["persona", "contradict", "self/facts/home", "self/facts/home-now"]);
    let out =
        st.ok(&["--now", &s(T0 + 60.0), "search", "Berlin flat Kreuzberg", "--no-vectors", "--min-strength", "0"]);
    let first: Vec<&str> = out.lines().next().unwrap().split('\t').collect();
    // score, strength, status, kind, time, text: the replacement stands in for the old memory.
    assert_eq!(first[2], "active", "{out}");
    assert!(first[5].ends_with("I live in Lisbon now"), "{out}");
    assert!(!out.contains("Kreuzberg"), "{out}");
    let out = st.ok(&[
        "--now",
        &s(T0 + 60.0),
        "search",
        "Berlin flat Kreuzberg",
        "--no-vectors",
        "--min-strength",
        "0",
        "--history",
    ]);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let old = rows.iter().position(|r| r[5].contains("Kreuzberg")).unwrap_or_else(|| panic!("{out}"));
    let new = rows.iter().position(|r| r[5].ends_with("I live in Lisbon now")).unwrap();
    assert!(new < old, "{out}");
    assert_eq!(rows[old][2], "superseded", "{out}");
    assert_eq!(rows[old][6], "superseded by self/facts/home-now", "{out}");
    let json = st.json(&[
        "--now",
        &s(T0 + 60.0),
        "search",
        "Berlin flat Kreuzberg",
        "--no-vectors",
        "--min-strength",
        "0",
        "--history",
    ]);
    let statuses: Vec<&str> = json.as_array().unwrap().iter().map(|h| h["status"].as_str().unwrap()).collect();
    assert!(statuses.contains(&"superseded") && statuses.contains(&"active"), "{json}");
}

#[test]
fn fact_commands_default_to_the_domain_the_mcp_tools_use() {
    let st = Store::new();
    st.ok(&["fact", "set", "alice", "city", "Lisbon"]);
    assert_eq!(st.ok(&["fact", "get", "notes", "alice", "city"]), "Lisbon\n");
    assert_eq!(st.ok(&["fact", "get", "alice", "city"]), "Lisbon\n");
    st.ok(&["fact", "set", "people", "alice", "city", "Porto"]);
    assert_eq!(st.ok(&["fact", "get", "people", "alice", "city"]), "Porto\n");
    assert_eq!(st.ok(&["fact", "get", "alice", "city"]), "Lisbon\n");
    assert_eq!(st.ok(&["fact", "history", "alice", "city"]).lines().count(), 1);
    st.run(&["fact", "get", "alice"]).code(2);
}

#[test]
fn search_takes_the_agents_phrasings_and_hypothetical() {
    let st = Store::new();
    st.ok(&["persona", "add", "people", "facts", "bob-birthday", "Bob's birthday is on 14 March", "--at", &s(T0)]);
    let now = s(T0 + 60.0);
    let args = ["--now", &now, "search", "present", "--no-vectors", "--phrasing", "birthday gift"];
    let out = st.ok(&args);
    assert!(out.contains("Bob's birthday"), "{out}");
    let out = st.ok(&["--now", &now, "search", "present", "--no-vectors", "--hypothetical", "Bob's birthday is soon"]);
    assert!(out.contains("Bob's birthday"), "{out}");
    let explained = st.ok(&["--now", &now, "search", "present", "--no-vectors", "--phrasing", "birthday", "--explain"]);
    assert!(explained.contains("phrasings"), "{explained}");
}

#[test]
fn sync_passes_flag_takes_a_count_of_one_or_more() {
    let relay = LocalRelay::start();
    let (a, b) = two_devices(&relay);
    a.ok(&["remember", "k", "v"]);
    a.ok(&["sync", "--passes", "1"]);
    // One pass reads a small store to the end.
    let out = b.ok(&["sync", "--passes", "1"]);
    assert!(out.starts_with(&format!("{} (full): pulled 1 new,", relay.url())), "{out}");
    for bad in ["0", "1.5", "many", "70000"] {
        let err = b.run(&["sync", "--passes", bad]).code(2).stderr;
        assert!(err.contains("--passes"), "{bad}: {err}");
    }
    let err = b.run(&["sync", "--watch", "--passes", "2"]).code(2).stderr;
    assert!(err.contains("cannot be used with"), "{err}");
}
