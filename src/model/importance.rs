//! What retroactive importance (seed 001's synaptic tagging and capture) and
//! retrieval-induced forgetting leave in a persona memory: the importance events it set
//! off with the memories each captured, the events that captured it, and the recalls it
//! lost. All of it travels inside the encrypted `"memstr"` object (docs/lifecycle.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Most importance events one memory keeps (the latest).
pub const MAX_EVENTS: usize = 8;
/// Most addresses one event's cluster records (the first by address).
pub const MAX_CLUSTER: usize = 32;
/// Most bytes of addresses the clusters of one memory's events hold together (the oldest
/// events go first): the whole memory must stay within what NIP-44 can encrypt.
pub const MAX_CLUSTER_BYTES: usize = 8_192;
/// Most captures one memory keeps (the strongest, then the latest).
pub const MAX_CAPTURES: usize = 16;
/// Most that captures raise a memory's importance to, together (below an explicit 1.0).
pub const CAPTURE_CAP: f64 = 0.9;

/// What set off an importance event (seed 001's table of event types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ImportanceKind {
    /// The agent flagged the memory (`mark_important`).
    Flag,
    /// The memory was pinned.
    Pin,
    /// The novelty gate stored it with high salience.
    Novelty,
    /// It was read again and again soon after it was written.
    RepeatedAccess,
}

impl ImportanceKind {
    /// The wire name (`"flag"`, `"repeated-access"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ImportanceKind::Flag => "flag",
            ImportanceKind::Pin => "pin",
            ImportanceKind::Novelty => "novelty",
            ImportanceKind::RepeatedAccess => "repeated-access",
        }
    }

    /// Seed 001's base strength: the capture probability at distance 0.
    pub fn strength(self) -> f64 {
        match self {
            ImportanceKind::Flag | ImportanceKind::Pin => 1.0,
            ImportanceKind::Novelty => 0.9,
            ImportanceKind::RepeatedAccess => 0.75,
        }
    }

    /// Seed 001's capture radius: the factor on both windows (9 h before, 2 h after).
    pub fn radius(self) -> f64 {
        match self {
            ImportanceKind::Flag | ImportanceKind::Pin => 1.0,
            ImportanceKind::Novelty => 0.7,
            ImportanceKind::RepeatedAccess => 1.2,
        }
    }
}

impl std::fmt::Display for ImportanceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An importance event a memory set off, and its cluster: the memories it captured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ImportanceEvent {
    /// Its id: a fixed hash of kind, memory and time, the same on every device.
    pub id: String,
    /// What set it off.
    pub kind: ImportanceKind,
    /// When (float Unix seconds).
    pub at: f64,
    /// Addresses (`domain/facet/key`) of the memories it captured.
    #[serde(default)]
    pub captured: Vec<String>,
}

/// An importance event that captured this memory, and the importance it gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Capture {
    /// The event's id ([`ImportanceEvent::id`]).
    pub event: String,
    /// The address of the memory that set it off.
    pub source: String,
    /// When the event happened.
    pub at: f64,
    /// The importance it gave, in [0, 1].
    pub boost: f64,
}

/// Retroactive importance and competition state of one memory (inside `LifeMeta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Strength {
    /// Importance events this memory set off, with their clusters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<ImportanceEvent>,
    /// Events that captured it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captured: Vec<Capture>,
    /// Recalls it lost to a near duplicate, per device (a grow-only counter).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub lost: BTreeMap<String, u64>,
}

impl Strength {
    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.captured.is_empty() && self.lost.is_empty()
    }

    /// The importance captures give: `1 - Π(1 - boost)`, at most [`CAPTURE_CAP`]; None
    /// when nothing captured the memory.
    pub fn captured_importance(&self) -> Option<f64> {
        if self.captured.is_empty() {
            return None;
        }
        let keep: f64 = self.captured.iter().map(|c| 1.0 - c.boost.clamp(0.0, 1.0)).product();
        Some((1.0 - keep).clamp(0.0, CAPTURE_CAP))
    }

    /// Recalls lost, over every device.
    pub fn losses(&self) -> u64 {
        self.lost.values().sum()
    }

    /// Whether event `id` captured this memory.
    pub fn captured_by(&self, id: &str) -> bool {
        self.captured.iter().any(|c| c.event == id)
    }

    /// Adds a capture (once per event), keeping the strongest [`MAX_CAPTURES`].
    pub fn add_capture(&mut self, capture: Capture) {
        if self.captured_by(&capture.event) {
            return;
        }
        self.captured.push(capture);
        bound_captures(&mut self.captured);
    }

    /// Records an event (once per id), keeping the latest [`MAX_EVENTS`].
    pub fn add_event(&mut self, mut event: ImportanceEvent) {
        match self.events.iter_mut().find(|e| e.id == event.id) {
            Some(e) => union_into(&mut e.captured, &event.captured),
            None => {
                union_into(&mut event.captured, &[]);
                self.events.push(event);
            }
        }
        bound_events(&mut self.events);
    }

    /// Two devices' versions merged: events and captures united by id (clusters united),
    /// losses per device the larger. Commutative and idempotent.
    pub fn merge(a: &Strength, b: &Strength) -> Strength {
        let mut out = a.clone();
        // United first and bounded once: the bound then depends on the union only.
        for e in &b.events {
            match out.events.iter_mut().find(|x| x.id == e.id) {
                Some(x) => union_into(&mut x.captured, &e.captured),
                None => {
                    let mut e = e.clone();
                    union_into(&mut e.captured, &[]);
                    out.events.push(e);
                }
            }
        }
        for e in &mut out.events {
            union_into(&mut e.captured, &[]);
        }
        bound_events(&mut out.events);
        for c in &b.captured {
            match out.captured.iter_mut().find(|x| x.event == c.event) {
                // The same event on two devices gives the same capture; if not, the larger
                // (a total order, so the merge does not depend on which side is which).
                Some(x) if larger(c, x) => *x = c.clone(),
                Some(_) => {}
                None => out.captured.push(c.clone()),
            }
        }
        bound_captures(&mut out.captured);
        for (device, n) in &b.lost {
            let e = out.lost.entry(device.clone()).or_default();
            *e = (*e).max(*n);
        }
        out
    }
}

/// Whether capture `a` orders after `b`: boost, then time, then source.
fn larger(a: &Capture, b: &Capture) -> bool {
    a.boost.total_cmp(&b.boost).then(a.at.total_cmp(&b.at)).then(a.source.cmp(&b.source)).is_gt()
}

/// `from` added to `into`, sorted, the first [`MAX_CLUSTER`] kept: the same list
/// whichever side it came from.
fn union_into(into: &mut Vec<String>, from: &[String]) {
    into.extend(from.iter().cloned());
    into.sort();
    into.dedup();
    into.truncate(MAX_CLUSTER);
}

/// The strongest captures first, then the latest, then by id: a total order, so every
/// device keeps the same ones.
fn bound_captures(list: &mut Vec<Capture>) {
    list.sort_by(|x, y| y.boost.total_cmp(&x.boost).then(y.at.total_cmp(&x.at)).then(x.event.cmp(&y.event)));
    list.truncate(MAX_CAPTURES);
}

/// The latest [`MAX_EVENTS`] events whose clusters fit [`MAX_CLUSTER_BYTES`], in time
/// order; the latest event's cluster is cut to fit when it alone does not.
fn bound_events(list: &mut Vec<ImportanceEvent>) {
    list.sort_by(|x, y| x.at.total_cmp(&y.at).then(x.id.cmp(&y.id)));
    if list.len() > MAX_EVENTS {
        list.drain(..list.len() - MAX_EVENTS);
    }
    let bytes = |list: &[ImportanceEvent]| list.iter().flat_map(|e| &e.captured).map(String::len).sum::<usize>();
    while list.len() > 1 && bytes(list) > MAX_CLUSTER_BYTES {
        list.remove(0);
    }
    if let Some(last) = list.last_mut() {
        while bytes(std::slice::from_ref(last)) > MAX_CLUSTER_BYTES {
            last.captured.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(event: &str, boost: f64) -> Capture {
        Capture { event: event.into(), source: "a/b/c".into(), at: 1.0, boost }
    }

    #[test]
    fn captures_combine_bounded_and_once_per_event() {
        let mut s = Strength::default();
        assert_eq!(s.captured_importance(), None);
        s.add_capture(cap("e1", 0.5));
        s.add_capture(cap("e1", 0.5));
        assert_eq!(s.captured.len(), 1);
        assert!((s.captured_importance().unwrap() - 0.5).abs() < 1e-12);
        s.add_capture(cap("e2", 0.5));
        assert!((s.captured_importance().unwrap() - 0.75).abs() < 1e-12);
        for i in 0..10 {
            s.add_capture(cap(&format!("x{i}"), 0.5));
        }
        assert_eq!(s.captured_importance(), Some(CAPTURE_CAP));
    }

    #[test]
    fn clusters_stay_within_their_byte_bound() {
        let mut s = Strength::default();
        for i in 0..20 {
            let captured = (0..40).map(|j| format!("{}/{j}", "k".repeat(300))).collect();
            s.add_event(ImportanceEvent { id: format!("e{i}"), kind: ImportanceKind::Pin, at: f64::from(i), captured });
        }
        let bytes: usize = s.events.iter().flat_map(|e| &e.captured).map(String::len).sum();
        assert!(bytes <= MAX_CLUSTER_BYTES, "{bytes}");
        assert_eq!(s.events.last().unwrap().id, "e19", "the latest is kept");
        assert!(s.events.iter().all(|e| e.captured.len() <= MAX_CLUSTER));
    }

    #[test]
    fn merge_is_commutative_and_keeps_both_sides() {
        let mut a = Strength::default();
        a.add_event(ImportanceEvent {
            id: "e".into(),
            kind: ImportanceKind::Flag,
            at: 5.0,
            captured: vec!["x".into()],
        });
        a.add_capture(cap("c1", 0.5));
        a.lost.insert("d1".into(), 3);
        let mut b = Strength::default();
        b.add_event(ImportanceEvent {
            id: "e".into(),
            kind: ImportanceKind::Flag,
            at: 5.0,
            captured: vec!["y".into()],
        });
        b.add_capture(cap("c2", 0.45));
        b.lost.insert("d1".into(), 1);
        b.lost.insert("d2".into(), 2);
        let (ab, ba) = (Strength::merge(&a, &b), Strength::merge(&b, &a));
        assert_eq!(ab, ba);
        assert_eq!(ab.events[0].captured, vec!["x".to_string(), "y".to_string()]);
        assert_eq!(ab.captured.len(), 2);
        assert_eq!(ab.losses(), 5);
        assert_eq!(Strength::merge(&ab, &ab), ab);
    }
}
