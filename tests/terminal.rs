//! Nothing a memory or a relay holds reaches the user's terminal raw: control bytes (ESC,
//! OSC, BEL, C1), bidirectional overrides and forged newlines are escaped in every command's
//! output, human or `--json`, on stdout and stderr.

mod support;

use std::process::Output;

use support::*;

#[path = "../relay-fixtures/hostile_relay.rs"]
mod hostile_relay;

/// Sets a terminal's title, rings its bell, clears the screen, starts a forged line that
/// looks like memstr's own, and reverses the text that follows.
const HOSTILE: &str = "hi\u{1b}]0;pwned\u{7}\u{1b}[2J\r\nmemstr: all memories deleted\u{202e}desrever\u{9b}31m";

/// The display controls in `text`; `\n` and `\t` are memstr's own layout.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}'))
        .collect()
}

fn run(dir: &std::path::Path, args: &[&str]) -> Output {
    memstr(dir).arg("--dir").arg(dir).args(args).output().unwrap()
}

/// Both streams of `args`, insisting neither carries a raw control nor a line the memory
/// started; returns stdout.
fn clean(dir: &std::path::Path, args: &[&str]) -> String {
    let stdout = controls_escaped(dir, args);
    assert!(!stdout.lines().any(|l| l.starts_with("memstr: all")), "{args:?} let a forged line start: {stdout}");
    stdout
}

/// Both streams of `args`, insisting neither carries a raw control; returns stdout. A value
/// printed alone (`recall KEY`) keeps its own line breaks.
fn controls_escaped(dir: &std::path::Path, args: &[&str]) -> String {
    let out = run(dir, args);
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert!(raw_controls(&stdout).is_empty(), "{args:?} printed {:?} raw: {stdout:?}", raw_controls(&stdout));
    assert!(raw_controls(&stderr).is_empty(), "{args:?} printed {:?} raw on stderr: {stderr:?}", raw_controls(&stderr));
    stdout
}

#[test]
fn memories_with_terminal_controls_are_printed_escaped_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    let value = format!("door code 4411 {HOSTILE}");
    run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(["remember", "door", &value]));
    run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args([
        "persona",
        "add",
        "people",
        "facts",
        "door-owner",
        &value,
        "--theme",
        HOSTILE,
        "--source",
        HOSTILE,
    ]));
    run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(["journal", &value]));
    for json in [false, true] {
        let with = |args: &[&str]| {
            let mut v: Vec<&str> = args.to_vec();
            if json {
                v.push("--json");
            }
            clean(dir.path(), &v)
        };
        let one =
            controls_escaped(dir.path(), &if json { vec!["recall", "door", "--json"] } else { vec!["recall", "door"] });
        assert!(one.contains("door code 4411"));
        with(&["recall", "--all"]);
        assert!(with(&["search", "door code"]).contains("4411"));
        with(&["search", "door code", "--explain"]);
        with(&["recent"]);
        assert!(with(&["persona", "get", "people", "facts", "door-owner"]).contains("4411"));
        with(&["persona", "list"]);
        with(&["persona", "search", "door code"]);
        with(&["compress"]);
        with(&["recall", "no-such\u{1b}[2Jkey"]);
        with(&["forget", "nothing\u{1b}]0;x\u{7}here"]);
    }
    // The value itself, read back as JSON, is unchanged: escaping is only how it is shown.
    let out = run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(["recall", "door", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], value.as_str());
}

#[test]
fn what_a_relay_says_is_escaped_in_sync_relay_list_and_status() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hostile = rt.block_on(hostile_relay::HostileRelay::start(hostile_relay::Attack::Says(format!(
        "{HOSTILE}{}",
        "x".repeat(5_000)
    ))));
    let dir = tempfile::tempdir().unwrap();
    init_store(dir.path());
    run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(["remember", "k", "v"]));
    run_ok(memstr(dir.path()).arg("--dir").arg(dir.path()).args(["relay", "add", &hostile.url(), "--insecure"]));
    let out = run(dir.path(), &["sync"]);
    assert!(!out.status.success(), "a relay that closes every subscription fails the pass");
    clean(dir.path(), &["sync"]);
    clean(dir.path(), &["sync", "--json"]);
    let list = clean(dir.path(), &["relay", "list"]);
    assert!(list.contains("error: "), "the relay's last error is kept: {list}");
    assert!(list.len() < 2_000, "a relay's words are bounded where they are kept: {} bytes", list.len());
    clean(dir.path(), &["status"]);
    clean(dir.path(), &["status", "--json"]);
    drop(hostile);
}
