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
