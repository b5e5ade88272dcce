//! Version-2 persona memories: domain / facet / key, with a lifecycle that decays.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::importance::Strength;
use super::memory_type::{GoalStatus, MemoryType};
use super::outcomes::{Reliability, Tally};

use crate::error::{Rule, ValidationError};

/// Default halflife of a persona memory, in days.
pub const DEFAULT_HALFLIFE_DAYS: f64 = 30.0;
/// At or above this current relevance a memory is active.
pub const THRESHOLD_FADING: f64 = 0.3;
/// At or above this (and below [`THRESHOLD_FADING`]) it is fading.
pub const THRESHOLD_FORGOTTEN: f64 = 0.1;
/// At or above this (and below [`THRESHOLD_FORGOTTEN`]) it is forgotten; below, dissolved.
pub const THRESHOLD_DISSOLVED: f64 = 0.01;

const SECONDS_PER_DAY: f64 = 86_400.0;

/// The four lifecycle states of sense-memory v2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum MemoryState {
    /// In search results and loaded into context.
    Active,
    /// In search results only when directly relevant; not loaded into context.
    Fading,
    /// Out of search results; exact recall still works.
    Forgotten,
    /// Due for deletion.
    Dissolved,
}

impl MemoryState {
    /// All states, from most to least alive.
    pub const ALL: [MemoryState; 4] =
        [MemoryState::Active, MemoryState::Fading, MemoryState::Forgotten, MemoryState::Dissolved];

    /// The wire name (`"active"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryState::Active => "active",
            MemoryState::Fading => "fading",
            MemoryState::Forgotten => "forgotten",
            MemoryState::Dissolved => "dissolved",
        }
    }

    /// The state a current relevance falls in (thresholds inclusive, as the client's).
    pub fn from_relevance(score: f64) -> Self {
        if score >= THRESHOLD_FADING {
            MemoryState::Active
        } else if score >= THRESHOLD_FORGOTTEN {
            MemoryState::Fading
        } else if score >= THRESHOLD_DISSOLVED {
            MemoryState::Forgotten
        } else {
            MemoryState::Dissolved
        }
    }
}

/// Where a memory stands for whoever reads it: its lifecycle state, unless something
/// else says more (a newer memory replaces it, it is archived, a search brought it back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Status {
    /// Current and strong: in search results and context.
    Active,
    /// Current, weakening: in search results when directly relevant.
    Fading,
    /// Forgotten or dissolved by decay: out of search unless a strong cue revives it.
    Dormant,
    /// Archived: out of search and context until restored.
    Archived,
    /// A newer memory replaces it: history, not the current truth.
    Superseded,
    /// Dormant or archived, and this search brought it back.
    Revived,
}

impl Status {
    /// The wire name (`"active"`, `"superseded"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Fading => "fading",
            Status::Dormant => "dormant",
            Status::Archived => "archived",
            Status::Superseded => "superseded",
            Status::Revived => "revived",
        }
    }

    /// The status of a memory in lifecycle state `state`: superseded first (the current
    /// truth is elsewhere, whatever its strength), then revived, archived, the state.
    pub fn of(superseded: bool, archived: bool, revived: bool, state: MemoryState) -> Status {
        if superseded {
            Status::Superseded
        } else if revived {
            Status::Revived
        } else if archived {
            Status::Archived
        } else {
            match state {
                MemoryState::Active => Status::Active,
                MemoryState::Fading => Status::Fading,
                _ => Status::Dormant,
            }
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for MemoryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryState {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MemoryState::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| ValidationError { field: "state", rule: Rule::UnknownState(s.to_string()) })
    }
}

/// A structured memory: `sense-memory/persona/{domain}/{facet}/{key}`.
///
/// Field for field the `PersonaMemory` of sense-memory v2. Times are float Unix seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonaMemory {
    /// Top level of the taxonomy (e.g. `people`).
    pub domain: String,
    /// Second level of the taxonomy, within the domain (e.g. `facts`).
    pub facet: String,
    /// The memory's name, the last part of its address; other memories refer to it by this.
    pub key: String,
    /// The remembered text.
    pub value: String,
    /// Base relevance (1.0 when written); decay multiplies it.
    pub relevance: f64,
    /// Days for relevance to halve without access.
    pub halflife_days: f64,
    /// When it was last read or written; decay counts from here.
    pub last_accessed: f64,
    /// When it was last written or connected.
    pub last_reinforced: f64,
    /// How many times it has been accessed.
    pub access_count: u64,
    /// Keys of related memories.
    pub connections: Vec<String>,
    /// Keys of memories this one contradicts.
    pub contradicts: Vec<String>,
    /// Key of the memory that replaces this one, if any.
    pub superseded_by: Option<String>,
    /// Topic words, matched by search.
    pub themes: Vec<String>,
    /// Where it came from (free text; empty when unknown).
    pub source: String,
    /// Confidence in [0, 1].
    pub confidence: f64,
    /// The state as last stored (the live state is [`PersonaMemory::compute_state`]).
    pub state: MemoryState,
    /// When it was first written.
    pub created_at: f64,
    /// memstr's merge bookkeeping (travels encrypted as `"memstr"`; the published client
    /// ignores it). Empty for memories written elsewhere.
    #[serde(default, skip_serializing_if = "SyncMeta::is_empty")]
    pub sync: SyncMeta,
}

/// What lets two devices' concurrent edits of one memory merge without loss.
/// See docs/sync.md.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncMeta {
    /// Version vector: edits signed per device.
    pub vv: BTreeMap<String, u64>,
    /// Accesses recorded per device (a grow-only counter).
    pub acc: BTreeMap<String, u64>,
    /// When the value and other single-valued fields were last set by a user (not a merge).
    pub written: f64,
    /// Items removed from the sets, so a merge does not bring them back.
    pub removed: Removed,
    /// memstr's lifecycle extras (pinning, importance, FSRS state); see docs/lifecycle.md.
    #[serde(skip_serializing_if = "LifeMeta::is_empty")]
    pub life: LifeMeta,
}

/// Lifecycle state the published client has no field for. It travels inside the
/// encrypted `"memstr"` object, so the client reads such memories unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LifeMeta {
    /// A pinned memory never decays and is never archived or pruned (seed 002).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// Importance in [0, 1]; stretches the memory's stability (seed 000). None: neutral.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// Salience in [0, 1] measured when the memory was stored through the novelty gate
    /// (seed 000: novelty, importance, specificity). None: not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub salience: Option<f64>,
    /// FSRS-6 memory state, kept when the FSRS policy has reviewed this memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsrs: Option<FsrsState>,
    /// When pruning first found this memory dissolved; it is deleted some days later.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dissolved_at: Option<f64>,
    /// Earlier values of a keyed fact (seed 002), oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<FactValue>,
    /// When the memory was archived (by `archive`, or by the lifecycle when it dissolved):
    /// out of search and context, kept locally and on relays, back with `restore` or a
    /// strong cue in search. None: not archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<f64>,
    /// The memory's type as its writer set it (seed 002). None: its facet's
    /// ([`PersonaMemory::memory_type`]). A name this version does not know reads as none.
    #[serde(
        rename = "type",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::memory_type::lenient"
    )]
    pub kind: Option<MemoryType>,
    /// A goal's status as set (None on a goal: open).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::memory_type::lenient")]
    pub goal_status: Option<GoalStatus>,
    /// A procedure's recorded outcomes: successes and failures per device (grow-only).
    #[serde(skip_serializing_if = "Tally::is_empty")]
    pub outcomes: Tally,
    /// The agent's feedback: useful and not-useful votes per device (grow-only).
    #[serde(skip_serializing_if = "Tally::is_empty")]
    pub feedback: Tally,
    /// The context the memory was written in (an episode, a project, a tool): a search
    /// from the same context ranks it higher (seed 001, encoding specificity; the
    /// `context-match` behaviour). A user edit: it merges with the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Retroactive importance (the events it set off, those that captured it) and the
    /// recalls it lost to near duplicates (docs/lifecycle.md).
    #[serde(skip_serializing_if = "Strength::is_empty")]
    pub strength: Strength,
}

/// A value a keyed fact once had.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactValue {
    /// The value the fact had.
    pub value: String,
    /// When it was set, and when a newer value replaced it (float Unix seconds).
    pub from: f64,
    /// When a newer value replaced it (float Unix seconds).
    pub until: f64,
}

/// FSRS-6's per-memory state (seed 001).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct FsrsState {
    /// Days for retrievability to fall to 90%.
    pub stability: f64,
    /// 1 (easy) to 10 (hard).
    pub difficulty: f64,
    /// Time of the last review (float Unix seconds).
    pub last_review: f64,
    /// Reviews so far.
    pub reviews: u32,
}

impl LifeMeta {
    /// Nothing set: the memory behaves exactly as in the published client.
    pub fn is_empty(&self) -> bool {
        *self == LifeMeta::default()
    }

    /// What stretches the memory's time scale: the largest of importance, salience and
    /// the importance captures gave ([`Strength::captured_importance`]), None when none is
    /// set (then decay is exactly the client's).
    pub fn modulation(&self) -> Option<f64> {
        match (self.importance, self.salience, self.strength.captured_importance()) {
            (None, None, None) => None,
            (a, b, c) => Some(a.unwrap_or(0.0).max(b.unwrap_or(0.0)).max(c.unwrap_or(0.0))),
        }
    }
}

/// Removed set members, per set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Removed {
    /// Themes removed.
    pub themes: Vec<String>,
    /// Connections removed (keys).
    pub connections: Vec<String>,
    /// Contradiction links removed (keys).
    pub contradicts: Vec<String>,
}

impl SyncMeta {
    /// No bookkeeping (a memory from the published client, or never edited by memstr).
    pub fn is_empty(&self) -> bool {
        self.vv.is_empty()
            && self.acc.is_empty()
            && self.written == 0.0
            && self.removed == Removed::default()
            && self.life.is_empty()
    }
}

impl PersonaMemory {
    /// A fresh memory with the client's defaults, written at `now`.
    pub fn new(
        domain: impl Into<String>,
        facet: impl Into<String>,
        key: impl Into<String>,
        value: impl Into<String>,
        now: f64,
    ) -> Self {
        PersonaMemory {
            domain: domain.into(),
            facet: facet.into(),
            key: key.into(),
            value: value.into(),
            relevance: 1.0,
            halflife_days: DEFAULT_HALFLIFE_DAYS,
            last_accessed: now,
            last_reinforced: now,
            access_count: 0,
            connections: Vec::new(),
            contradicts: Vec::new(),
            superseded_by: None,
            themes: Vec::new(),
            source: String::new(),
            confidence: 1.0,
            state: MemoryState::Active,
            created_at: now,
            sync: SyncMeta::default(),
        }
    }

    /// `domain/facet/key`, the memory's address within the persona.
    pub fn address(&self) -> String {
        format!("{}/{}/{}", self.domain, self.facet, self.key)
    }

    /// Whether a newer memory replaces this one. An empty `superseded_by` does not count,
    /// as in the client (Python truthiness).
    pub fn is_superseded(&self) -> bool {
        self.superseded_by.as_deref().is_some_and(|s| !s.is_empty())
    }

    /// Relevance at `now`, computed exactly as the client's `current_relevance`:
    /// `relevance * 0.5^(days/halflife)` (that decay to the 4th power when superseded),
    /// times `1 + 0.1 * connections`, times `0.5^contradictions`.
    pub fn current_relevance(&self, now: f64) -> f64 {
        let days = ((now - self.last_accessed) / SECONDS_PER_DAY).max(0.0);
        // powf rather than powi throughout: Python's `**` calls C `pow`, and so does powf.
        let mut decay = 0.5f64.powf(days / self.halflife_days);
        let connection_boost = 1.0 + (self.connections.len() as f64 * 0.1);
        let contradiction_penalty = 0.5f64.powf(self.contradicts.len() as f64);
        if self.is_superseded() {
            decay = decay.powf(4.0);
        }
        self.relevance * decay * connection_boost * contradiction_penalty
    }

    /// The state at `now` (the client's `compute_state`).
    pub fn compute_state(&self, now: f64) -> MemoryState {
        MemoryState::from_relevance(self.current_relevance(now))
    }

    /// Its type: the one its writer set, else the one its facet implies (memories written
    /// by the published client carry none; nothing is rewritten).
    pub fn memory_type(&self) -> MemoryType {
        self.sync.life.kind.unwrap_or_else(|| MemoryType::of_facet(&self.facet))
    }

    /// A goal's status (open unless set); None for memories of other types.
    pub fn goal_status(&self) -> Option<GoalStatus> {
        (self.memory_type() == MemoryType::Goal).then(|| self.sync.life.goal_status.unwrap_or_default())
    }

    /// A procedure's reliability from its recorded outcomes; None for other types.
    pub fn reliability(&self) -> Option<Reliability> {
        (self.memory_type() == MemoryType::Procedure).then(|| self.sync.life.outcomes.posterior())
    }

    /// Checks every rule the client's constructor checks.
    pub fn validate(&self) -> Result<(), ValidationError> {
        super::validate_taxonomy("domain", &self.domain)?;
        super::validate_taxonomy("facet", &self.facet)?;
        super::validate_key(&self.key)?;
        super::validate_value(&self.value)?;
        super::validate_confidence(self.confidence)?;
        super::validate_halflife(self.halflife_days)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400.0;

    fn mem(now: f64) -> PersonaMemory {
        PersonaMemory::new("people", "facts", "alice", "likes tea", now)
    }

    #[test]
    fn fresh_memory_is_fully_relevant() {
        let m = mem(1000.0);
        assert_eq!(m.current_relevance(1000.0), 1.0);
        assert_eq!(m.compute_state(1000.0), MemoryState::Active);
    }

    #[test]
    fn one_halflife_halves_relevance() {
        let m = mem(0.0);
        assert!((m.current_relevance(30.0 * DAY) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn future_access_counts_as_now() {
        let m = mem(10.0 * DAY);
        assert_eq!(m.current_relevance(0.0), 1.0);
    }

    #[test]
    fn connections_boost_contradictions_penalise_supersession_accelerates() {
        let mut m = mem(0.0);
        m.connections = vec!["a".into(), "b".into()];
        assert!((m.current_relevance(0.0) - 1.2).abs() < 1e-12);
        m.contradicts = vec!["c".into()];
        assert!((m.current_relevance(0.0) - 0.6).abs() < 1e-12);
        m.superseded_by = Some("d".into());
        // decay 0.5 after one halflife, to the 4th power: 0.0625
        assert!((m.current_relevance(30.0 * DAY) - 0.0625 * 1.2 * 0.5).abs() < 1e-12);
        m.superseded_by = Some(String::new());
        assert!(!m.is_superseded());
    }

    #[test]
    fn thresholds_are_inclusive() {
        assert_eq!(MemoryState::from_relevance(0.3), MemoryState::Active);
        assert_eq!(MemoryState::from_relevance(0.2999), MemoryState::Fading);
        assert_eq!(MemoryState::from_relevance(0.1), MemoryState::Fading);
        assert_eq!(MemoryState::from_relevance(0.01), MemoryState::Forgotten);
        assert_eq!(MemoryState::from_relevance(0.0099), MemoryState::Dissolved);
    }

    #[test]
    fn state_names_round_trip() {
        for s in MemoryState::ALL {
            assert_eq!(s.as_str().parse::<MemoryState>().unwrap(), s);
        }
        let e = "sleeping".parse::<MemoryState>().unwrap_err();
        assert_eq!(e.rule.name(), "known-state");
    }
}
