//! `receipts build [--root DIR] [--out DIR]`.

use std::path::PathBuf;

use crate::build::{build, describe, BuildOptions};

use super::{Failure, Out};

/// The size GitHub Pages publishes a site up to.
const PAGES_LIMIT: u64 = 1_000_000_000;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub site: SiteArgs,
    /// Exit with code 1 when any receipt fails or could not be checked (the
    /// site is still written).
    #[arg(long)]
    pub strict: bool,
}

/// What to build a site from and where: the flags `build` and `serve` share.
#[derive(Debug, clap::Args)]
pub struct SiteArgs {
    /// The directory holding experiments/, showcase/ and docs/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Where to write the site; the previous site there is replaced only if the build succeeds.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// For sites of many runs: publish run records gzipped
    /// (data/<experiment>/runs/<run>.json.gz) and compact run pages, whose
    /// replay the browser draws from the record.
    #[arg(long)]
    pub compress_records: bool,
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let options = BuildOptions {
        root: args.site.root,
        out: args.site.out.clone(),
        quiet: out.quiet,
        templates: None,
        background_cleanup: false,
        cache: None,
        compress_records: args.site.compress_records,
        in_place: None,
    };
    let report = build(&options)?;
    if report.bytes > PAGES_LIMIT {
        eprintln!(
            "warning: the site has {:.2} GB; GitHub Pages publishes sites of up to 1 GB{}",
            report.bytes as f64 / 1e9,
            if args.site.compress_records {
                ""
            } else {
                " (--compress-records stores run records gzipped and run pages compact, about a quarter of their size together)"
            }
        );
    }
    out.status(describe(&report, &args.site.out))?;
    for r in &report.not_passing {
        out.status(format_args!(
            "  {:?} {}: {}: recorded {}; recomputed {}",
            r.status, r.subject, r.claim, r.recorded, r.recomputed
        ))?;
    }
    // Strict: a receipt that could not be checked is no pass either.
    let (fail, unchecked) = (report.tally.fail, report.tally.could_not_check);
    if args.strict && fail + unchecked > 0 {
        let message = match (fail, unchecked) {
            (f, 0) => format!("{f} receipts failed (--strict)"),
            (0, u) => format!("{u} receipts could not be checked (--strict)"),
            (f, u) => format!("{f} receipts failed and {u} could not be checked (--strict)"),
        };
        return Err(Failure { message, code: 1 });
    }
    Ok(())
}
