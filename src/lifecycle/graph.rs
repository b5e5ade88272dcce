//! The knowledge graph: memories linked by typed, decaying edges, and spreading activation
//! over them (seeds 000, 001, 003, 004).
//!
//! The graph is pure and in memory. The store builds it from its records with
//! [`KnowledgeGraph::build`] whenever it needs one (or caches it); only the edges that
//! consolidation discovers ([`EdgeKind::Semantic`], [`EdgeKind::CoActivated`]) are persisted,
//! as [`StoredEdge`]s, and handed back in `extra`. Everything else is derived from the
//! records each time, so the graph can never disagree with them.
//!
//! # Nodes
//!
//! - [`NodeKind::Memory`]: one per record, identified by its path (its plain d tag, e.g.
//!   `sense-memory/persona/people/facts/alice`). A repeated path keeps its first node.
//! - [`NodeKind::Episode`] and [`NodeKind::Trajectory`]: `episode:{id}` and
//!   `trajectory:{id}:{n}`, from the episodes' records and observations
//!   (`graph/episodes.rs`): episode → trajectory → observation and the episode's record →
//!   episode by [`EdgeKind::PartOf`]; consecutive trajectories, and consecutive observations
//!   of one episode whatever their gap, by [`EdgeKind::Temporal`].
//! - [`NodeKind::Theme`] and [`NodeKind::Intent`]: routing nodes (seed 004). They carry no
//!   knowledge; they join the memories that share a theme or a goal, and spreading
//!   activation passes through them. They are named `theme:{name}` and `intent:{name}`,
//!   where the name is [`normalise_label`]'s form.
//!
//! # Edges
//!
//! Every edge has a raw weight (1 unless said otherwise) and a creation time. For derived
//! edges the creation time is the later of its two memories' times ([`MemoryNode::ts`]);
//! for an edge to a routing node, its memory's time.
//!
//! - [`EdgeKind::Connection`]: from each key in `connections`, to every persona memory with
//!   that key (a `domain/facet/key` address picks the one memory). Symmetric: `A` listing
//!   `B` and `B` listing `A` give one edge.
//! - [`EdgeKind::Contradicts`]: from each key in `contradicts`, resolved the same way; one
//!   edge per pair.
//! - [`EdgeKind::Supersedes`]: old → new, from the old memory's `superseded_by`.
//! - [`EdgeKind::Temporal`]: journal entries in time order, each → the next, when the gap is
//!   at most [`GraphParams::temporal_window_secs`]; raw weight
//!   `0.5^(gap / temporal_gap_halflife_secs)`, so entries written minutes apart are tied
//!   more tightly than entries hours apart.
//! - [`EdgeKind::SharedTheme`]: memory ↔ `theme:{t}` for each of its themes. Two memories
//!   sharing two themes are joined by two routes, and so receive more activation.
//! - [`EdgeKind::SharedIntent`]: memory ↔ `intent:{i}` for its [`MemoryNode::intent`]. Seed
//!   004 groups procedural knowledge by goal; [`MemoryNode::persona`] gives a memory in the
//!   `procedures` facet the intent of its first theme, or of its domain when it has none.
//! - [`EdgeKind::Semantic`], [`EdgeKind::CoActivated`]: only from `extra`; the raw weight is
//!   the stored one (a similarity, or a co-activation strength in 0..=2).
//!
//! # Confidence
//!
//! An edge's weight at time `now` decays with age as in seed 000:
//!
//! ```text
//! weight(now) = clamp01(raw × base(kind) × e^(−age_days × ln 2 / halflife_days(kind)))
//! age_days    = max(0, now − created_at) / 86400
//! ```
//!
//! so it halves every `halflife_days`; a halflife that is not a positive finite number
//! means no decay. The clamp keeps every weight in `[0, 1]`, which bounds activation below.
//!
//! # Spreading activation
//!
//! Collins & Loftus (seed 001) as a breadth-first walk, in [`KnowledgeGraph::spread`].
//! Seeds start with their given activation. At each of [`GraphParams::hops`] hops (default
//! 2) every memory reached at the previous hop, holding activation `a`, sends along each of
//! its [`GraphParams::max_fanout`] strongest edges (default 32):
//!
//! ```text
//! to a memory v, directly:           a × hop_decay × w(u,v)
//! to a memory v, via routing node R: a × hop_decay × w(u,R) × w(R,v) / sqrt(max(1, deg(R) − 1))
//! ```
//!
//! A routing node is passed through within the hop (it does not count as one, and does not
//! appear in the result); it too forwards to its `max_fanout` strongest members only, and
//! the square root of its other members divides what it forwards, so a theme shared by 500
//! memories neither floods the result nor outweighs a theme shared by two. `hop_decay`
//! defaults to 0.5.
//!
//! Activation flows outward only: a memory reached at one hop takes no activation from
//! later hops (no echoes back to the seeds). Several routes into a memory at the same hop
//! combine as a noisy-OR scaled by the largest seed activation `M`:
//!
//! ```text
//! a(v) = M × (1 − Π_routes (1 − c_route / M))
//! ```
//!
//! which grows with every extra route yet never exceeds `M`. A memory whose combined
//! activation is below [`GraphParams::min_activation`] (default 0.01) is dropped and spreads
//! no further. The result maps memory paths to activation, seeds included (with their own
//! activation), every value in `[0, M]`.
//!
//! # Consolidation
//!
//! [`strengthen`], [`upsert`] and [`decay_and_prune`] maintain the persisted edge list the
//! way Vestige's dream cycle maintains its connection graph (seed 001); see their docs.

mod build;
mod consolidate;
mod episodes;
mod spread;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use serde::{Deserialize, Serialize};

pub use consolidate::{
    decay_and_prune, strengthen, strengthen_many, upsert, upsert_many, CYCLE_DECAY, MAX_STRENGTH, PRUNE_BELOW,
};

use crate::codec::RecordKind;
use crate::model::PersonaMemory;
use crate::text::{tokenize, STOP_WORDS};

const SECONDS_PER_DAY: f64 = 86_400.0;

/// Prefix of a theme node's id.
pub const THEME_PREFIX: &str = "theme:";
/// Prefix of an intent node's id.
pub const INTENT_PREFIX: &str = "intent:";
/// The facet whose memories get an intent node (seed 003's "how to do things").
pub const PROCEDURES_FACET: &str = "procedures";

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum NodeKind {
    /// A record: persona memory, flat memory or journal entry.
    Memory,
    /// A routing node joining the memories that share a theme.
    Theme,
    /// A routing node joining procedures that serve one goal.
    Intent,
    /// An episode (`episode:{id}`): its record and its trajectories hang from it.
    Episode,
    /// A trajectory within an episode (`trajectory:{id}:{n}`): its observations hang from it.
    Trajectory,
}

/// The type of an edge. See the module documentation for where each comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EdgeKind {
    /// An explicit link (`connections`).
    Connection,
    /// One memory contradicts the other (`contradicts`).
    Contradicts,
    /// Old → new (`superseded_by`).
    Supersedes,
    /// A journal entry → the next one.
    Temporal,
    /// Memory ↔ theme node.
    SharedTheme,
    /// Memory ↔ intent node.
    SharedIntent,
    /// Similar content, found by consolidation.
    Semantic,
    /// Retrieved together, found by consolidation.
    CoActivated,
    /// Episode → trajectory → observation; an episode's record → its episode.
    PartOf,
}

impl EdgeKind {
    /// Every kind.
    pub const ALL: [EdgeKind; 9] = [
        EdgeKind::Connection,
        EdgeKind::Contradicts,
        EdgeKind::Supersedes,
        EdgeKind::Temporal,
        EdgeKind::SharedTheme,
        EdgeKind::SharedIntent,
        EdgeKind::Semantic,
        EdgeKind::CoActivated,
        EdgeKind::PartOf,
    ];

    /// The stored name (`"connection"`, `"co_activated"`, ...), as serde spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Connection => "connection",
            EdgeKind::Contradicts => "contradicts",
            EdgeKind::Supersedes => "supersedes",
            EdgeKind::Temporal => "temporal",
            EdgeKind::SharedTheme => "shared_theme",
            EdgeKind::SharedIntent => "shared_intent",
            EdgeKind::Semantic => "semantic",
            EdgeKind::CoActivated => "co_activated",
            EdgeKind::PartOf => "part_of",
        }
    }

    /// Whether the direction means something (old → new, earlier → later). The others are
    /// symmetric, so one edge stands for both directions of a pair. Activation spreads both
    /// ways along every edge regardless.
    pub fn is_directed(self) -> bool {
        matches!(self, EdgeKind::Supersedes | EdgeKind::Temporal | EdgeKind::PartOf)
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an [`EdgeKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEdgeKind(pub String);

impl fmt::Display for UnknownEdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown edge kind {:?}", self.0)
    }
}

impl std::error::Error for UnknownEdgeKind {}

impl FromStr for EdgeKind {
    type Err = UnknownEdgeKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| UnknownEdgeKind(s.to_string()))
    }
}

/// How much one kind of edge counts, and how fast that fades.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeParams {
    /// Multiplies the raw weight.
    pub base: f64,
    /// Days for the weight to halve; not a positive finite number: no decay.
    pub halflife_days: f64,
}

impl EdgeParams {
    /// `clamp01(raw × base × e^(−age_days × ln 2 / halflife_days))`.
    pub fn weight(&self, raw: f64, age_days: f64) -> f64 {
        let decay = if self.halflife_days > 0.0 && self.halflife_days.is_finite() {
            (-age_days.max(0.0) * std::f64::consts::LN_2 / self.halflife_days).exp()
        } else {
            1.0
        };
        clamp01(raw * self.base * decay)
    }
}

/// Edge weights and spreading-activation settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphParams {
    /// Explicit links are deliberate: full weight, slow fading. Default 1.0, 180 days.
    pub connection: EdgeParams,
    /// A contradiction is worth surfacing, less than a link. Default 0.6, 180 days.
    pub contradicts: EdgeParams,
    /// The replacement of a belief stays its replacement. Default 0.9, 365 days.
    pub supersedes: EdgeParams,
    /// Adjacent journal entries matter while the episode is recent. Default 0.5, 30 days.
    pub temporal: EdgeParams,
    /// Memory ↔ theme; a route through a theme multiplies two of these. Default 0.8, 90 days.
    pub shared_theme: EdgeParams,
    /// Memory ↔ intent, likewise. Default 0.8, 90 days.
    pub shared_intent: EdgeParams,
    /// Times a stored similarity in 0..=1. Default 0.7, 60 days.
    pub semantic: EdgeParams,
    /// Times a stored strength in 0..=2, so the strongest reach 1. Default 0.5, 30 days.
    pub co_activated: EdgeParams,
    /// Episode → trajectory → observation: they belong together while the work is recent.
    /// Default 0.8, 90 days.
    pub part_of: EdgeParams,
    /// Consecutive journal entries further apart than this are not linked. Default 1 day.
    pub temporal_window_secs: f64,
    /// The gap over which a temporal edge's raw weight halves. Default 6 hours.
    pub temporal_gap_halflife_secs: f64,
    /// Memory-to-memory hops activation spreads. Default 2.
    pub hops: usize,
    /// Multiplies activation at each hop (clamped to `[0, 1]`). Default 0.5.
    pub hop_decay: f64,
    /// Activation below this is dropped and spreads no further. Default 0.01.
    pub min_activation: f64,
    /// Strongest edges followed out of any one node. Default 32.
    pub max_fanout: usize,
}

impl Default for GraphParams {
    fn default() -> Self {
        let p = |base, halflife_days| EdgeParams { base, halflife_days };
        GraphParams {
            connection: p(1.0, 180.0),
            contradicts: p(0.6, 180.0),
            supersedes: p(0.9, 365.0),
            temporal: p(0.5, 30.0),
            shared_theme: p(0.8, 90.0),
            shared_intent: p(0.8, 90.0),
            semantic: p(0.7, 60.0),
            co_activated: p(0.5, 30.0),
            part_of: p(0.8, 90.0),
            temporal_window_secs: SECONDS_PER_DAY,
            temporal_gap_halflife_secs: 6.0 * 3600.0,
            hops: 2,
            hop_decay: 0.5,
            min_activation: 0.01,
            max_fanout: 32,
        }
    }
}

impl GraphParams {
    /// The settings of one edge kind.
    pub fn edge(&self, kind: EdgeKind) -> EdgeParams {
        match kind {
            EdgeKind::Connection => self.connection,
            EdgeKind::Contradicts => self.contradicts,
            EdgeKind::Supersedes => self.supersedes,
            EdgeKind::Temporal => self.temporal,
            EdgeKind::SharedTheme => self.shared_theme,
            EdgeKind::SharedIntent => self.shared_intent,
            EdgeKind::Semantic => self.semantic,
            EdgeKind::CoActivated => self.co_activated,
            EdgeKind::PartOf => self.part_of,
        }
    }
}

/// What the graph needs to know of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryNode {
    /// Unique id: the record's plain d tag (or a kind-4 note's event id).
    pub path: String,
    /// The key that `connections`, `contradicts` and `superseded_by` name (persona memories).
    pub key: String,
    /// Persona, flat (`Kv`) or journal.
    pub kind: RecordKind,
    /// Float Unix seconds: orders journal entries and dates the edges derived from this node.
    pub ts: f64,
    /// Theme names as written; [`normalise_label`] is applied when building.
    pub themes: Vec<String>,
    /// Keys (or `domain/facet/key` addresses) of linked memories.
    pub connections: Vec<String>,
    /// Keys (or addresses) of contradicted memories.
    pub contradicts: Vec<String>,
    /// Key (or address) of the memory replacing this one.
    pub superseded_by: Option<String>,
    /// The goal this memory serves, if any.
    pub intent: Option<String>,
    /// The episode an observation belongs to and its trajectory; an episode's record has
    /// its episode and no trajectory.
    pub episode: Option<(String, Option<u32>)>,
}

impl MemoryNode {
    /// A persona memory. `ts` is when it was last written or linked (`last_reinforced`, or
    /// `created_at` if later), the best date the record keeps for its links. A memory in the
    /// `procedures` facet gets the intent of its first usable theme, else of its domain.
    pub fn persona(path: impl Into<String>, m: &PersonaMemory) -> Self {
        let intent = (m.facet == PROCEDURES_FACET).then(|| {
            m.themes.iter().find(|t| normalise_label(t).is_some()).cloned().unwrap_or_else(|| m.domain.clone())
        });
        MemoryNode {
            path: path.into(),
            key: m.key.clone(),
            kind: RecordKind::Persona,
            ts: m.last_reinforced.max(m.created_at),
            themes: m.themes.clone(),
            connections: m.connections.clone(),
            contradicts: m.contradicts.clone(),
            superseded_by: m.superseded_by.clone().filter(|s| !s.is_empty()),
            intent,
            episode: None,
        }
    }

    /// A flat (v1 key-value) memory.
    pub fn flat(path: impl Into<String>, key: impl Into<String>, ts: f64) -> Self {
        MemoryNode::bare(path.into(), key.into(), RecordKind::Kv, ts)
    }

    /// A journal entry.
    pub fn journal(path: impl Into<String>, ts: f64) -> Self {
        MemoryNode::bare(path.into(), String::new(), RecordKind::Journal, ts)
    }

    fn bare(path: String, key: String, kind: RecordKind, ts: f64) -> Self {
        MemoryNode {
            path,
            key,
            kind,
            ts,
            themes: Vec::new(),
            connections: Vec::new(),
            contradicts: Vec::new(),
            superseded_by: None,
            intent: None,
            episode: None,
        }
    }
}

/// An edge the store persists: one found by consolidation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEdge {
    /// Path of one memory.
    pub a: String,
    /// Path of the other.
    pub b: String,
    /// Usually [`EdgeKind::Semantic`] or [`EdgeKind::CoActivated`].
    pub kind: EdgeKind,
    /// Raw weight: a similarity, or a co-activation strength in 0..=[`MAX_STRENGTH`].
    pub weight: f64,
    /// Float Unix seconds; the edge's age is measured from here.
    pub created_at: f64,
}

/// One edge seen from a node, as [`KnowledgeGraph::neighbours`] lists them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Neighbour {
    /// A memory's path, or a routing node's `theme:{name}` / `intent:{name}`.
    pub id: String,
    /// What the neighbour is.
    pub node_kind: NodeKind,
    /// The edge's kind.
    pub edge: EdgeKind,
    /// The edge's weight at `now`.
    pub weight: f64,
    /// Whether the edge points from the asked node to this one (for directed kinds: this
    /// one supersedes it, or follows it in the journal).
    pub outgoing: bool,
}

/// One edge, as [`KnowledgeGraph::edges`] yields them.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeView<'g> {
    /// The id of the node the edge starts from.
    pub a: &'g str,
    /// The id of the node it points to.
    pub b: &'g str,
    /// The edge's kind.
    pub kind: EdgeKind,
    /// The weight at `now`.
    pub weight: f64,
    /// The raw weight, before base and decay.
    pub raw: f64,
    /// When the edge's age starts.
    pub created_at: f64,
}

impl EdgeView<'_> {
    /// The edge as the store persists it.
    pub fn to_stored(&self) -> StoredEdge {
        StoredEdge {
            a: self.a.to_string(),
            b: self.b.to_string(),
            kind: self.kind,
            weight: self.raw,
            created_at: self.created_at,
        }
    }
}

#[derive(Debug, Clone)]
struct NodeData {
    kind: NodeKind,
    id: String,
}

#[derive(Debug, Clone)]
struct EdgeData {
    kind: EdgeKind,
    raw: f64,
    created_at: f64,
}

/// Memories, routing nodes and typed edges, built from the store's records.
#[derive(Debug, Clone)]
pub struct KnowledgeGraph {
    // Nothing is ever removed (the graph is rebuilt instead), so the plain Graph's
    // dense indices suffice.
    graph: DiGraph<NodeData, EdgeData>,
    memories: HashMap<String, NodeIndex>,
    routing: HashMap<String, NodeIndex>,
    params: GraphParams,
}

/// The canonical form of a theme or intent name: [`tokenize`]'s words joined by single
/// spaces, so `" Dark-Mode "` and `"dark mode"` are one theme. None for a name with no
/// words but stop words, which would join unrelated memories.
pub fn normalise_label(name: &str) -> Option<String> {
    let words = tokenize(name);
    if words.iter().all(|w| STOP_WORDS.contains(&w.as_str())) {
        return None;
    }
    Some(words.join(" "))
}

fn clamp01(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl KnowledgeGraph {
    fn lookup(&self, id: &str) -> Option<NodeIndex> {
        self.memories.get(id).or_else(|| self.routing.get(id)).copied()
    }

    fn edge_weight(&self, e: &EdgeData, now: f64) -> f64 {
        self.params.edge(e.kind).weight(e.raw, (now - e.created_at) / SECONDS_PER_DAY)
    }

    /// The nodes joined to `id` (a memory path, or `theme:{name}` / `intent:{name}`) by one
    /// edge, routing nodes included, strongest first (ties by id, then kind). Empty for an
    /// unknown id.
    pub fn neighbours(&self, id: &str, now: f64) -> Vec<Neighbour> {
        let Some(ix) = self.lookup(id) else {
            return Vec::new();
        };
        let mut out: Vec<Neighbour> = [Direction::Outgoing, Direction::Incoming]
            .into_iter()
            .flat_map(|dir| self.graph.edges_directed(ix, dir).map(move |e| (dir, e)))
            .map(|(dir, e)| {
                let other = if dir == Direction::Outgoing { e.target() } else { e.source() };
                let node = &self.graph[other];
                Neighbour {
                    id: node.id.clone(),
                    node_kind: node.kind,
                    edge: e.weight().kind,
                    weight: self.edge_weight(e.weight(), now),
                    outgoing: dir == Direction::Outgoing,
                }
            })
            .collect();
        out.sort_by(|x, y| {
            y.weight.total_cmp(&x.weight).then_with(|| x.id.cmp(&y.id)).then_with(|| x.edge.cmp(&y.edge))
        });
        out
    }

    /// The weight at `now` of the `kind` edge between `a` and `b` (either direction), if
    /// there is one. Ids as in [`KnowledgeGraph::neighbours`].
    pub fn weight(&self, a: &str, b: &str, kind: EdgeKind, now: f64) -> Option<f64> {
        let (a, b) = (self.lookup(a)?, self.lookup(b)?);
        self.graph
            .edges_connecting(a, b)
            .chain(self.graph.edges_connecting(b, a))
            .find(|e| e.weight().kind == kind)
            .map(|e| self.edge_weight(e.weight(), now))
    }

    /// Every edge with its weight at `now`, in insertion order: for persistence and the CLI.
    pub fn edges(&self, now: f64) -> impl Iterator<Item = EdgeView<'_>> + '_ {
        self.graph.edge_references().map(move |e| EdgeView {
            a: &self.graph[e.source()].id,
            b: &self.graph[e.target()].id,
            kind: e.weight().kind,
            weight: self.edge_weight(e.weight(), now),
            raw: e.weight().raw,
            created_at: e.weight().created_at,
        })
    }

    /// Nodes, routing nodes included.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Memory nodes only.
    pub fn memory_count(&self) -> usize {
        self.memories.len()
    }

    /// Edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Whether `id` (a memory path or routing id) is a node.
    pub fn contains(&self, id: &str) -> bool {
        self.lookup(id).is_some()
    }

    /// The parameters the graph was built with.
    pub fn params(&self) -> &GraphParams {
        &self.params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const DAY: f64 = SECONDS_PER_DAY;
    pub(super) const T0: f64 = 1_700_000_000.0;

    pub(super) fn path(key: &str) -> String {
        format!("sense-memory/persona/people/facts/{key}")
    }

    /// A persona node at T0 with the given themes and connections.
    pub(super) fn mem(key: &str, themes: &[&str], connections: &[&str]) -> MemoryNode {
        let mut m = PersonaMemory::new("people", "facts", key, "v", T0);
        m.themes = themes.iter().map(|s| s.to_string()).collect();
        m.connections = connections.iter().map(|s| s.to_string()).collect();
        MemoryNode::persona(path(key), &m)
    }

    pub(super) fn graph(nodes: &[MemoryNode]) -> KnowledgeGraph {
        KnowledgeGraph::build(nodes, &[], &GraphParams::default())
    }

    #[test]
    fn confidence_halves_after_one_halflife() {
        let g = graph(&[mem("a", &["x"], &["b"]), mem("b", &[], &[])]);
        let p = GraphParams::default();
        for (other, kind, halflife) in [
            (path("b"), EdgeKind::Connection, p.connection.halflife_days),
            ("theme:x".into(), EdgeKind::SharedTheme, 90.0),
        ] {
            let w0 = g.weight(&path("a"), &other, kind, T0).unwrap();
            let w1 = g.weight(&path("a"), &other, kind, T0 + halflife * DAY).unwrap();
            assert!((w1 - w0 / 2.0).abs() < 1e-12, "{kind}: {w0} → {w1}");
        }
        // Clock skew: an edge from the future is not stronger than new.
        assert_eq!(g.weight(&path("a"), &path("b"), EdgeKind::Connection, T0 - DAY), Some(1.0));
    }

    #[test]
    fn neighbours_are_sorted_and_typed() {
        let mut a = mem("a", &["tea"], &["b", "c"]);
        a.contradicts = vec!["d".into()];
        let nodes = [a, mem("b", &[], &[]), mem("c", &[], &[]), mem("d", &[], &[])];
        let n = graph(&nodes).neighbours(&path("a"), T0);
        let got: Vec<_> = n.iter().map(|n| (n.id.as_str(), n.node_kind, n.edge, n.weight)).collect();
        assert_eq!(
            got,
            [
                (path("b").as_str(), NodeKind::Memory, EdgeKind::Connection, 1.0),
                (path("c").as_str(), NodeKind::Memory, EdgeKind::Connection, 1.0),
                ("theme:tea", NodeKind::Theme, EdgeKind::SharedTheme, 0.8),
                (path("d").as_str(), NodeKind::Memory, EdgeKind::Contradicts, 0.6),
            ]
        );
        assert!(graph(&nodes).neighbours("nope", T0).is_empty());
    }

    #[test]
    fn edge_kind_names_round_trip() {
        for k in EdgeKind::ALL {
            assert_eq!(k.as_str().parse::<EdgeKind>(), Ok(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.as_str()));
        }
        assert!("hyperlink".parse::<EdgeKind>().is_err());
    }
}
