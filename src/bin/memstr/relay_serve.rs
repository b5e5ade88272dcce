//! `memstr relay serve`: a persistent relay for your own devices, from the same binary, for
//! people without docker (docs/sync.md). nostr-relay-builder serves NIP-01, NIP-09, NIP-42
//! and NIP-77 over websockets; nostr-lmdb keeps the events on disk. The write policy below
//! adds what nostr-rs-relay's configuration (relay-fixtures/config.toml) gives a memory
//! relay: a size limit, a future-date limit and an author allow-list.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::time::Duration;

use crate::relay_guard::{self, Bounds, Refused};
use anyhow::{bail, Context, Result};
use nostr_lmdb::NostrLMDB;
use nostr_relay_builder::prelude::{
    BoxedFuture, Event, JsonUtil, LocalRelay, PolicyResult, PublicKey, RateLimit, RelayBuilder, RelayBuilderNip42,
    RelayBuilderNip42Mode, Timestamp, WritePolicy,
};

/// Serve a relay on this machine, its events kept in an LMDB database.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The address to listen on. Loopback by default: put a TLS-terminating proxy in front
    /// and give memstr its wss:// address, rather than exposing plain ws://.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 7777)]
    port: u16,
    /// The event database's directory [default: DIR/relay, DIR being memstr's directory].
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Refuse events whose JSON is larger than this (memstr's events stay well under it).
    #[arg(long, default_value_t = 128 * 1024, value_name = "BYTES")]
    max_event_bytes: usize,
    /// Refuse events dated more than this many seconds ahead of the relay's clock.
    #[arg(long, default_value_t = 1800, value_name = "SECONDS")]
    reject_future_seconds: u64,
    /// Only these authors may write (hex or npub; repeatable) [default: anyone].
    #[arg(long = "allow", value_name = "PUBKEY", value_parser = parse_key)]
    allow: Vec<PublicKey>,
    /// Require NIP-42 authentication before any read or write (memstr answers with the
    /// agent's key).
    #[arg(long)]
    auth: bool,
    /// Events one connection may publish per minute. A first sync pushes a whole store at
    /// once, so the default is far above nostr-relay-builder's 60.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    events_per_minute: u32,
    /// Connections open at once; one more is closed as soon as it is accepted.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Connections open at once from one IP address.
    #[arg(long, default_value_t = 32, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_per_address: u32,
    /// Close a connection that sends nothing for this many seconds (memstr pings every 30).
    #[arg(long, default_value_t = 120, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// With --auth: close a connection that has not authenticated within this many seconds.
    #[arg(long, default_value_t = 15, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    auth_timeout: u64,
}

fn parse_key(s: &str) -> Result<PublicKey, String> {
    PublicKey::parse(s).map_err(|e| format!("{s:?} is not a public key (hex or npub): {e}"))
}

/// What a memory relay refuses, beyond what nostr-relay-builder checks (ids, signatures,
/// NIP-42, rate).
#[derive(Debug)]
struct Limits {
    max_event_bytes: usize,
    reject_future_seconds: u64,
    /// Empty: anyone may write.
    allow: HashSet<PublicKey>,
}

impl Limits {
    fn check(&self, event: &Event) -> PolicyResult {
        if !self.allow.is_empty() && !self.allow.contains(&event.pubkey) {
            return PolicyResult::Reject("this relay takes events only from its allowed keys".into());
        }
        let bytes = event.as_json().len();
        if bytes > self.max_event_bytes {
            return PolicyResult::Reject(format!("event is {bytes} bytes, the limit is {}", self.max_event_bytes));
        }
        let latest = Timestamp::now().as_secs().saturating_add(self.reject_future_seconds);
        if event.created_at.as_secs() > latest {
            return PolicyResult::Reject(format!(
                "created_at is more than {} s in the future",
                self.reject_future_seconds
            ));
        }
        PolicyResult::Accept
    }
}

impl WritePolicy for Limits {
    fn admit_event<'a>(&'a self, event: &'a Event, _addr: &'a SocketAddr) -> BoxedFuture<'a, PolicyResult> {
        Box::pin(async move { self.check(event) })
    }
}

/// Serves until SIGINT or SIGTERM. `dir` is memstr's directory (for the default database).
pub async fn run(args: &ServeArgs, dir: &Path) -> Result<()> {
    let data = args.data.clone().unwrap_or_else(|| dir.join("relay"));
    // Owner-only like memstr's own files (the process umask is 077: src/bin/memstr/main.rs).
    std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
    memstr::disk::restrict_dir(&data).with_context(|| format!("making {} private", data.display()))?;
    let database =
        NostrLMDB::open(&data).with_context(|| format!("opening the relay database in {}", data.display()))?;
    let mut builder = RelayBuilder::default()
        .addr(args.bind)
        .database(database)
        .rate_limit(RateLimit { max_reqs: 500, notes_per_minute: args.events_per_minute })
        .write_policy(Limits {
            max_event_bytes: args.max_event_bytes,
            reject_future_seconds: args.reject_future_seconds,
            allow: args.allow.iter().copied().collect(),
        });
    if args.auth {
        builder = builder.nip42(RelayBuilderNip42 { mode: RelayBuilderNip42Mode::Both });
    }
    // The guard listens and hands the relay only connections within its bounds.
    let listener = match tokio::net::TcpListener::bind((args.bind, args.port)).await {
        Ok(l) => l,
        Err(e) => bail!("cannot listen on {}:{}: {e}", args.bind, args.port),
    };
    let local = listener.local_addr()?;
    let relay = LocalRelay::new(builder.max_connections(args.max_connections as usize));
    let bounds = Bounds {
        max_connections: args.max_connections as usize,
        max_per_address: args.max_per_address as usize,
        idle: Duration::from_secs(args.idle_timeout),
        auth_wait: args.auth.then(|| Duration::from_secs(args.auth_timeout)),
        // A message holds one event at most (or a negentropy frame, far smaller).
        max_message: (args.max_event_bytes.saturating_mul(2) + 4096).max(memstr::sync::MAX_MESSAGE),
    };
    let refused = Arc::new(Refused::default());
    let accepting = tokio::spawn(relay_guard::accept(listener, relay.clone(), bounds, refused.clone()));
    let open = args.allow.is_empty() && !args.auth;
    println!(
        "memstr relay on ws://{local} (events in {}){}",
        data.display(),
        if open && !args.bind.is_loopback() { "; anyone who reaches it may write: consider --allow" } else { "" }
    );
    crate::mcp::signals().await;
    accepting.abort();
    // Ends every connection; LMDB has committed every acknowledged event already.
    relay.shutdown();
    let r = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
    tracing::info!(
        over_total = r(&refused.over_total),
        over_address = r(&refused.over_address),
        bad_handshake = r(&refused.bad_handshake),
        idle = r(&refused.idle),
        unauthenticated = r(&refused.unauthenticated),
        oversized = r(&refused.oversized),
        "relay stopped; connections turned away"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr_relay_builder::prelude::{EventBuilder, Keys, Kind};

    fn limits(allow: &[PublicKey]) -> Limits {
        Limits { max_event_bytes: 1000, reject_future_seconds: 60, allow: allow.iter().copied().collect() }
    }

    fn event(keys: &Keys, content: &str, at: u64) -> Event {
        EventBuilder::new(Kind::Custom(30078), content)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    fn accepted(r: PolicyResult) -> bool {
        matches!(r, PolicyResult::Accept)
    }

    #[test]
    fn the_write_policy_refuses_oversized_future_dated_and_unlisted_events() {
        let (me, other) = (Keys::generate(), Keys::generate());
        let now = Timestamp::now().as_secs();
        let open = limits(&[]);
        assert!(accepted(open.check(&event(&me, "small", now))));
        assert!(accepted(open.check(&event(&other, "small", now + 50))), "within the future limit");
        assert!(!accepted(open.check(&event(&me, "small", now + 600))), "too far ahead");
        assert!(!accepted(open.check(&event(&me, &"x".repeat(1000), now))), "too large");
        let mine = limits(&[me.public_key()]);
        assert!(accepted(mine.check(&event(&me, "small", now))));
        assert!(!accepted(mine.check(&event(&other, "small", now))), "not an allowed author");
    }
}
