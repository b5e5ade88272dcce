//! `memstr mcp` with a real client: the official MCP Python SDK (pinned in
//! scripts/mcp/requirements.txt, installed into a venv by scripts/mcp/setup.sh on first use)
//! runs tests/mcp/test_mcp.py against the server over stdio and over HTTP, and against two
//! servers syncing through a real nostr-rs-relay. A failure on the Python side fails the
//! test; a machine that cannot install the SDK fails it too, loudly.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use support::relay::LocalRelay;
use support::*;

const TOKEN: &str = "test-token-0123456789abcdef0123456789";

/// The MCP venv's python (created on first use).
fn mcp_python() -> PathBuf {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo().join("scripts/mcp/setup.sh"))
            .stderr(Stdio::inherit())
            .output()
            .expect("running scripts/mcp/setup.sh (needs bash and python3 >= 3.10)");
        assert!(
            out.status.success(),
            "scripts/mcp/setup.sh failed: cannot provide the MCP Python SDK (python3 >= 3.10 with venv and pip needed)"
        );
        PathBuf::from(String::from_utf8(out.stdout).unwrap().lines().last().expect("a path").trim())
    })
    .clone()
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memstr")
}

/// Runs tests/mcp/test_mcp.py in `mode`; panics with its output unless it passed.
fn client(mode: &str, args: &[&str], dir: &Path) {
    client_script("test_mcp.py", mode, args, dir)
}

/// Runs tests/mcp/`script` in `mode`; panics with its output unless it passed.
fn client_script(script: &str, mode: &str, args: &[&str], dir: &Path) {
    let out = Command::new(mcp_python())
        .arg(repo().join("tests/mcp").join(script))
        .arg(mode)
        .args(args)
        .env("MEMSTR_DIR", dir)
        .env("MEMSTR_NSEC", TEST_SECRET)
        .env_remove("MEMSTR_MCP_TOKEN")
        .stdin(Stdio::null())
        .output()
        .expect("running the Python MCP client");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the MCP client failed in mode {mode}:\n{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("ok ({mode})")), "no success line:\n{stdout}\n{stderr}");
    for l in stderr.lines().filter(|l| l.contains("seen through")) {
        eprintln!("{l}");
    }
}

/// A `memstr mcp --http` server on a free loopback port, stopped with SIGTERM on drop.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = memstr(dir)
            .args(["mcp", "--http", "127.0.0.1:0"])
            .env("MEMSTR_MCP_TOKEN", TOKEN)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("memstr mcp: listening on ") {
                    let _ = tx.send(url.trim().to_string());
                } else {
                    eprintln!("[server] {line}");
                }
            }
        });
        let url = rx.recv_timeout(Duration::from_secs(60)).expect("the server did not say where it listens");
        Server { child, url }
    }

    /// SIGTERM, then the exit status within `within`.
    fn stop(&mut self, within: Duration) -> std::process::ExitStatus {
        let ok = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(ok.success());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < within, "the server did not stop within {within:?} of SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_right_memory_through_the_official_client_gate_cases_states_and_history() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client_script("test_right_memory.py", "stdio", &[bin()], dir.path());
}

/// Issue 27: the episode tools, and the context remember, journal and search take.
#[test]
fn episode_tools_and_context_arguments_through_the_official_client() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client_script("test_episodes.py", "stdio", &[bin()], dir.path());
}

#[test]
fn types_goals_outcomes_and_feedback_through_the_official_client() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client_script("test_types.py", "stdio", &[bin()], dir.path());
}

/// `mark_important`, `importance_clusters`, `memory_strength`, and a search's winner
/// weakening its near duplicate, with the behaviours on and off.
#[test]
fn strength_tools_flag_capture_and_report_losses() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client_script("test_strength.py", "stdio", &[bin()], dir.path());
}

/// Dream insights (issue 27, point 6): `consolidate` finds a recurring pattern in five
/// memories written on five days; `introspect` returns it with its evidence, quoted, bounded.
#[test]
fn consolidate_finds_insights_and_introspect_returns_them_with_their_evidence() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    for i in 0..5 {
        let (key, value, at) = (format!("run-{i}"), format!("Went running, session {i}"), format!("{}d", 10 - i));
        let theme = "running\u{1b}[2J";
        run_ok(
            memstr(dir.path()).args(["persona", "add", "self", "facts", &key, &value, "--theme", theme, "--at", &at]),
        );
    }
    client_script("test_dreams.py", "stdio", &[bin()], dir.path());
}

#[test]
fn every_tool_over_stdio_with_good_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client("stdio", &[bin()], dir.path());
}

/// Issue 23's trial: `context` quotes memories whole, says how many it covers of how many,
/// keeps them through searches and recalls, and never shows a replaced memory.
#[test]
fn context_quotes_memories_whole_says_its_coverage_and_drops_the_replaced() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    client("context", &[bin()], dir.path());
}

#[test]
fn http_needs_the_token_checks_the_origin_and_serves_beside_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    run_ok(memstr(dir.path()).args(["remember", "cli-key", "written by the CLI while the server runs"]));
    let mut server = Server::start(dir.path());
    client("http", &[&server.url, TOKEN], dir.path());
    // The CLI keeps working on the store the server holds, both ways.
    run_ok(memstr(dir.path()).args(["journal", "a CLI entry while the server runs"]));
    let found = run_ok(memstr(dir.path()).args(["--json", "search", "Bob coffee", "--no-vectors"]));
    assert!(found.contains("Bob takes his coffee black"), "the server's write is not visible to the CLI: {found}");
    assert!(server.stop(Duration::from_secs(20)).success(), "unclean exit on SIGTERM");
}

#[test]
fn http_refuses_to_start_without_a_token_or_on_a_public_address() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    let out = memstr(dir.path()).args(["mcp", "--http", "127.0.0.1:0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("MEMSTR_MCP_TOKEN"), "{out:?}");
    let out =
        memstr(dir.path()).args(["mcp", "--http", "127.0.0.1:0"]).env("MEMSTR_MCP_TOKEN", "short").output().unwrap();
    assert!(!out.status.success(), "a 5-character token was accepted");
    let out = memstr(dir.path())
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env("MEMSTR_MCP_TOKEN", "a".repeat(16))
        .output()
        .unwrap();
    assert!(!out.status.success(), "a token of 16 identical characters was accepted");
    assert!(String::from_utf8_lossy(&out.stderr).contains("of them different"), "{out:?}");
    let out = memstr(dir.path()).args(["mcp", "--http", "0.0.0.0:0"]).env("MEMSTR_MCP_TOKEN", TOKEN).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"), "{out:?}");
}

#[test]
fn end_of_input_shuts_stdio_down_cleanly_with_every_access_signed() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    let mut child = memstr(dir.path()).arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: serde_json::Value| writeln!(stdin, "{v}").unwrap();
    send(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}));
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"memstr\""), "initialize: {line}");
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // One at a time: the server runs requests concurrently.
    for (id, name, args) in [
        (
            2,
            "remember",
            serde_json::json!({"content": "Carol's birthday is on the fourth of May", "domain": "people", "key": "carol-birthday"}),
        ),
        (3, "recall", serde_json::json!({"key": "people/general/carol-birthday"})),
    ] {
        send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}),
        );
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains("\"isError\":false"), "{line}");
    }
    drop(stdin);
    // End of input: the server signs the recall's access and exits 0.
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no exit after end of input");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let stats: serde_json::Value = serde_json::from_str(&run_ok(memstr(dir.path()).args(["--json", "stats"]))).unwrap();
    assert_eq!(stats["unsigned_accesses"], 0, "accesses left unsigned: {stats}");
    let got = run_ok(memstr(dir.path()).args(["persona", "get", "people", "general", "carol-birthday", "--peek"]));
    assert!(got.contains("fourth of May"), "{got}");
}

#[test]
fn a_memory_written_through_one_server_is_found_through_another_within_seconds() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for d in [da.path(), db.path()] {
        init_store(d);
        run_ok(memstr(d).args(["relay", "add", &relay.url()]));
    }
    let mut a = Server::start(da.path());
    let mut b = Server::start(db.path());
    client("two", &[&a.url, &b.url, TOKEN], da.path());
    assert!(a.stop(Duration::from_secs(30)).success());
    assert!(b.stop(Duration::from_secs(30)).success());
    // Shut down cleanly: A's outbox reached the relay.
    let status: serde_json::Value =
        serde_json::from_str(&run_ok(memstr(da.path()).args(["--json", "status"]))).unwrap();
    assert_eq!(status["outbox"], 0, "A left events unpushed: {status}");
}
