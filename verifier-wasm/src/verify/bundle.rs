//! Verification of records handed over as files (path → bytes), with no file
//! system: what the browser fetches from a site's `data/`. The scope is the
//! whole record set, one experiment or one of its runs, one harness suite or
//! one of its runs, one regression suite or one of its edits, or nothing.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::anchor::AnchorFiles;
use crate::model::{
    benchmark_path, Deviations, Experiment, GitAnchor, HarnessRun, HarnessSuite,
    RegressionBenchmark, RegressionSuite, ResultRow, Run, SkillEdit, Summary, Task,
    GIT_ANCHOR_FILE, HARNESS_DIR, REGRESSIONS_DIR, TIMESTAMP_FILE, TSA_CERTIFICATE_FILE,
};

use super::{ExperimentCheck, Receipt, Tally};

/// What to verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum Scope {
    /// Every experiment.
    All,
    /// One experiment, by directory.
    Experiment { experiment: String },
    /// One run of one experiment: its checks, digests and outcome.
    Run { experiment: String, run: String },
    /// One harness suite, by directory: every run's report.
    Harness { suite: String },
    /// One run of one harness suite.
    HarnessRun { suite: String, run: String },
    /// One regression suite, by directory: every edit and the benchmark.
    Regressions { suite: String },
    /// One skill edit of one regression suite.
    SkillEdit { suite: String, edit: String },
    /// No records: a page whose only receipts are file digests.
    None,
}

/// The result of verifying a bundle of files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleResult {
    pub tally: Tally,
    pub receipts: Vec<Receipt>,
}

/// Parses a record; a record that does not parse is a failing receipt.
pub(super) fn parse<T: DeserializeOwned>(
    path: &str,
    bytes: &[u8],
    out: &mut Vec<Receipt>,
) -> Option<T> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Some(v),
        Err(e) => {
            out.push(Receipt::new(
                path,
                "record",
                "a valid record",
                format!("does not parse: {e}"),
                false,
            ));
            None
        }
    }
}

/// Verifies the records in `files` (paths relative to the records root,
/// laid out as `experiments/` is) within `scope`.
pub fn verify_files(files: &BTreeMap<String, Vec<u8>>, scope: &Scope) -> BundleResult {
    let mut receipts = Vec::new();
    let objects: BTreeMap<String, Vec<u8>> =
        crate::btree::map(files.iter().filter_map(|(p, b)| {
            p.strip_prefix("objects/")
                .map(|d| (d.to_string(), b.clone()))
        }));
    let tasks: BTreeMap<String, Task> = crate::btree::map(
        files
            .iter()
            .filter(|(p, _)| p.starts_with("tasks/") && p.ends_with(".json"))
            .filter_map(|(p, b)| {
                let task = parse::<Task>(p, b, &mut receipts)?;
                if *p != format!("tasks/{}.json", task.id) {
                    receipts.push(Receipt::new(
                        p,
                        "id",
                        &task.id,
                        "the file's name differs",
                        false,
                    ));
                    return None;
                }
                Some((task.id.clone(), task))
            }),
    );
    let dirs: Vec<&str> = files
        .keys()
        .filter_map(|p| p.strip_suffix("/experiment.json"))
        .filter(|d| !d.contains('/'))
        .filter(|d| match scope {
            Scope::All => true,
            Scope::Experiment { experiment } | Scope::Run { experiment, .. } => d == experiment,
            _ => false,
        })
        .collect();
    let mut verified_experiments = Vec::new();
    for dir in dirs {
        let Some(experiment) = parse::<Experiment>(
            &format!("{dir}/experiment.json"),
            &files[&format!("{dir}/experiment.json")],
            &mut receipts,
        ) else {
            continue;
        };
        if experiment.id != dir {
            receipts.push(Receipt::new(
                &format!("{dir}/experiment.json"),
                "id",
                &experiment.id,
                "the directory's name differs",
                false,
            ));
            continue;
        }
        let runs_prefix = format!("{dir}/runs/");
        let runs: Vec<Run> = files
            .iter()
            .filter(|(p, _)| p.starts_with(&runs_prefix) && p.ends_with(".json"))
            .filter(|(p, _)| match scope {
                Scope::Run { run, .. } => **p == format!("{runs_prefix}{run}.json"),
                _ => true,
            })
            .filter_map(|(p, b)| {
                let run = parse::<Run>(p, b, &mut receipts)?;
                if *p != format!("{runs_prefix}{}.json", run.id) {
                    receipts.push(Receipt::new(
                        p,
                        "id",
                        &run.id,
                        "the file's name differs",
                        false,
                    ));
                    return None;
                }
                Some(run)
            })
            .collect();
        let log_path = format!("{dir}/{}", experiment.preregistration.log);
        let log = files
            .get(&log_path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let summary_path = format!("{dir}/summary.json");
        let summary: Option<Summary> = files
            .get(&summary_path)
            .and_then(|b| parse(&summary_path, b, &mut receipts));
        let results_path = format!("{dir}/results.csv");
        let results: Option<Vec<ResultRow>> = files.get(&results_path).and_then(|b| {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(true)
                .from_reader(b.as_slice());
            match reader.deserialize().collect::<Result<Vec<ResultRow>, _>>() {
                Ok(rows) => Some(rows),
                Err(e) => {
                    receipts.push(Receipt::new(
                        &results_path,
                        "record",
                        "a valid table",
                        format!("does not parse: {e}"),
                        false,
                    ));
                    None
                }
            }
        });
        let deviations_path = format!("{dir}/deviations.json");
        let deviations: Option<Deviations> = files
            .get(&deviations_path)
            .and_then(|b| parse(&deviations_path, b, &mut receipts));
        let git_path = format!("{dir}/{GIT_ANCHOR_FILE}");
        let git: Option<GitAnchor> = files
            .get(&git_path)
            .and_then(|b| parse(&git_path, b, &mut receipts));
        let beside = |name: &str| files.get(&format!("{dir}/{name}")).map(Vec::as_slice);
        let check = ExperimentCheck {
            dir,
            anchors: AnchorFiles {
                timestamp: beside(TIMESTAMP_FILE),
                tsa_certificate: beside(TSA_CERTIFICATE_FILE),
                git: git.as_ref(),
            },
            experiment: &experiment,
            log: &log,
            summary: summary.as_ref(),
            summary_text: files.get(&summary_path).map(Vec::as_slice),
            results: results.as_deref(),
            results_text: files.get(&results_path).map(Vec::as_slice),
            deviations: deviations.as_ref(),
            tasks: &tasks,
            objects: &objects,
        };
        match scope {
            Scope::Run { .. } => {
                let inputs = check.task_inputs();
                for run in &runs {
                    receipts.extend(check.verify_run(&inputs, run).receipts);
                }
            }
            _ => {
                let verified = super::verify_experiment(&check, &runs);
                receipts.extend(verified.all_receipts().cloned());
                verified_experiments.push((dir, verified));
            }
        }
    }
    receipts.extend(super::reused_across(
        verified_experiments
            .iter()
            .map(|(dir, v)| (*dir, v.runs.iter().map(|r| &r.facts).collect())),
    ));
    harness(files, scope, &mut receipts);
    regressions(files, &objects, scope, &mut receipts);
    BundleResult {
        tally: Tally::of(&receipts),
        receipts,
    }
}

/// One suite kind's files in a bundle: each suite's file at
/// `<kind>/<dir>/<file>` and its members at `<kind>/<dir>/<sub>/<id>.json`.
struct SuiteFiles<'a> {
    files: &'a BTreeMap<String, Vec<u8>>,
    kind: &'a str,
    file: &'a str,
    sub: &'a str,
}

impl<'a> SuiteFiles<'a> {
    /// The suites' directories that `wanted` keeps, sorted.
    fn dirs(&self, wanted: impl Fn(&str) -> bool) -> Vec<&'a str> {
        let prefix = format!("{}/", self.kind);
        let suffix = format!("/{}", self.file);
        self.files
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix)?.strip_suffix(&suffix))
            .filter(|d| !d.contains('/') && wanted(d))
            .collect()
    }

    /// Suite `dir`'s file, parsed.
    fn suite<S: DeserializeOwned>(&self, dir: &str, receipts: &mut Vec<Receipt>) -> Option<S> {
        let path = format!("{}/{dir}/{}", self.kind, self.file);
        parse(&path, &self.files[&path], receipts)
    }

    /// Suite `dir`'s members, parsed: only the one named `only`, when given.
    /// Receipts name a member by its id, so a file holding another id fails
    /// here and is left out.
    fn members<R: DeserializeOwned>(
        &self,
        dir: &str,
        only: Option<&str>,
        id: impl Fn(&R) -> &str,
        receipts: &mut Vec<Receipt>,
    ) -> Vec<R> {
        let prefix = format!("{}/{dir}/{}/", self.kind, self.sub);
        let mut members = Vec::new();
        for (p, b) in self.files.iter().filter(|(p, _)| {
            p.strip_prefix(&prefix)
                .and_then(|name| name.strip_suffix(".json"))
                .is_some_and(|name| only.map_or(!name.contains('/'), |o| name == o))
        }) {
            let Some(member) = parse::<R>(p, b, receipts) else {
                continue;
            };
            if *p != format!("{prefix}{}.json", id(&member)) {
                receipts.push(Receipt::new(
                    p,
                    "id",
                    id(&member),
                    "the file's name differs",
                    false,
                ));
                continue;
            }
            members.push(member);
        }
        members
    }
}

/// The harness suites within `scope`: each suite's runs (one run's, for
/// [`Scope::HarnessRun`]) verified against it.
fn harness(files: &BTreeMap<String, Vec<u8>>, scope: &Scope, receipts: &mut Vec<Receipt>) {
    let suites = SuiteFiles {
        files,
        kind: HARNESS_DIR,
        file: "harness.json",
        sub: "runs",
    };
    let (wanted, only) = match scope {
        Scope::All => (None, None),
        Scope::Harness { suite } => (Some(suite.as_str()), None),
        Scope::HarnessRun { suite, run } => (Some(suite.as_str()), Some(run.as_str())),
        _ => return,
    };
    for dir in suites.dirs(|d| wanted.is_none_or(|w| w == d)) {
        let Some(suite) = suites.suite::<HarnessSuite>(dir, receipts) else {
            continue;
        };
        let runs: Vec<HarnessRun> = suites.members(dir, only, |r: &HarnessRun| &r.id, receipts);
        let verified = super::verify_suite(dir, &suite, &runs);
        receipts.extend(verified.all_receipts().cloned());
    }
}

/// The regression suites within `scope`: each suite's edits (one edit's,
/// for [`Scope::SkillEdit`]) and its benchmark (not for one edit).
fn regressions(
    files: &BTreeMap<String, Vec<u8>>,
    objects: &BTreeMap<String, Vec<u8>>,
    scope: &Scope,
    receipts: &mut Vec<Receipt>,
) {
    let suites = SuiteFiles {
        files,
        kind: REGRESSIONS_DIR,
        file: "suite.json",
        sub: "edits",
    };
    let (wanted, only) = match scope {
        Scope::All => (None, None),
        Scope::Regressions { suite } => (Some(suite.as_str()), None),
        Scope::SkillEdit { suite, edit } => (Some(suite.as_str()), Some(edit.as_str())),
        _ => return,
    };
    for dir in suites.dirs(|d| wanted.is_none_or(|w| w == d)) {
        let Some(suite) = suites.suite::<RegressionSuite>(dir, receipts) else {
            continue;
        };
        let edits: Vec<SkillEdit> = suites.members(dir, only, |e: &SkillEdit| &e.id, receipts);
        let bench_path = benchmark_path(dir);
        let benchmark = match (only, files.get(&bench_path)) {
            (Some(_), _) | (_, None) => None,
            (None, Some(b)) => parse::<RegressionBenchmark>(&bench_path, b, receipts),
        };
        let verified = super::verify_regressions(dir, &suite, &edits, benchmark.as_ref(), objects);
        receipts.extend(verified.all_receipts().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rel: &str) -> Vec<u8> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
        std::fs::read(root.join(rel)).expect("the sample input")
    }

    fn failing_ids(files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
        verify_files(files, &Scope::All)
            .receipts
            .into_iter()
            .filter(|r| r.claim == "id" && r.status == super::super::Status::Fail)
            .map(|r| r.subject)
            .collect()
    }

    #[test]
    fn a_record_stored_under_another_name_fails_its_id() {
        // A task or an experiment filed under a name other than its id, as
        // a native build would refuse to read it.
        let files = BTreeMap::from([
            (
                "tasks/renamed.json".to_string(),
                sample("tasks/shipping-rule.json"),
            ),
            (
                "E9/experiment.json".to_string(),
                sample("E01/experiment.json"),
            ),
        ]);
        assert_eq!(
            failing_ids(&files),
            ["tasks/renamed.json", "E9/experiment.json"]
        );
    }
}
