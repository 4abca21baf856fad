//! A showcase: a handful of runs picked out, with a short narrative.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `showcase/showcase.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Showcase {
    pub format_version: FormatVersion,
    /// Always `"showcase"`.
    pub kind: ShowcaseKind,
    pub title: String,
    /// The narrative, a Markdown file relative to `showcase/`.
    pub narrative: String,
    pub runs: Vec<ShowcaseRun>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShowcaseKind {
    Showcase,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShowcaseRun {
    pub run: String,
    /// Why this run is worth a look, in a sentence.
    pub note: String,
}
