//! The store verbs the agent interface needs beyond what the library had: archive,
//! restore, purge, and forget of any reference. The library gains them (issue 12); until
//! then this adapter is the one place that names them, so switching to them is a change of
//! one line each.

use crate::{Error, MemoryStore, Result};

/// What a verb returns: the address of the memory it changed.
pub(super) type Address = String;

/// Not in this library yet: a tool error that says so.
fn not_yet(verb: &str) -> Error {
    Error::Task(format!("`{verb}` is not available in this build of memstr yet; use `forget` on a flat key instead"))
}

/// Forgets `reference`: a flat key (`kv/<key>` or a bare key naming a flat memory).
pub(super) async fn forget(store: &MemoryStore, reference: &str, flat_key: Option<&str>) -> Result<Address> {
    match flat_key {
        Some(key) => {
            store.forget(key).await?;
            Ok(format!("kv/{key}"))
        }
        None => {
            let _ = reference;
            Err(not_yet("forget of a persona memory or journal entry"))
        }
    }
}

/// Archives `reference` (kept, out of search and context).
pub(super) async fn archive(_store: &MemoryStore, _reference: &str) -> Result<Address> {
    Err(not_yet("archive"))
}

/// Brings an archived or forgotten memory back.
pub(super) async fn restore(_store: &MemoryStore, _reference: &str) -> Result<Address> {
    Err(not_yet("restore"))
}

/// Erases `reference` for good (every version, on every relay that honours deletions).
pub(super) async fn purge(_store: &MemoryStore, _reference: &str) -> Result<Address> {
    Err(not_yet("purge"))
}
