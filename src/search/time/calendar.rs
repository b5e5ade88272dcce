//! The UTC calendar around a moment: days, Monday-to-Monday weeks, weekends, months,
//! meteorological seasons and years, as `[start, end)` Unix seconds.

use crate::search::query::{civil_from_days, days_from_civil};

pub(super) const DAY: f64 = 86_400.0;

/// A range of Unix seconds, `[start, end)`.
pub(super) type Span = (f64, f64);

/// Northern-hemisphere meteorological seasons, in the order of the year from March: spring
/// (March to May), summer (June to August), autumn (September to November), winter
/// (December to February). Astronomical dates move by a day from year to year and people
/// rarely mean them.
pub(super) const SEASONS: [&str; 4] = ["spring", "summer", "autumn", "winter"];

/// The calendar around a moment: its day number, date and weekday (0: Monday).
pub(super) struct Cal {
    pub now: f64,
    pub today: i64,
    pub y: i64,
    pub m: i64,
    pub d: i64,
    pub weekday: i64,
}

impl Cal {
    pub fn new(now: f64) -> Cal {
        // Far outside any calendar a store holds, days and years would overflow: clamp to
        // years 0..=9999 so a query about anything resolves without panicking.
        let now = if now.is_finite() { now.clamp(-62_000_000_000.0, 253_000_000_000.0) } else { 0.0 };
        let today = (now / DAY).floor() as i64;
        let (y, m, d) = civil_from_days(today);
        // 1970-01-01 was a Thursday.
        Cal { now, today, y, m, d, weekday: (today + 3).rem_euclid(7) }
    }

    /// The end of today: what a range that includes "now" runs to.
    pub fn end_of_today(&self) -> f64 {
        (self.today + 1) as f64 * DAY
    }

    /// Days `from..to` relative to today.
    pub fn days(&self, from: i64, to: i64) -> Span {
        ((self.today + from) as f64 * DAY, (self.today + to) as f64 * DAY)
    }

    /// `back` seconds before now, through the end of today.
    pub fn back(&self, back: f64) -> Span {
        (self.now - back, self.end_of_today())
    }

    /// The calendar week `back` weeks before this one, Monday to Monday (negative: ahead).
    pub fn week(&self, back: i64) -> Span {
        let monday = self.today - self.weekday - 7 * back;
        (monday as f64 * DAY, (monday + 7) as f64 * DAY)
    }

    /// The weekend (Saturday and Sunday) of the calendar week `back` weeks before this one.
    pub fn weekend(&self, back: i64) -> Span {
        let (monday, _) = self.week(back);
        (monday + 5.0 * DAY, monday + 7.0 * DAY)
    }

    /// The calendar month `back` months before this one (negative: ahead).
    pub fn month(&self, back: i64) -> Span {
        let n = self.y * 12 + self.m - 1 - back;
        month_span(n.div_euclid(12), n.rem_euclid(12) + 1)
    }

    /// The calendar year `back` years before this one.
    pub fn year(&self, back: i64) -> Span {
        year_span(self.y - back)
    }

    /// The most recent `weekday` before today (a week ago when today is one: "on Tuesday"
    /// asked on a Tuesday means last Tuesday; "today" is today).
    pub fn last_weekday(&self, weekday: i64) -> Span {
        let back = match (self.weekday - weekday).rem_euclid(7) {
            0 => 7,
            n => n,
        };
        self.days(-back, 1 - back)
    }

    /// The first `weekday` after today.
    pub fn next_weekday(&self, weekday: i64) -> Span {
        let ahead = match (weekday - self.weekday).rem_euclid(7) {
            0 => 7,
            n => n,
        };
        self.days(ahead, ahead + 1)
    }

    /// `weekday` of this calendar week (ahead of today for a later day).
    pub fn this_weekday(&self, weekday: i64) -> Span {
        let at = weekday - self.weekday;
        self.days(at, at + 1)
    }

    /// The year of the most recent `month`/`day` not after today (`strict`: before this
    /// month, for "last August").
    pub fn year_of(&self, month: i64, day: Option<i64>, strict: bool) -> i64 {
        let passed = match (strict, day) {
            (true, _) => month < self.m,
            (false, None) => month <= self.m,
            (false, Some(d)) => (month, d) <= (self.m, self.d),
        };
        if passed {
            self.y
        } else {
            self.y - 1
        }
    }

    /// The season `s` ([`SEASONS`]) that is the most recent to have ended before today
    /// ("last summer": in July, last year's; in October, this year's).
    pub fn last_season(&self, s: usize) -> Span {
        let today = self.today as f64 * DAY;
        (self.y - 2..=self.y)
            .rev()
            .map(|y| season_span(s, y))
            .find(|span| span.1 <= today)
            .unwrap_or(season_span(s, self.y - 2))
    }

    /// The season `s` that has most recently begun ("in the summer": this one once it has
    /// begun, else last year's).
    pub fn latest_season(&self, s: usize) -> Span {
        let now = self.now;
        (self.y - 1..=self.y)
            .rev()
            .map(|y| season_span(s, y))
            .find(|span| span.0 <= now)
            .unwrap_or(season_span(s, self.y - 1))
    }

    /// "this summer": the season `s` we are in, or else the one beginning this year.
    pub fn this_season(&self, s: usize) -> Span {
        let latest = self.latest_season(s);
        if latest.1 > self.now {
            latest
        } else {
            season_span(s, self.y)
        }
    }

    /// The first season `s` to begin after now.
    pub fn next_season(&self, s: usize) -> Span {
        (self.y..=self.y + 1)
            .map(|y| season_span(s, y))
            .find(|span| span.0 > self.now)
            .unwrap_or(season_span(s, self.y + 1))
    }
}

pub(super) fn day_span(y: i64, m: i64, d: i64) -> Span {
    let start = days_from_civil(y, m, d) as f64 * DAY;
    (start, start + DAY)
}

pub(super) fn month_span(y: i64, m: i64) -> Span {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (days_from_civil(y, m, 1) as f64 * DAY, days_from_civil(ny, nm, 1) as f64 * DAY)
}

pub(super) fn year_span(y: i64) -> Span {
    (days_from_civil(y, 1, 1) as f64 * DAY, days_from_civil(y + 1, 1, 1) as f64 * DAY)
}

/// Season `s` of year `y`. A winter belongs to the year it begins in: winter 2025 is
/// December 2025 to February 2026, one unbroken span.
pub(super) fn season_span(s: usize, y: i64) -> Span {
    let first = 3 + 3 * s as i64;
    let (a, _) = month_span(y, first);
    let n = y * 12 + first - 1 + 3;
    (a, month_span(n.div_euclid(12), n.rem_euclid(12) + 1).0)
}

pub(super) fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i64, m: i64, day: i64) -> f64 {
        days_from_civil(y, m, day) as f64 * DAY
    }

    #[test]
    fn a_winter_runs_from_december_into_the_next_year() {
        assert_eq!(season_span(3, 2025), (d(2025, 12, 1), d(2026, 3, 1)));
        assert_eq!(season_span(0, 2026), (d(2026, 3, 1), d(2026, 6, 1)));
        assert_eq!(season_span(1, 2026), (d(2026, 6, 1), d(2026, 9, 1)));
        assert_eq!(season_span(2, 2026), (d(2026, 9, 1), d(2026, 12, 1)));
    }

    #[test]
    fn a_moment_beyond_any_calendar_still_has_one() {
        for now in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -1e300] {
            let c = Cal::new(now);
            let (a, b) = c.month(1);
            assert!(a < b, "{now}");
        }
    }
}
