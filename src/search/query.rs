//! Query understanding without an LLM: what a question asks for (its intent) and the time
//! it refers to, relative to the store's notion of now.

const DAY: f64 = 86_400.0;
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// What kind of answer a question wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Intent {
    /// "what happened", "when did", "did we": episodes (the journal).
    Episodic,
    /// "how do I", "how to", "steps": procedures.
    Procedural,
    /// "who", "whose": people.
    Person,
    /// Anything else: facts.
    Factual,
}

/// The intent of a query, from its first words.
pub fn intent(query: &str) -> Intent {
    let q = query.trim().to_lowercase();
    let starts = |p: &[&str]| p.iter().any(|w| q.starts_with(w));
    if starts(&["how do", "how to", "how can", "how should", "what are the steps", "steps to"]) {
        Intent::Procedural
    } else if starts(&["who ", "whom ", "whose "]) {
        Intent::Person
    } else if starts(&["what happened", "when ", "did ", "have i", "have we", "what did"]) {
        Intent::Episodic
    } else {
        Intent::Factual
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// The civil date `(year, month, day)` of a day number since 1970-01-01 (Howard Hinnant's
/// algorithm).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DD HH:MM:SSZ` for float Unix seconds (UTC).
pub fn utc_string(ts: f64) -> String {
    let secs = ts.floor() as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

fn day_start(y: i64, m: i64, d: i64) -> f64 {
    days_from_civil(y, m, d) as f64 * DAY
}

fn month_span(y: i64, m: i64) -> (f64, f64) {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (day_start(y, m, 1), day_start(ny, nm, 1))
}

fn month_of(word: &str) -> Option<i64> {
    let w = word.trim_matches(|c: char| !c.is_alphabetic());
    // Capitalised only, so "may" the verb is not May the month.
    MONTHS
        .iter()
        .position(|m| {
            w == *m
                || (w.len() >= 3
                    && m.starts_with(w)
                    && w != "May"
                    && w.chars().next().is_some_and(char::is_uppercase)
                    && w.len() == 3)
        })
        .map(|i| i as i64 + 1)
}

fn number(word: &str) -> Option<i64> {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let w = w.trim_end_matches("st").trim_end_matches("nd").trim_end_matches("rd").trim_end_matches("th");
    w.parse().ok().or_else(|| {
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
            .iter()
            .position(|n| *n == w)
            .map(|i| i as i64)
    })
}

/// The time a query refers to, as `[start, end)` Unix seconds, relative to `now`.
pub fn time_range(query: &str, now: f64) -> Option<(f64, f64)> {
    let lower = query.to_lowercase();
    let today = (now / DAY).floor() * DAY;
    let (y, m, _) = civil_from_days((now / DAY).floor() as i64);
    if lower.contains("yesterday") {
        return Some((today - DAY, today));
    }
    if lower.contains("today") || lower.contains("this morning") || lower.contains("tonight") {
        return Some((today, today + DAY));
    }
    if lower.contains("last week") || lower.contains("past week") || lower.contains("this week") {
        return Some((today - 7.0 * DAY, today + DAY));
    }
    if lower.contains("last month") {
        let (py, pm) = if m == 1 { (y - 1, 12) } else { (y, m - 1) };
        return Some(month_span(py, pm));
    }
    if lower.contains("this month") {
        return Some(month_span(y, m));
    }
    if lower.contains("last year") {
        return Some((day_start(y - 1, 1, 1), day_start(y, 1, 1)));
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(|s| s.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase());
        if next.as_deref() == Some("ago") || words.get(i + 2).is_some_and(|s| s.to_lowercase().starts_with("ago")) {
            if let (Some(n), Some(unit)) = (number(w), words.get(i + 1)) {
                let unit = unit.to_lowercase();
                let back = if unit.starts_with("day") {
                    DAY
                } else if unit.starts_with("week") {
                    7.0 * DAY
                } else if unit.starts_with("month") {
                    30.0 * DAY
                } else if unit.starts_with("year") {
                    365.0 * DAY
                } else {
                    continue;
                };
                let t = today - n as f64 * back;
                return Some((t - back / 2.0, t + back / 2.0 + DAY));
            }
        }
        if let Some(mo) = month_of(w) {
            let prev = words.get(i.wrapping_sub(1)).and_then(|p| number(p)).filter(|d| (1..=31).contains(d));
            let after = words.get(i + 1).and_then(|p| number(p));
            let day_after = after.filter(|d| (1..=31).contains(d));
            let year_after = |j: usize| words.get(j).and_then(|p| number(p)).filter(|y| (1900..=2200).contains(y));
            // "3 May 2023", "May 3, 2023", "May 2023", "in May".
            if let Some(d) = prev {
                let yr = year_after(i + 1).unwrap_or(y);
                return Some((day_start(yr, mo, d), day_start(yr, mo, d) + DAY));
            }
            if let Some(d) = day_after {
                let yr = year_after(i + 2).unwrap_or(y);
                return Some((day_start(yr, mo, d), day_start(yr, mo, d) + DAY));
            }
            if let Some(yr) = year_after(i + 1) {
                return Some(month_span(yr, mo));
            }
            // A month alone: the latest one not after now.
            let yr = if mo <= m { y } else { y - 1 };
            return Some(month_span(yr, mo));
        }
        if i > 0 && words[i - 1].eq_ignore_ascii_case("in") {
            if let Some(yr) = number(w).filter(|y| (1900..=2200).contains(y)) {
                return Some((day_start(yr, 1, 1), day_start(yr + 1, 1, 1)));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2023-05-10 12:00 UTC
    const NOW: f64 = 1_683_720_000.0;

    fn day(y: i64, m: i64, d: i64) -> f64 {
        day_start(y, m, d)
    }

    #[test]
    fn relative_expressions() {
        assert_eq!(time_range("what did I eat yesterday?", NOW), Some((day(2023, 5, 9), day(2023, 5, 10))));
        assert_eq!(time_range("notes from today", NOW), Some((day(2023, 5, 10), day(2023, 5, 11))));
        assert_eq!(time_range("what happened last week", NOW), Some((day(2023, 5, 3), day(2023, 5, 11))));
        assert_eq!(time_range("last month's plans", NOW), Some((day(2023, 4, 1), day(2023, 5, 1))));
        assert_eq!(time_range("trips last year", NOW), Some((day(2022, 1, 1), day(2023, 1, 1))));
        let (a, b) = time_range("what did we decide 3 days ago", NOW).unwrap();
        assert!(a <= day(2023, 5, 7) && b > day(2023, 5, 7));
        let (a, b) = time_range("two weeks ago", NOW).unwrap();
        assert!(a <= day(2023, 4, 26) && b > day(2023, 4, 26));
    }

    #[test]
    fn absolute_dates() {
        assert_eq!(time_range("what happened in May 2023?", NOW), Some((day(2023, 5, 1), day(2023, 6, 1))));
        assert_eq!(time_range("on 7 July, 2023", NOW), Some((day(2023, 7, 7), day(2023, 7, 8))));
        assert_eq!(time_range("on May 3, 2023", NOW), Some((day(2023, 5, 3), day(2023, 5, 4))));
        assert_eq!(time_range("in August", NOW), Some((day(2022, 8, 1), day(2022, 9, 1))), "the last August");
        assert_eq!(time_range("in 2021", NOW), Some((day(2021, 1, 1), day(2022, 1, 1))));
        assert_eq!(time_range("may I ask about coffee", NOW), None, "the verb is not the month");
        assert_eq!(time_range("coffee preferences", NOW), None);
    }

    #[test]
    fn intents() {
        assert_eq!(intent("How do I deploy the relay?"), Intent::Procedural);
        assert_eq!(intent("Who is Alice's partner?"), Intent::Person);
        assert_eq!(intent("What happened at the meetup?"), Intent::Episodic);
        assert_eq!(intent("When did Caroline go hiking?"), Intent::Episodic);
        assert_eq!(intent("favourite editor"), Intent::Factual);
    }
}
