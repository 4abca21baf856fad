//! `receipts export <run-id> [--root DIR] [--out FILE]`.

use std::path::PathBuf;

use anyhow::Context;

use crate::error::BuildError;
use crate::{export, load, validate};

use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run to export.
    pub run: String,
    /// The directory holding experiments/ (or a built site, whose data/ is read).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Where to write the report; `-` for standard output. Default: `<run>.report.json`.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args, stdout: Out) -> Result<(), Failure> {
    let site_data = args.root.join(crate::data::DATA_DIR);
    // A built site has its records, and their manifest, under data/.
    let is_site = site_data.join(receipts_verifier::manifest::SUMS).is_file();
    let (corpus, sums) = if is_site {
        let sums_path = args.root.join(receipts_verifier::manifest::SUMS);
        let sums = std::fs::read_to_string(&sums_path).map_err(|e| {
            BuildError::from(crate::error::InputError::new(
                sums_path.display().to_string(),
                e.to_string(),
            ))
        })?;
        (
            load::load_site(std::sync::Arc::new(load::Disk), &args.root)
                .map_err(BuildError::from)?,
            Some(sums),
        )
    } else {
        (load::load(&args.root).map_err(BuildError::from)?, None)
    };
    validate::validate(&corpus).map_err(BuildError::from)?;
    let report = export::export(&corpus, &args.run, sums.as_deref()).map_err(BuildError::from)?;
    let mut bytes = serde_json::to_vec_pretty(&report).context("serializing the report")?;
    bytes.push(b'\n');
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("{}.report.json", args.run)));
    if out.as_os_str() == "-" {
        stdout.result(&bytes)?;
    } else {
        std::fs::write(&out, bytes).with_context(|| format!("writing {}", out.display()))?;
        if !stdout.quiet {
            eprintln!("wrote {}", out.display());
        }
    }
    Ok(())
}
