//! How the commands that sync (`sync`, `relay discover`, `init --discover`) set up and run
//! their passes.

use anyhow::Result;
use memstr::MemoryStore;

use crate::output::Out;

/// The most passes one `memstr sync` (or `init --discover`) runs while a relay's read goes
/// on, unless `memstr sync --passes` says otherwise: 100 passes of the default allowance
/// are 50 million events (and, at a pass's 60 s deadline, up to 100 minutes; each pass says
/// how far it got).
pub(crate) const DEFAULT_SYNC_PASSES: u16 = 100;

/// Sync passes until every relay's read is complete (a new device's first pull of a large
/// store takes several), saying on standard error how far it got after each unfinished one.
pub(crate) async fn sync_passes(
    store: &MemoryStore,
    opts: &memstr::sync::SyncOptions,
    max_passes: u16,
    out: &Out,
) -> Result<Vec<memstr::sync::RelayReport>> {
    let mut read = 0u64;
    let on_pass = |pass: usize, reports: &[memstr::sync::RelayReport]| {
        read += reports.iter().map(|r| r.pulled.accepted()).sum::<u64>();
        if reports.iter().any(|r| r.read_goes_on()) {
            out.sync_pass(pass, read);
        }
    };
    Ok(store.sync_to_end(opts, usize::from(max_passes), on_pass).await?)
}

/// The options every sync command runs with: progress on standard error, live events
/// printed as they come.
pub(crate) fn sync_options(out: &Out, full: bool) -> memstr::sync::SyncOptions {
    memstr::sync::SyncOptions {
        full,
        progress: crate::output::progress(out),
        on_watch: Some(crate::output::watch_events()),
        ..Default::default()
    }
}
