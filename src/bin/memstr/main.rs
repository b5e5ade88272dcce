//! `memstr`: an agent's encrypted memory, from the shell.

mod args;
mod cli;
mod episode;
mod forward;
mod keys;
mod learning;
mod mcp;
mod output;
mod relay_guard;
mod relay_serve;
mod strength;
mod syncing;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Everything memstr creates (stores, exports, the relay's database, the model cache)
    // is owner-only, whatever the umask it was started with.
    #[cfg(unix)]
    // SAFETY: umask only sets this process's file creation mask; no memory is touched.
    unsafe {
        libc::umask(0o077);
    }
    clear_empty_env();
    let args = args::Args::parse();
    // `search --no-vectors` turned the model off on purpose: no warning that it is off.
    let chosen = matches!(&args.command, args::Command::Search(s) if s.no_vectors);
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("MEMSTR_LOG").unwrap_or_else(|_| {
            // The relay library reports every client that hangs up without a closing
            // handshake as an error: routine for a relay, noise in its log.
            if chosen { "warn,nostr_relay_builder=off,memstr::search=error" } else { "warn,nostr_relay_builder=off" }
                .into()
        }))
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal: logs and agents read plain text.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("memstr: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(cli::run(args)) {
        Ok(code) => code,
        Err(e) => {
            // An error can quote a reference or a relay: escaped like all output.
            eprintln!("memstr: {}", memstr::display::block(&message(&e)));
            ExitCode::from(2)
        }
    }
}

/// `MEMSTR_DIR=` (and the like) left empty in a shell or a config file means "unset", not
/// "the empty path": drop such variables before clap reads them. The password is kept: an
/// empty one is refused with its own message.
fn clear_empty_env() {
    for (name, value) in std::env::vars_os() {
        let name_str = name.to_string_lossy();
        if value.is_empty() && name_str.starts_with("MEMSTR_") && name_str != memstr::identity::ENV_PASSWORD {
            // Still single-threaded: the runtime starts below.
            std::env::remove_var(&name);
        }
    }
}

/// The error and its causes, each said once: memstr's errors already name their cause in
/// their own message, and anyhow's `{:#}` would repeat it.
pub(crate) fn message(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
