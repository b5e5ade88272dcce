//! The current truth in every answer: each hit says where it stands ([`Status`]), and a
//! memory a newer one replaces is history. Without [`SearchQuery::history`] it leaves the
//! results and its replacement takes its place (a query that matched "I live in Berlin"
//! answers with "I moved from Berlin to Lisbon"); with it, the old memory follows its
//! replacement, never precedes it.
//!
//! [`SearchQuery::history`]: super::SearchQuery::history

use rusqlite::Connection;

use super::{Found, SearchHit};
use crate::codec::Path;
use crate::engine::records;
use crate::error::Result;
use crate::lifecycle::runtime::Lifecycle;
use crate::model::{MemoryState, PersonaMemory, Status};

/// Links followed from a superseded memory to the one now current: a chain longer than
/// this (or a cycle two devices' contradictions made) stops at the last memory reached.
const MAX_HOPS: usize = 8;

/// The memory that replaces `m` now (following replacements of replacements), if any can
/// be found. `superseded_by` holds a key (the published client's format), looked up in
/// `m`'s own domain and facet first, then anywhere it is unambiguous.
pub(crate) fn replacement(conn: &Connection, m: &PersonaMemory) -> Result<Option<PersonaMemory>> {
    let mut current: Option<PersonaMemory> = None;
    let mut seen = vec![m.address()];
    for _ in 0..MAX_HOPS {
        let at = current.as_ref().unwrap_or(m);
        let Some(next) = at.superseded_by.as_deref().filter(|s| !s.is_empty()) else { break };
        let found = if next.contains('/') {
            records::resolve_persona(conn, next).ok()
        } else {
            match records::persona(conn, Some(&at.domain), Some(&at.facet), Some(next))?.pop() {
                Some((_, n)) => Some(n),
                None => records::resolve_persona(conn, next).ok(),
            }
        };
        let Some(n) = found.filter(|n| !seen.contains(&n.address())) else { break };
        seen.push(n.address());
        current = Some(n);
    }
    Ok(current)
}

/// Marks each hit's status and replacement, and puts replacements before (or, without
/// `history`, in place of) what they replace.
pub(crate) fn current_first(
    conn: &Connection,
    life: &Lifecycle,
    now: f64,
    hits: &mut Vec<SearchHit>,
    history: bool,
) -> Result<()> {
    let incoming = std::mem::take(hits);
    let mut out: Vec<SearchHit> = Vec::with_capacity(incoming.len());
    let mut shown: std::collections::HashSet<String> = std::collections::HashSet::new();
    for hit in &incoming {
        let mut hit = hit.clone();
        hit.status = status(life, now, &hit.found, hit.revived);
        let Found::Persona(m) = &hit.found else {
            shown.insert(hit.path.clone());
            out.push(hit);
            continue;
        };
        if !m.is_superseded() {
            if shown.insert(hit.path.clone()) {
                out.push(hit);
            }
            continue;
        }
        let newer = replacement(conn, m)?;
        hit.superseded_by = newer.as_ref().map(PersonaMemory::address);
        if let Some(n) = newer {
            let path = Path::Persona { domain: n.domain.clone(), facet: n.facet.clone(), key: n.key.clone() }.to_d();
            // The replacement where the old memory ranked, unless it ranked higher itself:
            // its own hit when the search found it further down (that copy is then
            // skipped), else a stand-in with the old memory's strength.
            if !shown.contains(&path) {
                let mut stand_in = match incoming.iter().find(|h| h.path == path) {
                    Some(own) => own.clone(),
                    None => SearchHit {
                        path,
                        found: Found::Persona(n),
                        signals: Vec::new(),
                        revived: false,
                        superseded_by: None,
                        ..hit.clone()
                    },
                };
                stand_in.status = status(life, now, &stand_in.found, stand_in.revived);
                shown.insert(stand_in.path.clone());
                out.push(stand_in);
            }
        }
        if history {
            out.push(hit);
        }
    }
    *hits = out;
    Ok(())
}

pub(crate) fn status(life: &Lifecycle, now: f64, found: &Found, revived: bool) -> Status {
    match found {
        Found::Persona(m) => {
            Status::of(m.is_superseded(), m.sync.life.archived_at.is_some(), revived, life.live_state(m, now).1)
        }
        Found::Journal(j) => Status::of(false, j.archived_at.is_some(), revived, MemoryState::Active),
        Found::Memory(m) => Status::of(false, m.archived_at.is_some(), revived, MemoryState::Active),
    }
}
