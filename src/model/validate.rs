//! Validation rules, exactly as sense-memory 0.3.1 applies them.
//!
//! Lengths count Unicode code points, as Python's `len` does.

use crate::display::is_display_control;
use crate::error::{Rule, ValidationError};

/// Longest key, in code points.
pub const MAX_KEY_LENGTH: usize = 256;
/// Longest value or journal entry, in code points.
pub const MAX_CONTENT_LENGTH: usize = 65_000;
/// Longest domain or facet name, in code points.
pub const MAX_TAXONOMY_LENGTH: usize = 64;

fn fail(field: &'static str, rule: Rule) -> ValidationError {
    ValidationError { field, rule }
}

/// Checks a path segment: non-empty, bounded, no `/`, `\`, NUL or `..`.
fn segment(field: &'static str, s: &str, max: usize) -> Result<(), ValidationError> {
    if s.is_empty() {
        return Err(fail(field, Rule::Empty));
    }
    let len = s.chars().count();
    if len > max {
        return Err(fail(field, Rule::TooLong { max, len }));
    }
    if let Some(c) = s.chars().find(|c| matches!(c, '/' | '\\' | '\0')) {
        return Err(fail(field, Rule::ForbiddenChar(c)));
    }
    if s.contains("..") {
        return Err(fail(field, Rule::PathTraversal));
    }
    if let Some(c) = s.chars().find(|c| is_display_control(*c)) {
        return Err(fail(field, Rule::ControlChar(c)));
    }
    Ok(())
}

/// A memory key (flat or persona). `:` is allowed: memstr never splits a d tag on it.
pub fn validate_key(key: &str) -> Result<(), ValidationError> {
    segment("key", key, MAX_KEY_LENGTH)
}

/// A persona domain or facet name; `field` is `"domain"` or `"facet"`.
pub fn validate_taxonomy(field: &'static str, name: &str) -> Result<(), ValidationError> {
    segment(field, name, MAX_TAXONOMY_LENGTH)
}

/// A memory value: any string up to [`MAX_CONTENT_LENGTH`] (empty is allowed, as in the client).
pub fn validate_value(value: &str) -> Result<(), ValidationError> {
    let len = value.chars().count();
    if len > MAX_CONTENT_LENGTH {
        return Err(fail("value", Rule::TooLong { max: MAX_CONTENT_LENGTH, len }));
    }
    Ok(())
}

/// Journal content: non-empty, up to [`MAX_CONTENT_LENGTH`].
pub fn validate_journal_content(content: &str) -> Result<(), ValidationError> {
    if content.is_empty() {
        return Err(fail("content", Rule::Empty));
    }
    let len = content.chars().count();
    if len > MAX_CONTENT_LENGTH {
        return Err(fail("content", Rule::TooLong { max: MAX_CONTENT_LENGTH, len }));
    }
    Ok(())
}

/// Confidence in [0, 1].
pub fn validate_confidence(confidence: f64) -> Result<(), ValidationError> {
    if !(0.0..=1.0).contains(&confidence) {
        return Err(fail("confidence", Rule::OutOfRange { min: 0.0, max: 1.0, value: confidence }));
    }
    Ok(())
}

/// Halflife in days: strictly positive. (The client accepts infinity; so does memstr,
/// since an infinite halflife is a memory that never decays.)
pub fn validate_halflife(days: f64) -> Result<(), ValidationError> {
    if days.is_nan() || days <= 0.0 {
        return Err(fail("halflife_days", Rule::NotPositive(days)));
    }
    Ok(())
}

/// A Unix timestamp in seconds: finite and not negative.
pub fn validate_timestamp(field: &'static str, ts: f64) -> Result<(), ValidationError> {
    if !ts.is_finite() || ts < 0.0 {
        return Err(fail(field, Rule::BadTimestamp(ts)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_rules_match_the_published_client() {
        assert!(validate_key("alice-prefers-dark-mode").is_ok());
        assert!(validate_key("ns:topic").is_ok());
        assert!(validate_key("café-☕").is_ok());
        assert_eq!(validate_key("").unwrap_err().rule, Rule::Empty);
        assert_eq!(validate_key("a/b").unwrap_err().rule, Rule::ForbiddenChar('/'));
        assert_eq!(validate_key("a\\b").unwrap_err().rule, Rule::ForbiddenChar('\\'));
        assert_eq!(validate_key("a\0b").unwrap_err().rule, Rule::ForbiddenChar('\0'));
        assert_eq!(validate_key("a..b").unwrap_err().rule, Rule::PathTraversal);
        assert!(validate_key(&"k".repeat(256)).is_ok());
        assert_eq!(validate_key(&"k".repeat(257)).unwrap_err().rule, Rule::TooLong { max: 256, len: 257 });
        // 256 code points of a 4-byte character: counted as Python counts, not in bytes.
        assert!(validate_key(&"☕".repeat(256)).is_ok());
    }

    #[test]
    fn keys_with_control_or_bidi_characters_are_refused() {
        for (bad, c) in [
            ("a\u{1b}[31mb", '\u{1b}'),
            ("line\nbreak", '\n'),
            ("tab\there", '\t'),
            ("del\u{7f}", '\u{7f}'),
            ("c1\u{9b}", '\u{9b}'),
            ("invoice-\u{202E}fdp.exe", '\u{202E}'),
            ("isolate\u{2067}x", '\u{2067}'),
            ("mark\u{200F}", '\u{200F}'),
        ] {
            let e = validate_key(bad).unwrap_err();
            assert_eq!(e.rule, Rule::ControlChar(c), "{bad:?}");
            assert_eq!(e.rule.name(), "no-control-characters");
        }
        assert_eq!(validate_taxonomy("domain", "peo\u{202D}ple").unwrap_err().rule, Rule::ControlChar('\u{202D}'));
        // Scripts written right to left are fine: only the formatting controls are refused.
        assert!(validate_key("مرحبا-שלום").is_ok());
        assert!(validate_key("zero\u{200B}width").is_ok());
    }

    #[test]
    fn taxonomy_rules() {
        assert!(validate_taxonomy("domain", "people").is_ok());
        assert!(validate_taxonomy("facet", &"f".repeat(64)).is_ok());
        let e = validate_taxonomy("facet", &"f".repeat(65)).unwrap_err();
        assert_eq!(e.field, "facet");
        assert_eq!(e.rule.name(), "max-length");
        assert_eq!(validate_taxonomy("domain", "..").unwrap_err().rule, Rule::PathTraversal);
    }

    #[test]
    fn value_and_content_rules() {
        assert!(validate_value("").is_ok());
        assert!(validate_value(&"v".repeat(65_000)).is_ok());
        assert!(validate_value(&"v".repeat(65_001)).is_err());
        assert_eq!(validate_journal_content("").unwrap_err().rule, Rule::Empty);
        assert!(validate_journal_content("a day").is_ok());
    }

    #[test]
    fn numeric_rules() {
        assert!(validate_confidence(0.0).is_ok());
        assert!(validate_confidence(1.0).is_ok());
        assert!(validate_confidence(1.01).is_err());
        assert!(validate_confidence(f64::NAN).is_err());
        assert!(validate_halflife(0.5).is_ok());
        assert!(validate_halflife(0.0).is_err());
        assert!(validate_halflife(-1.0).is_err());
        assert!(validate_timestamp("ts", 1.7e9).is_ok());
        assert!(validate_timestamp("ts", f64::INFINITY).is_err());
        assert!(validate_timestamp("ts", -1.0).is_err());
    }

    #[test]
    fn error_message_names_field_and_rule() {
        let msg = validate_key("a/b").unwrap_err().to_string();
        assert!(msg.contains("key"), "{msg}");
        assert!(msg.contains("forbidden-character"), "{msg}");
    }
}
