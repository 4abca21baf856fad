//! Receipts of one experiment: the pre-registration (hash and time), every
//! run, every published number and hypothesis outcome (with corrections
//! applied), and every row of the published results table.

use std::collections::{BTreeMap, BTreeSet};

use crate::anchor::AnchorFiles;
use crate::claims::{claim_receipts, ExperimentFigures, Figures, Within};
use crate::decide::decide;
use crate::facts::RunFacts;
use crate::model::{
    Analysis, Deviations, Experiment, ModelCheck, Outcome, Rule, Run, Summary, Task,
};
use crate::numbers::{analyze, latest_runs, primary_runs, JudgedRun};
use crate::results_table::ResultsTable;

use super::conduct::conduct_receipts;
use super::grid::grid_receipts;
use super::models::model_check_receipts;
use super::registration::preregistration;
use super::results::results_receipts;
use super::run::{task_input_bytes, verify_run, verify_task_inputs};
use super::summary::{summary_receipts, SummaryInput};
use super::{Objects, Receipt, RunVerification};

/// Everything verification reads of one experiment.
pub struct ExperimentCheck<'a> {
    /// The experiment's directory name under the records root.
    pub dir: &'a str,
    /// `experiment.json`.
    pub experiment: &'a Experiment,
    /// The pre-registration log's whole text (empty when the experiment is
    /// not pre-registered).
    pub log: &'a str,
    /// `summary.json`, when the experiment has one.
    pub summary: Option<&'a Summary>,
    /// The summary's bytes, for its numbers as written.
    pub summary_text: Option<&'a [u8]>,
    /// The results table (`results.csv`), when the experiment has one.
    pub results: Option<&'a ResultsTable>,
    /// `deviations.json`, when the experiment has one.
    pub deviations: Option<&'a Deviations>,
    /// `models.json`, the model-id smoke test, when the experiment has one.
    pub models: Option<&'a ModelCheck>,
    /// What backs the registration time from outside the record.
    pub anchors: AnchorFiles<'a>,
    /// The study's tasks, by id.
    pub tasks: &'a BTreeMap<String, Task>,
    /// The objects store, for the bytes the records name by digest.
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
    /// Each hypothesis's recomputed outcome, in the experiment's order
    /// (empty until the study [concludes](ExperimentCheck::conclude) it).
    pub hypotheses: Vec<(String, Outcome)>,
    /// Policies whose cells did not all run.
    pub incomplete: BTreeSet<String>,
    /// Experiment-level receipts: pre-registration, task inputs, summary, results table.
    pub receipts: Vec<Receipt>,
    /// What backs the registration time, in words (see [`super::registration`]).
    pub registration_anchor: String,
}

/// What an experiment concludes once every experiment of the study has its
/// figures: its hypotheses decided and its summary's receipts.
#[derive(Debug, Clone)]
pub struct Conclusion {
    /// Each hypothesis's id and recomputed outcome, in the experiment's order.
    pub hypotheses: Vec<(String, Outcome)>,
    /// The summary's receipts: its numbers, outcomes and corrections, and its
    /// headline's and findings' claims.
    pub receipts: Vec<Receipt>,
}

impl ExperimentVerification {
    /// This experiment's figures, for the study's [`Figures`].
    pub fn figures(&self) -> ExperimentFigures<'_> {
        ExperimentFigures {
            primary: &self.primary,
            secondary: &self.secondary,
            incomplete: &self.incomplete,
        }
    }

    /// Takes in what the experiment concluded.
    pub fn conclude(&mut self, conclusion: Conclusion) {
        self.hypotheses = conclusion.hypotheses;
        self.receipts.extend(conclusion.receipts);
    }

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

/// Verifies an experiment and its runs (sorted by id) on its own, as a
/// study of one: [`ExperimentCheck::task_inputs`], then
/// [`ExperimentCheck::verify_run`] for each run (callers may do these in
/// parallel, and need not hold every run at once), then
/// [`ExperimentCheck::finish`], and, once every experiment of the study is
/// finished, [`ExperimentCheck::conclude`].
pub fn verify_experiment(input: &ExperimentCheck<'_>, runs: &[Run]) -> ExperimentVerification {
    let inputs = input.task_inputs();
    let runs = runs
        .iter()
        .map(|run| input.verify_run(&inputs, run))
        .collect();
    let mut verified = input.finish(runs);
    let mut figures = Figures::default();
    figures.add(input.dir, verified.figures());
    let conclusion = input.conclude(&verified, &figures);
    verified.conclude(conclusion);
    verified
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
        let subject = crate::layout::run_path(self.dir, &run.id);
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
        let (mut receipts, registration_anchor) = preregistration(self, &runs);
        receipts.extend(super::logged_deviations::logged_deviations(
            self.dir,
            e,
            self.log,
            self.deviations,
        ));
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
        if let Some(check) = self.models {
            let first_run = runs.iter().filter_map(|v| v.facts.started_at).min();
            receipts.extend(model_check_receipts(self.dir, check, e, first_run));
        }
        let grid = grid_receipts(self.dir, e, &judged, self.deviations);
        receipts.extend(grid.receipts);
        if let Some(table) = self.results {
            receipts.extend(results_receipts(self.dir, table, &judged));
        }
        drop(judged);
        ExperimentVerification {
            runs,
            primary,
            secondary,
            hypotheses: Vec::new(),
            incomplete: grid.incomplete,
            receipts,
            registration_anchor,
        }
    }

    /// Decides the experiment's hypotheses over the study's figures (a rule
    /// may read another experiment's) and checks its summary: its numbers,
    /// outcomes and corrections, and its headline's and findings' claims.
    pub fn conclude(&self, v: &ExperimentVerification, figures: &Figures<'_>) -> Conclusion {
        let within = Within {
            figures,
            own: &v.primary,
        };
        // A rule over a policy whose cells did not all run is not decided.
        let hypotheses: Vec<(String, Outcome)> = self
            .experiment
            .hypotheses
            .iter()
            .map(|h| {
                let complete = rule_policies(&h.rule).iter().all(|(e, p)| match e {
                    None => !v.incomplete.contains(*p),
                    Some(id) => figures
                        .experiment(id)
                        .is_some_and(|x| !x.incomplete.contains(*p)),
                });
                let outcome = if complete {
                    decide(&h.rule, &within)
                } else {
                    Outcome::NotDecided
                };
                (h.id.clone(), outcome)
            })
            .collect();
        let mut receipts = Vec::new();
        if let Some(summary) = self.summary {
            receipts.extend(summary_receipts(&SummaryInput {
                dir: self.dir,
                summary,
                text: self.summary_text,
                primary: &v.primary,
                secondary: &v.secondary,
                hypotheses: &hypotheses,
                objects: self.objects,
            }));
            let subject = format!("{}/summary.json", self.dir);
            for (place, text) in summary_claims(summary) {
                receipts.extend(claim_receipts(&subject, &place, text, figures));
            }
        }
        Conclusion {
            hypotheses,
            receipts,
        }
    }
}

/// The prose of a summary that a page shows, each text a claim with its
/// place: the headline, each finding, each secondary analysis's
/// description and each correction's reason.
pub fn summary_claims(summary: &crate::model::Summary) -> Vec<(String, &str)> {
    let mut out = vec![("headline".to_string(), summary.headline.as_str())];
    let findings = summary.findings.iter().enumerate();
    out.extend(findings.map(|(i, f)| (format!("findings[{i}]"), f.as_str())));
    let analyses = summary.secondary.iter().enumerate();
    out.extend(analyses.map(|(i, a)| {
        (
            format!("secondary[{i}].description"),
            a.description.as_str(),
        )
    }));
    let corrections = summary.corrections.iter().enumerate();
    out.extend(corrections.map(|(i, c)| (format!("corrections[{i}].reason"), c.reason.as_str())));
    out
}

/// The policies a rule reads, each with the other experiment it names.
pub fn rule_policies(rule: &Rule) -> Vec<(Option<&str>, &str)> {
    crate::decide::metrics(rule)
        .into_iter()
        .map(|m| (m.experiment.as_deref(), m.policy.as_str()))
        .collect()
}
