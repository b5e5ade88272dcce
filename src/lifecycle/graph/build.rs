//! Building the graph from records: the edge rules of the parent module's documentation.

use std::collections::HashMap;

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};

use super::{
    normalise_label, EdgeData, EdgeKind, GraphParams, KnowledgeGraph, MemoryNode, NodeData, NodeKind, StoredEdge,
    INTENT_PREFIX, THEME_PREFIX,
};
use crate::codec::RecordKind;

impl KnowledgeGraph {
    /// Builds the graph from the records and the persisted edges, by the rules of the
    /// module documentation. Stored edges naming an unknown path (a deleted memory) are
    /// skipped; repeated edges of one kind between one pair keep the stronger raw weight
    /// and the later time.
    pub fn build(nodes: &[MemoryNode], extra: &[StoredEdge], params: &GraphParams) -> Self {
        let mut g = KnowledgeGraph {
            graph: DiGraph::new(),
            memories: HashMap::new(),
            routing: HashMap::new(),
            params: params.clone(),
        };
        // Nodes that made it in, so a repeated path's second record adds no edges either.
        let mut kept: Vec<(NodeIndex, &MemoryNode)> = Vec::new();
        for n in nodes {
            if g.memories.contains_key(&n.path) {
                continue;
            }
            let ix = g.graph.add_node(NodeData { kind: NodeKind::Memory, id: n.path.clone() });
            g.memories.insert(n.path.clone(), ix);
            kept.push((ix, n));
        }
        let mut by_key: HashMap<&str, Vec<NodeIndex>> = HashMap::new();
        for &(ix, n) in &kept {
            if n.kind == RecordKind::Persona {
                by_key.entry(n.key.as_str()).or_default().push(ix);
            }
        }
        // Memory nodes are added first, so a memory's index is its position in `kept`.
        let ts = |ix: NodeIndex| kept[ix.index()].1.ts;
        let mut seen: HashMap<(NodeIndex, NodeIndex, EdgeKind), EdgeIndex> = HashMap::new();
        let resolve = |reference: &str| -> Vec<NodeIndex> {
            // `domain/facet/key`: the one memory at that address; a bare key: all with it.
            let key = reference.rsplit('/').next().unwrap_or(reference);
            let suffix = format!("/{reference}");
            let all = by_key.get(key).map(Vec::as_slice).unwrap_or_default();
            all.iter().copied().filter(|&ix| !reference.contains('/') || g.graph[ix].id.ends_with(&suffix)).collect()
        };
        let mut derived: Vec<(NodeIndex, NodeIndex, EdgeKind)> = Vec::new();
        for &(ix, n) in &kept {
            for (refs, kind) in [(&n.connections, EdgeKind::Connection), (&n.contradicts, EdgeKind::Contradicts)] {
                for r in refs {
                    derived.extend(resolve(r).into_iter().map(|other| (ix, other, kind)));
                }
            }
            if let Some(r) = &n.superseded_by {
                derived.extend(resolve(r).into_iter().map(|new| (ix, new, EdgeKind::Supersedes)));
            }
        }
        for (a, b, kind) in derived {
            let at = ts(a).max(ts(b));
            g.link(&mut seen, a, b, kind, 1.0, at);
        }
        for &(ix, n) in &kept {
            for theme in n.themes.iter().filter_map(|t| normalise_label(t)) {
                let r = g.routing_node(NodeKind::Theme, &theme);
                g.link(&mut seen, ix, r, EdgeKind::SharedTheme, 1.0, n.ts);
            }
            if let Some(intent) = n.intent.as_deref().and_then(normalise_label) {
                let r = g.routing_node(NodeKind::Intent, &intent);
                g.link(&mut seen, ix, r, EdgeKind::SharedIntent, 1.0, n.ts);
            }
        }
        let mut journal: Vec<&(NodeIndex, &MemoryNode)> =
            kept.iter().filter(|(_, n)| n.kind == RecordKind::Journal && n.ts.is_finite()).collect();
        journal.sort_by(|(_, x), (_, y)| x.ts.total_cmp(&y.ts).then_with(|| x.path.cmp(&y.path)));
        for pair in journal.windows(2) {
            let ((a, na), (b, nb)) = (pair[0], pair[1]);
            let gap = nb.ts - na.ts;
            if gap <= params.temporal_window_secs {
                let raw = 0.5f64.powf(gap / params.temporal_gap_halflife_secs);
                g.link(&mut seen, *a, *b, EdgeKind::Temporal, raw, nb.ts);
            }
        }
        g.link_episodes(&mut seen, &kept);
        for e in extra {
            let (Some(&a), Some(&b)) = (g.memories.get(&e.a), g.memories.get(&e.b)) else {
                continue;
            };
            if e.weight.is_finite() {
                g.link(&mut seen, a, b, e.kind, e.weight.max(0.0), e.created_at);
            }
        }
        g
    }

    pub(super) fn routing_node(&mut self, kind: NodeKind, name: &str) -> NodeIndex {
        let prefix = match kind {
            NodeKind::Theme => THEME_PREFIX,
            NodeKind::Intent => INTENT_PREFIX,
            NodeKind::Episode => "episode:",
            _ => "trajectory:",
        };
        let id = format!("{prefix}{name}");
        if let Some(&ix) = self.routing.get(&id) {
            return ix;
        }
        let ix = self.graph.add_node(NodeData { kind, id: id.clone() });
        self.routing.insert(id, ix);
        ix
    }

    pub(super) fn link(
        &mut self,
        seen: &mut HashMap<(NodeIndex, NodeIndex, EdgeKind), EdgeIndex>,
        a: NodeIndex,
        b: NodeIndex,
        kind: EdgeKind,
        raw: f64,
        created_at: f64,
    ) {
        if a == b {
            return;
        }
        let pair = if kind.is_directed() || a < b { (a, b, kind) } else { (b, a, kind) };
        match seen.get(&pair) {
            Some(&e) => {
                let data = &mut self.graph[e];
                data.raw = data.raw.max(raw);
                data.created_at = data.created_at.max(created_at);
            }
            None => {
                let e = self.graph.add_edge(a, b, EdgeData { kind, raw, created_at });
                seen.insert(pair, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{graph, mem, path, DAY, T0};
    use super::super::{EdgeKind, GraphParams, KnowledgeGraph, MemoryNode, NodeKind, StoredEdge};
    use crate::model::PersonaMemory;

    #[test]
    fn connections_resolve_keys_and_are_one_edge_per_pair() {
        let mut other = PersonaMemory::new("projects", "facts", "bob", "v", T0);
        other.connections = vec!["alice".into()];
        let nodes = [
            mem("alice", &[], &["bob"]),
            mem("bob", &[], &["alice"]),
            MemoryNode::persona("sense-memory/persona/projects/facts/bob", &other),
        ];
        let g = graph(&nodes);
        // alice–people/bob once although both list each other; alice–projects/bob too.
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.weight(&path("alice"), &path("bob"), EdgeKind::Connection, T0), Some(1.0));
        assert_eq!(g.weight(&path("bob"), &path("alice"), EdgeKind::Connection, T0), Some(1.0));
        assert!(g
            .weight("sense-memory/persona/projects/facts/bob", &path("alice"), EdgeKind::Connection, T0)
            .is_some());
        // An address picks one memory.
        let g = graph(&[mem("alice", &[], &["projects/facts/bob"]), nodes[1].clone(), nodes[2].clone()]);
        assert!(g
            .weight(&path("alice"), "sense-memory/persona/projects/facts/bob", EdgeKind::Connection, T0)
            .is_some());
        assert_eq!(g.weight(&path("alice"), &path("bob"), EdgeKind::Connection, T0), Some(1.0), "bob lists alice");
        let g = graph(&[mem("alice", &[], &["projects/facts/bob"]), mem("bob", &[], &[])]);
        assert_eq!(g.edge_count(), 0);
    }

    #[test]
    fn contradicts_and_supersedes_edges() {
        let mut old = mem("old", &[], &[]);
        old.contradicts = vec!["new".into()];
        old.superseded_by = Some("new".into());
        let g = graph(&[old, mem("new", &[], &[]), mem("x", &[], &["missing"])]);
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.weight(&path("old"), &path("new"), EdgeKind::Contradicts, T0), Some(0.6));
        assert_eq!(g.weight(&path("old"), &path("new"), EdgeKind::Supersedes, T0), Some(0.9));
        let n = g.neighbours(&path("old"), T0);
        let sup = n.iter().find(|n| n.edge == EdgeKind::Supersedes).unwrap();
        assert!(sup.outgoing, "old → new");
        assert!(!g.neighbours(&path("new"), T0).iter().find(|n| n.edge == EdgeKind::Supersedes).unwrap().outgoing);
    }

    #[test]
    fn journal_entries_link_in_time_order_within_the_window() {
        let j = |ts: f64| MemoryNode::journal(format!("sense-journal/{ts}"), ts);
        // Given out of order; the last is 2 days after its predecessor.
        let g = graph(&[j(T0 + 6.0 * 3600.0), j(T0), j(T0 + 7.0 * 3600.0), j(T0 + 7.0 * 3600.0 + 2.0 * DAY)]);
        let edges: Vec<_> = g.edges(T0).map(|e| (e.a.to_string(), e.b.to_string(), e.raw)).collect();
        assert_eq!(edges.len(), 2);
        assert_eq!(edges[0].0, format!("sense-journal/{T0}"));
        assert!((edges[0].2 - 0.5).abs() < 1e-12, "a 6-hour gap halves the raw weight");
        assert!(edges[1].2 > 0.8, "a 1-hour gap is strong: {}", edges[1].2);
        assert!(g.edges(T0).all(|e| e.kind == EdgeKind::Temporal));
    }

    #[test]
    fn themes_become_routing_nodes_normalised() {
        let g = graph(&[mem("a", &[" Dark-Mode ", "the"], &[]), mem("b", &["dark mode"], &[])]);
        // One theme node ("the" is a stop word and makes none).
        assert_eq!((g.node_count(), g.memory_count(), g.edge_count()), (3, 2, 2));
        assert!(g.contains("theme:dark mode"));
        let members = g.neighbours("theme:dark mode", T0);
        assert_eq!(members.len(), 2);
        assert!(members.iter().all(|n| n.node_kind == NodeKind::Memory && n.edge == EdgeKind::SharedTheme));
    }

    #[test]
    fn procedures_get_an_intent_node() {
        let mut p = PersonaMemory::new("skills", "procedures", "deploy-voxrelay", "npm run build", T0);
        p.themes = vec!["Deploy".into()];
        let q = PersonaMemory::new("skills", "procedures", "restart", "systemctl restart", T0);
        let a = MemoryNode::persona("sense-memory/persona/skills/procedures/deploy-voxrelay", &p);
        let b = MemoryNode::persona("sense-memory/persona/skills/procedures/restart", &q);
        assert_eq!((a.intent.as_deref(), b.intent.as_deref()), (Some("Deploy"), Some("skills")));
        assert_eq!(mem("x", &["deploy"], &[]).intent, None, "facts have no intent");
        let g = graph(&[a, b]);
        assert!(g.contains("intent:deploy") && g.contains("intent:skills") && g.contains("theme:deploy"));
        let n = g.neighbours("sense-memory/persona/skills/procedures/deploy-voxrelay", T0);
        assert!(n.iter().any(|n| n.node_kind == NodeKind::Intent && n.edge == EdgeKind::SharedIntent));
    }

    #[test]
    fn extra_edges_from_consolidation() {
        let extra = [
            StoredEdge { a: path("a"), b: path("b"), kind: EdgeKind::CoActivated, weight: 2.0, created_at: T0 },
            StoredEdge { a: path("a"), b: path("gone"), kind: EdgeKind::Semantic, weight: 0.9, created_at: T0 },
            StoredEdge { a: path("b"), b: path("a"), kind: EdgeKind::Semantic, weight: 0.5, created_at: T0 },
        ];
        let g = KnowledgeGraph::build(&[mem("a", &[], &[]), mem("b", &[], &[])], &extra, &GraphParams::default());
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.weight(&path("a"), &path("b"), EdgeKind::CoActivated, T0), Some(1.0));
        assert_eq!(g.weight(&path("a"), &path("b"), EdgeKind::Semantic, T0), Some(0.35));
        let stored: Vec<StoredEdge> = g.edges(T0).map(|e| e.to_stored()).collect();
        assert_eq!(stored[0], extra[0]);
    }
}
