//! Dream insights through the `memstr` binary: `consolidate` finds them, `introspect`
//! shows them (human and `--json`) with the memories they rest on, stored text escaped,
//! and `--behaviour dream-insights=off` finds none. Each run on its own temporary store at
//! a fixed `--payload-clock`, with no model (lexical, deterministic).

mod support;

use serde_json::Value;

const T0: f64 = 1_800_000_000.0;
const DAY: f64 = 86_400.0;

struct St(support::CliStore);

impl St {
    fn new() -> Self {
        St(support::CliStore::new())
    }

    fn ok(&self, now: f64, args: &[&str]) -> String {
        let out = self.0.at(now).args(args).output().unwrap();
        assert!(out.status.success(), "memstr {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, now: f64, args: &[&str]) -> Value {
        let out = self.ok(now, &[args, &["--json"]].concat());
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }

    /// Five memories of one theme on five days: a recurring pattern.
    fn runs(&self, theme: &str) {
        for i in 0..5 {
            let at = (T0 - 10.0 * DAY + f64::from(i) * DAY).to_string();
            let (key, value) = (format!("run-{i}"), format!("Went running, session {i}"));
            self.ok(T0, &["persona", "add", "self", "facts", &key, &value, "--theme", theme, "--at", &at]);
        }
    }
}

#[test]
fn consolidate_finds_and_introspect_shows_insights_with_their_evidence() {
    let st = St::new();
    // A theme with a terminal escape in it: shown escaped, never raw.
    st.runs("running\u{1b}[2J");
    let human = st.ok(T0 + 1.0, &["consolidate"]);
    assert!(human.contains("insights:\n  [recurring-pattern 0.50] \"running"), "{human}");
    assert!(human.contains("    rests on sense-memory/persona/self/facts/run-4\n"), "{human}");
    assert!(!human.contains('\u{1b}'), "raw escape in {human:?}");

    let r = st.json(T0 + 2.0, &["introspect"]);
    let insights = r["insights"].as_array().unwrap_or_else(|| panic!("no insights: {r}"));
    let pattern = insights.iter().find(|i| i["kind"] == "recurring-pattern").unwrap();
    assert_eq!(pattern["evidence"].as_array().unwrap().len(), 5, "{pattern}");
    assert_eq!(pattern["evidence"][0], "sense-memory/persona/self/facts/run-4");
    let human = st.ok(T0 + 3.0, &["introspect"]);
    assert!(human.contains("insights:\n  [recurring-pattern"), "{human}");
    assert!(!human.contains('\u{1b}'), "raw escape in {human:?}");
}

#[test]
fn switched_off_consolidate_finds_no_insight() {
    let st = St::new();
    st.runs("running");
    let r = st.json(T0 + 1.0, &["--behaviour", "dream-insights=off", "consolidate"]);
    assert_eq!(r["insights"], Value::Array(vec![]), "{r}");
    let r = st.json(T0 + 2.0, &["introspect"]);
    assert!(r.get("insights").is_none(), "{r}");
}
