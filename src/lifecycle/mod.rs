//! How memory behaves over time: decay policies, the knowledge graph, novelty gating,
//! introspection, compression and consolidation. See docs/lifecycle.md.

pub mod decay;
pub mod graph;

pub use decay::{policy_by_name, DecayPolicy, Fsrs6, Halflife, Rating, FSRS6_DEFAULT_PARAMS, SUPERSEDED_SPEEDUP};
