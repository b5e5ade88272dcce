//! Between memories and Nostr events: d-tag paths, JSON payloads, NIP-44, signatures.
//!
//! Everything that touches the nostr crate's event types lives here, so a move to
//! another nostr release stays local.

mod crypto;
mod dtag;
mod event;
mod payload;

pub use crypto::{Cipher, DecryptError};
pub(crate) use dtag::PLAIN_PATH_SQL;
pub use dtag::{format_py_float, names_plain_path, DTagMode, Path, PathError, RecordKind};
pub use event::{Codec, Decoded, MAX_EVENT_BYTES};
pub use payload::{Embedding, Payload, Tombstone};

/// Kind 30078: NIP-78 application-specific data (all memories).
pub const KIND_APP_DATA: u16 = 30078;
/// Kind 5: NIP-09 deletion request.
pub const KIND_DELETION: u16 = 5;
/// Kind 4: the design document's journal note to self.
pub const KIND_DM: u16 = 4;
