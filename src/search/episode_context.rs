//! A hit's episode context (`SearchQuery::with_context`; docs/lifecycle.md, "Episodes and
//! trajectories"): the episode's title and outcome, the trajectory's summary when
//! consolidation wrote one, and the observations beside the hit in its trajectory, each
//! bounded, so a hit brings the story it belongs to without flooding the reply.

use rusqlite::Connection;
use serde::Serialize;

use super::hybrid::{Found, SearchHit};
use crate::engine::{observations as rows, records};
use crate::error::Result;
use crate::model::episode::trajectory_key;

/// Observations shown on each side of a hit.
pub const CONTEXT_NEIGHBOURS: usize = 2;
/// Longest text shown for a neighbour or a summary, in characters (a longer one is cut
/// and ends with `…`).
pub const CONTEXT_CHARS: usize = 300;

/// The episode a hit belongs to, bounded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EpisodeContext {
    /// The episode's id.
    pub episode: String,
    /// Its title or goal.
    pub title: String,
    /// When it ended (`None`: open).
    pub ended_at: Option<f64>,
    /// How it ended.
    pub outcome: Option<String>,
    /// The hit's trajectory (observations only).
    pub trajectory: Option<u32>,
    /// The trajectory's summary, when consolidation has written one.
    pub summary: Option<String>,
    /// Up to [`CONTEXT_NEIGHBOURS`] observations before and after the hit in its
    /// trajectory, in time order.
    pub neighbours: Vec<String>,
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(CONTEXT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Fills in each hit's [`SearchHit::context`] from the store.
pub(crate) fn attach(conn: &Connection, hits: &mut [SearchHit]) -> Result<()> {
    for hit in hits.iter_mut() {
        let Some(id) = hit.found.episode().map(str::to_string) else { continue };
        let Some(e) = rows::episode(conn, &id)? else { continue };
        let trajectory = match &hit.found {
            Found::Journal(j) => j.observed.as_ref().map(|o| o.trajectory),
            Found::Memory(m) => m.summary_of.as_ref().map(|t| t.trajectory),
            Found::Persona(_) => None,
        };
        let mut neighbours = Vec::new();
        let mut summary = None;
        if let Some(t) = trajectory {
            if let Some(crate::codec::Payload::Kv(m)) =
                records::payload_at(conn, &crate::codec::Path::Kv { key: trajectory_key(&id, t) })?
            {
                summary = Some(cut(&m.value));
            }
            if matches!(hit.found, Found::Journal(_)) {
                let same: Vec<(String, String)> = rows::observations(conn, &id)?
                    .into_iter()
                    .filter(|(_, j)| j.observed.as_ref().is_some_and(|o| o.trajectory == t))
                    .map(|(p, j)| (p, j.content))
                    .collect();
                if let Some(at) = same.iter().position(|(p, _)| *p == hit.path) {
                    let from = at.saturating_sub(CONTEXT_NEIGHBOURS);
                    let to = (at + CONTEXT_NEIGHBOURS + 1).min(same.len());
                    neighbours = (from..to).filter(|i| *i != at).map(|i| cut(&same[i].1)).collect();
                }
            }
        }
        hit.context = Some(EpisodeContext {
            episode: e.id.clone(),
            title: cut(&e.title),
            ended_at: e.ended_at,
            outcome: e.outcome.map(|o| cut(&o.to_string())),
            trajectory,
            summary,
            neighbours,
        });
    }
    Ok(())
}
