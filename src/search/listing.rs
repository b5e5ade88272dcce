//! A range listed rather than searched: when a query gives a time range and nothing to
//! match ("what happened last week?", or since/until and no words), every record dated in
//! the range is an answer, so it is listed newest first, counted, and cut only by the limit.
//! Ranking by strength would drop them all: strength measures a match, and there is none.

use rusqlite::Connection;

use super::hybrid::{Found, Kind, SearchHit, Signal};
use super::SearchQuery;
use crate::codec::RecordKind;
use crate::engine::fts::{self, Filter};
use crate::error::Result;
use crate::lifecycle::runtime::Lifecycle;
use crate::model::{JournalEntry, Memory, MemoryState, PersonaMemory};

/// The newest `limit` records `q`'s filters admit (its time range, kinds, domain, facet,
/// states), and how many it admits in all. Archived records stay out (they come back on a
/// strong cue, and a listing has none); persona memories in any state are in unless
/// `q.states` or `q.revive` say otherwise. A listing is a browse, not a recall: it counts
/// no access and revives nothing.
pub(crate) fn list(
    conn: &Connection,
    life: &Lifecycle,
    now: f64,
    q: &SearchQuery,
    limit: usize,
) -> Result<(Vec<SearchHit>, usize)> {
    let kinds: Vec<RecordKind> = match q.kinds.is_empty() {
        true => [Kind::Memory, Kind::Journal, Kind::Persona].iter().map(|k| k.column()).collect(),
        false => q.kinds.iter().map(|k| k.column()).collect(),
    };
    let filter = Filter {
        domain: q.domain.clone(),
        facet: q.facet.clone(),
        since: q.since,
        until: q.until,
        ..Default::default()
    };
    let (mut hits, mut total) = (Vec::new(), 0usize);
    fts::dated(conn, &kinds, &filter, |row| {
        // A domain or facet admits persona memories only (the filter's SQL says so).
        let found = match row.kind {
            RecordKind::Persona => {
                let p: PersonaMemory = serde_json::from_str(&row.payload)?;
                let state = life.live_state(&p, now).1;
                // Decay orders memories, it does not hide them: faded ones are listed with
                // their state unless revival is off (persona_search).
                let wanted = match q.states.is_empty() {
                    true => q.revive || matches!(state, MemoryState::Active | MemoryState::Fading),
                    false => q.states.contains(&state),
                };
                if p.sync.life.archived_at.is_some() || !wanted || !super::reward::admits(&q.types, &q.tiers, &p) {
                    return Ok(());
                }
                Some(Found::Persona(p))
            }
            _ if row.archived || !q.types.is_empty() || !q.tiers.is_empty() => return Ok(()),
            // Only what is shown is decoded: a year's journal is counted, not parsed.
            _ if hits.len() >= limit => None,
            RecordKind::Journal => Some(Found::Journal(serde_json::from_str::<JournalEntry>(&row.payload)?)),
            RecordKind::Kv => Some(Found::Memory(serde_json::from_str::<Memory>(&row.payload)?)),
            _ => return Ok(()),
        };
        total += 1;
        if let Some(found) = found.filter(|_| hits.len() < limit) {
            let recency = super::time::recency(found.time(), now);
            let rank = hits.len() + 1;
            // No match to measure: strength and coverage are 0, the order is the time's.
            hits.push(SearchHit {
                path: row.path,
                score: recency,
                strength: 0.0,
                coverage: 0.0,
                signals: vec![Signal { name: "recency", value: recency, rank: Some(rank), contribution: 0.0 }],
                revived: false,
                status: super::current::status(life, now, &found, false),
                // A listing shows everything dated in the range, history included: the
                // old memory says what replaced it.
                superseded_by: match &found {
                    Found::Persona(m) if m.is_superseded() => {
                        super::current::replacement(conn, m)?.map(|n| n.address())
                    }
                    _ => None,
                },
                typed: None,
                found,
                context: None,
            });
        }
        Ok(())
    })?;
    Ok((hits, total))
}
