//! The seeds' behaviours that can be switched on and off (issue 27), each with a
//! documented default (docs/lifecycle.md, "Switches"). A behaviour that changes ranking
//! stays off by default unless the workloads and LoCoMo folds show it does no harm
//! (docs/benchmarks.md).

use std::fmt;
use std::str::FromStr;

use crate::error::{Rule, ValidationError};

/// One of the seeds' behaviours that can be switched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Behaviour {
    /// Within an episode, a new trajectory starts where consecutive observations drift
    /// apart (seeds 000, 004; thresholds calibrated in docs/lifecycle.md section 10). On by
    /// default: it labels observations and changes no ranking. Off: one trajectory per
    /// episode.
    Trajectories,
    /// A memory written in a context (episode, project, tool) ranks higher when searched
    /// from the same context (seed 001, encoding specificity; docs/lifecycle.md section 11).
    /// Off by default: it changes ranking, and the benchmarks carry no context to show it
    /// harmless (docs/benchmarks.md, "The seeds' behaviours").
    ContextMatch,
    /// The agent's `feedback` (useful or not) adds a bounded reward term to ranking. On by
    /// default: with no vote given the term does not exist, and no number of votes moves
    /// a memory by more than `Weights::feedback / (k + 1)` (docs/lifecycle.md, section 9).
    Feedback,
    /// "How do I ..." queries rank procedures by relevance and reliability (seed 000): a
    /// bounded term from each procedure's Beta posterior over its outcomes. Off: it changes
    /// ranking, and the benchmarks record no outcome to measure it on.
    Reliability,
    /// A memory's type sets its default importance and halflife where the writer set none
    /// (seed 002). Off: it changes stored strengths.
    TypeDefaults,
    /// Working → episodic → semantic tiers stretch decay's time scale ×0.5, ×1, ×3 (seed
    /// 002). Off: it lowered found@3 on the workloads (dev 0.629 to 0.570). Tiers are
    /// derived, shown and filtered either way.
    Tiers,
    /// An importance event (a flag, a pin, a novelty spike, repeated access) strengthens
    /// the memories written from 9 hours before to 2 hours after it (seed 001, synaptic
    /// tagging and capture). Off by default: it changes stored strengths
    /// (docs/lifecycle.md, "Retroactive importance").
    RetroactiveImportance,
    /// Near-duplicate competitors that lose to a recalled memory weaken slightly, bounded
    /// (seed 001). Off by default: it changes ranking (docs/lifecycle.md,
    /// "Retrieval-induced forgetting").
    RetrievalForgetting,
    /// A consolidation cycle records insights: connections, patterns, contradictions,
    /// gaps, trends (seed 001).
    DreamInsights,
}

impl Behaviour {
    /// Every behaviour, in the order docs/lifecycle.md lists them.
    pub const ALL: [Behaviour; 9] = [
        Behaviour::Trajectories,
        Behaviour::ContextMatch,
        Behaviour::Feedback,
        Behaviour::Reliability,
        Behaviour::TypeDefaults,
        Behaviour::Tiers,
        Behaviour::RetroactiveImportance,
        Behaviour::RetrievalForgetting,
        Behaviour::DreamInsights,
    ];

    /// The name switches use (`--behaviour NAME=on`, `MEMSTR_BEHAVIOURS`).
    pub fn as_str(self) -> &'static str {
        match self {
            Behaviour::Trajectories => "trajectories",
            Behaviour::ContextMatch => "context-match",
            Behaviour::Feedback => "feedback",
            Behaviour::Reliability => "reliability",
            Behaviour::TypeDefaults => "type-defaults",
            Behaviour::Tiers => "tiers",
            Behaviour::RetroactiveImportance => "retroactive-importance",
            Behaviour::RetrievalForgetting => "retrieval-forgetting",
            Behaviour::DreamInsights => "dream-insights",
        }
    }

    /// Whether it is on in a store opened with default options. Why each default is what
    /// it is: docs/lifecycle.md, "Switches", and the figures in docs/benchmarks.md.
    pub fn default_on(self) -> bool {
        match self {
            Behaviour::Trajectories => true,
            Behaviour::ContextMatch => false,
            Behaviour::Feedback => true,
            Behaviour::Reliability => false,
            Behaviour::TypeDefaults => false,
            Behaviour::Tiers => false,
            Behaviour::RetroactiveImportance => false,
            Behaviour::RetrievalForgetting => false,
            Behaviour::DreamInsights => true,
        }
    }

    fn bit(self) -> u32 {
        1 << Behaviour::ALL.iter().position(|b| *b == self).expect("every behaviour is in ALL")
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Behaviour {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Behaviour::ALL
            .into_iter()
            .find(|b| b.as_str() == s)
            .ok_or_else(|| ValidationError { field: "behaviour", rule: Rule::UnknownBehaviour(s.to_string()) })
    }
}

/// Which behaviours are on. The default is each one's [`Behaviour::default_on`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Behaviours {
    on: u32,
}

impl Default for Behaviours {
    fn default() -> Self {
        let on = Behaviour::ALL.iter().filter(|b| b.default_on()).fold(0, |acc, b| acc | b.bit());
        Behaviours { on }
    }
}

impl Behaviours {
    /// Whether `b` is on.
    pub fn is_on(&self, b: Behaviour) -> bool {
        self.on & b.bit() != 0
    }

    /// Switches `b` on or off.
    pub fn set(&mut self, b: Behaviour, on: bool) -> &mut Self {
        if on {
            self.on |= b.bit();
        } else {
            self.on &= !b.bit();
        }
        self
    }

    /// Applies switches written `NAME=on,NAME=off` (commas or whitespace between them;
    /// `true`/`false` and `1`/`0` are accepted too), as `--behaviour` and
    /// `MEMSTR_BEHAVIOURS` take them. Nothing changes when one is wrong.
    pub fn apply(&mut self, switches: &str) -> Result<&mut Self, ValidationError> {
        let mut next = *self;
        for switch in switches.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
            let bad = || ValidationError { field: "behaviour", rule: Rule::UnknownBehaviour(switch.to_string()) };
            let (name, value) = switch.split_once('=').ok_or_else(bad)?;
            let on = match value {
                "on" | "true" | "1" => true,
                "off" | "false" | "0" => false,
                _ => return Err(bad()),
            };
            next.set(name.parse()?, on);
        }
        *self = next;
        Ok(self)
    }

    /// `{"name": on, ...}`, as `memstr status --json` and the MCP `status` tool show them.
    pub fn to_json(&self) -> serde_json::Value {
        self.iter().map(|(b, on)| (b.as_str().to_string(), serde_json::Value::Bool(on))).collect()
    }

    /// Each behaviour with whether it is on, in [`Behaviour::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Behaviour, bool)> + '_ {
        Behaviour::ALL.into_iter().map(|b| (b, self.is_on(b)))
    }
}

impl fmt::Debug for Behaviours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(b, on)| (b.as_str(), on))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_defaults_hold() {
        for b in Behaviour::ALL {
            assert_eq!(b.as_str().parse::<Behaviour>().unwrap(), b);
            assert_eq!(Behaviours::default().is_on(b), b.default_on());
        }
    }

    #[test]
    fn the_error_lists_every_behaviour() {
        let names: Vec<&str> = crate::error::BEHAVIOUR_NAMES.split(", ").collect();
        assert_eq!(names, Behaviour::ALL.map(|b| b.as_str()));
    }

    #[test]
    fn switches_apply_all_or_nothing() {
        let mut s = Behaviours::default();
        s.apply("context-match=on, dream-insights=off").unwrap();
        assert!(s.is_on(Behaviour::ContextMatch));
        assert!(!s.is_on(Behaviour::DreamInsights));
        let before = s;
        let err = s.apply("feedback=off,nonsense=on").unwrap_err();
        assert_eq!(err.rule.name(), "known-behaviour");
        assert!(s == before, "a bad switch changes nothing");
        assert!(s.apply("feedback").is_err());
        assert!(s.apply("feedback=maybe").is_err());
        assert_eq!(s.to_json()["context-match"], true);
        assert_eq!(s.to_json().as_object().unwrap().len(), Behaviour::ALL.len());
    }
}
