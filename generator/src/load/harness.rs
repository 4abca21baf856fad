//! Harness suites under the records directory: `harness/<suite>/harness.json`
//! and `harness/<suite>/runs/<run>.json`. A suite's runs are small and few,
//! so they are held whole, unlike experiment runs.

use std::path::Path;

use receipts_verifier::layout;
use receipts_verifier::model::{harness_run_path, harness_suite_path, HarnessRun, HarnessSuite};

use super::Reader;
use crate::error::InputError;

/// A harness suite and its runs, sorted by id.
#[derive(Debug)]
pub struct LoadedSuite {
    /// The directory name, also the suite's id.
    pub dir: String,
    pub suite: HarnessSuite,
    pub runs: Vec<HarnessRun>,
}

impl LoadedSuite {
    /// The suite file's path under the records directory.
    pub fn suite_path(&self) -> String {
        harness_suite_path(&self.dir)
    }

    /// A run record's path under the records directory.
    pub fn run_path(&self, id: &str) -> String {
        harness_run_path(&self.dir, id)
    }
}

impl Reader<'_> {
    /// Every suite under `dir` (the records directory's `harness/`), sorted by directory.
    pub(super) fn suites(&self, dir: &Path) -> Result<Vec<LoadedSuite>, InputError> {
        self.each_suite(dir, |sub| {
            let (dir, suite): (String, HarnessSuite) =
                self.suite_file(sub, "harness.json", "harness suite")?;
            let runs = self.members(sub, layout::RUNS_DIR, "run", &suite.id)?;
            Ok(LoadedSuite { dir, suite, runs })
        })
    }
}
