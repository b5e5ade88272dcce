//! Arguments the tools read alike: a search's filters (kinds, domain, types, tiers) and a
//! memory's type and goal status, each checked with a message that says what to give.

use super::args::{RememberArgs, SearchArgs};
use super::render::quoted;
use crate::model::{GoalStatus, MemoryType};
use crate::search::{Kind, SearchQuery};

/// Each name of `names` parsed, or a message naming the bad one and the good ones.
fn parsed<T: std::str::FromStr>(names: Option<&[String]>, what: &str, known: &str) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for n in names.unwrap_or_default() {
        match n.trim().to_ascii_lowercase().parse() {
            Ok(t) => out.push(t),
            Err(_) => return Err(format!("unknown {what} {}: use {known}", quoted(n))),
        }
    }
    Ok(out)
}

/// Applies `search`'s filters to `q`.
pub(super) fn search_filters(a: &SearchArgs, q: &mut SearchQuery) -> Result<(), String> {
    for kind in a.kinds.as_deref().unwrap_or_default() {
        q.kinds.push(match kind.trim().to_ascii_lowercase().as_str() {
            "persona" => Kind::Persona,
            "memory" | "kv" => Kind::Memory,
            "journal" => Kind::Journal,
            other => return Err(format!("unknown kind {}: use persona, memory or journal", quoted(other))),
        });
    }
    q.domain = a.domain.as_ref().map(|d| d.trim().to_string()).filter(|d| !d.is_empty());
    q.types = parsed(a.types.as_deref(), "type", TYPES)?;
    q.tiers = parsed::<crate::model::Tier>(a.tiers.as_deref(), "tier", "working, episodic or semantic")?;
    Ok(())
}

const TYPES: &str = "fact, preference, decision, procedure (or lesson), goal, event or milestone";

/// The type and goal status `remember` was given (a status alone makes a goal).
pub(super) fn typing(a: &RememberArgs) -> Result<(Option<MemoryType>, Option<GoalStatus>), String> {
    let t = parsed::<MemoryType>(a.memory_type.as_ref().map(std::slice::from_ref), "type", TYPES)?.pop();
    let g =
        parsed::<GoalStatus>(a.goal_status.as_ref().map(std::slice::from_ref), "goal_status", "open, done or dropped")?
            .pop();
    match (t, g) {
        (Some(t), Some(_)) if t != MemoryType::Goal => {
            Err(format!("goal_status is for goals, and type is {t}: leave goal_status out or give type goal"))
        }
        (t, g) => Ok((t.or(g.map(|_| MemoryType::Goal)), g)),
    }
}
