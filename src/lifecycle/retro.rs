//! Retroactive importance (seed 001, synaptic tagging and capture): an importance event
//! (a flag, a pin, a novelty spike at the gate, repeated access) captures persona memories
//! written from 9 hours before it to 2 hours after, each with a probability that falls
//! with its distance in time, drawn from a fixed hash so every device agrees. A captured
//! memory gains importance (it decays slower); the event records its cluster. Formulas and
//! constants: docs/lifecycle.md, "Retroactive importance".

use rusqlite::Transaction;
use serde::{Deserialize, Serialize};

use super::runtime::{is_keyed_fact, Lifecycle};
use super::similar::fixed_hash;
use super::Behaviour;
use crate::engine::{records, Engine};
use crate::error::Result;
use crate::model::{Capture, ImportanceEvent, ImportanceKind, PersonaMemory, MAX_CLUSTER};

/// Hours before an event whose memories it may capture (seed 001, Vestige's default).
pub const BACKWARD_HOURS: f64 = 9.0;
/// Hours after an event whose memories it may capture.
pub const FORWARD_HOURS: f64 = 2.0;
/// Steepness of the capture curve: at a window's edge the probability is `e^-3` (5%) of
/// the event's strength.
pub const CAPTURE_CURVE: f64 = 3.0;
/// Share of the event's strength a captured memory gains as importance.
pub const CAPTURE_GAIN: f64 = 0.5;
/// Accesses that make a repeated-access event ...
pub const REPEAT_COUNT: u64 = 5;
/// ... when reached within this many days of the memory's writing.
pub const REPEAT_WINDOW_DAYS: f64 = 7.0;
/// Salience at or above which a memory the gate stores is a novelty spike (seed 000's
/// salience, `0.4 novelty + 0.3 importance + 0.2 specificity`: a memory unlike any of its
/// facet with 6 content words or more reaches it, or one of some novelty with importance).
pub const NOVELTY_SALIENCE: f64 = 0.5;
/// Candidates one sweep reads at most, the nearest in time first.
const SWEEP_READ: usize = 4 * MAX_CLUSTER;
/// The `meta` row listing this device's events whose forward window is still open.
const OPEN_EVENTS: &str = "retro_open_events";
const HOUR: f64 = 3600.0;
/// A memory larger than this (bytes of JSON) sets off no event, and one captured is
/// left as it is: its cluster or capture might not fit in what NIP-44 encrypts (65,535).
const SOURCE_ROOM: usize = 48_000;

/// An importance event and the memories it captured, as listed by
/// [`crate::MemoryStore::importance_clusters`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ImportanceCluster {
    /// The address of the memory that set it off.
    pub source: String,
    /// The event and its cluster.
    #[serde(flatten)]
    pub event: ImportanceEvent,
}

/// The probability that an event of `kind` captures a memory written `delta` seconds
/// after it (negative: before): `strength × e^(-3 |delta| / window)`, where the window
/// is `9 h × radius` before the event and `2 h × radius` after; 0 outside.
pub fn capture_probability(kind: ImportanceKind, delta: f64) -> f64 {
    let window = if delta < 0.0 { BACKWARD_HOURS } else { FORWARD_HOURS } * HOUR * kind.radius();
    if !delta.is_finite() || delta.abs() > window {
        return 0.0;
    }
    kind.strength() * (-CAPTURE_CURVE * delta.abs() / window).exp()
}

/// The deterministic draw, in [0, 1), that decides whether event `event` captures the
/// memory at `address`: captured when it is below [`capture_probability`].
pub fn capture_draw(event: &str, address: &str) -> f64 {
    let h = fixed_hash(format!("{event}\u{0}{address}").as_bytes());
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// An event's id: a fixed hash of its kind, memory and second (a repeated-access event
/// happens once per memory, so its time is left out: every device names it alike).
fn event_id(kind: ImportanceKind, address: &str, at: f64) -> String {
    let at = if kind == ImportanceKind::RepeatedAccess { 0 } else { at.floor() as i64 };
    format!("{:016x}", fixed_hash(format!("{kind}\u{0}{address}\u{0}{at}").as_bytes()))
}

/// The window of an event at `at`: `[at - 9 h × radius, at + 2 h × radius]`.
fn window(kind: ImportanceKind, at: f64) -> (f64, f64) {
    (at - BACKWARD_HOURS * HOUR * kind.radius(), at + FORWARD_HOURS * HOUR * kind.radius())
}

/// Whether an event may capture `m`: not archived, not replaced, not pinned (a pinned
/// memory never decays: it needs nothing), not a keyed fact (its own rule keeps it).
fn capturable(m: &PersonaMemory) -> bool {
    m.sync.life.archived_at.is_none() && !m.is_superseded() && !m.sync.life.pinned && !is_keyed_fact(m)
}

/// An event of this device whose forward window is open: memories written before it
/// closes are captured as they are written ([`capture_new`]). Its memory is named by row
/// (no word of it in the row), and checked to hold the event when read back.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct OpenEvent {
    id: String,
    kind: ImportanceKind,
    rid: i64,
    at: f64,
}

/// Sets off an importance event of `kind` at `at` on `source` (saved by the caller when
/// this returns an event): captures the memories around it and records the cluster in
/// `source`. None when the behaviour is off or `source` already holds this event
/// (idempotent).
pub(crate) fn fire(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    source: &mut PersonaMemory,
    kind: ImportanceKind,
    at: f64,
) -> Result<Option<ImportanceEvent>> {
    if !life.options.behaviours.is_on(Behaviour::RetroactiveImportance) || engine.evaluate_only() {
        return Ok(None);
    }
    let address = source.address();
    let id = event_id(kind, &address, at);
    if source.sync.life.strength.events.iter().any(|e| e.id == id) {
        return Ok(None);
    }
    if serde_json::to_vec(source)?.len() > SOURCE_ROOM {
        // No room to record the cluster within what NIP-44 encrypts: no event.
        return Ok(None);
    }
    let (from, to) = window(kind, at);
    let mut captured = Vec::new();
    for (_, m) in records::persona_written_between(tx, from, to, at, SWEEP_READ)? {
        if captured.len() >= MAX_CLUSTER {
            break;
        }
        if m.address() == address || !capturable(&m) {
            continue;
        }
        if capture(tx, engine, life, &m, &id, &address, kind, at)? {
            captured.push(m.address());
        }
    }
    if !source.sync.life.pinned {
        // The event's own memory gains the event's whole strength (a flag: "remember this").
        source.sync.life.strength.add_capture(Capture {
            event: id.clone(),
            source: address.clone(),
            at,
            boost: kind.strength(),
        });
    }
    let event = ImportanceEvent { id, kind, at, captured };
    source.sync.life.strength.add_event(event.clone());
    source.state = life.live_state(source, engine.now()).1;
    let path = crate::codec::Path::Persona {
        domain: source.domain.clone(),
        facet: source.facet.clone(),
        key: source.key.clone(),
    };
    if let (true, Some(rid)) = (to > engine.now(), records::rid_of(tx, &path.to_d())?) {
        remember_open(tx, engine, OpenEvent { id: event.id.clone(), kind, rid, at })?;
    }
    Ok(Some(event))
}

/// Draws for `m` and, when captured, saves it with the capture. Returns whether it was.
#[allow(clippy::too_many_arguments)]
fn capture(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    m: &PersonaMemory,
    id: &str,
    source: &str,
    kind: ImportanceKind,
    at: f64,
) -> Result<bool> {
    if m.sync.life.strength.captured_by(id) {
        return Ok(true);
    }
    if capture_draw(id, &m.address()) >= capture_probability(kind, m.created_at - at) {
        return Ok(false);
    }
    if serde_json::to_vec(m)?.len() > SOURCE_ROOM {
        return Ok(false);
    }
    let mut next = m.clone();
    let boost = CAPTURE_GAIN * kind.strength();
    next.sync.life.strength.add_capture(Capture { event: id.to_string(), source: source.to_string(), at, boost });
    next.state = life.live_state(&next, engine.now()).1;
    life.save(tx, engine, Some(m), next, false)?;
    Ok(true)
}

/// This device's events whose forward window is open at `now`.
fn open_events(conn: &rusqlite::Connection, now: f64) -> Result<Vec<OpenEvent>> {
    let list: Vec<OpenEvent> = match records::meta_get(conn, OPEN_EVENTS)? {
        Some(json) => serde_json::from_str(&json).unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(list.into_iter().filter(|e| window(e.kind, e.at).1 >= now).collect())
}

fn remember_open(tx: &Transaction, engine: &Engine, event: OpenEvent) -> Result<()> {
    let mut list = open_events(tx, engine.now())?;
    list.retain(|e| e.id != event.id);
    list.push(event);
    records::meta_set(tx, OPEN_EVENTS, &serde_json::to_string(&list)?)
}

/// A memory being written for the first time (`m`, not yet saved): the open events of
/// this device whose window holds it may capture it, and their clusters record it.
pub(crate) fn capture_new(tx: &Transaction, engine: &Engine, life: &Lifecycle, m: &mut PersonaMemory) -> Result<()> {
    if !life.options.behaviours.is_on(Behaviour::RetroactiveImportance) || engine.evaluate_only() || !capturable(m) {
        return Ok(());
    }
    if serde_json::to_vec(m)?.len() > SOURCE_ROOM {
        return Ok(());
    }
    let address = m.address();
    for e in open_events(tx, engine.now())? {
        let (from, to) = window(e.kind, e.at);
        if m.created_at < from || m.created_at > to || m.sync.life.strength.captured_by(&e.id) {
            continue;
        }
        if capture_draw(&e.id, &address) >= capture_probability(e.kind, m.created_at - e.at) {
            continue;
        }
        // The event's memory, if it is still there and still holds the event.
        let Some(before) = records::persona_at_rid(tx, e.rid)? else { continue };
        if before.address() == address || !before.sync.life.strength.events.iter().any(|x| x.id == e.id) {
            continue;
        }
        let boost = CAPTURE_GAIN * e.kind.strength();
        m.sync.life.strength.add_capture(Capture { event: e.id.clone(), source: before.address(), at: e.at, boost });
        let mut source = before.clone();
        let cluster = ImportanceEvent { id: e.id, kind: e.kind, at: e.at, captured: vec![address.clone()] };
        source.sync.life.strength.add_event(cluster);
        if source != before {
            life.save(tx, engine, Some(&before), source, false)?;
        }
    }
    Ok(())
}

/// Whether the access that brought `m` from `before` accesses to its count now is its
/// [`REPEAT_COUNT`]th within [`REPEAT_WINDOW_DAYS`] of its writing: a repeated-access event.
pub(crate) fn repeated_access(before: u64, m: &PersonaMemory, now: f64) -> bool {
    before < REPEAT_COUNT && m.access_count >= REPEAT_COUNT && now - m.created_at <= REPEAT_WINDOW_DAYS * 86_400.0
}

/// A memory the gate stored (`address`): a novelty spike when its salience reaches
/// [`NOVELTY_SALIENCE`], which sets off an event.
pub(crate) fn after_gated_write(tx: &Transaction, engine: &Engine, life: &Lifecycle, address: &str) -> Result<()> {
    if !life.options.behaviours.is_on(Behaviour::RetroactiveImportance) {
        return Ok(());
    }
    let before = records::resolve_persona(tx, address)?;
    if before.sync.life.salience.unwrap_or(0.0) < NOVELTY_SALIENCE {
        return Ok(());
    }
    let mut m = before.clone();
    if fire(tx, engine, life, &mut m, ImportanceKind::Novelty, engine.now())?.is_some() {
        life.save(tx, engine, Some(&before), m, false)?;
    }
    Ok(())
}

/// The agent flags the memory at `reference` as important ([`crate::MemoryStore::mark_important`]).
/// None when the behaviour is off.
pub(crate) fn mark(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    reference: &str,
) -> Result<Option<ImportanceCluster>> {
    let before = records::resolve_persona(tx, reference)?;
    if !life.options.behaviours.is_on(Behaviour::RetroactiveImportance) {
        return Ok(None);
    }
    let (mut m, now) = (before.clone(), engine.now());
    let event = match fire(tx, engine, life, &mut m, ImportanceKind::Flag, now)? {
        Some(event) => {
            life.save(tx, engine, Some(&before), m, false)?;
            event
        }
        // The same flag in the same second: the event stands as recorded.
        None => match before
            .sync
            .life
            .strength
            .events
            .iter()
            .find(|e| e.id == event_id(ImportanceKind::Flag, &before.address(), now))
        {
            Some(e) => e.clone(),
            None => return Ok(None),
        },
    };
    Ok(Some(ImportanceCluster { source: before.address(), event }))
}

/// Every importance event recorded in the store, the latest first.
pub(crate) fn clusters(conn: &rusqlite::Connection) -> Result<Vec<ImportanceCluster>> {
    let mut out: Vec<ImportanceCluster> = records::all_persona(conn)?
        .into_iter()
        .flat_map(|(_, m)| {
            let source = m.address();
            m.sync
                .life
                .strength
                .events
                .into_iter()
                .map(move |event| ImportanceCluster { source: source.clone(), event })
        })
        .collect();
    out.sort_by(|a, b| b.event.at.total_cmp(&a.event.at).then(a.event.id.cmp(&b.event.id)));
    Ok(out)
}
