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
    /// Verify only the records under the site's data/, in memory, exactly as
    /// the browser does (no manifests); with --json, print that result as is.
    #[arg(long)]
    pub records_only: bool,
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

/// The records under `dir`, path → bytes, as the browser hands them to the verifier.
fn read_records(
    dir: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>, InputError> {
    let mut files = std::collections::BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| InputError::new(dir.display().to_string(), e.to_string()))?;
        if entry.file_type().is_file() {
            let rel = crate::error::display_path(dir, entry.path());
            if rel != receipts_verifier::manifest::SUMS {
                let mut bytes = std::fs::read(entry.path())
                    .map_err(|e| InputError::new(rel.clone(), e.to_string()))?;
                // A gzipped record is handed over as the record it holds, as the browser does.
                if crate::gzip::is_gzipped(entry.path()) {
                    bytes = crate::gzip::decompress(&bytes, crate::load::MAX_FILE_BYTES)
                        .map_err(|e| InputError::new(rel.clone(), e))?;
                }
                files.insert(crate::gzip::record_path(&rel).to_string(), bytes);
            }
        }
    }
    Ok(files)
}

pub fn run(args: Args) -> Result<(), Failure> {
    let target = args.target.display().to_string();
    if args.records_only {
        let files =
            read_records(&args.target.join(crate::data::DATA_DIR)).map_err(BuildError::from)?;
        let result =
            receipts_verifier::verify::verify_files(&files, &receipts_verifier::verify::Scope::All);
        if args.json {
            println!(
                "{}",
                serde_json::to_string(&result).context("serializing the result")?
            );
        } else {
            let t = result.tally;
            println!(
                "{target}: records: {} receipts, {} pass, {} fail, {} could not be checked",
                t.total(),
                t.pass,
                t.fail,
                t.could_not_check
            );
        }
        return if result.tally.fail > 0 {
            Err(Failure {
                message: format!("{} receipts failed", result.tally.fail),
                code: 1,
            })
        } else {
            Ok(())
        };
    }
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
