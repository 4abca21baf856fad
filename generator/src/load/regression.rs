//! Regression suites under the records directory:
//! `regressions/<suite>/suite.json`, `regressions/<suite>/edits/<edit>.json`
//! and, optionally, `regressions/<suite>/benchmark.json`. Edits are held
//! whole: a suite has tens or hundreds, not thousands.

use std::path::Path;

use receipts_verifier::model::{
    benchmark_path, regression_suite_path, skill_edit_path, RegressionBenchmark, RegressionSuite,
    SkillEdit,
};

use super::Reader;
use crate::error::InputError;

/// A regression suite, its edits sorted by id, and its benchmark.
#[derive(Debug)]
pub struct LoadedRegressions {
    /// The directory name, also the suite's id.
    pub dir: String,
    pub suite: RegressionSuite,
    pub edits: Vec<SkillEdit>,
    pub benchmark: Option<RegressionBenchmark>,
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
}

impl Reader<'_> {
    /// Every suite under `dir` (the records directory's `regressions/`), sorted by directory.
    pub(super) fn regressions(&self, dir: &Path) -> Result<Vec<LoadedRegressions>, InputError> {
        self.each_suite(dir, |sub| {
            let (dir, suite): (String, RegressionSuite) =
                self.suite_file(sub, "suite.json", "regression suite")?;
            let edits = self.members(sub, "edits", "edit", &suite.id)?;
            let file = sub.join("benchmark.json");
            let benchmark = if self.is_file(&file) {
                let b: RegressionBenchmark = self.json(&file)?;
                if b.suite != suite.id {
                    return Err(InputError::at(
                        self.name(&file),
                        "suite",
                        format!(
                            "`{}` but the benchmark is stored under the suite {}",
                            b.suite, suite.id
                        ),
                    ));
                }
                Some(b)
            } else {
                None
            };
            Ok(LoadedRegressions {
                dir,
                suite,
                edits,
                benchmark,
            })
        })
    }
}
