//! Files only their owner can read: a store directory is `0700` and every file memstr
//! writes in it (the database and its WAL and SHM, the vector index, exports) is `0600`,
//! whatever the umask. Memories are plaintext in the database and its indexes; anyone who
//! can read the files reads them, unless the store is encrypted at rest (src/at_rest.rs).

use std::io::Write;
use std::path::Path;

/// Creates `dir` (and its parents) if missing; the last directory, when created here, is
/// `0700`. An existing directory is left as it is: a library caller's directory is theirs.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// Takes group and other access away from an existing directory of the user's own (memstr's
/// store directory): `0755` becomes `0700`, `0500` stays. A directory of someone else's, or
/// one others may create files in (`/tmp`, a shared folder), is left as it is: narrowing it
/// would lock its other users out, and the store refuses it anyway ([`check_private`]).
pub fn restrict_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir)?;
        if meta.uid() != current_user().0 || meta.mode() & 0o1002 != 0 {
            return Ok(());
        }
    }
    set_mode(dir, 0o700)
}

/// Creates (or truncates) `path` as `0600` and writes `bytes`, then syncs it.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = private_file(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Creates (or truncates) `path` for writing, `0600` from its first byte on.
pub(crate) fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let file = opts.open(path)?;
    // The mode above applies only to a file created here; an existing one is narrowed too.
    set_mode(path, 0o600)?;
    Ok(file)
}

/// Takes group and other access away from an existing file, when it exists and is ours
/// to change. Failures are
/// ignored: a store on read-only media, or someone else's, can still be read.
pub(crate) fn restrict_file(path: &Path) {
    if path.exists() {
        if let Err(e) = set_mode(path, 0o600) {
            tracing::debug!(path = %path.display(), error = %e, "could not narrow file mode");
        }
    }
}

/// The suffix of the marker file beside a database encrypted at rest (src/at_rest.rs).
pub const MARKER_SUFFIX: &str = ".encrypted";

/// Why a store's file or directory must not be used: another user could have planted or
/// changed it, or could read what memstr writes there.
pub(crate) struct NotPrivate {
    /// The file or directory.
    pub path: std::path::PathBuf,
    /// What is wrong with it, and what to do.
    pub reason: String,
}

impl From<NotPrivate> for crate::Error {
    fn from(n: NotPrivate) -> Self {
        crate::Error::NotPrivate { path: n.path, reason: n.reason }
    }
}

/// The names memstr gives files beside the database at `db`: its WAL and SHM, the vector
/// index directory and lock, the at-rest marker.
pub(crate) fn store_files(db: &Path) -> Vec<std::path::PathBuf> {
    ["", "-wal", "-shm", "-journal", ".vectors", ".vectors.lock", MARKER_SUFFIX]
        .iter()
        .map(|suffix| {
            let mut name = db.as_os_str().to_os_string();
            name.push(suffix);
            std::path::PathBuf::from(name)
        })
        .collect()
}

/// Checks that no other user can have planted or changed the store at `db`, before memstr
/// opens or creates anything there:
///
/// - its directory belongs to this user (or root) and no one else can create files in it
///   (not writable by others, nor by a group other than the user's own);
/// - the database, its WAL and SHM, the vector index (and the files in it), its lock and
///   the marker are each absent or a regular file (a directory for the index) that this
///   user owns, which nobody else can write, and never a symbolic link.
///
/// A file of the user's that others could only *read* (an older store, a copy) is narrowed
/// to `0600` instead, with a warning: nobody could have changed it.
pub(crate) fn check_private(db: &Path) -> Result<(), NotPrivate> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = current_user();
        let dir = db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let fail = |path: &Path, reason: String| NotPrivate { path: path.to_path_buf(), reason };
        if let Ok(meta) = std::fs::metadata(dir) {
            let (uid, gid, mode) = (meta.uid(), meta.gid(), meta.mode() & 0o7777);
            if uid != me.0 && uid != 0 {
                return Err(fail(dir, format!("the store's directory belongs to another user (uid {uid}): they can put files memstr would open there; use a directory of your own")));
            }
            if mode & 0o002 != 0 || (mode & 0o020 != 0 && gid != me.1) {
                return Err(fail(dir, format!("the store's directory is writable by other users (mode {mode:04o}): they could plant files memstr would open; use a directory only you can write (chmod 700)")));
            }
        }
        let mut files = store_files(db);
        if let Ok(entries) = std::fs::read_dir(&files[4]) {
            files.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
        }
        for path in files {
            let is_index = path == db_vectors(db);
            check_file(&path, is_index)?;
        }
    }
    #[cfg(not(unix))]
    let _ = db;
    Ok(())
}

/// The per-file half of [`check_private`]: `path` is absent, or a regular file (a
/// directory when `dir_ok`) of this user's that nobody else can write, and not a symbolic
/// link. One others could only read is narrowed to owner-only, with a warning.
pub(crate) fn check_file(path: &Path, dir_ok: bool) -> Result<(), NotPrivate> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let fail = |reason: String| NotPrivate { path: path.to_path_buf(), reason };
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(fail(format!("cannot be checked: {e}"))),
        };
        if meta.file_type().is_symlink() {
            return Err(fail("is a symbolic link: memstr does not follow links to its files (another user could point one at a file they read); replace it with the file itself".into()));
        }
        if !(meta.is_file() || (dir_ok && meta.is_dir())) {
            return Err(fail("is not a regular file: memstr did not create it".into()));
        }
        if meta.uid() != current_user().0 {
            return Err(fail(format!("belongs to another user (uid {}): memstr did not create it for you, and its owner can read and change it; move it away", meta.uid())));
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o022 != 0 {
            return Err(fail(format!("is writable by other users (mode {mode:04o}): someone else may have changed it; if you trust its content, `chmod 600` it")));
        }
        if mode & 0o077 != 0 {
            tracing::warn!(path = %path.display(), "readable by other users (mode {mode:04o}): narrowed to owner-only");
            let narrowed = if meta.is_dir() { 0o700 } else { 0o600 };
            set_mode(path, narrowed)
                .map_err(|e| fail(format!("readable by other users and cannot be narrowed: {e}")))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, dir_ok);
    Ok(())
}

fn db_vectors(db: &Path) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(".vectors");
    std::path::PathBuf::from(name)
}

/// This process's effective user and group.
#[cfg(unix)]
fn current_user() -> (u32, u32) {
    // SAFETY: geteuid and getegid cannot fail and touch no memory.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// Creates an empty `0600` file at `path` if nothing is there, so SQLite opens a file (and
/// later creates its WAL and SHM files) with the owner's permissions only: SQLite gives
/// those files the mode of the database file.
pub(crate) fn precreate_private(path: &Path) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    match opts.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Takes away what `mask` does not allow (group and other access); never adds a
/// permission, so a store its owner made read-only stays read-only.
/// Whether an existing database at `path` cannot be changed here: the file is not writable,
/// or its directory is not (SQLite needs to create its WAL and SHM files there).
pub(crate) fn read_only(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    if std::fs::OpenOptions::new().write(true).open(path).is_err() {
        return true;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".memstr-write-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            false
        }
        Err(e) => e.kind() != std::io::ErrorKind::AlreadyExists,
    }
}

fn set_mode(path: &Path, mask: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
        if current & !mask != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(current & mask))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mask);
    Ok(())
}

/// The database file's identity on this machine (device and inode): a copy has another.
pub(crate) fn file_identity(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| format!("{}:{}", m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Loading the vector index and building the graph free large buffers that glibc keeps
/// for reuse; a serving process never needs them again, so they go back to the system
/// (about 100 MB at 100k memories).
pub(crate) fn release_free_memory() {
    #[cfg(all(feature = "vectors", target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
