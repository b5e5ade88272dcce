//! How memory behaves over time: decay policies, the knowledge graph, novelty gating,
//! introspection, compression and consolidation. See docs/lifecycle.md.

pub mod graph;
