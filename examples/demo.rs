//! memstr in one run: an agent remembers, searches and forgets on its laptop; its server,
//! holding the same key, gets everything back through a real relay.
//!
//! `cargo run --example demo`. Throwaway key and stores; the relay is nostr-rs-relay
//! 0.8.12 on a free loopback port with a temporary database (relay-fixtures/, built and
//! cached on first use).

#[path = "../relay-fixtures/local_relay.rs"]
mod local_relay;

use memstr::sync::SyncOptions;
use memstr::{Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};

fn summary(reports: &[memstr::sync::RelayReport]) -> String {
    let r = &reports[0];
    match &r.error {
        Some(e) => format!("error: {e}"),
        None => format!("pushed {}, pulled {} new, {} pending", r.pushed, r.pulled.applied, r.pending),
    }
}

#[tokio::main]
async fn main() -> memstr::Result<()> {
    println!("starting nostr-rs-relay (built and cached on first use; that can take ~10 minutes)...");
    let relay = local_relay::LocalRelay::start();
    let url = relay.url();
    let key = Identity::generate();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    println!("relay {url}\nagent key {}", key.npub());
    let sync = SyncOptions::default();

    // Device A: the agent's laptop.
    let laptop = MemoryStore::open(tmp.path().join("laptop.db"), key.clone(), StoreOptions::default()).await?;
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

    println!("\nlaptop: search \"dark mode editor\"");
    for hit in laptop.persona_search("dark mode editor", 3).await? {
        println!("  {:.2}  {}  {}", hit.score, hit.memory.address(), hit.memory.value);
    }
    println!("laptop: sync: {}", summary(&laptop.sync(&sync).await?));

    // Device B: the agent's server, same key, empty store.
    let server = MemoryStore::open(tmp.path().join("server.db"), key, StoreOptions::default()).await?;
    server.add_relay(&url, false).await?;
    println!("\nserver: sync: {}", summary(&server.sync(&sync).await?));
    println!("server: recall favorite-editor = {:?}", server.recall("favorite-editor").await?.map(|m| m.value));
    let alice = server.persona_recall(PersonaQuery::exact("people", "facts", "alice-prefers-dark-mode")).await?;
    println!("server: {} -> {} (connections: {:?})", alice[0].address(), alice[0].value, alice[0].connections);
    println!("server: newest journal entry: {:?}", server.recent(1).await?.first().map(|j| j.content.clone()));

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
    drop(relay);
    Ok(())
}
