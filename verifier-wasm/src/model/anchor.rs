//! What backs a registration's time from outside the record.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// The RFC 3161 time-stamp response (DER) kept beside `experiment.json`,
/// stamping the registration digest as its SHA-256 message imprint.
pub const TIMESTAMP_FILE: &str = "registration.tsr";
/// The time-stamping authority's certificate (PEM, or one DER certificate)
/// kept beside the token.
pub const TSA_CERTIFICATE_FILE: &str = "registration.tsa.pem";
/// The git commit that first held the registration digest, written by
/// `receipts build` inside a git checkout; published under `data/<id>/`.
pub const GIT_ANCHOR_FILE: &str = "registration.git.json";

/// `registration.git.json`: the earliest commit whose `experiment.json`
/// holds the registration digest, so the digest (and so what it covers)
/// existed by that commit's time. A git time is the committer's clock: it
/// backs the registration as far as the repository's history is trusted
/// (for instance a public host's push log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GitAnchor {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"registration_commit"`.
    pub kind: GitAnchorKind,
    /// The commit id (40 or 64 hex characters).
    pub commit: String,
    /// The commit's committer time (UTC).
    pub committed_at: String,
    /// The registration digest the commit holds.
    pub registration: String,
}

/// The `kind` of a git anchor record: `"registration_commit"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum GitAnchorKind {
    /// The commit that first held a registration digest.
    RegistrationCommit,
}
