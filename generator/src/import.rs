//! Logs of other tools made into records (`receipts import`, and the
//! sample's imported evaluation): each log read, its record derived, and
//! the files to write named.

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::inspect::{
    derive, inspect_record_path, ImportedEval, Log, LogError, Source,
};

use crate::load::OBJECTS_DIR;

/// An Inspect AI log read and its record derived.
pub struct Prepared {
    /// The record's file stem, from the log's file name.
    pub name: String,
    pub record: ImportedEval,
    pub log: Log,
}

/// The file stem a record takes from its log's file name: letters, digits,
/// `.`, `_` and `-`, anything else as `-`.
pub fn record_name(file_name: &str) -> String {
    let stem = file_name
        .rsplit_once('.')
        .map_or(file_name, |(stem, _)| stem);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("log{name}")
    } else {
        name
    }
}

/// Reads the Inspect AI log `bytes`, named `file_name`, and derives its record.
pub fn inspect(file_name: &str, bytes: &[u8]) -> Result<Prepared, LogError> {
    let log = Log::read(bytes)?;
    let source = Source {
        tool: "inspect_ai".into(),
        version: log
            .eval
            .packages
            .get("inspect_ai")
            .cloned()
            .unwrap_or_else(|| "unknown".into()),
        file: file_name.to_string(),
        format: if bytes.starts_with(b"PK") {
            "eval"
        } else {
            "json"
        }
        .into(),
        sha256: sha256_hex(bytes),
    };
    Ok(Prepared {
        name: record_name(file_name),
        record: derive(&log, source),
        log,
    })
}

impl Prepared {
    /// The record's path under the records directory, in directory `dir`.
    pub fn record_path(&self, dir: &str) -> String {
        inspect_record_path(dir, &self.name)
    }

    /// The kept log's path under the records directory.
    pub fn object_path(&self) -> String {
        format!("{OBJECTS_DIR}/{}", self.record.source.sha256)
    }

    /// The record as written: pretty JSON and a newline.
    pub fn record_bytes(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec_pretty(&self.record).expect("a record serializes");
        json.push(b'\n');
        json
    }
}
