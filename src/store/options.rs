//! How to open a store, and the decay policy it settles on.

use std::fmt;
use std::sync::Arc;

use crate::clock::{Clock, ManualClock, SystemClock};
use crate::codec::DTagMode;
use crate::engine::{records, Engine};
use crate::error::Result;
use crate::lifecycle::{DecayPolicy, LifecycleOptions};

/// How to open a store.
#[derive(Clone)]
pub struct StoreOptions {
    pub(super) d_tag_mode: Option<DTagMode>,
    pub(super) clock: Arc<dyn Clock>,
    #[cfg(feature = "vectors")]
    pub(super) embedder: Option<Arc<dyn crate::index::Embedder>>,
    pub(super) decay: Option<Arc<dyn DecayPolicy>>,
    pub(super) lifecycle: LifecycleOptions,
    pub(super) evaluate_only: bool,
    pub(super) encrypt: Option<bool>,
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
    pub fn decay(mut self, policy: Arc<dyn DecayPolicy>) -> Self {
        self.decay = Some(policy);
        self
    }

    /// Encryption at rest (docs/encryption.md): `true` creates a new store encrypted (the
    /// database through SQLCipher, the vector index sealed; keys derived from the
    /// identity's secret key) and refuses to open a plain one
    /// ([`crate::EncryptionProblem::NotEncrypted`]: migrate it with
    /// [`crate::MemoryStore::encrypt_at_rest`]); `false` creates a plain one and refuses an
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

/// The decay policy a store follows: the one asked for (saved by name, when it differs
/// from the saved one), else the saved built-in one, else the published client's halflife.
pub(super) fn decay_policy(engine: &Engine, asked: Option<Arc<dyn DecayPolicy>>) -> Result<Arc<dyn DecayPolicy>> {
    let saved = engine.read_now(|conn, _| records::meta_get(conn, "decay_policy"))?;
    Ok(match asked {
        Some(p) if saved.as_deref() == Some(p.name()) => p,
        Some(p) => {
            if !engine.read_only() {
                let name = p.name().to_string();
                engine.write_now(move |tx, _| records::meta_set(tx, "decay_policy", &name))?;
            }
            p
        }
        None => match saved.as_deref().and_then(crate::lifecycle::policy_by_name) {
            Some(p) => Arc::from(p),
            None => {
                if let Some(name) = saved {
                    tracing::warn!("decay policy {name:?} saved in the store is not built in: using halflife");
                }
                Arc::new(crate::lifecycle::Halflife::default())
            }
        },
    })
}
