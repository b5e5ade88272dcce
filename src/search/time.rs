//! Times as people and models write them: ISO 8601 dates and instants, spans back from now
//! (`3d`, `2w`, `12h`), or Unix seconds (the agent interface's and the CLI's time filters);
//! calendar expressions in a query's words ("last week", "in August 2026", "on Tuesday"),
//! each resolved to a range of the memories' own times; and how recent a time is.
//!
//! The calendar is UTC: the store keeps no time zone (every time is Unix seconds), so a
//! day starts at 00:00 UTC and a week on Monday 00:00 UTC.

use super::query::{civil_from_days, days_from_civil};

use crate::text::{MONTHS, WEEKDAYS};

const DAY: f64 = 86_400.0;
/// Seven days, in seconds: the least a ranked search by a named time looks past it.
pub const WEEK: f64 = 7.0 * DAY;

/// Why a time could not be read. The message says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a time: use ISO 8601 (2026-05-01 or 2026-05-01T09:30:00Z), a span back from now (30m, 12h, 3d, 2w, 1y), or Unix seconds")]
#[non_exhaustive]
pub struct TimeError {
    /// What was given.
    pub input: String,
}

/// Reads `input` as Unix seconds, relative to `now` for spans:
///
/// - ISO 8601: `YYYY-MM-DD` (midnight UTC), `YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z`, an
///   offset `±HH:MM` / `±HHMM`, or nothing (UTC); a space may stand for the `T`;
/// - a span back from `now`: a number and `s`, `m`, `h`, `d`, `w` or `y` (365 days),
///   e.g. `90m`, `3d`, `2w`; a leading `-` is allowed (`-3d` is `3d`);
/// - Unix seconds: a finite, non-negative number (`1767225600`, `1767225600.5`).
pub fn parse_time(input: &str, now: f64) -> Result<f64, TimeError> {
    let s = input.trim();
    let err = || TimeError { input: input.to_string() };
    if s.is_empty() {
        return Err(err());
    }
    if let Ok(t) = s.parse::<f64>() {
        return (t.is_finite() && t >= 0.0).then_some(t).ok_or_else(err);
    }
    if let Some(span) = span_seconds(s.strip_prefix('-').unwrap_or(s)) {
        return Ok(now - span);
    }
    iso8601(s).ok_or_else(err)
}

/// `3d` and the like, in seconds.
fn span_seconds(s: &str) -> Option<f64> {
    let unit = s.chars().last()?;
    let per = match unit.to_ascii_lowercase() {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3_600.0,
        'd' => 86_400.0,
        'w' => 7.0 * 86_400.0,
        'y' => 365.0 * 86_400.0,
        _ => return None,
    };
    let n: f64 = s[..s.len() - 1].trim().parse().ok()?;
    (n.is_finite() && n >= 0.0).then_some(n * per)
}

fn digits(s: &str, n: usize) -> Option<i64> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

fn iso8601(s: &str) -> Option<f64> {
    let (date, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (digits(parts.next()?, 4)?, digits(parts.next()?, 2)?, digits(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=days_in_month(y, m)).contains(&d) {
        return None;
    }
    let day = days_from_civil(y, m, d) as f64 * 86_400.0;
    let Some(rest) = rest else { return Some(day) };
    // The zone: Z, +HH:MM, -HH:MM, +HHMM, or none (UTC).
    let (clock, offset) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0.0)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        let zone = rest[i + 1..].replace(':', "");
        let (hh, mm) = (digits(zone.get(..2)?, 2)?, digits(zone.get(2..)?, 2)?);
        if hh > 23 || mm > 59 {
            return None;
        }
        let sign = if rest.as_bytes()[i] == b'+' { 1.0 } else { -1.0 };
        (&rest[..i], sign * (hh * 3_600 + mm * 60) as f64)
    } else {
        (rest, 0.0)
    };
    let mut hms = clock.split(':');
    let h = digits(hms.next()?, 2)?;
    let min = digits(hms.next()?, 2)?;
    let sec: f64 = match hms.next() {
        Some(sec) => {
            let whole = sec.split('.').next()?;
            digits(whole, 2)?;
            sec.parse().ok()?
        }
        None => 0.0,
    };
    if hms.next().is_some() || h > 23 || min > 59 || !(0.0..61.0).contains(&sec) {
        return None;
    }
    Some(day + (h * 3_600 + min * 60) as f64 + sec - offset)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` (ISO 8601, UTC, whole seconds) for float Unix seconds.
pub fn iso8601_utc(ts: f64) -> String {
    super::query::utc_string(ts).replacen(' ', "T", 1)
}

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

/// A word of the query: a run of letters and digits, lower-cased, with its place.
struct Word<'a> {
    raw: &'a str,
    low: String,
    start: usize,
    end: usize,
}

fn words(query: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in query.char_indices().chain(std::iter::once((query.len(), ' '))) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let raw = &query[s..i];
                out.push(Word { raw, low: raw.to_lowercase(), start: s, end: i });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The calendar around "now": today as a day number, its date and weekday (0: Monday).
struct Cal {
    now: f64,
    today: i64,
    y: i64,
    m: i64,
    d: i64,
    weekday: i64,
}

type Span = (f64, f64);

impl Cal {
    fn new(now: f64) -> Cal {
        let today = (now / DAY).floor() as i64;
        let (y, m, d) = civil_from_days(today);
        // 1970-01-01 was a Thursday.
        Cal { now, today, y, m, d, weekday: (today + 3).rem_euclid(7) }
    }

    /// Days `from..to` relative to today.
    fn days(&self, from: i64, to: i64) -> Span {
        ((self.today + from) as f64 * DAY, (self.today + to) as f64 * DAY)
    }

    /// `back` seconds before now, through the end of today.
    fn back(&self, back: f64) -> Span {
        (self.now - back, self.days(0, 1).1)
    }

    /// The calendar week `back` weeks before this one, Monday to Monday.
    fn week(&self, back: i64) -> Span {
        let monday = self.today - self.weekday - 7 * back;
        (monday as f64 * DAY, (monday + 7) as f64 * DAY)
    }

    /// The calendar month `back` months before this one.
    fn month(&self, back: i64) -> Span {
        let n = self.y * 12 + self.m - 1 - back;
        month_span(n.div_euclid(12), n.rem_euclid(12) + 1)
    }

    /// The most recent `weekday` before today (a week ago when today is one: "on Tuesday"
    /// asked on a Tuesday means last Tuesday; "today" is today).
    fn last_weekday(&self, weekday: i64) -> Span {
        let back = match (self.weekday - weekday).rem_euclid(7) {
            0 => 7,
            n => n,
        };
        self.days(-back, 1 - back)
    }

    /// The year of the most recent `month`/`day` not after today (`strict`: before this
    /// month, for "last August").
    fn year_of(&self, month: i64, day: Option<i64>, strict: bool) -> i64 {
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
}

fn day_span(y: i64, m: i64, d: i64) -> Span {
    let start = days_from_civil(y, m, d) as f64 * DAY;
    (start, start + DAY)
}

fn month_span(y: i64, m: i64) -> Span {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (days_from_civil(y, m, 1) as f64 * DAY, days_from_civil(ny, nm, 1) as f64 * DAY)
}

fn year_span(y: i64) -> Span {
    (days_from_civil(y, 1, 1) as f64 * DAY, days_from_civil(y + 1, 1, 1) as f64 * DAY)
}

/// A count: digits, "a"/"an", or one to twelve in words.
fn count(w: &str) -> Option<i64> {
    const WORDS: [&str; 12] =
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    match w {
        "a" | "an" => Some(1),
        _ => w
            .parse()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .or_else(|| WORDS.iter().position(|n| *n == w).map(|i| i as i64 + 1)),
    }
}

/// A day of the month: `3`, `3rd`, `21st`.
fn day_of_month(w: &str) -> Option<i64> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year(w: &str) -> Option<i64> {
    (w.len() == 4).then(|| w.parse().ok()).flatten().filter(|y| (1900..=2200).contains(y))
}

/// Days in a unit of a span back from now ("past 2 weeks").
const UNIT_DAYS: [f64; 4] = [1.0, 7.0, 30.0, 365.0];

/// Units of "3 days ago" and "past 2 weeks": 0 day, 1 week, 2 month, 3 year.
fn unit(w: &str) -> Option<usize> {
    ["day", "week", "month", "year"].iter().position(|u| w == *u || w.strip_suffix('s') == Some(u))
}

/// A month's number, when `w` names it ("August", "aug", "Sept").
fn month_of(w: &Word) -> Option<(i64, bool)> {
    let low = w.low.as_str();
    let full = MONTHS.iter().position(|m| *m == low);
    let short = MONTHS.iter().position(|m| low.len() >= 3 && low.len() < m.len() && m.starts_with(low));
    let i = full.or(short)?;
    // A capitalised full name stands alone ("in" or a number may be missing); "May" and
    // abbreviations ("Jan" is also a name) need them.
    let alone = full.is_some() && low != "may" && w.raw.starts_with(|c: char| c.is_uppercase());
    Some((i as i64 + 1, alone))
}

/// The expression starting at word `i` (after `prev`, the word before it): the words it
/// takes and its range.
fn expression_at(ws: &[Word], i: usize, prev: Option<&str>, c: &Cal) -> Option<(usize, Span)> {
    let w = |j: usize| ws.get(i + j).map(|w| w.low.as_str()).unwrap_or("");
    // An ISO date: 2026-08-03.
    if let (Some(y), Some(m), Some(d)) = (year(w(0)), ws.get(i + 1), ws.get(i + 2)) {
        let joined = |a: &Word, b: &Word| a.end + 1 == b.start;
        if joined(&ws[i], m) && joined(m, d) && m.low.len() == 2 && d.low.len() == 2 {
            if let (Ok(m), Ok(d)) = (m.low.parse::<i64>(), d.low.parse::<i64>()) {
                if (1..=12).contains(&m) && (1..=31).contains(&d) {
                    return Some((3, day_span(y, m, d)));
                }
            }
        }
    }
    match w(0) {
        "today" | "tonight" => return Some((1, c.days(0, 1))),
        "yesterday" => return Some((1, c.days(-1, 0))),
        "this" => {
            return match w(1) {
                "morning" | "afternoon" | "evening" => Some((2, c.days(0, 1))),
                "week" => Some((2, c.week(0))),
                "month" => Some((2, c.month(0))),
                "year" => Some((2, year_span(c.y))),
                _ => None,
            }
        }
        "last" | "previous" | "past" => {
            let rolling = w(0) == "past";
            // "past 3 days", "last 2 weeks": back from now, through today.
            if let (Some(n), Some(u)) = (count(w(1)), unit(w(2))) {
                return Some((3, c.back(n as f64 * UNIT_DAYS[u] * DAY)));
            }
            if let Some(u) = unit(w(1)).filter(|_| !w(1).ends_with('s')) {
                let span = match (rolling, u) {
                    (true, _) => c.back(UNIT_DAYS[u] * DAY),
                    (false, 0) => c.days(-1, 0),
                    (false, 1) => c.week(1),
                    (false, 2) => c.month(1),
                    _ => year_span(c.y - 1),
                };
                return Some((2, span));
            }
            if w(1) == "night" {
                return Some((2, c.days(-1, 0)));
            }
            if let Some(d) = WEEKDAYS.iter().position(|d| *d == w(1)) {
                return Some((2, c.last_weekday(d as i64)));
            }
            if let Some((mo, _)) = ws.get(i + 1).and_then(month_of) {
                return Some((2, month_span(c.year_of(mo, None, true), mo)));
            }
            return None;
        }
        _ => {}
    }
    // "3 days ago", "a week ago": that calendar day, week, month or year.
    if let (Some(n), Some(u), "ago") = (count(w(0)), unit(w(1)), w(2)) {
        let span = match u {
            0 => c.days(-n, 1 - n),
            1 => c.week(n),
            2 => c.month(n),
            _ => year_span(c.y - n),
        };
        return Some((3, span));
    }
    if let Some(d) = WEEKDAYS.iter().position(|d| *d == w(0)) {
        // "Friday afternoon deploys", "the Monday standup": a weekday before another word
        // names a habit or a kind of thing, not a date; "on Tuesday" and a capitalised one
        // that ends the phrase ("what did we decide Tuesday?") do.
        let capital = ws[i].raw.starts_with(|c: char| c.is_uppercase()) && w(1).is_empty();
        return (prev == Some("on") || capital).then(|| (1, c.last_weekday(d as i64)));
    }
    // "3 May 2023", "3rd of May", "May 3, 2023", "May 3", "August 2026", "in August".
    let context = prev.is_some_and(|p| PREPOSITIONS.contains(&p));
    if let Some(d) = day_of_month(w(0)) {
        let at = if w(1) == "of" { 2 } else { 1 };
        if let Some((mo, _)) = ws.get(i + at).and_then(month_of) {
            return Some(match year(w(at + 1)) {
                Some(y) => (at + 2, day_span(y, mo, d)),
                None => (at + 1, day_span(c.year_of(mo, Some(d), false), mo, d)),
            });
        }
    }
    let (mo, alone) = month_of(&ws[i])?;
    if let Some(d) = day_of_month(w(1)) {
        return Some(match year(w(2)) {
            Some(y) => (3, day_span(y, mo, d)),
            None => (2, day_span(c.year_of(mo, Some(d), false), mo, d)),
        });
    }
    if let Some(y) = year(w(1)) {
        return Some((2, month_span(y, mo)));
    }
    (alone || context).then(|| (1, month_span(c.year_of(mo, None, false), mo)))
}

/// The first time expression in `query`, resolved against `now` (UTC calendar):
///
/// - `today`, `tonight`, `this morning|afternoon|evening`; `yesterday`, `last night`;
/// - `this week` (Monday 00:00 to the next Monday), `last week` / `previous week` (the
///   calendar week before this one), `this month`, `last month`, `this year`, `last year`;
/// - `past week|month|year` and `past|last N days|weeks|months|years`: back from now
///   (7, 30 or 365 days a unit), through the end of today;
/// - `N days|weeks|months|years ago` (`a week ago`, `two months ago`): that calendar day,
///   week, month or year;
/// - `on Tuesday`, `last Tuesday`, or a capitalised `Tuesday`: the most recent Tuesday
///   before today (asked on a Tuesday: a week ago);
/// - `in August 2026`, `August 2026`; `in August` or a capitalised `August`: the most recent
///   August not in the future (this one once it has begun); `last August`: the most recent
///   before this month; `May` and abbreviations (`Aug`) need `in`/`on`/`during` or a
///   number, as "may" is a verb and "Jan" a name;
/// - `3 May 2023`, `May 3, 2023`, `on May 3` (the most recent May 3 not in the future),
///   `2026-08-03`;
/// - `in 2025` / `during 2025`: the year.
pub fn find_expression(query: &str, now: f64) -> Option<TimeExpression> {
    let c = Cal::new(now);
    let ws = words(query);
    for i in 0..ws.len() {
        let prev = i.checked_sub(1).map(|p| ws[p].low.as_str());
        let found = expression_at(&ws, i, prev, &c).or_else(|| {
            // A year alone is a time only after "in" or "during" ("2025 plan" is not).
            let y = year(&ws[i].low).filter(|_| matches!(prev, Some("in" | "during")))?;
            Some((1, year_span(y)))
        });
        if let Some((n, (start, end))) = found {
            let first = match prev {
                Some(p) if PREPOSITIONS.contains(&p) => i - 1,
                _ => i,
            };
            return Some(TimeExpression { start, end, span: ws[first].start..ws[i + n - 1].end });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_800_000_000.0;

    #[test]
    fn iso_dates_and_instants_in_any_zone() {
        assert_eq!(parse_time("2026-05-01", NOW), Ok(1_777_593_600.0));
        assert_eq!(parse_time("2026-05-01T09:30:00Z", NOW), Ok(1_777_593_600.0 + 9.5 * 3600.0));
        assert_eq!(parse_time("2026-05-01 09:30", NOW), Ok(1_777_593_600.0 + 9.5 * 3600.0));
        assert_eq!(parse_time("2026-05-01T11:30:00+02:00", NOW), Ok(1_777_593_600.0 + 9.5 * 3600.0));
        assert_eq!(parse_time("2026-05-01T04:30:00-0500", NOW), Ok(1_777_593_600.0 + 9.5 * 3600.0));
        assert_eq!(parse_time("2026-05-01T09:30:00.5Z", NOW), Ok(1_777_593_600.0 + 9.5 * 3600.0 + 0.5));
        assert_eq!(parse_time("2024-02-29", NOW), Ok(1_709_164_800.0));
    }

    #[test]
    fn spans_count_back_from_now() {
        assert_eq!(parse_time("3d", NOW), Ok(NOW - 3.0 * 86_400.0));
        assert_eq!(parse_time("2w", NOW), Ok(NOW - 14.0 * 86_400.0));
        assert_eq!(parse_time("12h", NOW), Ok(NOW - 12.0 * 3_600.0));
        assert_eq!(parse_time("-90m", NOW), Ok(NOW - 5_400.0));
        assert_eq!(parse_time("1y", NOW), Ok(NOW - 365.0 * 86_400.0));
    }

    #[test]
    fn unix_seconds_pass_through() {
        assert_eq!(parse_time("1767225600", NOW), Ok(1_767_225_600.0));
        assert_eq!(parse_time(" 1767225600.25 ", NOW), Ok(1_767_225_600.25));
    }

    #[test]
    fn nonsense_is_refused_with_the_accepted_forms() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2023-02-29",
            "2026-05-01T25:00Z",
            "3x",
            "-5",
            "NaN",
            "inf",
            "2026-5-1",
            "2026-05-01T09:30+24:00",
        ] {
            let e = parse_time(bad, NOW).unwrap_err();
            assert!(e.to_string().contains("ISO 8601"), "{bad}: {e}");
        }
    }

    fn d(y: i64, m: i64, day: i64) -> f64 {
        days_from_civil(y, m, day) as f64 * DAY
    }

    /// 2026-03-11, a Wednesday, 15:00 UTC.
    const WED: f64 = 1_773_241_200.0;
    /// 2026-03-15, a Sunday, 23:30 UTC: the last moments of a week.
    const SUN: f64 = 1_773_617_400.0;
    /// 2026-03-16, a Monday, 00:10 UTC: the first moments of the next.
    const MON: f64 = 1_773_619_800.0;

    fn range(q: &str, now: f64) -> Option<(f64, f64)> {
        find_expression(q, now).map(|e| (e.start, e.end))
    }

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
        assert_eq!(range("what happened in August 2026?", WED), Some((d(2026, 8, 1), d(2026, 9, 1))));
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
        assert_eq!(range("notes of 2026-08-03", WED), Some((d(2026, 8, 3), d(2026, 8, 4))));
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
        let q = "what happened in August 2026?";
        let e = find_expression(q, WED).unwrap();
        assert_eq!(e.words(q), "in August 2026");
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

    #[test]
    fn formats_back_as_iso8601() {
        assert_eq!(iso8601_utc(1_777_593_600.0 + 9.5 * 3600.0), "2026-05-01T09:30:00Z");
    }
}
