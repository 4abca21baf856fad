//! `receipts simulate [--out DIR] [--scale N]`.

use std::path::PathBuf;

use anyhow::Context;

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
    /// Replace an existing experiments/ directory (it is deleted first).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let files = match args.scale {
        Some(n) => simulate::scale(n),
        None => simulate::sample(),
    };
    let dir = args.out.join("experiments");
    if dir.exists() {
        if !args.force {
            return Err(anyhow::anyhow!(
                "{} exists; pass --force to replace it with the simulated sample",
                dir.display()
            )
            .into());
        }
        // Stale records of an earlier simulation must not linger beside the new ones.
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    simulate::write_files(&args.out, &files)?;
    out.status(format_args!(
        "wrote {} simulated files under {}",
        files.len(),
        args.out.display()
    ))?;
    Ok(())
}
