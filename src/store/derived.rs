//! Records derived from memories: embeddings and introspection reports.

use rusqlite::OptionalExtension;

use super::{write_record, MemoryStore};
use crate::codec::{Embedding, Path, Payload};
use crate::error::Result;
use crate::model::{validate_key, validate_timestamp, IntrospectionReport};

impl MemoryStore {
    /// Stores (replacing) the embedding of memory `embedding.key`, published as
    /// `sense-memory/embed/{key}` so other devices with the same model need not recompute it.
    pub async fn put_embedding(&self, embedding: Embedding) -> Result<String> {
        validate_key(&embedding.key)?;
        validate_timestamp("created_at", embedding.created_at)?;
        self.write(move |tx, inner| {
            let path = Path::Embed { key: embedding.key.clone() };
            Ok(write_record(tx, inner, &path, Payload::Embed(embedding))?.id.to_hex())
        })
        .await
    }

    /// The stored embedding of memory `key`.
    pub async fn embedding(&self, key: &str) -> Result<Option<Embedding>> {
        validate_key(key)?;
        let key = key.to_string();
        self.read(move |conn, _| stored_embedding(conn, &key)).await
    }

    /// Stores an introspection report at `sense-memory/introspection/{timestamp}`.
    pub async fn put_introspection(&self, report: IntrospectionReport) -> Result<String> {
        validate_timestamp("timestamp", report.timestamp)?;
        self.write(move |tx, inner| {
            let path = Path::introspection(report.timestamp);
            Ok(write_record(tx, inner, &path, Payload::Introspection(report))?.id.to_hex())
        })
        .await
    }

    /// Stored introspection reports, newest first.
    pub async fn introspections(&self, limit: usize) -> Result<Vec<IntrospectionReport>> {
        let limit = limit.max(1) as i64;
        self.read(move |conn, _| {
            let mut stmt = conn.prepare(
                "SELECT payload FROM records WHERE kind = 'introspection' AND deleted = 0 ORDER BY ts DESC LIMIT ?1",
            )?;
            let rows = stmt.query_map([limit], |r| r.get::<_, String>(0))?;
            rows.map(|j| Ok(serde_json::from_str(&j?)?)).collect()
        })
        .await
    }
}

/// The embedding stored for memory `key`, if any.
pub(crate) fn stored_embedding(conn: &rusqlite::Connection, key: &str) -> Result<Option<Embedding>> {
    let path = Path::Embed { key: key.to_string() }.to_d();
    let json: Option<String> = conn
        .query_row("SELECT payload FROM records WHERE path = ?1 AND deleted = 0", [path], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(json.map(|j| serde_json::from_str(&j)).transpose()?)
}
