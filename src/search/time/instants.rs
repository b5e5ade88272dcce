//! Times as people and tools write them for a filter: ISO 8601 dates and instants, spans
//! back from now (`3d`, `2w`, `12h`), or Unix seconds (the agent interface's and the CLI's
//! `since`/`until`).

use super::calendar::days_in_month;
use crate::search::query::days_from_civil;

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

/// `YYYY-MM-DDTHH:MM:SSZ` (ISO 8601, UTC, whole seconds) for float Unix seconds.
pub fn iso8601_utc(ts: f64) -> String {
    crate::search::query::utc_string(ts).replacen(' ', "T", 1)
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

    #[test]
    fn formats_back_as_iso8601() {
        assert_eq!(iso8601_utc(1_777_593_600.0 + 9.5 * 3600.0), "2026-05-01T09:30:00Z");
    }
}
