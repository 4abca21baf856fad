//! Verification of records handed over as files (path → bytes), with no file
//! system: what the browser fetches from a site's `data/`. The scope is the
//! whole record set, one experiment or one of its runs, one harness suite or
//! one of its runs, one regression suite or one of its edits, or nothing.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::anchor::AnchorFiles;
use crate::layout;
use crate::model::{
    actions_path, benchmark_path, Deviations, Experiment, GitAnchor, HarnessRun, HarnessSuite,
    ModelCheck, RegressionAblation, RegressionActions, RegressionBenchmark, RegressionSuite, Run,
    SkillEdit, Study, Summary, Task, GIT_ANCHOR_FILE, HARNESS_DIR, MODEL_CHECK_FILE,
    REGRESSIONS_DIR, STUDY_FILE, TIMESTAMP_FILE, TSA_CERTIFICATE_FILE,
};
use crate::results_table::ResultsTable;

use super::{ExperimentCheck, ExperimentVerification, Memo, Receipt, Tally, MEMOS_DIR};

/// What to verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum Scope {
    /// Every experiment.
    All,
    /// One experiment, by directory, with the experiments whose figures
    /// its hypotheses and claims read.
    Experiment {
        /// The experiment's directory under the records root.
        experiment: String,
        /// The directories of the other experiments whose figures its
        /// hypotheses and claims read.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        with: Vec<String>,
    },
    /// One run of one experiment: its checks, digests and outcome.
    Run {
        /// The experiment's directory under the records root.
        experiment: String,
        /// The run's id: its file's name in the experiment's `runs/`, without
        /// `.json`.
        run: String,
    },
    /// One directory of imported runs (Inspect AI evaluations,
    /// OpenTelemetry traces), each checked against its kept original.
    Import {
        /// The directory under the records root that holds `inspect/` and
        /// `otel/`.
        dir: String,
    },
    /// One harness suite, by directory: every run's report.
    Harness {
        /// The suite's directory under `harness/`.
        suite: String,
    },
    /// One run of one harness suite.
    HarnessRun {
        /// The suite's directory under `harness/`.
        suite: String,
        /// The run's id: its file's name in the suite's `runs/`, without `.json`.
        run: String,
    },
    /// One regression suite, by directory: every edit and the benchmark.
    Regressions {
        /// The suite's directory under `regressions/`.
        suite: String,
    },
    /// One skill edit of one regression suite.
    SkillEdit {
        /// The suite's directory under `regressions/`.
        suite: String,
        /// The edit's id: its file's name in the suite's `edits/`, without
        /// `.json`.
        edit: String,
    },
    /// One memo, by its path under the records root, with the experiments
    /// whose figures its claims read (and the study's file).
    Document {
        /// The memo's path under the records root, e.g. `docs/memos/<name>.md`.
        path: String,
        /// The directories of the experiments whose figures its claims read.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        with: Vec<String>,
    },
    /// No records: a page whose only receipts are file digests.
    None,
}

/// The result of verifying a bundle of files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleResult {
    /// How many of the receipts passed, failed or could not be checked.
    pub tally: Tally,
    /// Every receipt of the records in scope.
    pub receipts: Vec<Receipt>,
    /// The prints of every run verified with its experiment (not those of
    /// a run's page, which verifies one run), for the root that lists the
    /// site as a shard; not part of the result's JSON.
    #[serde(skip)]
    pub prints: super::calls::SitePrints,
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
    let mut prints = super::calls::SitePrints::default();
    let objects: BTreeMap<String, Vec<u8>> = crate::btree::map(
        files
            .iter()
            .filter_map(|(p, b)| layout::object_digest(p).map(|d| (d.to_string(), b.clone()))),
    );
    let tasks: BTreeMap<String, Task> = crate::btree::map(
        files
            .iter()
            .filter(|(p, _)| layout::is_task(p))
            .filter_map(|(p, b)| {
                let task = parse::<Task>(p, b, &mut receipts)?;
                if **p != layout::task_path(&task.id) {
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
    let wanted = |d: &str| match scope {
        Scope::All => true,
        Scope::Experiment { experiment, with } => d == experiment || with.iter().any(|w| w == d),
        Scope::Run { experiment, .. } => d == experiment,
        Scope::Document { with, .. } => with.iter().any(|w| w == d),
        _ => false,
    };
    let dirs: Vec<&str> = files
        .keys()
        .filter_map(|p| p.strip_suffix("/experiment.json"))
        .filter(|d| !d.contains('/') && wanted(d))
        .collect();
    let loaded: Vec<Loaded> = dirs
        .into_iter()
        .filter_map(|dir| Loaded::read(files, dir, scope, &mut receipts))
        .collect();
    let checks: Vec<ExperimentCheck<'_>> = loaded
        .iter()
        .map(|l| l.check(files, &tasks, &objects))
        .collect();
    if let Scope::Run { .. } = scope {
        for (check, l) in checks.iter().zip(&loaded) {
            let inputs = check.task_inputs();
            for run in &l.runs {
                receipts.extend(check.verify_run(&inputs, run).receipts);
            }
        }
    } else {
        let mut verified: Vec<ExperimentVerification> = checks
            .iter()
            .zip(&loaded)
            .map(|(check, l)| {
                let inputs = check.task_inputs();
                check.finish(
                    l.runs
                        .iter()
                        .map(|r| check.verify_run(&inputs, r))
                        .collect(),
                )
            })
            .collect();
        let study: Option<Study> = files
            .get(STUDY_FILE)
            .and_then(|b| parse(STUDY_FILE, b, &mut receipts));
        let memo_texts: Vec<(&str, String)> = files
            .iter()
            .filter(|(p, _)| match scope {
                Scope::All => p
                    .strip_prefix(DOCS_PREFIX)
                    .is_some_and(|rest| rest.starts_with(MEMOS_DIR) && rest.ends_with(".md")),
                Scope::Document { path, .. } => *p == path,
                _ => false,
            })
            .map(|(p, b)| (p.as_str(), String::from_utf8_lossy(b).into_owned()))
            .collect();
        // The showcase's notes and narrative are claims the whole site's
        // verification holds.
        let showcase: Option<crate::model::Showcase> = match scope {
            Scope::All => files
                .get(super::SHOWCASE_FILE)
                .and_then(|b| parse(super::SHOWCASE_FILE, b, &mut receipts)),
            _ => None,
        };
        let narrative = showcase.as_ref().and_then(|s| {
            let path = super::showcase_narrative(s);
            let text = String::from_utf8_lossy(files.get(&path)?).into_owned();
            Some((path, text))
        });
        let mut memos: Vec<Memo<'_>> = memo_texts
            .iter()
            .map(|(subject, text)| Memo { subject, text })
            .collect();
        if let Some((subject, text)) = &narrative {
            memos.push(Memo { subject, text });
        }
        let prose = showcase
            .as_ref()
            .map(super::showcase_claims)
            .unwrap_or_default();
        let named = match scope {
            Scope::All => super::NamedFigures::All,
            _ => super::NamedFigures::OfLoaded,
        };
        let study = super::conclude_study(
            &checks,
            &mut verified,
            study.as_ref(),
            (&memos, &prose),
            named,
        );
        receipts.extend(study.receipts);
        for v in &verified {
            receipts.extend(v.all_receipts().cloned());
        }
        receipts.extend(super::reused_across(
            loaded
                .iter()
                .zip(&verified)
                .map(|(l, v)| (l.dir, v.runs.iter().map(|r| &r.facts).collect())),
        ));
        for (l, v) in loaded.iter().zip(&verified) {
            prints.runs.extend(v.runs.iter().map(|r| {
                (
                    layout::run_path(l.dir, &r.facts.place.id),
                    r.facts.prints.clone(),
                )
            }));
        }
    }
    imports(files, &objects, scope, &mut receipts);
    harness(files, scope, &mut receipts);
    regressions(files, &objects, scope, &mut receipts);
    BundleResult {
        tally: Tally::of(&receipts),
        receipts,
        prints,
    }
}

/// Every imported record in scope (`<dir>/inspect/<name>.json`, an
/// evaluation, and `<dir>/otel/<name>.json`, traces), against the
/// originals it names in `objects/`; and each directory's evaluations
/// against its `registration.json`, when it has one.
fn imports(
    files: &BTreeMap<String, Vec<u8>>,
    objects: &BTreeMap<String, Vec<u8>>,
    scope: &Scope,
    out: &mut Vec<Receipt>,
) {
    use crate::inspect::{ImportedEval, EVAL_REGISTRATION_FILE, INSPECT_DIR};
    use crate::otel::OTEL_DIR;
    let wanted = |dir: &str| {
        let in_scope = match scope {
            Scope::All => true,
            Scope::Import { dir: d } => d == dir,
            _ => false,
        };
        in_scope && !files.contains_key(&format!("{dir}/experiment.json"))
    };
    let mut evals: BTreeMap<&str, Vec<(&str, ImportedEval)>> = BTreeMap::new();
    let mut registrations = Vec::new();
    for (path, bytes) in files {
        let Some((dir, rest)) = path.split_once('/') else {
            continue;
        };
        if rest == EVAL_REGISTRATION_FILE && wanted(dir) {
            registrations.push((dir, path, bytes));
            continue;
        }
        let Some((kind, name)) = rest.split_once('/') else {
            continue;
        };
        let Some(name) = name.strip_suffix(".json") else {
            continue;
        };
        if name.contains('/') || !wanted(dir) {
            continue;
        }
        if kind == INSPECT_DIR {
            if let Some(eval) = parse::<ImportedEval>(path, bytes, out) {
                out.extend(import_eval(path, &eval, objects));
                evals.entry(dir).or_default().push((name, eval));
            }
        } else if kind == OTEL_DIR {
            out.extend(import_traces(path, bytes, objects));
        }
    }
    for (dir, path, bytes) in registrations {
        if let Some(registration) = parse(path, bytes, out) {
            let named: Vec<(&str, &ImportedEval)> = evals
                .get(dir)
                .into_iter()
                .flatten()
                .map(|(n, e)| (*n, e))
                .collect();
            let (per_eval, own) = crate::inspect::registration_receipts(dir, &registration, &named);
            out.extend(per_eval.into_iter().flatten().chain(own));
        }
    }
}

/// An imported evaluation's receipts: recomputed against its original log.
#[cfg(feature = "full")]
fn import_eval(
    path: &str,
    eval: &crate::inspect::ImportedEval,
    objects: &BTreeMap<String, Vec<u8>>,
) -> Vec<Receipt> {
    let log = objects.get(&eval.source.sha256).map(Vec::as_slice);
    crate::inspect::verify_kept(path, eval, log)
}

/// Imported traces' receipts: recomputed against their original export.
#[cfg(feature = "full")]
fn import_traces(path: &str, bytes: &[u8], objects: &BTreeMap<String, Vec<u8>>) -> Vec<Receipt> {
    let mut out = Vec::new();
    if let Some(traces) = parse::<crate::otel::ImportedTraces>(path, bytes, &mut out) {
        let kept = |sha: &str| objects.get(sha).cloned();
        out.extend(crate::otel::verify_kept(path, &traces, &kept));
    }
    out
}

/// The lean verifier leaves imports to the full one.
#[cfg(not(feature = "full"))]
fn import_eval(
    path: &str,
    _eval: &crate::inspect::ImportedEval,
    _objects: &BTreeMap<String, Vec<u8>>,
) -> Vec<Receipt> {
    vec![super::left_out(
        path,
        "recomputed from its original",
        "an imported inspect record",
    )]
}

/// The lean verifier leaves imports to the full one.
#[cfg(not(feature = "full"))]
fn import_traces(path: &str, _bytes: &[u8], _objects: &BTreeMap<String, Vec<u8>>) -> Vec<Receipt> {
    vec![super::left_out(
        path,
        "recomputed from its original",
        "an imported otel record",
    )]
}

/// Where the documents are, under the records root.
const DOCS_PREFIX: &str = "docs/";

/// One experiment's files, parsed.
struct Loaded<'f> {
    dir: &'f str,
    experiment: Experiment,
    runs: Vec<Run>,
    log: String,
    summary: Option<Summary>,
    results: Option<ResultsTable>,
    deviations: Option<Deviations>,
    models: Option<ModelCheck>,
    git: Option<GitAnchor>,
}

impl<'f> Loaded<'f> {
    /// Experiment `dir`'s files (within `scope`, one run's for [`Scope::Run`]).
    fn read(
        files: &'f BTreeMap<String, Vec<u8>>,
        dir: &'f str,
        scope: &Scope,
        receipts: &mut Vec<Receipt>,
    ) -> Option<Loaded<'f>> {
        let experiment = parse::<Experiment>(
            &format!("{dir}/experiment.json"),
            &files[&format!("{dir}/experiment.json")],
            receipts,
        )?;
        if experiment.id != dir {
            receipts.push(Receipt::new(
                &format!("{dir}/experiment.json"),
                "id",
                &experiment.id,
                "the directory's name differs",
                false,
            ));
            return None;
        }
        let runs_prefix = format!("{dir}/{}/", layout::RUNS_DIR);
        let runs: Vec<Run> = files
            .iter()
            .filter(|(p, _)| p.starts_with(&runs_prefix) && p.ends_with(".json"))
            .filter(|(p, _)| match scope {
                Scope::Run { run, .. } => **p == format!("{runs_prefix}{run}.json"),
                _ => true,
            })
            .filter_map(|(p, b)| {
                let run = parse::<Run>(p, b, receipts)?;
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
        let log = experiment
            .preregistration
            .as_ref()
            .and_then(|p| files.get(&format!("{dir}/{}", p.log)))
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let summary_path = format!("{dir}/summary.json");
        let summary: Option<Summary> = files
            .get(&summary_path)
            .and_then(|b| parse(&summary_path, b, receipts));
        let results_path = format!("{dir}/results.csv");
        let results = files
            .get(&results_path)
            .and_then(|b| match ResultsTable::parse(b) {
                Ok(table) => Some(table),
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
            });
        let deviations_path = format!("{dir}/deviations.json");
        let deviations: Option<Deviations> = files
            .get(&deviations_path)
            .and_then(|b| parse(&deviations_path, b, receipts));
        let models_path = format!("{dir}/{MODEL_CHECK_FILE}");
        let models: Option<ModelCheck> = files
            .get(&models_path)
            .and_then(|b| parse(&models_path, b, receipts));
        let git_path = format!("{dir}/{GIT_ANCHOR_FILE}");
        let git: Option<GitAnchor> = files
            .get(&git_path)
            .and_then(|b| parse(&git_path, b, receipts));
        Some(Loaded {
            dir,
            experiment,
            runs,
            log,
            summary,
            results,
            deviations,
            models,
            git,
        })
    }

    fn check<'a>(
        &'a self,
        files: &'a BTreeMap<String, Vec<u8>>,
        tasks: &'a BTreeMap<String, Task>,
        objects: &'a BTreeMap<String, Vec<u8>>,
    ) -> ExperimentCheck<'a> {
        let dir = self.dir;
        let beside = |name: &str| files.get(&format!("{dir}/{name}")).map(Vec::as_slice);
        ExperimentCheck {
            dir,
            anchors: AnchorFiles {
                timestamp: beside(TIMESTAMP_FILE),
                tsa_certificate: beside(TSA_CERTIFICATE_FILE),
                git: self.git.as_ref(),
            },
            experiment: &self.experiment,
            log: &self.log,
            summary: self.summary.as_ref(),
            summary_text: beside("summary.json"),
            results: self.results.as_ref(),
            deviations: self.deviations.as_ref(),
            models: self.models.as_ref(),
            tasks,
            objects,
        }
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
        // One edit's page checks the edit alone.
        let whole = |path: String| only.is_none().then(|| files.get(&path).map(|b| (path, b)));
        let benchmark = whole(benchmark_path(dir))
            .flatten()
            .and_then(|(p, b)| parse::<RegressionBenchmark>(&p, b, receipts));
        let actions = whole(actions_path(dir))
            .flatten()
            .and_then(|(p, b)| parse::<RegressionActions>(&p, b, receipts));
        let ablations: Vec<RegressionAblation> = if only.is_some() {
            Vec::new()
        } else {
            let ablations = SuiteFiles {
                sub: "ablations",
                ..suites
            };
            ablations.members(dir, None, |a: &RegressionAblation| &a.id, receipts)
        };
        let records = super::SuiteRecords {
            benchmark: benchmark.as_ref(),
            actions: actions.as_ref(),
            ablations: &ablations,
        };
        let verified = super::verify_regressions(dir, &suite, &edits, records, objects);
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

    /// The browser loads the verifier that recomputes receipts only for a
    /// job with records (verify-worker.js): that is sound only while no
    /// records recompute to no receipts, whatever the scope.
    #[test]
    fn no_records_recompute_to_no_receipts_in_any_scope() {
        let s = String::from;
        let scopes = [
            Scope::All,
            Scope::Experiment {
                experiment: s("E01"),
                with: vec![s("E02")],
            },
            Scope::Run {
                experiment: s("E01"),
                run: s("r1"),
            },
            Scope::Import { dir: s("imports") },
            Scope::Harness { suite: s("h") },
            Scope::HarnessRun {
                suite: s("h"),
                run: s("r1"),
            },
            Scope::Regressions { suite: s("g") },
            Scope::SkillEdit {
                suite: s("g"),
                edit: s("e1"),
            },
            Scope::Document {
                path: s("docs/memos/m.md"),
                with: vec![s("E01")],
            },
            Scope::None,
        ];
        for scope in &scopes {
            let result = verify_files(&BTreeMap::new(), scope);
            assert!(
                result.receipts.is_empty(),
                "{scope:?}: {:?}",
                result.receipts
            );
        }
    }

    fn failing_ids(files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
        verify_files(files, &Scope::All)
            .receipts
            .into_iter()
            .filter(|r| r.claim == "id" && r.status == super::super::Status::Fail)
            .map(|r| r.subject)
            .collect()
    }

    /// Every file of the sample under the records root, and its memos
    /// under `docs/`, as a site publishes them.
    fn sample_files() -> BTreeMap<String, Vec<u8>> {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = BTreeMap::new();
        for (dir, prefix) in [("experiments", ""), ("docs/memos", "docs/memos/")] {
            let root = repo.join(dir);
            let mut stack = vec![root.clone()];
            while let Some(d) = stack.pop() {
                for entry in std::fs::read_dir(&d).expect("dir") {
                    let path = entry.expect("entry").path();
                    if path.is_dir() {
                        stack.push(path);
                    } else {
                        let rel = path.strip_prefix(&root).expect("prefix");
                        let rel = rel.to_string_lossy().replace('\\', "/");
                        files.insert(
                            format!("{prefix}{rel}"),
                            std::fs::read(&path).expect("read"),
                        );
                    }
                }
            }
        }
        files
    }

    fn failing(result: &BundleResult) -> Vec<String> {
        result
            .receipts
            .iter()
            .filter(|r| r.status != super::super::Status::Pass)
            .map(|r| format!("{}: {}: {}", r.subject, r.claim, r.recomputed))
            .collect()
    }

    #[test]
    fn an_experiment_page_verifies_the_experiments_its_claims_read() {
        let files = sample_files();
        let with = Scope::Experiment {
            experiment: "E02".into(),
            with: vec!["E01".into()],
        };
        let result = verify_files(&files, &with);
        assert_eq!(failing(&result), Vec::<String>::new());
        let claims = result
            .receipts
            .iter()
            .filter(|r| r.subject == "E02/summary.json" && r.claim.starts_with("findings["))
            .count();
        assert!(claims >= 5, "{claims} finding receipts");
        // Without E01, H4, H6 and the finding that read E01 cannot be recomputed.
        let alone = Scope::Experiment {
            experiment: "E02".into(),
            with: Vec::new(),
        };
        let failed = failing(&verify_files(&files, &alone));
        assert!(
            ["H4", "H6"].iter().all(|h| failed
                .iter()
                .any(|f| f.contains(&format!("hypotheses[{h}].outcome")))),
            "{failed:?}"
        );
        assert!(
            failed.iter().any(|f| f.contains("no experiment `E01`")),
            "{failed:?}"
        );
    }

    #[test]
    fn a_memo_edited_in_its_record_fails_in_the_browser_too() {
        let mut files = sample_files();
        let memo = "docs/memos/E02-corrections.md";
        let scope = Scope::Document {
            path: memo.into(),
            with: vec!["E01".into(), "E02".into(), "E03".into(), "E04".into()],
        };
        let result = verify_files(&files, &scope);
        assert_eq!(failing(&result), Vec::<String>::new());
        assert!(result.receipts.iter().any(|r| r.subject == memo));
        let text = String::from_utf8(files[memo].clone()).expect("utf-8");
        let forged = text.replacen("[83.3%](#E02.ladder", "[88.9%](#E02.ladder", 1);
        assert_ne!(forged, text);
        files.insert(memo.into(), forged.into_bytes());
        let failed = failing(&verify_files(&files, &scope));
        assert!(
            failed
                .iter()
                .any(|f| f.starts_with(memo) && f.contains("the figure is 83.3")),
            "{failed:?}"
        );
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
