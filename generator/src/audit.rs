//! `receipts verify` on a built site: the records and assets against
//! `SHA256SUMS` and `data/SHA256SUMS` (the checks of the verification
//! core's [`ManifestCheck`]), then the whole site rendered again from its own
//! `data/` and compared file by file, byte for byte, which recomputes every
//! receipt and binds every page, the statement and the assets to the records
//! and to the copies this binary ships.

use std::fs;
use std::path::Path;

use rayon::prelude::*;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::manifest::chunks::is_chunk;
use receipts_verifier::manifest::{
    is_listed, Fed, ManifestCheck, SitePredicate, Statement, ASSETS_DIR, DATA_DIR, RECORDS_SUMS,
    STATEMENT, SUMS,
};
use receipts_verifier::verify::{Kinds, Receipt, Status, Tally};

use crate::build;
use crate::error::{display_path, BuildError, InputError};
use crate::{gzip, load};

/// What verifying a site found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SiteAudit {
    /// SHA-256 of the site's `SHA256SUMS`.
    pub root_digest: String,
    /// SHA-256 of `data/SHA256SUMS`, when present.
    pub records_digest: Option<String>,
    /// Every receipt counted by status, and by kind.
    pub tally: Tally,
    pub kinds: Kinds,
    /// Every receipt (or, from [`crate::shards::audit_root`] asked to keep
    /// only those, every receipt that did not pass); subjects are paths
    /// relative to the site.
    pub receipts: Vec<Receipt>,
    /// The prints of every run's calls, by record path under `data/`, for
    /// the root that lists the site as a shard (none when its records
    /// could not be rendered).
    #[serde(skip)]
    pub prints: receipts_verifier::verify::calls::SitePrints,
}

/// Reads file `rel` (`/`-separated) of the site in `site`: a regular file
/// of at most the input size limit, reached through no symbolic link. A
/// forged site may hold a link to a device or a file outside it (or a
/// directory linked elsewhere), or a huge file; none is followed or read.
pub fn read_site_file(site: &Path, rel: &str) -> Result<Vec<u8>, String> {
    if let Some(link) = crate::write::linked_dir(site, rel) {
        return Err(link);
    }
    let path = site.join(rel);
    let path = path.as_path();
    let meta = fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if meta.file_type().is_symlink() {
        return Err("a symbolic link, which is not followed".to_string());
    }
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    if meta.len() > load::MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes, over the limit of {}",
            meta.len(),
            load::MAX_FILE_BYTES
        ));
    }
    fs::read(path).map_err(|e| e.to_string())
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

/// Verifies the site in `dir`: the manifests, every page and file rendered
/// again from the records and compared byte for byte, every receipt
/// recomputed. `expect_root` is a pin already parsed. Input errors (exit 2)
/// only when the site is unusable: no `SHA256SUMS`, or records that cannot
/// be read although every file matches its digest.
pub fn audit(dir: &Path, expect_root: Option<&str>) -> Result<SiteAudit, InputError> {
    let sums_path = dir.join(SUMS);
    let sums_bytes = read_site_file(dir, SUMS).map_err(|e| {
        InputError::new(
            display_path(dir, &sums_path),
            format!("cannot read it ({e}): not a site receipts built"),
        )
    })?;
    let mut check = ManifestCheck::new(&sums_bytes, expect_root);
    let root_digest = check.root_digest().to_string();

    // The records, read once: their digests for the manifest checks, their
    // contents for rendering the site again.
    let loaded = load::load_site(std::sync::Arc::new(load::Disk), dir);
    let read_digests = loaded.as_ref().ok().map(|c| &c.record_digests);

    // The files the manifests list: the records and the code.
    let on_disk = files(dir)?;
    let data_prefix = format!("{DATA_DIR}/");
    let listed: Vec<(String, Result<Vec<u8>, String>)> = on_disk
        .par_iter()
        .filter(|p| is_listed(p) || check.lists(p))
        .map(|p| (p.clone(), read_site_file(dir, p)))
        .collect();
    // A record loading read is not read again; any other file under data/
    // (one loading does not read, or all of them when loading failed) is.
    let records: Vec<(&String, Result<String, String>)> = on_disk
        .par_iter()
        .filter(|p| p.starts_with(&data_prefix) && p.as_str() != RECORDS_SUMS)
        .filter(|p| !is_chunk(&p[data_prefix.len()..]))
        .map(|p| {
            let (rel, gzipped) = layout::record_in(&p[data_prefix.len()..]);
            if let Some(digest) = read_digests.and_then(|d| d.get(rel)) {
                return (p, Ok(digest.clone()));
            }
            let digest = read_site_file(dir, p).and_then(|b| {
                if gzipped {
                    gzip::decompress(&b, load::MAX_FILE_BYTES)
                        .map(|r| sha256_hex(&r))
                        .map_err(|e| format!("{p}: {e}"))
                } else {
                    Ok(sha256_hex(&b))
                }
            });
            (p, digest)
        })
        .collect();
    // The records manifest and the code, then the chunk manifests, then
    // the records they list.
    for (path, bytes) in &listed {
        check.feed(path, Fed::read(bytes.as_deref().map_err(String::as_str)));
    }
    for p in on_disk
        .iter()
        .filter(|p| p.strip_prefix(&data_prefix).is_some_and(is_chunk))
    {
        let bytes = read_site_file(dir, p);
        check.feed(p, Fed::read(bytes.as_deref().map_err(String::as_str)));
    }
    for (path, digest) in &records {
        check.feed(path, Fed::hashed(digest.as_deref().map_err(String::as_str)));
    }
    drop(listed);
    let manifests = check.finish(true);
    let records_digest = manifests.records_digest.clone();
    let mut receipts = manifests.receipts;
    let failed_so_far = receipts.iter().any(|r| r.status == Status::Fail);

    // Every page and file, rendered again from the records; every receipt recomputed.
    let ours = env!("CARGO_PKG_VERSION");
    let built_by = read_site_file(dir, STATEMENT)
        .ok()
        .and_then(|b| serde_json::from_slice::<Statement<SitePredicate>>(&b).ok())
        .map(|s| s.predicate.builder.version);
    // A statement is not covered by the root digest: a site whose listed
    // code is exactly this version's is rendered whatever its statement says.
    let code_is_ours = listed_code(&sums_bytes) == our_code();
    // Another version renders its own way, so what differs could not be
    // checked rather than failed; the pages are compared all the same, and
    // each difference is shown.
    let other = built_by
        .as_deref()
        .filter(|theirs| *theirs != ours && !code_is_ours);
    let found = match loaded.map(|corpus| build::rebuild(dir, corpus, &root_digest)) {
        Err(e) => Err(e),
        Ok(rebuilt) => match rebuilt {
            Ok(rebuilt) => {
                for d in &rebuilt.differences {
                    let claim = rendered_claim(&d.path);
                    receipts.push(match other {
                            Some(theirs) => Receipt::unchecked(
                                &d.path,
                                claim,
                                &d.found,
                                format!("served {}; rendered here {}; the statement names receipts {theirs}, which renders its own way: verify with receipts {theirs}", d.found, d.expected),
                            ),
                            None => Receipt::new(&d.path, claim, &d.found, &d.expected, false),
                        });
                }
                // As the browser's page check sums it up when nothing differs.
                if rebuilt.differences.is_empty() {
                    receipts.push(Receipt::new(
                        PAGES,
                        RENDERED,
                        "every page the site serves",
                        format!(
                            "{} pages rendered from the records, each byte for byte the same",
                            rebuilt.report.pages
                        ),
                        true,
                    ));
                }
                Ok((rebuilt.receipts, rebuilt.report.prints))
            }
            Err(BuildError::Input(e)) => Err(e),
            Err(e) => Err(InputError::new(DATA_DIR, crate::error::report(&e))),
        },
    };
    let mut prints = receipts_verifier::verify::calls::SitePrints::default();
    match found {
        Ok((found, kept)) => {
            receipts.extend(found.into_iter().map(|r| Receipt {
                subject: format!("{DATA_DIR}/{}", r.subject),
                ..r
            }));
            prints = kept;
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

    Ok(SiteAudit {
        root_digest,
        records_digest,
        tally: Tally::of(&receipts),
        kinds: Kinds::of(&receipts),
        receipts,
        prints,
    })
}

/// The code `SHA256SUMS` lists (the assets and the verifier's copy), path → digest.
fn listed_code(sums: &[u8]) -> Option<std::collections::BTreeMap<String, String>> {
    let listed = receipts_verifier::manifest::parse_sums(std::str::from_utf8(sums).ok()?).ok()?;
    Some(
        listed
            .into_iter()
            .filter(|(p, _)| is_listed(p) && p != RECORDS_SUMS && p != ".nojekyll")
            .collect(),
    )
}

/// The code this version puts in a site, path → digest.
fn our_code() -> Option<std::collections::BTreeMap<String, String>> {
    let (code, _) = build::code(&crate::render::Theme::embedded()).ok()?;
    Some(
        code.iter()
            .map(|(p, b)| (p.clone(), sha256_hex(b)))
            .collect(),
    )
}

/// What a file that differs from its rendering claims to be.
fn rendered_claim(path: &str) -> String {
    if path.starts_with(&format!("{ASSETS_DIR}/")) {
        format!("the copy receipts {} ships", env!("CARGO_PKG_VERSION"))
    } else if path.starts_with(&format!("{DATA_DIR}/")) || path == SUMS {
        receipts_verifier::verify::PUBLISHED.to_string()
    } else {
        RENDERED.to_string()
    }
}

/// The claim of a page (or another file rendered from the records) that is,
/// or is not, what the records render to.
pub use crate::browser::{PAGES, RENDERED};
