//! How memory behaves over time: decay policies, the knowledge graph, novelty gating,
//! introspection, compression and consolidation. See docs/lifecycle.md.
//!
//! The modules here are pure: they take memories and return decisions or text, and the
//! store applies them.

pub mod compress;
pub mod decay;
pub mod gate;
pub mod graph;
pub mod introspect;

pub use decay::{policy_by_name, DecayPolicy, Fsrs6, Halflife, Rating, FSRS6_DEFAULT_PARAMS, SUPERSEDED_SPEEDUP};
