//! The one error type of the library, and the reasons an untrusted event is refused.

use std::fmt;
use std::path::PathBuf;

/// `Result` with memstr's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in memstr.
///
/// `Debug` prints the same sentence as `Display` (plus any cause it does not already
/// name), so `fn main() -> memstr::Result<()>` and `unwrap` show a readable message.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Input broke one of the validation rules (see [`Rule`]).
    #[error(transparent)]
    Validation(#[from] ValidationError),

    /// A key could not be loaded, decrypted or parsed. Never carries secret material.
    #[error("identity: {0}")]
    Identity(#[source] Cause),

    /// SQLite failed on the store at `path`.
    #[error("store {path}: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },

    /// The store was written by a newer memstr; opening it could damage it.
    #[error("store {path} has schema version {found}; this memstr understands up to {supported}")]
    SchemaTooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this memstr understands.
        supported: i64,
    },

    /// The store belongs to another key.
    #[error("store {path} belongs to public key {store_pubkey}, not {given_pubkey}")]
    WrongKey {
        /// The database file.
        path: PathBuf,
        /// The key the store belongs to (hex).
        store_pubkey: String,
        /// The key it was opened with (hex).
        given_pubkey: String,
    },

    /// Encryption at rest could not be used as asked (see [`EncryptionProblem`]). Never
    /// carries key material.
    #[error("store {path}: {problem}")]
    Encryption {
        /// The database file.
        path: PathBuf,
        /// What stood in the way.
        problem: EncryptionProblem,
    },

    /// An event was refused (bad signature, foreign author, bad payload, ...).
    #[error("event {event_id}: rejected: {reason}")]
    Rejected {
        /// The event's id (hex).
        event_id: String,
        /// Why it was refused.
        reason: RejectReason,
    },

    /// The embedding model or ONNX Runtime could not be loaded or run.
    #[error("model: {0}")]
    Model(#[source] Cause),

    /// A relay address was refused, or talking to relays failed.
    #[error("relay: {0}")]
    Relay(#[source] Cause),

    /// A reference (key, address or d tag) matched no memory.
    #[error(
        "no memory matches {0:?}; give a flat key, domain/facet/key, kv/KEY or journal/TS (search finds addresses)"
    )]
    NotFound(String),

    /// A bare key matched several memories (flat or persona, in several domains or facets).
    #[error("key {key:?} is ambiguous: it names {}; give one of these addresses", candidates.join(", "))]
    Ambiguous {
        /// The key given.
        key: String,
        /// The addresses it names.
        candidates: Vec<String>,
    },

    /// Encryption or signing failed, or a stored event no longer parses.
    #[error("crypto: {0}")]
    Crypto(#[source] Cause),

    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },

    /// JSON that memstr itself produced or was handed could not be (de)serialised.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),

    /// A relay broke one of the rules that bound a sync pass (see docs/sync.md); it is
    /// reported as misbehaving and backed off.
    #[error("relay {url} misbehaved: {rule}")]
    RelayMisbehaved {
        /// The relay's address.
        url: String,
        /// The rule it broke.
        rule: String,
    },

    /// The store was opened to evaluate at a fixed time (`StoreOptions::evaluate_at`,
    /// the CLI's `--now`): it signs nothing.
    #[error("this store is open to evaluate at a fixed time (--now): it evaluates and signs nothing; run it without --now to {0}")]
    EvaluateOnly(String),

    /// The store's files are read-only (to this user, or on read-only media): it can be
    /// read, not changed.
    #[error(
        "store {0} is read-only: it can be read, not changed (make the directory and its files writable to change it)"
    )]
    ReadOnlyStore(PathBuf),

    /// An item of a batch ([`crate::MemoryStore::write_batch`]) broke a validation rule;
    /// nothing of the batch was written.
    #[error("batch item {index}: {source}; nothing of the batch was written")]
    BatchItem {
        /// The item's position in the batch, from 0.
        index: usize,
        /// The field and the rule it broke.
        #[source]
        source: ValidationError,
    },

    /// A file or directory of the store could be another user's: it belongs to someone
    /// else, others can write it, or it is a symbolic link. memstr opens nothing there
    /// (docs/security.md).
    #[error("refusing to use {path}: {reason}")]
    NotPrivate {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
    },

    /// An invariant of the store did not hold (a bug: please report it).
    #[error("background task failed: {0}")]
    Task(String),

    /// A blocking task panicked or was cancelled. Its transaction rolled back; the store
    /// stays usable.
    #[error("background task failed: {0}")]
    Panicked(#[from] tokio::task::JoinError),
}

/// What went wrong in a subsystem (the model, relays, a key, encryption), with the
/// underlying error kept as the source. `Display` gives the context and the cause.
pub struct Cause {
    what: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Cause {
    /// A cause with no underlying error.
    pub fn new(what: impl Into<String>) -> Self {
        Cause { what: what.into(), source: None }
    }

    /// `what` went wrong because of `source`.
    pub fn from(what: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause { what: what.into(), source: Some(Box::new(source)) }
    }

    /// `what` went wrong because of `source`, already boxed.
    pub fn boxed(what: impl Into<String>, source: Box<dyn std::error::Error + Send + Sync + 'static>) -> Self {
        Cause { what: what.into(), source: Some(source) }
    }

    /// The context, without the cause.
    pub fn what(&self) -> &str {
        &self.what
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            // No context of its own: the cause says it all.
            Some(s) if self.what.is_empty() => write!(f, "{s}"),
            Some(s) => write!(f, "{}: {s}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.to_string();
        f.write_str(&message)?;
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            let text = c.to_string();
            if !message.contains(&text) {
                write!(f, "\n  caused by: {text}")?;
            }
            cause = c.source();
        }
        Ok(())
    }
}

impl From<rusqlite::Error> for Error {
    fn from(source: rusqlite::Error) -> Self {
        // Paths are attached where the connection is known; this covers the rest.
        Error::Database { path: PathBuf::new(), source }
    }
}

#[cfg(feature = "sync")]
impl From<negentropy::Error> for Error {
    fn from(e: negentropy::Error) -> Self {
        Error::Relay(Cause::from("negentropy", e))
    }
}

impl Error {
    /// The model or ONNX Runtime failed: `what`, with no underlying error.
    #[cfg_attr(not(feature = "vectors"), allow(dead_code))]
    pub(crate) fn model(what: impl Into<String>) -> Error {
        Error::Model(Cause::new(what))
    }

    /// Talking to relays failed: `what`, with no underlying error.
    #[cfg_attr(not(feature = "sync"), allow(dead_code))]
    pub(crate) fn relay(what: impl Into<String>) -> Error {
        Error::Relay(Cause::new(what))
    }

    /// A key could not be used: `what`, with no underlying error.
    pub(crate) fn identity(what: impl Into<String>) -> Error {
        Error::Identity(Cause::new(what))
    }

    /// Encryption or signing failed: `what`, with no underlying error.
    pub(crate) fn crypto(what: impl Into<String>) -> Error {
        Error::Crypto(Cause::new(what))
    }

    pub(crate) fn db(path: &std::path::Path) -> impl FnOnce(rusqlite::Error) -> Error + '_ {
        move |source| Error::Database { path: path.to_path_buf(), source }
    }
}

/// Why a store's encryption at rest stood in the way (docs/encryption.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncryptionProblem {
    /// This build has no SQLCipher: the store is encrypted, or encryption was asked for.
    FeatureMissing,
    /// The store is encrypted and the key derived from this identity does not open it:
    /// it belongs to another key (or the file is damaged).
    KeyRejected,
    /// The store is encrypted, and it was asked to be opened as a plain one.
    Encrypted,
    /// The store is plain, and it was asked to be opened as an encrypted one.
    NotEncrypted,
    /// Another connection (another process) has the store open; migration needs it alone.
    InUse,
}

impl fmt::Display for EncryptionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncryptionProblem::FeatureMissing => {
                "encryption at rest needs memstr built with the `encryption` cargo feature (cargo build --features encryption)"
            }
            EncryptionProblem::KeyRejected => {
                "is encrypted at rest and this key does not open it (another key's store, or a damaged file)"
            }
            EncryptionProblem::Encrypted => {
                "is encrypted at rest; open it with encryption on, or decrypt it first (memstr decrypt)"
            }
            EncryptionProblem::NotEncrypted => {
                "is not encrypted at rest; encrypt it first (memstr encrypt, MemoryStore::encrypt_at_rest)"
            }
            EncryptionProblem::InUse => "is open elsewhere; close every other memstr on it before migrating",
        })
    }
}

/// Which validation rule a value broke. Each has a stable name (see [`Rule::name`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Rule {
    /// Must be a non-empty string.
    Empty,
    /// Longer than the maximum (counted in Unicode code points, as Python's `len`).
    TooLong {
        /// The maximum.
        max: usize,
        /// The length given.
        len: usize,
    },
    /// Contains `/`, `\` or NUL, which would break the d-tag path.
    ForbiddenChar(char),
    /// Contains `..`.
    PathTraversal,
    /// Contains a control character or a bidirectional formatting character, which can
    /// rewrite what a terminal shows (ANSI escapes, right-to-left overrides).
    ControlChar(char),
    /// A number outside its allowed range.
    OutOfRange {
        /// The least allowed.
        min: f64,
        /// The most allowed.
        max: f64,
        /// The value given.
        value: f64,
    },
    /// A number that must be strictly positive (and finite).
    NotPositive(f64),
    /// Not one of `active`, `fading`, `forgotten`, `dissolved`.
    UnknownState(String),
    /// A timestamp that is not a finite, non-negative number of seconds.
    BadTimestamp(f64),
    /// The encoded payload exceeds what NIP-44 can encrypt (65535 bytes of UTF-8).
    PayloadTooLarge {
        /// What NIP-44 encrypts at most.
        max: usize,
        /// The payload's length.
        len: usize,
    },
    /// A memory cannot be connected to, or contradict, itself.
    SelfReference,
    /// Not one of the policy's names (e.g. `archive`, `delete` for the dissolve policy).
    UnknownPolicy(String),
    /// Not one of the seeds' behaviours (`lifecycle::Behaviour`), or a switch
    /// that is not `NAME=on` or `NAME=off`.
    UnknownBehaviour(String),
    /// Not one of the memory types (`model::MemoryType`).
    UnknownType(String),
    /// Not one of a goal's statuses: `open`, `done`, `dropped`.
    UnknownGoalStatus(String),
    /// Not one of the tiers: `working`, `episodic`, `semantic`.
    UnknownTier(String),
    /// Not one of the verdicts the command takes (`useful`/`not`, `success`/`failure`).
    UnknownVerdict(String),
    /// Only a goal has a status; this memory is of another type.
    NotAGoal(String),
    /// Outcomes are recorded for procedures; this memory is of another type.
    NotAProcedure(String),
    /// No live episode has this id.
    UnknownEpisode(String),
    /// The episode has ended: nothing more can be observed in it, and it cannot end again.
    EpisodeEnded(String),
    /// A batch holds more items than one transaction takes ([`crate::MAX_BATCH`]).
    BatchTooLarge {
        /// The most one batch takes.
        max: usize,
        /// The items given.
        len: usize,
    },
}

impl Rule {
    /// A stable, machine-readable rule name.
    pub fn name(&self) -> &'static str {
        match self {
            Rule::Empty => "non-empty",
            Rule::TooLong { .. } => "max-length",
            Rule::ForbiddenChar(_) => "forbidden-character",
            Rule::PathTraversal => "no-path-traversal",
            Rule::ControlChar(_) => "no-control-characters",
            Rule::OutOfRange { .. } => "range",
            Rule::NotPositive(_) => "positive",
            Rule::UnknownState(_) => "known-state",
            Rule::BadTimestamp(_) => "timestamp",
            Rule::PayloadTooLarge { .. } => "nip44-size",
            Rule::SelfReference => "no-self-reference",
            Rule::UnknownPolicy(_) => "known-policy",
            Rule::BatchTooLarge { .. } => "batch-size",
            Rule::UnknownBehaviour(_) => "known-behaviour",
            Rule::UnknownType(_) => "known-type",
            Rule::UnknownGoalStatus(_) => "known-goal-status",
            Rule::UnknownTier(_) => "known-tier",
            Rule::UnknownVerdict(_) => "known-verdict",
            Rule::NotAGoal(_) => "goal-status-on-goal",
            Rule::NotAProcedure(_) => "outcome-on-procedure",
            Rule::UnknownEpisode(_) => "known-episode",
            Rule::EpisodeEnded(_) => "open-episode",
        }
    }
}

/// The behaviours' names, as [`Rule::UnknownBehaviour`] lists them.
pub(crate) const BEHAVIOUR_NAMES: &str = "trajectories, context-match, feedback, reliability, type-defaults, tiers, \
     retroactive-importance, retrieval-forgetting, dream-insights";
/// The memory types' names, as [`Rule::UnknownType`] lists them.
pub(crate) const TYPE_NAMES: &str = "fact, preference, decision, procedure (or lesson), goal, event, milestone";

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Empty => write!(f, "must be a non-empty string"),
            Rule::TooLong { max, len } => write!(f, "is {len} characters long; the maximum is {max}"),
            Rule::ForbiddenChar(c) => write!(f, "must not contain {c:?} (it separates d-tag path segments)"),
            Rule::PathTraversal => write!(f, "must not contain \"..\""),
            Rule::ControlChar(c) => {
                write!(f, "must not contain control or bidirectional formatting characters (found U+{:04X})", *c as u32)
            }
            Rule::OutOfRange { min, max, value } => write!(f, "is {value}; it must lie in [{min}, {max}]"),
            Rule::NotPositive(v) => write!(f, "is {v}; it must be a positive finite number"),
            Rule::UnknownState(s) => {
                write!(f, "is {s:?}; it must be one of active, fading, forgotten, dissolved")
            }
            Rule::BadTimestamp(v) => write!(f, "is {v}; it must be finite, non-negative Unix seconds"),
            Rule::PayloadTooLarge { max, len } => {
                write!(f, "encodes to {len} bytes of JSON; NIP-44 encrypts at most {max}")
            }
            Rule::SelfReference => write!(f, "must name a different memory"),
            Rule::UnknownPolicy(s) => write!(f, "is {s:?}; it must be one of archive, delete"),
            // The names are written out, not read from their modules: `error` imports no
            // layer above it (a test in each module checks the list is whole).
            Rule::UnknownBehaviour(s) => {
                write!(f, "is {s:?}; a switch is NAME=on or NAME=off, NAME one of {BEHAVIOUR_NAMES}")
            }
            Rule::UnknownType(s) => write!(f, "is {s:?}; it must be one of {TYPE_NAMES}"),
            Rule::UnknownGoalStatus(s) => write!(f, "is {s:?}; it must be one of open, done, dropped"),
            Rule::UnknownTier(s) => write!(f, "is {s:?}; it must be one of working, episodic, semantic"),
            Rule::UnknownVerdict(s) => {
                write!(f, "is {s:?}; it must be useful or not (feedback), success or failure (an outcome)")
            }
            Rule::NotAGoal(t) => write!(f, "is set on a memory of type {t}; only a goal has a status"),
            Rule::NotAProcedure(t) => {
                write!(f, "names a memory of type {t}; outcomes are recorded for procedures")
            }
            Rule::UnknownEpisode(id) => write!(f, "is {id:?}; no episode has that id"),
            Rule::EpisodeEnded(id) => write!(f, "is {id:?}, an episode that has ended (start a new one)"),
            Rule::BatchTooLarge { max, len } => {
                write!(f, "holds {len} items; one batch takes at most {max} (split it, or import with memstr import --memories)")
            }
        }
    }
}

/// A value that broke a validation rule: which field, which rule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid {field}: {rule} (rule: {})", rule.name())]
pub struct ValidationError {
    /// The field, e.g. `key`, `domain`, `confidence`.
    pub field: &'static str,
    /// The rule it broke.
    pub rule: Rule,
}

/// Why an incoming event was refused. Counted per reason in the store statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RejectReason {
    /// The id does not hash the content, or the signature does not verify.
    BadSignature,
    /// Signed by a key that is not the store's.
    ForeignAuthor,
    /// A kind memstr does not store (only 30078, 5 and 4 to self are read).
    UnsupportedKind,
    /// A kind-30078 event with no `d` tag, or several.
    BadDTag,
    /// A kind-30078 `d` tag outside sense-memory's namespaces (another application's data).
    ForeignDTag,
    /// The event (or its content) is larger than memstr accepts.
    Oversized,
    /// NIP-44 decryption failed (wrong key, tampered ciphertext, bad padding).
    Undecryptable,
    /// The decrypted content is not the JSON object its d tag calls for.
    MalformedPayload,
    /// The payload parsed but breaks a validation rule (bad key, confidence > 1, ...).
    InvalidPayload,
    /// The payload names a different memory than the d tag (tampering or a bug).
    DTagMismatch,
    /// A kind-4 note that is not addressed to ourselves.
    NotToSelf,
    /// Not a NIP-01 event at all (an import line that does not parse).
    MalformedEvent,
    /// A relay served an event outside the time window memstr asked it for.
    OutOfWindow,
}

impl RejectReason {
    /// Every reason, for reports.
    pub const ALL: [RejectReason; 13] = [
        RejectReason::BadSignature,
        RejectReason::ForeignAuthor,
        RejectReason::UnsupportedKind,
        RejectReason::BadDTag,
        RejectReason::ForeignDTag,
        RejectReason::Oversized,
        RejectReason::Undecryptable,
        RejectReason::MalformedPayload,
        RejectReason::InvalidPayload,
        RejectReason::DTagMismatch,
        RejectReason::NotToSelf,
        RejectReason::MalformedEvent,
        RejectReason::OutOfWindow,
    ];

    /// The stable name used in statistics and `--json` output.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::BadSignature => "bad_signature",
            RejectReason::ForeignAuthor => "foreign_author",
            RejectReason::UnsupportedKind => "unsupported_kind",
            RejectReason::BadDTag => "bad_d_tag",
            RejectReason::ForeignDTag => "foreign_d_tag",
            RejectReason::Oversized => "oversized",
            RejectReason::Undecryptable => "undecryptable",
            RejectReason::MalformedPayload => "malformed_payload",
            RejectReason::InvalidPayload => "invalid_payload",
            RejectReason::DTagMismatch => "d_tag_mismatch",
            RejectReason::NotToSelf => "not_to_self",
            RejectReason::MalformedEvent => "malformed_event",
            RejectReason::OutOfWindow => "out_of_window",
        }
    }

    /// Parses a name produced by [`RejectReason::as_str`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_reads_like_display_so_main_returning_result_prints_a_sentence() {
        let e = Error::NotFound("alice-coffee".into());
        assert_eq!(format!("{e:?}"), e.to_string());
        assert!(format!("{e:?}").starts_with("no memory matches \"alice-coffee\""), "{e:?}");
        assert!(!format!("{e:?}").contains("NotFound("), "{e:?}");
    }

    #[test]
    fn debug_adds_a_cause_the_message_does_not_name() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer")]
        struct Outer(#[source] std::io::Error);
        let e =
            Error::Io { path: "/x".into(), source: std::io::Error::other(Outer(std::io::Error::other("root cause"))) };
        let debug = format!("{e:?}");
        assert!(debug.starts_with("/x: outer"), "{debug}");
        assert!(debug.contains("caused by: root cause"), "{debug}");
    }
}
