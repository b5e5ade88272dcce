//! The store's ways out of memory, as the tools use them: each returns the address of the
//! memory it changed (the library's `forget` and `purge` return the deletion's event id).

use crate::{MemoryStore, Result};

/// What a verb returns: the address of the memory it changed.
pub(super) type Address = String;

/// What forgetting found: the memory, or nothing here (already forgotten or never stored).
pub(super) enum Forgot {
    /// It was here; now forgotten everywhere.
    Here(Address),
    /// A flat key not here: a deletion request was still signed for relays that may hold
    /// it (the published client's `forget`).
    FlatNotHere(Address),
    /// An address of nothing here: nothing changed.
    NotHere(Address),
}

/// Forgets `reference` everywhere (tombstone and NIP-09 deletion). Forgetting what is not
/// here is not an error (docs/skill/SKILL.md: forget is safe to retry), in the CLI and the
/// MCP tool alike.
pub(super) async fn forget(store: &MemoryStore, reference: &str) -> Result<Forgot> {
    match store.resolve(reference).await {
        Ok(r) => {
            store.forget(&r.address).await?;
            Ok(Forgot::Here(r.address))
        }
        Err(crate::Error::NotFound(_)) => {
            let flat = reference.strip_prefix("kv/").unwrap_or(reference);
            if flat.contains('/') {
                return Ok(Forgot::NotHere(reference.to_string()));
            }
            store.forget(&format!("kv/{flat}")).await?;
            Ok(Forgot::FlatNotHere(format!("kv/{flat}")))
        }
        Err(e) => Err(e),
    }
}

/// Archives `reference` (kept, out of search and context).
pub(super) async fn archive(store: &MemoryStore, reference: &str) -> Result<Address> {
    store.archive(reference).await
}

/// Brings an archived memory back: `(address, whether it was archived)`.
pub(super) async fn restore(store: &MemoryStore, reference: &str) -> Result<(Address, bool)> {
    let address = store.resolve(reference).await?.address;
    Ok(match store.restore_if_archived(&address).await? {
        Some(a) => (a, true),
        None => (address, false),
    })
}

/// Forgets `reference` and wipes its local remnants.
pub(super) async fn purge(store: &MemoryStore, reference: &str) -> Result<Address> {
    let address = store.resolve(reference).await?.address;
    store.purge(&address).await?;
    Ok(address)
}
