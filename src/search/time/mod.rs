//! Times as people and models write them. For filters: ISO 8601 dates and instants, spans
//! back from now (`3d`, `2w`), or Unix seconds ([`parse_time`]). In a query's words:
//! calendar expressions ("last week", "two weeks ago", "last summer", "14/03/2026", "the
//! Friday before 15 July"), each resolved to a range of the memories' own times
//! ([`find_expression`]). In a memory's own words: the time it speaks of, resolved at the
//! memory's time ([`spoken_time`]), for questions that ask when ([`asks_when`]). And how
//! recent a time is.
//!
//! The calendar is UTC: the store keeps no time zone (every time is Unix seconds), so a
//! day starts at 00:00 UTC and a week on Monday 00:00 UTC.

mod calendar;
mod dates;
mod instants;
mod relative;
mod words;

pub use instants::{iso8601_utc, parse_time, TimeError};

use calendar::{Cal, DAY};
use words::{words, At};

/// Seven days, in seconds: the least a ranked search by a named time looks past it.
pub const WEEK: f64 = 7.0 * DAY;

/// Days for [`recency`] to halve. A month: today and last week stay close (0.85 apart from
/// 1), last year is near 0; the LoCoMo notes' recency prior used the same scale.
pub const RECENCY_HALF_LIFE_DAYS: f64 = 30.0;

/// How recent `t` is at `now`: 1 now (and for a time ahead of now), halving every
/// [`RECENCY_HALF_LIFE_DAYS`]. Graded, so an explanation tells today from last week; never
/// rounded, so it orders memories exactly as their times do.
pub fn recency(t: f64, now: f64) -> f64 {
    let days = ((now - t) / DAY).max(0.0);
    0.5f64.powf(days / RECENCY_HALF_LIFE_DAYS)
}

/// How close `t` is to `[start, end)`: 1 within, halving with every range's length (a day
/// at least) outside, so a range a query names still ranks the nearest memories first when
/// the caller's own range decides what is returned.
pub fn closeness(t: f64, start: f64, end: f64) -> f64 {
    let away = if t < start {
        start - t
    } else if t >= end {
        t - end + 1.0
    } else {
        return 1.0;
    };
    0.5f64.powf(away / (end - start).max(DAY))
}

/// A time named by a query's words, resolved against "now" to `[start, end)` Unix seconds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TimeExpression {
    /// The range's first second (inclusive).
    pub start: f64,
    /// Its end (exclusive).
    pub end: f64,
    /// Where its words are in the query (bytes), a preposition before them included ("in",
    /// "on", "during", "from", "of").
    pub span: std::ops::Range<usize>,
}

impl TimeExpression {
    /// The words of `query` that name it.
    pub fn words<'a>(&self, query: &'a str) -> &'a str {
        query.get(self.span.clone()).unwrap_or("")
    }

    /// `query` without them: what is left to match by content. The expression's words are
    /// not content: "august" in a November entry must not make it a hit for "in August".
    pub fn rest(&self, query: &str) -> String {
        let (before, after) = (query.get(..self.span.start).unwrap_or(""), query.get(self.span.end..).unwrap_or(""));
        let joined = format!("{} {}", before.trim_end(), after.trim_start());
        joined.trim_start_matches(|c: char| !c.is_alphanumeric()).trim_end().to_string()
    }
}

/// Words a question about a time asks with besides the time itself ("what happened last
/// week?", "show me the notes from yesterday"): with the stop words, they leave nothing to
/// match, and the question asks for everything in the range ([`is_time_only`]).
pub const TIME_QUESTION_WORDS: &[&str] = &[
    "happened",
    "happen",
    "happens",
    "happening",
    "occurred",
    "anything",
    "everything",
    "something",
    "stuff",
    "things",
    "event",
    "events",
    "going",
    "went",
    "go",
    "show",
    "list",
    "tell",
    "recall",
    "remember",
    "remind",
    "entry",
    "entries",
    "note",
    "notes",
    "journal",
    "memory",
    "memories",
    "say",
    "said",
    "log",
    "logged",
];

/// Whether `text` holds nothing to match by content: no word but stop words and
/// [`TIME_QUESTION_WORDS`] (an empty text included).
pub fn is_time_only(text: &str) -> bool {
    crate::text::tokenize(text)
        .iter()
        .all(|w| crate::text::STOP_WORDS.contains(&w.as_str()) || TIME_QUESTION_WORDS.contains(&w.as_str()))
}

/// Words before an expression that belong to it (removed with it).
const PREPOSITIONS: [&str; 5] = ["in", "on", "during", "from", "of"];

/// The expression starting at `at` (after the word `prev`): the words it takes and its
/// range. "before" and "after" call it again for the time they count from.
fn expression_at(at: At, prev: Option<&str>, c: &Cal) -> Option<(usize, calendar::Span)> {
    at.word(0)?;
    relative::relative_at(at, prev, c)
        .or_else(|| weekday_alone(at, prev, c))
        .or_else(|| dates::date_at(at, prev, c))
        .or_else(|| dates::year_at(at, prev))
}

/// "on Tuesday", or a capitalised "Tuesday" ending the phrase ("what did we decide
/// Tuesday?"): the most recent Tuesday before today. "Friday afternoon deploys", "the
/// Monday standup": a weekday before another word names a habit or a kind of thing.
fn weekday_alone(at: At, prev: Option<&str>, c: &Cal) -> Option<(usize, calendar::Span)> {
    let d = crate::text::WEEKDAYS.iter().position(|d| *d == at.w(0))?;
    let capital = at.word(0)?.raw.starts_with(|c: char| c.is_uppercase()) && at.w(1).is_empty();
    (prev == Some("on") || capital).then(|| (1, c.last_weekday(d as i64)))
}

/// Every expression in `text` resolved at `now`, in order, none overlapping.
fn expressions(text: &str, now: f64) -> impl Iterator<Item = TimeExpression> + '_ {
    let c = Cal::new(now);
    let ws = words(text);
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < ws.len() {
            let prev = i.checked_sub(1).map(|p| ws[p].low.as_str());
            let Some((n, (start, end))) = expression_at(At { ws: &ws, i }, prev, &c) else {
                i += 1;
                continue;
            };
            let first = match prev {
                Some(p) if PREPOSITIONS.contains(&p) => i - 1,
                _ => i,
            };
            let last = (i + n).min(ws.len()) - 1;
            i += n.max(1);
            return Some(TimeExpression { start, end, span: ws[first].start..ws[last].end });
        }
        None
    })
}

/// The first time expression in `query` that names a time not after today, resolved
/// against `now` (UTC calendar). Every form is listed in docs/search.md ("Expressions in a
/// query"). A time ahead ("next week", "tomorrow", "this Friday" asked on a Tuesday) is
/// passed over and its words stay to be matched: memories are dated when they were
/// written, so none is dated there, while memories that speak of it say "next week".
pub fn find_expression(query: &str, now: f64) -> Option<TimeExpression> {
    let end_of_today = Cal::new(now).end_of_today();
    expressions(query, now).find(|e| e.start < end_of_today)
}

/// The time a memory's own words speak of, resolved at the memory's time `at`: "we went
/// camping last week", written on 3 July, speaks of the week of 26 June; "next Friday" of
/// the Friday after `at`. The first expression in `text` (ahead of `at` or not).
pub fn spoken_time(text: &str, at: f64) -> Option<TimeExpression> {
    expressions(text, at).next()
}

/// Whether `query` asks for the time of an event ("when did I ...", "what date was ...",
/// "how long ago did ...", "which year ..."): its answer is a memory that tells of the
/// event, and no time in it is a filter.
pub fn asks_when(query: &str) -> bool {
    let ws = crate::text::tokenize(query);
    let w = |i: usize| ws.get(i).map(String::as_str).unwrap_or("");
    (0..ws.len()).any(|i| match w(i) {
        "when" => {
            i == 0
                || matches!(
                    w(i + 1),
                    "did" | "was" | "were" | "is" | "are" | "do" | "does" | "will" | "has" | "have" | "had" | "would"
                )
        }
        "what" | "which" => matches!(w(i + 1), "date" | "day" | "year" | "month" | "week" | "time"),
        "how" => w(i + 1) == "long" && w(i + 2) == "ago",
        _ => false,
    })
}

/// Fixed nows for the tests of every expression file, and the range a query names at one.
#[cfg(test)]
pub(super) mod fixed {
    use super::*;
    use crate::search::query::days_from_civil;

    pub fn d(y: i64, m: i64, day: i64) -> f64 {
        days_from_civil(y, m, day) as f64 * DAY
    }

    /// 2026-03-11, a Wednesday, 15:00 UTC.
    pub const WED: f64 = 1_773_241_200.0;
    /// 2026-03-15, a Sunday, 23:30 UTC: the last moments of a week.
    pub const SUN: f64 = 1_773_617_400.0;
    /// 2026-03-16, a Monday, 00:10 UTC: the first moments of the next.
    pub const MON: f64 = 1_773_619_800.0;

    pub fn range(q: &str, now: f64) -> Option<(f64, f64)> {
        find_expression(q, now).map(|e| (e.start, e.end))
    }
}

#[cfg(test)]
mod tests {
    use super::fixed::*;
    use super::*;

    #[test]
    fn the_fixed_nows_are_the_days_they_claim() {
        assert_eq!(iso8601_utc(WED), "2026-03-11T15:00:00Z");
        assert_eq!(iso8601_utc(SUN), "2026-03-15T23:30:00Z");
        assert_eq!(iso8601_utc(MON), "2026-03-16T00:10:00Z");
        assert_eq!(Cal::new(WED).weekday, 2);
        assert_eq!(Cal::new(SUN).weekday, 6);
        assert_eq!(Cal::new(MON).weekday, 0);
    }

    #[test]
    fn today_yesterday_and_parts_of_today_are_calendar_days() {
        assert_eq!(range("what did I do today?", WED), Some((d(2026, 3, 11), d(2026, 3, 12))));
        assert_eq!(range("notes from this morning", WED), Some((d(2026, 3, 11), d(2026, 3, 12))));
        assert_eq!(range("plans for tonight", WED), Some((d(2026, 3, 11), d(2026, 3, 12))));
        assert_eq!(range("what happened yesterday", WED), Some((d(2026, 3, 10), d(2026, 3, 11))));
        assert_eq!(range("what happened yesterday", MON), Some((d(2026, 3, 15), d(2026, 3, 16))));
        assert_eq!(range("what did we say last night", WED), Some((d(2026, 3, 10), d(2026, 3, 11))));
    }

    #[test]
    fn last_week_is_the_calendar_week_before_this_one_monday_to_monday() {
        assert_eq!(range("what happened last week?", WED), Some((d(2026, 3, 2), d(2026, 3, 9))));
        assert_eq!(range("previous week", WED), Some((d(2026, 3, 2), d(2026, 3, 9))));
        // On a Sunday, this week is still the one that began six days ago...
        assert_eq!(range("last week", SUN), Some((d(2026, 3, 2), d(2026, 3, 9))));
        assert_eq!(range("this week", SUN), Some((d(2026, 3, 9), d(2026, 3, 16))));
        // ... and on the Monday after, that week is last week.
        assert_eq!(range("last week", MON), Some((d(2026, 3, 9), d(2026, 3, 16))));
        assert_eq!(range("this week", MON), Some((d(2026, 3, 16), d(2026, 3, 23))));
    }

    #[test]
    fn this_week_runs_from_this_monday() {
        assert_eq!(range("what's on this week", WED), Some((d(2026, 3, 9), d(2026, 3, 16))));
    }

    #[test]
    fn months_and_years_are_calendar_months_and_years() {
        assert_eq!(range("last month", WED), Some((d(2026, 2, 1), d(2026, 3, 1))));
        assert_eq!(range("this month", WED), Some((d(2026, 3, 1), d(2026, 4, 1))));
        assert_eq!(
            range("last month", 1_767_225_600.0 + 3_600.0),
            Some((d(2025, 12, 1), d(2026, 1, 1))),
            "across a year"
        );
        assert_eq!(range("trips last year", WED), Some((d(2025, 1, 1), d(2026, 1, 1))));
        assert_eq!(range("goals this year", WED), Some((d(2026, 1, 1), d(2027, 1, 1))));
        assert_eq!(range("what did we ship in 2025?", WED), Some((d(2025, 1, 1), d(2026, 1, 1))));
        assert_eq!(range("during 2024", WED), Some((d(2024, 1, 1), d(2025, 1, 1))));
        assert_eq!(range("the 2025 roadmap", WED), None, "a year alone is not a time");
    }

    #[test]
    fn a_named_month_with_a_year_is_that_month() {
        assert_eq!(range("what happened in August 2025?", WED), Some((d(2025, 8, 1), d(2025, 9, 1))));
        assert_eq!(range("august 2025 trip", WED), Some((d(2025, 8, 1), d(2025, 9, 1))));
        assert_eq!(range("Dec 2025", WED), Some((d(2025, 12, 1), d(2026, 1, 1))));
    }

    #[test]
    fn in_august_is_the_most_recent_august_not_in_the_future() {
        // In March, August is last year's.
        assert_eq!(range("what happened in August?", WED), Some((d(2025, 8, 1), d(2025, 9, 1))));
        assert_eq!(range("in august", WED), Some((d(2025, 8, 1), d(2025, 9, 1))));
        assert_eq!(range("the August offsite", WED), Some((d(2025, 8, 1), d(2025, 9, 1))));
        // The month we are in counts once it has begun; "last" means a finished one.
        assert_eq!(range("in March", WED), Some((d(2026, 3, 1), d(2026, 4, 1))));
        assert_eq!(range("last March", WED), Some((d(2025, 3, 1), d(2025, 4, 1))));
        assert_eq!(range("last February", WED), Some((d(2026, 2, 1), d(2026, 3, 1))));
        assert_eq!(range("in Feb", WED), Some((d(2026, 2, 1), d(2026, 3, 1))));
    }

    #[test]
    fn may_the_verb_and_jan_the_name_are_not_months() {
        assert_eq!(range("may I ask about coffee", WED), None);
        assert_eq!(range("May I ask about coffee", WED), None);
        assert_eq!(range("Jan prefers tea", WED), None);
        assert_eq!(range("what we decided in May", WED), Some((d(2025, 5, 1), d(2025, 6, 1))));
    }

    #[test]
    fn named_days_are_that_day() {
        assert_eq!(range("on 7 July, 2023", WED), Some((d(2023, 7, 7), d(2023, 7, 8))));
        assert_eq!(range("on May 3, 2023", WED), Some((d(2023, 5, 3), d(2023, 5, 4))));
        assert_eq!(range("the 3rd of March", WED), Some((d(2026, 3, 3), d(2026, 3, 4))));
        assert_eq!(range("on March 20", WED), Some((d(2025, 3, 20), d(2025, 3, 21))), "not in the future");
        assert_eq!(range("notes of 2025-08-03", WED), Some((d(2025, 8, 3), d(2025, 8, 4))));
    }

    #[test]
    fn on_tuesday_is_the_most_recent_tuesday_before_today() {
        assert_eq!(range("what did we decide on Tuesday?", WED), Some((d(2026, 3, 10), d(2026, 3, 11))));
        assert_eq!(range("last tuesday", WED), Some((d(2026, 3, 10), d(2026, 3, 11))));
        assert_eq!(range("what happened Thursday", WED), Some((d(2026, 3, 5), d(2026, 3, 6))));
        // A weekday before another word is a kind of thing: the Thursday standup, any week.
        assert_eq!(range("Thursday standup", WED), None);
        // Asked on a Wednesday, "on Wednesday" is a week ago, not today.
        assert_eq!(range("on wednesday", WED), Some((d(2026, 3, 4), d(2026, 3, 5))));
        assert_eq!(range("on Sunday", MON), Some((d(2026, 3, 15), d(2026, 3, 16))));
        assert_eq!(range("on Monday", MON), Some((d(2026, 3, 9), d(2026, 3, 10))));
        assert_eq!(range("the monday meeting", WED), None, "a lowercase weekday needs on or last");
        assert_eq!(range("What went wrong with the Friday afternoon deploy?", WED), None, "a habit, not a date");
        assert!(range("what did we decide Tuesday?", WED).is_some());
    }

    #[test]
    fn n_units_ago_is_that_calendar_day_week_month_or_year() {
        assert_eq!(range("3 days ago", WED), Some((d(2026, 3, 8), d(2026, 3, 9))));
        assert_eq!(range("a week ago", WED), Some((d(2026, 3, 2), d(2026, 3, 9))));
        assert_eq!(range("two weeks ago", MON), Some((d(2026, 3, 2), d(2026, 3, 9))));
        assert_eq!(range("two months ago", WED), Some((d(2026, 1, 1), d(2026, 2, 1))));
        assert_eq!(range("4 months ago", WED), Some((d(2025, 11, 1), d(2025, 12, 1))));
        assert_eq!(range("a year ago", WED), Some((d(2025, 1, 1), d(2026, 1, 1))));
    }

    #[test]
    fn past_spans_count_back_from_now_through_today() {
        assert_eq!(range("over the past week", WED), Some((WED - 7.0 * DAY, d(2026, 3, 12))));
        assert_eq!(range("past 3 days", WED), Some((WED - 3.0 * DAY, d(2026, 3, 12))));
        assert_eq!(range("the last 2 weeks", WED), Some((WED - 14.0 * DAY, d(2026, 3, 12))));
    }

    #[test]
    fn no_expression_no_range() {
        for q in ["coffee preferences", "the last time we met", "this is fine", "week planning", ""] {
            assert_eq!(range(q, WED), None, "{q}");
        }
    }

    #[test]
    fn the_expressions_words_are_not_left_to_match() {
        let q = "what happened in August 2025?";
        let e = find_expression(q, WED).unwrap();
        assert_eq!(e.words(q), "in August 2025");
        assert_eq!(e.rest(q), "what happened ?");
        let q = "Last week, what did Alice say about the relay";
        let e = find_expression(q, WED).unwrap();
        assert_eq!(e.rest(q), "what did Alice say about the relay");
    }

    #[test]
    fn a_question_about_a_time_alone_asks_for_everything_in_it() {
        for q in ["", "  ", "what happened ?", "show me my notes", "anything?"] {
            assert!(is_time_only(q), "{q:?}");
        }
        for q in ["what did Alice say", "relay decisions"] {
            assert!(!is_time_only(q), "{q:?}");
        }
    }

    #[test]
    fn questions_that_ask_for_the_time_of_an_event() {
        for q in [
            "When did I last service the bike?",
            "when was the boiler fixed",
            "What date did we sign the lease?",
            "which year did Sam move",
            "How long ago did we adopt the cat?",
            "remind me when did the roof leak",
        ] {
            assert!(asks_when(q), "{q}");
        }
        for q in
            ["what did we decide about the roof", "call me when you land", "how long is the drive", "the date night"]
        {
            assert!(!asks_when(q), "{q}");
        }
    }

    #[test]
    fn recency_separates_today_last_week_and_last_year() {
        let now = WED;
        let (today, last_week, last_year) =
            (recency(now - 3_600.0, now), recency(now - 7.0 * DAY, now), recency(now - 365.0 * DAY, now));
        assert!(today > last_week && last_week > last_year, "{today} {last_week} {last_year}");
        assert!(today < 1.0 && today > 0.99);
        assert!((recency(now - 30.0 * DAY, now) - 0.5).abs() < 1e-12, "halves in RECENCY_HALF_LIFE_DAYS");
        assert_eq!(recency(now + DAY, now), 1.0, "ahead of now is as recent as now");
    }

    #[test]
    fn closeness_is_one_within_and_falls_with_distance() {
        let (a, b) = (d(2026, 8, 1), d(2026, 9, 1));
        assert_eq!(closeness(a, a, b), 1.0);
        assert_eq!(closeness(b - 1.0, a, b), 1.0);
        assert!(closeness(b, a, b) < 1.0);
        assert!(closeness(a - DAY, a, b) > closeness(a - 60.0 * DAY, a, b));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Words the resolver reads, so random phrases reach its deeper branches.
    const VOCAB: &[&str] = &[
        "the",
        "last",
        "this",
        "next",
        "past",
        "earlier",
        "a",
        "couple",
        "of",
        "few",
        "several",
        "two",
        "13",
        "31",
        "2026",
        "1900",
        "day",
        "days",
        "week",
        "weekend",
        "weekends",
        "month",
        "year",
        "ago",
        "back",
        "before",
        "after",
        "yesterday",
        "today",
        "tomorrow",
        "Friday",
        "on",
        "in",
        "during",
        "over",
        "summer",
        "winter",
        "fall",
        "March",
        "may",
        "Dec",
        "14th",
        "14/03/2026",
        "3/4/2026",
        "2026-02-29",
        "29.02.2024",
        "-",
        "/",
        ".",
        ",",
        "?",
    ];

    proptest! {
        #[test]
        fn any_text_at_any_moment_resolves_without_panicking_to_a_proper_range(
            text in "\\PC{0,60}",
            now in prop::num::f64::ANY,
        ) {
            for e in expressions(&text, now) {
                prop_assert!(e.start < e.end, "{text:?} at {now}: {e:?}");
                prop_assert!(text.get(e.span.clone()).is_some());
            }
            let _ = (find_expression(&text, now), spoken_time(&text, now), asks_when(&text), parse_time(&text, now));
        }

        #[test]
        fn any_phrase_of_time_words_resolves_to_a_proper_range(
            picks in prop::collection::vec(0..VOCAB.len(), 0..8),
            now in -1.0e10f64..1.0e11,
        ) {
            let text = picks.iter().map(|i| VOCAB[*i]).collect::<Vec<_>>().join(" ");
            for e in expressions(&text, now) {
                prop_assert!(e.start < e.end, "{text:?} at {now}: {e:?}");
            }
        }
    }
}
