//! The JSON inside each event's ciphertext, field for field as the published client has it.
//!
//! Decoding treats the JSON as untrusted: every field is type-checked, missing optional
//! fields take the client's defaults, and the memory must pass the client's validation.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::dtag::Path;
use crate::error::RejectReason;
use crate::model::episode::{validate_context, validate_episode_id, validate_label, MAX_LABEL};
use crate::model::{
    validate_journal_content, validate_key, validate_timestamp, validate_value, Insight, IntrospectionReport,
    JournalEntry, Memory, MemoryState, PersonaMemory, DEFAULT_HALFLIFE_DAYS,
};

const TYPE_KV: &str = "sense-memory:kv";
const TYPE_JOURNAL: &str = "sense-memory:journal";
const TYPE_PERSONA: &str = "sense-memory:persona";
const TYPE_INTROSPECTION: &str = "sense-memory:introspection";
const TYPE_TOMBSTONE: &str = "memstr:tombstone";
const TYPE_INSIGHT: &str = "memstr:insight";

/// An embedding published for another device (`sense-memory/embed/{key}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embedding {
    /// Key of the memory the vector embeds.
    pub key: String,
    /// The vector.
    pub embedding: Vec<f32>,
    /// Name of the embedding model that produced it.
    pub model: String,
    /// When it was computed (float Unix seconds).
    pub created_at: f64,
    /// Fingerprint of the text that was embedded (memstr's addition): a reader reuses the
    /// vector only for the same text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_hash: Option<String>,
}

/// memstr's deletion marker: a newer replacement at a forgotten memory's d tag, so a
/// stale device republishing an old version loses to it everywhere.
#[derive(Debug, Clone, PartialEq)]
pub struct Tombstone {
    /// The plain path that was forgotten.
    pub path: String,
    /// When it was forgotten (float Unix seconds).
    pub deleted_at: f64,
}

/// A decoded payload.
// Payloads are decoded and applied one at a time, never stored in bulk, so the size of
// the largest variant costs nothing worth an extra allocation per persona memory.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Payload {
    /// A flat key-value memory (`"type": "sense-memory:kv"`).
    Kv(Memory),
    /// A journal entry (`"type": "sense-memory:journal"`).
    Journal(JournalEntry),
    /// A persona memory (`"type": "sense-memory:persona"`).
    Persona(PersonaMemory),
    /// A published embedding (no `"type"` field).
    Embed(Embedding),
    /// An introspection report (`"type": "sense-memory:introspection"`).
    Introspection(IntrospectionReport),
    /// memstr's deletion marker (`"type": "memstr:tombstone"`).
    Tombstone(Tombstone),
    /// A dream insight (`"type": "memstr:insight"`).
    Insight(Insight),
}

impl Payload {
    /// The JSON object the client writes for this payload. `path` is added when the d tag
    /// is blinded, so the reader can recover and check the address.
    pub fn to_value(&self, blinded_path: Option<&str>) -> Value {
        let mut v = match self {
            Payload::Kv(m) => with_extras(
                json!({"type": TYPE_KV, "key": m.key, "value": m.value, "ts": m.created_at}),
                m.archived_at,
                [("episode", to_json(&m.episode)), ("summary_of", to_json(&m.summary_of))],
            ),
            Payload::Journal(j) => with_extras(
                json!({"type": TYPE_JOURNAL, "content": j.content, "ts": j.created_at}),
                j.archived_at,
                [("observed", to_json(&j.observed)), ("context", to_json(&j.context))],
            ),
            Payload::Persona(p) => json!({
                "type": TYPE_PERSONA,
                "domain": p.domain,
                "facet": p.facet,
                "key": p.key,
                "value": p.value,
                "relevance": p.relevance,
                "halflife_days": p.halflife_days,
                "last_accessed": p.last_accessed,
                "last_reinforced": p.last_reinforced,
                "access_count": p.access_count,
                "connections": p.connections,
                "contradicts": p.contradicts,
                "superseded_by": p.superseded_by,
                "themes": p.themes,
                "source": p.source,
                "confidence": p.confidence,
                "state": p.state.as_str(),
                "created_at": p.created_at,
            }),
            Payload::Embed(e) => {
                let mut v =
                    json!({"key": e.key, "embedding": e.embedding, "model": e.model, "created_at": e.created_at});
                if let Some(h) = &e.text_hash {
                    v["text_hash"] = h.as_str().into();
                }
                v
            }
            Payload::Introspection(r) => {
                let mut v = serde_json::to_value(r).expect("a report always serialises");
                v.as_object_mut().expect("a report is an object").insert("type".into(), TYPE_INTROSPECTION.into());
                v
            }
            Payload::Tombstone(t) => json!({"type": TYPE_TOMBSTONE, "path": t.path, "deleted_at": t.deleted_at}),
            Payload::Insight(i) => {
                let mut v = serde_json::to_value(i).expect("an insight always serialises");
                v.as_object_mut().expect("an insight is an object").insert("type".into(), TYPE_INSIGHT.into());
                v
            }
        };
        if let (Payload::Persona(p), Some(obj)) = (self, v.as_object_mut()) {
            if !p.sync.is_empty() {
                obj.insert("memstr".into(), serde_json::to_value(&p.sync).expect("bookkeeping serialises"));
            }
        }
        if let (Some(path), Some(obj)) = (blinded_path, v.as_object_mut()) {
            obj.insert("path".into(), path.into());
        }
        v
    }

    /// Decodes the decrypted JSON of an event at `path`. `event_time` stands in for
    /// missing timestamps (where the client would take the time of reading, memstr takes
    /// the event's, so every device decodes the same memory).
    pub fn decode(path: &Path, obj: &Map<String, Value>, event_time: f64) -> Result<Payload, RejectReason> {
        let ty = opt_str(obj, "type")?;
        if ty == Some(TYPE_TOMBSTONE) {
            let t_path = req_str(obj, "path")?;
            if t_path != path.to_d() {
                return Err(RejectReason::DTagMismatch);
            }
            let deleted_at = opt_f64(obj, "deleted_at")?.unwrap_or(event_time);
            return Ok(Payload::Tombstone(Tombstone { path: t_path.to_string(), deleted_at }));
        }
        match path {
            Path::Kv { key } => {
                expect_type(ty, Some(TYPE_KV))?;
                let k = req_str(obj, "key")?;
                if k != key {
                    return Err(RejectReason::DTagMismatch);
                }
                let value = req_str(obj, "value")?;
                validate_value(value).map_err(|_| RejectReason::InvalidPayload)?;
                let ts = time_field(obj, "ts", event_time)?;
                let archived_at = archived_at(obj)?;
                let mut m = Memory::new(k, value, ts);
                m.archived_at = archived_at;
                m.episode = extra(obj, "episode")?;
                m.summary_of = extra(obj, "summary_of")?;
                if m.episode.as_ref().is_some_and(|e| !episode_ok(e)) {
                    return Err(RejectReason::InvalidPayload);
                }
                Ok(Payload::Kv(m))
            }
            Path::Journal { ts: path_ts, .. } => {
                expect_type(ty, Some(TYPE_JOURNAL))?;
                let content = req_str(obj, "content")?;
                validate_journal_content(content).map_err(|_| RejectReason::InvalidPayload)?;
                let ts = time_field(obj, "ts", *path_ts)?;
                if ts != *path_ts {
                    return Err(RejectReason::DTagMismatch);
                }
                let mut j = JournalEntry::new(content, ts);
                j.archived_at = archived_at(obj)?;
                j.observed = extra(obj, "observed")?;
                j.context = extra(obj, "context")?;
                if j.observed.as_ref().is_some_and(|o| validate_episode_id(&o.episode).is_err())
                    || j.context.as_deref().is_some_and(|c| validate_context(c).is_err())
                {
                    return Err(RejectReason::InvalidPayload);
                }
                Ok(Payload::Journal(j))
            }
            Path::Kind4 { .. } => {
                expect_type(ty, Some(TYPE_JOURNAL))?;
                let content = req_str(obj, "content")?;
                validate_journal_content(content).map_err(|_| RejectReason::InvalidPayload)?;
                let ts = time_field(obj, "ts", event_time)?;
                Ok(Payload::Journal(JournalEntry::new(content, ts)))
            }
            Path::Persona { domain, facet, key } => {
                expect_type(ty, Some(TYPE_PERSONA))?;
                let p = decode_persona(obj, event_time)?;
                if (&p.domain, &p.facet, &p.key) != (domain, facet, key) {
                    return Err(RejectReason::DTagMismatch);
                }
                Ok(Payload::Persona(p))
            }
            Path::Embed { key } => {
                let k = req_str(obj, "key")?;
                if k != key {
                    return Err(RejectReason::DTagMismatch);
                }
                let embedding = match obj.get("embedding") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|x| x.as_f64().map(|f| f as f32))
                        .collect::<Option<Vec<f32>>>()
                        .ok_or(RejectReason::MalformedPayload)?,
                    _ => return Err(RejectReason::MalformedPayload),
                };
                let model = req_str(obj, "model")?.to_string();
                let created_at = time_field(obj, "created_at", event_time)?;
                let text_hash = opt_str(obj, "text_hash")?.map(str::to_string);
                Ok(Payload::Embed(Embedding { key: k.to_string(), embedding, model, created_at, text_hash }))
            }
            Path::Introspection { ts: path_ts, .. } => {
                expect_type(ty, Some(TYPE_INTROSPECTION))?;
                let mut clean = obj.clone();
                clean.remove("type");
                clean.remove("path");
                let report: IntrospectionReport =
                    serde_json::from_value(Value::Object(clean)).map_err(|_| RejectReason::MalformedPayload)?;
                if report.timestamp != *path_ts {
                    return Err(RejectReason::DTagMismatch);
                }
                Ok(Payload::Introspection(report))
            }
            Path::Insight { key } => {
                expect_type(ty, Some(TYPE_INSIGHT))?;
                let mut clean = obj.clone();
                clean.remove("type");
                clean.remove("path");
                let insight: Insight =
                    serde_json::from_value(Value::Object(clean)).map_err(|_| RejectReason::MalformedPayload)?;
                if &insight.key != key {
                    return Err(RejectReason::DTagMismatch);
                }
                // Untrusted like any payload: bounded, so a forged insight cannot flood a reply.
                let too_long =
                    [&insight.text, &insight.subject].into_iter().chain(&insight.evidence).any(|t| t.len() > 4_096);
                if !insight.strength.is_finite() || insight.evidence.len() > 64 || too_long {
                    return Err(RejectReason::InvalidPayload);
                }
                Ok(Payload::Insight(insight))
            }
        }
    }
}

/// memstr's archive mark on a flat memory or journal entry, in the `"memstr"` object the
/// published client ignores.
/// Adds memstr's `"memstr"` object (the archive mark, an episode's fields) to a flat
/// memory's or journal entry's JSON when it has any; the published client ignores it.
fn with_extras<const N: usize>(mut v: Value, archived_at: Option<f64>, extras: [(&str, Value); N]) -> Value {
    let mut memstr = Map::new();
    if let Some(at) = archived_at {
        memstr.insert("archived_at".into(), json!(at));
    }
    for (name, value) in extras {
        if !value.is_null() {
            memstr.insert(name.into(), value);
        }
    }
    if let (false, Some(obj)) = (memstr.is_empty(), v.as_object_mut()) {
        obj.insert("memstr".into(), Value::Object(memstr));
    }
    v
}

fn to_json<T: Serialize>(x: &Option<T>) -> Value {
    serde_json::to_value(x).unwrap_or(Value::Null)
}

/// One of memstr's fields in the `"memstr"` object, typed (absent or null: `None`).
fn extra<T: serde::de::DeserializeOwned>(obj: &Map<String, Value>, name: &str) -> Result<Option<T>, RejectReason> {
    match obj.get("memstr").and_then(|m| m.get(name)) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone()).map(Some).map_err(|_| RejectReason::MalformedPayload),
    }
}

/// An episode record from elsewhere holds to the rules a local one does.
fn episode_ok(e: &crate::model::Episode) -> bool {
    validate_episode_id(&e.id).is_ok()
        && validate_label("title", &e.title, MAX_LABEL).is_ok()
        && e.started_at.is_finite()
        && e.ended_at.is_none_or(f64::is_finite)
}

/// Reads the archive mark of a flat memory or journal entry: a finite, non-negative time.
fn archived_at(obj: &Map<String, Value>) -> Result<Option<f64>, RejectReason> {
    let Some(extra) = obj.get("memstr") else { return Ok(None) };
    let Value::Object(extra) = extra else { return Err(RejectReason::MalformedPayload) };
    match extra.get("archived_at") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(t) if t.is_finite() && t >= 0.0 => Ok(Some(t)),
            Some(_) => Err(RejectReason::InvalidPayload),
            None => Err(RejectReason::MalformedPayload),
        },
    }
}

/// `PersonaMemory.from_dict`: required domain/facet/key/value, defaults for the rest,
/// then the constructor's validation.
fn decode_persona(obj: &Map<String, Value>, event_time: f64) -> Result<PersonaMemory, RejectReason> {
    let created_at = time_field(obj, "created_at", event_time)?;
    let state = match opt_str(obj, "state")? {
        None => MemoryState::Active,
        Some(s) => s.parse().map_err(|_| RejectReason::InvalidPayload)?,
    };
    let superseded_by = match obj.get("superseded_by") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(RejectReason::MalformedPayload),
    };
    let p = PersonaMemory {
        domain: req_str(obj, "domain")?.to_string(),
        facet: req_str(obj, "facet")?.to_string(),
        key: req_str(obj, "key")?.to_string(),
        value: req_str(obj, "value")?.to_string(),
        relevance: opt_f64(obj, "relevance")?.unwrap_or(1.0),
        halflife_days: opt_f64(obj, "halflife_days")?.unwrap_or(DEFAULT_HALFLIFE_DAYS),
        last_accessed: time_field(obj, "last_accessed", created_at)?,
        last_reinforced: time_field(obj, "last_reinforced", created_at)?,
        access_count: opt_count(obj, "access_count")?,
        connections: str_list(obj, "connections")?,
        contradicts: str_list(obj, "contradicts")?,
        superseded_by,
        themes: str_list(obj, "themes")?,
        source: opt_str(obj, "source")?.unwrap_or("").to_string(),
        confidence: opt_f64(obj, "confidence")?.unwrap_or(1.0),
        state,
        created_at,
        sync: match obj.get("memstr") {
            None | Some(Value::Null) => Default::default(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| RejectReason::MalformedPayload)?,
        },
    };
    p.validate().map_err(|_| RejectReason::InvalidPayload)?;
    if !in_range(p.relevance, 0.0, 1.0) || !sane_bookkeeping(&p) {
        return Err(RejectReason::InvalidPayload);
    }
    for k in p.connections.iter().chain(&p.contradicts).chain(p.superseded_by.iter().filter(|s| !s.is_empty())) {
        validate_key(k).map_err(|_| RejectReason::InvalidPayload)?;
    }
    Ok(p)
}

fn in_range(x: f64, min: f64, max: f64) -> bool {
    x.is_finite() && (min..=max).contains(&x)
}

/// memstr's own fields (`"memstr"` inside the payload) are untrusted input like the rest:
/// finite, and within the ranges memstr itself writes, or a `1e300` would rank first
/// forever.
fn sane_bookkeeping(p: &PersonaMemory) -> bool {
    let time = |t: f64| in_range(t, 0.0, f64::MAX);
    let life = &p.sync.life;
    time(p.sync.written)
        && life.importance.is_none_or(|x| in_range(x, 0.0, 1.0))
        && life.salience.is_none_or(|x| in_range(x, 0.0, 1.0))
        && life.dissolved_at.is_none_or(time)
        && life.archived_at.is_none_or(time)
        && life.fsrs.as_ref().is_none_or(|f| {
            in_range(f.stability, f64::MIN_POSITIVE, 1e6) && in_range(f.difficulty, 1.0, 10.0) && time(f.last_review)
        })
        && life.history.iter().all(|h| time(h.from) && time(h.until))
}

fn expect_type(found: Option<&str>, want: Option<&str>) -> Result<(), RejectReason> {
    match (found, want) {
        // A missing type is tolerated only where the client does not require one.
        (None, Some(TYPE_PERSONA)) => Ok(()),
        (Some(f), Some(w)) if f == w => Ok(()),
        _ => Err(RejectReason::MalformedPayload),
    }
}

fn req_str<'a>(obj: &'a Map<String, Value>, field: &str) -> Result<&'a str, RejectReason> {
    opt_str(obj, field)?.ok_or(RejectReason::MalformedPayload)
}

fn opt_str<'a>(obj: &'a Map<String, Value>, field: &str) -> Result<Option<&'a str>, RejectReason> {
    match obj.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(RejectReason::MalformedPayload),
    }
}

fn opt_f64(obj: &Map<String, Value>, field: &str) -> Result<Option<f64>, RejectReason> {
    match obj.get(field) {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or(RejectReason::MalformedPayload),
    }
}

fn time_field(obj: &Map<String, Value>, field: &'static str, default: f64) -> Result<f64, RejectReason> {
    let ts = opt_f64(obj, field)?.unwrap_or(default);
    validate_timestamp(field, ts).map_err(|_| RejectReason::InvalidPayload)?;
    Ok(ts)
}

fn opt_count(obj: &Map<String, Value>, field: &str) -> Result<u64, RejectReason> {
    match obj.get(field) {
        None => Ok(0),
        Some(v) => {
            if let Some(n) = v.as_u64() {
                return Ok(n);
            }
            match v.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Ok(f as u64),
                _ => Err(RejectReason::MalformedPayload),
            }
        }
    }
}

fn str_list(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, RejectReason> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or(RejectReason::MalformedPayload),
        Some(_) => Err(RejectReason::MalformedPayload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn round_trip(path: &Path, p: &Payload) -> Payload {
        Payload::decode(path, &obj(p.to_value(None)), 1.0).unwrap()
    }

    #[test]
    fn every_payload_round_trips() {
        let kv = Payload::Kv(Memory::new("k", "v\n\"q\"", 1.5));
        assert_eq!(round_trip(&Path::Kv { key: "k".into() }, &kv), kv);

        let j = Payload::Journal(JournalEntry::new("today", 1795239472.3708987));
        assert_eq!(round_trip(&Path::journal(1795239472.3708987), &j), j);
        // An observation: its episode, trajectory, action, outcome and context in "memstr".
        let mut o = JournalEntry::new("deploy failed", 5.0);
        let mut observed = crate::model::Observed::new("ep-1", 2);
        observed.action = Some("deploy".into());
        observed.outcome = Some(crate::model::Outcome::Failure);
        (o.observed, o.context) = (Some(observed), Some("episode:ep-1".into()));
        let o = Payload::Journal(o);
        let v = o.to_value(None);
        assert_eq!(v["content"], "deploy failed", "the published client's fields stay as they are");
        assert_eq!(v["memstr"]["observed"]["trajectory"], 2);
        assert_eq!(round_trip(&Path::journal(5.0), &o), o);
        let mut bad = obj(v);
        bad.insert("memstr".into(), json!({"observed": {"episode": "../x", "trajectory": 0}}));
        assert_eq!(Payload::decode(&Path::journal(5.0), &bad, 1.0), Err(RejectReason::InvalidPayload));
        bad.insert("memstr".into(), json!({"observed": {"episode": "ep-1", "trajectory": "two"}}));
        assert_eq!(Payload::decode(&Path::journal(5.0), &bad, 1.0), Err(RejectReason::MalformedPayload));

        let mut pm = PersonaMemory::new("people", "facts", "alice", "likes tea", 100.0);
        pm.connections = vec!["bob".into()];
        pm.superseded_by = Some("alice2".into());
        pm.themes = vec!["tea".into()];
        pm.confidence = 0.5;
        pm.state = MemoryState::Fading;
        let p = Payload::Persona(pm);
        let path = Path::Persona { domain: "people".into(), facet: "facts".into(), key: "alice".into() };
        assert_eq!(round_trip(&path, &p), p);

        let e = Payload::Embed(Embedding {
            key: "alice".into(),
            embedding: vec![0.25, -1.0],
            model: "m".into(),
            created_at: 3.0,
            text_hash: None,
        });
        assert_eq!(round_trip(&Path::Embed { key: "alice".into() }, &e), e);

        let r = Payload::Introspection(IntrospectionReport {
            total_memories: 3,
            contradictions: vec![("a".into(), "b".into())],
            timestamp: 1795000000.25,
            ..Default::default()
        });
        assert_eq!(round_trip(&Path::introspection(1795000000.25), &r), r);

        let i = Payload::Insight(crate::Insight {
            key: "recurring-pattern-00ff".into(),
            kind: crate::InsightKind::RecurringPattern,
            subject: "running".into(),
            text: "\"running\" recurs".into(),
            strength: 0.5,
            evidence: vec!["sense-memory/persona/self/facts/a".into()],
            found_at: 2.0,
            updated_at: 3.0,
        });
        assert_eq!(round_trip(&Path::Insight { key: "recurring-pattern-00ff".into() }, &i), i);
        let wrong = Path::Insight { key: "other".into() };
        assert_eq!(Payload::decode(&wrong, &obj(i.to_value(None)), 1.0), Err(RejectReason::DTagMismatch));

        let kvp = Path::Kv { key: "k".into() };
        let t = Payload::Tombstone(Tombstone { path: kvp.to_d(), deleted_at: 9.0 });
        assert_eq!(round_trip(&kvp, &t), t);
    }

    #[test]
    fn journal_timestamp_in_d_tag_matches_payload_to_the_last_bit() {
        // Regression: a non-correctly-rounded float parser made these differ by one ULP.
        let d = Path::parse("sense-journal/1795240213.0144045").unwrap();
        let v: Value =
            serde_json::from_str(r#"{"type": "sense-memory:journal", "content": "x", "ts": 1795240213.0144045}"#)
                .unwrap();
        assert!(Payload::decode(&d, v.as_object().unwrap(), 1.0).is_ok());
    }

    #[test]
    fn persona_defaults_follow_from_dict() {
        let path = Path::Persona { domain: "d".into(), facet: "f".into(), key: "k".into() };
        let p = Payload::decode(
            &path,
            &obj(json!({"domain": "d", "facet": "f", "key": "k", "value": "v", "created_at": 50.0})),
            999.0,
        )
        .unwrap();
        let Payload::Persona(p) = p else { panic!() };
        assert_eq!((p.last_accessed, p.last_reinforced, p.created_at), (50.0, 50.0, 50.0));
        assert_eq!((p.relevance, p.halflife_days, p.confidence), (1.0, 30.0, 1.0));
        assert_eq!(p.state, MemoryState::Active);
        assert_eq!(p.access_count, 0);
    }

    #[test]
    fn memstr_fields_out_of_range_are_rejected() {
        let p = Path::Persona { domain: "d".into(), facet: "f".into(), key: "k".into() };
        let base = json!({"domain": "d", "facet": "f", "key": "k", "value": "v", "created_at": 50.0});
        let dec = |v: Value| Payload::decode(&p, &obj(v), 1.0);
        assert!(dec(base.clone()).is_ok());
        let with = |field: &str, v: Value| {
            let mut x = base.clone();
            x[field] = v;
            x
        };
        let life = |v: Value| with("memstr", json!({"life": v}));
        for bad in [
            with("relevance", json!(1e300)),
            with("relevance", json!(-0.1)),
            with("relevance", json!(1.5)),
            with("memstr", json!({"written": -5.0})),
            life(json!({"importance": 7.0})),
            life(json!({"salience": -1.0})),
            life(json!({"fsrs": {"stability": 0.0, "difficulty": 5.0, "last_review": 10.0, "reviews": 1}})),
            life(json!({"fsrs": {"stability": 1e300, "difficulty": 5.0, "last_review": 10.0, "reviews": 1}})),
            life(json!({"fsrs": {"stability": 3.0, "difficulty": 11.0, "last_review": 10.0, "reviews": 1}})),
            life(json!({"fsrs": {"stability": 3.0, "difficulty": 5.0, "last_review": -1.0, "reviews": 1}})),
        ] {
            assert_eq!(dec(bad.clone()).unwrap_err(), RejectReason::InvalidPayload, "{bad}");
        }
        let ok = life(
            json!({"importance": 1.0, "fsrs": {"stability": 3.0, "difficulty": 5.0, "last_review": 10.0, "reviews": 1}}),
        );
        assert!(dec(ok).is_ok());
    }

    #[test]
    fn mismatches_and_bad_shapes_are_rejected() {
        let kv = Path::Kv { key: "k".into() };
        let dec = |p: &Path, v: Value| Payload::decode(p, &obj(v), 1.0).unwrap_err();
        assert_eq!(dec(&kv, json!({"type": TYPE_KV, "key": "other", "value": "v"})), RejectReason::DTagMismatch);
        assert_eq!(dec(&kv, json!({"type": TYPE_KV, "key": "k"})), RejectReason::MalformedPayload);
        assert_eq!(dec(&kv, json!({"type": TYPE_KV, "key": "k", "value": 5})), RejectReason::MalformedPayload);
        assert_eq!(dec(&kv, json!({"type": TYPE_JOURNAL, "key": "k", "value": "v"})), RejectReason::MalformedPayload);
        let j = Path::journal(10.0);
        assert_eq!(dec(&j, json!({"type": TYPE_JOURNAL, "content": "x", "ts": 11.0})), RejectReason::DTagMismatch);
        assert_eq!(dec(&j, json!({"type": TYPE_JOURNAL, "content": "", "ts": 10.0})), RejectReason::InvalidPayload);
        let p = Path::Persona { domain: "d".into(), facet: "f".into(), key: "k".into() };
        let base = json!({"domain": "d", "facet": "f", "key": "k", "value": "v"});
        let mut bad = base.clone();
        bad["confidence"] = json!(1.5);
        assert_eq!(dec(&p, bad), RejectReason::InvalidPayload);
        let mut bad = base.clone();
        bad["state"] = json!("asleep");
        assert_eq!(dec(&p, bad), RejectReason::InvalidPayload);
        let mut bad = base.clone();
        bad["themes"] = json!("tea");
        assert_eq!(dec(&p, bad), RejectReason::MalformedPayload);
        let mut bad = base.clone();
        bad["facet"] = json!("g");
        assert_eq!(dec(&p, bad), RejectReason::DTagMismatch);
        let t = json!({"type": TYPE_TOMBSTONE, "path": "sense-memory/other"});
        assert_eq!(dec(&kv, t), RejectReason::DTagMismatch);
    }
}
