//! Version-1 memories: flat key-value pairs and the journal.

use serde::{Deserialize, Serialize};

/// A flat key-value memory (`sense-memory/{key}`). Writing a key again replaces it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// The key: the memory's address is `sense-memory/{key}`.
    pub key: String,
    /// The remembered text.
    pub value: String,
    /// When it was written, in float Unix seconds (the payload's `ts`).
    pub created_at: f64,
    /// When it was archived: out of search and context, kept everywhere, back with
    /// `restore` (docs/lifecycle.md). Travels in the payload's `"memstr"` object, which the
    /// published client ignores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<f64>,
}

/// An append-only journal entry (`sense-journal/{ts}`, or a kind-4 note to self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The entry's text.
    pub content: String,
    /// When it was written, in float Unix seconds.
    pub created_at: f64,
    /// When it was archived (see [`Memory::archived_at`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<f64>,
}
