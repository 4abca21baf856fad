//! The record format: the types every input file deserializes into.
//!
//! Each record file is JSON with a `format_version` (see [`FORMAT_VERSION`])
//! and a `kind`, so a reader can tell what it holds and refuse what it cannot
//! read. `docs/FORMAT.md` describes the layout on disk; `receipts schema`
//! prints the JSON Schema generated from these types.

mod anchor;
mod deviation;
mod experiment;
mod harness;
mod model_check;
mod regression;
mod regression_history;
mod report;
mod run;
mod showcase;
mod source;
mod study;
mod summary;
mod task;

pub use anchor::*;
pub use deviation::*;
pub use experiment::*;
pub use harness::*;
pub use model_check::*;
pub use regression::*;
pub use regression_history::*;
pub use report::*;
pub use run::*;
pub use showcase::*;
pub use source::*;
pub use study::*;
pub use summary::*;
pub use task::*;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// A `format_version` field: deserializes only the version this build reads,
/// so a record from a newer or unknown format is refused with a clear message
/// instead of being half-understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FormatVersion;

impl Serialize for FormatVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(FORMAT_VERSION)
    }
}

impl<'de> Deserialize<'de> for FormatVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        if v.as_u64() == Some(u64::from(FORMAT_VERSION)) {
            Ok(FormatVersion)
        } else {
            Err(serde::de::Error::custom(unsupported_version_message(&v)))
        }
    }
}

/// The message for a `format_version` this build does not read.
pub fn unsupported_version_message(found: &serde_json::Value) -> String {
    format!(
        "unsupported format_version {found}: this receipts reads format_version {FORMAT_VERSION}"
    )
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for FormatVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FormatVersion".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The record format version. This build reads 1.",
            "const": FORMAT_VERSION
        })
    }
}

/// Where a record's numbers came from. Simulated data must say so wherever it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// Recorded from real provider calls.
    Recorded,
    /// Produced by a deterministic simulator; no model was called.
    Simulated,
}

impl Provenance {
    /// Whether the numbers were produced by the simulator rather than recorded.
    pub fn is_simulated(self) -> bool {
        self == Provenance::Simulated
    }

    /// The word the record spells it with: `recorded` or `simulated`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Recorded => "recorded",
            Provenance::Simulated => "simulated",
        }
    }
}

/// A file that the record names by path and pins by digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FileRef {
    /// The file's name as the agent saw it (relative, `/`-separated).
    pub path: String,
    /// SHA-256 of the file's bytes, lowercase hex. The bytes live in the
    /// object store under this digest.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Media type, e.g. `application/json`, `text/csv`, `text/markdown`.
    pub media_type: String,
}

/// The schema of a field that must be present and may be `null`:
/// `#[schemars(required, with = "Nullable<T>")]` on an `Option<T>` that
/// `required_option` reads (schemars drops `null` from a required
/// `Option`, so the schema would refuse the records this build writes).
#[cfg(feature = "schema")]
pub(crate) struct Nullable<T>(std::marker::PhantomData<T>);

#[cfg(feature = "schema")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Nullable<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let inner = generator.subschema_for::<T>();
        schemars::json_schema!({ "anyOf": [inner, { "type": "null" }] })
    }
}
