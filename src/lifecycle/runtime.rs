//! The lifecycle's handle on a store: its decay policy and settings, the cached knowledge
//! graph, and the state of consolidation (what triggers a cycle, what was retrieved
//! together). The rules that every persona write follows live here too: a memory's live
//! state, an access, and the stamping of a new version.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rusqlite::{Connection, Transaction};

use super::graph::{KnowledgeGraph, MemoryNode, StoredEdge};
use super::{DecayPolicy, LifecycleOptions};
use crate::codec::{Path, Payload, RecordKind};
use crate::engine::{edges, records, write::write_record, Engine};
use crate::error::Result;
use crate::model::{merge, FactValue, MemoryState, PersonaMemory};

const GRAPH_REBUILD_NODES: usize = 5_000;
const GRAPH_REBUILD_SECS: u64 = 30;
/// Most history a memory keeps, in bytes of values (the oldest go first): the whole
/// memory must stay within what NIP-44 can encrypt.
const HISTORY_BYTES: usize = 8_192;

/// A built knowledge graph and what it was built from.
struct CachedGraph {
    /// The engine's change count and the learned edges' version at build time.
    built_at: (u64, u64),
    built: Instant,
    graph: Arc<KnowledgeGraph>,
}

/// What consolidation keeps between cycles.
pub(crate) struct CycleState {
    /// Held by a running cycle: cycles never overlap.
    pub(crate) running: Arc<tokio::sync::Mutex<()>>,
    /// Writes since the last cycle.
    pub(crate) writes: AtomicU64,
    /// Holds on automatic cycles ([`super::triggers::CycleHold`]): none starts while above 0.
    pub(crate) held: AtomicU64,
    /// Milliseconds after `opened` of the last write, for the idle trigger.
    pub(crate) last_write: AtomicU64,
    pub(crate) opened: Instant,
    /// Pairs of memories retrieved together since the last cycle (in memory: a search must
    /// not cost a write).
    pub(crate) coactive: Mutex<BTreeMap<(String, String), u32>>,
}

/// The lifecycle's handle. Shared as `Arc<Lifecycle>`.
pub(crate) struct Lifecycle {
    pub(crate) decay: Arc<dyn DecayPolicy>,
    pub(crate) options: LifecycleOptions,
    graph: Mutex<Option<CachedGraph>>,
    /// Bumped when a cycle changed the learned edges (no event changes with them).
    edges_version: AtomicU64,
    /// A background rebuild of a large graph is running (one at a time).
    graph_building: AtomicBool,
    pub(crate) cycle: CycleState,
    /// Accesses `persona_recall` counted and no transaction has recorded yet: path and
    /// time, in order. A recall is a read; these are written in one batch (see
    /// [`Lifecycle::queue_access`]).
    accesses: Mutex<Vec<(String, f64)>>,
}

/// Accesses held in memory at most before they are written.
pub(crate) const ACCESS_BATCH: usize = 100;

/// A lock that outlives a panic elsewhere: what it guards is a cache or a log, never left
/// half written.
pub(crate) fn relock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Lifecycle {
    pub(crate) fn new(decay: Arc<dyn DecayPolicy>, options: LifecycleOptions) -> Self {
        Lifecycle {
            decay,
            options,
            graph: Mutex::new(None),
            edges_version: AtomicU64::new(0),
            graph_building: AtomicBool::new(false),
            accesses: Mutex::new(Vec::new()),
            cycle: CycleState {
                running: Arc::new(tokio::sync::Mutex::new(())),
                writes: AtomicU64::new(0),
                held: AtomicU64::new(0),
                last_write: AtomicU64::new(0),
                opened: Instant::now(),
                coactive: Mutex::new(BTreeMap::new()),
            },
        }
    }

    /// The state a memory is in under the decay policy. Pinned memories and keyed facts
    /// stay active: a keyed fact is the current value of its attribute until it is set
    /// again, however long ago that was (seed 002).
    pub(crate) fn live_state(&self, m: &PersonaMemory, now: f64) -> (f64, MemoryState) {
        // Lost recalls weaken it, bounded (retrieval-induced forgetting).
        let relevance =
            super::competition::weakened(self.decay.relevance_scaled(m, now, super::types::decay_scale(self, m)), m);
        if m.sync.life.pinned || is_keyed_fact(m) {
            return (relevance, MemoryState::Active);
        }
        (relevance, self.decay.state(relevance))
    }

    /// One access of `m` at `now` on `device`: counted, a review for the decay policy, and
    /// the memory alive again (its state and dissolution mark follow).
    pub(crate) fn record_access(&self, device: &str, m: &mut PersonaMemory, now: f64) {
        merge::count_access(m, device);
        self.decay.on_access(m, now);
        m.last_accessed = m.last_accessed.max(now);
        m.sync.life.dissolved_at = None;
        m.state = self.live_state(m, now).1;
    }

    /// Signs a new version of a persona memory (`before` is the stored version, if any);
    /// `user_edit` is false for changes the lifecycle makes (state transitions), which must
    /// not win a merge against a user's edit. Returns the event id.
    pub(crate) fn save(
        &self,
        tx: &Transaction,
        engine: &Engine,
        before: Option<&PersonaMemory>,
        m: PersonaMemory,
        user_edit: bool,
    ) -> Result<String> {
        let (path, m) = self.stamped(engine, before, m, user_edit);
        Ok(write_record(tx, engine, &path, Payload::Persona(m))?.id.to_hex())
    }

    /// The version [`Lifecycle::save`] signs, and its path: `m` with its dissolution mark
    /// settled and its version vector stamped over `before`.
    pub(crate) fn stamped(
        &self,
        engine: &Engine,
        before: Option<&PersonaMemory>,
        mut m: PersonaMemory,
        user_edit: bool,
    ) -> (Path, PersonaMemory) {
        let now = engine.now();
        // A memory alive again (rewritten, connected, reinforced) loses its dissolution mark,
        // so a later dissolution starts the grace period afresh.
        if m.sync.life.dissolved_at.is_some() && self.live_state(&m, now).1 != MemoryState::Dissolved {
            m.sync.life.dissolved_at = None;
        }
        merge::stamp(before, &mut m, engine.device(), now, user_edit);
        let path = Path::of_persona(&m);
        (path, m)
    }

    /// The knowledge graph (built on first use, then cached). It is rebuilt after writes;
    /// a large one (over `GRAPH_REBUILD_NODES` nodes) at most every `GRAPH_REBUILD_SECS`,
    /// so a store of 100k records that alternates writes and searches does not rebuild it
    /// on every search: new memories then join the graph up to that many seconds late. A
    /// large graph is rebuilt in the background while searches keep the one they have (a
    /// build over 100k records takes a second or more, and a consolidation cycle's batched
    /// writes make the cached one stale many times over): no search waits for a build but
    /// the first. The build reads on a reader connection: writes and searches do not wait
    /// for it.
    pub(crate) async fn graph(self: &Arc<Self>, engine: &Arc<Engine>) -> Result<Arc<KnowledgeGraph>> {
        let now_at = (engine.generation(), self.edges_version.load(Ordering::SeqCst));
        if let Some(cached) = relock(&self.graph).as_ref() {
            let large = cached.graph.node_count() > GRAPH_REBUILD_NODES;
            let recent = cached.built.elapsed().as_secs() < GRAPH_REBUILD_SECS && large;
            if cached.built_at == now_at || recent {
                return Ok(cached.graph.clone());
            }
            if large {
                if !self.graph_building.swap(true, Ordering::SeqCst) {
                    let (life, engine) = (self.clone(), engine.clone());
                    tokio::spawn(async move {
                        if let Err(e) = life.build_graph(&engine, now_at).await {
                            tracing::warn!("knowledge graph rebuild failed: {e}");
                        }
                        life.graph_building.store(false, Ordering::SeqCst);
                    });
                }
                return Ok(cached.graph.clone());
            }
        }
        self.build_graph(engine, now_at).await
    }

    /// Builds the graph on a reader and caches it as of `now_at`.
    async fn build_graph(self: &Arc<Self>, engine: &Arc<Engine>, now_at: (u64, u64)) -> Result<Arc<KnowledgeGraph>> {
        let life = self.clone();
        let graph = engine
            .read(move |conn, _| {
                let nodes = graph_nodes(conn)?;
                let edges = stored_edges(conn)?;
                let graph = KnowledgeGraph::build(&nodes, &edges, &life.options.graph);
                // Small graphs are rebuilt after every write: trimming the heap is worth a
                // system call only after a large build.
                let large = nodes.len() > GRAPH_REBUILD_NODES;
                drop(nodes);
                if large {
                    crate::disk::release_free_memory();
                }
                Ok(Arc::new(graph))
            })
            .await?;
        *relock(&self.graph) = Some(CachedGraph { built_at: now_at, built: Instant::now(), graph: graph.clone() });
        Ok(graph)
    }

    /// Counts an access of the persona memory at `path` at `at`, in memory; returns how many
    /// wait. They are written by the next write transaction, before any read that looks at
    /// access counts, at `close`, or once [`ACCESS_BATCH`] wait.
    pub(crate) fn queue_access(&self, path: String, at: f64) -> usize {
        let mut queue = relock(&self.accesses);
        queue.push((path, at));
        queue.len()
    }

    /// The accesses waiting, taken (to be written).
    pub(crate) fn take_accesses(&self) -> Vec<(String, f64)> {
        std::mem::take(&mut *relock(&self.accesses))
    }

    /// Puts back accesses a failed transaction did not write, ahead of newer ones.
    pub(crate) fn requeue_accesses(&self, mut taken: Vec<(String, f64)>) {
        let mut queue = relock(&self.accesses);
        taken.append(&mut queue);
        *queue = taken;
    }

    /// Whether accesses wait.
    pub(crate) fn accesses_waiting(&self) -> bool {
        !relock(&self.accesses).is_empty()
    }

    /// `m` as it will be once the accesses waiting for it are written.
    pub(crate) fn with_waiting_accesses(&self, device: &str, m: &mut PersonaMemory) {
        let path = Path::of_persona(m).to_d();
        let waiting: Vec<f64> = relock(&self.accesses).iter().filter(|(p, _)| *p == path).map(|(_, at)| *at).collect();
        for at in waiting {
            self.record_access(device, m, at);
        }
    }

    /// The learned edges changed (a cycle saved them): the cached graph is stale.
    pub(crate) fn edges_changed(&self) {
        self.edges_version.fetch_add(1, Ordering::SeqCst);
    }

    /// Notes that the memories at these paths were retrieved together (top search hits);
    /// the next cycle strengthens their edges.
    pub(crate) fn note_coactivation(&self, paths: &[String]) {
        let mut log = relock(&self.cycle.coactive);
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                let key = if a <= b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) };
                *log.entry(key).or_default() += 1;
            }
        }
    }
}

/// A keyed fact's memory (`domain/facts/{subject}:{attribute}`, written by `fact_set`).
pub(crate) fn is_keyed_fact(m: &PersonaMemory) -> bool {
    m.facet == "facts" && m.key.contains(':')
}

/// Whether a persona memory may be archived by the lifecycle: never a pinned memory, never
/// a keyed fact (seed 002: the current value of a fact stays until it is set again).
pub(crate) fn archivable(m: &PersonaMemory) -> bool {
    !m.sync.life.pinned && !is_keyed_fact(m)
}

/// Moves `m`'s current value into its history (it was replaced at `now`).
pub(crate) fn push_history(m: &mut PersonaMemory, now: f64) {
    let from = m.sync.written.max(m.created_at).min(now);
    m.sync.life.history.push(FactValue { value: m.value.clone(), from, until: now });
    let mut total: usize = m.sync.life.history.iter().map(|h| h.value.len()).sum();
    while total > HISTORY_BYTES && !m.sync.life.history.is_empty() {
        total -= m.sync.life.history.remove(0).value.len();
    }
}

/// Adds `item` to `list` unless it is there.
pub(crate) fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// The graph's nodes: every live record.
fn graph_nodes(conn: &Connection) -> Result<Vec<MemoryNode>> {
    Ok(records::memory_rows(conn)?
        .into_iter()
        .map(|r| {
            let mut node = match (r.kind, r.persona) {
                (RecordKind::Persona, Some(m)) => MemoryNode::persona(r.path, &m),
                (RecordKind::Kv, _) => MemoryNode::flat(r.path, r.key, r.ts),
                _ => MemoryNode::journal(r.path, r.ts),
            };
            node.episode = r.episode;
            node
        })
        .collect())
}

/// The learned edges, as the graph reads them.
pub(crate) fn stored_edges(conn: &Connection) -> Result<Vec<StoredEdge>> {
    let mut out = Vec::new();
    for (a, b, kind, weight, created_at) in edges::edges(conn)? {
        // A kind this build does not know (a newer memstr wrote it) is left alone.
        if let Ok(kind) = kind.parse() {
            out.push(StoredEdge { a, b, kind, weight, created_at });
        }
    }
    Ok(out)
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
