//! Dates written out: `2026-03-14`, `14/03/2026`, `3/14/2026`, `14.03.2026`, `14 March`,
//! `March 14th, 2026`, `the 14th of March`, `Mar 14`, `August 2026`, `in August`, `in 2025`.

use super::calendar::{day_span, days_in_month, month_span, year_span, Cal, Span};
use super::words::{day_of_month, month_of, year, At};

/// Words before a name that make it a time: `in May` (the verb "may" is not), `on Aug 3`.
const CONTEXT: [&str; 7] = ["in", "on", "during", "from", "of", "before", "after"];

fn valid(y: i64, m: i64, d: i64) -> bool {
    (1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d)
}

/// One or two digits, as a number.
fn small(w: &str) -> Option<i64> {
    (!w.is_empty() && w.len() <= 2 && w.bytes().all(|b| b.is_ascii_digit())).then(|| w.parse().ok()).flatten()
}

/// A date of numbers: ISO `2026-03-14`; `14.03.2026` (day first, as everywhere dots are
/// written); `14/03/2026` or `3/14/2026`, read whichever way is a date. When both ways are
/// (`3/4/2026`: 3 April or 4 March) the store cannot know the writer's convention, and a
/// wrong guess would hide the right day behind a confident filter: such a date names no
/// time, and its words stay to be matched.
fn numeric(at: At) -> Option<(usize, Span)> {
    let w = |j: usize| at.w(j);
    if let Some(y) = year(w(0)) {
        let (m, d) = (w(1), w(2));
        if at.joined_by(1, "-") && at.joined_by(2, "-") && m.len() == 2 && d.len() == 2 {
            let (m, d) = (small(m)?, small(d)?);
            return valid(y, m, d).then(|| (3, day_span(y, m, d)));
        }
        return None;
    }
    let (a, b) = (small(w(0))?, small(w(1))?);
    let y = year(w(2))?;
    let sep = at.word(1)?.sep;
    if !matches!(sep, "/" | ".") || !at.joined_by(2, sep) {
        return None;
    }
    let day_first = valid(y, b, a).then_some((b, a));
    let month_first = valid(y, a, b).then_some((a, b));
    let (m, d) = match (sep, day_first, month_first) {
        (".", Some(md), _) => md,
        ("/", Some(x), Some(y)) if x != y => return None,
        ("/", Some(md), _) | ("/", None, Some(md)) => md,
        _ => return None,
    };
    Some((3, day_span(y, m, d)))
}

/// The date starting at `at` (after `prev`): the words it takes and its range.
pub(super) fn date_at(at: At, prev: Option<&str>, c: &Cal) -> Option<(usize, Span)> {
    let w = |j: usize| at.w(j);
    if let Some(found) = numeric(at) {
        return Some(found);
    }
    let context = prev.is_some_and(|p| CONTEXT.contains(&p));
    // "14 March 2026", "14th of March", "14 March": without a year, the most recent not
    // after today.
    if let Some(d) = day_of_month(w(0)) {
        let of = if w(1) == "of" { 2 } else { 1 };
        if let Some((mo, _)) = at.word(of).and_then(month_of) {
            let (n, y) = match year(w(of + 1)) {
                Some(y) => (of + 2, y),
                None => (of + 1, c.year_of(mo, Some(d), false)),
            };
            return valid(y, mo, d).then(|| (n, day_span(y, mo, d)));
        }
    }
    let (mo, alone) = at.word(0).and_then(month_of)?;
    // "March 14", "March 14th, 2026", "Mar 14".
    if let Some(d) = day_of_month(w(1)) {
        let (n, y) = match year(w(2)) {
            Some(y) => (3, y),
            None => (2, c.year_of(mo, Some(d), false)),
        };
        return valid(y, mo, d).then(|| (n, day_span(y, mo, d)));
    }
    if let Some(y) = year(w(1)) {
        return Some((2, month_span(y, mo)));
    }
    (alone || context).then(|| (1, month_span(c.year_of(mo, None, false), mo)))
}

/// A year alone, after "in" or "during" ("the 2025 roadmap" names none).
pub(super) fn year_at(at: At, prev: Option<&str>) -> Option<(usize, Span)> {
    let y = year(at.w(0)).filter(|_| matches!(prev, Some("in" | "during")))?;
    Some((1, year_span(y)))
}

#[cfg(test)]
mod tests {
    use super::super::find_expression;
    use super::super::fixed::*;

    /// 2026-03-14, a Saturday, 10:00 UTC.
    const PI_DAY: f64 = 1_773_482_400.0;

    #[test]
    fn a_named_day_in_every_common_order() {
        let day = Some((d(2026, 3, 14), d(2026, 3, 15)));
        for q in
            ["14 March", "March 14", "March 14th", "14th of March 2026", "Mar 14", "on march 14, 2026", "14 Mar 2026"]
        {
            assert_eq!(range(q, PI_DAY), day, "{q}");
        }
    }

    #[test]
    fn a_day_without_a_year_is_the_most_recent_not_after_today() {
        assert_eq!(range("March 14", d(2026, 3, 13)), Some((d(2025, 3, 14), d(2025, 3, 15))), "the day before");
        assert_eq!(range("14 March", PI_DAY), Some((d(2026, 3, 14), d(2026, 3, 15))), "on the day");
        assert_eq!(range("Dec 31", d(2026, 1, 1)), Some((d(2025, 12, 31), d(2026, 1, 1))), "across a year");
    }

    #[test]
    fn numeric_dates_iso_and_dotted() {
        let day = Some((d(2026, 3, 14), d(2026, 3, 15)));
        assert_eq!(range("2026-03-14", PI_DAY), day);
        assert_eq!(range("on 14.03.2026", PI_DAY), day);
        assert_eq!(range("on 4.3.2026", PI_DAY), Some((d(2026, 3, 4), d(2026, 3, 5))), "dots are day first");
    }

    #[test]
    fn a_slashed_date_is_read_the_only_way_it_is_a_date() {
        let day = Some((d(2026, 3, 14), d(2026, 3, 15)));
        assert_eq!(range("14/03/2026", PI_DAY), day, "day first: there is no month 14");
        assert_eq!(range("3/14/2026", PI_DAY), day, "month first: there is no month 14");
        assert_eq!(range("5/5/2025", PI_DAY), Some((d(2025, 5, 5), d(2025, 5, 6))), "both readings the same day");
    }

    #[test]
    fn a_slashed_date_valid_both_ways_names_no_time() {
        // 3 April or 4 March: a guess would filter confidently to the wrong day.
        assert_eq!(range("what happened on 3/4/2026", PI_DAY), None);
        assert_eq!(range("12/11/2025", PI_DAY), None);
    }

    #[test]
    fn impossible_dates_name_no_time() {
        for q in ["2026-02-30", "31/02/2026", "february 30", "13/13/2026", "2026-3-14"] {
            assert_eq!(range(q, PI_DAY), None, "{q}");
        }
        // No such day, but the month it names is one.
        assert_eq!(range("30 February 2024", PI_DAY), Some((d(2024, 2, 1), d(2024, 3, 1))));
        assert_eq!(range("29 February 2024", PI_DAY), Some((d(2024, 2, 29), d(2024, 3, 1))), "a leap day");
    }

    #[test]
    fn a_date_s_words_leave_the_query() {
        let q = "what did we plant on 14/03/2026?";
        let e = find_expression(q, PI_DAY).unwrap();
        assert_eq!(e.words(q), "on 14/03/2026");
        assert_eq!(e.rest(q), "what did we plant ?");
    }
}
