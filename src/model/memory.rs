//! Version-1 memories: flat key-value pairs and the journal.

use serde::{Deserialize, Serialize};

use super::episode::{Episode, Observed, TrajectoryRef};

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
    /// The episode this memory records, when it is an episode's record
    /// (`memstr-episode:{id}`). In the payload's `"memstr"` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode: Option<Episode>,
    /// The trajectory this memory summarises (`memstr-trajectory:{id}:{n}`). In the
    /// payload's `"memstr"` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_of: Option<TrajectoryRef>,
}

impl Memory {
    /// A flat memory with no archive mark and nothing of memstr's.
    pub fn new(key: &str, value: &str, created_at: f64) -> Self {
        Memory {
            key: key.to_string(),
            value: value.to_string(),
            created_at,
            archived_at: None,
            episode: None,
            summary_of: None,
        }
    }
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
    /// The episode and trajectory it was observed in, and the action and outcome it
    /// reports. In the payload's `"memstr"` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observed>,
    /// The context it was written in (an episode, a project, a tool: seed 001's encoding
    /// specificity). In the payload's `"memstr"` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl JournalEntry {
    /// An entry with no archive mark and nothing of memstr's.
    pub fn new(content: &str, created_at: f64) -> Self {
        JournalEntry { content: content.to_string(), created_at, archived_at: None, observed: None, context: None }
    }
}
