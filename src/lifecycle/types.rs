//! Memory types and tiers in the lifecycle (seed 002; docs/lifecycle.md, "Memory types
//! and tiers"): a write's type and goal status, the type's default importance and decay
//! ([`Behaviour::TypeDefaults`]), a memory's tier derived from its accesses, age,
//! pinning and consolidation, and the time scale each tier gives decay
//! ([`Behaviour::Tiers`]); a goal's status changed.

use rusqlite::Transaction;

use super::runtime::{is_keyed_fact, Lifecycle};
use super::Behaviour;
use crate::engine::records::resolve_persona;
use crate::engine::Engine;
use crate::error::{Result, Rule, ValidationError};
use crate::model::{GoalStatus, MemoryType, PersonaInput, PersonaMemory, Tier};

const DAY: f64 = 86_400.0;

/// Accesses from which a memory has been recalled "a few times": episodic.
pub const EPISODIC_ACCESSES: u64 = 2;
/// Accesses from which a memory that has also lasted [`SEMANTIC_AGE_DAYS`] is semantic.
pub const SEMANTIC_ACCESSES: u64 = 5;
/// Days between a memory's creation and its last access for its recalls to count as
/// proof over time rather than one busy session.
pub const SEMANTIC_AGE_DAYS: f64 = 7.0;

/// Each tier's stretch of the decay's time scale (halflife, or FSRS stability), with
/// [`Behaviour::Tiers`] on: working fades in days, episodic as the policy says, semantic
/// over months (PMB, seed 002).
pub fn tier_scale(tier: Tier) -> f64 {
    match tier {
        Tier::Working => 0.5,
        Tier::Episodic => 1.0,
        Tier::Semantic => 3.0,
    }
}

/// A memory's tier. Semantic: pinned, a keyed fact, promoted by consolidation,
/// or recalled [`SEMANTIC_ACCESSES`] times over at least [`SEMANTIC_AGE_DAYS`]; episodic:
/// recalled [`EPISODIC_ACCESSES`] times; working otherwise. Derived from what every
/// memory carries, so old memories need no migration.
pub fn tier_of(m: &PersonaMemory) -> Tier {
    let proved = m.access_count >= SEMANTIC_ACCESSES && (m.last_accessed - m.created_at) / DAY >= SEMANTIC_AGE_DAYS;
    if m.sync.life.pinned || is_keyed_fact(m) || super::cycle::is_promoted(m) || proved {
        Tier::Semantic
    } else if m.access_count >= EPISODIC_ACCESSES {
        Tier::Episodic
    } else {
        Tier::Working
    }
}

/// The time-scale stretch decay applies to `m`: its tier's with [`Behaviour::Tiers`] on,
/// 1 otherwise.
pub(crate) fn decay_scale(life: &Lifecycle, m: &PersonaMemory) -> f64 {
    if life.options.behaviours.is_on(Behaviour::Tiers) {
        tier_scale(tier_of(m))
    } else {
        1.0
    }
}

/// What a write says of type, read before the input is consumed.
pub(crate) struct Typing {
    kind: Option<MemoryType>,
    goal: Option<GoalStatus>,
    importance_given: bool,
    halflife_given: bool,
}

impl Typing {
    /// The type, status and strengths `input` names.
    pub(crate) fn of(input: &PersonaInput) -> Self {
        Typing {
            kind: input.memory_type.or(input.goal_status.map(|_| MemoryType::Goal)),
            goal: input.goal_status,
            importance_given: input.importance.is_some(),
            halflife_given: input.halflife_days.is_some(),
        }
    }

    /// Applies it to `m`: the type and status as given; for a new memory, with
    /// [`Behaviour::TypeDefaults`] on, its type's importance and halflife where the writer
    /// set none.
    pub(crate) fn apply(&self, life: &Lifecycle, new: bool, m: &mut PersonaMemory) {
        if self.kind.is_some() {
            m.sync.life.kind = self.kind;
        }
        if self.goal.is_some() {
            m.sync.life.goal_status = self.goal;
        }
        if m.memory_type() != MemoryType::Goal {
            m.sync.life.goal_status = None;
        }
        if new && life.options.behaviours.is_on(Behaviour::TypeDefaults) {
            let t = m.memory_type();
            if !self.importance_given && m.sync.life.importance.is_none() {
                m.sync.life.importance = Some(t.default_importance());
            }
            if !self.halflife_given {
                m.halflife_days = t.default_halflife_days();
            }
        }
    }
}

/// Sets a goal's status (see [`crate::MemoryStore::set_goal_status`]). A memory of
/// another type is refused: its type stays what its writer said.
pub(crate) fn set_goal_status(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    reference: &str,
    status: GoalStatus,
) -> Result<PersonaMemory> {
    let before = resolve_persona(tx, reference)?;
    let t = before.memory_type();
    if t != MemoryType::Goal {
        return Err(ValidationError { field: "goal_status", rule: Rule::NotAGoal(t.to_string()) }.into());
    }
    let mut m = before.clone();
    m.sync.life.goal_status = Some(status);
    if m != before {
        life.save(tx, engine, Some(&before), m.clone(), true)?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_follow_recall_over_time() {
        let mut m = PersonaMemory::new("self", "events", "trip", "went to Oslo", 0.0);
        assert_eq!(tier_of(&m), Tier::Working);
        m.access_count = 2;
        m.last_accessed = DAY;
        assert_eq!(tier_of(&m), Tier::Episodic);
        m.access_count = 6;
        assert_eq!(tier_of(&m), Tier::Episodic, "many recalls in one day are not proof over time");
        m.last_accessed = 8.0 * DAY;
        assert_eq!(tier_of(&m), Tier::Semantic);
        let mut pinned = PersonaMemory::new("self", "facts", "name", "I am Ada", 0.0);
        pinned.sync.life.pinned = true;
        assert_eq!(tier_of(&pinned), Tier::Semantic);
        let keyed = PersonaMemory::new("self", "facts", "user:city", "Oslo", 0.0);
        assert_eq!(tier_of(&keyed), Tier::Semantic);
    }
}
