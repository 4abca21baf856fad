//! Where a record came from, when another tool wrote the original.

use serde::{Deserialize, Serialize};

/// The original a record was derived from: the tool that wrote it and its
/// digest, under which the original's bytes are kept in
/// `experiments/objects/`. Imported evaluations and traces always carry
/// one; a run written by a converter of its own may.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The tool that wrote the original: `inspect_ai`, `opentelemetry`, or
    /// any other, by name.
    pub tool: String,
    /// The tool's version, as the original records it.
    pub version: String,
    /// The original file's name when it was imported.
    pub file: String,
    /// The original's format: `eval` (Inspect's zip archive), `json`,
    /// `otlp-json`, or any other, by name.
    pub format: String,
    /// SHA-256 of the original's bytes, lowercase hex.
    pub sha256: String,
}
