//! A second device in one command (docs/sync.md, "Add a device"): device A keeps its key in
//! a password-protected key file and syncs with two relays; device B runs only
//! `memstr init --import "$(memstr key export)" --discover ONE_RELAY` and ends with both
//! relays and every memory; a relay B adds later reaches A. Through nostr-rs-relay and
//! through `memstr relay serve`. Also: the key commands' rules, a forget that settles, and
//! relay lists that try to break the bounds.

mod support;

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use memstr::codec::{Codec, RelayEntry};
use memstr::nostr::Keys;
use memstr::{DTagMode, MemoryStore, StoreOptions};
use serde_json::Value;
use support::relay::LocalRelay;
use support::*;

const PASSWORD: &str = "correct horse battery staple";

/// A device: a home and a store directory, the key in a file (never in the environment).
struct Device {
    tmp: tempfile::TempDir,
}

impl Device {
    fn new() -> Self {
        Device { tmp: tempfile::tempdir().unwrap() }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = bare(self.tmp.path());
        c.env("MEMSTR_PASSWORD", PASSWORD)
            .env("MEMSTR_CACHE_DIR", self.tmp.path().join("cache"))
            .arg("--dir")
            .arg(self.tmp.path().join("store"))
            .args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(o.status.success(), "memstr {args:?}: {}\n{out}\n{err}", o.status);
        out.into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut v = args.to_vec();
        v.push("--json");
        serde_json::from_str(&self.ok(&v)).unwrap()
    }

    fn relays(&self) -> Vec<String> {
        let mut r: Vec<String> = self
            .json(&["relay", "list"])
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["url"].as_str().unwrap().into())
            .collect();
        r.sort();
        r
    }

    /// A pass that must end with nothing pending on any relay, `status` agreeing.
    fn settled_sync(&self) {
        let reports = self.json(&["sync"]);
        for r in reports.as_array().unwrap() {
            assert_eq!(r["error"], Value::Null, "{r}");
        }
        for r in self.json(&["relay", "list"]).as_array().unwrap() {
            assert_eq!(r["pending"], 0, "{r}");
        }
        assert_eq!(self.json(&["status"])["outbox"], 0);
    }
}

/// Device A with two relays and memories of every kind; B from A's exported key and one
/// relay; then a relay B adds reaches A.
fn second_device_from_one_command(r1: &str, r2: &str, r3: &str) {
    let a = Device::new();
    let out = a.ok(&["init", "--log-n", "4"]);
    assert!(out.starts_with("created key npub1"), "{out}");
    a.ok(&["relay", "add", r1]);
    a.ok(&["relay", "add", r2]);
    a.ok(&["remember", "wifi-password", "correct horse battery staple"]);
    a.ok(&["journal", "Dinner at the harbour with the rowing club"]);
    a.ok(&["persona", "add", "people", "facts", "marco-birthday", "Marco's birthday is on 14 March"]);
    a.ok(&["fact", "set", "self", "dana", "city", "Lisbon"]);
    a.settled_sync();

    let shown = a.ok(&["key", "show"]);
    assert!(shown.contains("npub1") && !shown.contains("nsec1") && !shown.contains("ncryptsec1"), "{shown}");
    let export = a.ok(&["key", "export"]);
    let export = export.trim();
    assert!(export.starts_with("ncryptsec1"), "{export}");

    let b = Device::new();
    let out = b.ok(&["init", "--import", export, "--discover", r1, "--log-n", "4"]);
    let npub = a.json(&["whoami"])["npub"].as_str().unwrap().to_string();
    assert!(out.contains(&format!("imported key {npub}")), "{out}");
    let mut both = vec![r1.to_string(), r2.to_string()];
    both.sort();
    assert_eq!(b.relays(), both, "B found both relays from one");
    assert_eq!(b.ok(&["recall", "wifi-password"]).trim(), "correct horse battery staple");
    assert!(b.ok(&["recent"]).contains("rowing club"));
    assert!(b.ok(&["persona", "get", "people", "facts", "marco-birthday", "--peek"]).contains("14 March"));
    assert_eq!(b.ok(&["fact", "get", "self", "dana", "city"]).trim(), "Lisbon");
    b.settled_sync();

    // A relay added on B reaches A with the next syncs.
    b.ok(&["relay", "add", r3]);
    b.settled_sync();
    a.ok(&["sync"]);
    assert!(a.relays().contains(&r3.to_string()), "A learned B's relay: {:?}", a.relays());
    a.settled_sync();
    // And a removal on A reaches B, while B's addition stays.
    a.ok(&["relay", "remove", r2]);
    a.settled_sync();
    b.ok(&["sync"]);
    let mut left = vec![r1.to_string(), r3.to_string()];
    left.sort();
    assert_eq!(b.relays(), left);

    // `relay discover` on a store that has the key and nothing else.
    let c = Device::new();
    c.ok(&["init", "--import", export, "--log-n", "4"]);
    assert!(c.relays().is_empty());
    let out = c.ok(&["relay", "discover", r3]);
    assert!(out.contains("from the agent's relay list"), "{out}");
    assert_eq!(c.relays(), left);
    assert_eq!(c.ok(&["recall", "wifi-password"]).trim(), "correct horse battery staple");
    let out = c.ok(&["relay", "public", "on"]);
    assert!(out.contains("public"), "{out}");
    c.ok(&["relay", "public", "off"]);
    assert!(!c.run(&["relay", "public", "maybe"]).status.success());
}

#[test]
fn a_second_device_through_nostr_rs_relay() {
    let (r1, r2, r3) = (LocalRelay::start(), LocalRelay::start(), LocalRelay::start());
    second_device_from_one_command(&r1.url(), &r2.url(), &r3.url());
}

/// `memstr relay serve` on a free port; killed when dropped.
struct Served(Child, u16, #[allow(dead_code)] tempfile::TempDir);

impl Served {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let tmp = tempfile::tempdir().unwrap();
        let child = bare(tmp.path())
            .args(["relay", "serve", "--port", &port.to_string(), "--data"])
            .arg(tmp.path().join("relay"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "relay serve did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Served(child, port, tmp)
    }
    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.1)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_second_device_through_relay_serve() {
    let (r1, r2, r3) = (Served::start(), Served::start(), Served::start());
    second_device_from_one_command(&r1.url(), &r2.url(), &r3.url());
}

/// Against `relay serve` a tombstone is refused once the relay holds its deletion: the
/// refusal is final, reported once, and nothing stays pending (it used to forever).
#[test]
fn a_forget_synced_through_relay_serve_leaves_nothing_pending() {
    let relay = Served::start();
    let (a, b) = (Device::new(), Device::new());
    a.ok(&["init", "--log-n", "4"]);
    a.ok(&["relay", "add", &relay.url()]);
    for i in 0..5 {
        a.ok(&["remember", &format!("k{i}"), "v"]);
    }
    a.settled_sync();
    let export = a.ok(&["key", "export"]);
    b.ok(&["init", "--import", export.trim(), "--discover", &relay.url(), "--log-n", "4"]);
    for i in 0..5 {
        a.ok(&["forget", &format!("k{i}")]);
        b.ok(&["forget", &format!("kv/k{i}")]);
    }
    a.settled_sync();
    let first = b.json(&["sync"]);
    let refused = first[0]["refused"].as_array().unwrap().len();
    for r in b.json(&["relay", "list"]).as_array().unwrap() {
        assert_eq!(r["pending"], 0, "settled after one pass ({refused} refused: {}): {r}", first[0]["refused"]);
    }
    let again = b.json(&["sync"]);
    assert_eq!(again[0]["refused"].as_array().unwrap().len(), 0, "a final refusal is reported once: {again}");
    b.settled_sync();
    a.settled_sync();
}

#[test]
fn key_commands_and_init_never_replace_or_confuse_keys() {
    let a = Device::new();
    a.ok(&["init", "--log-n", "4"]);
    let npub = a.json(&["whoami"])["npub"].as_str().unwrap().to_string();
    // init again on the same store: said, and nothing changed.
    let out = a.ok(&["init", "--log-n", "4"]);
    assert!(out.contains("already there for this key"), "{out}");
    // The bare key only when asked that way, with a warning.
    let o = a.run(&["key", "export", "--nsec"]);
    let nsec = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert!(nsec.starts_with("nsec1") && String::from_utf8_lossy(&o.stderr).contains("warning"), "{o:?}");
    // Every form of import: nsec, hex, a key file's path, standard input; MEMSTR_NSEC.
    let hex = Keys::parse(&nsec).unwrap().secret_key().to_secret_hex();
    let file = a.tmp.path().join("store/key.ncryptsec");
    for (how, key) in [("nsec", nsec.clone()), ("hex", hex.clone()), ("file", file.display().to_string())] {
        let d = Device::new();
        let out = d.ok(&["init", "--import", &key, "--log-n", "4"]);
        assert!(out.contains(&format!("imported key {npub}")), "{how}: {out}");
    }
    let d = Device::new();
    let mut c = d.cmd(&["init", "--import", "-", "--no-key-file"]);
    let out = run_with_stdin(&mut c, &format!("{nsec}\n"));
    assert!(out.contains(&format!("imported key {npub}")), "{out}");
    let d = Device::new();
    let out = run_ok(d.cmd(&["init", "--no-key-file"]).env("MEMSTR_NSEC", &hex));
    assert!(out.contains(&format!("key from MEMSTR_NSEC {npub}")), "{out}");
    // Another key on this store: refused, naming both.
    let other = Keys::generate();
    let o = a.run(&["init", "--import", &other.secret_key().to_secret_hex(), "--log-n", "4"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&npub) && err.contains("refusing"), "{err}");
    // A wrong password for an ncryptsec: a clear error, nothing created.
    let export = a.ok(&["key", "export"]);
    let d = Device::new();
    let o = d.cmd(&["init", "--import", export.trim()]).env("MEMSTR_PASSWORD", "wrong").output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("wrong password"), "{o:?}");
    assert!(!d.tmp.path().join("store/memstr.db").exists());
}

fn run_with_stdin(c: &mut Command, input: &str) -> String {
    use std::io::Write;
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{o:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// Lists signed with the agent's own key (an old device, a bug, a leaked key) still cannot
/// make a device configure more than 16 relays at a time, anything but wss:// (ws:// to
/// loopback from a loopback setup), or private addresses unless a configured or bootstrap
/// relay is on one.
#[tokio::test]
async fn a_hostile_relay_list_stays_within_the_bounds() {
    let keys = Keys::parse(TEST_SECRET).unwrap();
    let codec = Codec::new(keys, DTagMode::Blinded).unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let mut entries: Vec<RelayEntry> =
        (0..100).map(|i| RelayEntry::new(format!("wss://relay-{i}.invalid"), now - 10, 0)).collect();
    for bad in [
        "http://relay.invalid",
        "ws://plain.invalid",
        "wss://10.0.0.5",
        "wss://192.168.1.2:7777",
        "ws://localhost:1",
        "wss://user@host.invalid",
        "file:///etc/passwd",
        &format!("wss://{}.invalid", "x".repeat(600)),
    ] {
        entries.push(RelayEntry::new(bad, now - 5, 0));
    }
    let list = codec.relay_list_event(&entries, now as u64).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let store =
        MemoryStore::open(dir.path().join("memstr.db"), test_identity(), StoreOptions::default()).await.unwrap();
    store.import_events(vec![list.clone()]).await.unwrap();
    let opts = memstr::sync::SyncOptions {
        connect_timeout: Duration::from_secs(2),
        deadline: Duration::from_secs(5),
        ..Default::default()
    };
    store.sync(&opts).await.unwrap();
    let relays: Vec<String> = store.relays().await.unwrap().into_iter().map(|r| r.url).collect();
    assert_eq!(relays.len(), memstr::sync::MAX_LIST_RELAYS, "{relays:?}");
    assert!(relays.iter().all(|u| u.starts_with("wss://relay-")), "only public wss:// relays: {relays:?}");

    // Discovery from a bootstrap relay on loopback allows private addresses, never more.
    let hostile = hostile_relay::HostileRelay::start(hostile_relay::Attack::Serve(vec![serde_json::from_str(
        &memstr::nostr::JsonUtil::as_json(&list),
    )
    .unwrap()]))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let store =
        MemoryStore::open(dir.path().join("memstr.db"), test_identity(), StoreOptions::default()).await.unwrap();
    let report = store.discover_relays(&[hostile.url()], &opts, false).await.unwrap();
    assert_eq!(report.added.len(), memstr::sync::MAX_LIST_RELAYS, "{report:?}");
    assert!(report.skipped.iter().any(|(_, why)| why.contains("not a wss://")), "{report:?}");
    assert!(report.skipped.iter().any(|(_, why)| why.contains("more than 16")), "{report:?}");
    let relays: Vec<String> = store.relays().await.unwrap().into_iter().map(|r| r.url).collect();
    assert!(relays.iter().all(|u| u.starts_with("wss://") || u.starts_with("ws://localhost")), "{relays:?}");
    assert!(relays.iter().all(|u| !u.contains("plain.invalid") && !u.starts_with("http")), "{relays:?}");
}

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;

/// The public NIP-65 list is off by default (it tells anyone where the memories are) and
/// published beside the private one when switched on.
#[tokio::test]
async fn the_public_relay_list_is_off_by_default_and_on_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let store =
        MemoryStore::open(dir.path().join("memstr.db"), test_identity(), StoreOptions::default()).await.unwrap();
    store.add_relay("wss://relay.example.com", false).await.unwrap();
    let kinds = |events: &[memstr::nostr::Event]| events.iter().map(|e| e.kind.as_u16()).collect::<Vec<_>>();
    let events = store.export_events().await.unwrap();
    assert!(kinds(&events).contains(&10013) && !kinds(&events).contains(&10002), "{:?}", kinds(&events));
    let private = events.iter().find(|e| e.kind.as_u16() == 10013).unwrap();
    assert!(!private.content.contains("relay.example.com"), "the private list is encrypted");
    store.set_public_relay_list(true).await.unwrap();
    let events = store.export_events().await.unwrap();
    let public = events.iter().find(|e| e.kind.as_u16() == 10002).expect("a public list");
    let tags: Vec<Vec<String>> = public.tags.iter().map(|t| t.as_slice().to_vec()).collect();
    assert_eq!(tags, [vec!["r".to_string(), "wss://relay.example.com".to_string()]]);
    assert!(store.outbox().await.unwrap().contains(&public.id.to_hex()), "queued for the relays");
    store.set_public_relay_list(false).await.unwrap();
    let events = store.export_events().await.unwrap();
    assert!(!kinds(&events).contains(&10002), "switched off, no relay gets it: {:?}", kinds(&events));
}
