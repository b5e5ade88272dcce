//! Archive, restore, forget and purge on every kind of memory (a flat key, a persona
//! address, a journal entry, a keyed fact), locally and through a real nostr-rs-relay; the
//! strong cue that revives a sleeping memory in search; and that reviving signs nothing.

mod support;

use std::time::Duration;

use memstr::search::Kind;
use memstr::sync::SyncOptions;
use memstr::{Error, MemoryState, MemoryStore, PersonaInput, PersonaQuery, SearchQuery};
use support::relay::LocalRelay;
use support::*;

const T0: f64 = 1_790_000_000.0;
const DAY: f64 = 86_400.0;

/// One memory of each kind; returns their addresses (flat, persona, journal, fact).
async fn one_of_each(store: &MemoryStore) -> [String; 4] {
    store.remember("wifi-password", "correct horse battery staple").await.unwrap();
    store
        .persona_remember(PersonaInput::new("people", "facts", "marco-birthday", "Marco's birthday is on 14 March"))
        .await
        .unwrap();
    store.journal_at("Dinner at the harbour with the rowing club", T0 + 5.0).await.unwrap();
    store.fact_set("self", "dana", "city", "Lisbon").await.unwrap();
    let journal = store.resolve(&memstr::MemoryPath::journal(T0 + 5.0).to_d()).await;
    [
        "kv/wifi-password".to_string(),
        "people/facts/marco-birthday".to_string(),
        journal.unwrap().address,
        "self/facts/dana:city".to_string(),
    ]
}

/// Paths of the hits of a plain search (no access counted).
async fn found(store: &MemoryStore, query: &str) -> Vec<String> {
    let mut q = SearchQuery::new(query);
    q.strengthen = false;
    store.search(q).await.unwrap().into_iter().map(|h| h.path).collect()
}

async fn path_of(store: &MemoryStore, address: &str) -> String {
    store.resolve(address).await.unwrap().path
}

#[tokio::test]
async fn archive_and_restore_each_kind_out_of_search_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let addresses = one_of_each(&store).await;
    let queries = ["wifi password", "when is Marco's birthday", "harbour rowing club dinner", "dana city lisbon"];
    for (address, query) in addresses.iter().zip(queries) {
        let path = path_of(&store, address).await;
        assert!(found(&store, query).await.contains(&path), "{address} is found before archiving");
        assert_eq!(store.archive(address).await.unwrap(), *address);
        // Revival off: an archived memory is out of search, whatever the query.
        let mut q = SearchQuery::new(query);
        q.strengthen = false;
        q.revive = false;
        assert!(
            !store.search(q).await.unwrap().iter().any(|h| h.path == path),
            "{address} is out of search once archived"
        );
        // Still there: exact reads find it, with its mark.
        assert_eq!(store.resolve(address).await.unwrap().path, path);
        assert_eq!(store.restore(address).await.unwrap(), *address);
        assert!(found(&store, query).await.contains(&path), "{address} is back after restore");
    }
    // Context leaves archived memories out: compression, and the journal's newest entries;
    // a flat recall shows the mark.
    assert!(store.persona_compress(None).await.unwrap().contains("14 March"));
    store.archive("people/facts/marco-birthday").await.unwrap();
    assert!(!store.persona_compress(None).await.unwrap().contains("14 March"));
    store.archive(&addresses[2]).await.unwrap();
    assert!(store.recent(10).await.unwrap().is_empty());
    store.archive("kv/wifi-password").await.unwrap();
    assert!(store.recall("wifi-password").await.unwrap().unwrap().archived_at.is_some());
    // Archiving twice, or restoring a live memory, changes nothing and signs nothing.
    let events = store.stats().await.unwrap().events;
    store.archive("kv/wifi-password").await.unwrap();
    store.restore("people/facts/marco-birthday").await.unwrap();
    assert_eq!(store.stats().await.unwrap().events, events);
}

#[tokio::test]
async fn forget_works_on_every_kind_and_never_guesses() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let addresses = one_of_each(&store).await;
    // A bare key naming a flat memory and a persona memory is refused, listing both.
    store.remember("marco-birthday", "14 March").await.unwrap();
    match store.forget("marco-birthday").await {
        Err(Error::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, ["kv/marco-birthday", "people/facts/marco-birthday"])
        }
        other => panic!("expected an ambiguity, got {other:?}"),
    }
    assert!(store.recall("marco-birthday").await.unwrap().is_some(), "nothing was forgotten");
    let err = store.archive("marco-birthday").await.unwrap_err().to_string();
    assert!(err.contains("kv/marco-birthday") && err.contains("people/facts/marco-birthday"), "{err}");
    store.forget("kv/marco-birthday").await.unwrap();

    let queries = ["wifi password", "when is Marco's birthday", "harbour rowing club dinner", "dana city lisbon"];
    for (address, query) in addresses.iter().zip(queries) {
        let path = path_of(&store, address).await;
        let id = store.forget(address).await.unwrap();
        assert!(store.outbox().await.unwrap().contains(&id), "a NIP-09 deletion is queued for {address}");
        assert!(!found(&store, query).await.contains(&path), "{address} leaves search at once");
        assert!(matches!(store.resolve(address).await, Err(Error::NotFound(_))), "{address} is gone");
    }
    assert!(store.fact_get("self", "dana", "city").await.unwrap().is_none());
    // The client's forget of a flat key never seen here still works (relays may hold it).
    store.forget("never-seen").await.unwrap();
    assert!(matches!(store.archive("never-seen").await, Err(Error::NotFound(_))));
}

/// Whether `needle` occurs in any file of the store's directory (database, WAL, SHM).
fn on_disk(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                hits.push(path.display().to_string());
            }
        }
    }
    hits
}

#[tokio::test]
async fn purge_wipes_every_local_remnant() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = open_at(dir.path(), T0).await;
    let addresses = one_of_each(&store).await;
    let secrets =
        ["correct horse battery staple", "Marco's birthday is on 14 March", "harbour with the rowing", "Lisbon"];
    // The graph's learned edges of the persona memory go too.
    store
        .persona_remember(PersonaInput::new("people", "facts", "marco-bass", "Marco plays bass on Marco's birthday"))
        .await
        .unwrap();
    store.consolidate().await.unwrap();
    for (address, secret) in addresses.iter().zip(secrets) {
        assert!(!on_disk(dir.path(), secret).is_empty(), "{secret:?} is on disk before the purge");
        let id = store.purge(address).await.unwrap();
        assert!(store.outbox().await.unwrap().contains(&id), "purge forgets everywhere too");
        assert!(on_disk(dir.path(), secret).is_empty(), "{secret:?} left on disk: {:?}", on_disk(dir.path(), secret));
        assert!(matches!(store.resolve(address).await, Err(Error::NotFound(_))));
    }
    // The key of the purged persona memory is gone from the local tables as well.
    store.close().await.unwrap();
    assert!(on_disk(dir.path(), "marco-birthday").is_empty(), "{:?}", on_disk(dir.path(), "marco-birthday"));
}

#[tokio::test]
async fn a_strong_cue_revives_a_forgotten_or_archived_memory_and_signs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store
        .persona_remember(PersonaInput::new("people", "facts", "marco-birthday", "Marco's birthday is on 14 March"))
        .await
        .unwrap();
    store
        .persona_remember(PersonaInput::new("projects", "decisions", "db-choice", "We chose Postgres over MySQL"))
        .await
        .unwrap();
    store.remember("gate-code", "the garage gate code is 4417").await.unwrap();
    store.archive("kv/gate-code").await.unwrap();
    let later = T0 + 150.0 * DAY;
    clock.set(later);
    store.persona_prune().await.unwrap();
    let marco = store.persona_peek(PersonaQuery::exact("people", "facts", "marco-birthday")).await.unwrap().remove(0);
    assert_eq!(store.live(&marco, later).1, MemoryState::Forgotten);
    store.flush_accesses().await.unwrap();
    let events = store.stats().await.unwrap().events;

    // An unrelated question does not bring it back (below the strength cutoff) ...
    assert!(found(&store, "which database did we pick").await.iter().all(|p| !p.contains("marco")));
    // ... a strong one does, marked, and its access revives it.
    let hits = store.search(SearchQuery::new("When is Marco's birthday?").limit(3)).await.unwrap();
    let hit = hits.iter().find(|h| h.path.ends_with("marco-birthday")).expect("a strong cue finds it");
    assert!(hit.revived, "marked as revived");
    let marco = store.persona_peek(PersonaQuery::exact("people", "facts", "marco-birthday")).await.unwrap().remove(0);
    assert_eq!(store.live(&marco, later).1, MemoryState::Active, "the access revived it");
    let hits = store.search(SearchQuery::new("garage gate code").limit(3)).await.unwrap();
    assert!(hits.iter().any(|h| h.path == "sense-memory/gate-code" && h.revived));
    assert!(store.recall("gate-code").await.unwrap().unwrap().archived_at.is_none(), "out of the archive");
    // Reviving is local bookkeeping: nothing was signed by the searches.
    assert_eq!(store.stats().await.unwrap().events, events);
    assert_eq!(store.flush_accesses().await.unwrap(), 2, "signed with the next batch of accesses");

    // persona_search keeps the published client's rule: forgotten memories stay out.
    clock.set(later + 200.0 * DAY);
    let hits = store.persona_search("Postgres MySQL", 5).await.unwrap();
    assert!(hits.is_empty(), "{hits:?}");
    let mut q = SearchQuery::new("Postgres MySQL").kinds(&[Kind::Persona]);
    q.strengthen = false;
    assert_eq!(store.search(q).await.unwrap().len(), 1, "search itself revives it");
}

#[tokio::test]
async fn decay_ranks_a_forgotten_memory_below_a_fresh_one_and_never_hides_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_at(dir.path(), T0).await;
    store
        .persona_remember(PersonaInput::new("people", "facts", "marco-birthday", "Marco's birthday is on 14 March"))
        .await
        .unwrap();
    // Other memories, so that the query's words are rare enough to count (IDF).
    for (i, text) in
        ["The standup is at 9:30", "Tom prefers written feedback", "Deploys happen on Thursdays"].iter().enumerate()
    {
        store.persona_remember(PersonaInput::new("work", "facts", &format!("note-{i}"), text)).await.unwrap();
    }
    let later = T0 + 150.0 * DAY;
    clock.set(later);
    store
        .persona_remember(PersonaInput::new(
            "people",
            "events",
            "marco-party",
            "Marco's birthday party will be at the rooftop bar on Friday",
        ))
        .await
        .unwrap();
    let old = store.persona_peek(PersonaQuery::exact("people", "facts", "marco-birthday")).await.unwrap().remove(0);
    assert_eq!(store.live(&old, later).1, MemoryState::Forgotten);

    // The query matches the fresh memory far better: the forgotten one is no strong cue,
    // yet it is returned (second, marked), because decay orders memories and hides none.
    let mut q = SearchQuery::new("Marco birthday party rooftop bar").limit(5);
    q.strengthen = false;
    let hits = store.search(q).await.unwrap();
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(paths[0].ends_with("marco-party") && !hits[0].revived, "{paths:?}");
    assert!(paths[1].ends_with("marco-birthday") && hits[1].revived, "{paths:?}");

    // An archived memory is different: out of search unless the cue is strong.
    store.archive("people/facts/marco-birthday").await.unwrap();
    let mut q = SearchQuery::new("Marco birthday party rooftop bar").limit(5);
    q.strengthen = false;
    let hits = store.search(q).await.unwrap();
    assert!(hits.iter().all(|h| !h.path.ends_with("marco-birthday")), "{hits:?}");
}

fn opts() -> SyncOptions {
    SyncOptions { timeout: Duration::from_secs(10), connect_timeout: Duration::from_secs(5), ..Default::default() }
}

async fn sync_ok(store: &MemoryStore) {
    for r in store.sync(&opts()).await.unwrap() {
        assert!(r.error.is_none(), "{r:?}");
    }
}

#[tokio::test]
async fn through_a_relay_an_archive_restores_on_a_second_device_and_a_purge_is_gone_from_both() {
    let relay = LocalRelay::start();
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, ca) = open_at(da.path(), T0).await;
    let (b, cb) = open_at(db.path(), T0).await;
    for s in [&a, &b] {
        s.add_relay(&relay.url(), false).await.unwrap();
    }
    let addresses = one_of_each(&a).await;
    sync_ok(&a).await;
    sync_ok(&b).await;
    for address in &addresses {
        assert!(b.resolve(address).await.is_ok(), "{address} reached the second device");
    }

    // Archived on A: B sees the mark and keeps it out of search; B restores; A sees that.
    ca.set(T0 + 60.0);
    cb.set(T0 + 60.0);
    for address in &addresses {
        a.archive(address).await.unwrap();
    }
    sync_ok(&a).await;
    sync_ok(&b).await;
    let mut q = SearchQuery::new("Marco birthday");
    q.revive = false;
    q.strengthen = false;
    assert!(b.search(q.clone()).await.unwrap().is_empty(), "archived on the second device too");
    let marco = b.persona_peek(PersonaQuery::exact("people", "facts", "marco-birthday")).await.unwrap().remove(0);
    assert!(marco.sync.life.archived_at.is_some());
    assert!(b.recall("wifi-password").await.unwrap().unwrap().archived_at.is_some());
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for address in &addresses {
        b.restore(address).await.unwrap();
    }
    sync_ok(&b).await;
    sync_ok(&a).await;
    assert_eq!(a.search(q).await.unwrap().len(), 1, "restored on the first device");
    assert_eq!(a.recent(5).await.unwrap().len(), 1);

    // Purged on A: gone from B, and the relay serves no version of it.
    for address in &addresses {
        a.purge(address).await.unwrap();
    }
    sync_ok(&a).await;
    sync_ok(&b).await;
    for address in &addresses {
        assert!(matches!(b.resolve(address).await, Err(Error::NotFound(_))), "{address} gone from B");
    }
    let c = tempfile::tempdir().unwrap();
    let (fresh, _) = open_at(c.path(), T0).await;
    fresh.add_relay(&relay.url(), false).await.unwrap();
    sync_ok(&fresh).await;
    for address in &addresses {
        assert!(matches!(fresh.resolve(address).await, Err(Error::NotFound(_))), "{address}: the relay holds no copy");
    }
}

/// Whether any file of the saved vector index holds `point` (an int8 vector's bytes).
fn index_holds(db_dir: &std::path::Path, point: &[i8]) -> bool {
    let bytes: Vec<u8> = point.iter().map(|&x| x as u8).collect();
    let dir = db_dir.join("memstr.db.vectors");
    std::fs::read_dir(&dir).unwrap().any(|f| {
        let data = std::fs::read(f.unwrap().path()).unwrap();
        data.windows(bytes.len()).any(|w| w == bytes.as_slice())
    })
}

#[tokio::test]
async fn a_purge_by_a_process_that_does_not_own_the_index_leaves_no_vector_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let model: std::sync::Arc<dyn memstr::index::Embedder> = std::sync::Arc::new(onnx_embedder());
    let open = |m: std::sync::Arc<dyn memstr::index::Embedder>| {
        let path = dir.path().join("memstr.db");
        async move { MemoryStore::open(path, test_identity(), memstr::StoreOptions::default().embedder(m)).await.unwrap() }
    };
    let a = open(model.clone()).await;
    a.remember("gate-code", "the garage gate code is 4417").await.unwrap();
    a.remember("editor", "helix").await.unwrap();
    a.index_pending().await.unwrap();
    a.close().await.unwrap();
    let point =
        memstr::index::vectors::quantize(&model.embed(&["gate-code: the garage gate code is 4417"]).unwrap()[0]);
    assert!(index_holds(dir.path(), &point), "the saved index holds the memory's vector");

    // A server holds the index; a CLI command (another handle) purges the memory.
    let server = open(model.clone()).await;
    assert!(server.owns_vector_index());
    let cli = open(model.clone()).await;
    assert!(!cli.owns_vector_index());
    cli.purge("gate-code").await.unwrap();
    cli.close().await.unwrap();
    server.close().await.unwrap();
    // The next owner's loader reconciles with SQLite and blanks the purged point.
    let next = open(model.clone()).await;
    next.index_pending().await.unwrap();
    next.close().await.unwrap();
    assert!(!index_holds(dir.path(), &point), "the purged memory's vector is gone from the index files");
}
