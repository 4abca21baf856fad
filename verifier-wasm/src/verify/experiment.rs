//! Receipts of one experiment: the pre-registration (hash and time), every
//! run, every published number and hypothesis outcome (with corrections
//! applied), and every row of the published results table.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::decide::decide;
use crate::facts::RunFacts;
use crate::model::{Analysis, Correction, Experiment, Outcome, ResultRow, Run, Summary, Task};
use crate::numbers::{analyze, latest_runs, primary_runs, result_row, JudgedRun};
use crate::prereg::preregistration_digest;
use crate::time;

use super::published::{analysis_fields, display, display_like, published_fields, values_agree};
use super::run::{task_input_bytes, verify_run, verify_task_inputs};
use super::{Objects, Receipt, RunVerification};

/// Everything verification reads of one experiment.
pub struct ExperimentCheck<'a> {
    /// The experiment's directory name under the records root.
    pub dir: &'a str,
    pub experiment: &'a Experiment,
    pub log: &'a str,
    pub summary: Option<&'a Summary>,
    pub results: Option<&'a [ResultRow]>,
    pub tasks: &'a BTreeMap<String, Task>,
    pub objects: &'a (dyn Objects + Sync),
}

/// What verifying an experiment found.
#[derive(Debug, Clone)]
pub struct ExperimentVerification {
    /// One per run, in the order the runs were given (sorted by id).
    pub runs: Vec<RunVerification>,
    /// The primary analysis, recomputed (unrounded).
    pub primary: Analysis,
    /// Recomputed secondary analyses by id, for the ids this verifier knows.
    pub secondary: BTreeMap<String, Analysis>,
    /// Each hypothesis's recomputed outcome, in the experiment's order.
    pub hypotheses: Vec<(String, Outcome)>,
    /// Experiment-level receipts: pre-registration, task inputs, summary, results table.
    pub receipts: Vec<Receipt>,
}

impl ExperimentVerification {
    /// Every receipt, experiment-level first, then each run's.
    pub fn all_receipts(&self) -> impl Iterator<Item = &Receipt> {
        self.receipts
            .iter()
            .chain(self.runs.iter().flat_map(|r| r.receipts.iter()))
    }
}

/// The secondary analysis that counts reruns in place of the runs they replace.
pub const RERUNS_REPLACE: &str = "reruns-replace";

/// The bytes of every task input, by task id and path.
pub type TaskInputs = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

/// Verifies an experiment and its runs (sorted by id):
/// [`ExperimentCheck::task_inputs`], then [`ExperimentCheck::verify_run`] for
/// each run (callers may do these in parallel, and need not hold every run at
/// once), then [`ExperimentCheck::finish`].
pub fn verify_experiment(input: &ExperimentCheck<'_>, runs: &[Run]) -> ExperimentVerification {
    let inputs = input.task_inputs();
    let runs = runs
        .iter()
        .map(|run| input.verify_run(&inputs, run))
        .collect();
    input.finish(runs)
}

impl ExperimentCheck<'_> {
    /// The input bytes of every task of the grid.
    pub fn task_inputs(&self) -> TaskInputs {
        crate::btree::map(self.experiment.grid.tasks.iter().filter_map(|id| {
            self.tasks
                .get(id)
                .map(|t| (id.clone(), task_input_bytes(t, self.objects)))
        }))
    }

    /// Verifies one run of the experiment.
    pub fn verify_run(&self, inputs: &TaskInputs, run: &Run) -> RunVerification {
        let subject = format!("{}/runs/{}.json", self.dir, run.id);
        match (self.tasks.get(&run.task), inputs.get(&run.task)) {
            (Some(task), Some(bytes)) => verify_run(
                &subject,
                run,
                task,
                bytes,
                self.objects,
                &self.experiment.prices,
            ),
            _ => RunVerification {
                facts: RunFacts::of(run, &self.experiment.prices),
                checks: Vec::new(),
                attempts_passed: Vec::new(),
                receipts: vec![Receipt::unchecked(
                    &subject,
                    "task",
                    &run.task,
                    "the task is not part of the experiment",
                )],
            },
        }
    }

    /// Recomputes the experiment's numbers from its verified runs (one per
    /// run, sorted by id) and checks what was published.
    pub fn finish(&self, runs: Vec<RunVerification>) -> ExperimentVerification {
        let e = self.experiment;
        let mut receipts = preregistration(self, &runs);
        for task_id in &e.grid.tasks {
            if let Some(task) = self.tasks.get(task_id) {
                receipts.extend(verify_task_inputs(task, self.objects));
            }
        }
        let judged: Vec<JudgedRun<'_>> = runs
            .iter()
            .map(|v| JudgedRun {
                run: &v.facts,
                attempts_passed: &v.attempts_passed,
            })
            .collect();
        let empty = Analysis {
            policies: Vec::new(),
            tiers: Vec::new(),
        };
        let primary = analyze(e, &primary_runs(&judged)).unwrap_or_else(|_| empty.clone());
        let mut secondary = BTreeMap::new();
        secondary.insert(
            RERUNS_REPLACE.to_string(),
            analyze(e, &latest_runs(&judged)).unwrap_or(empty),
        );
        let hypotheses: Vec<(String, Outcome)> = e
            .hypotheses
            .iter()
            .map(|h| (h.id.clone(), decide(&h.rule, &primary)))
            .collect();
        if let Some(summary) = self.summary {
            receipts.extend(summary_receipts(
                self.dir,
                summary,
                &primary,
                &secondary,
                &hypotheses,
            ));
        }
        if let Some(rows) = self.results {
            receipts.extend(results_receipts(self.dir, rows, &judged));
        }
        drop(judged);
        ExperimentVerification {
            runs,
            primary,
            secondary,
            hypotheses,
            receipts,
        }
    }
}

fn preregistration(input: &ExperimentCheck<'_>, runs: &[RunVerification]) -> Vec<Receipt> {
    let e = input.experiment;
    let p = &e.preregistration;
    let log_subject = format!("{}/{}", input.dir, p.log);
    let digest = match preregistration_digest(input.log, &p.end_marker) {
        Some(d) => Receipt::new(
            &log_subject,
            "pre-registered part (SHA-256)",
            &p.sha256,
            &d,
            d == p.sha256,
        ),
        None => Receipt::new(
            &log_subject,
            "pre-registered part (SHA-256)",
            &p.sha256,
            "the end marker line is missing",
            false,
        ),
    };
    let first_call = runs.iter().filter_map(|v| v.facts.first_call.clone()).min();
    let subject = format!("{}/experiment.json", input.dir);
    let claim = "pre-registered before the first provider call";
    let timing = match (time::parse(&p.registered_at), first_call) {
        (Ok(reg), Some((first, first_text))) => Receipt::new(
            &subject,
            claim,
            format!("registered {}", p.registered_at),
            format!("first call {first_text}"),
            reg < first,
        ),
        (Ok(_), None) => Receipt::unchecked(
            &subject,
            claim,
            format!("registered {}", p.registered_at),
            "no provider call on record",
        ),
        (Err(e), _) => Receipt::new(&subject, claim, &p.registered_at, e.to_string(), false),
    };
    vec![digest, timing]
}

fn summary_receipts(
    dir: &str,
    summary: &Summary,
    primary: &Analysis,
    secondary: &BTreeMap<String, Analysis>,
    hypotheses: &[(String, Outcome)],
) -> Vec<Receipt> {
    let subject = format!("{dir}/summary.json");
    let mut recomputed: BTreeMap<String, Value> = crate::btree::map(
        analysis_fields("primary", primary)
            .into_iter()
            .map(|f| (f.path, f.value)),
    );
    for (id, analysis) in secondary {
        recomputed.extend(
            analysis_fields(&format!("secondary[{id}]"), analysis)
                .into_iter()
                .map(|f| (f.path, f.value)),
        );
    }
    for (id, outcome) in hypotheses {
        recomputed.insert(
            format!("hypotheses[{id}].outcome"),
            serde_json::to_value(outcome).unwrap_or(Value::Null),
        );
    }
    let known_secondary: BTreeSet<&str> = crate::btree::set(secondary.keys().map(String::as_str));
    let published = published_fields(summary);
    let corrections: BTreeMap<&str, &Correction> =
        crate::btree::map(summary.corrections.iter().map(|c| (c.field.as_str(), c)));

    let mut out = Vec::new();
    for field in &published {
        let correction = corrections.get(field.path.as_str());
        let effective = correction.map_or(&field.value, |c| &c.corrected);
        let recorded = match correction {
            Some(c) => format!(
                "{} (corrected from {})",
                display(&c.corrected),
                display(&c.original)
            ),
            None => display(&field.value),
        };
        let receipt = match recomputed.get(&field.path) {
            Some(value) => Receipt::new(
                &subject,
                &field.path,
                recorded,
                display_like(value, effective),
                values_agree(effective, value),
            ),
            None if field.path.starts_with("secondary[")
                && !known_secondary
                    .iter()
                    .any(|id| field.path.starts_with(&format!("secondary[{id}]"))) =>
            {
                Receipt::unchecked(
                    &subject,
                    &field.path,
                    recorded,
                    "this verifier does not know how to recompute that analysis",
                )
            }
            None => Receipt::new(
                &subject,
                &field.path,
                recorded,
                "nothing to recompute it from (no such policy, tier or hypothesis with runs)",
                false,
            ),
        };
        out.push(receipt);
    }
    for c in &summary.corrections {
        if !published.iter().any(|f| f.path == c.field) {
            out.push(Receipt::new(
                &subject,
                format!("correction of {}", c.field),
                display(&c.corrected),
                "the summary publishes no such number",
                false,
            ));
        }
    }
    out
}

fn results_receipts(dir: &str, rows: &[ResultRow], judged: &[JudgedRun<'_>]) -> Vec<Receipt> {
    let subject = format!("{dir}/results.csv");
    let by_id: BTreeMap<&str, &JudgedRun<'_>> =
        crate::btree::map(judged.iter().map(|j| (j.run.id.as_str(), j)));
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        // Line 1 is the header.
        let claim = format!("line {} (run {})", i + 2, row.run);
        seen.insert(row.run.as_str());
        let Some(j) = by_id.get(row.run.as_str()) else {
            out.push(Receipt::new(
                &subject,
                claim,
                "a row",
                "no run has this id",
                false,
            ));
            continue;
        };
        let Ok(expected) = result_row(j.run, j.passed()) else {
            out.push(Receipt::unchecked(
                &subject,
                claim,
                "a row",
                "a model of the run has no price",
            ));
            continue;
        };
        let (published, recomputed) = (row_values(row), row_values(&expected));
        let differing: Vec<&str> = published
            .iter()
            .filter(|(k, v)| !recomputed.get(*k).is_some_and(|w| values_agree(v, w)))
            .map(|(k, _)| *k)
            .collect();
        if differing.is_empty() {
            out.push(Receipt::new(
                &subject,
                claim,
                "every column",
                "agrees",
                true,
            ));
        } else {
            let show = |values: &BTreeMap<&str, Value>, like: &BTreeMap<&str, Value>| {
                differing
                    .iter()
                    .map(|k| format!("{k}={}", display_like(&values[k], &like[k])))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(Receipt::new(
                &subject,
                claim,
                show(&published, &published),
                show(&recomputed, &published),
                false,
            ));
        }
    }
    for j in judged {
        if !seen.contains(j.run.id.as_str()) {
            out.push(Receipt::new(
                &subject,
                format!("run {}", j.run.id),
                "no row",
                "a run on record",
                false,
            ));
        }
    }
    out
}

fn row_values(row: &ResultRow) -> BTreeMap<&'static str, Value> {
    let Value::Object(map) = serde_json::to_value(row).unwrap_or(Value::Null) else {
        return BTreeMap::new();
    };
    const COLUMNS: [&str; 13] = [
        "run",
        "task",
        "profile",
        "seed",
        "policy",
        "tiers",
        "passed",
        "cost_usd_low",
        "cost_usd_high",
        "time_s",
        "truncations",
        "timeouts",
        "replaces",
    ];
    crate::btree::map(
        COLUMNS
            .iter()
            .filter_map(|c| map.get(*c).map(|v| (*c, v.clone()))),
    )
}
