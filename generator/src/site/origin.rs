//! Where the records a page shows came from, as its banner says: made up by
//! the simulator, answered by a tool's mock model or a server on the
//! recording machine, or recorded from a provider (no banner). A page of
//! many records says what they share, or that some are marked.

use serde::Serialize;

use receipts_verifier::inspect::ImportedEval;
use receipts_verifier::otel::ImportedTraces;

use crate::load::Corpus;

use super::{regressions_simulated, suite_simulated};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Recorded from a provider's answers: the page carries no banner.
    #[default]
    Recorded,
    /// Written by the receipts simulator: no model was called.
    Simulator,
    /// An evaluation run against Inspect AI's mock model (`mockllm/…`).
    MockModel,
    /// Calls answered by a server on the recording machine (`localhost`).
    LocalServer,
    /// Records of more than one origin, some of them not a provider's.
    Mixed,
}

impl Origin {
    /// The simulator's when `simulated`, else recorded.
    pub fn simulator_if(simulated: bool) -> Origin {
        if simulated {
            Origin::Simulator
        } else {
            Origin::Recorded
        }
    }

    /// What records of these origins share: their one origin, or `Mixed`
    /// when they differ and any is not recorded (`Recorded` for none).
    pub fn of_all(origins: impl IntoIterator<Item = Origin>) -> Origin {
        let mut origins = origins.into_iter();
        let Some(first) = origins.next() else {
            return Origin::Recorded;
        };
        origins.fold(first, |shared, next| {
            if shared == next {
                shared
            } else {
                Origin::Mixed
            }
        })
    }
}

/// An imported evaluation's origin: Inspect's mock model, or recorded.
pub fn eval_origin(eval: &ImportedEval) -> Origin {
    if eval.model.starts_with("mockllm/") {
        Origin::MockModel
    } else {
        Origin::Recorded
    }
}

/// An OpenTelemetry export's origin: a local server when every call it
/// holds went to one, or recorded.
pub fn traces_origin(traces: &ImportedTraces) -> Origin {
    if super::traces_local(traces) {
        Origin::LocalServer
    } else {
        Origin::Recorded
    }
}

/// The origin of the experiments' runs alone (the runs index, the compare
/// page and the showcase show nothing else).
pub fn experiments_origin(corpus: &Corpus) -> Origin {
    Origin::of_all(
        corpus
            .experiments
            .iter()
            .map(|e| Origin::simulator_if(e.experiment.provenance.is_simulated())),
    )
}

/// The origin of every record of a site (its index, its Verify page, its memos).
pub fn site_origin(corpus: &Corpus) -> Origin {
    let imports = corpus.imports.iter().flat_map(|i| {
        let evals = i.evals.iter().map(|(_, e)| eval_origin(e));
        evals.chain(i.traces.iter().map(|(_, t)| traces_origin(t)))
    });
    let experiments = corpus.experiments.iter().map(|e| e.experiment.provenance);
    let suites = corpus.harness.iter().map(suite_simulated);
    let regressions = corpus.regressions.iter().map(regressions_simulated);
    Origin::of_all(
        experiments
            .map(|p| Origin::simulator_if(p.is_simulated()))
            .chain(imports)
            .chain(suites.chain(regressions).map(Origin::simulator_if)),
    )
}

#[cfg(test)]
mod tests {
    use super::Origin::{self, *};

    #[test]
    fn records_of_one_origin_share_it_and_of_several_are_mixed() {
        assert_eq!(Origin::of_all([]), Recorded);
        assert_eq!(Origin::of_all([Simulator, Simulator]), Simulator);
        assert_eq!(Origin::of_all([MockModel]), MockModel);
        assert_eq!(Origin::of_all([Recorded, Recorded]), Recorded);
        assert_eq!(Origin::of_all([Recorded, Simulator]), Mixed);
        assert_eq!(Origin::of_all([MockModel, Simulator, Recorded]), Mixed);
        assert_eq!(Origin::of_all([Simulator, MockModel]), Mixed);
    }
}
