//! Moving events in and out: export, import, access flushing, statistics.

use std::collections::BTreeMap;

use nostr::{Event, JsonUtil};
use serde::Serialize;

use super::{write_record, MemoryStore, Outcome};
use crate::codec::{DTagMode, Path, Payload, PLAIN_PATH_SQL};
use crate::error::Result;
use crate::model::PersonaMemory;

/// What an import did, event by event.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportReport {
    pub applied: u64,
    /// Concurrent edits merged into a new version (signed here, queued for relays).
    pub merged: u64,
    pub duplicate: u64,
    pub stale: u64,
    pub deleted: u64,
    /// Dated more than 15 minutes ahead of the system clock: kept aside, applied when their
    /// time comes (docs/sync.md).
    pub quarantined: u64,
    /// Refused events, per reason.
    pub rejected: BTreeMap<String, u64>,
}

impl ImportReport {
    pub(crate) fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Applied => self.applied += 1,
            Outcome::Merged => self.merged += 1,
            Outcome::Duplicate => self.duplicate += 1,
            Outcome::Stale => self.stale += 1,
            Outcome::Deleted => self.deleted += 1,
            Outcome::Rejected(r) => *self.rejected.entry(r.as_str().to_string()).or_default() += 1,
        }
    }

    /// Adds another report's counts to this one.
    pub fn absorb(&mut self, other: ImportReport) {
        self.applied += other.applied;
        self.merged += other.merged;
        self.duplicate += other.duplicate;
        self.stale += other.stale;
        self.deleted += other.deleted;
        self.quarantined += other.quarantined;
        for (k, v) in other.rejected {
            *self.rejected.entry(k).or_default() += v;
        }
    }

    /// Total refused.
    pub fn rejected_total(&self) -> u64 {
        self.rejected.values().sum()
    }
}

/// What the store holds (see `memstr stats`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StoreStats {
    pub path: String,
    pub public_key: String,
    pub d_tag_mode: String,
    pub schema_version: i64,
    pub kv: u64,
    pub journal: u64,
    pub persona: u64,
    pub embed: u64,
    pub introspection: u64,
    /// Records that were forgotten (kept as markers so old versions stay dead).
    pub deleted: u64,
    pub events: u64,
    /// Events not yet acknowledged by relays.
    pub outbox: u64,
    /// Persona memories read since their last signed update.
    pub unsigned_accesses: u64,
    /// Refused events, per reason, since the store was created.
    pub rejected: BTreeMap<String, u64>,
    /// Events waiting in the quarantine (dated too far ahead when they arrived).
    pub quarantined: u64,
    /// Blinded stores: events with a plain path in a tag (versions and deletions from a
    /// compatible past, or imported) that reached a relay (acknowledged, or served by
    /// one). Relays that have them keep them; this store no longer pushes them.
    pub plain_published: u64,
    /// Blinded stores: events with a plain path in a tag that no relay acknowledged.
    /// They are withheld from every relay (not counted in `outbox`).
    pub plain_withheld: u64,
}

impl MemoryStore {
    /// Every event the store holds (current versions, tombstones, deletions), oldest
    /// first, after signing pending accesses: a complete, portable backup.
    pub async fn export_events(&self) -> Result<Vec<Event>> {
        self.flush_accesses().await?;
        self.read(|conn, _| {
            let mut stmt = conn.prepare("SELECT json FROM events ORDER BY created_at, id")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            rows.map(|j| Event::from_json(j?).map_err(|e| crate::Error::Crypto(format!("stored event: {e}")))).collect()
        })
        .await
    }

    /// Signs the unsigned accesses if a batch is due: the oldest is older than
    /// [`crate::LifecycleOptions::access_flush_after`] or at least
    /// [`crate::LifecycleOptions::access_flush_count`] memories hold some. Returns how many
    /// memories were signed (0 when not due). Closing a store and every sync pass call it.
    pub async fn flush_accesses_if_due(&self) -> Result<usize> {
        if self.inner.evaluate_only {
            return Ok(0);
        }
        let (after, count) = (self.inner.life.access_flush_after.as_secs() as i64, self.inner.life.access_flush_count);
        let due = self
            .read(move |conn, _| {
                let (n, oldest): (i64, Option<i64>) = conn.query_row(
                    "SELECT count(*), min(dirty_at) FROM records WHERE dirty = 1 AND deleted = 0",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?;
                let now = super::ingest::system_now();
                Ok(n > 0 && (n as u64 >= count || oldest.is_none_or(|t| now.saturating_sub(t) >= after)))
            })
            .await?;
        if due {
            self.flush_accesses().await
        } else {
            Ok(0)
        }
    }

    /// Signs every unsigned access now, into new versions of those memories (one event per
    /// memory, however many reads). Returns how many were signed.
    pub async fn flush_accesses(&self) -> Result<usize> {
        if self.inner.evaluate_only {
            return Ok(0);
        }
        self.write(|tx, inner| {
            let dirty: Vec<(String, String, String)> = tx
                .prepare(
                    "SELECT kind, path, payload FROM records WHERE dirty = 1 AND deleted = 0 AND payload IS NOT NULL",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            for (kind, path, json) in &dirty {
                match kind.as_str() {
                    "persona" => {
                        let mut m: PersonaMemory = serde_json::from_str(json)?;
                        crate::model::merge::stamp(None, &mut m, &inner.device, inner.clock.now(), false);
                        let path =
                            Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() };
                        write_record(tx, inner, &path, Payload::Persona(m))?;
                    }
                    // A flat memory or journal entry a search revived from the archive.
                    "kv" | "journal" => {
                        let path =
                            Path::parse(path).map_err(|_| crate::Error::Task(format!("stored path {path:?}")))?;
                        let payload = match &path {
                            Path::Kv { .. } => Payload::Kv(serde_json::from_str(json)?),
                            _ => Payload::Journal(serde_json::from_str(json)?),
                        };
                        write_record(tx, inner, &path, payload)?;
                    }
                    _ => {}
                }
            }
            Ok(dirty.len())
        })
        .await
    }

    /// Lets a running consolidation cycle finish ([`MemoryStore::settle`]), signs the
    /// pending accesses when a batch is due ([`MemoryStore::flush_accesses_if_due`]) and
    /// saves the vector index; call before dropping the last handle (nothing is lost
    /// without it, but the next open has more to catch up on).
    pub async fn close(self) -> Result<()> {
        self.settle().await;
        self.flush_accesses_if_due().await?;
        #[cfg(feature = "vectors")]
        if let Some(v) = self.inner.vectors.clone().filter(|_| !self.inner.read_only) {
            if v.unsaved.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                tokio::task::spawn_blocking(move || v.save())
                    .await
                    .map_err(|e| crate::Error::Task(e.to_string()))??;
            }
        }
        // The last handle: free the index and graph now, and give the memory back, so a
        // process that reopens a large store does not hold two of them at its peak.
        if let Ok(inner) = std::sync::Arc::try_unwrap(self.inner) {
            tokio::task::spawn_blocking(move || {
                drop(inner);
                super::release_free_memory();
            })
            .await
            .map_err(|e| crate::Error::Task(e.to_string()))?;
        }
        Ok(())
    }

    /// Counts of what the store holds.
    pub async fn stats(&self) -> Result<StoreStats> {
        self.read(|conn, inner| {
            let count = |sql: &str| -> rusqlite::Result<u64> {
                conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64)
            };
            let per_kind = |kind: &str| -> rusqlite::Result<u64> {
                conn.query_row("SELECT count(*) FROM records WHERE kind = ?1 AND deleted = 0", [kind], |r| {
                    r.get::<_, i64>(0)
                })
                .map(|n| n as u64)
            };
            let blinded = inner.codec.mode() == DTagMode::Blinded;
            // Never out of this store: queued, and acknowledged by no relay.
            let withheld = "EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.id) \
                            AND NOT EXISTS (SELECT 1 FROM acks a WHERE a.event_id = e.id)";
            let mut rejected = BTreeMap::new();
            let mut stmt = conn.prepare("SELECT reason, count FROM rejections ORDER BY reason")?;
            for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
                let (k, v) = row?;
                rejected.insert(k, v as u64);
            }
            Ok(StoreStats {
                path: inner.path.display().to_string(),
                public_key: inner.codec.public_key().to_hex(),
                d_tag_mode: inner.codec.mode().as_str().to_string(),
                schema_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
                kv: per_kind("kv")?,
                journal: per_kind("journal")?,
                persona: per_kind("persona")?,
                embed: per_kind("embed")?,
                introspection: per_kind("introspection")?,
                deleted: count("SELECT count(*) FROM records WHERE deleted = 1")?,
                events: count("SELECT count(*) FROM events")?,
                outbox: if blinded {
                    count(&format!(
                        "SELECT count(*) FROM outbox o JOIN events e ON e.id = o.event_id WHERE NOT {PLAIN_PATH_SQL}"
                    ))?
                } else {
                    count("SELECT count(*) FROM outbox")?
                },
                unsigned_accesses: count("SELECT count(*) FROM records WHERE dirty = 1")?,
                rejected,
                quarantined: count("SELECT count(*) FROM quarantine")?,
                plain_published: if blinded {
                    count(&format!("SELECT count(*) FROM events e WHERE {PLAIN_PATH_SQL} AND NOT ({withheld})"))?
                } else {
                    0
                },
                plain_withheld: if blinded {
                    count(&format!("SELECT count(*) FROM events e WHERE {PLAIN_PATH_SQL} AND {withheld}"))?
                } else {
                    0
                },
            })
        })
        .await
    }

    /// Ids of events waiting for relays, oldest first.
    pub async fn outbox(&self) -> Result<Vec<String>> {
        self.read(|conn, _| {
            let mut stmt = conn.prepare("SELECT event_id FROM outbox ORDER BY queued_at, event_id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }
}
