//! Many memories in one transaction ([`crate::MemoryStore::write_batch`]), each still its
//! own signed, encrypted event, applied and queued for relays exactly as a single write's.
//!
//! The work is split so the write lock is held for the inserts only: [`prepare`] signs
//! every item on a reader, against the store as it stands (a persona memory merges over
//! its stored version there); [`write`] then applies the signed events in one transaction.
//! Whatever changed between the two (another writer, queued accesses, an earlier item of
//! the same batch at the same address or journal time) is noticed in the transaction, and
//! that item is written there the single call's way instead: the outcome is always the
//! one a run of single calls in the batch's order would have had.

use nostr::Event;
use rusqlite::{Connection, Transaction};

use super::persona;
use super::runtime::Lifecycle;
use crate::codec::{Path, Payload};
use crate::engine::{records, write as engine_write, Engine};
use crate::error::{Error, Result};
use crate::model::{BatchItem, Memory, PersonaInput, PersonaMemory};

/// An item signed ahead of its transaction.
pub(crate) struct Prepared {
    index: usize,
    path: Path,
    payload: Payload,
    event: Event,
    /// What the transaction checks before using `event`, and falls back to.
    plan: Plan,
}

enum Plan {
    /// A flat memory: its event is good while no newer version or deletion is in the way
    /// ([`engine_write::write_signed`] checks).
    Kv,
    /// A journal entry: its path is its time, which must still be free.
    Journal { content: String, at: f64 },
    /// A persona memory (its input) merged over the version it saw, which must still be
    /// the stored one.
    Persona(Box<(PersonaInput, Option<PersonaMemory>)>),
}

/// Gives an item's validation failure its index (a payload too large shows only once
/// encoded, so this covers signing too); other errors are the store's, not the item's.
fn at_item(index: usize) -> impl FnOnce(Error) -> Error {
    move |e| match e {
        Error::Validation(source) => Error::BatchItem { index, source },
        other => other,
    }
}

/// Signs every item (already validated) as the store stands on `conn`. Items without a
/// time take now, each a hair after the one before, so the batch keeps its order in time.
pub(crate) fn prepare(
    conn: &Connection,
    engine: &Engine,
    life: &Lifecycle,
    items: Vec<BatchItem>,
) -> Result<Vec<Prepared>> {
    let mut now = engine.now();
    let mut out = Vec::with_capacity(items.len());
    for (index, mut item) in items.into_iter().enumerate() {
        if item.time().is_none() {
            item = item.at(now);
            now = f64::from_bits(now.to_bits() + 1).max(engine.now());
        }
        let (path, payload, plan) = match item {
            BatchItem::Kv { key, value, at } => {
                let at = at.expect("set above");
                let path = Path::Kv { key: key.clone() };
                (path, Payload::Kv(Memory::new(&key, &value, at)), Plan::Kv)
            }
            BatchItem::Journal { content, at } => {
                let at = at.expect("set above");
                let entry = crate::model::JournalEntry::new(&content, at);
                (Path::journal(at), Payload::Journal(entry), Plan::Journal { content, at })
            }
            BatchItem::Persona(input) => {
                let seen = persona::stored(conn, &input)?;
                let m = persona::remembered(engine, life, seen.as_ref(), input.clone());
                let (path, m) = life.stamped(engine, seen.as_ref(), m, true);
                (path, Payload::Persona(m), Plan::Persona(Box::new((input, seen))))
            }
        };
        let event = engine_write::sign_ahead(engine, &path, &payload).map_err(at_item(index))?;
        out.push(Prepared { index, path, payload, event, plan });
    }
    Ok(out)
}

/// Writes the prepared items in the caller's transaction, in order. Returns their event
/// ids. Any failure fails the whole transaction: nothing of the batch is written.
pub(crate) fn write(
    tx: &Transaction,
    engine: &Engine,
    life: &Lifecycle,
    prepared: Vec<Prepared>,
) -> Result<Vec<String>> {
    let mut ids = Vec::with_capacity(prepared.len());
    for Prepared { index, path, payload, event, plan } in prepared {
        let id = match plan {
            Plan::Kv => engine_write::write_signed(tx, engine, &path, payload, event).map(|e| e.id.to_hex()),
            Plan::Journal { content, at } => match records::path_taken(tx, &path)? {
                // Another entry holds that instant: the single call's way moves this one.
                true => records::append_journal(tx, engine, content, at),
                false => engine_write::write_signed(tx, engine, &path, payload, event).map(|e| e.id.to_hex()),
            },
            Plan::Persona(planned) => match planned.1 == persona::stored(tx, &planned.0)? {
                true => engine_write::write_signed(tx, engine, &path, payload, event).map(|e| e.id.to_hex()),
                false => persona::remember(tx, engine, life, planned.0),
            },
        };
        ids.push(id.map_err(at_item(index))?);
    }
    Ok(ids)
}
