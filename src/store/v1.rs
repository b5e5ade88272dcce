//! The version-1 API: flat key-value memories and the journal.

use rusqlite::{params, OptionalExtension};

use super::{apply, enqueue, write_record, MemoryStore, Outcome};
use crate::codec::{Decoded, Path, Payload};
use crate::error::{Error, Result};
use crate::model::{validate_journal_content, validate_key, validate_timestamp, validate_value, JournalEntry, Memory};

impl MemoryStore {
    /// Stores `value` under `key`, replacing any previous value. Returns the event id.
    pub async fn remember(&self, key: &str, value: &str) -> Result<String> {
        self.remember_at(key, value, self.now()).await
    }

    /// [`MemoryStore::remember`] with an explicit timestamp (imports, benchmarks).
    pub async fn remember_at(&self, key: &str, value: &str, at: f64) -> Result<String> {
        validate_key(key)?;
        validate_value(value)?;
        validate_timestamp("ts", at)?;
        let m = Memory { key: key.to_string(), value: value.to_string(), created_at: at, archived_at: None };
        self.write(move |tx, inner| {
            let path = Path::Kv { key: m.key.clone() };
            Ok(write_record(tx, inner, &path, Payload::Kv(m))?.id.to_hex())
        })
        .await
    }

    /// The memory stored under `key`, if any.
    pub async fn recall(&self, key: &str) -> Result<Option<Memory>> {
        validate_key(key)?;
        let path = Path::Kv { key: key.to_string() }.to_d();
        self.read(move |conn, _| {
            let json: Option<String> = conn
                .query_row("SELECT payload FROM records WHERE path = ?1 AND deleted = 0", [path], |r| r.get(0))
                .optional()?;
            Ok(json.map(|j| serde_json::from_str(&j)).transpose()?)
        })
        .await
    }

    /// Every flat memory, by key.
    pub async fn recall_all(&self) -> Result<Vec<Memory>> {
        self.read(|conn, _| {
            let mut stmt =
                conn.prepare("SELECT payload FROM records WHERE kind = 'kv' AND deleted = 0 ORDER BY key")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
        })
        .await
    }

    /// Appends a journal entry. Returns the event id.
    pub async fn journal(&self, content: &str) -> Result<String> {
        self.journal_at(content, self.now()).await
    }

    /// [`MemoryStore::journal`] with an explicit timestamp.
    pub async fn journal_at(&self, content: &str, at: f64) -> Result<String> {
        validate_journal_content(content)?;
        validate_timestamp("ts", at)?;
        let content = content.to_string();
        self.write(move |tx, inner| {
            // Entries are addressed by their timestamp: never let a second entry at the
            // same instant replace the first (the published client would).
            let mut ts = at;
            while tx.query_row(
                "SELECT EXISTS(SELECT 1 FROM records WHERE path = ?1)",
                [Path::journal(ts).to_d()],
                |r| r.get::<_, bool>(0),
            )? {
                ts = f64::from_bits(ts.to_bits() + 1);
            }
            let entry = JournalEntry { content, created_at: ts, archived_at: None };
            Ok(write_record(tx, inner, &Path::journal(ts), Payload::Journal(entry))?.id.to_hex())
        })
        .await
    }

    /// The newest journal entries, newest first (`limit` at least 1); archived entries are
    /// left out.
    pub async fn recent(&self, limit: usize) -> Result<Vec<JournalEntry>> {
        let limit = limit.max(1) as i64;
        self.read(move |conn, _| {
            let mut stmt = conn.prepare(
                "SELECT payload FROM records WHERE kind = 'journal' AND deleted = 0
                 AND json_extract(payload, '$.archived_at') IS NULL ORDER BY ts DESC, path LIMIT ?1",
            )?;
            let rows = stmt.query_map(params![limit], |r| r.get::<_, String>(0))?;
            rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
        })
        .await
    }
}

/// Forgets the record at `path`: a tombstone replaces it, and a NIP-09 deletion with `e`,
/// `a` and `k` tags asks relays to drop it (in blinded mode, `a` tags name blinded
/// coordinates only). Returns the deletion's event id.
pub(crate) fn forget_path(tx: &rusqlite::Transaction, inner: &super::Inner, path: &Path) -> Result<String> {
    let now = inner.clock.now();
    let codec = &inner.codec;
    let d = codec.d_tag(path);
    let cur = apply::current(tx, &path.to_d())?;
    let tomb = write_record(
        tx,
        inner,
        path,
        Payload::Tombstone(crate::codec::Tombstone { path: path.to_d(), deleted_at: now }),
    )?;
    let mut ids = Vec::new();
    let mut d_tags = vec![d.clone()];
    if let Some(c) = cur.filter(|c| !c.deleted) {
        ids.push(c.event_id);
        if c.d_tag != d {
            d_tags.push(c.d_tag);
        }
    }
    // The tombstone too: on relays that honour `e` deletions (nostr-rs-relay), the key
    // then serves nothing at all, which is what the published client needs to see
    // `recall` return None.
    ids.push(tomb.id.to_hex());
    // In blinded mode a plain d tag (a version from a compatible past) goes by its `e`
    // tag only: a blinded store never publishes a plain path.
    let d_tags = codec.coordinates(&d_tags);
    let del = codec.deletion_event(&ids, &d_tags, tomb.created_at.as_secs())?;
    let decoded = Decoded::Deletion { ids, d_tags };
    if apply::apply(tx, codec, &del, &decoded)? != Outcome::Applied {
        return Err(Error::Task("own deletion was not applied".into()));
    }
    enqueue(tx, &del)?;
    inner.touch_events();
    Ok(del.id.to_hex())
}
