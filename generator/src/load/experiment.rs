//! One experiment as loading reads it: its files beside `experiment.json`
//! (the log, the summary, the results table, the deviations, the anchors)
//! and the head of each run, and a run read again when it is verified.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use receipts_verifier::model::{
    Deviations, Experiment, GitAnchor, ModelCheck, Run, Summary, GIT_ANCHOR_FILE, MODEL_CHECK_FILE,
    TIMESTAMP_FILE, TSA_CERTIFICATE_FILE,
};

use super::{expect_stem, file_name, safe_join, Corpus, KeptHead, Reader, MAX_FILE_BYTES};
use crate::error::InputError;
use crate::gzip;
use crate::head::RunHead;
use crate::parse;
use receipts_verifier::layout;
use receipts_verifier::results_table::ResultsTable;

#[derive(Debug)]
pub struct LoadedExperiment {
    /// The directory name.
    pub dir: String,
    pub experiment: Experiment,
    /// The whole log, pre-registered part and appended deviations.
    pub log: String,
    pub summary: Option<Summary>,
    /// The summary's bytes: verification judges its numbers as written.
    pub summary_text: Option<Vec<u8>>,
    pub results: Option<ResultsTable>,
    pub deviations: Option<Deviations>,
    /// `models.json`: the model-id smoke test, when there is one.
    pub models: Option<ModelCheck>,
    /// What backs the registration time from outside the record.
    pub anchors: LoadedAnchors,
    /// The head of each run, sorted by id; the records are read again by
    /// [`read_run`] when they are verified.
    pub runs: Vec<RunHead>,
}

/// An experiment's anchor files (see `receipts_verifier::anchor`).
#[derive(Debug, Default)]
pub struct LoadedAnchors {
    pub timestamp: Option<Vec<u8>>,
    pub tsa_certificate: Option<Vec<u8>>,
    pub git: Option<GitAnchor>,
    /// The bytes of `registration.git.json` when the build found the commit
    /// (there is no input file to publish then).
    pub git_found: Option<Vec<u8>>,
}

impl LoadedAnchors {
    /// The files as the verifier reads them.
    pub fn files(&self) -> receipts_verifier::anchor::AnchorFiles<'_> {
        receipts_verifier::anchor::AnchorFiles {
            timestamp: self.timestamp.as_deref(),
            tsa_certificate: self.tsa_certificate.as_deref(),
            git: self.git.as_ref(),
        }
    }

    /// The names of the anchor files present, as published beside `experiment.json`.
    pub fn names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.git.is_some() {
            out.push(GIT_ANCHOR_FILE);
        }
        if self.timestamp.is_some() {
            out.push(TIMESTAMP_FILE);
        }
        if self.tsa_certificate.is_some() {
            out.push(TSA_CERTIFICATE_FILE);
        }
        out
    }
}

impl LoadedExperiment {
    /// A run record's path under the records directory.
    pub fn run_path(&self, id: &str) -> String {
        receipts_verifier::layout::run_path(&self.dir, id)
    }
}

/// Reads run `index` of `loaded` again: its bytes, which must be the bytes
/// loading read (the same SHA-256), and the record they hold.
pub fn read_run(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    index: usize,
) -> Result<(Run, Vec<u8>), InputError> {
    let rel = loaded.run_path(&loaded.runs[index].place.id);
    let name = format!("{}/{rel}", corpus.records_name);
    let path = corpus.records_dir.join(&rel);
    let files = &corpus.files;
    let bytes = match files.read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let gz = format!("{name}{}", gzip::SUFFIX);
            let bytes = files
                .read(&corpus.records_dir.join(format!("{rel}{}", gzip::SUFFIX)))
                .map_err(|e| InputError::new(&gz, e.to_string()))?;
            gzip::decompress(&bytes, MAX_FILE_BYTES).map_err(|e| InputError::new(&gz, e))?
        }
        read => read.map_err(|e| InputError::new(&name, e.to_string()))?,
    };
    let digest = receipts_verifier::digest::sha256_hex(&bytes);
    if corpus.record_digests.get(&rel) != Some(&digest) {
        return Err(InputError::new(
            name,
            "the file changed while the site was being built; build again",
        ));
    }
    let run = parse::json(&name, &bytes)?;
    Ok((run, bytes))
}

impl Reader<'_> {
    pub(super) fn experiment(&self, dir: &Path) -> Result<LoadedExperiment, InputError> {
        let file = dir.join("experiment.json");
        if !self.is_file(&file) {
            return Err(InputError::new(
                self.name(dir),
                "not an experiment: the directory has no experiment.json",
            ));
        }
        let experiment: Experiment = self.json(&file)?;
        let dir_name = file_name(dir);
        if experiment.id != dir_name {
            return Err(InputError::at(
                self.name(&file),
                "id",
                format!(
                    "the experiment id `{}` differs from its directory `{dir_name}`",
                    experiment.id
                ),
            ));
        }
        let log = match &experiment.preregistration {
            Some(p) => {
                let log_path = safe_join(&self.name(&file), "preregistration.log", dir, &p.log)?;
                self.read_text(&log_path)?
            }
            None => String::new(),
        };
        let summary_path = dir.join("summary.json");
        let (summary, summary_text) = if self.is_file(&summary_path) {
            let bytes = self.read(&summary_path)?;
            (
                Some(parse::json(&self.name(&summary_path), &bytes)?),
                Some(bytes),
            )
        } else {
            (None, None)
        };
        let results_path = dir.join("results.csv");
        let results = if self.is_file(&results_path) {
            let bytes = self.read(&results_path)?;
            let table = ResultsTable::parse(&bytes)
                .map_err(|e| InputError::at(self.name(&results_path), e.place, e.message))?;
            Some(table)
        } else {
            None
        };
        let deviations_path = dir.join("deviations.json");
        let deviations = if self.is_file(&deviations_path) {
            Some(self.json(&deviations_path)?)
        } else {
            None
        };
        let models_path = dir.join(MODEL_CHECK_FILE);
        let models = if self.is_file(&models_path) {
            Some(self.json(&models_path)?)
        } else {
            None
        };
        let beside = |name: &str| -> Result<Option<Vec<u8>>, InputError> {
            let path = dir.join(name);
            Ok(if self.is_file(&path) {
                Some(self.read(&path)?)
            } else {
                None
            })
        };
        let git_path = dir.join(GIT_ANCHOR_FILE);
        let anchors = LoadedAnchors {
            timestamp: beside(TIMESTAMP_FILE)?,
            tsa_certificate: beside(TSA_CERTIFICATE_FILE)?,
            git: if self.is_file(&git_path) {
                Some(self.json(&git_path)?)
            } else {
                None
            },
            git_found: None,
        };
        let runs_dir = dir.join(layout::RUNS_DIR);
        let runs = if self.is_dir(&runs_dir)? {
            self.runs(&runs_dir, &experiment)?
        } else {
            Vec::new()
        };
        Ok(LoadedExperiment {
            dir: dir_name,
            experiment,
            log,
            summary,
            summary_text,
            results,
            deviations,
            models,
            anchors,
            runs,
        })
    }

    /// The head of every run: each record is parsed, and let go.
    fn runs(&self, dir: &Path, experiment: &Experiment) -> Result<Vec<RunHead>, InputError> {
        let paths: Vec<PathBuf> = self
            .entries(dir)?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json") || gzip::is_gzipped(p))
            .collect();
        // `<run>.json` and `<run>.json.gz` sort next to each other.
        for pair in paths.windows(2) {
            let plain = pair[0].to_string_lossy();
            if pair[1].to_string_lossy() == format!("{plain}{}", gzip::SUFFIX) {
                return Err(InputError::new(
                    self.name(&pair[1]),
                    format!("the run is also recorded in {}", self.name(&pair[0])),
                ));
            }
        }
        let runs: Vec<Result<RunHead, InputError>> = paths
            .par_iter()
            .map(|path| {
                let tiers =
                    || -> Vec<String> { experiment.tiers.iter().map(|t| t.id.clone()).collect() };
                let Some((cache, heads)) = &self.heads else {
                    let run: Run = self.json(path)?;
                    expect_stem(&self.name(path), path, &run.id)?;
                    return Ok(RunHead::of(&run, experiment));
                };
                // A record whose file is as it was is not read again.
                let stamp = self.files.stamp(path);
                let kept = match stamp.as_ref().filter(|_| !gzip::is_gzipped(path)) {
                    Some(stamp) => cache.get(path, None, Some(stamp), &tiers()),
                    None => None,
                };
                let (head, digest) = match kept {
                    Some(kept) => {
                        self.published(path, kept.digest.clone());
                        (kept.head, kept.digest)
                    }
                    None => {
                        let (bytes, digest) = self.read_digested(path)?;
                        let digest = digest.unwrap_or_default();
                        let head = match cache.get(path, Some(&digest), None, &tiers()) {
                            Some(kept) => kept.head,
                            None => {
                                let run: Run = parse::json(&self.name(path), &bytes)?;
                                expect_stem(&self.name(path), path, &run.id)?;
                                RunHead::of(&run, experiment)
                            }
                        };
                        (head, digest)
                    }
                };
                {
                    let kept = KeptHead {
                        digest,
                        stamp,
                        tiers: tiers(),
                        head: head.clone(),
                    };
                    heads
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(path.clone(), kept);
                }
                Ok(head)
            })
            .collect();
        runs.into_iter().collect()
    }
}
