//! Which pairs of persona memories consolidation and introspection compare.
//!
//! Comparing every pair costs N²/2: 50 million pairs at 10,000 memories (18 s for one
//! cycle), 5 billion at 100,000. Here each memory is compared only with the memories that
//! can pass the threshold, found through an index (docs/lifecycle.md, section 7):
//!
//! - **Word and theme sets** (no model; themes always): prefix filtering (Bayardo et al.,
//!   "Scaling up all pairs similarity search", 2007). Words are ordered rarest first; two
//!   sets whose overlap reaches `α` share a word among the first `|x| - α + 1` of each, so
//!   only those *prefix* words are indexed and probed. Exact: no pair over the threshold is
//!   missed, as long as no memory has more than [`PROBE_MAX`] candidates.
//! - **Vectors**: up to [`EXACT_MAX`] memories, every pair (exact, cheap). Above it, each
//!   memory's neighbourhood in the store's HNSW graph (its int8 points, in memory): a walk
//!   of the bottom layer from the memory's own point, through every neighbour of its
//!   neighbours and on through any point at least the threshold alike, visiting at most
//!   [`GRAPH_VISITS`] points. Approximate: a pair the graph does not connect is missed.

use std::collections::HashMap;

/// Memories whose candidates through one index are capped: a memory is compared with at
/// most this many others found through words or themes (the most recently indexed first,
/// in a fixed hash order, so a word every memory shares spreads a window over all of them
/// rather than sending every memory to the same few). Below it the word index is exact.
/// Bounds the work at `N × PROBE_MAX` comparisons whatever the memories say.
pub(crate) const PROBE_MAX: usize = 1_024;
/// Memories with vectors up to which every pair is compared: 4.5 million pairs, under a
/// second, and exact.
pub(crate) const EXACT_MAX: usize = 3_000;
/// Points of the vector graph visited per memory above [`EXACT_MAX`]: the bottom layer
/// has 16 links a point, so two hops are 272 points; the rest follows points over the
/// threshold (a cluster of near-duplicates).
#[cfg_attr(not(feature = "vectors"), allow(dead_code))]
pub(crate) const GRAPH_VISITS: usize = 512;
/// The graph walk keeps points this much below the threshold (int8 cosines differ from
/// the f32 ones by under 0.005, src/index/vectors.rs); the pair is then scored in f32.
#[cfg_attr(not(feature = "vectors"), allow(dead_code))]
pub(crate) const INT8_MARGIN: f32 = 0.01;

/// What makes two sets worth comparing.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SetRule {
    /// `|a ∩ b| / sqrt(|a| |b|) >= t` (word overlap, [`super::gate::lexical_similarity`]).
    Cosine(f64),
    /// `|a ∩ b| >= k` (shared themes).
    Overlap(usize),
}

impl SetRule {
    /// The overlap a pair with a set of `len` items needs at least (`α`), and whether a
    /// set of `other` items can reach it at all (the size filter).
    fn needs(self, len: usize) -> usize {
        match self {
            // |b| >= t²|a| when the cosine reaches t, so α >= t·sqrt(|a|·t²|a|) = t²|a|.
            // Rounded down a hair: a longer prefix is always safe.
            SetRule::Cosine(t) => ((t * t * len as f64) - 1e-9).ceil().max(1.0) as usize,
            SetRule::Overlap(k) => k.max(1),
        }
    }

    fn sizes_fit(self, a: usize, b: usize) -> bool {
        match self {
            SetRule::Cosine(t) => {
                let t2 = t * t - 1e-9;
                b as f64 >= t2 * a as f64 && a as f64 >= t2 * b as f64
            }
            SetRule::Overlap(k) => a >= k && b >= k,
        }
    }
}

/// Each set's ids rarest first (by how many sets hold them, then id).
fn rarest_first(sets: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut df: HashMap<u32, u32> = HashMap::new();
    for s in sets {
        for w in s {
            *df.entry(*w).or_default() += 1;
        }
    }
    sets.iter()
        .map(|s| {
            let mut r = s.clone();
            r.sort_unstable_by_key(|w| (df[w], *w));
            r
        })
        .collect()
}

/// The prefix of a set (rarest first) whose words a pair passing `rule` must share one of;
/// `None` when the set can pass with no other.
fn prefix(words: &[u32], rule: SetRule) -> Option<&[u32]> {
    if words.is_empty() || !rule.sizes_fit(words.len(), words.len()) {
        return None;
    }
    let alpha = rule.needs(words.len());
    (alpha <= words.len()).then(|| &words[..words.len() - alpha + 1])
}

/// Probes `words`' prefix in `postings`, newest first, calling `visit(j)` for each
/// candidate the size filter lets through, at most [`PROBE_MAX`]; `seen[j] == stamp`
/// marks a candidate already met. False when `visit` asked to stop.
fn probe(
    ranked: &[Vec<u32>],
    me: usize,
    rule: SetRule,
    postings: &HashMap<u32, Vec<u32>>,
    seen: &mut [u32],
    stamp: u32,
    mut visit: impl FnMut(usize) -> bool,
) -> bool {
    let words = &ranked[me];
    let Some(prefix) = prefix(words, rule) else { return true };
    let mut probed = 0;
    for w in prefix {
        let Some(list) = postings.get(w) else { continue };
        for &j in list.iter().rev().take(PROBE_MAX) {
            let j = j as usize;
            if j == me || seen[j] == stamp {
                continue;
            }
            seen[j] = stamp;
            if !rule.sizes_fit(words.len(), ranked[j].len()) {
                continue;
            }
            if !visit(j) {
                return false;
            }
            probed += 1;
            if probed >= PROBE_MAX {
                return true;
            }
        }
    }
    true
}

/// Calls `visit(i, j)` (once per pair, `i != j`, either order) for every pair of `sets`
/// (sorted, distinct ids) that may pass `rule`, visiting memories in `order` (a fixed hash
/// order: see [`PROBE_MAX`]). Every pair that passes is visited while no memory has more
/// than [`PROBE_MAX`] candidates.
pub(crate) fn set_pairs(sets: &[Vec<u32>], order: &[usize], rule: SetRule, mut visit: impl FnMut(usize, usize)) {
    set_pairs_while(sets, order, rule, |i, j| {
        visit(i, j);
        true
    });
}

/// [`set_pairs`] until `visit` returns false: the pairs visited are the first of
/// [`set_pairs`]'s, in the same order.
pub(crate) fn set_pairs_while(
    sets: &[Vec<u32>],
    order: &[usize],
    rule: SetRule,
    mut visit: impl FnMut(usize, usize) -> bool,
) {
    // Rarest first: the prefixes hold the words fewest memories share.
    let ranked = rarest_first(sets);
    let mut postings: HashMap<u32, Vec<u32>> = HashMap::new();
    // `seen[j] == stamp`: j is already a candidate of the memory being probed.
    let mut seen = vec![u32::MAX; sets.len()];
    for (stamp, &i) in order.iter().enumerate() {
        if !probe(&ranked, i, rule, &postings, &mut seen, stamp as u32, |j| visit(i, j)) {
            return;
        }
        for w in prefix(&ranked[i], rule).unwrap_or_default() {
            postings.entry(*w).or_default().push(i as u32);
        }
    }
}

/// [`set_pairs`] for `targets` only: calls `visit(t, j)` for each target `t` and every
/// other set `j` (target or not) the pair of which may pass `rule`, at most [`PROBE_MAX`]
/// per target. The index holds every set's prefix, so a target meets the sets both before
/// and after it in `order`; a pair of two targets may be visited from both.
pub(crate) fn set_pairs_of(
    sets: &[Vec<u32>],
    order: &[usize],
    targets: &[usize],
    rule: SetRule,
    mut visit: impl FnMut(usize, usize),
) {
    let ranked = rarest_first(sets);
    let mut postings: HashMap<u32, Vec<u32>> = HashMap::new();
    for &i in order {
        for w in prefix(&ranked[i], rule).unwrap_or_default() {
            postings.entry(*w).or_default().push(i as u32);
        }
    }
    let mut seen = vec![u32::MAX; sets.len()];
    for (stamp, &t) in targets.iter().enumerate() {
        probe(&ranked, t, rule, &postings, &mut seen, stamp as u32, |j| {
            visit(t, j);
            true
        });
    }
}

/// How many ids two sorted sets share.
pub(crate) fn shared(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Vector pairs: every pair up to [`EXACT_MAX`] memories with a vector, else each one's
/// neighbourhood in the vector index (`near(rids)`: for each rid of a chunk, the rids near
/// it, or `None` when it has no point there; called with the index's lock taken per chunk,
/// so a writer waiting for the index, and the searches behind it, wait one chunk at most).
/// A memory without a point in the index is compared with every other, as before.
///
/// With `targets`, only the pairs of those memories (each with every other memory up to
/// `EXACT_MAX`, else its neighbourhood); false, and nothing visited past it, when a target
/// with a vector has no point in the index (it would be compared with every memory: the
/// caller compares everything instead).
#[cfg(feature = "vectors")]
pub(crate) fn vector_pairs(
    rids: &[Option<i64>],
    targets: Option<&[usize]>,
    mut near: impl FnMut(&[i64]) -> Vec<Option<Vec<i64>>>,
    mut visit: impl FnMut(usize, usize),
) -> bool {
    let with: Vec<usize> = (0..rids.len()).filter(|i| rids[*i].is_some()).collect();
    if with.len() <= EXACT_MAX {
        match targets {
            None => {
                for (n, &i) in with.iter().enumerate() {
                    for &j in &with[n + 1..] {
                        visit(i, j);
                    }
                }
            }
            Some(targets) => {
                for &i in targets.iter().filter(|i| rids[**i].is_some()) {
                    for &j in with.iter().filter(|j| **j != i) {
                        visit(i, j);
                    }
                }
            }
        }
        return true;
    }
    let index: HashMap<i64, usize> = with.iter().map(|&i| (rids[i].expect("with a vector"), i)).collect();
    let probed: Vec<usize> = match targets {
        None => with.clone(),
        Some(targets) => targets.iter().copied().filter(|i| rids[*i].is_some()).collect(),
    };
    const CHUNK: usize = 256;
    for chunk in probed.chunks(CHUNK) {
        let asked: Vec<i64> = chunk.iter().map(|&i| rids[i].expect("with a vector")).collect();
        for (&i, found) in chunk.iter().zip(near(&asked)) {
            match found {
                Some(found) => {
                    for rid in found {
                        if let Some(&j) = index.get(&rid).filter(|j| **j != i) {
                            visit(i, j);
                        }
                    }
                }
                None if targets.is_some() => return false,
                None => {
                    for &j in with.iter().filter(|j| **j != i) {
                        visit(i, j);
                    }
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(sets: &[Vec<u32>], rule: SetRule) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let (a, b) = (&sets[i], &sets[j]);
                let pass = match rule {
                    SetRule::Cosine(t) => {
                        !a.is_empty() && !b.is_empty() && shared(a, b) as f64 / ((a.len() * b.len()) as f64).sqrt() >= t
                    }
                    SetRule::Overlap(k) => shared(a, b) >= k,
                };
                if pass {
                    out.push((i, j));
                }
            }
        }
        out
    }

    fn random_sets(n: usize, vocab: u64, seed: u64) -> Vec<Vec<u32>> {
        let mut z = seed;
        let mut next = move || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        let mut sets: Vec<Vec<u32>> = Vec::new();
        for i in 0..n {
            let mut s: Vec<u32> = if i > 0 && next() % 4 == 0 {
                // A near-duplicate of an earlier set: one word changed.
                let mut s = sets[(next() % i as u64) as usize].clone();
                if !s.is_empty() {
                    let k = (next() % s.len() as u64) as usize;
                    s[k] = (next() % vocab) as u32;
                }
                s
            } else {
                // Skewed: low ids are common words.
                (0..1 + next() % 9).map(|_| ((next() % vocab) * (next() % vocab) / vocab) as u32).collect()
            };
            s.sort_unstable();
            s.dedup();
            sets.push(s);
        }
        sets
    }

    /// Prefix filtering finds every pair the brute force finds, for both rules.
    #[test]
    fn the_word_index_misses_no_pair() {
        for seed in 0..6 {
            let sets = random_sets(600, 60 + seed * 40, seed);
            let order: Vec<usize> = (0..sets.len()).rev().collect();
            for rule in [SetRule::Cosine(0.8), SetRule::Cosine(0.5), SetRule::Overlap(2), SetRule::Overlap(1)] {
                let want = brute(&sets, rule);
                let mut got = Vec::new();
                set_pairs(&sets, &order, rule, |i, j| got.push((i.min(j), i.max(j))));
                got.sort_unstable();
                let visited = got.len();
                got.dedup();
                assert_eq!(visited, got.len(), "a pair visited twice");
                let missed: Vec<_> = want.iter().filter(|p| got.binary_search(p).is_err()).collect();
                assert!(missed.is_empty(), "{rule:?}, seed {seed}: missed {missed:?}");
            }
        }
    }

    /// Stopping early visits the first pairs of a whole run, in its order.
    #[test]
    fn stopping_early_visits_the_first_pairs_of_a_whole_run() {
        let sets = random_sets(500, 80, 3);
        let order: Vec<usize> = (0..sets.len()).collect();
        let mut all = Vec::new();
        set_pairs(&sets, &order, SetRule::Cosine(0.5), |i, j| all.push((i, j)));
        assert!(all.len() > 100, "{}", all.len());
        let mut first = Vec::new();
        set_pairs_while(&sets, &order, SetRule::Cosine(0.5), |i, j| {
            first.push((i, j));
            first.len() < 100
        });
        assert_eq!(first, all[..100]);
    }

    /// A word every memory shares costs each at most `PROBE_MAX` comparisons.
    #[test]
    fn one_shared_word_is_bounded() {
        let sets: Vec<Vec<u32>> = (0..3 * PROBE_MAX).map(|_| vec![7]).collect();
        let order: Vec<usize> = (0..sets.len()).collect();
        let mut per = vec![0usize; sets.len()];
        set_pairs(&sets, &order, SetRule::Cosine(0.8), |i, _| per[i] += 1);
        assert!(per.iter().all(|&n| n <= PROBE_MAX));
        assert_eq!(per[PROBE_MAX * 2], PROBE_MAX);
    }
}
