//! Episodes, their observations and trajectories, and the contexts writes carry
//! (docs/lifecycle.md, "Episodes and trajectories" and "Context match").

use super::MemoryStore;
use crate::engine::{observations as rows, records};
use crate::error::Result;
use crate::lifecycle::episodes::{self, Observation, ObservationInput};
use crate::model::episode::{validate_context, validate_episode_id, validate_label, MAX_LABEL};
use crate::model::{validate_journal_content, validate_timestamp, Episode, JournalEntry, Outcome};

fn check_outcome(outcome: Option<&Outcome>) -> Result<()> {
    if let Some(Outcome::Other(text)) = outcome {
        validate_label("outcome", text, MAX_LABEL)?;
    }
    Ok(())
}

impl MemoryStore {
    /// Starts an episode with `title` (its goal), in `context` if given (a project, a
    /// tool). Returns it, with its new id. Its record is a memory like any other: it syncs,
    /// and it stays open across restarts until [`MemoryStore::episode_end`].
    pub async fn episode_start(&self, title: &str, context: Option<&str>) -> Result<Episode> {
        validate_label("title", title, MAX_LABEL)?;
        if let Some(c) = context {
            validate_context(c)?;
        }
        episodes::start(&self.parts(), title.to_string(), context.map(str::to_string), self.now()).await
    }

    /// Records an observation in episode `episode` as a journal entry carrying the episode,
    /// its trajectory, and the action and outcome if given (in the encrypted payload; the
    /// published client reads a plain journal entry). With the `trajectories` behaviour on
    /// (the default), an observation that drifts away from the one before starts a new
    /// trajectory. An unknown or ended episode is refused (rules `known-episode`,
    /// `open-episode`).
    pub async fn observe(&self, episode: &str, input: ObservationInput) -> Result<Observation> {
        validate_episode_id(episode)?;
        validate_journal_content(&input.text)?;
        if let Some(a) = &input.action {
            validate_label("action", a, MAX_LABEL)?;
        }
        check_outcome(input.outcome.as_ref())?;
        if let Some(c) = &input.context {
            validate_context(c)?;
        }
        if let Some(at) = input.at {
            validate_timestamp("at", at)?;
        }
        episodes::observe(&self.parts(), episode.to_string(), input).await
    }

    /// Ends episode `episode` with `outcome` (`success`, `failure` or free text). Ending an
    /// unknown or ended episode is refused.
    pub async fn episode_end(&self, episode: &str, outcome: Option<Outcome>) -> Result<Episode> {
        validate_episode_id(episode)?;
        check_outcome(outcome.as_ref())?;
        episodes::end(&self.parts(), episode.to_string(), outcome, self.now()).await
    }

    /// The episode `id`, if its record is live.
    pub async fn episode(&self, id: &str) -> Result<Option<Episode>> {
        validate_episode_id(id)?;
        let id = id.to_string();
        self.engine.read(move |conn, _| rows::episode(conn, &id)).await
    }

    /// Every episode, oldest first.
    pub async fn episodes(&self) -> Result<Vec<Episode>> {
        self.engine.read(|conn, _| rows::episodes(conn)).await
    }

    /// The open episode started last, if any: the one writes and searches take their
    /// context from when they name none (the CLI and the MCP tools).
    pub async fn open_episode(&self) -> Result<Option<Episode>> {
        Ok(self.episodes().await?.into_iter().rfind(|e| e.ended_at.is_none()))
    }

    /// The context of the open episode started last (`episode:{id}`), if any.
    pub async fn current_context(&self) -> Result<Option<String>> {
        Ok(self.open_episode().await?.map(|e| e.own_context()))
    }

    /// Episode `id`'s observations, in time order.
    pub async fn episode_observations(&self, id: &str) -> Result<Vec<JournalEntry>> {
        validate_episode_id(id)?;
        let id = id.to_string();
        Ok(self.engine.read(move |conn, _| rows::observations(conn, &id)).await?.into_iter().map(|(_, j)| j).collect())
    }

    /// [`MemoryStore::journal_at`] written in `context` (stored in the encrypted payload;
    /// a search from the same context ranks it higher with the `context-match` behaviour);
    /// `at` defaults to now.
    pub async fn journal_in(&self, content: &str, context: Option<&str>, at: Option<f64>) -> Result<String> {
        validate_journal_content(content)?;
        if let Some(c) = context {
            validate_context(c)?;
        }
        let at = at.unwrap_or_else(|| self.now());
        validate_timestamp("ts", at)?;
        let mut entry = JournalEntry::new(content, at);
        entry.context = context.map(str::to_string);
        self.parts().write(move |tx, engine, _| Ok(records::append_entry(tx, engine, entry)?.0)).await
    }
}
