//! `memstr important`, `memstr clusters`, `memstr strength` and retrieval-induced
//! forgetting through `memstr search`: child processes on a temporary store, a fixed
//! `--payload-clock`, no embedding model (lexical, deterministic).

mod support;

use std::process::Output;

use serde_json::Value;

const T0: f64 = 1_800_000_000.0;
const HOUR: f64 = 3600.0;

struct St(support::CliStore);

impl St {
    fn new() -> Self {
        St(support::CliStore::new())
    }

    fn output(&self, now: f64, behaviours: &str, args: &[&str]) -> Output {
        self.0.at(now).env("MEMSTR_BEHAVIOURS", behaviours).args(args).output().unwrap()
    }

    fn ok(&self, now: f64, behaviours: &str, args: &[&str]) -> String {
        let out = self.output(now, behaviours, args);
        assert!(out.status.success(), "memstr {args:?}: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, now: f64, behaviours: &str, args: &[&str]) -> Value {
        let mut with = args.to_vec();
        with.push("--json");
        let out = self.ok(now, behaviours, &with);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }
}

const ON: &str = "retroactive-importance=on,retrieval-forgetting=on";
const OFF: &str = "retroactive-importance=off,retrieval-forgetting=off";

#[test]
fn important_captures_neighbours_and_clusters_list_them() {
    let st = St::new();
    // At the flag's own time the probability is 1; ten hours before it is 0.
    st.ok(T0 - 10.0 * HOUR, ON, &["persona", "add", "work", "log", "early", "an early note"]);
    st.ok(T0, ON, &["persona", "add", "work", "log", "beside", "a note beside the news"]);
    st.ok(T0, ON, &["persona", "add", "work", "log", "news", "Dana is leaving \u{1b}[31mthe company"]);
    let off = st.output(T0, OFF, &["important", "news"]);
    assert!(off.status.success());
    assert!(String::from_utf8_lossy(&off.stderr).contains("retroactive-importance is off"));
    assert_eq!(st.json(T0, OFF, &["clusters"]), Value::Array(vec![]));

    let cluster = st.json(T0, ON, &["important", "news"]);
    assert_eq!(cluster["kind"], "flag");
    assert_eq!(cluster["source"], "work/log/news");
    assert_eq!(cluster["captured"], serde_json::json!(["work/log/beside"]));
    let listed = st.json(T0 + 1.0, ON, &["clusters"]);
    assert_eq!(listed[0]["id"], cluster["id"]);
    let text = st.ok(T0 + 1.0, ON, &["clusters"]);
    assert!(text.contains("flag work/log/news") && text.contains("  work/log/beside"), "{text}");

    let beside = st.json(T0 + 1.0, ON, &["strength", "beside"]);
    assert_eq!(beside["captured_importance"], 0.5);
    assert_eq!(beside["captured_by"][0]["event"], cluster["id"]);
    assert!(st.json(T0 + 1.0, ON, &["strength", "early"])["captured_by"].as_array().unwrap().is_empty());
    // Stored text reaches the terminal escaped.
    let shown = st.ok(T0 + 1.0, ON, &["strength", "news"]);
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
}

#[test]
fn a_search_weakens_the_winners_near_duplicate() {
    let st = St::new();
    let add = |key: &str, value: &str| st.ok(T0, ON, &["persona", "add", "work", "log", key, value]);
    add("winner", "Alice drinks green tea every morning at the office before standup");
    add("rival", "Alice drinks green tea every morning at the office after lunch");
    st.ok(T0, OFF, &["search", "Alice green tea morning office standup"]);
    assert_eq!(st.json(T0, ON, &["strength", "rival"])["losses"], 0, "off: no loss");
    let hits = st.json(T0, ON, &["search", "Alice green tea morning office standup"]);
    assert!(hits.to_string().contains("winner"), "{hits}");
    let rival = st.json(T0, ON, &["strength", "rival"]);
    assert_eq!(rival["losses"], 1);
    assert_eq!(rival["competition_factor"], 0.95);
    assert_eq!(st.json(T0, ON, &["strength", "winner"])["losses"], 0);
}
