//! Which persona memories are alike: the pairs consolidation links (`link_similarity`,
//! at most `link_max_per_memory` per memory) and introspection lists, by cosine with the
//! model or word overlap without, from the candidates [`super::pairs`] proposes.

use std::collections::{BinaryHeap, HashMap};

use rusqlite::Connection;

use super::gate::content_words;
use super::introspect::IntrospectOptions;

use crate::engine::links::{LinkMemo, MemoChanges};
use crate::engine::records;
use crate::error::Result;
use crate::ids::{IdSet, PairMap};
use crate::model::{round3, PersonaMemory};

/// Distinct ids of `words` (numbered in `ids` as first met), sorted: sets compared by merging.
fn word_ids(words: impl IntoIterator<Item = String>, ids: &mut HashMap<String, u32>) -> Vec<u32> {
    let mut out: Vec<u32> = words
        .into_iter()
        .map(|w| {
            let next = ids.len() as u32;
            *ids.entry(w).or_insert(next)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A pair's similarity in thousandths (what is stored, [`round3`]), then a hash of its two
/// paths (ties), then the other memory's index: larger first. A total order, so the links
/// kept do not depend on the order pairs are met in; and memories that are all equally
/// alike spread their links by the hash, rather than all naming the same few (which would
/// fill those few and leave the rest with none).
type Rank = (i64, u64, std::cmp::Reverse<usize>);

/// Candidates kept per memory, as a multiple of the links it may get: when its best are
/// taken by others (full), the next are there.
const CANDIDATES_PER_LINK: usize = 4;

/// FNV-1a, then a SplitMix64 finaliser: a fixed hash (not the process's random one), so
/// every run and device picks the same links.
pub(crate) fn fixed_hash(bytes: &[u8]) -> u64 {
    mix(bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)))
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What [`similar_pairs`] compares: vectors (when on), words (without them), themes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compare {
    pub vectors_on: bool,
    /// Pairs sharing introspection's number of themes count as linked at the floor.
    pub themes: bool,
    pub link: f64,
    pub cap: usize,
}

/// One linking pass: the pairs, how it went, and what the memo should now say.
pub(crate) struct Linking {
    pub persona: Vec<(String, i64, PersonaMemory)>,
    pub pairs: Vec<(usize, usize, f64)>,
    /// For each pair, whether it involves a memory compared in this pass (every pair of a
    /// full pass); the others stand as the last cycle chose them.
    pub fresh: Vec<bool>,
    /// Whether every memory was compared (no usable memo, or too much changed since).
    pub full: bool,
    /// Memories compared with their candidates (every one in a full pass).
    pub compared: usize,
    /// What the memo should say after this pass ([`crate::engine::links`]).
    pub memo: MemoChanges,
}

/// Memories changed (or next to a change) beyond this share of the persona make a cycle
/// compare everything: past it, probing the changed ones one by one saves little.
const MAX_CHANGED_SHARE: f64 = 0.1;

/// The memo settings `how` compares with: a memo made with others is not used.
pub(crate) fn settings(how: Compare) -> String {
    format!("v{}:t{}:l{}:c{}", u8::from(how.vectors_on), u8::from(how.themes), how.link, how.cap)
}

/// What a memory is as far as linking goes: its vector's version, its text, its themes.
/// A different fingerprint is a memory to compare again.
fn fingerprint(vid: Option<&i64>, m: &PersonaMemory) -> u64 {
    let mut themes: Vec<String> = m.themes.iter().map(|t| t.trim().to_lowercase()).collect();
    themes.sort();
    let text = format!("{}\u{0}{}\u{0}{}", vid.copied().unwrap_or(-1), m.value, themes.join("\u{1}"));
    // Only the top bits: SQLite stores it as a signed integer.
    fixed_hash(text.as_bytes()) >> 1
}

/// Similar persona pairs: cosine of their embeddings, or word overlap without a model;
/// pairs sharing introspection's number of themes are in at the link floor (when
/// `themes`). Only the pairs [`super::pairs`] generates are compared. At most `cap` pairs
/// per memory, the most similar: each memory's best candidates (`CANDIDATES_PER_LINK` per
/// link), then taken strongest first while both memories have room (ties as [`Rank`]).
/// Without the bound, memories that all say nearly the same thing would be linked pair by
/// pair, millions of links at 10,000 memories. Runs on a reader; the vector index's lock is
/// taken a chunk of memories at a time.
///
/// With the last cycle's `memo` (same settings), only the memories whose fingerprint
/// changed since, and those that lost a pair to a change, are compared with their
/// candidates; the memo's other pairs stand as they were chosen. A steady cycle's work then
/// follows what was written, not the size of the store. The choice under the cap can
/// differ from a full pass's where a pair lost to the cap last time would now fit; a full
/// pass (no memo, other settings, or more than [`MAX_CHANGED_SHARE`] changed) chooses
/// afresh.
pub(crate) fn link_pairs(
    conn: &Connection,
    how: Compare,
    vectors: &crate::index::Vectors,
    memo: Option<&LinkMemo>,
) -> Result<Linking> {
    let Compare { vectors_on, themes: with_themes, link, cap } = how;
    let settings = settings(how);
    if cap == 0 {
        let memo = MemoChanges { settings, ..Default::default() };
        return Ok(Linking {
            persona: Vec::new(),
            pairs: Vec::new(),
            fresh: Vec::new(),
            full: true,
            compared: 0,
            memo,
        });
    }
    let path_of = |m: &PersonaMemory| crate::codec::Path::of_persona(m).to_d();
    let mut persona: Vec<(String, i64, PersonaMemory)> =
        records::all_persona(conn)?.into_iter().map(|(rid, m)| (path_of(&m), rid, m)).collect();
    persona.sort_by(|x, y| x.0.cmp(&y.0));
    let n = persona.len();
    let index_of: crate::ids::IdMap<usize> = persona.iter().enumerate().map(|(i, (_, rid, _))| (*rid, i)).collect();
    let vids = if vectors_on { crate::engine::links::vector_versions(conn)? } else { HashMap::new() };
    let fingerprints: Vec<u64> = persona.iter().map(|(_, rid, m)| fingerprint(vids.get(rid), m)).collect();
    let memo = memo.filter(|m| m.settings.as_deref() == Some(settings.as_str()));
    let plan = match memo {
        // Up to `EXACT_MAX` every pair is compared anyway, exactly and cheaply.
        Some(_) if vectors_on && n <= super::pairs::EXACT_MAX => None,
        Some(memo) => incremental_plan(memo, &persona, &fingerprints, &index_of),
        None => None,
    };
    let mut ids = HashMap::new();
    let words: Vec<Vec<u32>> = if vectors_on {
        Vec::new()
    } else {
        persona.iter().map(|(_, _, m)| word_ids(content_words(&m.value), &mut ids)).collect()
    };
    let themes: Vec<Vec<u32>> = if with_themes {
        persona
            .iter()
            .map(|(_, _, m)| {
                word_ids(m.themes.iter().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()), &mut ids)
            })
            .collect()
    } else {
        vec![Vec::new(); n]
    };
    let min_themes = IntrospectOptions::default().shared_themes.max(1);
    let hashes: Vec<u64> = persona.iter().map(|(path, _, _)| fixed_hash(path.as_bytes())).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|i| (hashes[*i], *i));
    // Each memory's best candidates: a min-heap, its weakest on top.
    let keep = cap.saturating_mul(CANDIDATES_PER_LINK);
    let mut best: Vec<BinaryHeap<std::cmp::Reverse<Rank>>> = vec![BinaryHeap::new(); n];
    let tie = |i: usize, j: usize| mix(hashes[i.min(j)] ^ mix(hashes[i.max(j)]));
    let offer = |best: &mut Vec<BinaryHeap<std::cmp::Reverse<Rank>>>, i: usize, j: usize, milli: i64| {
        for (me, other) in [(i, j), (j, i)] {
            let heap = &mut best[me];
            let rank = (milli, tie(i, j), std::cmp::Reverse(other));
            let room = heap.len() < keep;
            if !room && heap.peek().is_none_or(|w| w.0 >= rank) {
                continue;
            }
            // A pair can be generated twice (by its words and its themes): it counts once.
            // Looked for only when it would be kept, which few offers are once the heap is full.
            if heap.iter().any(|r| r.0 == rank) {
                continue;
            }
            if !room {
                heap.pop();
            }
            heap.push(std::cmp::Reverse(rank));
        }
    };
    // The vectors compared: every one in a full pass, else those of the memories compared
    // and their candidates.
    let (candidates, wanted): (Vec<(usize, usize)>, Vec<usize>) = match &plan {
        None => (Vec::new(), (0..n).collect()),
        Some(plan) => {
            let mut pairs = Vec::new();
            let rids: Vec<Option<i64>> = persona.iter().map(|(_, rid, _)| vids.get(rid).map(|_| *rid)).collect();
            if vectors_on {
                if !vector_candidates(&rids, Some(&plan.targets), vectors, link, &mut |i, j| pairs.push((i, j)))? {
                    // A memory with a vector but no point in the index would be compared with
                    // every other: that is a full pass.
                    return link_pairs(conn, how, vectors, None);
                }
            } else {
                super::pairs::set_pairs_of(
                    &words,
                    &order,
                    &plan.targets,
                    super::pairs::SetRule::Cosine(link),
                    |i, j| pairs.push((i, j)),
                );
            }
            if with_themes {
                let rule = super::pairs::SetRule::Overlap(min_themes);
                super::pairs::set_pairs_of(&themes, &order, &plan.targets, rule, |i, j| pairs.push((i, j)));
            }
            let mut wanted: Vec<usize> = pairs.iter().flat_map(|(i, j)| [*i, *j]).collect();
            wanted.sort_unstable();
            wanted.dedup();
            (pairs, wanted)
        }
    };
    // By position: a pair's two lookups are array reads (a hash map's were a visible share
    // of comparing 670,000 pairs).
    let mut vectors_at: Vec<Option<Vec<f32>>> = vec![None; if vectors_on { n } else { 0 }];
    if vectors_on && plan.is_none() {
        for (rid, _, v) in records::persona_vectors(conn, None)? {
            if let Some(&i) = index_of.get(&rid) {
                vectors_at[i].get_or_insert(v);
            }
        }
    } else if vectors_on {
        let rids: Vec<i64> = wanted.iter().map(|i| persona[*i].1).collect();
        let mut by_rid = crate::engine::links::vectors_of(conn, &rids)?;
        for i in &wanted {
            vectors_at[*i] = by_rid.remove(&persona[*i].1);
        }
    }
    let dims = vectors_at.iter().flatten().next().map_or(0, Vec::len);
    let vector = |i: usize| vectors_at.get(i)?.as_deref().filter(|v| v.len() == dims);
    let compare = |best: &mut Vec<BinaryHeap<std::cmp::Reverse<Rank>>>, i: usize, j: usize| {
        let sim = match (vector(i), vector(j)) {
            (Some(x), Some(y)) => crate::index::dot(x, y),
            // A memory without a vector (its text could not be embedded) is left out
            // rather than compared on another scale.
            _ if vectors_on => return,
            _ => {
                // `lexical_similarity`, on the words found once per memory.
                let (a, b) = (&words[i], &words[j]);
                if a.is_empty() || b.is_empty() {
                    0.0
                } else {
                    super::pairs::shared(a, b) as f64 / ((a.len() * b.len()) as f64).sqrt()
                }
            }
        };
        // What introspection suggests linking is linked: pairs sharing enough themes, at
        // the link floor when their similarity is lower.
        let themed = !themes[i].is_empty() && super::pairs::shared(&themes[i], &themes[j]) >= min_themes;
        let sim = if themed { sim.max(link) } else { sim };
        if sim >= link {
            offer(best, i, j, (round3(sim) * 1000.0).round() as i64);
        }
    };
    let compared = match &plan {
        None => {
            let mut visit = |i: usize, j: usize| compare(&mut best, i, j);
            if vectors_on {
                let rids: Vec<Option<i64>> = (0..n).map(|i| vector(i).map(|_| persona[i].1)).collect();
                vector_candidates(&rids, None, vectors, link, &mut visit)?;
            } else {
                super::pairs::set_pairs(&words, &order, super::pairs::SetRule::Cosine(link), &mut visit);
            }
            if with_themes {
                super::pairs::set_pairs(&themes, &order, super::pairs::SetRule::Overlap(min_themes), &mut visit);
            }
            n
        }
        Some(plan) => {
            // The memo's pairs between unchanged memories stand as chosen.
            for &(i, j, milli) in &plan.kept {
                offer(&mut best, i, j, milli);
            }
            for &(i, j) in &candidates {
                compare(&mut best, i, j);
            }
            plan.targets.len()
        }
    };
    drop(vectors_at);
    let mut candidates: Vec<(i64, u64, usize, usize)> = best
        .into_iter()
        .enumerate()
        .flat_map(|(i, heap)| {
            heap.into_iter()
                .map(move |std::cmp::Reverse((milli, tie, std::cmp::Reverse(j)))| (milli, tie, i.min(j), i.max(j)))
        })
        .collect();
    // Strongest first, ties by the hash, then by path.
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)).then(x.3.cmp(&y.3)));
    candidates.dedup();
    let mut degree = vec![0usize; n];
    let mut similar = Vec::new();
    for (milli, _, i, j) in candidates {
        if degree[i] < cap && degree[j] < cap {
            degree[i] += 1;
            degree[j] += 1;
            similar.push((i, j, milli as f64 / 1000.0));
        }
    }
    let memo = memo_changes(settings, memo, &persona, &fingerprints, &similar);
    let fresh: Vec<bool> = match &plan {
        None => vec![true; similar.len()],
        Some(plan) => {
            let mut target = vec![false; n];
            plan.targets.iter().for_each(|t| target[*t] = true);
            similar.iter().map(|(i, j, _)| target[*i] || target[*j]).collect()
        }
    };
    Ok(Linking { persona, pairs: similar, fresh, full: plan.is_none(), compared, memo })
}

/// Which memories an incremental pass compares, and the memo's pairs it keeps.
struct Plan {
    targets: Vec<usize>,
    kept: Vec<(usize, usize, i64)>,
}

/// The memories changed since the memo (a new or different fingerprint) and those that
/// lost a pair to a change or a memory gone; `None` when they are too many.
fn incremental_plan(
    memo: &LinkMemo,
    persona: &[(String, i64, PersonaMemory)],
    fingerprints: &[u64],
    index_of: &crate::ids::IdMap<usize>,
) -> Option<Plan> {
    let n = persona.len();
    let changed: Vec<bool> = (0..n).map(|i| memo.fingerprints.get(&persona[i].1) != Some(&fingerprints[i])).collect();
    let mut touched = changed.clone();
    let mut kept = Vec::new();
    for (a, b, milli) in &memo.pairs {
        match (index_of.get(a), index_of.get(b)) {
            (Some(&i), Some(&j)) if !changed[i] && !changed[j] => kept.push((i.min(j), i.max(j), *milli)),
            (i, j) => i.into_iter().chain(j).for_each(|x| touched[*x] = true),
        }
    }
    let targets: Vec<usize> = (0..n).filter(|i| touched[*i]).collect();
    if targets.len() as f64 > MAX_CHANGED_SHARE * n as f64 {
        return None;
    }
    Some(Plan { targets, kept })
}

/// The memo after this pass, as changes to the stored one.
fn memo_changes(
    settings: String,
    memo: Option<&LinkMemo>,
    persona: &[(String, i64, PersonaMemory)],
    fingerprints: &[u64],
    similar: &[(usize, usize, f64)],
) -> MemoChanges {
    let empty = LinkMemo::default();
    let memo = memo.unwrap_or(&empty);
    let rids: IdSet = persona.iter().map(|(_, rid, _)| *rid).collect();
    let fingerprints: Vec<(i64, u64)> = persona
        .iter()
        .zip(fingerprints)
        .filter(|((_, rid, _), f)| memo.fingerprints.get(rid) != Some(*f))
        .map(|((_, rid, _), f)| (*rid, *f))
        .collect();
    let forgotten: Vec<i64> = memo.fingerprints.keys().filter(|r| !rids.contains(r)).copied().collect();
    let now: PairMap<i64> = similar
        .iter()
        .map(|(i, j, sim)| {
            let (a, b) = (persona[*i].1, persona[*j].1);
            ((a.min(b), a.max(b)), (sim * 1000.0).round() as i64)
        })
        .collect();
    let before: PairMap<i64> = memo.pairs.iter().map(|(a, b, m)| ((*a, *b), *m)).collect();
    let mut pairs_removed: Vec<(i64, i64)> = before.keys().filter(|k| !now.contains_key(k)).copied().collect();
    pairs_removed.sort_unstable();
    let mut pairs_added: Vec<(i64, i64, i64)> =
        now.iter().filter(|(k, m)| before.get(k) != Some(m)).map(|((a, b), m)| (*a, *b, *m)).collect();
    pairs_added.sort_unstable();
    MemoChanges { settings, fingerprints, forgotten, pairs_added, pairs_removed }
}

/// The vector pairs worth comparing ([`super::pairs::vector_pairs`]) of every memory, or
/// of `targets` only, through the store's vector index when there is one. False when a
/// target has a vector but no point in the index.
fn vector_candidates(
    rids: &[Option<i64>],
    targets: Option<&[usize]>,
    vectors: &crate::index::Vectors,
    link: f64,
    compare: &mut impl FnMut(usize, usize),
) -> Result<bool> {
    #[cfg(feature = "vectors")]
    {
        let index = match vectors {
            Some(v) => Some(v.index()?),
            None => None,
        };
        let floor = link as f32 - super::pairs::INT8_MARGIN;
        Ok(super::pairs::vector_pairs(
            rids,
            targets,
            |asked| match index {
                Some(index) => {
                    let index = index.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                    asked.iter().map(|rid| index.near(*rid, floor, super::pairs::GRAPH_VISITS)).collect()
                }
                None => vec![None; asked.len()],
            },
            compare,
        ))
    }
    #[cfg(not(feature = "vectors"))]
    {
        let _ = (rids, targets, vectors, link, compare);
        Ok(true)
    }
}
