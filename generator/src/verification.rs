//! Runs the verification core over a loaded corpus: every run (in parallel),
//! then each experiment's published numbers. The build publishes the result
//! beside every recorded value; `receipts verify` re-runs it on a built site.

use rayon::prelude::*;

use receipts_verifier::verify::{ExperimentCheck, ExperimentVerification, Receipt, Tally};

use crate::load::{Corpus, LoadedExperiment};

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

pub fn verify(corpus: &Corpus) -> Verified {
    let experiments = corpus
        .experiments
        .iter()
        .map(|loaded| {
            let input = check(corpus, loaded);
            let inputs = input.task_inputs();
            let runs = loaded
                .runs
                .par_iter()
                .map(|run| input.verify_run(&inputs, run))
                .collect();
            input.finish(runs)
        })
        .collect();
    Verified { experiments }
}
