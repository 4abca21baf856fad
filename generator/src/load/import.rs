//! Runs imported from other tools: `<dir>/inspect/<name>.json`, each
//! derived from an Inspect AI log, and `<dir>/otel/<name>.json`, each
//! derived from an OpenTelemetry trace export, the originals kept in
//! `objects/` (see `receipts import`). A directory holding `inspect/` or
//! `otel/` and no `experiment.json` is read as one.

use std::path::Path;

use receipts_verifier::inspect::{
    inspect_record_path, EvalRegistration, ImportedEval, EVAL_REGISTRATION_FILE, INSPECT_DIR,
};
use receipts_verifier::otel::{otel_record_path, ImportedTraces, OTEL_DIR};

use super::{file_name, Reader};
use crate::error::InputError;

/// A directory of imported evaluations and traces, each with its name
/// (its file's stem).
#[derive(Debug)]
pub struct LoadedImport {
    pub dir: String,
    pub evals: Vec<(String, ImportedEval)>,
    pub traces: Vec<(String, ImportedTraces)>,
    /// What the directory's evaluations registered before they ran
    /// (`registration.json`), when it keeps a registration.
    pub registration: Option<EvalRegistration>,
}

impl LoadedImport {
    /// Evaluation `name`'s record path under the records directory.
    pub fn record_path(&self, name: &str) -> String {
        inspect_record_path(&self.dir, name)
    }

    /// Trace export `name`'s record path under the records directory.
    pub fn traces_path(&self, name: &str) -> String {
        otel_record_path(&self.dir, name)
    }

    /// The registration's path under the records directory.
    pub fn registration_path(&self) -> String {
        format!("{}/{EVAL_REGISTRATION_FILE}", self.dir)
    }

    /// Every record path: the registration, evaluations, then traces.
    pub fn record_paths(&self) -> Vec<String> {
        let registration = self.registration.as_ref().map(|_| self.registration_path());
        let evals = self.evals.iter().map(|(n, _)| self.record_path(n));
        let traces = self.traces.iter().map(|(n, _)| self.traces_path(n));
        registration
            .into_iter()
            .chain(evals)
            .chain(traces)
            .collect()
    }

    /// The digests of every original kept for the directory's records.
    pub fn originals(&self) -> Vec<&str> {
        let evals = self.evals.iter().map(|(_, e)| e.source.sha256.as_str());
        let traces = self.traces.iter().flat_map(|(_, t)| {
            std::iter::once(t.source.sha256.as_str())
                .chain(t.events.iter().map(|e| e.sha256.as_str()))
        });
        evals.chain(traces).collect()
    }
}

impl Reader<'_> {
    /// Whether `dir` holds imported evaluations rather than an experiment.
    pub(super) fn is_import(&self, dir: &Path) -> Result<bool, InputError> {
        let imported = self.is_dir(&dir.join(INSPECT_DIR))? || self.is_dir(&dir.join(OTEL_DIR))?;
        if imported && self.is_file(&dir.join("experiment.json")) {
            return Err(InputError::new(
                self.name(dir),
                "holds both an experiment (experiment.json) and imported runs (inspect/ or otel/); import into a directory of its own",
            ));
        }
        Ok(imported)
    }

    pub(super) fn import(&self, dir: &Path) -> Result<LoadedImport, InputError> {
        let evals = self.imported_records(&dir.join(INSPECT_DIR))?;
        let traces = self.imported_records(&dir.join(OTEL_DIR))?;
        if evals.is_empty() && traces.is_empty() {
            return Err(InputError::new(
                self.name(dir),
                "nothing imported: neither inspect/ nor otel/ holds a .json record",
            ));
        }
        let registration = dir.join(EVAL_REGISTRATION_FILE);
        let registration = if self.is_file(&registration) {
            Some(self.json(&registration)?)
        } else {
            None
        };
        Ok(LoadedImport {
            dir: file_name(dir),
            evals,
            traces,
            registration,
        })
    }

    /// Every `.json` record of `dir`, by file stem; none when `dir` is absent.
    fn imported_records<T: serde::de::DeserializeOwned>(
        &self,
        dir: &Path,
    ) -> Result<Vec<(String, T)>, InputError> {
        if !self.is_dir(dir)? {
            return Ok(Vec::new());
        }
        self.files_with_ext(dir, "json")?
            .iter()
            .map(|path| {
                let name = file_name(path);
                let stem = name.strip_suffix(".json").unwrap_or(&name).to_string();
                Ok((stem, self.json(path)?))
            })
            .collect()
    }
}
