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

/// Makes an existing directory `0700` (memstr's own store directory).
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

/// Narrows an existing file to `0600`, when it exists and is ours to change. Failures are
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

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
        if current != mode {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}
