//! Lifecycle settings: novelty gating, the graph, consolidation, dissolution and the
//! signing of accesses. See docs/lifecycle.md.

/// What the lifecycle does with a memory that stayed dissolved (docs/lifecycle.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dissolve {
    /// Archive it: out of search and context, kept locally and on relays, back with
    /// `restore` or a strong cue in search (PMB's soft delete, seed 002). The default.
    #[default]
    Archive,
    /// Delete it everywhere, as `forget` does (sense-memory's policy, seed 003).
    Delete,
}

impl std::str::FromStr for Dissolve {
    type Err = crate::ValidationError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "archive" => Ok(Dissolve::Archive),
            "delete" => Ok(Dissolve::Delete),
            other => {
                Err(crate::ValidationError { field: "dissolve", rule: crate::Rule::UnknownPolicy(other.to_string()) })
            }
        }
    }
}

/// Default of [`LifecycleOptions::link_max_per_memory`]: half the graph's fan-out (the 32
/// strongest edges spreading activation follows out of a node), which leaves room for a
/// memory's connections, themes and co-activations.
pub const LINK_MAX_PER_MEMORY: usize = 16;

/// Lifecycle settings: novelty gating, the graph, consolidation. See docs/lifecycle.md.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LifecycleOptions {
    /// Thresholds of [`crate::MemoryStore::persona_ingest`], on embedding cosine (seed 001's).
    pub gate: super::gate::GateOptions,
    /// The same without a model, on word overlap
    /// ([`super::gate::lexical_similarity`]), which runs lower for the same
    /// relation: "Actually, Alice no longer drinks coffee" and "Alice drinks coffee every
    /// morning" overlap 0.6.
    pub gate_lexical: super::gate::GateOptions,
    /// Edge weights, halflives and spreading activation.
    pub graph: super::graph::GraphParams,
    /// Consolidate after this many writes (0: never automatically).
    pub consolidate_every: u64,
    /// Consolidate when no write came for this long and something was written since the
    /// last cycle (None: never). Needs a Tokio runtime when the store is opened.
    pub consolidate_idle: Option<std::time::Duration>,
    /// Cosine at or above which consolidation links two persona memories (semantic edge).
    pub link_similarity: f64,
    /// Semantic links one consolidation cycle learns per persona memory, at most: its most
    /// similar. Bounds the cycle's links (and its time) whatever the memories say: in a
    /// store of near-identical memories every pair passes `link_similarity`.
    pub link_max_per_memory: usize,
    /// Journal entries whose words overlap this much ([`super::gate::lexical_similarity`])
    /// form a recurring pattern ...
    pub recur_similarity: f64,
    /// ... once there are this many; consolidation then promotes it to a persona fact.
    pub recur_min: usize,
    /// Days a memory stays dissolved before [`crate::MemoryStore::persona_prune`] archives it (or
    /// deletes it, with [`Dissolve::Delete`]).
    pub dissolve_after_days: f64,
    /// What happens to a memory dissolved for `dissolve_after_days`: archived (default,
    /// reversible) or deleted everywhere (seed 003's policy).
    pub dissolve: Dissolve,
    /// Accesses (reads, search hits) are signed in batches: when the oldest unsigned one
    /// is this old ...
    pub access_flush_after: std::time::Duration,
    /// ... or this many memories hold unsigned accesses. Until then they are local: a
    /// relay does not learn which memories answered which command (docs/wire-format.md).
    pub access_flush_count: u64,
    /// Which of the seeds' switchable behaviours are on (docs/lifecycle.md, "Switches").
    pub behaviours: super::Behaviours,
}

impl Default for LifecycleOptions {
    fn default() -> Self {
        LifecycleOptions {
            gate: Default::default(),
            gate_lexical: super::gate::GateOptions {
                reinforce: 0.9,
                update: 0.7,
                supersede_low: 0.5,
                correct_low: 0.25,
            },
            graph: Default::default(),
            consolidate_every: 50,
            consolidate_idle: Some(std::time::Duration::from_secs(600)),
            link_similarity: 0.8,
            link_max_per_memory: LINK_MAX_PER_MEMORY,
            recur_similarity: 0.6,
            recur_min: 3,
            dissolve_after_days: 30.0,
            dissolve: Dissolve::default(),
            access_flush_after: std::time::Duration::from_secs(3600),
            access_flush_count: 100,
            behaviours: Default::default(),
        }
    }
}
