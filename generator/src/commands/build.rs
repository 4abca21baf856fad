//! `receipts build [--root DIR] [--out DIR]`.

use std::path::PathBuf;

use crate::build::{build, describe, BuildOptions};

use super::Failure;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory holding experiments/, showcase/ and docs/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Where to write the site; the previous site there is replaced only if the build succeeds.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// Exit with code 1 when any receipt fails (the site is still written).
    #[arg(long)]
    pub strict: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let options = BuildOptions {
        root: args.root,
        out: args.out.clone(),
        quiet: args.quiet,
        templates: None,
        background_cleanup: false,
        cache: None,
    };
    let report = build(&options)?;
    if !args.quiet {
        println!("{}", describe(&report, &args.out));
        for r in &report.not_passing {
            println!(
                "  {:?} {}: {}: recorded {}; recomputed {}",
                r.status, r.subject, r.claim, r.recorded, r.recomputed
            );
        }
    }
    if args.strict && report.tally.fail > 0 {
        return Err(Failure {
            message: format!("{} receipts failed (--strict)", report.tally.fail),
            code: 1,
        });
    }
    Ok(())
}
