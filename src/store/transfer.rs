//! What moves in and out of the store: imports and exports, signed accesses, statistics,
//! relays and sync, and the embedding pipeline's calls.

#[cfg(feature = "sync")]
use std::future::Future;

use nostr::{Event, JsonUtil};

use super::MemoryStore;
#[cfg(feature = "sync")]
use crate::engine::books::{Books, RelayInfo};
use crate::engine::ingest::Source;
use crate::engine::write::AccessFlush;
use crate::engine::{records, ImportReport, StoreStats};
use crate::error::Result;
use crate::lifecycle::cycle;
#[cfg(feature = "sync")]
use crate::sync::{RelayReport, RelayUrl, SyncOptions, Syncer};

impl MemoryStore {
    /// Checks and applies events from elsewhere (a backup, another tool). Each is verified
    /// as untrusted input; refusals are counted, never fatal; events dated more than
    /// [`FUTURE_SLACK`] ahead wait in the quarantine. Applied events are queued for relays.
    pub async fn import_events(&self, events: Vec<Event>) -> Result<ImportReport> {
        self.import(events.into_iter().map(Some).collect()).await
    }

    /// [`MemoryStore::import_events`] from JSON Lines of NIP-01 events. A line that is not
    /// an event is counted as `malformed_event`; blank lines are skipped.
    pub async fn import_json_lines(&self, text: &str) -> Result<ImportReport> {
        let events = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| Event::from_json(l).ok()).collect();
        self.import(events).await
    }

    /// Events through the one door; what they changed counts toward consolidation.
    async fn import(&self, events: Vec<crate::engine::ingest::Incoming>) -> Result<ImportReport> {
        let report = self.engine.admit_all(Source::Import, events).await?.report;
        if report.applied + report.merged > 0 {
            cycle::note_write(&self.parts());
        }
        Ok(report)
    }

    /// Events waiting in the quarantine (dated too far ahead when they arrived).
    pub async fn quarantined(&self) -> Result<u64> {
        self.engine.read(|conn, _| records::quarantined(conn)).await
    }

    /// Every event the store holds (current versions, tombstones, deletions), oldest
    /// first, after signing pending accesses: a complete, portable backup.
    pub async fn export_events(&self) -> Result<Vec<Event>> {
        self.flush_accesses().await?;
        self.engine.read(|conn, _| records::all_events(conn)).await
    }

    /// Signs the unsigned accesses if a batch is due: the oldest is older than
    /// [`crate::LifecycleOptions::access_flush_after`] or at least
    /// [`crate::LifecycleOptions::access_flush_count`] memories hold some. Returns how many
    /// memories were signed (0 when not due). Closing a store and every sync pass call it.
    pub async fn flush_accesses_if_due(&self) -> Result<usize> {
        self.parts().record_accesses().await?;
        let n = self.engine.flush_accesses_if_due(self.access_flush()).await?;
        self.signed(n)
    }

    /// Signs every unsigned access now, into new versions of those memories (one event per
    /// memory, however many reads). Returns how many were signed.
    pub async fn flush_accesses(&self) -> Result<usize> {
        self.parts().record_accesses().await?;
        let n = self.engine.flush_accesses().await?;
        self.signed(n)
    }

    /// Signed accesses are writes like any: they count toward consolidation.
    fn signed(&self, n: usize) -> Result<usize> {
        if n > 0 {
            cycle::note_write(&self.parts());
        }
        Ok(n)
    }

    fn access_flush(&self) -> AccessFlush {
        let options = &self.life.options;
        AccessFlush { after: options.access_flush_after, count: options.access_flush_count }
    }

    /// Counts of what the store holds.
    pub async fn stats(&self) -> Result<StoreStats> {
        self.parts().record_accesses().await?;
        self.engine.read(records::stats).await
    }

    /// Ids of events waiting for relays, oldest first.
    pub async fn outbox(&self) -> Result<Vec<String>> {
        self.engine.read(|conn, _| records::outbox(conn)).await
    }

    #[cfg(feature = "sync")]
    /// Adds a relay (persisted). `allow_insecure` admits `ws://` to non-loopback hosts.
    pub async fn add_relay(&self, url: &str, allow_insecure: bool) -> Result<RelayUrl> {
        let url = RelayUrl::parse(url, allow_insecure)?;
        self.engine.add_relay(url.to_string()).await?;
        Ok(url)
    }

    #[cfg(feature = "sync")]
    /// Removes a relay; returns whether it was configured.
    pub async fn remove_relay(&self, url: &str) -> Result<bool> {
        let url = RelayUrl::parse(url, true)?;
        self.engine.remove_relay(url.to_string()).await
    }

    #[cfg(feature = "sync")]
    /// The configured relays and their state.
    pub async fn relays(&self) -> Result<Vec<RelayInfo>> {
        self.engine.relays().await
    }

    #[cfg(feature = "sync")]
    /// One pass with every configured relay, concurrently, each within its own deadline
    /// ([`SyncOptions::deadline`]). A relay that fails is reported (its error kept in
    /// [`RelayInfo::last_error`]); a relay that broke a rule is also marked misbehaving
    /// and backed off. The others carry on.
    pub async fn sync(&self, opts: &SyncOptions) -> Result<Vec<RelayReport>> {
        self.parts().record_accesses().await?;
        self.syncer().sync(opts).await
    }

    #[cfg(feature = "sync")]
    /// Syncs with every configured relay until `shutdown` completes: catches up, then
    /// keeps a live subscription open (a change on another device shows here within
    /// seconds) and pushes each local change as it commits. Reconnects with backoff
    /// (1 s doubling to 60 s) across relay restarts and network loss; a relay that broke
    /// a rule waits out its backoff first.
    pub async fn watch<F: Future<Output = ()>>(&self, opts: SyncOptions, shutdown: F) -> Result<()> {
        self.syncer().watch(opts, shutdown).await
    }

    #[cfg(feature = "sync")]
    /// Relay sync over this store's books.
    fn syncer(&self) -> Syncer<Books> {
        let parts = self.parts();
        let on_change = std::sync::Arc::new(move || cycle::note_write(&parts));
        Syncer(Books { engine: self.engine.clone(), flush: self.access_flush(), on_change })
    }
}

#[cfg(feature = "vectors")]
mod vectors {
    use super::*;
    use crate::index::pipeline::{self, BackgroundEmbedding, EmbedReport};

    impl MemoryStore {
        /// Embeds every record whose text changed since it was last embedded, in batches, and
        /// adds the vectors to the index. Returns how many were embedded. The same as
        /// [`MemoryStore::embed_pending`] without a limit or progress.
        pub async fn index_pending(&self) -> Result<usize> {
            Ok(self.embed_pending(None, |_, _| {}).await?.embedded)
        }

        /// Embeds records waiting for a vector, newest first, 32 per model call, at most
        /// `max` of them (None: all), and adds them to the index; then signs the embedding
        /// events of persona vectors a search computed without signing. `progress(done, total)`
        /// is called after each batch. Safe to run beside searches and writes (a background
        /// task, `memstr index`): it takes the embedding lock one batch at a time, so a search
        /// or a gated write waits for one batch at most. Without an embedder it does nothing.
        pub async fn embed_pending(
            &self,
            max: Option<usize>,
            mut progress: impl FnMut(usize, usize) + Send,
        ) -> Result<EmbedReport> {
            pipeline::embed_pending(&self.engine, &self.vectors, max, &mut progress).await
        }

        /// Records waiting for a vector (0 without an embedder).
        pub async fn pending_embeddings(&self) -> Result<usize> {
            pipeline::pending_embeddings(&self.engine, &self.vectors).await
        }

        /// Starts a task that embeds pending records after every change to the store (and
        /// once at the start), so searches find new records by meaning without embedding them
        /// themselves: for a long-running process such as a server. The task stops when the
        /// returned handle is dropped or every handle to the store is. Needs a Tokio runtime;
        /// without an embedder, or on a read-only store, it does nothing.
        pub fn spawn_background_embedding(&self) -> BackgroundEmbedding {
            pipeline::spawn_background(&self.engine, &self.vectors)
        }

        /// Whether this handle saves the store's vector index: it holds the advisory lock
        /// beside the index ([`IndexLock`]), which one process at a time can take. `false`
        /// without vectors. Another process on the same store still searches with an index of
        /// its own in memory, but leaves the files to the owner.
        pub fn owns_vector_index(&self) -> bool {
            self.vectors.as_ref().is_some_and(|v| v.lock.acquire())
        }

        /// Whether semantic search is on (an embedder was given at open).
        pub fn has_vectors(&self) -> bool {
            self.vectors.is_some()
        }
    }
}
