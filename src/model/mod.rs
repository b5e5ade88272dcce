//! What memstr remembers, and the rules a memory must satisfy.
//!
//! The rules are those of the published sense-memory 0.3.1 client, so that
//! every memory memstr writes is one that client accepts, and the reverse.

pub mod episode;
mod importance;
mod input;
mod insight;
mod introspection;
mod memory;
mod memory_type;
pub mod merge;
mod outcomes;
mod persona;
mod validate;

pub use episode::{Episode, Observed, Outcome, TrajectoryRef};
pub use importance::{
    Capture, ImportanceEvent, ImportanceKind, Strength, CAPTURE_CAP, MAX_CAPTURES, MAX_CLUSTER, MAX_EVENTS,
};
pub use input::{BatchItem, PersonaInput, PersonaQuery};
pub use insight::{Insight, InsightKind};
pub use introspection::IntrospectionReport;
pub use memory::{JournalEntry, Memory};
pub use memory_type::{GoalStatus, MemoryType, Tier};
pub use outcomes::{Reliability, Tally, PRIOR};
pub use persona::{
    FactValue, FsrsState, LifeMeta, MemoryState, PersonaMemory, Removed, Status, SyncMeta, DEFAULT_HALFLIFE_DAYS,
    THRESHOLD_DISSOLVED, THRESHOLD_FADING, THRESHOLD_FORGOTTEN,
};
pub use validate::{
    validate_confidence, validate_halflife, validate_journal_content, validate_key, validate_taxonomy,
    validate_timestamp, validate_value, MAX_CONTENT_LENGTH, MAX_KEY_LENGTH, MAX_TAXONOMY_LENGTH,
};

/// Where a memory or a keyed fact goes when its writer names no domain, in every interface
/// (the MCP tools, `memstr fact`, the library's callers that pass it).
pub const DEFAULT_DOMAIN: &str = "notes";

/// The default persona domains of sense-memory v2 (others are allowed).
pub const DEFAULT_DOMAINS: [&str; 5] = ["self", "people", "projects", "world", "skills"];

/// The default persona facets of sense-memory v2 (others are allowed).
pub const DEFAULT_FACETS: [&str; 5] = ["facts", "beliefs", "decisions", "procedures", "emotions"];

/// `x` rounded to three decimals: scores that differ by less are one rank.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
