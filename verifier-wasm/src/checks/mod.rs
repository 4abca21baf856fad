//! The deterministic acceptance checks. Each is a pure function of the task's
//! inputs, the check's parameters and the artifact, and returns a verdict with
//! its evidence: which quote, which row, which case, expected against got.

mod amount;
mod brief;
pub mod expr;
mod inputs;
mod rules;
mod table;

pub use amount::parse_euro_cents;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{CheckSpec, InputDigests, Task};

/// What a check needs to run.
#[derive(Debug, Clone, Copy)]
pub struct CheckContext<'a> {
    /// The task whose checks are run.
    pub task: &'a Task,
    /// The bytes of each task input, by path.
    pub inputs: &'a BTreeMap<String, Vec<u8>>,
    /// The input digests recorded around the attempt.
    pub recorded_inputs: &'a [InputDigests],
    /// The artifact's bytes, or `None` when the attempt produced none.
    pub artifact: Option<&'a [u8]>,
}

/// A check's verdict and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckOutcome {
    /// The id of the check, as the task names it.
    pub check: String,
    /// The check's kind as written in the record, e.g. `exact-quotes`.
    pub kind: String,
    /// Whether the check passed.
    pub passed: bool,
    /// One line saying why, suitable for a table cell.
    pub detail: String,
    /// Every item the check looked at that failed (or, when none failed, what it looked at).
    pub evidence: Vec<Evidence>,
}

/// One item a check looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Which quote, row, input or case.
    pub item: String,
    /// Whether this item passed.
    pub passed: bool,
    /// What the check required of this item, in words or as the expected value.
    pub expected: String,
    /// What the check found for this item, or why it found nothing.
    pub got: String,
}

impl Evidence {
    fn new(
        item: impl Into<String>,
        passed: bool,
        expected: impl Into<String>,
        got: impl Into<String>,
    ) -> Self {
        Evidence {
            item: item.into(),
            passed,
            expected: expected.into(),
            got: got.into(),
        }
    }
}

/// Runs one check.
pub fn run_check(spec: &CheckSpec, ctx: &CheckContext<'_>) -> CheckOutcome {
    let (passed, detail, evidence) = match spec {
        CheckSpec::ExactQuotes { .. } => brief::exact_quotes(ctx),
        CheckSpec::NoCitation { forbidden, .. } => brief::no_citation(ctx, forbidden),
        CheckSpec::RequiredItems { items, .. } => brief::required_items(ctx, items),
        CheckSpec::InputsUnchanged { .. } => inputs::unchanged(ctx),
        CheckSpec::RowsPreserved {
            source, id_column, ..
        } => table::rows_preserved(ctx, source, id_column),
        CheckSpec::EuroCents {
            source,
            id_column,
            amount_column,
            cents_column,
            status_column,
            ..
        } => table::euro_cents(
            ctx,
            &table::EuroColumns {
                source,
                id: id_column,
                amount: amount_column,
                cents: cents_column,
                status: status_column,
            },
        ),
        CheckSpec::RuleCases {
            variables, cases, ..
        } => rules::rule_cases(ctx, variables, cases),
    };
    CheckOutcome {
        check: spec.id().to_string(),
        kind: spec.kind().to_string(),
        passed,
        detail,
        evidence,
    }
}

/// Runs every check of the task, in the task's order.
pub fn run_all(ctx: &CheckContext<'_>) -> Vec<CheckOutcome> {
    ctx.task
        .checks
        .iter()
        .map(|spec| run_check(spec, ctx))
        .collect()
}

type Verdict = (bool, String, Vec<Evidence>);

/// A failed verdict with no itemised evidence (the artifact could not be read at all).
fn unreadable(what: impl Into<String>) -> Verdict {
    (false, what.into(), Vec::new())
}

/// The verdict from per-item evidence: passes when every item passed.
/// Passing items are dropped from the evidence when any failed, so the
/// evidence shows what went wrong.
fn from_evidence(noun: &str, evidence: Vec<Evidence>) -> Verdict {
    let total = evidence.len();
    let failed: Vec<Evidence> = evidence.iter().filter(|e| !e.passed).cloned().collect();
    if failed.is_empty() {
        (true, format!("{total} of {total} {noun} pass"), evidence)
    } else {
        let detail = format!(
            "{} of {total} {noun} fail; first: {}",
            failed.len(),
            failed[0].item
        );
        (false, detail, failed)
    }
}

/// The artifact as UTF-8 text, or the failed verdict explaining why not.
fn artifact_text<'a>(ctx: &CheckContext<'a>) -> Result<&'a str, Verdict> {
    let bytes = ctx
        .artifact
        .ok_or_else(|| unreadable("no artifact was produced"))?;
    if bytes.is_empty() {
        return Err(unreadable("the artifact is empty"));
    }
    std::str::from_utf8(bytes).map_err(|e| unreadable(format!("the artifact is not UTF-8: {e}")))
}

/// A task input as UTF-8 text.
fn input_text<'a>(ctx: &CheckContext<'a>, path: &str) -> Result<&'a str, Verdict> {
    let bytes = ctx
        .inputs
        .get(path)
        .ok_or_else(|| unreadable(format!("input `{path}` is not available")))?;
    std::str::from_utf8(bytes).map_err(|e| unreadable(format!("input `{path}` is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests;
