//! The novelty gate on realistic agent sessions (issue 23 point 1): each session of
//! examples/data/gate_sessions.json (or `--file`) is written, one sentence at a time, into a
//! fresh store through `persona_ingest`, as the MCP `remember` tool does (domain notes,
//! facet general, a key derived from the text), and each decision is scored against the
//! write's label (new, duplicate, update, correction, related) and its target (`of`).
//!
//! cargo run --release --example gate_sessions -- [--no-vectors] [--split tune|heldout|fresh|all] [--show] [--file F]
//!
//! Figures per split:
//! - corrections caught: of the writes labelled `correction`, the share the gate
//!   superseded their target with; `flagged` adds those it named as a possible correction
//!   of their target (`might_correct`: created, linked, the agent asked to confirm).
//! - false corrections: of the writes not labelled `correction` (or superseding another
//!   memory than the target), the share that superseded something.
//! - details lost: updates (of any label) whose stored value lost a content word the
//!   memory held before the write. The floor is 0.
//! - the confusion of labels and decisions.

use std::collections::BTreeMap;
use std::sync::Arc;

use memstr::lifecycle::gate::GateDecision;
use memstr::{Identity, LifecycleOptions, ManualClock, MemoryStore, PersonaInput, PersonaQuery, StoreOptions};

#[allow(dead_code)] // each example uses its own subset
#[path = "support/mod.rs"]
mod support;

#[derive(serde::Deserialize)]
struct File {
    sessions: Vec<Session>,
}

#[derive(serde::Deserialize)]
struct Session {
    id: String,
    split: String,
    writes: Vec<Write>,
}

#[derive(serde::Deserialize)]
struct Write {
    id: u32,
    text: String,
    label: String,
    of: Option<u32>,
}

#[derive(Default)]
struct Tally {
    writes: usize,
    corrections: usize,
    caught: usize,
    flagged: usize,
    others: usize,
    false_corrections: usize,
    updates: usize,
    details_lost: usize,
    confusion: BTreeMap<(String, &'static str), usize>,
    misses: Vec<String>,
}

/// The words an update must keep: what the gate's own comparison counts as content.
fn content(text: &str) -> Vec<String> {
    memstr::text::tokenize(text)
        .into_iter()
        .filter(|w| !memstr::text::STOP_WORDS.contains(&w.as_str()))
        .map(|w| memstr::text::fold(&w))
        .collect()
}

/// The MCP tool's key: the first words of the content, made unique.
fn slug(text: &str, taken: &mut Vec<String>) -> String {
    let words: Vec<String> = memstr::text::tokenize(text).into_iter().take(6).collect();
    let base = if words.is_empty() { "memory".to_string() } else { words.join("-") };
    let mut key = base.clone();
    let mut n = 2;
    while taken.contains(&key) {
        key = format!("{base}-{n}");
        n += 1;
    }
    taken.push(key.clone());
    key
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> memstr::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| args.iter().position(|a| a == f).and_then(|i| args.get(i + 1)).cloned();
    let split = value("--split").unwrap_or_else(|| "tune".into());
    let path = value("--file").unwrap_or_else(|| "examples/data/gate_sessions.json".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: File = serde_json::from_str(&text).expect("the sessions file parses");
    let embedder = support::embedder(flag("--no-vectors"));
    println!("gate sessions: {path}, split {split}, vectors {}", if embedder.is_some() { "on" } else { "off" });

    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for session in file.sessions.iter().filter(|s| split == "all" || s.split == split) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut now = 1_780_000_000.0;
        let clock = Arc::new(ManualClock::new(now));
        let mut life = LifecycleOptions::default();
        life.consolidate_every = 0;
        life.consolidate_idle = None;
        let mut options = StoreOptions::default().clock(clock.clone()).lifecycle(life);
        if let Some(e) = &embedder {
            options = options.embedder(e.clone());
        }
        let store = MemoryStore::open(dir.path().join("memstr.db"), Identity::generate(), options).await?;
        let tally = tallies.entry(session.split.clone()).or_default();
        let mut holder: BTreeMap<u32, String> = BTreeMap::new();
        let mut keys = Vec::new();
        for w in &session.writes {
            now += 3_600.0;
            clock.set(now);
            let key = slug(&w.text, &mut keys);
            let target = w.of.and_then(|o| holder.get(&o).cloned());
            // What the target held before, to see what an update keeps.
            let before = match &target {
                Some(t) => peek(&store, t).await,
                None => None,
            };
            let done = store.persona_ingest(PersonaInput::new("notes", "general", &key, &w.text)).await?;
            let existing = done.decision.existing().map(str::to_string);
            let holds = match &done.decision {
                GateDecision::Reinforce { path, .. } | GateDecision::Update { path, .. } => path.clone(),
                _ => done.address.clone(),
            };
            holder.insert(w.id, holds);
            let decision = done.decision.as_str();
            tally.writes += 1;
            *tally.confusion.entry((w.label.clone(), decision)).or_default() += 1;
            let on_target = existing.is_some() && existing == target;
            let wrong = if w.label == "correction" {
                tally.corrections += 1;
                match &done.decision {
                    GateDecision::Supersede { .. } if on_target => {
                        tally.caught += 1;
                        tally.flagged += 1;
                        false
                    }
                    GateDecision::MightCorrect { .. } if on_target => {
                        tally.flagged += 1;
                        true
                    }
                    GateDecision::Supersede { .. } => {
                        tally.false_corrections += 1;
                        true
                    }
                    _ => true,
                }
            } else {
                tally.others += 1;
                let superseded = matches!(done.decision, GateDecision::Supersede { .. });
                tally.false_corrections += usize::from(superseded);
                superseded
            };
            if let GateDecision::Update { path, .. } = &done.decision {
                tally.updates += 1;
                let old = if Some(path) == target.as_ref() { before.clone() } else { None };
                let old = match old {
                    Some(v) => Some(v),
                    None => peek_history(&store, path).await,
                };
                let after = peek(&store, path).await.unwrap_or_default();
                if let Some(old) = old {
                    let kept = content(&after);
                    let lost: Vec<String> = content(&old).into_iter().filter(|w| !kept.contains(w)).collect();
                    if !lost.is_empty() {
                        tally.details_lost += 1;
                        tally.misses.push(format!("{} #{} lost {lost:?}: {:?} -> {:?}", session.id, w.id, old, after));
                    }
                }
            }
            if wrong && flag("--show") {
                tally.misses.push(format!(
                    "{} #{} [{}{}] {:?} -> {decision} {}",
                    session.id,
                    w.id,
                    w.label,
                    w.of.map(|o| format!(" of #{o}")).unwrap_or_default(),
                    w.text,
                    match &done.decision {
                        GateDecision::Supersede { path, cue, .. } | GateDecision::MightCorrect { path, cue, .. } =>
                            format!("{path} ({cue})"),
                        d => d.existing().unwrap_or("").to_string(),
                    }
                ));
            }
        }
        store.close().await?;
    }
    for (split, t) in &tallies {
        let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
        println!(
            "{split}: {} writes; corrections caught {}/{} ({:.1}%), with might_correct {}/{} ({:.1}%); \
false corrections {}/{} ({:.2}%); details lost by updates {} of {}",
            t.writes,
            t.caught,
            t.corrections,
            pct(t.caught, t.corrections),
            t.flagged,
            t.corrections,
            pct(t.flagged, t.corrections),
            t.false_corrections,
            t.others,
            pct(t.false_corrections, t.others),
            t.details_lost,
            t.updates
        );
        let decisions = ["create", "related", "reinforce", "update", "supersede", "might_correct"];
        println!("  label \\ decision {}", decisions.join(" "));
        for label in ["new", "related", "duplicate", "update", "correction"] {
            let row: Vec<String> = decisions
                .iter()
                .map(|d| t.confusion.get(&(label.to_string(), *d)).copied().unwrap_or(0).to_string())
                .collect();
            println!("  {label:<10} {}", row.join(" "));
        }
        for m in &t.misses {
            println!("  miss: {m}");
        }
    }
    Ok(())
}

async fn peek(store: &MemoryStore, address: &str) -> Option<String> {
    let mut parts = address.splitn(3, '/');
    let (d, f, k) = (parts.next()?, parts.next()?, parts.next()?);
    store.persona_peek(PersonaQuery::exact(d, f, k)).await.ok()?.pop().map(|m| m.value)
}

/// The value a memory held before its last change.
async fn peek_history(store: &MemoryStore, address: &str) -> Option<String> {
    let mut parts = address.splitn(3, '/');
    let (d, f, k) = (parts.next()?, parts.next()?, parts.next()?);
    let m = store.persona_peek(PersonaQuery::exact(d, f, k)).await.ok()?.pop()?;
    m.sync.life.history.last().map(|h| h.value.clone())
}
