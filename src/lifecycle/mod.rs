//! How memory behaves over time: decay policies, the knowledge graph, novelty gating,
//! introspection, compression and consolidation. See docs/lifecycle.md.
//!
//! `decay`, `gate`, `graph`, `introspect` and `compress` are pure: they take memories and
//! return decisions or text. `runtime` is the lifecycle's handle on a store (its policy,
//! settings, graph cache and cycle state); `persona`, `review` and `cycle` apply the pure
//! parts to the store through the engine.

pub(crate) mod batch;
pub mod competition;
pub mod compress;
pub(crate) mod cycle;
pub mod decay;
pub(crate) mod dreams;
pub mod episodes;
pub mod gate;
pub mod graph;
pub mod introspect;
mod options;
pub(crate) mod pairs;
pub(crate) mod persona;
pub mod retro;
pub(crate) mod review;
pub(crate) mod runtime;
pub(crate) mod similar;
pub mod strength;
pub mod summary;
mod switches;
pub mod trajectory;
pub(crate) mod triggers;
pub(crate) mod types;
pub(crate) mod verdicts;

use std::sync::{Arc, Weak};

use rusqlite::Transaction;

pub use cycle::ConsolidationReport;
pub use decay::{policy_by_name, DecayPolicy, Fsrs6, Halflife, Rating, FSRS6_DEFAULT_PARAMS, SUPERSEDED_SPEEDUP};
pub use options::{Dissolve, LifecycleOptions, LINK_MAX_PER_MEMORY};
pub use persona::{FactVersion, PersonaStats, PruneReport};
pub use retro::{capture_draw, capture_probability, ImportanceCluster};
pub use review::{GraphNeighbour, Ingested};
pub use strength::MemoryStrength;
pub use switches::{Behaviour, Behaviours};
pub use types::{tier_of, tier_scale, EPISODIC_ACCESSES, SEMANTIC_ACCESSES, SEMANTIC_AGE_DAYS};
pub use verdicts::{ActionOutcome, Feedback};

use crate::engine::Engine;
use crate::error::Result;
use crate::index::Vectors;
use runtime::Lifecycle;

/// The handles lifecycle work needs when it spans transactions: the engine, the
/// lifecycle's own state, and the embedding pipeline (similarities, the gate's vectors).
#[derive(Clone)]
pub(crate) struct Parts {
    pub engine: Arc<Engine>,
    pub life: Arc<Lifecycle>,
    pub vectors: Vectors,
}

/// [`Parts`] that do not keep a store alive (background timers).
pub(crate) struct WeakParts {
    engine: Weak<Engine>,
    life: Weak<Lifecycle>,
    vectors: Option<Weak<crate::index::VectorState>>,
}

impl Parts {
    pub(crate) fn downgrade(&self) -> WeakParts {
        WeakParts {
            engine: Arc::downgrade(&self.engine),
            life: Arc::downgrade(&self.life),
            vectors: self.vectors.as_ref().map(Arc::downgrade),
        }
    }

    /// A memory write: one transaction, counted toward the next automatic consolidation
    /// when it changed events.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Engine, &Lifecycle) -> Result<T> + Send + 'static,
    {
        self.write_weighted(move |tx, engine, life| Ok((f(tx, engine, life)?, 1))).await
    }

    /// [`Parts::write`] for a transaction that counts as `n` writes toward consolidation
    /// (`f` returns its value and `n`), counted at once.
    pub(crate) async fn write_weighted<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction, &Engine, &Lifecycle) -> Result<(T, u64)> + Send + 'static,
    {
        let life = self.life.clone();
        // Accesses recalls counted in memory go first, in the same transaction: the write
        // sees every memory as its readers did.
        let accesses = self.life.take_accesses();
        let kept = (!accesses.is_empty()).then(|| accesses.clone());
        let ((out, weight), changed) = match self
            .engine
            .write_tracked(move |tx, engine| {
                persona::record_accesses(tx, engine, &life, &accesses)?;
                f(tx, engine, &life)
            })
            .await
        {
            Ok(done) => done,
            Err(e) => {
                // Nothing was written: the accesses wait for the next transaction.
                if let Some(kept) = kept {
                    self.life.requeue_accesses(kept);
                }
                return Err(e);
            }
        };
        if changed {
            triggers::note_writes(self, weight);
        }
        Ok(out)
    }

    /// Writes the accesses recalls counted in memory, if any: before a read that looks at
    /// access counts (peeks, searches, statistics, exports) and at close.
    pub(crate) async fn record_accesses(&self) -> Result<()> {
        if !self.life.accesses_waiting() {
            return Ok(());
        }
        let (life, accesses) = (self.life.clone(), self.life.take_accesses());
        let kept = accesses.clone();
        let done = self.engine.write(move |tx, engine| persona::record_accesses(tx, engine, &life, &accesses)).await;
        if done.is_err() {
            self.life.requeue_accesses(kept);
        }
        done
    }
}

impl WeakParts {
    pub(crate) fn upgrade(&self) -> Option<Parts> {
        let vectors = match &self.vectors {
            Some(v) => Some(v.upgrade()?),
            None => None,
        };
        Some(Parts { engine: self.engine.upgrade()?, life: self.life.upgrade()?, vectors })
    }
}
