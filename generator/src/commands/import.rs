//! `receipts import inspect LOG... --into experiments/NAME`: Inspect AI
//! logs brought in as receipts. Each original log is kept byte for byte in
//! `experiments/objects/<sha256>`, and the record derived from it is
//! written to `NAME/inspect/<log>.json`; every receipt of the import is
//! then recomputed from the kept log and tallied. Nothing is written
//! unless every log reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use receipts_verifier::inspect::{verify, INSPECT_DIR};
use receipts_verifier::verify::{Status, Tally};

use super::Failure;
use crate::error::EXIT_INPUT;
use crate::import::Prepared;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub from: From,
}

#[derive(Debug, clap::Subcommand)]
pub enum From {
    /// Inspect AI evaluation logs, `.eval` or `.json`.
    Inspect {
        /// The logs to import.
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// The experiment directory to write into, e.g. experiments/gsm8k.
        #[arg(long)]
        into: PathBuf,
        /// Print nothing but failures.
        #[arg(long, short)]
        quiet: bool,
    },
}

fn input_error(file: &Path, message: impl std::fmt::Display) -> Failure {
    Failure {
        message: format!("{}: {message}", file.display()),
        code: EXIT_INPUT as u8,
    }
}

/// Writes `bytes` to `path` through a temporary file beside it, so a
/// reader never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("no parent directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

pub fn run(args: Args) -> Result<(), Failure> {
    let From::Inspect { logs, into, quiet } = args.from;
    let objects = into
        .parent()
        .map(|p| p.join(crate::load::OBJECTS_DIR))
        .ok_or_else(|| {
            input_error(
                &into,
                "--into names an experiment directory, e.g. experiments/NAME",
            )
        })?;
    if into.join("experiment.json").exists() {
        return Err(input_error(
            &into,
            "holds an experiment (experiment.json); import into a directory of its own",
        ));
    }
    // Read and derive everything first: a bad log writes nothing.
    let mut imports: BTreeMap<String, (PathBuf, Vec<u8>, Prepared)> = BTreeMap::new();
    for path in &logs {
        let bytes = std::fs::read(path).map_err(|e| input_error(path, e))?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prepared =
            crate::import::inspect(&file_name, &bytes).map_err(|e| input_error(path, e))?;
        if imports.contains_key(&prepared.name) {
            return Err(input_error(
                path,
                format!(
                    "another log given would also be written as inspect/{}.json; rename one",
                    prepared.name
                ),
            ));
        }
        imports.insert(prepared.name.clone(), (path.clone(), bytes, prepared));
    }
    let mut failed = false;
    for (path, bytes, prepared) in imports.values() {
        let object = objects.join(&prepared.record.source.sha256);
        if !object.is_file() {
            write_atomically(&object, bytes)?;
        }
        let target = into
            .join(INSPECT_DIR)
            .join(format!("{}.json", prepared.name));
        write_atomically(&target, &prepared.record_bytes())?;
        let subject = target.display().to_string();
        let receipts = verify(
            &subject,
            &prepared.record,
            &prepared.log,
            &prepared.record.source.sha256,
        );
        let tally = Tally::of(&receipts);
        for r in receipts.iter().filter(|r| r.status != Status::Pass) {
            println!(
                "{:?} {}: {}: recorded {}; recomputed {}",
                r.status, r.subject, r.claim, r.recorded, r.recomputed
            );
        }
        failed |= tally.fail > 0;
        if !quiet {
            println!(
                "imported {} as {}: {} samples × epochs; {} receipts, {} pass, {} fail, {} could not be checked",
                path.display(),
                target.display(),
                prepared.record.samples.len(),
                tally.total(),
                tally.pass,
                tally.fail,
                tally.could_not_check
            );
        }
    }
    if failed {
        return Err(Failure {
            message: "the imported log's own scores or metrics do not recompute (listed above)"
                .into(),
            code: 1,
        });
    }
    Ok(())
}
