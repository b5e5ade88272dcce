//! `memstr important`, `memstr clusters`, `memstr strength`: retroactive importance and
//! retrieval-induced forgetting from the shell. Every stored text is escaped
//! (src/display.rs) as the rest of the output is.

use anyhow::Result;
use memstr::display;
use memstr::{ImportanceCluster, MemoryStore, MemoryStrength};
use serde_json::json;

use crate::args::Command;
use crate::output::{emit, Out};

fn line(text: String) {
    emit(false, text);
}

fn print_json(v: &serde_json::Value) {
    line(display::json(&serde_json::to_string_pretty(v).expect("values always serialise")).into_owned());
}

fn time(ts: f64) -> String {
    memstr::search::query::utc_string(ts)
}

/// Runs one of the three commands.
pub async fn run(store: &MemoryStore, out: &Out, command: &Command) -> Result<()> {
    match command {
        Command::Important { reference } => match store.mark_important(reference).await? {
            Some(cluster) if out.json => print_json(&json!(cluster)),
            Some(cluster) => cluster_lines(&cluster),
            None if out.json => print_json(&json!(null)),
            None => emit(
                true,
                "retroactive-importance is off: nothing captured (`--behaviour retroactive-importance=on`)".into(),
            ),
        },
        Command::Clusters => {
            let clusters = store.importance_clusters().await?;
            if out.json {
                print_json(&json!(clusters));
            } else if clusters.is_empty() {
                line("no importance events".into());
            } else {
                clusters.iter().for_each(cluster_lines);
            }
        }
        Command::Strength { reference } => {
            let s = store.memory_strength(reference).await?;
            if out.json {
                print_json(&json!(s));
            } else {
                strength_lines(&s);
            }
        }
        _ => unreachable!("dispatched here for the strength commands only"),
    }
    Ok(())
}

fn cluster_lines(c: &ImportanceCluster) {
    let e = &c.event;
    line(format!(
        "{} {} at {} ({}): {} captured",
        e.kind,
        display::line(&c.source),
        time(e.at),
        e.id,
        e.captured.len()
    ));
    for a in &e.captured {
        line(format!("  {}", display::line(a)));
    }
}

fn strength_lines(s: &MemoryStrength) {
    line(format!("{}: {} (relevance {:.3})", display::line(&s.address), s.state, s.relevance));
    let opt = |x: Option<f64>| x.map_or("none".to_string(), |v| format!("{v:.3}"));
    line(format!("importance {} (from captures {})", opt(s.importance), opt(s.captured_importance)));
    for c in &s.captured_by {
        line(format!("  captured by {} of {} at {} (+{:.2})", c.event, display::line(&c.source), time(c.at), c.boost));
    }
    for e in &s.events {
        line(format!("  set off {} {} at {}: {} captured", e.kind, e.id, time(e.at), e.captured.len()));
    }
    line(format!("recalls lost {} (factor {:.3})", s.losses, s.competition_factor));
    if s.pinned {
        line("pinned".into());
    }
}
