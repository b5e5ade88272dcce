//! Spreading activation over the knowledge graph; the formulas are in the parent module's
//! documentation.

use std::collections::{BTreeMap, HashMap};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use super::{clamp01, KnowledgeGraph, NodeKind};

impl KnowledgeGraph {
    /// Spreads activation from `seeds` (memory paths with their initial activation) for
    /// [`super::GraphParams::hops`] hops, through routing nodes too. Returns the activation
    /// of every memory reached, seeds included, each in `[0, M]` where `M` is the largest
    /// seed activation. Seeds that are unknown, or whose activation is not a positive
    /// number, are ignored; a path given twice keeps its larger activation.
    pub fn spread(&self, seeds: &[(String, f64)], now: f64) -> HashMap<String, f64> {
        let p = &self.params;
        let hop_decay = clamp01(p.hop_decay);
        let mut reached: HashMap<NodeIndex, f64> = HashMap::new();
        for (path, a) in seeds {
            if let (Some(&ix), true) = (self.memories.get(path), *a > 0.0 && a.is_finite()) {
                let slot = reached.entry(ix).or_insert(0.0);
                *slot = slot.max(*a);
            }
        }
        let max = reached.values().copied().fold(0.0, f64::max);
        let mut frontier: Vec<(NodeIndex, f64)> = reached.iter().map(|(&ix, &a)| (ix, a)).collect();
        frontier.sort_by_key(|&(ix, _)| ix);
        let mut strongest = Strongest { graph: self, now, cache: HashMap::new() };
        for _ in 0..p.hops {
            if frontier.is_empty() {
                break;
            }
            // Per memory reached at this hop: Π (1 − c/M) over the routes into it. A BTreeMap
            // keeps the multiplication order, and so the result, the same on every run.
            let mut incoming: BTreeMap<NodeIndex, f64> = BTreeMap::new();
            let mut offer = |v: NodeIndex, c: f64| {
                if c > 0.0 && !reached.contains_key(&v) {
                    *incoming.entry(v).or_insert(1.0) *= 1.0 - (c / max).min(1.0);
                }
            };
            for &(u, a) in &frontier {
                for (x, w_ux) in strongest.edges(u, None) {
                    let c = a * hop_decay * w_ux;
                    match self.graph[x].kind {
                        NodeKind::Memory => offer(x, c),
                        _ => {
                            let others = self.graph.neighbors_undirected(x).count().saturating_sub(1);
                            let fan = (others.max(1) as f64).sqrt();
                            for (v, w_xv) in strongest.edges(x, Some(u)) {
                                if self.graph[v].kind == NodeKind::Memory {
                                    offer(v, c * w_xv / fan);
                                }
                            }
                        }
                    }
                }
            }
            frontier.clear();
            for (v, remaining) in incoming {
                let a = max * (1.0 - remaining);
                if a >= p.min_activation {
                    reached.insert(v, a);
                    frontier.push((v, a));
                }
            }
        }
        reached.into_iter().map(|(ix, a)| (self.graph[ix].id.clone(), a)).collect()
    }
}

/// The `max_fanout` strongest edges out of a node, computed once per node per spread.
struct Strongest<'g> {
    graph: &'g KnowledgeGraph,
    now: f64,
    // One more than max_fanout, so that skipping the node activation came from still
    // leaves max_fanout.
    cache: HashMap<NodeIndex, Vec<(NodeIndex, f64)>>,
}

impl Strongest<'_> {
    fn edges(&mut self, ix: NodeIndex, except: Option<NodeIndex>) -> Vec<(NodeIndex, f64)> {
        let (g, now) = (self.graph, self.now);
        let fanout = g.params.max_fanout;
        let all = self.cache.entry(ix).or_insert_with(|| {
            let mut all: Vec<(NodeIndex, f64)> = [Direction::Outgoing, Direction::Incoming]
                .into_iter()
                .flat_map(|dir| g.graph.edges_directed(ix, dir).map(move |e| (dir, e)))
                .map(|(dir, e)| {
                    let other = if dir == Direction::Outgoing { e.target() } else { e.source() };
                    (other, g.edge_weight(e.weight(), now))
                })
                .filter(|&(_, w)| w > 0.0)
                .collect();
            // Ties broken by id, not index, so the choice does not depend on input order.
            all.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| g.graph[x.0].id.cmp(&g.graph[y.0].id)));
            all.truncate(fanout.saturating_add(1));
            all
        });
        all.iter().copied().filter(|&(v, _)| Some(v) != except).take(fanout).collect()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::tests::{graph, mem, path, T0};
    use super::super::{GraphParams, KnowledgeGraph, MemoryNode};

    fn seed(key: &str) -> Vec<(String, f64)> {
        vec![(path(key), 1.0)]
    }

    #[test]
    fn reaches_two_hops_not_three() {
        // a – b – c – d, a chain of connections.
        let g = graph(&[mem("a", &[], &["b"]), mem("b", &[], &["c"]), mem("c", &[], &["d"]), mem("d", &[], &[])]);
        let act = g.spread(&seed("a"), T0);
        assert_eq!(act[&path("a")], 1.0, "seeds keep their activation");
        assert_eq!(act[&path("b")], 0.5);
        assert_eq!(act[&path("c")], 0.25);
        assert!(!act.contains_key(&path("d")));
        let three = KnowledgeGraph::build(
            &[mem("a", &[], &["b"]), mem("b", &[], &["c"]), mem("c", &[], &["d"]), mem("d", &[], &[])],
            &[],
            &GraphParams { hops: 3, ..GraphParams::default() },
        );
        assert_eq!(three.spread(&seed("a"), T0)[&path("d")], 0.125);
    }

    #[test]
    fn activation_flows_through_a_shared_theme() {
        let g = graph(&[
            mem("a", &["tokyo", "travel"], &[]),
            mem("b", &["Tokyo"], &[]),
            mem("c", &["travel", "tokyo"], &[]),
        ]);
        let act = g.spread(&seed("a"), T0);
        // One route: 0.5 × 0.8 × 0.8, the theme's other member count being 2.
        let one = 0.5 * 0.8 * 0.8 / 2f64.sqrt();
        assert!((act[&path("b")] - one).abs() < 1e-12);
        // Two routes (tokyo, and travel with one other member): noisy-OR.
        let travel = 0.5 * 0.8 * 0.8;
        assert!((act[&path("c")] - (1.0 - (1.0 - one) * (1.0 - travel))).abs() < 1e-12);
        assert!(act[&path("c")] > act[&path("b")]);
        assert!(act.keys().all(|k| !k.starts_with("theme:")), "routing nodes are not in the result");
    }

    #[test]
    fn hub_themes_do_not_flood() {
        let mut nodes = vec![mem("a", &["hub"], &[]), mem("b", &["rare"], &[]), mem("c", &["rare"], &[])];
        nodes.extend((0..500).map(|i| mem(&format!("m{i:03}"), &["hub"], &[])));
        let g = graph(&nodes);
        let act = g.spread(&[(path("a"), 1.0), (path("b"), 1.0)], T0);
        let hub_members: Vec<f64> = act.iter().filter(|(k, _)| k.contains("/m")).map(|(_, &a)| a).collect();
        assert_eq!(hub_members.len(), GraphParams::default().max_fanout, "capped at max_fanout");
        let rare = act[&path("c")];
        assert!(hub_members.iter().all(|&a| a < rare / 10.0), "a hub member gets a sqrt(499)th share");
    }

    #[test]
    fn unknown_and_non_positive_seeds_are_ignored() {
        let g = graph(&[mem("a", &[], &["b"]), mem("b", &[], &[])]);
        let seeds = vec![("nope".to_string(), 1.0), (path("a"), -1.0), (path("b"), f64::NAN)];
        assert!(g.spread(&seeds, T0).is_empty());
    }

    fn arb_nodes() -> impl Strategy<Value = Vec<MemoryNode>> {
        let node = (prop::collection::vec(0usize..12, 0..4), prop::collection::vec(0usize..4, 0..3), 0.0f64..400.0);
        prop::collection::vec(node, 1..12).prop_map(|specs| {
            specs
                .into_iter()
                .enumerate()
                .map(|(i, (links, themes, age_days))| {
                    let keys: Vec<String> = links.iter().map(|l| format!("k{l}")).collect();
                    let themes: Vec<String> = themes.iter().map(|t| format!("theme {t}")).collect();
                    let mut n = mem(
                        &format!("k{i}"),
                        &themes.iter().map(String::as_str).collect::<Vec<_>>(),
                        &keys.iter().map(String::as_str).collect::<Vec<_>>(),
                    );
                    n.ts = T0 - age_days * 86_400.0;
                    n
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn spread_is_deterministic_and_bounded(
            nodes in arb_nodes(),
            seeds in prop::collection::vec((0usize..12, 0.0f64..3.0), 1..4),
            hops in 0usize..4,
            hop_decay in 0.0f64..1.5,
        ) {
            let params = GraphParams { hops, hop_decay, ..GraphParams::default() };
            let g = KnowledgeGraph::build(&nodes, &[], &params);
            let seeds: Vec<(String, f64)> = seeds.into_iter().map(|(i, a)| (path(&format!("k{i}")), a)).collect();
            let max = seeds
                .iter()
                .filter(|(p, _)| g.contains(p))
                .map(|&(_, a)| a)
                .fold(0.0, f64::max);
            let first = g.spread(&seeds, T0);
            // Rebuilt from the nodes in reverse: same graph, other insertion order.
            let mut reversed = nodes.clone();
            reversed.reverse();
            let again = KnowledgeGraph::build(&reversed, &[], &params).spread(&seeds, T0);
            prop_assert_eq!(&first, &g.spread(&seeds, T0));
            for (k, a) in &first {
                prop_assert!((0.0..=max).contains(a), "{} = {} outside [0, {}]", k, a, max);
                prop_assert!((again[k] - a).abs() < 1e-9, "{}: {} vs {}", k, a, again[k]);
            }
            prop_assert_eq!(first.len(), again.len());
        }
    }
}
