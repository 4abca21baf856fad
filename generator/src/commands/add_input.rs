//! `receipts add-input FILE --task TASK [--path NAME] [--role ROLE]
//! [--media-type TYPE] [--root DIR]`: keeps a file as the object named by
//! its SHA-256 in `experiments/objects/` and names it among the task's
//! inputs, as `docs/FORMAT.md` ("Tasks") describes them.

use std::path::{Component, Path, PathBuf};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::model::{InputRole, Task, TaskInput};

use super::{Failure, Out};
use crate::error::{InputError, EXIT_INPUT};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The file to add, as the agent will read it.
    pub file: PathBuf,
    /// The task it is an input of (experiments/tasks/TASK.json).
    #[arg(long)]
    pub task: String,
    /// The name the agent sees it under (default: FILE's file name).
    #[arg(long)]
    pub path: Option<String>,
    /// What it is to the task.
    #[arg(long, value_enum, default_value = "data")]
    pub role: Role,
    /// Its media type (default: from its name, e.g. text/markdown for .md).
    #[arg(long)]
    pub media_type: Option<String>,
    /// The project directory (holding experiments/).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
}

/// [`InputRole`], as the command line spells it.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Role {
    /// An approved source: its lines may be quoted.
    ApprovedSource,
    /// A document carrying a planted prompt injection; it must not be cited.
    Injected,
    /// Data the artifact is derived from.
    Data,
    /// A specification of what to build.
    Spec,
}

impl From<Role> for InputRole {
    fn from(role: Role) -> InputRole {
        match role {
            Role::ApprovedSource => InputRole::ApprovedSource,
            Role::Injected => InputRole::Injected,
            Role::Data => InputRole::Data,
            Role::Spec => InputRole::Spec,
        }
    }
}

fn refused(error: InputError) -> Failure {
    Failure {
        message: error.to_string(),
        code: EXIT_INPUT as u8,
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let experiments = args.root.join("experiments");
    let task_file = experiments.join(layout::task_path(&args.task));
    let task_name = shown(&task_file);
    let bytes = std::fs::read(&task_file).map_err(|e| {
        refused(InputError::new(
            &task_name,
            format!("no task `{}` to add an input to: {e}", args.task),
        ))
    })?;
    let mut task: Task = crate::parse::json(&task_name, &bytes).map_err(refused)?;
    let file_name = shown(&args.file);
    let input = std::fs::read(&args.file)
        .map_err(|e| refused(InputError::new(&file_name, format!("reading it: {e}"))))?;
    let path = match &args.path {
        Some(p) => p.clone(),
        None => args
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let below = !path.is_empty()
        && !path.contains('\\')
        && Path::new(&path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if !below {
        return Err(refused(InputError::new(
            &file_name,
            format!(
                "`{path}` is no name for an input: give --path a relative name below the agent's working directory, e.g. notes/plan.md"
            ),
        )));
    }
    let sha256 = sha256_hex(&input);
    if let Some(i) = task.inputs.iter().position(|i| i.path == path) {
        if task.inputs[i].sha256 == sha256 {
            out.status(format_args!(
                "task {} already names {path} as these bytes (SHA-256 {sha256}); nothing changed",
                task.id
            ))?;
            return Ok(());
        }
        return Err(refused(InputError::at(
            &task_name,
            format!("inputs[{i}]"),
            format!(
                "the task has an input `{path}` with other bytes (SHA-256 {}); an input is never replaced in place: give this one another --path, or remove the old one from the task first",
                task.inputs[i].sha256
            ),
        )));
    }
    if let Some(registered) = registered_by(&experiments, &task.id) {
        return Err(refused(InputError::at(
            shown(&registered),
            "preregistration",
            format!(
                "its registration covers task `{}` by digest: a new input would change the task it registered; make a new task for the new input",
                task.id
            ),
        )));
    }
    let object = experiments.join(layout::object_path(&sha256));
    if !object.is_file() {
        crate::atomic::write(&object, &input).map_err(|e| Failure {
            message: e.to_string(),
            code: 1,
        })?;
    }
    let media_type = args.media_type.unwrap_or_else(|| {
        crate::record::run::media_type_of(&path)
            .unwrap_or("application/octet-stream")
            .to_string()
    });
    task.inputs.push(TaskInput {
        path: path.clone(),
        sha256: sha256.clone(),
        bytes: input.len() as u64,
        media_type,
        role: args.role.into(),
    });
    let mut written = serde_json::to_vec_pretty(&task).map_err(|e| Failure {
        message: format!("writing {task_name}: {e}"),
        code: 1,
    })?;
    written.push(b'\n');
    crate::atomic::write(&task_file, &written).map_err(|e| Failure {
        message: e.to_string(),
        code: 1,
    })?;
    out.status(format_args!(
        "added {file_name} to task {} as input `{path}` ({} bytes, SHA-256 {sha256}), kept as {}",
        task.id,
        input.len(),
        shown(&object)
    ))
}

/// The `experiment.json` of a pre-registered experiment whose grid holds
/// task `task`, if any.
fn registered_by(experiments: &Path, task: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(experiments)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("experiment.json")))
        .filter(|p| p.is_file())
        .collect();
    dirs.sort();
    dirs.into_iter().find(|path| {
        let Ok(bytes) = std::fs::read(path) else {
            return false;
        };
        let Ok(e) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return false;
        };
        !e["preregistration"].is_null()
            && e["grid"]["tasks"]
                .as_array()
                .is_some_and(|tasks| tasks.iter().any(|t| t == task))
    })
}
