//! The agent's key: loaded from an nsec or hex string, the environment, or a NIP-49
//! (ncryptsec) file. The secret never reaches `Debug`, `Display`, errors or logs.

use std::fmt;
use std::path::Path;

use nostr::nips::nip19::{FromBech32, ToBech32};
use nostr::nips::nip49::{EncryptedSecretKey, KeySecurity};
use nostr::{Keys, PublicKey, SecretKey};
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// Environment variable holding the secret key (nsec or hex).
pub const ENV_NSEC: &str = "MEMSTR_NSEC";
/// Environment variable holding the key file's password.
pub const ENV_PASSWORD: &str = "MEMSTR_PASSWORD";
/// Label of the key [`Identity::local_proof`] derives: it changes only with a new scheme.
const LOCAL_PROOF_LABEL: &[u8] = b"memstr/local-proof/v1";
/// scrypt cost of new key files (NIP-49's recommended minimum is 16).
pub const DEFAULT_LOG_N: u8 = 16;

/// An agent's Nostr key pair.
#[derive(Clone)]
pub struct Identity {
    keys: Keys,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity").field("public_key", &self.npub()).finish_non_exhaustive()
    }
}

impl Identity {
    /// A new random key.
    pub fn generate() -> Self {
        Identity { keys: Keys::generate() }
    }

    /// From an `nsec1...` or 64-digit hex secret. The error never repeats the input.
    pub fn from_secret(secret: &str) -> Result<Self> {
        let secret = secret.trim();
        let sk = if secret.starts_with("nsec1") {
            SecretKey::from_bech32(secret).map_err(|_| Error::identity("invalid nsec"))?
        } else {
            SecretKey::from_hex(secret)
                .map_err(|_| Error::identity("invalid secret key: expected nsec1... or 64 hex digits"))?
        };
        Ok(Identity { keys: Keys::new(sk) })
    }

    /// From `MEMSTR_NSEC`, if set. An empty value counts as unset (`MEMSTR_NSEC=` in a
    /// shell or a config file clears it).
    pub fn from_env() -> Result<Option<Self>> {
        match std::env::var(ENV_NSEC) {
            Ok(v) if v.trim().is_empty() => Ok(None),
            Ok(v) => {
                let v = Zeroizing::new(v);
                Identity::from_secret(&v)
                    .map(Some)
                    .map_err(|e| Error::identity(format!("{ENV_NSEC}: {}", strip_prefix(&e))))
            }
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(Error::identity(format!("{ENV_NSEC} is not UTF-8"))),
        }
    }

    /// From a NIP-49 `ncryptsec1...` string and its password.
    pub fn from_ncryptsec(ncryptsec: &str, password: &str) -> Result<Self> {
        let enc =
            EncryptedSecretKey::from_bech32(ncryptsec.trim()).map_err(|_| Error::identity("invalid ncryptsec"))?;
        let sk = enc
            .decrypt(password)
            .map_err(|_| Error::identity("cannot decrypt key: wrong password or corrupted ncryptsec"))?;
        Ok(Identity { keys: Keys::new(sk) })
    }

    /// A key carried from another device, as `memstr key export` prints it: an
    /// `ncryptsec1...` (decrypted with `password`), an `nsec1...`, or 64 hex digits.
    /// Errors never repeat the input. [`Identity::needs_password`] tells whether `text`
    /// wants a password.
    pub fn import(text: &str, password: Option<&str>) -> Result<Self> {
        let text = text.trim();
        if Self::needs_password(text) {
            let Some(password) = password else {
                return Err(Error::identity("an ncryptsec key needs its password"));
            };
            return Self::from_ncryptsec(text, password);
        }
        Self::from_secret(text)
    }

    /// Whether `text` is a NIP-49 `ncryptsec1...` (encrypted with a password).
    pub fn needs_password(text: &str) -> bool {
        text.trim().starts_with("ncryptsec1")
    }

    /// Encrypts the secret as NIP-49 with scrypt cost `log_n`.
    pub fn to_ncryptsec(&self, password: &str, log_n: u8) -> Result<String> {
        let enc = EncryptedSecretKey::new(self.keys.secret_key(), password, log_n, KeySecurity::Medium)
            .map_err(|e| Error::Identity(crate::Cause::from("cannot encrypt key", e)))?;
        enc.to_bech32().map_err(|e| Error::Identity(crate::Cause::from("cannot encode ncryptsec", e)))
    }

    /// Reads a key file holding one `ncryptsec1...` line.
    pub fn load_file(path: &Path, password: &str) -> Result<Self> {
        // A key file another user planted or can change would make memstr write to their key.
        crate::disk::check_file(path, false)?;
        let text =
            Zeroizing::new(std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?);
        Identity::from_ncryptsec(&text, password)
            .map_err(|e| Error::identity(format!("{}: {}", path.display(), strip_prefix(&e))))
    }

    /// Writes the key, encrypted with `password`, to a new file (mode 0600 on Unix).
    /// Refuses to overwrite an existing file: that would lose a key.
    pub fn save_file(&self, path: &Path, password: &str, log_n: u8) -> Result<()> {
        use std::io::Write;
        let ncryptsec = self.to_ncryptsec(password, log_n)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::disk::create_private_dir(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
        }
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let io = |source| Error::Io { path: path.into(), source };
        let mut f = opts.open(path).map_err(io)?;
        writeln!(f, "{ncryptsec}").map_err(io)?;
        f.sync_all().map_err(io)?;
        Ok(())
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.keys.public_key()
    }

    /// The public key as `npub1...`.
    pub fn npub(&self) -> String {
        self.keys.public_key().to_bech32().unwrap_or_else(|_| self.keys.public_key().to_hex())
    }

    /// The secret as `nsec1...`, for deliberate export only.
    pub fn reveal_nsec(&self) -> Zeroizing<String> {
        Zeroizing::new(self.keys.secret_key().to_bech32().expect("a valid secret key always encodes"))
    }

    /// A proof that this process holds this secret key, for another process of the same
    /// user that holds it too (the CLI and a running server, src/bin/memstr/forward.rs):
    /// HMAC-SHA256 over `message` with a key derived from the secret for this purpose only.
    /// Neither the secret nor that key can be recovered from a proof, and a proof for one
    /// message says nothing of another's; put fresh nonces from both sides in `message`.
    pub fn local_proof(&self, message: &[u8]) -> [u8; 32] {
        use nostr::hashes::hmac::{Hmac, HmacEngine};
        use nostr::hashes::sha256::Hash as Sha256Hash;
        use nostr::hashes::{Hash, HashEngine};
        let mut engine = HmacEngine::<Sha256Hash>::new(self.keys.secret_key().as_secret_bytes());
        engine.input(LOCAL_PROOF_LABEL);
        let key = Zeroizing::new(Hmac::<Sha256Hash>::from_engine(engine).to_byte_array());
        let mut engine = HmacEngine::<Sha256Hash>::new(key.as_slice());
        engine.input(message);
        Hmac::<Sha256Hash>::from_engine(engine).to_byte_array()
    }

    pub(crate) fn keys(&self) -> &Keys {
        &self.keys
    }
}

fn strip_prefix(e: &Error) -> String {
    match e {
        Error::Identity(cause) => cause.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The NIP-49 test vector, as recorded in nostr-notes.md.
    const NCRYPTSEC: &str = "ncryptsec1qgg9947rlpvqu76pj5ecreduf9jxhselq2nae2kghhvd5g7dgjtcxfqtd67p9m0w57lspw8gsq6yphnm8623nsl8xn9j4jdzz84zm3frztj3z7s35vpzmqf6ksu8r89qk5z2zxfmu5gv8th8wclt0h4p";
    const SECRET_HEX: &str = "3501454135014541350145413501453fefb02227e449e57cf4d3a3ce05378683";

    #[test]
    fn nip49_vector_decrypts() {
        let id = Identity::from_ncryptsec(NCRYPTSEC, "nostr").unwrap();
        assert_eq!(id.keys().secret_key().to_secret_hex(), SECRET_HEX);
    }

    #[test]
    fn nip49_wrong_password_is_a_clear_error_without_secrets() {
        let e = Identity::from_ncryptsec(NCRYPTSEC, "wrong").unwrap_err().to_string();
        assert!(e.contains("wrong password"), "{e}");
        assert!(!e.contains(SECRET_HEX) && !e.contains("wrong\""), "{e}");
    }

    #[test]
    fn hex_and_nsec_agree() {
        let a = Identity::from_secret(SECRET_HEX).unwrap();
        let b = Identity::from_secret(&a.reveal_nsec()).unwrap();
        assert_eq!(a.public_key(), b.public_key());
    }

    #[test]
    fn bad_secrets_do_not_echo_input() {
        let e = Identity::from_secret("nsec1notreallyakey").unwrap_err().to_string();
        assert!(!e.contains("notreallyakey"), "{e}");
        let e = Identity::from_secret("zz").unwrap_err().to_string();
        assert!(e.contains("64 hex digits"), "{e}");
    }

    #[test]
    fn import_takes_ncryptsec_nsec_and_hex_and_never_echoes_them() {
        let id = Identity::generate();
        let enc = id.to_ncryptsec("pw", 4).unwrap();
        assert_eq!(Identity::import(&enc, Some("pw")).unwrap().npub(), id.npub());
        assert!(Identity::needs_password(&format!("  {enc}\n")));
        let err = Identity::import(&enc, None).unwrap_err().to_string();
        assert!(err.contains("password") && !err.contains(&enc), "{err}");
        let err = Identity::import(&enc, Some("wrong")).unwrap_err().to_string();
        assert!(err.contains("wrong password") && !err.contains(&enc), "{err}");
        assert_eq!(Identity::import(&id.reveal_nsec(), None).unwrap().npub(), id.npub());
        let hex = id.keys().secret_key().to_secret_hex();
        assert_eq!(Identity::import(&format!("{hex}\n"), None).unwrap().npub(), id.npub());
        let err = Identity::import("nsec1garbage", None).unwrap_err().to_string();
        assert!(!err.contains("garbage"), "{err}");
    }

    #[test]
    fn debug_shows_only_the_public_key() {
        let id = Identity::from_secret(SECRET_HEX).unwrap();
        let dbg = format!("{id:?}");
        assert!(dbg.contains("npub1"), "{dbg}");
        assert!(!dbg.contains(SECRET_HEX) && !dbg.contains(id.reveal_nsec().as_str()), "{dbg}");
    }

    #[test]
    fn key_file_round_trip_and_no_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.ncryptsec");
        let id = Identity::generate();
        // log_n 4 keeps the test fast; the format is the same.
        id.save_file(&path, "pw", 4).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("ncryptsec1"));
        assert_eq!(Identity::load_file(&path, "pw").unwrap().public_key(), id.public_key());
        assert!(Identity::load_file(&path, "nope").is_err());
        assert!(Identity::generate().save_file(&path, "pw", 4).is_err(), "must not overwrite a key");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
