//! `memstr feedback`, `memstr procedure outcome`, `memstr goal status`: what the agent
//! teaches memory (docs/lifecycle.md, "Procedures and feedback").

use anyhow::Result;
use clap::Subcommand;
use memstr::lifecycle::{ActionOutcome, Feedback};
use memstr::model::{GoalStatus, Reliability};
use memstr::MemoryStore;
use serde_json::json;

use crate::args::Command;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub(crate) enum ProcedureCommand {
    /// Record what following a procedure led to: success or failure. Prints its
    /// reliability after (a Beta(1,1) posterior's mean over every outcome).
    Outcome {
        /// The procedure (key or domain/facet/key; its type is procedure, or its facet
        /// procedures).
        reference: String,
        /// success or failure.
        outcome: ActionOutcome,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum GoalCommand {
    /// Set a goal's status: open, done or dropped.
    Status {
        /// The goal (key or domain/facet/key).
        reference: String,
        /// open, done or dropped.
        status: GoalStatus,
    },
}

/// How a posterior reads.
fn posterior(r: &Reliability) -> String {
    format!("{:.2} over {} ({} yes, {} no)", r.mean, r.outcomes(), r.successes, r.failures)
}

fn report(out: &Out, what: &str, r: &Reliability) {
    if out.json {
        out.object(&json!({"mean": r.mean, "outcomes": r.outcomes(), "successes": r.successes,
                          "failures": r.failures, "alpha": r.alpha, "beta": r.beta}));
    } else {
        out.done(&format!("{what}: {}", posterior(r)));
    }
}

/// Runs one of this file's commands; false when `cmd` is none of them.
pub(crate) async fn run(cmd: &Command, store: &MemoryStore, out: &Out) -> Result<bool> {
    match cmd {
        Command::Feedback { reference, verdict } => {
            let r = store.feedback(reference, *verdict == Feedback::Useful).await?;
            report(out, &format!("feedback on {reference}"), &r);
        }
        Command::Procedure(ProcedureCommand::Outcome { reference, outcome }) => {
            let r = store.record_outcome(reference, *outcome == ActionOutcome::Success).await?;
            report(out, &format!("reliability of {reference}"), &r);
        }
        Command::Goal(GoalCommand::Status { reference, status }) => {
            let m = store.set_goal_status(reference, *status).await?;
            if out.json {
                out.object(&json!({"address": m.address(), "goal_status": status.as_str()}));
            } else {
                out.done(&format!("goal {} is {status}", m.address()));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}
