//! Text as memstr reads it: words (the same runs FTS5's unicode61 tokenizer sees), stop
//! words, query terms and folding. Search, the novelty gate, compression and consolidation
//! share these, so each compares words alike.

/// Lower-cased runs of letters and digits: the same words FTS5's unicode61 tokenizer sees.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Month names, lower case, January first: the one list every reader of dates uses.
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Weekday names, lower case, Monday first (ISO 8601's order).
pub const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Words too common to say anything about which memory is meant: NLTK's English list
/// (its forms with apostrophes are covered, since words split at apostrophes).
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "ain",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "couldn",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "ll",
    "m",
    "ma",
    "me",
    "mightn",
    "more",
    "most",
    "mustn",
    "my",
    "myself",
    "needn",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "s",
    "same",
    "shan",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "ve",
    "very",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won",
    "wouldn",
    "y",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Query words minus stop words (all words if nothing else is left).
pub fn content_terms(query: &str) -> Vec<String> {
    let all = query_terms(query);
    let kept: Vec<String> = all.iter().filter(|t| !STOP_WORDS.contains(&t.as_str())).cloned().collect();
    if kept.is_empty() {
        all
    } else {
        kept
    }
}

/// The share of `terms` (content words of a query) that `text` contains, a word counting
/// when it shares its first five letters with one of the text's (a light stemmer:
/// "birthday"/"birthdays", "deploy"/"deployed").
pub fn term_coverage(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    let words: std::collections::HashSet<String> = tokenize(text).iter().map(|w| stem(w)).collect();
    let hit = terms.iter().filter(|t| words.contains(&stem(t))).count();
    hit as f64 / terms.len() as f64
}

/// Distinct words a query is searched by, at most: a question has a few dozen, and every
/// term costs a posting list read; a 100 kB query must not cost seconds.
pub const MAX_QUERY_TERMS: usize = 64;

/// Longest query a search reads, in characters: the embedding model sees its first few
/// hundred tokens anyway, and tokenizing megabytes would cost seconds a caller controls.
/// The rest of a longer query is ignored ([`bounded_query`]).
pub const MAX_QUERY_CHARS: usize = 4_096;

/// `query` cut to its first [`MAX_QUERY_CHARS`] characters.
pub fn bounded_query(query: &str) -> &str {
    match query.char_indices().nth(MAX_QUERY_CHARS) {
        Some((at, _)) => &query[..at],
        None => query,
    }
}

/// The distinct words of a query, in order, at most [`MAX_QUERY_TERMS`].
pub fn query_terms(query: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut terms = Vec::new();
    for t in tokenize(query) {
        if terms.len() == MAX_QUERY_TERMS {
            break;
        }
        if seen.insert(t.clone()) {
            terms.push(t);
        }
    }
    terms
}

/// An FTS5 expression matching any of `terms` (each quoted, so no word is an operator).
pub fn fts_any(terms: &[String]) -> Option<String> {
    (!terms.is_empty())
        .then(|| terms.iter().map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect::<Vec<_>>().join(" OR "))
}

/// "likes" and "like", "lives" and "lived" to one form; short words and numbers as they are.
/// The gate's similarity and contradiction rules and consolidation's recurrence fold with it,
/// so all of them compare words alike.
pub fn fold(w: &str) -> String {
    if w.len() <= 3 || is_number(w) {
        return w.to_string();
    }
    for suffix in ["ing", "ed", "es", "s", "e"] {
        if let Some(stem) = w.strip_suffix(suffix) {
            if stem.len() >= 3 {
                return stem.to_string();
            }
        }
    }
    w.to_string()
}

/// Whether `w` is all ASCII digits.
pub(crate) fn is_number(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_digit())
}

/// Distinct content words of `text` (no stop words, numbers or single letters), folded,
/// each with the first form it took (what FTS5 is asked for).
pub(crate) fn folded_content_words(text: &str) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for w in tokenize(text) {
        if w.chars().count() < 2 || w.chars().all(|c| c.is_ascii_digit()) || STOP_WORDS.contains(&w.as_str()) {
            continue;
        }
        out.entry(fold(&w)).or_insert(w);
    }
    out
}
