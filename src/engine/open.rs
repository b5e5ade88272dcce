//! Opening a store's database: its files owner-only, encryption at rest detected and keyed,
//! WAL and pragmas, migrations, and the meta rows (public key, device id, d-tag mode).

use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::{schema, Access, Connections, Engine, Notify};
use crate::clock::Clock;
use crate::codec::{Codec, DTagMode};
use crate::error::{EncryptionProblem, Error, Result};
use crate::identity::Identity;

/// Prepared statements each connection keeps (see `ReaderRecipe::connect`).
const STATEMENT_CACHE: usize = 128;

/// What [`Engine::open`] needs besides the path and the key.
pub(crate) struct Opened {
    /// The d-tag mode asked for (None: the saved one, or blinded for a new store).
    pub d_tag_mode: Option<DTagMode>,
    /// Encryption at rest asked for (None: as the store is).
    pub encrypt: Option<bool>,
    /// Opened to evaluate at a fixed time.
    pub evaluate_only: bool,
    pub clock: Arc<dyn Clock>,
}

/// How every connection of a store is opened alike.
#[derive(Clone)]
pub(crate) struct ReaderRecipe {
    read_only: bool,
    keys: Option<Arc<crate::at_rest::StoreKeys>>,
    /// Row sizes for BM25 (engine::doc_sizes); its FTS5 functions are registered on every connection.
    sizes: Arc<super::doc_sizes::DocSizes>,
}

impl ReaderRecipe {
    pub(crate) fn encrypted(&self) -> bool {
        self.keys.is_some()
    }

    /// The index sealing key, for an encrypted store.
    #[cfg(feature = "vectors")]
    pub(crate) fn keys(&self) -> Option<Arc<crate::at_rest::StoreKeys>> {
        self.keys.clone()
    }

    fn connect(&self, path: &FsPath) -> Result<Connection> {
        let db = Error::db(path);
        let conn = if self.read_only {
            // Its owner made it read-only (or it is on read-only media): read it as it is,
            // without the WAL index SQLite would otherwise create beside it.
            let mut uri = std::ffi::OsString::from("file:");
            uri.push(path.as_os_str());
            uri.push("?immutable=1");
            Connection::open_with_flags(
                FsPath::new(&uri),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(db)?
        } else {
            Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(db)?
        };
        if let Some(keys) = &self.keys {
            // Before anything else reads the file.
            keys.apply(&conn, path)?;
        }
        conn.busy_timeout(super::BUSY_TIMEOUT).map_err(Error::db(path))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(Error::db(path))?;
        // 32 MiB of page cache (SQLite's default is 2 MiB): search reads the FTS5
        // postings, each match's document size and the candidates' rows; at 100k
        // memories the default cache sent a quarter of search time to read() calls.
        conn.pragma_update(None, "cache_size", -32_768).map_err(Error::db(path))?;
        // Every statement of the write and search paths is prepared once per connection:
        // one event applied runs about 15 of them (the record, its full-text row, the
        // event, the relay's acknowledgement, episodes), and re-parsing them was half of a
        // pull's client time. rusqlite keeps 16 by default; the engine has over a hundred.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        super::doc_sizes::register(&conn).map_err(Error::db(path))?;
        Ok(conn)
    }

    /// Row sizes for BM25 (engine::doc_sizes).
    pub(crate) fn sizes(&self) -> &super::doc_sizes::DocSizes {
        &self.sizes
    }

    /// Another reader: as the writer, but unable to write by mistake.
    pub(crate) fn open(&self, path: &FsPath) -> Result<Connection> {
        let conn = self.connect(path)?;
        conn.pragma_update(None, "query_only", true).map_err(Error::db(path))?;
        Ok(conn)
    }
}

impl Engine {
    /// Opens (creating if needed) the database at `path` for `identity` (blocking).
    pub(crate) fn open(path: PathBuf, identity: &Identity, options: Opened) -> Result<Engine> {
        let read_only = crate::disk::read_only(&path);
        if !read_only {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                crate::disk::create_private_dir(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
            }
        }
        // Before SQLite opens or creates anything: no file another user planted or can change.
        crate::disk::check_private(&path)?;
        // Encrypted or not: by the file when it has been written, else as asked, else by the
        // marker (docs/encryption.md).
        let found = crate::at_rest::detect(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        if let (Some(want), Some(is)) = (options.encrypt, found) {
            if want != is {
                let problem = if is { EncryptionProblem::Encrypted } else { EncryptionProblem::NotEncrypted };
                return Err(Error::Encryption { path, problem });
            }
        }
        let encrypted = found.or(options.encrypt).unwrap_or_else(|| crate::at_rest::marker_path(&path).exists());
        let keys = match encrypted {
            true => Some(Arc::new(
                crate::at_rest::StoreKeys::derive(identity)
                    .map_err(|problem| Error::Encryption { path: path.clone(), problem })?,
            )),
            false => None,
        };
        if !read_only {
            // Owner-only from the first byte; SQLite gives the WAL and SHM files the same mode.
            crate::disk::precreate_private(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.clone().into_os_string();
                name.push(suffix);
                crate::disk::restrict_file(FsPath::new(&name));
            }
        }
        let recipe = ReaderRecipe { read_only, keys, sizes: Default::default() };
        let mut conn = recipe.connect(&path)?;
        if !read_only {
            let wal = |c: &Connection| -> rusqlite::Result<()> {
                c.pragma_update(None, "journal_mode", "WAL")?;
                // FULL: a returned write survives power loss, not only a crashed process.
                c.pragma_update(None, "synchronous", "FULL")
            };
            wal(&conn).map_err(Error::db(&path))?;
        }
        // The writer runs transactions only, which touch few pages; the readers, which
        // search, keep the large caches (a second 32 MiB cache here cost 48 MB of peak RSS
        // at 100k memories).
        conn.pragma_update(None, "cache_size", -8_192).map_err(Error::db(&path))?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        match schema::migrate(&mut conn).map_err(Error::db(&path))? {
            Ok(_) => {}
            Err(found) => return Err(Error::SchemaTooNew { path, found, supported: schema::LATEST }),
        }
        if !read_only {
            super::episodes::prepare_writer(&conn).map_err(Error::db(&path))?;
        }
        crate::at_rest::set_marker(&path, encrypted)?;
        let (device, mode) = meta_rows(&mut conn, &path, identity, read_only, options.d_tag_mode)?;
        let codec = Codec::new(identity.keys().clone(), mode)?;
        // Row sizes load on another thread: a search meanwhile scores with FTS5's own
        // lookup (the same scores), and opening does not wait (about 90 ms a million rows).
        let (loader, at) = (recipe.clone(), path.clone());
        let _ = std::thread::Builder::new().name("memstr-doc-sizes".into()).spawn(move || {
            if let Err(e) = loader.open(&at).and_then(|conn| Ok(loader.sizes.load(&conn)?)) {
                tracing::debug!("row sizes not loaded: {e}");
            }
        });
        let access = match (read_only, options.evaluate_only) {
            (true, _) => Access::ReadOnly,
            (false, true) => Access::Evaluate,
            (false, false) => Access::ReadWrite,
        };
        Ok(Engine {
            conns: Connections {
                writer: Mutex::new(conn),
                idle: Mutex::new(Vec::new()),
                open: Mutex::new(0),
                returned: Condvar::new(),
            },
            path,
            codec,
            clock: options.clock,
            device,
            access,
            reader: recipe,
            notify: Notify {
                changed: AtomicBool::new(false),
                changes: tokio::sync::watch::channel(0).0,
                generation: AtomicU64::new(0),
            },
            wal_retry_above: AtomicU64::new(0),
        })
    }

    /// The sealing keys of an encrypted store.
    #[cfg(feature = "vectors")]
    pub(crate) fn at_rest_keys(&self) -> Option<Arc<crate::at_rest::StoreKeys>> {
        self.reader.keys()
    }
}

/// Checks the store's public key and settles its device id and d-tag mode, writing only
/// what changed: opening a read-only store must not write.
fn meta_rows(
    conn: &mut Connection,
    path: &FsPath,
    identity: &Identity,
    read_only: bool,
    asked_mode: Option<DTagMode>,
) -> Result<(String, DTagMode)> {
    let pubkey = identity.public_key().to_hex();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred).map_err(Error::db(path))?;
    let meta = |name: &str| -> rusqlite::Result<Option<String>> {
        tx.query_row("SELECT value FROM meta WHERE name = ?1", [name], |r| r.get(0)).optional()
    };
    // A read-only store keeps what it has; what would change lives for this handle only.
    let put = |name: &str, value: &str| -> Result<()> {
        if !read_only {
            tx.execute(
                "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2",
                [name, value],
            )
            .map_err(Error::db(path))?;
        }
        Ok(())
    };
    match meta("pubkey").map_err(Error::db(path))? {
        Some(pk) if pk != pubkey => {
            return Err(Error::WrongKey { path: path.to_path_buf(), store_pubkey: pk, given_pubkey: pubkey });
        }
        Some(_) => {}
        None => put("pubkey", &pubkey)?,
    }
    // A device id belongs to one database file: a copied store directory (another
    // inode) would otherwise sign its edits under the original's id, and the two copies
    // would take each other's edits for their own past (docs/sync.md, copied stores).
    let file_id = crate::disk::file_identity(path);
    let bound = meta("device_file").map_err(Error::db(path))?;
    let device = match meta("device_id").map_err(Error::db(path))? {
        Some(d) if bound == file_id => d,
        old => {
            let mut bytes = [0u8; 8];
            nostr::secp256k1::rand::RngCore::fill_bytes(&mut nostr::secp256k1::rand::rngs::OsRng, &mut bytes);
            let d = hex::encode(bytes);
            if old.is_some() {
                tracing::info!(path = %path.display(), "store file is new here (copied or restored): new device id");
            }
            put("device_id", &d)?;
            d
        }
    };
    if let Some(id) = file_id.as_ref().filter(|_| bound != file_id) {
        put("device_file", id)?;
    }
    // A new store is blinded; an existing one keeps its saved mode (one from before the
    // mode was saved, holding events, was compatible).
    let saved = meta("d_tag_mode").map_err(Error::db(path))?.and_then(|m| m.parse().ok());
    let legacy = || -> rusqlite::Result<Option<DTagMode>> {
        let any: bool = tx.query_row("SELECT EXISTS(SELECT 1 FROM events)", [], |r| r.get(0))?;
        Ok(any.then_some(DTagMode::Compatible))
    };
    let saved = match saved {
        Some(m) => Some(m),
        None => legacy().map_err(Error::db(path))?,
    };
    let mode = asked_mode.or(saved).unwrap_or_default();
    if saved != Some(mode) {
        put("d_tag_mode", mode.as_str())?;
    }
    tx.commit().map_err(Error::db(path))?;
    Ok((device, mode))
}
