//! Events from relays and imports are untrusted: every kind of bad event is rejected,
//! counted per reason, and leaves the stored memories exactly as they were.

mod support;

use memstr::codec::Cipher;
use memstr::nostr::{Event, EventBuilder, JsonUtil, Keys, Kind, Tag, Timestamp};
use memstr::MemoryStore;
use serde_json::json;
use support::*;

/// When the test events are dated: in the past, so that a good one is applied at once
/// (events dated more than `memstr::FUTURE_SLACK` ahead of the system clock wait in the
/// quarantine instead).
const T0: f64 = 1_700_000_000.0;

fn me() -> Keys {
    Keys::parse(TEST_SECRET).unwrap()
}

fn self_cipher(keys: &Keys) -> Cipher {
    Cipher::new(keys.secret_key(), &keys.public_key()).unwrap()
}

/// A kind-30078 event by `keys` with `tags` and `content`.
fn app_event(keys: &Keys, tags: Vec<Tag>, content: String) -> Event {
    EventBuilder::new(Kind::from(30078), content)
        .tags(tags)
        .custom_created_at(Timestamp::from(T0 as u64 + 100))
        .sign_with_keys(keys)
        .unwrap()
}

fn d(tag: &str) -> Tag {
    Tag::identifier(tag)
}

fn encrypted(v: serde_json::Value) -> String {
    self_cipher(&me()).encrypt(&v.to_string()).unwrap()
}

fn kv(key: &str, value: &str) -> serde_json::Value {
    json!({"type": "sense-memory:kv", "key": key, "value": value, "ts": T0})
}

async fn store_with_data(dir: &std::path::Path) -> MemoryStore {
    let (store, _) = open_at(dir, T0).await;
    store.remember("victim", "original").await.unwrap();
    store.journal("an entry").await.unwrap();
    store
}

/// Imports `line`, expects exactly one rejection for `reason`, and no other change.
async fn assert_rejected(line: String, reason: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_data(dir.path()).await;
    let before_all = store.recall_all().await.unwrap();
    let before_recent = store.recent(10).await.unwrap();
    let before = store.stats().await.unwrap();
    let report = store.import_json_lines(&line).await.unwrap();
    assert_eq!(report.applied, 0, "{reason}: {report:?}");
    assert_eq!(report.rejected.get(reason), Some(&1), "{reason}: {report:?}");
    let after = store.stats().await.unwrap();
    assert_eq!(after.rejected.get(reason), Some(&1), "{reason}: counted in stats");
    assert_eq!(
        (after.events, after.outbox, after.kv, after.journal),
        (before.events, before.outbox, before.kv, before.journal)
    );
    assert_eq!(store.recall_all().await.unwrap(), before_all, "{reason}");
    assert_eq!(store.recent(10).await.unwrap(), before_recent, "{reason}");
}

#[tokio::test]
async fn tampered_content_fails_signature_check() {
    let e = app_event(&me(), vec![d("sense-memory/victim")], encrypted(kv("victim", "forged")));
    let mut v: serde_json::Value = serde_json::from_str(&e.as_json()).unwrap();
    v["content"] = json!(encrypted(kv("victim", "swapped")));
    assert_rejected(v.to_string(), "bad_signature").await;
}

#[tokio::test]
async fn forged_signature_is_rejected() {
    let e = app_event(&me(), vec![d("sense-memory/victim")], encrypted(kv("victim", "forged")));
    let mut v: serde_json::Value = serde_json::from_str(&e.as_json()).unwrap();
    let other = app_event(&me(), vec![d("sense-memory/x")], encrypted(kv("x", "y")));
    v["sig"] = json!(other.sig.to_string());
    assert_rejected(v.to_string(), "bad_signature").await;
}

#[tokio::test]
async fn foreign_author_is_rejected() {
    let stranger = Keys::generate();
    let content = self_cipher(&stranger).encrypt(&kv("victim", "mine now").to_string()).unwrap();
    let e = app_event(&stranger, vec![d("sense-memory/victim")], content);
    assert_rejected(e.as_json(), "foreign_author").await;
}

#[tokio::test]
async fn unsupported_kind_is_rejected() {
    let e = EventBuilder::text_note("hello").sign_with_keys(&me()).unwrap();
    assert_rejected(e.as_json(), "unsupported_kind").await;
}

#[tokio::test]
async fn missing_duplicate_and_malformed_d_tags_are_rejected() {
    let c = encrypted(kv("victim", "x"));
    assert_rejected(app_event(&me(), vec![], c.clone()).as_json(), "bad_d_tag").await;
    let two = vec![d("sense-memory/victim"), d("sense-memory/other")];
    assert_rejected(app_event(&me(), two, c.clone()).as_json(), "bad_d_tag").await;
    assert_rejected(app_event(&me(), vec![d("sense-memory/persona/a/b")], c.clone()).as_json(), "bad_d_tag").await;
    assert_rejected(app_event(&me(), vec![d("sense-memory/a/../b")], c).as_json(), "bad_d_tag").await;
}

#[tokio::test]
async fn another_applications_data_is_not_taken_for_a_memory() {
    let e = app_event(&me(), vec![d("some-other-app/settings")], encrypted(json!({"theme": "dark"})));
    assert_rejected(e.as_json(), "foreign_d_tag").await;
}

#[tokio::test]
async fn oversized_event_is_rejected() {
    let e = app_event(&me(), vec![d("sense-memory/victim")], "A".repeat(140_000));
    assert_rejected(e.as_json(), "oversized").await;
}

#[tokio::test]
async fn undecryptable_content_is_rejected() {
    // Encrypted to someone else, and plain garbage.
    let stranger = Keys::generate();
    let to_other = Cipher::new(me().secret_key(), &stranger.public_key())
        .unwrap()
        .encrypt(&kv("victim", "x").to_string())
        .unwrap();
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], to_other).as_json(), "undecryptable").await;
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], "plaintext!".into()).as_json(), "undecryptable")
        .await;
}

#[tokio::test]
async fn malformed_payloads_are_rejected() {
    let not_json = self_cipher(&me()).encrypt("not json at all").unwrap();
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], not_json).as_json(), "malformed_payload").await;
    let array = encrypted(json!(["victim", "x"]));
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], array).as_json(), "malformed_payload").await;
    let no_value = encrypted(json!({"type": "sense-memory:kv", "key": "victim"}));
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], no_value).as_json(), "malformed_payload").await;
    let wrong_type = encrypted(json!({"type": "sense-memory:journal", "key": "victim", "value": "x"}));
    assert_rejected(app_event(&me(), vec![d("sense-memory/victim")], wrong_type).as_json(), "malformed_payload").await;
}

#[tokio::test]
async fn payloads_breaking_validation_rules_are_rejected() {
    let p = json!({"type": "sense-memory:persona", "domain": "d", "facet": "f", "key": "k", "value": "v", "confidence": 2.0});
    let e = app_event(&me(), vec![d("sense-memory/persona/d/f/k")], encrypted(p));
    assert_rejected(e.as_json(), "invalid_payload").await;
    let p = json!({"type": "sense-memory:persona", "domain": "d", "facet": "f", "key": "k", "value": "v", "halflife_days": 0});
    let e = app_event(&me(), vec![d("sense-memory/persona/d/f/k")], encrypted(p));
    assert_rejected(e.as_json(), "invalid_payload").await;
}

#[tokio::test]
async fn d_tag_payload_mismatch_is_rejected() {
    // A valid memory for "other" replayed under the victim's d tag.
    let e = app_event(&me(), vec![d("sense-memory/victim")], encrypted(kv("other", "hijack")));
    assert_rejected(e.as_json(), "d_tag_mismatch").await;
    // A blinded d tag whose inner path hashes elsewhere.
    let mut inner = kv("victim", "hijack");
    inner["path"] = json!("sense-memory/victim");
    let e = app_event(&me(), vec![d(&"ab".repeat(32))], encrypted(inner));
    assert_rejected(e.as_json(), "d_tag_mismatch").await;
}

#[tokio::test]
async fn dm_not_to_self_is_rejected() {
    let stranger = Keys::generate();
    let e =
        EventBuilder::new(Kind::from(4), encrypted(json!({"type": "sense-memory:journal", "content": "x", "ts": T0})))
            .tag(Tag::public_key(stranger.public_key()))
            .sign_with_keys(&me())
            .unwrap();
    assert_rejected(e.as_json(), "not_to_self").await;
}

#[tokio::test]
async fn garbage_lines_are_counted_not_fatal() {
    assert_rejected("{\"not\": \"an event\"}".into(), "malformed_event").await;
    assert_rejected("]]]".into(), "malformed_event").await;
}

#[tokio::test]
async fn good_events_beside_bad_ones_still_apply() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_data(dir.path()).await;
    let good = app_event(&me(), vec![d("sense-memory/new")], encrypted(kv("new", "fine")));
    let bad = app_event(&me(), vec![d("sense-memory/victim")], encrypted(kv("other", "hijack")));
    let text = format!("{}\nnot json\n{}\n", bad.as_json(), good.as_json());
    let r = store.import_json_lines(&text).await.unwrap();
    assert_eq!((r.applied, r.rejected_total()), (1, 2), "{r:?}");
    assert_eq!(store.recall("new").await.unwrap().unwrap().value, "fine");
    assert_eq!(store.recall("victim").await.unwrap().unwrap().value, "original");
}

#[tokio::test]
async fn kind4_journal_notes_to_self_are_read_with_nip44_or_nip04() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let payload = json!({"type": "sense-memory:journal", "content": "a note to self", "ts": T0 + 1.5});
    let nip44 = EventBuilder::new(Kind::from(4), encrypted(payload))
        .tag(Tag::public_key(me().public_key()))
        .allow_self_tagging()
        .sign_with_keys(&me())
        .unwrap();
    let legacy = memstr::nostr::nips::nip04::encrypt(
        me().secret_key(),
        &me().public_key(),
        json!({"type": "sense-memory:journal", "content": "an old note", "ts": T0 + 0.5}).to_string(),
    )
    .unwrap();
    let nip04 = EventBuilder::new(Kind::from(4), legacy)
        .tag(Tag::public_key(me().public_key()))
        .allow_self_tagging()
        .sign_with_keys(&me())
        .unwrap();
    let r = store.import_json_lines(&format!("{}\n{}", nip44.as_json(), nip04.as_json())).await.unwrap();
    assert_eq!(r.applied, 2, "{r:?}");
    let recent: Vec<String> = store.recent(5).await.unwrap().into_iter().map(|j| j.content).collect();
    assert_eq!(recent, ["a note to self", "an old note"]);
}
