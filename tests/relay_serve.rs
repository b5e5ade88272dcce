//! `memstr relay serve`: the relay in memstr's own binary, run as a child process, with two
//! `memstr` devices syncing through it, across restarts of the relay (graceful and SIGKILL).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod support;

/// A public test key; never a real one.
const SECRET_HEX: &str = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a";
/// Another valid key (the scalar 3).
const OTHER_HEX: &str = "0000000000000000000000000000000000000000000000000000000000000003";

/// [`support::bare`] with the cache inside `sandbox` too (no model: these tests are about
/// the relay).
fn bare(sandbox: &Path) -> Command {
    let mut c = support::bare(sandbox);
    c.env("MEMSTR_CACHE_DIR", sandbox.join("cache"));
    c
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `memstr relay serve` on a fixed port and database directory; killed when dropped.
struct Served {
    child: Option<Child>,
    port: u16,
    sandbox: tempfile::TempDir,
    extra: Vec<String>,
}

impl Served {
    fn start(extra: &[&str]) -> Self {
        let mut s = Served {
            child: None,
            port: free_port(),
            sandbox: tempfile::tempdir().unwrap(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
        };
        s.launch();
        s
    }

    fn data(&self) -> PathBuf {
        self.sandbox.path().join("relay-db")
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    fn launch(&mut self) {
        let mut c = bare(self.sandbox.path());
        c.args(["relay", "serve", "--port", &self.port.to_string(), "--data"])
            .arg(self.data())
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        self.child = Some(c.spawn().expect("memstr relay serve starts"));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("memstr relay serve exited: {status}");
            }
            assert!(Instant::now() < deadline, "memstr relay serve did not listen on {}", self.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, as a service manager stops it; it must exit 0.
    fn stop(&mut self) {
        let mut child = self.child.take().expect("running");
        let ok = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap().success();
        assert!(ok, "kill -TERM");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "relay serve exited with {status} on SIGTERM");
                return;
            }
            assert!(Instant::now() < deadline, "relay serve ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One device: a store directory and a key.
struct Device {
    tmp: tempfile::TempDir,
    secret: &'static str,
}

impl Device {
    fn new(secret: &'static str, relay: &Served) -> Self {
        let d = Device { tmp: tempfile::tempdir().unwrap(), secret };
        d.ok(&["init", "--from-env", "--no-key-file"]);
        d.ok(&["relay", "add", &relay.url()]);
        d
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut c = bare(self.tmp.path());
        c.env("MEMSTR_NSEC", self.secret).arg("--dir").arg(self.tmp.path().join("store")).args(args);
        c.output().expect("memstr runs")
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(o.status.success(), "memstr {args:?}: {}\n{out}\n{err}", o.status);
        out.into_owned()
    }

    /// One pass; the single relay's report, which must carry no error.
    fn sync(&self) -> Value {
        let out = self.ok(&["sync", "--json"]);
        let reports: Value = serde_json::from_str(&out).unwrap();
        let r = reports[0].clone();
        assert_eq!(r["error"], Value::Null, "{r}");
        r
    }
}

#[test]
fn two_devices_sync_through_relay_serve_across_restarts() {
    let mut relay = Served::start(&[]);
    let (a, b) = (Device::new(SECRET_HEX, &relay), Device::new(SECRET_HEX, &relay));
    a.ok(&["remember", "editor", "helix"]);
    a.ok(&["journal", "laptop diary"]);
    a.ok(&["persona", "add", "people", "facts", "alice", "likes tea", "--theme", "tea"]);
    let ra = a.sync();
    assert_eq!(ra["method"], "negentropy", "relay serve speaks NIP-77: {ra}");
    // Three memories and the relay list.
    assert_eq!((ra["pushed"].as_u64(), ra["pending"].as_u64()), (Some(4), Some(0)), "{ra}");

    // A graceful restart keeps every acknowledged event.
    relay.stop();
    relay.launch();
    let rb = b.sync();
    assert_eq!(rb["pulled"]["applied"], 3, "{rb}");
    assert_eq!(b.ok(&["recall", "editor"]), "helix\n");
    assert!(b.ok(&["recent"]).contains("laptop diary"));

    // Writes on both sides, a SIGKILL between them: still nothing lost.
    b.ok(&["remember", "from-b", "written on the server"]);
    b.ok(&["forget", "editor"]);
    // A forget is a tombstone and a NIP-09 deletion.
    let rb = b.sync();
    let pushed = rb["pushed"].as_u64().unwrap();
    assert!(pushed >= 2 && rb["pending"] == 0, "{rb}");
    relay.kill();
    relay.launch();
    let ra = a.sync();
    // The relay applies the deletion itself (NIP-09), so the tombstone may not be served.
    let applied = ra["pulled"]["applied"].as_u64().unwrap();
    assert!((2..=pushed).contains(&applied), "{ra}");
    assert_eq!(a.ok(&["recall", "from-b"]), "written on the server\n");
    assert!(!a.run(&["recall", "editor"]).status.success(), "the deletion came through the restart");
    assert!(relay.data().join("data.mdb").exists(), "the events live in LMDB under --data");
}

#[test]
fn relay_serve_with_allow_and_auth_takes_only_the_listed_key() {
    let me = memstr::Identity::from_secret(SECRET_HEX).unwrap();
    let relay = Served::start(&["--auth", "--allow", &me.npub()]);
    let (a, b) = (Device::new(SECRET_HEX, &relay), Device::new(SECRET_HEX, &relay));
    a.ok(&["remember", "k", "behind auth"]);
    assert_eq!(a.sync()["pushed"], 2, "the memory and the relay list");
    b.sync();
    assert_eq!(b.ok(&["recall", "k"]), "behind auth\n");

    let stranger = Device::new(OTHER_HEX, &relay);
    stranger.ok(&["remember", "k", "not welcome"]);
    let r = stranger.sync();
    assert_eq!(r["pushed"], 0, "{r}");
    // The memory and the stranger's relay list.
    assert_eq!(r["refused"].as_array().map(Vec::len), Some(2), "the writes are refused, by name: {r}");
}

#[test]
fn relay_serve_refuses_a_port_in_use_with_exit_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let sandbox = tempfile::tempdir().unwrap();
    let o = bare(sandbox.path())
        .args(["relay", "serve", "--port", &port, "--data"])
        .arg(sandbox.path().join("db"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot listen"), "{o:?}");
}

/// A websocket from `from` (any 127.0.0.0/8 address) to the relay, or `None` when the
/// relay closed it before the handshake finished.
async fn websocket(port: u16, from: [u8; 4]) -> Option<tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((std::net::Ipv4Addr::from(from), 0).into()).unwrap();
    let tcp = socket.connect(([127, 0, 0, 1], port).into()).await.ok()?;
    let url = format!("ws://127.0.0.1:{port}");
    match tokio::time::timeout(Duration::from_secs(5), tokio_tungstenite::client_async(url, tcp)).await {
        Ok(Ok((ws, _))) => Some(ws),
        _ => None,
    }
}

/// Whether the relay closes `ws` within `within` (its next read ends or fails).
async fn closed_within(ws: &mut tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, within: Duration) -> bool {
    use futures_util::StreamExt;
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Err(_) => return false,
            Ok(None) | Ok(Some(Err(_))) => return true,
            Ok(Some(Ok(tokio_tungstenite::tungstenite::Message::Close(_)))) => return true,
            Ok(Some(Ok(_))) => continue, // an AUTH challenge, a notice
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_serve_caps_connections_per_address_and_in_total() {
    let s = Served::start(&["--max-per-address", "3", "--max-connections", "5"]);
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(websocket(s.port, [127, 0, 0, 1]).await.expect("within the per-address cap"));
    }
    assert!(websocket(s.port, [127, 0, 0, 1]).await.is_none(), "a 4th connection from one address was taken");
    open.push(websocket(s.port, [127, 0, 0, 2]).await.expect("another address"));
    open.push(websocket(s.port, [127, 0, 0, 3]).await.expect("within the total cap"));
    assert!(websocket(s.port, [127, 0, 0, 4]).await.is_none(), "a 6th connection in all was taken");
    // A closed connection gives its place back.
    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    while websocket(s.port, [127, 0, 0, 4]).await.is_none() {
        assert!(Instant::now() < deadline, "a freed place was never given back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relay_serve_closes_idle_unauthenticated_and_oversized_connections() {
    let s = Served::start(&["--idle-timeout", "2"]);
    let mut idle = websocket(s.port, [127, 0, 0, 1]).await.unwrap();
    assert!(!closed_within(&mut idle, Duration::from_millis(1200)).await, "closed before its idle timeout");
    assert!(closed_within(&mut idle, Duration::from_secs(4)).await, "an idle connection stayed open");

    let s = Served::start(&["--auth", "--auth-timeout", "2"]);
    let mut silent = websocket(s.port, [127, 0, 0, 1]).await.unwrap();
    assert!(closed_within(&mut silent, Duration::from_secs(5)).await, "an unauthenticated connection stayed open");

    // A frame header announcing 1 GiB: closed before the relay buffers a byte of it.
    let s = Served::start(&[]);
    let ws = websocket(s.port, [127, 0, 0, 1]).await.unwrap();
    let mut tcp = ws.into_inner();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut header = vec![0x81u8, 0x80 | 127];
    header.extend_from_slice(&(1u64 << 30).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    tcp.write_all(&header).await.unwrap();
    let _ = tcp.write_all(&[b'x'; 4096]).await;
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "an oversized frame did not end the connection: {read:?}");
}

#[test]
fn relay_serve_data_is_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let port = free_port();
    let sandbox = tempfile::tempdir().unwrap();
    let data = sandbox.path().join("relay-db");
    let bin = env!("CARGO_BIN_EXE_memstr");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("umask 000; exec {bin} relay serve --port {port} --data {}", data.display()))
        .env("HOME", sandbox.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "relay serve did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700, "the relay's data directory");
    for entry in std::fs::read_dir(&data).unwrap() {
        let p = entry.unwrap().path();
        assert_eq!(mode(&p) & 0o077, 0, "{} is open to others", p.display());
    }
}
