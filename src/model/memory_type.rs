//! Memory types (seed 002): what kind of thing a persona memory is, mapped onto seed
//! 003's facets, with each type's default importance and decay; a goal's status; the
//! working → episodic → semantic tiers. Pure values; the lifecycle derives and applies
//! them (src/lifecycle/types.rs). The table is in docs/lifecycle.md, "Memory types and
//! tiers".

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Rule, ValidationError};

/// What kind of thing a persona memory is (seed 002's types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum MemoryType {
    /// An atomic, durable fact.
    Fact,
    /// What someone likes, wants or believes.
    Preference,
    /// A choice that shapes later work.
    Decision,
    /// How to do something, or a lesson learned (`lesson` is read as this type); it
    /// learns its reliability from recorded outcomes.
    Procedure,
    /// A future intention, with a [`GoalStatus`].
    Goal,
    /// Something that happened.
    Event,
    /// A checkpoint reached.
    Milestone,
}

impl MemoryType {
    /// Every type, in the order of docs/lifecycle.md's table.
    pub const ALL: [MemoryType; 7] = [
        MemoryType::Fact,
        MemoryType::Preference,
        MemoryType::Decision,
        MemoryType::Procedure,
        MemoryType::Goal,
        MemoryType::Event,
        MemoryType::Milestone,
    ];

    /// The wire name (`"fact"`, `"procedure"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::Fact => "fact",
            MemoryType::Preference => "preference",
            MemoryType::Decision => "decision",
            MemoryType::Procedure => "procedure",
            MemoryType::Goal => "goal",
            MemoryType::Event => "event",
            MemoryType::Milestone => "milestone",
        }
    }

    /// The facet a memory of this type lands in when its writer names none. The first
    /// four are seed 003's default facets; the published client takes any facet.
    pub fn default_facet(self) -> &'static str {
        match self {
            MemoryType::Fact => "facts",
            MemoryType::Preference => "beliefs",
            MemoryType::Decision => "decisions",
            MemoryType::Procedure => "procedures",
            MemoryType::Goal => "goals",
            MemoryType::Event => "events",
            MemoryType::Milestone => "milestones",
        }
    }

    /// The type a facet implies, for memories that carry none (the published client's):
    /// seed 003's five facets, the facets [`MemoryType::default_facet`] names, and their
    /// singulars; any other facet holds facts.
    pub fn of_facet(facet: &str) -> MemoryType {
        match facet.to_ascii_lowercase().as_str() {
            "beliefs" | "belief" | "preferences" | "preference" => MemoryType::Preference,
            "decisions" | "decision" => MemoryType::Decision,
            "procedures" | "procedure" | "lessons" | "lesson" | "skills" | "howto" => MemoryType::Procedure,
            "goals" | "goal" | "intentions" => MemoryType::Goal,
            // A feeling is felt at a time: it is remembered as what happened.
            "emotions" | "emotion" | "events" | "event" | "episodes" => MemoryType::Event,
            "milestones" | "milestone" => MemoryType::Milestone,
            _ => MemoryType::Fact,
        }
    }

    /// Importance the type gives a memory whose writer set none, with
    /// the `type-defaults` behaviour on: stretches its time scale by
    /// `1 + importance` (docs/lifecycle.md).
    pub fn default_importance(self) -> f64 {
        match self {
            MemoryType::Fact => 0.5,
            MemoryType::Preference => 0.6,
            MemoryType::Decision => 0.8,
            MemoryType::Procedure => 0.7,
            MemoryType::Goal => 0.8,
            MemoryType::Event => 0.2,
            MemoryType::Milestone => 0.6,
        }
    }

    /// Halflife in days the type gives a memory whose writer set none, with
    /// the `type-defaults` behaviour on (the client's default is 30).
    pub fn default_halflife_days(self) -> f64 {
        match self {
            MemoryType::Fact => 60.0,
            MemoryType::Preference => 90.0,
            MemoryType::Decision => 120.0,
            MemoryType::Procedure => 90.0,
            MemoryType::Goal => 60.0,
            MemoryType::Event => 14.0,
            MemoryType::Milestone => 60.0,
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryType {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        if s == "lesson" {
            return Ok(MemoryType::Procedure);
        }
        MemoryType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| ValidationError { field: "type", rule: Rule::UnknownType(s.to_string()) })
    }
}

/// Where a goal stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum GoalStatus {
    /// Still to reach (a goal's status until set otherwise).
    #[default]
    Open,
    /// Reached.
    Done,
    /// Given up.
    Dropped,
}

impl GoalStatus {
    /// Every status.
    pub const ALL: [GoalStatus; 3] = [GoalStatus::Open, GoalStatus::Done, GoalStatus::Dropped];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            GoalStatus::Open => "open",
            GoalStatus::Done => "done",
            GoalStatus::Dropped => "dropped",
        }
    }
}

impl fmt::Display for GoalStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GoalStatus {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GoalStatus::ALL
            .into_iter()
            .find(|g| g.as_str() == s.trim())
            .ok_or_else(|| ValidationError { field: "goal_status", rule: Rule::UnknownGoalStatus(s.to_string()) })
    }
}

/// How fast a memory fades (seed 002, PMB's tiers): it moves working → episodic →
/// semantic as recall proves it useful. Derived, never stored
/// (the lifecycle's `tier_of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Tier {
    /// New, rarely recalled: fades fastest.
    Working,
    /// Recalled a few times.
    Episodic,
    /// Proved useful over time, pinned, or consolidated: fades slowest.
    Semantic,
}

impl Tier {
    /// Every tier, from fastest fading to slowest.
    pub const ALL: [Tier; 3] = [Tier::Working, Tier::Episodic, Tier::Semantic];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Working => "working",
            Tier::Episodic => "episodic",
            Tier::Semantic => "semantic",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Tier {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Tier::ALL
            .into_iter()
            .find(|t| t.as_str() == s.trim())
            .ok_or_else(|| ValidationError { field: "tier", rule: Rule::UnknownTier(s.to_string()) })
    }
}

/// Reads a stored type leniently: a name this version does not know (written by a newer
/// memstr) reads as none, so the memory still decodes and takes its facet's type.
pub(crate) fn lenient<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.and_then(|s| s.parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_typed_errors() {
        for t in MemoryType::ALL {
            assert_eq!(t.as_str().parse::<MemoryType>().unwrap(), t);
            assert_eq!(MemoryType::of_facet(t.default_facet()), t, "a type's facet implies it");
            assert!((0.0..=1.0).contains(&t.default_importance()));
        }
        assert_eq!("lesson".parse::<MemoryType>().unwrap(), MemoryType::Procedure);
        assert_eq!("chore".parse::<MemoryType>().unwrap_err().rule.name(), "known-type");
        for g in GoalStatus::ALL {
            assert_eq!(g.as_str().parse::<GoalStatus>().unwrap(), g);
        }
        assert_eq!("maybe".parse::<GoalStatus>().unwrap_err().rule.name(), "known-goal-status");
        for t in Tier::ALL {
            assert_eq!(t.as_str().parse::<Tier>().unwrap(), t);
        }
        assert_eq!("cold".parse::<Tier>().unwrap_err().rule.name(), "known-tier");
    }

    #[test]
    fn the_error_lists_every_type() {
        let listed = crate::error::TYPE_NAMES.replace(" (or lesson)", "");
        assert_eq!(listed.split(", ").collect::<Vec<_>>(), MemoryType::ALL.map(|t| t.as_str()));
    }

    #[test]
    fn seed_003_facets_imply_types() {
        assert_eq!(MemoryType::of_facet("facts"), MemoryType::Fact);
        assert_eq!(MemoryType::of_facet("beliefs"), MemoryType::Preference);
        assert_eq!(MemoryType::of_facet("decisions"), MemoryType::Decision);
        assert_eq!(MemoryType::of_facet("procedures"), MemoryType::Procedure);
        assert_eq!(MemoryType::of_facet("emotions"), MemoryType::Event);
        assert_eq!(MemoryType::of_facet("whatever"), MemoryType::Fact);
    }
}
