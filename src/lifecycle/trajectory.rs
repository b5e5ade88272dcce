//! Where a new trajectory starts within an episode (seeds 000, 004): at an observation
//! that drifts away from the one before it.
//!
//! With the model, drift is the cosine of the two observations' embeddings falling below
//! [`TRAJECTORY_COSINE`]; without it, their word similarity
//! ([`super::gate::lexical_similarity`]: shared content words over the geometric mean of
//! their counts) falling below [`TRAJECTORY_OVERLAP`]. Mnemosyne's 0.75 was set for
//! another model; both thresholds here were chosen for the model memstr ships
//! (all-MiniLM-L6-v2, int8) on the labelled sequences of
//! `examples/data/trajectories.json`, on the even-numbered half, and checked on the
//! other half (`cargo run --example trajectories`; docs/lifecycle.md, "Episodes and
//! trajectories").

/// With the model: a cosine below this between consecutive observations starts a new
/// trajectory.
pub const TRAJECTORY_COSINE: f64 = 0.12;

/// Without the model: a word similarity below this starts a new trajectory.
pub const TRAJECTORY_OVERLAP: f64 = 0.05;

/// How alike two observations are, and by which measure.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Drift {
    /// The cosine of their embeddings.
    Cosine(f64),
    /// Their word similarity (no model).
    Words(f64),
}

impl Drift {
    /// Measures `a` against `b`: by cosine when both vectors are given, by words otherwise.
    pub fn measure(a: &str, b: &str, vectors: Option<(&[f32], &[f32])>) -> Self {
        match vectors {
            Some((va, vb)) if !va.is_empty() && va.len() == vb.len() => Drift::Cosine(crate::index::dot(va, vb)),
            _ => Drift::Words(super::gate::lexical_similarity(a, b)),
        }
    }

    /// The similarity measured.
    pub fn similarity(self) -> f64 {
        match self {
            Drift::Cosine(s) | Drift::Words(s) => s,
        }
    }

    /// Whether the later observation starts a new trajectory.
    pub fn starts_new(self) -> bool {
        match self {
            Drift::Cosine(s) => s < TRAJECTORY_COSINE,
            Drift::Words(s) => s < TRAJECTORY_OVERLAP,
        }
    }
}

/// Each observation's trajectory, from the similarities of consecutive observations
/// (`similarities[i]`: observation `i + 1` against observation `i`) and a threshold.
pub fn split(similarities: &[f64], threshold: f64) -> Vec<u32> {
    let mut out = vec![0];
    for s in similarities {
        let last = *out.last().expect("starts with one");
        out.push(if *s < threshold { last + 1 } else { last });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_below_the_threshold_starts_a_trajectory() {
        assert_eq!(split(&[0.9, 0.1, 0.8, 0.05], 0.3), vec![0, 0, 1, 1, 2]);
        assert!(Drift::Cosine(TRAJECTORY_COSINE - 0.01).starts_new());
        assert!(!Drift::Cosine(TRAJECTORY_COSINE).starts_new());
    }

    #[test]
    fn without_vectors_words_decide() {
        let same = Drift::measure(
            "The staging deploy of billing failed on the migration.",
            "Redeployed billing to staging with a longer migration timeout.",
            None,
        );
        assert!(matches!(same, Drift::Words(_)));
        assert!(!same.starts_new(), "{same:?}");
        let other =
            Drift::measure("Redeployed billing to staging.", "Booked a table for lunch with Priya on Friday.", None);
        assert!(other.starts_new(), "{other:?}");
    }
}
