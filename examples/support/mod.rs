//! What the benchmark examples share (included with `#[path]`; not an example itself).

/// splitmix64: small and deterministic, so a fixed seed gives every run the same texts.
pub struct Rng(pub u64);

#[allow(dead_code)] // each example uses its own subset
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One item of `list`.
    pub fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }

    /// One of the `|`-separated items of `list`.
    pub fn pick_bar(&mut self, list: &'static str) -> &'static str {
        let n = list.matches('|').count() + 1;
        list.split('|').nth(self.below(n)).unwrap_or(list)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// The default embedder from the cache, or none (with `--no-vectors`, or when it is not
/// installed: then it says why on stderr).
#[allow(dead_code)] // not every example that includes this file loads a model
pub fn embedder(no_vectors: bool) -> Option<std::sync::Arc<dyn memstr::index::Embedder>> {
    if no_vectors {
        return None;
    }
    match memstr::index::OnnxEmbedder::from_cache() {
        Ok(e) => Some(std::sync::Arc::new(e)),
        Err(e) => {
            eprintln!("vectors off: {e}");
            None
        }
    }
}

/// UTC date and time now.
pub fn utc_now() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64());
    memstr::search::query::utc_string(now.unwrap_or(0.0))
}

/// The calling agent's phrasings per question (examples/data/agent_phrasings.json), once
/// `--phrasings FILE` named them: (phrasings, hypothetical) by question text.
static PHRASINGS: std::sync::OnceLock<std::collections::HashMap<String, (Vec<String>, String)>> =
    std::sync::OnceLock::new();

/// Loads the phrasings file `--phrasings FILE` names, if it does (exits 2 on a bad file).
#[allow(dead_code)] // not every example that includes this file asks questions
pub fn load_phrasings(args: &[String]) {
    let Some(path) = args.iter().position(|a| a == "--phrasings").and_then(|i| args.get(i + 1)) else { return };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("--phrasings {path}: {e}");
        std::process::exit(2)
    });
    let v: serde_json::Value = serde_json::from_str(&text).expect("a phrasings file is JSON");
    let mut map = std::collections::HashMap::new();
    for item in v["items"].as_array().expect("items") {
        let q = item["question"].as_str().unwrap_or_default().to_string();
        let p = item["phrasings"].as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect());
        let h = item["hypothetical"].as_str().unwrap_or_default().to_string();
        map.insert(q, (p.unwrap_or_default(), h));
    }
    eprintln!("phrasings: {} questions from {path}", map.len());
    let _ = PHRASINGS.set(map);
}

/// Adds the loaded phrasings of `sq`'s question to it (nothing when none were loaded).
#[allow(dead_code)] // not every example that includes this file asks questions
pub fn apply_phrasings(sq: &mut memstr::SearchQuery) {
    if let Some((p, h)) = PHRASINGS.get().and_then(|m| m.get(&sq.text)) {
        sq.phrasings = p.clone();
        sq.hypothetical = (!h.is_empty()).then(|| h.clone());
    }
}

/// The machine a figure was measured on: cores, CPU model and memory, from /proc.
#[allow(dead_code)] // not every example that includes this file prints it
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpu
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("?".to_string(), |(_, m)| m.trim().to_string());
    let cores = cpu.lines().filter(|l| l.starts_with("processor")).count();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_default();
    format!("{cores} cores, {model}, {mem} kB RAM")
}

/// The lifecycle options `--behaviour NAME=on|off` (repeatable) ask for, printed so every
/// output says which behaviours it ran with (exits 2 on a bad switch).
#[allow(dead_code)] // not every example that includes this file writes through the lifecycle
pub fn lifecycle_options(args: &[String]) -> memstr::LifecycleOptions {
    let mut life = memstr::LifecycleOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--behaviour" {
            let switch = it.next().map(String::as_str).unwrap_or("");
            if let Err(e) = life.behaviours.apply(switch) {
                eprintln!("--behaviour: {e}");
                std::process::exit(2)
            }
        }
    }
    let on: Vec<&str> = life.behaviours.iter().filter(|(_, on)| *on).map(|(b, _)| b.as_str()).collect();
    println!("behaviours on: {}", if on.is_empty() { "none".to_string() } else { on.join(", ") });
    life
}

/// This process's peak resident memory (VmHWM), in MB.
pub fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// User + system CPU seconds of a process so far (`/proc/<pid>/stat`, fields 14 and 15).
pub fn cpu_secs(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name (field 2) may contain spaces: count fields after its `)`.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: u64 = rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum();
    ticks as f64 / clock_ticks()
}

fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        let out = std::process::Command::new("getconf").arg("CLK_TCK").output().ok();
        out.and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok()).unwrap_or(100.0)
    })
}

/// A nostr-rs-relay binary: `given`, else the one relay-fixtures/install-relay.sh finds or
/// builds.
pub fn relay_binary(given: Option<std::path::PathBuf>) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    if let Some(bin) = given {
        return Ok(bin);
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("relay-fixtures/install-relay.sh");
    let out = std::process::Command::new("bash").arg(&script).stderr(std::process::Stdio::inherit()).output()?;
    if !out.status.success() {
        return Err(format!("{} failed: no nostr-rs-relay binary", script.display()).into());
    }
    // The script logs to stderr; its last stdout line is the binary's path.
    let stdout = String::from_utf8(out.stdout)?;
    match stdout.lines().last() {
        Some(line) if !line.trim().is_empty() => Ok(std::path::PathBuf::from(line.trim())),
        _ => Err("install-relay.sh printed no path".into()),
    }
}

/// One nostr-rs-relay process on a free loopback port with its database in `data`, killed
/// when dropped (also on error or panic).
pub struct RelayProcess {
    child: std::process::Child,
    port: u16,
}

impl RelayProcess {
    /// Starts `bin` and waits (at most `wait`) until it listens.
    pub fn start(
        bin: &std::path::Path,
        data: &std::path::Path,
        wait: std::time::Duration,
    ) -> Result<RelayProcess, Box<dyn std::error::Error>> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let config = data.join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[info]\nrelay_url = \"ws://127.0.0.1:{port}/\"\n[database]\ndata_directory = \"{}\"\n\
                 [network]\naddress = \"127.0.0.1\"\nport = {port}\n",
                data.display()
            ),
        )?;
        let child = std::process::Command::new(bin)
            .arg("-c")
            .arg(&config)
            .arg("-d")
            .arg(data)
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", bin.display()))?;
        // From here on Drop stops the process, whatever happens next.
        let mut relay = RelayProcess { child, port };
        let deadline = std::time::Instant::now() + wait;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = relay.child.try_wait()? {
                return Err(format!("nostr-rs-relay exited at start: {status}").into());
            }
            if std::time::Instant::now() > deadline {
                return Err(format!("nostr-rs-relay did not listen on port {port} within {wait:?}").into());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(relay)
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
