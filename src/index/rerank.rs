//! A cross-encoder: reads a query and a passage together and scores how well the passage
//! answers the query. Slower than comparing two vectors (one model run per pair), so it
//! only orders the few best candidates of a search.

use std::path::Path;
use std::sync::Mutex;

use ndarray::Array2;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::embed::environment;
use crate::error::{Error, Result};

/// Longest query plus passage in tokens.
const MAX_TOKENS: usize = 256;

fn model_err(what: impl std::fmt::Display) -> Error {
    Error::Model(what.to_string())
}

/// Scores (query, passage) pairs. Implement it to bring another reranker.
pub trait Reranker: Send + Sync {
    /// A stable name.
    fn model_id(&self) -> &str;
    /// One score per passage, higher is better: a logit, comparable within one query.
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>>;
}

/// A cross-encoder in ONNX form (ms-marco-MiniLM style: one logit per pair).
pub struct OnnxReranker {
    _env: ort::environment::Environment,
    session: Mutex<Session>,
    tokenizer: Tokenizer,
    token_type_ids: bool,
    model_id: String,
}

impl std::fmt::Debug for OnnxReranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxReranker").field("model_id", &self.model_id).finish()
    }
}

impl OnnxReranker {
    /// Loads `model_dir/model.onnx` and `model_dir/tokenizer.json` with the ONNX Runtime
    /// library at `runtime`.
    pub fn load(runtime: &Path, model_dir: &Path, model_id: &str) -> Result<Self> {
        for f in [runtime.to_path_buf(), model_dir.join("model.onnx"), model_dir.join("tokenizer.json")] {
            if !f.exists() {
                return Err(model_err(format!("{} is missing: run `memstr model install`", f.display())));
            }
        }
        let env = environment(runtime)?;
        let onnx = model_dir.join("model.onnx");
        let fail = |e: &dyn std::fmt::Display| model_err(format!("loading {}: {e}", onnx.display()));
        let session = Session::builder(&env)
            .map_err(|e| fail(&e))?
            .with_intra_threads(1)
            .map_err(|e| fail(&e))?
            .with_inter_threads(1)
            .map_err(|e| fail(&e))?
            .commit_from_file(&onnx)
            .map_err(|e| fail(&e))?;
        let mut tokenizer = Tokenizer::from_file(model_dir.join("tokenizer.json"))
            .map_err(|e| model_err(format!("loading tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..Default::default() }));
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
            .map_err(|e| model_err(format!("tokenizer truncation: {e}")))?;
        let token_type_ids = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        Ok(OnnxReranker {
            _env: env,
            session: Mutex::new(session),
            tokenizer,
            token_type_ids,
            model_id: model_id.to_string(),
        })
    }
}

impl Reranker for OnnxReranker {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let pairs: Vec<(String, String)> = passages.iter().map(|p| (query.to_string(), p.to_string())).collect();
        let enc = self.tokenizer.encode_batch(pairs, true).map_err(|e| model_err(format!("tokenizing: {e}")))?;
        let (b, t) = (enc.len(), enc[0].get_ids().len());
        let mut ids = Array2::<i64>::zeros((b, t));
        let mut mask = Array2::<i64>::zeros((b, t));
        let mut types = Array2::<i64>::zeros((b, t));
        for (i, e) in enc.iter().enumerate() {
            for j in 0..t {
                ids[[i, j]] = e.get_ids()[j] as i64;
                mask[[i, j]] = e.get_attention_mask()[j] as i64;
                types[[i, j]] = e.get_type_ids()[j] as i64;
            }
        }
        let tensor = |a: Array2<i64>| Tensor::from_array(a).map_err(|e| model_err(format!("input tensor: {e}")));
        let mut inputs = ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask)?];
        if self.token_type_ids {
            inputs.push(("token_type_ids".into(), tensor(types)?.into()));
        }
        let mut session = self.session.lock().map_err(|_| model_err("reranker session poisoned"))?;
        let out = session.run(inputs).map_err(|e| model_err(format!("running the reranker: {e}")))?;
        let (_, data) = out[0].try_extract_tensor::<f32>().map_err(|e| model_err(format!("reranker output: {e}")))?;
        // One logit per pair (shape [b, 1]).
        Ok(data.iter().copied().take(b).collect())
    }
}
