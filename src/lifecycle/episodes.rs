//! Episodes and their observations (seeds 000, 004; docs/lifecycle.md, "Episodes and
//! trajectories"): starting one, observing into it, ending it. Each observation joins the
//! trajectory of the one before it, or starts the next one where the two drift apart
//! ([`super::trajectory`], the `trajectories` behaviour).
//!
//! Everything is data: the episode's record and its observations are events like any
//! memory, so an open episode survives a restart and continues on another device.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use super::trajectory::Drift;
use super::{Behaviour, Parts};
use crate::engine::{observations as rows, records};
use crate::error::{Result, Rule, ValidationError};
use crate::model::{Episode, JournalEntry, Observed, Outcome};

/// What one observation brings (see [`crate::MemoryStore::observe`]).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ObservationInput {
    /// What was observed.
    pub text: String,
    /// The action it reports, if any.
    pub action: Option<String>,
    /// How the action turned out.
    pub outcome: Option<Outcome>,
    /// The context it was written in (default: the episode's, `episode:{id}`).
    pub context: Option<String>,
    /// When (default: now).
    pub at: Option<f64>,
}

impl ObservationInput {
    /// An observation of `text`.
    pub fn new(text: &str) -> Self {
        ObservationInput { text: text.to_string(), ..Default::default() }
    }
    /// The action it reports.
    pub fn action(mut self, action: &str) -> Self {
        self.action = Some(action.to_string());
        self
    }
    /// How the action turned out (`success`, `failure` or free text).
    pub fn outcome(mut self, outcome: impl Into<Outcome>) -> Self {
        self.outcome = Some(outcome.into());
        self
    }
    /// The context it was written in.
    pub fn context(mut self, context: &str) -> Self {
        self.context = Some(context.to_string());
        self
    }
    /// When it was observed.
    pub fn at(mut self, at: f64) -> Self {
        self.at = Some(at);
        self
    }
}

/// What [`crate::MemoryStore::observe`] stored.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Observation {
    /// The journal entry's path.
    pub path: String,
    /// The episode.
    pub episode: String,
    /// Its trajectory within the episode (from 0).
    pub trajectory: u32,
    /// Whether it started that trajectory (the first observation starts trajectory 0).
    pub new_trajectory: bool,
    /// Its similarity with the observation before it, and by which measure (`None`: the
    /// first, or the `trajectories` behaviour is off).
    #[serde(skip)]
    pub drift: Option<Drift>,
    /// The similarity, as a number (for `--json` and the MCP reply).
    pub similarity: Option<f64>,
}

fn unknown(id: &str) -> crate::error::Error {
    ValidationError { field: "episode", rule: Rule::UnknownEpisode(id.to_string()) }.into()
}

fn ended(id: &str) -> crate::error::Error {
    ValidationError { field: "episode", rule: Rule::EpisodeEnded(id.to_string()) }.into()
}

/// A fresh episode id: `ep-` and 16 hex digits, random per process and counted within it.
fn new_id(device: &str, now: f64) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = (device, now.to_bits(), COUNTER.fetch_add(1, Ordering::Relaxed), std::process::id());
    format!("ep-{:016x}", std::collections::hash_map::RandomState::new().hash_one(seed))
}

/// Starts an episode titled `title` (its goal) at `at`.
pub(crate) async fn start(parts: &Parts, title: String, context: Option<String>, at: f64) -> Result<Episode> {
    let id = new_id(parts.engine.device(), at);
    let e = Episode { id, title, started_at: at, ended_at: None, outcome: None, context };
    let out = e.clone();
    parts.write(move |tx, engine, _| rows::put_episode(tx, engine, &e, at)).await?;
    Ok(out)
}

/// Ends episode `id` with `outcome` at `at`.
pub(crate) async fn end(parts: &Parts, id: String, outcome: Option<Outcome>, at: f64) -> Result<Episode> {
    parts
        .write(move |tx, engine, _| {
            let mut e = rows::episode(tx, &id)?.ok_or_else(|| unknown(&id))?;
            if e.ended_at.is_some() {
                return Err(ended(&id));
            }
            e.ended_at = Some(at.max(e.started_at));
            e.outcome = outcome;
            rows::put_episode(tx, engine, &e, at)?;
            Ok(e)
        })
        .await
}

/// Observes `input` in episode `id`: its trajectory is the last observation's, or the next
/// one when the two drift apart.
pub(crate) async fn observe(parts: &Parts, id: String, input: ObservationInput) -> Result<Observation> {
    let at = input.at.unwrap_or_else(|| parts.engine.now());
    let lookup = id.clone();
    let (episode, last) = parts
        .engine
        .read(move |conn, _| Ok((rows::episode(conn, &lookup)?, rows::observations(conn, &lookup)?.pop())))
        .await?;
    let episode = episode.ok_or_else(|| unknown(&id))?;
    if episode.ended_at.is_some() {
        return Err(ended(&id));
    }
    let splitting = parts.life.options.behaviours.is_on(Behaviour::Trajectories);
    let (trajectory, drift) = match (&last, splitting) {
        (None, _) => (0, None),
        (Some((_, prev)), false) => (prev.observed.as_ref().map_or(0, |o| o.trajectory), None),
        (Some((_, prev)), true) => {
            let drift = drift_between(parts, &prev.content, &input.text).await?;
            let was = prev.observed.as_ref().map_or(0, |o| o.trajectory);
            (if drift.starts_new() { was + 1 } else { was }, Some(drift))
        }
    };
    let mut observed = Observed::new(&id, trajectory);
    observed.action = input.action;
    observed.outcome = input.outcome;
    let mut entry = JournalEntry::new(&input.text, at);
    entry.context = Some(input.context.unwrap_or_else(|| episode.own_context()));
    entry.observed = Some(observed.clone());
    let path = parts
        .write(move |tx, engine, life| {
            // Ended in between (another writer): refused as if it had been seen ended.
            if rows::episode(tx, &observed.episode)?.is_none_or(|e| e.ended_at.is_some()) {
                return Err(ended(&observed.episode));
            }
            let (_, path) = records::append_entry(tx, engine, entry)?;
            outcome_observed(tx, engine, life, &observed)?;
            Ok(path)
        })
        .await?;
    let new_trajectory = last.is_none() || drift.is_some_and(Drift::starts_new);
    Ok(Observation { path, episode: id, trajectory, new_trajectory, similarity: drift.map(Drift::similarity), drift })
}

/// An action that names a procedure (its key or address) with a plain success or failure
/// counts as one of the procedure's outcomes ([`super::verdicts::record_outcome`]), in the
/// observation's transaction. Any other action is free text, kept with the observation
/// only: an action naming no memory, or a memory of another type, is not an error.
fn outcome_observed(
    tx: &rusqlite::Transaction,
    engine: &crate::engine::Engine,
    life: &super::runtime::Lifecycle,
    observed: &Observed,
) -> Result<()> {
    let (Some(action), Some(success)) = (&observed.action, observed.outcome.as_ref().and_then(Outcome::succeeded))
    else {
        return Ok(());
    };
    let Ok(procedure) = records::resolve_persona(tx, action.trim()) else { return Ok(()) };
    if procedure.memory_type() != crate::model::MemoryType::Procedure {
        return Ok(());
    }
    let outcome =
        if success { super::verdicts::ActionOutcome::Success } else { super::verdicts::ActionOutcome::Failure };
    super::verdicts::record_outcome(tx, engine, life, &procedure.address(), outcome)?;
    Ok(())
}

/// How alike two consecutive observations are: by the store's model when it has one, by
/// their words otherwise.
async fn drift_between(parts: &Parts, before: &str, after: &str) -> Result<Drift> {
    #[cfg(feature = "vectors")]
    if let Some(state) = parts.vectors.clone() {
        let (a, b) = (before.to_string(), after.to_string());
        let v = crate::engine::blocking(move || state.embedder.embed(&[&a, &b])).await?;
        if let [va, vb] = v.as_slice() {
            return Ok(Drift::measure(before, after, Some((va, vb))));
        }
    }
    let _ = parts;
    Ok(Drift::measure(before, after, None))
}
