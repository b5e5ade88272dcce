//! `memstr episode start|observe|end|list|show` and the context writes and searches take
//! (docs/lifecycle.md, "Episodes and trajectories", "Context match").

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Subcommand;
use memstr::display;
use memstr::model::Outcome;
use memstr::{Episode, MemoryStore, ObservationInput};
use serde_json::json;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub(crate) enum EpisodeCommand {
    /// Start an episode (a task, a session) with its title or goal; prints its id.
    Start {
        /// What the episode is about, or its goal.
        title: String,
        /// The context it runs in (a project, a tool).
        #[arg(long, value_name = "CONTEXT")]
        context: Option<String>,
    },
    /// Record an observation in an episode: a journal entry carrying the episode, its
    /// trajectory (a new one where the subject drifts), and the action and outcome.
    Observe {
        /// What was observed; `-` reads it from standard input.
        text: String,
        /// The episode [default: the open episode started last].
        #[arg(long, value_name = "ID")]
        episode: Option<String>,
        /// The action the observation reports.
        #[arg(long, value_name = "TEXT")]
        action: Option<String>,
        /// How it turned out: success, failure, or free text.
        #[arg(long, value_name = "success|failure|TEXT")]
        outcome: Option<String>,
        /// The context it was written in [default: the episode's, episode:ID].
        #[arg(long, value_name = "CONTEXT")]
        context: Option<String>,
    },
    /// End an episode, with its outcome.
    End {
        /// The episode [default: the open episode started last].
        #[arg(long, value_name = "ID")]
        episode: Option<String>,
        /// How it ended: success, failure, or free text.
        #[arg(long, value_name = "success|failure|TEXT")]
        outcome: Option<String>,
    },
    /// Every episode, oldest first.
    List,
    /// An episode and its observations, trajectory by trajectory.
    Show {
        /// The episode's id.
        id: String,
    },
}

impl EpisodeCommand {
    /// Whether the command wants the model: an observation's trajectory is decided by it.
    pub(crate) fn wants_vectors(&self) -> bool {
        matches!(self, EpisodeCommand::Observe { .. })
    }
}

/// The episode named, or the open one started last.
async fn chosen(store: &MemoryStore, id: &Option<String>) -> Result<String> {
    match id {
        Some(id) => Ok(id.clone()),
        None => match store.open_episode().await? {
            Some(e) => Ok(e.id),
            None => bail!("no open episode: start one with `memstr episode start TITLE`, or name one with --episode"),
        },
    }
}

fn episode_line(e: &Episode) -> String {
    let state = match (&e.ended_at, &e.outcome) {
        (None, _) => "open".to_string(),
        (Some(_), Some(o)) => format!("ended: {o}"),
        (Some(_), None) => "ended".to_string(),
    };
    format!(
        "{}\t{}\t{}\t{}",
        e.id,
        memstr::search::query::utc_string(e.started_at),
        display::line(&state),
        display::line(&e.title)
    )
}

pub(crate) async fn run(store: &MemoryStore, out: &Out, cmd: &EpisodeCommand) -> Result<ExitCode> {
    match cmd {
        EpisodeCommand::Start { title, context } => {
            let e = store.episode_start(title, context.as_deref()).await?;
            out.episode(&e, || e.id.clone());
        }
        EpisodeCommand::Observe { text, episode, action, outcome, context } => {
            let id = chosen(store, episode).await?;
            let mut input = ObservationInput::new(&crate::cli::value_arg(text)?);
            input.action = action.clone();
            input.outcome = outcome.as_deref().map(Outcome::from);
            input.context = context.clone();
            let o = store.observe(&id, input).await?;
            out.value_or_json(&json!(o), || {
                let new = if o.new_trajectory { " (new)" } else { "" };
                format!("{}\ttrajectory {}{new}\t{}", o.episode, o.trajectory, display::line(&o.path))
            });
        }
        EpisodeCommand::End { episode, outcome } => {
            let id = chosen(store, episode).await?;
            let e = store.episode_end(&id, outcome.as_deref().map(Outcome::from)).await?;
            out.episode(&e, || episode_line(&e));
        }
        EpisodeCommand::List => {
            let all = store.episodes().await?;
            out.value_or_json(&json!(all), || all.iter().map(episode_line).collect::<Vec<_>>().join("\n"));
        }
        EpisodeCommand::Show { id } => {
            let Some(e) = store.episode(id).await? else {
                out.not_found(id);
                return Ok(ExitCode::from(1));
            };
            let observations = store.episode_observations(id).await?;
            out.value_or_json(&json!({"episode": e, "observations": observations}), || {
                let mut lines = vec![episode_line(&e)];
                for o in &observations {
                    let t = o.observed.as_ref().map_or(0, |x| x.trajectory);
                    let did = o.observed.as_ref().and_then(|x| x.action.as_ref().map(|a| (a, &x.outcome)));
                    let did = did
                        .map(|(a, r)| {
                            let r = r.as_ref().map(|r| format!(" → {r}")).unwrap_or_default();
                            format!("\t[{}]", display::line(&format!("{a}{r}")))
                        })
                        .unwrap_or_default();
                    lines.push(format!(
                        "  {t}\t{}\t{}{did}",
                        memstr::search::query::utc_string(o.created_at),
                        display::line(&o.content)
                    ));
                }
                lines.join("\n")
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `memstr journal`: in the context given, else the open episode's.
pub(crate) async fn journal(store: &MemoryStore, text: &str, at: f64, context: Option<&str>) -> Result<String> {
    let context = match context {
        Some(c) => Some(c.to_string()),
        None => store.current_context().await?,
    };
    Ok(store.journal_in(text, context.as_deref(), Some(at)).await?)
}
