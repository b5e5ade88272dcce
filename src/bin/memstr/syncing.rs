//! How the commands that sync (`sync`, `relay discover`, `init --discover`) set up and run
//! their passes.

use anyhow::Result;
use memstr::MemoryStore;

use crate::output::Out;

/// The most passes one `memstr sync` (or `init --discover`) runs while a relay's read goes
/// on: 100 passes of the default allowance are 50 million events.
const MAX_SYNC_PASSES: usize = 100;

/// Sync passes until every relay's read is complete (a new device's first pull of a large
/// store takes several), saying on standard error how far it got after each unfinished one.
pub(crate) async fn sync_passes(
    store: &MemoryStore,
    opts: &memstr::sync::SyncOptions,
    out: &Out,
) -> Result<Vec<memstr::sync::RelayReport>> {
    let quiet = out.json;
    let mut read = 0u64;
    let on_pass = |pass: usize, reports: &[memstr::sync::RelayReport]| {
        read += reports.iter().map(|r| r.pulled.applied + r.pulled.duplicate + r.pulled.merged).sum::<u64>();
        if !quiet && reports.iter().any(|r| r.read_goes_on()) {
            eprintln!("sync pass {pass}: {read} events read so far; the read goes on in another pass");
        }
    };
    Ok(store.sync_to_end(opts, MAX_SYNC_PASSES, on_pass).await?)
}

pub(crate) fn sync_options(out: &Out, full: bool) -> memstr::sync::SyncOptions {
    memstr::sync::SyncOptions {
        full,
        progress: crate::output::progress(out),
        on_watch: Some(crate::output::watch_events()),
        ..Default::default()
    }
}
