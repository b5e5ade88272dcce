//! Retrieval-induced forgetting (seed 001, Anderson, Bjork & Bjork 1994): when a search
//! recalls a persona memory, the near duplicates that lost to it in that search weaken
//! slightly. Bounded three ways: a factor per loss with a floor, a live relevance never
//! pushed below the forgotten threshold by it (so it never archives anything), and never a
//! pinned memory or a keyed fact. Losses are counted like accesses: locally, signed with
//! the next batch. Formulas and constants: docs/lifecycle.md, "Retrieval-induced forgetting".

use rusqlite::Transaction;

use super::gate::lexical_similarity;
use super::runtime::{is_keyed_fact, Lifecycle};
use super::Behaviour;
use crate::codec::RecordKind;
use crate::engine::{records, Engine};
use crate::error::Result;
use crate::model::{PersonaMemory, THRESHOLD_FORGOTTEN};

/// What one lost recall multiplies a memory's relevance by.
pub const LOSS_FACTOR: f64 = 0.95;
/// The lowest the losses together take it to (seven losses reach it).
pub const LOSS_FLOOR: f64 = 0.7;
/// Cosine (with the model) at or above which a lower hit is a competitor of the winner:
/// consolidation's `link_similarity`, where two memories say nearly the same thing.
pub const COMPETITOR_COSINE: f64 = 0.8;
/// Word overlap ([`lexical_similarity`]) at or above which it is, without vectors.
pub const COMPETITOR_OVERLAP: f64 = 0.6;
/// Competitors one search weakens at most (its best-ranked).
pub const MAX_COMPETITORS: usize = 3;
/// Hits below the winner one search looks at.
const LOOK_AT: usize = 10;

/// The factor `losses` lost recalls leave: `max(0.95^losses, 0.7)`.
pub fn competition_factor(losses: u64) -> f64 {
    LOSS_FACTOR.powi(losses.min(64) as i32).max(LOSS_FLOOR)
}

/// `relevance` as `m`'s losses leave it: times [`competition_factor`], but never taken
/// below [`THRESHOLD_FORGOTTEN`] by them (a memory already below stays as decay left it).
pub(crate) fn weakened(relevance: f64, m: &PersonaMemory) -> f64 {
    let factor = competition_factor(m.sync.life.strength.losses());
    if factor >= 1.0 || relevance < THRESHOLD_FORGOTTEN {
        return relevance;
    }
    (relevance * factor).max(THRESHOLD_FORGOTTEN)
}

/// Whether a search may weaken `m`: not pinned, not a keyed fact (seed 002: the current
/// value of a fact stays), not archived or replaced (out of competition already), and
/// not at the floor.
fn weakenable(m: &PersonaMemory) -> bool {
    !m.sync.life.pinned
        && !is_keyed_fact(m)
        && m.sync.life.archived_at.is_none()
        && !m.is_superseded()
        && competition_factor(m.sync.life.strength.losses()) > LOSS_FLOOR
}

/// The winner of a search and the persona hits below it (`ranked`, paths in rank order;
/// the first is the recalled memory): up to [`MAX_COMPETITORS`] near duplicates among the
/// next [`LOOK_AT`] lose one recall each, counted locally on this device. Returns how many.
pub(crate) fn after_recall(tx: &Transaction, engine: &Engine, life: &Lifecycle, ranked: &[String]) -> Result<usize> {
    if !life.options.behaviours.is_on(Behaviour::RetrievalForgetting) || engine.evaluate_only() {
        return Ok(0);
    }
    let Some((winner, rest)) = ranked.split_first() else { return Ok(0) };
    let Some((wrid, RecordKind::Persona, wjson)) = records::live_row(tx, winner)? else { return Ok(0) };
    let won: PersonaMemory = serde_json::from_str(&wjson)?;
    let wvec = records::vector_of(tx, wrid)?;
    let now = engine.now();
    let mut weakened_n = 0;
    for path in rest.iter().take(LOOK_AT) {
        if weakened_n >= MAX_COMPETITORS {
            break;
        }
        let Some((rid, RecordKind::Persona, json)) = records::live_row(tx, path)? else { continue };
        let mut m: PersonaMemory = serde_json::from_str(&json)?;
        if !weakenable(&m) || !alike(tx, &won, wvec.as_deref(), &m, rid)? {
            continue;
        }
        *m.sync.life.strength.lost.entry(engine.device().to_string()).or_default() += 1;
        m.state = life.live_state(&m, now).1;
        records::mark_accessed(tx, rid, &serde_json::to_string(&m)?)?;
        weakened_n += 1;
    }
    Ok(weakened_n)
}

/// Near duplicates: cosine of their vectors when both have one, else word overlap.
fn alike(tx: &Transaction, won: &PersonaMemory, wvec: Option<&[f32]>, m: &PersonaMemory, rid: i64) -> Result<bool> {
    if let (Some(a), Some(b)) = (wvec, records::vector_of(tx, rid)?) {
        if a.len() == b.len() {
            let dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let cos = f64::from(dot / (norm(a) * norm(&b)).max(f32::EPSILON));
            return Ok(cos >= COMPETITOR_COSINE);
        }
    }
    Ok(lexical_similarity(&won.value, &m.value) >= COMPETITOR_OVERLAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost(n: u64) -> PersonaMemory {
        let mut m = PersonaMemory::new("a", "b", "c", "v", 0.0);
        m.sync.life.strength.lost.insert("dev".into(), n);
        m
    }

    #[test]
    fn losses_weaken_by_the_factor_down_to_the_floor_never_below_forgotten() {
        assert_eq!(weakened(0.8, &lost(0)), 0.8);
        assert!((weakened(0.8, &lost(1)) - 0.8 * 0.95).abs() < 1e-12);
        assert!((weakened(0.8, &lost(50)) - 0.8 * LOSS_FLOOR).abs() < 1e-12);
        // Not pushed below the forgotten threshold by losses ...
        assert_eq!(weakened(0.12, &lost(50)), THRESHOLD_FORGOTTEN);
        // ... and a memory decay already took below it stays as decay left it.
        assert_eq!(weakened(0.05, &lost(50)), 0.05);
        assert!(!weakenable(&lost(7)), "at the floor, no more losses count");
        assert!(weakenable(&lost(6)));
    }
}
