//! `receipts import inspect LOG... --into experiments/NAME` and
//! `receipts import otel EXPORT... --into experiments/NAME`: Inspect AI
//! logs and OpenTelemetry exports brought in as receipts. Each original
//! is kept byte for byte in `experiments/objects/<sha256>`, and the
//! record derived from it is written to `NAME/inspect/<log>.json` or
//! `NAME/otel/<export>.json`; every receipt of the import is then
//! recomputed from the kept original and tallied.
//!
//! `receipts import runreport STREAM... --into experiments/harness/NAME`:
//! a harness's run reports, streamed as JSON lines, written as the suite
//! `NAME` and its runs (a line holds what a harness record holds, so no
//! original is kept); every figure of every report is then recomputed from
//! the run's events and tallied.
//!
//! Nothing is written unless every file reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use receipts_verifier::inspect::{EvalRegistration, EVAL_REGISTRATION_FILE, INSPECT_DIR};
use receipts_verifier::otel::OTEL_DIR;
use receipts_verifier::verify::{Receipt, Status, Tally};

use super::{Failure, Out};
use crate::error::EXIT_INPUT;
use crate::import::{OtelFile, Prepared};
use crate::numbers::count;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub from: From,
    /// Exit 0 rather than 3 when nothing failed but something could not be
    /// checked, as `receipts verify --allow-unchecked` does.
    #[arg(long, global = true)]
    pub allow_unchecked: bool,
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
    },
    /// OpenTelemetry exports in OTLP/JSON: trace exports (one record each,
    /// one run per trace; spans of the GenAI semantic conventions,
    /// OpenInference or OpenLLMetry) and the log exports whose GenAI
    /// records carry their messages.
    Otel {
        /// The exports to import, traces and logs, in any order.
        #[arg(required = true)]
        exports: Vec<PathBuf>,
        /// The experiment directory to write into, e.g. experiments/agent.
        #[arg(long)]
        into: PathBuf,
    },
    /// A harness's run reports, streamed as JSON lines by its report sink:
    /// a line of `"kind": "harness"` with the rules, then a line of
    /// `"kind": "run_report"` per run (docs/BRING-YOUR-OWN-RUNS.md).
    Runreport {
        /// The streams to import, in order: one harness's runs.
        #[arg(required = true)]
        streams: Vec<PathBuf>,
        /// The suite's directory to write into, e.g. experiments/harness/nightly.
        #[arg(long)]
        into: PathBuf,
    },
}

/// One record written, with its receipts, for the tally.
struct Written {
    from: String,
    target: PathBuf,
    /// What the record holds, e.g. "300 samples × 1 epoch".
    holds: String,
    receipts: Vec<Receipt>,
}

fn input_error(file: &Path, message: impl std::fmt::Display) -> Failure {
    Failure {
        message: format!("{}: {message}", file.display()),
        code: EXIT_INPUT as u8,
    }
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let written = match args.from {
        From::Inspect { logs, into } => inspect(&logs, &into)?,
        From::Otel { exports, into } => otel(&exports, &into)?,
        From::Runreport { streams, into } => runreport(&streams, &into)?,
    };
    for w in &written {
        let tally = Tally::of(&w.receipts);
        for r in w.receipts.iter().filter(|r| r.status != Status::Pass) {
            // What does not hold is printed even with --quiet.
            out.result(super::not_passing_line(r))?;
        }
        out.status(format_args!(
            "imported {} as {}: {}; {}, {} pass, {} fail, {} could not be checked",
            w.from,
            w.target.display(),
            w.holds,
            count(tally.total(), "receipt", None),
            tally.pass,
            tally.fail,
            tally.could_not_check
        ))?;
    }
    let tally = Tally::of(written.iter().flat_map(|w| &w.receipts));
    if tally.fail > 0 {
        return Err(Failure {
            message: "the imported original does not hold up against itself (listed above)".into(),
            code: 1,
        });
    }
    // Could-not-check and nothing-recomputed exit as `receipts verify` does.
    super::verify::outcome(tally, args.allow_unchecked)
}

/// Where the originals are kept beside `into`, which must be a directory of
/// the project's `experiments/` (the only one a build reads) and must not
/// hold an experiment.
fn objects_beside(into: &Path) -> Result<PathBuf, Failure> {
    let parent = into.parent().filter(|p| {
        p.file_name()
            .is_some_and(|n| n == crate::load::EXPERIMENTS_DIR)
    });
    let Some(parent) = parent else {
        let name = into
            .file_name()
            .map_or_else(|| "NAME".into(), |n| n.to_string_lossy());
        return Err(input_error(
            into,
            format!(
                "--into names a directory of the project's experiments/, which is all a build reads: write --into {}/{name}",
                crate::load::EXPERIMENTS_DIR
            ),
        ));
    };
    let objects = parent.join(crate::load::OBJECTS_DIR);
    if into.join("experiment.json").exists() {
        return Err(input_error(
            into,
            "holds an experiment (experiment.json); import into a directory of its own",
        ));
    }
    Ok(objects)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Keeps `bytes` under its digest in `objects`, once.
fn keep(objects: &Path, sha256: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let object = objects.join(sha256);
    if !object.is_file() {
        crate::atomic::write(&object, bytes)?;
    }
    Ok(())
}

fn inspect(logs: &[PathBuf], into: &Path) -> Result<Vec<Written>, Failure> {
    let objects = objects_beside(into)?;
    // Read and derive everything first: a bad log writes nothing.
    let mut imports: BTreeMap<String, (PathBuf, Vec<u8>, Prepared)> = BTreeMap::new();
    for path in logs {
        let bytes = std::fs::read(path).map_err(|e| input_error(path, e))?;
        let prepared =
            crate::import::inspect(&file_name(path), &bytes).map_err(|e| input_error(path, e))?;
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
    // A registration kept beside the logs holds each to its task's entry
    // now, not only when the site is built.
    let registration_file = into.join(EVAL_REGISTRATION_FILE);
    let registration: Option<EvalRegistration> = if registration_file.is_file() {
        let bytes =
            std::fs::read(&registration_file).map_err(|e| input_error(&registration_file, e))?;
        Some(
            crate::parse::json(&registration_file.display().to_string(), &bytes).map_err(|e| {
                Failure {
                    message: e.to_string(),
                    code: EXIT_INPUT as u8,
                }
            })?,
        )
    } else {
        None
    };
    let dir = into.display().to_string();
    let mut written = Vec::new();
    for (path, bytes, prepared) in imports.values() {
        keep(&objects, &prepared.record.source.sha256, bytes)?;
        let target = into
            .join(INSPECT_DIR)
            .join(format!("{}.json", prepared.name));
        crate::atomic::write(&target, &prepared.record_bytes())?;
        let mut receipts = receipts_verifier::inspect::verify(
            &target.display().to_string(),
            &prepared.record,
            &prepared.log,
            &prepared.record.source.sha256,
        );
        if let Some(r) = &registration {
            let (per_eval, _) = receipts_verifier::inspect::registration_receipts(
                &dir,
                r,
                &[(prepared.name.as_str(), &prepared.record)],
            );
            receipts.extend(per_eval.into_iter().flatten());
        }
        written.push(Written {
            from: path.display().to_string(),
            target,
            holds: crate::site::samples_by_epochs(&prepared.record),
            receipts,
        });
    }
    Ok(written)
}

fn otel(exports: &[PathBuf], into: &Path) -> Result<Vec<Written>, Failure> {
    let objects = objects_beside(into)?;
    // Read and pair everything first: a bad export writes nothing.
    let mut files = Vec::new();
    for path in exports {
        let bytes = std::fs::read(path).map_err(|e| input_error(path, e))?;
        files.push(OtelFile::read(&file_name(path), bytes).map_err(|e| input_error(path, e))?);
    }
    let by_name: BTreeMap<&str, &PathBuf> = files
        .iter()
        .zip(exports)
        .map(|(f, p)| (f.file_name.as_str(), p))
        .collect();
    let prepared = crate::import::otel_all(&files)
        .map_err(|(name, message)| input_error(by_name[name.as_str()], message))?;
    let mut names = std::collections::BTreeSet::new();
    for p in &prepared {
        if !names.insert(&p.name) {
            return Err(input_error(
                by_name[p.traces.file_name.as_str()],
                format!(
                    "another export given would also be written as otel/{}.json; rename one",
                    p.name
                ),
            ));
        }
    }
    let mut written = Vec::new();
    for p in &prepared {
        keep(&objects, &p.record.source.sha256, &p.traces.bytes)?;
        for (file, source) in p.events.iter().zip(&p.record.events) {
            keep(&objects, &source.sha256, &file.bytes)?;
        }
        let target = into.join(OTEL_DIR).join(format!("{}.json", p.name));
        crate::atomic::write(&target, &p.record_bytes())?;
        let events: Vec<_> = p.events.iter().map(|e| &e.export).collect();
        let receipts = receipts_verifier::otel::verify(
            &target.display().to_string(),
            &p.record,
            &p.traces.export,
            &events,
        );
        let calls: usize = p.record.runs.iter().map(|r| r.calls.len()).sum();
        let mut from = by_name[p.traces.file_name.as_str()].display().to_string();
        for e in &p.events {
            from.push_str(&format!(
                " with {}",
                by_name[e.file_name.as_str()].display()
            ));
        }
        written.push(Written {
            from,
            target,
            holds: format!(
                "{}, {}",
                count(p.record.runs.len(), "run", None),
                count(calls, "model call", None)
            ),
            receipts,
        });
    }
    Ok(written)
}

fn runreport(streams: &[PathBuf], into: &Path) -> Result<Vec<Written>, Failure> {
    let suite_id = harness_dir(into)?;
    let mut files = Vec::new();
    for path in streams {
        let bytes = std::fs::read(path).map_err(|e| input_error(path, e))?;
        files.push((path.display().to_string(), bytes));
    }
    let input = |e: crate::error::InputError| Failure {
        message: e.to_string(),
        code: EXIT_INPUT as u8,
    };
    let stream = crate::runreport::read(&files, &suite_id).map_err(input)?;
    let loaded = crate::load::LoadedSuite {
        dir: suite_id.clone(),
        suite: stream.suite.clone(),
        runs: stream.runs.iter().map(|r| r.run.clone()).collect(),
    };
    // What a build would refuse is refused now, naming the line.
    crate::validate::harness_suite(&loaded).map_err(|e| {
        let at = stream
            .runs
            .iter()
            .find(|r| e.file.ends_with(&format!("/{}.json", r.run.id)))
            .map(|r| &r.at);
        match at {
            Some(at) => input(at.error(e.place.as_deref(), e.message)),
            None => input(crate::error::InputError {
                file: files[0].0.clone(),
                ..e
            }),
        }
    })?;

    // A suite imported before may take more runs from the same harness;
    // nothing it holds is overwritten with other content.
    let suite_file = into.join("harness.json");
    let suite_bytes = pretty(&stream.suite);
    unchanged_or_absent(&suite_file, &suite_bytes, "the rules the stream gives")?;
    let mut runs = Vec::new();
    for r in &stream.runs {
        let file = into
            .join(receipts_verifier::layout::RUNS_DIR)
            .join(format!("{}.json", r.run.id));
        let bytes = pretty(&r.run);
        unchanged_or_absent(&file, &bytes, &format!("the run reported at {}", r.at))?;
        runs.push((file, bytes));
    }
    crate::atomic::write(&suite_file, &suite_bytes)?;
    for (file, bytes) in &runs {
        crate::atomic::write(file, bytes)?;
    }

    let verification =
        receipts_verifier::verify::verify_suite(&suite_id, &loaded.suite, &loaded.runs);
    let mut written = Vec::new();
    for (r, receipts) in stream.runs.iter().zip(verification.runs) {
        let calls = r
            .run
            .events
            .iter()
            .filter(|e| matches!(e, receipts_verifier::model::HarnessEvent::ProviderCall(_)))
            .count();
        written.push(Written {
            from: r.at.to_string(),
            target: into
                .join(receipts_verifier::layout::RUNS_DIR)
                .join(format!("{}.json", r.run.id)),
            holds: format!(
                "{}, {}",
                count(r.run.events.len(), "event", None),
                count(calls, "model call", None)
            ),
            receipts,
        });
    }
    if let Some(first) = written.first_mut() {
        first.receipts.splice(0..0, verification.receipts);
    }
    Ok(written)
}

/// The suite's id from `into`, which must be a directory of the project's
/// `experiments/harness/`.
fn harness_dir(into: &Path) -> Result<String, Failure> {
    let name = file_name(into);
    let parent = into.parent();
    let under_harness = parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == receipts_verifier::model::HARNESS_DIR);
    let under_experiments = parent
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|n| n == crate::load::EXPERIMENTS_DIR);
    if !(under_harness && under_experiments) || name.is_empty() {
        let name = if name.is_empty() { "NAME".into() } else { name };
        return Err(input_error(
            into,
            format!(
                "--into names a suite's directory under the project's experiments/harness/, which is where a build reads harness runs: write --into {}/{}/{name}",
                crate::load::EXPERIMENTS_DIR,
                receipts_verifier::model::HARNESS_DIR
            ),
        ));
    }
    Ok(name)
}

fn pretty<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Refuses to overwrite `file` with other bytes than it holds.
fn unchanged_or_absent(file: &Path, bytes: &[u8], what: &str) -> Result<(), Failure> {
    match std::fs::read(file) {
        Ok(held) if held != bytes => Err(input_error(
            file,
            format!("already holds other content than {what}; import into a directory of its own, or remove it first"),
        )),
        _ => Ok(()),
    }
}
