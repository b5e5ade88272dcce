//! Episodes (seeds 000, 004): a stretch of an agent's work with a title or goal, a start,
//! an end and an outcome, and the observations made during it, grouped into trajectories.
//!
//! An episode is data, not process state: its record is a flat memory at
//! `memstr-episode:{id}` (so it syncs, survives a restart and reads on another device),
//! its observations are journal entries carrying an [`Observed`] in the encrypted
//! `"memstr"` object (the published client reads them as plain journal entries), and each
//! trajectory's summary is a flat memory at `memstr-trajectory:{id}:{n}`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::display::is_display_control;
use crate::error::{Rule, ValidationError};

/// Key prefix of an episode's record (a flat memory).
pub const EPISODE_KEY_PREFIX: &str = "memstr-episode:";
/// Key prefix of a trajectory's summary (a flat memory).
pub const TRAJECTORY_KEY_PREFIX: &str = "memstr-trajectory:";
/// Longest episode id, in code points.
pub const MAX_EPISODE_ID: usize = 64;
/// Longest title, action, outcome or context, in code points: they label, they do not
/// hold content (the observation's text does).
pub const MAX_LABEL: usize = 1_000;
/// Longest context (a project, a tool, `episode:{id}`), in code points.
pub const MAX_CONTEXT: usize = 256;

/// How an action turned out: success, failure, or what happened in the caller's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
#[non_exhaustive]
pub enum Outcome {
    /// It worked.
    Success,
    /// It did not.
    Failure,
    /// Anything else, as written.
    Other(String),
}

impl Outcome {
    /// Whether the outcome is a plain success or failure (`None`: free text).
    pub fn succeeded(&self) -> Option<bool> {
        match self {
            Outcome::Success => Some(true),
            Outcome::Failure => Some(false),
            Outcome::Other(_) => None,
        }
    }
}

impl From<String> for Outcome {
    fn from(s: String) -> Self {
        match s.trim().to_lowercase().as_str() {
            "success" | "succeeded" | "ok" | "done" => Outcome::Success,
            "failure" | "failed" | "fail" | "error" => Outcome::Failure,
            _ => Outcome::Other(s),
        }
    }
}

impl From<&str> for Outcome {
    fn from(s: &str) -> Self {
        Outcome::from(s.to_string())
    }
}

impl From<Outcome> for String {
    fn from(o: Outcome) -> String {
        o.to_string()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Success => f.write_str("success"),
            Outcome::Failure => f.write_str("failure"),
            Outcome::Other(s) => f.write_str(s),
        }
    }
}

/// Where a journal entry sits when it is an episode's observation, and what was done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Observed {
    /// The episode's id.
    pub episode: String,
    /// The trajectory within the episode, from 0 in time order.
    pub trajectory: u32,
    /// The action taken, if the observation reports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// How it turned out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

impl Observed {
    /// An observation in trajectory `trajectory` of `episode`.
    pub fn new(episode: &str, trajectory: u32) -> Self {
        Observed { episode: episode.to_string(), trajectory, action: None, outcome: None }
    }
}

/// An episode, as its record holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Episode {
    /// Its id (`ep-` and hex digits when memstr made it).
    pub id: String,
    /// Its title or goal.
    pub title: String,
    /// When it started (float Unix seconds).
    pub started_at: f64,
    /// When it ended; `None`: open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<f64>,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The context it was started in (a project, a tool), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl Episode {
    /// The flat-memory key of its record.
    pub fn key(&self) -> String {
        episode_key(&self.id)
    }

    /// The text its record holds, which search and the published client read.
    pub fn text(&self) -> String {
        match (&self.ended_at, &self.outcome) {
            (Some(_), Some(o)) => format!("Episode: {} (ended: {o})", self.title),
            (Some(_), None) => format!("Episode: {} (ended)", self.title),
            _ => format!("Episode: {}", self.title),
        }
    }

    /// The context its observations are written in unless they name another.
    pub fn own_context(&self) -> String {
        episode_context(&self.id)
    }
}

/// The flat-memory key of episode `id`'s record.
pub fn episode_key(id: &str) -> String {
    format!("{EPISODE_KEY_PREFIX}{id}")
}

/// The flat-memory key of the summary of trajectory `n` of episode `id`.
pub fn trajectory_key(id: &str, n: u32) -> String {
    format!("{TRAJECTORY_KEY_PREFIX}{id}:{n}")
}

/// The context an episode's observations carry by default.
pub fn episode_context(id: &str) -> String {
    format!("episode:{id}")
}

/// What a trajectory's summary memory says it summarises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrajectoryRef {
    /// The episode's id.
    pub episode: String,
    /// The trajectory's number.
    pub trajectory: u32,
    /// How many observations it summarised (re-summarised when it grows).
    pub observations: u32,
}

fn fail(field: &'static str, rule: Rule) -> ValidationError {
    ValidationError { field, rule }
}

/// An episode id: 1 to [`MAX_EPISODE_ID`] letters, digits, `-` or `_`.
pub fn validate_episode_id(id: &str) -> Result<(), ValidationError> {
    if id.is_empty() {
        return Err(fail("episode", Rule::Empty));
    }
    let len = id.chars().count();
    if len > MAX_EPISODE_ID {
        return Err(fail("episode", Rule::TooLong { max: MAX_EPISODE_ID, len }));
    }
    if let Some(c) = id.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(fail("episode", Rule::ForbiddenChar(c)));
    }
    Ok(())
}

/// A label (title, action, outcome, context): bounded, no control characters; `field`
/// names it. Empty is refused: an absent label is `None`.
pub fn validate_label(field: &'static str, s: &str, max: usize) -> Result<(), ValidationError> {
    if s.trim().is_empty() {
        return Err(fail(field, Rule::Empty));
    }
    let len = s.chars().count();
    if len > max {
        return Err(fail(field, Rule::TooLong { max, len }));
    }
    if let Some(c) = s.chars().find(|c| is_display_control(*c) || *c == '\n') {
        return Err(fail(field, Rule::ControlChar(c)));
    }
    Ok(())
}

/// A context label ([`MAX_CONTEXT`]).
pub fn validate_context(context: &str) -> Result<(), ValidationError> {
    validate_label("context", context, MAX_CONTEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_success_failure_or_text() {
        assert_eq!(Outcome::from("Success"), Outcome::Success);
        assert_eq!(Outcome::from("failed"), Outcome::Failure);
        assert_eq!(Outcome::from("half done").succeeded(), None);
        let json = serde_json::to_string(&Outcome::Failure).unwrap();
        assert_eq!(json, "\"failure\"");
        assert_eq!(serde_json::from_str::<Outcome>("\"a timeout\"").unwrap(), Outcome::Other("a timeout".into()));
    }

    #[test]
    fn ids_and_labels_are_bounded() {
        assert!(validate_episode_id("ep-0a1b").is_ok());
        assert_eq!(validate_episode_id("a:b").unwrap_err().rule, Rule::ForbiddenChar(':'));
        assert_eq!(validate_episode_id("").unwrap_err().rule, Rule::Empty);
        assert!(validate_context(&"x".repeat(257)).is_err());
        assert!(validate_label("title", "fix\u{1b}[2J", MAX_LABEL).is_err());
        assert!(validate_label("title", "  ", MAX_LABEL).is_err());
    }
}
