//! Events written by the published sense-memory 0.3.1 client, decoded by memstr.
//! The fixtures and their expected values were produced by that package
//! (scripts/interop/gen_fixtures.py); no Python runs here.

mod support;

use memstr::{MemoryState, PersonaMemory, PersonaQuery};
use serde_json::Value;
use support::*;

async fn imported(now: f64) -> (tempfile::TempDir, memstr::MemoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), now).await;
    let text = std::fs::read_to_string(fixtures().join("events.jsonl")).unwrap();
    let report = store.import_json_lines(&text).await.unwrap();
    assert_eq!(report.rejected_total(), 0, "{report:?}");
    assert_eq!(report.applied, 22, "{report:?}");
    (dir, store)
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
    let (_d, store) = imported(1.8e9).await;
    let exp = expected();
    let personas = exp["persona"].as_array().unwrap();
    assert_eq!(personas.len(), 9);
    for p in personas {
        let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
        let got = store.persona_peek(PersonaQuery::exact(d, f, k)).await.unwrap().pop().expect("persona present");
        let mut got_json = serde_json::to_value(&got).unwrap();
        got_json["type"] = Value::from("sense-memory:persona");
        assert_eq!(got_json, p["dict"], "{d}/{f}/{k}");
    }
}

#[tokio::test]
async fn decay_and_state_equal_the_clients_within_1e9() {
    let (_d, store) = imported(1.8e9).await;
    let exp = expected();
    let mut states = std::collections::BTreeSet::new();
    for p in exp["persona"].as_array().unwrap() {
        let m: PersonaMemory = {
            let q = PersonaQuery::exact(
                p["domain"].as_str().unwrap(),
                p["facet"].as_str().unwrap(),
                p["key"].as_str().unwrap(),
            );
            store.persona_peek(q).await.unwrap().pop().unwrap()
        };
        for e in p["evaluations"].as_array().unwrap() {
            let now = e["now"].as_f64().unwrap();
            let want = e["current_relevance"].as_f64().unwrap();
            let got = m.current_relevance(now);
            assert!((got - want).abs() < 1e-9, "{}: {got} vs {want} at {now}", m.key);
            let state: MemoryState = e["state"].as_str().unwrap().parse().unwrap();
            assert_eq!(m.compute_state(now), state, "{} at {now}", m.key);
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
/// and state in `memstr persona get --json`.
#[test]
fn cli_persona_get_json_shows_the_clients_relevance_and_state() {
    let exp = expected();
    for (i, now) in exp["eval_times"].as_array().unwrap().iter().enumerate() {
        let now = now.as_f64().unwrap();
        let dir = tempfile::tempdir().unwrap();
        run_ok(memstr(dir.path()).args(["import", "--events"]).arg(fixtures().join("events.jsonl")));
        for p in exp["persona"].as_array().unwrap() {
            let (d, f, k) = (p["domain"].as_str().unwrap(), p["facet"].as_str().unwrap(), p["key"].as_str().unwrap());
            let out = run_ok(memstr(dir.path()).args(["--json", "--now", &now.to_string(), "persona", "get", d, f, k]));
            let got: Value = serde_json::from_str(&out).unwrap();
            let want = &p["evaluations"][i];
            let (g, w) = (got["current_relevance"].as_f64().unwrap(), want["current_relevance"].as_f64().unwrap());
            assert!((g - w).abs() < 1e-9, "{d}/{f}/{k} at {now}: {g} vs {w}");
            assert_eq!(got["state"], want["state"], "{d}/{f}/{k} at {now}");
            // Every stored field is there too.
            for field in p["dict"].as_object().unwrap().keys().filter(|f| *f != "type" && *f != "state") {
                assert_eq!(got[field], p["dict"][field], "{field} of {d}/{f}/{k}");
            }
        }
    }
}
