//! `receipts import inspect LOG... --into experiments/NAME`: Inspect AI
//! logs brought in as receipts. Each original log is kept byte for byte in
//! `experiments/objects/<sha256>`, and the record derived from it is
//! written to `NAME/inspect/<log>.json`; every receipt of the import is
//! then recomputed from the kept log and tallied. Nothing is written
//! unless every log reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::inspect::{derive, verify, Log, Source};
use receipts_verifier::verify::Tally;

use super::Failure;
use crate::error::EXIT_INPUT;

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

/// The file name a record takes from its log: the log's stem in letters,
/// digits, `.`, `_` and `-`.
fn record_name(log: &Path) -> String {
    let stem = log
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("log{name}")
    } else {
        name
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
    // Read and derive everything first: a bad log writes nothing.
    let mut imports = BTreeMap::new();
    for path in &logs {
        let bytes = std::fs::read(path).map_err(|e| input_error(path, e))?;
        let log = Log::read(&bytes).map_err(|e| input_error(path, e))?;
        let sha256 = sha256_hex(&bytes);
        let source = Source {
            tool: "inspect_ai".into(),
            version: log
                .eval
                .packages
                .get("inspect_ai")
                .cloned()
                .unwrap_or_else(|| "unknown".into()),
            file: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            format: if bytes.starts_with(b"PK") {
                "eval"
            } else {
                "json"
            }
            .into(),
            sha256: sha256.clone(),
        };
        let record = derive(&log, source);
        let name = record_name(path);
        if imports.contains_key(&name) {
            return Err(input_error(
                path,
                format!(
                    "another log given would also be written as inspect/{name}.json; rename one"
                ),
            ));
        }
        imports.insert(name, (path.clone(), bytes, log, record));
    }
    let mut failed = false;
    for (name, (path, bytes, log, record)) in &imports {
        let object = objects.join(&record.source.sha256);
        if !object.is_file() {
            write_atomically(&object, bytes)?;
        }
        let mut json = serde_json::to_vec_pretty(record).context("the record")?;
        json.push(b'\n');
        let target = into.join("inspect").join(format!("{name}.json"));
        write_atomically(&target, &json)?;
        let subject = target.display().to_string();
        let receipts = verify(&subject, record, log, &sha256_hex(bytes));
        let tally = Tally::of(&receipts);
        for r in receipts
            .iter()
            .filter(|r| r.status != receipts_verifier::verify::Status::Pass)
        {
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
                record.samples.len(),
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
