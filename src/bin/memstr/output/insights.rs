//! Dream insights in human output (`memstr introspect`, `memstr consolidate`): one line
//! each, then the memories it rests on; every stored text escaped.

use memstr::Insight;

use super::{l, Out};

impl Out {
    /// The insights under a heading, nothing when there are none (human output only: the
    /// JSON of a report carries them).
    pub fn insights(&self, insights: &[Insight]) {
        if self.json || insights.is_empty() {
            return;
        }
        outln!("insights:");
        for i in insights {
            outln!("  [{} {:.2}] {}", i.kind, i.strength, l(&i.text));
            for e in &i.evidence {
                outln!("    rests on {}", l(e));
            }
        }
    }
}
