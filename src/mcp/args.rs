//! The tools' arguments. Doc comments are the schemas' descriptions, read by the model.

use rmcp::schemars;
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// What to remember: one self-contained statement ("Alice prefers dark mode in every editor").
    pub content: String,
    /// A short name for it (letters, digits, dashes). Default: made from the first words of the content.
    pub key: Option<String>,
    /// Top-level area, e.g. people, projects, preferences, world. Default: notes.
    pub domain: Option<String>,
    /// Kind of memory within the domain, e.g. facts, decisions, beliefs, procedures. Default: general.
    pub facet: Option<String>,
    /// Topic words that help find it later.
    pub themes: Option<Vec<String>>,
    /// 0 to 1: how much it matters; important memories fade more slowly.
    pub importance: Option<f64>,
    /// When it was true or happened, if not now: ISO 8601 (2026-05-01, 2026-05-01T09:30:00Z), a span back from now (3d, 2w), or Unix seconds. Dates the memory; use it when importing history.
    pub at: Option<String>,
    /// What kind of memory it is: fact, preference, decision, procedure (a how-to or a lesson; it learns its reliability from the outcome tool), goal, event or milestone. Without a facet it also picks the facet (procedure: procedures, decision: decisions, ...). Default: the facet's type.
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
    /// For a goal: open (default), done or dropped. Given alone it makes the memory a goal. Change it later with the goal tool.
    pub goal_status: Option<String>,
    /// The context it was learned in: a project, a tool (default: the open episode's, if any). A search from the same context ranks it higher.
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyArgs {
    /// The memory: its address as returned by other tools (domain/facet/key, kv/<key>, journal/<time>) or a bare key.
    pub key: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for, in plain words or as a question. A time in it ("last week", "in August 2026", "yesterday", "on Tuesday") keeps the search to memories dated then (UTC). Leave it out, with since/until, to list everything in that range.
    #[serde(default)]
    pub query: Option<String>,
    /// Most results (1 to 50, default 10).
    pub limit: Option<u32>,
    /// Only persona memories of this domain.
    pub domain: Option<String>,
    /// Only these kinds: persona (structured memories), memory (flat keys), journal.
    pub kinds: Option<Vec<String>>,
    /// Only records dated at or after this time (their own time, the `at` they were given): ISO 8601 (2026-05-01, 2026-05-01T09:30:00Z), a span back from now (12h, 3d, 2w), or Unix seconds. Wins over a time named in the query.
    pub since: Option<String>,
    /// Only records dated before this time (same forms as since).
    pub until: Option<String>,
    /// Token budget of the result (default 2000, at most 8000).
    pub max_tokens: Option<u32>,
    /// Show how each signal (meaning, words, recency, ...) contributed to each score.
    pub explain: Option<bool>,
    /// Drop hits weaker than this strength (0 to 1; each hit shows its strength). Default: the calibrated cutoff.
    pub min_strength: Option<f64>,
    /// Also return superseded memories (history), each after the memory that replaced it. Default false: only the current truth.
    pub history: Option<bool>,
    /// Up to 4 other wordings of your question (synonyms, the words the memory likely uses). Use them when a first search missed or the question is vague: each is searched and the results fused.
    pub phrasings: Option<Vec<String>>,
    /// One sentence the memory you want might read like, written as a guess ("Bob's birthday is on ..."). Searched and fused like a phrasing; it helps when the question shares no word with the answer.
    pub hypothetical: Option<String>,
    /// Only persona memories of these types: fact, preference, decision, procedure, goal, event, milestone.
    #[serde(rename = "type")]
    pub types: Option<Vec<String>>,
    /// Only persona memories in these tiers: working (new, rarely recalled), episodic (recalled a few times), semantic (proved useful over time, pinned or consolidated).
    #[serde(rename = "tier")]
    pub tiers: Option<Vec<String>>,
    /// The context you search from: a project, a tool, episode:<id> (default: the open episode's, if any). Memories written in it rank a little higher; nothing is filtered out.
    pub context: Option<String>,
    /// Bring each hit's episode: its title and outcome, its trajectory's summary and the observations beside it.
    pub with_context: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackArgs {
    /// The persona memory (its address domain/facet/key as search returned it, or a bare key).
    pub key: String,
    /// true: it helped; false: it did not.
    pub useful: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutcomeArgs {
    /// The procedure (its address domain/facet/key, or a bare key).
    pub key: String,
    /// true: following it worked; false: it failed.
    pub success: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalStatusArgs {
    /// The goal (its address domain/facet/key, or a bare key).
    pub key: String,
    /// open, done or dropped.
    pub status: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JournalArgs {
    /// What happened, in a sentence or a short paragraph.
    pub content: String,
    /// When it was true or happened, if not now: ISO 8601 (2026-05-01, 2026-05-01T09:30:00Z), a span back from now (3d, 2w), or Unix seconds. Dates the memory; use it when importing history.
    pub at: Option<String>,
    /// The context it was written in: a project, a tool (default: the open episode's, if any).
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpisodeStartArgs {
    /// What the episode (a task, a session) is about, or its goal, in a short line.
    pub title: String,
    /// The context it runs in: a project, a tool.
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserveArgs {
    /// What you observed or did, in a sentence or two.
    pub content: String,
    /// The episode's id (from episode_start). Default: the open episode started last.
    pub episode: Option<String>,
    /// The action this observation reports, if any ("ran the migration").
    pub action: Option<String>,
    /// How the action turned out: success, failure, or a few words.
    pub outcome: Option<String>,
    /// The context it was written in. Default: the episode's.
    pub context: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpisodeEndArgs {
    /// The episode's id. Default: the open episode started last.
    pub episode: Option<String>,
    /// How it ended: success, failure, or a few words.
    pub outcome: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    /// Token budget (default 500, at most 8000).
    pub max_tokens: Option<u32>,
    /// Only this domain.
    pub domain: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    /// How many entries, newest first (1 to 100, default 10).
    pub limit: Option<u32>,
    /// Token budget of the result (default 2000, at most 8000).
    pub max_tokens: Option<u32>,
    /// Only entries dated at or after this time (the forms of search's since): every entry in the range, no cutoff.
    pub since: Option<String>,
    /// Only entries dated before this time (same forms).
    pub until: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntrospectArgs {
    /// Token budget of the report (default 2000, at most 8000): the longest lists are cut first, with the count left out.
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactSetArgs {
    /// Who or what the fact is about, e.g. alice, project-x.
    pub subject: String,
    /// Which property, e.g. employer, city, version.
    pub attribute: String,
    /// The current value; the previous one moves to the history.
    pub value: String,
    /// Domain the fact lives in. Default: notes.
    pub domain: Option<String>,
    /// When it was true or happened, if not now: ISO 8601 (2026-05-01, 2026-05-01T09:30:00Z), a span back from now (3d, 2w), or Unix seconds. Dates the memory; use it when importing history.
    pub at: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FactArgs {
    /// Who or what the fact is about.
    pub subject: String,
    /// Which property.
    pub attribute: String,
    /// Domain the fact lives in. Default: notes.
    pub domain: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectArgs {
    /// One persona memory (key or domain/facet/key).
    pub a: String,
    /// The other.
    pub b: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContradictArgs {
    /// The memory that is no longer true (key or domain/facet/key).
    pub old: String,
    /// The memory that replaces it.
    pub new: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinArgs {
    /// The persona memory (key or domain/facet/key).
    pub key: String,
    /// true to pin (default), false to unpin.
    pub pinned: Option<bool>,
}
