//! Episodes and trajectories in the graph (docs/lifecycle.md, "Episodes and
//! trajectories"): `episode:{id}` and `trajectory:{id}:{n}` nodes, part-of edges from the
//! episode down to its observations, temporal edges along each episode.

use std::collections::{BTreeMap, HashMap};

use petgraph::graph::{EdgeIndex, NodeIndex};

use super::{EdgeKind, KnowledgeGraph, MemoryNode, NodeKind};

type Seen = HashMap<(NodeIndex, NodeIndex, EdgeKind), EdgeIndex>;
/// A trajectory's observations: time, path, node.
type Observations<'a> = Vec<(f64, &'a str, NodeIndex)>;

impl KnowledgeGraph {
    /// Adds each episode's nodes and edges for the memories `kept` (with their indices).
    pub(super) fn link_episodes(&mut self, seen: &mut Seen, kept: &[(NodeIndex, &MemoryNode)]) {
        // Episode → trajectory → its observations in time order.
        let mut episodes: BTreeMap<&str, BTreeMap<u32, Observations>> = BTreeMap::new();
        for &(ix, n) in kept {
            let Some((id, trajectory)) = &n.episode else { continue };
            let trajectories = episodes.entry(id.as_str()).or_default();
            let e = self.routing_node(NodeKind::Episode, id);
            match trajectory {
                Some(t) => trajectories.entry(*t).or_default().push((n.ts, n.path.as_str(), ix)),
                None => self.link(seen, ix, e, EdgeKind::PartOf, 1.0, n.ts),
            }
        }
        for (id, trajectories) in episodes {
            let e = self.routing_node(NodeKind::Episode, id);
            let mut previous: Option<(NodeIndex, NodeIndex)> = None; // (trajectory, last observation)
            for (t, mut observations) in trajectories {
                observations.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
                let Some(&(first_ts, _, _)) = observations.first() else { continue };
                let node = self.routing_node(NodeKind::Trajectory, &format!("{id}:{t}"));
                self.link(seen, e, node, EdgeKind::PartOf, 1.0, first_ts);
                let mut last = previous.map(|(_, o)| o);
                if let Some((prev_t, _)) = previous {
                    self.link(seen, prev_t, node, EdgeKind::Temporal, 1.0, first_ts);
                }
                for &(ts, _, ix) in &observations {
                    self.link(seen, node, ix, EdgeKind::PartOf, 1.0, ts);
                    if let Some(before) = last {
                        self.link(seen, before, ix, EdgeKind::Temporal, 1.0, ts);
                    }
                    last = Some(ix);
                }
                previous = Some((node, last.expect("a trajectory has an observation")));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeKind, GraphParams, KnowledgeGraph, MemoryNode};

    #[test]
    fn episodes_trajectories_and_observations_are_linked() {
        let obs = |ts: f64, t: u32| {
            let mut n = MemoryNode::journal(format!("sense-journal/{ts}"), ts);
            n.episode = Some(("ep-1".into(), Some(t)));
            n
        };
        let mut record = MemoryNode::flat("sense-memory/memstr-episode:ep-1", "memstr-episode:ep-1", 0.0);
        record.episode = Some(("ep-1".into(), None));
        // Days apart: only the episode joins them in time.
        let day = 86_400.0;
        let g = KnowledgeGraph::build(
            &[record, obs(0.0, 0), obs(3.0 * day, 0), obs(6.0 * day, 1)],
            &[],
            &GraphParams::default(),
        );
        let now = 6.0 * day;
        let w = |a: &str, b: &str, k| g.weight(a, b, k, now);
        assert!(w("episode:ep-1", "trajectory:ep-1:0", EdgeKind::PartOf).is_some());
        assert!(w("episode:ep-1", "trajectory:ep-1:1", EdgeKind::PartOf).is_some());
        assert!(w("trajectory:ep-1:0", "trajectory:ep-1:1", EdgeKind::Temporal).is_some());
        assert!(w("trajectory:ep-1:0", "sense-journal/0", EdgeKind::PartOf).is_some());
        assert!(w("trajectory:ep-1:1", &format!("sense-journal/{}", 6.0 * day), EdgeKind::PartOf).is_some());
        assert!(w("trajectory:ep-1:0", &format!("sense-journal/{}", 6.0 * day), EdgeKind::PartOf).is_none());
        assert!(w("sense-journal/0", &format!("sense-journal/{}", 3.0 * day), EdgeKind::Temporal).is_some());
        assert!(w(
            &format!("sense-journal/{}", 3.0 * day),
            &format!("sense-journal/{}", 6.0 * day),
            EdgeKind::Temporal
        )
        .is_some());
        assert!(w("sense-memory/memstr-episode:ep-1", "episode:ep-1", EdgeKind::PartOf).is_some());
    }
}
