//! A showcase: a handful of runs picked out, with a short narrative.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `showcase/showcase.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Showcase {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"showcase"`.
    pub kind: ShowcaseKind,
    /// The showcase's title, as its page shows it.
    pub title: String,
    /// The narrative, a Markdown file relative to `showcase/`.
    pub narrative: String,
    /// The runs picked out, each with a note.
    pub runs: Vec<ShowcaseRun>,
}

/// The `kind` of a showcase record: `"showcase"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShowcaseKind {
    /// A selection of runs with a narrative.
    Showcase,
}

/// One run picked out for the showcase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShowcaseRun {
    /// The run, by id.
    pub run: String,
    /// Why this run is worth a look, in a sentence.
    pub note: String,
}
