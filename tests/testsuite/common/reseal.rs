//! Resealing a built site the way a forger would, after an edit.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::chunks::{is_chunk, RecordsManifests};
use receipts_verifier::manifest::{format_sums, parse_sums};

pub fn root_digest(site: &Path) -> String {
    sha256_hex(&fs::read(site.join("SHA256SUMS")).expect("SHA256SUMS"))
}

/// Every file under `site` whose path ends with `suffix`.
pub fn files_ending(site: &Path, suffix: &str) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().to_string_lossy().ends_with(suffix))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

pub fn replace_in(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "{} has no `{from}`", path.display());
    fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// Reseals every digest a forger can: the records manifests (chunks and
/// `data/SHA256SUMS`) from the records as they now are, `SHA256SUMS` from it and the assets, the root digest every
/// page shows, and the statement. Returns the new root digest.
pub fn reseal(site: &Path) -> String {
    let data = site.join("data");
    let mut records = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&data).sort_by_file_name() {
        let entry = entry.expect("walk");
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&data)
            .expect("prefix")
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "SHA256SUMS" || is_chunk(&rel) {
            continue;
        }
        let mut bytes = fs::read(entry.path()).expect("read");
        let rel = match rel.strip_suffix(".gz") {
            Some(record) => {
                bytes = receipts::gzip::decompress(&bytes, 1 << 26).expect("gzip");
                record.to_string()
            }
            None => rel,
        };
        records.insert(rel, sha256_hex(&bytes));
    }
    for old in files_ending(&data, "")
        .into_iter()
        .filter(|p| is_chunk(&p.strip_prefix(&data).unwrap().to_string_lossy()))
    {
        fs::remove_file(old).expect("remove chunk");
    }
    let manifests = RecordsManifests::of(&records);
    for (chunk, text) in &manifests.chunks {
        fs::write(data.join(chunk), text).expect("write");
    }
    fs::write(data.join("SHA256SUMS"), &manifests.top).expect("write");
    let old_root = root_digest(site);
    let listed =
        parse_sums(&fs::read_to_string(site.join("SHA256SUMS")).expect("sums")).expect("parse");
    let resealed: BTreeMap<String, String> = listed
        .keys()
        .map(|p| {
            let bytes = fs::read(site.join(p)).expect("listed file");
            (p.clone(), sha256_hex(&bytes))
        })
        .collect();
    fs::write(site.join("SHA256SUMS"), format_sums(&resealed)).expect("write");
    let new_root = root_digest(site);
    for page in files_ending(site, ".html") {
        let text = fs::read_to_string(&page).expect("page");
        fs::write(&page, text.replace(&old_root, &new_root)).expect("write");
    }
    let statement_path = site.join("statement.intoto.json");
    let mut statement: serde_json::Value =
        serde_json::from_slice(&fs::read(&statement_path).expect("statement")).expect("json");
    statement["predicate"]["root_digest"] = new_root.clone().into();
    statement["predicate"]["records_digest"] =
        sha256_hex(&fs::read(data.join("SHA256SUMS")).expect("sums")).into();
    let subjects: Vec<serde_json::Value> = walkdir::WalkDir::new(site)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path() != statement_path)
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(site)
                .expect("prefix")
                .to_string_lossy()
                .replace('\\', "/");
            let digest = sha256_hex(&fs::read(e.path()).expect("read"));
            serde_json::json!({ "name": rel, "digest": { "sha256": digest } })
        })
        .collect();
    statement["subject"] = subjects.into();
    fs::write(
        &statement_path,
        serde_json::to_vec_pretty(&statement).expect("json"),
    )
    .expect("write");
    new_root
}
