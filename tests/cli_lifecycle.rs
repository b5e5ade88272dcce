//! The lifecycle commands of the `memstr` binary: introspect, prune, compress,
//! consolidate, pin/unpin, graph, fact set/get/history, `persona add --gate` and the
//! global `--decay`. Each runs as a child process on its own temporary store, at a fixed
//! `--now`, with an empty model cache so gating and linking are lexical (deterministic).

mod support;

use std::path::PathBuf;
use std::process::Output;

use serde_json::{json, Value};
use support::memstr;

const T0: f64 = 1_800_000_000.0;
const DAY: f64 = 86_400.0;

/// One store: a temporary directory holding the store and an empty model cache.
struct St {
    tmp: tempfile::TempDir,
}

impl St {
    /// A store made by `memstr init` for the test key.
    fn new() -> Self {
        let st = St { tmp: tempfile::tempdir().unwrap() };
        support::init_store(&st.dir());
        st
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("store")
    }

    /// `memstr --dir DIR --now NOW ARGS`, with no embedding model to find.
    fn output(&self, now: f64, args: &[&str]) -> Output {
        let mut c = memstr(&self.dir());
        c.env("MEMSTR_CACHE_DIR", self.tmp.path().join("no-cache"))
            .arg("--dir")
            .arg(self.dir())
            .arg("--payload-clock")
            .arg(format!("{now}"))
            .args(args);
        c.output().unwrap()
    }

    fn ok(&self, now: f64, args: &[&str]) -> String {
        let out = self.output(now, args);
        assert!(
            out.status.success(),
            "memstr {args:?} failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, now: f64, args: &[&str]) -> Value {
        let mut with = args.to_vec();
        with.push("--json");
        let out = self.ok(now, &with);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }

    /// Runs a command expected to fail with `code`; returns stderr.
    fn fails(&self, now: f64, args: &[&str], code: i32) -> String {
        let out = self.output(now, args);
        assert_eq!(out.status.code(), Some(code), "memstr {args:?}: {out:?}");
        String::from_utf8(out.stderr).unwrap()
    }

    fn add(&self, now: f64, domain: &str, facet: &str, key: &str, value: &str, extra: &[&str]) {
        let mut args = vec!["persona", "add", domain, facet, key, value];
        args.extend_from_slice(extra);
        self.ok(now, &args);
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------
// introspect
// ---------------------------------------------------------------------------------------

#[test]
fn introspect_reports_and_stores_a_review() {
    let st = St::new();
    st.add(T0, "people", "facts", "alice-coffee", "Alice drinks coffee", &["--theme", "alice", "--theme", "drinks"]);
    st.add(T0 + 1.0, "people", "facts", "alice-tea", "Alice likes tea", &["--theme", "alice", "--theme", "drinks"]);
    st.add(T0 + 2.0, "people", "facts", "alice-decaf", "Alice switched to decaf", &[]);
    st.add(
        T0 + 3.0,
        "self",
        "beliefs",
        "tabs",
        "Tabs beat spaces",
        &["--confidence", "0.3", "--at", &(T0 - 60.0 * DAY).to_string()],
    );
    st.ok(T0 + 4.0, &["persona", "contradict", "alice-coffee", "alice-decaf"]);

    let r = st.json(T0 + 5.0, &["introspect"]);
    assert_eq!(r["total_memories"], 4);
    assert_eq!((r["active"].as_u64(), r["fading"].as_u64()), (Some(3), Some(1)));
    assert_eq!(r["contradictions"], json!([["alice-coffee", "alice-decaf"]]));
    assert_eq!(strings(&r["orphaned"]), ["alice-coffee", "alice-decaf", "alice-tea", "tabs"]);
    assert_eq!(r["suggested_connections"], json!([["alice-coffee", "alice-tea"]]));
    assert_eq!(strings(&r["stale_beliefs"]), ["tabs"]);
    assert_eq!(r["timestamp"].as_f64(), Some(T0 + 5.0));
    assert_eq!((r["forgotten"].as_u64(), r["dissolved"].as_u64()), (Some(0), Some(0)), "{r}");
    assert_eq!(r["overloaded_facets"], json!([]), "{r}");
    assert!(r["suggested_revisions"].is_array() && r["pruned_count"].is_u64(), "{r}");

    let human = st.ok(T0 + 6.0, &["introspect"]);
    assert!(human.starts_with("4 memories: 3 active, 1 fading, 0 forgotten, 0 dissolved\n"), "{human}");
    assert!(human.contains("contradictions:\n  alice-coffee x alice-decaf\n"), "{human}");
    assert!(human.contains("stale beliefs: tabs\n"), "{human}");
    assert!(human.contains("suggested connections:\n  alice-coffee ~ alice-tea\n"), "{human}");
    // Both reviews were stored.
    assert_eq!(st.json(T0 + 7.0, &["stats"])["introspection"], 2);
}

// ---------------------------------------------------------------------------------------
// prune
// ---------------------------------------------------------------------------------------

#[test]
fn prune_moves_states_and_deletes_after_thirty_dissolved_days() {
    let st = St::new();
    st.add(T0, "people", "facts", "bob", "Bob plays the cello", &[]);
    assert_eq!(st.ok(T0 + DAY, &["prune"]), "0 changed\n");
    assert_eq!(st.ok(T0 + 60.0 * DAY, &["prune"]), "people/facts/bob: active -> fading\n1 changed\n");
    let r = st.json(T0 + 120.0 * DAY, &["prune"]);
    assert_eq!(
        r,
        json!({"count": 1, "transitions": [["people/facts/bob", "fading", "forgotten"]], "archived": [], "deleted": [], "marked": []})
    );
    // Forgotten: exact reads still find it.
    let m = st.json(T0 + 120.0 * DAY, &["persona", "get", "people", "facts", "bob", "--peek"]);
    assert_eq!(m["stored_state"], "forgotten");
    st.ok(T0 + 210.0 * DAY, &["prune"]);
    assert_eq!(st.json(T0 + 239.0 * DAY, &["prune"])["count"], 0);
    let out = st.ok(T0 + 241.0 * DAY, &["prune"]);
    assert_eq!(
        out,
        "people/facts/bob: archived (dissolved past the grace period; `memstr restore` brings it back)\n1 changed\n"
    );
    let m = st.json(T0 + 241.0 * DAY, &["persona", "get", "people", "facts", "bob", "--peek"]);
    assert_eq!(m["archived_at"].as_f64(), Some(T0 + 241.0 * DAY), "{m}");
    assert_eq!(st.json(T0 + 241.0 * DAY, &["stats"])["deleted"], 0);
}

#[test]
fn prune_with_dissolve_delete_deletes_after_thirty_dissolved_days() {
    let st = St::new();
    st.add(T0, "people", "facts", "bob", "Bob plays the cello", &[]);
    st.ok(T0 + 210.0 * DAY, &["prune", "--dissolve", "delete"]);
    let out = st.ok(T0 + 241.0 * DAY, &["prune", "--dissolve", "delete"]);
    assert_eq!(out, "people/facts/bob: deleted (dissolved past the grace period)\n1 changed\n");
    st.fails(T0 + 241.0 * DAY, &["persona", "get", "people", "facts", "bob", "--peek"], 1);
    assert_eq!(st.json(T0 + 241.0 * DAY, &["stats"])["deleted"], 1);
}

// ---------------------------------------------------------------------------------------
// compress
// ---------------------------------------------------------------------------------------

#[test]
fn compress_prints_the_persona_quoted_with_domain_budget_and_coverage() {
    let st = St::new();
    st.add(T0, "people", "facts", "alice-tea", "Alice drinks green tea every morning.", &[]);
    st.add(T0, "people", "facts", "alice-pets", "Alice has two cats and no dogs.", &[]);
    st.add(
        T0,
        "projects",
        "decisions",
        "voxrelay-voice",
        "We chose Orpheus 3B over Kokoro because of its warmth.",
        &[],
    );
    st.add(T0, "people", "facts", "zed-old", "Zed once rode a unicycle", &["--at", &(T0 - 60.0 * DAY).to_string()]);

    let out = st.ok(T0, &["compress"]);
    assert!(out.starts_with("[domain:people/facet:facts]\nalice-pets: Alice has two cats and no dogs\n"), "{out}");
    assert!(
        out.contains("[domain:projects/facet:decisions]\nvoxrelay-voice: We chose Orpheus 3B over Kokoro because of its warmth\n"),
        "{out}"
    );
    // Fading, and still current: last, as the oldest.
    assert!(
        out.contains("alice-tea: Alice drinks green tea every morning\nzed-old: Zed once rode a unicycle\n"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("covers 4 of 4 memories"), "{out}");

    let people = st.ok(T0, &["compress", "--domain", "people"]);
    assert!(people.contains("[domain:people/facet:facts]") && !people.contains("projects"), "{people}");
    assert!(people.contains("covers 3 of 3 memories"), "{people}");

    let full = st.json(T0, &["compress"]);
    assert_eq!(
        (full["omitted"].as_u64(), full["covered"].as_u64(), full["total"].as_u64()),
        (Some(0), Some(4), Some(4))
    );
    assert_eq!(full["included"].as_array().unwrap().len(), 4);
    assert!(full["estimated_tokens"].as_u64().unwrap() <= 500);
    let tight = st.json(T0, &["compress", "--max-tokens", "30"]);
    assert!(tight["omitted"].as_u64().unwrap() > 0, "{tight}");
    assert!(tight["covered"].as_u64().unwrap() < 4 && tight["total"] == 4, "{tight}");
    assert!(tight["estimated_tokens"].as_u64().unwrap() <= 30, "{tight}");
    assert!(tight["text"].as_str().unwrap().contains("more)"), "{tight}");
    st.fails(T0, &["compress", "--max-tokens", "lots"], 2);
}

// ---------------------------------------------------------------------------------------
// consolidate
// ---------------------------------------------------------------------------------------

#[test]
fn consolidate_promotes_recurring_journal_content_once() {
    let st = St::new();
    // A pattern on three days of thirteen: distinct episodes, words specific to a few days.
    let walks = [
        "Walked the dog in the park before breakfast",
        "Walked the dog in the park before breakfast again",
        "walked the dog in the park before breakfast today",
    ];
    for d in 0..13u32 {
        let day = T0 + f64::from(d) * DAY;
        st.ok(day, &["journal", &format!("entry {d} about topic q{d}x")]);
        if d % 4 == 1 {
            st.ok(day + 600.0, &["journal", walks[d as usize / 4]]);
        }
    }
    let now = T0 + 13.0 * DAY;
    let r = st.json(now, &["consolidate"]);
    let promoted = strings(&r["promoted"]);
    assert_eq!(promoted.len(), 1, "{r}");
    assert!(promoted[0].starts_with("self/facts/recurring-"), "{r}");
    assert!(r["prune"].is_object(), "{r}");
    assert_eq!((r["decay_days"].as_u64(), r["edges_pruned"].as_u64()), (Some(0), Some(0)), "{r}");
    assert!(r["linked"].is_u64() && r["strengthened"].is_u64() && r["edges"].is_u64(), "{r}");
    assert_eq!(r["at"].as_f64(), Some(now));
    let key = promoted[0].rsplit('/').next().unwrap().to_string();
    let m = st.json(now, &["persona", "get", "self", "facts", &key, "--peek"]);
    assert_eq!(m["value"], "Walked the dog in the park before breakfast");

    let again = st.ok(now + 100.0, &["consolidate"]);
    assert!(
        again
            .starts_with("states changed 0, archived 0, deleted 0, promoted 0, linked 0, strengthened 0, decay days 0"),
        "{again}"
    );
    assert!(!again.contains("promoted self/"), "{again}");
    // The first cycle compared every persona memory, this one those changed since: none.
    assert_eq!((r["compared_all"].as_bool(), r["compared"].as_u64()), (Some(true), Some(1)), "{r}");
    assert!(again.contains("compared 0 persona memories (those changed since the last cycle)"), "{again}");
    assert!(r["steps"].as_array().is_some_and(|s| !s.is_empty()), "{r}");
}

// ---------------------------------------------------------------------------------------
// pin / unpin
// ---------------------------------------------------------------------------------------

#[test]
fn pin_keeps_a_memory_out_of_pruning_and_unpin_lets_it_go() {
    let st = St::new();
    st.add(T0, "self", "facts", "name", "My name is Sense", &[]);
    assert_eq!(st.ok(T0, &["pin", "name"]), "pinned name\n");
    assert_eq!(st.json(T0, &["pin", "self/facts/name"]), json!({"ok": true}));
    let later = T0 + 3650.0 * DAY;
    assert_eq!(st.ok(later, &["prune"]), "0 changed\n");
    assert_eq!(st.ok(later + 31.0 * DAY, &["prune"]), "0 changed\n");
    assert_eq!(st.ok(later, &["unpin", "self/facts/name"]), "unpinned self/facts/name\n");
    // Unpinned, the stored state is recomputed from its last access ten years ago.
    let m = st.json(later, &["persona", "get", "self", "facts", "name", "--peek"]);
    assert_eq!(m["stored_state"], "dissolved");
    let err = st.fails(T0, &["pin", "nobody"], 2);
    assert!(err.contains("nobody"), "{err}");
}

// ---------------------------------------------------------------------------------------
// graph
// ---------------------------------------------------------------------------------------

#[test]
fn graph_lists_neighbours_with_edge_types() {
    let st = St::new();
    st.add(T0, "people", "facts", "alice-tea", "Alice drinks green tea", &["--theme", "drinks"]);
    st.add(T0, "people", "facts", "alice-cats", "Alice has two cats", &[]);
    st.ok(T0, &["persona", "connect", "alice-tea", "alice-cats"]);
    let n = st.json(T0, &["graph", "alice-tea"]);
    let n = n.as_array().unwrap();
    assert!(
        n.iter().any(|x| x["id"] == "sense-memory/persona/people/facts/alice-cats"
            && x["edge"] == "connection"
            && x["node"] == "memory"
            && x["weight"].as_f64().unwrap() > 0.0),
        "{n:#?}"
    );
    assert!(n.iter().any(|x| x["id"] == "theme:drinks" && x["edge"] == "shared_theme" && x["node"] == "theme"));
    let human = st.ok(T0, &["graph", "people/facts/alice-cats"]);
    assert!(
        human.contains("connection") && human.contains("sense-memory/persona/people/facts/alice-tea (memory)"),
        "{human}"
    );
    st.fails(T0, &["graph", "nobody"], 2);
}

#[test]
fn graph_reads_supersession_the_right_way_round() {
    let st = St::new();
    st.add(T0, "people", "facts", "alice-coffee", "Alice drinks coffee", &[]);
    st.add(T0, "people", "facts", "alice-nocoffee", "Alice gave up coffee", &[]);
    st.ok(T0, &["persona", "contradict", "alice-coffee", "alice-nocoffee"]);
    let line = |text: &str, neighbour: &str, edge: &str| -> String {
        let path = format!("sense-memory/persona/people/facts/{neighbour} ");
        text.lines()
            .find(|l| l.contains(&path) && l.contains(edge))
            .unwrap_or_else(|| panic!("no {edge} line for {neighbour}: {text}"))
            .to_string()
    };
    // The old memory is superseded by the new one, and the new one supersedes the old.
    let old = st.ok(T0, &["graph", "alice-coffee"]);
    assert!(line(&old, "alice-nocoffee", "supersede").contains("  superseded by  "), "{old}");
    let new = st.ok(T0, &["graph", "alice-nocoffee"]);
    let l = line(&new, "alice-coffee", "supersede");
    assert!(l.contains("  supersedes ") && !l.contains("superseded"), "{new}");
    let json = st.json(T0, &["graph", "alice-coffee"]);
    let edge = json.as_array().unwrap().iter().find(|n| n["edge"] == "supersedes").expect("a supersedes edge").clone();
    assert_eq!(edge["relation"], "superseded by", "{json:#}");
}

// ---------------------------------------------------------------------------------------
// fact set / get / history
// ---------------------------------------------------------------------------------------

#[test]
fn fact_set_get_and_history() {
    let st = St::new();
    let err = st.fails(T0, &["fact", "get", "people", "alice", "city"], 1);
    assert!(err.contains("not found: people/facts/alice:city"), "{err}");
    let out = st.output(T0, &["fact", "get", "people", "alice", "city", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), Value::Null);
    let id = st.ok(T0, &["fact", "set", "people", "alice", "city", "Warsaw"]);
    assert_eq!(id.trim().len(), 64, "{id}");
    st.ok(T0 + 10.0 * DAY, &["fact", "set", "people", "alice", "city", "Berlin"]);
    st.ok(T0 + 20.0 * DAY, &["fact", "set", "people", "alice", "city", "Berlin"]);
    assert_eq!(st.ok(T0 + 20.0 * DAY, &["fact", "get", "people", "alice", "city"]), "Berlin\n");
    assert_eq!(st.json(T0 + 20.0 * DAY, &["fact", "get", "people", "alice", "city"]), json!({"value": "Berlin"}));
    let h = st.json(T0 + 20.0 * DAY, &["fact", "history", "people", "alice", "city"]);
    assert_eq!(
        h,
        json!([
            {"value": "Warsaw", "from": T0, "until": T0 + 10.0 * DAY},
            {"value": "Berlin", "from": T0 + 10.0 * DAY, "until": null},
        ])
    );
    let human = st.ok(T0 + 20.0 * DAY, &["fact", "history", "people", "alice", "city"]);
    let lines: Vec<&str> = human.lines().collect();
    assert_eq!(lines.len(), 2, "{human}");
    assert!(lines[0].ends_with("  Warsaw") && lines[1].contains(" .. now ") && lines[1].ends_with("Berlin"), "{human}");
    let err = st.fails(T0, &["fact", "set", "people", "a:b", "city", "x"], 2);
    assert!(err.contains("subject") && err.contains("forbidden-character"), "{err}");
}

// ---------------------------------------------------------------------------------------
// persona add --gate
// ---------------------------------------------------------------------------------------

#[test]
fn persona_add_gate_prints_the_decision() {
    let st = St::new();
    let out = st
        .ok(T0, &["persona", "add", "people", "facts", "alice-coffee", "Alice drinks coffee every morning", "--gate"]);
    assert_eq!(out, "create people/facts/alice-coffee\n");
    let out = st.ok(T0, &["persona", "add", "people", "facts", "dup", "Alice drinks coffee every morning", "--gate"]);
    assert_eq!(out, "reinforce alice-coffee (similarity 1.000) -> people/facts/alice-coffee\n");
    st.fails(T0, &["persona", "get", "people", "facts", "dup", "--peek"], 1);
    let m = st.json(T0, &["persona", "get", "people", "facts", "alice-coffee", "--peek"]);
    assert_eq!(m["access_count"], 1);

    let r = st.json(
        T0,
        &[
            "persona",
            "add",
            "people",
            "facts",
            "alice-no-coffee",
            "Alice does not drink coffee every morning",
            "--gate",
        ],
    );
    assert_eq!(r["decision"], "supersede");
    assert_eq!(r["existing"], "alice-coffee");
    assert_eq!(r["cue"], "negation");
    assert_eq!(r["address"], "people/facts/alice-no-coffee");
    assert_eq!(r["event_id"].as_str().unwrap().len(), 64);
    let old = st.json(T0, &["persona", "get", "people", "facts", "alice-coffee", "--peek"]);
    assert_eq!(old["superseded_by"], "alice-no-coffee");

    let r = st.json(T0, &["persona", "add", "people", "facts", "bob-cello", "Bob is learning the cello", "--gate"]);
    assert_eq!(
        r,
        json!({"decision": "create", "existing": null, "similarity": null, "cue": null,
        "address": "people/facts/bob-cello", "event_id": r["event_id"].clone()})
    );
    // Without --gate, the same duplicate is simply stored.
    st.ok(T0, &["persona", "add", "people", "facts", "dup", "Alice drinks coffee every morning"]);
    st.ok(T0, &["persona", "get", "people", "facts", "dup", "--peek"]);
}

// ---------------------------------------------------------------------------------------
// --decay
// ---------------------------------------------------------------------------------------

#[test]
fn decay_flag_selects_the_policy_used_by_prune() {
    let halflife = St::new();
    let fsrs = St::new();
    for st in [&halflife, &fsrs] {
        st.add(T0, "people", "facts", "bob", "Bob plays the cello", &[]);
    }
    let later = T0 + 100.0 * DAY;
    let h = halflife.json(later, &["prune"]);
    assert_eq!(h["transitions"], json!([["people/facts/bob", "active", "forgotten"]]));
    // FSRS-6's power law forgets more slowly: only fading after 100 days.
    let f = fsrs.json(later, &["prune", "--decay", "fsrs6"]);
    assert_eq!(f["transitions"], json!([["people/facts/bob", "active", "fading"]]));
    // The environment variable does the same, in any case.
    let st = St::new();
    st.add(T0, "people", "facts", "bob", "Bob plays the cello", &[]);
    let mut c = memstr(&st.dir());
    c.env("MEMSTR_CACHE_DIR", st.tmp.path().join("no-cache")).env("MEMSTR_DECAY", "FSRS6").args([
        "--dir",
        st.dir().to_str().unwrap(),
        "--now",
        &later.to_string(),
        "--json",
        "prune",
    ]);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["transitions"], json!([["people/facts/bob", "active", "fading"]]));
}

#[test]
fn unknown_decay_policy_fails_clearly() {
    let st = St::new();
    let err = st.fails(T0, &["--decay", "ebbinghaus", "stats"], 2);
    assert!(err.contains("unknown decay policy \"ebbinghaus\": halflife or fsrs6"), "{err}");
    // Nothing remembered of it: the store opens as before.
    assert!(st.ok(T0, &["stats"]).contains("store "));
}

/// `persona get` shows `state` and `current_relevance` under the store's decay policy and
/// pinning. Guards against the client's formula there: a pinned memory ten years on read
/// "dissolved", and under `--decay fsrs6` a 100-day-old memory read "forgotten" where prune
/// said "fading".
#[test]
fn persona_get_reports_the_policys_live_state() {
    let st = St::new();
    st.add(T0, "people", "facts", "bob", "Bob plays the cello", &[]);
    st.add(T0, "self", "facts", "name", "My name is Sense", &[]);
    st.ok(T0, &["pin", "name"]);
    let m = st.json(T0 + 100.0 * DAY, &["persona", "get", "people", "facts", "bob", "--peek", "--decay", "fsrs6"]);
    assert_eq!(m["state"], "fading", "{m}");
    let m = st.json(T0 + 3650.0 * DAY, &["persona", "get", "self", "facts", "name", "--peek"]);
    assert_eq!(m["state"], "active", "{m}");
}
