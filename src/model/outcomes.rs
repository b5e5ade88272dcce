//! Counted verdicts on a memory: a procedure's outcomes (success or failure, seed 000's
//! action → outcome) and the agent's feedback (useful or not). Each is a pair of
//! grow-only per-device counters, so two devices' concurrent counts merge without loss
//! (the per-device maximum, as access counts; docs/sync.md), and a Beta posterior over
//! them (docs/lifecycle.md, "Procedures and feedback").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The prior of every posterior: Beta(1, 1), uniform, so a memory with no verdict has mean
/// 0.5 and one verdict moves it to 2/3 or 1/3, never to certainty.
pub const PRIOR: (f64, f64) = (1.0, 1.0);

/// Yes and no verdicts, per device (grow-only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tally {
    /// Successes (outcomes) or "useful" votes (feedback), per device id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub yes: BTreeMap<String, u64>,
    /// Failures or "not useful" votes, per device id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub no: BTreeMap<String, u64>,
}

impl Tally {
    /// No verdict yet.
    pub fn is_empty(&self) -> bool {
        self.yes.values().all(|n| *n == 0) && self.no.values().all(|n| *n == 0)
    }

    /// Counts one verdict made on `device`.
    pub fn count(&mut self, device: &str, yes: bool) {
        let side = if yes { &mut self.yes } else { &mut self.no };
        let n = side.entry(device.to_string()).or_default();
        *n = n.saturating_add(1);
    }

    /// Both devices' counts: the per-device maximum, so a count is never lost nor counted
    /// twice, whatever order versions arrive in (commutative, idempotent).
    pub fn merged(&self, other: &Tally) -> Tally {
        let max = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>| {
            let mut out = a.clone();
            for (k, v) in b {
                let e = out.entry(k.clone()).or_default();
                *e = (*e).max(*v);
            }
            out
        };
        Tally { yes: max(&self.yes, &other.yes), no: max(&self.no, &other.no) }
    }

    /// The posterior over the counts.
    pub fn posterior(&self) -> Reliability {
        let sum = |m: &BTreeMap<String, u64>| m.values().fold(0u64, |a, b| a.saturating_add(*b));
        Reliability::new(sum(&self.yes), sum(&self.no))
    }
}

/// A Beta posterior over yes/no verdicts: `Beta(PRIOR.0 + yes, PRIOR.1 + no)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Reliability {
    /// Successes (or useful votes).
    pub successes: u64,
    /// Failures (or not-useful votes).
    pub failures: u64,
    /// `α = 1 + successes`.
    pub alpha: f64,
    /// `β = 1 + failures`.
    pub beta: f64,
    /// The posterior mean `α / (α + β)`: 0.5 with no verdict.
    pub mean: f64,
}

impl Reliability {
    /// The posterior after `successes` and `failures`.
    pub fn new(successes: u64, failures: u64) -> Self {
        let (alpha, beta) = (PRIOR.0 + successes as f64, PRIOR.1 + failures as f64);
        Reliability { successes, failures, alpha, beta, mean: alpha / (alpha + beta) }
    }

    /// How many verdicts it rests on.
    pub fn outcomes(&self) -> u64 {
        self.successes.saturating_add(self.failures)
    }

    /// The mean centred on the prior's, in (-1, 1): `2·mean − 1`. Zero with no verdict,
    /// so a ranking term built on it is neutral where nothing was said.
    pub fn centred(&self) -> f64 {
        2.0 * self.mean - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beta_updates_from_the_uniform_prior() {
        let r = Tally::default().posterior();
        assert_eq!((r.alpha, r.beta, r.mean, r.outcomes()), (1.0, 1.0, 0.5, 0));
        assert_eq!(r.centred(), 0.0);
        let mut t = Tally::default();
        t.count("a", true);
        assert!((t.posterior().mean - 2.0 / 3.0).abs() < 1e-12);
        for _ in 0..3 {
            t.count("a", false);
        }
        let r = t.posterior();
        assert_eq!((r.successes, r.failures, r.alpha, r.beta), (1, 3, 2.0, 4.0));
        assert!((r.mean - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn concurrent_counts_merge_without_loss_in_any_order() {
        let mut base = Tally::default();
        base.count("a", true);
        let (mut x, mut y) = (base.clone(), base.clone());
        x.count("a", true);
        x.count("a", false);
        y.count("b", false);
        y.count("b", true);
        let m = x.merged(&y);
        assert_eq!(m, y.merged(&x), "commutative");
        assert_eq!(m.merged(&x), m, "idempotent");
        let r = m.posterior();
        assert_eq!((r.successes, r.failures), (3, 2), "every count on either device, none twice");
    }
}
