//! Signing memories into events, and checking untrusted events back into memories.

use std::fmt;

use nostr::{Event, EventBuilder, Keys, Kind, PublicKey, Tag, Timestamp};
use serde_json::Value;

use super::crypto::{Cipher, MAX_PLAINTEXT};
use super::dtag::{DTagMode, Path, PathError};
use super::payload::{Payload, Tombstone};
use super::{KIND_APP_DATA, KIND_DELETION, KIND_DM};
use crate::error::{Error, RejectReason, Result, Rule, ValidationError};

/// Largest event memstr accepts, in bytes of JSON (nostr-rs-relay's default limit).
pub const MAX_EVENT_BYTES: usize = 131_072;
/// More tags than any memstr or sense-memory event carries.
const MAX_TAGS: usize = 2_000;

/// What an accepted event means for the store.
// Decoded values live one at a time between decoding and applying: boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A memory (or tombstone) at a path. `d_tag` is the tag as it appeared (plain or blinded).
    Record {
        /// The record's logical address.
        path: Path,
        /// The d tag as it appeared on the event.
        d_tag: String,
        /// The decrypted content.
        payload: Payload,
    },
    /// A NIP-09 deletion request of ours: event ids, and d tags of our coordinates.
    Deletion {
        /// Hex ids of the events to delete (`e` tags).
        ids: Vec<String>,
        /// d tags of our replaceable events to delete, taken from `a` tags.
        d_tags: Vec<String>,
    },
    /// Our private relay list (NIP-37): the relays to merge into this device's list.
    RelayList(Vec<super::RelayEntry>),
}

/// Signs and checks events for one identity.
pub struct Codec {
    keys: Keys,
    cipher: Cipher,
    mode: DTagMode,
}

impl fmt::Debug for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Codec")
            .field("public_key", &self.keys.public_key().to_hex())
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Codec {
    /// A codec for `keys`, writing d tags in `mode`.
    pub fn new(keys: Keys, mode: DTagMode) -> Result<Self> {
        let cipher = Cipher::new(keys.secret_key(), &keys.public_key())?;
        Ok(Codec { keys, cipher, mode })
    }

    pub(super) fn cipher(&self) -> &Cipher {
        &self.cipher
    }

    pub(super) fn keys(&self) -> &Keys {
        &self.keys
    }

    /// Our public key.
    pub fn public_key(&self) -> PublicKey {
        self.keys.public_key()
    }

    /// The d-tag mode used for writing.
    pub fn mode(&self) -> DTagMode {
        self.mode
    }

    /// The d tag this codec writes for `path`.
    pub fn d_tag(&self, path: &Path) -> String {
        match self.mode {
            DTagMode::Compatible => path.to_d(),
            DTagMode::Blinded => self.cipher.blind(&path.to_d()),
        }
    }

    /// A signed kind-30078 event holding `payload` at `path`.
    pub fn record_event(&self, path: &Path, payload: &Payload, created_at: u64) -> Result<Event> {
        let d = self.d_tag(path);
        let plain = path.to_d();
        let blinded = (d != plain).then_some(plain.as_str());
        let json = serde_json::to_string(&payload.to_value(blinded))?;
        if json.len() > MAX_PLAINTEXT {
            let rule = Rule::PayloadTooLarge { max: MAX_PLAINTEXT, len: json.len() };
            return Err(ValidationError { field: "payload", rule }.into());
        }
        let content = self.cipher.encrypt(&json)?;
        EventBuilder::new(Kind::from(KIND_APP_DATA), content)
            .tag(Tag::identifier(d))
            .custom_created_at(Timestamp::from(created_at))
            .sign_with_keys(&self.keys)
            .map_err(|e| Error::Crypto(crate::Cause::from("signing", e)))
    }

    /// A NIP-42 authentication (kind 22242) answering `challenge` from the relay at `relay`.
    pub fn auth_event(&self, challenge: &str, relay: &str) -> Result<Event> {
        let url = nostr::RelayUrl::parse(relay).map_err(|e| Error::Relay(crate::Cause::from(relay, e)))?;
        EventBuilder::auth(challenge, url)
            .sign_with_keys(&self.keys)
            .map_err(|e| Error::Crypto(crate::Cause::from("signing", e)))
    }

    /// A tombstone replacing whatever is at `path`.
    pub fn tombstone_event(&self, path: &Path, deleted_at: f64, created_at: u64) -> Result<Event> {
        let t = Payload::Tombstone(Tombstone { path: path.to_d(), deleted_at });
        self.record_event(path, &t, created_at)
    }

    /// The d tags among `d_tags` a deletion may name in an `a` tag: all of them in
    /// compatible mode; in blinded mode only blinded ones, so a blinded store never
    /// publishes a plain path, not even one a compatible past made public already (those
    /// versions are retired by `e` tag alone).
    pub fn coordinates(&self, d_tags: &[String]) -> Vec<String> {
        match self.mode {
            DTagMode::Compatible => d_tags.to_vec(),
            DTagMode::Blinded => d_tags.iter().filter(|d| is_blinded_tag(d)).cloned().collect(),
        }
    }

    /// A NIP-09 deletion of event `ids` and of our coordinates at `d_tags` (those
    /// [`Codec::coordinates`] allows), with the `k` tag rust-nostr does not add. Tags are
    /// written raw: a d tag may contain `:`.
    pub fn deletion_event(&self, ids: &[String], d_tags: &[String], created_at: u64) -> Result<Event> {
        let pk = self.keys.public_key().to_hex();
        let mut tags = Vec::new();
        for id in ids {
            tags.push(raw_tag(["e", id.as_str()])?);
        }
        for d in &self.coordinates(d_tags) {
            tags.push(raw_tag(["a", &format!("{KIND_APP_DATA}:{pk}:{d}")])?);
        }
        tags.push(raw_tag(["k", &KIND_APP_DATA.to_string()])?);
        EventBuilder::new(Kind::from(KIND_DELETION), "Forgotten")
            .tags(tags)
            .custom_created_at(Timestamp::from(created_at))
            .sign_with_keys(&self.keys)
            .map_err(|e| Error::Crypto(crate::Cause::from("signing", e)))
    }

    /// Checks an untrusted event and decodes it. Every failure is a [`RejectReason`].
    pub fn decode(&self, event: &Event) -> Result<Decoded, RejectReason> {
        if event.tags.len() > MAX_TAGS || event.content.len() > MAX_EVENT_BYTES {
            return Err(RejectReason::Oversized);
        }
        event.verify().map_err(|_| RejectReason::BadSignature)?;
        if event.pubkey != self.keys.public_key() {
            return Err(RejectReason::ForeignAuthor);
        }
        match event.kind.as_u16() {
            KIND_APP_DATA => self.decode_app_data(event),
            KIND_DELETION => Ok(self.decode_deletion(event)),
            KIND_DM => self.decode_dm(event),
            super::KIND_PRIVATE_RELAYS => self.decode_relay_list(event).map(Decoded::RelayList),
            _ => Err(RejectReason::UnsupportedKind),
        }
    }

    fn decode_app_data(&self, event: &Event) -> Result<Decoded, RejectReason> {
        let mut ds = event.tags.iter().map(|t| t.as_slice()).filter(|t| t.first().map(String::as_str) == Some("d"));
        let d = match (ds.next(), ds.next()) {
            (Some(t), None) => t.get(1).cloned().unwrap_or_default(),
            _ => return Err(RejectReason::BadDTag),
        };
        let event_time = event.created_at.as_secs() as f64;
        let plain = match Path::parse(&d) {
            Ok(path) => Some(path),
            Err(PathError::Malformed) => return Err(RejectReason::BadDTag),
            Err(PathError::Foreign) if is_blinded_tag(&d) => None,
            Err(PathError::Foreign) => return Err(RejectReason::ForeignDTag),
        };
        let obj = self.decrypt_object(&event.content)?;
        let path = match plain {
            Some(path) => path,
            None => {
                // Blinded: the path travels inside, and must hash to the d tag.
                let inner = obj.get("path").and_then(Value::as_str).ok_or(RejectReason::MalformedPayload)?;
                let path = Path::parse(inner).map_err(|_| RejectReason::MalformedPayload)?;
                if self.cipher.blind(inner) != d {
                    return Err(RejectReason::DTagMismatch);
                }
                path
            }
        };
        let payload = Payload::decode(&path, &obj, event_time)?;
        Ok(Decoded::Record { path, d_tag: d, payload })
    }

    fn decode_deletion(&self, event: &Event) -> Decoded {
        let prefix = format!("{KIND_APP_DATA}:{}:", self.keys.public_key().to_hex());
        let mut ids = Vec::new();
        let mut d_tags = Vec::new();
        for t in event.tags.iter().map(|t| t.as_slice()) {
            match (t.first().map(String::as_str), t.get(1)) {
                (Some("e"), Some(id)) if is_hex64(id) => ids.push(id.clone()),
                // Split once: everything after the pubkey is the d tag, colons included.
                (Some("a"), Some(coord)) => {
                    if let Some(d) = coord.strip_prefix(&prefix) {
                        d_tags.push(d.to_string());
                    }
                }
                _ => {}
            }
        }
        Decoded::Deletion { ids, d_tags }
    }

    fn decode_dm(&self, event: &Event) -> Result<Decoded, RejectReason> {
        let me = self.keys.public_key().to_hex();
        let to_self = event
            .tags
            .iter()
            .map(|t| t.as_slice())
            .any(|t| t.first().map(String::as_str) == Some("p") && t.get(1) == Some(&me));
        if !to_self {
            return Err(RejectReason::NotToSelf);
        }
        // The design document does not say which encryption its kind-4 notes use: NIP-04
        // is the kind's own, NIP-44 is what the rest of sense-memory uses. Accept both.
        let json = match self.cipher.decrypt(&event.content) {
            Ok(json) => json,
            Err(_) => nostr::nips::nip04::decrypt(self.keys.secret_key(), &self.keys.public_key(), &event.content)
                .map_err(|_| RejectReason::Undecryptable)?,
        };
        let obj = parse_object(&json)?;
        let path = Path::Kind4 { event_id: event.id.to_hex() };
        let payload = Payload::decode(&path, &obj, event.created_at.as_secs() as f64)?;
        Ok(Decoded::Record { path, d_tag: String::new(), payload })
    }

    fn decrypt_object(&self, content: &str) -> Result<serde_json::Map<String, Value>, RejectReason> {
        let json = self.cipher.decrypt(content).map_err(|_| RejectReason::Undecryptable)?;
        parse_object(&json)
    }
}

fn parse_object(json: &str) -> Result<serde_json::Map<String, Value>, RejectReason> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(obj)) => Ok(obj),
        _ => Err(RejectReason::MalformedPayload),
    }
}

fn raw_tag<const N: usize>(parts: [&str; N]) -> Result<Tag> {
    Tag::parse(parts).map_err(|e| Error::Crypto(crate::Cause::from("tag", e)))
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A blinded d tag is 64 lowercase hex digits.
pub(crate) fn is_blinded_tag(d: &str) -> bool {
    is_hex64(d)
}
