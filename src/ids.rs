//! Maps keyed by the numbers this store's SQLite hands out (record rids, vector vids),
//! hashed with one multiplication, and maps keyed by pairs of numbers, which fold the
//! product's high half onto its low one.
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

/// [`IdHasher`], then the product's high half folded onto its low one: a product's low
/// bits depend only on the key's low bits, and a map picks a bucket by the low bits, so
/// keys that differ only above them (a pair packed as `a << 32 | b`) shared a bucket, and
/// 600,000 pairs took 3 s to insert. Kept apart from [`IdHasher`], which the search path
/// uses on plain rids.
#[derive(Default, Clone, Copy)]
pub(crate) struct PairHasher(IdHasher);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        let h = self.0.finish();
        h ^ (h >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    fn write_i64(&mut self, n: i64) {
        self.0.write_i64(n);
    }
}

/// A map keyed by a pair of rids.
pub(crate) type PairMap<V> = HashMap<(i64, i64), V, BuildHasherDefault<PairHasher>>;

/// A map keyed by two numbers packed in one (`a << 32 | b`).
pub(crate) type PackedMap<V> = HashMap<i64, V, BuildHasherDefault<PairHasher>>;

/// A set of two numbers packed in one.
pub(crate) type PackedSet = HashSet<i64, BuildHasherDefault<PairHasher>>;

/// A set of rids or vids.
pub(crate) type IdSet = HashSet<i64, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that differ only in their high half (pairs packed as `a << 32 | b`, `b` fixed)
    /// land in different buckets: the low bits of their hashes differ.
    #[test]
    fn packed_pairs_spread_over_the_low_bits() {
        let low_bits = |key: i64| {
            let mut h = PairHasher::default();
            h.write_i64(key);
            h.finish() & 0xffff
        };
        let distinct: HashSet<u64> = (0..1_000i64).map(|a| low_bits((a << 32) | 7)).collect();
        assert!(distinct.len() > 950, "{} distinct buckets of 1000 keys", distinct.len());
        let rids: HashSet<u64> = (0..1_000i64).map(low_bits).collect();
        assert!(rids.len() > 950, "{} distinct buckets of 1000 rids", rids.len());
    }
}
