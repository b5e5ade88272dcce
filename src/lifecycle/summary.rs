//! Consolidation's summary of each trajectory (seeds 000, 004; docs/lifecycle.md,
//! "Episodes and trajectories"), with no language model: the trajectory's most
//! informative sentences, its entities and its outcomes, stored encrypted as a flat
//! memory at `memstr-trajectory:{episode}:{n}` linked to the trajectory (`summary_of`).
//! Re-running consolidation writes nothing new unless the trajectory grew.
//!
//! A sentence's weight is the sum, over its distinct content words, of how many of the
//! trajectory's observations use the word (centrality: what the trajectory keeps coming
//! back to), divided by the square root of its content words (so a long sentence does not
//! win by length alone); the best [`SUMMARY_SENTENCES`] are kept in their order of
//! writing. Entities are words that name things: capitalised inside a sentence, or
//! identifiers (digits, `_`, `/`, `.` or `:` inside a word), at most [`SUMMARY_ENTITIES`].
//! Outcomes are the observations' action → outcome pairs, at most [`SUMMARY_OUTCOMES`].

use std::collections::{BTreeMap, HashMap};

use super::Parts;
use crate::codec::{Path, Payload};
use crate::engine::{observations as rows, records};
use crate::error::Result;
use crate::model::episode::trajectory_key;
use crate::model::{JournalEntry, Memory, TrajectoryRef};
use crate::text::folded_content_words;

/// Sentences a summary keeps.
pub const SUMMARY_SENTENCES: usize = 3;
/// Entities a summary names.
pub const SUMMARY_ENTITIES: usize = 8;
/// Outcomes a summary lists.
pub const SUMMARY_OUTCOMES: usize = 5;

fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let boundary =
            c == '\n' || (matches!(c, '.' | '!' | '?') && bytes.get(end).is_none_or(|b| b.is_ascii_whitespace()));
        if boundary {
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn is_entity(word: &str, first: bool) -> bool {
    let mut chars = word.chars();
    let Some(c0) = chars.next() else { return false };
    let identifier = word.chars().any(|c| c.is_ascii_digit())
        || word.trim_end_matches(['.', ':']).chars().any(|c| matches!(c, '_' | '/' | '.' | ':'));
    identifier || (c0.is_uppercase() && !first && word.chars().count() > 1)
}

/// The summary of one trajectory's observations (in time order).
pub fn summarise(observations: &[&JournalEntry]) -> String {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for o in observations {
        for w in folded_content_words(&o.content).into_keys() {
            *uses.entry(w).or_default() += 1;
        }
    }
    let all: Vec<&str> = observations.iter().flat_map(|o| sentences(&o.content)).collect();
    let mut scored: Vec<(usize, f64)> = all
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let words = folded_content_words(s);
            let weight: usize = words.keys().map(|w| uses.get(w).copied().unwrap_or(0)).sum();
            (i, weight as f64 / (words.len().max(1) as f64).sqrt())
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = scored.iter().take(SUMMARY_SENTENCES).map(|(i, _)| *i).collect();
    keep.sort_unstable();
    let mut text = keep.iter().map(|i| all[*i]).collect::<Vec<_>>().join(" ");
    let mut entities: Vec<String> = Vec::new();
    for s in &all {
        for (n, raw) in s.split_whitespace().enumerate() {
            let w = raw.trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '/' | '-')));
            if is_entity(w, n == 0) && !entities.iter().any(|e| e == w) && entities.len() < SUMMARY_ENTITIES {
                entities.push(w.to_string());
            }
        }
    }
    if !entities.is_empty() {
        text.push_str(&format!(" Entities: {}.", entities.join(", ")));
    }
    let outcomes: Vec<String> = observations
        .iter()
        .filter_map(|o| o.observed.as_ref())
        .filter(|o| o.action.is_some() || o.outcome.is_some())
        .map(|o| match (&o.action, &o.outcome) {
            (Some(a), Some(r)) => format!("{a} → {r}"),
            (Some(a), None) => a.clone(),
            (None, Some(r)) => r.to_string(),
            (None, None) => unreachable!("filtered"),
        })
        .take(SUMMARY_OUTCOMES)
        .collect();
    if !outcomes.is_empty() {
        text.push_str(&format!(" Outcomes: {}.", outcomes.join("; ")));
    }
    text
}

/// Writes the summary of every trajectory that has none, or has grown since its summary;
/// returns the keys written.
pub(crate) async fn summarise_trajectories(parts: &Parts) -> Result<Vec<String>> {
    let due: Vec<Memory> = parts
        .engine
        .read(|conn, engine| {
            let mut due = Vec::new();
            for e in rows::episodes(conn)? {
                let mut by_trajectory: BTreeMap<u32, Vec<JournalEntry>> = BTreeMap::new();
                for (_, j) in rows::observations(conn, &e.id)? {
                    let t = j.observed.as_ref().map_or(0, |o| o.trajectory);
                    by_trajectory.entry(t).or_default().push(j);
                }
                for (t, obs) in by_trajectory {
                    let key = trajectory_key(&e.id, t);
                    let count = obs.len() as u32;
                    let had = match records::payload_at(conn, &Path::Kv { key: key.clone() })? {
                        Some(Payload::Kv(m)) => m.summary_of.map(|s| s.observations),
                        _ => None,
                    };
                    if had == Some(count) {
                        continue;
                    }
                    let refs: Vec<&JournalEntry> = obs.iter().collect();
                    let body = summarise(&refs);
                    let value = format!("Trajectory {t} of episode \"{}\": {body}", e.title);
                    let at = obs.last().map_or(engine.now(), |o| o.created_at);
                    let mut m = Memory::new(&key, &value, at);
                    m.summary_of = Some(TrajectoryRef { episode: e.id.clone(), trajectory: t, observations: count });
                    due.push(m);
                }
            }
            Ok(due)
        })
        .await?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<String> = due.iter().map(|m| m.key.clone()).collect();
    parts
        .write(move |tx, engine, _| {
            for m in due {
                // The value must fit the payload's bound like any memory's.
                crate::model::validate_value(&m.value)?;
                records::put(tx, engine, &Path::Kv { key: m.key.clone() }, Payload::Kv(m))?;
            }
            Ok(())
        })
        .await?;
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Observed, Outcome};

    fn obs(text: &str, action: Option<&str>, outcome: Option<&str>) -> JournalEntry {
        let mut j = JournalEntry::new(text, 1.0);
        let mut o = Observed::new("ep-1", 0);
        o.action = action.map(str::to_string);
        o.outcome = outcome.map(Outcome::from);
        j.observed = Some(o);
        j
    }

    #[test]
    fn the_summary_keeps_central_sentences_entities_and_outcomes() {
        let o = [
            obs("The billing deploy to staging failed. The coffee machine is broken.", None, None),
            obs("The billing migration timed out after 30 seconds on staging.", None, None),
            obs(
                "Raised the billing migration timeout in deploy.yaml and redeployed.",
                Some("redeploy billing"),
                Some("success"),
            ),
            obs("Told Priya that billing is on staging.", None, None),
        ];
        let refs: Vec<&JournalEntry> = o.iter().collect();
        let s = summarise(&refs);
        assert!(s.contains("The billing migration timed out"), "{s}");
        assert!(!s.contains("coffee"), "a sentence off the trajectory's subject is left out: {s}");
        assert!(s.contains("Entities:") && s.contains("Priya") && s.contains("deploy.yaml"), "{s}");
        assert!(s.contains("Outcomes: redeploy billing → success."), "{s}");
    }

    #[test]
    fn sentences_split_on_ends_not_on_dots_inside_words() {
        assert_eq!(sentences("Edited deploy.yaml. Done!\nNext"), vec!["Edited deploy.yaml.", "Done!", "Next"]);
    }
}
