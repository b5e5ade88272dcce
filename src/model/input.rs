//! What a caller hands in to store or find persona memories.

use super::{
    validate_confidence, validate_halflife, validate_key, validate_taxonomy, validate_timestamp, validate_value,
};
use crate::error::{Rule, ValidationError};

/// What to store with [`crate::MemoryStore::persona_remember`]. Unset fields keep the stored
/// memory's values, or take the defaults for a new one.
#[derive(Debug, Clone, Default)]
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
        Ok(())
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
