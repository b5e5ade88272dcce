//! Merging concurrent edits of one persona memory (docs/sync.md).
//!
//! Every function here is pure and the merge is commutative, so two devices that see
//! the same pair of versions compute the same result, whatever order they saw them in.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::persona::{PersonaMemory, Removed};

/// How version `a` relates to version `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Causality {
    /// Same history.
    Same,
    /// `a` is an ancestor of `b`.
    Before,
    /// `b` is an ancestor of `a`.
    After,
    /// Neither contains the other: concurrent edits.
    Concurrent,
}

/// Compares version vectors.
pub fn causality(a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>) -> Causality {
    let (mut a_more, mut b_more) = (false, false);
    for k in a.keys().chain(b.keys()) {
        let (x, y) = (a.get(k).copied().unwrap_or(0), b.get(k).copied().unwrap_or(0));
        a_more |= x > y;
        b_more |= y > x;
    }
    match (a_more, b_more) {
        (false, false) => Causality::Same,
        (false, true) => Causality::Before,
        (true, false) => Causality::After,
        (true, true) => Causality::Concurrent,
    }
}

fn max_merge(a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let mut out = a.clone();
    for (k, v) in b {
        let e = out.entry(k.clone()).or_default();
        *e = (*e).max(*v);
    }
    out
}

/// Accesses not attributed to any device (made before memstr's counters, or elsewhere).
fn base_count(m: &PersonaMemory) -> u64 {
    m.access_count.saturating_sub(m.sync.acc.values().sum())
}

/// The single-valued fields, for choosing a winner deterministically.
fn scalars(m: &PersonaMemory) -> (String, String, String, String, String, String) {
    (
        m.value.clone(),
        m.source.clone(),
        format!("{:e}", m.confidence),
        format!("{:e}", m.halflife_days),
        format!("{:e}", m.relevance),
        m.superseded_by.clone().unwrap_or_default(),
    )
}

/// The user-set lifecycle fields, comparable.
fn life_key(m: &PersonaMemory) -> (bool, String, String, String, String, String) {
    let num = |x: Option<f64>| x.map(|v| format!("{v:e}")).unwrap_or_default();
    let life = &m.sync.life;
    let typed = format!(
        "{}/{}",
        life.kind.map(|t| t.as_str()).unwrap_or_default(),
        life.goal_status.map(|g| g.as_str()).unwrap_or_default()
    );
    let context = life.context.clone().unwrap_or_default();
    (life.pinned, num(life.importance), num(life.salience), num(life.archived_at), typed, context)
}

fn union_minus(first: &[String], second: &[String], removed: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in first.iter().chain(second) {
        if !removed.contains(x) && !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    union_minus(a, b, &[])
}

/// Merges two versions of one memory. Commutative: `merge(a, b) == merge(b, a)`.
///
/// - value, source, confidence, halflife, relevance, superseded_by: from the version
///   whose user edit is newer (`sync.written`), ties broken by comparing the values;
/// - themes, connections, contradicts: union, less what either side removed;
/// - access counts: per-device maximum (never lost, never counted twice);
/// - last_accessed, last_reinforced: the later; created_at: the earlier.
pub fn merge(a: &PersonaMemory, b: &PersonaMemory) -> PersonaMemory {
    let a_wins = match a.sync.written.total_cmp(&b.sync.written) {
        Ordering::Greater => true,
        Ordering::Less => false,
        // Equal edits and equal values: the user-set lifecycle fields decide, so the
        // winner never depends on which version arrived first.
        Ordering::Equal => (scalars(a), life_key(a)) >= (scalars(b), life_key(b)),
    };
    let (win, lose) = if a_wins { (a, b) } else { (b, a) };
    let removed = Removed {
        themes: union(&win.sync.removed.themes, &lose.sync.removed.themes),
        connections: union(&win.sync.removed.connections, &lose.sync.removed.connections),
        contradicts: union(&win.sync.removed.contradicts, &lose.sync.removed.contradicts),
    };
    let mut m = win.clone();
    m.themes = union_minus(&win.themes, &lose.themes, &removed.themes);
    m.connections = union_minus(&win.connections, &lose.connections, &removed.connections);
    m.contradicts = union_minus(&win.contradicts, &lose.contradicts, &removed.contradicts);
    m.sync.vv = max_merge(&a.sync.vv, &b.sync.vv);
    m.sync.acc = max_merge(&a.sync.acc, &b.sync.acc);
    m.sync.written = a.sync.written.max(b.sync.written);
    m.sync.removed = removed;
    m.access_count = base_count(a).max(base_count(b)) + m.sync.acc.values().sum::<u64>();
    m.last_accessed = a.last_accessed.max(b.last_accessed);
    m.last_reinforced = a.last_reinforced.max(b.last_reinforced);
    m.created_at = a.created_at.min(b.created_at);
    // Pinning, importance and the archive mark are user edits (from the winner); the FSRS state moves with
    // reviews, which are not, so the later review wins, ties to the larger state.
    m.sync.life.fsrs = match (a.sync.life.fsrs, b.sync.life.fsrs) {
        (Some(x), Some(y)) => {
            let key = |s: &crate::model::FsrsState| (s.last_review, s.reviews, s.stability, s.difficulty);
            Some(if key(&x).partial_cmp(&key(&y)) == Some(Ordering::Less) { y } else { x })
        }
        (x, y) => x.or(y),
    };
    // State marks come from the lifecycle, not the user: the more alive version's state,
    // and a dissolution mark only when both versions carry one (the earlier).
    m.state = a.state.min(b.state);
    m.sync.life.dissolved_at = match (a.sync.life.dissolved_at, b.sync.life.dissolved_at) {
        (Some(x), Some(y)) => Some(x.min(y)),
        _ => None,
    };
    // A keyed fact's history only grows: keep every earlier value either side saw.
    let mut history: Vec<_> = a.sync.life.history.iter().chain(&b.sync.life.history).cloned().collect();
    history.sort_by(|x, y| x.from.total_cmp(&y.from).then(x.value.cmp(&y.value)).then(x.until.total_cmp(&y.until)));
    history.dedup();
    m.sync.life.history = history;
    // Outcomes and feedback are counts, not edits: every device's count survives.
    m.sync.life.outcomes = a.sync.life.outcomes.merged(&b.sync.life.outcomes);
    m.sync.life.feedback = a.sync.life.feedback.merged(&b.sync.life.feedback);
    // Captures, clusters and lost recalls only grow: united, per-device maxima.
    m.sync.life.strength = crate::model::Strength::merge(&a.sync.life.strength, &b.sync.life.strength);
    m
}

/// Records a local edit on `device`: bumps its version counter; a user edit also moves
/// `written` and notes which set members `before` had that `after` dropped (or re-adds).
pub fn stamp(before: Option<&PersonaMemory>, after: &mut PersonaMemory, device: &str, now: f64, user_edit: bool) {
    *after.sync.vv.entry(device.to_string()).or_default() += 1;
    if !user_edit {
        return;
    }
    after.sync.written = after.sync.written.max(now);
    if let Some(b) = before {
        let note = |removed: &mut Vec<String>, old: &[String], new: &[String]| {
            for x in old.iter().filter(|x| !new.contains(x)) {
                if !removed.contains(x) {
                    removed.push(x.clone());
                }
            }
            removed.retain(|x| !new.contains(x));
        };
        note(&mut after.sync.removed.themes, &b.themes, &after.themes);
        note(&mut after.sync.removed.connections, &b.connections, &after.connections);
        note(&mut after.sync.removed.contradicts, &b.contradicts, &after.contradicts);
    }
}

/// Whether the version a version vector calls older (`ancestor`) holds a user edit that the
/// descendant lacks: a different value, written later. Version vectors lie when one store
/// file was copied and both copies kept its device id: each copy's edits then look like
/// the other's past. Such a pair is merged, not dropped.
pub fn diverged(ancestor: &PersonaMemory, descendant: &PersonaMemory) -> bool {
    ancestor.sync.written > descendant.sync.written
        && (scalars(ancestor), life_key(ancestor)) != (scalars(descendant), life_key(descendant))
}

/// Caps the times a merge compares (`written`, `last_accessed`, `last_reinforced`) at
/// `limit`: a payload dated in the future must not win every merge to come.
pub fn clamp_times(m: &mut PersonaMemory, limit: f64) {
    m.sync.written = m.sync.written.min(limit);
    m.last_accessed = m.last_accessed.min(limit);
    m.last_reinforced = m.last_reinforced.min(limit);
}

/// Takes `from`'s accesses into `into` (per-device maxima, the later last access).
/// Returns whether `into` changed.
pub fn absorb_accesses(into: &mut PersonaMemory, from: &PersonaMemory) -> bool {
    let before = (into.access_count, into.last_accessed, into.sync.acc.clone());
    let base = base_count(into).max(base_count(from));
    into.sync.acc = max_merge(&into.sync.acc, &from.sync.acc);
    into.access_count = base + into.sync.acc.values().sum::<u64>();
    into.last_accessed = into.last_accessed.max(from.last_accessed);
    before != (into.access_count, into.last_accessed, into.sync.acc.clone())
}

/// Counts one access made on `device`.
pub fn count_access(m: &mut PersonaMemory, device: &str) {
    *m.sync.acc.entry(device.to_string()).or_default() += 1;
    m.access_count += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemoryState;
    use proptest::prelude::*;

    fn base() -> PersonaMemory {
        let mut m = PersonaMemory::new("people", "facts", "alice", "likes tea", 100.0);
        m.themes = vec!["tea".into()];
        m.access_count = 10;
        m
    }

    #[test]
    fn concurrent_edits_keep_both_sides() {
        let origin = base();
        let mut a = origin.clone();
        a.themes.push("green".into());
        a.connections.push("bob".into());
        stamp(Some(&origin), &mut a, "A", 200.0, true);
        for _ in 0..3 {
            count_access(&mut a, "A");
        }
        a.last_accessed = 250.0;
        let mut b = origin.clone();
        b.value = "likes coffee now".into();
        b.themes = vec!["coffee".into()];
        stamp(Some(&origin), &mut b, "B", 300.0, true);
        count_access(&mut b, "B");
        count_access(&mut b, "B");

        assert_eq!(causality(&a.sync.vv, &b.sync.vv), Causality::Concurrent);
        let m = merge(&a, &b);
        assert_eq!(m, merge(&b, &a), "commutative");
        assert_eq!(m.value, "likes coffee now", "the newer user edit wins the value");
        assert_eq!(m.themes, ["coffee", "green"], "b removed tea; a added green");
        assert_eq!(m.connections, ["bob"]);
        assert_eq!(m.access_count, 10 + 3 + 2);
        assert_eq!(m.last_accessed, 250.0);
        assert_eq!(causality(&a.sync.vv, &m.sync.vv), Causality::Before);
        assert_eq!(causality(&b.sync.vv, &m.sync.vv), Causality::Before);
    }

    #[test]
    fn sequential_edits_are_ordered() {
        let mut v1 = base();
        stamp(None, &mut v1, "A", 1.0, true);
        let mut v2 = v1.clone();
        stamp(Some(&v1), &mut v2, "A", 2.0, true);
        assert_eq!(causality(&v1.sync.vv, &v2.sync.vv), Causality::Before);
        assert_eq!(causality(&v2.sync.vv, &v1.sync.vv), Causality::After);
        assert_eq!(causality(&v2.sync.vv, &v2.sync.vv), Causality::Same);
    }

    fn arb_version() -> impl Strategy<Value = PersonaMemory> {
        (
            proptest::collection::btree_map("[ABC]", 0u64..4, 0..3),
            proptest::collection::btree_map("[ABC]", 0u64..5, 0..3),
            0.0f64..10.0,
            "[a-c]{1,3}",
            proptest::collection::vec("[a-e]", 0..4),
            proptest::collection::vec("[a-e]", 0..2),
            0u64..20,
            0.0f64..100.0,
        )
            .prop_map(|(vv, acc, written, value, themes, removed, count, accessed)| {
                let mut m = base();
                m.value = value;
                m.themes = themes;
                m.sync.vv = vv;
                m.sync.acc = acc;
                m.sync.written = written;
                m.sync.removed.themes = removed;
                m.access_count = count + m.sync.acc.values().sum::<u64>();
                m.last_accessed = accessed;
                m
            })
    }

    /// Versions that tie on the user edit time and value often, differing in lifecycle
    /// fields: the case where a first-argument bias would make two devices swap forever.
    fn arb_lifecycle_version() -> impl Strategy<Value = PersonaMemory> {
        (
            0u8..2,
            "[ab]",
            0usize..4,
            any::<bool>(),
            proptest::option::of(0u8..3),
            proptest::option::of(0u8..3),
            proptest::option::of((1u8..4, 0u8..3)),
            proptest::collection::vec(("[xy]", 0u8..3), 0..3),
            proptest::collection::vec(("[pq]", 0u8..3, "[uv]"), 0..3),
        )
            .prop_map(|(written, value, state, pinned, importance, dissolved, fsrs, history, strength)| {
                let mut m = base();
                m.sync.written = f64::from(written);
                m.value = value;
                m.state = MemoryState::ALL[state];
                m.sync.life.pinned = pinned;
                m.sync.life.importance = importance.map(|i| f64::from(i) / 2.0);
                m.sync.life.dissolved_at = dissolved.map(f64::from);
                m.sync.life.fsrs = fsrs.map(|(s, r)| crate::model::FsrsState {
                    stability: f64::from(s),
                    difficulty: 5.0,
                    last_review: f64::from(r),
                    reviews: u32::from(r),
                });
                m.sync.life.history = history
                    .into_iter()
                    .map(|(v, t)| crate::model::FactValue { value: v, from: f64::from(t), until: f64::from(t) + 1.0 })
                    .collect();
                for (id, n, other) in strength {
                    let s = &mut m.sync.life.strength;
                    s.add_capture(crate::model::Capture {
                        event: id.clone(),
                        source: other.clone(),
                        at: f64::from(n),
                        boost: f64::from(n) / 4.0,
                    });
                    s.add_event(crate::model::ImportanceEvent {
                        id: id.clone(),
                        kind: crate::model::ImportanceKind::Flag,
                        at: 1.0,
                        captured: vec![other.clone()],
                    });
                    s.lost.insert(other, u64::from(n));
                }
                m
            })
    }

    proptest! {
        #[test]
        fn merge_of_lifecycle_fields_is_commutative(a in arb_lifecycle_version(), b in arb_lifecycle_version()) {
            let m = merge(&a, &b);
            prop_assert_eq!(&m, &merge(&b, &a));
            // Merging the result again with either side changes nothing: devices settle.
            prop_assert_eq!(&merge(&m, &a), &m);
            prop_assert_eq!(&merge(&m, &b), &m);
        }

        #[test]
        fn merge_is_commutative_and_never_loses_accesses(a in arb_version(), b in arb_version()) {
            let m = merge(&a, &b);
            prop_assert_eq!(&m, &merge(&b, &a));
            prop_assert!(m.access_count >= a.access_count.min(b.access_count));
            prop_assert!(m.last_accessed >= a.last_accessed && m.last_accessed >= b.last_accessed);
            for t in a.themes.iter().chain(&b.themes) {
                let removed = a.sync.removed.themes.contains(t) || b.sync.removed.themes.contains(t);
                prop_assert_eq!(m.themes.contains(t), !removed);
            }
        }
    }
}
