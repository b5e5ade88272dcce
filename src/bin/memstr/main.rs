//! `memstr`: an agent's encrypted memory, from the shell.

mod cli;
mod mcp;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    clear_empty_env();
    let args = cli::Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("MEMSTR_LOG").unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
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
            eprintln!("memstr: {e:#}");
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
