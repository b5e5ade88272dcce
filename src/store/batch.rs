//! Bulk writes: many memories in one transaction, for imports and agents that write in
//! bursts (issue 26). Each memory is still its own signed, encrypted event, queued for
//! relays as a single write's would be.

use super::MemoryStore;
use crate::error::{Error, Result, Rule, ValidationError};
use crate::lifecycle::batch;
use crate::model::{BatchItem, PersonaInput};

/// The most items one batch call takes. A batch holds the write lock while it inserts
/// (under a millisecond per memory, docs/benchmarks.md "Bulk writes"), so a thousand keep
/// another write (a search's accesses, a sync pass) waiting under a second, while the
/// per-transaction cost a batch saves (about 4 ms there) is already spread thin. Larger
/// inputs are refused ([`Rule::BatchTooLarge`]): split them, as `memstr import --memories`
/// does.
pub const MAX_BATCH: usize = 1_000;

impl MemoryStore {
    /// Writes `items` in one transaction: all of them, or (on any error) none. Each is
    /// its own signed, encrypted event, applied, indexed (full text, episodes, the
    /// embedding queue) and queued for relays exactly as the single call would
    /// ([`MemoryStore::remember_at`], [`MemoryStore::journal_at`],
    /// [`MemoryStore::persona_remember`]), in the batch's order: a later item at the same
    /// address updates an earlier one. Returns the event ids, in the items' order.
    ///
    /// Every item is validated before anything is signed: a bad one fails the call with
    /// [`Error::BatchItem`] (its index, from 0, and the rule it broke). More than
    /// [`MAX_BATCH`] items fail with [`Rule::BatchTooLarge`]. Items without a time take
    /// the time of the call, each a hair after the one before.
    ///
    /// Persona memories are written as [`MemoryStore::persona_remember`] writes them:
    /// without the novelty gate ([`MemoryStore::persona_ingest`] is the gated path, one
    /// memory at a time, since each decision reads the memories before it). The items
    /// count toward automatic consolidation as that many writes; live sync hears of the
    /// batch once.
    pub async fn write_batch(&self, items: Vec<BatchItem>) -> Result<Vec<String>> {
        if items.len() > MAX_BATCH {
            let rule = Rule::BatchTooLarge { max: MAX_BATCH, len: items.len() };
            return Err(ValidationError { field: "batch", rule }.into());
        }
        for (index, item) in items.iter().enumerate() {
            item.validate().map_err(|source| Error::BatchItem { index, source })?;
        }
        if items.is_empty() {
            return Ok(Vec::new());
        }
        if self.engine.evaluate_only() {
            return Err(Error::EvaluateOnly("write a batch".into()));
        }
        // Signing (encryption, a signature per memory) happens here, on a reader: the
        // write lock is then held for the inserts only.
        let life = self.life.clone();
        let prepared = self.engine.read(move |conn, engine| batch::prepare(conn, engine, &life, items)).await?;
        let n = prepared.len() as u64;
        self.parts().write_weighted(move |tx, engine, life| Ok((batch::write(tx, engine, life, prepared)?, n))).await
    }

    /// [`MemoryStore::write_batch`] of flat memories, `(key, value)` at the time of the call.
    pub async fn remember_batch<K, V>(&self, items: impl IntoIterator<Item = (K, V)>) -> Result<Vec<String>>
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.write_batch(items.into_iter().map(|(k, v)| BatchItem::kv(k, v)).collect()).await
    }

    /// [`MemoryStore::write_batch`] of journal entries, in order, at the time of the call.
    pub async fn journal_batch<S: Into<String>>(&self, entries: impl IntoIterator<Item = S>) -> Result<Vec<String>> {
        self.write_batch(entries.into_iter().map(BatchItem::journal).collect()).await
    }

    /// [`MemoryStore::write_batch`] of persona memories (no novelty gate, as
    /// [`MemoryStore::persona_remember`]).
    pub async fn persona_remember_batch(&self, inputs: Vec<PersonaInput>) -> Result<Vec<String>> {
        self.write_batch(inputs.into_iter().map(BatchItem::Persona).collect()).await
    }
}
