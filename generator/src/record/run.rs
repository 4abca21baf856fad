//! A recording made a run of an experiment: placed in a cell of its grid,
//! its calls and transcript derived from the capture
//! ([`receipts_verifier::wire::derive`]), the task's inputs witnessed in
//! the working directory before and after the command, its artifact
//! checked by the task's checks, and written with every object it names.
//!
//! Writing is atomic for the run: the objects (the capture, every body,
//! the artifact) are written first, each by its digest through a
//! temporary file, and the run record last, renamed into place. A crash
//! leaves the run whole or absent; objects no record names are harmless.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use receipts_verifier::checks::{run_all, CheckContext};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::model::{
    Attempt, Experiment, FileRef, FormatVersion, InputDigests, Provenance, RecordedCheck, Run,
    RunKind, RunOutcome, Source, Task,
};
use receipts_verifier::wire::{derive, CAPTURE_FORMAT};

use super::{RecordError, Recording};
use crate::error::Doing;

type Result<T, E = RecordError> = std::result::Result<T, E>;

/// Where in the experiment a recording goes; what is not given is taken
/// from the grid when it has one choice.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    pub run: Option<String>,
    pub task: Option<String>,
    pub profile: Option<String>,
    pub seed: Option<u64>,
    pub policy: Option<String>,
    pub tier: Option<String>,
    /// The files the agent produced, as paths to read. The first is the
    /// artifact the task's checks read, kept under the task's artifact
    /// name (the task's artifact path when none is given); the others are
    /// kept by digest under their own names.
    pub artifacts: Vec<PathBuf>,
}

/// A run made of a recording, and every object it names, by digest.
pub struct Made {
    pub run: Run,
    pub objects: BTreeMap<String, Vec<u8>>,
    /// Where the run is written.
    pub path: PathBuf,
}

/// The one value of `axis` among `choices`, or the one given.
fn pick<T: Clone + PartialEq + std::fmt::Display>(
    axis: &'static str,
    given: Option<T>,
    choices: &[T],
    experiment: &str,
) -> Result<T> {
    let list = || {
        choices
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match given {
        Some(v) if choices.contains(&v) => Ok(v),
        Some(v) => Err(RecordError::NotAChoice {
            axis,
            value: v.to_string(),
            experiment: experiment.to_string(),
            choices: list(),
        }),
        None => match choices {
            [one] => Ok(one.clone()),
            _ => Err(RecordError::Ambiguous {
                axis,
                experiment: experiment.to_string(),
                choices: list(),
            }),
        },
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).doing(|| format!("reading {}", path.display()))?;
    Ok(crate::parse::json(&path.display().to_string(), &bytes)?)
}

/// The cell of the grid a placement names, with what it needs.
struct Cell {
    experiment: Experiment,
    task: Task,
    profile: String,
    seed: u64,
    policy: String,
}

impl Cell {
    fn of(into: &Path, placement: &Placement) -> Result<Cell> {
        let experiment: Experiment =
            read_json(&into.join("experiment.json")).map_err(|e| RecordError::NoExperiment {
                dir: into.to_path_buf(),
                source: Box::new(e),
            })?;
        let e = &experiment;
        let task = pick("task", placement.task.clone(), &e.grid.tasks, &e.id)?;
        let profile = pick(
            "profile",
            placement.profile.clone(),
            &e.grid.profiles,
            &e.id,
        )?;
        let seed = pick("seed", placement.seed, &e.grid.seeds, &e.id)?;
        let policies: Vec<String> = e.policies.iter().map(|p| p.id.clone()).collect();
        let policy = pick("policy", placement.policy.clone(), &policies, &e.id)?;
        let task: Task = read_json(&experiments_of(into).join(layout::task_path(&task)))?;
        Ok(Cell {
            experiment,
            task,
            profile,
            seed,
            policy,
        })
    }

    fn run_id(&self, placement: &Placement) -> String {
        placement.run.clone().unwrap_or_else(|| {
            format!(
                "{}-{}-{}-s{}-{}",
                self.experiment.id, self.task.id, self.profile, self.seed, self.policy
            )
        })
    }
}

/// The experiments directory an experiment at `into` is in.
fn experiments_of(into: &Path) -> &Path {
    match into.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks, before the command runs, that a run can be placed as asked:
/// the experiment, its cell and its task exist, and no run has the id.
pub fn check(into: &Path, placement: &Placement) -> Result<()> {
    let cell = Cell::of(into, placement)?;
    let path = into
        .join(layout::RUNS_DIR)
        .join(format!("{}.json", cell.run_id(placement)));
    if path.exists() {
        return Err(RecordError::Exists(path));
    }
    Ok(())
}

/// The task's input files as they stood in the working directory before
/// the command ran: each one present, by path, with its digest.
#[derive(Debug, Clone, Default)]
pub struct Witnessed(BTreeMap<String, String>);

/// Reads the digests of the task's input files present in the working
/// directory, before the command runs.
pub fn witness_inputs(into: &Path, placement: &Placement) -> Result<Witnessed> {
    let cell = Cell::of(into, placement)?;
    let mut seen = BTreeMap::new();
    for input in &cell.task.inputs {
        match std::fs::read(&input.path) {
            Ok(bytes) => {
                seen.insert(input.path.clone(), sha256_hex(&bytes));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => Err(e).doing(|| format!("reading the task's input {}", input.path))?,
        }
    }
    Ok(Witnessed(seen))
}

/// The inputs witnessed before the command, with their digests now. An
/// input the command removed is kept as empty, which no input's digest is.
fn inputs_after(before: &Witnessed) -> Result<Vec<InputDigests>> {
    before
        .0
        .iter()
        .map(|(path, sha256_before)| {
            let after = match std::fs::read(path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => Err(e).doing(|| format!("reading the task's input {path}"))?,
            };
            Ok(InputDigests {
                path: path.clone(),
                sha256_before: sha256_before.clone(),
                sha256_after: sha256_hex(&after),
            })
        })
        .collect()
}

/// Makes the run a recording gives in the experiment at `into`; `before`
/// holds the task's inputs as the command found them.
pub fn make(
    into: &Path,
    recording: &Recording,
    placement: &Placement,
    before: &Witnessed,
) -> Result<Made> {
    let cell = Cell::of(into, placement)?;
    let e = &cell.experiment;
    let task = &cell.task;
    let policy = e
        .policies
        .iter()
        .find(|p| p.id == cell.policy)
        .expect("the cell's policy is one of the experiment's");
    let experiments = experiments_of(into);
    let mut objects: BTreeMap<String, Vec<u8>> = recording
        .objects
        .iter()
        .map(|(digest, bytes)| (digest.clone(), bytes.to_vec()))
        .collect();
    let derived = derive::attempt(&recording.capture, &objects)
        .map_err(|derive::Missing(why)| RecordError::NotARun(why))?;
    let tier = match &placement.tier {
        Some(t) => pick("tier", Some(t.clone()), &policy.tiers, &e.id)?,
        None => {
            // The tier whose model the calls asked for.
            let asked = derived.calls.first().map(|c| c.model_requested.as_str());
            let by_model: Vec<String> = policy
                .tiers
                .iter()
                .filter(|t| {
                    e.tiers
                        .iter()
                        .any(|x| x.id == **t && Some(x.model.as_str()) == asked)
                })
                .cloned()
                .collect();
            match (by_model.as_slice(), policy.tiers.as_slice()) {
                ([one], _) | ([], [one]) => one.clone(),
                _ => {
                    return Err(RecordError::NameTheTier {
                        policy: policy.id.clone(),
                        tiers: policy.tiers.join(", "),
                    })
                }
            }
        }
    };
    for (i, call) in derived.calls.iter().enumerate() {
        if !e.prices.models.contains_key(&call.model_requested) {
            return Err(RecordError::Unpriced {
                call: i + 1,
                model: call.model_requested.clone(),
                experiment: e.id.clone(),
                file: into.join("experiment.json"),
            });
        }
    }

    let capture =
        serde_json::to_vec_pretty(&recording.capture).map_err(|source| RecordError::Json {
            what: "capture",
            source,
        })?;
    let capture_sha256 = sha256_hex(&capture);
    objects.insert(capture_sha256.clone(), capture);

    let (artifact_path, others) = match placement.artifacts.split_first() {
        Some((first, others)) => (first.clone(), others),
        None => (PathBuf::from(&task.artifact.path), &[][..]),
    };
    let artifact = match std::fs::read(&artifact_path) {
        Ok(bytes) => Some(kept_file(
            &mut objects,
            &task.artifact.path,
            bytes,
            &task.artifact.media_type,
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && placement.artifacts.is_empty() => {
            None
        }
        Err(e) => Err(e).doing(|| format!("reading the artifact {}", artifact_path.display()))?,
    };
    let mut files: Vec<FileRef> = Vec::new();
    for path in others {
        let name = kept_name(path);
        if name.is_empty() {
            return Err(RecordError::NoFileName(path.clone()));
        }
        if artifact.iter().chain(&files).any(|f| f.path == name) {
            return Err(RecordError::SameName(name));
        }
        let bytes =
            std::fs::read(path).doing(|| format!("reading the artifact {}", path.display()))?;
        let media_type = media_type_of(&name);
        files.push(kept_file(&mut objects, &name, bytes, media_type));
    }
    let witnessed = inputs_after(before)?;
    let inputs = receipts_verifier::verify::task_input_bytes(task, &objects_of(experiments, task)?);
    let checks = run_all(&CheckContext {
        task,
        inputs: &inputs,
        recorded_inputs: &witnessed,
        artifact: artifact
            .as_ref()
            .and_then(|a| objects.get(&a.sha256))
            .map(Vec::as_slice),
    });
    let passed = !checks.is_empty() && checks.iter().all(|c| c.passed);
    let id = cell.run_id(placement);
    let run = Run {
        format_version: FormatVersion,
        kind: RunKind::Run,
        id: id.clone(),
        experiment: e.id.clone(),
        task: task.id.clone(),
        profile: cell.profile.clone(),
        seed: cell.seed,
        policy: cell.policy.clone(),
        provenance: Provenance::Recorded,
        source: Some(Source {
            tool: "receipts".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            file: "capture.json".to_string(),
            format: CAPTURE_FORMAT.to_string(),
            sha256: capture_sha256,
        }),
        replaces: None,
        started_at: derived.started_at.clone(),
        attempts: vec![Attempt {
            tier: tier.clone(),
            started_at: derived.started_at,
            duration_ms: derived.duration_ms,
            turns: Vec::new(),
            calls: derived.calls,
            messages: derived.messages,
            inputs: witnessed,
            artifact,
            files,
            checks: checks
                .iter()
                .map(|c| RecordedCheck {
                    check: c.check.clone(),
                    passed: c.passed,
                    detail: c.detail.clone(),
                })
                .collect(),
            end: derived.end,
        }],
        outcome: RunOutcome {
            passed,
            passed_tier: passed.then_some(tier),
        },
    };
    Ok(Made {
        path: into.join(layout::RUNS_DIR).join(format!("{id}.json")),
        run,
        objects,
    })
}

/// A file kept by digest: its bytes among `objects`, its reference returned.
fn kept_file(
    objects: &mut BTreeMap<String, Vec<u8>>,
    name: &str,
    bytes: Vec<u8>,
    media_type: &str,
) -> FileRef {
    let sha256 = sha256_hex(&bytes);
    let file = FileRef {
        path: name.to_string(),
        sha256: sha256.clone(),
        bytes: bytes.len() as u64,
        media_type: media_type.to_string(),
    };
    objects.insert(sha256, bytes);
    file
}

/// The name a file is kept under: its path as given when that is relative
/// and stays below the working directory, else its file name.
fn kept_name(path: &Path) -> String {
    use std::path::Component;
    let below = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let kept: PathBuf = if below {
        path.components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect()
    } else {
        path.file_name().map(PathBuf::from).unwrap_or_default()
    };
    kept.to_string_lossy().replace('\\', "/")
}

/// The media type a kept file's name suggests.
fn media_type_of(name: &str) -> &'static str {
    match name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
    {
        Some(ext) => match ext.as_str() {
            "json" => "application/json",
            "csv" => "text/csv",
            "md" => "text/markdown",
            "txt" | "log" => "text/plain",
            "html" => "text/html",
            "yaml" | "yml" => "application/yaml",
            _ => "application/octet-stream",
        },
        None => "application/octet-stream",
    }
}

/// The task's input files, read from the object store beside the
/// experiments.
fn objects_of(experiments: &Path, task: &Task) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    for input in &task.inputs {
        let path = experiments.join(layout::OBJECTS_DIR).join(&input.sha256);
        let bytes = std::fs::read(&path)
            .doing(|| format!("reading {}, an input of task {}", path.display(), task.id))?;
        out.insert(input.sha256.clone(), bytes);
    }
    Ok(out)
}

/// Writes the run and its objects beside the experiment at `into`: the
/// objects first, the run record last. A run already recorded under the
/// same id is refused, never replaced.
pub fn write(into: &Path, made: &Made) -> Result<()> {
    if made.path.exists() {
        return Err(RecordError::Exists(made.path.clone()));
    }
    keep_objects(into, made.objects.iter().map(|(d, b)| (d, b.as_slice())))?;
    let mut record = serde_json::to_vec_pretty(&made.run).map_err(|source| RecordError::Json {
        what: "run",
        source,
    })?;
    record.push(b'\n');
    Ok(crate::atomic::write(&made.path, &record)?)
}

/// Writes each object by its digest into the object store beside the
/// experiment at `into`, once.
fn keep_objects<'a>(
    into: &Path,
    objects: impl IntoIterator<Item = (&'a String, &'a [u8])>,
) -> Result<()> {
    let dir = experiments_of(into).join(layout::OBJECTS_DIR);
    for (digest, bytes) in objects {
        let path = dir.join(digest);
        if !path.is_file() {
            crate::atomic::write(&path, bytes)?;
        }
    }
    Ok(())
}

/// Keeps a recording that made no run: the capture and its bodies, as
/// objects; returns the capture's path.
pub fn keep_capture(into: &Path, recording: &Recording) -> Result<PathBuf> {
    let capture =
        serde_json::to_vec_pretty(&recording.capture).map_err(|source| RecordError::Json {
            what: "capture",
            source,
        })?;
    let digest = sha256_hex(&capture);
    keep_objects(
        into,
        recording
            .objects
            .iter()
            .map(|(d, b)| (d, b.as_ref()))
            .chain([(&digest, capture.as_slice())]),
    )?;
    Ok(experiments_of(into).join(layout::OBJECTS_DIR).join(digest))
}

/// The receipts of a made run, recomputed as `receipts verify` would.
pub fn verify(into: &Path, made: &Made) -> Result<Vec<receipts_verifier::verify::Receipt>> {
    let cell = Cell::of(into, &Placement::default_for(&made.run))?;
    let mut objects = objects_of(experiments_of(into), &cell.task)?;
    objects.extend(made.objects.clone());
    let inputs = receipts_verifier::verify::task_input_bytes(&cell.task, &objects);
    let subject = made.path.display().to_string();
    Ok(receipts_verifier::verify::verify_run(
        &subject,
        &made.run,
        &cell.task,
        &inputs,
        &objects,
        &cell.experiment.prices,
    )
    .receipts)
}

impl Placement {
    /// The placement of a run already made.
    fn default_for(run: &Run) -> Placement {
        Placement {
            run: Some(run.id.clone()),
            task: Some(run.task.clone()),
            profile: Some(run.profile.clone()),
            seed: Some(run.seed),
            policy: Some(run.policy.clone()),
            tier: None,
            artifacts: Vec::new(),
        }
    }
}
