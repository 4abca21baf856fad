//! What happened to a regression suite beside its edits' verdicts: the
//! actions people took afterwards (re-blessing a golden trace, undoing a
//! merged edit, including an undo the gate refused), and ablations, the
//! labelled edits judged again with part of the cascade switched off, each
//! a recorded run set with its own judge calls.
//!
//! Under the records root: `regressions/<suite>/actions.json` and
//! `regressions/<suite>/ablations/<id>.json`, each optional.

use serde::{Deserialize, Serialize};

use super::{FormatVersion, Judgment, Provenance, ReplayOutcome, VerdictResult, REGRESSIONS_DIR};

/// The path of suite `suite`'s action history under the records root.
pub fn actions_path(suite: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/actions.json")
}

/// The path of ablation `id` of suite `suite` under the records root.
pub fn ablation_path(suite: &str, id: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/ablations/{id}.json")
}

/// Everything done to a suite's edits and golden traces after their verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionActions {
    pub format_version: FormatVersion,
    pub kind: RegressionActionsKind,
    pub suite: String,
    pub provenance: Provenance,
    /// In the order they were taken.
    pub actions: Vec<SuiteAction>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionActionsKind {
    RegressionActions,
}

/// One action, as recorded when it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SuiteAction {
    /// Unique within the suite.
    pub id: String,
    pub action: ActionKind,
    /// The edit it acts on.
    pub edit: String,
    /// Who asked for it (untrusted text).
    pub by: String,
    /// When (UTC, RFC 3339): after the edit's verdict.
    pub at: String,
    /// A re-bless: the task whose golden trace the edit's replay becomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// A re-bless: the digest of the new golden trace (see `trace_digest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub golden_sha256: Option<String>,
    pub outcome: ActionOutcome,
    /// Why it was refused; for a refused undo it names the later edit in
    /// the way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// The edit's replay of `task` becomes that task's golden trace.
    Rebless,
    /// The merged edit is taken back out of the skill.
    Undo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionOutcome {
    Done,
    Refused,
}

/// The labelled edits judged again under rules with part of the cascade off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionAblation {
    pub format_version: FormatVersion,
    pub kind: RegressionAblationKind,
    /// The ablation's id, also its file's name.
    pub id: String,
    pub suite: String,
    pub title: String,
    pub provenance: Provenance,
    /// What is switched off.
    pub rules: AblatedRules,
    /// Every labelled edit of the suite, once.
    pub edits: Vec<AblatedEdit>,
    pub figures: AblationFigures,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionAblationKind {
    RegressionAblation,
}

/// The suite's rules with parts switched off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblatedRules {
    /// Level 0 (the side-effect diff and the control replay); off, every
    /// replay goes to the judges.
    pub level0: bool,
    /// The drift check; off, a world-dependent replay stays as judged.
    pub drift: bool,
    /// The judge tiers called, in the suite's order, a subset of its tiers.
    /// With one tier, that judge decides alone: a `regressed` blocks.
    pub judges: Vec<String>,
}

/// One labelled edit judged under the ablated rules: the edit's own
/// replays (the traces are the edit's), with this run's judge calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblatedEdit {
    pub edit: String,
    /// One per replay of the edit, in the edit's order.
    pub replays: Vec<AblatedReplay>,
    /// The edit's verdict under the ablated rules.
    pub result: VerdictResult,
    /// The judge calls' cost, USD.
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblatedReplay {
    pub task: String,
    pub judges: Vec<Judgment>,
    pub outcome: ReplayOutcome,
}

/// What the gate comes to under the ablated rules, over the labelled edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblationFigures {
    pub regressions: u64,
    /// Regressions held or reverted.
    pub held_or_reverted: u64,
    /// Regressions reverted.
    pub reverted: u64,
    pub recall: f64,
    pub block_recall: f64,
    /// Labelled controls (edits that are not regressions).
    pub controls: u64,
    /// Controls held or reverted.
    pub false_alarms: u64,
    /// Every judge call's cost, USD (a lower bound where usage was lost).
    pub cost_usd: f64,
}
