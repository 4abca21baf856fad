//! A regression suite's history beside its verdicts, on the suite's page:
//! the ablations' figures beside the full cascade's, and the actions taken
//! (re-bless, undo, refused undo), each with its receipt.

use serde::Serialize;

use receipts_verifier::cost::Cost;
use receipts_verifier::layout;
use receipts_verifier::model::{ActionKind, ActionOutcome, RegressionAblation};
use receipts_verifier::verify::{ablation_figures, Receipt, RegressionVerification};

use super::{receipt_cell, skill_edit_href, Cell};
use crate::load::LoadedRegressions;

/// The full cascade's figures, recomputed, over the labelled edits.
#[derive(Debug, Clone, Serialize)]
pub struct CascadeFigures {
    pub regressions: u64,
    pub recall: String,
    pub block_recall: String,
    pub controls: u64,
    pub false_alarms: u64,
    pub cost: Option<Cost>,
}

/// An ablation's row: what is off, and its figures against their recomputation.
#[derive(Debug, Clone, Serialize)]
pub struct AblationRow {
    pub id: String,
    pub title: String,
    pub record: String,
    /// The rules in words.
    pub rules: String,
    pub recall: Cell,
    pub block_recall: Cell,
    pub false_alarms: Cell,
    pub controls: u64,
    pub cost: Cell,
    /// Receipts of the ablation that do not pass.
    pub not_passing: usize,
}

/// One action, as recorded, with its receipt.
#[derive(Debug, Clone, Serialize)]
pub struct ActionRow {
    pub id: String,
    pub at: String,
    pub by: String,
    /// `re-bless` or `undo`.
    pub action: String,
    pub edit: String,
    pub edit_href: String,
    pub task: Option<String>,
    pub outcome: String,
    pub refused: bool,
    pub reason: Option<String>,
    /// The undo's outcome, or the re-bless's digest, against the rules.
    pub check: Cell,
    /// A re-bless: whether every later replay of the task starts from it.
    pub used_by: Option<Cell>,
    /// An undo of an edit with commits: its commit on main, against main's
    /// head then and the skill before the edit.
    pub commit: Option<Cell>,
}

fn rate(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn rules_in_words(a: &RegressionAblation, tiers: usize) -> String {
    let mut off = Vec::new();
    if !a.rules.level0 {
        off.push("level 0 and the control replay off".to_string());
    }
    if !a.rules.drift {
        off.push("drift check off".to_string());
    }
    if a.rules.judges.len() < tiers {
        off.push(match a.rules.judges.as_slice() {
            [one] => format!("{one} judge alone"),
            many => format!("judges {} only", many.join(", ")),
        });
    }
    if off.is_empty() {
        "nothing off".to_string()
    } else {
        off.join("; ")
    }
}

/// The full cascade's figures.
pub fn cascade_figures(loaded: &LoadedRegressions) -> CascadeFigures {
    let run = ablation_figures(&loaded.suite, &loaded.edits);
    CascadeFigures {
        regressions: run.regressions,
        recall: rate(run.recall()),
        block_recall: rate(run.block_recall()),
        controls: run.controls,
        false_alarms: run.false_alarms,
        cost: run.cost.ok(),
    }
}

/// Each ablation's row, in id order.
pub fn ablation_rows(
    loaded: &LoadedRegressions,
    verified: &RegressionVerification,
) -> Vec<AblationRow> {
    loaded
        .ablations
        .iter()
        .map(|a| {
            let subject = loaded.ablation_path(&a.id);
            let receipts = verified.receipts_of(&subject);
            let cell = |field: &str| receipt_cell(&receipts, &format!("figures.{field}"));
            AblationRow {
                id: a.id.clone(),
                title: a.title.clone(),
                record: layout::published(&subject, false),
                rules: rules_in_words(a, loaded.suite.judges.len()),
                recall: cell("recall"),
                block_recall: cell("block_recall"),
                false_alarms: cell("false_alarms"),
                controls: a.figures.controls,
                cost: cell("cost_usd"),
                not_passing: receipts
                    .iter()
                    .filter(|r| r.status != receipts_verifier::verify::Status::Pass)
                    .count(),
            }
        })
        .collect()
}

/// The cell of `claim`'s receipt, when there is one.
fn optional_cell(receipts: &[Receipt], claim: &str) -> Option<Cell> {
    receipts
        .iter()
        .any(|r| r.claim == claim)
        .then(|| receipt_cell(receipts, claim))
}

/// The actions taken, in the order recorded; those of week `week` only, when given.
pub fn action_rows(
    loaded: &LoadedRegressions,
    verified: &RegressionVerification,
    keep: impl Fn(&str) -> bool,
) -> Vec<ActionRow> {
    let Some(history) = &loaded.actions else {
        return Vec::new();
    };
    let subject = loaded.actions_path();
    let receipts = verified.receipts_of(&subject);
    history
        .actions
        .iter()
        .filter(|a| keep(&a.at))
        .map(|a| {
            let claim = |field: &str| format!("actions[{}].{field}", a.id);
            let (action, check) = match a.action {
                ActionKind::Rebless => ("re-bless", claim("golden_sha256")),
                ActionKind::Undo => ("undo", claim("outcome")),
            };
            ActionRow {
                id: a.id.clone(),
                at: a.at.clone(),
                by: a.by.clone(),
                action: action.to_string(),
                edit: a.edit.clone(),
                edit_href: skill_edit_href(&loaded.dir, &a.edit),
                task: a.task.clone(),
                outcome: match a.outcome {
                    ActionOutcome::Done => "done",
                    ActionOutcome::Refused => "refused",
                }
                .to_string(),
                refused: a.outcome == ActionOutcome::Refused,
                reason: a.reason.clone(),
                check: receipt_cell(&receipts, &check),
                used_by: optional_cell(&receipts, &claim("used_by")),
                commit: optional_cell(&receipts, &claim("commit")),
            }
        })
        .collect()
}
