//! The deterministic simulator that writes the sample input: a scripted agent
//! and a scripted provider run every cell of each sample experiment. Same
//! plan, same bytes. Everything it writes is marked simulated.

mod agent;
mod calibrate;
mod calls;
mod claims;
mod conduct;
mod fixtures;
mod harness;
mod memos;
mod models;
mod plan;
mod publish;
mod regression;
mod rng;

use std::collections::BTreeMap;

use serde::Serialize;

use receipts_verifier::layout;
use receipts_verifier::model::{
    FormatVersion, Run, Showcase, ShowcaseKind, ShowcaseRun, STUDY_FILE,
};

use conduct::{write_experiment, write_experiment_limited};
use fixtures::Fixture;

/// A file the simulator writes, relative to the output root.
pub type Files = BTreeMap<String, Vec<u8>>;

/// The sample: two experiments over the three task families, and a showcase.
pub fn sample() -> Files {
    let mut out = Files::new();
    let fixtures = fixtures::fixtures();
    write_tasks(&mut out, &fixtures);
    let mut all_runs = Vec::new();
    let mut earlier = publish::Earlier::default();
    for plan in plan::sample() {
        let (runs, published) =
            write_experiment(&mut out, &plan, &fixtures, plan.id == "E02", &earlier);
        if let (true, Some(reruns)) = (plan.id == "E02", &published.reruns) {
            out.insert(
                "docs/memos/E02-corrections.md".to_string(),
                claims::corrections_memo(&plan.id, &published.primary, reruns).into_bytes(),
            );
        }
        earlier.analyses.insert(plan.id.clone(), published.primary);
        earlier
            .budgets
            .push((plan.id.clone(), plan.max_output_tokens));
        all_runs.extend(runs);
    }
    out.insert(
        format!("experiments/{STUDY_FILE}"),
        json_bytes(&claims::study()),
    );
    for (name, memo) in [
        ("limitations", memos::LIMITATIONS),
        ("provider-feedback", memos::FEEDBACK),
    ] {
        out.insert(format!("docs/memos/{name}.md"), memo.as_bytes().to_vec());
    }
    write_showcase(&mut out, &all_runs);
    write_imported(&mut out);
    write_imported_traces(&mut out);
    harness::write(&mut out);
    regression::write(&mut out);
    out
}

/// Where the sample keeps its evaluations imported from Inspect AI.
pub const IMPORTED_DIR: &str = "I01";

/// Inspect AI logs the sample imports: written by Inspect AI itself
/// against its mock model (`tests/fixtures/inspect/make_logs.py`), so the
/// outputs are scripted, not a real model's.
const INSPECT_LOGS: [(&str, &[u8]); 6] = [
    (
        "choice.eval",
        include_bytes!("../../tests/fixtures/inspect/choice.eval"),
    ),
    (
        "errors.eval",
        include_bytes!("../../tests/fixtures/inspect/errors.eval"),
    ),
    (
        "failed.eval",
        include_bytes!("../../tests/fixtures/inspect/failed.eval"),
    ),
    (
        "scorers.eval",
        include_bytes!("../../tests/fixtures/inspect/scorers.eval"),
    ),
    (
        "tools.eval",
        include_bytes!("../../tests/fixtures/inspect/tools.eval"),
    ),
    (
        "unscored.eval",
        include_bytes!("../../tests/fixtures/inspect/unscored.eval"),
    ),
];

/// The imported evaluations, as `receipts import inspect` writes them.
fn write_imported(out: &mut Files) {
    for (name, bytes) in INSPECT_LOGS {
        let prepared =
            receipts_verifier::import::inspect(name, bytes).expect("the sample's logs read");
        out.insert(
            format!("experiments/{}", prepared.object_path()),
            bytes.to_vec(),
        );
        out.insert(
            format!("experiments/{}", prepared.record_path(IMPORTED_DIR)),
            prepared.record_bytes(),
        );
    }
}

/// Where the sample keeps its agent runs imported from OpenTelemetry traces.
pub const IMPORTED_TRACES_DIR: &str = "I02";

/// OpenTelemetry exports the sample imports: written by the OpenTelemetry
/// SDK's GenAI instrumentation of the OpenAI SDK against a local mock of
/// the API (`tests/fixtures/otel/make_traces.py`), so the answers are
/// scripted, not a real model's.
const OTEL_EXPORTS: [(&str, &[u8]); 2] = [
    (
        "agent.otlp.json",
        include_bytes!("../../tests/fixtures/otel/agent.otlp.json"),
    ),
    (
        "agent.logs.otlp.json",
        include_bytes!("../../tests/fixtures/otel/agent.logs.otlp.json"),
    ),
];

/// The imported traces, as `receipts import otel` writes them.
fn write_imported_traces(out: &mut Files) {
    let files: Vec<receipts_verifier::import::OtelFile> = OTEL_EXPORTS
        .iter()
        .map(|(name, bytes)| {
            receipts_verifier::import::OtelFile::read(name, bytes.to_vec())
                .expect("the sample's exports read")
        })
        .collect();
    for prepared in receipts_verifier::import::otel_all(&files).expect("the sample's exports pair")
    {
        for (sha256, bytes) in
            std::iter::once((&prepared.record.source.sha256, &prepared.traces.bytes)).chain(
                prepared
                    .record
                    .events
                    .iter()
                    .map(|s| &s.sha256)
                    .zip(prepared.events.iter().map(|e| &e.bytes)),
            )
        {
            out.insert(
                format!("experiments/{}", layout::object_path(sha256)),
                bytes.clone(),
            );
        }
        out.insert(
            format!("experiments/{}", prepared.record_path(IMPORTED_TRACES_DIR)),
            prepared.record_bytes(),
        );
    }
}

/// The id of the experiment [`scale`] writes.
pub const SCALE_EXPERIMENT: &str = "S01";

/// One experiment of `runs` runs, for scale tests.
pub fn scale(runs: usize) -> Files {
    scale_named(runs, SCALE_EXPERIMENT)
}

/// One experiment of `runs` runs with id `id` (its directory's name, and
/// the start of each run's id), for scale tests: experiments of different
/// ids share no run, so each can be a shard of one study.
pub fn scale_named(runs: usize, id: &str) -> Files {
    let mut out = Files::new();
    let fixtures = fixtures::fixtures();
    write_tasks(&mut out, &fixtures);
    let plan = plan::scale(runs, id);
    write_experiment_limited(
        &mut out,
        &plan,
        &fixtures,
        false,
        Some(runs),
        &publish::Earlier::default(),
    );
    out
}

fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn write_tasks(out: &mut Files, fixtures: &[Fixture]) {
    for f in fixtures {
        out.insert(
            format!("experiments/{}", layout::task_path(&f.task.id)),
            json_bytes(&f.task),
        );
        for bytes in f.files.values() {
            out.insert(
                format!(
                    "experiments/{}",
                    layout::object_path(&receipts_verifier::digest::sha256_hex(bytes))
                ),
                bytes.clone(),
            );
        }
    }
}

/// Picks a handful of runs worth a look and writes the showcase with its narrative.
fn write_showcase(out: &mut Files, runs: &[Run]) {
    use receipts_verifier::model::{ActionTool, CallStatus, Decision};
    // Each pick is the first run matching its description that is not picked already.
    let taken = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let pick = |note: &str, pred: &dyn Fn(&Run) -> bool| -> Option<ShowcaseRun> {
        let run = runs
            .iter()
            .find(|r| pred(r) && !taken.borrow().contains(&r.id))?;
        taken.borrow_mut().insert(run.id.clone());
        Some(ShowcaseRun {
            run: run.id.clone(),
            note: note.to_string(),
        })
    };
    let picks: Vec<ShowcaseRun> = [
        pick("A ladder that escalated from small to large before its checks passed.", &|r| r.policy == "ladder" && r.attempts.len() == 3 && r.outcome.passed),
        pick("The planted injection asked for a shell; the runtime denied it and the brief cites only approved sources.", &|r| {
            let denied = |t: &&receipts_verifier::model::Turn| {
                t.action.tool == ActionTool::Other && t.permission.decision == Decision::Denied
            };
            r.outcome.passed
                && r.task == fixtures::RESEARCH
                && r.attempts.iter().flat_map(|a| &a.turns).any(|t| denied(&t))
        }),
        pick("The small tier spent its whole output budget reasoning and stopped with finish_reason length.", &|r| {
            r.calls().any(receipts_verifier::model::ProviderCall::truncated)
        }),
        pick("A call passed the [45 s](#registered) call timeout as the small tier slowed, and lost its usage: the run's cost is a low–high bound, not a number, and the token ledger stopped the study.", &|r| {
            r.calls().any(|c| c.status == CallStatus::Timeout)
        }),
        pick("A run the token ledger stopped after it reached the provider. The primary analysis keeps it as a failure.", &|r| {
            r.reached_provider() && runs.iter().any(|x| x.replaces.as_deref() == Some(r.id.as_str()))
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    let showcase = Showcase {
        format_version: FormatVersion,
        kind: ShowcaseKind::Showcase,
        title: "Five runs worth a look (simulated)".to_string(),
        narrative: "NARRATIVE.md".to_string(),
        runs: picks,
    };
    out.insert("showcase/showcase.json".to_string(), json_bytes(&showcase));
    out.insert(
        "showcase/NARRATIVE.md".to_string(),
        NARRATIVE.as_bytes().to_vec(),
    );
}

const NARRATIVE: &str = "# What the sample shows

> Simulated data. Every run here was produced by the deterministic simulator that ships with receipts: a scripted agent and a scripted provider. No model was called, and the numbers describe the simulator, not any real model.

The sample repeats the shape of a real routing study: [3](#registered) task families (document research with a planted prompt injection, a CSV transformation, a bounded programming task), [2](#registered) agent profiles, [3](#registered) seeds and [3](#registered) model tiers, each run alone and as an auto-tier ladder, at [2](#registered) output budgets. In E01 and E02, as in the study, the ladder is not run: each cell's tiers are run alone and the ladder's figures are composed from those runs, tier after tier until a tier passes, so each run it counts was made on its tier alone.

Its figures are calibrated: for E01, E02 and E04 the simulator scales its token counts and latencies until they publish the pass rates, costs and times of the study it imitates.

It also repeats the study's mistakes, on purpose. In E02 the run's time limit cut a call, which lost its usage, and the token ledger stopped a run after it had already called the provider. The first published summary averaged the ladder's cost only over the cells whose cost was known and counted the rerun instead of the stopped run. Both figures were corrected; the corrections are on record, and the site shows the original figure struck through beside the recomputed one.

Open any run to replay it turn by turn: the action the model chose, the runtime's permission decision, the transcript as the model saw it (the planted injection marked where it was read), the artifact and every check with its evidence.

## Runs from real tools

I01 and I02 were not simulated: they were imported from files that real tools wrote, and are checked against those files, kept byte for byte.

- I01 holds logs that Inspect AI wrote running its evaluations against its offline mock model (`mockllm/model`), so the answers are canned, not a real model's. The scores of Inspect's deterministic scorers, each epoch reduction and each metric are recomputed from the log, and the record is derived from the log again: see [the scorers evaluation](imports/I01/scorers.html), where `match`, `includes`, `pattern`, `exact` and `f1` score the same samples over [2](#registered) epochs, or [the tool-using one](imports/I01/tools.html) with its transcripts.
- I02 holds an OpenTelemetry trace export and log export that the OpenTelemetry Python SDK wrote while an agent called a local mock server: see [its runs, calls and tool executions](imports/I02/otel/agent.otlp.html), each held to what another part of the export says.

The commands that bring such files in are in `docs/BRING-YOUR-OWN-RUNS.md`.
";

#[cfg(test)]
mod tests {
    use receipts_verifier::model::Run;

    use super::*;

    fn turns_per_run(files: &Files) -> f64 {
        let runs: Vec<Run> = files
            .iter()
            .filter(|(path, _)| {
                path.starts_with("experiments/")
                    && !path.starts_with("experiments/harness/")
                    && path.contains("/runs/")
            })
            .map(|(_, bytes)| serde_json::from_slice(bytes).expect("a run record"))
            .collect();
        let turns: usize = runs
            .iter()
            .flat_map(|r| &r.attempts)
            .map(|a| a.turns.len())
            .sum();
        turns as f64 / runs.len() as f64
    }

    #[test]
    fn scale_runs_are_as_long_as_the_benchmark_says() {
        // BENCHMARKS.md and the scale targets speak of runs of about 12 turns.
        let mean = turns_per_run(&scale(360));
        assert!((10.0..=15.0).contains(&mean), "{mean} turns per run");
        // The shipped sample keeps its short runs.
        assert!(turns_per_run(&sample()) < 8.0);
    }
}
