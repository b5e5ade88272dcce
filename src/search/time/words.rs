//! The words a time is written in: runs of letters and digits with their places, and the
//! small readers (counts, days of the month, years, units, month names) the expressions
//! are built of.

use crate::text::MONTHS;

/// A word of the text: a run of letters and digits, lower-cased, with its place and what
/// separates it from the word before (`"/"` in `14/03/2026`).
pub(super) struct Word<'a> {
    pub raw: &'a str,
    pub low: String,
    pub start: usize,
    pub end: usize,
    pub sep: &'a str,
}

pub(super) fn words(text: &str) -> Vec<Word<'_>> {
    let mut out: Vec<Word> = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let raw = &text[s..i];
                let sep = &text[out.last().map_or(0, |w| w.end)..s];
                out.push(Word { raw, low: raw.to_lowercase(), start: s, end: i, sep });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The words from `i` on, read by offset: `w(0)` is word `i`, `""` past the end.
#[derive(Clone, Copy)]
pub(super) struct At<'a, 'b> {
    pub ws: &'b [Word<'a>],
    pub i: usize,
}

impl<'a, 'b> At<'a, 'b> {
    pub fn w(&self, j: usize) -> &'b str {
        self.ws.get(self.i + j).map(|w| w.low.as_str()).unwrap_or("")
    }

    pub fn word(&self, j: usize) -> Option<&'b Word<'a>> {
        self.ws.get(self.i + j)
    }

    /// The words from `j` on.
    pub fn from(&self, j: usize) -> At<'a, 'b> {
        At { ws: self.ws, i: self.i + j }
    }

    /// Whether word `j` follows word `j - 1` with exactly `sep` between them.
    pub fn joined_by(&self, j: usize, sep: &str) -> bool {
        j > 0 && self.word(j).is_some_and(|w| w.sep == sep)
    }
}

/// A count: digits (1 to 1000), "a"/"an", or one to twenty in words.
pub(super) fn count(w: &str) -> Option<i64> {
    const WORDS: [&str; 20] = [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    match w {
        "a" | "an" => Some(1),
        _ => w
            .parse()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .or_else(|| WORDS.iter().position(|n| *n == w).map(|i| i as i64 + 1)),
    }
}

/// A count said loosely, as the fewest and most it may mean: "a couple of days" is one to
/// three, "a few weeks" two to four, "several months" three to seven. Loose words get a
/// loose span, so the memory that says "3 days" is inside "a couple of days ago".
pub(super) fn vague_count(w: &str) -> Option<(i64, i64)> {
    match w {
        "couple" => Some((1, 3)),
        "few" => Some((2, 4)),
        "several" => Some((3, 7)),
        _ => None,
    }
}

/// A day of the month: `3`, `3rd`, `21st`.
pub(super) fn day_of_month(w: &str) -> Option<i64> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// A year written in full, 1900 to 2200: "2026" is one, "26" and "747" are not.
pub(super) fn year(w: &str) -> Option<i64> {
    (w.len() == 4).then(|| w.parse().ok()).flatten().filter(|y| (1900..=2200).contains(y))
}

/// Days in a unit of a span back from now ("past 2 weeks").
pub(super) const UNIT_DAYS: [f64; 4] = [1.0, 7.0, 30.0, 365.0];

/// Units of "3 days ago" and "past 2 weeks": 0 day, 1 week, 2 month, 3 year.
pub(super) fn unit(w: &str) -> Option<usize> {
    ["day", "week", "month", "year"].iter().position(|u| w == *u || w.strip_suffix('s') == Some(u))
}

/// A month's number, when `w` names it ("August", "aug", "Sept"), and whether it may
/// stand alone as a time.
pub(super) fn month_of(w: &Word) -> Option<(i64, bool)> {
    let low = w.low.as_str();
    let full = MONTHS.iter().position(|m| *m == low);
    let short = MONTHS.iter().position(|m| low.len() >= 3 && low.len() < m.len() && m.starts_with(low));
    let i = full.or(short)?;
    // A capitalised full name stands alone ("in" or a number may be missing); "May" and
    // abbreviations ("Jan" is also a name) need them.
    let alone = full.is_some() && low != "may" && w.raw.starts_with(|c: char| c.is_uppercase());
    Some((i as i64 + 1, alone))
}

/// A season's index in [`super::calendar::SEASONS`] ("fall" is autumn).
pub(super) fn season(w: &str) -> Option<usize> {
    match w {
        "fall" => Some(2),
        _ => super::calendar::SEASONS.iter().position(|s| *s == w || w.strip_suffix('s') == Some(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_what_separates_them() {
        let ws = words("on 14/03/2026, ok");
        let seps: Vec<&str> = ws.iter().map(|w| w.sep).collect();
        assert_eq!(seps, ["", " ", "/", "/", ", "]);
        assert_eq!(ws[3].low, "2026");
    }

    #[test]
    fn counts_in_digits_and_words_and_loose_counts_as_ranges() {
        assert_eq!(count("two"), Some(2));
        assert_eq!(count("an"), Some(1));
        assert_eq!(count("17"), Some(17));
        assert_eq!(count("0"), None);
        assert_eq!(count("couple"), None);
        assert_eq!(vague_count("few"), Some((2, 4)));
    }

    #[test]
    fn fall_is_autumn_and_seasons_take_a_plural() {
        assert_eq!(season("fall"), Some(2));
        assert_eq!(season("summers"), Some(1));
        assert_eq!(season("falls"), None);
    }
}
