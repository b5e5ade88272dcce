//! A real nostr-rs-relay 0.8.12 process on a free loopback port with a throwaway
//! database, for the tests and the demo (both include this file with `#[path]`; it is not
//! part of the library). The binary comes from relay-fixtures/install-relay.sh (built once,
//! then cached). `RELAY_LOG=debug` shows the relay's own log (it is silent otherwise).
#![allow(dead_code)]

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub struct LocalRelay {
    child: Option<Child>,
    port: u16,
    data: tempfile::TempDir,
    /// More configuration, appended to the generated file (TOML tables).
    extra: String,
}

fn binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("relay-fixtures/install-relay.sh");
        let out = Command::new("bash").arg(script).stderr(Stdio::inherit()).output().expect("running install-relay.sh");
        assert!(out.status.success(), "relay-fixtures/install-relay.sh failed: no nostr-rs-relay binary");
        PathBuf::from(String::from_utf8(out.stdout).unwrap().lines().last().unwrap().trim())
    })
    .clone()
}

/// Whether a nostr-rs-relay binary is already installed (nothing is built to find out).
pub fn installed() -> bool {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("relay-fixtures/install-relay.sh");
    Command::new("bash")
        .arg(script)
        .arg("--find")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl LocalRelay {
    /// Starts a relay with an empty database.
    pub fn start() -> Self {
        Self::start_with("")
    }

    /// Starts a relay with `extra` appended to its configuration, e.g.
    /// `"[options]\nreject_future_seconds = 1800\n"`.
    pub fn start_with(extra: &str) -> Self {
        let mut relay =
            LocalRelay { child: None, port: free_port(), data: tempfile::tempdir().unwrap(), extra: extra.to_string() };
        relay.launch();
        relay
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    fn launch(&mut self) {
        let config = self.data.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[info]\nrelay_url = \"ws://127.0.0.1:{p}/\"\n[database]\ndata_directory = \"{d}\"\n[network]\naddress = \"127.0.0.1\"\nport = {p}\n{extra}",
                p = self.port,
                d = self.data.path().display(),
                extra = self.extra,
            ),
        )
        .unwrap();
        let child = Command::new(binary())
            .arg("-c")
            .arg(&config)
            .arg("-d")
            .arg(self.data.path())
            .env("RUST_LOG", std::env::var("RELAY_LOG").unwrap_or("warn".into()))
            .stdout(if std::env::var_os("RELAY_LOG").is_some() { Stdio::inherit() } else { Stdio::null() })
            .stderr(if std::env::var_os("RELAY_LOG").is_some() { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .expect("starting nostr-rs-relay");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "nostr-rs-relay did not start on port {}", self.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the relay (SIGKILL): its database stays for [`LocalRelay::restart`].
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts the relay again on the same port and database.
    pub fn restart(&mut self) {
        self.kill();
        self.launch();
    }
}

impl Drop for LocalRelay {
    fn drop(&mut self) {
        self.kill();
    }
}
