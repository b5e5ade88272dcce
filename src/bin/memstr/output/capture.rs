//! Where the CLI's lines go: the terminal, or a capture a server sends back to the client
//! that handed it a command (src/bin/memstr/forward.rs).

use std::io::Write;

/// A piece of a command's output: what a server ran for a client (src/bin/memstr/forward.rs)
/// is sent back in these, in order, so the client prints exactly what it would have printed
/// itself, standard output and error interleaved as they were.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    /// For standard error (else standard output).
    pub stderr: bool,
    pub text: String,
}

thread_local! {
    /// Set while [`capture`] runs: output goes here instead of the terminal.
    static CAPTURED: std::cell::RefCell<Option<Vec<Chunk>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (output code: synchronous, on this thread) with everything it prints collected.
pub fn capture(f: impl FnOnce()) -> Vec<Chunk> {
    CAPTURED.with(|c| *c.borrow_mut() = Some(Vec::new()));
    // Taken back even if `f` panics: a serving thread must not keep swallowing output.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CAPTURED.with(|c| c.borrow_mut().take());
        }
    }
    let reset = Reset;
    f();
    let chunks = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
    drop(reset);
    chunks
}

/// One line of output, to the capture when one runs, else to the terminal.
pub fn emit(stderr: bool, mut text: String) {
    text.push('\n');
    let text = match CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(chunks) => {
            match chunks.last_mut() {
                Some(last) if last.stderr == stderr => last.text.push_str(&text),
                _ => chunks.push(Chunk { stderr, text }),
            }
            None
        }
        None => Some(text),
    }) {
        Some(t) => t,
        None => return,
    };
    if stderr {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
}

/// Prints what a server captured, as [`emit`] would have.
pub fn replay(chunks: &[Chunk]) {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    for c in chunks {
        let _ = if c.stderr {
            err.write_all(c.text.as_bytes())
        } else {
            out.write_all(c.text.as_bytes()).and_then(|_| out.flush())
        };
    }
    let _ = out.flush();
}
