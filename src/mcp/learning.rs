//! The tools by which the agent teaches memory what worked: `feedback` on a memory,
//! `outcome` of a procedure, `goal` (a goal's status) (docs/agents.md). A router of
//! their own, combined with the others in [`MemoryServer::new`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::args::{FeedbackArgs, GoalStatusArgs, OutcomeArgs};
use super::render::quoted;
use super::reply::{fail, ok, store_error, ToolResult};
use super::tools::MemoryServer;
use crate::model::{GoalStatus, Reliability};

/// How a posterior reads: "0.83 over 10 (9 yes, 1 no)".
fn posterior(r: &Reliability) -> String {
    format!("{:.2} over {} ({} yes, {} no)", r.mean, r.outcomes(), r.successes, r.failures)
}

fn posterior_json(r: &Reliability) -> serde_json::Value {
    json!({"mean": r.mean, "outcomes": r.outcomes(), "successes": r.successes, "failures": r.failures,
           "alpha": r.alpha, "beta": r.beta})
}

#[tool_router(router = learning_router, vis = "pub(super)")]
impl MemoryServer {
    #[tool(description = "Tell memory whether a memory a search or recall gave you was useful (useful: true) or not \
(useful: false). Votes nudge its future ranking a little, never burying or crowning it on one vote. Use it when a \
memory clearly helped, or clearly misled you.")]
    async fn feedback(&self, Parameters(a): Parameters<FeedbackArgs>) -> ToolResult {
        match self.store.feedback(a.key.trim(), a.useful).await {
            Ok(r) => ok(
                format!(
                    "noted: {} was {}; its feedback is {}",
                    quoted(a.key.trim()),
                    if a.useful { "useful" } else { "not useful" },
                    posterior(&r)
                ),
                json!({"key": a.key.trim(), "useful": a.useful, "feedback": posterior_json(&r)}),
            ),
            Err(e) => store_error(e),
        }
    }

    #[tool(description = "Record what happened when you followed a procedure (a persona memory of type procedure, \
e.g. in the procedures facet): success true or false. Its reliability (a Beta posterior's mean over every outcome) \
shows in search, and \"how do I ...\" searches can rank reliable procedures first.")]
    async fn outcome(&self, Parameters(a): Parameters<OutcomeArgs>) -> ToolResult {
        match self.store.record_outcome(a.key.trim(), a.success).await {
            Ok(r) => ok(
                format!(
                    "recorded a {} of {}; reliability {}",
                    if a.success { "success" } else { "failure" },
                    quoted(a.key.trim()),
                    posterior(&r)
                ),
                json!({"key": a.key.trim(), "success": a.success, "reliability": posterior_json(&r)}),
            ),
            Err(e) => store_error(e),
        }
    }

    #[tool(description = "Set a goal's status: open, done or dropped (a persona memory of type goal). introspect \
lists the open goals.")]
    async fn goal(&self, Parameters(a): Parameters<GoalStatusArgs>) -> ToolResult {
        let status: GoalStatus = match a.status.trim().to_ascii_lowercase().parse() {
            Ok(s) => s,
            Err(_) => return fail(format!("unknown status {}: use open, done or dropped", quoted(&a.status))),
        };
        match self.store.set_goal_status(a.key.trim(), status).await {
            Ok(m) => ok(
                format!("goal {} is {status}", quoted(&m.address())),
                json!({"address": m.address(), "goal_status": status.as_str()}),
            ),
            Err(e) => store_error(e),
        }
    }
}
