//! The report a persona writes when it reviews itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Insight;

/// sense-memory v2's `IntrospectionReport`, in the published client's wire shape
/// (memories named by key; pairs as two-element lists).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IntrospectionReport {
    /// Persona memories reviewed.
    pub total_memories: u64,
    /// How many of them are active.
    pub active: u64,
    /// How many are fading.
    pub fading: u64,
    /// How many are forgotten.
    pub forgotten: u64,
    /// How many are dissolved.
    pub dissolved: u64,
    /// Pairs of keys that contradict each other.
    pub contradictions: Vec<(String, String)>,
    /// Beliefs with low confidence and low relevance.
    pub stale_beliefs: Vec<String>,
    /// Memories with no connections.
    pub orphaned: Vec<String>,
    /// `domain/facet` combinations with too many active memories.
    pub overloaded_facets: Vec<String>,
    /// Pairs of keys that should probably be connected.
    pub suggested_connections: Vec<(String, String)>,
    /// Beliefs that may need updating.
    pub suggested_revisions: Vec<String>,
    /// Domains that could be compressed (design document field; the client omits it).
    pub suggested_compressions: Vec<String>,
    /// How many memories changed state in this cycle.
    pub pruned_count: u64,
    /// When the review ran (float Unix seconds).
    pub timestamp: f64,
    /// Memories per type (memstr's; their own type or their facet's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_type: BTreeMap<String, u64>,
    /// Memories per tier (memstr's; derived from accesses, age, pins, consolidation).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_tier: BTreeMap<String, u64>,
    /// Keys of the goals still open (memstr's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open_goals: Vec<String>,
    /// memstr's addition: the dream insights the last consolidation cycles stored, each
    /// with the memories it rests on (docs/lifecycle.md, "Dream insights"). Left out of
    /// the stored report, which keeps the published client's shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub insights: Vec<Insight>,
}
