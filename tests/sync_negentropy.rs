//! NIP-77 (negentropy) sync, against nostr-relay-builder's in-process relay: the only
//! relay available here that speaks it (nostr-rs-relay does not). The multi-device,
//! fault and interop tests run against nostr-rs-relay (sync_relay.rs).

mod support;

use std::time::Duration;

use memstr::sync::SyncOptions;
use memstr::{PersonaInput, PersonaQuery};
use nostr_relay_builder::MockRelay;
use support::*;

#[tokio::test]
async fn devices_converge_through_a_negentropy_relay() {
    let relay = MockRelay::run().await.unwrap();
    let url = relay.url().await.to_string();
    let opts = SyncOptions { timeout: Duration::from_secs(10), ..Default::default() };
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = open_at(da.path(), 1.8e9).await;
    let (b, _) = open_at(db.path(), 1.8e9).await;
    for s in [&a, &b] {
        s.add_relay(&url, false).await.unwrap();
    }
    for i in 0..5 {
        a.remember(&format!("a{i}"), "from a").await.unwrap();
    }
    a.journal("a's diary").await.unwrap();
    b.persona_remember(PersonaInput::new("self", "facts", "name", "Ada")).await.unwrap();

    let ra = a.sync(&opts).await.unwrap();
    assert_eq!(ra[0].method, "negentropy", "{ra:?}");
    // Six memories and the relay list.
    assert!(ra[0].error.is_none() && ra[0].pushed == 7, "{ra:?}");
    assert_eq!(a.relays().await.unwrap()[0].negentropy, Some(true));

    let rb = b.sync(&opts).await.unwrap();
    assert_eq!(rb[0].method, "negentropy");
    // Each device also signed the agent's relay list when it added the relay: within the
    // same second the two lists are equal (one is stale to the other), across a second
    // boundary the later one is applied. So: the memories exactly, and at most the lists.
    let (p, pulled) = (&rb[0].pulled, |p: &memstr::ImportReport| p.applied + p.stale);
    assert!(p.applied >= 6 && pulled(p) == 7, "b fetched exactly what it lacked: {rb:?}");
    assert!((1..=2).contains(&rb[0].pushed), "its memory, and its list if newer: {rb:?}");

    let ra = a.sync(&opts).await.unwrap();
    let p = &ra[0].pulled;
    assert!(p.applied >= 1 && pulled(p) <= 2 && ra[0].pushed == 0, "{ra:?}");
    for s in [&a, &b] {
        assert_eq!(s.recall_all().await.unwrap().len(), 5);
        assert_eq!(s.recent(1).await.unwrap()[0].content, "a's diary");
        assert_eq!(s.persona_peek(PersonaQuery::all()).await.unwrap().len(), 1);
        assert_eq!(s.stats().await.unwrap().outbox, 0);
    }
    // Nothing left to exchange: a settled pass moves nothing.
    let again = b.sync(&opts).await.unwrap();
    assert_eq!((again[0].pulled.applied, again[0].pulled.duplicate, again[0].pushed), (0, 0, 0), "{again:?}");
}
