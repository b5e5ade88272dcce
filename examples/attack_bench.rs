//! Resident memory of memstr's servers and import under the attacks of issue 21 (hardening,
//! second round), with the release binary as a child process:
//!
//!   cargo build --release && cargo run --release --example attack_bench
//!
//! - `relay serve --auth`: 10,000 websockets that never authenticate (held 5 s, then closed);
//! - `relay serve` (open): 3,000 connections with one REQ each;
//! - the same two with `--max-per-address 100000`, as from 10,000 addresses (the total cap
//!   alone holds);
//! - `mcp --http`: 32 parallel searches with 4 MiB queries, then 20,000 `initialize` calls;
//! - `import`: a 300 MB line between valid ones.
//!
//! Prints, per attack, what the server answered and its resident memory (VmRSS during and
//! after, VmHWM peak) read from /proc. Linux only.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "5c0c523f52a5b6fad39ed2403092df8cebc36318b39383bca6c00808626fab3a";
const TOKEN: &str = "attack-bench-token-0123456789abcdef";

fn memstr_bin() -> PathBuf {
    // target/release/examples/attack_bench -> target/release/memstr
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(Path::parent).unwrap().join("memstr");
    assert!(bin.exists(), "{} is missing: run `cargo build --release` first", bin.display());
    bin
}

fn status_kb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn mb(pid: u32, field: &str) -> f64 {
    status_kb(pid, field) / 1024.0
}

fn raise_fd_limit() {
    // SAFETY: plain syscalls on a local struct.
    unsafe {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
        r.rlim_cur = r.rlim_max.min(65_536);
        libc::setrlimit(libc::RLIMIT_NOFILE, &r);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn relay(extra: &[&str]) -> (Server, u16, tempfile::TempDir) {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let mut c = Command::new(memstr_bin());
    c.args(["relay", "serve", "--port", &port.to_string(), "--data"])
        .arg(dir.path().join("relay"))
        .args(extra)
        .env("HOME", dir.path())
        .env("MEMSTR_NSEC", SECRET)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = c.spawn().unwrap();
    wait_port(port);
    (Server(child), port, dir)
}

/// Opens `n` websockets from 127.0.0.1 (sending `req` on each when given); returns how
/// many the server let finish the handshake. The sockets stay open in `held`.
async fn open_many(port: u16, n: usize, req: bool, held: &mut Vec<tokio::net::TcpStream>) -> usize {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut ok = 0;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        tasks.spawn(async move {
            let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()?;
            let hs = format!(
                "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            );
            tcp.write_all(hs.as_bytes()).await.ok()?;
            let mut buf = [0u8; 256];
            let read = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut buf)).await.ok()?.ok()?;
            if read == 0 || !buf.starts_with(b"HTTP/1.1 101") {
                return None;
            }
            if req {
                let text = format!(r#"["REQ","s{i}",{{"kinds":[30078],"limit":10}}]"#);
                tcp.write_all(&masked_text_frame(text.as_bytes())).await.ok()?;
            }
            Some(tcp)
        });
        if tasks.len() >= 512 {
            if let Some(Ok(Some(t))) = tasks.join_next().await {
                held.push(t);
                ok += 1;
            }
        }
    }
    while let Some(r) = tasks.join_next().await {
        if let Ok(Some(t)) = r {
            held.push(t);
            ok += 1;
        }
    }
    ok
}

fn masked_text_frame(payload: &[u8]) -> Vec<u8> {
    let mask = [1u8, 2, 3, 4];
    let mut f = vec![0x81u8];
    if payload.len() < 126 {
        f.push(0x80 | payload.len() as u8);
    } else {
        f.push(0x80 | 126);
        f.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

async fn relay_attack(name: &str, extra: &[&str], n: usize, req: bool) {
    let (server, port, _dir) = relay(extra);
    let pid = server.0.id();
    let base = mb(pid, "VmRSS:");
    let mut held = Vec::new();
    let started = Instant::now();
    let ok = open_many(port, n, req, &mut held).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    let during = mb(pid, "VmRSS:");
    // Of those the handshake let in, how many the server has closed since (idle, auth).
    let mut alive = 0;
    for t in &held {
        let mut b = [0u8; 1];
        match t.try_read(&mut b) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => alive += 1,
            _ => alive += 1,
        }
    }
    drop(held);
    tokio::time::sleep(Duration::from_secs(3)).await;
    println!(
        "{name}\t{n} tried, {ok} accepted, {alive} still open after 5 s\tRSS idle {base:.0} MB, during {during:.0} MB, after close {:.0} MB, peak {:.0} MB\t({:.1} s)",
        mb(pid, "VmRSS:"),
        mb(pid, "VmHWM:"),
        started.elapsed().as_secs_f64()
    );
}

/// One HTTP/1.1 POST; returns the status code (0 when the connection failed).
fn post(addr: SocketAddr, body: &[u8], session: Option<&str>) -> u16 {
    let Ok(mut tcp) = TcpStream::connect(addr) else { return 0 };
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(120)));
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(s) = session {
        head.push_str(&format!("Mcp-Session-Id: {s}\r\nMcp-Protocol-Version: 2025-06-18\r\n"));
    }
    head.push_str("\r\n");
    if tcp.write_all(head.as_bytes()).is_err() {
        return 0;
    }
    let _ = tcp.write_all(body);
    let mut reply = Vec::new();
    let _ = tcp.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply);
    text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

fn initialize_body() -> Vec<u8> {
    br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"attack","version":"1"}}}"#.to_vec()
}

fn mcp_attacks() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let store = home.join("store");
    let init = Command::new(memstr_bin())
        .args(["--dir"])
        .arg(&store)
        .args(["init", "--from-env", "--no-key-file"])
        .env("HOME", home)
        .env("MEMSTR_NSEC", SECRET)
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let port = free_port();
    let child = Command::new(memstr_bin())
        .args(["--dir"])
        .arg(&store)
        .args(["mcp", "--http", &format!("127.0.0.1:{port}")])
        .env("HOME", home)
        .env("MEMSTR_NSEC", SECRET)
        .env("MEMSTR_MCP_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    wait_port(port);
    let pid = server.0.id();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let base = mb(pid, "VmRSS:");

    // 32 parallel searches, 4 MiB queries each (one session, as a client would).
    let query = "a".repeat(4 << 20);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"{query}"}}}}}}"#
    );
    let started = Instant::now();
    let codes: Vec<u16> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..32).map(|_| s.spawn(|| post(addr, body.as_bytes(), Some("none")))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let refused = codes.iter().filter(|&&c| c == 413).count();
    println!(
        "mcp: 32 x 4 MiB search queries\t{refused} of 32 refused 413 (body over 1 MiB)\tRSS idle {base:.0} MB, after {:.0} MB, peak {:.0} MB\t({:.1} s)",
        mb(pid, "VmRSS:"),
        mb(pid, "VmHWM:"),
        started.elapsed().as_secs_f64()
    );

    // 20,000 initialize calls.
    let started = Instant::now();
    let body = initialize_body();
    let mut counts = std::collections::BTreeMap::<u16, usize>::new();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let mut c = std::collections::BTreeMap::<u16, usize>::new();
                    for _ in 0..2_500 {
                        *c.entry(post(addr, &body, None)).or_default() += 1;
                    }
                    c
                })
            })
            .collect();
        for h in hs {
            for (k, v) in h.join().unwrap() {
                *counts.entry(k).or_default() += v;
            }
        }
    });
    println!(
        "mcp: 20,000 initialize calls\tstatus counts {counts:?}\tRSS after {:.0} MB, peak {:.0} MB\t({:.1} s)",
        mb(pid, "VmRSS:"),
        mb(pid, "VmHWM:"),
        started.elapsed().as_secs_f64()
    );
}

fn import_attack() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let run = |args: &[&str]| {
        Command::new(memstr_bin())
            .arg("--dir")
            .arg(&store)
            .args(args)
            .env("HOME", dir.path())
            .env("MEMSTR_NSEC", SECRET)
            .output()
            .unwrap()
    };
    assert!(run(&["init", "--from-env", "--no-key-file"]).status.success());
    for i in 0..3 {
        assert!(run(&["remember", &format!("k{i}"), "a valid line"]).status.success());
    }
    let export = run(&["export", "--events"]).stdout;
    assert!(!export.is_empty(), "export printed nothing");
    let file = dir.path().join("attack.jsonl");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        f.write_all(&export).unwrap();
        f.write_all(b"{\"content\":\"").unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..300 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\"}\n\xff\xfe not utf-8\n").unwrap();
        f.write_all(&export).unwrap();
    }
    // A store of its own to import into (the same events would all be duplicates).
    let target = dir.path().join("target");
    let other = |args: &[&str]| {
        let mut c = Command::new(memstr_bin());
        c.arg("--dir").arg(&target).args(args).env("HOME", dir.path()).env("MEMSTR_NSEC", SECRET);
        c
    };
    assert!(other(&["init", "--from-env", "--no-key-file"]).output().unwrap().status.success());
    let started = Instant::now();
    let mut child = other(&["import", "--events", "--json"]).arg(&file).stdout(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let mut peak: f64 = 0.0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(mb(pid, "VmHWM:"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    println!(
        "import: a 300 MB line between valid ones\tapplied {}, duplicate {}, rejected {}\tpeak RSS {peak:.0} MB (last seen)\t({:.1} s)",
        report["applied"],
        report["duplicate"],
        report["rejected"],
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    raise_fd_limit();
    println!("attack\twhat the server did\tresident memory\t(time)");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async {
        relay_attack("relay serve --auth: 10,000 unauthenticated websockets", &["--auth"], 10_000, false).await;
        relay_attack("relay serve (open): 3,000 connections, one REQ each", &[], 3_000, true).await;
        relay_attack(
            "relay serve --auth, no per-address cap: 10,000 unauthenticated websockets",
            &["--auth", "--max-per-address", "100000"],
            10_000,
            false,
        )
        .await;
        relay_attack(
            "relay serve (open), no per-address cap: 3,000 connections, one REQ each",
            &["--max-per-address", "100000"],
            3_000,
            true,
        )
        .await;
    });
    mcp_attacks();
    import_attack();
}
