//! The tools of retroactive importance and retrieval-induced forgetting: `important`,
//! `clusters`, `strength` (docs/agents.md). A router of their own,
//! added to the server's in [`MemoryServer::new`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::render::{self, quoted, DATA_NOTICE};
use super::reply::*;
use super::tools::{MemoryServer, DEFAULT_RESULT_TOKENS};

/// A persona memory.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PersonaKeyArgs {
    /// The persona memory (key or domain/facet/key).
    pub key: String,
}

/// A token budget.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClustersArgs {
    /// Token budget (default 2000, at most 8000).
    pub max_tokens: Option<u32>,
}

#[tool_router(router = strength_router, vis = "pub(super)")]
impl MemoryServer {
    #[tool(
        name = "important",
        description = "Flag a persona memory as important (\"this matters\"). Memories written up to 9 hours before \
and 2 hours after it are captured with a probability that falls with their distance in time, and then fade slower; \
the reply lists them. Use it when something turns out to matter, so its context is kept too. Does nothing when the \
store's retroactive-importance behaviour is off (the reply says so)."
    )]
    async fn mark_important(&self, Parameters(a): Parameters<PersonaKeyArgs>) -> ToolResult {
        let key = a.key.trim();
        if key.is_empty() {
            return fail("key is empty: give the memory's key or domain/facet/key");
        }
        match self.store.mark_important(key).await {
            Ok(Some(c)) => {
                let captured: Vec<String> = c.event.captured.iter().map(|a| quoted(a)).collect();
                let list = if captured.is_empty() { "none".to_string() } else { captured.join(", ") };
                ok(
                    format!(
                        "flagged {} as important (event {}): {} memories captured: {list}",
                        quoted(&c.source),
                        c.event.id,
                        captured.len()
                    ),
                    json!({"enabled": true, "cluster": c}),
                )
            }
            Ok(None) => ok(
                "retroactive importance is off in this store: nothing was captured (memstr --behaviour \
retroactive-importance=on turns it on)"
                    .into(),
                json!({"enabled": false}),
            ),
            Err(e) => store_error(e),
        }
    }

    #[tool(
        name = "clusters",
        description = "List importance events (flags, pins, novelty spikes, repeated access), the latest first, \
each with the memory that set it off and the memories it captured."
    )]
    async fn importance_clusters(&self, Parameters(a): Parameters<ClustersArgs>) -> ToolResult {
        let max_tokens = match budget(a.max_tokens, DEFAULT_RESULT_TOKENS) {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        match self.store.importance_clusters().await {
            Ok(clusters) => {
                let mut v = json!({ "clusters": clusters });
                let omitted = render::fit_report(&mut v, max_tokens);
                if let Some(o) = v.as_object_mut() {
                    o.insert("omitted".into(), json!(omitted));
                }
                let cut = if omitted > 0 {
                    format!("\n({omitted} events left out by the token budget)")
                } else {
                    String::new()
                };
                ok(format!("{DATA_NOTICE}\nImportance events: {v}{cut}"), v)
            }
            Err(e) => store_error(e),
        }
    }

    #[tool(
        name = "strength",
        description = "How strong a persona memory is now: its state and relevance, the importance that slows \
its decay and the importance events that captured it, and how many recalls it lost to a near duplicate \
(retrieval-induced forgetting, bounded)."
    )]
    async fn memory_strength(&self, Parameters(a): Parameters<PersonaKeyArgs>) -> ToolResult {
        match self.store.memory_strength(a.key.trim()).await {
            Ok(s) => {
                let v = serde_json::to_value(&s).unwrap_or(Value::Null);
                let importance = s.importance.map_or("none".into(), |i| format!("{i:.3}"));
                ok(
                    format!(
                        "{} is {} (relevance {:.3}); importance {importance}, captured by {} events; {} recalls lost \
(relevance factor {:.3})",
                        quoted(&s.address),
                        s.state,
                        s.relevance,
                        s.captured_by.len(),
                        s.losses,
                        s.competition_factor
                    ),
                    v,
                )
            }
            Err(e) => store_error(e),
        }
    }
}
