//! `memstr mcp`: the store served to agents over the Model Context Protocol
//! (memstr::mcp; setup for clients in docs/agents.md).

use anyhow::{bail, Result};
use memstr::mcp::{HttpOptions, Transport};
use memstr::MemoryStore;

/// The variable holding the HTTP transport's bearer token.
const ENV_TOKEN: &str = "MEMSTR_MCP_TOKEN";

/// Serve memory to agents over MCP: stdio by default, streamable HTTP at /mcp with --http.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765, or a
    /// port). Every request needs `Authorization: Bearer $MEMSTR_MCP_TOKEN`.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Allow --http on a non-loopback address (anyone who reaches it with the token reads
    /// this memory: put TLS in front).
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// A browser origin allowed besides loopback ones (repeatable), e.g.
    /// https://app.example.com; any other Origin gets 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origins: Vec<String>,
}

/// Serves until end of input (stdio), SIGINT or SIGTERM.
pub async fn run(args: &McpArgs, store: &MemoryStore) -> Result<()> {
    let transport = match &args.http {
        None => Transport::Stdio,
        Some(addr) => {
            let Some(token) = std::env::var(ENV_TOKEN).ok().filter(|t| !t.trim().is_empty()) else {
                bail!("--http needs a bearer token in {ENV_TOKEN} (e.g. `export {ENV_TOKEN}=$(openssl rand -hex 32)`)");
            };
            let mut options = HttpOptions::new(HttpOptions::parse_addr(addr)?, token);
            options.allow_remote = args.allow_remote;
            options.allowed_origins = args.allow_origins.clone();
            options.check()?;
            Transport::Http(options)
        }
    };
    memstr::mcp::serve(store.clone(), transport, signals()).await?;
    Ok(())
}

/// Completes at SIGINT or SIGTERM.
pub(crate) async fn signals() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
