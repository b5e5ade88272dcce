//! Events written by the published sense-memory 0.3.1 client, decoded by memstr.
//! The fixtures and their expected values were produced by that package
//! (scripts/interop/gen_fixtures.py); no Python runs here.

//!
//! The client wrote its persona memories with fixed payload times in early 2027, later
//! than today's system clock, and a store caps incoming payload times at the system clock
//! plus `memstr::FUTURE_SLACK`. So the client's values are compared (1) with what the
//! codec decodes from the client's own bytes, and (2) through the store and the command
//! line, with a copy of the fixtures whose persona times are all moved [`SHIFT`] seconds
//! into the past (re-encrypted and re-signed with the same test key, nothing else
//! changed), evaluated [`SHIFT`] seconds earlier: decay depends only on time differences,
//! and every time involved is a whole number of seconds, so the values are the same.

mod support;

use std::collections::BTreeMap;

use memstr::codec::{Cipher, Codec, DTagMode, Decoded, Payload};
use memstr::nostr::{Event, EventBuilder, JsonUtil, Keys, Kind, Timestamp};
use memstr::{MemoryState, PersonaMemory, PersonaQuery};
use serde_json::Value;
use support::*;

/// How far the shifted copy of the fixtures moves persona times back (about 3.2 years).
const SHIFT: f64 = 100_000_000.0;
/// The payload time fields of a persona memory.
const TIME_FIELDS: [&str; 3] = ["created_at", "last_accessed", "last_reinforced"];

fn fixture_text() -> String {
    std::fs::read_to_string(fixtures().join("events.jsonl")).unwrap()
}

async fn imported_text(now: f64, text: &str) -> (tempfile::TempDir, memstr::MemoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), now).await;
    let report = store.import_json_lines(text).await.unwrap();
    assert_eq!(report.rejected_total(), 0, "{report:?}");
    assert_eq!((report.applied, report.quarantined), (22, 0), "{report:?}");
    (dir, store)
}

async fn imported(now: f64) -> (tempfile::TempDir, memstr::MemoryStore) {
    imported_text(now, &fixture_text()).await
}

fn is_persona(e: &Event) -> bool {
    e.kind == Kind::from(30078)
        && e.tags.iter().any(|t| t.as_slice()[0] == "d" && t.as_slice()[1].starts_with("sense-memory/persona/"))
}

/// The persona memories as the codec decodes the client's events (no store, no door).
fn decoded_personas() -> BTreeMap<(String, String, String), PersonaMemory> {
    let codec = Codec::new(Keys::parse(TEST_SECRET).unwrap(), DTagMode::Compatible).unwrap();
    let mut out = BTreeMap::new();
    for line in fixture_text().lines().filter(|l| !l.trim().is_empty()) {
        let e = Event::from_json(line).unwrap();
        if let Ok(Decoded::Record { payload: Payload::Persona(p), .. }) = codec.decode(&e) {
            out.insert((p.domain.clone(), p.facet.clone(), p.key.clone()), p);
        }
    }
    assert_eq!(out.len(), 9);
    out
}

/// The fixtures with every persona payload time moved [`SHIFT`] seconds back, each such
/// event re-encrypted and re-signed by the test key with its tags and `created_at`.
fn shifted_text() -> String {
    let keys = Keys::parse(TEST_SECRET).unwrap();
    let cipher = Cipher::new(keys.secret_key(), &keys.public_key()).unwrap();
    let mut lines = Vec::new();
    for line in fixture_text().lines().filter(|l| !l.trim().is_empty()) {
        let e = Event::from_json(line).unwrap();
        if !is_persona(&e) {
            lines.push(line.to_string());
            continue;
        }
        let mut payload: Value = serde_json::from_str(&cipher.decrypt(&e.content).unwrap()).unwrap();
        for f in TIME_FIELDS {
            if let Some(t) = payload.get(f).and_then(Value::as_f64) {
                payload[f] = Value::from(t - SHIFT);
            }
        }
        let shifted = EventBuilder::new(e.kind, cipher.encrypt(&payload.to_string()).unwrap())
            .tags(e.tags.iter().cloned())
            .custom_created_at(e.created_at)
            .sign_with_keys(&keys)
            .unwrap();
        lines.push(shifted.as_json());
    }
    lines.join("\n") + "\n"
}

/// The client's `to_dict()` of a memory, its times moved [`SHIFT`] seconds back.
fn shifted_dict(dict: &Value) -> Value {
    let mut d = dict.clone();
    for f in TIME_FIELDS {
        d[f] = Value::from(dict[f].as_f64().unwrap() - SHIFT);
    }
    d
}

fn as_dict(m: &PersonaMemory) -> Value {
    let mut v = serde_json::to_value(m).unwrap();
    v["type"] = Value::from("sense-memory:persona");
    v
}

#[tokio::test]
async fn kv_memories_match_and_a_only_forget_is_honoured() {
    let (_d, store) = imported(1.8e9).await;
    let exp = expected();
    let mut want: Vec<(String, String)> =
        exp["kv"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect();
    want.sort();
    let got: Vec<(String, String)> = store.recall_all().await.unwrap().into_iter().map(|m| (m.key, m.value)).collect();
    assert_eq!(got, want);
    for k in exp["forgotten"].as_array().unwrap() {
        assert!(store.recall(k.as_str().unwrap()).await.unwrap().is_none(), "{k} should be forgotten");
    }
    // Timestamps come from the payloads, as the client reads them.
    let last_write = exp["kv_writes"].as_array().unwrap().iter().rfind(|w| w["key"] == "ns:topic").unwrap();
    let m = store.recall("ns:topic").await.unwrap().unwrap();
    assert_eq!(m.created_at, last_write["ts"].as_f64().unwrap());
}

#[tokio::test]
async fn journal_entries_match_newest_first() {
    let (_d, store) = imported(1.8e9).await;
    let mut want: Vec<(String, f64)> = expected()["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["content"].as_str().unwrap().to_string(), j["ts"].as_f64().unwrap()))
        .collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    let got: Vec<(String, f64)> =
        store.recent(100).await.unwrap().into_iter().map(|j| (j.content, j.created_at)).collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn persona_fields_match_from_dict() {
    let exp = expected();
    let personas = exp["persona"].as_array().unwrap();
    assert_eq!(personas.len(), 9);
    // What memstr reads from the client's bytes is exactly the client's from_dict.
    let decoded = decoded_personas();
    for p in personas {
        let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
        let m = decoded.get(&(d.into(), f.into(), k.into())).expect("persona decoded");
        assert_eq!(as_dict(m), p["dict"], "decoded {d}/{f}/{k}");
    }
    // Imported into a store: the same, except that access and reinforcement times later
    // than the system clock plus the slack are capped there.
    let slack = memstr::FUTURE_SLACK as f64;
    let before = Timestamp::now().as_secs() as f64 + slack;
    let (_d, store) = imported(1.8e9).await;
    let after = Timestamp::now().as_secs() as f64 + slack;
    for p in personas {
        let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
        let got = store.persona_peek(PersonaQuery::exact(d, f, k)).await.unwrap().pop().expect("persona present");
        let mut got_json = as_dict(&got);
        for field in ["last_accessed", "last_reinforced"] {
            let (g, w) = (got_json[field].as_f64().unwrap(), p["dict"][field].as_f64().unwrap());
            if w <= before {
                assert_eq!(g, w, "{field} of {d}/{f}/{k}: in the past, kept");
            } else {
                assert!((before..=after).contains(&g), "{field} of {d}/{f}/{k}: {w} capped to {g}");
            }
            got_json[field] = p["dict"][field].clone();
        }
        assert_eq!(got_json, p["dict"], "imported {d}/{f}/{k}");
    }
    // Dated in the past, every field comes through the store unchanged.
    let (_d, store) = imported_text(1.8e9 - SHIFT, &shifted_text()).await;
    for p in personas {
        let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
        let got = store.persona_peek(PersonaQuery::exact(d, f, k)).await.unwrap().pop().expect("persona present");
        assert_eq!(as_dict(&got), shifted_dict(&p["dict"]), "imported, shifted {d}/{f}/{k}");
    }
}

#[tokio::test]
async fn decay_and_state_equal_the_clients_within_1e9() {
    let decoded = decoded_personas();
    let (_d, store) = imported_text(1.8e9 - SHIFT, &shifted_text()).await;
    let exp = expected();
    let mut states = std::collections::BTreeSet::new();
    for p in exp["persona"].as_array().unwrap() {
        let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
        // As decoded from the client's bytes, at the client's times; as stored from the
        // shifted copy, SHIFT seconds earlier.
        let stored: PersonaMemory = store.persona_peek(PersonaQuery::exact(d, f, k)).await.unwrap().pop().unwrap();
        let from_bytes = decoded.get(&(d.into(), f.into(), k.into())).unwrap();
        for e in p["evaluations"].as_array().unwrap() {
            let now = e["now"].as_f64().unwrap();
            let want = e["current_relevance"].as_f64().unwrap();
            let state: MemoryState = e["state"].as_str().unwrap().parse().unwrap();
            for (m, at, how) in [(from_bytes, now, "decoded"), (&stored, now - SHIFT, "stored, shifted")] {
                let got = m.current_relevance(at);
                assert!((got - want).abs() < 1e-9, "{how} {k}: {got} vs {want} at {at}");
                assert_eq!(m.compute_state(at), state, "{how} {k} at {at}");
            }
            states.insert(state);
        }
    }
    assert_eq!(states.len(), 4, "the fixtures should exercise every state");
}

#[tokio::test]
async fn introspection_and_embedding_decode() {
    let (_d, store) = imported(1.8e9).await;
    let exp = expected();
    let reports = store.introspections(10).await.unwrap();
    assert_eq!(reports.len(), 1);
    let mut got = serde_json::to_value(&reports[0]).unwrap();
    got.as_object_mut().unwrap().remove("suggested_compressions");
    got["type"] = Value::from("sense-memory:introspection");
    assert_eq!(got, exp["introspection"]);
    let e = store.embedding("ns:topic").await.unwrap().unwrap();
    assert_eq!(e.model, "all-MiniLM-L6-v2");
    let want: Vec<f32> =
        exp["embed"]["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
    assert_eq!(e.embedding, want);
}

/// The acceptance check: persona memories created by the package with past
/// access times, imported with `memstr import --events`, show the package's relevance
/// and state in `memstr persona get --json`. (The fixtures' times are moved into the
/// past, see the module doc; relevance and state are the client's at the unshifted times.)
#[test]
fn cli_persona_get_json_shows_the_clients_relevance_and_state() {
    let exp = expected();
    let shifted = tempfile::tempdir().unwrap();
    let events = shifted.path().join("events.jsonl");
    std::fs::write(&events, shifted_text()).unwrap();
    for (i, now) in exp["eval_times"].as_array().unwrap().iter().enumerate() {
        let now = now.as_f64().unwrap() - SHIFT;
        let dir = tempfile::tempdir().unwrap();
        init_store(dir.path());
        run_ok(memstr(dir.path()).args(["import", "--events"]).arg(&events));
        for p in exp["persona"].as_array().unwrap() {
            let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
            let dict = shifted_dict(&p["dict"]);
            let out = run_ok(memstr(dir.path()).args(["--json", "--now", &now.to_string(), "persona", "get", d, f, k]));
            let got: Value = serde_json::from_str(&out).unwrap();
            let want = &p["evaluations"][i];
            let (g, w) = (got["current_relevance"].as_f64().unwrap(), want["current_relevance"].as_f64().unwrap());
            assert!((g - w).abs() < 1e-9, "{d}/{f}/{k} at {now}: {g} vs {w}");
            assert_eq!(got["state"], want["state"], "{d}/{f}/{k} at {now}");
            // Every stored field is there too.
            for field in dict.as_object().unwrap().keys().filter(|f| *f != "type" && *f != "state") {
                assert_eq!(got[field], dict[field], "{field} of {d}/{f}/{k}");
            }
        }
    }
}

/// Memories the published client wrote carry no type: each gets its facet's on read, and
/// nothing is rewritten (issue 27, point 3).
#[test]
fn the_clients_memories_get_their_type_from_their_facet() {
    use memstr::MemoryType as T;
    let mut seen = std::collections::BTreeSet::new();
    for ((_, facet, key), p) in decoded_personas() {
        assert_eq!(p.sync.life.kind, None, "{key}: the client writes no type");
        let want = match facet.as_str() {
            "facts" => T::Fact,
            "beliefs" => T::Preference,
            "decisions" => T::Decision,
            "procedures" => T::Procedure,
            "emotions" => T::Event,
            other => panic!("a facet the fixtures were not known to hold: {other}"),
        };
        assert_eq!(p.memory_type(), want, "{facet}/{key}");
        assert_eq!(p.reliability().is_some(), want == T::Procedure, "{key}: only procedures have a reliability");
        seen.insert(want);
    }
    assert_eq!(seen.len(), 5, "every facet of the fixtures was seen");
}
