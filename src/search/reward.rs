//! What verdicts add to ranking (docs/lifecycle.md, "Procedures and feedback"): the
//! agent's feedback on any persona memory ([`Behaviour::Feedback`]), and a procedure's
//! reliability for "how do I ..." questions ([`Behaviour::Reliability`]); and what a hit
//! says of its type, tier, goal status and reliability ([`Typed`]).
//!
//! Each term is added to the fused score, not ranked like a signal: rank fusion would
//! turn the only memory with a "not useful" vote into the signal's first place. A term is
//! `weight · (2·mean − 1) / (k + 1)`, the posterior mean centred on the prior's (0 with no
//! verdict: neutral by construction) times at most `weight` of a first place in a
//! weight-1 signal, so no number of votes moves a memory more than that, and one vote a
//! third of it.

use serde::Serialize;

use super::hybrid::{Found, SearchHit, Signal, Weights};
use crate::lifecycle::{tier_of, Behaviour, Behaviours};
use crate::model::{GoalStatus, MemoryType, PersonaMemory, Reliability, Tier};
use crate::search::query::{intent, Intent};

/// A persona hit's type, tier, goal status and verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Typed {
    /// Its type (its own, or its facet's).
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Its tier (derived; [`crate::lifecycle::tier_of`]).
    pub tier: Tier,
    /// A goal's status; None for other types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal_status: Option<GoalStatus>,
    /// A procedure's reliability: the Beta posterior's mean and how many outcomes it
    /// rests on. None for other types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reliability: Option<Reliability>,
    /// The agent's feedback, when any was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<Reliability>,
}

impl Typed {
    /// What a persona memory says of itself.
    pub fn of(m: &PersonaMemory) -> Self {
        let fb = &m.sync.life.feedback;
        Typed {
            memory_type: m.memory_type(),
            tier: tier_of(m),
            goal_status: m.goal_status(),
            reliability: m.reliability(),
            feedback: (!fb.is_empty()).then(|| fb.posterior()),
        }
    }
}

/// The weights a search runs with: a switched-off behaviour's term weighs 0, and the
/// reliability term only serves a how-to question.
pub(crate) fn gated(mut w: Weights, on: &Behaviours, text: &str) -> Weights {
    if !on.is_on(Behaviour::Feedback) {
        w.feedback = 0.0;
    }
    if !on.is_on(Behaviour::Reliability) || intent(text) != Intent::Procedural {
        w.reliability = 0.0;
    }
    w
}

/// The terms a candidate's verdicts add, as explained signals (rank: none).
pub(crate) fn terms(found: &Found, w: &Weights, k: f64) -> Vec<Signal> {
    let Found::Persona(m) = found else { return Vec::new() };
    let mut out = Vec::new();
    let mut add = |name: &'static str, weight: f64, r: Reliability| {
        if weight > 0.0 && weight.is_finite() && r.outcomes() > 0 {
            let value = r.centred();
            out.push(Signal { name, value, rank: None, contribution: weight * value / (k + 1.0) });
        }
    };
    add("feedback", w.feedback, m.sync.life.feedback.posterior());
    if let Some(r) = m.reliability() {
        add("reliability", w.reliability, r);
    }
    out
}

/// Fills each persona hit's [`SearchHit::typed`].
pub(crate) fn annotate(hits: &mut [SearchHit]) {
    for h in hits {
        if let Found::Persona(m) = &h.found {
            h.typed = Some(Typed::of(m));
        }
    }
}

/// Whether a persona memory passes the query's type and tier filters.
pub(crate) fn admits(types: &[MemoryType], tiers: &[Tier], m: &PersonaMemory) -> bool {
    (types.is_empty() || types.contains(&m.memory_type())) && (tiers.is_empty() || tiers.contains(&tier_of(m)))
}
