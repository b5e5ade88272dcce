//! Handing a search (`memstr search`, `memstr persona search`) to a running server for the
//! same store: `memstr serve` and `memstr mcp`
//! keep the store open and the model loaded, so a search there costs milliseconds where a
//! fresh process spends most of a second loading ONNX Runtime and the model.
//!
//! The server listens on a Unix socket beside the store (`DIR/memstr.sock`), created
//! owner-only in the owner-only store directory, one server per store (a lock file,
//! `DIR/memstr.sock.lock`, held while it listens). A client uses it only when:
//!
//! - the socket and its directory are this user's and nobody else can reach them, and the
//!   process at the other end runs as this user (`SO_PEERCRED`);
//! - the server has the same database open (its canonical path, device and inode);
//! - the server holds the same key: each side proves it to the other over fresh nonces
//!   ([`Identity::local_proof`]). The key itself never crosses the socket, nor does
//!   anything derived from it but those proofs;
//! - it answers the handshake within [`HELLO_TIMEOUT`] and the search within
//!   [`REPLY_TIMEOUT`].
//!
//! Otherwise, and with `--no-forward` (`MEMSTR_NO_FORWARD=1`), the client does the search
//! itself: a stale socket from a server that crashed refuses the connection at once. What
//! the server sends back is the output the client's own code would have printed (the same
//! rendering, run there and captured), so the two ways print the same.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use memstr::{Identity, MemoryStore};
use serde::{Deserialize, Serialize};

use crate::args::{Args, Command, PersonaCommand, SearchArgs};
use crate::output::{Chunk, Out};

/// The socket's name in the store's directory.
pub const SOCKET_NAME: &str = "memstr.sock";
/// The lock the listening server holds, beside the socket.
const LOCK_NAME: &str = "memstr.sock.lock";
/// The protocol's version: a server of another version is not used.
const VERSION: u32 = 1;
/// How long a client waits to connect and for the server's half of the handshake. A live
/// server answers it from its accept loop, in well under a millisecond.
pub const HELLO_TIMEOUT: Duration = Duration::from_millis(300);
/// How long a client waits for the result once it asked. A search past this falls back
/// to doing it here (the server's accesses may then count twice).
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a server waits for each message of a client.
const PEER_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest a server spends on one connection, its command included.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(60);
/// Largest message a server reads: a query with its phrasings is far smaller.
const MAX_REQUEST: usize = 1 << 20;
/// Largest message a client reads (hits are bounded by `--limit`; past this the client
/// searches itself).
const MAX_REPLY: usize = 64 << 20;
/// Connections a server serves at once; more are closed, and their clients fall back.
const MAX_CLIENTS: usize = 8;

/// The client's first message: which store, and its nonce.
#[derive(Serialize, Deserialize)]
struct Hello {
    version: u32,
    /// The database's canonical path.
    store: String,
    /// The database file's device and inode.
    file: String,
    nonce: String,
}

/// The server's answer: its nonce and its proof of the key.
#[derive(Serialize, Deserialize)]
struct Welcome {
    nonce: String,
    proof: String,
    /// Whether the server searches with the embedding model.
    vectors: bool,
}

/// A command the server runs for the client.
#[derive(Serialize, Deserialize)]
enum Request {
    // Boxed: the search's arguments outweigh the other request many times over.
    Search { json: bool, args: Box<SearchArgs> },
    PersonaSearch { json: bool, query: String, limit: u32 },
}

/// The client's proof of the key, and its command.
#[derive(Serialize, Deserialize)]
struct Ask {
    proof: String,
    request: Request,
}

/// What the command printed and its exit code, or the error it ended with.
#[derive(Serialize, Deserialize)]
enum Answer {
    Done { chunks: Vec<Chunk>, code: u8 },
    Failed { message: String },
}

/// The message each side signs: both nonces, the store, and which side speaks.
fn proof(id: &Identity, side: &str, client_nonce: &str, server_nonce: &str, store: &str) -> String {
    let message = format!("memstr/forward/v{VERSION}\n{side}\n{client_nonce}\n{server_nonce}\n{store}");
    hex::encode(id.local_proof(message.as_bytes()))
}

fn nonce() -> String {
    use nostr::secp256k1::rand::{rngs::OsRng, RngCore};
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Compares two proofs in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The database's canonical path and its device and inode: what "the same store" means.
fn store_identity(db: &Path) -> Option<(String, String)> {
    let path = std::fs::canonicalize(db).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&path).ok()?;
        Some((path.to_string_lossy().into_owned(), format!("{}:{}", meta.dev(), meta.ino())))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

#[cfg(unix)]
fn euid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

/// Whether `dir` is this user's and closed to everyone else: then so is a socket in it.
#[cfg(unix)]
fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir() && m.uid() == euid() && m.mode() & 0o077 == 0)
}

/// The commands a server may answer (`search`, `persona search`: the two that load the
/// model), with the arguments that make the answer the same:
/// none that change how the store is opened (its clock, decay, d tags), and not a search
/// told to leave the model out (the server's store has it).
fn forwardable(args: &Args) -> Option<Request> {
    let plain = args.now.is_none()
        && args.payload_clock.is_none()
        && args.d_tags.is_none()
        && args.decay.is_none()
        && args.dissolve.is_none()
        && args.behaviours.is_empty();
    match &args.command {
        Command::Search(search) if plain && !search.no_vectors => {
            Some(Request::Search { json: args.json, args: Box::new(search.clone()) })
        }
        Command::Persona(PersonaCommand::Search { query, limit }) if plain => {
            Some(Request::PersonaSearch { json: args.json, query: query.clone(), limit: *limit })
        }
        _ => None,
    }
}

/// Runs the command on a server for this store and key, when one answers: `None` means do
/// it here. An error is the command's own, as it would have ended here.
pub fn try_forward(args: &Args, dir: &Path, db: &Path, id: &Identity) -> Option<Result<ExitCode>> {
    if args.no_forward {
        return None;
    }
    let request = forwardable(args)?;
    match ask(dir, db, id, request) {
        Ok(Answer::Done { chunks, code }) => {
            tracing::debug!("answered by the server");
            crate::output::replay(&chunks);
            Some(Ok(ExitCode::from(code)))
        }
        Ok(Answer::Failed { message }) => {
            tracing::debug!("answered by the server");
            Some(Err(anyhow::Error::msg(message)))
        }
        Err(why) => {
            tracing::debug!("no server answered ({why}): searching here");
            None
        }
    }
}

/// Why a client did not use a server (for the debug log only: the client falls back).
type Skip = String;

#[cfg(not(unix))]
fn ask(_dir: &Path, _db: &Path, _id: &Identity, _request: Request) -> Result<Answer, Skip> {
    Err("Unix sockets only".into())
}

#[cfg(unix)]
fn ask(dir: &Path, db: &Path, id: &Identity, request: Request) -> Result<Answer, Skip> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::os::unix::net::UnixStream;
    let socket = dir.join(SOCKET_NAME);
    let meta = std::fs::symlink_metadata(&socket).map_err(|e| format!("{}: {e}", socket.display()))?;
    if !meta.file_type().is_socket() || meta.uid() != euid() || !private_dir(dir) {
        return Err(format!("{} is not a private socket of this user's", socket.display()));
    }
    let (store, file) = store_identity(db).ok_or("the store cannot be identified")?;
    let mut stream = UnixStream::connect(&socket).map_err(|e| format!("connecting: {e}"))?;
    // Whoever listens must be this user: another could have bound the name before the
    // directory was narrowed.
    match peer_uid(&stream) {
        Some(uid) if uid == euid() => {}
        other => return Err(format!("the server runs as uid {other:?}, not this user")),
    }
    let io = |e: std::io::Error| format!("talking to the server: {e}");
    stream.set_read_timeout(Some(HELLO_TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(HELLO_TIMEOUT)).map_err(io)?;
    let client_nonce = nonce();
    let hello = Hello { version: VERSION, store: store.clone(), file, nonce: client_nonce.clone() };
    write_frame(&mut stream, &hello).map_err(io)?;
    let welcome: Welcome = read_frame(&mut stream, 4096).map_err(io)?;
    if !same(&welcome.proof, &proof(id, "server", &client_nonce, &welcome.nonce, &store)) {
        return Err("the server holds another key".into());
    }
    if !welcome.vectors {
        // This process would load the model: its results would differ.
        return Err("the server searches without the model".into());
    }
    let ask = Ask { proof: proof(id, "client", &client_nonce, &welcome.nonce, &store), request };
    stream.set_write_timeout(Some(PEER_TIMEOUT)).map_err(io)?;
    write_frame(&mut stream, &ask).map_err(io)?;
    stream.set_read_timeout(Some(REPLY_TIMEOUT)).map_err(io)?;
    read_frame(&mut stream, MAX_REPLY).map_err(io)
}

/// The uid of the process at the other end of `stream`.
#[cfg(unix)]
fn peer_uid(stream: &std::os::unix::net::UnixStream) -> Option<u32> {
    use std::os::fd::AsRawFd;
    let fd = stream.as_raw_fd();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        // SAFETY: `cred` and `len` are valid for writes of the sizes given.
        let rc = unsafe {
            libc::getsockopt(fd, libc::SOL_SOCKET, libc::SO_PEERCRED, (&mut cred as *mut libc::ucred).cast(), &mut len)
        };
        (rc == 0 && len as usize == std::mem::size_of::<libc::ucred>()).then_some(cred.uid)
    }
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd",
        target_os = "netbsd",
        target_os = "dragonfly"
    ))]
    {
        let (mut uid, mut gid) = (0, 0);
        // SAFETY: `uid` and `gid` are valid for writes.
        let rc = unsafe { libc::getpeereid(fd, &mut uid, &mut gid) };
        (rc == 0).then_some(uid)
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd",
        target_os = "netbsd",
        target_os = "dragonfly"
    )))]
    {
        let _ = fd;
        None
    }
}

/// A message: its length (4 bytes, big-endian), then its JSON.
fn write_frame(w: &mut impl std::io::Write, message: &impl Serialize) -> std::io::Result<()> {
    let body = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    let len = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(&body);
    w.write_all(&frame)?;
    w.flush()
}

fn read_frame<T: serde::de::DeserializeOwned>(r: &mut impl std::io::Read, max: usize) -> std::io::Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    if len > max {
        return Err(std::io::Error::other(format!("a message of {len} bytes (at most {max})")));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body).map_err(std::io::Error::other)
}

/// A server's socket, listening until [`Listener::stop`].
pub struct Listener {
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    socket: PathBuf,
    /// The socket file's inode: removed at the end only if it is still this one.
    inode: u64,
    /// Held while listening: the one server of this store.
    _lock: std::fs::File,
}

impl Listener {
    /// Stops accepting, waits a moment for searches under way, and removes the socket.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if std::fs::symlink_metadata(&self.socket).is_ok_and(|m| m.ino() == self.inode) {
                let _ = std::fs::remove_file(&self.socket);
            }
        }
    }
}

/// Starts answering searches for `store` (opened by `id` from `dir`) on the socket beside
/// it; `None`, with a warning, when it cannot (another server answers for this store, a
/// directory others can reach, a path too long for a socket): the server runs without.
#[cfg(unix)]
pub fn listen(dir: &Path, store: &MemoryStore, id: Identity) -> Option<Listener> {
    match bind(dir) {
        Ok((listener, lock, socket, inode)) => {
            let (stop, stopped) = tokio::sync::watch::channel(false);
            let task = tokio::spawn(accept(listener, store.clone(), id, stopped));
            Some(Listener { stop, task, socket, inode, _lock: lock })
        }
        Err(why) => {
            tracing::warn!("not answering the CLI's searches: {why}");
            None
        }
    }
}

#[cfg(not(unix))]
pub fn listen(_dir: &Path, _store: &MemoryStore, _id: Identity) -> Option<Listener> {
    None
}

#[cfg(unix)]
fn bind(dir: &Path) -> Result<(tokio::net::UnixListener, std::fs::File, PathBuf, u64), String> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
    if !private_dir(dir) {
        return Err(format!("{} is reachable by other users (chmod 700 it)", dir.display()));
    }
    let lock_path = dir.join(LOCK_NAME);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let meta = lock.metadata().map_err(|e| format!("{}: {e}", lock_path.display()))?;
    if !meta.is_file() || meta.uid() != euid() || meta.mode() & 0o077 != 0 {
        return Err(format!("{} is not a private file of this user's", lock_path.display()));
    }
    // SAFETY: flock on a descriptor this function owns; no memory is touched.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err("another memstr server answers for this store".into());
    }
    let socket = dir.join(SOCKET_NAME);
    // Holding the lock, whatever socket is there is a dead server's: replace it. Anything
    // else by that name is not memstr's, and stays.
    if let Ok(m) = std::fs::symlink_metadata(&socket) {
        if !(m.file_type().is_socket() && m.uid() == euid()) {
            return Err(format!("{} exists and is not a socket of this user's", socket.display()));
        }
        std::fs::remove_file(&socket).map_err(|e| format!("removing the stale {}: {e}", socket.display()))?;
    }
    let listener = tokio::net::UnixListener::bind(&socket).map_err(|e| format!("{}: {e}", socket.display()))?;
    // The umask (077) already made it owner-only; a socket needs no execute bit.
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    let inode = std::fs::symlink_metadata(&socket).map(|m| m.ino()).map_err(|e| e.to_string())?;
    Ok((listener, lock, socket, inode))
}

#[cfg(unix)]
async fn accept(
    listener: tokio::net::UnixListener,
    store: MemoryStore,
    id: Identity,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_CLIENTS));
    let (store, id) = (std::sync::Arc::new(store), std::sync::Arc::new(id));
    let mut running = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!("accepting a client: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        // Finished connections leave the set as they go.
        while running.try_join_next().is_some() {}
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            // Busy: the client sees the connection close and searches itself.
            continue;
        };
        if !stream.peer_cred().is_ok_and(|c| c.uid() == euid()) {
            continue;
        }
        let (store, id) = (store.clone(), id.clone());
        running.spawn(async move {
            if let Err(why) = tokio::time::timeout(CONNECTION_TIMEOUT, serve_one(stream, &store, &id)).await {
                tracing::debug!("a client took too long: {why}");
            }
            drop(slot);
        });
    }
    // Searches under way finish (within `Listener::stop`'s wait).
    while running.join_next().await.is_some() {}
}

/// One client: the handshake, then its command.
#[cfg(unix)]
async fn serve_one(mut stream: tokio::net::UnixStream, store: &MemoryStore, id: &Identity) {
    let Some((mine, file)) = store_identity(store.path()) else { return };
    let Ok(Some(hello)) = read_async::<Hello>(&mut stream, 4096).await else { return };
    // Another store's client (or another version's): hang up, it searches itself.
    if hello.version != VERSION || hello.store != mine || hello.file != file {
        return;
    }
    let server_nonce = nonce();
    let welcome = Welcome {
        nonce: server_nonce.clone(),
        proof: proof(id, "server", &hello.nonce, &server_nonce, &mine),
        vectors: store.has_vectors(),
    };
    if write_async(&mut stream, &welcome).await.is_err() {
        return;
    }
    let Ok(Some(ask)) = read_async::<Ask>(&mut stream, MAX_REQUEST).await else { return };
    if !same(&ask.proof, &proof(id, "client", &hello.nonce, &server_nonce, &mine)) {
        tracing::warn!("a client of this store without its key was refused");
        return;
    }
    let answer = run(ask.request, store).await;
    let _ = write_async(&mut stream, &answer).await;
}

/// Runs a request as the CLI would, its output captured.
async fn run(request: Request, store: &MemoryStore) -> Answer {
    match request {
        Request::Search { json, args } => {
            let query = crate::cli::search_query(&args, store.now());
            match store.search_outcome(query).await {
                Ok(outcome) => {
                    let out = Out { json };
                    let chunks = crate::output::capture(|| out.search(&outcome, args.explain));
                    Answer::Done { chunks, code: 0 }
                }
                Err(e) => Answer::Failed { message: crate::message(&e.into()) },
            }
        }
        Request::PersonaSearch { json, query, limit } => match store.persona_search(&query, limit as usize).await {
            Ok(hits) => {
                let out = Out { json };
                Answer::Done { chunks: crate::output::capture(|| out.hits(&hits)), code: 0 }
            }
            Err(e) => Answer::Failed { message: crate::message(&e.into()) },
        },
    }
}

#[cfg(unix)]
async fn read_async<T: serde::de::DeserializeOwned>(
    stream: &mut tokio::net::UnixStream,
    max: usize,
) -> std::io::Result<Option<T>> {
    use tokio::io::AsyncReadExt;
    let read = async {
        let mut len = [0u8; 4];
        stream.read_exact(&mut len).await?;
        let len = u32::from_be_bytes(len) as usize;
        if len > max {
            return Ok(None);
        }
        let mut body = vec![0u8; len];
        stream.read_exact(&mut body).await?;
        Ok(serde_json::from_slice(&body).ok())
    };
    tokio::time::timeout(PEER_TIMEOUT, read).await.unwrap_or(Ok(None))
}

#[cfg(unix)]
async fn write_async(stream: &mut tokio::net::UnixStream, message: &impl Serialize) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut frame = Vec::new();
    write_frame(&mut frame, message)?;
    tokio::time::timeout(PEER_TIMEOUT, stream.write_all(&frame)).await.map_err(std::io::Error::other)?
}
