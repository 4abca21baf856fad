//! Runs the verification core over a loaded corpus: every run (in parallel),
//! then each experiment's published numbers, then each harness suite's runs and each regression suite's edits. The build publishes the result
//! beside every recorded value; `receipts verify` re-runs it on a built site.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use receipts_verifier::model::Run;
use receipts_verifier::verify::{
    conclude_study, reused_across, showcase_claims, showcase_narrative, verify_regressions,
    verify_suite, ExperimentCheck, ExperimentVerification, Memo, NamedFigures, Receipt,
    RegressionVerification, RunVerification, Status, StudyVerification, SuiteRecords,
    SuiteVerification, Tally, MEMOS_DIR,
};

use crate::error::BuildError;
use crate::load::{read_run, Corpus, LoadedExperiment, DOCS_DIR};
use crate::validate;

/// The receipts of one directory of imported runs: one list per
/// evaluation, one per trace export, in the directory's order.
#[derive(Debug, Default)]
pub struct ImportReceipts {
    /// Each evaluation's, its registration's included.
    pub evals: Vec<Vec<Receipt>>,
    pub traces: Vec<Vec<Receipt>>,
    /// The directory's registration's own: each registered task has a log.
    pub registration: Vec<Receipt>,
}

impl ImportReceipts {
    pub fn all(&self) -> impl Iterator<Item = &Receipt> {
        self.evals
            .iter()
            .chain(&self.traces)
            .flatten()
            .chain(&self.registration)
    }
}

/// The verification of every experiment of a corpus, in corpus order.
pub struct Verified {
    pub experiments: Vec<ExperimentVerification>,
    /// The study's: its named figures' and its memos' receipts.
    pub study: StudyVerification,
    /// Each imported evaluation's receipts, by directory then evaluation, in corpus order.
    pub imports: Vec<ImportReceipts>,
    /// Each harness suite's, in corpus order; every receipt is kept.
    pub harness: Vec<SuiteVerification>,
    /// Each regression suite's, in corpus order; every receipt is kept.
    pub regressions: Vec<RegressionVerification>,
    /// Every receipt counted, including the passing run receipts
    /// [`Keep::NotPassing`] let go.
    tally: Tally,
}

impl Verified {
    /// The receipts kept: each experiment's (experiment-level first, then
    /// each run's), then each harness suite's, then each regression suite's.
    pub fn receipts(&self) -> impl Iterator<Item = &Receipt> {
        self.study
            .receipts
            .iter()
            .chain(
                self.experiments
                    .iter()
                    .flat_map(receipts_verifier::verify::ExperimentVerification::all_receipts),
            )
            .chain(self.imports.iter().flat_map(ImportReceipts::all))
            .chain(
                self.harness
                    .iter()
                    .flat_map(receipts_verifier::verify::SuiteVerification::all_receipts),
            )
            .chain(
                self.regressions
                    .iter()
                    .flat_map(receipts_verifier::verify::RegressionVerification::all_receipts),
            )
    }

    pub fn tally(&self) -> Tally {
        self.tally
    }
}

/// Which run receipts [`verify`] keeps once a run's pass is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every receipt (`receipts verify` prints them all).
    All,
    /// Only those that fail or could not be checked; the rest are counted.
    /// A run's own page has shown them all by then, and a run's status
    /// depends only on these.
    NotPassing,
}

fn check<'a>(corpus: &'a Corpus, loaded: &'a LoadedExperiment) -> ExperimentCheck<'a> {
    ExperimentCheck {
        dir: &loaded.dir,
        experiment: &loaded.experiment,
        log: &loaded.log,
        summary: loaded.summary.as_ref(),
        summary_text: loaded.summary_text.as_deref(),
        results: loaded.results.as_ref(),
        deviations: loaded.deviations.as_ref(),
        models: loaded.models.as_ref(),
        anchors: loaded.anchors.files(),
        tasks: &corpus.tasks,
        objects: &corpus.objects,
    }
}

/// A run read again, with what verifying it found: the build makes its page here.
pub struct RunPass<'a> {
    /// The experiment's position in `corpus.experiments`.
    pub experiment: usize,
    pub loaded: &'a LoadedExperiment,
    /// The run's position in `loaded.runs`.
    pub index: usize,
    pub run: &'a Run,
    /// The record's bytes, as read.
    pub bytes: &'a [u8],
    pub verification: &'a RunVerification,
}

/// A run as the previous build verified it.
#[derive(Debug, Clone)]
pub struct CachedRun {
    /// The SHA-256 of the record it was verified from.
    pub digest: String,
    /// The verification, with the checks' evidence its page shows.
    pub verification: Arc<RunVerification>,
}

/// The runs a rebuild keeps from the build before it (see [`crate::cache`]),
/// and those it verifies anew, for the next.
pub struct Reuse<'a> {
    /// By record path under the records directory.
    pub kept: &'a HashMap<String, CachedRun>,
    /// Every run of this build, as the next may keep it.
    pub fresh: Mutex<HashMap<String, CachedRun>>,
    /// How many runs kept their verification.
    pub hits: AtomicUsize,
    /// Called for a run that keeps its verification, with its experiment
    /// and its position there: when it returns true, the run's page and
    /// record are taken as they are (see `crate::write::in_place`), and
    /// the record is neither read again nor handed to `visit`.
    pub unchanged: Option<&'a Unchanged<'a>>,
}

/// See [`Reuse::unchanged`].
pub type Unchanged<'a> = dyn Fn(&LoadedExperiment, usize) -> bool + Sync + 'a;

/// Verifies every run, in parallel: each record is read again (it must be
/// the bytes loading read), checked against the corpus, verified and handed
/// to `visit`, then let go, so no more than one record per thread is held.
/// Then each experiment's numbers. Only a run's own page shows its checks'
/// evidence, so the verification kept for each run leaves them out. The
/// first error, in run order, stops the build.
pub fn verify<F>(
    corpus: &Corpus,
    keep: Keep,
    reuse: Option<&Reuse<'_>>,
    visit: F,
) -> Result<Verified, BuildError>
where
    F: Fn(RunPass<'_>) -> Result<(), BuildError> + Sync,
{
    let mut experiments = Vec::with_capacity(corpus.experiments.len());
    let mut tally = Tally::default();
    for (experiment, loaded) in corpus.experiments.iter().enumerate() {
        let input = check(corpus, loaded);
        let inputs = input.task_inputs();
        let ids: BTreeSet<&str> = loaded.runs.iter().map(|r| r.place.id.as_str()).collect();
        let runs: Vec<Result<(RunVerification, Tally), BuildError>> = (0..loaded.runs.len())
            .into_par_iter()
            .map(|index| {
                let rel = loaded.run_path(&loaded.runs[index].place.id);
                let digest = corpus.record_digests.get(&rel).cloned().unwrap_or_default();
                let hit = reuse
                    .and_then(|r| r.kept.get(&rel))
                    .filter(|c| c.digest == digest);
                if let (Some(reuse), Some(_)) = (reuse, hit) {
                    reuse.hits.fetch_add(1, Ordering::Relaxed);
                }
                // Kept with its page: checked when it was verified, in the same context.
                let unchanged = hit.is_some()
                    && reuse
                        .and_then(|r| r.unchanged)
                        .is_some_and(|unchanged| unchanged(loaded, index));
                let full: Arc<RunVerification> = match hit {
                    Some(cached) if unchanged => cached.verification.clone(),
                    _ => {
                        let (run, bytes) = read_run(corpus, loaded, index)?;
                        validate::run(corpus, loaded, &ids, &run)?;
                        let verification = match hit {
                            Some(cached) => cached.verification.clone(),
                            None => Arc::new(input.verify_run(&inputs, &run)),
                        };
                        visit(RunPass {
                            experiment,
                            loaded,
                            index,
                            run: &run,
                            bytes: &bytes,
                            verification: &verification,
                        })?;
                        verification
                    }
                };
                if let Some(reuse) = reuse {
                    let cached = CachedRun {
                        digest,
                        verification: full.clone(),
                    };
                    let mut fresh = reuse
                        .fresh
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    fresh.insert(rel, cached);
                }
                let counted = Tally::of(&full.receipts);
                let verification = RunVerification {
                    checks: Vec::new(),
                    attempts_passed: full.attempts_passed.clone(),
                    receipts: match keep {
                        Keep::NotPassing => full
                            .receipts
                            .iter()
                            .filter(|r| r.status != Status::Pass)
                            .cloned()
                            .collect(),
                        Keep::All => full.receipts.clone(),
                    },
                    facts: full.facts.clone(),
                };
                Ok((verification, counted))
            })
            .collect();
        let mut verifications = Vec::with_capacity(runs.len());
        for run in runs {
            let (verification, counted) = run?;
            tally = sum(tally, counted);
            verifications.push(verification);
        }
        experiments.push(input.finish(verifications));
    }
    let checks: Vec<ExperimentCheck<'_>> = corpus
        .experiments
        .iter()
        .map(|loaded| check(corpus, loaded))
        .collect();
    let mut memos: Vec<(String, &str)> = memos(corpus);
    // The showcase's narrative is read as a memo, its notes as claims.
    if let Some(showcase) = &corpus.showcase {
        memos.push((
            showcase_narrative(&showcase.showcase),
            showcase.narrative.as_str(),
        ));
    }
    let prose = corpus
        .showcase
        .as_ref()
        .map(|s| showcase_claims(&s.showcase))
        .unwrap_or_default();
    let memos: Vec<Memo<'_>> = memos
        .iter()
        .map(|(subject, text)| Memo { subject, text })
        .collect();
    let study = conclude_study(
        &checks,
        &mut experiments,
        corpus.study.as_ref().map(|(s, _)| s),
        (&memos, &prose),
        NamedFigures::All,
    );
    tally = sum(tally, Tally::of(&study.receipts));
    for verified in &experiments {
        tally = sum(tally, Tally::of(&verified.receipts));
    }
    let across = reused_across(
        corpus
            .experiments
            .iter()
            .zip(&experiments)
            .map(|(loaded, v)| {
                (
                    loaded.dir.as_str(),
                    v.runs.iter().map(|r| &r.facts).collect(),
                )
            }),
    );
    tally = sum(tally, Tally::of(&across));
    // Each with the experiment of the run that repeats a call.
    for receipt in across {
        let owner = corpus
            .experiments
            .iter()
            .position(|l| receipt.subject.starts_with(&format!("{}/", l.dir)));
        if let Some(v) = owner.and_then(|i| experiments.get_mut(i)) {
            v.receipts.push(receipt);
        }
    }
    let harness: Vec<SuiteVerification> = corpus
        .harness
        .par_iter()
        .map(|s| verify_suite(&s.dir, &s.suite, &s.runs))
        .collect();
    let regressions: Vec<RegressionVerification> = corpus
        .regressions
        .par_iter()
        .map(|s| {
            verify_regressions(
                &s.dir,
                &s.suite,
                &s.edits,
                SuiteRecords {
                    benchmark: s.benchmark.as_ref(),
                    actions: s.actions.as_ref(),
                    ablations: &s.ablations,
                },
                &corpus.objects,
            )
        })
        .collect();
    let imports: Vec<ImportReceipts> = corpus
        .imports
        .iter()
        .map(|loaded| import_receipts(loaded, &corpus.objects))
        .collect();
    tally = sum(
        tally,
        Tally::of(imports.iter().flat_map(ImportReceipts::all)),
    );
    for suite in &harness {
        tally = sum(tally, Tally::of(suite.all_receipts()));
    }
    for suite in &regressions {
        tally = sum(tally, Tally::of(suite.all_receipts()));
    }
    Ok(Verified {
        experiments,
        study,
        imports,
        harness,
        regressions,
        tally,
    })
}

/// The memos among the documents, each with its path under the records
/// root (`docs/memos/<name>.md`) and its text.
pub fn memos(corpus: &Corpus) -> Vec<(String, &str)> {
    corpus
        .docs
        .iter()
        .filter(|d| d.path.starts_with(MEMOS_DIR))
        .map(|d| (format!("{DOCS_DIR}/{}", d.path), d.markdown.as_str()))
        .collect()
}

fn sum(a: Tally, b: Tally) -> Tally {
    Tally {
        pass: a.pass + b.pass,
        fail: a.fail + b.fail,
        could_not_check: a.could_not_check + b.could_not_check,
    }
}

/// One directory's imported records, each recomputed from its original
/// in `objects`, and its evaluations held to its registration.
fn import_receipts(
    loaded: &crate::load::LoadedImport,
    objects: &std::collections::BTreeMap<String, Vec<u8>>,
) -> ImportReceipts {
    let mut evals: Vec<Vec<Receipt>> = loaded
        .evals
        .par_iter()
        .map(|(name, eval)| {
            let subject = loaded.record_path(name);
            let log = objects.get(&eval.source.sha256).map(Vec::as_slice);
            receipts_verifier::inspect::verify_kept(&subject, eval, log)
        })
        .collect();
    let traces = loaded
        .traces
        .par_iter()
        .map(|(name, traces)| {
            let kept = |sha: &str| objects.get(sha).cloned();
            receipts_verifier::otel::verify_kept(&loaded.traces_path(name), traces, &kept)
        })
        .collect();
    let mut registration = Vec::new();
    if let Some(r) = &loaded.registration {
        let named: Vec<(&str, &receipts_verifier::inspect::ImportedEval)> =
            loaded.evals.iter().map(|(n, e)| (n.as_str(), e)).collect();
        let (per_eval, own) =
            receipts_verifier::inspect::registration_receipts(&loaded.dir, r, &named);
        for (receipts, more) in evals.iter_mut().zip(per_eval) {
            receipts.extend(more);
        }
        registration = own;
    }
    ImportReceipts {
        evals,
        traces,
        registration,
    }
}
