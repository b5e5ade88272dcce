//! Persona memories as the lifecycle writes them: remembering and reinforcing, accesses,
//! links and contradictions, pins, keyed facts, pruning by decay, and the archive mark.
//! Each function runs inside the caller's transaction; formulas in docs/lifecycle.md.

use std::collections::BTreeMap;

use rusqlite::{Connection, Transaction};
use serde::Serialize;

use super::runtime::{archivable, push_history, push_unique, Lifecycle};
use super::Dissolve;
use crate::codec::{Path, Payload, RecordKind};
use crate::engine::records::{self, resolve_persona as resolve};
use crate::engine::{write, Engine};
use crate::error::{Error, Result, Rule, ValidationError};
use crate::model::{
    validate_key, ImportanceKind, JournalEntry, Memory, MemoryState, PersonaInput, PersonaMemory, PersonaQuery,
};

const DAY: f64 = 86_400.0;

/// Counts of [`crate::MemoryStore::persona_stats`], evaluated at one instant.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PersonaStats {
    /// Persona memories.
    pub total: u64,
    /// Per live state (computed, not stored).
    pub by_state: BTreeMap<String, u64>,
    /// Per domain.
    pub by_domain: BTreeMap<String, u64>,
    /// Per `domain/facet`.
    pub by_facet: BTreeMap<String, u64>,
}

/// What [`crate::MemoryStore::persona_prune`] changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
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

/// One value of a keyed fact ([`crate::MemoryStore::fact_history`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FactVersion {
    /// The value.
    pub value: String,
    /// When the value was set.
    pub from: f64,
    /// When a newer value replaced it; None for the current value.
    pub until: Option<f64>,
}

/// The stored persona memories a query names.
pub(crate) fn query(conn: &Connection, q: &PersonaQuery) -> Result<Vec<(i64, PersonaMemory)>> {
    records::persona(conn, q.domain.as_deref(), q.facet.as_deref(), q.key.as_deref())
}

/// Stores a persona memory, or updates the one at the same address (see
/// [`crate::MemoryStore::persona_remember`]). Returns the event id.
pub(crate) fn remember(tx: &Transaction, engine: &Engine, life: &Lifecycle, input: PersonaInput) -> Result<String> {
    let existing = stored(tx, &input)?;
    let mut m = remembered(engine, life, existing.as_ref(), input);
    if existing.is_none() {
        super::retro::capture_new(tx, engine, life, &mut m)?;
    }
    life.save(tx, engine, existing.as_ref(), m, true)
}

/// The stored persona memory at `input`'s address, if any.
pub(crate) fn stored(conn: &Connection, input: &PersonaInput) -> Result<Option<PersonaMemory>> {
    Ok(records::persona(conn, Some(&input.domain), Some(&input.facet), Some(&input.key))?.pop().map(|(_, m)| m))
}

/// What [`remember`] makes of `input` over `existing` (the stored version), before the
/// lifecycle stamps it ([`Lifecycle::stamped`]).
pub(crate) fn remembered(
    engine: &Engine,
    life: &Lifecycle,
    existing: Option<&PersonaMemory>,
    input: PersonaInput,
) -> PersonaMemory {
    let at = input.at.unwrap_or_else(|| engine.now());
    let typing = super::types::Typing::of(&input);
    let mut m = match existing {
        Some(old) => old.clone(),
        None => PersonaMemory::new(&input.domain, &input.facet, &input.key, "", at),
    };
    m.value = input.value;
    if !input.themes.is_empty() {
        m.themes = input.themes;
    }
    for c in &input.connections {
        push_unique(&mut m.connections, c);
    }
    if let Some(s) = input.source {
        m.source = s;
    }
    if let Some(c) = input.confidence {
        m.confidence = c;
    }
    if let Some(h) = input.halflife_days {
        m.halflife_days = h;
    }
    if input.importance.is_some() {
        m.sync.life.importance = input.importance;
    }
    if input.salience.is_some() {
        m.sync.life.salience = input.salience;
    }
    typing.apply(life, existing.is_none(), &mut m);
    if input.context.is_some() {
        m.sync.life.context = input.context;
    }
    m.last_reinforced = m.last_reinforced.max(at);
    if existing.is_some() {
        // Writing again is a review for policies that keep one (FSRS).
        life.decay.on_access(&mut m, at);
    }
    m.last_accessed = m.last_accessed.max(at);
    m.state = life.live_state(&m, at).1;
    m
}

/// Counts an access, locally: the signed update waits for the next batch of accesses, so
/// reading never floods relays. Evaluating at another time is a peek: nothing counted.
fn touch(tx: &Transaction, engine: &Engine, life: &Lifecycle, rid: i64, m: &PersonaMemory, now: f64) -> Result<()> {
    if engine.evaluate_only() {
        return Ok(());
    }
    let (stored, mut m) = (m, m.clone());
    life.record_access(engine.device(), &mut m, now);
    if super::retro::repeated_access(stored.access_count, &m, now)
        && super::retro::fire(tx, engine, life, &mut m, ImportanceKind::RepeatedAccess, now)?.is_some()
    {
        // The event and its cluster are signed now, with this access.
        return life.save(tx, engine, Some(stored), m, false).map(|_| ());
    }
    records::mark_accessed(tx, rid, &serde_json::to_string(&m)?)
}

/// Records accesses `persona_recall` counted in memory (path, time), in order; a memory
/// gone since is skipped.
pub(crate) fn record_accesses(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    accesses: &[(String, f64)],
) -> Result<()> {
    for (path, at) in accesses {
        if let Some((rid, RecordKind::Persona, json)) = records::live_row(tx, path)? {
            touch(tx, engine, life, rid, &serde_json::from_str(&json)?, *at)?;
        }
    }
    Ok(())
}

/// Counts one access of each memory at `paths` (search hits): persona memories count it,
/// and a hit that was archived comes out of the archive (a strong cue revived it). Local
/// bookkeeping, signed with the next batch of accesses.
pub(crate) fn strengthen(tx: &Transaction, engine: &Engine, life: &Lifecycle, paths: &[String]) -> Result<()> {
    let now = engine.now();
    for path in paths {
        match records::live_row(tx, path)? {
            Some((rid, RecordKind::Persona, json)) => {
                let mut m: PersonaMemory = serde_json::from_str(&json)?;
                if !engine.evaluate_only() {
                    m.sync.life.archived_at = None;
                }
                touch(tx, engine, life, rid, &m, now)?;
            }
            Some((rid, kind, json)) if !engine.evaluate_only() => {
                let revived = match kind {
                    RecordKind::Kv => {
                        let mut m: Memory = serde_json::from_str(&json)?;
                        m.archived_at.take().map(|_| serde_json::to_string(&m)).transpose()?
                    }
                    RecordKind::Journal => {
                        let mut j: JournalEntry = serde_json::from_str(&json)?;
                        j.archived_at.take().map(|_| serde_json::to_string(&j)).transpose()?
                    }
                    _ => None,
                };
                if let Some(json) = revived {
                    records::mark_accessed(tx, rid, &json)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Links two memories both ways (each by `key` or `domain/facet/key`).
pub(crate) fn connect(tx: &Transaction, engine: &Engine, life: &Lifecycle, a: &str, b: &str) -> Result<()> {
    let now = engine.now();
    let (a0, b0) = (resolve(tx, a)?, resolve(tx, b)?);
    let (mut ma, mut mb) = (a0.clone(), b0.clone());
    if ma.address() == mb.address() {
        return Err(ValidationError { field: "connection", rule: Rule::SelfReference }.into());
    }
    push_unique(&mut ma.connections, &mb.key);
    push_unique(&mut mb.connections, &ma.key);
    for m in [&mut ma, &mut mb] {
        m.last_reinforced = m.last_reinforced.max(now);
    }
    life.save(tx, engine, Some(&a0), ma, true)?;
    life.save(tx, engine, Some(&b0), mb, true)?;
    Ok(())
}

/// Records that `new` replaces `old` (see [`crate::MemoryStore::persona_contradict`]).
pub(crate) fn contradict(tx: &Transaction, engine: &Engine, life: &Lifecycle, old: &str, new: &str) -> Result<()> {
    let now = engine.now();
    let o0 = resolve(tx, old)?;
    let mut mo = o0.clone();
    let mn = resolve(tx, new)?;
    if mo.address() == mn.address() {
        return Err(ValidationError { field: "contradiction", rule: Rule::SelfReference }.into());
    }
    push_unique(&mut mo.contradicts, &mn.key);
    mo.superseded_by = Some(mn.key.clone());
    mo.state = life.live_state(&mo, now).1;
    life.save(tx, engine, Some(&o0), mo, true)?;
    Ok(())
}

/// Totals, per live state, per domain and per facet.
pub(crate) fn stats(conn: &Connection, engine: &Engine, life: &Lifecycle) -> Result<PersonaStats> {
    let now = engine.now();
    let mut stats = PersonaStats::default();
    for s in MemoryState::ALL {
        stats.by_state.insert(s.as_str().to_string(), 0);
    }
    for (_, m) in records::all_persona(conn)? {
        stats.total += 1;
        let state = life.live_state(&m, now).1;
        *stats.by_state.entry(state.as_str().to_string()).or_default() += 1;
        *stats.by_domain.entry(m.domain.clone()).or_default() += 1;
        *stats.by_facet.entry(format!("{}/{}", m.domain, m.facet)).or_default() += 1;
    }
    Ok(stats)
}

/// Pins or unpins a persona memory.
pub(crate) fn pin(tx: &Transaction, engine: &Engine, life: &Lifecycle, reference: &str, pinned: bool) -> Result<()> {
    let before = resolve(tx, reference)?;
    let mut m = before.clone();
    m.sync.life.pinned = pinned;
    m.sync.life.dissolved_at = None;
    if pinned && !before.sync.life.pinned {
        super::retro::fire(tx, engine, life, &mut m, ImportanceKind::Pin, engine.now())?;
    }
    m.state = life.live_state(&m, engine.now()).1;
    if m != before {
        life.save(tx, engine, Some(&before), m, true)?;
    }
    Ok(())
}

/// Prunes every persona memory in one transaction (see [`crate::MemoryStore::persona_prune`]).
/// A memory that cannot be written (say, one at the size limit) is skipped and logged, so
/// it never blocks the others.
pub(crate) fn prune(tx: &Transaction, engine: &Engine, life: &Lifecycle) -> Result<PruneReport> {
    let now = engine.now();
    let mut report = PruneReport::default();
    for (_, m) in records::all_persona(tx)? {
        tx.execute_batch("SAVEPOINT prune_one")?;
        match prune_one(tx, engine, life, &m, now, &mut report) {
            Ok(()) => tx.execute_batch("RELEASE prune_one")?,
            Err(e) => {
                tx.execute_batch("ROLLBACK TO prune_one; RELEASE prune_one")?;
                tracing::warn!("prune: {} left as it was: {e}", m.address());
            }
        }
    }
    Ok(report)
}

/// What pruning does to one memory, decided from the memory alone (so a cycle can decide
/// on a reader and apply in short writes, deciding again on the row it writes).
enum PrunePlan {
    Leave,
    Delete,
    Archive(PersonaMemory),
    /// A new state (`true`) or a changed mark.
    Save(PersonaMemory, bool),
}

fn prune_plan(life: &Lifecycle, m: &PersonaMemory, now: f64) -> PrunePlan {
    if m.sync.life.archived_at.is_some() {
        // Archived memories wait for `restore` or a strong cue; pruning leaves them be.
        return PrunePlan::Leave;
    }
    let (_, state) = life.live_state(m, now);
    let mut next = m.clone();
    next.state = state;
    if state == MemoryState::Dissolved {
        let since = *next.sync.life.dissolved_at.get_or_insert(now);
        if now - since >= life.options.dissolve_after_days * DAY && archivable(m) {
            return match life.options.dissolve {
                Dissolve::Delete => PrunePlan::Delete,
                _ => {
                    next.sync.life.archived_at = Some(now);
                    PrunePlan::Archive(next)
                }
            };
        }
    } else {
        next.sync.life.dissolved_at = None;
    }
    if next == *m {
        return PrunePlan::Leave;
    }
    let changed_state = next.state != m.state;
    PrunePlan::Save(next, changed_state)
}

/// Whether pruning would change `m` now.
pub(crate) fn prune_due(life: &Lifecycle, m: &PersonaMemory, now: f64) -> bool {
    !matches!(prune_plan(life, m, now), PrunePlan::Leave)
}

/// Prunes the memories at these addresses (`domain/facet/key`), each as it is stored now
/// (one that changed or went since it was chosen is judged again, or skipped).
pub(crate) fn prune_addresses(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    addresses: &[(String, String, String)],
    report: &mut PruneReport,
) -> Result<()> {
    let now = engine.now();
    for (domain, facet, key) in addresses {
        for (_, m) in records::persona(tx, Some(domain), Some(facet), Some(key))? {
            tx.execute_batch("SAVEPOINT prune_one")?;
            match prune_one(tx, engine, life, &m, now, report) {
                Ok(()) => tx.execute_batch("RELEASE prune_one")?,
                Err(e) => {
                    tx.execute_batch("ROLLBACK TO prune_one; RELEASE prune_one")?;
                    tracing::warn!("prune: {} left as it was: {e}", m.address());
                }
            }
        }
    }
    Ok(())
}

fn prune_one(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    m: &PersonaMemory,
    now: f64,
    report: &mut PruneReport,
) -> Result<()> {
    match prune_plan(life, m, now) {
        PrunePlan::Leave => {}
        PrunePlan::Delete => {
            let path = Path::of_persona(m);
            write::forget_path(tx, engine, &path)?;
            report.deleted.push(m.address());
        }
        PrunePlan::Archive(next) => {
            report.archived.push(m.address());
            life.save(tx, engine, Some(m), next, false)?;
        }
        PrunePlan::Save(next, changed_state) => {
            if changed_state {
                report.transitions.push((m.address(), m.state, next.state));
            } else {
                report.marked.push(m.address());
            }
            life.save(tx, engine, Some(m), next, false)?;
        }
    }
    Ok(())
}

/// The key of a keyed fact: `{subject}:{attribute}`, each a valid key without `:`.
pub(crate) fn fact_key(subject: &str, attribute: &str) -> Result<String> {
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

/// Sets a keyed fact (see [`crate::MemoryStore::fact_set`]). Returns the event id.
pub(crate) fn fact_set(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    domain: &str,
    key: &str,
    value: String,
    at: Option<f64>,
) -> Result<String> {
    // The fact's own time: when the value became true (an import of history), else now.
    let now = at.unwrap_or_else(|| engine.now());
    let address = format!("{domain}/facts/{key}");
    let before = match resolve(tx, &address) {
        Ok(m) => Some(m),
        Err(Error::NotFound(_)) => None,
        Err(e) => return Err(e),
    };
    let mut m = before.clone().unwrap_or_else(|| PersonaMemory::new(domain, "facts", key, "", now));
    if before.is_some() && m.value != value {
        match at {
            // A dated set (an import of history): the old value held from when it was set.
            Some(_) => {
                let from = m.last_reinforced.max(m.created_at).min(now);
                m.sync.life.history.push(crate::model::FactValue { value: m.value.clone(), from, until: now });
            }
            None => push_history(&mut m, now),
        }
    }
    m.value = value;
    if before.is_some() {
        life.decay.on_access(&mut m, now);
    }
    m.last_reinforced = now;
    m.last_accessed = m.last_accessed.max(now);
    m.relevance = 1.0;
    m.state = life.live_state(&m, now).1;
    life.save(tx, engine, before.as_ref(), m, true)
}

/// Every value the keyed fact at `address` has had, oldest first; the last is current.
pub(crate) fn fact_history(conn: &Connection, address: &str) -> Result<Vec<FactVersion>> {
    let m = match resolve(conn, address) {
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
}

/// Sets (`Some`) or clears (`None`) the archive mark of the record at `path` and signs the
/// new version; `user_edit` is false when the lifecycle archives. Unchanged: nothing signed.
pub(crate) fn set_archived(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    path: &Path,
    at: Option<f64>,
    user_edit: bool,
) -> Result<bool> {
    let now = engine.now();
    let not_found = || Error::NotFound(crate::engine::address_of(path));
    match records::payload_at(tx, path)?.ok_or_else(not_found)? {
        Payload::Persona(before) => {
            if before.sync.life.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            let mut m = before.clone();
            m.sync.life.archived_at = at;
            if at.is_none() {
                // Restored memories come back alive: an access now, as recall would count.
                life.record_access(engine.device(), &mut m, now);
            }
            life.save(tx, engine, Some(&before), m, user_edit)?;
        }
        Payload::Kv(mut m) => {
            if m.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            m.archived_at = at;
            write::write_record(tx, engine, path, Payload::Kv(m))?;
        }
        Payload::Journal(mut j) => {
            if j.archived_at.is_some() == at.is_some() {
                return Ok(false);
            }
            j.archived_at = at;
            write::write_record(tx, engine, path, Payload::Journal(j))?;
        }
        _ => return Err(not_found()),
    }
    Ok(true)
}
