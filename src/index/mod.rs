//! What search stands on besides FTS5: embeddings and the vector index.

use std::path::PathBuf;

use crate::error::Result;

#[cfg(feature = "vectors")]
pub mod dot;
#[cfg(feature = "onnx")]
mod embed;
#[cfg(feature = "vectors")]
pub mod hnsw;
#[cfg(feature = "vectors")]
pub(crate) mod pipeline;
#[cfg(feature = "vectors")]
mod state;
#[cfg(feature = "vectors")]
pub mod vectors;

#[cfg(feature = "onnx")]
pub use embed::OnnxEmbedder;
#[cfg(feature = "vectors")]
pub use pipeline::{BackgroundEmbedding, EmbedReport, SEARCH_EMBED_BUDGET};
#[cfg(feature = "vectors")]
pub(crate) use state::VectorState;

/// Stands for the embedding pipeline in a build without vectors: there never is one.
#[cfg(not(feature = "vectors"))]
pub(crate) enum VectorState {}

/// A store's embedding pipeline, when semantic search is on.
pub(crate) type Vectors = Option<std::sync::Arc<VectorState>>;

/// The default model's name (also the directory it is installed in).
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2-int8";

/// Turns texts into unit-length vectors. Implement it to bring another model.
pub trait Embedder: Send + Sync {
    /// A stable name: vectors from different models never mix.
    fn model_id(&self) -> &str;
    /// Vector length.
    fn dims(&self) -> usize;
    /// One L2-normalised vector per text.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// The vector of a search query. Asymmetric models (bge, e5) embed queries with an
    /// instruction; symmetric ones embed them as any text.
    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed(&[text])?.pop().unwrap_or_default())
    }
}

/// Where models and ONNX Runtime are installed: `$MEMSTR_CACHE_DIR`, else
/// `~/.cache/memstr` (the platform cache directory). An empty `MEMSTR_CACHE_DIR` counts as
/// unset.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("MEMSTR_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("memstr")))
        .unwrap_or_else(|| PathBuf::from(".memstr-cache"))
}

/// The ONNX Runtime library installed by `memstr model install`.
pub fn default_runtime() -> PathBuf {
    cache_dir().join("onnxruntime").join("libonnxruntime.so")
}

/// The default model's directory.
pub fn default_model_dir() -> PathBuf {
    cache_dir().join("models").join(DEFAULT_MODEL)
}

pub use crate::codec::{from_blob, to_blob};

/// Dot product of two vectors (their cosine, for unit vectors), in f64. Eight running
/// sums rather than one, so the compiler can vectorise it: consolidation compares every
/// pair of persona memories with it (50 million pairs at 10,000 memories).
#[cfg_attr(not(feature = "vectors"), allow(dead_code))]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    const LANES: usize = 8;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| (x * y) as f64).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += (x[i] * y[i]) as f64;
        }
    }
    acc.iter().sum::<f64>() + tail
}
