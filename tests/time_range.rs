//! Search by time (issue 23): calendar expressions in a query filter by the memories' own
//! times (the `at` an agent gives, not the signing time), a range with nothing to match
//! lists everything in it, and recency is graded. Without the model: words and times only.

mod support;

use std::sync::Arc;

use memstr::search::{Kind, SearchOutcome, SearchQuery};
use memstr::{Found, ManualClock, MemoryStore, PersonaInput, StoreOptions};
use support::*;

const DAY: f64 = 86_400.0;
/// Wednesday 2026-11-18 15:00 UTC: this week began Monday 16 November.
const NOW: f64 = 1_795_014_000.0;
/// Monday 2026-11-09 00:00 UTC: last week, to Monday 16 November.
const LAST_MONDAY: f64 = 1_794_182_400.0;
/// 2026-08-01 00:00 UTC.
const AUGUST: f64 = 1_785_542_400.0;

async fn open(dir: &std::path::Path) -> MemoryStore {
    let clock = Arc::new(ManualClock::new(NOW));
    MemoryStore::open(dir.join("memstr.db"), test_identity(), StoreOptions::default().clock(clock)).await.unwrap()
}

/// August: three journal entries, a flat memory, a persona memory. November, before last
/// week: an entry and a persona memory that mention August. Last week: eight journal
/// entries from its first second to its last minute. This week: two entries, today.
async fn fill(store: &MemoryStore) {
    for (i, day) in [3.0, 15.0, 28.0].iter().enumerate() {
        store
            .journal_at(&format!("August entry {i}: planned the conference trip"), AUGUST + (day - 1.0) * DAY)
            .await
            .unwrap();
    }
    store.remember_at("august-flat", "The boat was painted blue", AUGUST + 9.0 * DAY).await.unwrap();
    let summer =
        PersonaInput::new("people", "facts", "summer-house", "Dana rented the summer house").at(AUGUST + 19.0 * DAY);
    store.persona_remember(summer).await.unwrap();
    store.journal_at("Booked the August 2027 conference trip", LAST_MONDAY - 6.0 * DAY).await.unwrap();
    let november = PersonaInput::new("people", "facts", "dana-august", "Dana says August is the best month to travel")
        .at(LAST_MONDAY - 5.0 * DAY);
    store.persona_remember(november).await.unwrap();
    store.journal_at("The Sunday before last week, one minute to midnight", LAST_MONDAY - 60.0).await.unwrap();
    for i in 0..8 {
        // From Monday 00:00 to Sunday 23:59 of last week.
        let at = if i == 7 { LAST_MONDAY + 7.0 * DAY - 60.0 } else { LAST_MONDAY + i as f64 * 0.9 * DAY };
        store.journal_at(&format!("Last week's standup {i}: the relay migration"), at).await.unwrap();
    }
    store.journal_at("This week's standup: the relay migration is done", NOW - 2.0 * 3_600.0).await.unwrap();
    store.journal_at("Monday of this week, first thing", LAST_MONDAY + 7.0 * DAY).await.unwrap();
}

async fn outcome(store: &MemoryStore, q: SearchQuery) -> SearchOutcome {
    store.search_outcome(q).await.unwrap()
}

fn times(o: &SearchOutcome) -> Vec<f64> {
    o.hits.iter().map(|h| h.found.time()).collect()
}

#[tokio::test]
async fn what_happened_in_august_2026_returns_only_august_entries() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let o = outcome(&store, SearchQuery::new("what happened in August 2026?").limit(50)).await;
    assert!(!o.hits.is_empty());
    assert!(times(&o).iter().all(|t| (AUGUST..AUGUST + 31.0 * DAY).contains(t)), "{:?}", o.hits);
    // Every August record, and the November ones that only mention the month are out.
    assert_eq!(o.hits.len(), 5, "{:?}", o.hits);
    assert_eq!(o.listed, Some(5));
    assert!(o.hits.iter().all(|h| !h.found.text().contains("2027") && !h.found.text().contains("best month")));
    let range = o.range.clone().unwrap();
    assert_eq!(range.expression.as_deref(), Some("in August 2026"));
    assert_eq!((range.since, range.until), (Some(AUGUST), Some(AUGUST + 31.0 * DAY)));
    // Newest first.
    assert!(times(&o).windows(2).all(|p| p[0] >= p[1]));
}

#[tokio::test]
async fn the_time_words_are_not_searched_for_with_the_rest_of_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    // "conference trip" matches August and November entries; "August 2026" keeps to August
    // and is not itself a word to match (the November entry says "August").
    let o = outcome(&store, SearchQuery::new("the conference trip in August 2026")).await;
    assert_eq!(o.listed, None, "words to match: a ranked search");
    assert!(times(&o).iter().all(|t| (AUGUST..AUGUST + 31.0 * DAY).contains(t)), "{:?}", o.hits);
    assert_eq!(o.hits.iter().filter(|h| h.found.text().starts_with("August entry")).count(), 3, "{:?}", o.hits);
    assert!(o.hits.iter().all(|h| !h.found.text().contains("2027")));
}

#[tokio::test]
async fn a_range_with_no_text_lists_all_eight_entries_of_the_week() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    for text in ["", "   "] {
        let mut q = SearchQuery::new(text).limit(50);
        (q.since, q.until) = (Some(LAST_MONDAY), Some(LAST_MONDAY + 7.0 * DAY));
        let o = outcome(&store, q).await;
        assert_eq!(o.hits.len(), 8, "{text:?}: {:?}", o.hits);
        assert_eq!(o.listed, Some(8));
        assert!(o.hits.iter().all(|h| h.found.text().starts_with("Last week's standup")));
        assert_eq!(o.hits[0].found.text(), "Last week's standup 7: the relay migration", "newest first");
        assert_eq!(o.range.unwrap().expression, None, "the caller's range");
    }
    // The plain search call lists the same.
    let mut q = SearchQuery::new("");
    (q.since, q.until) = (Some(LAST_MONDAY), Some(LAST_MONDAY + 7.0 * DAY));
    assert_eq!(store.search(q).await.unwrap().len(), 8);
}

#[tokio::test]
async fn a_listing_is_cut_by_the_limit_and_counts_the_whole_range() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let mut q = SearchQuery::new("").limit(3).kinds(&[Kind::Journal]);
    (q.since, q.until) = (Some(LAST_MONDAY), Some(LAST_MONDAY + 7.0 * DAY));
    let o = outcome(&store, q).await;
    assert_eq!(o.hits.len(), 3);
    assert_eq!(o.listed, Some(8), "the range holds eight");
    assert_eq!(o.hits[2].found.text(), "Last week's standup 5: the relay migration");
}

#[tokio::test]
async fn last_week_is_the_calendar_week_before_this_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let o = outcome(&store, SearchQuery::new("what happened last week?").limit(50)).await;
    assert_eq!(o.listed, Some(8));
    assert_eq!(o.hits.len(), 8, "{:?}", o.hits);
    // Neither this week's entries (today's, Monday's first second) nor the Sunday before.
    assert!(times(&o).iter().all(|t| (LAST_MONDAY..LAST_MONDAY + 7.0 * DAY).contains(t)));
    // With words to match, a memory may tell of last week's events this week: the search
    // looks a span further, and last week's entries rank above anything after it.
    let o = outcome(&store, SearchQuery::new("relay migration standup last week").limit(50)).await;
    assert!(o.hits.len() >= 8, "{:?}", o.hits);
    let last_week = |h: &memstr::SearchHit| (LAST_MONDAY..LAST_MONDAY + 7.0 * DAY).contains(&h.found.time());
    assert!(o.hits[..8].iter().all(last_week), "{:?}", times(&o));
    assert!(o.hits.iter().all(|h| h.found.time() >= LAST_MONDAY), "nothing before last week: {:?}", times(&o));
}

#[tokio::test]
async fn an_explicit_range_wins_over_the_querys_words() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let mut q = SearchQuery::new("what happened in August 2026?").limit(50);
    (q.since, q.until) = (Some(LAST_MONDAY), Some(LAST_MONDAY + 7.0 * DAY));
    let o = outcome(&store, q).await;
    assert_eq!(o.hits.len(), 8, "the caller's week, not August: {:?}", o.hits);
    assert_eq!(o.range.unwrap().expression, None);
    // Over the caller's wider range, the words' "last week" still ranks: its entries are
    // within (time 1), this week's outside (below 1).
    let mut q = SearchQuery::new("relay migration standup last week").limit(50);
    (q.since, q.until) = (Some(LAST_MONDAY - 7.0 * DAY), Some(NOW + DAY));
    q.min_strength = Some(0.0);
    let hits = store.search(q).await.unwrap();
    let time = |prefix: &str| {
        let h =
            hits.iter().find(|h| h.found.text().starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {hits:?}"));
        h.signals.iter().find(|s| s.name == "time").map(|s| s.value)
    };
    assert_eq!(time("Last week's standup 3"), Some(1.0));
    assert!(time("This week's standup").unwrap() < 1.0);
}

#[tokio::test]
async fn recency_ranks_today_above_last_week() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let mut q = SearchQuery::new("standup relay migration").limit(50);
    q.min_strength = Some(0.0);
    let hits = store.search(q).await.unwrap();
    let recency = |prefix: &str| {
        let h =
            hits.iter().find(|h| h.found.text().starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}: {hits:?}"));
        h.signals.iter().find(|s| s.name == "recency").unwrap().value
    };
    let (today, last_week) = (recency("This week's standup"), recency("Last week's standup 0"));
    assert!(today > last_week, "today {today}, last week {last_week}");
    assert!(today <= 1.0 && last_week > 0.0);
}

#[tokio::test]
async fn an_empty_query_without_a_range_finds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let o = outcome(&store, SearchQuery::new("  ")).await;
    assert!(o.hits.is_empty() && o.listed.is_none() && o.range.is_none());
}

#[tokio::test]
async fn a_listing_leaves_out_archived_records() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let o = outcome(&store, SearchQuery::new("last week").limit(50)).await;
    let first = o.hits[0].path.clone();
    store.archive(&first).await.unwrap();
    let o = outcome(&store, SearchQuery::new("last week").limit(50)).await;
    assert_eq!(o.listed, Some(7));
    assert!(o.hits.iter().all(|h| h.path != first));
    assert!(o.hits.iter().all(|h| matches!(h.found, Found::Journal(_))));
}

#[tokio::test]
async fn a_time_long_before_what_tells_of_it_ranks_rather_than_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    // Written this November about the summer before last: nothing is dated then.
    store.journal_at("We went canoeing on the lake the summer of 2024", NOW - 10.0 * DAY).await.unwrap();
    store.journal_at("Bought a new paddle for the canoe", NOW - 3.0 * DAY).await.unwrap();
    let o = outcome(&store, SearchQuery::new("canoeing on the lake in the summer of 2024")).await;
    assert_eq!(o.hits.first().map(|h| h.found.text()), Some("We went canoeing on the lake the summer of 2024".into()));
    assert!(o.range.is_none(), "the named time did not filter: {:?}", o.range);
    assert!(o.hits[0].signals.iter().any(|s| s.name == "time"), "it ranked");
}

#[tokio::test]
async fn a_time_ahead_of_now_is_matched_by_words_not_filtered() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path()).await;
    fill(&store).await;
    let o = outcome(&store, SearchQuery::new("the conference trip in August 2027")).await;
    assert!(o.range.is_none(), "{:?}", o.range);
    assert_eq!(o.hits.first().map(|h| h.found.text()), Some("Booked the August 2027 conference trip".into()));
}
