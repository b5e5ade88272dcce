//! Finding the relays from the key (NIP-37; docs/sync.md, "Add a device"): a device holding
//! only the key asks bootstrap relays for its private relay list, merges it through the
//! store's door like any event, and configures the relays it names, within bounds: a list
//! is untrusted input even when it is signed with our key (an old device, a bug, a key
//! that leaked).

use std::time::Duration;

use serde::Serialize;
use serde_json::json;

use super::transport::{Connection, PageCaps};
use super::{RelayUrl, SyncOptions};
use crate::codec::KIND_PRIVATE_RELAYS;
use crate::engine::books::SyncStorage;
use crate::engine::ingest::{self, Source};
use crate::error::Result;

/// Relays the agent's list may add at a time; the rest are skipped and reported.
pub const MAX_LIST_RELAYS: usize = 16;
/// Where a device with only the key looks for its list when no relay is named:
/// `MEMSTR_BOOTSTRAP_RELAYS` (comma-separated) overrides them.
pub const DEFAULT_BOOTSTRAP: [&str; 3] = ["wss://relay.damus.io", "wss://nos.lol", "wss://relay.primal.net"];
/// The environment variable naming bootstrap relays.
pub const ENV_BOOTSTRAP: &str = "MEMSTR_BOOTSTRAP_RELAYS";
/// Lists read from one bootstrap relay at most (a replaceable kind: one is expected).
const MAX_LISTS: usize = 8;

/// What reading the list and following it did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ListReport {
    /// Per bootstrap relay: lists read, or why it could not be asked.
    pub asked: Vec<(String, std::result::Result<u64, String>)>,
    /// Relays configured from the list.
    pub added: Vec<String>,
    /// Relays dropped because the list says they were removed.
    pub dropped: Vec<String>,
    /// Relays of the list not configured, with the rule each broke.
    pub skipped: Vec<(String, String)>,
}

/// The bootstrap relays: those given, else `MEMSTR_BOOTSTRAP_RELAYS`, else the defaults.
pub fn bootstrap_relays(given: &[String]) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    match std::env::var(ENV_BOOTSTRAP) {
        Ok(v) if !v.trim().is_empty() => v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
        _ => DEFAULT_BOOTSTRAP.iter().map(|s| s.to_string()).collect(),
    }
}

impl<S: SyncStorage> super::Syncer<S> {
    /// Reads the agent's relay list from each of `bootstrap` and follows it
    /// ([`super::Syncer::follow_list`]). Relays on loopback or private addresses are
    /// accepted from the list only when a bootstrap relay is itself on one (a home or test
    /// setup) or `allow_private`.
    pub async fn discover(
        &self,
        bootstrap: &[RelayUrl],
        opts: &SyncOptions,
        allow_private: bool,
    ) -> Result<ListReport> {
        let mut report = ListReport::default();
        for url in bootstrap {
            let read = tokio::time::timeout(opts.deadline, self.read_lists(url, opts)).await;
            let outcome = match read {
                Ok(Ok(n)) => Ok(n),
                Ok(Err(e)) => Err(crate::display::relay_text(&e.to_string())),
                Err(_) => Err(format!("no answer within {} s", opts.deadline.as_secs())),
            };
            report.asked.push((url.to_string(), outcome));
        }
        let private_ok = allow_private || bootstrap.iter().any(|u| u.is_private());
        self.follow_list(private_ok, &mut report).await?;
        Ok(report)
    }

    async fn read_lists(&self, url: &RelayUrl, opts: &SyncOptions) -> Result<u64> {
        let conn = Connection::connect(url, opts.connect_timeout, Some(self.auth_signer(url))).await?;
        let filter =
            json!({"authors": [self.public_key().to_hex()], "kinds": [KIND_PRIVATE_RELAYS], "limit": MAX_LISTS});
        let caps = PageCaps { events: MAX_LISTS, bytes: 4 * super::MAX_MESSAGE };
        let (events, _) = conn.subscribe(vec![filter])?.collect_stored(opts.timeout, caps).await?;
        let n = events.len() as u64;
        // Through the door as an import: a bootstrap relay is not one of this store's
        // relays, so nothing is recorded as acknowledged by it.
        self.admit(Source::Import, events.into_iter().map(ingest::parse_value).collect()).await?;
        Ok(n)
    }

    /// Configures the relays the agent's list names and drops those it says were removed:
    /// at most [`MAX_LIST_RELAYS`] added at a time, `wss://` only (`ws://` to loopback
    /// when private addresses are allowed), never a loopback or private address unless
    /// `private_ok`. Everything skipped is reported with its rule.
    pub async fn follow_list(&self, private_ok: bool, report: &mut ListReport) -> Result<()> {
        let (add, drop) = self.relay_list_delta().await?;
        let private_ok = private_ok
            || self.relays().await?.iter().any(|r| RelayUrl::parse(&r.url, true).is_ok_and(|u| u.is_private()));
        let mut adding = Vec::new();
        for url in add {
            let checked = match RelayUrl::parse(&url, false) {
                Ok(u) if u.is_private() && !private_ok => {
                    Err("a loopback or private address (allowed only from a bootstrap relay on one, or with --allow-private)")
                }
                Ok(u) => Ok(u),
                Err(_) => Err("not a wss:// relay address"),
            };
            match checked {
                Ok(_) if adding.len() >= MAX_LIST_RELAYS => {
                    report.skipped.push((url, format!("more than {MAX_LIST_RELAYS} relays from one list")))
                }
                Ok(u) => adding.push(u.to_string()),
                Err(why) => report.skipped.push((crate::display::relay_text(&url), why.to_string())),
            }
        }
        if !adding.is_empty() || !drop.is_empty() {
            self.follow_relay_list(adding.clone(), drop.clone()).await?;
        }
        report.added.extend(adding);
        report.dropped.extend(drop);
        Ok(())
    }
}

/// How long a bootstrap relay may take to answer, by default.
pub const BOOTSTRAP_TIMEOUT: Duration = Duration::from_secs(15);
