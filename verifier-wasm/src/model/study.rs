//! The study as a whole: figures derived across its experiments.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// Where the study's file lives, under the records root.
pub const STUDY_FILE: &str = "study.json";

/// `experiments/study.json`: the study's named derived figures. Optional;
/// the study's totals (`study.runs`, `study.calls`, `study.output_tokens`,
/// `study.total_cost_usd`) exist without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"study"`.
    pub kind: StudyKind,
    /// Derived figures by name, each referable as `study.<name>`.
    #[serde(default)]
    pub figures: BTreeMap<String, NamedFigure>,
}

/// The `kind` of a study record: `"study"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StudyKind {
    /// The study's named derived figures.
    Study,
}

/// A derived figure: what it is, in words, and what it is computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NamedFigure {
    /// What the figure is, in words.
    pub label: String,
    /// A figure, or `change(a,b)`, `diff(a,b)` or `ratio(a,b)` of two
    /// figures, as a claim's link names it (without the `#`), e.g.
    /// `change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)`.
    pub of: String,
}
