//! The agent's key from the command line: `memstr init` (a new key, MEMSTR_NSEC, the key
//! file, or one imported from another device, with `--discover` for its relays) and
//! `memstr key show` / `export` (docs/sync.md, "Add a device").

use std::io::Read;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use memstr::Identity;
use zeroize::Zeroizing;

use crate::args::*;
use crate::cli::{identity, open, password};
use crate::output::Out;
use crate::syncing::sync_options;

/// Where `init` got its key.
pub(crate) enum KeyOrigin {
    New,
    Imported,
    Env,
    File,
}

/// A key as `--import` takes it: `-` (standard input), a key file's path, or the key
/// itself (ncryptsec, nsec or hex); an ncryptsec's password from MEMSTR_PASSWORD or a prompt.
fn import_key(given: &str) -> Result<Identity> {
    let text = Zeroizing::new(if given == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("reading the key from standard input")?;
        s
    } else if std::path::Path::new(given).is_file() {
        std::fs::read_to_string(given).with_context(|| format!("reading {given}"))?
    } else {
        given.to_string()
    });
    // Never echo what was given: it may be a secret.
    if Identity::needs_password(&text) {
        Ok(Identity::import(&text, Some(&password(false)?))?)
    } else {
        Ok(Identity::import(&text, None)
            .context("--import takes an ncryptsec, a key file, an nsec or 64 hex digits, or - for standard input")?)
    }
}

/// `memstr init`: the key (imported, from MEMSTR_NSEC, the existing key file, or new), the
/// key file, the store; with `--discover`, the relays from the key's list and a sync.
pub(crate) async fn init(
    args: &Args,
    out: &Out,
    (from_env, import, discover, no_key_file, log_n, encrypt): (bool, Option<&str>, Option<&[String]>, bool, u8, bool),
) -> Result<ExitCode> {
    if encrypt && !memstr::at_rest::available() {
        // Before any key file is written.
        bail!("--encrypt: {}", memstr::EncryptionProblem::FeatureMissing);
    }
    let file = args.key_file()?;
    let env_key = Identity::from_env()?;
    let (id, origin) = match (import, env_key) {
        (Some(k), _) => (import_key(k)?, KeyOrigin::Imported),
        (None, Some(id)) => (id, KeyOrigin::Env),
        (None, None) if from_env => bail!("--from-env: MEMSTR_NSEC is not set"),
        (None, None) if file.exists() => (Identity::load_file(&file, &password(false)?)?, KeyOrigin::File),
        (None, None) if no_key_file => bail!("--no-key-file: give the key in MEMSTR_NSEC or with --import"),
        (None, None) => (Identity::generate(), KeyOrigin::New),
    };
    // A key file already there must hold this key: a key is never replaced.
    if file.exists() && !no_key_file && !matches!(origin, KeyOrigin::File) {
        let held = Identity::load_file(&file, &password(false)?)?;
        if held.public_key() != id.public_key() {
            bail!(
                "{} holds key {}, not {}; refusing to replace a key (use another --dir or --key-file)",
                file.display(),
                held.npub(),
                id.npub()
            );
        }
    }
    // A store already there must be this key's; then init only says so.
    let db = args.dir()?.join("memstr.db");
    let existed = db.exists();
    if existed {
        match open(args, id.clone()).await {
            Err(e) => match e.downcast_ref::<memstr::Error>() {
                Some(memstr::Error::WrongKey { store_pubkey, .. }) => {
                    let theirs = nostr::PublicKey::from_hex(store_pubkey)
                        .ok()
                        .and_then(|p| nostr::nips::nip19::ToBech32::to_bech32(&p).ok())
                        .unwrap_or_else(|| store_pubkey.clone());
                    bail!(
                        "the store in {} belongs to key {theirs}, not {}; refusing to use it with another key",
                        db.display(),
                        id.npub()
                    )
                }
                _ => return Err(e),
            },
            Ok(store) => drop(store),
        }
    }
    if !no_key_file && !file.exists() {
        id.save_file(&file, &password(true)?, log_n)?;
    }
    let store = open(args, id.clone()).await?;
    let key_file = (!no_key_file).then_some(file.as_path());
    out.init(&id, key_file, store.path(), store.d_tag_mode(), store.is_encrypted(), &origin, existed);
    if let Some(bootstrap) = discover {
        let opts = sync_options(out, false);
        let report = store.discover_relays(bootstrap, &opts, false).await?;
        out.discovered(&report);
        if store.relays().await?.is_empty() {
            bail!(
                "no relay list found for this key on {}: add a relay with `memstr relay add wss://...`",
                memstr::sync::bootstrap_relays(bootstrap).join(", ")
            );
        }
        let reports = crate::syncing::sync_passes(&store, &opts, crate::syncing::DEFAULT_SYNC_PASSES, out).await?;
        out.sync(&reports);
        if reports.iter().any(|r| r.error.is_some()) {
            return Ok(ExitCode::from(3));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `memstr key show` and `memstr key export`.
pub(crate) fn key(args: &Args, out: &Out, cmd: &KeyCommand) -> Result<ExitCode> {
    let file = args.key_file()?;
    let from_env = Identity::from_env()?;
    match cmd {
        KeyCommand::Show => {
            let id = identity(args)?;
            let kept = match &from_env {
                Some(_) => "in MEMSTR_NSEC (the environment)".to_string(),
                None => format!("in {} (NIP-49, password-protected)", file.display()),
            };
            out.key_shown(&id, &kept);
        }
        KeyCommand::Export { nsec: true, .. } => {
            let id = identity(args)?;
            eprintln!("memstr: warning: this is the bare secret key: anyone who sees it reads and writes this memory");
            println!("{}", *id.reveal_nsec());
        }
        KeyCommand::Export { nsec: false, log_n } => match from_env {
            // The key file is already an ncryptsec under the store's key password.
            None if file.exists() => {
                let text = Zeroizing::new(
                    std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?,
                );
                // Checked: the password opens it (so the export is usable).
                Identity::load_file(&file, &password(false)?)?;
                println!("{}", text.trim());
            }
            _ => {
                let id = identity(args)?;
                eprintln!("memstr: the export is encrypted with the password you give now (NIP-49)");
                println!("{}", id.to_ncryptsec(&password(true)?, *log_n)?);
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}
