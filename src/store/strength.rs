//! Retroactive importance and retrieval-induced forgetting through the facade: flagging
//! a memory as important, the clusters events captured, a memory's strength.

use super::MemoryStore;
use crate::error::Result;
use crate::lifecycle::retro::{self, ImportanceCluster};
use crate::lifecycle::strength::{self, MemoryStrength};

impl MemoryStore {
    /// Flags the persona memory at `reference` (a key or `domain/facet/key`) as important
    /// (seed 001's user flag): an importance event that captures the memories written from
    /// 9 hours before to 2 hours after it, each with a probability that falls with its
    /// distance in time ([`crate::lifecycle::capture_probability`]); captured memories
    /// decay slower and the event records them (docs/lifecycle.md, "Retroactive
    /// importance"). Flagging again in the same second changes nothing. None when the
    /// `retroactive-importance` behaviour is off (nothing is written).
    pub async fn mark_important(&self, reference: &str) -> Result<Option<ImportanceCluster>> {
        let reference = reference.to_string();
        self.parts().write(move |tx, engine, life| retro::mark(tx, engine, life, &reference)).await
    }

    /// Every importance event recorded (flags, pins, novelty spikes, repeated access) with
    /// the memories it captured, the latest first.
    pub async fn importance_clusters(&self) -> Result<Vec<ImportanceCluster>> {
        // Waiting accesses first: the one that makes a repeated-access event may be there.
        self.parts().record_accesses().await?;
        self.engine.read(|conn, _| retro::clusters(conn)).await
    }

    /// The strength of the persona memory at `reference` now: live relevance and state,
    /// importance and the captures behind it, recalls lost to near duplicates.
    pub async fn memory_strength(&self, reference: &str) -> Result<MemoryStrength> {
        self.parts().record_accesses().await?;
        let (reference, life) = (reference.to_string(), self.life.clone());
        self.engine.read(move |conn, engine| strength::of(conn, &life, engine.now(), &reference)).await
    }
}
