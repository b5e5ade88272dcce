//! `memstr._native`: memstr's `MemoryStore` for Python.
//!
//! Every store call returns an asyncio awaitable (pyo3-async-runtimes): the Rust future runs
//! on one tokio runtime shared by the process, as it does in a Rust program, and the event
//! loop never blocks on SQLite, the model or a relay. Results cross as plain dicts and lists
//! (pythonize over memstr's serde types); the pure-Python layer in `memstr/` turns them into
//! typed dataclasses, so this file stays a thin, mechanical map of the Rust API.
//!
//! Secrets: the key enters as a string, becomes an `Identity` at once and is never kept,
//! printed or put in an error here (Identity's own errors never quote the input).

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use memstr::index::OnnxEmbedder;
use memstr::lifecycle::gate::GateDecision;
use memstr::search::Kind;
use memstr::sync::SyncOptions;
use memstr::{DTagMode, Error, Identity, MemoryState, PersonaInput, PersonaQuery, SearchQuery, StoreOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

/// The Python exception for a memstr error: a class from `memstr._errors` (where the
/// hierarchy lives, so it can also derive from ValueError, KeyError, ...), its message
/// memstr's, followed by what to do about it.
fn to_py(e: Error) -> PyErr {
    let (class, hint) = match &e {
        Error::Validation(_) => ("InvalidInput", ""),
        Error::NotFound(_) => ("NotFound", ""),
        Error::Ambiguous { .. } => ("Ambiguous", ""),
        Error::WrongKey { .. } => (
            "WrongKey",
            " (open it with the key it was created with, or give this key its own path)",
        ),
        Error::SchemaTooNew { .. } => ("StoreError", " (upgrade memstr to open it)"),
        Error::Database { .. } | Error::Io { .. } | Error::Encryption { .. } => ("StoreError", ""),
        Error::Identity(_) => ("IdentityError", " (pass the agent's secret key as an nsec or 64 hex digits)"),
        Error::Model(_) => (
            "ModelError",
            " (install the model with `memstr model install` or scripts/models/fetch.sh, or open with model=\"none\" to search by words only)",
        ),
        Error::Relay(_) | Error::RelayMisbehaved { .. } => ("RelayError", ""),
        Error::EvaluateOnly(_) => ("ReadOnly", ""),
        _ => ("MemstrError", ""),
    };
    let message = format!("{e}{hint}");
    Python::attach(|py| {
        match py.import("memstr._errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1((message.clone(),))) {
            Ok(value) => PyErr::from_value(value),
            // The package is broken if this happens; the message still gets through.
            Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
        }
    })
}

/// An awaitable for `fut`, its result converted to Python objects.
fn awaitable<'py, T, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    T: Serialize + Send + 'static,
    F: Future<Output = memstr::Result<T>> + Send + 'static,
{
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        let value = fut.await.map_err(to_py)?;
        Python::attach(|py| Ok(pythonize::pythonize(py, &value)?.unbind()))
    })
}

fn kinds(names: Option<Vec<String>>) -> PyResult<Vec<Kind>> {
    names
        .unwrap_or_default()
        .iter()
        .map(|n| match n.as_str() {
            "memory" | "kv" => Ok(Kind::Memory),
            "journal" => Ok(Kind::Journal),
            "persona" => Ok(Kind::Persona),
            other => Err(PyValueError::new_err(format!(
                "unknown kind {other:?}: use \"memory\", \"journal\" or \"persona\""
            ))),
        })
        .collect()
}

fn states(names: Option<Vec<String>>) -> PyResult<Vec<MemoryState>> {
    names
        .unwrap_or_default()
        .iter()
        .map(|n| {
            n.parse::<MemoryState>().map_err(|_| {
                PyValueError::new_err(format!(
                    "unknown state {n:?}: use \"active\", \"fading\", \"forgotten\" or \"dissolved\""
                ))
            })
        })
        .collect()
}

#[derive(Serialize)]
struct Opened {
    has_model: bool,
    model_problem: Option<String>,
}

/// An open store. Made by `open`; every method returns an awaitable.
#[pyclass(module = "memstr._native", frozen)]
struct Store {
    inner: memstr::MemoryStore,
    has_model: bool,
}

/// Opens (creating if needed) the store at `path` for the key `secret` (nsec or hex).
///
/// `model`: "auto" loads the embedding model from the cache when it is installed and
/// searches by words otherwise; "required" fails without it; "none" never loads it.
#[pyfunction]
#[pyo3(signature = (path, secret, *, d_tag_mode=None, model="auto"))]
fn open<'py>(
    py: Python<'py>,
    path: PathBuf,
    secret: String,
    d_tag_mode: Option<String>,
    model: &str,
) -> PyResult<Bound<'py, PyAny>> {
    // Wiped when dropped (the Python str it came from is the caller's to keep or drop).
    let secret = zeroize::Zeroizing::new(secret);
    let identity = Identity::from_secret(&secret).map_err(to_py)?;
    drop(secret);
    let mode = match d_tag_mode.as_deref() {
        None => None,
        Some(m) => Some(m.parse::<DTagMode>().map_err(|_| {
            PyValueError::new_err(format!("unknown d_tag_mode {m:?}: use \"compatible\" or \"blinded\""))
        })?),
    };
    let model = match model {
        "auto" | "required" | "none" => model.to_string(),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown model {other:?}: use \"auto\", \"required\" or \"none\""
            )))
        }
    };
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        let mut options = StoreOptions::default();
        if let Some(mode) = mode {
            options = options.d_tag_mode(mode);
        }
        let mut opened = Opened { has_model: false, model_problem: None };
        if model != "none" {
            // Loading ONNX Runtime and the model reads ~25 MB: off the event loop's thread.
            let loaded = tokio::task::spawn_blocking(OnnxEmbedder::from_cache)
                .await
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("loading the model: {e}")))?;
            match loaded {
                Ok(embedder) => {
                    options = options.embedder(Arc::new(embedder));
                    opened.has_model = true;
                }
                Err(e) if model == "required" => return Err(to_py(e)),
                Err(e) => opened.model_problem = Some(e.to_string()),
            }
        }
        let inner = memstr::MemoryStore::open(&path, identity, options).await.map_err(to_py)?;
        let has_model = opened.has_model;
        Python::attach(|py| {
            let info = pythonize::pythonize(py, &opened)?.unbind();
            let store = Py::new(py, Store { inner, has_model })?;
            Ok((store, info))
        })
    })
}

/// The platform's data directory (`~/.local/share` on Linux), where stores live by default.
#[pyfunction]
fn data_dir() -> Option<PathBuf> {
    dirs::data_dir()
}

/// The public key (hex) of a secret key (nsec or hex), checked the way `open` checks it.
#[pyfunction]
fn public_key_of(secret: String) -> PyResult<String> {
    let secret = zeroize::Zeroizing::new(secret);
    Ok(Identity::from_secret(&secret).map_err(to_py)?.public_key().to_hex())
}

/// A new random secret key, as an nsec: the only call that returns a secret.
#[pyfunction]
fn generate_secret() -> String {
    Identity::generate().reveal_nsec().to_string()
}

#[derive(Serialize)]
struct IngestedOut {
    decision: &'static str,
    address: String,
    event_id: String,
    existing: Option<String>,
    similarity: Option<f64>,
}

#[pymethods]
impl Store {
    /// The store's public key, hex.
    #[getter]
    fn public_key(&self) -> String {
        self.inner.public_key().to_hex()
    }

    /// The SQLite file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    /// "compatible" or "blinded".
    #[getter]
    fn d_tag_mode(&self) -> &'static str {
        self.inner.d_tag_mode().as_str()
    }

    /// Whether search uses the embedding model.
    #[getter]
    fn has_model(&self) -> bool {
        self.has_model
    }

    fn __repr__(&self) -> String {
        format!(
            "memstr.Store(public_key={}..., path={:?}, d_tag_mode={})",
            &self.public_key()[..8],
            self.inner.path(),
            self.d_tag_mode()
        )
    }

    #[pyo3(signature = (key, value, at=None))]
    fn remember<'py>(
        &self,
        py: Python<'py>,
        key: String,
        value: String,
        at: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move {
            match at {
                Some(at) => s.remember_at(&key, &value, at).await,
                None => s.remember(&key, &value).await,
            }
        })
    }

    fn recall<'py>(&self, py: Python<'py>, key: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.recall(&key).await })
    }

    fn recall_all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.recall_all().await })
    }

    #[pyo3(signature = (content, at=None))]
    fn journal<'py>(&self, py: Python<'py>, content: String, at: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move {
            match at {
                Some(at) => s.journal_at(&content, at).await,
                None => s.journal(&content).await,
            }
        })
    }

    #[pyo3(signature = (limit, since=None, until=None))]
    fn recent<'py>(
        &self,
        py: Python<'py>,
        limit: usize,
        since: Option<f64>,
        until: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move {
            if since.is_none() && until.is_none() {
                s.recent(limit).await
            } else {
                s.recent_between(since, until, limit).await
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (domain, facet, key, value, *, themes=None, connections=None, source=None, confidence=None, halflife_days=None, importance=None, at=None, gate=false))]
    fn persona_remember<'py>(
        &self,
        py: Python<'py>,
        domain: String,
        facet: String,
        key: String,
        value: String,
        themes: Option<Vec<String>>,
        connections: Option<Vec<String>>,
        source: Option<String>,
        confidence: Option<f64>,
        halflife_days: Option<f64>,
        importance: Option<f64>,
        at: Option<f64>,
        gate: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut input = PersonaInput::new(&domain, &facet, &key, &value)
            .themes(themes.unwrap_or_default())
            .connections(connections.unwrap_or_default());
        input.source = source;
        input.confidence = confidence;
        input.halflife_days = halflife_days;
        input.importance = importance;
        input.at = at;
        let s = self.inner.clone();
        awaitable(py, async move {
            if !gate {
                let id = s.persona_remember(input).await?;
                let address = format!("{domain}/{facet}/{key}");
                return Ok(IngestedOut { decision: "write", address, event_id: id, existing: None, similarity: None });
            }
            let done = s.persona_ingest(input).await?;
            let (decision, existing, similarity) = match &done.decision {
                GateDecision::Create => ("create", None, None),
                GateDecision::Reinforce { key, similarity, .. } => ("reinforce", Some(key.clone()), Some(*similarity)),
                GateDecision::Update { key, similarity, .. } => ("update", Some(key.clone()), Some(*similarity)),
                GateDecision::Supersede { key, similarity, .. } => ("supersede", Some(key.clone()), Some(*similarity)),
                other => (gate_name(other), None, None),
            };
            Ok(IngestedOut { decision, address: done.address, event_id: done.event_id, existing, similarity })
        })
    }

    #[pyo3(signature = (domain=None, facet=None, key=None, *, count_access=true))]
    fn persona_recall<'py>(
        &self,
        py: Python<'py>,
        domain: Option<String>,
        facet: Option<String>,
        key: Option<String>,
        count_access: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let query = PersonaQuery { domain, facet, key };
        let s = self.inner.clone();
        awaitable(py, async move {
            let found = if count_access { s.persona_recall(query).await? } else { s.persona_peek(query).await? };
            let now = s.now();
            Ok(found.into_iter().map(|m| with_live(&s, m, now)).collect::<Vec<_>>())
        })
    }

    fn persona_search<'py>(&self, py: Python<'py>, query: String, limit: usize) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_search(&query, limit).await })
    }

    fn persona_connect<'py>(&self, py: Python<'py>, a: String, b: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_connect(&a, &b).await })
    }

    fn persona_contradict<'py>(&self, py: Python<'py>, old: String, new: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_contradict(&old, &new).await })
    }

    fn persona_domains<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_domains().await })
    }

    fn persona_facets<'py>(&self, py: Python<'py>, domain: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_facets(&domain).await })
    }

    fn persona_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_stats().await })
    }

    fn persona_pin<'py>(&self, py: Python<'py>, reference: String, pinned: bool) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_pin(&reference, pinned).await })
    }

    #[pyo3(signature = (domain=None))]
    fn persona_compress<'py>(&self, py: Python<'py>, domain: Option<String>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_compress(domain.as_deref()).await })
    }

    fn introspect<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.persona_introspect().await })
    }

    fn consolidate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.consolidate().await })
    }

    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (text, *, limit=10, kinds=None, domain=None, facet=None, states=None, since=None, until=None, min_strength=None, history=false, strengthen=true, phrasings=None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        text: String,
        limit: usize,
        kinds: Option<Vec<String>>,
        domain: Option<String>,
        facet: Option<String>,
        states: Option<Vec<String>>,
        since: Option<f64>,
        until: Option<f64>,
        min_strength: Option<f64>,
        history: bool,
        strengthen: bool,
        phrasings: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut q = SearchQuery::new(&text).limit(limit).kinds(&self::kinds(kinds)?);
        q.domain = domain;
        q.facet = facet;
        q.states = self::states(states)?;
        q.since = since;
        q.until = until;
        q.min_strength = min_strength;
        q.history = history;
        q.strengthen = strengthen;
        q.phrasings = phrasings.unwrap_or_default();
        let s = self.inner.clone();
        awaitable(py, async move { s.search(q).await })
    }

    #[pyo3(signature = (domain, subject, attribute, value, at=None))]
    fn fact_set<'py>(
        &self,
        py: Python<'py>,
        domain: String,
        subject: String,
        attribute: String,
        value: String,
        at: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move {
            match at {
                Some(at) => s.fact_set_at(&domain, &subject, &attribute, &value, at).await,
                None => s.fact_set(&domain, &subject, &attribute, &value).await,
            }
        })
    }

    fn fact_get<'py>(
        &self,
        py: Python<'py>,
        domain: String,
        subject: String,
        attribute: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.fact_get(&domain, &subject, &attribute).await })
    }

    fn fact_history<'py>(
        &self,
        py: Python<'py>,
        domain: String,
        subject: String,
        attribute: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.fact_history(&domain, &subject, &attribute).await })
    }

    fn graph_neighbours<'py>(&self, py: Python<'py>, reference: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.graph_neighbours(&reference).await })
    }

    fn archive<'py>(&self, py: Python<'py>, reference: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.archive(&reference).await })
    }

    fn restore<'py>(&self, py: Python<'py>, reference: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.restore(&reference).await })
    }

    fn forget<'py>(&self, py: Python<'py>, reference: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.forget(&reference).await })
    }

    fn purge<'py>(&self, py: Python<'py>, reference: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.purge(&reference).await })
    }

    #[pyo3(signature = (url, allow_insecure=false))]
    fn add_relay<'py>(&self, py: Python<'py>, url: String, allow_insecure: bool) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { Ok(s.add_relay(&url, allow_insecure).await?.to_string()) })
    }

    fn remove_relay<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.remove_relay(&url).await })
    }

    fn relays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.relays().await })
    }

    /// One pass with every relay (pull, then push); `timeout`: the most one relay may take.
    #[pyo3(signature = (*, full=false, timeout=None))]
    fn sync<'py>(&self, py: Python<'py>, full: bool, timeout: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        let mut opts = SyncOptions { full, ..SyncOptions::default() };
        if let Some(t) = timeout {
            if !(t.is_finite() && t > 0.0) {
                return Err(PyValueError::new_err(format!("timeout must be a positive number of seconds, got {t}")));
            }
            opts.deadline = Duration::from_secs_f64(t);
            opts.connect_timeout = opts.connect_timeout.min(opts.deadline);
            opts.timeout = opts.timeout.min(opts.deadline);
        }
        let s = self.inner.clone();
        awaitable(py, async move { s.sync(&opts).await })
    }

    #[pyo3(signature = (max=None))]
    fn embed_pending<'py>(&self, py: Python<'py>, max: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.embed_pending(max, |_, _| {}).await })
    }

    fn pending_embeddings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.pending_embeddings().await })
    }

    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move { s.stats().await })
    }

    /// Signs the accesses waiting for their batch and saves the vector index.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.inner.clone();
        awaitable(py, async move {
            s.flush_accesses().await?;
            // Other handles may live on (clones); `close` consumes only this one.
            s.close().await
        })
    }
}

fn gate_name(d: &GateDecision) -> &'static str {
    // Decisions added after this binding was written: named by their Debug form's head.
    match format!("{d:?}").split([' ', '{', '(']).next().unwrap_or("") {
        "Related" => "related",
        "MightCorrect" => "might_correct",
        _ => "other",
    }
}

#[derive(Serialize)]
struct Live {
    #[serde(flatten)]
    memory: memstr::PersonaMemory,
    current_relevance: f64,
    live_state: &'static str,
}

fn with_live(s: &memstr::MemoryStore, m: memstr::PersonaMemory, now: f64) -> Live {
    let (current_relevance, state) = s.live(&m, now);
    Live { memory: m, current_relevance, live_state: state.as_str() }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Store>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(data_dir, m)?)?;
    m.add_function(wrap_pyfunction!(public_key_of, m)?)?;
    m.add_function(wrap_pyfunction!(generate_secret, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
