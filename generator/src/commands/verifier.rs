//! `receipts verifier --out DIR`: writes the standalone verifier and prints
//! its digests, to be published beside the paper.

use std::path::PathBuf;

use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write the verifier (index.html, its scripts and SHA256SUMS).
    #[arg(long, default_value = "verifier")]
    pub out: PathBuf,
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let (digests, manifest) = crate::standalone::write(&args.out)?;
    for (name, digest) in &digests {
        out.status(format_args!("{digest}  {name}"))?;
    }
    out.status(format_args!(
        "verifier digest {manifest} (SHA-256 of {}/SHA256SUMS): publish it beside the site's root digest",
        args.out.display()
    ))?;
    out.status(format_args!(
        "open {}/index.html?site=<site address>#root=<root digest>, or pick a folder or zip of the site",
        args.out.display()
    ))
}
