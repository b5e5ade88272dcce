//! A persona memory as the CLI prints it in JSON, and the type and learned reliability
//! shown beside it.

use memstr::{MemoryState, PersonaMemory};
use serde_json::{json, Value};

/// A persona hit's type and what was learned of it (the server's own words).
pub(super) fn typed(t: &memstr::search::Typed) -> String {
    let mut out = format!("{} ({} tier)", t.memory_type, t.tier);
    if let Some(g) = t.goal_status {
        out.push_str(&format!(", goal {g}"));
    }
    if let Some(r) = t.reliability.filter(|r| r.outcomes() > 0) {
        out.push_str(&format!(", reliability {:.2} over {} outcomes", r.mean, r.outcomes()));
    }
    if let Some(f) = t.feedback {
        out.push_str(&format!(", feedback {:.2} over {} votes", f.mean, f.outcomes()));
    }
    out
}

/// Every stored field, with `state` and `current_relevance` as they stand at `now`
/// (the stored state is kept as `stored_state`; memstr's merge bookkeeping is left out).
pub(super) fn persona_json(m: &PersonaMemory, live: (f64, MemoryState)) -> Value {
    let mut v = serde_json::to_value(m).expect("a memory always serialises");
    let obj = v.as_object_mut().expect("an object");
    obj.remove("sync");
    obj.insert("stored_state".into(), obj["state"].clone());
    obj.insert("state".into(), live.1.as_str().into());
    obj.insert("current_relevance".into(), live.0.into());
    if let Some(at) = m.sync.life.archived_at {
        obj.insert("archived_at".into(), at.into());
    }
    if m.sync.life.pinned {
        obj.insert("pinned".into(), true.into());
    }
    // memstr's type and what was learned of the memory, when its writer set a type or
    // something was learned (a plain memory's fields stay the client's; "type" is the
    // client's record type in its own dicts, so the memory's is `memory_type`).
    let t = memstr::search::Typed::of(m);
    if told(m, &t) {
        if let Value::Object(t) = json!(t) {
            for (k, v) in t {
                obj.insert(if k == "type" { "memory_type".into() } else { k }, v);
            }
        }
    }
    if let Some(c) = &m.sync.life.context {
        obj.insert("context".into(), c.as_str().into());
    }
    v
}

/// Whether a memory's type is worth showing: set by its writer, or something learned.
pub(super) fn told(m: &PersonaMemory, t: &memstr::search::Typed) -> bool {
    m.sync.life.kind.is_some() || t.feedback.is_some() || t.reliability.is_some_and(|r| r.outcomes() > 0)
}
