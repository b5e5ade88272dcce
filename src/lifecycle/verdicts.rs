//! Verdicts on a memory (seed 000's procedural memory, seed 004's value function): a
//! procedure's recorded outcomes and the agent's feedback, each a grow-only per-device
//! count inside the encrypted payload ([`crate::model::Tally`]), read as a Beta posterior
//! ([`crate::model::Reliability`]). Counting is not a user edit: it never wins a merge
//! against one, and merges keep every device's counts (docs/lifecycle.md, "Procedures and
//! feedback").

use std::str::FromStr;

use rusqlite::Transaction;

use super::runtime::Lifecycle;
use crate::engine::records::resolve_persona;
use crate::engine::Engine;
use crate::error::{Result, Rule, ValidationError};
use crate::model::{MemoryType, Reliability};

/// What a procedure led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionOutcome {
    /// It worked.
    Success,
    /// It did not.
    Failure,
}

impl FromStr for ActionOutcome {
    type Err = ValidationError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim() {
            "success" | "succeeded" | "ok" => Ok(ActionOutcome::Success),
            "failure" | "failed" | "fail" => Ok(ActionOutcome::Failure),
            other => Err(ValidationError { field: "outcome", rule: Rule::UnknownVerdict(other.to_string()) }),
        }
    }
}

/// The agent's verdict on a memory a search or recall gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Feedback {
    /// It helped.
    Useful,
    /// It did not.
    NotUseful,
}

impl FromStr for Feedback {
    type Err = ValidationError;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim() {
            "useful" | "yes" | "up" => Ok(Feedback::Useful),
            "not" | "not-useful" | "not_useful" | "no" | "down" => Ok(Feedback::NotUseful),
            other => Err(ValidationError { field: "feedback", rule: Rule::UnknownVerdict(other.to_string()) }),
        }
    }
}

/// Counts one outcome of the procedure `reference` names; returns its reliability after.
pub(crate) fn record_outcome(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    reference: &str,
    outcome: ActionOutcome,
) -> Result<Reliability> {
    let before = resolve_persona(tx, reference)?;
    let t = before.memory_type();
    if t != MemoryType::Procedure {
        return Err(ValidationError { field: "reference", rule: Rule::NotAProcedure(t.to_string()) }.into());
    }
    let mut m = before.clone();
    m.sync.life.outcomes.count(engine.device(), outcome == ActionOutcome::Success);
    let after = m.sync.life.outcomes.posterior();
    life.save(tx, engine, Some(&before), m, false)?;
    Ok(after)
}

/// Counts one verdict on the persona memory `reference` names; returns the posterior of
/// its feedback after.
pub(crate) fn feedback(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    reference: &str,
    verdict: Feedback,
) -> Result<Reliability> {
    let before = resolve_persona(tx, reference)?;
    let mut m = before.clone();
    m.sync.life.feedback.count(engine.device(), verdict == Feedback::Useful);
    let after = m.sync.life.feedback.posterior();
    life.save(tx, engine, Some(&before), m, false)?;
    Ok(after)
}
