//! `receipts verify` on a built site: every file against `SHA256SUMS`, the
//! records against `data/SHA256SUMS`, the in-toto statement against both,
//! then every receipt recomputed from the published records.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use rayon::prelude::*;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{
    parse_sums, SitePredicate, Statement, PREDICATE_TYPE, STATEMENT, STATEMENT_TYPE, SUMS,
};
use receipts_verifier::verify::{Receipt, Status, Tally};

use crate::build::BuildError;
use crate::data::DATA_DIR;
use crate::error::{display_path, InputError};
use crate::{gzip, load, validate, verification};

/// What verifying a site found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SiteAudit {
    /// SHA-256 of the site's `SHA256SUMS`.
    pub root_digest: String,
    /// SHA-256 of `data/SHA256SUMS`, when present.
    pub records_digest: Option<String>,
    pub tally: Tally,
    /// Every receipt; subjects are paths relative to the site.
    pub receipts: Vec<Receipt>,
}

/// Every file under `dir` (relative, `/`-separated), symbolic links included as files.
fn files(dir: &Path) -> Result<Vec<String>, InputError> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| InputError::new(dir.display().to_string(), e.to_string()))?;
        if !entry.file_type().is_dir() {
            out.push(display_path(dir, entry.path()));
        }
    }
    Ok(out)
}

/// Verifies the site in `dir`. Input errors (exit 2) only when the site is
/// unusable: no `SHA256SUMS`, or records that cannot be read although every
/// file matches its digest.
pub fn audit(dir: &Path, expect_root: Option<&str>) -> Result<SiteAudit, InputError> {
    let sums_path = dir.join(SUMS);
    let sums_bytes = fs::read(&sums_path).map_err(|e| {
        InputError::new(
            display_path(dir, &sums_path),
            format!("cannot read it ({e}): not a site receipts built"),
        )
    })?;
    let root_digest = sha256_hex(&sums_bytes);
    let mut receipts = Vec::new();
    if let Some(expected) = expect_root {
        receipts.push(Receipt::new(
            SUMS,
            "root digest",
            expected,
            &root_digest,
            expected == root_digest,
        ));
    }

    // Every file against SHA256SUMS.
    let on_disk = files(dir)?;
    let digests: BTreeMap<String, String> = on_disk
        .par_iter()
        .filter(|p| p.as_str() != SUMS)
        .map(|p| {
            (
                p.clone(),
                fs::read(dir.join(p))
                    .map(|b| sha256_hex(&b))
                    .unwrap_or_default(),
            )
        })
        .collect();
    let listed = match std::str::from_utf8(&sums_bytes)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_sums(t).map_err(|e| e.to_string()))
    {
        Ok(listed) => listed,
        Err(e) => {
            receipts.push(Receipt::new(
                SUMS,
                "manifest",
                "a SHA256SUMS file",
                e,
                false,
            ));
            BTreeMap::new()
        }
    };
    for (path, expected) in &listed {
        match digests.get(path) {
            Some(actual) => receipts.push(Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                actual,
                actual == expected,
            )),
            None => receipts.push(Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                "the file is missing",
                false,
            )),
        }
    }
    for path in digests.keys().filter(|p| !listed.contains_key(*p)) {
        receipts.push(Receipt::new(
            path,
            "listed in SHA256SUMS",
            "not listed",
            "a file of the site",
            false,
        ));
    }

    // The records manifest.
    let data_sums = format!("{DATA_DIR}/{SUMS}");
    let records_digest = fs::read(dir.join(&data_sums)).ok().map(|bytes| {
        let text = String::from_utf8_lossy(&bytes);
        match parse_sums(&text) {
            Ok(records) => {
                for (path, expected) in records {
                    let site_path = format!("{DATA_DIR}/{path}");
                    let actual = record_digest(dir, &digests, &site_path);
                    receipts.push(Receipt::new(
                        &site_path,
                        "SHA-256 in data/SHA256SUMS",
                        &expected,
                        &actual,
                        actual == expected,
                    ));
                }
            }
            Err(e) => receipts.push(Receipt::new(
                &data_sums,
                "manifest",
                "a SHA256SUMS file",
                e.to_string(),
                false,
            )),
        }
        sha256_hex(&bytes)
    });

    // The records, recomputed.
    let failed_so_far = receipts.iter().any(|r| r.status == Status::Fail);
    let records = load::load_records(dir, &dir.join(DATA_DIR))
        .and_then(|corpus| validate::validate_published(&corpus).map(|()| corpus))
        .and_then(|corpus| {
            match verification::verify(&corpus, verification::Keep::All, None, |_| Ok(())) {
                Ok(verified) => Ok(verified),
                Err(BuildError::Input(e)) => Err(e),
                Err(BuildError::Other(e)) => Err(InputError::new(DATA_DIR, format!("{e:#}"))),
            }
        });
    let mut tally_of_records = None;
    match records {
        Ok(verified) => {
            let found: Vec<Receipt> = verified
                .receipts()
                .map(|r| Receipt {
                    subject: format!("{DATA_DIR}/{}", r.subject),
                    ..r.clone()
                })
                .collect();
            tally_of_records = Some(Tally::of(&found));
            receipts.extend(found);
        }
        // A tampered file that no longer parses is a failure like any other.
        Err(e) if failed_so_far => receipts.push(Receipt::new(
            &e.file,
            "record",
            "a valid record",
            e.to_string(),
            false,
        )),
        Err(e) => return Err(e),
    }

    // The statement against what was found.
    statement(
        dir,
        &digests,
        records_digest.as_deref(),
        tally_of_records,
        &mut receipts,
    );

    Ok(SiteAudit {
        root_digest,
        records_digest,
        tally: Tally::of(&receipts),
        receipts,
    })
}

fn statement(
    dir: &Path,
    digests: &BTreeMap<String, String>,
    records_digest: Option<&str>,
    tally: Option<Tally>,
    receipts: &mut Vec<Receipt>,
) {
    let parsed: Result<Statement<SitePredicate>, String> = fs::read(dir.join(STATEMENT))
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()));
    let s = match parsed {
        Ok(s) => s,
        Err(e) => {
            receipts.push(Receipt::new(
                STATEMENT,
                "in-toto statement",
                "a statement",
                e,
                false,
            ));
            return;
        }
    };
    let type_ok = s.type_ == STATEMENT_TYPE && s.predicate_type == PREDICATE_TYPE;
    receipts.push(Receipt::new(
        STATEMENT,
        "_type and predicateType",
        format!("{} / {}", s.type_, s.predicate_type),
        format!("{STATEMENT_TYPE} / {PREDICATE_TYPE}"),
        type_ok,
    ));
    let named: BTreeSet<&str> = s.subject.iter().map(|x| x.name.as_str()).collect();
    let expected: BTreeSet<&str> = digests
        .keys()
        .map(String::as_str)
        .filter(|p| *p != STATEMENT)
        .collect();
    let wrong: Vec<&str> = s
        .subject
        .iter()
        .filter(|x| digests.get(&x.name) != x.digest.get("sha256"))
        .map(|x| x.name.as_str())
        .chain(expected.difference(&named).copied())
        .collect();
    receipts.push(Receipt::new(
        STATEMENT,
        "subjects",
        format!("{} files", s.subject.len()),
        if wrong.is_empty() {
            format!("{} files, every digest agrees", expected.len())
        } else {
            format!("differs for {}", wrong.join(", "))
        },
        wrong.is_empty(),
    ));
    if let Some(records) = records_digest {
        receipts.push(Receipt::new(
            STATEMENT,
            "predicate.records_digest",
            &s.predicate.records_digest,
            records,
            s.predicate.records_digest == records,
        ));
    }
    if let Some(t) = tally {
        let show = |t: &Tally| {
            format!(
                "{} pass, {} fail, {} could not check",
                t.pass, t.fail, t.could_not_check
            )
        };
        receipts.push(Receipt::new(
            STATEMENT,
            "predicate.verification",
            show(&s.predicate.verification),
            show(&t),
            s.predicate.verification == t,
        ));
    }
}

/// The SHA-256 of the record published at `site_path`, or of the record a
/// gzipped `<site_path>.gz` holds; what went wrong otherwise.
fn record_digest(dir: &Path, digests: &BTreeMap<String, String>, site_path: &str) -> String {
    if let Some(digest) = digests.get(site_path) {
        return digest.clone();
    }
    let gz = format!("{site_path}{}", gzip::SUFFIX);
    if !digests.contains_key(&gz) {
        return "the file is missing".to_string();
    }
    fs::read(dir.join(&gz))
        .map_err(|e| e.to_string())
        .and_then(|bytes| gzip::decompress(&bytes, load::MAX_FILE_BYTES))
        .map_or_else(|e| format!("{gz}: {e}"), |bytes| sha256_hex(&bytes))
}
