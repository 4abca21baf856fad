//! A report: one run exported with everything needed to verify it offline,
//! the records it comes from verbatim and the bytes of every object it names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{CostBound, FormatVersion};

/// `<run>.report.json`, written by `receipts export`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"report"`.
    pub kind: ReportKind,
    /// The run's id: its record is `<experiment_dir>/runs/<run>.json`.
    pub run: String,
    /// The experiment's directory under the records root.
    pub experiment_dir: String,
    /// The record files the run needs, verbatim, by path under the records
    /// root: the experiment, the task and the run.
    pub records: BTreeMap<String, String>,
    /// The bytes of every object the run names (task inputs, artifacts), by digest.
    pub objects: BTreeMap<String, ReportObject>,
    /// The SHA-256 of each record file as published (the lines of `data/SHA256SUMS`).
    pub record_digests: BTreeMap<String, String>,
    /// The records digest of the site the report was exported from.
    pub records_digest: String,
    /// The site the report was exported from, by its two manifests: what
    /// anchors the report to a root digest. Absent in reports of older
    /// versions, which can only be checked as consistent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<ReportSite>,
    /// What the run amounts to, as exported.
    pub claims: ReportClaims,
}

/// The manifests of the site a report was exported from, verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportSite {
    /// The site's root digest: the SHA-256 of `sums`.
    pub root_digest: String,
    /// The site's `SHA256SUMS`, which lists `data/SHA256SUMS`.
    pub sums: String,
    /// The site's `data/SHA256SUMS`, which lists every record and object
    /// (or the chunk manifests listing an experiment's many runs).
    pub records_sums: String,
    /// The chunk manifest listing the run's record, when its experiment's
    /// runs are listed in chunks (see `manifest::chunks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_sums: Option<String>,
}

/// The `kind` of a report: `"report"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// A run exported with everything needed to verify it offline.
    Report,
}

/// Object bytes: UTF-8 text as it is, anything else as lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "encoding", content = "data", rename_all = "kebab-case")]
pub enum ReportObject {
    /// Bytes that are valid UTF-8, as that text.
    Utf8(String),
    /// Bytes that are not valid UTF-8, as lowercase hex, two digits a byte.
    Hex(String),
}

impl ReportObject {
    /// Encodes `bytes`: as text when they are valid UTF-8, as hex otherwise.
    pub fn encode(bytes: &[u8]) -> ReportObject {
        match std::str::from_utf8(bytes) {
            Ok(text) => ReportObject::Utf8(text.to_string()),
            Err(_) => ReportObject::Hex(crate::digest::hex(bytes)),
        }
    }

    /// The bytes, or `None` when the hex is malformed.
    pub fn decode(&self) -> Option<Vec<u8>> {
        match self {
            ReportObject::Utf8(text) => Some(text.as_bytes().to_vec()),
            ReportObject::Hex(hex) => {
                if hex.len() % 2 != 0 {
                    return None;
                }
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                    .collect()
            }
        }
    }
}

/// What a report says its run amounts to, each recomputed when it is verified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportClaims {
    /// Whether the run passed (its final attempt passed every check).
    pub passed: bool,
    /// The run's cost in USD, every attempt included (failed ones too), at
    /// the experiment's prices.
    pub cost_usd: CostBound,
    /// The run's time in seconds: the sum of its attempts' durations.
    pub time_s: f64,
}
