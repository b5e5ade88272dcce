//! One persona memory's strength as the lifecycle sees it now: its live relevance and
//! state, the importance that stretches its decay and where it came from (retroactive
//! captures), and the recalls it lost (retrieval-induced forgetting). A read.

use serde::Serialize;

use super::competition::competition_factor;
use super::runtime::Lifecycle;
use crate::engine::records;
use crate::error::Result;
use crate::model::{Capture, ImportanceEvent, MemoryState};

/// What [`crate::MemoryStore::memory_strength`] reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct MemoryStrength {
    /// `domain/facet/key`.
    pub address: String,
    /// Live relevance under the decay policy, losses applied.
    pub relevance: f64,
    /// Live state.
    pub state: MemoryState,
    /// What stretches its decay: the largest of importance, salience and captures.
    pub importance: Option<f64>,
    /// The importance captures gave, together (at most [`crate::model::CAPTURE_CAP`]).
    pub captured_importance: Option<f64>,
    /// Events that captured it.
    pub captured_by: Vec<Capture>,
    /// Events it set off, with their clusters.
    pub events: Vec<ImportanceEvent>,
    /// Recalls it lost to near duplicates, on every device.
    pub losses: u64,
    /// What they multiply its relevance by ([`competition_factor`]).
    pub competition_factor: f64,
    /// Pinned: no event or loss weakens or needs to strengthen it.
    pub pinned: bool,
}

/// The strength of the memory at `reference` (a key or `domain/facet/key`) at `now`.
pub(crate) fn of(conn: &rusqlite::Connection, life: &Lifecycle, now: f64, reference: &str) -> Result<MemoryStrength> {
    let m = records::resolve_persona(conn, reference)?;
    let (relevance, state) = life.live_state(&m, now);
    let s = &m.sync.life.strength;
    Ok(MemoryStrength {
        address: m.address(),
        relevance,
        state,
        importance: m.sync.life.modulation(),
        captured_importance: s.captured_importance(),
        captured_by: s.captured.clone(),
        events: s.events.clone(),
        losses: s.losses(),
        competition_factor: competition_factor(s.losses()),
        pinned: m.sync.life.pinned,
    })
}
