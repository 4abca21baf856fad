//! `receipts root --out DIR SHARD...`: writes the root site of a study
//! published as shards, each a site `receipts build` wrote, published
//! beside the root under its folder's name.

use std::path::PathBuf;

use super::{Failure, Out};
use crate::numbers::count;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write the root site.
    #[arg(long, default_value = "root")]
    pub out: PathBuf,
    /// The shards: sites `receipts build` wrote, each named by its folder's
    /// name and published beside the root (at `../<name>/` from it).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let summary = crate::shards::build_root(&args.out, &args.shards)?;
    let runs: usize = summary.shards.iter().map(|s| s.runs).sum();
    for s in &summary.shards {
        out.status(format_args!(
            "{}  {} ({})",
            s.root_digest,
            s.name,
            count(s.runs, "run", None)
        ))?;
    }
    out.status(format_args!(
        "wrote {}: {}, {}; root digest {} (SHA-256 of SHA256SUMS): publish it, and each shard beside the root under its name",
        args.out.display(),
        count(summary.shards.len(), "shard", None),
        count(runs, "run", None),
        summary.root_digest
    ))
}
