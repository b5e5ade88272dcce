//! Types and verdicts through the facade: a goal's status, a procedure's outcomes, the
//! agent's feedback (docs/lifecycle.md, "Memory types and tiers", "Procedures and
//! feedback").

use super::MemoryStore;
use crate::error::Result;
use crate::lifecycle::{types, verdicts, ActionOutcome, Feedback};
use crate::model::{GoalStatus, PersonaMemory, Reliability};

impl MemoryStore {
    /// Counts one outcome of the procedure `reference` names (an address
    /// `domain/facet/key` or a bare key, as [`MemoryStore::persona_pin`] takes): a success
    /// or a failure of acting on it. Returns its reliability after, a Beta posterior from
    /// Beta(1, 1) over every device's outcomes. A memory of another type than procedure
    /// (its own, or its facet's: `procedures`) is refused with
    /// [`crate::Rule::NotAProcedure`].
    pub async fn record_outcome(&self, reference: &str, success: bool) -> Result<Reliability> {
        let reference = reference.to_string();
        let outcome = if success { ActionOutcome::Success } else { ActionOutcome::Failure };
        self.parts()
            .write(move |tx, engine, life| verdicts::record_outcome(tx, engine, life, &reference, outcome))
            .await
    }

    /// The agent's verdict on a persona memory: it was `useful`, or not. With
    /// [`crate::lifecycle::Behaviour::Feedback`] on (the default) the votes add a bounded
    /// term to the memory's ranking (docs/lifecycle.md). Returns the posterior of its
    /// votes after.
    pub async fn feedback(&self, reference: &str, useful: bool) -> Result<Reliability> {
        let reference = reference.to_string();
        let verdict = if useful { Feedback::Useful } else { Feedback::NotUseful };
        self.parts().write(move |tx, engine, life| verdicts::feedback(tx, engine, life, &reference, verdict)).await
    }

    /// Sets the status of the goal `reference` names (open, done, dropped). A memory of
    /// another type is refused with [`crate::Rule::NotAGoal`]. Returns the goal as stored.
    pub async fn set_goal_status(&self, reference: &str, status: GoalStatus) -> Result<PersonaMemory> {
        let reference = reference.to_string();
        self.parts().write(move |tx, engine, life| types::set_goal_status(tx, engine, life, &reference, status)).await
    }
}
