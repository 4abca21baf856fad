//! `receipts simulate [--out DIR] [--scale N [--experiment ID]]`.

use std::path::{Path, PathBuf};

use crate::error::{Doing, FileError};
use crate::simulate;

use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory to write experiments/ and showcase/ into.
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// Instead of the sample, write one experiment of N runs (for scale tests).
    #[arg(long, value_name = "N")]
    pub scale: Option<usize>,
    /// With --scale: the experiment's id (its folder's name, and the start
    /// of each run's id), so that experiments written apart share no run.
    #[arg(long, value_name = "ID", requires = "scale", default_value = crate::simulate::SCALE_EXPERIMENT)]
    pub experiment: String,
    /// Replace an existing experiments/ directory (it is deleted first).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let files = match args.scale {
        Some(n) => {
            let id = &args.experiment;
            let valid = id.len() <= 32
                && id.starts_with(|c: char| c.is_ascii_alphabetic())
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !valid {
                return Err(Failure {
                    message: format!("--experiment {id:?}: an id is a letter, then up to 31 ASCII letters, digits, `-` or `_`"),
                    code: crate::error::EXIT_INPUT as u8,
                });
            }
            simulate::scale_named(n, id)
        }
        None => simulate::sample(),
    };
    let dir = args.out.join("experiments");
    if dir.exists() {
        if !args.force {
            return Err(Failure {
                message: format!(
                    "{} exists; pass --force to replace it with the simulated sample",
                    dir.display()
                ),
                code: 1,
            });
        }
        // Stale records of an earlier simulation must not linger beside the new ones.
        std::fs::remove_dir_all(&dir).doing(|| format!("removing {}", dir.display()))?;
    }
    write_files(&args.out, &files)?;
    out.status(format_args!(
        "wrote {} simulated files under {}",
        files.len(),
        args.out.display()
    ))?;
    Ok(())
}

/// Writes `files` under `root`, creating directories.
fn write_files(root: &Path, files: &simulate::Files) -> Result<(), FileError> {
    for (rel, bytes) in files {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).doing(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, bytes).doing(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
