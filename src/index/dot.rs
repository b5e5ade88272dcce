//! The int8 dot product every vector comparison comes down to (the HNSW walk, cosines of
//! candidates, consolidation's near neighbours), compiled for the widest vector
//! instructions the CPU running it has.
//!
//! The crate is built for the architecture's baseline (SSE2 on x86-64), so one binary runs
//! anywhere; the same loop compiled for AVX2 or AVX-512BW runs several times faster
//! (`cargo run --release --example dot_bench`; figures in docs/benchmarks.md). The variant
//! is chosen once per process from what the CPU reports; every variant returns exactly the
//! portable loop's sum (integer arithmetic: no rounding to reorder).

use std::sync::OnceLock;

/// A dot product of two int8 vectors of the same length.
pub type DotFn = fn(&[i8], &[i8]) -> i32;

/// Integer dot product of two int8 vectors. Products fit in `i16` (components are clamped
/// to ±127), which lets the compiler use the widening multiply-add instructions.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    dot()(a, b)
}

/// The dot product this CPU runs fastest. Loops that compare many points take it once.
#[inline]
pub fn dot() -> DotFn {
    chosen_variant().1
}

/// The name of the variant [`dot`] runs ("portable", "avx2", "avx512bw"), for reports.
pub fn chosen() -> &'static str {
    chosen_variant().0
}

fn chosen_variant() -> (&'static str, DotFn) {
    static CHOSEN: OnceLock<(&'static str, DotFn)> = OnceLock::new();
    *CHOSEN.get_or_init(|| variants().pop().unwrap_or(("portable", portable)))
}

/// The portable loop: what every variant compiles.
#[inline(always)]
fn portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| i32::from(i16::from(*x) * i16::from(*y))).sum()
}

/// The variants this CPU can run, by name, narrowest first (the portable loop first).
pub fn variants() -> Vec<(&'static str, DotFn)> {
    let mut out: Vec<(&'static str, DotFn)> = vec![("portable", portable)];
    #[cfg(target_arch = "x86_64")]
    wide::push(&mut out);
    out
}

#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{portable, DotFn};

    #[target_feature(enable = "avx2")]
    fn avx2(a: &[i8], b: &[i8]) -> i32 {
        portable(a, b)
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn avx512(a: &[i8], b: &[i8]) -> i32 {
        portable(a, b)
    }

    pub(super) fn push(out: &mut Vec<(&'static str, DotFn)>) {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this CPU has AVX2, checked just above.
            out.push(("avx2", |a, b| unsafe { avx2(a, b) }));
        }
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: this CPU has AVX-512F and AVX-512BW, checked just above.
            out.push(("avx512bw", |a, b| unsafe { avx512(a, b) }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic int8 vector within ±127 (splitmix64).
    fn vector(seed: u64, len: usize) -> Vec<i8> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (i16::from((z >> 56) as u8 % 255) - 127) as i8
            })
            .collect()
    }

    #[test]
    fn every_dot_product_the_cpu_offers_returns_the_portable_sum() {
        let offered = variants();
        assert_eq!(offered[0].0, "portable");
        // Lengths around every vector width, and the model's 384.
        for len in [0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 383, 384, 385, 1024] {
            for seed in 0..8 {
                let (a, b) = (vector(seed, len), vector(seed + 100, len));
                let want: i32 = a.iter().zip(&b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
                for (name, f) in &offered {
                    assert_eq!(f(&a, &b), want, "{name}, length {len}, seed {seed}");
                }
            }
            // The extremes: every product at ±127².
            let (hi, lo) = (vec![127i8; len], vec![-127i8; len]);
            for (name, f) in &offered {
                assert_eq!(f(&hi, &hi), 16_129 * len as i32, "{name}, all 127, length {len}");
                assert_eq!(f(&hi, &lo), -16_129 * len as i32, "{name}, 127 by -127, length {len}");
            }
        }
        assert_eq!(chosen(), offered.last().unwrap().0, "the widest variant is chosen");
    }
}
