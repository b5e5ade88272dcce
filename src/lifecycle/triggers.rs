//! When cycles run by themselves: after `consolidate_every` writes, after
//! `consolidate_idle` without one, never while a sync holds them off (docs/lifecycle.md,
//! section 7). A cycle itself is [`super::cycle`]'s.

use std::sync::atomic::Ordering;

use super::cycle::consolidate_locked;
use super::Parts;

/// Counts a write toward the next automatic cycle, and starts one when due.
pub(crate) fn note_write(parts: &Parts) {
    note_writes(parts, 1);
}

/// Counts `count` writes made in one transaction, at once: counted one by one, a cycle
/// started by the first could read the counter before or after the second, and what it
/// archives would differ from run to run.
pub(crate) fn note_writes(parts: &Parts, count: u64) {
    let life = &parts.life;
    let every = life.options.consolidate_every;
    let n = life.cycle.writes.fetch_add(count, Ordering::SeqCst) + count;
    life.cycle.last_write.store(life.cycle.opened.elapsed().as_millis() as u64, Ordering::SeqCst);
    if every > 0 && n >= every && life.cycle.held.load(Ordering::SeqCst) == 0 {
        spawn_consolidation(parts);
    }
}

/// Holds automatic cycles off while it lives: a sync's pull commits a write a page, and a
/// new device's first pull is thousands of pages. A cycle started in the middle reads a
/// store that is still growing, holds a read snapshot all along (so SQLite's write-ahead
/// log never starts over: docs/benchmarks.md, "A new device's pull of a million memories,
/// to the end") and takes a core from the pull. Writes still count; when the last hold
/// goes, a cycle starts if one is due.
#[cfg_attr(not(feature = "sync"), allow(dead_code))]
pub(crate) struct CycleHold(Parts);

#[cfg_attr(not(feature = "sync"), allow(dead_code))]
impl CycleHold {
    pub(crate) fn new(parts: &Parts) -> Self {
        parts.life.cycle.held.fetch_add(1, Ordering::SeqCst);
        CycleHold(parts.clone())
    }
}

impl Drop for CycleHold {
    fn drop(&mut self) {
        let life = &self.0.life;
        let every = life.options.consolidate_every;
        if life.cycle.held.fetch_sub(1, Ordering::SeqCst) == 1
            && every > 0
            && life.cycle.writes.load(Ordering::SeqCst) >= every
        {
            spawn_consolidation(&self.0);
        }
    }
}

fn spawn_consolidation(parts: &Parts) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
    // A cycle running (or queued) already: this one would find nothing new.
    let Ok(lock) = parts.life.cycle.running.clone().try_lock_owned() else { return };
    let parts = parts.clone();
    handle.spawn(async move {
        if let Err(e) = consolidate_locked(&parts, lock).await {
            tracing::warn!("automatic consolidation failed: {e}");
            // Try again after another round of writes, not after every one.
            parts.life.cycle.writes.store(0, Ordering::SeqCst);
        }
    });
}

/// Starts the idle timer (when configured and a runtime is running): a cycle runs once
/// no write has come for `consolidate_idle` and something was written since the last.
pub(crate) fn start_idle_consolidation(parts: &Parts) {
    let Some(idle) = parts.life.options.consolidate_idle else { return };
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
    let weak = parts.downgrade();
    let tick = idle.min(std::time::Duration::from_secs(30)).max(std::time::Duration::from_millis(10));
    handle.spawn(async move {
        loop {
            tokio::time::sleep(tick).await;
            // The store is gone once every handle is dropped: stop with it.
            let Some(parts) = weak.upgrade() else { break };
            let cycle = &parts.life.cycle;
            let elapsed = cycle.opened.elapsed().as_millis() as u64;
            let quiet = elapsed - cycle.last_write.load(Ordering::SeqCst).min(elapsed);
            let held = cycle.held.load(Ordering::SeqCst) > 0;
            if !held && cycle.writes.load(Ordering::SeqCst) > 0 && quiet >= idle.as_millis() as u64 {
                spawn_consolidation(&parts);
            }
        }
    });
}

/// A nostr-rs-relay process for the test below.
#[cfg(all(test, feature = "sync"))]
#[path = "../../relay-fixtures/local_relay.rs"]
mod local_relay;

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use crate::{Identity, LifecycleOptions, MemoryStore, StoreOptions};

    /// While a hold lives (a sync), writes count but start no automatic cycle; the cycle
    /// due starts when the hold goes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_automatic_cycle_starts_while_a_sync_holds_them_off() {
        let dir = tempfile::tempdir().unwrap();
        let life = LifecycleOptions { consolidate_every: 2, consolidate_idle: None, ..Default::default() };
        let options = StoreOptions::default().lifecycle(life);
        let store = MemoryStore::open(dir.path().join("m.db"), Identity::generate(), options).await.unwrap();
        let parts = store.parts();
        let writes = || parts.life.cycle.writes.load(Ordering::SeqCst);
        let hold = super::CycleHold::new(&parts);
        for i in 0..5 {
            store.journal(&format!("entry {i}")).await.unwrap();
        }
        store.settle().await;
        assert_eq!(writes(), 5, "a cycle ran under the hold");
        drop(hold);
        store.settle().await;
        assert_eq!(writes(), 0, "the cycle due did not run when the hold went");
    }

    /// `MemoryStore::sync` holds cycles for the whole pass: every page the pull commits
    /// counts as a write, and with `consolidate_every = 1` each would start one.
    #[cfg(feature = "sync")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sync_holds_automatic_cycles_until_it_ends() {
        use std::sync::{Arc, Mutex};

        let relay = super::local_relay::LocalRelay::start();
        let dir = tempfile::tempdir().unwrap();
        let key = Identity::generate();
        let quiet = LifecycleOptions { consolidate_every: 0, consolidate_idle: None, ..Default::default() };
        let a = MemoryStore::open(dir.path().join("a.db"), key.clone(), StoreOptions::default().lifecycle(quiet))
            .await
            .unwrap();
        a.add_relay(&relay.url(), false).await.unwrap();
        a.journal_batch((0..300).map(|i| format!("entry {i}"))).await.unwrap();
        a.sync(&crate::sync::SyncOptions::default()).await.unwrap();

        let eager = LifecycleOptions { consolidate_every: 1, consolidate_idle: None, ..Default::default() };
        let b =
            MemoryStore::open(dir.path().join("b.db"), key, StoreOptions::default().lifecycle(eager)).await.unwrap();
        b.add_relay(&relay.url(), false).await.unwrap();
        let life = b.parts().life.clone();
        let seen: Arc<Mutex<Vec<(u64, bool)>>> = Arc::default();
        let record = seen.clone();
        // Pages of 100: three commits, each counted as a write, while the pass runs.
        let opts = crate::sync::SyncOptions {
            page: 100,
            progress: Some(Arc::new(move |_, _, _, _| {
                let held = life.cycle.held.load(Ordering::SeqCst);
                let running = life.cycle.running.try_lock().is_err();
                record.lock().unwrap().push((held, running));
            })),
            ..Default::default()
        };
        let reports = b.sync(&opts).await.unwrap();
        assert_eq!(reports[0].error, None, "{reports:?}");
        let seen = seen.lock().unwrap().clone();
        assert!(seen.len() >= 3, "progress was reported during the pull: {seen:?}");
        assert!(
            seen.iter().all(|&(held, running)| held == 1 && !running),
            "a cycle ran or could run mid-pull: {seen:?}"
        );
        b.settle().await;
        let parts = b.parts();
        assert_eq!(parts.life.cycle.held.load(Ordering::SeqCst), 0);
        assert_eq!(parts.life.cycle.writes.load(Ordering::SeqCst), 0, "the cycle due did not run after the sync");
    }
}
