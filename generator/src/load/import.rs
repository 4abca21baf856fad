//! Evaluations imported from other tools: `<dir>/inspect/<name>.json`,
//! each derived from an Inspect AI log kept in `objects/` (see
//! `receipts import`). A directory holding `inspect/` and no
//! `experiment.json` is read as one.

use std::path::Path;

use receipts_verifier::inspect::{inspect_record_path, ImportedEval, INSPECT_DIR};

use super::{file_name, Reader};
use crate::error::InputError;

/// A directory of imported evaluations, each with its name (its file's stem).
#[derive(Debug)]
pub struct LoadedImport {
    pub dir: String,
    pub evals: Vec<(String, ImportedEval)>,
}

impl LoadedImport {
    /// Evaluation `name`'s record path under the records directory.
    pub fn record_path(&self, name: &str) -> String {
        inspect_record_path(&self.dir, name)
    }
}

impl Reader<'_> {
    /// Whether `dir` holds imported evaluations rather than an experiment.
    pub(super) fn is_import(&self, dir: &Path) -> Result<bool, InputError> {
        let imported = self.is_dir(&dir.join(INSPECT_DIR))?;
        if imported && self.is_file(&dir.join("experiment.json")) {
            return Err(InputError::new(
                self.name(dir),
                "holds both an experiment (experiment.json) and imported evaluations (inspect/); import into a directory of its own",
            ));
        }
        Ok(imported)
    }

    pub(super) fn import(&self, dir: &Path) -> Result<LoadedImport, InputError> {
        let evals = self
            .files_with_ext(&dir.join(INSPECT_DIR), "json")?
            .iter()
            .map(|path| {
                let name = file_name(path);
                let stem = name.strip_suffix(".json").unwrap_or(&name).to_string();
                Ok((stem, self.json(path)?))
            })
            .collect::<Result<Vec<_>, InputError>>()?;
        if evals.is_empty() {
            return Err(InputError::new(
                self.name(&dir.join(INSPECT_DIR)),
                "no imported evaluation: the directory holds no .json record",
            ));
        }
        Ok(LoadedImport {
            dir: file_name(dir),
            evals,
        })
    }
}
