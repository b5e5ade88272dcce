//! The persona reviewing itself: gated writes, introspection, compression, and the view
//! of a memory's neighbours in the knowledge graph.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;

use super::compress::{compress_detailed, CompressOptions, Compressed};
use super::gate::{decide, lexical_similarity, merged_value, GateCandidate, GateDecision};
use super::introspect::{introspect_linked, IntrospectOptions};
use super::persona::{self, query};
use super::runtime::{push_history, push_unique, Lifecycle};
use super::Parts;
use crate::codec::{Path, Payload};
use crate::engine::{edges, records, Engine};
use crate::error::{Error, Result};
use crate::index::dot as cosine;
use crate::model::{round3, IntrospectionReport, MemoryState, PersonaInput, PersonaMemory, PersonaQuery};
use crate::text::content_terms;

/// What [`crate::MemoryStore::persona_ingest`] did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ingested {
    /// The gate's decision (seed 001's prediction error gating).
    pub decision: GateDecision,
    /// The address (`domain/facet/key`) of the memory that now holds the content.
    pub address: String,
    /// The event id of the last write.
    pub event_id: String,
}

/// A neighbour in the knowledge graph ([`crate::MemoryStore::graph_neighbours`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct GraphNeighbour {
    /// A memory's path (`sense-memory/...`), or `theme:{name}` / `intent:{name}`.
    pub id: String,
    /// `memory`, `theme` or `intent`.
    pub node: String,
    /// The edge type (`connection`, `contradicts`, `supersedes`, `temporal`, ...).
    pub edge: String,
    /// Its weight now (base × age decay).
    pub weight: f64,
    /// Whether the edge points away from the asked node (directed kinds only).
    pub outgoing: bool,
}

/// Seed 000's salience of a new memory, when the caller gave none:
/// `0.4 × novelty + 0.3 × importance + 0.2 × specificity` (+ 0.1 × extremity, not measured
/// here), where novelty is 1 minus the similarity of the closest existing memory and
/// specificity the share of content words, up to 12.
fn with_salience(mut input: PersonaInput, best_similarity: f64) -> PersonaInput {
    if input.salience.is_none() {
        let novelty = (1.0 - best_similarity).clamp(0.0, 1.0);
        let specificity = (content_terms(&input.value).len() as f64 / 12.0).min(1.0);
        let importance = input.importance.unwrap_or(0.0);
        let salience = 0.4 * novelty + 0.3 * importance + 0.2 * specificity;
        input.salience = Some(round3(salience));
    }
    input
}

/// The gate's decision for `input` against the live memories of its facet.
fn gate(
    conn: &rusqlite::Connection,
    engine: &Engine,
    life: &Lifecycle,
    input: &PersonaInput,
    new_vec: Option<&[f32]>,
) -> Result<(GateDecision, f64)> {
    let (domain, facet) = (input.domain.as_str(), input.facet.as_str());
    let vecs: BTreeMap<String, Vec<f32>> = match new_vec {
        Some(_) => records::persona_vectors(conn, Some((domain, facet)))?.into_iter().map(|(_, k, v)| (k, v)).collect(),
        None => BTreeMap::new(),
    };
    let now = engine.now();
    let mut cands = Vec::new();
    let mut lexical = new_vec.is_none();
    for (_, m) in records::persona(conn, Some(domain), Some(facet), None)? {
        if life.live_state(&m, now).1 == MemoryState::Dissolved {
            continue;
        }
        let similarity = match (new_vec, vecs.get(&m.key)) {
            (Some(a), Some(b)) => cosine(a, b),
            // A memory without a vector (its text could not be embedded) is left out
            // rather than compared on another scale.
            (Some(_), None) => continue,
            (None, _) => {
                lexical = true;
                lexical_similarity(&input.value, &m.value)
            }
        };
        cands.push(GateCandidate {
            path: m.address(),
            key: m.key.clone(),
            value: m.value.clone(),
            similarity,
            superseded: m.is_superseded(),
        });
    }
    // Word overlap runs lower than cosine for the same relation: its own thresholds.
    let options = if lexical { &life.options.gate_lexical } else { &life.options.gate };
    let best = cands.iter().map(|c| c.similarity).fold(0.0f64, f64::max);
    Ok((decide(&input.value, &cands, options), best))
}

/// Stores a persona memory through the novelty gate (see
/// [`crate::MemoryStore::persona_ingest`]). The decision and every write it leads to are
/// one transaction: a supersede happens whole or not at all, and no other write can slip
/// between the gate's read and its writes.
pub(crate) async fn ingest(parts: &Parts, input: PersonaInput) -> Result<Ingested> {
    // The facet's memories written since they were last embedded get their vectors
    // first, so every candidate is compared on the same scale; records elsewhere wait.
    #[cfg(feature = "vectors")]
    crate::index::pipeline::embed_for_gate(&parts.engine, &parts.vectors, &input.domain, &input.facet).await?;
    let new_vec = embed_text(parts, &input.value).await?;
    parts
        .write_weighted(move |tx, engine, life| {
            let address = format!("{}/{}/{}", input.domain, input.facet, input.key);
            let existing = records::persona(tx, Some(&input.domain), Some(&input.facet), Some(&input.key))?;
            let (decision, best) = match existing.first() {
                // An explicit write to an existing key: the client's update, unless the new
                // value would drop what the old one said without correcting it.
                Some((_, m)) => (keyed(&input.value, m), 1.0),
                None => gate(tx, engine, life, &input, new_vec.as_deref())?,
            };
            let keyed_write = !existing.is_empty();
            let (address, event_id) = match &decision {
                // The caller's own key: every field as given, the value corrected or merged.
                _ if keyed_write => {
                    let mut input = input;
                    if matches!(decision, GateDecision::Update { .. }) {
                        let old = &existing[0].1.value;
                        input.value = merged_value(old, &input.value).unwrap_or_else(|| old.clone());
                    }
                    (address, persona::remember(tx, engine, life, input)?)
                }
                // A near-duplicate counts as an access; a fuller wording rewrites the value,
                // and one that leaves something out is appended to it (the old value stays
                // in the memory's history either way). Only a changed value is a user edit:
                // a reinforcement must not win the value over a real edit made elsewhere.
                GateDecision::Reinforce { path, .. } | GateDecision::Update { path, .. } => {
                    let now = engine.now();
                    let before = records::resolve_persona(tx, path)?;
                    let new_value = match decision {
                        GateDecision::Update { .. } => merged_value(&before.value, &input.value),
                        _ => None,
                    };
                    let mut m = before.clone();
                    let user_edit = new_value.is_some();
                    if let Some(value) = new_value.filter(|v| *v != m.value) {
                        push_history(&mut m, now);
                        m.value = value;
                    }
                    for t in &input.themes {
                        push_unique(&mut m.themes, t);
                    }
                    life.record_access(engine.device(), &mut m, now);
                    m.last_reinforced = m.last_reinforced.max(now);
                    (path.clone(), life.save(tx, engine, Some(&before), m, user_edit)?)
                }
                GateDecision::Supersede { key, .. } => {
                    let old = format!("{}/{}/{}", input.domain, input.facet, key);
                    let id = persona::remember(tx, engine, life, with_salience(input, best))?;
                    persona::contradict(tx, engine, life, &old, &address)?;
                    (address, id)
                }
                // Another fact of the same subject, or a correction the gate is not sure
                // of: a memory of its own, linked so either finds the other.
                GateDecision::Related { path, .. } | GateDecision::MightCorrect { path, .. } => {
                    let path = path.clone();
                    let id = persona::remember(tx, engine, life, with_salience(input, best))?;
                    persona::connect(tx, engine, life, &path, &address)?;
                    (address, id)
                }
                _ => (address, persona::remember(tx, engine, life, with_salience(input, best))?),
            };
            if !keyed_write && !matches!(decision, GateDecision::Reinforce { .. } | GateDecision::Update { .. }) {
                super::retro::after_gated_write(tx, engine, life, &address)?;
            }
            // A supersede writes two memories (the new one, the old one marked): two writes
            // toward automatic consolidation, as when they were two transactions.
            let weight = match decision {
                GateDecision::Supersede { .. } if !keyed_write => 2,
                GateDecision::Related { .. } | GateDecision::MightCorrect { .. } => 2,
                _ => 1,
            };
            Ok((Ingested { decision, address, event_id }, weight))
        })
        .await
}

/// What a write to an existing key is: a correction when it contradicts the value there
/// (the value is replaced, the old one stays in the history), else an update, which
/// [`merged_value`] keeps whole.
fn keyed(new_value: &str, m: &PersonaMemory) -> GateDecision {
    let (path, key) = (m.address(), m.key.clone());
    let cue =
        super::gate::contradiction(new_value, &m.value).or_else(|| super::gate::correction_cue(new_value, &m.value));
    match cue {
        Some(cue) => GateDecision::Supersede { path, key, similarity: 1.0, cue },
        None => GateDecision::Update { path, key, similarity: 1.0 },
    }
}

/// The embedding of `text` with the store's model, when vectors are on.
async fn embed_text(parts: &Parts, text: &str) -> Result<Option<Vec<f32>>> {
    #[cfg(feature = "vectors")]
    if let Some(state) = parts.vectors.clone() {
        let text = text.to_string();
        return crate::engine::blocking(move || Ok(state.embedder.embed(&[&text])?.pop())).await;
    }
    let _ = (parts, text);
    Ok(None)
}

/// Reviews the persona (see [`crate::MemoryStore::persona_introspect`]) and stores the
/// report as an introspection event.
///
/// One read: the persona as linking reads it (with the similar pairs) is the persona
/// reviewed, and the learned edges are looked up pair by pair for the pairs that would be
/// suggested, not read whole.
pub(crate) async fn introspect_persona(parts: &Parts) -> Result<IntrospectionReport> {
    #[cfg(feature = "vectors")]
    if parts.vectors.is_some() {
        crate::index::pipeline::embed_persona(&parts.engine, &parts.vectors).await?;
    }
    let life = parts.life.clone();
    let vectors = parts.vectors.clone();
    let report = parts
        .engine
        .read(move |conn, engine| {
            let now = engine.now();
            let (persona, similar) = similar_persona_pairs(conn, &life, &vectors)?;
            let rows: Vec<(String, PersonaMemory, f64, MemoryState)> = persona
                .into_iter()
                .map(|(path, m)| {
                    let (r, s) = life.live_state(&m, now);
                    (path, m, r, s)
                })
                .collect();
            let view: Vec<(&PersonaMemory, f64, MemoryState)> = rows.iter().map(|(_, m, r, s)| (m, *r, *s)).collect();
            let mut paths: HashMap<&str, Vec<&str>> = HashMap::new();
            for (path, m, _, _) in &rows {
                paths.entry(m.key.as_str()).or_default().push(path.as_str());
            }
            // Pairs consolidation already linked (a learned edge) are not suggested.
            let linked = |a: &str, b: &str| -> Result<bool> {
                for pa in paths.get(a).into_iter().flatten() {
                    for pb in paths.get(b).into_iter().flatten() {
                        if edges::edge_exists(conn, pa, pb)? {
                            return Ok(true);
                        }
                    }
                }
                Ok(false)
            };
            let options = IntrospectOptions { similar: life.options.link_similarity, ..Default::default() };
            let mut report = introspect_linked(&view, &similar, &options, now, linked)?;
            report.pruned_count =
                rows.iter().filter(|(_, m, _, s)| m.state != *s && *s != MemoryState::Active).count() as u64;
            Ok(report)
        })
        .await?;
    let mut report = report;
    fit_report(&mut report);
    let stored = report.clone();
    parts
        .engine
        .write(move |tx, engine| {
            records::put(tx, engine, &Path::introspection(stored.timestamp), Payload::Introspection(stored))
        })
        .await?;
    Ok(report)
}

/// Persona memories with their paths, and pairs of positions among them.
type Reviewed = (Vec<(String, PersonaMemory)>, Vec<(usize, usize, f64)>);

/// Every persona memory with its path, and the pairs (positions in it) whose embeddings
/// are at least `link_similarity` alike (none without vectors): consolidation's pairs
/// ([`super::similar::link_pairs`]), so at most `link_max_per_memory` per memory, found
/// through the vector index at scale. After a cycle, with its memo: only memories changed
/// since are compared, the rest are the cycle's pairs (linked already, so never
/// suggested), and the pairs include those of shared themes, which introspection suggests
/// on its own rule too.
fn similar_persona_pairs(
    conn: &rusqlite::Connection,
    life: &Lifecycle,
    vectors: &crate::index::Vectors,
) -> Result<Reviewed> {
    #[cfg(feature = "vectors")]
    if vectors.is_some() && life.options.link_max_per_memory > 0 {
        let how = |themes: bool| super::similar::Compare {
            vectors_on: true,
            themes,
            link: life.options.link_similarity,
            cap: life.options.link_max_per_memory,
        };
        let (cycles, alone) = (how(true), how(false));
        let memo = crate::engine::links::load(conn)?;
        let l = if memo.settings.as_deref() == Some(super::similar::settings(cycles).as_str()) {
            super::similar::link_pairs(conn, cycles, vectors, Some(&memo))?
        } else {
            super::similar::link_pairs(conn, alone, vectors, None)?
        };
        let persona = l.persona.into_iter().map(|(path, _, m)| (path, m)).collect();
        return Ok((persona, l.pairs));
    }
    let _ = (life, vectors);
    let persona = records::all_persona(conn)?
        .into_iter()
        .map(|(_, m)| {
            let path = Path::of_persona(&m).to_d();
            (path, m)
        })
        .collect();
    Ok((persona, Vec::new()))
}

/// The serialized report's size at most (NIP-44 encrypts 65,535 bytes, and the event's
/// JSON wraps the report): lists halve until it fits, whatever the keys' lengths.
const REPORT_BYTES: usize = 48 * 1024;

/// Cuts the report's lists (each to half, repeatedly) until its JSON fits [`REPORT_BYTES`].
fn fit_report(report: &mut IntrospectionReport) {
    while serde_json::to_vec(report).map_or(0, |v| v.len()) > REPORT_BYTES {
        let half = |n: usize| n / 2;
        report.contradictions.truncate(half(report.contradictions.len()));
        report.stale_beliefs.truncate(half(report.stale_beliefs.len()));
        report.orphaned.truncate(half(report.orphaned.len()));
        report.overloaded_facets.truncate(half(report.overloaded_facets.len()));
        report.suggested_connections.truncate(half(report.suggested_connections.len()));
        report.suggested_revisions.truncate(half(report.suggested_revisions.len()));
        report.suggested_compressions.truncate(half(report.suggested_compressions.len()));
    }
}

/// The compressed persona (see
/// [`crate::MemoryStore::persona_compress_with`]).
pub(crate) async fn compress(
    engine: &Arc<Engine>,
    life: &Arc<Lifecycle>,
    options: CompressOptions,
) -> Result<Compressed> {
    let life = life.clone();
    engine
        .read(move |conn, engine| {
            let now = engine.now();
            // The whole persona even for one domain: the memory that replaces one of this
            // domain can live in another; compress_detailed narrows to the domain itself.
            let rows: Vec<(PersonaMemory, MemoryState)> = query(conn, &PersonaQuery::all())?
                .into_iter()
                .map(|(_, m)| {
                    let state = life.live_state(&m, now).1;
                    (m, state)
                })
                .collect();
            let view: Vec<(&PersonaMemory, MemoryState)> = rows.iter().map(|(m, s)| (m, *s)).collect();
            Ok(compress_detailed(&view, &options))
        })
        .await
}

/// A memory's neighbours in the knowledge graph, strongest first (see
/// [`crate::MemoryStore::graph_neighbours`]).
pub(crate) async fn neighbours(
    engine: &Arc<Engine>,
    life: &Arc<Lifecycle>,
    reference: &str,
) -> Result<Vec<GraphNeighbour>> {
    let path = if reference.starts_with("sense-memory/") || reference.starts_with("sense-journal/") {
        reference.to_string()
    } else {
        let r = reference.to_string();
        let m = engine.read(move |conn, _| records::resolve_persona(conn, &r)).await?;
        Path::Persona { domain: m.domain, facet: m.facet, key: m.key }.to_d()
    };
    let graph = life.graph(engine).await?;
    if !graph.contains(&path) {
        return Err(Error::NotFound(path));
    }
    Ok(graph
        .neighbours(&path, engine.now())
        .into_iter()
        .map(|n| GraphNeighbour {
            id: n.id,
            node: format!("{:?}", n.node_kind).to_lowercase(),
            edge: n.edge.as_str().to_string(),
            weight: n.weight,
            outgoing: n.outgoing,
        })
        .collect())
}
