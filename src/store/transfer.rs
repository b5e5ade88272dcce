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
use crate::lifecycle::triggers;
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

    /// [`MemoryStore::import_json_lines`] streamed from `reader` (a file, standard input),
    /// a line at a time: memory stays bounded whatever the input's size. A line longer than
    /// [`MAX_IMPORT_LINE`] is skipped and counted `oversized`, one that is not UTF-8 or not
    /// an event `malformed_event`; the valid lines around them are imported. Batches of
    /// events are applied as they are read; `progress(lines)` is called after each.
    pub async fn import_reader<R>(&self, reader: R, mut progress: impl FnMut(u64) + Send) -> Result<ImportReport>
    where
        R: std::io::Read + Send + 'static,
    {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<std::io::Result<LineBatch>>(2);
        let reading = tokio::task::spawn_blocking(move || read_lines(reader, tx));
        let mut report = ImportReport::default();
        let mut lines = 0;
        while let Some(batch) = rx.recv().await {
            let batch = batch.map_err(|source| crate::Error::Io { path: "import input".into(), source })?;
            lines += batch.lines;
            if batch.oversized > 0 {
                let n = batch.oversized;
                self.engine
                    .write(move |tx, _| {
                        for _ in 0..n {
                            crate::engine::apply::count_rejection(tx, crate::RejectReason::Oversized, None)?;
                        }
                        Ok(())
                    })
                    .await?;
                *report.rejected.entry(crate::RejectReason::Oversized.as_str().to_string()).or_default() += n;
            }
            report.absorb(self.import(batch.events).await?);
            progress(lines);
        }
        reading.await?;
        Ok(report)
    }

    /// Events through the one door; what they changed counts toward consolidation.
    async fn import(&self, events: Vec<crate::engine::ingest::Incoming>) -> Result<ImportReport> {
        let report = self.engine.admit_all(Source::Import, events).await?.report;
        if report.applied + report.merged > 0 {
            triggers::note_write(&self.parts());
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
            triggers::note_write(&self.parts());
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
    /// Reads the agent's private relay list (NIP-37) from `bootstrap` relays (none given:
    /// [`crate::sync::bootstrap_relays`]) and configures the relays it names, within the
    /// bounds of [`crate::sync::discover`]; then [`MemoryStore::sync`] gets the memories.
    /// A bootstrap relay on a loopback or private address (or `allow_private`) lets the list
    /// name such relays too.
    pub async fn discover_relays(
        &self,
        bootstrap: &[String],
        opts: &SyncOptions,
        allow_private: bool,
    ) -> Result<crate::sync::ListReport> {
        let urls = crate::sync::bootstrap_relays(bootstrap)
            .iter()
            .map(|u| RelayUrl::parse(u, false))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        self.syncer().discover(&urls, opts, allow_private).await
    }

    #[cfg(feature = "sync")]
    /// Publishes the relay list in public too (NIP-65, kind 10002: anyone learns where
    /// this key's events are), or stops (`false`, the default). The private list (NIP-37)
    /// is always kept.
    pub async fn set_public_relay_list(&self, on: bool) -> Result<()> {
        self.engine
            .write(move |tx, engine| {
                tx.execute(
                    "INSERT INTO meta (name, value) VALUES ('public_relay_list', ?1)
                     ON CONFLICT(name) DO UPDATE SET value = ?1",
                    [if on { "1" } else { "0" }],
                )?;
                if !on {
                    // Switched off: this store hands the public list to no relay any more.
                    tx.execute("DELETE FROM events WHERE kind = ?1", [crate::codec::KIND_PUBLIC_RELAYS])?;
                }
                // Switched on: signed again now, with the public list beside it.
                crate::engine::relay_list::republish(tx, engine.codec(), on)
            })
            .await
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
    /// and backed off. The others carry on. No automatic consolidation cycle starts while
    /// it runs; one due starts when it ends.
    pub async fn sync(&self, opts: &SyncOptions) -> Result<Vec<RelayReport>> {
        let _hold = triggers::CycleHold::new(&self.parts());
        self.sync_pass(opts).await
    }

    /// One pass, automatic cycles held off by the caller.
    #[cfg(feature = "sync")]
    async fn sync_pass(&self, opts: &SyncOptions) -> Result<Vec<RelayReport>> {
        self.parts().record_accesses().await?;
        self.syncer().sync(opts).await
    }

    #[cfg(feature = "sync")]
    /// Passes of [`MemoryStore::sync`] until no relay's read goes on: a new device's pull
    /// of a store larger than one pass allows ([`SyncOptions::max_events`],
    /// [`SyncOptions::deadline`]) takes several, and a read cut by a failure goes on too.
    /// Stops after `max_passes`, or when a pass brings no event this key signed (a relay
    /// cannot keep it going without serving real events: each pass reads below where the
    /// last stopped). `on_pass` hears each pass's reports, as progress. Returns each relay's reports added up ([`RelayReport::absorb`]).
    pub async fn sync_to_end(
        &self,
        opts: &SyncOptions,
        max_passes: usize,
        mut on_pass: impl FnMut(usize, &[RelayReport]),
    ) -> Result<Vec<RelayReport>> {
        // No automatic cycle until the last pass (one is started then if due).
        let _hold = triggers::CycleHold::new(&self.parts());
        let mut total: Vec<RelayReport> = Vec::new();
        for pass in 1..=max_passes.max(1) {
            let reports = self.sync_pass(opts).await?;
            on_pass(pass, &reports);
            // Any event this key signed counts, whatever applying it did; rejected ones do not.
            let progress = reports.iter().any(|r| r.pulled.accepted() > 0);
            let goes_on = reports.iter().any(RelayReport::read_goes_on);
            for r in reports {
                match total.iter_mut().find(|t| t.url == r.url) {
                    Some(t) => t.absorb(r),
                    None => total.push(r),
                }
            }
            if !goes_on || !progress {
                break;
            }
        }
        Ok(total)
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
        let on_change = std::sync::Arc::new(move || triggers::note_write(&parts));
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

/// Longest line [`MemoryStore::import_reader`] reads, in bytes: twice the largest message a
/// relay may send (an event memstr accepts is far smaller).
pub const MAX_IMPORT_LINE: usize = 1 << 20;
/// A batch is sent on once it holds this many events, or this many bytes of them.
const IMPORT_BATCH_LINES: usize = 500;
const IMPORT_BATCH_BYTES: usize = 4 << 20;

/// Lines read and parsed, on their way to the door.
#[derive(Default)]
struct LineBatch {
    events: Vec<crate::engine::ingest::Incoming>,
    lines: u64,
    oversized: u64,
}

/// Reads `reader` line by line (blocking), parses each line as an event and sends batches;
/// never holds more than one line of [`MAX_IMPORT_LINE`] bytes and the batches in flight.
fn read_lines<R: std::io::Read>(reader: R, tx: tokio::sync::mpsc::Sender<std::io::Result<LineBatch>>) {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::with_capacity(64 << 10, reader);
    let mut batch = LineBatch::default();
    let mut bytes = 0usize;
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.blocking_send(Err(e));
                return;
            }
        };
        let eof = buf.is_empty();
        let (chunk, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], true),
            None => (buf, eof),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_IMPORT_LINE {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(ended && !eof);
        reader.consume(used);
        if !ended {
            continue;
        }
        if too_long {
            batch.oversized += 1;
            batch.lines += 1;
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            batch.lines += 1;
            bytes += line.len();
            let event = std::str::from_utf8(&line).ok().and_then(|l| Event::from_json(l.trim()).ok());
            batch.events.push(event);
        }
        too_long = false;
        line.clear();
        if batch.events.len() >= IMPORT_BATCH_LINES || bytes >= IMPORT_BATCH_BYTES || (eof && batch.lines > 0) {
            if tx.blocking_send(Ok(std::mem::take(&mut batch))).is_err() {
                return;
            }
            bytes = 0;
        }
        if eof {
            return;
        }
    }
}
