//! `receipts schema [KIND] [--out DIR]`: the JSON Schema of each record kind,
//! generated from the Rust types.

use std::path::PathBuf;

use anyhow::Context;
use schemars::{schema_for, Schema};

use receipts_verifier::model::{
    Deviations, Experiment, GitAnchor, HarnessRun, HarnessSuite, ModelCheck, RegressionAblation,
    RegressionActions, RegressionBenchmark, RegressionSuite, Report, ResultRow, Run, Showcase,
    SkillEdit, Study, Summary, Task,
};

use super::{Failure, Out};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Kind {
    Experiment,
    Task,
    Run,
    Summary,
    Study,
    ResultRow,
    Deviations,
    ModelCheck,
    GitAnchor,
    Showcase,
    Report,
    Harness,
    HarnessRun,
    RegressionSuite,
    SkillEdit,
    RegressionBenchmark,
    RegressionActions,
    RegressionAblation,
    InspectEval,
    EvalRegistration,
    OtelTraces,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The record kind to print. Without it, every kind is written to --out.
    pub kind: Option<Kind>,
    /// The directory to write `<kind>.schema.json` files into.
    #[arg(long, default_value = "docs/schema")]
    pub out: PathBuf,
}

/// Every kind with its file name and schema.
pub fn all() -> Vec<(&'static str, Schema)> {
    [
        Kind::Experiment,
        Kind::Task,
        Kind::Run,
        Kind::Summary,
        Kind::Study,
        Kind::ResultRow,
        Kind::Deviations,
        Kind::ModelCheck,
        Kind::GitAnchor,
        Kind::Showcase,
        Kind::Report,
        Kind::Harness,
        Kind::HarnessRun,
        Kind::RegressionSuite,
        Kind::SkillEdit,
        Kind::RegressionBenchmark,
        Kind::RegressionActions,
        Kind::RegressionAblation,
        Kind::InspectEval,
        Kind::EvalRegistration,
        Kind::OtelTraces,
    ]
    .into_iter()
    .map(|k| (name(k), schema(k)))
    .collect()
}

fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Experiment => "experiment",
        Kind::Task => "task",
        Kind::Run => "run",
        Kind::Summary => "summary",
        Kind::Study => "study",
        Kind::ResultRow => "result-row",
        Kind::Deviations => "deviations",
        Kind::ModelCheck => "model-check",
        Kind::GitAnchor => "git-anchor",
        Kind::Showcase => "showcase",
        Kind::Report => "report",
        Kind::Harness => "harness",
        Kind::HarnessRun => "harness-run",
        Kind::RegressionSuite => "regression-suite",
        Kind::SkillEdit => "skill-edit",
        Kind::RegressionBenchmark => "regression-benchmark",
        Kind::RegressionActions => "regression-actions",
        Kind::RegressionAblation => "regression-ablation",
        Kind::InspectEval => "inspect-eval",
        Kind::EvalRegistration => "eval-registration",
        Kind::OtelTraces => "otel-traces",
    }
}

fn schema(kind: Kind) -> Schema {
    match kind {
        Kind::Experiment => schema_for!(Experiment),
        Kind::Task => schema_for!(Task),
        Kind::Run => schema_for!(Run),
        Kind::Summary => schema_for!(Summary),
        Kind::Study => schema_for!(Study),
        Kind::ResultRow => schema_for!(ResultRow),
        Kind::Deviations => schema_for!(Deviations),
        Kind::ModelCheck => schema_for!(ModelCheck),
        Kind::GitAnchor => schema_for!(GitAnchor),
        Kind::Showcase => schema_for!(Showcase),
        Kind::Report => schema_for!(Report),
        Kind::Harness => schema_for!(HarnessSuite),
        Kind::HarnessRun => schema_for!(HarnessRun),
        Kind::RegressionSuite => schema_for!(RegressionSuite),
        Kind::SkillEdit => schema_for!(SkillEdit),
        Kind::RegressionBenchmark => schema_for!(RegressionBenchmark),
        Kind::RegressionActions => schema_for!(RegressionActions),
        Kind::RegressionAblation => schema_for!(RegressionAblation),
        Kind::InspectEval => schema_for!(receipts_verifier::inspect::ImportedEval),
        Kind::EvalRegistration => schema_for!(receipts_verifier::inspect::EvalRegistration),
        Kind::OtelTraces => schema_for!(receipts_verifier::otel::ImportedTraces),
    }
}

/// The schema as written to disk: pretty JSON with a trailing newline.
pub fn to_text(schema: &Schema) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    match args.kind {
        Some(kind) => out.result(to_text(&schema(kind)))?,
        None => {
            std::fs::create_dir_all(&args.out)
                .with_context(|| format!("creating {}", args.out.display()))?;
            for (name, schema) in all() {
                let path = args.out.join(format!("{name}.schema.json"));
                std::fs::write(&path, to_text(&schema))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            out.status(format_args!(
                "wrote the JSON Schemas to {}",
                args.out.display()
            ))?;
        }
    }
    Ok(())
}
