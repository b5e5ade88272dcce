//! The store's ways out of memory, as the tools use them: each returns the address of the
//! memory it changed (the library's `forget` and `purge` return the deletion's event id).

use crate::{MemoryStore, Result};

/// What a verb returns: the address of the memory it changed.
pub(super) type Address = String;

/// Forgets `reference` everywhere (tombstone and NIP-09 deletion).
pub(super) async fn forget(store: &MemoryStore, reference: &str) -> Result<Address> {
    let address = store.resolve(reference).await?.address;
    store.forget(&address).await?;
    Ok(address)
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
