//! Episodes and a hit's episode context, as the CLI shows them.

use memstr::display;
use memstr::search::episode_context::EpisodeContext;
use memstr::Episode;
use serde_json::{json, Value};

use super::{l, print_json, Out};

impl Out {
    /// A JSON document with `--json`, else the text `human` makes (already escaped).
    pub fn value_or_json(&self, v: &Value, human: impl FnOnce() -> String) {
        if self.json {
            print_json(v);
        } else {
            let text = human();
            if !text.is_empty() {
                outln!("{text}");
            }
        }
    }

    /// An episode: as JSON, or the line `human` makes.
    pub fn episode(&self, e: &Episode, human: impl FnOnce() -> String) {
        self.value_or_json(&json!(e), || display::line(&human()).into_owned());
    }
}

/// The lines under a search hit that bring its episode (`--with-context`), escaped.
pub(super) fn hit_context(c: &EpisodeContext) -> Vec<String> {
    let state = match (&c.ended_at, &c.outcome) {
        (None, _) => "open".to_string(),
        (Some(_), Some(o)) => format!("ended: {o}"),
        (Some(_), None) => "ended".to_string(),
    };
    let trajectory = c.trajectory.map(|t| format!(", trajectory {t}")).unwrap_or_default();
    let mut lines = vec![format!("    episode {} ({}{trajectory}): {}", l(&c.episode), l(&state), l(&c.title))];
    if let Some(s) = &c.summary {
        lines.push(format!("    summary: {}", l(s)));
    }
    for n in &c.neighbours {
        lines.push(format!("    beside: {}", l(n)));
    }
    lines
}
