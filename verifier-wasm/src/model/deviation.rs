//! Deviations from the pre-registration, logged as they happen.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `experiments/<id>/deviations.json`: what changed after registration, each
/// entry logged before the first run it affects. Optional; without it no run
/// may be a rerun and the grid must be complete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Deviations {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"deviations"`.
    pub kind: DeviationsKind,
    /// The experiment the deviations belong to, by id: the one whose directory
    /// holds the file.
    pub experiment: String,
    /// Every deviation logged so far.
    pub deviations: Vec<Deviation>,
}

/// The `kind` of a deviations record: `"deviations"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeviationsKind {
    /// A log of deviations from a registration.
    Deviations,
}

/// One deviation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// `D1`, `D2`, …
    pub id: String,
    /// When it was logged (UTC): after the registration, before every run it names.
    pub logged_at: String,
    /// What kind of change it is.
    pub kind: DeviationKind,
    /// What happened and why, in a sentence or two.
    pub reason: String,
    /// The runs it affects: for a rerun, the reruns it declares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<String>,
}

/// What kind of change a deviation logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeviationKind {
    /// Runs made again; each names the run it replaces (`replaces`). They
    /// count in the primary analysis only in place of a run that never
    /// reached the provider, and otherwise only in the secondary one.
    Rerun,
    /// A limit changed for the runs named.
    Limit,
    /// A fix to the harness, applied to the runs named.
    Fix,
    /// The study stopped: no run starts after it until a `resume`, and the
    /// cells not run after the last stop are reported as not run;
    /// hypotheses on them are not decided.
    Stop,
    /// The study, stopped, was taken up again where it stopped: runs may
    /// start after it. A resume follows a stop.
    Resume,
    /// Any other change, described in `reason`.
    Other,
}
