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
    Attempt, Deviation, DeviationKind, Deviations, DeviationsKind, Experiment, FileRef,
    FormatVersion, InputDigests, Provenance, RecordedCheck, Run, RunKind, RunOutcome, Source, Task,
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
    /// The run this one replaces, as a declared rerun: its cell is the
    /// replaced run's, and a `rerun` deviation declares it.
    pub rerun_of: Option<String>,
    /// Why the rerun is made, in one line (a default names the runs).
    pub reason: Option<String>,
}

/// A run made of a recording, and every object it names, by digest.
pub struct Made {
    pub run: Run,
    pub objects: BTreeMap<String, Vec<u8>>,
    /// Where the run is written.
    pub path: PathBuf,
    /// The rerun's declaration, written with it.
    pub declared: Option<Declared>,
}

/// A rerun's declaration, made before the command runs: the `rerun`
/// deviation that names it, logged at the time the rerun was asked for.
#[derive(Debug, Clone)]
pub struct Declared {
    pub deviation: Deviation,
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
    /// Every run on record in the experiment, sorted by id.
    runs: Vec<Run>,
}

impl Cell {
    fn of(into: &Path, placement: &Placement) -> Result<Cell> {
        let experiment: Experiment =
            read_json(&into.join("experiment.json")).map_err(|e| RecordError::NoExperiment {
                dir: into.to_path_buf(),
                source: Box::new(e),
            })?;
        let runs = runs_on_record(into)?;
        let e = &experiment;
        // A rerun is of the replaced run's cell: each axis defaults to it,
        // and another value given is refused.
        let replaced =
            match &placement.rerun_of {
                None => None,
                Some(id) => Some(runs.iter().find(|r| r.id == *id).ok_or_else(|| {
                    RecordError::NoSuchRun {
                        run: id.clone(),
                        dir: into.join(layout::RUNS_DIR),
                    }
                })?),
            };
        fn axis<T: Clone + PartialEq + std::fmt::Display>(
            name: &'static str,
            given: &Option<T>,
            of_replaced: Option<&T>,
        ) -> Result<Option<T>> {
            match (given, of_replaced) {
                (Some(g), Some(r)) if g != r => Err(RecordError::OtherCell {
                    axis: name,
                    given: g.to_string(),
                    replaced: r.to_string(),
                }),
                (Some(g), _) => Ok(Some(g.clone())),
                (None, r) => Ok(r.cloned()),
            }
        }
        let task = axis("task", &placement.task, replaced.map(|r| &r.task))?;
        let profile = axis("profile", &placement.profile, replaced.map(|r| &r.profile))?;
        let seed = axis("seed", &placement.seed, replaced.map(|r| &r.seed))?;
        let policy = axis("policy", &placement.policy, replaced.map(|r| &r.policy))?;
        let task = pick("task", task, &e.grid.tasks, &e.id)?;
        let profile = pick("profile", profile, &e.grid.profiles, &e.id)?;
        let seed = pick("seed", seed, &e.grid.seeds, &e.id)?;
        let policies: Vec<String> = e.policies.iter().map(|p| p.id.clone()).collect();
        let policy = pick("policy", policy, &policies, &e.id)?;
        let task: Task = read_json(&experiments_of(into).join(layout::task_path(&task)))?;
        Ok(Cell {
            experiment,
            task,
            profile,
            seed,
            policy,
            runs,
        })
    }

    fn run_id(&self, placement: &Placement) -> String {
        if let Some(id) = &placement.run {
            return id.clone();
        }
        match &placement.rerun_of {
            // The first free of X-rerun, X-rerun2, X-rerun3, …
            Some(old) => (1..)
                .map(|n| match n {
                    1 => format!("{old}-rerun"),
                    n => format!("{old}-rerun{n}"),
                })
                .find(|id| !self.runs.iter().any(|r| r.id == *id))
                .expect("a free id"),
            None => format!(
                "{}-{}-{}-s{}-{}",
                self.experiment.id, self.task.id, self.profile, self.seed, self.policy
            ),
        }
    }

    fn is_this_cell(&self, r: &Run) -> bool {
        r.task == self.task.id
            && r.profile == self.profile
            && r.seed == self.seed
            && r.policy == self.policy
    }

    /// The runs of this cell the primary analysis counts: each that reached
    /// the provider and is no rerun, and each rerun of a run that never
    /// reached it (docs/FORMAT.md, "Analyses").
    fn counted(&self) -> Vec<&str> {
        let reached = |id: &str| {
            self.runs
                .iter()
                .find(|r| r.id == id)
                .is_some_and(reached_provider)
        };
        self.runs
            .iter()
            .filter(|r| self.is_this_cell(r))
            .filter(|r| match &r.replaces {
                None => reached_provider(r),
                Some(old) => !reached(old),
            })
            .map(|r| r.id.as_str())
            .collect()
    }
}

/// Whether any attempt of `run` made a call.
fn reached_provider(run: &Run) -> bool {
    run.attempts.iter().any(|a| !a.calls.is_empty())
}

/// Every run on record in the experiment at `into` (`runs/*.json` and
/// `runs/*.json.gz`), sorted by id.
fn runs_on_record(into: &Path) -> Result<Vec<Run>> {
    let dir = into.join(layout::RUNS_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => Err(e).doing(|| format!("reading {}", dir.display()))?,
    };
    let mut runs: Vec<Run> = Vec::new();
    for entry in entries {
        let path = entry.doing(|| format!("reading {}", dir.display()))?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') || !(name.ends_with(".json") || name.ends_with(".json.gz")) {
            continue;
        }
        let file = path.display().to_string();
        let mut bytes = std::fs::read(&path).doing(|| format!("reading {file}"))?;
        if crate::gzip::is_gzipped(&path) {
            bytes = crate::gzip::decompress(&bytes, layout::MAX_RECORD_BYTES)
                .map_err(|why| crate::error::InputError::new(&file, why))?;
        }
        runs.push(crate::parse::json(&file, &bytes)?);
    }
    runs.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(runs)
}

/// The experiments directory an experiment at `into` is in.
fn experiments_of(into: &Path) -> &Path {
    match into.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks, before the command runs, that a run can be placed as asked:
/// the experiment, its cell and its task exist, no run has the id, and
/// the run leaves the project building with every grid receipt as it
/// was: a cell that holds its registered runs takes another only as a
/// declared rerun. Returns the rerun's declaration, logged now, before
/// the rerun starts; it is written with the run.
pub fn check(into: &Path, placement: &Placement) -> Result<Option<Declared>> {
    let cell = Cell::of(into, placement)?;
    let id = cell.run_id(placement);
    let runs = into.join(layout::RUNS_DIR);
    for path in [
        runs.join(format!("{id}.json")),
        runs.join(format!("{id}.json{}", layout::GZ)),
    ] {
        if path.exists() {
            return Err(RecordError::Exists(path));
        }
    }
    let e = &cell.experiment;
    let counted = cell.counted();
    // The new run counts unless it replaces a run the analysis counts.
    let counts = match &placement.rerun_of {
        None => true,
        Some(old) => !cell
            .runs
            .iter()
            .find(|r| r.id == *old)
            .is_some_and(reached_provider),
    };
    let registered = e.grid.runs_per_cell as usize;
    if counts && counted.len() >= registered {
        let cell_name = format!(
            "{} · {} · seed {} · {}",
            cell.task.id, cell.profile, cell.seed, cell.policy
        );
        let holds = counted
            .iter()
            .map(|id| format!("`{id}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let rerun_of = counted.last().copied().unwrap_or_default();
        let grow = if e.preregistration.is_some() {
            "the grid is pre-registered, so it does not grow; "
        } else {
            "or, as the experiment is not pre-registered, raise grid.runs_per_cell or add a seed first; "
        };
        return Err(RecordError::CellFull {
            file: into.join("experiment.json"),
            cell: cell_name,
            registered: crate::numbers::count(registered, "run", None),
            holds,
            hint: format!(
                "record it as a declared rerun, which the primary analysis leaves out and the `reruns-replace` analysis counts in its place: `receipts record --into {} --rerun-of {rerun_of} --reason \"…\" -- COMMAND`; {grow}see docs/RECORD-YOUR-AGENT.md, \"More runs of a cell\"",
                into.display()
            ),
        });
    }
    let Some(old) = &placement.rerun_of else {
        return Ok(None);
    };
    let reason = match &placement.reason {
        Some(reason) if reason.trim().is_empty() || reason.contains(['\n', '\r']) => {
            return Err(RecordError::Reason(reason.clone()))
        }
        Some(reason) => reason.trim().to_string(),
        None => format!(
            "Run `{old}` is rerun as `{id}`. Under the primary analysis the rerun counts only if `{old}` never reached the provider."
        ),
    };
    let deviations = read_deviations(into, e)?;
    let free = (deviations.deviations.len() + 1..)
        .map(|n| format!("D{n}"))
        .find(|d| !deviations.deviations.iter().any(|x| x.id == *d))
        .expect("a free id");
    let deviation = Deviation {
        id: free,
        logged_at: proxy_now_after(),
        kind: DeviationKind::Rerun,
        reason,
        runs: vec![id],
    };
    if let Some(p) = &e.preregistration {
        let log = into.join(&p.log);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if !text
            .lines()
            .any(|l| l.strip_suffix('\r').unwrap_or(l) == p.end_marker)
        {
            return Err(RecordError::Input(crate::error::InputError::at(
                into.join("experiment.json").display().to_string(),
                "preregistration.log",
                format!(
                    "{} holds no line `{}`: a declared rerun is appended to the log below it",
                    log.display(),
                    p.end_marker
                ),
            )));
        }
    }
    Ok(Some(Declared { deviation }))
}

/// The file an experiment's deviations are kept in.
const DEVIATIONS_FILE: &str = "deviations.json";

/// The experiment's `deviations.json`, or an empty one.
fn read_deviations(into: &Path, e: &Experiment) -> Result<Deviations> {
    let path = into.join(DEVIATIONS_FILE);
    if !path.exists() {
        return Ok(Deviations {
            format_version: FormatVersion,
            kind: DeviationsKind::Deviations,
            experiment: e.id.clone(),
            deviations: Vec::new(),
        });
    }
    read_json(&path)
}

/// The time now, as records write it, once the clock has moved past it:
/// whatever starts after this returns starts later than the time returned.
fn proxy_now_after() -> String {
    let now = super::proxy::now();
    while super::proxy::now() == now {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    now
}

/// Writes a rerun's declaration: its deviation appended to
/// `deviations.json` and, for a pre-registered experiment, to the log's
/// `## Deviations` section, word for word.
fn write_declaration(into: &Path, e: &Experiment, declared: &Declared) -> Result<()> {
    let d = &declared.deviation;
    if let Some(p) = &e.preregistration {
        let path = into.join(&p.log);
        let log = std::fs::read_to_string(&path).doing(|| format!("reading {}", path.display()))?;
        let bullet = format!("- {}: {}", d.logged_at, d.reason);
        crate::atomic::write(
            &path,
            with_deviation(&log, &p.end_marker, &bullet).as_bytes(),
        )?;
    }
    let mut deviations = read_deviations(into, e)?;
    deviations.deviations.push(d.clone());
    let mut bytes = serde_json::to_vec_pretty(&deviations).map_err(|source| RecordError::Json {
        what: "deviations",
        source,
    })?;
    bytes.push(b'\n');
    Ok(crate::atomic::write(&into.join(DEVIATIONS_FILE), &bytes)?)
}

/// `log` with `bullet` added as the last of its `## Deviations` section
/// below `marker`, the section made at the end when there is none.
fn with_deviation(log: &str, marker: &str, bullet: &str) -> String {
    let mut lines: Vec<&str> = log.lines().collect();
    let below = lines
        .iter()
        .position(|l| l.strip_suffix('\r').unwrap_or(l) == marker)
        .map_or(lines.len(), |m| m + 1);
    let heading = (below..lines.len()).find(|&i| lines[i].trim_end() == "## Deviations");
    match heading {
        Some(h) => {
            let end = (h + 1..lines.len())
                .find(|&i| lines[i].starts_with("# ") || lines[i].starts_with("## "))
                .unwrap_or(lines.len());
            // After the section's last line that is not blank.
            let at = (h + 1..end)
                .rev()
                .find(|&i| !lines[i].trim().is_empty())
                .map_or(h + 1, |i| i + 1);
            if at == h + 1 {
                lines.insert(at, "");
                lines.insert(at + 1, bullet);
            } else {
                lines.insert(at, bullet);
            }
        }
        None => {
            while lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
            lines.extend(["", "## Deviations", "", bullet]);
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
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
    declared: Option<Declared>,
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
        let media_type = media_type_of(&name).unwrap_or("application/octet-stream");
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
        replaces: placement.rerun_of.clone(),
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
        declared,
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

/// The media type a kept file's name suggests, when it suggests one.
pub fn media_type_of(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "json" => "application/json",
        "csv" => "text/csv",
        "md" => "text/markdown",
        "txt" | "log" => "text/plain",
        "html" => "text/html",
        "yaml" | "yml" => "application/yaml",
        _ => return None,
    })
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
    if let Some(declared) = &made.declared {
        let e: Experiment = read_json(&into.join("experiment.json"))?;
        write_declaration(into, &e, declared)?;
    }
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

/// The receipts of a made run, recomputed as `receipts verify` and the
/// run's page count them: the run's own and its conduct in the experiment.
pub fn verify(into: &Path, made: &Made) -> Result<Vec<receipts_verifier::verify::Receipt>> {
    let cell = Cell::of(into, &Placement::default_for(&made.run))?;
    let mut objects = objects_of(experiments_of(into), &cell.task)?;
    objects.extend(made.objects.clone());
    let tasks = BTreeMap::from([(cell.task.id.clone(), cell.task.clone())]);
    let dir = into.file_name().map_or_else(
        || cell.experiment.id.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let check = receipts_verifier::verify::ExperimentCheck {
        dir: &dir,
        experiment: &cell.experiment,
        log: "",
        summary: None,
        summary_text: None,
        results: None,
        deviations: None,
        models: None,
        anchors: receipts_verifier::anchor::AnchorFiles::default(),
        tasks: &tasks,
        objects: &objects,
    };
    Ok(check.verify_run(&check.task_inputs(), &made.run).receipts)
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
            rerun_of: None,
            reason: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_deviation;

    const MARKER: &str = "<!-- end -->";

    #[test]
    fn a_declared_rerun_is_listed_last_in_the_logs_deviations_section() {
        let bullet = "- 2026-01-02T00:00:00.000Z: Rerun.";
        // No section yet: one is made below the marker.
        assert_eq!(
            with_deviation("# Plan\n\nRules.\n\n<!-- end -->\n\n", MARKER, bullet),
            "# Plan\n\nRules.\n\n<!-- end -->\n\n## Deviations\n\n- 2026-01-02T00:00:00.000Z: Rerun.\n"
        );
        // A section with bullets, and a heading after it: the bullet goes
        // after the last one, inside the section.
        assert_eq!(
            with_deviation(
                "<!-- end -->\n\n## Deviations\n\n- a: A.\n\n## Notes\n\nx\n",
                MARKER,
                bullet
            ),
            "<!-- end -->\n\n## Deviations\n\n- a: A.\n- 2026-01-02T00:00:00.000Z: Rerun.\n\n## Notes\n\nx\n"
        );
        // An empty section, and a `## Deviations` above the marker that is
        // part of the registration, left alone.
        assert_eq!(
            with_deviation(
                "## Deviations\n\nNone planned.\n<!-- end -->\n## Deviations\n",
                MARKER,
                bullet
            ),
            "## Deviations\n\nNone planned.\n<!-- end -->\n## Deviations\n\n- 2026-01-02T00:00:00.000Z: Rerun.\n"
        );
    }
}
