//! A compact HNSW graph (Malkov & Yashunin, "Efficient and robust approximate nearest
//! neighbor search using Hierarchical Navigable Small World graphs", 2016) over int8
//! vectors, ranked by dot product.
//!
//! Issue 4 named hnsw_rs, and memstr used it up to commit 6cfb83d. Its layout made two of
//! the 100k targets unreachable (docs/benchmarks.md): every point carries a `Vec`
//! for each of 16 possible layers plus an `Arc` per link, about 2.5 kB of heap per point
//! at 8 links (435 MB of heap while serving 100k memories, against a 500 MB target), and a
//! saved graph is loaded by re-allocating every link (1.24 s, against 1 s to open). Here
//! the whole graph is a handful of flat arrays: links are `u32` node numbers in fixed-size
//! slots, so a point costs its vector plus `4 × 2M` bytes on the bottom layer, and saving
//! or loading is copying the arrays.
//!
//! The algorithm is the paper's: levels drawn with `mL = 1/ln(M)`, greedy descent through
//! the upper layers, a beam of `ef` on the layer being searched, neighbours chosen with
//! the diversity heuristic (its Algorithm 4), `2M` links on the bottom layer and `M` above.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{Read, Write};

/// An empty link slot.
const NONE: u32 = u32::MAX;
/// Highest level a node can get (levels above 15 would need ~M^16 points).
const MAX_LEVEL: u8 = 15;
const MAGIC: &[u8; 8] = b"MSHNSW01";
/// Magic, five u64s, the entry point (u32), the top level (u8), the generator state (u64).
const HEADER_LEN: u64 = 8 + 5 * 8 + 4 + 1 + 8;
/// Bounds a saved header must respect (far above any real model or setting).
const MAX_DIMS: u64 = 1 << 16;
const MAX_M: u64 = 1 << 10;
const MAX_EF: u64 = 1 << 16;

pub use super::dot::dot_i8;

/// The graph. Node numbers are insertion order; each node carries a caller's id.
#[derive(Clone)]
pub struct Hnsw {
    dims: usize,
    /// Links per node on the upper layers; `2m` on the bottom one.
    m: usize,
    ef_construction: usize,
    /// `dims` components per node.
    vectors: Vec<i8>,
    ids: Vec<i64>,
    levels: Vec<u8>,
    /// `2m` slots per node.
    layer0: Vec<u32>,
    /// Where a node's upper-layer slots start in `upper` (`NONE` for level 0 nodes):
    /// `m` slots for each of its layers 1..=level.
    upper_at: Vec<u32>,
    upper: Vec<u32>,
    entry: u32,
    /// Level of the entry point (the highest of any node).
    top: u8,
    /// State of the level generator (splitmix64), saved so a reloaded graph continues
    /// the same sequence.
    rng: u64,
}

impl std::fmt::Debug for Hnsw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hnsw").field("dims", &self.dims).field("m", &self.m).field("points", &self.len()).finish()
    }
}

thread_local! {
    /// Per-thread visited marks: `marks[node] == stamp` means visited in this search.
    /// Reused across searches, so a search allocates nothing proportional to the graph.
    static VISITED: RefCell<(Vec<u32>, u32)> = const { RefCell::new((Vec::new(), 0)) };
}

/// Runs `f` with a fresh visited set for `n` nodes.
fn with_visited<R>(n: usize, f: impl FnOnce(&mut dyn FnMut(u32) -> bool) -> R) -> R {
    VISITED.with(|cell| {
        let mut guard = cell.borrow_mut();
        let (marks, stamp) = &mut *guard;
        if marks.len() < n {
            marks.resize(n, 0);
        }
        *stamp = stamp.wrapping_add(1);
        if *stamp == 0 {
            marks.iter_mut().for_each(|m| *m = 0);
            *stamp = 1;
        }
        let s = *stamp;
        // Returns true the first time a node is seen.
        let mut first_visit = |node: u32| {
            let slot = &mut marks[node as usize];
            let fresh = *slot != s;
            *slot = s;
            fresh
        };
        f(&mut first_visit)
    })
}

impl Hnsw {
    /// An empty graph of `dims`-component vectors with `m` links per node.
    pub fn new(dims: usize, m: usize, ef_construction: usize, seed: u64) -> Self {
        assert!(dims > 0 && m >= 2, "an HNSW graph needs dims > 0 and m >= 2");
        Hnsw {
            dims,
            m,
            ef_construction: ef_construction.max(m),
            vectors: Vec::new(),
            ids: Vec::new(),
            levels: Vec::new(),
            layer0: Vec::new(),
            upper_at: Vec::new(),
            upper: Vec::new(),
            entry: NONE,
            top: 0,
            rng: seed,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Components per vector.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Bytes held by the graph's arrays.
    pub fn heap_bytes(&self) -> usize {
        self.vectors.capacity()
            + self.ids.capacity() * 8
            + self.levels.capacity()
            + (self.layer0.capacity() + self.upper_at.capacity() + self.upper.capacity()) * 4
    }

    /// Reserves room for `more` nodes.
    pub fn reserve(&mut self, more: usize) {
        self.vectors.reserve(more * self.dims);
        self.ids.reserve(more);
        self.levels.reserve(more);
        self.layer0.reserve(more * 2 * self.m);
        self.upper_at.reserve(more);
    }

    fn vector(&self, node: u32) -> &[i8] {
        let at = node as usize * self.dims;
        &self.vectors[at..at + self.dims]
    }

    fn width(&self, layer: u8) -> usize {
        if layer == 0 {
            2 * self.m
        } else {
            self.m
        }
    }

    fn slots_range(&self, node: u32, layer: u8) -> std::ops::Range<usize> {
        if layer == 0 {
            let at = node as usize * 2 * self.m;
            at..at + 2 * self.m
        } else {
            let at = self.upper_at[node as usize] as usize + (layer as usize - 1) * self.m;
            at..at + self.m
        }
    }

    /// The links of `node` on `layer` (the node must reach that layer).
    fn links(&self, node: u32, layer: u8) -> impl Iterator<Item = u32> + '_ {
        let range = self.slots_range(node, layer);
        let slots = if layer == 0 { &self.layer0[range] } else { &self.upper[range] };
        slots.iter().copied().take_while(|n| *n != NONE)
    }

    fn set_links(&mut self, node: u32, layer: u8, links: &[u32]) {
        let range = self.slots_range(node, layer);
        let slots = if layer == 0 { &mut self.layer0[range] } else { &mut self.upper[range] };
        for (i, slot) in slots.iter_mut().enumerate() {
            *slot = links.get(i).copied().unwrap_or(NONE);
        }
    }

    fn next_level(&mut self) -> u8 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // Uniform in (0, 1]: never ln(0).
        let u = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        let ml = 1.0 / (self.m as f64).ln();
        ((-u.ln() * ml).floor() as u64).min(u64::from(MAX_LEVEL)) as u8
    }

    /// Moves greedily towards `q` on `layer`, from `(sim, node)`.
    fn greedy(&self, q: &[i8], mut best: (i32, u32), layer: u8) -> (i32, u32) {
        let dot_i8 = super::dot::dot();
        loop {
            let mut moved = false;
            for n in self.links(best.1, layer) {
                let s = dot_i8(q, self.vector(n));
                if s > best.0 {
                    best = (s, n);
                    moved = true;
                }
            }
            if !moved {
                return best;
            }
        }
    }

    /// The beam search of one layer: the `ef` nodes nearest `q` found from `starts`,
    /// best first.
    fn search_layer(&self, q: &[i8], starts: &[(i32, u32)], ef: usize, layer: u8) -> Vec<(i32, u32)> {
        let dot_i8 = super::dot::dot();
        with_visited(self.len(), |first_visit| {
            // `todo` pops the most similar unexplored node; `found` pops the least similar kept.
            let mut todo: BinaryHeap<(i32, u32)> = BinaryHeap::with_capacity(ef * 2);
            let mut found: BinaryHeap<Reverse<(i32, u32)>> = BinaryHeap::with_capacity(ef + 1);
            for &(s, n) in starts {
                if first_visit(n) {
                    todo.push((s, n));
                    found.push(Reverse((s, n)));
                }
            }
            while found.len() > ef {
                found.pop();
            }
            while let Some((s, n)) = todo.pop() {
                let worst = found.peek().map_or(i32::MIN, |r| r.0 .0);
                if s < worst && found.len() >= ef {
                    break;
                }
                for next in self.links(n, layer) {
                    if !first_visit(next) {
                        continue;
                    }
                    let sn = dot_i8(q, self.vector(next));
                    let worst = found.peek().map_or(i32::MIN, |r| r.0 .0);
                    if found.len() < ef || sn > worst {
                        todo.push((sn, next));
                        found.push(Reverse((sn, next)));
                        if found.len() > ef {
                            found.pop();
                        }
                    }
                }
            }
            let mut out: Vec<(i32, u32)> = found.into_iter().map(|r| r.0).collect();
            out.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            out
        })
    }

    /// The paper's neighbour heuristic: walking the candidates from the nearest, keep one
    /// only if it is no nearer to any one already kept than to the new node, so links
    /// spread in different directions instead of piling into one cluster. A tie is kept,
    /// unless the two are copies of one vector: otherwise copies filled every list near
    /// them, and nodes inserted after them became unreachable (a regression test below). When that keeps fewer
    /// than `width`, the nearest of the rest fill the gap: a sparse node is better served
    /// by a redundant link than by none.
    fn select(&self, candidates: &[(i32, u32)], width: usize) -> Vec<u32> {
        let mut kept: Vec<u32> = Vec::with_capacity(width);
        let mut skipped: Vec<u32> = Vec::new();
        for &(s, c) in candidates {
            if kept.len() >= width {
                break;
            }
            let vc = self.vector(c);
            if kept.iter().all(|k| {
                let vk = self.vector(*k);
                let d = dot_i8(vc, vk);
                d < s || (d == s && vc != vk)
            }) {
                kept.push(c);
            } else {
                skipped.push(c);
            }
        }
        for c in skipped {
            if kept.len() >= width {
                break;
            }
            kept.push(c);
        }
        kept
    }

    /// Adds a link `from → to` on `layer`, re-choosing `from`'s links when they are full.
    fn connect(&mut self, from: u32, to: u32, layer: u8) {
        let width = self.width(layer);
        let range = self.slots_range(from, layer);
        let slots = if layer == 0 { &mut self.layer0[range] } else { &mut self.upper[range] };
        if let Some(free) = slots.iter_mut().find(|s| **s == NONE) {
            *free = to;
            return;
        }
        let vf = self.vector(from);
        let mut all: Vec<(i32, u32)> =
            self.links(from, layer).chain(std::iter::once(to)).map(|n| (dot_i8(vf, self.vector(n)), n)).collect();
        all.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let chosen = self.select(&all, width);
        self.set_links(from, layer, &chosen);
    }

    /// Adds a vector (of `dims` components) under `id`.
    pub fn insert(&mut self, id: i64, v: &[i8]) {
        assert_eq!(v.len(), self.dims, "vector length");
        let node = u32::try_from(self.len()).ok().filter(|n| *n != NONE).expect("fewer than 2^32 - 1 points");
        let level = self.next_level();
        self.vectors.extend_from_slice(v);
        self.ids.push(id);
        self.levels.push(level);
        self.layer0.extend(std::iter::repeat_n(NONE, 2 * self.m));
        if level > 0 {
            self.upper_at.push(u32::try_from(self.upper.len()).expect("upper layers under 2^32 slots"));
            self.upper.extend(std::iter::repeat_n(NONE, level as usize * self.m));
        } else {
            self.upper_at.push(NONE);
        }
        if self.entry == NONE {
            self.entry = node;
            self.top = level;
            return;
        }
        let q = v;
        let mut ep = (dot_i8(q, self.vector(self.entry)), self.entry);
        for layer in (level + 1..=self.top).rev() {
            ep = self.greedy(q, ep, layer);
        }
        let mut starts = vec![ep];
        for layer in (0..=level.min(self.top)).rev() {
            let found = self.search_layer(q, &starts, self.ef_construction, layer);
            let chosen = self.select(&found, self.width(layer));
            self.set_links(node, layer, &chosen);
            for n in chosen {
                self.connect(n, node, layer);
            }
            starts = found;
        }
        if level > self.top {
            self.entry = node;
            self.top = level;
        }
    }

    /// The `k` nodes nearest `q` (searching with a beam of `ef`): `(id, dot)`, best first.
    pub fn search(&self, q: &[i8], k: usize, ef: usize) -> Vec<(i64, i32)> {
        self.search_nodes(q, k, ef).into_iter().map(|(n, s)| (self.ids[n as usize], s)).collect()
    }

    /// [`Hnsw::search`], answering node numbers: `(node, dot)`, best first.
    pub fn search_nodes(&self, q: &[i8], k: usize, ef: usize) -> Vec<(u32, i32)> {
        if self.entry == NONE || k == 0 || q.len() != self.dims {
            return Vec::new();
        }
        let mut ep = (dot_i8(q, self.vector(self.entry)), self.entry);
        for layer in (1..=self.top).rev() {
            ep = self.greedy(q, ep, layer);
        }
        let found = self.search_layer(q, &[ep], ef.max(k), 0);
        found.into_iter().take(k).map(|(s, n)| (n, s)).collect()
    }

    /// The nodes near `from` on the bottom layer, for comparing stored points with one
    /// another (consolidation) rather than answering a query: a best-first walk from
    /// `from`'s own point through every neighbour of its neighbours, and on through any node
    /// whose dot with it is at least `floor`, until `visits` nodes are seen. Returns
    /// `(node, dot)` of the nodes seen at `floor` or above, `from` left out.
    pub fn near_node(&self, from: u32, floor: i32, visits: usize) -> Vec<(u32, i32)> {
        if from as usize >= self.len() {
            return Vec::new();
        }
        let q = self.vector(from);
        let dot_i8 = super::dot::dot();
        with_visited(self.len(), |first_visit| {
            first_visit(from);
            let mut out = Vec::new();
            // (dot, a shuffle, node, hops from `from`): the most similar is expanded first;
            // among equals (copies of one text) a per-walk shuffle, not the node number,
            // or every walk through a cluster of copies would reach the same few nodes.
            let shuffle = |n: u32| (u64::from(n) ^ u64::from(from).rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut todo: BinaryHeap<(i32, u64, u32, u8)> = BinaryHeap::new();
            todo.push((i32::MAX, 0, from, 0));
            let mut seen = 0;
            while let Some((_, _, n, hops)) = todo.pop() {
                for next in self.links(n, 0) {
                    if !first_visit(next) {
                        continue;
                    }
                    seen += 1;
                    let s = dot_i8(q, self.vector(next));
                    if s >= floor {
                        out.push((next, s));
                    }
                    if s >= floor || hops == 0 {
                        todo.push((s, shuffle(next), next, hops.saturating_add(1)));
                    }
                    if seen >= visits {
                        return out;
                    }
                }
            }
            out
        })
    }

    /// The id a node was inserted with.
    pub fn id(&self, node: u32) -> i64 {
        self.ids[node as usize]
    }

    /// A node's vector.
    pub fn point(&self, node: u32) -> &[i8] {
        self.vector(node)
    }

    /// Overwrites a node's vector with zeros (a purged memory's point): its links stay, so
    /// the graph remains navigable, but the point no longer says anything about the text.
    pub fn blank(&mut self, node: u32) {
        let at = node as usize * self.dims;
        self.vectors[at..at + self.dims].fill(0);
    }

    /// Writes the graph (little-endian arrays after a small header).
    pub fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        for x in
            [self.dims as u64, self.m as u64, self.ef_construction as u64, self.len() as u64, self.upper.len() as u64]
        {
            w.write_all(&x.to_le_bytes())?;
        }
        w.write_all(&self.entry.to_le_bytes())?;
        w.write_all(&[self.top])?;
        w.write_all(&self.rng.to_le_bytes())?;
        let ids: Vec<u8> = self.ids.iter().flat_map(|x| x.to_le_bytes()).collect();
        w.write_all(&ids)?;
        w.write_all(&self.levels)?;
        let vectors: Vec<u8> = self.vectors.iter().map(|x| *x as u8).collect();
        w.write_all(&vectors)?;
        for array in [&self.layer0, &self.upper_at, &self.upper] {
            let bytes: Vec<u8> = array.iter().flat_map(|x| x.to_le_bytes()).collect();
            w.write_all(&bytes)?;
        }
        Ok(())
    }

    /// Reads a graph written by [`Hnsw::write_to`] from a file of `file_len` bytes, checking
    /// the header against that length before allocating anything and every link and
    /// offset after, so a damaged file is an error rather than a panic or an abort later.
    pub fn read_from(r: &mut impl Read, file_len: u64) -> std::io::Result<Self> {
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(bad("not an HNSW graph of this format"));
        }
        let mut u64s = [0u64; 5];
        for x in &mut u64s {
            let mut b = [0u8; 8];
            r.read_exact(&mut b)?;
            *x = u64::from_le_bytes(b);
        }
        let [dims, m, efc, n, upper_len] = u64s;
        let fits = (1..=MAX_DIMS).contains(&dims)
            && (2..=MAX_M).contains(&m)
            && (m..=MAX_EF).contains(&efc)
            && n < u64::from(NONE)
            && upper_len < u64::from(NONE);
        if !fits {
            return Err(bad("header out of range"));
        }
        // All factors are bounded above, so none of this overflows a u64.
        let expected = HEADER_LEN + n * (8 + 1 + dims + 2 * m * 4 + 4) + upper_len * 4;
        if expected != file_len {
            return Err(bad("length does not match the header (truncated or damaged)"));
        }
        let size = |x: u64| usize::try_from(x).map_err(|_| bad("too large for this machine"));
        let (dims, m, efc, n, upper_len) = (size(dims)?, size(m)?, size(efc)?, size(n)?, size(upper_len)?);
        let mut b4 = [0u8; 4];
        r.read_exact(&mut b4)?;
        let entry = u32::from_le_bytes(b4);
        let mut b1 = [0u8; 1];
        r.read_exact(&mut b1)?;
        let top = b1[0];
        let mut b8 = [0u8; 8];
        r.read_exact(&mut b8)?;
        let rng = u64::from_le_bytes(b8);
        // Each array is read straight into its own memory (the header's lengths were checked
        // against the file's above, so nothing larger than the file is allocated).
        let ids: Vec<i64> = read_array(r, n)?;
        let levels: Vec<u8> = read_array(r, n)?;
        let vectors: Vec<i8> = read_array(r, n * dims)?;
        let layer0: Vec<u32> = read_array(r, n * 2 * m)?;
        let upper_at: Vec<u32> = read_array(r, n)?;
        let upper: Vec<u32> = read_array(r, upper_len)?;
        let g = Hnsw { dims, m, ef_construction: efc, vectors, ids, levels, layer0, upper_at, upper, entry, top, rng };
        g.check().map_err(bad)?;
        Ok(g)
    }

    /// The structural invariants search relies on.
    fn check(&self) -> Result<(), &'static str> {
        let n = self.len();
        let sizes = self.levels.len() == n
            && self.upper_at.len() == n
            && self.vectors.len() == n * self.dims
            && self.layer0.len() == n * 2 * self.m;
        if !sizes || self.top > MAX_LEVEL {
            return Err("array sizes");
        }
        if n == 0 {
            return if self.entry == NONE { Ok(()) } else { Err("entry point in an empty graph") };
        }
        if self.entry as usize >= n || self.levels[self.entry as usize] != self.top {
            return Err("entry point");
        }
        let link_ok = |l: &u32| *l == NONE || (*l as usize) < n;
        if !self.layer0.iter().all(link_ok) || !self.upper.iter().all(link_ok) {
            return Err("link out of range");
        }
        for (node, (&level, &at)) in self.levels.iter().zip(&self.upper_at).enumerate() {
            if level > self.top {
                return Err("level above the entry point's");
            }
            let fits = if level == 0 {
                at == NONE
            } else {
                at != NONE && at as usize + level as usize * self.m <= self.upper.len()
            };
            if !fits {
                return Err("upper-layer offset");
            }
            // Links on a layer lead to nodes that reach it.
            for layer in 1..=level {
                if self.links(node as u32, layer).any(|l| self.levels[l as usize] < layer) {
                    return Err("link to a node below the layer");
                }
            }
        }
        Ok(())
    }
}

/// A graph file that is not what its header says.
fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("HNSW file: {what}"))
}

/// The plain integers a graph file holds, little-endian.
trait LeInt: Copy + Default {
    /// From little-endian to this machine's order.
    fn to_native(self) -> Self;
}

macro_rules! le_int {
    ($($t:ty),*) => {$(
        impl LeInt for $t {
            fn to_native(self) -> Self {
                <$t>::from_le(self)
            }
        }
    )*};
}
le_int!(u8, i8, u32, i64);

/// `len` little-endian integers of type `T`, read into a vector of them with no copy in
/// between (a million points' graph is half a gigabyte).
fn read_array<T: LeInt>(r: &mut dyn Read, len: usize) -> std::io::Result<Vec<T>> {
    let mut v = vec![T::default(); len];
    // SAFETY: `T` is one of the plain integer types above: every byte pattern is a valid
    // value, and the byte view covers exactly the vector's initialised elements.
    let bytes = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len * std::mem::size_of::<T>()) };
    r.read_exact(bytes).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad("truncated"),
        _ => e,
    })?;
    if cfg!(target_endian = "big") {
        v.iter_mut().for_each(|x| *x = x.to_native());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_points(n: usize, dims: usize, seed: u64) -> Vec<Vec<i8>> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                (0..dims)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        ((x >> 56) as i8) / 2
                    })
                    .collect()
            })
            .collect()
    }

    fn exact(points: &[Vec<i8>], q: &[i8], k: usize) -> Vec<i64> {
        let mut all: Vec<(i32, i64)> = points.iter().enumerate().map(|(i, p)| (dot_i8(q, p), i as i64)).collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(_, i)| i).collect()
    }

    #[test]
    fn recall_against_brute_force() {
        let points = random_points(3_000, 32, 7);
        let mut g = Hnsw::new(32, 8, 100, 1);
        for (i, p) in points.iter().enumerate() {
            g.insert(i as i64, p);
        }
        let queries = random_points(100, 32, 99);
        let mut found = 0;
        for q in &queries {
            let truth = exact(&points, q, 10);
            let got: Vec<i64> = g.search(q, 10, 64).into_iter().map(|(id, _)| id).collect();
            found += truth.iter().filter(|t| got.contains(t)).count();
        }
        let recall = found as f64 / 1000.0;
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn each_point_reaches_its_best_match() {
        let points = random_points(500, 16, 3);
        let mut g = Hnsw::new(16, 4, 50, 2);
        for (i, p) in points.iter().enumerate() {
            g.insert(100 + i as i64, p);
        }
        // Dot product, not distance: the best match of a point need not be itself, so the
        // search is compared with the exact best.
        let misses = points
            .iter()
            .filter(|p| {
                let best = points.iter().map(|o| dot_i8(p, o)).max().unwrap();
                g.search(p, 1, 32)[0].1 != best
            })
            .count();
        assert!(misses <= 5, "{misses} of 500 missed their exact best match");
        g.check().unwrap();
    }

    #[test]
    fn round_trips_and_keeps_growing_after_a_reload() {
        let points = random_points(1_200, 24, 11);
        let mut g = Hnsw::new(24, 6, 64, 5);
        for (i, p) in points[..1_000].iter().enumerate() {
            g.insert(i as i64, p);
        }
        let mut bytes = Vec::new();
        g.write_to(&mut bytes).unwrap();
        let mut back = Hnsw::read_from(&mut bytes.as_slice(), bytes.len() as u64).unwrap();
        assert_eq!(back.len(), 1_000);
        assert_eq!(back.search(&points[5], 5, 32), g.search(&points[5], 5, 32));
        // Both continue identically: the level generator's state was saved too.
        for (i, p) in points[1_000..].iter().enumerate() {
            g.insert(1_000 + i as i64, p);
            back.insert(1_000 + i as i64, p);
        }
        assert_eq!(back.search(&points[1_100], 10, 64), g.search(&points[1_100], 10, 64));
        assert_eq!(back.search(&points[1_100], 1, 64)[0].0, 1_100);
    }

    #[test]
    fn damaged_files_are_errors_not_panics() {
        let points = random_points(200, 8, 13);
        let mut g = Hnsw::new(8, 4, 32, 9);
        for (i, p) in points.iter().enumerate() {
            g.insert(i as i64, p);
        }
        let mut bytes = Vec::new();
        g.write_to(&mut bytes).unwrap();
        let read = |b: &[u8]| Hnsw::read_from(&mut &b[..], b.len() as u64);
        assert!(read(&bytes).is_ok());
        assert!(read(&bytes[..bytes.len() - 3]).is_err(), "truncated");
        // A file that ends before its header says (read straight into the arrays).
        let short = Hnsw::read_from(&mut &bytes[..bytes.len() - 3], bytes.len() as u64).unwrap_err();
        assert_eq!(short.kind(), std::io::ErrorKind::InvalidData);
        assert!(short.to_string().contains("HNSW file: truncated"), "{short}");
        assert!(read(b"NOTHNSW!").is_err(), "magic");
        // A link pointing past the last node (the layer0 array starts after the vectors).
        let layer0_at = HEADER_LEN as usize + 200 * 8 + 200 + 200 * 8;
        let mut bad = bytes.clone();
        bad[layer0_at..layer0_at + 4].copy_from_slice(&5_000u32.to_le_bytes());
        let err = read(&bad).unwrap_err();
        assert!(err.to_string().contains("link out of range"), "{err}");
        // Header fields that would overflow sizes or ask for absurd allocations
        // (offsets: dims 8, m 16, ef 24, n 32) are refused before anything is allocated.
        for (at, value) in [(8, u64::MAX), (16, 1u64 << 62), (24, u64::MAX), (24, 0), (32, (1u64 << 32) - 2)] {
            let mut bad = bytes.clone();
            bad[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let err = read(&bad).unwrap_err();
            assert!(err.to_string().contains("HNSW file"), "{at}: {err}");
        }
    }

    #[test]
    fn copies_of_one_vector_do_not_hide_the_nodes_inserted_after_them() {
        let points = random_points(60, 16, 21);
        let mut g = Hnsw::new(16, 4, 32, 3);
        for i in 0..40 {
            g.insert(i, &points[0]);
        }
        for (i, p) in points[1..].iter().enumerate() {
            g.insert(100 + i as i64, p);
        }
        // Every distinct point is found from the copies' side of the graph.
        let found: Vec<i64> = g.search(&points[0], 99, 99).into_iter().map(|(id, _)| id).collect();
        for i in 0..59 {
            assert!(found.contains(&(100 + i)), "point {i} unreachable: {found:?}");
        }
    }

    #[test]
    fn duplicates_and_the_empty_graph() {
        let mut g = Hnsw::new(4, 2, 8, 0);
        assert!(g.search(&[1, 2, 3, 4], 3, 8).is_empty());
        for i in 0..50 {
            g.insert(i, &[10, 10, 10, 10]);
        }
        assert_eq!(g.search(&[10, 10, 10, 10], 5, 16).len(), 5);
        g.check().unwrap();
    }
}
