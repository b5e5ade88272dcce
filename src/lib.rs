//! memstr: memory an AI agent owns.
//!
//! Memories are NIP-44-encrypted NIP-78 events signed by the agent's own key, kept in a
//! local SQLite store that works with no relay at all, and readable by the published
//! sense-memory client. See `docs/ARCHITECTURE.md` for the map of modules.

/// The nostr crate memstr is built on (its `Event`, `Keys`, ... are memstr's).
pub use nostr;

pub mod codec;
mod error;
pub mod identity;
pub mod model;

pub use codec::{DTagMode, Embedding, Path as MemoryPath};
pub use error::{Error, RejectReason, Result, Rule, ValidationError};
pub use identity::Identity;
pub use model::{IntrospectionReport, JournalEntry, Memory, MemoryState, PersonaMemory};
pub mod search;
mod store;

pub use search::PersonaHit;
pub use store::{
    Clock, ImportReport, ManualClock, MemoryStore, Outcome, PersonaInput, PersonaQuery, PersonaStats, StoreOptions,
    StoreStats, SystemClock,
};
