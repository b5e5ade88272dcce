//! Contextual episodes (issue 24 point 1): a journal entry is searchable by the words of
//! the entries beside it in its episode (written within an hour), at a small weight, and
//! that context stays true as entries arrive out of order, are forgotten or purged.
//! Without the model: words only, every hit shown (`min_strength` 0).

mod support;

use std::sync::Arc;

use memstr::{Found, ManualClock, MemoryStore, SearchQuery, StoreOptions};
use support::*;

const T: f64 = 1_790_000_000.0;
const DAY: f64 = 86_400.0;

async fn open(dir: &std::path::Path) -> MemoryStore {
    let clock = Arc::new(ManualClock::new(T + 30.0 * DAY));
    MemoryStore::open(dir.join("memstr.db"), test_identity(), StoreOptions::default().clock(clock)).await.unwrap()
}

/// The journal entries `query`'s words match (their own or their episode's), best first.
async fn found(store: &MemoryStore, query: &str) -> Vec<String> {
    let mut q = SearchQuery::new(query).limit(50);
    q.min_strength = Some(0.0);
    q.strengthen = false;
    // The second hop searches again with the names the best hits mention ("Melanie"), and
    // would match every entry of hers: this checks the first pass's words.
    q.weights = Some(memstr::search::Weights { bridge: 0.0, ..Default::default() });
    store
        .search(q)
        .await
        .unwrap()
        .into_iter()
        // Without the model, `matching` is the words' score alone: other signals (recency,
        // the graph's temporal edges) bring in candidates no word matched.
        .filter(|h| h.signals.iter().any(|s| s.name == "matching" && s.value > 0.0))
        .filter_map(|h| match h.found {
            Found::Journal(j) => Some(j.content),
            _ => None,
        })
        .collect()
}

const QUESTION: &str = "Caroline: Have you been to the pottery workshop yet?";
const REPLY: &str = "Melanie: Yes, last Tuesday, with my sister.";
const LATER: &str = "Melanie: The pottery workshop was my favourite this year.";
const ELSEWHERE: &str = "Melanie: Yes, the train was late again.";

#[tokio::test]
async fn a_reply_is_found_by_the_words_of_the_turn_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    store.journal_at(QUESTION, T).await.unwrap();
    store.journal_at(REPLY, T + 1.0).await.unwrap();
    store.journal_at(LATER, T + 3.0 * DAY).await.unwrap();
    store.journal_at(ELSEWHERE, T + 6.0 * DAY).await.unwrap();
    let hits = found(&store, "pottery workshop").await;
    assert!(hits.contains(&REPLY.to_string()), "the reply, by its episode: {hits:?}");
    assert!(!hits.contains(&ELSEWHERE.to_string()), "an entry of another episode: {hits:?}");
    let at = |s: &str| hits.iter().position(|h| h == s).unwrap();
    assert!(at(QUESTION) < at(REPLY) && at(LATER) < at(REPLY), "its own words weigh more: {hits:?}");
}

#[tokio::test]
async fn an_entry_more_than_an_hour_away_is_another_episode() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    store.journal_at(QUESTION, T).await.unwrap();
    store.journal_at(REPLY, T + 3_601.0).await.unwrap();
    assert_eq!(found(&store, "pottery workshop").await, [QUESTION]);
}

#[tokio::test]
async fn an_entry_arriving_between_two_becomes_the_neighbour_of_both() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    // As a relay may deliver them: the first and the third, then the second.
    store.journal_at(QUESTION, T).await.unwrap();
    store.journal_at(ELSEWHERE, T + 120.0).await.unwrap();
    assert!(found(&store, "pottery").await.contains(&ELSEWHERE.to_string()), "neighbours before the middle one");
    store.journal_at(REPLY, T + 60.0).await.unwrap();
    let hits = found(&store, "pottery").await;
    assert!(hits.contains(&REPLY.to_string()), "{hits:?}");
    assert!(!hits.contains(&ELSEWHERE.to_string()), "the question is no longer beside it: {hits:?}");
    let hits = found(&store, "train late").await;
    assert!(hits.contains(&REPLY.to_string()), "the reply is beside the third now: {hits:?}");
}

#[tokio::test]
async fn forgetting_an_entry_takes_its_words_out_of_its_neighbours_context() {
    for purge in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path()).await;
        store.journal_at(QUESTION, T).await.unwrap();
        store.journal_at(REPLY, T + 1.0).await.unwrap();
        store.journal_at(ELSEWHERE, T + 2.0).await.unwrap();
        assert!(found(&store, "pottery").await.contains(&REPLY.to_string()));
        let hits = store.search(SearchQuery::new("pottery workshop").limit(1)).await.unwrap();
        assert_eq!(hits[0].found.text(), QUESTION);
        let question = hits[0].path.clone();
        match purge {
            true => store.purge(&question).await.unwrap(),
            false => store.forget(&question).await.unwrap(),
        };
        assert!(found(&store, "pottery").await.is_empty(), "purge {purge}");
        // The two left are one episode still.
        assert!(found(&store, "train").await.contains(&REPLY.to_string()), "purge {purge}");
    }
}

#[tokio::test]
async fn context_survives_reopening_and_a_hit_by_it_alone_stays_below_the_cutoff() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path()).await;
        store.journal_at(QUESTION, T).await.unwrap();
        store.journal_at(REPLY, T + 1.0).await.unwrap();
        store.close().await.unwrap();
    }
    let store = open(dir.path()).await;
    assert!(found(&store, "pottery").await.contains(&REPLY.to_string()));
    // Strength is a record's own: a hit found only by its neighbours' words is weak, and
    // the calibrated cutoff leaves it out.
    let hits = store.search(SearchQuery::new("pottery workshop")).await.unwrap();
    let texts: Vec<String> = hits.iter().map(|h| h.found.text()).collect();
    assert_eq!(texts, [QUESTION], "{texts:?}");
}

#[tokio::test]
async fn a_store_from_before_episodes_gets_their_context_on_opening() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path()).await;
        store.journal_at(QUESTION, T).await.unwrap();
        store.journal_at(REPLY, T + 1.0).await.unwrap();
        store.journal_at(ELSEWHERE, T + 2.0 * 3_600.0).await.unwrap();
        store.close().await.unwrap();
    }
    // The full-text table as schema 8 had it: no context column.
    let conn = rusqlite::Connection::open(dir.path().join("memstr.db")).unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE old_fts USING fts5(key, themes, value, tokenize = 'porter unicode61 remove_diacritics 2');
         INSERT INTO old_fts (rowid, key, themes, value) SELECT rowid, key, themes, value FROM records_fts;
         DROP TABLE records_fts;
         ALTER TABLE old_fts RENAME TO records_fts;
         PRAGMA user_version = 8;",
    )
    .unwrap();
    drop(conn);
    let store = open(dir.path()).await;
    assert_eq!(found(&store, "pottery").await, [QUESTION, REPLY]);
    assert_eq!(found(&store, "train").await, [ELSEWHERE], "two hours away: another episode");
}
