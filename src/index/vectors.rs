//! The HNSW vector index (hnsw_rs) over stored embeddings, saved beside the database so
//! opening a store neither re-embeds nor rebuilds.
//!
//! SQLite's `vectors` table is the source of truth; this index is a cache of it. Points
//! are keyed by `vid`, which changes with every new version of a record, so points left
//! behind by old versions are recognised (their vid is gone) and skipped, and the index
//! is rebuilt when they make up too much of it.

use std::path::{Path, PathBuf};

use hnsw_rs::api::AnnT;
use hnsw_rs::hnswio::{HnswIo, ReloadOptions};
use hnsw_rs::prelude::{Distance, Hnsw};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Links per node (twice as many on the bottom layer). Half the usual 16: hnsw_rs spends
/// about 2 kB of heap per point at 16, and loading it is allocation-bound, so at 100k
/// points this halves the graph's memory and load time, while the first 125 hits still
/// hold 98-99% of the exact top 10 (examples/search_bench.rs; search recomputes exact
/// cosines for them).
const MAX_CONNECTIONS: usize = 8;
/// Breadth of the search while inserting.
const EF_CONSTRUCTION: usize = 100;
const MAX_LAYERS: usize = 16;
const BASENAME: &str = "vectors";
/// Points are int8: a component `x` of a unit vector is stored as `round(x × Q)`, clamped
/// to ±127. Sentence embeddings of a few hundred dimensions keep their components well
/// under 0.5, so Q = 254 loses nothing there, and a point takes 384 bytes instead of 1,536:
/// the index is a quarter of the size on disk and in memory, and its distances are
/// integer dot products. The ranking it gives is approximate; search recomputes each hit's
/// exact cosine from the stored f32 vector.
const Q: f32 = 254.0;
/// Format of the saved files; another value is rebuilt from SQLite.
const FORMAT: u32 = 3;

/// `1 - a·b` on int8 points (never below 0, which hnsw_rs requires).
#[derive(Debug, Clone, Copy, Default)]
pub struct DistI8Dot;

impl Distance<i8> for DistI8Dot {
    fn eval(&self, a: &[i8], b: &[i8]) -> f32 {
        let dot: i32 = a.iter().zip(b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
        (1.0 - dot as f32 / (Q * Q)).max(0.0)
    }
}

/// The int8 form of a unit vector.
pub fn quantize(v: &[f32]) -> Vec<i8> {
    v.iter().map(|x| (x * Q).round().clamp(-127.0, 127.0) as i8).collect()
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
    // Declared before `reader`, so dropped before the mapping it borrows from.
    hnsw: Hnsw<'static, i8, DistI8Dot>,
    /// The reader a loaded graph's mapped vectors live in.
    _reader: Option<Box<HnswIo>>,
    model: String,
    dims: usize,
    max_vid: i64,
    points: usize,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex").field("model", &self.model).field("points", &self.points).finish()
    }
}

fn io_err(what: impl std::fmt::Display) -> Error {
    Error::Model(format!("vector index: {what}"))
}

impl VectorIndex {
    /// An empty index for `model`'s vectors of `dims` dimensions.
    pub fn new(model: &str, dims: usize, capacity: usize) -> Self {
        VectorIndex {
            hnsw: Hnsw::new(MAX_CONNECTIONS, capacity.max(1_000), MAX_LAYERS, EF_CONSTRUCTION, DistI8Dot),
            _reader: None,
            model: model.to_string(),
            dims,
            max_vid: 0,
            points: 0,
        }
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Points in the graph, including those of superseded versions.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Largest vid inserted.
    pub fn max_vid(&self) -> i64 {
        self.max_vid
    }

    /// Adds one vector.
    pub fn insert(&mut self, vid: i64, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dims);
        self.hnsw.insert((&quantize(vector), vid as usize));
        self.max_vid = self.max_vid.max(vid);
        self.points += 1;
    }

    /// Adds many vectors, using every core hnsw_rs may use.
    pub fn insert_many(&mut self, items: &[(i64, Vec<f32>)]) {
        let points: Vec<Vec<i8>> = items.iter().map(|(_, v)| quantize(v)).collect();
        let refs: Vec<(&Vec<i8>, usize)> = points.iter().zip(items).map(|(v, (vid, _))| (v, *vid as usize)).collect();
        self.hnsw.parallel_insert(&refs);
        for (vid, _) in items {
            self.max_vid = self.max_vid.max(*vid);
        }
        self.points += items.len();
    }

    /// The `k` nearest points to `query`: `(vid, cosine)`, best first. The cosine is that
    /// of the int8 points (within about 0.01 of the exact one).
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if self.points == 0 || k == 0 {
            return Vec::new();
        }
        let ef = (k * 2).max(64);
        self.hnsw.search(&quantize(query), k, ef).into_iter().map(|n| (n.d_id as i64, 1.0 - n.distance)).collect()
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
        if self.points > 0 {
            self.hnsw.file_dump(&tmp, BASENAME).map_err(|e| io_err(format!("saving: {e}")))?;
        }
        let meta = Meta {
            format: FORMAT,
            model: self.model.clone(),
            dims: self.dims,
            max_vid: self.max_vid,
            points: self.points,
        };
        std::fs::write(tmp.join("meta.json"), serde_json::to_vec(&meta)?).map_err(|e| io_err(e.to_string()))?;
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&tmp, dir).map_err(|e| io_err(format!("{}: {e}", dir.display())))?;
        Ok(())
    }

    /// Loads a saved graph of `model`'s vectors; `None` when absent, unreadable, or made
    /// by another model (the caller rebuilds from SQLite).
    pub fn load(dir: &Path, model: &str, dims: usize) -> Option<Self> {
        let meta: Meta = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).ok()?).ok()?;
        if meta.format != FORMAT || meta.model != model || meta.dims != dims {
            return None;
        }
        if meta.points == 0 {
            let mut empty = VectorIndex::new(model, dims, 1_000);
            empty.max_vid = meta.max_vid;
            return Some(empty);
        }
        // hnsw_rs ties a loaded graph to its reader's lifetime; the store keeps the index
        // for as long as it is open, so the small reader is leaked once per load.
        // The vectors stay in the file, mapped: opening reads only the graph, and a search
        // pages in just the points it visits.
        let options = ReloadOptions::default().set_mmap(true);
        let mut reader = Box::new(HnswIo::new_with_options(dir, BASENAME, options));
        // SAFETY: the graph borrows the reader (its mapping). The reader is boxed, so it
        // does not move, and it is kept in the same VectorIndex, whose field order drops
        // the graph first.
        let borrowed: &'static mut HnswIo = unsafe { &mut *(reader.as_mut() as *mut HnswIo) };
        let hnsw: Hnsw<'static, i8, DistI8Dot> = borrowed.load_hnsw().ok()?;
        if hnsw.get_nb_point() != meta.points {
            return None;
        }
        Some(VectorIndex {
            hnsw,
            _reader: Some(reader),
            model: model.to_string(),
            dims,
            max_vid: meta.max_vid,
            points: meta.points,
        })
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
        // copies of one unit vector (a crash seen when two catch-ups inserted a record twice).
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
            let approx = 1.0 - DistI8Dot.eval(&quantize(&a), &quantize(&b));
            assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        }
    }

    #[test]
    fn blobs_round_trip() {
        let v = vec![0.5f32, -1.25, 3.0e-7];
        assert_eq!(from_blob(&to_blob(&v)), v);
    }
}
