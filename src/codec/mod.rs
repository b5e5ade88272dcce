//! Between memories and Nostr events: d-tag paths, JSON payloads, NIP-44, signatures.
//!
//! Everything that touches the nostr crate's event types lives here, so a move to
//! another nostr release stays local.

mod crypto;
mod dtag;
mod event;
mod payload;
pub mod relay_list;

pub use crypto::{Cipher, DecryptError};
pub(crate) use dtag::PLAIN_PATH_SQL;
pub use dtag::{format_py_float, names_plain_path, DTagMode, Path, PathError, RecordKind};
pub use event::{Codec, Decoded, MAX_EVENT_BYTES};
pub use payload::{Embedding, Payload, Tombstone};
pub use relay_list::{merge_into, RelayEntry, KIND_PRIVATE_RELAYS, KIND_PUBLIC_RELAYS, MAX_LIST_ENTRIES};

/// Kind 30078: NIP-78 application-specific data (all memories).
pub const KIND_APP_DATA: u16 = 30078;
/// Kind 5: NIP-09 deletion request.
pub const KIND_DELETION: u16 = 5;
/// Kind 4: the design document's journal note to self.
pub const KIND_DM: u16 = 4;

/// f32 little-endian bytes, as vectors are stored in SQLite.
pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The reverse of [`to_blob`].
pub fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
