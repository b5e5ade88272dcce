//! The calling agent's own phrasings (issue 24 point 2): a search carrying other wordings
//! and a hypothetical answer finds what the question's words cannot, with the real model.

mod support;

use std::sync::Arc;

use memstr::{ManualClock, MemoryStore, PersonaInput, SearchQuery, StoreOptions};
use support::*;

const T0: f64 = 1_800_000_000.0;

async fn store(dir: &std::path::Path) -> MemoryStore {
    let options = StoreOptions::default().clock(Arc::new(ManualClock::new(T0))).embedder(Arc::new(onnx_embedder()));
    let store = MemoryStore::open(dir.join("memstr.db"), test_identity(), options).await.unwrap();
    for (k, v) in [
        ("bob-birthday", "Bob's birthday is on 14 March"),
        ("alice-dark", "Alice prefers dark mode in every editor"),
        ("store-choice", "Chose SQLite over LMDB: one file, FTS5"),
        ("release", "cargo test, then cargo publish, then tag"),
    ] {
        store.persona_remember(PersonaInput::new("people", "facts", k, v)).await.unwrap();
    }
    store
}

fn keys(hits: &[memstr::SearchHit]) -> Vec<String> {
    hits.iter()
        .filter_map(|h| match &h.found {
            memstr::Found::Persona(p) => Some(p.key.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_hypothetical_answer_finds_what_the_questions_words_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path()).await;
    let mut q = SearchQuery::new("when should we buy a present?").limit(3);
    q.hypothetical = Some("Someone's birthday is coming up soon".into());
    let hits = store.search(q).await.unwrap();
    assert_eq!(keys(&hits).first().map(String::as_str), Some("bob-birthday"), "{:?}", keys(&hits));
    let signal = hits[0].signals.iter().find(|s| s.name == "phrasings").expect("the fused signal shows in explain");
    assert_eq!(signal.rank, Some(1));
}

#[tokio::test]
async fn phrasings_fuse_with_the_question_and_keep_its_own_hits() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path()).await;
    let plain = store.search(SearchQuery::new("dark mode editor").limit(3)).await.unwrap();
    let mut q = SearchQuery::new("dark mode editor").limit(3);
    q.phrasings = vec!["which colour scheme does Alice like".into(), "how do we ship a release".into()];
    let fused = store.search(q).await.unwrap();
    assert_eq!(keys(&plain)[0], "alice-dark");
    assert_eq!(keys(&fused)[0], "alice-dark", "found by the question and a phrasing: first");
    assert!(keys(&fused).contains(&"release".to_string()), "found by a phrasing only: {:?}", keys(&fused));
}
