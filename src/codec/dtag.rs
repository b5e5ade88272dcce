//! d-tag paths: how a memory is addressed, in plain or blinded form.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{validate_key, validate_taxonomy};

/// Prefix of every sense-memory d tag except the journal's.
pub const D_TAG_PREFIX: &str = "sense-memory/";
/// Prefix of journal d tags.
pub const JOURNAL_PREFIX: &str = "sense-journal/";
const PERSONA_PREFIX: &str = "sense-memory/persona/";
const EMBED_PREFIX: &str = "sense-memory/embed/";
const INTROSPECTION_PREFIX: &str = "sense-memory/introspection/";
const INSIGHT_PREFIX: &str = "sense-memory/insight/";
/// Pseudo-path of kind-4 journal notes, which have no d tag.
const KIND4_PREFIX: &str = "kind4/";

/// How memstr writes d tags. Readers always accept both. New stores are blinded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum DTagMode {
    /// The plain path, as the published client writes it: every key, domain and facet
    /// is visible to relay operators. Readable by the published client: the choice for a
    /// store shared with sense-memory's Python client.
    Compatible,
    /// A keyed hash of the path; the plain path travels inside the ciphertext.
    /// Relay operators see only opaque identifiers. Not readable by the published client.
    /// The default. Nothing memstr publishes in this mode names a path (docs/wire-format.md).
    #[default]
    Blinded,
}

impl DTagMode {
    /// `"compatible"` or `"blinded"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DTagMode::Compatible => "compatible",
            DTagMode::Blinded => "blinded",
        }
    }
}

impl std::str::FromStr for DTagMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "compatible" => Ok(DTagMode::Compatible),
            "blinded" => Ok(DTagMode::Blinded),
            other => Err(format!("unknown d-tag mode {other:?}: use compatible or blinded")),
        }
    }
}

/// Whether a tag value holds a plain sense-memory path: a plain d tag
/// (`sense-memory/...`, `sense-journal/...`) or a coordinate ending in one
/// (`30078:{pubkey}:sense-memory/...`). A blinded store publishes no such value.
/// [`PLAIN_PATH_SQL`] is the same test in SQL.
pub fn names_plain_path(value: &str) -> bool {
    [D_TAG_PREFIX, JOURNAL_PREFIX].iter().any(|p| value.starts_with(p) || value.contains(&format!(":{p}")))
}

/// SQL true when the stored event `e` (a row of `events`) has a tag value that
/// [`names_plain_path`]. Such events are never pushed by a blinded store.
pub(crate) const PLAIN_PATH_SQL: &str = "EXISTS (SELECT 1 FROM json_each(e.json, '$.tags') t \
     WHERE t.value ->> 1 GLOB 'sense-memory/*' OR t.value ->> 1 GLOB 'sense-journal/*' \
     OR t.value ->> 1 GLOB '*:sense-memory/*' OR t.value ->> 1 GLOB '*:sense-journal/*')";

/// What sort of record a path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecordKind {
    /// A flat key-value memory (`sense-memory/{key}`).
    Kv,
    /// A journal entry (`sense-journal/{ts}`, or a kind-4 note).
    Journal,
    /// A persona memory (`sense-memory/persona/{domain}/{facet}/{key}`).
    Persona,
    /// A published embedding (`sense-memory/embed/{key}`).
    Embed,
    /// An introspection report (`sense-memory/introspection/{ts}`).
    Introspection,
    /// A dream insight (`sense-memory/insight/{key}`, memstr's): derived, never searched.
    Insight,
}

impl RecordKind {
    /// Every kind.
    pub const ALL: [RecordKind; 6] = [
        RecordKind::Kv,
        RecordKind::Journal,
        RecordKind::Persona,
        RecordKind::Embed,
        RecordKind::Introspection,
        RecordKind::Insight,
    ];

    /// The kind stored under `name` ([`RecordKind::as_str`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Kinds that are memories (the rest are derived from them).
    pub const MEMORIES: [RecordKind; 3] = [RecordKind::Kv, RecordKind::Journal, RecordKind::Persona];

    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Kv => "kv",
            RecordKind::Journal => "journal",
            RecordKind::Persona => "persona",
            RecordKind::Embed => "embed",
            RecordKind::Introspection => "introspection",
            RecordKind::Insight => "insight",
        }
    }
}

/// The logical address of a record: what a plain d tag spells out.
#[derive(Debug, Clone, PartialEq)]
pub enum Path {
    /// `sense-memory/{key}`
    Kv {
        /// The memory's key.
        key: String,
    },
    /// `sense-journal/{ts}`: `ts` as the writer formatted it, and its value.
    Journal {
        /// The timestamp as written in the d tag.
        text: String,
        /// Its value (float Unix seconds).
        ts: f64,
    },
    /// `sense-memory/persona/{domain}/{facet}/{key}`
    Persona {
        /// The memory's domain.
        domain: String,
        /// The memory's facet.
        facet: String,
        /// The memory's key.
        key: String,
    },
    /// `sense-memory/embed/{key}`
    Embed {
        /// Key of the embedded memory.
        key: String,
    },
    /// `sense-memory/introspection/{timestamp}`
    Introspection {
        /// The timestamp as written in the d tag.
        text: String,
        /// Its value (float Unix seconds).
        ts: f64,
    },
    /// `sense-memory/insight/{key}` (memstr's; the published client does not read it).
    Insight {
        /// The insight's key ([`crate::Insight::key`]).
        key: String,
    },
    /// A kind-4 journal note, addressed by its event id (it has no d tag).
    Kind4 {
        /// The note's event id (hex).
        event_id: String,
    },
}

/// Why a d tag is not a sense-memory path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// Outside sense-memory's namespaces: another application's data.
    Foreign,
    /// In sense-memory's namespace but malformed (bad segment, bad timestamp, ...).
    Malformed,
}

impl Path {
    /// A persona memory's path, from its address.
    pub fn of_persona(m: &crate::model::PersonaMemory) -> Path {
        Path::Persona { domain: m.domain.clone(), facet: m.facet.clone(), key: m.key.clone() }
    }

    /// Parses a plain d tag. Segments must pass the client's validation rules.
    pub fn parse(d: &str) -> Result<Path, PathError> {
        if let Some(ts_text) = d.strip_prefix(JOURNAL_PREFIX) {
            let ts = parse_ts(ts_text)?;
            return Ok(Path::Journal { text: ts_text.to_string(), ts });
        }
        let Some(rest) = d.strip_prefix(D_TAG_PREFIX) else {
            return Err(PathError::Foreign);
        };
        if !rest.contains('/') {
            validate_key(rest).map_err(|_| PathError::Malformed)?;
            return Ok(Path::Kv { key: rest.to_string() });
        }
        if let Some(p) = d.strip_prefix(PERSONA_PREFIX) {
            let mut parts = p.split('/');
            let (Some(domain), Some(facet), Some(key), None) = (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(PathError::Malformed);
            };
            validate_taxonomy("domain", domain).map_err(|_| PathError::Malformed)?;
            validate_taxonomy("facet", facet).map_err(|_| PathError::Malformed)?;
            validate_key(key).map_err(|_| PathError::Malformed)?;
            return Ok(Path::Persona { domain: domain.to_string(), facet: facet.to_string(), key: key.to_string() });
        }
        if let Some(key) = d.strip_prefix(EMBED_PREFIX) {
            validate_key(key).map_err(|_| PathError::Malformed)?;
            return Ok(Path::Embed { key: key.to_string() });
        }
        if let Some(ts_text) = d.strip_prefix(INTROSPECTION_PREFIX) {
            let ts = parse_ts(ts_text)?;
            return Ok(Path::Introspection { text: ts_text.to_string(), ts });
        }
        if let Some(key) = d.strip_prefix(INSIGHT_PREFIX) {
            validate_key(key).map_err(|_| PathError::Malformed)?;
            return Ok(Path::Insight { key: key.to_string() });
        }
        Err(PathError::Malformed)
    }

    /// The plain d tag (for kind-4 notes, the pseudo-path `kind4/{id}`).
    pub fn to_d(&self) -> String {
        match self {
            Path::Kv { key } => format!("{D_TAG_PREFIX}{key}"),
            Path::Journal { text, .. } => format!("{JOURNAL_PREFIX}{text}"),
            Path::Persona { domain, facet, key } => format!("{PERSONA_PREFIX}{domain}/{facet}/{key}"),
            Path::Embed { key } => format!("{EMBED_PREFIX}{key}"),
            Path::Introspection { text, .. } => format!("{INTROSPECTION_PREFIX}{text}"),
            Path::Insight { key } => format!("{INSIGHT_PREFIX}{key}"),
            Path::Kind4 { event_id } => format!("{KIND4_PREFIX}{event_id}"),
        }
    }

    /// A journal path for a timestamp, formatted as the client formats it.
    pub fn journal(ts: f64) -> Path {
        Path::Journal { text: format_py_float(ts), ts }
    }

    /// An introspection path for a timestamp.
    pub fn introspection(ts: f64) -> Path {
        Path::Introspection { text: format_py_float(ts), ts }
    }

    /// What the path holds.
    pub fn kind(&self) -> RecordKind {
        match self {
            Path::Kv { .. } => RecordKind::Kv,
            Path::Journal { .. } | Path::Kind4 { .. } => RecordKind::Journal,
            Path::Persona { .. } => RecordKind::Persona,
            Path::Embed { .. } => RecordKind::Embed,
            Path::Introspection { .. } => RecordKind::Introspection,
            Path::Insight { .. } => RecordKind::Insight,
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_d())
    }
}

fn parse_ts(text: &str) -> Result<f64, PathError> {
    match text.parse::<f64>() {
        Ok(ts) if ts.is_finite() && ts >= 0.0 => Ok(ts),
        _ => Err(PathError::Malformed),
    }
}

/// Formats a float as Python's `repr` does for timestamps: shortest round-trip digits,
/// and a trailing `.0` on whole numbers (`1795239472.0`, `1795239472.3708987`).
pub fn format_py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        // Rust's Display is also shortest round-trip; exponents differ from Python only
        // outside the range of Unix timestamps.
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_every_namespace() {
        assert_eq!(Path::parse("sense-memory/color").unwrap(), Path::Kv { key: "color".into() });
        assert_eq!(
            Path::parse("sense-memory/persona/people/facts/alice").unwrap(),
            Path::Persona { domain: "people".into(), facet: "facts".into(), key: "alice".into() }
        );
        assert_eq!(Path::parse("sense-memory/embed/alice").unwrap(), Path::Embed { key: "alice".into() });
        assert!(matches!(
            Path::parse("sense-journal/1795239472.3708987").unwrap(),
            Path::Journal { ts, .. } if ts == 1795239472.3708987
        ));
        assert!(matches!(Path::parse("sense-memory/introspection/1795239472.5").unwrap(), Path::Introspection { .. }));
        assert_eq!(Path::parse("sense-memory/insight/trend-0a1b").unwrap(), Path::Insight { key: "trend-0a1b".into() });
        // A bare "persona" key is a flat memory, as in the client.
        assert_eq!(Path::parse("sense-memory/persona").unwrap(), Path::Kv { key: "persona".into() });
        // A colon in a key is fine: memstr never splits a d tag on ':'.
        assert_eq!(Path::parse("sense-memory/a:b:c").unwrap(), Path::Kv { key: "a:b:c".into() });
    }

    #[test]
    fn rejects_foreign_and_malformed() {
        assert_eq!(Path::parse("other-app/settings"), Err(PathError::Foreign));
        assert_eq!(Path::parse(""), Err(PathError::Foreign));
        assert_eq!(Path::parse("sense-memory/"), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-memory/persona/a/b"), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-memory/persona/a/b/c/d"), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-memory/persona/a/b/.."), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-memory/x/y"), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-journal/yesterday"), Err(PathError::Malformed));
        assert_eq!(Path::parse("sense-journal/-5.0"), Err(PathError::Malformed));
    }

    #[test]
    fn floats_format_like_python_repr() {
        assert_eq!(format_py_float(1795239472.3708987), "1795239472.3708987");
        assert_eq!(format_py_float(1795239472.0), "1795239472.0");
        assert_eq!(format_py_float(0.5), "0.5");
        assert_eq!(format_py_float(1700000000.1), "1700000000.1");
    }

    proptest! {
        #[test]
        fn plain_paths_round_trip(
            // Keys refuse control and formatting characters (terminal spoofing).
            key in "[^/\\\\.\\p{Cc}\\p{Cf}]{1,40}",
            domain in "[a-z:é ]{1,20}",
            facet in "[a-z0-9_-]{1,20}",
            ts in 0.0f64..4.0e9,
        ) {
            for p in [
                Path::Kv { key: key.clone() },
                Path::Persona { domain: domain.clone(), facet: facet.clone(), key: key.clone() },
                Path::Embed { key: key.clone() },
                Path::journal(ts),
                Path::introspection(ts),
                Path::Insight { key: key.clone() },
            ] {
                prop_assert_eq!(Path::parse(&p.to_d()).unwrap(), p);
            }
        }
    }
}
