//! Maps keyed by the numbers this store's SQLite hands out (record rids, vector vids), hashed
//! with one multiplication.
//!
//! The standard map's SipHash resists keys chosen to collide; these keys are row ids, never
//! chosen by anyone outside, and SipHash was most of the time spent building the vector
//! index's maps on load (a million points) and a visible share of a search's lexical pool.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes an `i64` key with one multiplication by an odd constant.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(ID_MIX);
        }
    }
    fn write_i64(&mut self, n: i64) {
        // An odd multiplier keeps distinct low bits distinct (the map's bucket) and spreads
        // every bit into the high ones (its tag).
        self.0 = (n as u64 ^ self.0).wrapping_mul(ID_MIX);
    }
}

/// 2^64 divided by the golden ratio, odd.
const ID_MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// A map keyed by rid or vid.
pub(crate) type IdMap<V> = HashMap<i64, V, BuildHasherDefault<IdHasher>>;

/// A set of rids or vids.
pub(crate) type IdSet = HashSet<i64, BuildHasherDefault<IdHasher>>;
