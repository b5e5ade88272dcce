//! The official NIP-44 v2 test vectors, run through [`Cipher`], the path the store uses.

use base64::Engine;
use nostr::hashes::sha256::Hash as Sha256Hash;
use nostr::hashes::Hash;
use nostr::nips::nip44::v2::ConversationKey;
use nostr::secp256k1::rand::{Error as RandError, RngCore};
use nostr::{Keys, PublicKey, SecretKey};
use serde_json::Value;

use super::{Cipher, BASE64};

const VECTORS: &str = include_str!("../testdata/nip44.vectors.json");

fn v2() -> Value {
    serde_json::from_str::<Value>(VECTORS).unwrap()["v2"].clone()
}

fn s(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_else(|| panic!("field {k}")).to_string()
}

fn h32(hex_str: &str) -> [u8; 32] {
    hex::decode(hex_str).unwrap().try_into().unwrap()
}

/// Hands out one fixed nonce, as the vectors require.
struct FixedNonce([u8; 32]);

impl RngCore for FixedNonce {
    fn next_u32(&mut self) -> u32 {
        unreachable!("NIP-44 draws its nonce with fill_bytes")
    }
    fn next_u64(&mut self) -> u64 {
        unreachable!("NIP-44 draws its nonce with fill_bytes")
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        dest.copy_from_slice(&self.0[..dest.len()]);
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), RandError> {
        self.fill_bytes(dest);
        Ok(())
    }
}

fn cipher_from_ck(hex_ck: &str) -> Cipher {
    Cipher::from_conversation_key(ConversationKey::new(h32(hex_ck)))
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256Hash::hash(bytes).to_byte_array())
}

#[test]
fn valid_conversation_keys() {
    let cases = v2()["valid"]["get_conversation_key"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 35);
    for c in cases {
        let sk = SecretKey::from_hex(&s(&c, "sec1")).unwrap();
        let pk = PublicKey::from_hex(&s(&c, "pub2")).unwrap();
        let cipher = Cipher::new(&sk, &pk).unwrap();
        assert_eq!(hex::encode(cipher.conversation_key()), s(&c, "conversation_key"));
    }
}

#[test]
fn valid_message_keys() {
    let mk = v2()["valid"]["get_message_keys"].clone();
    let ck = hex::decode(s(&mk, "conversation_key")).unwrap();
    let keys = mk["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 32);
    for k in keys {
        let m = super::MessageKeys::derive(&ck, &h32(&s(k, "nonce")));
        assert_eq!(hex::encode(m.chacha_key), s(k, "chacha_key"));
        assert_eq!(hex::encode(m.chacha_nonce), s(k, "chacha_nonce"));
        assert_eq!(hex::encode(m.hmac_key), s(k, "hmac_key"));
    }
}

#[test]
fn valid_padded_lengths() {
    let cipher = Cipher::new(&Keys::generate().secret_key().clone(), &Keys::generate().public_key()).unwrap();
    let cases = v2()["valid"]["calc_padded_len"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 24);
    for c in cases {
        let len = c[0].as_u64().unwrap() as usize;
        let padded = c[1].as_u64().unwrap() as usize;
        assert_eq!(super::padded_len(len), padded, "plaintext length {len}");
        if len > super::MAX_PLAINTEXT {
            // The table's last row pads a length NIP-44 refuses to encrypt.
            assert!(cipher.encrypt_with_rng(&mut FixedNonce([7; 32]), &vec![b'x'; len]).is_err());
            continue;
        }
        let payload = cipher.encrypt_with_rng(&mut FixedNonce([7; 32]), &vec![b'x'; len]).unwrap();
        let data = BASE64.decode(payload).unwrap();
        // version + nonce + length prefix + padded plaintext + MAC
        assert_eq!(data.len(), 1 + 32 + 2 + padded + 32, "plaintext length {len}");
    }
}

#[test]
fn valid_encrypt_decrypt() {
    let cases = v2()["valid"]["encrypt_decrypt"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 10);
    for c in cases {
        let sk1 = SecretKey::from_hex(&s(&c, "sec1")).unwrap();
        let sk2 = SecretKey::from_hex(&s(&c, "sec2")).unwrap();
        let pk2 = Keys::new(sk2.clone()).public_key();
        let pk1 = Keys::new(sk1.clone()).public_key();
        let a = Cipher::new(&sk1, &pk2).unwrap();
        let b = Cipher::new(&sk2, &pk1).unwrap();
        assert_eq!(hex::encode(a.conversation_key()), s(&c, "conversation_key"));
        let plaintext = s(&c, "plaintext");
        let payload = a.encrypt_with_rng(&mut FixedNonce(h32(&s(&c, "nonce"))), plaintext.as_bytes()).unwrap();
        assert_eq!(payload, s(&c, "payload"));
        assert_eq!(b.decrypt(&payload).unwrap(), plaintext);
    }
}

#[test]
fn valid_long_messages() {
    let cases = v2()["valid"]["encrypt_decrypt_long_msg"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 3);
    for c in cases {
        let cipher = cipher_from_ck(&s(&c, "conversation_key"));
        let plaintext = s(&c, "pattern").repeat(c["repeat"].as_u64().unwrap() as usize);
        assert_eq!(sha256_hex(plaintext.as_bytes()), s(&c, "plaintext_sha256"));
        let payload = cipher.encrypt_with_rng(&mut FixedNonce(h32(&s(&c, "nonce"))), plaintext.as_bytes()).unwrap();
        assert_eq!(sha256_hex(payload.as_bytes()), s(&c, "payload_sha256"));
        assert_eq!(cipher.decrypt(&payload).unwrap(), plaintext);
    }
}

#[test]
fn invalid_message_lengths() {
    let cipher = cipher_from_ck(&"11".repeat(32));
    let cases = v2()["invalid"]["encrypt_msg_lengths"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 4);
    for c in cases {
        let len = c.as_u64().unwrap() as usize;
        assert!(cipher.encrypt_with_rng(&mut FixedNonce([1; 32]), &vec![b'a'; len]).is_err(), "length {len}");
    }
}

#[test]
fn invalid_conversation_keys() {
    let cases = v2()["invalid"]["get_conversation_key"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 8);
    for c in cases {
        let outcome = SecretKey::from_hex(&s(&c, "sec1"))
            .ok()
            .zip(PublicKey::from_hex(&s(&c, "pub2")).ok())
            .map(|(sk, pk)| Cipher::new(&sk, &pk));
        assert!(!matches!(outcome, Some(Ok(_))), "{}", s(&c, "note"));
    }
}

#[test]
fn invalid_payloads() {
    let cases = v2()["invalid"]["decrypt"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 12);
    for c in cases {
        let cipher = cipher_from_ck(&s(&c, "conversation_key"));
        assert!(cipher.decrypt(&s(&c, "payload")).is_err(), "{}", s(&c, "note"));
    }
}
