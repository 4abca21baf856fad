//! The browser's entry points (wasm-bindgen). Values cross as bytes and JSON
//! strings, so the JavaScript side stays small and the results are the same
//! JSON the native code produces.

use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;

use crate::model::Report;
use crate::verify::{verify_files, verify_report, BundleResult, Scope, Tally};

/// SHA-256 of `bytes`, lowercase hex.
#[wasm_bindgen]
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::digest::sha256_hex(bytes)
}

/// Parses `SHA256SUMS` text into a JSON object (path → digest); throws on a malformed line.
#[wasm_bindgen]
pub fn parse_sums(text: &str) -> Result<String, JsError> {
    let sums = crate::manifest::parse_sums(text).map_err(|e| JsError::new(&e.to_string()))?;
    serde_json::to_string(&sums).map_err(|e| JsError::new(&e.to_string()))
}

/// Records handed over one file at a time, then verified.
#[wasm_bindgen]
#[derive(Default)]
pub struct Bundle {
    files: BTreeMap<String, Vec<u8>>,
}

#[wasm_bindgen]
impl Bundle {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Bundle {
        Bundle::default()
    }

    /// Adds a file, by its path under the records root (`E01/runs/x.json`).
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }

    /// The report of run `run` of experiment directory `dir`, as `receipts
    /// export` writes it (pretty JSON and a final newline).
    pub fn export_report(
        &self,
        dir: &str,
        run: &str,
        records_digest: &str,
    ) -> Result<String, JsError> {
        let report = crate::verify::assemble_report(&self.files, dir, run, records_digest)
            .map_err(|e| JsError::new(&e))?;
        let mut text =
            serde_json::to_string_pretty(&report).map_err(|e| JsError::new(&e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Verifies the files within `scope` (JSON, e.g. `{"scope":"all"}`);
    /// returns the result as JSON: `{"tally": …, "receipts": […]}`.
    pub fn verify(&self, scope: &str) -> Result<String, JsError> {
        let scope: Scope = serde_json::from_slice(scope.as_bytes())
            .map_err(|e| JsError::new(&format!("scope: {e}")))?;
        serde_json::to_string(&verify_files(&self.files, &scope))
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// Verifies a report file's text (from `receipts export`); returns the same JSON as `Bundle::verify`.
#[wasm_bindgen]
pub fn verify_report_text(text: &str) -> Result<String, JsError> {
    let report: Report = serde_json::from_slice(text.as_bytes())
        .map_err(|e| JsError::new(&format!("not a report: {e}")))?;
    let receipts = verify_report(&report);
    let result = BundleResult {
        tally: Tally::of(&receipts),
        receipts,
    };
    serde_json::to_string(&result).map_err(|e| JsError::new(&e.to_string()))
}
