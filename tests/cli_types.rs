//! The commands and flags of issue 27's points 2 and 3: `persona add --type/--goal-status`,
//! `search --type/--tier`, `feedback`, `procedure outcome`, `goal status`, and introspect's
//! counts, as a child process on a temporary store with no embedding model (lexical).

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use support::memstr;

fn store() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    support::init_store(&dir);
    (tmp, dir)
}

fn output(tmp: &Path, dir: &Path, args: &[&str]) -> Output {
    let mut c = memstr(dir);
    c.env("MEMSTR_CACHE_DIR", tmp.join("no-cache")).arg("--dir").arg(dir).args(args);
    c.output().unwrap()
}

fn ok(tmp: &Path, dir: &Path, args: &[&str]) -> String {
    let out = output(tmp, dir, args);
    assert!(out.status.success(), "memstr {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(tmp: &Path, dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&ok(tmp, dir, &all)).unwrap()
}

#[test]
fn types_goals_outcomes_and_feedback_from_the_command_line() {
    let (tmp, dir) = store();
    let (t, d) = (tmp.path(), dir.as_path());
    ok(t, d, &["persona", "add", "skills", "howto", "deploy", "deploy the relay with make", "--type", "procedure"]);
    ok(t, d, &["persona", "add", "self", "plans", "ship", "ship the relay dashboard", "--goal-status", "open"]);
    ok(t, d, &["persona", "add", "projects", "facts", "relay-port", "the relay listens on 7447"]);

    // A bad type or status is refused, naming what it takes.
    let bad = output(t, d, &["persona", "add", "self", "facts", "x", "y", "--type", "chore"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("procedure"), "{}", String::from_utf8_lossy(&bad.stderr));
    let bad = output(t, d, &["persona", "add", "self", "facts", "x", "y", "--type", "fact", "--goal-status", "done"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("goal-status-on-goal"));

    // Outcomes: a Beta(1,1) posterior, in text and JSON.
    let text = ok(t, d, &["procedure", "outcome", "deploy", "success"]);
    assert!(text.contains("0.67 over 1 (1 yes, 0 no)"), "{text}");
    let r = json(t, d, &["procedure", "outcome", "skills/howto/deploy", "failure"]);
    assert_eq!((r["successes"].as_u64(), r["failures"].as_u64(), r["mean"].as_f64()), (Some(1), Some(1), Some(0.5)));
    let bad = output(t, d, &["procedure", "outcome", "relay-port", "success"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("outcome-on-procedure"));
    assert!(!output(t, d, &["procedure", "outcome", "deploy", "maybe"]).status.success());

    // The type filter, and the hit saying how reliable the procedure is.
    let hits = json(t, d, &["search", "relay", "--type", "procedure", "--min-strength", "0"]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["typed"]["type"], "procedure");
    assert_eq!(hits[0]["typed"]["reliability"]["successes"], 1);
    let text = ok(t, d, &["search", "relay", "--type", "procedure", "--min-strength", "0"]);
    assert!(text.contains("reliability 0.50 over 2 outcomes"), "{text}");
    let none = json(t, d, &["search", "relay", "--tier", "semantic", "--min-strength", "0"]);
    assert_eq!(none.as_array().unwrap().len(), 0, "{none}");
    assert!(!output(t, d, &["search", "relay", "--tier", "cold"]).status.success());

    // `persona get` says the type and what was learned.
    let m = json(t, d, &["persona", "get", "skills", "howto", "deploy", "--peek"]);
    assert_eq!((m["memory_type"].as_str(), m["reliability"]["failures"].as_u64()), (Some("procedure"), Some(1)));
    let text = ok(t, d, &["persona", "get", "skills", "howto", "deploy", "--peek"]);
    assert!(text.contains("  type procedure (") && text.contains("reliability 0.50 over 2 outcomes"), "{text}");
    let plain = json(t, d, &["persona", "get", "projects", "facts", "relay-port", "--peek"]);
    assert!(plain.get("memory_type").is_none(), "a plain memory's fields stay the client's: {plain}");

    // Feedback, goals, introspection.
    let r = json(t, d, &["feedback", "relay-port", "not"]);
    assert_eq!(r["failures"], 1);
    assert!(!output(t, d, &["feedback", "relay-port", "meh"]).status.success());
    let rep = json(t, d, &["introspect"]);
    assert_eq!(rep["open_goals"], serde_json::json!(["ship"]));
    assert_eq!(rep["by_type"]["procedure"], 1);
    assert!(ok(t, d, &["introspect"]).contains("open goals: ship"));
    let r = json(t, d, &["goal", "status", "ship", "done"]);
    assert_eq!(r["goal_status"], "done");
    assert!(json(t, d, &["introspect"]).get("open_goals").is_none());
    let bad = output(t, d, &["goal", "status", "relay-port", "done"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("goal-status-on-goal"));
}

/// `--behaviour NAME=on|off` and `MEMSTR_BEHAVIOURS` switch the seeds' behaviours for one
/// run; `status --json` shows them; a bad switch is refused naming the rule and the names.
#[test]
fn behaviour_switches_from_the_flag_and_the_environment() {
    let (tmp, dir) = store();
    let (t, d) = (tmp.path(), dir.as_path());
    let defaults = json(t, d, &["status"]);
    for b in memstr::Behaviour::ALL {
        assert_eq!(defaults["behaviours"][b.as_str()], b.default_on(), "{b}");
    }
    let s = json(t, d, &["--behaviour", "context-match=on", "--behaviour", "dream-insights=off,tiers=on", "status"]);
    assert_eq!(s["behaviours"]["context-match"], true);
    assert_eq!(s["behaviours"]["dream-insights"], false);
    assert_eq!(s["behaviours"]["tiers"], true);
    let mut c = memstr(d);
    c.env("MEMSTR_CACHE_DIR", t.join("no-cache")).env("MEMSTR_BEHAVIOURS", "reliability=on");
    let out = c.arg("--dir").arg(d).args(["--json", "status"]).output().unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["behaviours"]["reliability"], true);
    for bad in ["telepathy=on", "tiers=maybe", "tiers"] {
        let out = output(t, d, &["--behaviour", bad, "status"]);
        assert!(!out.status.success(), "{bad} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("known-behaviour") && err.contains("retrieval-forgetting"), "{err}");
    }
}
