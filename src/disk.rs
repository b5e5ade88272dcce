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

/// Takes group and other access away from an existing directory (memstr's own store
/// directory): `0755` becomes `0700`, `0500` stays.
pub fn restrict_dir(dir: &Path) -> std::io::Result<()> {
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
