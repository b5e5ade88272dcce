//! Dream insights (seed 001): what a consolidation cycle noticed across memories, each
//! with the memories it rests on. Stored as records of their own, never searched.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What an insight says about its memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum InsightKind {
    /// Memories alike in what they say though filed apart: different domains, no
    /// shared theme, not connected.
    HiddenConnection,
    /// A theme that recurs across many memories and days.
    RecurringPattern,
    /// Two memories that disagree and are not yet marked as contradicting or replaced.
    Contradiction,
    /// Something referred to often and never described, or needed and fading.
    KnowledgeGap,
    /// A theme whose memories come more often, or less often, than before.
    TemporalTrend,
}

impl InsightKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [InsightKind; 5] = [
        InsightKind::HiddenConnection,
        InsightKind::RecurringPattern,
        InsightKind::Contradiction,
        InsightKind::KnowledgeGap,
        InsightKind::TemporalTrend,
    ];

    /// The stable name (`hidden-connection`, `recurring-pattern`, `contradiction`,
    /// `knowledge-gap`, `temporal-trend`).
    pub fn as_str(self) -> &'static str {
        match self {
            InsightKind::HiddenConnection => "hidden-connection",
            InsightKind::RecurringPattern => "recurring-pattern",
            InsightKind::Contradiction => "contradiction",
            InsightKind::KnowledgeGap => "knowledge-gap",
            InsightKind::TemporalTrend => "temporal-trend",
        }
    }
}

impl fmt::Display for InsightKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One insight, as stored (`sense-memory/insight/{key}`, encrypted like every record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Insight {
    /// Its address's last segment: the kind and a fixed hash of its subject, so the same
    /// insight found again (on any device) lands on the same record.
    pub key: String,
    /// What it says.
    pub kind: InsightKind,
    /// What it is about: a theme, a name, or the two memories' addresses.
    pub subject: String,
    /// One templated sentence (no model writes it).
    pub text: String,
    /// How strongly the evidence supports it, 0..1 (the rule's own measure: similarity,
    /// share, ratio).
    pub strength: f64,
    /// The memories it rests on, by address (at most a dozen, the most telling first).
    pub evidence: Vec<String>,
    /// When a cycle first found it (float Unix seconds).
    pub found_at: f64,
    /// When a cycle last changed it.
    pub updated_at: f64,
}

impl Insight {
    /// Whether two findings say the same (times aside): an unchanged insight is not
    /// written again.
    pub fn same_finding(&self, other: &Insight) -> bool {
        (self.kind, &self.subject, &self.text, self.strength, &self.evidence)
            == (other.kind, &other.subject, &other.text, other.strength, &other.evidence)
    }
}
