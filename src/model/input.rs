//! What a caller hands in to store or find persona memories.

use serde::Deserialize;

use super::{
    validate_confidence, validate_halflife, validate_journal_content, validate_key, validate_taxonomy,
    validate_timestamp, validate_value,
};
use super::{GoalStatus, MemoryType};
use crate::error::{Rule, ValidationError};

/// What to store with [`crate::MemoryStore::persona_remember`]. Unset fields keep the stored
/// memory's values, or take the defaults for a new one.
///
/// As JSON (a persona line of `memstr import --memories`), the fields by these names;
/// `domain`, `facet`, `key` and `value` are required by validation, the rest optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PersonaInput {
    /// The domain (`self`, `people`, ...).
    pub domain: String,
    /// The facet (`facts`, `procedures`, ...).
    pub facet: String,
    /// The key within the facet.
    pub key: String,
    /// The memory's text.
    pub value: String,
    /// Replaces the themes when not empty.
    pub themes: Vec<String>,
    /// Added to the connections.
    pub connections: Vec<String>,
    /// Where it came from (free text).
    pub source: Option<String>,
    /// Confidence in [0, 1].
    pub confidence: Option<f64>,
    /// Halflife in days (the decay's time scale).
    pub halflife_days: Option<f64>,
    /// Importance in [0, 1] (seed 000): stretches the memory's time scale by
    /// `1 + importance` (docs/lifecycle.md). memstr-only; the client ignores it.
    pub importance: Option<f64>,
    /// Salience in [0, 1]; [`crate::MemoryStore::persona_ingest`] measures it when unset.
    pub salience: Option<f64>,
    /// When it was learned (default: now).
    pub at: Option<f64>,
    /// Its type (seed 002); unset: kept, or for a new memory its facet's
    /// ([`crate::model::MemoryType::of_facet`]). memstr-only; the client ignores it.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// A goal's status; sets the type to goal when no type is given.
    pub goal_status: Option<GoalStatus>,
    /// The context it is written in (a project, a tool, `episode:{id}`); stored in
    /// `LifeMeta::context` (the `context-match` behaviour). Unset keeps the stored one.
    pub context: Option<String>,
}

impl PersonaInput {
    /// A memory `key` in `domain`/`facet` with `value`.
    pub fn new(domain: &str, facet: &str, key: &str, value: &str) -> Self {
        PersonaInput {
            domain: domain.into(),
            facet: facet.into(),
            key: key.into(),
            value: value.into(),
            ..Default::default()
        }
    }
    /// Its themes (replacing the stored ones).
    pub fn themes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, themes: I) -> Self {
        self.themes = themes.into_iter().map(Into::into).collect();
        self
    }
    /// Keys it connects to (added to the stored ones).
    pub fn connections<I: IntoIterator<Item = S>, S: Into<String>>(mut self, keys: I) -> Self {
        self.connections = keys.into_iter().map(Into::into).collect();
        self
    }
    /// Where it came from.
    pub fn source(mut self, source: &str) -> Self {
        self.source = Some(source.into());
        self
    }
    /// Confidence in [0, 1].
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }
    /// Halflife in days.
    pub fn halflife_days(mut self, days: f64) -> Self {
        self.halflife_days = Some(days);
        self
    }
    /// When it was learned (Unix seconds).
    pub fn at(mut self, at: f64) -> Self {
        self.at = Some(at);
        self
    }
    /// Importance in [0, 1].
    pub fn importance(mut self, importance: f64) -> Self {
        self.importance = Some(importance);
        self
    }
    /// Its type.
    pub fn memory_type(mut self, t: MemoryType) -> Self {
        self.memory_type = Some(t);
        self
    }
    /// A goal's status.
    pub fn goal_status(mut self, g: GoalStatus) -> Self {
        self.goal_status = Some(g);
        self
    }
    /// The context it is written in.
    pub fn context(mut self, context: &str) -> Self {
        self.context = Some(context.into());
        self
    }

    pub(crate) fn validate(&self) -> std::result::Result<(), ValidationError> {
        validate_taxonomy("domain", &self.domain)?;
        validate_taxonomy("facet", &self.facet)?;
        validate_key(&self.key)?;
        validate_value(&self.value)?;
        for k in &self.connections {
            validate_key(k)?;
            if *k == self.key {
                return Err(ValidationError { field: "connections", rule: Rule::SelfReference });
            }
        }
        if let Some(c) = self.confidence {
            validate_confidence(c)?;
        }
        if let Some(h) = self.halflife_days {
            validate_halflife(h)?;
        }
        for (field, v) in [("importance", self.importance), ("salience", self.salience)] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ValidationError { field, rule: Rule::OutOfRange { min: 0.0, max: 1.0, value: v } });
                }
            }
        }
        if let Some(at) = self.at {
            validate_timestamp("at", at)?;
        }
        if let (Some(t), Some(_)) = (self.memory_type, self.goal_status) {
            if t != MemoryType::Goal {
                return Err(ValidationError { field: "goal_status", rule: Rule::NotAGoal(t.to_string()) });
            }
        }
        if let Some(c) = &self.context {
            super::episode::validate_context(c)?;
        }
        Ok(())
    }
}

/// One memory of a batch ([`crate::MemoryStore::write_batch`]): what a single
/// `remember_at`, `journal_at` or `persona_remember` call would take.
///
/// As JSON (a line of `memstr import --memories`), an object whose `kind` names the
/// variant, with the variant's fields and nothing else:
/// `{"kind":"kv","key":"editor","value":"vim","at":1767225600}`,
/// `{"kind":"journal","content":"Met Alice"}`,
/// `{"kind":"persona","domain":"people","facet":"facts","key":"alice","value":"Alice likes tea"}`.
/// `at` is Unix seconds (default: the time of the batch).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
// Items are handed in once and moved into a batch, never stored in bulk: the persona
// variant's size costs nothing worth a box (and a box would change the public type).
#[allow(clippy::large_enum_variant)]
#[non_exhaustive]
pub enum BatchItem {
    /// A flat memory ([`crate::MemoryStore::remember_at`]): `value` under `key`, replacing
    /// any previous value.
    Kv {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// The memory's own time, Unix seconds (default: now).
        #[serde(default)]
        at: Option<f64>,
    },
    /// A journal entry ([`crate::MemoryStore::journal_at`]).
    Journal {
        /// The entry's text.
        content: String,
        /// The entry's time, Unix seconds (default: now).
        #[serde(default)]
        at: Option<f64>,
    },
    /// A persona memory ([`crate::MemoryStore::persona_remember`]: no novelty gate).
    Persona(PersonaInput),
}

impl BatchItem {
    /// A flat memory `value` under `key`.
    pub fn kv(key: impl Into<String>, value: impl Into<String>) -> Self {
        BatchItem::Kv { key: key.into(), value: value.into(), at: None }
    }
    /// A journal entry.
    pub fn journal(content: impl Into<String>) -> Self {
        BatchItem::Journal { content: content.into(), at: None }
    }
    /// A persona memory.
    pub fn persona(input: PersonaInput) -> Self {
        BatchItem::Persona(input)
    }
    /// Its own time (Unix seconds).
    pub fn at(mut self, t: f64) -> Self {
        match &mut self {
            BatchItem::Kv { at, .. } | BatchItem::Journal { at, .. } => *at = Some(t),
            BatchItem::Persona(input) => input.at = Some(t),
        }
        self
    }
    /// Its own time, if given.
    pub fn time(&self) -> Option<f64> {
        match self {
            BatchItem::Kv { at, .. } | BatchItem::Journal { at, .. } => *at,
            BatchItem::Persona(input) => input.at,
        }
    }

    /// The rules the single call checks, in the same order.
    pub(crate) fn validate(&self) -> std::result::Result<(), ValidationError> {
        match self {
            BatchItem::Kv { key, value, at } => {
                validate_key(key)?;
                validate_value(value)?;
                at.map_or(Ok(()), |t| validate_timestamp("at", t))
            }
            BatchItem::Journal { content, at } => {
                validate_journal_content(content)?;
                at.map_or(Ok(()), |t| validate_timestamp("at", t))
            }
            BatchItem::Persona(input) => input.validate(),
        }
    }
}

/// Which persona memories [`crate::MemoryStore::persona_recall`] returns; unset fields match all.
#[derive(Debug, Clone, Default)]
pub struct PersonaQuery {
    /// Only this domain.
    pub domain: Option<String>,
    /// Only this facet.
    pub facet: Option<String>,
    /// Only this key.
    pub key: Option<String>,
}

impl PersonaQuery {
    /// Everything.
    pub fn all() -> Self {
        Self::default()
    }
    /// Exactly one address.
    pub fn exact(domain: &str, facet: &str, key: &str) -> Self {
        PersonaQuery { domain: Some(domain.into()), facet: Some(facet.into()), key: Some(key.into()) }
    }
}
