//! How many records of each kind a site holds, named the one way the build
//! line, the footer and the navigation name them.

use serde::Serialize;

use crate::load::Corpus;
use crate::numbers::count;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub experiments: usize,
    /// The experiments' runs.
    pub runs: usize,
    /// Imported evaluations (Inspect AI logs).
    pub evaluations: usize,
    /// Their samples × epochs.
    pub samples: usize,
    /// Imported trace exports (OpenTelemetry).
    pub trace_exports: usize,
    /// The runs they hold, one per trace.
    pub traced_runs: usize,
    pub harness_suites: usize,
    pub harness_runs: usize,
    pub regression_suites: usize,
    pub skill_edits: usize,
}

impl Counts {
    pub fn of(corpus: &Corpus) -> Counts {
        let evals = || corpus.imports.iter().flat_map(|i| &i.evals);
        let traces = || corpus.imports.iter().flat_map(|i| &i.traces);
        Counts {
            experiments: corpus.experiments.len(),
            runs: corpus.experiments.iter().map(|e| e.runs.len()).sum(),
            evaluations: evals().count(),
            samples: evals().map(|(_, e)| e.samples.len()).sum(),
            trace_exports: traces().count(),
            traced_runs: traces().map(|(_, t)| t.runs.len()).sum(),
            harness_suites: corpus.harness.len(),
            harness_runs: corpus.harness.iter().map(|s| s.runs.len()).sum(),
            regression_suites: corpus.regressions.len(),
            skill_edits: corpus.regressions.iter().map(|s| s.edits.len()).sum(),
        }
    }

    /// Every kind the site holds, each with what it holds: "3 experiments
    /// (206 runs), 1 evaluation (8 samples)"; "no records" for none.
    pub fn describe(&self) -> String {
        let kinds = [
            (self.experiments, "experiment", self.runs, "run"),
            (self.evaluations, "evaluation", self.samples, "sample"),
            (self.trace_exports, "trace export", self.traced_runs, "run"),
            (
                self.harness_suites,
                "harness suite",
                self.harness_runs,
                "run",
            ),
            (
                self.regression_suites,
                "regression suite",
                self.skill_edits,
                "skill edit",
            ),
        ];
        let parts: Vec<String> = kinds
            .iter()
            .filter(|(n, ..)| *n > 0)
            .map(|&(n, kind, m, part)| {
                format!("{} ({})", count(n, kind, None), count(m, part, None))
            })
            .collect();
        if parts.is_empty() {
            "no records".to_string()
        } else {
            parts.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_held_is_named_with_what_it_holds_and_none_else() {
        let imports_only = Counts {
            evaluations: 2,
            samples: 16,
            ..Counts::default()
        };
        assert_eq!(imports_only.describe(), "2 evaluations (16 samples)");
        let all = Counts {
            experiments: 1,
            runs: 1,
            evaluations: 1,
            samples: 0,
            trace_exports: 1,
            traced_runs: 3,
            harness_suites: 1,
            harness_runs: 12,
            regression_suites: 2,
            skill_edits: 1,
        };
        assert_eq!(
            all.describe(),
            "1 experiment (1 run), 1 evaluation (0 samples), 1 trace export (3 runs), \
             1 harness suite (12 runs), 2 regression suites (1 skill edit)"
        );
        assert_eq!(Counts::default().describe(), "no records");
    }
}
