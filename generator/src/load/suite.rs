//! What the suite kinds share on disk: a directory per suite, named by the
//! suite's id, holding the suite's file and a subdirectory of member
//! records, each named by its id and naming its suite.

use std::path::Path;

use rayon::prelude::*;
use serde::de::DeserializeOwned;

use receipts_verifier::model::{
    HarnessRun, HarnessSuite, RegressionAblation, RegressionSuite, SkillEdit,
};

use super::{expect_stem, file_name, Reader};
use crate::error::InputError;

/// A suite's file: its id is its directory's name.
pub(super) trait SuiteFile {
    fn id(&self) -> &str;
}

/// A record of a suite: its id is its file's name, and it names its suite.
pub(super) trait Member {
    fn id(&self) -> &str;
    fn suite(&self) -> &str;
}

impl SuiteFile for HarnessSuite {
    fn id(&self) -> &str {
        &self.id
    }
}

impl SuiteFile for RegressionSuite {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Member for HarnessRun {
    fn id(&self) -> &str {
        &self.id
    }
    fn suite(&self) -> &str {
        &self.suite
    }
}

impl Member for RegressionAblation {
    fn id(&self) -> &str {
        &self.id
    }
    fn suite(&self) -> &str {
        &self.suite
    }
}

impl Member for SkillEdit {
    fn id(&self) -> &str {
        &self.id
    }
    fn suite(&self) -> &str {
        &self.suite
    }
}

impl Reader<'_> {
    /// Each subdirectory of `dir` read by `read`, sorted by name; none when
    /// `dir` does not exist.
    pub(super) fn each_suite<T>(
        &self,
        dir: &Path,
        read: impl Fn(&Path) -> Result<T, InputError>,
    ) -> Result<Vec<T>, InputError> {
        if !self.is_dir(dir)? {
            return Ok(Vec::new());
        }
        self.subdirs(dir)?.iter().map(|sub| read(sub)).collect()
    }

    /// The suite file `file` of suite directory `dir` (`what` names the
    /// kind in messages), and the directory's name, which is its id.
    pub(super) fn suite_file<S: DeserializeOwned + SuiteFile>(
        &self,
        dir: &Path,
        file: &str,
        what: &str,
    ) -> Result<(String, S), InputError> {
        let path = dir.join(file);
        if !self.is_file(&path) {
            return Err(InputError::new(
                self.name(dir),
                format!("not a {what}: the directory has no {file}"),
            ));
        }
        let suite: S = self.json(&path)?;
        let dir_name = file_name(dir);
        if suite.id() != dir_name {
            return Err(InputError::at(
                self.name(&path),
                "id",
                format!(
                    "the suite id `{}` differs from its directory `{dir_name}`",
                    suite.id()
                ),
            ));
        }
        Ok((dir_name, suite))
    }

    /// The `*.json` records in `dir/<sub>`, sorted by name, each named by
    /// its id and naming suite `suite` (`what` names them in messages).
    pub(super) fn members<R: DeserializeOwned + Member + Send>(
        &self,
        dir: &Path,
        sub: &str,
        what: &str,
        suite: &str,
    ) -> Result<Vec<R>, InputError> {
        let sub = dir.join(sub);
        let paths = if self.is_dir(&sub)? {
            self.files_with_ext(&sub, "json")?
        } else {
            Vec::new()
        };
        let members: Vec<Result<R, InputError>> = paths
            .par_iter()
            .map(|path| {
                let name = self.name(path);
                let record: R = self.json(path)?;
                expect_stem(&name, path, record.id())?;
                if record.suite() != suite {
                    return Err(InputError::at(
                        &name,
                        "suite",
                        format!(
                            "`{}` but the {what} is stored under the suite {suite}",
                            record.suite()
                        ),
                    ));
                }
                Ok(record)
            })
            .collect();
        members.into_iter().collect()
    }
}
