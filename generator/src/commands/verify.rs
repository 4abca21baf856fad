//! `receipts verify <site-dir | root-dir | report.json> [--json]
//! [--expect-root HEX] [--site DIR] [--shards DIR] [--allow-unchecked]`.
//!
//! Exit 0 when every receipt passes; 1 when any fails; 2 when the input is
//! unusable (a pin that is not a digest included); 3 when nothing failed but
//! something could not be checked or anchored (0 with `--allow-unchecked`).

use std::path::{Path, PathBuf};

use anyhow::Context;

use receipts_verifier::manifest::parse_pin;
use receipts_verifier::model::Report;
use receipts_verifier::verify::{anchor_report, verify_report, Kinds, Receipt, Status, Tally};

use crate::audit::audit;
use crate::error::BuildError;
use crate::error::InputError;
use crate::numbers::count;

use super::{Failure, Out};

/// How many pages that differ from their rendering the text output names.
const PAGES_SHOWN: usize = 10;

/// Exit code when nothing failed but something could not be checked or anchored.
pub const EXIT_UNCHECKED: u8 = 3;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A site built by `receipts build`, or a report written by `receipts export`.
    pub target: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Verify only the records under the site's data/, in memory, exactly as
    /// the browser does (no manifests, no pages); with --json, print that result as is.
    #[arg(long)]
    pub records_only: bool,
    /// Fail unless the site's root digest (SHA-256 of SHA256SUMS), or the
    /// root digest a report names, is this one: 64 hex digits, optionally
    /// prefixed sha256:.
    #[arg(long, value_name = "HEX")]
    pub expect_root: Option<String>,
    /// With a report: the site it was exported from, whose SHA256SUMS anchors it.
    #[arg(long, value_name = "DIR")]
    pub site: Option<PathBuf>,
    /// With a root site (a study published as shards): the folder its shards
    /// are in, each under its name; by default the root's own parent.
    #[arg(long, value_name = "DIR")]
    pub shards: Option<PathBuf>,
    /// Exit 0 rather than 3 when nothing failed but something could not be
    /// checked or anchored.
    #[arg(long)]
    pub allow_unchecked: bool,
}

#[derive(serde::Serialize)]
struct Outcome<'a> {
    target: String,
    status: &'static str,
    root_digest: Option<&'a str>,
    records_digest: Option<&'a str>,
    tally: Tally,
    /// The receipts counted by what they hold the site to.
    kinds: Kinds,
    receipts: &'a [Receipt],
}

/// `text` with control characters shown as escapes: a forged site's strings
/// cannot move the cursor, clear a line or fake a verdict on a terminal.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// The records under `dir`, path → bytes, as the browser hands them to the verifier.
fn read_records(dir: &Path) -> Result<std::collections::BTreeMap<String, Vec<u8>>, InputError> {
    let mut files = std::collections::BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| InputError::new(dir.display().to_string(), e.to_string()))?;
        if !entry.file_type().is_dir() {
            let rel = crate::error::display_path(dir, entry.path());
            // The manifests are not records.
            if rel != receipts_verifier::manifest::SUMS
                && !receipts_verifier::manifest::chunks::is_chunk(&rel)
            {
                let mut bytes = crate::audit::read_site_file(dir, &rel)
                    .map_err(|e| InputError::new(rel.clone(), e))?;
                // A gzipped record is handed over as the record it holds, as the browser does.
                let (record, gzipped) = receipts_verifier::layout::record_in(&rel);
                if gzipped {
                    bytes = crate::gzip::decompress(&bytes, crate::load::MAX_FILE_BYTES)
                        .map_err(|e| InputError::new(rel.clone(), e))?;
                }
                files.insert(record.to_string(), bytes);
            }
        }
    }
    Ok(files)
}

fn records_only(args: &Args, out: Out) -> Result<(), Failure> {
    let target = args.target.display().to_string();
    let files = read_records(&args.target.join(crate::data::DATA_DIR)).map_err(BuildError::from)?;
    let spinner = out.spinner("verifying the records");
    let result =
        receipts_verifier::verify::verify_files(&files, &receipts_verifier::verify::Scope::All);
    spinner.finish_and_clear();
    if args.json {
        let text = serde_json::to_string(&result).context("serializing the result")?;
        out.result(format!("{text}\n"))?;
    } else {
        let t = result.tally;
        out.status(format_args!(
            "{target}: records: {} ({}), {} pass, {} fail, {} could not be checked",
            count(t.total(), "receipt", None),
            Kinds::of(&result.receipts).describe(),
            t.pass,
            t.fail,
            t.could_not_check
        ))?;
    }
    outcome(result.tally, args.allow_unchecked)
}

/// The exit the tally calls for: 0 only when something was recomputed and
/// nothing failed (and, without `--allow-unchecked`, everything was checked).
pub(super) fn outcome(tally: Tally, allow_unchecked: bool) -> Result<(), Failure> {
    let verdict = tally.verdict();
    if verdict.is_verified() {
        Ok(())
    } else if verdict.is_failed() {
        Err(Failure {
            message: format!("{} failed", count(tally.fail, "receipt", None)),
            code: 1,
        })
    } else if tally.total() == 0 {
        Err(Failure {
            message: "no receipt was recomputed: nothing was verified".to_string(),
            code: EXIT_UNCHECKED,
        })
    } else if allow_unchecked {
        Ok(())
    } else {
        Err(Failure {
            message: format!(
                "nothing failed, but {} could not be checked or anchored (--allow-unchecked accepts that)",
                count(tally.could_not_check, "receipt", None)
            ),
            code: EXIT_UNCHECKED,
        })
    }
}

/// What was verified: its root and records digests, when known, and every receipt.
type Found = (Option<String>, Option<String>, Vec<Receipt>);

/// A report's receipts: its own consistency, then its anchor.
fn report_receipts(args: &Args, pin: Option<&str>) -> Result<Found, Failure> {
    let target = args.target.display().to_string();
    let bytes = std::fs::read(&args.target)
        .map_err(|e| BuildError::from(InputError::new(&target, e.to_string())))?;
    let report: Report = crate::parse::json(&target, &bytes).map_err(BuildError::from)?;
    let site_sums = match &args.site {
        Some(site) => {
            let path = site.join(receipts_verifier::manifest::SUMS);
            Some(
                crate::audit::read_site_file(site, receipts_verifier::manifest::SUMS).map_err(
                    |e| {
                        BuildError::from(InputError::new(
                            path.display().to_string(),
                            format!("cannot read it ({e}): --site must be a site receipts built"),
                        ))
                    },
                )?,
            )
        }
        None => None,
    };
    let mut receipts = verify_report(&report);
    receipts.extend(anchor_report(&report, pin, site_sums.as_deref()));
    let root = report.site.as_ref().map(|s| s.root_digest.clone());
    Ok((root, Some(report.records_digest.clone()), receipts))
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    if args.records_only {
        if args.expect_root.is_some() || args.site.is_some() {
            return Err(Failure {
                message:
                    "--records-only reads no manifest: --expect-root and --site do not go with it"
                        .to_string(),
                code: crate::error::EXIT_INPUT as u8,
            });
        }
        return records_only(&args, out);
    }
    let pin = match &args.expect_root {
        Some(text) => Some(parse_pin(text).map_err(|e| Failure {
            message: format!("--expect-root: {e}"),
            code: crate::error::EXIT_INPUT as u8,
        })?),
        None => None,
    };
    let target = args.target.display().to_string();
    let (root_digest, records_digest, receipts, counted) = if args.target.is_dir() {
        if args.site.is_some() {
            return Err(Failure {
                message: "--site goes with a report, not a site".to_string(),
                code: crate::error::EXIT_INPUT as u8,
            });
        }
        let root = crate::shards::is_root(&args.target);
        if args.shards.is_some() && !root {
            return Err(Failure {
                message: "--shards goes with a root site (one with SHARDS), not a site".to_string(),
                code: crate::error::EXIT_INPUT as u8,
            });
        }
        let spinner = out.spinner(if root {
            "verifying the root and its shards"
        } else {
            "verifying the site"
        });
        let found = if root {
            let beside = args
                .target
                .canonicalize()
                .ok()
                .and_then(|t| t.parent().map(Path::to_path_buf))
                .unwrap_or_else(|| PathBuf::from(".."));
            let shards = args.shards.clone().unwrap_or(beside);
            // The text names only receipts that did not pass; `--json` lists every one.
            crate::shards::audit_root(&args.target, pin.as_deref(), &shards, args.json)
        } else {
            audit(&args.target, pin.as_deref())
        };
        spinner.finish_and_clear();
        let found = found.map_err(BuildError::from)?;
        (
            Some(found.root_digest),
            found.records_digest,
            found.receipts,
            Some((found.tally, found.kinds)),
        )
    } else {
        let (root, records, receipts) = report_receipts(&args, pin.as_deref())?;
        (root, records, receipts, None)
    };
    let (tally, kinds) = counted.unwrap_or_else(|| (Tally::of(&receipts), Kinds::of(&receipts)));
    let status = tally.verdict().word();
    if args.json {
        let outcome = Outcome {
            target: target.clone(),
            status,
            root_digest: root_digest.as_deref(),
            records_digest: records_digest.as_deref(),
            tally,
            kinds,
            receipts: &receipts,
        };
        let text = serde_json::to_string_pretty(&outcome).context("serializing the result")?;
        out.result(format!("{text}\n"))?;
    } else {
        let mut text = String::new();
        // A change to the records changes many pages; the first few say enough.
        let mut pages = 0;
        for r in receipts.iter().filter(|r| r.status == Status::Fail) {
            if r.claim == crate::audit::RENDERED {
                pages += 1;
                if pages > PAGES_SHOWN {
                    continue;
                }
            }
            text.push_str(&format!(
                "FAIL {}: {}: recorded {}; recomputed {}\n",
                printable(&r.subject),
                printable(&r.claim),
                printable(&r.recorded),
                printable(&r.recomputed)
            ));
        }
        if pages > PAGES_SHOWN {
            text.push_str(&format!(
                "FAIL and {} more pages that are not what the records render (--json lists every one)\n",
                pages - PAGES_SHOWN
            ));
        }
        for r in receipts
            .iter()
            .filter(|r| r.status == Status::CouldNotCheck)
        {
            text.push_str(&format!(
                "COULD NOT CHECK {}: {}: {}\n",
                printable(&r.subject),
                printable(&r.claim),
                printable(&r.recomputed)
            ));
        }
        let said = match status {
            "verified" => "verified",
            "failed" => "failed",
            "nothing" => "nothing to verify",
            _ => "nothing failed, not everything checked",
        };
        text.push_str(&format!(
            "{target}: {said}: {} ({}), {} pass, {} fail, {} could not be checked\n",
            count(tally.total(), "receipt", None),
            kinds.describe(),
            tally.pass,
            tally.fail,
            tally.could_not_check
        ));
        if let Some(d) = &root_digest {
            text.push_str(&format!("root digest {d}\n"));
        }
        if !out.quiet {
            out.result(text)?;
        }
    }
    outcome(tally, args.allow_unchecked)
}
