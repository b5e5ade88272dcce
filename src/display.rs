//! Text as memstr shows it: every byte a memory or a relay supplied reaches a terminal,
//! a log line or an agent escaped, so stored or received text can neither drive the
//! terminal (ESC, OSC, BEL, C1 controls), reorder what a person reads (bidirectional
//! overrides), nor forge a line of its own (newline, carriage return).
//!
//! The escapes are visible and unambiguous: `\n`, `\r`, `\t`, and `\u{..}` for the rest.

use std::borrow::Cow;

/// Control characters (C0, DEL, C1) and the bidirectional formatting characters: shown as
/// they are, they can move the cursor, rewrite a terminal's title or clipboard, or hide and
/// reorder what the user reads.
pub fn is_display_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` for one line of output: every display control escaped, newlines included.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` for a block of its own (a memory's value, compressed context): newlines kept,
/// every other display control escaped.
pub fn block(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_display_control(c) && !(keep_newlines && c == '\n')) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_display_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text a relay supplied (a `CLOSED` or `OK` reason, a `NOTICE`): escaped for one line and
/// cut to [`MAX_RELAY_TEXT`] characters, since it is kept (a relay's last error) and shown.
pub fn relay_text(text: &str) -> String {
    let escaped = line(text);
    let mut out: String = escaped.chars().take(MAX_RELAY_TEXT).collect();
    if escaped.chars().count() > MAX_RELAY_TEXT {
        out.push('…');
    }
    out
}

/// Longest relay-supplied message memstr keeps or shows, in characters.
pub const MAX_RELAY_TEXT: usize = 300;

/// JSON output with the display controls JSON itself leaves raw (DEL, C1, bidirectional
/// formatting) written as `\uXXXX` escapes: still the same JSON value. JSON's own escapes
/// already cover C0 inside strings, and outside strings JSON text is ASCII.
pub fn json(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_display_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_display_control(c) && !matches!(c, '\n' | '\r' | '\t' | ' ') {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_escaped_and_newlines_only_kept_in_blocks() {
        let hostile = "ok\u{1b}]0;pwned\u{7}\u{1b}[2J\nmemstr: fake line\u{202e}\u{9b}31m";
        let l = line(hostile);
        assert!(!l.chars().any(is_display_control), "{l}");
        assert_eq!(l, "ok\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\nmemstr: fake line\\u{202e}\\u{9b}31m");
        let b = block(hostile);
        assert_eq!(b.lines().count(), 2);
        assert!(!b.chars().any(|c| is_display_control(c) && c != '\n'));
        assert!(matches!(line("plain text"), Cow::Borrowed(_)));
    }

    #[test]
    fn relay_text_is_one_bounded_line() {
        let long = format!("a\nb{}", "x".repeat(10_000));
        let t = relay_text(&long);
        assert!(t.chars().count() <= MAX_RELAY_TEXT + 1 && !t.contains('\n'), "{t}");
        assert_eq!(relay_text("rate-limited"), "rate-limited");
    }

    #[test]
    fn json_output_stays_the_same_value_without_raw_controls() {
        let v = serde_json::json!({"value": "a\u{7f}b\u{9b}c\u{202e}d\u{1F600}"});
        let raw = serde_json::to_string_pretty(&v).unwrap();
        let safe = json(&raw);
        assert!(!safe.chars().any(|c| is_display_control(c) && c != '\n'), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), v);
    }
}
