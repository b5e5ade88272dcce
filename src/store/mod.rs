//! The local store: SQLite behind one connection, driven through `spawn_blocking`.
//!
//! Every API write is one transaction that signs the new event, applies it and queues
//! it for relays, so a crash loses nothing a call has returned success for.

mod apply;
mod consolidate;
mod derived;
mod forgetting;
pub(crate) mod ingest;
mod lifecycle;
mod persona;
#[cfg(feature = "sync")]
mod relays;
mod review;
mod schema;
mod search;
mod transfer;
mod v1;
#[cfg(feature = "vectors")]
mod vectors;

use std::fmt;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use nostr::{Event, PublicKey};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use crate::codec::{Codec, DTagMode, Decoded, Path, Payload};
use crate::error::{Error, Result};
use crate::identity::Identity;

pub use apply::Outcome;
pub use consolidate::ConsolidationReport;
pub use forgetting::{address_of, Resolved};
pub use ingest::FUTURE_SLACK;
pub use lifecycle::{FactVersion, GraphNeighbour, PruneReport};
pub use persona::{PersonaInput, PersonaQuery, PersonaStats};
#[cfg(feature = "sync")]
pub use relays::RelayInfo;
pub use review::Ingested;
pub use transfer::{ImportReport, StoreStats};
#[cfg(feature = "vectors")]
pub use vectors::{BackgroundEmbedding, EmbedReport, SEARCH_EMBED_BUDGET};

/// Where "now" comes from: the system clock, or a fixed time for imports, tests and
/// benchmarks that must evaluate decay at a chosen moment.
pub trait Clock: Send + Sync + 'static {
    /// Float Unix seconds.
    fn now(&self) -> f64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
    }
}

/// A clock that says what it was last set to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock reading `now`.
    pub fn new(now: f64) -> Self {
        ManualClock(AtomicU64::new(now.to_bits()))
    }
    /// Moves the clock.
    pub fn set(&self, now: f64) {
        self.0.store(now.to_bits(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::SeqCst))
    }
}

/// How to open a store.
#[derive(Clone)]
pub struct StoreOptions {
    d_tag_mode: Option<DTagMode>,
    clock: Arc<dyn Clock>,
    #[cfg(feature = "vectors")]
    embedder: Option<Arc<dyn crate::index::Embedder>>,
    decay: Option<Arc<dyn crate::lifecycle::DecayPolicy>>,
    lifecycle: LifecycleOptions,
    evaluate_only: bool,
    encrypt: Option<bool>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            d_tag_mode: None,
            clock: Arc::new(SystemClock),
            #[cfg(feature = "vectors")]
            embedder: None,
            decay: None,
            lifecycle: LifecycleOptions::default(),
            evaluate_only: false,
            encrypt: None,
        }
    }
}

/// What the lifecycle does with a memory that stayed dissolved (docs/lifecycle.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dissolve {
    /// Archive it: out of search and context, kept locally and on relays, back with
    /// `restore` or a strong cue in search (PMB's soft delete, seed 002). The default.
    #[default]
    Archive,
    /// Delete it everywhere, as `forget` does (sense-memory's policy, seed 003).
    Delete,
}

impl std::str::FromStr for Dissolve {
    type Err = crate::ValidationError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "archive" => Ok(Dissolve::Archive),
            "delete" => Ok(Dissolve::Delete),
            other => {
                Err(crate::ValidationError { field: "dissolve", rule: crate::Rule::UnknownPolicy(other.to_string()) })
            }
        }
    }
}

/// Lifecycle settings: novelty gating, the graph, consolidation. See docs/lifecycle.md.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LifecycleOptions {
    /// Thresholds of [`MemoryStore::persona_ingest`], on embedding cosine (seed 001's).
    pub gate: crate::lifecycle::gate::GateOptions,
    /// The same without a model, on word overlap
    /// ([`crate::lifecycle::gate::lexical_similarity`]), which runs lower for the same
    /// relation: "Actually, Alice no longer drinks coffee" and "Alice drinks coffee every
    /// morning" overlap 0.6.
    pub gate_lexical: crate::lifecycle::gate::GateOptions,
    /// Edge weights, halflives and spreading activation.
    pub graph: crate::lifecycle::graph::GraphParams,
    /// Consolidate after this many writes (0: never automatically).
    pub consolidate_every: u64,
    /// Consolidate when no write came for this long and something was written since the
    /// last cycle (None: never). Needs a Tokio runtime when the store is opened.
    pub consolidate_idle: Option<std::time::Duration>,
    /// Cosine at or above which consolidation links two persona memories (semantic edge).
    pub link_similarity: f64,
    /// Journal entries whose words overlap this much ([`crate::lifecycle::gate::lexical_similarity`])
    /// form a recurring pattern ...
    pub recur_similarity: f64,
    /// ... once there are this many; consolidation then promotes it to a persona fact.
    pub recur_min: usize,
    /// Days a memory stays dissolved before [`MemoryStore::persona_prune`] archives it (or
    /// deletes it, with [`Dissolve::Delete`]).
    pub dissolve_after_days: f64,
    /// What happens to a memory dissolved for `dissolve_after_days`: archived (default,
    /// reversible) or deleted everywhere (seed 003's policy).
    pub dissolve: Dissolve,
    /// Accesses (reads, search hits) are signed in batches: when the oldest unsigned one
    /// is this old ...
    pub access_flush_after: std::time::Duration,
    /// ... or this many memories hold unsigned accesses. Until then they are local: a
    /// relay does not learn which memories answered which command (docs/wire-format.md).
    pub access_flush_count: u64,
}

impl Default for LifecycleOptions {
    fn default() -> Self {
        LifecycleOptions {
            gate: Default::default(),
            gate_lexical: crate::lifecycle::gate::GateOptions { reinforce: 0.9, update: 0.7, supersede_low: 0.5 },
            graph: Default::default(),
            consolidate_every: 50,
            consolidate_idle: Some(std::time::Duration::from_secs(600)),
            link_similarity: 0.8,
            recur_similarity: 0.6,
            recur_min: 3,
            dissolve_after_days: 30.0,
            dissolve: Dissolve::default(),
            access_flush_after: std::time::Duration::from_secs(3600),
            access_flush_count: 100,
        }
    }
}

impl fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreOptions")
            .field("d_tag_mode", &self.d_tag_mode)
            .field("encrypt", &self.encrypt)
            .finish_non_exhaustive()
    }
}

impl StoreOptions {
    /// Writes d tags in `mode` from now on, and remembers the choice in the store.
    /// Unset: the store's saved mode, or [`DTagMode::Blinded`] for a new store. Choose
    /// [`DTagMode::Compatible`] for a store shared with sense-memory's Python client.
    pub fn d_tag_mode(mut self, mode: DTagMode) -> Self {
        self.d_tag_mode = Some(mode);
        self
    }
    /// Turns on semantic search with `embedder` (see [`crate::index::OnnxEmbedder`]).
    /// Without one, search uses the lexical and lifecycle signals only.
    #[cfg(feature = "vectors")]
    pub fn embedder(mut self, embedder: Arc<dyn crate::index::Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Opens the store to evaluate at `now` (decay, states, search as they would be then):
    /// reads are peeks that count no access, and nothing is signed; a write fails with
    /// [`Error::EvaluateOnly`]. The CLI's `--now`.
    pub fn evaluate_at(mut self, now: f64) -> Self {
        self.clock = Arc::new(ManualClock::new(now));
        self.evaluate_only = true;
        self
    }

    /// Uses `clock` for "now" in payloads: decay, a memory's own times (`last_accessed`, a
    /// journal entry's `ts`), for imports and benchmarks. Never for an event's
    /// `created_at`, which is always the system clock's.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// How persona memories decay from now on. The store remembers a built-in policy's
    /// name (`halflife`, `fsrs6`) and uses it when this is unset; a new store starts with
    /// [`crate::lifecycle::Halflife`], the published client's model.
    pub fn decay(mut self, policy: Arc<dyn crate::lifecycle::DecayPolicy>) -> Self {
        self.decay = Some(policy);
        self
    }

    /// Encryption at rest (docs/encryption.md): `true` creates a new store encrypted (the
    /// database through SQLCipher, the vector index sealed; keys derived from the
    /// identity's secret key) and refuses to open a plain one
    /// ([`crate::EncryptionProblem::NotEncrypted`]: migrate it with
    /// [`MemoryStore::encrypt_at_rest`]); `false` creates a plain one and refuses an
    /// encrypted one. Unset: an existing store opens as it is, a new one plain. Needs the
    /// `encryption` cargo feature ([`crate::EncryptionProblem::FeatureMissing`] without).
    pub fn encrypt(mut self, on: bool) -> Self {
        self.encrypt = Some(on);
        self
    }

    /// Gating, graph and consolidation settings.
    pub fn lifecycle(mut self, options: LifecycleOptions) -> Self {
        self.lifecycle = options;
        self
    }
}

pub(crate) struct Inner {
    conn: Mutex<Connection>,
    path: PathBuf,
    codec: Codec,
    clock: Arc<dyn Clock>,
    /// This store's name in version vectors and access counters (random, per store file).
    pub(crate) device: String,
    /// Opened with [`StoreOptions::evaluate_at`], or read-only on disk: sign nothing, count
    /// no access.
    pub(crate) evaluate_only: bool,
    /// The store's files are read-only: every write fails with [`Error::ReadOnlyStore`].
    pub(crate) read_only: bool,
    /// Encrypted at rest (docs/encryption.md).
    encrypted: bool,
    /// The embedder and vector index, when semantic search is on.
    #[cfg(feature = "vectors")]
    pub(crate) vectors: Option<Arc<vectors::VectorState>>,
    /// Whether "vectors off" was said already.
    pub(crate) warned_no_vectors: std::sync::atomic::AtomicBool,
    /// Set inside a transaction that changed events; announced after it commits.
    events_changed: std::sync::atomic::AtomicBool,
    /// Counts commits that changed events (live sync pushes on each).
    changes: tokio::sync::watch::Sender<u64>,
    pub(crate) decay: Arc<dyn crate::lifecycle::DecayPolicy>,
    pub(crate) life: LifecycleOptions,
    /// The knowledge graph as of a change count and when it was built.
    #[allow(clippy::type_complexity)]
    pub(crate) graph: Mutex<Option<(u64, std::time::Instant, Arc<crate::lifecycle::graph::KnowledgeGraph>)>>,
    /// Bumped by every committed write; the graph cache compares against it.
    pub(crate) generation: AtomicU64,
    /// Writes since the last consolidation.
    pub(crate) writes_since_consolidation: AtomicU64,
    /// Held by a running consolidation cycle.
    pub(crate) consolidation: Arc<tokio::sync::Mutex<()>>,
    /// Pairs of memories retrieved together since the last cycle (kept in memory: a
    /// search must not cost a write).
    pub(crate) coactive: Mutex<std::collections::BTreeMap<(String, String), u32>>,
    /// Milliseconds after `opened` of the last write, for the idle trigger.
    pub(crate) last_write: AtomicU64,
    pub(crate) opened: std::time::Instant,
    /// Document frequencies of query terms, and the store size they were counted at.
    #[allow(clippy::type_complexity)]
    pub(crate) df_cache: Mutex<(u64, u64, std::collections::HashMap<String, u64>)>,
}

impl Inner {
    /// Notes that the running transaction changed events.
    pub(crate) fn touch_events(&self) {
        self.events_changed.store(true, Ordering::SeqCst);
    }
}

/// An agent's memory: a local SQLite store of signed, encrypted events.
///
/// Cheap to clone; clones share one connection.
#[derive(Clone)]
pub struct MemoryStore {
    inner: Arc<Inner>,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("path", &self.inner.path)
            .field("public_key", &self.inner.codec.public_key().to_hex())
            .field("d_tag_mode", &self.inner.codec.mode())
            .finish()
    }
}

impl MemoryStore {
    /// Opens (creating if needed) the store file at `path` for `identity`.
    ///
    /// Fails with [`Error::SchemaTooNew`] for a file from a newer memstr, and with
    /// [`Error::WrongKey`] for a store that belongs to another key.
    pub async fn open(path: impl AsRef<FsPath>, identity: Identity, options: StoreOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let store = tokio::task::spawn_blocking(move || Self::open_blocking(path, identity, options))
            .await
            .map_err(|e| Error::Task(e.to_string()))??;
        if !store.inner.evaluate_only
            && !store.inner.read_only
            && store.read(|conn, _| Ok(ingest::needs_repair(conn)?)).await?
        {
            store.write(ingest::repair_future).await?;
        }
        Ok(store)
    }

    fn open_blocking(path: PathBuf, identity: Identity, options: StoreOptions) -> Result<Self> {
        let read_only = crate::disk::read_only(&path);
        if !read_only {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                crate::disk::create_private_dir(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
            }
        }
        // Encrypted or not: by the file when it has been written, else as asked, else by the
        // marker (docs/encryption.md).
        let found = crate::at_rest::detect(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        if let (Some(want), Some(is)) = (options.encrypt, found) {
            if want != is {
                let problem =
                    if is { crate::EncryptionProblem::Encrypted } else { crate::EncryptionProblem::NotEncrypted };
                return Err(Error::Encryption { path, problem });
            }
        }
        let encrypted = found.or(options.encrypt).unwrap_or_else(|| crate::at_rest::marker_path(&path).exists());
        let at_rest = match encrypted {
            true => Some(Arc::new(
                crate::at_rest::StoreKeys::derive(&identity)
                    .map_err(|problem| Error::Encryption { path: path.clone(), problem })?,
            )),
            false => None,
        };
        if !read_only {
            // Owner-only from the first byte; SQLite gives the WAL and SHM files the same mode.
            crate::disk::precreate_private(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.clone().into_os_string();
                name.push(suffix);
                crate::disk::restrict_file(std::path::Path::new(&name));
            }
        }
        let db = Error::db(&path);
        let mut conn = if read_only {
            // Its owner made it read-only (or it is on read-only media): read it as it is,
            // without the WAL index SQLite would otherwise create beside it.
            let mut uri = std::ffi::OsString::from("file:");
            uri.push(path.as_os_str());
            uri.push("?immutable=1");
            Connection::open_with_flags(
                std::path::Path::new(&uri),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(db)?
        } else {
            Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(db)?
        };
        if let Some(keys) = &at_rest {
            // Before anything else reads the file.
            keys.apply(&conn, &path)?;
        }
        let setup = |c: &Connection| -> rusqlite::Result<()> {
            c.busy_timeout(std::time::Duration::from_secs(10))?;
            if !read_only {
                c.pragma_update(None, "journal_mode", "WAL")?;
                // FULL: a returned write survives power loss, not only a crashed process.
                c.pragma_update(None, "synchronous", "FULL")?;
            }
            c.pragma_update(None, "foreign_keys", "ON")?;
            // 32 MiB of page cache (SQLite's default is 2 MiB): search reads the FTS5
            // postings, each match's document size and the candidates' rows; at 100k
            // memories the default cache sent a quarter of search time to read() calls.
            c.pragma_update(None, "cache_size", -32_768)?;
            Ok(())
        };
        setup(&conn).map_err(Error::db(&path))?;
        match schema::migrate(&mut conn).map_err(Error::db(&path))? {
            Ok(_) => {}
            Err(found) => return Err(Error::SchemaTooNew { path, found, supported: schema::LATEST }),
        }
        crate::at_rest::set_marker(&path, encrypted)?;
        let pubkey = identity.public_key().to_hex();
        // Deferred, and every write below only when something changed: opening a store that
        // is read-only (its owner's choice, or read-only media) must not write.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred).map_err(Error::db(&path))?;
        let meta = |name: &str| -> rusqlite::Result<Option<String>> {
            tx.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| r.get(0)).optional()
        };
        // A read-only store keeps what it has; what would change lives for this handle only.
        let put = |name: &str, value: &str| -> Result<()> {
            if !read_only {
                tx.execute(
                    "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2",
                    [name, value],
                )
                .map_err(Error::db(&path))?;
            }
            Ok(())
        };
        match meta("pubkey").map_err(Error::db(&path))? {
            Some(pk) if pk != pubkey => {
                return Err(Error::WrongKey { path, store_pubkey: pk, given_pubkey: pubkey });
            }
            Some(_) => {}
            None => put("pubkey", &pubkey)?,
        }
        // A device id belongs to one database file: a copied store directory (another
        // inode) would otherwise sign its edits under the original's id, and the two copies
        // would take each other's edits for their own past (docs/sync.md, copied stores).
        let file_id = file_identity(&path);
        let bound = meta("device_file").map_err(Error::db(&path))?;
        let device = match meta("device_id").map_err(Error::db(&path))? {
            Some(d) if bound == file_id => d,
            old => {
                let mut bytes = [0u8; 8];
                nostr::secp256k1::rand::RngCore::fill_bytes(&mut nostr::secp256k1::rand::rngs::OsRng, &mut bytes);
                let d = hex::encode(bytes);
                if old.is_some() {
                    tracing::info!(path = %path.display(), "store file is new here (copied or restored): new device id");
                }
                put("device_id", &d)?;
                d
            }
        };
        if let Some(id) = file_id.as_ref().filter(|_| bound != file_id) {
            put("device_file", id)?;
        }
        let saved_policy = meta("decay_policy").map_err(Error::db(&path))?;
        let decay: Arc<dyn crate::lifecycle::DecayPolicy> = match options.decay {
            Some(p) if saved_policy.as_deref() == Some(p.name()) => p,
            Some(p) => {
                put("decay_policy", p.name())?;
                p
            }
            None => match saved_policy.as_deref().and_then(crate::lifecycle::policy_by_name) {
                Some(p) => Arc::from(p),
                None => {
                    if let Some(name) = saved_policy {
                        tracing::warn!("decay policy {name:?} saved in the store is not built in: using halflife");
                    }
                    Arc::new(crate::lifecycle::Halflife::default())
                }
            },
        };
        // A new store is blinded; an existing one keeps its saved mode (one from before the
        // mode was saved, holding events, was compatible).
        let saved = meta("d_tag_mode").map_err(Error::db(&path))?.and_then(|m| m.parse().ok());
        let legacy = || -> rusqlite::Result<Option<DTagMode>> {
            let any: bool = tx.query_row("SELECT EXISTS(SELECT 1 FROM events)", [], |r| r.get(0))?;
            Ok(any.then_some(DTagMode::Compatible))
        };
        let saved = match saved {
            Some(m) => Some(m),
            None => legacy().map_err(Error::db(&path))?,
        };
        let mode = options.d_tag_mode.or(saved).unwrap_or_default();
        if saved != Some(mode) {
            put("d_tag_mode", mode.as_str())?;
        }
        tx.commit().map_err(Error::db(&path))?;
        let codec = Codec::new(identity.keys().clone(), mode)?;
        #[cfg(feature = "vectors")]
        let vectors = match options.embedder.clone() {
            Some(e) => Some(Arc::new(vectors::VectorState::open(&conn, &path, e, at_rest.clone())?)),
            None => None,
        };
        Ok(MemoryStore {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path,
                codec,
                clock: options.clock,
                device,
                evaluate_only: options.evaluate_only || read_only,
                read_only,
                encrypted,
                #[cfg(feature = "vectors")]
                vectors,
                warned_no_vectors: std::sync::atomic::AtomicBool::new(false),
                events_changed: std::sync::atomic::AtomicBool::new(false),
                changes: tokio::sync::watch::channel(0).0,
                decay,
                life: options.lifecycle,
                graph: Mutex::new(None),
                generation: AtomicU64::new(0),
                writes_since_consolidation: AtomicU64::new(0),
                consolidation: Arc::new(tokio::sync::Mutex::new(())),
                coactive: Mutex::new(Default::default()),
                last_write: AtomicU64::new(0),
                opened: std::time::Instant::now(),
                df_cache: Mutex::new((0, 0, Default::default())),
            }),
        }
        .start_idle_consolidation())
    }

    /// Encrypts the store at `path` at rest, keeping every memory: the database is
    /// exported through SQLCipher (`sqlcipher_export`) into a new file that replaces it in
    /// one rename, and the vector index is re-saved sealed. The store must be closed (no
    /// other connection: [`crate::EncryptionProblem::InUse`]). Returns false when it already
    /// was encrypted. Needs the `encryption` feature.
    pub async fn encrypt_at_rest(path: impl AsRef<FsPath>, identity: &Identity) -> Result<bool> {
        Self::migrate_at_rest(path.as_ref(), identity, true).await
    }

    /// Decrypts the store at `path`: the reverse of [`MemoryStore::encrypt_at_rest`].
    pub async fn decrypt_at_rest(path: impl AsRef<FsPath>, identity: &Identity) -> Result<bool> {
        Self::migrate_at_rest(path.as_ref(), identity, false).await
    }

    async fn migrate_at_rest(path: &FsPath, identity: &Identity, encrypt: bool) -> Result<bool> {
        let (path, identity) = (path.to_path_buf(), identity.clone());
        tokio::task::spawn_blocking(move || crate::at_rest::migrate(&path, &identity, encrypt))
            .await
            .map_err(|e| Error::Task(e.to_string()))?
    }

    /// Whether this store is encrypted at rest.
    pub fn is_encrypted(&self) -> bool {
        self.inner.encrypted
    }

    /// The codec that signs as this store (for NIP-42 answers).
    #[cfg(feature = "sync")]
    pub(crate) fn inner_codec(&self) -> &Codec {
        &self.inner.codec
    }

    /// The store's public key.
    pub fn public_key(&self) -> PublicKey {
        self.inner.codec.public_key()
    }

    /// The SQLite file.
    pub fn path(&self) -> &FsPath {
        &self.inner.path
    }

    /// The d-tag mode new events are written in.
    pub fn d_tag_mode(&self) -> DTagMode {
        self.inner.codec.mode()
    }

    /// "Now", per the store's clock.
    pub fn now(&self) -> f64 {
        self.inner.clock.now()
    }

    /// SQLite's `data_version`: changes when another connection (another process) commits.
    #[cfg(feature = "sync")]
    pub(crate) async fn data_version(&self) -> Result<i64> {
        self.read(|conn, _| Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)).await
    }

    /// A receiver that sees a new value after every commit that changed events.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Runs `f` on the connection in a blocking task.
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &Inner) -> Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let conn = inner.conn.lock().map_err(|_| Error::Task("store connection poisoned".into()))?;
            f(&conn, &inner)
        })
        .await
        .map_err(|e| Error::Task(e.to_string()))?
    }

    /// Runs `f` in one immediate transaction, committed only if `f` succeeds.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Inner) -> Result<T> + Send + 'static,
    {
        self.write_counted(f, true).await
    }

    /// [`MemoryStore::write`] for derived records only (vectors, embedding events): its
    /// events are announced like any, but it does not count toward automatic consolidation,
    /// as it adds no memory.
    #[cfg(feature = "vectors")]
    pub(crate) async fn write_derived<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Inner) -> Result<T> + Send + 'static,
    {
        self.write_counted(f, false).await
    }

    async fn write_counted<T, F>(&self, f: F, counts: bool) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Inner) -> Result<T> + Send + 'static,
    {
        if self.inner.read_only {
            return Err(Error::ReadOnlyStore(self.inner.path.clone()));
        }
        let inner = self.inner.clone();
        let (out, changed) = tokio::task::spawn_blocking(move || {
            let mut conn = inner.conn.lock().map_err(|_| Error::Task("store connection poisoned".into()))?;
            let db = Error::db(&inner.path);
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db)?;
            inner.events_changed.store(false, Ordering::SeqCst);
            let out = f(&tx, &inner)?;
            tx.commit().map_err(Error::db(&inner.path))?;
            let changed = inner.events_changed.swap(false, Ordering::SeqCst);
            if changed {
                inner.changes.send_modify(|n| *n += 1);
                inner.generation.fetch_add(1, Ordering::SeqCst);
            }
            Ok::<_, Error>((out, changed))
        })
        .await
        .map_err(|e| Error::Task(e.to_string()))??;
        if changed && counts {
            self.note_write();
        }
        Ok(out)
    }
}

/// The database file's identity on this machine (device and inode): a copy has another.
pub(crate) fn file_identity(path: &FsPath) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| format!("{}:{}", m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Loading the vector index and building the graph free large buffers that glibc keeps
/// for reuse; a serving process never needs them again, so they go back to the system
/// (about 100 MB at 100k memories).
pub(crate) fn release_free_memory() {
    #[cfg(all(feature = "vectors", target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl From<rusqlite::Error> for Error {
    fn from(source: rusqlite::Error) -> Self {
        // Paths are attached where the connection is known; this covers the rest.
        Error::Database { path: PathBuf::new(), source }
    }
}

/// Signs `payload` at `path`, applies it and queues it. The event's `created_at` is the
/// time of writing (per the system clock), raised past the current version and any
/// deletion so the write always wins. A memory's own time (an import's, say) travels in
/// the payload: relays order and filter by `created_at`, so it must mean "written".
pub(crate) fn write_record(tx: &Transaction, inner: &Inner, path: &Path, payload: Payload) -> Result<Event> {
    if inner.evaluate_only {
        return Err(Error::EvaluateOnly(format!("write {path}")));
    }
    let codec = &inner.codec;
    let d = codec.d_tag(path);
    let cur = apply::current(tx, &path.to_d())?;
    let mut floor = 0;
    if let Some(c) = &cur {
        if apply::orders_later_versions(tx, c)? {
            floor = c.created_at.saturating_add(1);
        }
    }
    if let Some(t) = apply::deleted_until(tx, &d)? {
        floor = floor.max(t.saturating_add(1));
    }
    // The system clock, never the store's: a signed `created_at` from a clock set to
    // another time would stamp every later edit after it (docs/sync.md, clocks).
    let created_at = ingest::system_now().max(floor).max(0) as u64;
    let event = codec.record_event(path, &payload, created_at)?;
    let decoded = Decoded::Record { path: path.clone(), d_tag: d.clone(), payload };
    let outcome = apply::apply(tx, codec, &event, &decoded)?;
    if outcome != Outcome::Applied {
        return Err(Error::Task(format!("own write to {path} was not applied: {outcome:?}")));
    }
    enqueue(tx, &event)?;
    inner.touch_events();
    if let Some(c) = cur.filter(|c| !c.deleted && !c.d_tag.is_empty() && c.d_tag != d) {
        // The d-tag mode changed: retire the version at the old tag. Into blinded mode by
        // `e` tag only: the old tag is plain, and a blinded store publishes no plain path
        // (it is public already; publishing it again would only repeat it to new relays).
        let del = codec.deletion_event(&[c.event_id], &codec.coordinates(&[c.d_tag]), created_at)?;
        let decoded = codec.decode(&del).map_err(|reason| Error::Rejected { event_id: del.id.to_hex(), reason })?;
        apply::apply(tx, codec, &del, &decoded)?;
        enqueue(tx, &del)?;
    }
    Ok(event)
}

/// Signs the current content of `path` again as a newer version. For a relay that kept
/// another version with the same `created_at` (first arrival wins there, lowest id here):
/// only a newer version gets the winner onto it.
#[cfg(feature = "sync")]
pub(crate) fn republish(tx: &Transaction, inner: &Inner, path_s: &str) -> Result<()> {
    let row: Option<(String, Option<String>)> = tx
        .query_row("SELECT kind, payload FROM records WHERE path = ?1 AND deleted = 0", [path_s], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let (Some((kind, Some(json))), Ok(path)) = (row, Path::parse(path_s)) else { return Ok(()) };
    let payload = match kind.as_str() {
        "kv" => Payload::Kv(serde_json::from_str(&json)?),
        "journal" => Payload::Journal(serde_json::from_str(&json)?),
        "persona" => Payload::Persona(serde_json::from_str(&json)?),
        "embed" => Payload::Embed(serde_json::from_str(&json)?),
        "introspection" => Payload::Introspection(serde_json::from_str(&json)?),
        _ => return Ok(()),
    };
    write_record(tx, inner, &path, payload)?;
    Ok(())
}

/// Queues an event for relays.
pub(crate) fn enqueue(tx: &Transaction, event: &Event) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR IGNORE INTO outbox (event_id, queued_at) VALUES (?1, unixepoch())",
        params![event.id.to_hex()],
    )?;
    Ok(())
}
