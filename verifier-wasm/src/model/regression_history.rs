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
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"regression_actions"`.
    pub kind: RegressionActionsKind,
    /// The suite acted on, by id: the one whose directory holds the file.
    pub suite: String,
    /// Whether the actions were recorded or simulated.
    pub provenance: Provenance,
    /// In the order they were taken.
    pub actions: Vec<SuiteAction>,
}

/// The `kind` of an action history record: `"regression_actions"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionActionsKind {
    /// A suite's action history.
    RegressionActions,
}

/// One action, as recorded when it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SuiteAction {
    /// Unique within the suite.
    pub id: String,
    /// What the action does: a re-bless or an undo.
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
    /// Whether it was done or refused.
    pub outcome: ActionOutcome,
    /// Why it was refused; for a refused undo it names the later edit in
    /// the way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A done undo of an edit whose commits are recorded: the commit on
    /// main that takes the edit back out (its parent main's head then, the
    /// skill as before the edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<super::Commit>,
}

/// What an action on an edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// The edit's replay of `task` becomes that task's golden trace.
    Rebless,
    /// The merged edit is taken back out of the skill.
    Undo,
}

/// What came of an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActionOutcome {
    /// It was carried out.
    Done,
    /// It was refused; `reason` says why.
    Refused,
}

/// The labelled edits judged again under rules with part of the cascade off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionAblation {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"regression_ablation"`.
    pub kind: RegressionAblationKind,
    /// The ablation's id, also its file's name.
    pub id: String,
    /// The suite whose edits are judged again, by id: the one whose directory
    /// holds the file.
    pub suite: String,
    /// The ablation's title, as pages show it.
    pub title: String,
    /// Whether the ablation's judge calls were recorded or simulated.
    pub provenance: Provenance,
    /// What is switched off.
    pub rules: AblatedRules,
    /// Every labelled edit of the suite, once.
    pub edits: Vec<AblatedEdit>,
    /// The gate's figures under the ablated rules, as published.
    pub figures: AblationFigures,
}

/// The `kind` of an ablation record: `"regression_ablation"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionAblationKind {
    /// An ablation of a suite's cascade.
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
    /// The edit, by id.
    pub edit: String,
    /// One per replay of the edit, in the edit's order.
    pub replays: Vec<AblatedReplay>,
    /// The edit's verdict under the ablated rules.
    pub result: VerdictResult,
    /// The judge calls' cost, USD.
    pub cost_usd: f64,
}

/// One replay of an edit, judged again under the ablated rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblatedReplay {
    /// The task replayed, by id.
    pub task: String,
    /// This run's judges, in the order they saw the replay.
    pub judges: Vec<Judgment>,
    /// How the replay was decided under the ablated rules.
    pub outcome: ReplayOutcome,
}

/// What the gate comes to under the ablated rules, over the labelled edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AblationFigures {
    /// Labelled regressions among the edits.
    pub regressions: u64,
    /// Regressions held or reverted.
    pub held_or_reverted: u64,
    /// Regressions reverted.
    pub reverted: u64,
    /// `held_or_reverted / regressions`.
    pub recall: f64,
    /// `reverted / regressions`.
    pub block_recall: f64,
    /// Labelled controls (edits that are not regressions).
    pub controls: u64,
    /// Controls held or reverted.
    pub false_alarms: u64,
    /// Every judge call's cost, USD (a lower bound where usage was lost).
    pub cost_usd: f64,
}
