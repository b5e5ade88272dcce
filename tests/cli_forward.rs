//! `memstr search` handed to a running `memstr serve` (or `memstr mcp`) for the same store
//! and key: the same output as a search done in the process, a fall back to that whenever
//! no such server answers (stale or hung sockets, another store's server, another key),
//! and the switch that turns it off (src/bin/memstr/forward.rs).

mod support;

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{init_store, memstr, run_ok};

/// The model's cache directory (installed on first use).
fn cache() -> PathBuf {
    support::model_dir().parent().and_then(Path::parent).expect("CACHE/models/NAME").to_path_buf()
}

/// `memstr` on `dir` with the model.
fn cli(dir: &Path) -> Command {
    let mut c = memstr(dir);
    c.env("MEMSTR_CACHE_DIR", cache());
    c
}

/// A running `memstr serve` on `dir`, stopped (SIGTERM) when dropped.
struct Server(Child);

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = cli(dir).arg("serve").stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.starts_with("memstr: serving") {
                    let _ = tx.send(());
                }
                eprintln!("[server] {line}");
            }
        });
        rx.recv_timeout(Duration::from_secs(120)).expect("memstr serve did not start");
        Server(child)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: kill only signals the child this test started.
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGTERM);
        }
        let _ = self.0.wait();
    }
}

fn store_with_memories() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    for (k, v) in [("garden", "The allotment grows tomatoes and beans"), ("tea", "Bob drinks green tea every morning")]
    {
        run_ok(memstr(dir.path()).args(["remember", k, v]));
    }
    run_ok(memstr(dir.path()).args(["journal", "Planted tomatoes at the allotment with Alice"]));
    dir
}

fn out(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

/// Whether the command was answered by a server (the client's debug log says).
fn forwarded(cmd: &mut Command) -> bool {
    let o = out(cmd.env("MEMSTR_LOG", "memstr::forward=debug"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).contains("answered by the server")
}

/// Search hits as JSON, with the recency signal's value left out: it moves with the
/// moment each search ran, in its last digits.
fn timeless(stdout: &[u8]) -> serde_json::Value {
    let mut hits: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    for hit in hits.as_array_mut().unwrap() {
        for signal in hit["signals"].as_array_mut().unwrap() {
            if signal["name"] == "recency" {
                signal["value"] = serde_json::Value::Null;
            }
        }
    }
    hits
}

#[test]
fn a_forwarded_search_prints_what_the_search_here_prints() {
    let dir = store_with_memories();
    // Once here first: the search embeds what waits, as the server does in the background.
    run_ok(cli(dir.path()).args(["--no-forward", "search", "tomatoes"]));
    let _server = Server::start(dir.path());
    assert!(forwarded(cli(dir.path()).args(["search", "tomatoes"])));
    for args in [
        &["search", "tomatoes"][..],
        &["search", "tomatoes", "--explain"],
        &["--json", "search", "tomatoes", "--explain"],
        &["search", "what did I plant", "--kind", "journal", "-n", "1"],
        // Nothing matches: the reason goes to stderr, both ways.
        &["search", "zzzqqq"],
        &["search", "--since", "2020-01-01"],
        // The persona memory comes last, for `persona search` only: the accesses each
        // search counts move its activation, a signal of `search`.
        &["persona", "search", "tomatoes"],
    ] {
        let there = out(cli(dir.path()).args(args));
        let here = out(cli(dir.path()).arg("--no-forward").args(args));
        assert_eq!(there.status.code(), here.status.code(), "{args:?}");
        if args[..2] == ["--json", "search"] {
            assert_eq!(timeless(&there.stdout), timeless(&here.stdout), "{args:?}");
        } else {
            assert_eq!(String::from_utf8_lossy(&there.stdout), String::from_utf8_lossy(&here.stdout), "{args:?}");
        }
        assert_eq!(String::from_utf8_lossy(&there.stderr), String::from_utf8_lossy(&here.stderr), "{args:?}");
        assert!(!there.stdout.is_empty() || !there.stderr.is_empty(), "{args:?} printed nothing");
        if args[..2] == ["search", "--since"] {
            // Dated now: its relevance stays at 1 whatever accesses the searches count.
            run_ok(memstr(dir.path()).args(["persona", "add", "people", "facts", "alice", "Alice grows tomatoes"]));
        }
    }
}

#[test]
fn the_switch_keeps_a_search_here_and_a_server_off_the_socket() {
    let dir = store_with_memories();
    let _server = Server::start(dir.path());
    assert!(dir.path().join("memstr.sock").exists());
    assert!(!forwarded(cli(dir.path()).args(["--no-forward", "search", "tomatoes"])));
    assert!(!forwarded(cli(dir.path()).env("MEMSTR_NO_FORWARD", "1").args(["search", "tomatoes"])));
    assert!(forwarded(cli(dir.path()).env("MEMSTR_NO_FORWARD", "0").args(["search", "tomatoes"])));
    // A search told to leave the model out is done here: the server's has it.
    assert!(!forwarded(cli(dir.path()).args(["search", "tomatoes", "--no-vectors"])));
    drop(_server);
    assert!(!dir.path().join("memstr.sock").exists(), "the server left its socket behind");

    let other = store_with_memories();
    let mut quiet = cli(other.path()).args(["--no-forward", "serve"]).stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(quiet.stderr.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("memstr: serving"), "{line}");
    assert!(!other.path().join("memstr.sock").exists(), "--no-forward still listened");
    // SAFETY: signals the child this test started.
    unsafe {
        libc::kill(quiet.id() as i32, libc::SIGTERM);
    }
    quiet.wait().unwrap();
}

#[test]
fn a_stale_or_silent_socket_falls_back_at_once() {
    let dir = store_with_memories();
    let socket = dir.path().join("memstr.sock");
    let here = out(cli(dir.path()).args(["--no-forward", "search", "tomatoes"]));
    // A crashed server's socket: nobody listens.
    drop(UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let started = Instant::now();
    let stale = out(cli(dir.path()).args(["search", "tomatoes"]));
    assert!(stale.status.success(), "{}", String::from_utf8_lossy(&stale.stderr));
    assert_eq!(stale.stdout, here.stdout);
    assert!(stale.stderr.is_empty(), "{}", String::from_utf8_lossy(&stale.stderr));
    // A server started later replaces the stale socket.
    {
        let _server = Server::start(dir.path());
        assert!(forwarded(cli(dir.path()).args(["search", "tomatoes"])));
    }
    // A listener that never answers (a hung server): the client waits the handshake's
    // timeout, not forever.
    let _silent = UnixListener::bind(&socket).unwrap();
    let hung = out(cli(dir.path()).args(["search", "tomatoes"]));
    assert!(hung.status.success(), "{}", String::from_utf8_lossy(&hung.stderr));
    assert_eq!(hung.stdout, here.stdout);
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
}

#[test]
fn a_server_for_another_store_or_key_never_answers() {
    let (a, b) = (store_with_memories(), tempfile::tempdir().unwrap());
    init_store(b.path());
    run_ok(memstr(b.path()).args(["remember", "boat", "The boat is moored at the tomatoes quay"]));
    let _server = Server::start(a.path());
    // B's client finds A's server at B's socket name (moved there): A hangs up on it, and
    // B searches its own store.
    std::fs::rename(a.path().join("memstr.sock"), b.path().join("memstr.sock")).unwrap();
    let mut search = cli(b.path());
    assert!(!forwarded(search.args(["search", "tomatoes"])));
    let hits = run_ok(cli(b.path()).args(["search", "tomatoes"]));
    assert!(hits.contains("boat") && !hits.contains("allotment"), "{hits}");
    std::fs::rename(b.path().join("memstr.sock"), a.path().join("memstr.sock")).unwrap();
    assert!(forwarded(cli(a.path()).args(["search", "tomatoes"])));

    // Another key on A's store: the server does not answer it (it cannot prove the key),
    // and the search fails here as it would without a server.
    let other = memstr::Identity::generate().reveal_nsec();
    let mut wrong = cli(a.path());
    wrong.env("MEMSTR_NSEC", other.as_str()).env("MEMSTR_LOG", "memstr::forward=debug").args(["search", "tomatoes"]);
    let o = out(&mut wrong);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(stderr.contains("the server holds another key"), "{stderr}");
    assert!(stderr.contains("belongs to public key"), "{stderr}");
}
