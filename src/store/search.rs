//! Running a [`SearchQuery`]: candidates from FTS5 and the vector index, signal values
//! per candidate, then [`crate::search::hybrid::fuse`].

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::Connection;

use super::MemoryStore;
use crate::error::Result;
use crate::model::{JournalEntry, Memory, MemoryState, PersonaMemory};
use crate::search::hybrid::{fuse, Candidate, SIGNALS};
use crate::search::{self, Found, SearchHit, SearchQuery, Weights};

const DAY: f64 = 86_400.0;

fn index_of(name: &str) -> usize {
    SIGNALS.iter().position(|s| *s == name).expect("a known signal")
}

impl MemoryStore {
    /// Searches persona memories, flat memories and journal entries together (see
    /// [`crate::search::hybrid`]). Records written since the last search are embedded
    /// first. Forgotten and dissolved persona memories are left out unless `states` asks
    /// for them.
    pub async fn search(&self, query: SearchQuery) -> Result<Vec<SearchHit>> {
        let weights = query.weights.clone().unwrap_or_default();
        let limit = if query.limit == 0 { 10 } else { query.limit };
        let vector_hits = self.vector_candidates(&query.text, weights.pool).await?;
        let query_vec = vector_hits.as_ref().map(|(v, _)| v.clone());
        let vids: Vec<(i64, f32)> = vector_hits.map(|(_, hits)| hits).unwrap_or_default();
        self.read(move |conn, inner| {
            let now = inner.clock.now();
            let cands = candidates(conn, &query, &weights, &vids, query_vec.as_deref(), now)?;
            Ok(fuse(cands, &weights, limit))
        })
        .await
    }

    /// The query's vector and its nearest points `(vid, cosine)`, when vectors are on.
    async fn vector_candidates(&self, text: &str, pool: usize) -> Result<Option<(Vec<f32>, Vec<(i64, f32)>)>> {
        #[cfg(feature = "vectors")]
        if let Some(state) = self.inner.vectors.clone() {
            self.index_pending().await?;
            let text = text.to_string();
            return tokio::task::spawn_blocking(move || {
                let q = state.embedder.embed(&[&text])?.pop().unwrap_or_default();
                let index = state.index.read().map_err(|_| crate::Error::Task("vector index poisoned".into()))?;
                // Old versions' points come back too and are skipped: ask for a few more.
                let hits = index.search(&q, pool + pool / 4);
                Ok(Some((q, hits)))
            })
            .await
            .map_err(|e| crate::Error::Task(e.to_string()))?;
        }
        let _ = (text, pool);
        Ok(None)
    }
}

struct Row {
    kind: String,
    path: String,
    payload: String,
}

fn candidates(
    conn: &Connection,
    q: &SearchQuery,
    w: &Weights,
    vids: &[(i64, f32)],
    query_vec: Option<&[f32]>,
    now: f64,
) -> Result<Vec<Candidate>> {
    let mut bm25: BTreeMap<i64, f64> = BTreeMap::new();
    if let Some(expr) = search::fts_any(&search::content_terms(&q.text)) {
        let mut stmt = conn.prepare(
            "SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?1 ORDER BY bm25(records_fts) LIMIT ?2",
        )?;
        for row in
            stmt.query_map(rusqlite::params![expr, w.pool as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)))?
        {
            let (rid, score) = row?;
            bm25.insert(rid, -score);
        }
    }
    let mut cosine: BTreeMap<i64, f64> = BTreeMap::new();
    if !vids.is_empty() {
        let mut stmt = conn.prepare_cached("SELECT rid FROM vectors WHERE vid = ?1")?;
        for (vid, sim) in vids {
            if let Ok(rid) = stmt.query_row([vid], |r| r.get::<_, i64>(0)) {
                cosine.entry(rid).or_insert(*sim as f64);
                if cosine.len() >= w.pool {
                    break;
                }
            }
        }
    }
    let rids: BTreeSet<i64> = bm25.keys().chain(cosine.keys()).copied().collect();
    let mut rows: BTreeMap<i64, Row> = BTreeMap::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT kind, path, payload FROM records WHERE rid = ?1 AND deleted = 0 AND payload IS NOT NULL",
        )?;
        for rid in &rids {
            if let Ok(row) = stmt.query_row([rid], |r| Ok(Row { kind: r.get(0)?, path: r.get(1)?, payload: r.get(2)? }))
            {
                rows.insert(*rid, row);
            }
        }
    }
    // Candidates found only by words get their vector similarity too.
    if let Some(qv) = query_vec {
        let mut stmt = conn.prepare_cached("SELECT vec FROM vectors WHERE rid = ?1")?;
        let missing: Vec<i64> = rows.keys().filter(|r| !cosine.contains_key(r)).copied().collect();
        for rid in missing {
            if let Ok(blob) = stmt.query_row([rid], |r| r.get::<_, Vec<u8>>(0)) {
                let v = crate::index::vectors::from_blob(&blob);
                cosine.insert(rid, v.iter().zip(qv).map(|(a, b)| (a * b) as f64).sum());
            }
        }
    }
    let terms = search::query_terms(&q.text);
    let best_bm25 = bm25.values().copied().fold(0.0f64, f64::max);
    let mut out = Vec::new();
    for (rid, row) in rows {
        let kind_ok = q.kinds.is_empty() || q.kinds.iter().any(|k| k.column() == row.kind);
        if !kind_ok {
            continue;
        }
        let found = match row.kind.as_str() {
            "kv" => Found::Memory(serde_json::from_str::<Memory>(&row.payload)?),
            "journal" => Found::Journal(serde_json::from_str::<JournalEntry>(&row.payload)?),
            "persona" => Found::Persona(serde_json::from_str::<PersonaMemory>(&row.payload)?),
            _ => continue,
        };
        let t = found.time();
        if q.since.is_some_and(|s| t < s) || q.until.is_some_and(|u| t >= u) {
            continue;
        }
        let mut values = [None; SIGNALS.len()];
        values[index_of("vector")] = cosine.get(&rid).copied();
        values[index_of("bm25")] = bm25.get(&rid).copied();
        let lexical = if best_bm25 > 0.0 { bm25.get(&rid).copied().unwrap_or(0.0) / best_bm25 } else { 0.0 };
        values[index_of("matching")] = Some(match cosine.get(&rid) {
            Some(cos) => w.lexical_share * lexical + (1.0 - w.lexical_share) * cos,
            None if query_vec.is_some() => w.lexical_share * lexical,
            None => lexical,
        });
        values[index_of("recency")] = Some(t);
        if let Found::Persona(p) = &found {
            if q.domain.as_ref().is_some_and(|d| *d != p.domain) || q.facet.as_ref().is_some_and(|f| *f != p.facet) {
                continue;
            }
            let relevance = p.current_relevance(now);
            let state = MemoryState::from_relevance(relevance);
            let wanted = if q.states.is_empty() {
                matches!(state, MemoryState::Active | MemoryState::Fading)
            } else {
                q.states.contains(&state)
            };
            if !wanted {
                continue;
            }
            let (theme, _) = search::theme_score(&terms, p);
            values[index_of("theme")] = (theme > 0.0).then_some(theme);
            values[index_of("relevance")] = Some(relevance);
            let days = ((now - p.last_accessed) / DAY).max(0.0);
            values[index_of("activation")] = Some((1.0 + p.access_count as f64).ln() - 0.5 * (1.0 + days).ln());
            values[index_of("confidence")] = Some(p.confidence);
        } else if q.domain.is_some() || q.facet.is_some() {
            continue;
        }
        out.push(Candidate { path: row.path, found, values });
    }
    Ok(out)
}
