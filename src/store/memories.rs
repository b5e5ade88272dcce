//! Writing, reading and searching memories: the published client's calls (flat memories,
//! the journal, persona memories), the unified search, and the records derived from them.

use super::MemoryStore;
use crate::codec::{Embedding, Path, Payload};
use crate::engine::records;
use crate::error::Result;
use crate::lifecycle::runtime::ACCESS_BATCH;
use crate::lifecycle::{persona, PersonaStats};
use crate::model::{
    validate_journal_content, validate_key, validate_taxonomy, validate_timestamp, validate_value, IntrospectionReport,
    JournalEntry, Memory, MemoryState, PersonaInput, PersonaMemory, PersonaQuery,
};
use crate::search::{self, PersonaHit, SearchHit, SearchQuery};

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
        let m = Memory::new(key, value, at);
        let path = Path::Kv { key: m.key.clone() };
        self.parts().write(move |tx, engine, _| records::put(tx, engine, &path, Payload::Kv(m))).await
    }

    /// The memory stored under `key`, if any.
    pub async fn recall(&self, key: &str) -> Result<Option<Memory>> {
        validate_key(key)?;
        let path = Path::Kv { key: key.to_string() };
        let found = self.engine.read(move |conn, _| records::payload_at(conn, &path)).await?;
        Ok(match found {
            Some(Payload::Kv(m)) => Some(m),
            _ => None,
        })
    }

    /// Every flat memory, by key.
    pub async fn recall_all(&self) -> Result<Vec<Memory>> {
        self.engine.read(|conn, _| records::all_kv(conn)).await
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
        self.parts().write(move |tx, engine, _| records::append_journal(tx, engine, content, at)).await
    }

    /// The newest journal entries, newest first (`limit` at least 1); archived entries are
    /// left out.
    pub async fn recent(&self, limit: usize) -> Result<Vec<JournalEntry>> {
        let limit = limit.max(1);
        self.engine.read(move |conn, _| records::recent_journal(conn, limit)).await
    }

    /// The newest journal entries dated in `[since, until)` (Unix seconds, the entries' own
    /// times; `None`: unbounded), newest first, at most `limit`: everything in the range,
    /// with no search cutoff. Archived entries are left out.
    pub async fn recent_between(
        &self,
        since: Option<f64>,
        until: Option<f64>,
        limit: usize,
    ) -> Result<Vec<JournalEntry>> {
        let (since, until, limit) = (since.unwrap_or(f64::NEG_INFINITY), until.unwrap_or(f64::INFINITY), limit.max(1));
        self.engine.read(move |conn, _| records::journal_dated(conn, since, until, limit)).await
    }

    /// Stores a persona memory, or updates the one at the same address (keeping its
    /// history: creation time, access count, contradictions; adding connections).
    /// Writing counts as reinforcement. Returns the event id.
    pub async fn persona_remember(&self, input: PersonaInput) -> Result<String> {
        input.validate()?;
        self.parts().write(move |tx, engine, life| persona::remember(tx, engine, life, input)).await
    }

    /// Persona memories matching `query`, as they stood before this call; the call
    /// counts as an access of each (`last_accessed`, `access_count`).
    ///
    /// A recall is a read: its accesses are counted in memory and written in one batch
    /// (by the next write, before a read that looks at access counts, at `close`, or once
    /// a hundred wait), so recalling never waits for a write transaction.
    pub async fn persona_recall(&self, query: PersonaQuery) -> Result<Vec<PersonaMemory>> {
        let mut found: Vec<PersonaMemory> = self
            .engine
            .read(move |conn, _| Ok(persona::query(conn, &query)?.into_iter().map(|(_, m)| m).collect()))
            .await?;
        for m in &mut found {
            // As they stood: with the accesses earlier recalls counted.
            self.life.with_waiting_accesses(self.engine.device(), m);
        }
        // Evaluating at another time is a peek: nothing counted.
        if !self.engine.evaluate_only() {
            let now = self.now();
            let mut waiting = 0;
            for m in &found {
                let path = Path::of_persona(m);
                waiting = self.life.queue_access(path.to_d(), now);
            }
            if waiting >= ACCESS_BATCH {
                self.parts().record_accesses().await?;
            }
        }
        Ok(found)
    }

    /// [`MemoryStore::persona_recall`] without counting an access.
    pub async fn persona_peek(&self, query: PersonaQuery) -> Result<Vec<PersonaMemory>> {
        self.parts().record_accesses().await?;
        self.engine.read(move |conn, _| Ok(persona::query(conn, &query)?.into_iter().map(|(_, m)| m).collect())).await
    }

    /// Searches persona memories, flat memories and journal entries together (see
    /// [`crate::search::hybrid`]). At most [`crate::SEARCH_EMBED_BUDGET`] records
    /// waiting for a vector are embedded first (newest first); the others are found by
    /// their words until [`MemoryStore::embed_pending`] reaches them. A search signs
    /// nothing itself (accesses wait for their batch). Forgotten and dissolved persona
    /// memories rank on their own (low) lifecycle values and come back marked `revived`;
    /// archived records only on a strong cue (docs/lifecycle.md, section 0). A second pass
    /// follows the names the best hits mention ([`crate::search::bridge`]).
    ///
    /// A time named in the query ("last week", "in August 2026"; UTC) keeps the search to
    /// records whose own time falls in it, unless `since`/`until` are given (they win); a
    /// range with nothing else to match lists every record in it, newest first, with no
    /// cutoff and no access counted (docs/search.md).
    ///
    /// Retrieval strengthens memory (the testing effect): persona memories returned count
    /// an access, recorded locally and signed in batches ([`MemoryStore::flush_accesses`]),
    /// so searching never floods relays. `SearchQuery::strengthen = false` turns it off.
    pub async fn search(&self, query: SearchQuery) -> Result<Vec<SearchHit>> {
        self.parts().record_accesses().await?;
        crate::search::run::search(&self.parts(), &self.search, query).await
    }

    /// [`MemoryStore::search`], with what the strength cutoff left out, so an empty result
    /// can say why: nothing matched, or N candidates below the cutoff (and the best of them);
    /// the time range applied (the query's words or the caller's since/until); and, when the
    /// search listed a range with nothing to match, how many records it holds
    /// (docs/search.md).
    pub async fn search_outcome(&self, query: SearchQuery) -> Result<crate::search::SearchOutcome> {
        self.parts().record_accesses().await?;
        crate::search::run::search_outcome(&self.parts(), &self.search, query).await
    }

    /// Persona memories by content, best first: the unified search ([`MemoryStore::search`])
    /// over persona memories, whose lexical score weighs the key 3, themes 2 and value 1
    /// (seed 003) and whose signals include seed 003's theme score and current relevance.
    /// Forgotten and dissolved memories never appear. Hits count as accesses.
    ///
    /// The client-compatible call: like the published client, it returns its top `limit`
    /// and applies no strength cutoff ([`search::MIN_STRENGTH`]); [`MemoryStore::search`]
    /// with [`search::Kind::Persona`] is the same search with the cutoff.
    pub async fn persona_search(&self, query: &str, limit: usize) -> Result<Vec<PersonaHit>> {
        let terms = search::query_terms(query);
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let mut q = search::SearchQuery::new(query).limit(limit).kinds(&[search::Kind::Persona]);
        q.revive = false;
        q.min_strength = Some(0.0);
        let now = self.now();
        let hits = self.search(q).await?;
        Ok(hits
            .into_iter()
            .filter_map(|h| match h.found {
                search::Found::Persona(m) => {
                    let (relevance, state) = self.live(&m, now);
                    let (match_score, _) = search::theme_score(&terms, &m);
                    Some(PersonaHit { score: h.score, match_score, relevance, state, memory: m })
                }
                _ => None,
            })
            .collect())
    }

    /// Links two memories both ways (each by `key` or `domain/facet/key`).
    pub async fn persona_connect(&self, a: &str, b: &str) -> Result<()> {
        let (a, b) = (a.to_string(), b.to_string());
        self.parts().write(move |tx, engine, life| persona::connect(tx, engine, life, &a, &b)).await
    }

    /// Records that `new` replaces `old`: `old` lists `new` among its contradictions and
    /// is superseded by it, so it decays four times faster. `new` is untouched.
    pub async fn persona_contradict(&self, old: &str, new: &str) -> Result<()> {
        let (old, new) = (old.to_string(), new.to_string());
        self.parts().write(move |tx, engine, life| persona::contradict(tx, engine, life, &old, &new)).await
    }

    /// Domains in use, sorted.
    pub async fn persona_domains(&self) -> Result<Vec<String>> {
        self.engine.read(|conn, _| records::persona_domains(conn)).await
    }

    /// Facets in use within `domain`, sorted.
    pub async fn persona_facets(&self, domain: &str) -> Result<Vec<String>> {
        validate_taxonomy("domain", domain)?;
        let domain = domain.to_string();
        self.engine.read(move |conn, _| records::persona_facets(conn, &domain)).await
    }

    /// Totals, per live state, per domain and per facet.
    pub async fn persona_stats(&self) -> Result<PersonaStats> {
        self.parts().record_accesses().await?;
        let life = self.life.clone();
        self.engine.read(move |conn, engine| persona::stats(conn, engine, &life)).await
    }

    /// A persona memory's current relevance and state under this store's decay policy
    /// (pinned memories are always active).
    pub fn live(&self, m: &PersonaMemory, now: f64) -> (f64, MemoryState) {
        self.life.live_state(m, now)
    }

    /// Stores (replacing) the embedding of memory `embedding.key`, published as
    /// `sense-memory/embed/{key}` so other devices with the same model need not recompute it.
    pub async fn put_embedding(&self, embedding: Embedding) -> Result<String> {
        validate_key(&embedding.key)?;
        validate_timestamp("created_at", embedding.created_at)?;
        let path = Path::Embed { key: embedding.key.clone() };
        self.parts().write(move |tx, engine, _| records::put(tx, engine, &path, Payload::Embed(embedding))).await
    }

    /// The stored embedding of memory `key`.
    pub async fn embedding(&self, key: &str) -> Result<Option<Embedding>> {
        validate_key(key)?;
        let key = key.to_string();
        self.engine.read(move |conn, _| records::stored_embedding(conn, &key)).await
    }

    /// Stores an introspection report at `sense-memory/introspection/{timestamp}`.
    pub async fn put_introspection(&self, report: IntrospectionReport) -> Result<String> {
        validate_timestamp("timestamp", report.timestamp)?;
        let path = Path::introspection(report.timestamp);
        self.parts().write(move |tx, engine, _| records::put(tx, engine, &path, Payload::Introspection(report))).await
    }

    /// Stored introspection reports, newest first.
    pub async fn introspections(&self, limit: usize) -> Result<Vec<IntrospectionReport>> {
        let limit = limit.max(1);
        self.engine.read(move |conn, _| records::introspections(conn, limit)).await
    }
}
