//! Which persona memories are alike: the pairs consolidation links (`link_similarity`,
//! at most `link_max_per_memory` per memory) and introspection lists, by cosine with the
//! model or word overlap without, from the candidates [`super::pairs`] proposes.

use std::collections::{BinaryHeap, HashMap};

use rusqlite::Connection;

use super::gate::content_words;
use super::introspect::IntrospectOptions;

use crate::engine::records;
use crate::error::Result;
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
pub(super) fn fixed_hash(bytes: &[u8]) -> u64 {
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

/// Persona memories (path, rid, memory), sorted by path, and the pairs chosen among them:
/// `(i, j, similarity)` with `i < j`.
pub(crate) type Similar = (Vec<(String, i64, PersonaMemory)>, Vec<(usize, usize, f64)>);

/// Similar persona pairs: cosine of their embeddings, or word overlap without a model;
/// pairs sharing introspection's number of themes are in at the link floor (when
/// `themes`). Only the pairs [`super::pairs`] generates are compared. At most `cap` pairs
/// per memory, the most similar: each memory's best candidates (`CANDIDATES_PER_LINK` per
/// link), then taken strongest first while both memories have room (ties as [`Rank`]).
/// Without the bound, memories that all say nearly the same thing would be linked pair by
/// pair, millions of links at 10,000 memories. Runs on a reader; the vector index's lock is
/// taken a chunk of memories at a time.
pub(crate) fn similar_pairs(conn: &Connection, how: Compare, vectors: &crate::index::Vectors) -> Result<Similar> {
    let Compare { vectors_on, themes: with_themes, link, cap } = how;
    if cap == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let path_of = |m: &PersonaMemory| {
        crate::codec::Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() }.to_d()
    };
    let mut persona: Vec<(String, i64, PersonaMemory)> =
        records::all_persona(conn)?.into_iter().map(|(rid, m)| (path_of(&m), rid, m)).collect();
    persona.sort_by(|x, y| x.0.cmp(&y.0));
    let n = persona.len();
    // Vectors in one flat array (no allocation per memory): 150 MB at 100k × 384.
    let (dims, flat, slot) = if vectors_on {
        let mut by_rid: HashMap<i64, usize> = HashMap::with_capacity(n);
        for (i, (_, rid, _)) in persona.iter().enumerate() {
            by_rid.insert(*rid, i);
        }
        let mut slot: Vec<Option<usize>> = vec![None; n];
        let mut flat: Vec<f32> = Vec::new();
        let mut dims = 0;
        for (rid, _, v) in records::persona_vectors(conn, None)? {
            if let Some(&i) = by_rid.get(&rid) {
                dims = v.len();
                if v.len() == dims && slot[i].is_none() {
                    slot[i] = Some(flat.len() / dims.max(1));
                    flat.extend_from_slice(&v);
                }
            }
        }
        (dims, flat, slot)
    } else {
        (0, Vec::new(), vec![None; n])
    };
    let vector = |i: usize| slot[i].map(|s| &flat[s * dims..(s + 1) * dims]);
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
    let offer = |heap: &mut BinaryHeap<std::cmp::Reverse<Rank>>, rank: Rank| {
        let room = heap.len() < keep;
        if !room && heap.peek().is_none_or(|w| w.0 >= rank) {
            return;
        }
        // A pair can be generated twice (by its words and its themes): it counts once.
        // Looked for only when it would be kept, which few offers are once the heap is full.
        if heap.iter().any(|r| r.0 == rank) {
            return;
        }
        if !room {
            heap.pop();
        }
        heap.push(std::cmp::Reverse(rank));
    };
    let mut compare = |i: usize, j: usize| {
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
            let milli = (round3(sim) * 1000.0).round() as i64;
            let tie = mix(hashes[i.min(j)] ^ mix(hashes[i.max(j)]));
            offer(&mut best[i], (milli, tie, std::cmp::Reverse(j)));
            offer(&mut best[j], (milli, tie, std::cmp::Reverse(i)));
        }
    };
    if vectors_on {
        let rids: Vec<Option<i64>> = persona.iter().enumerate().map(|(i, (_, rid, _))| slot[i].map(|_| *rid)).collect();
        vector_candidates(&rids, vectors, link, &mut compare)?;
    } else {
        super::pairs::set_pairs(&words, &order, super::pairs::SetRule::Cosine(link), &mut compare);
    }
    if with_themes {
        super::pairs::set_pairs(&themes, &order, super::pairs::SetRule::Overlap(min_themes), &mut compare);
    }
    drop(flat);
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
    Ok((persona, similar))
}

/// The vector pairs worth comparing ([`super::pairs::vector_pairs`]), through the store's
/// vector index when there is one.
fn vector_candidates(
    rids: &[Option<i64>],
    vectors: &crate::index::Vectors,
    link: f64,
    compare: &mut impl FnMut(usize, usize),
) -> Result<()> {
    #[cfg(feature = "vectors")]
    {
        let index = match vectors {
            Some(v) => Some(v.index()?),
            None => None,
        };
        let floor = link as f32 - super::pairs::INT8_MARGIN;
        super::pairs::vector_pairs(
            rids,
            |asked| match index {
                Some(index) => {
                    let index = index.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                    asked.iter().map(|rid| index.near(*rid, floor, super::pairs::GRAPH_VISITS)).collect()
                }
                None => vec![None; asked.len()],
            },
            compare,
        );
    }
    #[cfg(not(feature = "vectors"))]
    let _ = (rids, vectors, link, compare);
    Ok(())
}
