//! Dream insights (seed 001, Vestige's "dreams"): at the end of a consolidation cycle,
//! what the persona's memories say together that none says alone: hidden connections,
//! recurring patterns, contradictions, knowledge gaps, temporal trends (the rules and their
//! constants: [`rules`], docs/lifecycle.md "Dream insights").
//!
//! Each insight is a record of its own (`sense-memory/insight/{key}`), encrypted and signed
//! like every memory, synced and exported with them, and never in the full-text index or
//! the vector pools, so no search returns one. Its key is its kind and a fixed hash of its
//! subject: the same insight found again, on any device, lands on the same record. A
//! cycle writes only what changed, and retires (forgets) the insights it no longer
//! finds: an insight lives exactly as long as its evidence supports it.

mod rules;

use std::collections::BTreeMap;

use rusqlite::Connection;

use super::runtime::Lifecycle;
use super::Parts;
use crate::codec::{Path, Payload};
use crate::engine::records;
use crate::engine::write::forget_path;
use crate::error::Result;
use crate::model::{Insight, MemoryState, PersonaMemory};
use rules::Seen;

/// What a cycle's dreaming left: the insights now stored, and how many records it wrote
/// (new or changed) and retired.
pub(crate) struct Dreamt {
    pub insights: Vec<Insight>,
    pub written: usize,
    pub retired: usize,
    /// Seconds each rule took (the cycle's report lists them).
    pub steps: Vec<(&'static str, f64)>,
}

/// Every rule over the current persona, then the difference with the stored insights
/// written in one transaction (at most five kinds × [`MAX_PER_KIND`] records, and the
/// retired ones). `similar` is the cycle's similar pairs by path.
///
/// `read`: the persona as the cycle read it, and the addresses it changed since (read
/// again here); `None`: read it now. Memories written by others meanwhile are seen by the
/// next cycle.
pub(crate) async fn dream(
    parts: &Parts,
    similar: Vec<(String, String, f64)>,
    read: Option<ReadBefore>,
) -> Result<Dreamt> {
    let life = parts.life.clone();
    let (found, stored, steps) = parts
        .engine
        .read(move |conn, engine| {
            let now = engine.now();
            let mut steps = Vec::new();
            let mut t = std::time::Instant::now();
            let mut lap = |name: &'static str| {
                steps.push((name, t.elapsed().as_secs_f64()));
                t = std::time::Instant::now();
            };
            let persona = match read {
                Some((persona, changed)) => again(conn, persona, &changed)?,
                None => records::all_persona(conn)?,
            };
            let seen = current(persona, &life, now);
            lap("dream: read the persona");
            let mut found = rules::hidden_connections(&seen, &similar);
            lap("dream: hidden connections");
            found.extend(rules::recurring_patterns(&seen));
            lap("dream: recurring patterns");
            found.extend(rules::contradictions(&seen));
            lap("dream: contradictions");
            found.extend(rules::knowledge_gaps(&seen));
            lap("dream: knowledge gaps");
            found.extend(rules::temporal_trends(&seen, now));
            lap("dream: temporal trends");
            Ok((found, records::insights(conn)?, steps))
        })
        .await?;
    parts
        .engine
        .write(move |tx, engine| {
            let now = engine.now();
            let mut before: BTreeMap<String, Insight> = stored.into_iter().map(|i| (i.key.clone(), i)).collect();
            let (mut insights, mut written) = (Vec::with_capacity(found.len()), 0);
            for mut fresh in found {
                match before.remove(&fresh.key) {
                    Some(old) if old.same_finding(&fresh) => insights.push(old),
                    old => {
                        fresh.found_at = old.map_or(now, |o| o.found_at);
                        fresh.updated_at = now;
                        records::put(
                            tx,
                            engine,
                            &Path::Insight { key: fresh.key.clone() },
                            Payload::Insight(fresh.clone()),
                        )?;
                        written += 1;
                        insights.push(fresh);
                    }
                }
            }
            // What is left is no longer found: its evidence changed or is gone.
            for key in before.keys() {
                forget_path(tx, engine, &Path::Insight { key: key.clone() })?;
            }
            Ok(Dreamt { insights: sorted(insights), written, retired: before.len(), steps })
        })
        .await
}

/// The persona as a cycle read it (by address, as [`records::all_persona`]), and the
/// addresses it changed since.
pub(crate) type ReadBefore = (Vec<(i64, PersonaMemory)>, Vec<String>);

/// The persona memories the rules read: every one not dissolved, replaced or archived,
/// with its state now.
fn current(persona: Vec<(i64, PersonaMemory)>, life: &Lifecycle, now: f64) -> Vec<Seen> {
    persona
        .into_iter()
        .filter(|(_, m)| !m.is_superseded() && m.sync.life.archived_at.is_none())
        .map(|(_, memory)| {
            let state = life.live_state(&memory, now).1;
            let path = Path::of_persona(&memory).to_d();
            Seen { path, memory, state }
        })
        .filter(|s| s.state != MemoryState::Dissolved)
        .collect()
}

/// `persona` (by address, as [`records::all_persona`]) with the memories at `changed`
/// read again: as they are now, or gone.
fn again(
    conn: &Connection,
    persona: Vec<(i64, PersonaMemory)>,
    changed: &[String],
) -> Result<Vec<(i64, PersonaMemory)>> {
    if changed.is_empty() {
        return Ok(persona);
    }
    let changed: std::collections::BTreeSet<&str> = changed.iter().map(String::as_str).collect();
    let mut out: Vec<(i64, PersonaMemory)> =
        persona.into_iter().filter(|(_, m)| !changed.contains(m.address().as_str())).collect();
    for address in changed {
        if let [domain, facet, key] = address.splitn(3, '/').collect::<Vec<_>>()[..] {
            out.extend(records::persona(conn, Some(domain), Some(facet), Some(key))?);
        }
    }
    out.sort_by(|(_, a), (_, b)| (&a.domain, &a.facet, &a.key).cmp(&(&b.domain, &b.facet, &b.key)));
    Ok(out)
}

/// Insights as reports list them: by kind, strongest first, then by key.
pub(crate) fn sorted(mut insights: Vec<Insight>) -> Vec<Insight> {
    insights.sort_by(|a, b| {
        (a.kind, b.strength, &a.key).partial_cmp(&(b.kind, a.strength, &b.key)).unwrap_or(std::cmp::Ordering::Equal)
    });
    insights
}

/// The stored insights, sorted as reports list them.
pub(crate) async fn stored(parts: &Parts) -> Result<Vec<Insight>> {
    parts.engine.read(|conn, _| Ok(sorted(records::insights(conn)?))).await
}
