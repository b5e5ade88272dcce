//! What search stands on besides FTS5: embeddings and the vector index.

#[cfg(feature = "onnx")]
mod embed;

#[cfg(feature = "onnx")]
pub use embed::{cache_dir, default_model_dir, default_runtime, Embedder, OnnxEmbedder, DEFAULT_MODEL};
