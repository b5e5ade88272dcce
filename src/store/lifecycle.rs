//! Lifecycle operations on the store: pinning, pruning, keyed facts and the knowledge
//! graph. Consolidation is in `consolidate.rs`, gating and review in `review.rs`.
//! Formulas and defaults: docs/lifecycle.md.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rusqlite::{params, Connection, Transaction};
use serde::Serialize;

use super::persona::{load_all, resolve, save_with};
use super::{Inner, MemoryStore};
use crate::codec::Path;
use crate::error::{Error, Result, Rule, ValidationError};
use crate::lifecycle::graph::{KnowledgeGraph, MemoryNode, StoredEdge};
use crate::model::{validate_key, validate_taxonomy, validate_value, FactValue, MemoryState, PersonaMemory};

const DAY: f64 = 86_400.0;
const GRAPH_REBUILD_NODES: usize = 5_000;
const GRAPH_REBUILD_SECS: u64 = 30;

/// What [`MemoryStore::persona_prune`] changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PruneReport {
    /// Memories whose stored state changed (`fading` to `forgotten`, ...), by address.
    pub transitions: Vec<(String, MemoryState, MemoryState)>,
    /// Memories dissolved long enough to be archived (the default [`crate::Dissolve`]
    /// policy), by address.
    pub archived: Vec<String>,
    /// Memories dissolved long enough to be deleted, with [`crate::Dissolve::Delete`] (a
    /// deletion is queued for relays).
    pub deleted: Vec<String>,
    /// Memories whose dissolution mark was set or cleared without a state change.
    pub marked: Vec<String>,
}

impl PruneReport {
    /// State changes plus archives and deletions: the client's `persona_prune` return value.
    pub fn count(&self) -> usize {
        self.transitions.len() + self.archived.len() + self.deleted.len()
    }

    /// Whether pruning wrote anything.
    pub fn changed(&self) -> bool {
        self.count() > 0 || !self.marked.is_empty()
    }
}

/// One value of a keyed fact ([`MemoryStore::fact_history`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactVersion {
    pub value: String,
    /// When the value was set.
    pub from: f64,
    /// When a newer value replaced it; None for the current value.
    pub until: Option<f64>,
}

/// A neighbour in the knowledge graph ([`MemoryStore::graph_neighbours`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
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

pub(crate) fn meta_get(conn: &Connection, name: &str) -> Result<Option<String>> {
    use rusqlite::OptionalExtension;
    Ok(conn.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| r.get(0)).optional()?)
}

pub(crate) fn meta_set(tx: &Transaction, name: &str, value: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2",
        params![name, value],
    )?;
    Ok(())
}

/// The state a memory is in under `inner`'s decay policy. Pinned memories and keyed facts
/// stay active: a keyed fact is the current value of its attribute until it is set again,
/// however long ago that was (seed 002).
pub(crate) fn live_state(inner: &Inner, m: &PersonaMemory, now: f64) -> (f64, MemoryState) {
    let relevance = inner.decay.relevance(m, now);
    if m.sync.life.pinned || super::forgetting::is_keyed_fact(m) {
        return (relevance, MemoryState::Active);
    }
    (relevance, inner.decay.state(relevance))
}

/// Most history a memory keeps, in bytes of values (the oldest go first): the whole
/// memory must stay within what NIP-44 can encrypt.
const HISTORY_BYTES: usize = 8_192;

/// Moves `m`'s current value into its history (it was replaced at `now`).
pub(crate) fn push_history(m: &mut PersonaMemory, now: f64) {
    let from = m.sync.written.max(m.created_at).min(now);
    m.sync.life.history.push(FactValue { value: m.value.clone(), from, until: now });
    let mut total: usize = m.sync.life.history.iter().map(|h| h.value.len()).sum();
    while total > HISTORY_BYTES && !m.sync.life.history.is_empty() {
        total -= m.sync.life.history.remove(0).value.len();
    }
}

fn fact_key(subject: &str, attribute: &str) -> Result<String> {
    for (field, s) in [("subject", subject), ("attribute", attribute)] {
        validate_key(s).map_err(|e| ValidationError { field, rule: e.rule })?;
        // `:` joins the two in the key, so neither may contain one.
        if s.contains(':') {
            return Err(ValidationError { field, rule: Rule::ForbiddenChar(':') }.into());
        }
    }
    let key = format!("{subject}:{attribute}");
    validate_key(&key)?;
    Ok(key)
}

/// Prunes every persona memory in one transaction (see [`MemoryStore::persona_prune`]).
/// A memory that cannot be written (say, one at the size limit) is skipped and logged, so
/// it never blocks the others.
pub(crate) fn prune(tx: &Transaction, inner: &Inner) -> Result<PruneReport> {
    let now = inner.clock.now();
    let mut report = PruneReport::default();
    for (_, m) in load_all(tx)? {
        tx.execute_batch("SAVEPOINT prune_one")?;
        match prune_one(tx, inner, &m, now, &mut report) {
            Ok(()) => tx.execute_batch("RELEASE prune_one")?,
            Err(e) => {
                tx.execute_batch("ROLLBACK TO prune_one; RELEASE prune_one")?;
                tracing::warn!("prune: {} left as it was: {e}", m.address());
            }
        }
    }
    Ok(report)
}

fn prune_one(tx: &Transaction, inner: &Inner, m: &PersonaMemory, now: f64, report: &mut PruneReport) -> Result<()> {
    if m.sync.life.archived_at.is_some() {
        // Archived memories wait for `restore` or a strong cue; pruning leaves them be.
        return Ok(());
    }
    let (_, state) = live_state(inner, m, now);
    let mut next = m.clone();
    next.state = state;
    if state == MemoryState::Dissolved {
        let since = *next.sync.life.dissolved_at.get_or_insert(now);
        if now - since >= inner.life.dissolve_after_days * DAY && super::forgetting::archivable(m) {
            let path = Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() };
            match inner.life.dissolve {
                crate::Dissolve::Delete => {
                    super::v1::forget_path(tx, inner, &path)?;
                    report.deleted.push(m.address());
                    return Ok(());
                }
                _ => {
                    next.sync.life.archived_at = Some(now);
                    report.archived.push(m.address());
                    save_with(tx, inner, Some(m), next, false)?;
                    return Ok(());
                }
            }
        }
    } else {
        next.sync.life.dissolved_at = None;
    }
    if next != *m {
        if next.state != m.state {
            report.transitions.push((m.address(), m.state, next.state));
        } else {
            report.marked.push(m.address());
        }
        save_with(tx, inner, Some(m), next, false)?;
    }
    Ok(())
}

/// The graph's nodes: every live record.
fn graph_nodes(conn: &Connection) -> Result<Vec<MemoryNode>> {
    let mut stmt = conn.prepare(
        "SELECT kind, path, coalesce(key, ''), coalesce(ts, 0), CASE WHEN kind = 'persona' THEN payload END
         FROM records WHERE deleted = 0 AND payload IS NOT NULL AND kind IN ('kv', 'journal', 'persona')",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, f64>(3)?,
            r.get::<_, Option<String>>(4)?,
        ))
    })?;
    let mut nodes = Vec::new();
    for row in rows {
        let (kind, path, key, ts, payload) = row?;
        nodes.push(match (kind.as_str(), payload) {
            ("persona", Some(json)) => MemoryNode::persona(path, &serde_json::from_str::<PersonaMemory>(&json)?),
            ("kv", _) => MemoryNode::flat(path, key, ts),
            _ => MemoryNode::journal(path, ts),
        });
    }
    Ok(nodes)
}

pub(crate) fn load_edges(conn: &Connection) -> Result<Vec<StoredEdge>> {
    let mut stmt = conn.prepare("SELECT a, b, kind, weight, created_at FROM edges ORDER BY a, b, kind")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get(3)?, r.get(4)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (a, b, kind, weight, created_at) = row?;
        // A kind this build does not know (a newer memstr wrote it) is left alone.
        if let Ok(kind) = kind.parse() {
            out.push(StoredEdge { a, b, kind, weight, created_at });
        }
    }
    Ok(out)
}

pub(crate) fn save_edges(tx: &Transaction, edges: &[StoredEdge]) -> Result<()> {
    tx.execute("DELETE FROM edges", [])?;
    let mut stmt =
        tx.prepare("INSERT OR REPLACE INTO edges (a, b, kind, weight, created_at) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for e in edges {
        stmt.execute(params![e.a, e.b, e.kind.as_str(), e.weight, e.created_at])?;
    }
    Ok(())
}

impl MemoryStore {
    /// A persona memory's current relevance and state under this store's decay policy
    /// (pinned memories are always active).
    pub fn live(&self, m: &PersonaMemory, now: f64) -> (f64, MemoryState) {
        live_state(&self.inner, m, now)
    }

    /// Pins (or unpins) a persona memory, by `key` or `domain/facet/key`: a pinned memory
    /// never decays and is never pruned or deleted by the lifecycle (seed 002).
    pub async fn persona_pin(&self, reference: &str, pinned: bool) -> Result<()> {
        let reference = reference.to_string();
        self.write(move |tx, inner| {
            let before = resolve(tx, &reference)?;
            let mut m = before.clone();
            m.sync.life.pinned = pinned;
            m.sync.life.dissolved_at = None;
            m.state = live_state(inner, &m, inner.clock.now()).1;
            if m != before {
                save_with(tx, inner, Some(&before), m, true)?;
            }
            Ok(())
        })
        .await
    }

    /// Moves every persona memory to the state its decay puts it in (active, fading,
    /// forgotten, dissolved), writing only those that changed; memories dissolved for
    /// `dissolve_after_days` (30) are deleted like a forget, on relays too. Forgotten
    /// memories leave search results; exact recall still finds them. Pinned memories stay.
    pub async fn persona_prune(&self) -> Result<PruneReport> {
        self.write(prune).await
    }

    /// Sets a keyed fact (seed 002): one current value per `subject` and `attribute`, kept
    /// as the persona memory `domain/facts/{subject}:{attribute}`. A different earlier value
    /// moves to the fact's history ([`MemoryStore::fact_history`]). Returns the event id.
    pub async fn fact_set(&self, domain: &str, subject: &str, attribute: &str, value: &str) -> Result<String> {
        validate_taxonomy("domain", domain)?;
        validate_value(value)?;
        let key = fact_key(subject, attribute)?;
        let (domain, value) = (domain.to_string(), value.to_string());
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            let address = format!("{domain}/facts/{key}");
            let before = match resolve(tx, &address) {
                Ok(m) => Some(m),
                Err(Error::NotFound(_)) => None,
                Err(e) => return Err(e),
            };
            let mut m = before.clone().unwrap_or_else(|| PersonaMemory::new(&domain, "facts", &key, "", now));
            if before.is_some() && m.value != value {
                push_history(&mut m, now);
            }
            m.value = value;
            if before.is_some() {
                inner.decay.on_access(&mut m, now);
            }
            m.last_reinforced = now;
            m.last_accessed = m.last_accessed.max(now);
            m.relevance = 1.0;
            m.state = live_state(inner, &m, now).1;
            save_with(tx, inner, before.as_ref(), m, true)
        })
        .await
    }

    /// The current value of a keyed fact in `domain`, if set.
    pub async fn fact_get(&self, domain: &str, subject: &str, attribute: &str) -> Result<Option<String>> {
        Ok(self.fact_history(domain, subject, attribute).await?.pop().map(|v| v.value))
    }

    /// Every value a keyed fact has had, oldest first; the last is current.
    pub async fn fact_history(&self, domain: &str, subject: &str, attribute: &str) -> Result<Vec<FactVersion>> {
        validate_taxonomy("domain", domain)?;
        let address = format!("{domain}/facts/{}", fact_key(subject, attribute)?);
        self.read(move |conn, _| {
            let m = match resolve(conn, &address) {
                Ok(m) => m,
                Err(Error::NotFound(_)) => return Ok(Vec::new()),
                Err(e) => return Err(e),
            };
            let mut out: Vec<FactVersion> = m
                .sync
                .life
                .history
                .iter()
                .map(|h| FactVersion { value: h.value.clone(), from: h.from, until: Some(h.until) })
                .collect();
            let from = out.last().and_then(|v| v.until).unwrap_or(m.created_at);
            out.push(FactVersion { value: m.value, from, until: None });
            Ok(out)
        })
        .await
    }

    /// The knowledge graph (built on first use, then cached). It is rebuilt after writes;
    /// a large one (over `GRAPH_REBUILD_NODES` nodes) at most every `GRAPH_REBUILD_SECS`,
    /// so a store of 100k records that alternates writes and searches does not rebuild it
    /// on every search: new memories then join the graph up to that many seconds late.
    pub(crate) async fn graph(&self) -> Result<Arc<KnowledgeGraph>> {
        let generation = self.inner.generation.load(Ordering::SeqCst);
        if let Some((g, built, graph)) =
            self.inner.graph.lock().map_err(|_| Error::Task("graph poisoned".into()))?.as_ref()
        {
            let recent = built.elapsed().as_secs() < GRAPH_REBUILD_SECS && graph.node_count() > GRAPH_REBUILD_NODES;
            if *g == generation || recent {
                return Ok(graph.clone());
            }
        }
        let graph = self
            .read(|conn, inner| {
                let nodes = graph_nodes(conn)?;
                let edges = load_edges(conn)?;
                let graph = KnowledgeGraph::build(&nodes, &edges, &inner.life.graph);
                // Small graphs are rebuilt after every write: trimming the heap is worth a
                // system call only after a large build.
                let large = nodes.len() > GRAPH_REBUILD_NODES;
                drop(nodes);
                if large {
                    super::release_free_memory();
                }
                Ok(Arc::new(graph))
            })
            .await?;
        *self.inner.graph.lock().map_err(|_| Error::Task("graph poisoned".into()))? =
            Some((generation, std::time::Instant::now(), graph.clone()));
        Ok(graph)
    }

    /// A memory's neighbours in the knowledge graph, strongest first: by `key` or
    /// `domain/facet/key` for persona memories, or by path (`sense-memory/...`).
    pub async fn graph_neighbours(&self, reference: &str) -> Result<Vec<GraphNeighbour>> {
        let reference = reference.to_string();
        let path = if reference.starts_with("sense-memory/") || reference.starts_with("sense-journal/") {
            reference
        } else {
            let r = reference.clone();
            let m = self.read(move |conn, _| resolve(conn, &r)).await?;
            Path::Persona { domain: m.domain, facet: m.facet, key: m.key }.to_d()
        };
        let graph = self.graph().await?;
        if !graph.contains(&path) {
            return Err(Error::NotFound(path));
        }
        let now = self.now();
        Ok(graph
            .neighbours(&path, now)
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
}

/// Activation from the strongest candidates (`seeds`: path and matching score) to every
/// candidate: for a seed, what the other seeds send it; for the rest, what all send.
pub(crate) fn graph_signal(graph: &KnowledgeGraph, seeds: &[(String, f64)], now: f64) -> BTreeMap<String, f64> {
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    let all = graph.spread(seeds, now);
    for (path, a) in all {
        if !seeds.iter().any(|(s, _)| *s == path) {
            out.insert(path, a);
        }
    }
    for (i, (seed, _)) in seeds.iter().enumerate() {
        let others: Vec<(String, f64)> =
            seeds.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, s)| s.clone()).collect();
        let a = graph.spread(&others, now).get(seed).copied().unwrap_or(0.0);
        out.insert(seed.clone(), a);
    }
    out
}
