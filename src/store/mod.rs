//! [`MemoryStore`], the facade: each public method validates its input and hands off to
//! the storage engine (`crate::engine`), search (`crate::search`), the lifecycle
//! (`crate::lifecycle`), the embedding pipeline (`crate::index`) or relay sync
//! (`crate::sync`). Its state is four handles, one per subsystem.

mod batch;
mod episodes;
mod learning;
mod lifecycle;
mod memories;
mod options;
#[cfg(test)]
mod statements;
mod strength;
mod transfer;

pub use batch::MAX_BATCH;
pub use transfer::MAX_IMPORT_LINE;

use std::fmt;
use std::path::Path as FsPath;
use std::sync::Arc;

use nostr::PublicKey;

use crate::codec::DTagMode;
use crate::engine::{Engine, Opened};
use crate::error::Result;
use crate::identity::Identity;
use crate::index::Vectors;
use crate::lifecycle::runtime::Lifecycle;
use crate::lifecycle::{triggers, Parts};
use crate::search::candidates::SearchState;

pub use options::StoreOptions;

/// An agent's memory: a local SQLite store of signed, encrypted events.
///
/// Cheap to clone; clones share the same handles.
#[derive(Clone)]
pub struct MemoryStore {
    engine: Arc<Engine>,
    life: Arc<Lifecycle>,
    vectors: Vectors,
    search: Arc<SearchState>,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("path", &self.engine.path())
            .field("public_key", &self.engine.codec().public_key().to_hex())
            .field("d_tag_mode", &self.engine.codec().mode())
            .finish()
    }
}

impl MemoryStore {
    /// Opens (creating if needed) the store file at `path` for `identity`.
    ///
    /// Fails with [`crate::Error::SchemaTooNew`] for a file from a newer memstr, and with
    /// [`crate::Error::WrongKey`] for a store that belongs to another key.
    pub async fn open(path: impl AsRef<FsPath>, identity: Identity, options: StoreOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let store = crate::engine::blocking(move || Self::open_blocking(path, identity, options)).await?;
        let engine = &store.engine;
        if !engine.evaluate_only() && engine.read(|conn, _| Ok(crate::engine::ingest::needs_repair(conn)?)).await? {
            engine.write(crate::engine::ingest::repair_future).await?;
        }
        triggers::start_idle_consolidation(&store.parts());
        Ok(store)
    }

    fn open_blocking(path: std::path::PathBuf, identity: Identity, options: StoreOptions) -> Result<Self> {
        let opened = Opened {
            d_tag_mode: options.d_tag_mode,
            encrypt: options.encrypt,
            evaluate_only: options.evaluate_only,
            clock: options.clock.clone(),
        };
        let engine = Arc::new(Engine::open(path, &identity, opened)?);
        let decay = options::decay_policy(&engine, options.decay.clone())?;
        #[cfg(feature = "vectors")]
        let vectors = match options.embedder.clone() {
            Some(e) => Some(Arc::new(crate::index::VectorState::open(&engine, e)?)),
            None => None,
        };
        #[cfg(not(feature = "vectors"))]
        let vectors = None;
        Ok(MemoryStore {
            engine,
            life: Arc::new(Lifecycle::new(decay, options.lifecycle)),
            vectors,
            search: Arc::new(SearchState::default()),
        })
    }

    /// The handles lifecycle work takes.
    pub(crate) fn parts(&self) -> Parts {
        Parts { engine: self.engine.clone(), life: self.life.clone(), vectors: self.vectors.clone() }
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
        crate::engine::blocking(move || {
            // The vector index first: if this stops half way the index is a cache, rebuilt
            // from the database on the next open.
            let reseal = |from: Option<&crate::at_rest::IndexKey>, to: Option<&crate::at_rest::IndexKey>| {
                #[cfg(feature = "vectors")]
                {
                    let dir = crate::index::vectors::VectorIndex::dir_for(&path);
                    if dir.exists() {
                        if let Err(e) = crate::index::vectors::VectorIndex::reseal(&dir, from, to) {
                            tracing::warn!("vector index not re-saved ({e}); it is rebuilt on the next open");
                            let _ = std::fs::remove_dir_all(&dir);
                        }
                    }
                }
                let _ = (from, to);
            };
            crate::at_rest::migrate(&path, &identity, encrypt, &reseal)
        })
        .await
    }

    /// Which of the seeds' switchable behaviours this store was opened with
    /// (docs/lifecycle.md, "Switches").
    pub fn behaviours(&self) -> crate::lifecycle::Behaviours {
        self.life.options.behaviours
    }

    /// Whether this store is encrypted at rest.
    pub fn is_encrypted(&self) -> bool {
        self.engine.encrypted()
    }

    /// The store's public key.
    pub fn public_key(&self) -> PublicKey {
        self.engine.codec().public_key()
    }

    /// The SQLite file.
    pub fn path(&self) -> &FsPath {
        self.engine.path()
    }

    /// The d-tag mode new events are written in.
    pub fn d_tag_mode(&self) -> DTagMode {
        self.engine.codec().mode()
    }

    /// "Now", per the store's clock.
    pub fn now(&self) -> f64 {
        self.engine.now()
    }

    /// A receiver that sees a new value after every commit that changed events.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.engine.changes()
    }

    /// Lets a running consolidation cycle finish ([`MemoryStore::settle`]), signs the
    /// pending accesses when a batch is due ([`MemoryStore::flush_accesses_if_due`]) and
    /// saves the vector index; call before dropping the last handle (nothing is lost
    /// without it, but the next open has more to catch up on).
    pub async fn close(self) -> Result<()> {
        self.settle().await;
        self.flush_accesses_if_due().await?;
        #[cfg(feature = "vectors")]
        if let Some(v) = self.vectors.clone().filter(|_| !self.engine.read_only()) {
            if v.unsaved.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                crate::engine::blocking(move || v.save()).await?;
            }
        }
        // The last handle: free the index and graph now, and give the memory back, so a
        // process that reopens a large store does not hold two of them at its peak.
        crate::engine::blocking(move || {
            drop(self);
            crate::disk::release_free_memory();
            Ok(())
        })
        .await
    }
}
