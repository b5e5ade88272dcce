//! The parts of a tool's reply that every tool shares: errors that say what to do next,
//! success with structured content, budgets and required fields, the readable keys
//! `remember` derives, the targets `recall` resolves, and the gate's decision as JSON.

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::ErrorData;
use serde_json::{json, Value};

use super::render::{self, quoted};
use super::tools::{MAX_RESULT_TOKENS, MIN_RESULT_TOKENS};
use crate::lifecycle::gate::GateDecision;
use crate::{Error, MemoryStore, PersonaQuery};

pub(super) type ToolResult = Result<CallToolResult, ErrorData>;

/// A tool error for the caller: `is_error: true` and a message saying what to do.
pub(super) fn fail(message: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::error(vec![ContentBlock::text(render::safe(message.into()))]))
}

/// A store error as a tool error, with what to do next.
pub(super) fn store_error(e: Error) -> ToolResult {
    match e {
        Error::Ambiguous { candidates, .. } => fail(format!(
            "that key names several memories: {}. Call again with one of these addresses.",
            candidates.iter().map(|c| quoted(c)).collect::<Vec<_>>().join(", ")
        )),
        Error::NotFound(r) => fail(format!(
            "no memory matches {}. Use `search` to find its address, then call again with it.",
            quoted(&r)
        )),
        Error::Validation(v) => fail(format!("invalid input: {v}. Fix that argument and call again.")),
        Error::ReadOnlyStore(_) | Error::EvaluateOnly(_) => fail(format!("{e}")),
        other => fail(format!("memstr could not do that: {other}")),
    }
}

pub(super) fn ok(text: String, structured: Value) -> ToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(render::safe(text))]);
    r.structured_content = Some(structured);
    Ok(r)
}

/// The `at` argument as Unix seconds (`None`: now), or the error to give back.
pub(super) fn when(at: &Option<String>, now: f64) -> Result<Option<f64>, String> {
    match at.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => crate::search::time::parse_time(s, now).map(Some).map_err(|e| format!("at: {e}")),
    }
}

pub(super) fn budget(max_tokens: Option<u32>, default: usize) -> Result<usize, String> {
    match max_tokens {
        None => Ok(default),
        Some(n) if (n as usize) < MIN_RESULT_TOKENS => {
            Err(format!("max_tokens {n} is too small: give at least {MIN_RESULT_TOKENS}"))
        }
        Some(n) => Ok((n as usize).min(MAX_RESULT_TOKENS)),
    }
}

pub(super) fn non_empty<'a>(field: &str, value: &'a str) -> Result<&'a str, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(format!(
            "`{field}` is empty: give the text to {}",
            if field == "query" { "search for" } else { "use" }
        ));
    }
    Ok(v)
}

/// A readable key from the first content words: `Alice prefers dark mode` →
/// `alice-prefers-dark-mode`.
pub fn slug(content: &str) -> String {
    let words: Vec<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !crate::search::STOP_WORDS.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()))
        .take(6)
        .collect();
    let mut key = String::new();
    for w in words {
        if key.chars().count() + w.chars().count() + 1 > 60 {
            break;
        }
        if !key.is_empty() {
            key.push('-');
        }
        key.push_str(&w);
    }
    if key.is_empty() {
        "note".into()
    } else {
        key
    }
}

/// What a reference names, resolved with the store's read verbs.
#[allow(clippy::large_enum_variant)] // one at a time, never stored
pub(super) enum Target {
    Persona(crate::PersonaMemory),
    Kv(crate::Memory),
    Journal(crate::JournalEntry),
}

/// Journal entries scanned to find one by its time.
const JOURNAL_SCAN: usize = 10_000;

/// The memory `reference` names ([`MemoryStore::resolve`]: an address, a d tag, or a bare
/// key; several matches are [`Error::Ambiguous`]), read without counting an access.
pub(super) async fn resolve(store: &MemoryStore, reference: &str) -> Result<Target, Error> {
    let found = store.resolve(reference).await?;
    let missing = || Error::NotFound(reference.to_string());
    match found.kind {
        "persona" => {
            let parts: Vec<&str> = found.address.splitn(3, '/').collect();
            let [domain, facet, key] = parts[..] else { return Err(missing()) };
            let m = store.persona_peek(PersonaQuery::exact(domain, facet, key)).await?;
            m.into_iter().next().map(Target::Persona).ok_or_else(missing)
        }
        "kv" => {
            let key = found.address.strip_prefix("kv/").unwrap_or(&found.address);
            store.recall(key).await?.map(Target::Kv).ok_or_else(missing)
        }
        "journal" => {
            let ts: f64 = found.address.strip_prefix("journal/").and_then(|t| t.parse().ok()).ok_or_else(missing)?;
            let entries = store.recent(JOURNAL_SCAN).await?;
            entries.into_iter().find(|j| j.created_at == ts).map(Target::Journal).ok_or_else(missing)
        }
        _ => Err(missing()),
    }
}

pub(super) fn decision_json(d: &GateDecision) -> (&'static str, Value) {
    let about = match d {
        GateDecision::Reinforce { key, similarity, path }
        | GateDecision::Update { key, similarity, path }
        | GateDecision::Related { key, similarity, path } => {
            json!({"existing": key, "existing_path": path, "similarity": similarity})
        }
        GateDecision::Supersede { key, similarity, path, cue } => {
            json!({"existing": key, "existing_path": path, "similarity": similarity, "cue": cue})
        }
        // The calling agent decides: `contradict` with these two addresses confirms it.
        GateDecision::MightCorrect { key, similarity, path, cue } => json!({
            "existing": key, "existing_path": path, "similarity": similarity, "cue": cue, "might_correct": path
        }),
        _ => json!({}),
    };
    (d.as_str(), about)
}
