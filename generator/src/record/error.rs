//! Why a command's calls could not be recorded as a run: what the person
//! recording asked for that the experiment does not have, or a file that
//! could not be read or written.

use std::path::PathBuf;

use crate::error::{FileError, InputError};

/// Why recording, or making a run of what was recorded, failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Input(#[from] InputError),
    /// The directory given is not an experiment's: the cause says why.
    #[error("{} holds no experiment: a recorded run belongs to an experiment (experiment.json, its tasks, tiers and prices)", .dir.display())]
    NoExperiment {
        dir: PathBuf,
        #[source]
        source: Box<RecordError>,
    },
    /// A value given for an axis of the grid that the experiment lacks.
    #[error("--{axis} `{value}` is not one of experiment {experiment}'s: {choices}")]
    NotAChoice {
        axis: &'static str,
        value: String,
        experiment: String,
        /// The experiment's values, each in backticks, `, `-separated.
        choices: String,
    },
    /// An axis left out where the experiment has several values.
    #[error("experiment {experiment} has several of these; name one with --{axis}: {choices}")]
    Ambiguous {
        axis: &'static str,
        experiment: String,
        choices: String,
    },
    /// The run was not named and its policy has several tiers, none of
    /// them the model the calls asked for.
    #[error("name the tier of policy `{policy}` the run used with --tier: {tiers}")]
    NameTheTier { policy: String, tiers: String },
    /// A call asked for a model the experiment prices nothing for.
    #[error("call {call} asked for model `{model}`, which experiment {experiment} has no price for: add it to prices.models in {}", .file.display())]
    Unpriced {
        call: usize,
        model: String,
        experiment: String,
        file: PathBuf,
    },
    /// The calls kept do not make a run: why.
    #[error("the capture does not make a run: {0}")]
    NotARun(String),
    /// A run of that id is recorded already.
    #[error("{} exists: a recorded run is never replaced; record another run of its cell as a declared rerun with --rerun-of (see docs/RECORD-YOUR-AGENT.md, \"More runs of a cell\")", .0.display())]
    Exists(PathBuf),
    /// Another run would give the cell more runs than the grid registers.
    #[error("{}: grid.runs_per_cell: cell {cell} is registered for {registered} and has {holds} on record; another run would fail the grid's receipt, so nothing was run. To add it, {hint}", .file.display())]
    CellFull {
        file: PathBuf,
        cell: String,
        registered: String,
        holds: String,
        hint: String,
    },
    /// `--rerun-of` names no run on record.
    #[error("--rerun-of {run}: no run of that id in {}", .dir.display())]
    NoSuchRun { run: String, dir: PathBuf },
    /// An axis given for a rerun that differs from the replaced run's.
    #[error("--{axis} {given}: a rerun is of the cell of the run it replaces, whose {axis} is {replaced}")]
    OtherCell {
        axis: &'static str,
        given: String,
        replaced: String,
    },
    /// A rerun's reason that is empty or spans lines.
    #[error("--reason {0:?}: a deviation's reason is one line, as the log lists it")]
    Reason(String),
    /// An `--artifact` path that ends in no file name.
    #[error("--artifact {} names no file", .0.display())]
    NoFileName(PathBuf),
    /// Two `--artifact` paths with one file name.
    #[error("two files would be kept as `{0}`: give each --artifact once, under its own name")]
    SameName(String),
    /// The recording proxy could not listen on a local port.
    #[error("listening on 127.0.0.1 for the command's calls")]
    Listen(#[source] std::io::Error),
    /// Interrupts could not be watched for.
    #[error("listening for Ctrl-C")]
    Signal(#[source] std::io::Error),
    /// The command could not be started or waited for.
    #[error("running {program}")]
    Run {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// `--upstream` is not an http or https URL without a query.
    #[error("--upstream {0:?}: expected an http or https URL, e.g. http://127.0.0.1:9000 or https://api.example.com/v1")]
    NotAnUpstream(String),
    /// No program was given to run.
    #[error("no command to record was given")]
    NoCommand,
    /// The capture or the run could not be written as JSON.
    #[error("writing the {what}")]
    Json {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
}
