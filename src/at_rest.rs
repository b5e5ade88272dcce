//! Encryption at rest (opt-in per store; built with the `encryption` cargo feature): the
//! database through SQLCipher, the vector index files sealed with ChaCha20-Poly1305. Both
//! keys are derived from the agent's secret key with HKDF-SHA256 (distinct info strings),
//! so a copied disk reveals nothing without that key, and there is no password to keep.
//! The database key goes to SQLCipher raw (`PRAGMA key = "x'…'"`): no per-connection key
//! stretching. See docs/encryption.md.
//!
//! Whether a store is encrypted is read from its file: a SQLite database starts with
//! `SQLite format 3\0`, a SQLCipher one with 16 random bytes. A plain marker file beside
//! the database (`memstr.db.encrypted`) says so to people and backup tools, and decides for
//! a store whose database is still empty.

// Without SQLCipher (or without the vector index) parts of this have no caller.
#![cfg_attr(not(all(feature = "encryption", feature = "vectors")), allow(dead_code))]

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use zeroize::Zeroizing;

use crate::error::{EncryptionProblem, Error, Result};
use crate::identity::Identity;

pub use crate::disk::MARKER_SUFFIX;
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";
/// HKDF salt and info strings: one key per use, never the signing key itself.
const HKDF_SALT: &[u8] = b"memstr encryption at rest v1";
const INFO_DATABASE: &[u8] = b"memstr/sqlcipher-database/v1";
const INFO_INDEX: &[u8] = b"memstr/vector-index-seal/v1";
/// The first bytes of a sealed index file, then a 12-byte nonce, then ciphertext and tag.
const SEAL_MAGIC: &[u8; 8] = b"memstrS1";

/// The marker file of the database at `db`.
pub fn marker_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(MARKER_SUFFIX);
    PathBuf::from(name)
}

/// Whether the database file at `db` is encrypted, by its first 16 bytes; `None` when it
/// is absent or empty (a store not written yet).
pub(crate) fn detect(db: &Path) -> std::io::Result<Option<bool>> {
    use std::io::Read;
    let mut file = match std::fs::File::open(db) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut head = Vec::with_capacity(16);
    file.by_ref().take(16).read_to_end(&mut head)?;
    Ok(match head.len() {
        0 => None,
        _ => Some(head.as_slice() != SQLITE_HEADER),
    })
}

/// Whether the store at `db` is encrypted at rest (by its file, else by its marker).
pub fn is_encrypted(db: &Path) -> std::io::Result<bool> {
    Ok(detect(db)?.unwrap_or_else(|| marker_path(db).exists()))
}

/// Writes or removes the marker so it agrees with the database.
pub(crate) fn set_marker(db: &Path, encrypted: bool) -> Result<()> {
    let marker = marker_path(db);
    let io = |source| Error::Io { path: marker.clone(), source };
    if encrypted {
        if !marker.exists() {
            let text = "This memstr store is encrypted at rest (SQLCipher database, sealed vector index).\n\
                        Its key derives from the agent's secret key; see docs/encryption.md.\n";
            crate::disk::write_private(&marker, text.as_bytes()).map_err(io)?;
        }
    } else if marker.exists() {
        std::fs::remove_file(&marker).map_err(io)?;
    }
    Ok(())
}

/// The index sealing key.
#[derive(Clone)]
pub(crate) struct IndexKey(Arc<Zeroizing<[u8; 32]>>);

impl fmt::Debug for IndexKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IndexKey(..)")
    }
}

impl IndexKey {
    #[cfg(all(test, feature = "encryption"))]
    pub(crate) fn for_tests(byte: u8) -> Self {
        IndexKey(Arc::new(Zeroizing::new([byte; 32])))
    }
}

/// A store's keys at rest, derived from its identity.
pub(crate) struct StoreKeys {
    /// `x'<64 hex>'`, as SQLCipher takes a raw key.
    database: Zeroizing<String>,
    pub index: IndexKey,
}

impl fmt::Debug for StoreKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StoreKeys(..)")
    }
}

impl StoreKeys {
    /// Derives both keys from `identity`'s secret key.
    #[cfg(feature = "encryption")]
    pub fn derive(identity: &Identity) -> std::result::Result<Self, EncryptionProblem> {
        let secret = Zeroizing::new(identity.keys().secret_key().secret_bytes());
        let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(HKDF_SALT), secret.as_slice());
        let mut db = Zeroizing::new([0u8; 32]);
        let mut index = Zeroizing::new([0u8; 32]);
        hk.expand(INFO_DATABASE, db.as_mut_slice()).expect("32 bytes is a valid HKDF-SHA256 length");
        hk.expand(INFO_INDEX, index.as_mut_slice()).expect("32 bytes is a valid HKDF-SHA256 length");
        let database = Zeroizing::new(format!("x'{}'", hex::encode(db.as_slice())));
        Ok(StoreKeys { database, index: IndexKey(Arc::new(index)) })
    }

    /// Without the `encryption` feature there is nothing to derive them for.
    #[cfg(not(feature = "encryption"))]
    pub fn derive(_identity: &Identity) -> std::result::Result<Self, EncryptionProblem> {
        Err(EncryptionProblem::FeatureMissing)
    }

    /// Keys `conn` (the first statement on it) and checks that the key opens the file.
    pub fn apply(&self, conn: &rusqlite::Connection, path: &Path) -> Result<()> {
        apply_key(conn, path, &self.database)
    }

    /// Keys the database `name` attached with `ATTACH ... KEY`: the key string to bind.
    pub(crate) fn database_key(&self) -> &str {
        &self.database
    }
}

fn apply_key(conn: &rusqlite::Connection, path: &Path, key: &str) -> Result<()> {
    // SQLCipher writes its own line to standard error for a wrong key ("hmac check failed");
    // the typed error says it, once. (A process-wide setting of SQLCipher's.)
    let _ = conn.execute_batch("PRAGMA cipher_log_level = NONE;");
    // Not through an error message: a failing statement must not carry the key.
    conn.execute_batch(&Zeroizing::new(format!("PRAGMA key = \"{key}\";")))
        .map_err(|_| Error::crypto(format!("{}: setting the database key failed", path.display())))?;
    check_opens(conn, path)
}

/// Reads the schema: SQLite answers "file is not a database" for a wrong key (or none).
fn check_opens(conn: &rusqlite::Connection, path: &Path) -> Result<()> {
    match conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::NotADatabase => {
            Err(Error::Encryption { path: path.into(), problem: EncryptionProblem::KeyRejected })
        }
        Err(e) => Err(Error::db(path)(e)),
    }
}

/// Whether this build links SQLCipher (and so can encrypt).
pub const fn available() -> bool {
    cfg!(feature = "encryption")
}

/// Seals `plain` as the index file `name` (which is authenticated with it: files cannot be
/// swapped for one another).
#[cfg(feature = "encryption")]
pub(crate) fn seal(key: &IndexKey, name: &str, plain: &[u8]) -> Result<Vec<u8>> {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};
    let cipher = chacha20poly1305::ChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(key.0.as_slice()));
    let mut nonce = [0u8; 12];
    nostr::secp256k1::rand::RngCore::fill_bytes(&mut nostr::secp256k1::rand::rngs::OsRng, &mut nonce);
    let sealed = cipher
        .encrypt(chacha20poly1305::Nonce::from_slice(&nonce), Payload { msg: plain, aad: name.as_bytes() })
        .map_err(|_| Error::crypto(format!("sealing {name}")))?;
    let mut out = Vec::with_capacity(SEAL_MAGIC.len() + nonce.len() + sealed.len());
    out.extend_from_slice(SEAL_MAGIC);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// Opens a sealed index file; `None` when it is not sealed, or not by this key, or damaged.
#[cfg(feature = "encryption")]
pub(crate) fn unseal(key: &IndexKey, name: &str, sealed: &[u8]) -> Option<Vec<u8>> {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};
    let rest = sealed.strip_prefix(SEAL_MAGIC.as_slice())?;
    if rest.len() < 12 + 16 {
        return None;
    }
    let (nonce, body) = rest.split_at(12);
    let cipher = chacha20poly1305::ChaCha20Poly1305::new(chacha20poly1305::Key::from_slice(key.0.as_slice()));
    cipher.decrypt(chacha20poly1305::Nonce::from_slice(nonce), Payload { msg: body, aad: name.as_bytes() }).ok()
}

#[cfg(not(feature = "encryption"))]
pub(crate) fn seal(_key: &IndexKey, _name: &str, _plain: &[u8]) -> Result<Vec<u8>> {
    Err(Error::crypto("sealing the vector index needs the `encryption` feature"))
}

#[cfg(not(feature = "encryption"))]
pub(crate) fn unseal(_key: &IndexKey, _name: &str, _sealed: &[u8]) -> Option<Vec<u8>> {
    None
}

/// Whether `bytes` look like a sealed index file.
pub(crate) fn is_sealed(bytes: &[u8]) -> bool {
    bytes.starts_with(SEAL_MAGIC)
}

/// Re-saves the vector index beside a store, sealed with the first key (or plain) as
/// sealed with the second (or plain): the index module's part of a migration, handed in so
/// this module stays below the index.
pub(crate) type Reseal<'a> = &'a dyn Fn(Option<&IndexKey>, Option<&IndexKey>);

/// Migrates the closed store at `db` to encrypted (`encrypt`) or plain, keeping every row:
/// `sqlcipher_export` into a new file beside it, which then replaces the database in one
/// rename; the vector index is re-saved sealed or plain first. Returns false when the
/// store already was as asked (only the marker is brought in line).
#[cfg(feature = "encryption")]
pub(crate) fn migrate(db: &Path, identity: &Identity, encrypt: bool, reseal_index: Reseal<'_>) -> Result<bool> {
    use rusqlite::{Connection, OpenFlags};
    let problem = |problem| Error::Encryption { path: db.into(), problem };
    let io = |source| Error::Io { path: db.into(), source };
    let Some(encrypted) = detect(db).map_err(io)? else {
        return Err(Error::Io { path: db.into(), source: std::io::ErrorKind::NotFound.into() });
    };
    let keys = StoreKeys::derive(identity).map_err(problem)?;
    let dbe = Error::db(db);
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(Error::db(db))?;
    if encrypted {
        keys.apply(&conn, db)?;
    } else {
        check_opens(&conn, db)?;
    }
    if encrypted == encrypt {
        // Nothing to do, but only for the store's own key: another is refused as it would
        // be by a migration.
        owner_check(&conn, db, identity)?;
        drop(conn);
        set_marker(db, encrypt)?;
        return Ok(false);
    }
    conn.busy_timeout(std::time::Duration::from_secs(2)).map_err(Error::db(db))?;
    // This connection alone from here on: an exclusive lock, held until it closes, so no
    // other process writes a row the export would miss.
    let locked = conn
        .pragma_update(None, "locking_mode", "EXCLUSIVE")
        .and_then(|_| conn.execute_batch("BEGIN EXCLUSIVE; COMMIT;"));
    if let Err(rusqlite::Error::SqliteFailure(e, _)) = &locked {
        if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) {
            return Err(problem(EncryptionProblem::InUse));
        }
    }
    locked.map_err(Error::db(db))?;
    owner_check(&conn, db, identity)?;
    let (busy, _, _): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(Error::db(db))?;
    if busy != 0 {
        return Err(problem(EncryptionProblem::InUse));
    }
    let mut tmp_name = db.as_os_str().to_os_string();
    tmp_name.push(".migrating");
    let tmp = PathBuf::from(tmp_name);
    let tmp_io = |source| Error::Io { path: tmp.clone(), source };
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut name = tmp.clone().into_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
    crate::disk::precreate_private(&tmp).map_err(tmp_io)?;
    let tmp_str = tmp.to_str().ok_or_else(|| tmp_io(std::io::ErrorKind::InvalidInput.into()))?;
    let target_key = if encrypt { keys.database_key() } else { "" };
    // The key is a bound parameter: no error message can carry it.
    conn.execute("ATTACH DATABASE ?1 AS migrated KEY ?2", [tmp_str, target_key]).map_err(Error::db(&tmp))?;
    let version: i64 = conn.query_row("PRAGMA main.user_version", [], |r| r.get(0)).map_err(Error::db(db))?;
    conn.query_row("SELECT sqlcipher_export('migrated')", [], |_| Ok(())).map_err(Error::db(db))?;
    conn.pragma_update(Some("migrated"), "user_version", version).map_err(Error::db(db))?;
    // The device id is bound to the database file (store/mod.rs): the new file takes the
    // old one's place, so it keeps the id.
    if let (Some(old), Some(new)) = (crate::disk::file_identity(db), crate::disk::file_identity(&tmp)) {
        conn.execute(
            "UPDATE migrated.meta SET value = ?1 WHERE name = 'device_file' AND value = ?2",
            [new.as_str(), old.as_str()],
        )
        .map_err(Error::db(db))?;
    }
    conn.execute_batch("DETACH DATABASE migrated").map_err(Error::db(db))?;
    // The vector index first: if this stops half way the index is a cache, rebuilt from
    // the database on the next open.
    let (from, to) = if encrypt { (None, Some(&keys.index)) } else { (Some(&keys.index), None) };
    reseal_index(from, to);
    conn.close().map_err(|(_, e)| dbe(e))?;
    std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(tmp_io)?;
    for suffix in ["-wal", "-shm"] {
        let mut name = db.as_os_str().to_os_string();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
    std::fs::rename(&tmp, db).map_err(io)?;
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    set_marker(db, encrypt)?;
    Ok(true)
}

/// The store at `db` belongs to `identity` (its `pubkey` row, when it has one).
#[cfg(feature = "encryption")]
fn owner_check(conn: &rusqlite::Connection, db: &Path, identity: &Identity) -> Result<()> {
    let pubkey: Option<String> = rusqlite::OptionalExtension::optional(conn.query_row(
        "SELECT value FROM meta WHERE name = 'pubkey'",
        [],
        |r| r.get(0),
    ))
    .map_err(Error::db(db))?;
    let given = identity.public_key().to_hex();
    if let Some(pk) = pubkey.filter(|pk| *pk != given) {
        return Err(Error::WrongKey { path: db.into(), store_pubkey: pk, given_pubkey: given });
    }
    Ok(())
}

#[cfg(not(feature = "encryption"))]
pub(crate) fn migrate(db: &Path, _identity: &Identity, _encrypt: bool, _reseal_index: Reseal<'_>) -> Result<bool> {
    Err(Error::Encryption { path: db.into(), problem: EncryptionProblem::FeatureMissing })
}
