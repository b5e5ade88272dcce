//! The HNSW vector index over stored embeddings ([`super::hnsw`]), saved beside the
//! database so opening a store neither re-embeds nor rebuilds.
//!
//! SQLite's `vectors` table is the source of truth; this index is a cache of it. Points
//! are keyed by `vid`, which changes with every new version of a record, so points left
//! behind by old versions are recognised (their vid is gone) and skipped, and the index
//! is rebuilt when they make up too much of it.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::hnsw::{dot_i8, Hnsw};
pub use super::{from_blob, to_blob};
use crate::at_rest::IndexKey;
use crate::error::{Error, Result};

/// Links per node (twice as many on the bottom layer). At 8, the first 125 hits still
/// hold all of the exact top 10 at 100k memories (examples/search_bench.rs), and the
/// bottom layer costs 64 bytes a point.
const MAX_CONNECTIONS: usize = 8;
/// Breadth of the search while inserting.
const EF_CONSTRUCTION: usize = 100;
const GRAPH_FILE: &str = "graph.bin";
/// What the graph is (model, dimensions, points), to notice a mismatch.
const META_FILE: &str = "meta.json";
/// The record (`rid`) of each point, by node number.
const RIDS_FILE: &str = "rids.bin";
/// Points are int8: a component `x` of a unit vector is stored as `round(x × Q)`, clamped
/// to ±127. Sentence embeddings of a few hundred dimensions keep their components well
/// under 0.5, so Q = 254 loses nothing there, and a point takes 384 bytes instead of 1,536,
/// and its distances are integer dot products. The cosine it gives differs from the f32
/// one by 0.0049 at most over the sentence pairs of tests/embedding.rs (default model);
/// search ranks with it, so that no stored f32 vector is read while searching (LoCoMo
/// recall@10 0.734 with it, 0.733 with exact cosines: docs/benchmarks.md).
const Q: f32 = 254.0;
/// Format of the saved files; another value is rebuilt from SQLite. (3 and below were
/// hnsw_rs's files.)
const FORMAT: u32 = 5;

/// The int8 form of a unit vector.
pub fn quantize(v: &[f32]) -> Vec<i8> {
    v.iter().map(|x| (x * Q).round().clamp(-127.0, 127.0) as i8).collect()
}

/// The cosine of two unit vectors from their int8 forms.
pub fn cosine_i8(a: &[i8], b: &[i8]) -> f32 {
    dot_i8(a, b) as f32 / (Q * Q)
}

/// What the saved files hold, so a mismatch is noticed instead of trusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Meta {
    #[serde(default)]
    format: u32,
    model: String,
    dims: usize,
    /// Largest vid in the saved graph: later vids are added from SQLite on load.
    max_vid: i64,
    points: usize,
}

/// A map keyed by rid or vid ([`crate::ids`]: one multiplication, not SipHash).
type IdMap = crate::ids::IdMap<u32>;

/// An in-memory HNSW graph of unit vectors (dot product = cosine).
pub struct VectorIndex {
    hnsw: Hnsw,
    /// The record of each point, by node number.
    rids: Vec<i64>,
    /// Each record's current point: the only one search answers with (older ones are
    /// earlier versions of its text; deleted records have none). [`VectorIndex::reconcile`]
    /// sets it from SQLite's `vectors` table.
    newest: IdMap,
    /// The node of each vid.
    by_vid: IdMap,
    model: String,
    max_vid: i64,
}

/// A point search found.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct VectorHit {
    /// The point's vid: its row in SQLite's `vectors` table.
    pub vid: i64,
    /// The record the point belongs to.
    pub rid: i64,
    /// Cosine with the query, from the int8 points.
    pub cosine: f32,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex").field("model", &self.model).field("points", &self.points()).finish()
    }
}

fn io_err(what: impl std::fmt::Display) -> Error {
    Error::model(format!("vector index: {what}"))
}

impl VectorIndex {
    /// An empty index for `model`'s vectors of `dims` dimensions, with room for `capacity`.
    pub fn new(model: &str, dims: usize, capacity: usize) -> Self {
        let mut hnsw = Hnsw::new(dims, MAX_CONNECTIONS, EF_CONSTRUCTION, 0x6d65_6d73_7472);
        hnsw.reserve(capacity);
        VectorIndex {
            hnsw,
            rids: Vec::with_capacity(capacity),
            newest: IdMap::with_capacity_and_hasher(capacity, Default::default()),
            by_vid: IdMap::with_capacity_and_hasher(capacity, Default::default()),
            model: model.to_string(),
            max_vid: 0,
        }
    }

    /// Name of the embedding model whose vectors the index holds.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Dimensions of each vector.
    pub fn dims(&self) -> usize {
        self.hnsw.dims()
    }

    /// Points in the graph, including those of superseded versions.
    pub fn points(&self) -> usize {
        self.hnsw.len()
    }

    /// Bytes of memory the index holds (the graph, and the record of each point).
    pub fn heap_bytes(&self) -> usize {
        self.hnsw.heap_bytes() + self.rids.capacity() * 8 + (self.newest.capacity() + self.by_vid.capacity()) * 16
    }

    /// Largest vid inserted.
    pub fn max_vid(&self) -> i64 {
        self.max_vid
    }

    /// Adds the vector `vid` of record `rid`, which becomes that record's vector.
    pub fn insert(&mut self, vid: i64, rid: i64, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dims());
        let node = self.hnsw.len() as u32;
        self.hnsw.insert(vid, &quantize(vector));
        self.rids.push(rid);
        self.newest.insert(rid, node);
        self.by_vid.insert(vid, node);
        self.max_vid = self.max_vid.max(vid);
    }

    /// Adds many vectors: `(vid, rid, vector)`.
    pub fn insert_many(&mut self, items: &[(i64, i64, Vec<f32>)]) {
        self.hnsw.reserve(items.len());
        for (vid, rid, v) in items {
            self.insert(*vid, *rid, v);
        }
    }

    /// Whether point `vid` is in the graph.
    pub fn contains_vid(&self, vid: i64) -> bool {
        self.by_vid.contains_key(&vid)
    }

    /// Makes each record's current point the one SQLite's `vectors` table names, given all
    /// of its `(rid, vid)` rows, and forgets records without a row (deleted). Returns the
    /// vids the graph lacks (to insert from SQLite): points written but never inserted, or
    /// a saved graph older than the database or from another copy of it.
    pub fn reconcile(&mut self, current: &[(i64, i64)]) -> Vec<i64> {
        // The map load built, emptied and filled again: no second allocation of its size.
        let mut newest = std::mem::take(&mut self.newest);
        newest.clear();
        newest.reserve(current.len());
        let mut missing = Vec::new();
        for &(rid, vid) in current {
            match self.by_vid.get(&vid) {
                Some(&node) if self.rids[node as usize] == rid => {
                    newest.insert(rid, node);
                }
                _ => missing.push(vid),
            }
        }
        self.newest = newest;
        missing
    }

    /// Blanks every point of record `rid`, its current vector and those of its earlier
    /// versions, and forgets the record (a purge). Returns how many points were blanked.
    pub fn blank(&mut self, rid: i64) -> usize {
        self.newest.remove(&rid);
        let nodes: Vec<u32> = (0..self.rids.len() as u32).filter(|&n| self.rids[n as usize] == rid).collect();
        for &node in &nodes {
            self.hnsw.blank(node);
        }
        nodes.len()
    }

    /// Blanks every point that is no record's current vector (deleted or purged records,
    /// earlier versions of a text) and still holds one; returns how many it blanked. The
    /// process that owns the index calls it after reconciling with the `vectors` table, so
    /// a purge made by another process leaves no vector in the saved files either.
    pub fn blank_unreferenced(&mut self) -> usize {
        let mut blanked = 0;
        for node in 0..self.rids.len() as u32 {
            let current = self.newest.get(&self.rids[node as usize]) == Some(&node);
            if !current && self.hnsw.point(node).iter().any(|&x| x != 0) {
                self.hnsw.blank(node);
                blanked += 1;
            }
        }
        blanked
    }

    /// The `k` records whose current vectors are nearest `query`, best first. Points of
    /// older versions are passed over; the search widens until it has `k` or has looked
    /// at every point.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<VectorHit> {
        let points = self.points();
        if points == 0 || k == 0 {
            return Vec::new();
        }
        let q = quantize(query);
        let mut want = (k + k / 4).min(points);
        loop {
            let ef = (want * 2).max(64).min(points.max(want));
            let mut out = Vec::with_capacity(k);
            for (node, dot) in self.hnsw.search_nodes(&q, want, ef) {
                let rid = self.rids[node as usize];
                if self.newest.get(&rid) == Some(&node) {
                    out.push(VectorHit { vid: self.hnsw.id(node), rid, cosine: dot as f32 / (Q * Q) });
                    if out.len() == k {
                        return out;
                    }
                }
            }
            if want >= points {
                return out;
            }
            want = (want * 2).min(points);
        }
    }

    /// The cosine between `query` (its int8 form, [`quantize`]) and record `rid`'s current
    /// vector, if it has one.
    pub fn cosine_of(&self, rid: i64, query: &[i8]) -> Option<f32> {
        let node = *self.newest.get(&rid)?;
        Some(cosine_i8(self.hnsw.point(node), query))
    }

    /// The records whose current points lie near record `rid`'s ([`Hnsw::near_node`]: at
    /// least `floor` alike, `visits` points seen at most), or `None` when `rid` has no
    /// current point here.
    pub fn near(&self, rid: i64, floor: f32, visits: usize) -> Option<Vec<i64>> {
        let node = *self.newest.get(&rid)?;
        let floor = (floor * Q * Q).floor() as i32;
        let found = self.hnsw.near_node(node, floor, visits);
        // Only current points: an earlier version's point stands for text that is gone.
        Some(
            found
                .into_iter()
                .map(|(n, _)| (n, self.rids[n as usize]))
                .filter(|(n, r)| *r != rid && self.newest.get(r) == Some(n))
                .map(|(_, r)| r)
                .collect(),
        )
    }

    /// The directory an index of the store at `db` lives in.
    pub fn dir_for(db: &Path) -> PathBuf {
        let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".vectors");
        db.with_file_name(name)
    }

    /// Saves the graph (to a temporary directory, then renamed over the old one).
    pub fn save(&self, dir: &Path) -> Result<()> {
        self.save_with(dir, None)
    }

    /// Saves the graph, each file sealed with `key` when there is one (encryption at rest).
    pub(crate) fn save_with(&self, dir: &Path, key: Option<&IndexKey>) -> Result<()> {
        let rids: Vec<u8> = self.rids.iter().flat_map(|r| r.to_le_bytes()).collect();
        let meta = Meta {
            format: FORMAT,
            model: self.model.clone(),
            dims: self.dims(),
            max_vid: self.max_vid,
            points: self.points(),
        };
        let meta = serde_json::to_vec(&meta)?;
        write_files(
            dir,
            [
                (GRAPH_FILE, Content::Graph(&self.hnsw)),
                (RIDS_FILE, Content::Bytes(rids)),
                (META_FILE, Content::Bytes(meta)),
            ],
            key,
        )
    }

    /// Loads a saved graph of `model`'s vectors; `None` when absent, unreadable, damaged
    /// or made by another model (the caller rebuilds from SQLite).
    pub fn load(dir: &Path, model: &str, dims: usize) -> Option<Self> {
        Self::load_with(dir, model, dims, None)
    }

    /// Loads a saved graph whose files are sealed with `key` (or plain, without one); a
    /// graph sealed otherwise is `None`, as a damaged one.
    pub(crate) fn load_with(dir: &Path, model: &str, dims: usize, key: Option<&IndexKey>) -> Option<Self> {
        let meta: Meta = serde_json::from_slice(&read_file(dir, META_FILE, key)?).ok()?;
        if meta.format != FORMAT || meta.model != model || meta.dims != dims {
            return None;
        }
        let hnsw = match key {
            None => {
                let file = std::fs::File::open(dir.join(GRAPH_FILE)).ok()?;
                let len = file.metadata().ok()?.len();
                Hnsw::read_from(&mut BufReader::with_capacity(1 << 20, file), len)
            }
            Some(_) => {
                let bytes = read_file(dir, GRAPH_FILE, key)?;
                Hnsw::read_from(&mut bytes.as_slice(), bytes.len() as u64)
            }
        };
        let hnsw = match hnsw {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!("vector index in {} not loaded, rebuilding: {e}", dir.display());
                return None;
            }
        };
        if hnsw.len() != meta.points || hnsw.dims() != dims {
            return None;
        }
        let bytes = read_file(dir, RIDS_FILE, key)?;
        if bytes.len() != hnsw.len() * 8 {
            return None;
        }
        let rids: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        // Later nodes are newer versions; `reconcile` corrects this against SQLite.
        let newest: IdMap = rids.iter().enumerate().map(|(node, rid)| (*rid, node as u32)).collect();
        let by_vid: IdMap = (0..hnsw.len() as u32).map(|node| (hnsw.id(node), node)).collect();
        Some(VectorIndex { hnsw, rids, newest, by_vid, model: model.to_string(), max_vid: meta.max_vid })
    }

    /// Re-saves the index files in `dir`, sealed with `from`, as sealed with `to` (either
    /// may be none: plain), without loading the graph: migration of encryption at rest.
    #[cfg_attr(not(feature = "encryption"), allow(dead_code))]
    pub(crate) fn reseal(dir: &Path, from: Option<&IndexKey>, to: Option<&IndexKey>) -> Result<()> {
        let mut files = Vec::with_capacity(3);
        for name in [GRAPH_FILE, RIDS_FILE, META_FILE] {
            let bytes = read_file(dir, name, from).ok_or_else(|| io_err(format!("{name} does not open")))?;
            files.push((name, Content::Bytes(bytes)));
        }
        let files: [(&str, Content); 3] = files.try_into().unwrap_or_else(|_| unreachable!("three files"));
        write_files(dir, files, to)
    }
}

/// What an index file holds, to write.
enum Content<'a> {
    Graph(&'a Hnsw),
    Bytes(Vec<u8>),
}

/// Reads the index file `name`, unsealing it with `key`; `None` when absent, or sealed
/// when no key is given, or not sealed (or not by this key) when one is.
fn read_file(dir: &Path, name: &str, key: Option<&IndexKey>) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(dir.join(name)).ok()?.read_to_end(&mut bytes).ok()?;
    match key {
        None if crate::at_rest::is_sealed(&bytes) => None,
        None => Some(bytes),
        Some(key) => crate::at_rest::unseal(key, name, &bytes),
    }
}

/// Which process saves a store's vector index: an advisory lock (`flock`) on a file
/// beside it, `<db>.vectors.lock`, taken when the store opens and held until it is dropped.
///
/// Several processes may use one store at once (a long-running `memstr mcp` and CLI
/// commands, over SQLite's WAL); each keeps an index in memory and searches with it, but
/// two saving the same files would rename temporary directories over each other. Only the
/// holder of the lock saves; the others leave the files to it (their points are in SQLite
/// and reach the saved index when the owner, or the next process to own it, reconciles).
/// The kernel drops the lock when its process ends, however it ends.
#[derive(Debug)]
pub struct IndexLock {
    path: PathBuf,
    held: std::sync::Mutex<Option<std::fs::File>>,
}

impl IndexLock {
    /// The lock of the index of the store at `db`; not taken yet ([`IndexLock::acquire`]).
    pub fn new(db: &Path) -> Self {
        IndexLock { path: Self::path_for(db), held: std::sync::Mutex::new(None) }
    }

    /// The lock file of the store at `db`.
    pub fn path_for(db: &Path) -> PathBuf {
        let mut name = VectorIndex::dir_for(db).file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".lock");
        db.with_file_name(name)
    }

    /// Whether this handle owns the index: takes the lock when it is free (without
    /// waiting), so a process that found it taken becomes the owner once its holder exits.
    /// A lock file that cannot be created (a read-only directory) means not the owner.
    pub fn acquire(&self) -> bool {
        let Ok(mut held) = self.held.lock() else { return false };
        if held.is_some() {
            return true;
        }
        let mut opts = std::fs::OpenOptions::new();
        opts.create(true).truncate(false).write(true);
        // Owner-only whatever the umask, like every file of the store; never through a link.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, libc::O_NOFOLLOW);
        let file = match opts.open(&self.path) {
            Ok(f) => f,
            Err(e) => {
                tracing::debug!("vector index lock {}: {e}", self.path.display());
                return false;
            }
        };
        match file.try_lock() {
            Ok(()) => {
                *held = Some(file);
                true
            }
            Err(_) => false,
        }
    }

    /// Whether the lock is held by this handle now (without trying to take it).
    pub fn is_held(&self) -> bool {
        self.held.lock().map(|h| h.is_some()).unwrap_or(false)
    }
}

/// Writes the index files into a temporary directory, sealed with `key` when there is one,
/// then renames it over `dir`.
fn write_files(dir: &Path, files: [(&str, Content); 3], key: Option<&IndexKey>) -> Result<()> {
    let tmp = dir.with_extension("vectors.tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    crate::disk::create_private_dir(&tmp).map_err(|e| io_err(format!("{}: {e}", tmp.display())))?;
    for (name, content) in files {
        let content = match (key, content) {
            (Some(key), Content::Graph(hnsw)) => {
                let mut plain = Vec::with_capacity(hnsw.heap_bytes());
                hnsw.write_to(&mut plain).map_err(|e| io_err(format!("saving {name}: {e}")))?;
                Content::Bytes(crate::at_rest::seal(key, name, &plain)?)
            }
            (Some(key), Content::Bytes(bytes)) => Content::Bytes(crate::at_rest::seal(key, name, &bytes)?),
            (None, content) => content,
        };
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::new(crate::disk::private_file(&tmp.join(name))?);
            match &content {
                // Plain: streamed, never the whole graph in memory twice.
                Content::Graph(hnsw) => hnsw.write_to(&mut w)?,
                Content::Bytes(bytes) => w.write_all(bytes)?,
            }
            w.flush()?;
            w.get_ref().sync_all()
        };
        write().map_err(|e| io_err(format!("saving {name}: {e}")))?;
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir).map_err(|e| io_err(format!("{}: {e}", dir.display())))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u32, dims: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
        let mut v: Vec<f32> = (0..dims)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x as f32 / u32::MAX as f32) - 0.5
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    #[test]
    fn finds_itself_and_survives_save_and_load() {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = VectorIndex::new("m", 32, 100);
        // vid i of record 1000 + i.
        let items: Vec<(i64, i64, Vec<f32>)> = (1..=300).map(|i| (i, 1_000 + i, unit(i as u32, 32))).collect();
        idx.insert_many(&items);
        idx.insert(301, 1_301, &unit(301, 32));
        assert_eq!(idx.search(&unit(42, 32), 1)[0].rid, 1_042);
        let path = dir.path().join("store.db.vectors");
        idx.save(&path).unwrap();
        let back = VectorIndex::load(&path, "m", 32).unwrap();
        assert_eq!((back.points(), back.max_vid()), (301, 301));
        let hit = back.search(&unit(301, 32), 3);
        assert_eq!((hit[0].vid, hit[0].rid), (301, 1_301));
        // int8 points: the cosine is approximate.
        assert!((hit[0].cosine - 1.0).abs() < 0.01, "{}", hit[0].cosine);
        assert_eq!(back.cosine_of(1_301, &quantize(&unit(301, 32))), Some(hit[0].cosine));
        assert_eq!(back.cosine_of(7, &quantize(&unit(301, 32))), None, "no such record");
        assert!(VectorIndex::load(&path, "other-model", 32).is_none());
        assert!(VectorIndex::load(&dir.path().join("absent"), "m", 32).is_none());
        // The record list must match the graph.
        std::fs::write(path.join(RIDS_FILE), [0u8; 16]).unwrap();
        assert!(VectorIndex::load(&path, "m", 32).is_none());
    }

    #[cfg(feature = "encryption")]
    #[test]
    fn sealed_files_open_only_with_their_key() {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = VectorIndex::new("m", 32, 100);
        let items: Vec<(i64, i64, Vec<f32>)> = (1..=50).map(|i| (i, 1_000 + i, unit(i as u32, 32))).collect();
        idx.insert_many(&items);
        let (key, other) = (IndexKey::for_tests(1), IndexKey::for_tests(2));
        let path = dir.path().join("store.db.vectors");
        idx.save_with(&path, Some(&key)).unwrap();
        for name in [GRAPH_FILE, RIDS_FILE, META_FILE] {
            let bytes = std::fs::read(path.join(name)).unwrap();
            assert!(crate::at_rest::is_sealed(&bytes), "{name}");
            assert!(!String::from_utf8_lossy(&bytes).contains("\"model\""), "{name}");
        }
        let back = VectorIndex::load_with(&path, "m", 32, Some(&key)).unwrap();
        assert_eq!(back.search(&unit(7, 32), 1)[0].rid, 1_007);
        assert!(VectorIndex::load(&path, "m", 32).is_none(), "sealed, read as plain");
        assert!(VectorIndex::load_with(&path, "m", 32, Some(&other)).is_none(), "another key");
        // Files cannot be swapped: the name is authenticated.
        std::fs::copy(path.join(RIDS_FILE), path.join(META_FILE)).unwrap();
        assert!(VectorIndex::load_with(&path, "m", 32, Some(&key)).is_none());
        idx.save_with(&path, Some(&key)).unwrap();
        VectorIndex::reseal(&path, Some(&key), None).unwrap();
        assert_eq!(VectorIndex::load(&path, "m", 32).unwrap().points(), 50);
        assert!(VectorIndex::load_with(&path, "m", 32, Some(&key)).is_none(), "plain, read as sealed");
        VectorIndex::reseal(&path, None, Some(&other)).unwrap();
        assert_eq!(VectorIndex::load_with(&path, "m", 32, Some(&other)).unwrap().points(), 50);
        assert!(VectorIndex::reseal(&path, Some(&key), None).is_err(), "another key cannot unseal");
    }

    #[test]
    fn only_a_records_newest_vector_answers() {
        let mut idx = VectorIndex::new("m", 32, 10);
        idx.insert(1, 500, &unit(1, 32));
        idx.insert(2, 501, &unit(2, 32));
        // Record 500's text changed: its new vector (vid 3) is unlike the old one.
        idx.insert(3, 500, &unit(3, 32));
        let hits = idx.search(&unit(1, 32), 3);
        assert!(hits.iter().all(|h| h.vid != 1), "{hits:?}");
        assert_eq!(hits.iter().filter(|h| h.rid == 500).count(), 1);
        let q = quantize(&unit(3, 32));
        assert!(idx.cosine_of(500, &q).unwrap() > 0.99);
    }

    #[test]
    fn reconcile_follows_the_table() {
        let mut idx = VectorIndex::new("m", 32, 10);
        idx.insert(1, 500, &unit(1, 32));
        idx.insert(2, 501, &unit(2, 32));
        idx.insert(3, 502, &unit(3, 32));
        // The table says: 500 is deleted, 501 is still at vid 2, 502 moved to vid 9 (written
        // but never inserted), and vid 3 now belongs to another record (a restored copy).
        let missing = idx.reconcile(&[(501, 2), (502, 9), (777, 3)]);
        assert_eq!(missing, [9, 3]);
        assert!(idx.search(&unit(1, 32), 3).iter().all(|h| h.rid == 501), "only 501 answers until the rest is added");
        assert_eq!(idx.cosine_of(500, &quantize(&unit(1, 32))), None, "deleted");
        idx.insert(9, 502, &unit(9, 32));
        assert_eq!(idx.search(&unit(9, 32), 1)[0].rid, 502);
    }

    #[test]
    fn search_widens_past_old_versions() {
        let mut idx = VectorIndex::new("m", 32, 10);
        let v = unit(5, 32);
        // Record 1 re-embedded 40 times (its text edited a little each time: vectors a
        // little apart), and 10 other records.
        for vid in 1..=40 {
            let mut w = v.clone();
            w[vid as usize % 32] += 0.01 * vid as f32;
            let n = w.iter().map(|x| x * x).sum::<f32>().sqrt();
            idx.insert(vid, 1, &w.iter().map(|x| x / n).collect::<Vec<_>>());
        }
        for i in 0..10 {
            idx.insert(100 + i, 200 + i, &unit(1_000 + i as u32, 32));
        }
        let hits = idx.search(&v, 5);
        assert_eq!(hits.len(), 5, "{hits:?}");
        assert_eq!((hits[0].rid, hits[0].vid), (1, 40));
    }

    #[test]
    fn equal_points_do_not_trip_the_distance_assertion() {
        // hnsw_rs's f32 dot distance asserted `1 - a·b >= 0`, which rounding broke for two
        // copies of one unit vector (a crash seen when two catch-ups inserted a record
        // twice); kept for the graph that replaced it.
        let mut idx = VectorIndex::new("m", 384, 100);
        let v = unit(7, 384);
        let items: Vec<(i64, i64, Vec<f32>)> = (1..=50).map(|i| (i, i, v.clone())).collect();
        idx.insert_many(&items);
        idx.insert(51, 51, &v);
        let hits = idx.search(&v, 10);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| (h.cosine - 1.0).abs() < 0.01), "{hits:?}");
    }

    #[test]
    fn int8_cosine_stays_close_to_the_exact_one() {
        for seed in 1..50u32 {
            let (a, b) = (unit(seed, 384), unit(seed + 1000, 384));
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let approx = cosine_i8(&quantize(&a), &quantize(&b));
            assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        }
    }

    #[test]
    fn blobs_round_trip() {
        let v = vec![0.5f32, -1.25, 3.0e-7];
        assert_eq!(from_blob(&to_blob(&v)), v);
    }
}
