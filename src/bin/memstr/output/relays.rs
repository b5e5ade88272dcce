//! Output about relays and sync: progress and live-sync lines on stderr, the relay list,
//! sync reports, status, and what reading the agent's relay list did.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use memstr::sync::{ProgressFn, RelayReport};
use memstr::{RelayInfo, StoreStats};
use serde_json::json;

use super::{l, print_json, time, Out};

/// A one-line progress display on a terminal, when there is much to move.
pub fn progress(out: &Out) -> Option<ProgressFn> {
    if out.json || !std::io::stderr().is_terminal() {
        return None;
    }
    Some(Arc::new(|relay: &str, phase: &str, done: u64, total: u64| {
        if total < 200 {
            return;
        }
        let width = 30;
        let filled = (done * width / total.max(1)) as usize;
        let bar = format!("{}{}", "#".repeat(filled), "-".repeat(width as usize - filled));
        let mut err = std::io::stderr();
        let _ = write!(err, "\r{phase} {} [{bar}] {done}/{total}", l(relay));
        if done >= total {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }))
}

/// `sync --watch` says on stderr when it connects, loses a relay, and stops: otherwise a
/// silent process leaves no way to tell live sync from a dead one.
pub fn watch_events() -> memstr::sync::WatchFn {
    Arc::new(|event: &memstr::sync::WatchEvent| {
        use memstr::sync::WatchEvent;
        match event {
            WatchEvent::Connected { relay } => {
                eprintln!("memstr: connected to {}; syncing live (Ctrl-C stops)", l(relay))
            }
            WatchEvent::Disconnected { relay, error, retry_in } => eprintln!(
                "memstr: {}: {}; reconnecting in {} s",
                l(relay),
                l(error.as_deref().unwrap_or("connection closed")),
                retry_in.as_secs_f64().ceil()
            ),
            WatchEvent::Stopped => eprintln!("memstr: live sync stopped"),
            _ => {}
        }
    })
}

fn ago(ts: Option<i64>) -> String {
    match ts {
        None => "never".into(),
        Some(t) => time(t as f64),
    }
}

impl Out {
    pub fn relay_changed(&self, what: &str, url: &str) {
        if self.json {
            print_json(&json!({"ok": true, what: url}));
        } else {
            println!("{what} {}", l(url));
        }
    }

    pub fn relays(&self, relays: &[RelayInfo]) {
        if self.json {
            print_json(&json!(relays));
            return;
        }
        if relays.is_empty() {
            println!("no relays");
        }
        for r in relays {
            let neg = match r.negentropy {
                Some(true) => "NIP-77",
                Some(false) => "no NIP-77",
                None => "unprobed",
            };
            println!(
                "{}\tpending {}\tlast sync {}\t{}{}{}",
                l(&r.url),
                r.pending,
                ago(r.last_sync),
                neg,
                r.misbehaving
                    .as_ref()
                    .map(|m| format!("\tMISBEHAVING: {} (backed off until {})", l(m), ago(r.backoff_until)))
                    .unwrap_or_default(),
                r.last_error.as_ref().map(|e| format!("\terror: {}", l(e))).unwrap_or_default()
            );
        }
    }

    /// After a sync pass whose read goes on (`memstr sync` runs another): how far the
    /// passes got, on standard error; nothing with `--json`.
    pub fn sync_pass(&self, pass: usize, events_read: u64) {
        if !self.json {
            super::emit(
                true,
                format!("sync pass {pass}: {events_read} events read so far; the read goes on in another pass"),
            );
        }
    }

    pub fn sync(&self, reports: &[RelayReport]) {
        if self.json {
            print_json(&json!(reports));
            return;
        }
        for r in reports {
            let p = &r.pulled;
            println!(
                "{} ({}): pulled {} new, {} known, {} stale, {} deleted, {} rejected, {} quarantined; pushed {}, refused {}, pending {}",
                l(&r.url), if r.method.is_empty() { "-" } else { &r.method }, p.applied, p.duplicate, p.stale, p.deleted,
                p.rejected_total(), p.quarantined, r.pushed, r.refused.len(), r.pending
            );
            if let Some(m) = &r.misbehaved {
                println!("  misbehaving: {} (backed off)", l(m));
            }
            if let Some(e) =
                r.error.as_ref().filter(|e| !r.misbehaved.as_ref().is_some_and(|m| e.ends_with(m.as_str())))
            {
                println!("  error: {}", l(e));
            }
            for (id, why) in r.refused.iter().take(5) {
                println!("  refused {}: {}", l(id), l(why));
            }
        }
    }

    pub fn status(&self, s: &StoreStats, relays: &[RelayInfo], behaviours: &memstr::Behaviours) {
        if self.json {
            print_json(&json!({"outbox": s.outbox, "events": s.events, "unsigned_accesses": s.unsigned_accesses,
                "rejected": s.rejected, "quarantined": s.quarantined, "relays": relays,
                "d_tag_mode": s.d_tag_mode, "plain_published": s.plain_published, "plain_withheld": s.plain_withheld,
                "behaviours": behaviours.to_json()}));
            return;
        }
        println!(
            "outbox {} of {} events not yet on every relay; {} unsigned accesses",
            s.outbox, s.events, s.unsigned_accesses
        );
        if s.plain_published > 0 {
            println!(
                "this store published plain paths before it went blinded: {} events; relays that have them keep them",
                s.plain_published
            );
        }
        if s.plain_withheld > 0 {
            println!(
                "withheld: {} events with plain paths from before the store went blinded (never pushed)",
                s.plain_withheld
            );
        }
        if s.quarantined > 0 {
            println!(
                "quarantined: {} events dated more than {} minutes ahead of this clock (applied when their time comes)",
                s.quarantined,
                memstr::FUTURE_SLACK / 60
            );
        }
        self.relays(relays);
        if s.rejected.is_empty() {
            println!("rejected events: none");
        }
        for (k, v) in &s.rejected {
            println!("rejected {}: {v}", l(k));
        }
    }
}
