//! The episode tools (`episode_start`, `observe`, `episode_end`) and the context that
//! `remember`, `journal` and `search` take (docs/agents.md; docs/lifecycle.md, "Episodes
//! and trajectories", "Context match").

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::args::{EpisodeEndArgs, EpisodeStartArgs, ObserveArgs, SearchArgs};
use super::render::quoted;
use super::reply::{fail, ok, store_error, ToolResult};
use super::tools::MemoryServer;
use crate::model::Outcome;
use crate::{ObservationInput, PersonaInput, SearchQuery};

/// A blank optional argument counts as absent.
fn given(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl MemoryServer {
    /// The context a write or search names, else the open episode's (none when the store
    /// cannot say: the write or search goes ahead without one).
    async fn context_or_open(&self, context: &Option<String>) -> Option<String> {
        match given(context) {
            Some(c) => Some(c.to_string()),
            None => self.store.current_context().await.ok().flatten(),
        }
    }

    /// `remember`'s input from the MCP, in its context.
    pub(super) async fn persona_input(&self, input: PersonaInput, context: &Option<String>) -> PersonaInput {
        let input = input.source("mcp");
        match self.context_or_open(context).await {
            Some(c) => input.context(&c),
            None => input,
        }
    }

    /// `journal`'s write, in its context.
    pub(super) async fn journal_in_context(
        &self,
        content: &str,
        at: f64,
        context: &Option<String>,
    ) -> crate::Result<String> {
        let context = self.context_or_open(context).await;
        self.store.journal_in(content, context.as_deref(), Some(at)).await
    }

    /// `search`'s query, from its context, with the episodes' context if asked.
    pub(super) async fn query_in_context(&self, mut q: SearchQuery, a: &SearchArgs) -> SearchQuery {
        q.context = self.context_or_open(&a.context).await;
        q.with_context = a.with_context.unwrap_or(false);
        q
    }

    /// The episode named, or the open one started last.
    async fn episode_or_open(&self, episode: &Option<String>) -> Result<String, ToolResult> {
        match given(episode) {
            Some(id) => Ok(id.to_string()),
            None => match self.store.open_episode().await {
                Ok(Some(e)) => Ok(e.id),
                Ok(None) => Err(fail("no episode is open: call episode_start first, or give the episode's id")),
                Err(e) => Err(store_error(e)),
            },
        }
    }
}

#[tool_router(router = episode_router, vis = "pub(super)")]
impl MemoryServer {
    #[tool(
        description = "Start an episode: a task or session with a title or goal. Returns its id. While it is open, \
journal entries and memories you write carry its context, and `observe` records what happens in it, grouped into \
trajectories (a new one where the subject changes). End it with episode_end. An open episode survives restarts and \
syncs to your other devices."
    )]
    async fn episode_start(&self, Parameters(a): Parameters<EpisodeStartArgs>) -> ToolResult {
        match self.store.episode_start(a.title.trim(), given(&a.context)).await {
            Ok(e) => ok(format!("episode {} started: {}", quoted(&e.id), quoted(&e.title)), json!(e)),
            Err(e) => store_error(e),
        }
    }

    #[tool(description = "Record an observation in an episode (default: the open one started last): what you saw or \
did, optionally the action and its outcome (success, failure, or a few words). Stored encrypted as a journal entry of \
the episode; returns its trajectory (a new trajectory starts where the subject drifts away from the observation before).")]
    async fn observe(&self, Parameters(a): Parameters<ObserveArgs>) -> ToolResult {
        let id = match self.episode_or_open(&a.episode).await {
            Ok(id) => id,
            Err(reply) => return reply,
        };
        let mut input = ObservationInput::new(a.content.trim());
        input.action = given(&a.action).map(str::to_string);
        input.outcome = given(&a.outcome).map(Outcome::from);
        input.context = given(&a.context).map(str::to_string);
        match self.store.observe(&id, input).await {
            Ok(o) => {
                let new = if o.new_trajectory { " (a new trajectory)" } else { "" };
                ok(
                    format!(
                        "observed in episode {}, trajectory {}{new}: {}",
                        quoted(&o.episode),
                        o.trajectory,
                        quoted(&o.path)
                    ),
                    json!(o),
                )
            }
            Err(e) => store_error(e),
        }
    }

    #[tool(
        description = "End an episode (default: the open one started last) with its outcome: success, failure, or a \
few words. Nothing more can be observed in it; consolidation summarises its trajectories."
    )]
    async fn episode_end(&self, Parameters(a): Parameters<EpisodeEndArgs>) -> ToolResult {
        let id = match self.episode_or_open(&a.episode).await {
            Ok(id) => id,
            Err(reply) => return reply,
        };
        match self.store.episode_end(&id, given(&a.outcome).map(Outcome::from)).await {
            Ok(e) => {
                let outcome = e.outcome.as_ref().map(|o| format!(": {}", quoted(&o.to_string()))).unwrap_or_default();
                ok(format!("episode {} ended{outcome}", quoted(&e.id)), json!(e))
            }
            Err(e) => store_error(e),
        }
    }
}
