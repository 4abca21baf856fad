//! The subcommands, one file each.

mod add_input;
mod anchor;
mod build;
mod export;
mod import;
mod record;
mod root;
pub mod schema;
mod serve;
mod simulate;
mod verifier;
mod verify;

use clap::{Parser, Subcommand};

use crate::error::EXIT_INPUT;
use crate::error::{BuildError, FileError};
use crate::record::RecordError;
use crate::serve::ServeError;

#[derive(Debug, Parser)]
#[command(
    name = "receipts",
    version,
    about = "Build a verifiable static site from recorded agent experiments"
)]
pub struct Cli {
    /// Print nothing to standard output but what was asked for (`--json`,
    /// `schema KIND`, `export --out -`); errors and warnings still go to
    /// standard error, and the exit code tells the result.
    #[arg(long, short, global = true)]
    pub quiet: bool,
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
    /// Write the root site of a study published as shards: each shard listed by its root digest.
    Root(root::Args),
    /// Import runs recorded by another tool (Inspect AI logs, OpenTelemetry traces), kept by digest and verified.
    Import(import::Args),
    /// Run an agent's command through a recording proxy and make its provider calls a run of an experiment.
    Record(record::Args),
    /// Keep a file as a task's input: stored by its SHA-256 in experiments/objects/ and named in the task.
    AddInput(add_input::Args),
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
            _ => 1,
        };
        Failure {
            message: crate::error::report(&e),
            code,
        }
    }
}

/// A receipt that did not pass, as `import` and `record` print it (even
/// with `--quiet`): `FAIL` or `COULD NOT CHECK`, as `receipts verify`
/// words them, then the subject, the claim, what was recorded and what was
/// recomputed.
pub(crate) fn not_passing_line(r: &receipts_verifier::verify::Receipt) -> String {
    use receipts_verifier::verify::Status;
    let word = match r.status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::CouldNotCheck => "COULD NOT CHECK",
    };
    format!(
        "{word} {}: {}: recorded {}; recomputed {}\n",
        r.subject, r.claim, r.recorded, r.recomputed
    )
}

impl Failure {
    /// Exit 1 for `e`, with every cause beneath it.
    fn other(e: &dyn std::error::Error) -> Self {
        Failure {
            message: crate::error::report(e),
            code: 1,
        }
    }
}

impl From<FileError> for Failure {
    fn from(e: FileError) -> Self {
        Failure::other(&e)
    }
}

impl From<RecordError> for Failure {
    fn from(e: RecordError) -> Self {
        Failure::other(&e)
    }
}

impl From<ServeError> for Failure {
    fn from(e: ServeError) -> Self {
        let mut failure = Failure::other(&e);
        // An address that cannot be taken is the command line's to change.
        if matches!(e, ServeError::Listen { .. }) {
            failure.code = EXIT_INPUT as u8;
        }
        failure
    }
}

pub fn run(cli: Cli) -> Result<(), Failure> {
    let out = Out { quiet: cli.quiet };
    match cli.command {
        Command::Build(args) => build::run(args, out),
        Command::Serve(args) => serve::run(args, out),
        Command::Verify(args) => verify::run(args, out),
        Command::Verifier(args) => verifier::run(args, out),
        Command::Root(args) => root::run(args, out),
        Command::Import(args) => import::run(args, out),
        Command::Record(args) => record::run(args, out),
        Command::AddInput(args) => add_input::run(args, out),
        Command::Export(args) => export::run(args, out),
        Command::Simulate(args) => simulate::run(args, out),
        Command::Schema(args) => schema::run(args, out),
        Command::Anchor(args) => anchor::run(args, out),
    }
}

/// A command's standard output. A reader that went away (`| head`) ends the
/// output quietly instead of a panic; `--quiet` keeps status lines back.
#[derive(Debug, Clone, Copy)]
pub struct Out {
    pub quiet: bool,
}

impl Out {
    /// Output the command was asked for: printed even with `--quiet`.
    pub fn result(self, text: impl AsRef<[u8]>) -> Result<(), Failure> {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(text.as_ref())
            .and_then(|()| stdout.flush())
        {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure {
                message: format!("writing the result: {e}"),
                code: 1,
            }),
            _ => Ok(()),
        }
    }

    /// A status line (a newline is added): not printed with `--quiet`.
    pub fn status(self, line: impl std::fmt::Display) -> Result<(), Failure> {
        if self.quiet {
            return Ok(());
        }
        self.result(format!("{line}\n"))
    }

    /// A spinner on standard error while a long step runs; drawn only on a
    /// terminal and never with `--quiet`.
    pub fn spinner(self, message: &'static str) -> indicatif::ProgressBar {
        if self.quiet {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::new_spinner().with_message(message);
        // Drawn only once the step has taken a second: a quick one leaves no trace.
        bar.enable_steady_tick(std::time::Duration::from_millis(1000));
        bar
    }
}
