//! The agent's relay list, so a device holding only the key finds its memories: a NIP-37
//! private relay list (kind 10013, replaceable), its tags NIP-44-encrypted to self, and
//! optionally a public NIP-65 list (kind 10002).
//!
//! The encrypted tags are NIP-37's `["relay", url]` for each relay in use, which other
//! clients read, and memstr's `["memstr", url, added_at, removed_at]` for every relay ever
//! listed, so lists from two devices merge: per relay the later add and the later removal
//! are kept, and it is in use when it was added after it was last removed (an add on one
//! device and a remove of another relay on a second both survive).

use nostr::{Event, EventBuilder, Kind, Tag, Timestamp};
use serde_json::Value;

use super::event::Codec;
use crate::error::{Error, RejectReason, Result};

/// Kind 10013: NIP-37 private relay list.
pub const KIND_PRIVATE_RELAYS: u16 = 10013;
/// Kind 10002: NIP-65 relay list metadata (public).
pub const KIND_PUBLIC_RELAYS: u16 = 10002;
/// Entries read from one list at most; the rest are ignored.
pub const MAX_LIST_ENTRIES: usize = 256;
/// Longest relay address read from a list, in bytes.
pub const MAX_LIST_URL: usize = 512;

/// One relay of the list, with when it was last added and last removed (Unix seconds;
/// 0 for never removed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RelayEntry {
    /// The relay's address, as the list gives it.
    pub url: String,
    /// When it was last added.
    pub added_at: i64,
    /// When it was last removed (0: never).
    pub removed_at: i64,
}

impl RelayEntry {
    /// An entry.
    pub fn new(url: impl Into<String>, added_at: i64, removed_at: i64) -> Self {
        RelayEntry { url: url.into(), added_at, removed_at }
    }

    /// Whether the relay is in use: added after it was last removed.
    pub fn live(&self) -> bool {
        self.added_at > self.removed_at
    }
}

impl Codec {
    /// The signed private relay list (kind 10013) holding `entries`.
    pub fn relay_list_event(&self, entries: &[RelayEntry], created_at: u64) -> Result<Event> {
        let mut tags: Vec<Value> =
            entries.iter().filter(|e| e.live()).map(|e| serde_json::json!(["relay", e.url])).collect();
        tags.extend(
            entries
                .iter()
                .map(|e| serde_json::json!(["memstr", e.url, e.added_at.to_string(), e.removed_at.to_string()])),
        );
        let content = self.cipher().encrypt(&Value::Array(tags).to_string())?;
        EventBuilder::new(Kind::from(KIND_PRIVATE_RELAYS), content)
            .custom_created_at(Timestamp::from(created_at))
            .sign_with_keys(self.keys())
            .map_err(|e| Error::Crypto(crate::Cause::from("signing", e)))
    }

    /// The signed public relay list (kind 10002): the relays in use, readable by anyone.
    pub fn public_relay_list_event(&self, entries: &[RelayEntry], created_at: u64) -> Result<Event> {
        let tags = entries
            .iter()
            .filter(|e| e.live())
            .map(|e| Tag::parse(["r", e.url.as_str()]).map_err(|err| Error::Crypto(crate::Cause::from("tag", err))))
            .collect::<Result<Vec<_>>>()?;
        EventBuilder::new(Kind::from(KIND_PUBLIC_RELAYS), "")
            .tags(tags)
            .custom_created_at(Timestamp::from(created_at))
            .sign_with_keys(self.keys())
            .map_err(|e| Error::Crypto(crate::Cause::from("signing", e)))
    }

    /// The entries of a private relay list already checked as ours (signature, author):
    /// decrypted, each address bounded, at most [`MAX_LIST_ENTRIES`]. A plain NIP-37
    /// `relay` tag counts as added when the list was signed.
    pub(crate) fn decode_relay_list(&self, event: &Event) -> Result<Vec<RelayEntry>, RejectReason> {
        let json = self.cipher().decrypt(&event.content).map_err(|_| RejectReason::Undecryptable)?;
        let Ok(Value::Array(tags)) = serde_json::from_str::<Value>(&json) else {
            return Err(RejectReason::MalformedPayload);
        };
        let signed = event.created_at.as_secs() as i64;
        let tags: Vec<Vec<&str>> = tags
            .iter()
            .take(MAX_LIST_ENTRIES)
            .map(|t| t.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default())
            .collect();
        let fits = |url: &str| !url.is_empty() && url.len() <= MAX_LIST_URL;
        // memstr's entries carry their own times; a bare NIP-37 `relay` tag (another
        // client's list) counts as added when the list was signed.
        let mut entries: Vec<RelayEntry> = Vec::new();
        for parts in &tags {
            if let ["memstr", url, added, removed, ..] = parts.as_slice() {
                let time = |t: &str| t.parse::<i64>().ok().filter(|t| (0..=signed.max(0) + 86_400).contains(t));
                if let (Some(a), Some(r), true) = (time(added), time(removed), fits(url)) {
                    merge_into(&mut entries, RelayEntry::new(*url, a, r));
                }
            }
        }
        for parts in &tags {
            if let ["relay", url, ..] = parts.as_slice() {
                if fits(url) && !entries.iter().any(|e| e.url == *url) {
                    entries.push(RelayEntry::new(*url, signed, 0));
                }
            }
        }
        Ok(entries)
    }
}

/// Merges `entry` into `entries`: the later add and the later removal of its relay win.
pub fn merge_into(entries: &mut Vec<RelayEntry>, entry: RelayEntry) {
    match entries.iter_mut().find(|e| e.url == entry.url) {
        Some(e) => {
            e.added_at = e.added_at.max(entry.added_at);
            e.removed_at = e.removed_at.max(entry.removed_at);
        }
        None => entries.push(entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::DTagMode;
    use nostr::Keys;

    fn codec() -> Codec {
        Codec::new(Keys::generate(), DTagMode::Blinded).unwrap()
    }

    #[test]
    fn a_list_round_trips_and_hides_its_relays() {
        let c = codec();
        let entries = vec![RelayEntry::new("wss://a.example", 100, 0), RelayEntry::new("wss://gone.example", 50, 90)];
        let e = c.relay_list_event(&entries, 200).unwrap();
        assert_eq!(e.kind.as_u16(), KIND_PRIVATE_RELAYS);
        assert!(!e.as_json_string().contains("a.example"), "the list is encrypted");
        assert_eq!(c.decode_relay_list(&e).unwrap(), entries);
        let public = c.public_relay_list_event(&entries, 200).unwrap();
        assert_eq!(public.tags.len(), 1, "only relays in use, and in the clear");
    }

    #[test]
    fn merging_keeps_an_add_on_one_device_and_a_remove_on_another() {
        // Device A adds c; device B removes b; both started from {a, b}.
        let start = vec![RelayEntry::new("wss://a", 10, 0), RelayEntry::new("wss://b", 10, 0)];
        let mut on_a = start.clone();
        on_a.push(RelayEntry::new("wss://c", 20, 0));
        let mut on_b = start.clone();
        on_b[1].removed_at = 25;
        for (x, y) in [(&on_a, &on_b), (&on_b, &on_a)] {
            let mut merged = x.clone();
            for e in y.iter().cloned() {
                merge_into(&mut merged, e);
            }
            let mut live: Vec<&str> = merged.iter().filter(|e| e.live()).map(|e| e.url.as_str()).collect();
            live.sort();
            assert_eq!(live, ["wss://a", "wss://c"]);
        }
    }

    trait AsJson {
        fn as_json_string(&self) -> String;
    }
    impl AsJson for Event {
        fn as_json_string(&self) -> String {
            nostr::JsonUtil::as_json(self)
        }
    }
}
