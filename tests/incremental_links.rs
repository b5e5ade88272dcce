//! Issue 26 point 7: a consolidation cycle compares only the persona memories changed since
//! the last cycle (and those that lost a link to a change), keeping the last cycle's
//! choices for the rest, and links as a full cycle over the same memories would.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use memstr::{LifecycleOptions, ManualClock, MemoryStore, PersonaInput, StoreOptions};
use support::*;

const T0: f64 = 1_800_000_000.0;

fn quiet() -> LifecycleOptions {
    let mut o = LifecycleOptions::default();
    o.consolidate_every = 0;
    o.consolidate_idle = None;
    o
}

async fn open(dir: &Path, life: LifecycleOptions) -> MemoryStore {
    open_clocked(dir, life).await.0
}

async fn open_clocked(dir: &Path, life: LifecycleOptions) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let options = StoreOptions::default().clock(clock.clone()).lifecycle(life);
    (MemoryStore::open(dir.join("memstr.db"), test_identity(), options).await.unwrap(), clock)
}

/// A made-up word, letters only: `n` in base 26 after a fixed stem.
fn word(n: usize) -> String {
    let mut s = String::from("zu");
    let mut n = n + 26 * 26;
    while n > 0 {
        s.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
    }
    s
}

/// Member `m` of group `g`: twelve words of the group and one of its own, so members of a
/// group are alike (word overlap 12/13) and groups share no word.
fn sentence(g: usize, m: usize) -> String {
    let mut words: Vec<String> = (0..12).map(|k| word(g * 20 + k)).collect();
    words.push(word(1_000_000 + g * 20 + m));
    words.join(" ")
}

fn key(g: usize, m: usize) -> String {
    format!("g{g}m{m}")
}

async fn write(store: &MemoryStore, items: &[(String, String)]) {
    let inputs = items.iter().map(|(k, v)| PersonaInput::new("self", "facts", k, v)).collect();
    store.persona_remember_batch(inputs).await.unwrap();
}

/// Every semantic link, as sorted key pairs with their weight.
async fn links(store: &MemoryStore, keys: &[String]) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for k in keys {
        for n in store.graph_neighbours(&format!("self/facts/{k}")).await.unwrap() {
            if n.edge == "semantic" {
                let other = n.id.rsplit('/').next().unwrap_or(&n.id).to_string();
                let (a, b) = if *k < other { (k.clone(), other) } else { (other, k.clone()) };
                out.insert((a, b, format!("{:.3}", n.weight)));
            }
        }
    }
    out
}

#[tokio::test]
async fn a_steady_cycle_compares_only_what_changed_and_links_as_a_full_cycle_would() {
    const GROUPS: usize = 120;
    let dir = tempfile::tempdir().unwrap();
    let (store, clock) = open_clocked(dir.path(), quiet()).await;
    let mut memories: Vec<(String, String)> =
        (0..GROUPS).flat_map(|g| (0..3).map(move |m| (key(g, m), sentence(g, m)))).collect();
    write(&store, &memories).await;
    let first = store.consolidate().await.unwrap();
    assert!(first.compared_all, "the first cycle compares everything: {first:?}");
    assert_eq!(first.compared, 3 * GROUPS);
    assert_eq!(first.linked, 3 * GROUPS, "three links in each group of three");

    // Nothing written: nothing compared, nothing changed.
    let idle = store.consolidate().await.unwrap();
    assert!(!idle.compared_all && idle.compared == 0, "{idle:?}");
    assert!(!idle.changed(), "{idle:?}");

    // New groups, a new member of an old group, a memory moved to another group, and one
    // forgotten.
    let mut added: Vec<(String, String)> =
        (GROUPS..GROUPS + 5).flat_map(|g| (0..3).map(move |m| (key(g, m), sentence(g, m)))).collect();
    added.push((key(2, 3), sentence(2, 3)));
    added.push((key(5, 0), sentence(7, 5)));
    write(&store, &added).await;
    store.forget("self/facts/g9m1").await.unwrap();
    let steady = store.consolidate().await.unwrap();
    assert!(!steady.compared_all, "{steady:?}");
    // 15 + 1 new, 1 moved; the moved one's two old partners and the forgotten one's two.
    assert_eq!(steady.compared, 21, "{steady:?}");

    for (k, v) in added {
        match memories.iter_mut().find(|(old, _)| *old == k) {
            Some(m) => m.1 = v,
            None => memories.push((k, v)),
        }
    }
    memories.retain(|(k, _)| k != "g9m1");
    let keys: Vec<String> = memories.iter().map(|(k, _)| k.clone()).collect();
    let incremental = links(&store, &keys).await;
    assert!(
        incremental.iter().any(|(a, b, _)| (a, b) == (&"g2m0".to_string(), &"g2m3".to_string())),
        "the new member is linked"
    );
    assert!(incremental.iter().any(|(a, b, _)| (a, b) == (&"g5m0".to_string(), &"g7m0".to_string())));

    // The same memories written at once to another store, linked by one full cycle.
    let other = tempfile::tempdir().unwrap();
    let fresh = open(other.path(), quiet()).await;
    write(&fresh, &memories).await;
    let full = fresh.consolidate().await.unwrap();
    assert!(full.compared_all);
    // The same links, but for the moved memory's links to its old group: links no longer
    // found fade with the days rather than go (as before this change).
    let full = links(&fresh, &keys).await;
    let pair = |p: &(String, String, String)| (p.0.clone(), p.1.clone());
    let only_incremental: Vec<_> = incremental.difference(&full).map(pair).collect();
    let stale = |m: &str| ("g5m0".to_string(), m.to_string());
    assert_eq!(only_incremental, [stale("g5m1"), stale("g5m2")], "the incremental cycle links as a full one");
    assert!(full.is_subset(&incremental));

    // Days later, the cycle decays every edge once and restores the links it still finds,
    // those it kept without comparing them included; the stale ones fade.
    clock.set(T0 + 2.0 * 86_400.0);
    let later = store.consolidate().await.unwrap();
    assert_eq!(later.decay_days, 2, "{later:?}");
    assert!(!later.compared_all && later.compared == 0, "{later:?}");
    assert_eq!((later.linked, later.edges_pruned, later.edges), (0, 0, steady.edges), "{later:?}");
    // The stale link and a restored one of the same similarity were equal before the decay.
    let weight = |set: &BTreeSet<(String, String, String)>, a: &str, b: &str| -> f64 {
        set.iter().find(|(x, y, _)| (x.as_str(), y.as_str()) == (a, b)).map(|(_, _, w)| w.parse().unwrap()).unwrap()
    };
    assert_eq!(weight(&incremental, "g5m0", "g5m1"), weight(&incremental, "g5m1", "g5m2"));
    let after = links(&store, &keys).await;
    assert!(
        weight(&after, "g5m0", "g5m1") < weight(&after, "g5m1", "g5m2"),
        "the link no longer found fades, the one found again is restored"
    );
    let same_day = store.consolidate().await.unwrap();
    assert!(!same_day.changed() && same_day.compared == 0, "{same_day:?}");

    // Other settings: the memo of the old ones is not used.
    store.close().await.unwrap();
    let mut life = quiet();
    life.link_similarity = 0.7;
    let store = open(dir.path(), life).await;
    let r = store.consolidate().await.unwrap();
    assert!(r.compared_all, "{r:?}");
    let again = store.consolidate().await.unwrap();
    assert!(!again.compared_all && again.compared == 0, "{again:?}");
}

#[tokio::test]
async fn a_cycle_after_many_changes_compares_everything() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), quiet()).await;
    let batch = |from: usize, to: usize| -> Vec<(String, String)> {
        (from..to).flat_map(|g| (0..3).map(move |m| (key(g, m), sentence(g, m)))).collect()
    };
    write(&store, &batch(0, 50)).await;
    store.consolidate().await.unwrap();
    // 30 of 180 memories new: more than a tenth.
    write(&store, &batch(50, 60)).await;
    let r = store.consolidate().await.unwrap();
    assert!(r.compared_all && r.compared == 180, "{r:?}");
}

/// TEST DOUBLE for the model: each word a fixed pseudo-random direction, a text the
/// normalised sum of its words', so texts sharing words are close.
#[cfg(feature = "vectors")]
struct WordHash;

#[cfg(feature = "vectors")]
impl memstr::index::Embedder for WordHash {
    fn model_id(&self) -> &str {
        "test-word-hash-256"
    }
    fn dims(&self) -> usize {
        256
    }
    fn embed(&self, texts: &[&str]) -> memstr::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 256];
                for w in t.split_whitespace() {
                    let mut h =
                        w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
                    for x in v.iter_mut() {
                        h ^= h << 13;
                        h ^= h >> 7;
                        h ^= h << 17;
                        *x += (h >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                    }
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

/// Above the size where every vector pair is compared (3,000), a steady cycle walks the
/// vector index from the new memory alone and finds its near copy.
#[cfg(feature = "vectors")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_vectors_a_steady_cycle_walks_the_index_from_the_new_memory_only() {
    const GROUPS: usize = 1_050;
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let options = StoreOptions::default().clock(clock).lifecycle(quiet()).embedder(Arc::new(WordHash));
    let store = MemoryStore::open(dir.path().join("memstr.db"), test_identity(), options).await.unwrap();
    let memories: Vec<(String, String)> =
        (0..GROUPS).flat_map(|g| (0..3).map(move |m| (key(g, m), sentence(g, m)))).collect();
    for chunk in memories.chunks(1_000) {
        write(&store, chunk).await;
    }
    store.index_pending().await.unwrap();
    let first = store.consolidate().await.unwrap();
    assert!(first.compared_all && first.compared == 3 * GROUPS, "{first:?}");
    assert!(first.linked > 0, "{first:?}");

    write(&store, &[(key(17, 3), sentence(17, 3))]).await;
    store.index_pending().await.unwrap();
    let steady = store.consolidate().await.unwrap();
    assert!(!steady.compared_all && steady.compared == 1, "{steady:?}");
    let found = links(&store, &[key(17, 3)]).await;
    let partners: BTreeSet<&str> =
        found.iter().map(|(a, b, _)| if a == "g17m3" { b.as_str() } else { a.as_str() }).collect();
    assert_eq!(partners, BTreeSet::from(["g17m0", "g17m1", "g17m2"]), "{found:?}");
}
