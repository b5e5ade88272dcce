//! Human-readable output by default, one JSON document per command with `--json`.

mod relays;

pub use relays::{progress, watch_events};

use std::path::Path;

use std::io::IsTerminal;

use memstr::display;
use memstr::lifecycle::compress::Compressed;
use memstr::lifecycle::gate::GateDecision;
use memstr::{
    ConsolidationReport, DTagMode, FactVersion, GraphNeighbour, Identity, ImportReport, Ingested, IntrospectionReport,
    JournalEntry, Memory, MemoryStore, PersonaHit, PersonaMemory, PersonaStats, PruneReport, StoreStats,
};
use serde_json::{json, Value};

pub struct Out {
    pub json: bool,
}

mod capture;
pub use capture::{capture, emit, replay, Chunk};

macro_rules! outln {
    ($($t:tt)*) => { $crate::output::emit(false, format!($($t)*)) };
}
macro_rules! errln {
    ($($t:tt)*) => { $crate::output::emit(true, format!($($t)*)) };
}

// After the macros, which it uses.
mod imports;
mod insights;
mod persona;
pub use imports::{embed_progress, import_progress, memory_import_progress, MemoryImport};
use persona::{persona_json, told, typed};

fn print_json(v: &Value) {
    let text = serde_json::to_string_pretty(v).expect("values always serialise");
    outln!("{}", display::json(&text));
}

/// Stored or relay-supplied text on one line of output, escaped (src/display.rs).
fn l(text: &str) -> std::borrow::Cow<'_, str> {
    display::line(text)
}

fn time(ts: f64) -> String {
    memstr::search::query::utc_string(ts)
}

impl Out {
    pub fn value(&self, v: &str) {
        if self.json {
            print_json(&json!({"value": v}));
        } else {
            outln!("{}", display::block(v));
        }
    }

    pub fn introspection(&self, r: &IntrospectionReport) {
        if self.json {
            print_json(&serde_json::to_value(r).expect("a report serialises"));
            return;
        }
        outln!(
            "{} memories: {} active, {} fading, {} forgotten, {} dissolved",
            r.total_memories,
            r.active,
            r.fading,
            r.forgotten,
            r.dissolved
        );
        let pairs = |name: &str, v: &[(String, String)], sep: &str| {
            if !v.is_empty() {
                outln!("{name}:");
                for (a, b) in v {
                    outln!("  {} {sep} {}", l(a), l(b));
                }
            }
        };
        let list = |name: &str, v: &[String]| {
            if !v.is_empty() {
                outln!("{name}: {}", l(&v.join(", ")));
            }
        };
        pairs("contradictions", &r.contradictions, "x");
        list("stale beliefs", &r.stale_beliefs);
        list("orphaned", &r.orphaned);
        list("overloaded facets", &r.overloaded_facets);
        pairs("suggested connections", &r.suggested_connections, "~");
        list("suggested revisions", &r.suggested_revisions);
        list("suggested compressions", &r.suggested_compressions);
        let counts = |name: &str, m: &std::collections::BTreeMap<String, u64>| {
            if !m.is_empty() {
                outln!("{name}: {}", l(&m.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")));
            }
        };
        counts("by type", &r.by_type);
        counts("by tier", &r.by_tier);
        list("open goals", &r.open_goals);
        self.insights(&r.insights);
    }

    pub fn prune(&self, r: &PruneReport) {
        if self.json {
            print_json(&json!({"count": r.count(), "transitions": r.transitions, "archived": r.archived,
                "deleted": r.deleted, "marked": r.marked}));
            return;
        }
        for (address, from, to) in &r.transitions {
            outln!("{}: {from} -> {to}", l(address));
        }
        for address in &r.archived {
            outln!("{}: archived (dissolved past the grace period; `memstr restore` brings it back)", l(address));
        }
        for address in &r.deleted {
            outln!("{}: deleted (dissolved past the grace period)", l(address));
        }
        outln!("{} changed", r.count());
    }

    pub fn compressed(&self, c: &Compressed) {
        if self.json {
            print_json(&json!({"text": c.text, "included": c.included, "covered": c.covered, "total": c.total,
                "omitted": c.omitted, "replaced": c.replaced, "estimated_tokens": c.estimated_tokens}));
        } else {
            outln!("{}", display::block(&c.text));
            outln!("{}", c.coverage());
        }
    }

    pub fn consolidation(&self, r: &ConsolidationReport) {
        if self.json {
            print_json(&serde_json::to_value(r).expect("a report serialises"));
            return;
        }
        outln!(
            "states changed {}, archived {}, deleted {}, promoted {}, linked {}, strengthened {}, decay days {}, edges pruned {}, edges {}",
            r.prune.transitions.len(),
            r.prune.archived.len(),
            r.prune.deleted.len(),
            r.promoted.len(),
            r.linked,
            r.strengthened,
            r.decay_days,
            r.edges_pruned,
            r.edges
        );
        let scope = if r.compared_all { "every memory" } else { "those changed since the last cycle" };
        outln!("compared {} persona memories ({scope})", r.compared);
        for p in &r.promoted {
            outln!("  promoted {}", l(p));
        }
        for k in &r.summarised {
            outln!("  summarised {}", l(k));
        }
        self.insights(&r.insights);
    }

    pub fn neighbours(&self, ns: &[GraphNeighbour]) {
        if self.json {
            let mut v = serde_json::to_value(ns).expect("neighbours serialise");
            for (item, n) in v.as_array_mut().expect("an array").iter_mut().zip(ns) {
                item["relation"] = relation(n).into();
            }
            print_json(&v);
            return;
        }
        for n in ns {
            outln!("{:.3}  {:<13}  {} ({})", n.weight, relation(n), l(&n.id), l(&n.node));
        }
    }

    pub fn fact_history(&self, vs: &[FactVersion]) {
        if self.json {
            print_json(&serde_json::to_value(vs).expect("versions serialise"));
            return;
        }
        for v in vs {
            match v.until {
                Some(u) => outln!("{} .. {}  {}", time(v.from), time(u), l(&v.value)),
                None => outln!("{} .. now                   {}", time(v.from), l(&v.value)),
            }
        }
    }

    pub fn ingested(&self, i: &Ingested) {
        let (decision, target, similarity, cue) = match &i.decision {
            GateDecision::Reinforce { key, similarity, .. } => {
                ("reinforce", Some(key.as_str()), Some(*similarity), None)
            }
            GateDecision::Update { key, similarity, .. } => ("update", Some(key.as_str()), Some(*similarity), None),
            GateDecision::Supersede { key, similarity, cue, .. } => {
                ("supersede", Some(key.as_str()), Some(*similarity), Some(cue.as_str()))
            }
            // Named, not superseded: `persona contradict OLD NEW` confirms it.
            GateDecision::MightCorrect { key, similarity, cue, .. } => {
                ("might_correct", Some(key.as_str()), Some(*similarity), Some(cue.as_str()))
            }
            GateDecision::Related { key, similarity, .. } => ("related", Some(key.as_str()), Some(*similarity), None),
            _ => ("create", None, None, None),
        };
        if self.json {
            print_json(&json!({"decision": decision, "existing": target, "similarity": similarity, "cue": cue,
                "address": i.address, "event_id": i.event_id}));
        } else {
            match target {
                Some(t) => outln!(
                    "{decision} {} (similarity {:.3}{}) -> {}",
                    l(t),
                    similarity.unwrap_or(0.0),
                    cue.map(|c| format!(", {}", l(c))).unwrap_or_default(),
                    l(&i.address)
                ),
                None => outln!("create {}", l(&i.address)),
            }
        }
    }

    /// `key_file` is `None` for a store whose key stays in MEMSTR_NSEC (`--no-key-file`).
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        &self,
        id: &Identity,
        key_file: Option<&Path>,
        store: &Path,
        mode: DTagMode,
        encrypted: bool,
        origin: &crate::keys::KeyOrigin,
        existed: bool,
    ) {
        use crate::keys::KeyOrigin;
        let key = match origin {
            KeyOrigin::New => "created key",
            KeyOrigin::Imported => "imported key",
            KeyOrigin::Env => "key from MEMSTR_NSEC",
            KeyOrigin::File => "key from the key file",
        };
        if self.json {
            print_json(&json!({"npub": id.npub(), "public_key": id.public_key().to_hex(),
                "key_file": key_file, "store": store, "d_tag_mode": mode.as_str(), "key": key,
                "store_existed": existed, "relays_see": mode_reveals(mode).trim(), "encrypted": encrypted}));
        } else {
            outln!(
                "{key} {}\n  key file: {}\n  store:    {}{}\n  d tags:   {}\n  at rest:  {}\n{}",
                id.npub(),
                key_file.map_or("none (the key is read from MEMSTR_NSEC)".into(), |f| f.display().to_string()),
                store.display(),
                if existed { " (already there for this key: nothing changed)" } else { "" },
                mode.as_str(),
                if encrypted { "encrypted" } else { "plain" },
                mode_reveals(mode)
            );
        }
    }

    /// `memstr key show`: the public key and where the secret is kept.
    pub fn key_shown(&self, id: &Identity, kept: &str) {
        if self.json {
            print_json(&json!({"npub": id.npub(), "public_key": id.public_key().to_hex(), "secret_kept": kept}));
        } else {
            outln!("{}\n  public key (hex): {}\n  secret: {kept}\n  `memstr key export` prints it for another device (encrypted)", id.npub(), id.public_key().to_hex());
        }
    }

    /// What reading the agent's relay list found and did.
    pub fn discovered(&self, r: &memstr::sync::ListReport) {
        if self.json {
            print_json(&json!({"asked": r.asked.iter().map(|(u, o)| match o {
                    Ok(n) => json!({"relay": u, "lists": n}),
                    Err(e) => json!({"relay": u, "error": e}),
                }).collect::<Vec<_>>(),
                "added": r.added, "dropped": r.dropped,
                "skipped": r.skipped.iter().map(|(u, w)| json!({"relay": u, "why": w})).collect::<Vec<_>>()}));
            return;
        }
        for (u, o) in &r.asked {
            match o {
                Ok(n) => errln!("{}: {n} relay list(s) read", l(u)),
                Err(e) => errln!("{}: {}", l(u), l(e)),
            }
        }
        for u in &r.added {
            outln!("added {} (from the agent's relay list)", l(u));
        }
        for u in &r.dropped {
            outln!("dropped {} (removed on another device)", l(u));
        }
        for (u, why) in &r.skipped {
            outln!("skipped {}: {}", l(u), l(why));
        }
    }

    /// The outcome of `memstr encrypt` / `memstr decrypt`.
    pub fn at_rest(&self, store: &Path, encrypted: bool, changed: bool) {
        if self.json {
            print_json(&json!({"store": store, "encrypted": encrypted, "changed": changed}));
        } else {
            let state = if encrypted { "encrypted" } else { "not encrypted" };
            match changed {
                true => outln!("{}: now {state} at rest", store.display()),
                false => outln!("{}: already {state} at rest", store.display()),
            }
        }
    }

    pub fn whoami(&self, id: &Identity) {
        if self.json {
            print_json(&json!({"npub": id.npub(), "public_key": id.public_key().to_hex()}));
        } else {
            outln!("{}", id.npub());
        }
    }

    /// A new memory: the address to name it by (`forget`, `archive`, ...) and its event id.
    pub fn written(&self, address: &str, id: &str) {
        if self.json {
            print_json(&json!({"address": address, "event_id": id}));
        } else {
            outln!("{}\t{id}", l(address));
        }
    }

    pub fn event_id(&self, id: &str) {
        if self.json {
            print_json(&json!({"event_id": id}));
        } else {
            outln!("{id}");
        }
    }

    /// A verb that names the memory it acted on (`archived people/facts/x`).
    pub fn address(&self, verb: &str, address: &str) {
        if self.json {
            print_json(&json!({ verb: address }));
        } else {
            outln!("{verb} {}", l(address));
        }
    }

    /// A JSON object, for `--json` (the caller prints text itself otherwise).
    pub fn object(&self, v: &Value) {
        print_json(v);
    }

    pub fn done(&self, what: &str) {
        if self.json {
            print_json(&json!({"ok": true}));
        } else {
            outln!("{}", l(what));
        }
    }

    pub fn not_found(&self, what: &str) {
        if self.json {
            print_json(&Value::Null);
        } else {
            errln!("not found: {}", l(what));
        }
    }

    pub fn memory(&self, m: &Memory) {
        if self.json {
            print_json(&json!(m));
        } else {
            outln!("{}", display::block(&m.value));
        }
    }

    pub fn memories(&self, ms: &[Memory]) {
        if self.json {
            print_json(&json!(ms));
        } else {
            for m in ms {
                outln!("{}\t{}", l(&m.key), l(&m.value));
            }
        }
    }

    pub fn journal(&self, entries: &[JournalEntry]) {
        if self.json {
            print_json(&json!(entries));
        } else {
            for e in entries {
                outln!("{}  {}", time(e.created_at), l(&e.content));
            }
        }
    }

    pub fn persona(&self, m: &PersonaMemory, store: &MemoryStore, now: f64) {
        let live = store.live(m, now);
        if self.json {
            print_json(&persona_json(m, live));
            return;
        }
        outln!("{}: {}", l(&m.address()), l(&m.value));
        outln!(
            "  state {} (relevance {:.3}){}, accessed {} times, last {}",
            live.1,
            live.0,
            if m.sync.life.pinned { ", pinned" } else { "" },
            m.access_count,
            time(m.last_accessed)
        );
        if let Some(at) = m.sync.life.archived_at {
            outln!("  archived {} (out of search and context; `memstr restore` brings it back)", time(at));
        }
        if !m.themes.is_empty() {
            outln!("  themes: {}", l(&m.themes.join(", ")));
        }
        if !m.connections.is_empty() {
            outln!("  connections: {}", l(&m.connections.join(", ")));
        }
        if !m.contradicts.is_empty() {
            outln!("  contradicts: {}", l(&m.contradicts.join(", ")));
        }
        if let Some(s) = m.superseded_by.as_deref().filter(|s| !s.is_empty()) {
            outln!("  superseded by: {}", l(s));
        }
        outln!(
            "  confidence {}, halflife {} days{}",
            m.confidence,
            m.halflife_days,
            if m.source.is_empty() { String::new() } else { format!(", source {}", l(&m.source)) }
        );
        // The type when the writer set one or something was learned (a plain memory's
        // lines stay the client's).
        let t = memstr::search::Typed::of(m);
        if told(m, &t) {
            outln!("  type {}", typed(&t));
        }
    }

    pub fn personas(&self, ms: &[PersonaMemory], store: &MemoryStore, now: f64) {
        if self.json {
            print_json(&Value::Array(ms.iter().map(|m| persona_json(m, store.live(m, now))).collect()));
        } else {
            for m in ms {
                let (relevance, state) = store.live(m, now);
                outln!("{}\t{}\t{:.3}\t{}", l(&m.address()), state, relevance, l(&m.value));
            }
        }
    }

    pub fn hits(&self, hits: &[PersonaHit]) {
        if self.json {
            print_json(&json!(hits));
        } else {
            for h in hits {
                let m = &h.memory;
                outln!("{:.3}\t{}\t{}", h.score, l(&m.address()), l(&m.value));
            }
        }
    }

    pub fn search(&self, outcome: &memstr::search::SearchOutcome, explain: bool) {
        let (hits, below) = (&outcome.hits, &outcome.below_cutoff);
        // How the range was read, and a listing's count, go to stderr: stdout keeps its shape.
        if let Some(r) = &outcome.range {
            let end = |t: Option<f64>, open: &str| t.map(time).unwrap_or_else(|| open.to_string());
            let words = r.expression.as_ref().map(|w| format!("{} ", l(&format!("{w:?}")))).unwrap_or_default();
            let dates = format!("{}dated {} to {} (UTC)", words, end(r.since, "the beginning"), end(r.until, "now"));
            match outcome.listed {
                Some(total) if total > hits.len() => {
                    errln!("{total} records {dates}; the newest {} shown (raise --limit for the rest)", hits.len())
                }
                Some(total) => errln!("{total} record(s) {dates}, newest first"),
                // How the query's words were read; the caller's own range needs no echo.
                None if r.expression.is_some() => errln!("searching records {dates}"),
                None => {}
            }
        }
        if self.json {
            print_json(&json!(hits));
            return;
        }
        if hits.is_empty() && outcome.listed.is_none() {
            // Below the search cutoff is not a match: say so, and why, rather than print nothing.
            match below.hits {
                0 => errln!("no memory matches: nothing stored matches its words or meaning"),
                n => errln!(
                    "no memory matches: {n} candidate(s) fell below the strength cutoff {:.2} (the best at {:.3}); --min-strength 0 shows them",
                    below.cutoff, below.best
                ),
            }
        }
        for h in hits {
            let kind = match &h.found {
                memstr::Found::Memory(_) => "memory",
                memstr::Found::Journal(_) => "journal",
                memstr::Found::Persona(_) => "persona",
                _ => "other",
            };
            // Where each hit stands (active, fading, dormant, archived, superseded, revived):
            // an agent must know a memory was asleep, or is history, before trusting it.
            let mut by = h.superseded_by.as_deref().map(|a| format!("\tsuperseded by {}", l(a))).unwrap_or_default();
            // What was learned of a persona memory, when anything was: a goal's status, a
            // procedure's reliability, the agent's feedback.
            if let Some(t) = h.typed.as_ref().filter(|t| {
                t.goal_status.is_some() || t.feedback.is_some() || t.reliability.is_some_and(|r| r.outcomes() > 0)
            }) {
                by.push_str(&format!("\t{}", typed(t)));
            }
            outln!(
                "{:.4}\t{:.3}\t{}\t{kind}\t{}\t{}{by}",
                h.score,
                h.strength,
                h.status,
                time(h.found.time()),
                l(&h.found.text())
            );
            for line in h.context.as_ref().map(episodes::hit_context).unwrap_or_default() {
                outln!("{line}");
            }
            if explain {
                for sig in &h.signals {
                    let rank = sig.rank.map(|r| format!("rank {r}")).unwrap_or_else(|| "unranked".into());
                    outln!("    {:<11} {:>12.4}  {:<10} +{:.4}", sig.name, sig.value, rank, sig.contribution);
                    if let Some(told) = speaks_of(h, sig) {
                        outln!("    {:<11} {told}", "");
                    }
                }
            }
        }
    }

    pub fn names(&self, names: &[String]) {
        if self.json {
            print_json(&json!(names));
        } else {
            for n in names {
                outln!("{}", l(n));
            }
        }
    }

    pub fn persona_stats(&self, s: &PersonaStats) {
        if self.json {
            print_json(&json!(s));
            return;
        }
        outln!("{} persona memories", s.total);
        for (k, v) in &s.by_state {
            outln!("  {k}: {v}");
        }
        for (k, v) in &s.by_domain {
            outln!("  domain {}: {v}", l(k));
        }
    }

    pub fn stats(&self, s: &StoreStats) {
        if self.json {
            print_json(&json!(s));
            return;
        }
        outln!("store {} (schema {}, d tags {})", s.path, s.schema_version, s.d_tag_mode);
        outln!("  key {}", s.public_key);
        outln!(
            "  memories {}  journal {}  persona {}  embeddings {}  introspections {}  forgotten {}",
            s.kv,
            s.journal,
            s.persona,
            s.embed,
            s.introspection,
            s.deleted
        );
        outln!("  events {}  outbox {}  unsigned accesses {}", s.events, s.outbox, s.unsigned_accesses);
        if s.rejected.is_empty() {
            outln!("  rejected events: none");
        } else {
            for (k, v) in &s.rejected {
                outln!("  rejected {}: {v}", l(k));
            }
        }
    }

    pub fn exported(&self, n: usize, path: &Path) {
        if self.json {
            print_json(&json!({"events": n, "file": path}));
        } else {
            errln!("exported {n} events to {}", path.display());
        }
    }

    /// The summary of `memstr import --memories`.
    pub fn memories_imported(&self, r: &MemoryImport) {
        if self.json {
            print_json(&json!(r));
        } else {
            if r.batches > 0 && std::io::stderr().is_terminal() {
                eprintln!();
            }
            println!(
                "imported {} memories ({} flat, {} journal, {} persona) from {} lines in {} batches",
                r.imported, r.kv, r.journal, r.persona, r.lines, r.batches
            );
        }
    }

    pub fn import(&self, r: &ImportReport) {
        if self.json {
            print_json(&json!(r));
        } else {
            outln!(
                "applied {}, duplicate {}, stale {}, deleted {}, rejected {}, quarantined {}",
                r.applied,
                r.duplicate,
                r.stale,
                r.deleted,
                r.rejected_total(),
                r.quarantined
            );
            if r.quarantined > 0 {
                outln!("  quarantined: dated more than 15 minutes ahead of this clock; applied when their time comes");
            }
            for (k, v) in &r.rejected {
                outln!("  rejected {}: {v}", l(k));
            }
        }
    }
}

/// How the asked memory relates to neighbour `n`, read left to right: "X superseded by N"
/// for an old → new edge leaving X, "X supersedes N" for one arriving. Symmetric edges
/// read the same both ways.
fn relation(n: &GraphNeighbour) -> &str {
    match (n.edge.as_str(), n.outgoing) {
        ("supersedes", true) => "superseded by",
        ("supersedes", false) => "supersedes",
        ("temporal", true) => "followed by",
        ("temporal", false) => "follows",
        (edge, _) => edge,
    }
}

/// What relay operators learn from a store in `mode` (for `init`).
fn mode_reveals(mode: DTagMode) -> &'static str {
    match mode {
        DTagMode::Compatible => {
            "  relays see every key, domain and facet name (plain d tags, readable by the sense-memory Python client)"
        }
        _ => "  relays see only that this key stores N events, their sizes and times (blinded d tags; the Python client cannot read them)",
    }
}

/// For the `when` signal, the time the hit's own words speak of, as the signal read it.
fn speaks_of(h: &memstr::search::SearchHit, sig: &memstr::search::Signal) -> Option<String> {
    if sig.name != "when" || sig.value == 0.0 {
        return None;
    }
    let text = h.found.text();
    let e = memstr::search::time::spoken_time(&text, h.found.time())?;
    let day = |t: f64| memstr::search::time::iso8601_utc(t).chars().take(10).collect::<String>();
    Some(format!("speaks of {:?}: {} to {}", e.words(&text), day(e.start), day(e.end)))
}

mod episodes;
