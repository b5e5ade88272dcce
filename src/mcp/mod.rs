//! The agent interface: a Model Context Protocol server over one store (`memstr mcp`),
//! built on rmcp, the official Rust SDK.
//!
//! One long-running process holds the store, so an agent pays for the key and the model
//! once, not per call: the key is decrypted at start, the embedding model loaded once, the
//! store's relays synced live in the background while it serves ([`MemoryStore::watch`]),
//! accesses signed in batches. Transports: stdio (what Claude Code, Cursor and most clients
//! launch), or streamable HTTP at `/mcp` ([`HttpOptions`]: loopback by default, a bearer
//! token always, the `Origin` header checked against DNS rebinding).
//!
//! Tools (`tools.rs`) answer models: compact results within a token budget, each stored
//! text quoted as data with its address, time, state and source (`render.rs`), bad input a
//! tool error that says what to do. Setup for clients: docs/agents.md.

mod args;
mod episodes;
mod filters;
mod http;
mod learning;
mod render;
mod reply;
mod strength;
mod tools;
mod verbs;

use std::future::Future;
use std::time::Duration;

use rmcp::ServiceExt;

pub use http::HttpOptions;
pub use reply::slug;
pub use tools::{MemoryServer, DEFAULT_DOMAIN, DEFAULT_FACET, DEFAULT_RESULT_TOKENS, MAX_RESULT_TOKENS};

use crate::sync::SyncOptions;
use crate::MemoryStore;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The HTTP options break a rule (no token, a non-loopback address without
    /// `allow_remote`, ...). The message names it.
    #[error("{0}")]
    Config(String),
    /// The address could not be bound, or the connection failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The MCP session could not start (the client did not initialise).
    #[error("MCP: {0}")]
    Protocol(String),
    /// The store failed at start or shutdown.
    #[error(transparent)]
    Store(#[from] crate::Error),
}

/// How the server talks to its client.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Transport {
    /// JSON-RPC over standard input and output; ends at end of input.
    Stdio,
    /// Streamable HTTP at `/mcp`.
    Http(HttpOptions),
    /// No MCP transport: only the background work (live sync, embedding, signing
    /// accesses) until `shutdown` completes. `memstr serve` runs this, and answers the
    /// CLI's searches over a socket of its own.
    None,
}

/// How often accesses are checked for a due batch when no relay is configured (live sync
/// does it on its own schedule otherwise).
const FLUSH_EVERY: Duration = Duration::from_secs(60);
/// The last push at shutdown: how long a relay may take to answer.
const FINAL_PUSH: Duration = Duration::from_secs(10);

/// Serves `store` over `transport` until the client goes away (end of standard input) or
/// `shutdown` completes (the CLI passes SIGINT and SIGTERM), syncing the store's relays
/// live meanwhile. Then shuts down cleanly: every pending access is signed, the outbox is
/// pushed to the relays that answer within a few seconds, and the store is closed (the
/// vector index saved, when this process owns it).
pub async fn serve<F>(store: MemoryStore, transport: Transport, shutdown: F) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send + 'static,
{
    if let Transport::Http(h) = &transport {
        h.check()?;
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let has_relays = !store.relays().await?.is_empty();
    let mut background = Vec::new();
    if has_relays {
        let syncing = store.clone();
        let mut stop = stop_rx.clone();
        background.push(tokio::spawn(async move {
            let until = async move {
                let _ = stop.changed().await;
            };
            if let Err(e) = syncing.watch(SyncOptions::default(), until).await {
                tracing::warn!("live sync stopped: {e}");
            }
        }));
    }
    {
        let flushing = store.clone();
        let mut stop = stop_rx.clone();
        background.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            tick.tick().await;
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if let Err(e) = flushing.flush_accesses_if_due().await {
                            tracing::warn!("signing accesses: {e}");
                        }
                    }
                    _ = stop.changed() => return,
                }
            }
        }));
    }
    // Records are embedded as they are written, so a search never waits for the model
    // beyond its small budget (`SEARCH_EMBED_BUDGET`); the task stops with its handle.
    #[cfg(feature = "vectors")]
    let embedding = store.spawn_background_embedding();
    let served = match transport {
        Transport::Stdio => serve_stdio(&store, shutdown).await,
        Transport::Http(options) => http::serve(&store, options, shutdown).await,
        Transport::None => {
            shutdown.await;
            Ok(())
        }
    };
    #[cfg(feature = "vectors")]
    drop(embedding);
    let _ = stop_tx.send(true);
    for task in background {
        let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
    }
    let closed = finish(store, has_relays).await;
    served.and(closed)
}

async fn serve_stdio<F: Future<Output = ()>>(store: &MemoryStore, shutdown: F) -> Result<(), ServeError> {
    tokio::pin!(shutdown);
    let starting = MemoryServer::new(store.clone()).serve(rmcp::transport::stdio_pipes());
    let running = tokio::select! {
        started = starting => match started {
            Ok(r) => r,
            // The client left before initialising: nothing was asked, nothing is lost.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(why)) => {
                tracing::info!("MCP client left before initialising: {why}");
                return Ok(());
            }
            Err(e) => return Err(ServeError::Protocol(e.to_string())),
        },
        _ = &mut shutdown => return Ok(()),
    };
    let token = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            tracing::info!("MCP client gone: {quit:?}");
        }
        _ = &mut shutdown => {
            token.cancel();
        }
    }
    Ok(())
}

/// The clean end: accesses signed, outbox pushed where relays answer, store closed.
async fn finish(store: MemoryStore, has_relays: bool) -> Result<(), ServeError> {
    store.flush_accesses().await?;
    if has_relays && store.stats().await?.outbox > 0 {
        let opts = SyncOptions {
            connect_timeout: Duration::from_secs(3),
            timeout: Duration::from_secs(5),
            deadline: FINAL_PUSH,
            ..Default::default()
        };
        match tokio::time::timeout(FINAL_PUSH + Duration::from_secs(2), store.sync(&opts)).await {
            Ok(Ok(reports)) => {
                for r in reports.iter().filter(|r| r.error.is_some()) {
                    tracing::warn!(relay = %r.url, "final push: {}", r.error.as_deref().unwrap_or_default());
                }
            }
            Ok(Err(e)) => tracing::warn!("final push: {e}"),
            Err(_) => tracing::warn!("final push: relays did not answer in time; the outbox waits for the next sync"),
        }
    }
    store.close().await?;
    Ok(())
}
