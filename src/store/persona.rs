//! The version-2 persona API.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::{write_record, Inner, MemoryStore};
use crate::codec::{Path, Payload};
use crate::error::{Error, Result, Rule, ValidationError};
use crate::model::{
    merge, validate_confidence, validate_halflife, validate_key, validate_taxonomy, validate_timestamp, validate_value,
    MemoryState, PersonaMemory,
};
use crate::search::{self, PersonaHit};

/// What to store with [`MemoryStore::persona_remember`]. Unset fields keep the stored
/// memory's values, or take the defaults for a new one.
#[derive(Debug, Clone, Default)]
pub struct PersonaInput {
    pub domain: String,
    pub facet: String,
    pub key: String,
    pub value: String,
    /// Replaces the themes when not empty.
    pub themes: Vec<String>,
    /// Added to the connections.
    pub connections: Vec<String>,
    pub source: Option<String>,
    pub confidence: Option<f64>,
    pub halflife_days: Option<f64>,
    /// Importance in [0, 1] (seed 000): stretches the memory's time scale by
    /// `1 + importance` (docs/lifecycle.md). memstr-only; the client ignores it.
    pub importance: Option<f64>,
    /// Salience in [0, 1]; [`MemoryStore::persona_ingest`] measures it when unset.
    pub salience: Option<f64>,
    /// When it was learned (default: now).
    pub at: Option<f64>,
}

impl PersonaInput {
    /// A memory `key` in `domain`/`facet` with `value`.
    pub fn new(domain: &str, facet: &str, key: &str, value: &str) -> Self {
        PersonaInput {
            domain: domain.into(),
            facet: facet.into(),
            key: key.into(),
            value: value.into(),
            ..Default::default()
        }
    }
    pub fn themes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, themes: I) -> Self {
        self.themes = themes.into_iter().map(Into::into).collect();
        self
    }
    pub fn connections<I: IntoIterator<Item = S>, S: Into<String>>(mut self, keys: I) -> Self {
        self.connections = keys.into_iter().map(Into::into).collect();
        self
    }
    pub fn source(mut self, source: &str) -> Self {
        self.source = Some(source.into());
        self
    }
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }
    pub fn halflife_days(mut self, days: f64) -> Self {
        self.halflife_days = Some(days);
        self
    }
    pub fn at(mut self, at: f64) -> Self {
        self.at = Some(at);
        self
    }
    pub fn importance(mut self, importance: f64) -> Self {
        self.importance = Some(importance);
        self
    }

    pub(crate) fn validate(&self) -> Result<(), ValidationError> {
        validate_taxonomy("domain", &self.domain)?;
        validate_taxonomy("facet", &self.facet)?;
        validate_key(&self.key)?;
        validate_value(&self.value)?;
        for k in &self.connections {
            validate_key(k)?;
            if *k == self.key {
                return Err(ValidationError { field: "connections", rule: Rule::SelfReference });
            }
        }
        if let Some(c) = self.confidence {
            validate_confidence(c)?;
        }
        if let Some(h) = self.halflife_days {
            validate_halflife(h)?;
        }
        for (field, v) in [("importance", self.importance), ("salience", self.salience)] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(ValidationError { field, rule: Rule::OutOfRange { min: 0.0, max: 1.0, value: v } });
                }
            }
        }
        if let Some(at) = self.at {
            validate_timestamp("at", at)?;
        }
        Ok(())
    }
}

/// Which persona memories [`MemoryStore::persona_recall`] returns; unset fields match all.
#[derive(Debug, Clone, Default)]
pub struct PersonaQuery {
    pub domain: Option<String>,
    pub facet: Option<String>,
    pub key: Option<String>,
}

impl PersonaQuery {
    /// Everything.
    pub fn all() -> Self {
        Self::default()
    }
    /// Exactly one address.
    pub fn exact(domain: &str, facet: &str, key: &str) -> Self {
        PersonaQuery { domain: Some(domain.into()), facet: Some(facet.into()), key: Some(key.into()) }
    }
}

/// Counts of [`MemoryStore::persona_stats`], evaluated at one instant.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PersonaStats {
    pub total: u64,
    /// Per live state (computed, not stored).
    pub by_state: BTreeMap<String, u64>,
    pub by_domain: BTreeMap<String, u64>,
    /// Per `domain/facet`.
    pub by_facet: BTreeMap<String, u64>,
}

fn load(conn: &Connection, where_sql: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<(i64, PersonaMemory)>> {
    let sql = format!(
        "SELECT rid, payload FROM records WHERE kind = 'persona' AND deleted = 0 {where_sql} ORDER BY domain, facet, key"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(args, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    rows.map(|row| {
        let (rid, json) = row?;
        Ok((rid, serde_json::from_str(&json)?))
    })
    .collect()
}

pub(crate) fn query(conn: &Connection, q: &PersonaQuery) -> Result<Vec<(i64, PersonaMemory)>> {
    load(
        conn,
        "AND (?1 IS NULL OR domain = ?1) AND (?2 IS NULL OR facet = ?2) AND (?3 IS NULL OR key = ?3)",
        &[&q.domain, &q.facet, &q.key],
    )
}

/// Every live persona memory, by address.
pub(crate) fn load_all(conn: &Connection) -> Result<Vec<(i64, PersonaMemory)>> {
    load(conn, "", &[])
}

/// Finds one memory by `key` or `domain/facet/key`.
pub(crate) fn resolve(conn: &Connection, reference: &str) -> Result<PersonaMemory> {
    let parts: Vec<&str> = reference.split('/').collect();
    let found = if let [domain, facet, key] = parts[..] {
        query(conn, &PersonaQuery::exact(domain, facet, key))?
    } else {
        validate_key(reference)?;
        load(conn, "AND key = ?1", &[&reference])?
    };
    match found.len() {
        0 => Err(Error::NotFound(reference.to_string())),
        1 => Ok(found.into_iter().next().expect("one").1),
        _ => Err(Error::Ambiguous {
            key: reference.to_string(),
            candidates: found.iter().map(|(_, m)| m.address()).collect(),
        }),
    }
}

/// Signs a user edit of a persona memory (`before` is the stored version, if any).
fn save(tx: &Transaction, inner: &Inner, before: Option<&PersonaMemory>, m: PersonaMemory) -> Result<String> {
    save_with(tx, inner, before, m, true)
}

/// Signs a new version of a persona memory; `user_edit` is false for changes the
/// lifecycle makes (state transitions), which must not win a merge against a user's edit.
pub(crate) fn save_with(
    tx: &Transaction,
    inner: &Inner,
    before: Option<&PersonaMemory>,
    mut m: PersonaMemory,
    user_edit: bool,
) -> Result<String> {
    let now = inner.clock.now();
    // A memory alive again (rewritten, connected, reinforced) loses its dissolution mark,
    // so a later dissolution starts the grace period afresh.
    if m.sync.life.dissolved_at.is_some() && super::lifecycle::live_state(inner, &m, now).1 != MemoryState::Dissolved {
        m.sync.life.dissolved_at = None;
    }
    merge::stamp(before, &mut m, &inner.device, now, user_edit);
    let path = Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() };
    Ok(write_record(tx, inner, &path, Payload::Persona(m))?.id.to_hex())
}

pub(crate) fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// One access of `m` at `now`: counted on this device, a review for the decay policy,
/// and the memory alive again (its state and dissolution mark follow).
pub(crate) fn record_access(inner: &Inner, m: &mut PersonaMemory, now: f64) {
    merge::count_access(m, &inner.device);
    inner.decay.on_access(m, now);
    m.last_accessed = m.last_accessed.max(now);
    m.sync.life.dissolved_at = None;
    m.state = super::lifecycle::live_state(inner, m, now).1;
}

/// Counts an access, locally: the signed update waits for [`MemoryStore::flush_accesses`],
/// so reading never floods relays.
fn touch(tx: &Transaction, inner: &Inner, rid: i64, m: &PersonaMemory, now: f64) -> Result<()> {
    if inner.evaluate_only {
        // Evaluating at another time is a peek: no access is counted, nothing signed.
        return Ok(());
    }
    let mut m = m.clone();
    record_access(inner, &mut m, now);
    tx.execute(
        "UPDATE records SET payload = ?1, dirty = 1, dirty_at = coalesce(dirty_at, unixepoch()) WHERE rid = ?2",
        params![serde_json::to_string(&m)?, rid],
    )?;
    Ok(())
}

impl MemoryStore {
    /// Stores a persona memory, or updates the one at the same address (keeping its
    /// history: creation time, access count, contradictions; adding connections).
    /// Writing counts as reinforcement. Returns the event id.
    pub async fn persona_remember(&self, input: PersonaInput) -> Result<String> {
        input.validate()?;
        self.write(move |tx, inner| {
            let at = input.at.unwrap_or_else(|| inner.clock.now());
            let existing =
                query(tx, &PersonaQuery::exact(&input.domain, &input.facet, &input.key))?.pop().map(|(_, m)| m);
            let mut m = match &existing {
                Some(old) => old.clone(),
                None => PersonaMemory::new(&input.domain, &input.facet, &input.key, "", at),
            };
            m.value = input.value;
            if !input.themes.is_empty() {
                m.themes = input.themes;
            }
            for c in &input.connections {
                push_unique(&mut m.connections, c);
            }
            if let Some(s) = input.source {
                m.source = s;
            }
            if let Some(c) = input.confidence {
                m.confidence = c;
            }
            if let Some(h) = input.halflife_days {
                m.halflife_days = h;
            }
            if input.importance.is_some() {
                m.sync.life.importance = input.importance;
            }
            if input.salience.is_some() {
                m.sync.life.salience = input.salience;
            }
            m.last_reinforced = m.last_reinforced.max(at);
            if existing.is_some() {
                // Writing again is a review for policies that keep one (FSRS).
                inner.decay.on_access(&mut m, at);
            }
            m.last_accessed = m.last_accessed.max(at);
            m.state = super::lifecycle::live_state(inner, &m, at).1;
            save(tx, inner, existing.as_ref(), m)
        })
        .await
    }

    /// Persona memories matching `query`, as they stood before this call; the call
    /// counts as an access of each (`last_accessed`, `access_count`).
    pub async fn persona_recall(&self, query: PersonaQuery) -> Result<Vec<PersonaMemory>> {
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            let found = self::query(tx, &query)?;
            for (rid, m) in &found {
                touch(tx, inner, *rid, m, now)?;
            }
            Ok(found.into_iter().map(|(_, m)| m).collect())
        })
        .await
    }

    /// [`MemoryStore::persona_recall`] without counting an access.
    pub async fn persona_peek(&self, query: PersonaQuery) -> Result<Vec<PersonaMemory>> {
        self.read(move |conn, _| Ok(self::query(conn, &query)?.into_iter().map(|(_, m)| m).collect())).await
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
        if search::query_terms(query).is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let terms = search::query_terms(query);
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

    /// Counts one access of each memory at `paths` (search hits): persona memories count
    /// it, and a hit that was archived comes out of the archive (a strong cue revived it).
    /// Local bookkeeping, signed with the next batch of accesses.
    pub(crate) async fn strengthen(&self, paths: Vec<String>) -> Result<()> {
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            for path in &paths {
                let row: Option<(i64, String, String)> = tx
                    .query_row(
                        "SELECT rid, kind, payload FROM records WHERE path = ?1 AND deleted = 0 AND payload IS NOT NULL",
                        [path],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .optional()?;
                match row {
                    Some((rid, kind, json)) if kind == "persona" => {
                        let mut m: PersonaMemory = serde_json::from_str(&json)?;
                        if !inner.evaluate_only {
                            m.sync.life.archived_at = None;
                        }
                        touch(tx, inner, rid, &m, now)?;
                    }
                    Some((rid, kind, json)) if !inner.evaluate_only => {
                        let revived = match kind.as_str() {
                            "kv" => {
                                let mut m: crate::model::Memory = serde_json::from_str(&json)?;
                                m.archived_at.take().map(|_| serde_json::to_string(&m)).transpose()?
                            }
                            "journal" => {
                                let mut j: crate::model::JournalEntry = serde_json::from_str(&json)?;
                                j.archived_at.take().map(|_| serde_json::to_string(&j)).transpose()?
                            }
                            _ => None,
                        };
                        if let Some(json) = revived {
                            tx.execute(
                                "UPDATE records SET payload = ?1, dirty = 1, dirty_at = coalesce(dirty_at, unixepoch()) WHERE rid = ?2",
                                params![json, rid],
                            )?;
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        })
        .await
    }

    /// Links two memories both ways (each by `key` or `domain/facet/key`).
    pub async fn persona_connect(&self, a: &str, b: &str) -> Result<()> {
        let (a, b) = (a.to_string(), b.to_string());
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            let (a0, b0) = (resolve(tx, &a)?, resolve(tx, &b)?);
            let (mut ma, mut mb) = (a0.clone(), b0.clone());
            if ma.address() == mb.address() {
                return Err(ValidationError { field: "connection", rule: Rule::SelfReference }.into());
            }
            push_unique(&mut ma.connections, &mb.key);
            push_unique(&mut mb.connections, &ma.key);
            for m in [&mut ma, &mut mb] {
                m.last_reinforced = m.last_reinforced.max(now);
            }
            save(tx, inner, Some(&a0), ma)?;
            save(tx, inner, Some(&b0), mb)?;
            Ok(())
        })
        .await
    }

    /// Records that `new` replaces `old`: `old` lists `new` among its contradictions and
    /// is superseded by it, so it decays four times faster. `new` is untouched.
    pub async fn persona_contradict(&self, old: &str, new: &str) -> Result<()> {
        let (old, new) = (old.to_string(), new.to_string());
        self.write(move |tx, inner| {
            let now = inner.clock.now();
            let o0 = resolve(tx, &old)?;
            let mut mo = o0.clone();
            let mn = resolve(tx, &new)?;
            if mo.address() == mn.address() {
                return Err(ValidationError { field: "contradiction", rule: Rule::SelfReference }.into());
            }
            push_unique(&mut mo.contradicts, &mn.key);
            mo.superseded_by = Some(mn.key.clone());
            mo.state = super::lifecycle::live_state(inner, &mo, now).1;
            save(tx, inner, Some(&o0), mo)?;
            Ok(())
        })
        .await
    }

    /// Domains in use, sorted.
    pub async fn persona_domains(&self) -> Result<Vec<String>> {
        self.read(|conn, _| {
            let mut stmt = conn.prepare(
                "SELECT DISTINCT domain FROM records WHERE kind = 'persona' AND deleted = 0 ORDER BY domain",
            )?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Facets in use within `domain`, sorted.
    pub async fn persona_facets(&self, domain: &str) -> Result<Vec<String>> {
        validate_taxonomy("domain", domain)?;
        let domain = domain.to_string();
        self.read(move |conn, _| {
            let mut stmt = conn.prepare(
                "SELECT DISTINCT facet FROM records WHERE kind = 'persona' AND deleted = 0 AND domain = ?1 ORDER BY facet",
            )?;
            let rows = stmt.query_map([domain], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
        .await
    }

    /// Totals, per live state, per domain and per facet.
    pub async fn persona_stats(&self) -> Result<PersonaStats> {
        self.read(|conn, inner| {
            let now = inner.clock.now();
            let mut stats = PersonaStats::default();
            for s in MemoryState::ALL {
                stats.by_state.insert(s.as_str().to_string(), 0);
            }
            for (_, m) in query(conn, &PersonaQuery::all())? {
                stats.total += 1;
                let state = super::lifecycle::live_state(inner, &m, now).1;
                *stats.by_state.entry(state.as_str().to_string()).or_default() += 1;
                *stats.by_domain.entry(m.domain.clone()).or_default() += 1;
                *stats.by_facet.entry(format!("{}/{}", m.domain, m.facet)).or_default() += 1;
            }
            Ok(stats)
        })
        .await
    }
}
