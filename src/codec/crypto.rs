//! NIP-44 v2 encryption to self, and the keyed hash behind blinded d tags.

use std::fmt;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use chacha20::cipher::{KeyIvInit, StreamCipher};
use chacha20::ChaCha20;
use nostr::hashes::hmac::{Hmac, HmacEngine};
use nostr::hashes::sha256::Hash as Sha256Hash;
use nostr::hashes::{Hash, HashEngine};
use nostr::nips::nip44::v2::ConversationKey;
use nostr::secp256k1::rand::rngs::OsRng;
use nostr::secp256k1::rand::RngCore;
use nostr::{PublicKey, SecretKey};

/// Why a NIP-44 payload did not decrypt. Names the NIP-44 rule that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecryptError {
    /// The payload is empty, starts with `#`, or has a version byte other than 2.
    #[error("unsupported encryption version (payload starts with '#' or an unknown version byte)")]
    UnknownVersion,
    /// The payload's length in base64 characters is outside the NIP's bounds.
    #[error("payload length {0} is outside 132..=87472 base64 characters")]
    PayloadSize(usize),
    /// The payload is not valid base64.
    #[error("payload is not valid base64")]
    Base64,
    /// The decoded payload's length in bytes is outside the NIP's bounds.
    #[error("decoded payload length {0} is outside 99..=65603 bytes")]
    DataSize(usize),
    /// The MAC or padding check failed; holds which.
    #[error("MAC, padding or length check failed: {0}")]
    Cipher(String),
    /// The decrypted plaintext is not valid UTF-8.
    #[error("plaintext is not UTF-8")]
    Utf8,
}

/// Label of the blinding key's derivation: it changes only with a new scheme.
const BLIND_LABEL: &[u8] = b"memstr/blinded-d-tag/v1";

/// NIP-44 v2 between one secret key and one public key (memstr uses it to self).
///
/// Holds the conversation key, never the secret key; `Debug` shows neither.
pub struct Cipher {
    conversation_key: ConversationKey,
    blind_key: [u8; 32],
}

impl fmt::Debug for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cipher { .. }")
    }
}

impl Cipher {
    /// The conversation between `secret_key` and `public_key` (pass our own public key
    /// for notes to self). Fails for an invalid public key.
    pub fn new(secret_key: &SecretKey, public_key: &PublicKey) -> Result<Self, crate::Error> {
        let ck = ConversationKey::derive(secret_key, public_key)
            .map_err(|e| crate::Error::Crypto(crate::Cause::from("conversation key", e)))?;
        Ok(Self::from_conversation_key(ck))
    }

    /// From a known conversation key (test vectors).
    pub fn from_conversation_key(conversation_key: ConversationKey) -> Self {
        // Blinded d tags use a key derived from, but never equal to, the conversation key.
        let mut engine = HmacEngine::<Sha256Hash>::new(conversation_key.as_bytes());
        engine.input(BLIND_LABEL);
        let blind_key = Hmac::<Sha256Hash>::from_engine(engine).to_byte_array();
        Cipher { conversation_key, blind_key }
    }

    /// The conversation key's bytes (for test vectors).
    pub fn conversation_key(&self) -> &[u8] {
        self.conversation_key.as_bytes()
    }

    /// Encrypts `plaintext` (1 to 65535 bytes) to a base64 NIP-44 v2 payload.
    pub fn encrypt(&self, plaintext: &str) -> Result<String, crate::Error> {
        self.encrypt_with_rng(&mut OsRng, plaintext.as_bytes())
    }

    /// [`Cipher::encrypt`] drawing the nonce from `rng`: the one encryption path,
    /// which the official test vectors drive with their fixed nonces.
    ///
    /// Implemented here rather than taken from nostr 0.44, whose encryption stops at
    /// 65,408 bytes where NIP-44 (and the published client) go to 65,535.
    pub fn encrypt_with_rng<R: RngCore>(&self, rng: &mut R, plaintext: &[u8]) -> Result<String, crate::Error> {
        let len = plaintext.len();
        if !(1..=MAX_PLAINTEXT).contains(&len) {
            return Err(crate::Error::crypto(format!("NIP-44 encrypts 1 to {MAX_PLAINTEXT} bytes, not {len}")));
        }
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let keys = MessageKeys::derive(self.conversation_key.as_bytes(), &nonce);
        let mut buf = Vec::with_capacity(2 + padded_len(len));
        buf.extend_from_slice(&(len as u16).to_be_bytes());
        buf.extend_from_slice(plaintext);
        buf.resize(2 + padded_len(len), 0);
        ChaCha20::new((&keys.chacha_key).into(), (&keys.chacha_nonce).into()).apply_keystream(&mut buf);
        let mac = keys.mac(&nonce, &buf);
        let mut payload = Vec::with_capacity(1 + 32 + buf.len() + 32);
        payload.push(2);
        payload.extend_from_slice(&nonce);
        payload.extend_from_slice(&buf);
        payload.extend_from_slice(&mac);
        Ok(BASE64.encode(payload))
    }

    /// Decrypts a base64 NIP-44 payload, applying every check of the NIP.
    pub fn decrypt(&self, payload: &str) -> Result<String, DecryptError> {
        let bytes = self.decrypt_to_bytes(payload)?;
        String::from_utf8(bytes).map_err(|_| DecryptError::Utf8)
    }

    /// [`Cipher::decrypt`] without the UTF-8 step.
    pub fn decrypt_to_bytes(&self, payload: &str) -> Result<Vec<u8>, DecryptError> {
        if payload.is_empty() || payload.starts_with('#') {
            return Err(DecryptError::UnknownVersion);
        }
        let plen = payload.len();
        if !(132..=87_472).contains(&plen) {
            return Err(DecryptError::PayloadSize(plen));
        }
        let data = BASE64.decode(payload).map_err(|_| DecryptError::Base64)?;
        let dlen = data.len();
        if !(99..=65_603).contains(&dlen) {
            return Err(DecryptError::DataSize(dlen));
        }
        if data[0] != 2 {
            return Err(DecryptError::UnknownVersion);
        }
        let nonce: [u8; 32] = data[1..33].try_into().expect("length checked");
        let (body, mac) = data[33..].split_at(dlen - 33 - 32);
        let keys = MessageKeys::derive(self.conversation_key.as_bytes(), &nonce);
        if !constant_time_eq(&keys.mac(&nonce, body), mac) {
            return Err(DecryptError::Cipher("invalid MAC".into()));
        }
        let mut buf = body.to_vec();
        ChaCha20::new((&keys.chacha_key).into(), (&keys.chacha_nonce).into()).apply_keystream(&mut buf);
        let len = u16::from_be_bytes([buf[0], buf[1]]) as usize;
        if len == 0 || buf.len() != 2 + padded_len(len) {
            return Err(DecryptError::Cipher("invalid padding".into()));
        }
        buf.truncate(2 + len);
        buf.drain(..2);
        Ok(buf)
    }

    /// The blinded d tag of a plain path: hex HMAC-SHA256 under the blinding key.
    pub fn blind(&self, path: &str) -> String {
        let mut engine = HmacEngine::<Sha256Hash>::new(&self.blind_key);
        engine.input(path.as_bytes());
        hex::encode(Hmac::<Sha256Hash>::from_engine(engine).to_byte_array())
    }
}

/// Largest plaintext NIP-44 v2 encrypts.
pub const MAX_PLAINTEXT: usize = 65_535;

/// NIP-44's padded length: powers of two up to 256, then chunks of an eighth.
pub(crate) fn padded_len(len: usize) -> usize {
    if len <= 32 {
        return 32;
    }
    let next_power = 1usize << (usize::BITS - (len - 1).leading_zeros());
    let chunk = if next_power <= 256 { 32 } else { next_power / 8 };
    chunk * ((len - 1) / chunk + 1)
}

/// The per-message keys: HKDF-expand(conversation key, nonce, 76 bytes).
pub(crate) struct MessageKeys {
    pub chacha_key: [u8; 32],
    pub chacha_nonce: [u8; 12],
    pub hmac_key: [u8; 32],
}

impl MessageKeys {
    pub(crate) fn derive(conversation_key: &[u8], nonce: &[u8; 32]) -> Self {
        // HKDF-expand with SHA-256: T(i) = HMAC(prk, T(i-1) || info || i), 3 blocks.
        let mut okm = [0u8; 96];
        let mut prev: Vec<u8> = Vec::new();
        for i in 0..3u8 {
            let mut engine = HmacEngine::<Sha256Hash>::new(conversation_key);
            engine.input(&prev);
            engine.input(nonce);
            engine.input(&[i + 1]);
            let block = Hmac::<Sha256Hash>::from_engine(engine).to_byte_array();
            okm[i as usize * 32..(i as usize + 1) * 32].copy_from_slice(&block);
            prev = block.to_vec();
        }
        MessageKeys {
            chacha_key: okm[0..32].try_into().expect("32 bytes"),
            chacha_nonce: okm[32..44].try_into().expect("12 bytes"),
            hmac_key: okm[44..76].try_into().expect("32 bytes"),
        }
    }

    fn mac(&self, nonce: &[u8; 32], ciphertext: &[u8]) -> [u8; 32] {
        let mut engine = HmacEngine::<Sha256Hash>::new(&self.hmac_key);
        engine.input(nonce);
        engine.input(ciphertext);
        Hmac::<Sha256Hash>::from_engine(engine).to_byte_array()
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod vectors;
