//! `receipts verify <site-dir | report.json> [--json] [--expect-root HEX]`:
//! exit 0 when every receipt passes, 1 when any fails, 2 when the input is unusable.

use std::path::PathBuf;

use anyhow::Context;

use receipts_verifier::model::Report;
use receipts_verifier::verify::{verify_report, Receipt, Status, Tally};

use crate::audit::audit;
use crate::build::BuildError;
use crate::error::InputError;

use super::Failure;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A site built by `receipts build`, or a report written by `receipts export`.
    pub target: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Fail unless the site's root digest (SHA-256 of SHA256SUMS) is this one.
    #[arg(long, value_name = "HEX")]
    pub expect_root: Option<String>,
}

#[derive(serde::Serialize)]
struct Outcome<'a> {
    target: String,
    status: &'static str,
    root_digest: Option<&'a str>,
    records_digest: Option<&'a str>,
    tally: Tally,
    receipts: &'a [Receipt],
}

pub fn run(args: Args) -> Result<(), Failure> {
    let target = args.target.display().to_string();
    let (root_digest, records_digest, receipts) = if args.target.is_dir() {
        let found = audit(&args.target, args.expect_root.as_deref()).map_err(BuildError::from)?;
        (
            Some(found.root_digest),
            found.records_digest,
            found.receipts,
        )
    } else {
        let bytes = std::fs::read(&args.target)
            .map_err(|e| BuildError::from(InputError::new(&target, e.to_string())))?;
        let report: Report = crate::parse::json(&target, &bytes).map_err(BuildError::from)?;
        let digest = report.records_digest.clone();
        (None, Some(digest), verify_report(&report))
    };
    let tally = Tally::of(&receipts);
    let status = if tally.fail > 0 { "failed" } else { "verified" };
    if args.json {
        let outcome = Outcome {
            target: target.clone(),
            status,
            root_digest: root_digest.as_deref(),
            records_digest: records_digest.as_deref(),
            tally,
            receipts: &receipts,
        };
        let text = serde_json::to_string_pretty(&outcome).context("serializing the result")?;
        println!("{text}");
    } else {
        for r in receipts.iter().filter(|r| r.status == Status::Fail) {
            println!(
                "FAIL {}: {}: recorded {}; recomputed {}",
                r.subject, r.claim, r.recorded, r.recomputed
            );
        }
        for r in receipts
            .iter()
            .filter(|r| r.status == Status::CouldNotCheck)
        {
            println!(
                "COULD NOT CHECK {}: {}: {}",
                r.subject, r.claim, r.recomputed
            );
        }
        println!(
            "{target}: {status}: {} receipts, {} pass, {} fail, {} could not be checked",
            tally.total(),
            tally.pass,
            tally.fail,
            tally.could_not_check
        );
        if let Some(d) = &root_digest {
            println!("root digest {d}");
        }
    }
    if tally.fail > 0 {
        Err(Failure {
            message: format!("{} receipts failed", tally.fail),
            code: 1,
        })
    } else {
        Ok(())
    }
}
