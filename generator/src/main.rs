//! The `receipts` command.

use std::process::ExitCode;

use clap::Parser;

use receipts::commands::{run, Cli};

/// A build allocates and frees many small strings on every core; mimalloc
/// serves that pattern faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
