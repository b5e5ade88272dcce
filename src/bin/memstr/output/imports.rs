//! Output of the bulk commands: `memstr index`'s report and progress, `memstr import`'s
//! progress and the account of an import of plain memories.

use std::io::{IsTerminal, Write};

use serde_json::json;

use super::{print_json, Out};

impl Out {
    /// What `memstr index` did.
    pub fn indexed(&self, r: &memstr::EmbedReport) {
        if self.json {
            print_json(&json!(r));
        } else {
            outln!(
                "embedded {} records ({} reused from other devices), signed {} embedding events; {} still pending",
                r.embedded,
                r.reused,
                r.published,
                r.remaining
            );
        }
    }
}

/// Progress of `memstr index` on stderr: a bar redrawn in place on a terminal; elsewhere
/// (a log, a pipe) a plain line at each tenth and at the end, without escape codes.
/// Nothing with `--json`.
pub fn embed_progress(out: &Out) -> impl FnMut(usize, usize) + Send {
    let (quiet, terminal) = (out.json, std::io::stderr().is_terminal());
    let mut last_tenth = 0;
    move |done: usize, total: usize| {
        if quiet || total == 0 {
            return;
        }
        let mut err = std::io::stderr();
        if terminal {
            let width = 30;
            let filled = done * width / total.max(1);
            let bar = format!("{}{}", "#".repeat(filled), "-".repeat(width - filled));
            let _ = write!(err, "\rembedding [{bar}] {done}/{total}");
            if done >= total {
                let _ = writeln!(err);
            }
        } else {
            let tenth = done * 10 / total.max(1);
            if tenth > last_tenth || done >= total {
                last_tenth = tenth;
                let _ = writeln!(err, "embedding {done}/{total}");
            }
        }
        let _ = err.flush();
    }
}

/// What `memstr import --memories` wrote so far.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct MemoryImport {
    /// Memories written.
    pub imported: u64,
    /// Of which flat memories, journal entries, persona memories.
    pub kv: u64,
    pub journal: u64,
    pub persona: u64,
    /// Batches (transactions) written.
    pub batches: u64,
    /// Lines read (blank ones included).
    pub lines: u64,
}

impl MemoryImport {
    /// Flat memories, journal entries and persona memories in `batch`.
    pub fn count(batch: &[memstr::BatchItem]) -> [u64; 3] {
        let mut n = [0; 3];
        for item in batch {
            match item {
                memstr::BatchItem::Kv { .. } => n[0] += 1,
                memstr::BatchItem::Journal { .. } => n[1] += 1,
                _ => n[2] += 1,
            }
        }
        n
    }

    /// A batch written, up to line `through`.
    pub fn written(&mut self, [kv, journal, persona]: [u64; 3], through: u64) {
        (self.kv, self.journal, self.persona) = (self.kv + kv, self.journal + journal, self.persona + persona);
        self.imported += kv + journal + persona;
        self.batches += 1;
        self.lines = through;
    }

    /// Why the import stopped at `line`, and what of it was written.
    pub fn stopped(&self, line: u64, problem: &str) -> String {
        format!("line {line}: {}; {}", memstr::display::line(problem), self.kept())
    }

    /// The import stopped writing the batch that starts at line `first`.
    pub fn stopped_at_batch(&self, first: u64) -> String {
        format!("the batch from line {first} was not written ({})", self.kept())
    }

    fn kept(&self) -> String {
        match self.imported {
            0 => "nothing was imported".into(),
            n => format!(
                "its batch was not written; the {n} memories of lines 1 to {} were (start again from line {})",
                self.lines,
                self.lines + 1
            ),
        }
    }
}

/// Memories written by `memstr import --memories`, on stderr at a terminal, after each batch.
pub fn memory_import_progress(out: &Out) -> impl FnMut(&MemoryImport) {
    let shown = !out.json && std::io::stderr().is_terminal();
    move |done: &MemoryImport| {
        if shown {
            let mut err = std::io::stderr();
            let _ = write!(err, "\rimporting: {} memories written, {} lines read", done.imported, done.lines);
            let _ = err.flush();
        }
    }
}

/// Lines read by `memstr import`, on stderr at a terminal, every 10,000 lines.
pub fn import_progress(out: &Out) -> impl FnMut(u64) + Send {
    let shown = !out.json && std::io::stderr().is_terminal();
    let mut next = 10_000;
    move |lines: u64| {
        if shown && lines >= next {
            next = lines + 10_000;
            let mut err = std::io::stderr();
            let _ = write!(err, "\rimporting: {lines} lines read");
            let _ = err.flush();
        }
    }
}
