//! Where "now" comes from: the one place memstr reads the system clock.
//!
//! Two notions of now exist on purpose. [`Clock`] is the store's: decay, a memory's own
//! times, evaluation at a fixed moment (`--now`). [`system_secs`] is the machine's: an
//! event's signed `created_at`, the future-date quarantine, relay checkpoints and
//! backoffs, which a clock set to another time must never decide (docs/sync.md, clocks).

use std::sync::atomic::{AtomicU64, Ordering};

/// Where "now" comes from: the system clock, or a fixed time for imports, tests and
/// benchmarks that must evaluate decay at a chosen moment.
pub trait Clock: Send + Sync + 'static {
    /// Float Unix seconds.
    fn now(&self) -> f64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        system_float()
    }
}

/// A clock that says what it was last set to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock reading `now`.
    pub fn new(now: f64) -> Self {
        ManualClock(AtomicU64::new(now.to_bits()))
    }
    /// Moves the clock.
    pub fn set(&self, now: f64) {
        self.0.store(now.to_bits(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::SeqCst))
    }
}

/// The system clock in whole seconds: signing, quarantine, checkpoints and backoffs.
pub(crate) fn system_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The system clock in float seconds.
pub fn system_float() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}
