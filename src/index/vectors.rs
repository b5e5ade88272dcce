//! The HNSW vector index over stored embeddings ([`super::hnsw`]), saved beside the
//! database so opening a store neither re-embeds nor rebuilds.
//!
//! SQLite's `vectors` table is the source of truth; this index is a cache of it. Points
//! are keyed by `vid`, which changes with every new version of a record, so points left
//! behind by old versions are recognised (their vid is gone) and skipped, and the index
//! is rebuilt when they make up too much of it.

use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::hnsw::{dot_i8, Hnsw};
use crate::error::{Error, Result};

/// Links per node (twice as many on the bottom layer). At 8, the first 125 hits still
/// hold 99-100% of the exact top 10 at 100k memories (examples/search_bench.rs; search
/// recomputes exact cosines for them), and the bottom layer costs 64 bytes a point.
const MAX_CONNECTIONS: usize = 8;
/// Breadth of the search while inserting.
const EF_CONSTRUCTION: usize = 100;
const GRAPH_FILE: &str = "graph.bin";
/// Points are int8: a component `x` of a unit vector is stored as `round(x × Q)`, clamped
/// to ±127. Sentence embeddings of a few hundred dimensions keep their components well
/// under 0.5, so Q = 254 loses nothing there, and a point takes 384 bytes instead of 1,536,
/// and its distances are integer dot products. The ranking it gives is approximate;
/// search recomputes each hit's exact cosine from the stored f32 vector.
const Q: f32 = 254.0;
/// Format of the saved files; another value is rebuilt from SQLite. (3 and below were
/// hnsw_rs's files.)
const FORMAT: u32 = 4;

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

/// An in-memory HNSW graph of unit vectors (dot product = cosine).
pub struct VectorIndex {
    hnsw: Hnsw,
    model: String,
    max_vid: i64,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex").field("model", &self.model).field("points", &self.points()).finish()
    }
}

fn io_err(what: impl std::fmt::Display) -> Error {
    Error::Model(format!("vector index: {what}"))
}

impl VectorIndex {
    /// An empty index for `model`'s vectors of `dims` dimensions, with room for `capacity`.
    pub fn new(model: &str, dims: usize, capacity: usize) -> Self {
        let mut hnsw = Hnsw::new(dims, MAX_CONNECTIONS, EF_CONSTRUCTION, 0x6d65_6d73_7472);
        hnsw.reserve(capacity);
        VectorIndex { hnsw, model: model.to_string(), max_vid: 0 }
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn dims(&self) -> usize {
        self.hnsw.dims()
    }

    /// Points in the graph, including those of superseded versions.
    pub fn points(&self) -> usize {
        self.hnsw.len()
    }

    /// Bytes of memory the graph holds.
    pub fn heap_bytes(&self) -> usize {
        self.hnsw.heap_bytes()
    }

    /// Largest vid inserted.
    pub fn max_vid(&self) -> i64 {
        self.max_vid
    }

    /// Adds one vector.
    pub fn insert(&mut self, vid: i64, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dims());
        self.hnsw.insert(vid, &quantize(vector));
        self.max_vid = self.max_vid.max(vid);
    }

    /// Adds many vectors.
    pub fn insert_many(&mut self, items: &[(i64, Vec<f32>)]) {
        self.hnsw.reserve(items.len());
        for (vid, v) in items {
            self.insert(*vid, v);
        }
    }

    /// The `k` nearest points to `query`: `(vid, cosine)`, best first. The cosine is that
    /// of the int8 points (within about 0.01 of the exact one).
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if self.points() == 0 || k == 0 {
            return Vec::new();
        }
        let ef = (k * 2).max(64);
        self.hnsw.search(&quantize(query), k, ef).into_iter().map(|(vid, dot)| (vid, dot as f32 / (Q * Q))).collect()
    }

    /// The directory an index of the store at `db` lives in.
    pub fn dir_for(db: &Path) -> PathBuf {
        let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".vectors");
        db.with_file_name(name)
    }

    /// Saves the graph (to a temporary directory, then renamed over the old one).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let tmp = dir.with_extension("vectors.tmp");
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(|e| io_err(format!("{}: {e}", tmp.display())))?;
        let graph = tmp.join(GRAPH_FILE);
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::new(std::fs::File::create(&graph)?);
            self.hnsw.write_to(&mut w)?;
            w.flush()?;
            w.get_ref().sync_all()
        };
        write().map_err(|e| io_err(format!("saving {}: {e}", graph.display())))?;
        let meta = Meta {
            format: FORMAT,
            model: self.model.clone(),
            dims: self.dims(),
            max_vid: self.max_vid,
            points: self.points(),
        };
        std::fs::write(tmp.join("meta.json"), serde_json::to_vec(&meta)?).map_err(|e| io_err(e.to_string()))?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&tmp, dir).map_err(|e| io_err(format!("{}: {e}", dir.display())))?;
        Ok(())
    }

    /// Loads a saved graph of `model`'s vectors; `None` when absent, unreadable, damaged
    /// or made by another model (the caller rebuilds from SQLite).
    pub fn load(dir: &Path, model: &str, dims: usize) -> Option<Self> {
        let meta: Meta = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).ok()?).ok()?;
        if meta.format != FORMAT || meta.model != model || meta.dims != dims {
            return None;
        }
        let file = std::fs::File::open(dir.join(GRAPH_FILE)).ok()?;
        let hnsw = match Hnsw::read_from(&mut BufReader::with_capacity(1 << 20, file)) {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!("vector index in {} not loaded, rebuilding: {e}", dir.display());
                return None;
            }
        };
        if hnsw.len() != meta.points || hnsw.dims() != dims {
            return None;
        }
        Some(VectorIndex { hnsw, model: model.to_string(), max_vid: meta.max_vid })
    }
}

/// f32 little-endian bytes, as vectors are stored in SQLite.
pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The reverse of [`to_blob`].
pub fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
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
        let items: Vec<(i64, Vec<f32>)> = (1..=300).map(|i| (i, unit(i as u32, 32))).collect();
        idx.insert_many(&items);
        idx.insert(301, &unit(301, 32));
        assert_eq!(idx.search(&unit(42, 32), 1)[0].0, 42);
        let path = dir.path().join("store.db.vectors");
        idx.save(&path).unwrap();
        let back = VectorIndex::load(&path, "m", 32).unwrap();
        assert_eq!((back.points(), back.max_vid()), (301, 301));
        let hit = back.search(&unit(301, 32), 3);
        assert_eq!(hit[0].0, 301);
        // int8 points: the cosine is approximate (search recomputes exact ones).
        assert!((hit[0].1 - 1.0).abs() < 0.01, "{}", hit[0].1);
        assert!(VectorIndex::load(&path, "other-model", 32).is_none());
        assert!(VectorIndex::load(&dir.path().join("absent"), "m", 32).is_none());
    }

    #[test]
    fn equal_points_do_not_trip_the_distance_assertion() {
        // hnsw_rs's f32 dot distance asserted `1 - a·b >= 0`, which rounding broke for two
        // copies of one unit vector (a crash seen when two catch-ups inserted a record
        // twice); kept for the graph that replaced it.
        let mut idx = VectorIndex::new("m", 384, 100);
        let v = unit(7, 384);
        let items: Vec<(i64, Vec<f32>)> = (1..=50).map(|i| (i, v.clone())).collect();
        idx.insert_many(&items);
        idx.insert(51, &v);
        let hits = idx.search(&v, 10);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|(_, s)| (s - 1.0).abs() < 0.01), "{hits:?}");
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
