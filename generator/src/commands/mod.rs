//! The subcommands, one file each.

mod anchor;
mod build;
mod export;
mod import;
pub mod schema;
mod serve;
mod simulate;
mod verifier;
mod verify;

use clap::{Parser, Subcommand};

use crate::build::BuildError;
use crate::error::EXIT_INPUT;

#[derive(Debug, Parser)]
#[command(
    name = "receipts",
    version,
    about = "Build a verifiable static site from recorded agent experiments"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the site from experiments/, showcase/ and docs/.
    Build(build::Args),
    /// Build, serve on 127.0.0.1, rebuild on change and reload open pages.
    Serve(serve::Args),
    /// Verify a built site or an exported report: every receipt recomputed.
    Verify(verify::Args),
    /// Write the standalone verifier: a page that checks a site without running its code.
    Verifier(verifier::Args),
    /// Import runs recorded by another tool (Inspect AI logs, OpenTelemetry traces), kept by digest and verified.
    Import(import::Args),
    /// Export one run as a self-contained report file.
    Export(export::Args),
    /// Write the simulated sample input (or a large experiment for scale tests).
    Simulate(simulate::Args),
    /// Print the JSON Schema of a record kind, or write all of them.
    Schema(schema::Args),
    /// Show what backs a registration's time; write an RFC 3161 request for it, or keep a TSA's verified answer.
    Anchor(anchor::Args),
}

/// A failed command: what to print and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure {
            message: format!("{e:#}"),
            code: 1,
        }
    }
}

impl From<BuildError> for Failure {
    fn from(e: BuildError) -> Self {
        let code = match e {
            BuildError::Input(_) => EXIT_INPUT as u8,
            BuildError::Other(_) => 1,
        };
        Failure {
            message: e.to_string(),
            code,
        }
    }
}

pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Build(args) => build::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Verifier(args) => verifier::run(args),
        Command::Import(args) => import::run(args),
        Command::Export(args) => export::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Anchor(args) => anchor::run(args),
    }
}
