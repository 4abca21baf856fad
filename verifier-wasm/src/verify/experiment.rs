//! Receipts of one experiment: the pre-registration (hash and time), every
//! run, every published number and hypothesis outcome (with corrections
//! applied), and every row of the published results table.

use std::collections::BTreeMap;

use crate::decide::decide;
use crate::facts::RunFacts;
use crate::model::{
    Analysis, Deviations, Experiment, Operand, Outcome, ResultRow, Rule, Run, Summary, Task,
};
use crate::numbers::{analyze, latest_runs, primary_runs, JudgedRun};
use crate::prereg::{preregistration_digest, registration_digest, rules_digest, task_digest};
use crate::time;

use super::conduct::conduct_receipts;
use super::grid::grid_receipts;
use super::results::results_receipts;
use super::run::{task_input_bytes, verify_run, verify_task_inputs};
use super::summary::{summary_receipts, SummaryInput};
use super::{Objects, Receipt, RunVerification};

/// Everything verification reads of one experiment.
pub struct ExperimentCheck<'a> {
    /// The experiment's directory name under the records root.
    pub dir: &'a str,
    pub experiment: &'a Experiment,
    pub log: &'a str,
    pub summary: Option<&'a Summary>,
    /// The summary's bytes, for its numbers as written.
    pub summary_text: Option<&'a [u8]>,
    pub results: Option<&'a [ResultRow]>,
    /// The results table's bytes, for its numbers as written.
    pub results_text: Option<&'a [u8]>,
    /// `deviations.json`, when the experiment has one.
    pub deviations: Option<&'a Deviations>,
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
        let mut verified = match (self.tasks.get(&run.task), inputs.get(&run.task)) {
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
        };
        let conduct = conduct_receipts(
            &subject,
            self.experiment,
            run,
            &verified.attempts_passed,
            &verified.facts,
        );
        verified.receipts.extend(conduct);
        verified
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
        let grid = grid_receipts(self.dir, e, &judged, self.deviations);
        receipts.extend(grid.receipts);
        // A rule over a policy whose cells did not all run is not decided.
        let hypotheses: Vec<(String, Outcome)> = e
            .hypotheses
            .iter()
            .map(|h| {
                let complete = rule_policies(&h.rule)
                    .iter()
                    .all(|p| !grid.incomplete.contains(*p));
                let outcome = if complete {
                    decide(&h.rule, &primary)
                } else {
                    Outcome::NotDecided
                };
                (h.id.clone(), outcome)
            })
            .collect();
        if let Some(summary) = self.summary {
            receipts.extend(summary_receipts(&SummaryInput {
                dir: self.dir,
                summary,
                text: self.summary_text,
                primary: &primary,
                secondary: &secondary,
                hypotheses: &hypotheses,
                objects: self.objects,
            }));
        }
        if let Some(rows) = self.results {
            receipts.extend(results_receipts(self.dir, rows, self.results_text, &judged));
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

/// The policies a rule reads.
pub fn rule_policies(rule: &Rule) -> Vec<&str> {
    match rule {
        Rule::All(rules) | Rule::Any(rules) => rules.iter().flat_map(rule_policies).collect(),
        Rule::Compare { left, right, .. } => {
            let mut out = vec![left.policy.as_str()];
            if let Operand::Metric(m) = right {
                out.push(m.policy.as_str());
            }
            out
        }
    }
}

fn preregistration(input: &ExperimentCheck<'_>, runs: &[RunVerification]) -> Vec<Receipt> {
    let e = input.experiment;
    let p = &e.preregistration;
    let log_subject = format!("{}/{}", input.dir, p.log);
    let subject = format!("{}/experiment.json", input.dir);
    let digest_receipt =
        |subject: &str, claim: &str, recorded: &str, recomputed: Option<String>, missing: &str| {
            match recomputed {
                Some(d) => Receipt::new(subject, claim, recorded, &d, d == recorded),
                None => Receipt::new(subject, claim, recorded, missing, false),
            }
        };
    let log_digest = preregistration_digest(input.log, &p.end_marker);
    let rules = rules_digest(e);
    let tasks: BTreeMap<String, String> = crate::btree::map(
        e.grid
            .tasks
            .iter()
            .filter_map(|id| input.tasks.get(id).map(|t| (id.clone(), task_digest(t)))),
    );
    let mut out = Vec::new();
    match &p.covers {
        None => {
            out.push(digest_receipt(
                &log_subject,
                "pre-registered part (SHA-256)",
                &p.sha256,
                log_digest.clone(),
                "the end marker line is missing",
            ));
            let log = log_digest.unwrap_or_default();
            out.push(Receipt::new(
                &subject,
                "registration covers the rules and tasks",
                "the log only",
                format!(
                    "add to `preregistration` \"covers\": {{\"log\": \"{log}\", \"rules\": \"{rules}\", \"tasks\": {}}} and set \"sha256\" to {}",
                    serde_json::to_string(&tasks).unwrap_or_default(),
                    registration_digest(&log, &rules, &tasks)
                ),
                false,
            ));
        }
        Some(covers) => {
            out.push(digest_receipt(
                &log_subject,
                "pre-registered part (SHA-256)",
                &covers.log,
                log_digest,
                "the end marker line is missing",
            ));
            out.push(digest_receipt(
                &subject,
                "registered rules (SHA-256)",
                &covers.rules,
                Some(rules),
                "",
            ));
            for id in &e.grid.tasks {
                let claim = format!("registered task `{id}` (SHA-256)");
                let task_subject = format!("tasks/{id}.json");
                match covers.tasks.get(id) {
                    Some(recorded) => out.push(digest_receipt(
                        &task_subject,
                        &claim,
                        recorded,
                        tasks.get(id).cloned(),
                        "no such task",
                    )),
                    None => out.push(Receipt::new(
                        &task_subject,
                        claim,
                        "not covered",
                        "a task of the grid the registration does not cover",
                        false,
                    )),
                }
            }
            out.push(digest_receipt(
                &subject,
                "registration digest (SHA-256)",
                &p.sha256,
                Some(registration_digest(
                    &covers.log,
                    &covers.rules,
                    &covers.tasks,
                )),
                "",
            ));
        }
    }
    let first_call = runs.iter().filter_map(|v| v.facts.first_call.clone()).min();
    let claim = "pre-registered before the first provider call";
    let timing = match (time::parse(&p.registered_at), first_call) {
        (Ok(reg), Some((first, first_text))) => Receipt::new(
            &subject,
            claim,
            format!("registered {} ({ANCHOR_NONE})", p.registered_at),
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
    out.push(timing);
    out
}

/// What backs a registration time that nothing outside the record attests.
pub const ANCHOR_NONE: &str = "self-asserted";
