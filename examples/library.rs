//! The README's library example, verbatim from `use` on (tests/readme.rs holds the two
//! together): open a store with the embedding model, remember, search by meaning and
//! words, sync with a relay.
//!
//!     MEMSTR_NSEC=... cargo run --example library [-- wss://relay.example.com]

use std::sync::Arc;

use memstr::index::OnnxEmbedder;
use memstr::sync::SyncOptions;
use memstr::{Identity, MemoryStore, PersonaInput, PersonaQuery, SearchQuery, StoreOptions};

#[tokio::main]
async fn main() -> memstr::Result<()> {
    let Some(identity) = Identity::from_env()? else {
        eprintln!("set MEMSTR_NSEC to the agent's key (nsec or hex)");
        return Ok(());
    };
    // Search by meaning needs the model (`memstr model install`); without it, search
    // still ranks by words and the lifecycle signals.
    let mut options = StoreOptions::default();
    match OnnxEmbedder::from_cache() {
        Ok(embedder) => options = options.embedder(Arc::new(embedder)),
        Err(e) => eprintln!("searching without the model: {e}"),
    }
    let store = MemoryStore::open("agent.db", identity, options).await?;

    store.remember("favorite-editor", "helix").await?;
    store.journal("Shipped the release.").await?;
    let alice = PersonaInput::new("people", "facts", "alice-prefers-dark-mode", "Alice prefers dark mode");
    store.persona_remember(alice.themes(["ui"])).await?;

    for hit in store.search(SearchQuery::new("which colour scheme does Alice like?").limit(5)).await? {
        println!("{:.3}  {}", hit.score, hit.found.text());
    }
    let exact = store.persona_recall(PersonaQuery::exact("people", "facts", "alice-prefers-dark-mode")).await?;
    assert_eq!(exact[0].value, "Alice prefers dark mode");

    // Every device holding the key converges through the relays.
    if let Some(url) = std::env::args().nth(1) {
        store.add_relay(&url, false).await?;
        for report in store.sync(&SyncOptions::default()).await? {
            println!("{}: pulled {} new, pushed {}", report.url, report.pulled.applied, report.pushed);
        }
    }
    store.forget("favorite-editor").await?;
    store.close().await
}
