//! Times named relative to a moment: "yesterday", "last Saturday", "two weeks ago", "a
//! couple of days ago", "the week before last", "last summer", "earlier this month", "over
//! the weekend", and "the Friday before 15 July" (a time relative to another one).

use super::calendar::{season_span, Cal, Span};
use super::words::{count, month_of, season, unit, vague_count, At, UNIT_DAYS};
use super::DAY;
use crate::text::WEEKDAYS;

/// A weekday after "last", "this", "next" or in "the Friday before": its full name or a
/// short one ("last Fri"); the short ones are words too ("sun"), so never alone.
fn weekday(w: &str) -> Option<i64> {
    const SHORT: [&str; 10] = ["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"];
    const OF_SHORT: [i64; 10] = [0, 1, 1, 2, 3, 3, 3, 4, 5, 6];
    WEEKDAYS
        .iter()
        .position(|d| *d == w)
        .map(|d| d as i64)
        .or_else(|| SHORT.iter().position(|s| *s == w).map(|i| OF_SHORT[i]))
}

/// A month after "this", "last" or "next": "may" only capitalised ("this may help").
fn named_month(at: At, j: usize) -> Option<i64> {
    let w = at.word(j)?;
    let (mo, _) = month_of(w)?;
    (w.low != "may" || w.raw.starts_with('M')).then_some(mo)
}

/// Words after which a season alone is a time ("in summer", "during the winter"); without
/// them "summer" is a kind of thing ("the summer house").
const SEASON_CONTEXT: [&str; 5] = ["in", "during", "over", "through", "throughout"];

/// The relative expression starting at `at` (after `prev`): the words it takes and its range.
pub(super) fn relative_at(at: At, prev: Option<&str>, c: &Cal) -> Option<(usize, Span)> {
    let w = |j: usize| at.w(j);
    match w(0) {
        "today" | "tonight" => return Some((1, c.days(0, 1))),
        "tomorrow" => return Some((1, c.days(1, 2))),
        "yesterday" => return Some((1, c.days(-1, 0))),
        "earlier" => {
            // "earlier this week": from the unit's start through today.
            return match (w(1), w(2)) {
                ("today", _) => Some((2, c.days(0, 1))),
                ("this", u) => {
                    let start = match unit(u).filter(|_| !u.ends_with('s'))? {
                        0 => c.days(0, 1).0,
                        1 => c.week(0).0,
                        2 => c.month(0).0,
                        _ => c.year(0).0,
                    };
                    Some((3, (start, c.end_of_today())))
                }
                _ => None,
            };
        }
        "this" => {
            if w(1) == "past" {
                return last(at.from(1), c).map(|(n, span)| (n + 1, span));
            }
            let span = match w(1) {
                "morning" | "afternoon" | "evening" => c.days(0, 1),
                "week" => c.week(0),
                "weekend" => c.weekend(0),
                "month" => c.month(0),
                "year" => c.year(0),
                u => {
                    if let Some(d) = weekday(u) {
                        c.this_weekday(d)
                    } else if let Some(s) = season(u).filter(|_| !u.ends_with('s')) {
                        c.this_season(s)
                    } else {
                        super::calendar::month_span(c.y, named_month(at, 1)?)
                    }
                }
            };
            return Some((2, span));
        }
        "last" | "previous" | "past" => return last(at, c),
        "next" => return next(at, c),
        "the" => return the(at, prev, c),
        _ => {}
    }
    if let Some(found) = ago(at, c) {
        return Some(found);
    }
    if let Some(found) = before_or_after(at, c) {
        return Some(found);
    }
    let s = season(w(0)).filter(|_| !w(0).ends_with('s'))?;
    season_named(at, s, prev.is_some_and(|p| SEASON_CONTEXT.contains(&p)), c)
}

/// "summer 2022", "summer of 2022", and, after "in"/"during"/"over", "summer".
fn season_named(at: At, s: usize, context: bool, c: &Cal) -> Option<(usize, Span)> {
    if let Some(y) = super::words::year(at.w(1)) {
        return Some((2, season_span(s, y)));
    }
    if at.w(1) == "of" {
        if let Some(y) = super::words::year(at.w(2)) {
            return Some((3, season_span(s, y)));
        }
    }
    context.then(|| (1, c.latest_season(s)))
}

/// "the day before yesterday", "the week before last", "the week of 23 August", "over the
/// weekend", "during the summer (of 2022)", "the Friday before 15 July".
fn the(at: At, prev: Option<&str>, c: &Cal) -> Option<(usize, Span)> {
    let w = |j: usize| at.w(j);
    if w(2) == "before" && w(3) == "last" {
        let span = match w(1) {
            "week" => c.week(2),
            "weekend" => c.weekend(2),
            "month" => c.month(2),
            "year" => c.year(2),
            _ => return None,
        };
        return Some((4, span));
    }
    if w(1) == "weekend" && prev == Some("over") {
        // The weekend we are in, or else the one just gone.
        return Some((2, if c.weekday >= 5 { c.weekend(0) } else { c.weekend(1) }));
    }
    if let Some(s) = season(w(1)).filter(|_| !w(1).ends_with('s')) {
        let context = prev.is_some_and(|p| SEASON_CONTEXT.contains(&p));
        return season_named(at.from(1), s, context, c).map(|(n, span)| (n + 1, span));
    }
    if matches!(w(1), "week" | "weekend") && w(2) == "of" {
        let (n, (start, _)) = super::expression_at(at.from(3), Some("of"), c)?;
        let r = Cal::new(start);
        return Some((3 + n, if w(1) == "week" { r.week(0) } else { r.weekend(if r.weekday >= 5 { 0 } else { 1 }) }));
    }
    before_or_after(at.from(1), c).map(|(n, span)| (n + 1, span))
}

/// "last week", "last Saturday", "last summer", "past 3 days", "the last couple of weeks".
fn last(at: At, c: &Cal) -> Option<(usize, Span)> {
    let w = |j: usize| at.w(j);
    // "the last weekend before 10 April" counts from the date, not from now.
    if let Some((n, span)) = before_or_after(at.from(1), c) {
        return Some((n + 1, span));
    }
    let rolling = w(0) == "past";
    // "past 3 days", "last 2 weeks", "last few days": back from now, through today.
    if let (Some(n), Some(u)) = (count(w(1)), unit(w(2))) {
        return Some((3, c.back(n as f64 * UNIT_DAYS[u] * DAY)));
    }
    if let Some((_, most)) = vague_count(w(1)) {
        let of = usize::from(w(2) == "of");
        if let Some(u) = unit(w(2 + of)) {
            return Some((3 + of, c.back(most as f64 * UNIT_DAYS[u] * DAY)));
        }
    }
    if let Some(u) = unit(w(1)).filter(|_| !w(1).ends_with('s')) {
        let span = match (rolling, u) {
            (true, _) => c.back(UNIT_DAYS[u] * DAY),
            (false, 0) => c.days(-1, 0),
            (false, 1) => c.week(1),
            (false, 2) => c.month(1),
            _ => c.year(1),
        };
        return Some((2, span));
    }
    let span = match w(1) {
        "night" => c.days(-1, 0),
        // The weekend of last week: on a Sunday, not the one still going on.
        "weekend" => c.weekend(1),
        u => {
            if let Some(d) = weekday(u) {
                c.last_weekday(d)
            } else if let Some(s) = season(u).filter(|_| !u.ends_with('s')) {
                c.last_season(s)
            } else {
                let mo = named_month(at, 1)?;
                super::calendar::month_span(c.year_of(mo, None, true), mo)
            }
        }
    };
    Some((2, span))
}

/// "next week", "next Friday" (the first after today), "next summer": ahead of the moment,
/// so a query ignores them (no memory is dated there) and a memory's text means them.
fn next(at: At, c: &Cal) -> Option<(usize, Span)> {
    let u = at.w(1);
    let span = match u {
        "week" => c.week(-1),
        "weekend" => c.weekend(if c.weekday >= 5 { -1 } else { 0 }),
        "month" => c.month(-1),
        "year" => c.year(-1),
        _ => {
            if let Some(d) = weekday(u) {
                c.next_weekday(d)
            } else if let Some(s) = season(u).filter(|_| !u.ends_with('s')) {
                c.next_season(s)
            } else {
                let mo = named_month(at, 1)?;
                super::calendar::month_span(if mo > c.m { c.y } else { c.y + 1 }, mo)
            }
        }
    };
    Some((2, span))
}

/// A count of a unit: "two weeks", "a week", "a couple of days", "a few weekends": the
/// fewest and most it may mean, the unit (0 day .. 3 year, 4 weekend), and the words taken.
fn counted(at: At) -> Option<((i64, i64), usize, usize)> {
    let w = |j: usize| at.w(j);
    let lead = usize::from(matches!(w(0), "a" | "an") && vague_count(w(1)).is_some());
    let (n, mut taken) = match vague_count(w(lead)) {
        Some(range) => (range, lead + 1),
        None => (count(w(0)).map(|n| (n, n))?, 1),
    };
    if lead + 1 == taken && w(taken) == "of" {
        taken += 1;
    }
    let u = match w(taken) {
        "weekend" | "weekends" => 4,
        other => unit(other)?,
    };
    Some((n, u, taken + 1))
}

/// The span `n` (fewest, most) units before the calendar of `c`: calendar days, weeks,
/// weekends, months or years, the loose counts spanning all they may mean.
fn units_back(c: &Cal, (fewest, most): (i64, i64), u: usize) -> Span {
    let each = |n: i64| match u {
        0 => c.days(-n, 1 - n),
        1 => c.week(n),
        2 => c.month(n),
        3 => c.year(n),
        _ => c.weekend(n),
    };
    (each(most).0, each(fewest).1)
}

/// "3 days ago", "two weeks ago", "a couple of days ago", "a few weeks back".
fn ago(at: At, c: &Cal) -> Option<(usize, Span)> {
    let (n, u, taken) = counted(at)?;
    matches!(at.w(taken), "ago" | "back").then(|| (taken + 1, units_back(c, n, u)))
}

/// "the day before yesterday", "the Friday before 15 July", "two weeks before the 9th of
/// June", "the week after 3 May": a time counted from another one the words name.
fn before_or_after(at: At, c: &Cal) -> Option<(usize, Span)> {
    enum What {
        Counted((i64, i64), usize),
        Weekday(i64),
    }
    let (what, taken) = match (weekday(at.w(0)), unit(at.w(0))) {
        (Some(d), _) => (What::Weekday(d), 1),
        (None, Some(u)) if !at.w(0).ends_with('s') => (What::Counted((1, 1), u), 1),
        _ if at.w(0) == "weekend" => (What::Counted((1, 1), 4), 1),
        _ => {
            let (n, u, taken) = counted(at)?;
            (What::Counted(n, u), taken)
        }
    };
    let after = match at.w(taken) {
        "before" => false,
        "after" => true,
        _ => return None,
    };
    let (n, (start, end)) = super::expression_at(at.from(taken + 1), Some(at.w(taken)), c)?;
    let span = if after {
        // Counted from the named time's last day.
        let r = Cal::new(end - 1.0);
        match what {
            What::Weekday(d) => r.next_weekday(d),
            What::Counted((fewest, most), 4) => {
                // The first weekend to begin after it is one weekend after.
                let first = if r.weekday >= 5 { -1 } else { 0 };
                (r.weekend(first - fewest + 1).0, r.weekend(first - most + 1).1)
            }
            What::Counted((fewest, most), 0) => r.days(fewest, most + 1),
            What::Counted((fewest, most), u) => units_back(&r, (-most, -fewest), u),
        }
    } else {
        let r = Cal::new(start);
        match what {
            What::Weekday(d) => r.last_weekday(d),
            What::Counted(n, u) => units_back(&r, n, u),
        }
    };
    Some((taken + 1 + n, span))
}

#[cfg(test)]
mod tests {
    use super::super::fixed::*;
    use super::super::{find_expression, spoken_time, DAY};

    /// 2026-03-14, a Saturday, 10:00 UTC.
    const SAT: f64 = 1_773_482_400.0;
    /// 2026-03-01, a Sunday, 08:00 UTC: the first day of a month.
    const FIRST: f64 = 1_772_352_000.0;
    /// 2026-01-01, a Thursday, 00:30 UTC: the first moments of a year.
    const NEW_YEAR: f64 = 1_767_227_400.0;
    /// 2026-07-15, a Wednesday, 12:00 UTC: summer.
    const JULY: f64 = 1_784_116_800.0;
    /// 2026-10-20, a Tuesday, 12:00 UTC: autumn.
    const OCTOBER: f64 = 1_792_497_600.0;

    #[test]
    fn the_fixed_nows_are_the_days_they_claim() {
        use super::super::iso8601_utc;
        assert_eq!(iso8601_utc(SAT), "2026-03-14T10:00:00Z");
        assert_eq!(iso8601_utc(FIRST), "2026-03-01T08:00:00Z");
        assert_eq!(iso8601_utc(NEW_YEAR), "2026-01-01T00:30:00Z");
        assert_eq!(iso8601_utc(JULY), "2026-07-15T12:00:00Z");
        assert_eq!(iso8601_utc(OCTOBER), "2026-10-20T12:00:00Z");
    }

    #[test]
    fn last_saturday_asked_on_a_saturday_means_a_week_ago() {
        assert_eq!(range("what did we cook last Saturday?", SAT), Some((d(2026, 3, 7), d(2026, 3, 8))));
    }

    #[test]
    fn a_short_weekday_after_last_is_that_weekday() {
        assert_eq!(range("Last Fri I took a class", WED), Some((d(2026, 3, 6), d(2026, 3, 7))));
        assert_eq!(range("soaking up the sun", WED), None);
    }

    #[test]
    fn last_saturday_asked_on_a_monday_is_two_days_ago() {
        assert_eq!(range("last saturday", MON), Some((d(2026, 3, 14), d(2026, 3, 15))));
        assert_eq!(range("last Tuesday", MON), Some((d(2026, 3, 10), d(2026, 3, 11))));
    }

    #[test]
    fn this_monday_is_the_monday_of_this_week() {
        assert_eq!(range("this Monday", WED), Some((d(2026, 3, 9), d(2026, 3, 10))));
        assert_eq!(range("this monday", MON), Some((d(2026, 3, 16), d(2026, 3, 17))), "today");
    }

    #[test]
    fn a_time_ahead_of_now_is_not_a_filter_and_its_words_stay() {
        for q in
            ["plans for next week", "next Friday's dinner", "this Friday", "tomorrow", "this weekend", "next summer"]
        {
            assert_eq!(range(q, WED), None, "{q}");
        }
        // "next Friday" is passed over whole: its "Friday" does not name last Friday.
        assert_eq!(range("the dinner next Friday", WED), None);
        // A later time in the past still counts.
        assert_eq!(range("next week's plan, as said yesterday", WED), Some((d(2026, 3, 10), d(2026, 3, 11))));
    }

    #[test]
    fn a_memory_speaks_of_times_ahead_of_its_own() {
        let e = spoken_time("we're going camping next week", WED).unwrap();
        assert_eq!((e.start, e.end), (d(2026, 3, 16), d(2026, 3, 23)));
        let e = spoken_time("dinner next Friday", WED).unwrap();
        assert_eq!((e.start, e.end), (d(2026, 3, 13), d(2026, 3, 14)), "the first Friday after");
        let e = spoken_time("the show is tomorrow", SUN).unwrap();
        assert_eq!((e.start, e.end), (d(2026, 3, 16), d(2026, 3, 17)));
    }

    #[test]
    fn number_words_count_calendar_units_back() {
        assert_eq!(range("two weeks ago", WED), Some((d(2026, 2, 23), d(2026, 3, 2))));
        assert_eq!(range("a week ago", MON), Some((d(2026, 3, 9), d(2026, 3, 16))), "on a Monday, the week just ended");
        assert_eq!(range("three days ago", FIRST), Some((d(2026, 2, 26), d(2026, 2, 27))), "across a month");
        assert_eq!(range("one month ago", NEW_YEAR), Some((d(2025, 12, 1), d(2026, 1, 1))), "across a year");
        assert_eq!(range("fifteen days ago", WED), Some((d(2026, 2, 24), d(2026, 2, 25))));
        assert_eq!(range("two weekends ago", WED), Some((d(2026, 2, 28), d(2026, 3, 2))));
    }

    #[test]
    fn loose_counts_span_all_they_may_mean() {
        // One to three days before Wednesday 11 March.
        assert_eq!(range("a couple of days ago", WED), Some((d(2026, 3, 8), d(2026, 3, 11))));
        assert_eq!(range("couple days ago", WED), Some((d(2026, 3, 8), d(2026, 3, 11))));
        // Two to four calendar weeks back.
        assert_eq!(range("a few weeks ago", WED), Some((d(2026, 2, 9), d(2026, 3, 2))));
        assert_eq!(range("several months ago", WED), Some((d(2025, 8, 1), d(2026, 1, 1))));
        assert_eq!(range("a few weeks back", WED), Some((d(2026, 2, 9), d(2026, 3, 2))));
        assert_eq!(range("the last few days", WED), Some((WED - 4.0 * DAY, d(2026, 3, 12))));
        assert_eq!(range("over the last couple of weeks", WED), Some((WED - 21.0 * DAY, d(2026, 3, 12))));
    }

    #[test]
    fn the_week_before_last_is_two_calendar_weeks_back() {
        assert_eq!(range("the week before last", WED), Some((d(2026, 2, 23), d(2026, 3, 2))));
        assert_eq!(range("the week before last", MON), Some((d(2026, 3, 2), d(2026, 3, 9))));
        assert_eq!(range("the month before last", NEW_YEAR), Some((d(2025, 11, 1), d(2025, 12, 1))));
    }

    #[test]
    fn last_weekend_before_a_date_counts_from_the_date() {
        assert_eq!(
            range("what did we do last weekend before 10 April 2025?", WED),
            Some((d(2025, 4, 5), d(2025, 4, 7)))
        );
    }

    #[test]
    fn the_day_before_yesterday_is_two_days_back() {
        assert_eq!(range("the day before yesterday", WED), Some((d(2026, 3, 9), d(2026, 3, 10))));
        assert_eq!(range("the day before yesterday", FIRST), Some((d(2026, 2, 27), d(2026, 2, 28))));
    }

    #[test]
    fn a_time_counted_from_a_named_date() {
        // 15 July 2025 was a Tuesday.
        assert_eq!(range("the Friday before 15 July 2025", WED), Some((d(2025, 7, 11), d(2025, 7, 12))));
        assert_eq!(range("the week before 9 June 2025", WED), Some((d(2025, 6, 2), d(2025, 6, 9))));
        assert_eq!(range("the weekend before 17 July 2025", WED), Some((d(2025, 7, 12), d(2025, 7, 14))));
        // 11 August 2025 was a Monday: two weeks before is the week of 28 July.
        assert_eq!(range("two weeks before 11 August 2025", WED), Some((d(2025, 7, 28), d(2025, 8, 4))));
        assert_eq!(range("the day after 3 May 2025", WED), Some((d(2025, 5, 4), d(2025, 5, 5))));
        assert_eq!(range("the week after 3 May 2025", WED), Some((d(2025, 5, 5), d(2025, 5, 12))));
        assert_eq!(range("the week of 23 August 2025", WED), Some((d(2025, 8, 18), d(2025, 8, 25))));
        assert_eq!(range("a week before the launch", WED), None, "the launch is not a time");
    }

    #[test]
    fn seasons_are_northern_meteorological_and_last_means_the_most_recent_ended() {
        // In July, summer is still going on: last summer is last year's.
        assert_eq!(range("last summer", JULY), Some((d(2025, 6, 1), d(2025, 9, 1))));
        // In October it has ended: last summer is this year's.
        assert_eq!(range("last summer", OCTOBER), Some((d(2026, 6, 1), d(2026, 9, 1))));
        assert_eq!(range("last fall", OCTOBER), Some((d(2025, 9, 1), d(2025, 12, 1))));
        assert_eq!(range("last autumn", JULY), Some((d(2025, 9, 1), d(2025, 12, 1))));
        // A winter runs December to February; in March the one just ended is last winter.
        assert_eq!(range("last winter", WED), Some((d(2025, 12, 1), d(2026, 3, 1))));
        assert_eq!(range("last winter", NEW_YEAR), Some((d(2024, 12, 1), d(2025, 3, 1))));
        assert_eq!(range("last spring", WED), Some((d(2025, 3, 1), d(2025, 6, 1))));
    }

    #[test]
    fn a_season_after_in_or_during_is_the_latest_begun() {
        assert_eq!(range("camping during the summer", JULY), Some((d(2026, 6, 1), d(2026, 9, 1))));
        assert_eq!(range("camping in summer", WED), Some((d(2025, 6, 1), d(2025, 9, 1))));
        assert_eq!(range("the summer of 2022", WED), Some((d(2022, 6, 1), d(2022, 9, 1))));
        assert_eq!(range("winter 2024", WED), Some((d(2024, 12, 1), d(2025, 3, 1))));
        assert_eq!(range("this winter", NEW_YEAR), Some((d(2025, 12, 1), d(2026, 3, 1))));
        assert_eq!(range("Dana rented the summer house", JULY), None, "a kind of house");
        assert_eq!(range("spring cleaning checklist", JULY), None);
    }

    #[test]
    fn earlier_this_month_runs_from_its_first_day_through_today() {
        assert_eq!(range("earlier this month", WED), Some((d(2026, 3, 1), d(2026, 3, 12))));
        assert_eq!(range("earlier this month", FIRST), Some((d(2026, 3, 1), d(2026, 3, 2))), "on the first");
        assert_eq!(range("earlier this year", NEW_YEAR), Some((d(2026, 1, 1), d(2026, 1, 2))));
        assert_eq!(range("earlier this week", SUN), Some((d(2026, 3, 9), d(2026, 3, 16))));
        assert_eq!(range("earlier today", WED), Some((d(2026, 3, 11), d(2026, 3, 12))));
    }

    #[test]
    fn last_weekend_is_saturday_and_sunday_of_last_week() {
        assert_eq!(range("last weekend", WED), Some((d(2026, 3, 7), d(2026, 3, 9))));
        assert_eq!(range("last weekend", MON), Some((d(2026, 3, 14), d(2026, 3, 16))), "just ended");
        assert_eq!(range("last weekend", SAT), Some((d(2026, 3, 7), d(2026, 3, 9))), "not the one begun");
        assert_eq!(range("what did I do over the weekend", SUN), Some((d(2026, 3, 14), d(2026, 3, 16))));
        assert_eq!(range("what did I do over the weekend", WED), Some((d(2026, 3, 7), d(2026, 3, 9))));
        assert_eq!(range("this weekend", SAT), Some((d(2026, 3, 14), d(2026, 3, 16))));
    }

    #[test]
    fn this_morning_is_today_at_the_edges_of_a_day() {
        assert_eq!(range("notes from this morning", NEW_YEAR), Some((d(2026, 1, 1), d(2026, 1, 2))));
        assert_eq!(range("this evening", SUN), Some((d(2026, 3, 15), d(2026, 3, 16))));
    }

    #[test]
    fn this_may_help_is_not_a_month() {
        assert_eq!(range("this may help", WED), None);
        assert_eq!(range("last may be best", WED), None);
        assert_eq!(range("since last May", WED), Some((d(2025, 5, 1), d(2025, 6, 1))));
    }

    #[test]
    fn the_words_of_a_relative_time_leave_the_query() {
        let q = "what did Ana bake the day before yesterday?";
        let e = find_expression(q, WED).unwrap();
        assert_eq!(e.words(q), "the day before yesterday");
        assert_eq!(e.rest(q), "what did Ana bake ?");
    }
}
