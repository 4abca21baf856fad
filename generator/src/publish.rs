//! The records published under a site's `data/`: the input records byte
//! for byte (run records gzipped with `--compress-records`), and their
//! manifests: `data/SHA256SUMS`, whose digest is the records digest, and
//! for an experiment of many runs the chunk manifests it lists.

use rayon::prelude::*;

use crate::error::{BuildError, Doing};
use crate::write::Result;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::manifest::chunks::{is_chunk, RecordsManifests};
use receipts_verifier::manifest::SUMS;

use crate::data::DATA_DIR;
use crate::gzip;
use crate::load::{self, Corpus};
use crate::site;
use crate::write::Staging;

/// Publishes run record `rel`, whose `bytes` its pass read and checked.
pub fn write_record(
    corpus: &Corpus,
    staging: &Staging,
    rel: &str,
    bytes: &[u8],
    gzipped: bool,
) -> Result<()> {
    let file = layout::published(rel, gzipped);
    if gzipped {
        return staging.write(&file, &gzip::compress(bytes));
    }
    let digest = corpus.record_digests.get(rel).cloned().unwrap_or_default();
    if staging.is_own(&file, &corpus.sources.file(rel)) {
        staging.own(&file, digest);
        return Ok(());
    }
    staging.write_with_digest(&file, bytes, digest)
}

/// Publishes the records under `data/`, mirroring `experiments/` byte for
/// byte (harness and regression suites included), with their manifest `data/SHA256SUMS`; returns the records digest.
/// The run records are written as each run is verified, and the manifest is
/// made from the digests loading took, so the pages can carry the records
/// digest before the runs are read again; [`check_published`] then
/// holds the published files to it.
pub fn publish(corpus: &Corpus, staging: &Staging) -> Result<String> {
    let mut files: Vec<String> = Vec::new();
    files.extend(corpus.tasks.keys().map(|id| layout::task_path(id)));
    for e in &corpus.experiments {
        let dir = &e.dir;
        files.extend(
            site::experiment_records(e)
                .into_iter()
                .map(|name| format!("{dir}/{name}")),
        );
    }
    if corpus.study.is_some() {
        files.push(receipts_verifier::model::STUDY_FILE.to_string());
    }
    for i in &corpus.imports {
        files.extend(i.record_paths());
    }
    for s in &corpus.harness {
        files.push(s.suite_path());
        files.extend(s.runs.iter().map(|r| s.run_path(&r.id)));
    }
    for s in &corpus.regressions {
        files.push(s.suite_path());
        files.extend(s.edits.iter().map(|e| s.edit_path(&e.id)));
        files.extend(s.extra_paths());
    }
    // The showcase and the documents, so that every page can be made again from data/.
    files.extend(
        corpus
            .record_digests
            .keys()
            .filter(|rel| {
                [load::SHOWCASE_DIR, load::DOCS_DIR]
                    .iter()
                    .any(|dir| rel.strip_prefix(dir).is_some_and(|r| r.starts_with('/')))
            })
            .cloned(),
    );
    // Records the build made rather than read: git anchors.
    let made: std::collections::BTreeMap<String, &[u8]> = corpus
        .experiments
        .iter()
        .filter_map(|e| {
            let bytes = e.anchors.git_found.as_deref()?;
            Some((
                format!("{}/{}", e.dir, receipts_verifier::model::GIT_ANCHOR_FILE),
                bytes,
            ))
        })
        .collect();
    files.par_iter().try_for_each(|rel| -> Result<()> {
        let path = corpus.sources.file(rel);
        let published = format!("{DATA_DIR}/{rel}");
        if let Some(bytes) = made.get(rel) {
            let digest = corpus.record_digests.get(rel).cloned().unwrap_or_default();
            return staging.write_with_digest(&published, bytes, digest);
        }
        if staging.is_own(&published, &path) {
            let digest = corpus.record_digests.get(rel).cloned().unwrap_or_default();
            staging.own(&published, digest);
            return Ok(());
        }
        let bytes = std::fs::read(&path).doing(|| format!("reading {}", path.display()))?;
        let digest = sha256_hex(&bytes);
        if corpus.record_digests.get(rel) != Some(&digest) {
            return Err(BuildError::Changed(path));
        }
        staging.write_with_digest(&published, &bytes, digest)
    })?;
    // Listed by the SHA-256 of their bytes, which in a forged site need not
    // be the one they are named by (verifying it finds that out).
    corpus.objects.par_iter().try_for_each(|(digest, bytes)| {
        let rel = layout::object_path(digest);
        let read = corpus.record_digests.get(&rel).cloned();
        let path = format!("{DATA_DIR}/{rel}");
        if let Some(read) = &read {
            if staging.is_own(&path, &corpus.sources.file(&rel)) {
                staging.own(&path, read.clone());
                return Ok(());
            }
        }
        match read {
            Some(read) => staging.write_with_digest(&path, bytes, read),
            None => staging.write(&path, bytes),
        }
    })?;
    let manifests = RecordsManifests::of(&corpus.record_digests);
    for (chunk, text) in &manifests.chunks {
        staging.write(&format!("{DATA_DIR}/{chunk}"), text.as_bytes())?;
    }
    staging.write(&format!("{DATA_DIR}/{SUMS}"), manifests.top.as_bytes())?;
    Ok(manifests.digest())
}

/// The records published under `data/` are exactly those the records
/// manifests list, with those digests (the manifests are made from them). A gzipped record counts as its record, whose
/// digest its pass checked before compressing it.
pub fn check_published(corpus: &Corpus, staging: &Staging) -> Result<()> {
    let data_prefix = format!("{DATA_DIR}/");
    let sums_path = format!("{DATA_DIR}/{SUMS}");
    let published: std::collections::BTreeMap<String, String> = staging
        .digests()
        .into_iter()
        .filter(|(path, _)| *path != sums_path)
        .filter_map(|(path, d)| {
            let rel = path.strip_prefix(&data_prefix)?;
            if is_chunk(rel) {
                return None;
            }
            Some(match layout::record_in(rel) {
                (record, true) => {
                    let digest = corpus.record_digests.get(record).cloned();
                    (record.to_string(), digest.unwrap_or_default())
                }
                (_, false) => (rel.to_string(), d),
            })
        })
        .collect();
    if published != corpus.record_digests {
        return Err(BuildError::Republished);
    }
    Ok(())
}
