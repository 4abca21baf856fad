//! Harness suites under the records directory: `harness/<suite>/harness.json`
//! and `harness/<suite>/runs/<run>.json`. A suite's runs are small and few,
//! so they are held whole, unlike experiment runs.

use std::path::Path;

use rayon::prelude::*;

use receipts_verifier::model::{harness_run_path, harness_suite_path, HarnessRun, HarnessSuite};

use super::{expect_stem, file_name, Reader};
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
        if !self.is_dir(dir)? {
            return Ok(Vec::new());
        }
        self.subdirs(dir)?
            .iter()
            .map(|sub| self.suite(sub))
            .collect()
    }

    fn suite(&self, dir: &Path) -> Result<LoadedSuite, InputError> {
        let file = dir.join("harness.json");
        if !file.is_file() {
            return Err(InputError::new(
                self.name(dir),
                "not a harness suite: the directory has no harness.json",
            ));
        }
        let suite: HarnessSuite = self.json(&file)?;
        let dir_name = file_name(dir);
        if suite.id != dir_name {
            return Err(InputError::at(
                self.name(&file),
                "id",
                format!(
                    "the suite id `{}` differs from its directory `{dir_name}`",
                    suite.id
                ),
            ));
        }
        let runs_dir = dir.join("runs");
        let paths = if self.is_dir(&runs_dir)? {
            self.files_with_ext(&runs_dir, "json")?
        } else {
            Vec::new()
        };
        let runs: Vec<Result<HarnessRun, InputError>> = paths
            .par_iter()
            .map(|path| {
                let name = self.name(path);
                let run: HarnessRun = self.json(path)?;
                expect_stem(&name, path, &run.id)?;
                if run.suite != suite.id {
                    return Err(InputError::at(
                        &name,
                        "suite",
                        format!(
                            "`{}` but the run is stored under the suite {}",
                            run.suite, suite.id
                        ),
                    ));
                }
                Ok(run)
            })
            .collect();
        Ok(LoadedSuite {
            dir: dir_name,
            suite,
            runs: runs.into_iter().collect::<Result<_, _>>()?,
        })
    }
}
