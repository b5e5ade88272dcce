//! The persona reviewing itself: gated writes, introspection, compression.

use std::collections::BTreeMap;

use super::lifecycle::live_state;
use super::persona::{load_all, push_unique, query, record_access, save_with, PersonaInput};
use super::MemoryStore;
use super::PersonaQuery;
use crate::error::Result;
use crate::lifecycle::compress::{compress_detailed, CompressOptions, Compressed};
use crate::lifecycle::gate::{decide, lexical_similarity, GateCandidate, GateDecision};
use crate::lifecycle::introspect::{introspect, IntrospectOptions};
use crate::model::{IntrospectionReport, MemoryState, PersonaMemory};
use crate::search::dot as cosine;

/// What [`MemoryStore::persona_ingest`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Ingested {
    /// The gate's decision (seed 001's prediction error gating).
    pub decision: GateDecision,
    /// The address (`domain/facet/key`) of the memory that now holds the content.
    pub address: String,
    /// The event id of the last write.
    pub event_id: String,
}

/// Seed 000's salience of a new memory, when the caller gave none:
/// `0.4 × novelty + 0.3 × importance + 0.2 × specificity` (+ 0.1 × extremity, not measured
/// here), where novelty is 1 minus the similarity of the closest existing memory and
/// specificity the share of content words, up to 12.
fn with_salience(mut input: PersonaInput, best_similarity: f64) -> PersonaInput {
    if input.salience.is_none() {
        let novelty = (1.0 - best_similarity).clamp(0.0, 1.0);
        let specificity = (crate::search::content_terms(&input.value).len() as f64 / 12.0).min(1.0);
        let importance = input.importance.unwrap_or(0.0);
        let salience = 0.4 * novelty + 0.3 * importance + 0.2 * specificity;
        input.salience = Some(crate::search::round3(salience));
    }
    input
}

impl MemoryStore {
    /// Stores a persona memory through the novelty gate: the new value is compared with
    /// the memories of the same domain and facet (cosine of embeddings when vectors are
    /// on, word overlap otherwise) and the gate decides ([`crate::lifecycle::gate`]):
    ///
    /// - **reinforce**: a near-duplicate strengthens the existing memory (an access, its
    ///   themes merged) instead of adding one;
    /// - **update**: the same memory said more fully rewrites the existing value;
    /// - **supersede**: a correction ("actually", a negation, a changed number), or a
    ///   contradiction of any memory of the same subject however little it overlaps
    ///   ("switched from coffee to green tea", an antonym, a changed object or value: see
    ///   [`crate::lifecycle::gate::contradiction`]), is stored as `input.key`, and the old
    ///   memory gets `superseded_by` and `contradicts`, so it decays four times faster; a
    ///   memory already superseded is not superseded again;
    /// - **create**: novel content is stored as `input.key`.
    ///
    /// Writing to an existing key is an explicit update and skips the gate
    /// ([`MemoryStore::persona_remember`]). Thresholds: `LifecycleOptions::gate`.
    pub async fn persona_ingest(&self, input: PersonaInput) -> Result<Ingested> {
        input.validate()?;
        let address = format!("{}/{}/{}", input.domain, input.facet, input.key);
        // The facet's memories written since they were last embedded get their vectors
        // first, so every candidate is compared on the same scale; records elsewhere wait.
        #[cfg(feature = "vectors")]
        self.embed_for_gate(&input.domain, &input.facet).await?;
        let exists =
            !self.persona_peek(super::PersonaQuery::exact(&input.domain, &input.facet, &input.key)).await?.is_empty();
        let new_vec = self.embed_text(&input.value).await?;
        let (domain, facet, value) = (input.domain.clone(), input.facet.clone(), input.value.clone());
        let (decision, best) = if exists {
            (GateDecision::Update { path: address.clone(), key: input.key.clone(), similarity: 1.0 }, 1.0)
        } else {
            self.read(move |conn, inner| {
                let mut vecs: BTreeMap<String, Vec<f32>> = BTreeMap::new();
                if new_vec.is_some() {
                    let mut stmt = conn.prepare(
                        "SELECT r.key, v.vec FROM vectors v JOIN records r ON r.rid = v.rid
                         WHERE r.kind = 'persona' AND r.deleted = 0 AND r.domain = ?1 AND r.facet = ?2",
                    )?;
                    for row in
                        stmt.query_map([&domain, &facet], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))?
                    {
                        let (key, blob) = row?;
                        vecs.insert(key, crate::index::from_blob(&blob));
                    }
                }
                let now = inner.clock.now();
                let mut cands = Vec::new();
                let mut lexical = new_vec.is_none();
                let same_facet = PersonaQuery { domain: Some(domain.clone()), facet: Some(facet.clone()), key: None };
                for (_, m) in query(conn, &same_facet)? {
                    if live_state(inner, &m, now).1 == MemoryState::Dissolved {
                        continue;
                    }
                    let similarity = match (&new_vec, vecs.get(&m.key)) {
                        (Some(a), Some(b)) => cosine(a, b),
                        // A memory without a vector (its text could not be embedded) is
                        // left out rather than compared on another scale.
                        (Some(_), None) => continue,
                        (None, _) => {
                            lexical = true;
                            lexical_similarity(&value, &m.value)
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
                let options = if lexical { &inner.life.gate_lexical } else { &inner.life.gate };
                let best = cands.iter().map(|c| c.similarity).fold(0.0f64, f64::max);
                Ok((decide(&value, &cands, options), best))
            })
            .await?
        };
        let (address, event_id) = match &decision {
            // An explicit write to an existing key: the client's update, every field.
            GateDecision::Update { .. } if exists => {
                let id = self.persona_remember(input.clone()).await?;
                (address, id)
            }
            // A near-duplicate counts as an access; a fuller wording replaces the value,
            // which stays in the memory's history. Only the latter is a user edit: a
            // reinforcement must not win the value over a real edit made elsewhere.
            GateDecision::Reinforce { path, .. } | GateDecision::Update { path, .. } => {
                let new_value = matches!(decision, GateDecision::Update { .. }).then(|| input.value.clone());
                let (target, themes) = (path.clone(), input.themes.clone());
                let id = self
                    .write(move |tx, inner| {
                        let now = inner.clock.now();
                        let before = super::persona::resolve(tx, &target)?;
                        let mut m = before.clone();
                        let user_edit = new_value.is_some();
                        if let Some(value) = new_value.filter(|v| *v != m.value) {
                            super::lifecycle::push_history(&mut m, now);
                            m.value = value;
                        }
                        for t in &themes {
                            push_unique(&mut m.themes, t);
                        }
                        record_access(inner, &mut m, now);
                        m.last_reinforced = m.last_reinforced.max(now);
                        save_with(tx, inner, Some(&before), m, user_edit)
                    })
                    .await?;
                (path.clone(), id)
            }
            GateDecision::Supersede { key, .. } => {
                let id = self.persona_remember(with_salience(input.clone(), best)).await?;
                self.persona_contradict(&format!("{}/{}/{}", input.domain, input.facet, key), &address).await?;
                (address, id)
            }
            _ => {
                let id = self.persona_remember(with_salience(input.clone(), best)).await?;
                (address, id)
            }
        };
        Ok(Ingested { decision, address, event_id })
    }

    /// The embedding of `text` with the store's model, when vectors are on.
    async fn embed_text(&self, text: &str) -> Result<Option<Vec<f32>>> {
        #[cfg(feature = "vectors")]
        if let Some(state) = self.inner.vectors.clone() {
            let text = text.to_string();
            return tokio::task::spawn_blocking(move || Ok(state.embedder.embed(&[&text])?.pop()))
                .await
                .map_err(|e| crate::Error::Task(e.to_string()))?;
        }
        let _ = text;
        Ok(None)
    }

    /// Reviews the persona (seed 003's `persona_introspect`): counts per state,
    /// contradiction pairs, stale beliefs, orphans, overloaded facets, suggested
    /// connections (two shared themes, or embeddings at least `link_similarity` alike)
    /// and revisions. The report is stored as an introspection event and returned.
    pub async fn persona_introspect(&self) -> Result<IntrospectionReport> {
        let similar = self.similar_persona_pairs().await?;
        let report = self
            .read(move |conn, inner| {
                let now = inner.clock.now();
                let all = load_all(conn)?;
                let rows: Vec<(PersonaMemory, f64, MemoryState)> = all
                    .into_iter()
                    .map(|(_, m)| {
                        let (r, s) = live_state(inner, &m, now);
                        (m, r, s)
                    })
                    .collect();
                let view: Vec<(&PersonaMemory, f64, MemoryState)> = rows.iter().map(|(m, r, s)| (m, *r, *s)).collect();
                let options = IntrospectOptions { similar: inner.life.link_similarity, ..Default::default() };
                let mut report = introspect(&view, &similar, &options, now);
                report.pruned_count =
                    rows.iter().filter(|(m, _, s)| m.state != *s && *s != MemoryState::Active).count() as u64;
                Ok(report)
            })
            .await?;
        self.put_introspection(report.clone()).await?;
        Ok(report)
    }

    /// Key pairs of persona memories whose embeddings are at least `link_similarity`
    /// alike (empty without vectors).
    async fn similar_persona_pairs(&self) -> Result<Vec<(String, String, f64)>> {
        #[cfg(feature = "vectors")]
        if self.inner.vectors.is_some() {
            self.embed_persona().await?;
            return self
                .read(|conn, inner| {
                    let mut stmt = conn.prepare(
                        "SELECT r.key, v.vec FROM vectors v JOIN records r ON r.rid = v.rid
                         WHERE r.kind = 'persona' AND r.deleted = 0 ORDER BY r.domain, r.facet, r.key",
                    )?;
                    let rows: Vec<(String, Vec<f32>)> = stmt
                        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))?
                        .map(|row| row.map(|(k, b)| (k, crate::index::from_blob(&b))))
                        .collect::<rusqlite::Result<_>>()?;
                    let mut out = Vec::new();
                    for (i, (ka, va)) in rows.iter().enumerate() {
                        for (kb, vb) in &rows[i + 1..] {
                            let sim = cosine(va, vb);
                            if sim >= inner.life.link_similarity && ka != kb {
                                out.push((ka.clone(), kb.clone(), crate::search::round3(sim)));
                            }
                        }
                    }
                    Ok(out)
                })
                .await;
        }
        Ok(Vec::new())
    }

    /// The active persona in seed 003's compressed format for an LLM's context (only
    /// active and pinned memories, none that a newer memory replaces; `domain` narrows it),
    /// within `max_tokens` (500 by default) as estimated for GPT-style tokenizers.
    pub async fn persona_compress(&self, domain: Option<&str>) -> Result<String> {
        Ok(self
            .persona_compress_with(CompressOptions { domain: domain.map(str::to_string), ..Default::default() })
            .await?
            .text)
    }

    /// [`MemoryStore::persona_compress`] with every option, and what was left out.
    pub async fn persona_compress_with(&self, options: CompressOptions) -> Result<Compressed> {
        self.read(move |conn, inner| {
            let now = inner.clock.now();
            // The whole persona even for one domain: the memory that replaces one of this
            // domain can live in another; compress_detailed narrows to the domain itself.
            let rows: Vec<(PersonaMemory, MemoryState)> = query(conn, &PersonaQuery::all())?
                .into_iter()
                .map(|(_, m)| {
                    let state = live_state(inner, &m, now).1;
                    (m, state)
                })
                .collect();
            let view: Vec<(&PersonaMemory, MemoryState)> = rows.iter().map(|(m, s)| (m, *s)).collect();
            let options = CompressOptions { now: options.now.or(Some(now)), ..options };
            Ok(compress_detailed(&view, &options))
        })
        .await
    }
}
