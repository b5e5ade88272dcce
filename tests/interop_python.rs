//! memstr's events read by the published sense-memory 0.3.1 package itself.
//!
//! Runs scripts/interop/verify_events.py, which feeds memstr's export to the package's
//! own `MemoryStore.recall` / `recall_all` / `recent` behind a fake relay that behaves
//! like nostr-rs-relay (newest version per d tag, `e` deletions honoured, `a` ignored),
//! and decodes persona, embedding and introspection payloads with the package's types.
//! The venv is created on first use (scripts/interop/setup.sh); no Python, no pass.

mod support;

use std::process::Command;

use memstr::nostr::JsonUtil;
use memstr::{Embedding, IntrospectionReport, PersonaInput, PersonaQuery};
use serde_json::{json, Value};
use support::*;

const T0: f64 = 1_800_000_000.0;

async fn populated_export(dir: &std::path::Path) -> (memstr::MemoryStore, std::path::PathBuf) {
    // Shared with the published client: plain d tags, by choice.
    let (store, clock) = open_compatible_at(dir, T0).await;
    store.remember("favorite-color", "green").await.unwrap();
    clock.set(T0 + 5.0);
    store.remember("favorite-color", "blue").await.unwrap();
    store.remember("ns:topic", "a key with colons: a:b:c").await.unwrap();
    store.remember("café-☕", "naïve façade, 日本語, 😀").await.unwrap();
    store.remember("big", &"x".repeat(60_000)).await.unwrap();
    store.remember("doomed", "soon forgotten").await.unwrap();
    clock.set(T0 + 10.0);
    store.forget("doomed").await.unwrap();
    store.forget("never-stored").await.unwrap();
    for (i, text) in ["first entry", "second entry\nwith a newline", "third ✓"].iter().enumerate() {
        store.journal_at(text, T0 + 20.0 + i as f64 * 0.25).await.unwrap();
    }
    store
        .persona_remember(
            PersonaInput::new("people", "facts", "alice-prefers-dark-mode", "Alice prefers dark mode")
                .themes(["ui", "preferences"])
                .source("chat")
                .confidence(0.9)
                // memstr's type travels inside its own object; the client reads past it.
                .memory_type(memstr::MemoryType::Preference),
        )
        .await
        .unwrap();
    store
        .persona_remember(
            PersonaInput::new("world", "beliefs", "coffee-is-healthy", "Coffee is fine").halflife_days(10.0),
        )
        .await
        .unwrap();
    store.persona_remember(PersonaInput::new("world", "beliefs", "coffee-is-harmful", "Coffee is bad")).await.unwrap();
    store.persona_connect("alice-prefers-dark-mode", "coffee-is-healthy").await.unwrap();
    store.persona_contradict("coffee-is-healthy", "coffee-is-harmful").await.unwrap();
    // A vote, counted in memstr's object too.
    store.feedback("alice-prefers-dark-mode", true).await.unwrap();
    clock.set(T0 + 86_400.0 * 3.0);
    // An access, signed at export.
    store.persona_recall(PersonaQuery::exact("people", "facts", "alice-prefers-dark-mode")).await.unwrap();
    store
        .put_embedding(Embedding {
            key: "ns:topic".into(),
            embedding: vec![0.5, -0.25, 1e-5],
            model: "m".into(),
            created_at: T0,
            text_hash: None,
        })
        .await
        .unwrap();
    store
        .put_introspection(IntrospectionReport { total_memories: 3, timestamp: T0 + 30.5, ..Default::default() })
        .await
        .unwrap();
    let file = dir.join("export.jsonl");
    let lines: Vec<String> = store.export_events().await.unwrap().iter().map(|e| e.as_json()).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    (store, file)
}

fn run_py(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = Command::new(python()).args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[tokio::test]
async fn the_published_client_reads_what_memstr_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = populated_export(dir.path()).await;
    store.close().await.unwrap();
    // Exported by the command line, as a user would.
    let file = dir.path().join("cli-export.jsonl");
    run_ok(memstr(dir.path()).args(["export", "--events", "-o"]).arg(&file));
    let expect = json!({
        "kv": {
            "favorite-color": "blue",
            "ns:topic": "a key with colons: a:b:c",
            "café-☕": "naïve façade, 日本語, 😀",
            "big": "x".repeat(60_000),
        },
        "recall": {"favorite-color": "blue", "doomed": null, "never-stored": null},
        "journal_contents": ["first entry", "second entry\nwith a newline", "third ✓"],
        "persona_keys": ["alice-prefers-dark-mode", "coffee-is-healthy", "coffee-is-harmful"],
        "introspection": 1,
        "embed": 1,
    });
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    let script = repo().join("scripts/interop/verify_events.py");
    let (ok, stdout, stderr) = run_py(&[
        script.as_os_str(),
        file.as_os_str(),
        "--secret-hex".as_ref(),
        TEST_SECRET.as_ref(),
        "--expect".as_ref(),
        expect_file.as_os_str(),
    ]);
    assert!(ok, "verify_events.py failed:\n{stdout}\n{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["errors"], json!([]));
    // The forgotten keys left tombstones, which the client skips.
    assert!(result["tombstones"].as_u64().unwrap() >= 2, "{result}");
}

#[tokio::test]
async fn the_published_client_computes_the_same_relevance() {
    let dir = tempfile::tempdir().unwrap();
    let (store, file) = populated_export(dir.path()).await;
    let script = repo().join("scripts/interop/persona_eval.py");
    for now in [T0 + 86_400.0 * 3.0, T0 + 86_400.0 * 40.0, T0 + 86_400.0 * 200.0] {
        let (ok, stdout, stderr) = run_py(&[
            script.as_os_str(),
            file.as_os_str(),
            "--secret-hex".as_ref(),
            TEST_SECRET.as_ref(),
            "--now".as_ref(),
            now.to_string().as_ref(),
        ]);
        assert!(ok, "persona_eval.py failed:\n{stderr}");
        let theirs: Vec<Value> = serde_json::from_str(&stdout).unwrap();
        assert_eq!(theirs.len(), 3);
        for t in theirs {
            let q = PersonaQuery::exact(
                t["domain"].as_str().unwrap(),
                t["facet"].as_str().unwrap(),
                t["key"].as_str().unwrap(),
            );
            let m = store.persona_peek(q).await.unwrap().pop().unwrap();
            let want = t["current_relevance"].as_f64().unwrap();
            assert!(
                (m.current_relevance(now) - want).abs() < 1e-9,
                "{}: {} vs {want}",
                m.key,
                m.current_relevance(now)
            );
            assert_eq!(m.compute_state(now).as_str(), t["state"].as_str().unwrap());
        }
    }
}
