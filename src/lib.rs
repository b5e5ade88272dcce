//! memstr: memory an AI agent owns.
//!
//! Memories are NIP-44-encrypted NIP-78 events signed by the agent's own key, kept in a
//! local SQLite store that works with no relay at all, and readable by the published
//! sense-memory client. See `docs/ARCHITECTURE.md` for the map of modules.
//!
//! ```
//! use memstr::{Identity, MemoryStore, PersonaInput, StoreOptions};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> memstr::Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! let store = MemoryStore::open(dir.path().join("agent.db"), Identity::generate(), StoreOptions::default()).await?;
//! store.remember("favorite-editor", "helix").await?;
//! assert_eq!(store.recall("favorite-editor").await?.unwrap().value, "helix");
//!
//! store.persona_remember(PersonaInput::new("people", "facts", "alice-dark-mode", "Alice prefers dark mode")).await?;
//! let hits = store.persona_search("dark mode", 5).await?;
//! assert_eq!(hits[0].memory.key, "alice-dark-mode");
//!
//! store.forget("favorite-editor").await?;
//! assert!(store.recall("favorite-editor").await?.is_none());
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

/// The nostr crate memstr is built on (its `Event`, `Keys`, ... are memstr's).
pub use nostr;

pub mod at_rest;
pub mod clock;
pub mod codec;
pub mod disk;
pub mod display;
mod engine;
mod error;
pub mod identity;
mod ids;
pub mod index;
pub mod lifecycle;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;

pub use codec::{names_plain_path, DTagMode, Embedding, Path as MemoryPath};
pub use error::{Cause, EncryptionProblem, Error, RejectReason, Result, Rule, ValidationError};
pub use identity::Identity;
pub use model::{
    GoalStatus, Insight, InsightKind, IntrospectionReport, JournalEntry, Memory, MemoryState, MemoryType,
    PersonaMemory, Reliability, Status, Tier,
};
pub mod search;
mod store;
#[cfg(feature = "sync")]
pub mod sync;
pub mod text;

pub use clock::{Clock, ManualClock, SystemClock};
#[cfg(feature = "sync")]
pub use engine::books::RelayInfo;
pub use engine::{address_of, ImportReport, Outcome, Resolved, StoreStats, FUTURE_SLACK};
#[cfg(feature = "vectors")]
pub use index::{BackgroundEmbedding, EmbedReport, SEARCH_EMBED_BUDGET};
pub use lifecycle::episodes::{Observation, ObservationInput};
pub use lifecycle::{
    Behaviour, Behaviours, ConsolidationReport, Dissolve, FactVersion, GraphNeighbour, ImportanceCluster, Ingested,
    LifecycleOptions, MemoryStrength, PersonaStats, PruneReport,
};
pub use model::{BatchItem, Episode, Observed, PersonaInput, PersonaQuery};
pub use search::{Found, PersonaHit, SearchHit, SearchQuery};
pub use store::{MemoryStore, StoreOptions, MAX_BATCH, MAX_IMPORT_LINE};
