//! Query understanding without an LLM: what a question asks for (its intent) and the time
//! it refers to, relative to the store's notion of now.

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

/// The time a query refers to, as `[start, end)` Unix seconds, relative to `now`: the
/// range of its first calendar expression ([`super::time::find_expression`], UTC).
pub fn time_range(query: &str, now: f64) -> Option<(f64, f64)> {
    super::time::find_expression(query, now).map(|e| (e.start, e.end))
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2023-05-10 12:00 UTC
    const NOW: f64 = 1_683_720_000.0;

    fn day(y: i64, m: i64, d: i64) -> f64 {
        days_from_civil(y, m, d) as f64 * 86_400.0
    }

    #[test]
    fn relative_expressions() {
        assert_eq!(time_range("what did I eat yesterday?", NOW), Some((day(2023, 5, 9), day(2023, 5, 10))));
        assert_eq!(time_range("notes from today", NOW), Some((day(2023, 5, 10), day(2023, 5, 11))));
        // Wednesday 10 May: the calendar week before this one, Monday to Monday.
        assert_eq!(time_range("what happened last week", NOW), Some((day(2023, 5, 1), day(2023, 5, 8))));
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
        assert_eq!(time_range("on 7 July, 2022", NOW), Some((day(2022, 7, 7), day(2022, 7, 8))));
        assert_eq!(time_range("on 7 July, 2023", NOW), None, "ahead of now: no memory is dated there");
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
