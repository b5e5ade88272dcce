//! Upkeep of the persisted edges between consolidation cycles, after Vestige's dream-cycle
//! connection graph (seed 001): co-activation strengthens an edge up to [`MAX_STRENGTH`],
//! every cycle multiplies all strengths by [`CYCLE_DECAY`], and edges that fall below
//! [`PRUNE_BELOW`] are dropped.
//!
//! Cycle decay is per consolidation cycle, not per unit of time, so it is not idempotent:
//! the store must call [`decay_and_prune`] at most once per cycle (recording when the last
//! cycle ran). It is separate from the age decay applied when the graph is read: cycle decay
//! decides which edges stay persisted, while age decay weighs an edge by how long ago it
//! was last reinforced. [`strengthen`] and [`upsert`] restart that age from `now`.

use std::collections::HashMap;

use super::{EdgeKind, StoredEdge};

/// The strongest a co-activated edge gets.
pub const MAX_STRENGTH: f64 = 2.0;
/// What one consolidation cycle multiplies every strength by.
pub const CYCLE_DECAY: f64 = 0.95;
/// Edges weaker than this after a cycle's decay are pruned.
pub const PRUNE_BELOW: f64 = 0.1;

fn same_pair(e: &StoredEdge, a: &str, b: &str, kind: EdgeKind) -> bool {
    e.kind == kind && ((e.a == a && e.b == b) || (e.a == b && e.b == a))
}

/// Records that the memories at paths `a` and `b` were retrieved together: their
/// [`EdgeKind::CoActivated`] edge (in either orientation) gains `amount`, capped at
/// [`MAX_STRENGTH`], and its age restarts at `now`; a missing edge is added with strength
/// `amount`. Returns the new strength; None for `a == b`. A negative or non-finite
/// `amount` counts as 0.
pub fn strengthen(edges: &mut Vec<StoredEdge>, a: &str, b: &str, amount: f64, now: f64) -> Option<f64> {
    if a == b {
        return None;
    }
    if let Some(e) = edges.iter_mut().find(|e| same_pair(e, a, b, EdgeKind::CoActivated)) {
        add_strength(e, amount, now);
        return Some(e.weight);
    }
    let e = co_activated(a, b, amount, now);
    let weight = e.weight;
    edges.push(e);
    Some(weight)
}

fn clean(amount: f64) -> f64 {
    if amount.is_finite() {
        amount.max(0.0)
    } else {
        0.0
    }
}

fn add_strength(e: &mut StoredEdge, amount: f64, now: f64) {
    e.weight = (e.weight + clean(amount)).min(MAX_STRENGTH);
    e.created_at = e.created_at.max(now);
}

fn co_activated(a: &str, b: &str, amount: f64, now: f64) -> StoredEdge {
    // Stored in path order, so the same pair is written the same way whichever came first.
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let weight = clean(amount).min(MAX_STRENGTH);
    StoredEdge { a: a.to_string(), b: b.to_string(), kind: EdgeKind::CoActivated, weight, created_at: now }
}

/// Adds `edge`, or replaces the weight and time of the edge of the same kind between the
/// same pair (either orientation), e.g. a semantic edge rediscovered with a new similarity.
/// Consolidation that still finds a semantic link re-asserts it each cycle this way, so
/// only links it no longer finds fade out through [`decay_and_prune`]. Returns whether the
/// edge is new; a self-edge is ignored (false).
pub fn upsert(edges: &mut Vec<StoredEdge>, edge: StoredEdge) -> bool {
    if edge.a == edge.b {
        return false;
    }
    if let Some(e) = edges.iter_mut().find(|e| same_pair(e, &edge.a, &edge.b, edge.kind)) {
        e.weight = edge.weight;
        e.created_at = e.created_at.max(edge.created_at);
        return false;
    }
    edges.push(edge);
    true
}

/// An edge's pair and kind, its ends in path order: the same key whichever way round.
fn pair_key(a: &str, b: &str, kind: EdgeKind) -> (String, String, EdgeKind) {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    (a.to_string(), b.to_string(), kind)
}

/// Where each pair's edge of each kind is in `edges` (the first, if repeated).
fn index(edges: &[StoredEdge]) -> HashMap<(String, String, EdgeKind), usize> {
    let mut at = HashMap::with_capacity(edges.len());
    for (i, e) in edges.iter().enumerate() {
        at.entry(pair_key(&e.a, &e.b, e.kind)).or_insert(i);
    }
    at
}

/// [`upsert`] of many edges, in time linear in their number and `edges`' (one index of the
/// pairs instead of a scan of `edges` per edge): what a consolidation cycle uses. Returns
/// how many were new.
pub fn upsert_many(edges: &mut Vec<StoredEdge>, new: impl IntoIterator<Item = StoredEdge>) -> usize {
    let mut at = index(edges);
    let mut added = 0;
    for edge in new {
        if edge.a == edge.b {
            continue;
        }
        match at.get(&pair_key(&edge.a, &edge.b, edge.kind)) {
            Some(&i) => {
                let e = &mut edges[i];
                e.weight = edge.weight;
                e.created_at = e.created_at.max(edge.created_at);
            }
            None => {
                at.insert(pair_key(&edge.a, &edge.b, edge.kind), edges.len());
                edges.push(edge);
                added += 1;
            }
        }
    }
    added
}

/// [`strengthen`] of many pairs `(a, b, amount)` at `now`, with one index as
/// [`upsert_many`]. Returns how many pairs were strengthened (self-pairs are not).
pub fn strengthen_many<'p>(
    edges: &mut Vec<StoredEdge>,
    pairs: impl IntoIterator<Item = (&'p str, &'p str, f64)>,
    now: f64,
) -> usize {
    let mut at = index(edges);
    let mut n = 0;
    for (a, b, amount) in pairs {
        if a == b {
            continue;
        }
        n += 1;
        let key = pair_key(a, b, EdgeKind::CoActivated);
        match at.get(&key) {
            Some(&i) => add_strength(&mut edges[i], amount, now),
            None => {
                at.insert(key, edges.len());
                edges.push(co_activated(a, b, amount, now));
            }
        }
    }
    n
}

/// One consolidation cycle's decay: multiplies every edge's weight by `factor` (clamped to
/// `[0, 1]`; [`CYCLE_DECAY`] normally), then removes the edges left below `min`
/// ([`PRUNE_BELOW`] normally) and any with a weight that is not a number. Returns how many
/// were removed. Call it at most once per cycle (see the module documentation).
pub fn decay_and_prune(edges: &mut Vec<StoredEdge>, factor: f64, min: f64) -> usize {
    let factor = super::clamp01(factor);
    let before = edges.len();
    edges.retain_mut(|e| {
        e.weight *= factor;
        e.weight >= min
    });
    before - edges.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn co(a: &str, b: &str, weight: f64) -> StoredEdge {
        StoredEdge { a: a.into(), b: b.into(), kind: EdgeKind::CoActivated, weight, created_at: 0.0 }
    }

    #[test]
    fn strengthen_adds_accumulates_and_caps() {
        let mut edges = Vec::new();
        assert_eq!(strengthen(&mut edges, "y", "x", 0.5, 10.0), Some(0.5));
        assert_eq!((edges[0].a.as_str(), edges[0].b.as_str()), ("x", "y"));
        assert_eq!(strengthen(&mut edges, "x", "y", 1.0, 20.0), Some(1.5));
        assert_eq!(strengthen(&mut edges, "y", "x", 1.0, 30.0), Some(MAX_STRENGTH));
        assert_eq!(strengthen(&mut edges, "x", "y", f64::INFINITY, 40.0), Some(MAX_STRENGTH));
        assert_eq!(strengthen(&mut edges, "x", "y", -5.0, 50.0), Some(MAX_STRENGTH));
        assert_eq!(edges.len(), 1);
        assert_eq!(edges[0].created_at, 50.0);
        assert_eq!(strengthen(&mut edges, "x", "x", 1.0, 60.0), None);
        // A semantic edge between the same pair is a different edge.
        edges.push(StoredEdge { kind: EdgeKind::Semantic, ..co("x", "z", 0.8) });
        assert_eq!(strengthen(&mut edges, "x", "z", 0.3, 70.0), Some(0.3));
        assert_eq!(edges.len(), 3);
    }

    #[test]
    fn upsert_replaces_the_same_pair() {
        let sem = |a: &str, b: &str, w| StoredEdge { kind: EdgeKind::Semantic, ..co(a, b, w) };
        let mut edges = Vec::new();
        assert!(upsert(&mut edges, sem("a", "b", 0.8)));
        assert!(!upsert(&mut edges, sem("b", "a", 0.6)));
        assert!(!upsert(&mut edges, sem("a", "a", 0.6)));
        assert_eq!(edges, [sem("a", "b", 0.6)]);
    }

    #[test]
    fn many_at_once_match_one_at_a_time() {
        let sem = |a: &str, b: &str, w| StoredEdge { kind: EdgeKind::Semantic, ..co(a, b, w) };
        let start = vec![sem("a", "b", 0.8), co("a", "b", 0.5), co("c", "d", 1.9)];
        let new = [sem("b", "a", 0.9), sem("a", "c", 0.85), sem("c", "c", 0.9), sem("a", "c", 0.86)];
        let pairs = [("b", "a", 0.2), ("d", "c", 0.4), ("a", "e", 0.2), ("e", "e", 0.2), ("e", "a", 0.2)];
        let (mut one, mut many) = (start.clone(), start);
        for e in new.clone() {
            upsert(&mut one, e);
        }
        for (a, b, x) in pairs {
            strengthen(&mut one, a, b, x, 5.0);
        }
        assert_eq!(upsert_many(&mut many, new), 1);
        assert_eq!(strengthen_many(&mut many, pairs, 5.0), 4);
        assert_eq!(many, one);
    }

    #[test]
    fn decay_and_prune_removes_weak_edges() {
        let mut edges = vec![co("a", "b", 2.0), co("a", "c", 0.105), co("a", "d", 0.1), co("a", "e", f64::NAN)];
        assert_eq!(decay_and_prune(&mut edges, CYCLE_DECAY, PRUNE_BELOW), 3);
        assert_eq!(edges, [co("a", "b", 1.9)]);
        // 2.0 × 0.95^n < 0.1 first at n = 59: the strongest edge survives 58 idle cycles.
        let cycles = (2..=100).find(|_| decay_and_prune(&mut edges, CYCLE_DECAY, PRUNE_BELOW) > 0);
        assert_eq!(cycles, Some(59));
        assert!(edges.is_empty());
    }
}
