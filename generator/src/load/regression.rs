//! Regression suites under the records directory:
//! `regressions/<suite>/suite.json`, `regressions/<suite>/edits/<edit>.json`
//! and, each optional, `regressions/<suite>/benchmark.json`,
//! `regressions/<suite>/actions.json` and
//! `regressions/<suite>/ablations/<ablation>.json`. Edits are held whole: a
//! suite has tens or hundreds, not thousands.

use std::path::Path;

use receipts_verifier::model::{
    ablation_path, actions_path, benchmark_path, regression_suite_path, skill_edit_path,
    RegressionAblation, RegressionActions, RegressionBenchmark, RegressionSuite, SkillEdit,
};

use super::Reader;
use crate::error::InputError;

/// A regression suite, its edits sorted by id, its benchmark, its action
/// history and its ablations sorted by id.
#[derive(Debug)]
pub struct LoadedRegressions {
    /// The directory name, also the suite's id.
    pub dir: String,
    pub suite: RegressionSuite,
    pub edits: Vec<SkillEdit>,
    pub benchmark: Option<RegressionBenchmark>,
    pub actions: Option<RegressionActions>,
    pub ablations: Vec<RegressionAblation>,
}

impl LoadedRegressions {
    /// The suite file's path under the records directory.
    pub fn suite_path(&self) -> String {
        regression_suite_path(&self.dir)
    }

    /// An edit record's path under the records directory.
    pub fn edit_path(&self, id: &str) -> String {
        skill_edit_path(&self.dir, id)
    }

    /// The benchmark's path under the records directory.
    pub fn benchmark_path(&self) -> String {
        benchmark_path(&self.dir)
    }

    /// The action history's path under the records directory.
    pub fn actions_path(&self) -> String {
        actions_path(&self.dir)
    }

    /// An ablation's path under the records directory.
    pub fn ablation_path(&self, id: &str) -> String {
        ablation_path(&self.dir, id)
    }

    /// Every record path of the suite beside its edits: the benchmark, the
    /// action history and the ablations, those it has.
    pub fn extra_paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        if self.benchmark.is_some() {
            paths.push(self.benchmark_path());
        }
        if self.actions.is_some() {
            paths.push(self.actions_path());
        }
        paths.extend(self.ablations.iter().map(|a| self.ablation_path(&a.id)));
        paths
    }
}

impl Reader<'_> {
    /// Record `file` of directory `dir`, when there is one.
    fn optional<T: serde::de::DeserializeOwned>(
        &self,
        dir: &Path,
        file: &str,
    ) -> Result<Option<T>, InputError> {
        let path = dir.join(file);
        if self.is_file(&path) {
            self.json(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Every suite under `dir` (the records directory's `regressions/`), sorted by directory.
    pub(super) fn regressions(&self, dir: &Path) -> Result<Vec<LoadedRegressions>, InputError> {
        self.each_suite(dir, |sub| {
            let (dir, suite): (String, RegressionSuite) =
                self.suite_file(sub, "suite.json", "regression suite")?;
            let edits = self.members(sub, "edits", "edit", &suite.id)?;
            let benchmark: Option<RegressionBenchmark> = self.optional(sub, "benchmark.json")?;
            let actions: Option<RegressionActions> = self.optional(sub, "actions.json")?;
            let file_suite = benchmark
                .as_ref()
                .map(|b| ("benchmark.json", "benchmark", &b.suite))
                .into_iter()
                .chain(
                    actions
                        .as_ref()
                        .map(|a| ("actions.json", "action history", &a.suite)),
                );
            for (file, what, named) in file_suite {
                if *named != suite.id {
                    return Err(InputError::at(
                        self.name(&sub.join(file)),
                        "suite",
                        format!(
                            "`{named}` but the {what} is stored under the suite {}",
                            suite.id
                        ),
                    ));
                }
            }
            let ablations = self.members(sub, "ablations", "ablation", &suite.id)?;
            Ok(LoadedRegressions {
                dir,
                suite,
                edits,
                benchmark,
                actions,
                ablations,
            })
        })
    }
}
