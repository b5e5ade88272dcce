//! memstr in one run: an agent remembers, searches and forgets on one device, and a
//! second device with the same key gets everything back.
//!
//! Run with `cargo run --example demo`. It uses a throwaway key and temporary stores.
//! Until relay sync lands, the events travel as the portable JSON Lines backup
//! (`memstr export --events` / `import --events`): the same signed events a relay carries.

use memstr::nostr::JsonUtil;
use memstr::{Identity, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let key = Identity::generate();
    let tmp = std::env::temp_dir().join(format!("memstr-demo-{}", std::process::id()));
    println!("agent key: {}", key.npub());

    // Device A: the agent's laptop.
    let laptop = MemoryStore::open(tmp.join("laptop.db"), key.clone(), StoreOptions::default()).await?;
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
    laptop.forget("temporary-note").await?;

    println!("\nlaptop: search \"dark mode editor\"");
    for hit in laptop.persona_search("dark mode editor", 3).await? {
        println!("  {:.2}  {}  {}", hit.score, hit.memory.address(), hit.memory.value);
    }
    let stats = laptop.stats().await?;
    println!("laptop: {} events signed, {} waiting for relays", stats.events, stats.outbox);

    // Every event is signed and NIP-44-encrypted: show what a relay would see.
    let events = laptop.export_events().await?;
    let sample = events.iter().find(|e| e.kind.as_u16() == 30078).expect("a memory event");
    let content = &sample.content;
    println!(
        "\nwhat a relay sees of one memory: kind {}, d tag {:?}, content {}...",
        sample.kind.as_u16(),
        sample.tags.first().map(|t| t.as_slice().to_vec()),
        &content[..40]
    );

    // Device B: the agent's server, same key, empty store.
    let backup = events.iter().map(|e| e.as_json()).collect::<Vec<_>>().join("\n");
    let server = MemoryStore::open(tmp.join("server.db"), key, StoreOptions::default()).await?;
    let report = server.import_json_lines(&backup).await?;
    println!("\nserver: imported {} events ({} rejected)", report.applied, report.rejected_total());
    println!("server: recall favorite-editor = {:?}", server.recall("favorite-editor").await?.map(|m| m.value));
    println!(
        "server: recall temporary-note = {:?} (forgotten on the laptop)",
        server.recall("temporary-note").await?.map(|m| m.value)
    );
    let alice = server.persona_recall(PersonaQuery::exact("people", "facts", "alice-prefers-dark-mode")).await?;
    println!("server: {} -> {} (connections: {:?})", alice[0].address(), alice[0].value, alice[0].connections);
    println!("server: newest journal entry: {:?}", server.recent(1).await?.first().map(|j| j.content.clone()));
    server.close().await?;
    laptop.close().await?;
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}
