//! Where a value may be trimmed: its clauses.
//!
//! Compression shows a memory as a quote, never a rewrite: the whole value, or its first
//! clauses. A clause boundary is a sentence end, a semicolon, a comma before a conjunction
//! (", and", ", so", ", which"...), or "but"/"because" anywhere. Two rules keep a clause
//! whole where trimming would mislead: a clause with a negation stays with the one before it
//! ("I eat fish, but never on Fridays" is one unit: "I eat fish" alone says too much), and a
//! clause of fewer than three words joins its neighbour (a list's "and plums", a lone "Dr.").

/// Words that open a clause after a comma.
const AFTER_COMMA: &[&str] =
    &["and", "but", "so", "yet", "because", "although", "though", "whereas", "while", "which", "since"];

/// Words that open a clause with or without a comma before them.
const ALWAYS: &[&str] = &["but", "because"];

/// Words before a full stop that do not end a sentence ("Dr. Ona", "e.g. Lisbon").
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "no", "inc", "ltd", "co", "mt",
    "approx",
];

/// Fewer words than this make no clause of their own.
const MIN_WORDS: usize = 3;

/// `value` with every run of whitespace as one space, trimmed: a shown quote is a substring
/// of this (a newline inside a value must not start a line of the compressed text).
pub(super) fn normalize(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the clauses of `text` (already [`normalize`]d) end, as byte offsets: `text[..e]`
/// for each `e` is a quote that ends on a clause boundary; the last is `text.len()`.
/// Empty for an empty text.
pub(super) fn clause_ends(text: &str) -> Vec<usize> {
    // (start, end) of each word.
    let mut words = Vec::new();
    let mut start = 0;
    for w in text.split(' ') {
        words.push((start, start + w.len()));
        start += w.len() + 1;
    }
    if text.is_empty() {
        return Vec::new();
    }
    // Units as (start, end, words, negated).
    let mut units: Vec<(usize, usize, usize, bool)> = Vec::new();
    let mut unit_start = 0;
    let mut count = 0;
    let mut negated = false;
    for (i, &(s, e)) in words.iter().enumerate() {
        if i > 0 && boundary(&text[words[i - 1].0..words[i - 1].1], &text[s..e]) {
            units.push((unit_start, s, count, negated));
            unit_start = s;
            count = 0;
            negated = false;
        }
        count += 1;
        negated |= is_negation(&text[s..e]);
    }
    units.push((unit_start, text.len(), count, negated));

    let mut merged: Vec<(usize, usize, usize, bool)> = Vec::new();
    for unit in units {
        match merged.last_mut() {
            Some(last) if unit.3 || unit.2 < MIN_WORDS => {
                last.1 = unit.1;
                last.2 += unit.2;
            }
            _ => merged.push(unit),
        }
    }
    // A short first clause has nothing before it to join: it takes the next one.
    while merged.len() > 1 && merged[0].2 < MIN_WORDS {
        let next = merged.remove(1);
        merged[0].1 = next.1;
        merged[0].2 += next.2;
    }
    merged.into_iter().map(|u| u.1).collect()
}

/// Whether a clause ends between the words `prev` and `next`.
fn boundary(prev: &str, next: &str) -> bool {
    let next_word = bare(next).to_lowercase();
    if ALWAYS.contains(&next_word.as_str()) || prev.ends_with(';') {
        return true;
    }
    if prev.ends_with(',') {
        return AFTER_COMMA.contains(&next_word.as_str());
    }
    let closed = prev.trim_end_matches(['"', '\'', ')', ']', '”', '’']);
    if closed.ends_with(['.', '!', '?']) {
        let stem = closed.trim_end_matches(['.', '!', '?']).trim_start_matches(['"', '\'', '(', '[', '“', '‘']);
        let lower = stem.to_lowercase();
        // An initial ("J. Smith") or an abbreviation does not end a sentence.
        let abbreviation =
            closed.ends_with('.') && (stem.chars().count() == 1 || ABBREVIATIONS.contains(&lower.as_str()));
        let opens = next.trim_start_matches(['"', '\'', '(', '[', '“', '‘']).chars().next();
        return !abbreviation && opens.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    }
    false
}

/// A word without the punctuation around it.
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
}

fn is_negation(word: &str) -> bool {
    let w = bare(word).to_lowercase().replace('’', "'");
    w.ends_with("n't")
        || matches!(
            w.as_str(),
            "no" | "not" | "never" | "nor" | "none" | "nothing" | "nobody" | "neither" | "without" | "cannot"
        )
}

/// `text[..end]` as shown: trailing spaces and a clause's closing comma, semicolon, colon or
/// full stop trimmed.
pub(super) fn trimmed(text: &str) -> &str {
    let t = text.trim_end().trim_end_matches([',', ';', ':']).trim_end();
    // One full stop, not an ellipsis.
    match t.strip_suffix('.') {
        Some(rest) if !rest.ends_with('.') => rest,
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(value: &str) -> Vec<String> {
        let text = normalize(value);
        clause_ends(&text).into_iter().map(|e| trimmed(&text[..e]).to_string()).collect()
    }

    #[test]
    fn a_single_fact_is_one_clause() {
        for v in [
            "My blood type is A positive.",
            "I replaced my iPhone 13 with a Pixel 9",
            "never deploy to production on Friday afternoons",
            "Alice has two cats and no dogs",
            "I saw Dr. Ana Lopez at the clinic on Main St. yesterday",
            "We use version 0.3.1 of sense-memory, e.g. for the fixtures",
        ] {
            let want = v.trim_end_matches('.');
            assert_eq!(clauses(v), [want], "{v}");
        }
    }

    #[test]
    fn clauses_end_at_sentences_semicolons_and_conjunctions() {
        assert_eq!(
            clauses("We never deploy on Friday afternoons because the on-call team is thin. Ask Omar first."),
            [
                "We never deploy on Friday afternoons",
                "We never deploy on Friday afternoons because the on-call team is thin",
                "We never deploy on Friday afternoons because the on-call team is thin. Ask Omar first"
            ]
        );
        assert_eq!(
            clauses("Priya's birthday is on May 3; she likes a quiet dinner"),
            ["Priya's birthday is on May 3", "Priya's birthday is on May 3; she likes a quiet dinner"]
        );
        assert_eq!(
            clauses("I replaced my iPhone 13 with a Pixel 9, and my sister has the old phone"),
            [
                "I replaced my iPhone 13 with a Pixel 9",
                "I replaced my iPhone 13 with a Pixel 9, and my sister has the old phone"
            ]
        );
    }

    #[test]
    fn a_negated_clause_and_a_short_one_stay_with_the_one_before() {
        let v = "Lisa is allergic to peanuts, so never suggest Thai food";
        assert_eq!(clauses(v), [v]);
        let v = "I like apples, pears, and plums";
        assert_eq!(clauses(v), [v]);
        let v = "Bob eats fish, but not on Fridays";
        assert_eq!(clauses(v), [v]);
        // A newline is a space in the quote: no value can start a line of its own.
        assert_eq!(
            clauses("Lives in Lisbon.\n[domain:self/facet:rules]"),
            ["Lives in Lisbon. [domain:self/facet:rules]"]
        );
    }
}
