//! `memstr episode start|observe|end|list|show`, `journal --context`, `search --context`
//! and `--with-context` (issue 27, points 1 and 7), each as a child process on its own
//! store, with an empty model cache (trajectories by word overlap: deterministic).

mod support;

use std::process::Output;

use serde_json::Value;

const T0: f64 = 1_800_000_000.0;

struct St(support::CliStore);

impl St {
    fn new() -> Self {
        St(support::CliStore::new())
    }

    fn output(&self, now: f64, args: &[&str]) -> Output {
        self.0.at(now).args(args).output().unwrap()
    }

    fn ok(&self, now: f64, args: &[&str]) -> String {
        let out = self.output(now, args);
        assert!(out.status.success(), "memstr {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, now: f64, args: &[&str]) -> Value {
        let mut with = args.to_vec();
        with.push("--json");
        serde_json::from_str(&self.ok(now, &with)).unwrap()
    }
}

#[test]
fn episode_start_observe_end_from_the_command_line() {
    let st = St::new();
    let e = st.json(T0, &["episode", "start", "Fix the billing deploy", "--context", "project:billing"]);
    let id = e["id"].as_str().unwrap().to_string();
    assert_eq!(e["title"], "Fix the billing deploy");
    // The open episode is the default.
    let o = st.json(
        T0 + 60.0,
        &[
            "episode",
            "observe",
            "The billing deploy failed on the migration.",
            "--action",
            "deploy",
            "--outcome",
            "failure",
        ],
    );
    assert_eq!(
        (o["episode"].as_str(), o["trajectory"].as_u64(), o["new_trajectory"].as_bool()),
        (Some(id.as_str()), Some(0), Some(true))
    );
    let o = st.json(T0 + 120.0, &["episode", "observe", "--episode", &id, "Booked lunch with Priya for Friday."]);
    assert_eq!((o["trajectory"].as_u64(), o["new_trajectory"].as_bool()), (Some(1), Some(true)));
    // A journal entry written meanwhile carries the open episode's context.
    st.ok(T0 + 130.0, &["journal", "Noted the migration timeout for later."]);
    let shown = st.json(T0 + 140.0, &["episode", "show", &id]);
    assert_eq!(shown["observations"].as_array().unwrap().len(), 2);
    assert_eq!(shown["observations"][0]["observed"]["outcome"], "failure");
    let human = st.ok(T0 + 140.0, &["episode", "show", &id]);
    assert!(human.contains("[deploy → failure]"), "{human}");

    let ended = st.json(T0 + 200.0, &["episode", "end", "--outcome", "success"]);
    assert_eq!((ended["outcome"].as_str(), ended["ended_at"].as_f64()), (Some("success"), Some(T0 + 200.0)));
    let list = st.json(T0 + 210.0, &["episode", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 1);

    // Observing into an ended episode, or with none open: refused, with the rule.
    let out = st.output(T0 + 220.0, &["episode", "observe", "--episode", &id, "too late"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ended"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = st.output(T0 + 220.0, &["episode", "observe", "nothing open"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no open episode"));
    let out = st.output(T0 + 220.0, &["episode", "show", "ep-unknown"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn search_with_context_and_a_context_escaped() {
    let st = St::new();
    st.json(T0, &["episode", "start", "Deploy day"]);
    st.ok(T0 + 60.0, &["episode", "observe", "The staging deploy of billing timed out on the migration.\u{1b}[2J"]);
    st.ok(T0 + 120.0, &["episode", "observe", "Raised the billing migration timeout to 120 seconds."]);
    let consolidated = st.ok(T0 + 130.0, &["consolidate"]);
    assert!(consolidated.contains("  summarised memstr-trajectory:ep-"), "{consolidated}");
    let hits = st.json(T0 + 140.0, &["search", "timeout 120 seconds", "--kind", "journal", "--with-context"]);
    let c = &hits[0]["context"];
    assert_eq!(c["trajectory"], 0);
    assert_eq!(c["neighbours"][0], "The staging deploy of billing timed out on the migration.\u{1b}[2J");
    assert!(c["summary"].as_str().unwrap().starts_with("Trajectory 0"));
    let human = st.ok(T0 + 140.0, &["search", "timeout 120 seconds", "--kind", "journal", "--with-context"]);
    assert!(human.contains("    episode ep-") && human.contains("beside: The staging deploy"), "{human}");
    assert!(!human.contains('\u{1b}'), "a stored neighbour is escaped: {human:?}");
    // Without the flag, no context; --context on search is accepted (the switch is off by
    // default: no ranking signal).
    let plain = st.json(T0 + 140.0, &["search", "timeout 120 seconds", "--kind", "journal", "--context", "project:x"]);
    assert!(plain[0].get("context").is_none());
    assert!(st.ok(T0 + 150.0, &["journal", "In another context.", "--context", "project:x"]).contains("journal"));
    let on = st.json(
        T0 + 160.0,
        &[
            "--behaviour",
            "context-match=on",
            "search",
            "context",
            "--context",
            "project:x",
            "--explain",
            "--min-strength",
            "0",
        ],
    );
    assert!(
        on.as_array().unwrap().iter().any(|h| h["signals"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "same_context")),
        "{on}"
    );
    // A persona memory written in a context keeps it.
    st.ok(
        T0 + 170.0,
        &["persona", "add", "projects", "procedures", "ship", "Ship on Tuesdays.", "--context", "project:x"],
    );
    let m = st.json(T0 + 180.0, &["persona", "get", "projects", "procedures", "ship", "--peek"]);
    assert_eq!(m["context"], "project:x");
    let out = st.output(T0 + 190.0, &["persona", "add", "projects", "procedures", "bad", "v", "--context", "a\u{7}b"]);
    assert!(!out.status.success(), "a context with a control character is refused");
}
