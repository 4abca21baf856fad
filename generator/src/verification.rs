//! Runs the verification core over a loaded corpus: every run (in parallel),
//! then each experiment's published numbers. The build publishes the result
//! beside every recorded value; `receipts verify` re-runs it on a built site.

use std::collections::BTreeSet;

use rayon::prelude::*;

use receipts_verifier::model::Run;
use receipts_verifier::verify::{
    ExperimentCheck, ExperimentVerification, Receipt, RunVerification, Tally,
};

use crate::build::BuildError;
use crate::load::{read_run, Corpus, LoadedExperiment};
use crate::validate;

/// The verification of every experiment of a corpus, in corpus order.
pub struct Verified {
    pub experiments: Vec<ExperimentVerification>,
}

impl Verified {
    pub fn receipts(&self) -> impl Iterator<Item = &Receipt> {
        self.experiments.iter().flat_map(|e| e.all_receipts())
    }

    pub fn tally(&self) -> Tally {
        Tally::of(self.receipts())
    }
}

fn check<'a>(corpus: &'a Corpus, loaded: &'a LoadedExperiment) -> ExperimentCheck<'a> {
    ExperimentCheck {
        dir: &loaded.dir,
        experiment: &loaded.experiment,
        log: &loaded.log,
        summary: loaded.summary.as_ref(),
        results: loaded.results.as_deref(),
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

/// Verifies every run, in parallel: each record is read again (it must be
/// the bytes loading read), checked against the corpus, verified and handed
/// to `visit`, then let go, so no more than one record per thread is held.
/// Then each experiment's numbers. Only a run's own page shows its checks'
/// evidence, so the verification kept for each run leaves them out. The
/// first error, in run order, stops the build.
pub fn verify<F>(corpus: &Corpus, visit: F) -> Result<Verified, BuildError>
where
    F: Fn(RunPass<'_>) -> anyhow::Result<()> + Sync,
{
    let mut experiments = Vec::with_capacity(corpus.experiments.len());
    for (experiment, loaded) in corpus.experiments.iter().enumerate() {
        let input = check(corpus, loaded);
        let inputs = input.task_inputs();
        let ids: BTreeSet<&str> = loaded.runs.iter().map(|r| r.id.as_str()).collect();
        let runs: Vec<Result<RunVerification, BuildError>> = (0..loaded.runs.len())
            .into_par_iter()
            .map(|index| {
                let (run, bytes) = read_run(corpus, loaded, index)?;
                validate::run(corpus, loaded, &ids, &run)?;
                let mut verification = input.verify_run(&inputs, &run);
                visit(RunPass {
                    experiment,
                    loaded,
                    index,
                    run: &run,
                    bytes: &bytes,
                    verification: &verification,
                })?;
                verification.checks = Vec::new();
                Ok(verification)
            })
            .collect();
        let runs = runs.into_iter().collect::<Result<Vec<_>, _>>()?;
        experiments.push(input.finish(runs));
    }
    Ok(Verified { experiments })
}
