//! What search stands on besides FTS5: embeddings and the vector index.

use std::path::PathBuf;

use crate::error::Result;

#[cfg(feature = "onnx")]
mod embed;
#[cfg(feature = "vectors")]
pub mod hnsw;
#[cfg(feature = "vectors")]
pub mod vectors;

#[cfg(feature = "onnx")]
pub use embed::OnnxEmbedder;

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

/// f32 little-endian bytes, as vectors are stored in SQLite.
pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The reverse of [`to_blob`].
pub fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
