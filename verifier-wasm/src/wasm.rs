//! The browser's entry points (wasm-bindgen). Values cross as bytes and JSON
//! strings, so the JavaScript side stays small and the results are the same
//! JSON the native code produces.

use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;

#[cfg(feature = "recompute")]
use crate::model::Report;
#[cfg(feature = "recompute")]
use crate::verify::{verify_files, verify_report, BundleResult, Scope, Tally};

/// SHA-256 of `bytes`, lowercase hex.
#[wasm_bindgen]
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::digest::sha256_hex(bytes)
}

/// Receipts counted by what they hold the site to, in words, from their
/// claims: the same account `receipts verify` gives.
#[wasm_bindgen]
pub fn describe_claims(claims: Vec<String>) -> String {
    crate::verify::Kinds::of_claims(claims.iter().map(String::as_str)).describe()
}

/// Parses `SHA256SUMS` text into a JSON object (path → digest); throws on a malformed line.
#[wasm_bindgen]
pub fn parse_sums(text: &str) -> Result<String, JsError> {
    let sums = crate::manifest::parse_sums(text).map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&sums).map_err(|e| JsError::new(&e.to_string()))
}

/// Records handed over one file at a time, then verified.
#[cfg(feature = "recompute")]
#[wasm_bindgen]
#[derive(Default)]
pub struct Bundle {
    files: BTreeMap<String, Vec<u8>>,
    /// The prints of the runs the last `verify` verified, as bytes.
    prints: Vec<u8>,
}

#[cfg(feature = "recompute")]
#[wasm_bindgen]
impl Bundle {
    /// An empty bundle: add the records with `add`, then verify them.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Bundle {
        Bundle::default()
    }

    /// Adds a file, by its path under the records root (`E01/runs/x.json`).
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    /// The report of run `run` of experiment directory `dir`, as `receipts
    /// export` writes it (pretty JSON and a final newline); `sums` and
    /// `records_sums` are the site's two manifests, `run_sums` the chunk
    /// manifest listing the run (see [`record_chunk`]), when there is one.
    pub fn export_report(
        &self,
        dir: &str,
        run: &str,
        sums: &str,
        records_sums: &str,
        run_sums: Option<String>,
    ) -> Result<String, JsError> {
        let report = crate::verify::assemble_report(
            &self.files,
            dir,
            run,
            sums,
            records_sums,
            run_sums.as_deref(),
        )
        .map_err(|e| JsError::new(&e))?;
        let mut text =
            serde_json::to_string_pretty(&report).map_err(|e| JsError::new(&e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Verifies the files within `scope` (JSON, e.g. `{"scope":"all"}`);
    /// returns the result as JSON: `{"tally": …, "receipts": […]}`. The
    /// prints of the runs verified are kept for [`Bundle::prints`].
    pub fn verify(&mut self, scope: &str) -> Result<String, JsError> {
        let scope: Scope = serde_json::from_slice(scope.as_bytes())
            .map_err(|e| JsError::new(&format!("scope: {e}")))?;
        let result = verify_files(&self.files, &scope);
        self.prints = result.prints.to_bytes();
        serde_json::to_string(&result).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The prints of the runs the last `verify` verified (see
    /// [`crate::verify::calls::SitePrints::to_bytes`]), for the root that
    /// lists this site as a shard ([`RootSite::calls`]).
    pub fn prints(&self) -> Vec<u8> {
        self.prints.clone()
    }
}

/// Whether `rel` (a path under `data/`) names a chunk manifest.
#[wasm_bindgen]
pub fn is_chunk(rel: &str) -> bool {
    crate::manifest::chunks::is_chunk(rel)
}

/// The site path that publishes record `rel` (a path under `data/`):
/// `data/<rel>`, or `data/<rel>.gz` for an experiment's run record in a site
/// whose run records are `gzipped` (see [`crate::layout`]).
#[wasm_bindgen]
pub fn published(rel: &str, gzipped: bool) -> String {
    crate::layout::published(rel, gzipped)
}

/// The record (a path under `data/`) that site path `path` publishes, the
/// record inside it when it is a gzipped run record; `undefined` for a path
/// outside `data/`.
#[wasm_bindgen]
pub fn record_of(path: &str) -> Option<String> {
    crate::layout::record_of(path).map(|(rel, _)| rel.to_string())
}

/// Whether site path `path` is a run record published gzipped.
#[wasm_bindgen]
pub fn is_gzipped_record(path: &str) -> bool {
    crate::layout::record_of(path).is_some_and(|(_, gz)| gz)
}

/// The most bytes a gzipped run record may inflate to (see
/// [`crate::layout::MAX_RECORD_BYTES`]).
#[wasm_bindgen]
pub fn max_record_bytes() -> f64 {
    crate::layout::MAX_RECORD_BYTES as f64
}

/// Whether record `rel` (a path under `data/`) is one every scope reads: a
/// task, an object or the study's file.
#[wasm_bindgen]
pub fn is_shared_record(rel: &str) -> bool {
    crate::layout::is_shared(rel)
}

/// The site path of the records' manifest: `data/SHA256SUMS`.
#[wasm_bindgen]
pub fn records_sums() -> String {
    crate::layout::RECORDS_SUMS.to_string()
}

/// The record (a path under `data/`) of run `run` of experiment `dir`.
#[wasm_bindgen]
pub fn run_path(dir: &str, run: &str) -> String {
    crate::layout::run_path(dir, run)
}

/// The chunk manifest (a path under `data/`) that lists record `rel` (a path
/// under `data/`) in a site whose `data/SHA256SUMS` is `records_sums`, or
/// `undefined` when `data/SHA256SUMS` lists it itself.
#[wasm_bindgen]
pub fn record_chunk(records_sums: &str, rel: &str) -> Result<Option<String>, JsError> {
    let top = crate::manifest::parse_sums(records_sums)
        .map_err(|e| JsError::new(&format!("data/SHA256SUMS: {e}")))?;
    Ok(crate::manifest::chunks::chunk_for(&top, rel))
}

/// The lowercase digest a pin gives (`#root=`), or an error naming why it is
/// not a pin.
#[wasm_bindgen]
pub fn parse_pin(text: &str) -> Result<String, JsError> {
    crate::manifest::parse_pin(text).map_err(|e| JsError::new(&e.to_string()))
}

/// Verifies a report file's text (from `receipts export`), anchored by
/// `pin` (a parsed root digest) and by `site_sums` (the `SHA256SUMS` of the
/// site it is checked against) when given; returns the same JSON as
/// `Bundle::verify`.
#[cfg(feature = "recompute")]
#[wasm_bindgen]
pub fn verify_report_text(
    text: &str,
    pin: Option<String>,
    site_sums: Option<Vec<u8>>,
) -> Result<String, JsError> {
    let report: Report = serde_json::from_slice(text.as_bytes())
        .map_err(|e| JsError::new(&format!("not a report: {e}")))?;
    let mut receipts = verify_report(&report);
    receipts.extend(crate::verify::anchor_report(
        &report,
        pin.as_deref(),
        site_sums.as_deref(),
    ));
    let result = BundleResult {
        tally: Tally::of(&receipts),
        receipts,
        prints: crate::verify::calls::SitePrints::default(),
    };
    serde_json::to_string(&result).map_err(|e| JsError::new(&e.to_string()))
}

/// The manifest checks of a site (see [`crate::manifest::ManifestCheck`]),
/// fed the files as the worker fetches them.
#[wasm_bindgen]
pub struct Manifests {
    check: Option<crate::manifest::ManifestCheck>,
}

#[wasm_bindgen]
impl Manifests {
    /// Starts with the bytes of the site's `SHA256SUMS` and the pinned root
    /// digest, if any (already parsed by [`parse_pin`]).
    #[wasm_bindgen(constructor)]
    pub fn new(sums: &[u8], pin: Option<String>) -> Manifests {
        Manifests {
            check: Some(crate::manifest::ManifestCheck::new(sums, pin.as_deref())),
        }
    }

    /// The SHA-256 of `SHA256SUMS`.
    pub fn root_digest(&self) -> String {
        self.check
            .as_ref()
            .map(|c| c.root_digest().to_string())
            .unwrap_or_default()
    }

    /// The run records the records manifest and the chunk manifests fed
    /// so far list (paths under `data/`; see
    /// [`crate::manifest::ManifestCheck::run_records`]): what the site
    /// publishes, for a root that lists it as a shard.
    pub fn run_records(&self) -> Vec<String> {
        self.check
            .as_ref()
            .map(crate::manifest::ManifestCheck::run_records)
            .unwrap_or_default()
    }

    /// A file of the site by its path in the site (`data/SHA256SUMS`, a
    /// chunk manifest, a record, an asset), with its bytes (a gzipped run
    /// record's: the record it holds), or `undefined` and why it could not
    /// be read (`undefined`: it could not be fetched). See
    /// [`crate::manifest::ManifestCheck::feed`] for the order.
    pub fn feed(&mut self, path: &str, bytes: Option<Vec<u8>>, why: Option<String>) {
        if let Some(check) = self.check.as_mut() {
            let fed = match &bytes {
                Some(bytes) => crate::manifest::Fed::Bytes(bytes),
                None => crate::manifest::Fed::Unread(why.as_deref()),
            };
            check.feed(path, fed);
        }
    }

    /// The chunk manifest (a path under `data/`) that should list record
    /// `rel`, once `data/SHA256SUMS` was fed; `undefined` when that lists it.
    pub fn chunk_for(&self, rel: &str) -> Option<String> {
        self.check.as_ref()?.chunk_for(rel)
    }

    /// The site's code against the copies this verifier ships (`paths[i]`
    /// has SHA-256 `digests[i]`), for a site built by `built_by`, this being `ours`.
    pub fn against_shipped(
        &mut self,
        paths: Vec<String>,
        digests: Vec<String>,
        built_by: Option<String>,
        ours: &str,
    ) -> Result<(), JsError> {
        if paths.len() != digests.len() {
            return Err(JsError::new("shipped: as many digests as paths are needed"));
        }
        let shipped: BTreeMap<String, String> = paths.into_iter().zip(digests).collect();
        if let Some(check) = self.check.as_mut() {
            check.against_shipped(&shipped, built_by.as_deref(), ours);
        }
        Ok(())
    }

    /// A digest page `page` shows of `what`, against the one found.
    pub fn shown(&mut self, page: &str, what: &str, shown: &str, actual: &str) {
        if let Some(check) = self.check.as_mut() {
            check.shown(page, what, shown, actual);
        }
    }

    /// The receipts as JSON (`{"root_digest", "records_digest", "receipts"}`);
    /// `whole_site` when every file of the site was fed.
    pub fn finish(&mut self, whole_site: bool) -> Result<String, JsError> {
        let check = self
            .check
            .take()
            .ok_or_else(|| JsError::new("the manifest checks are finished already"))?;
        serde_json::to_string(&check.finish(whole_site)).map_err(|e| JsError::new(&e.to_string()))
    }
}

/// The checks of a root site and its shards (see
/// [`crate::manifest::shards::RootCheck`]), fed as the worker reads them.
/// Only a root's Verify uses them, and it recomputes its shards' records,
/// so they are in the recomputing verifier and not in the core.
#[cfg(feature = "recompute")]
#[wasm_bindgen]
pub struct RootSite {
    check: Option<crate::manifest::shards::RootCheck>,
}

#[cfg(feature = "recompute")]
#[wasm_bindgen]
impl RootSite {
    /// Starts with the bytes of the root's `SHA256SUMS` and the pinned root
    /// digest, if any (already parsed by [`parse_pin`]).
    #[wasm_bindgen(constructor)]
    pub fn new(sums: &[u8], pin: Option<String>) -> RootSite {
        RootSite {
            check: Some(crate::manifest::shards::RootCheck::new(
                sums,
                pin.as_deref(),
            )),
        }
    }

    /// The SHA-256 of the root's `SHA256SUMS`.
    pub fn root_digest(&self) -> String {
        self.check
            .as_ref()
            .map(|c| c.root_digest().to_string())
            .unwrap_or_default()
    }

    /// The files the root's manifest lists.
    pub fn listed(&self) -> Vec<String> {
        self.check
            .as_ref()
            .map(crate::manifest::shards::RootCheck::listed)
            .unwrap_or_default()
    }

    /// A file of the root with its bytes, or `undefined` when it could not be fetched.
    pub fn file(&mut self, path: &str, bytes: Option<Vec<u8>>) {
        if let Some(check) = self.check.as_mut() {
            check.file(
                path,
                bytes.as_deref().ok_or("the file could not be fetched"),
            );
        }
    }

    /// The names of the shards `SHARDS` lists, once it was fed.
    pub fn shard_names(&self) -> Vec<String> {
        self.check
            .as_ref()
            .map(|c| c.shards().into_iter().map(|s| s.name).collect())
            .unwrap_or_default()
    }

    /// Shard `name`: the SHA-256 of its `SHA256SUMS`, or `undefined` and
    /// why it could not be read, and the run records its manifests list.
    pub fn shard(
        &mut self,
        name: &str,
        digest: Option<String>,
        why: Option<String>,
        run_records: Vec<String>,
    ) {
        if let Some(check) = self.check.as_mut() {
            let why = why.unwrap_or_else(|| "the shard could not be fetched".to_string());
            check.shard(name, digest.as_deref().ok_or(why.as_str()), &run_records);
        }
    }

    /// The prints of shard `name`'s runs, as its `Bundle::prints` gave
    /// them, or `undefined` when its records could not be verified: each
    /// joins the root's one call index.
    pub fn calls(&mut self, name: &str, prints: Option<Vec<u8>>) {
        if let Some(check) = self.check.as_mut() {
            let read = prints
                .ok_or_else(|| "the shard's records were not verified".to_string())
                .and_then(|bytes| crate::verify::calls::SitePrints::from_bytes(&bytes));
            check.calls(name, read.as_ref().map_err(String::as_str));
        }
    }

    /// The shards page `page` shows: `names[i]` with root digest
    /// `digests[i]` and `runs[i]` runs, as written there.
    pub fn shown(
        &mut self,
        page: &str,
        names: Vec<String>,
        digests: Vec<String>,
        runs: Vec<String>,
    ) -> Result<(), JsError> {
        if names.len() != digests.len() || names.len() != runs.len() {
            return Err(JsError::new(
                "shown: as many digests and runs as names are needed",
            ));
        }
        let rows: Vec<(String, String, String)> = names
            .into_iter()
            .zip(digests)
            .zip(runs)
            .map(|((n, d), r)| (n, d, r))
            .collect();
        if let Some(check) = self.check.as_mut() {
            check.shown(page, &rows);
        }
        Ok(())
    }

    /// The root digest page `page` shows, against the root's.
    pub fn shown_root(&mut self, page: &str, shown: &str) {
        if let Some(check) = self.check.as_mut() {
            check.shown_root(page, shown);
        }
    }

    /// The receipts and the shards' facts as JSON (`{"root_digest", "shards", "receipts"}`).
    pub fn finish(&mut self) -> Result<String, JsError> {
        let check = self
            .check
            .take()
            .ok_or_else(|| JsError::new("the root's checks are finished already"))?;
        serde_json::to_string(&check.finish()).map_err(|e| JsError::new(&e.to_string()))
    }
}
