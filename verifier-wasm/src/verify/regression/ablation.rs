//! An ablation recomputed: every labelled edit judged again under the
//! suite's rules with parts switched off, from the judge calls the ablation
//! recorded, and what the gate comes to (recall, block recall, false
//! alarms, cost) beside the full cascade's same figures.

use std::collections::{BTreeMap, BTreeSet};

use crate::cost::{call_cost, Cost};
use crate::model::{
    ablation_path, AblatedEdit, RegressionAblation, RegressionSuite, SkillEdit, VerdictResult,
};

use super::super::published::{agrees_to, cost_receipt};
use super::super::Receipt;
use super::edit::{result_name, show_cascade};
use super::{edit_cost, replay_verdict, replay_verdict_under, verdict, CascadeRules, Decision};

/// The decimals a recorded rate is checked to, at least.
const RATE_DECIMALS: usize = 2;

/// What the gate comes to over the labelled edits under some rules.
#[derive(Debug, Clone, PartialEq)]
pub struct AblationRun {
    /// Labelled regressions whose verdict is decided.
    pub regressions: u64,
    /// Of those, held or reverted (WARN or BLOCK).
    pub held_or_reverted: u64,
    /// Of those, reverted (BLOCK).
    pub reverted: u64,
    /// Labelled controls (edits that are not regressions) whose verdict is decided.
    pub controls: u64,
    /// Of those, held or reverted (WARN or BLOCK).
    pub false_alarms: u64,
    /// Every judge call's cost, or why it cannot be priced.
    pub cost: Result<Cost, String>,
    /// Request ids of judge calls whose usage was lost.
    pub usage_lost: Vec<String>,
    /// Labelled edits whose verdict cannot be decided (left out of the figures).
    pub undecided: Vec<String>,
}

impl AblationRun {
    fn new() -> Self {
        AblationRun {
            regressions: 0,
            held_or_reverted: 0,
            reverted: 0,
            controls: 0,
            false_alarms: 0,
            cost: Ok(Cost::ZERO),
            usage_lost: Vec::new(),
            undecided: Vec::new(),
        }
    }

    fn count(&mut self, edit: &SkillEdit, result: Option<VerdictResult>) {
        let Some(label) = &edit.label else { return };
        let Some(result) = result else {
            self.undecided.push(edit.id.clone());
            return;
        };
        let caught = result != VerdictResult::Pass;
        if label.regression {
            self.regressions += 1;
            self.held_or_reverted += u64::from(caught);
            self.reverted += u64::from(result == VerdictResult::Block);
        } else {
            self.controls += 1;
            self.false_alarms += u64::from(caught);
        }
    }

    fn add_cost(&mut self, cost: Result<Cost, String>) {
        self.cost = match (self.cost.clone(), cost) {
            (Ok(a), Ok(b)) => Ok(a + b),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
    }

    /// Held or reverted over regressions (0 without regressions).
    pub fn recall(&self) -> f64 {
        share(self.held_or_reverted, self.regressions)
    }

    /// Reverted over regressions (0 without regressions).
    pub fn block_recall(&self) -> f64 {
        share(self.reverted, self.regressions)
    }
}

fn share(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// The full cascade's figures over the labelled edits, from their own
/// recorded judges.
pub fn ablation_figures(suite: &RegressionSuite, edits: &[SkillEdit]) -> AblationRun {
    let mut run = AblationRun::new();
    for edit in edits.iter().filter(|e| e.label.is_some()) {
        let decisions: Vec<Decision> = edit
            .replays
            .iter()
            .map(|r| replay_verdict(suite, r))
            .collect();
        run.count(edit, verdict(&decisions));
        let cost = edit_cost(suite, edit);
        run.usage_lost.extend(cost.usage_lost);
        run.add_cost(cost.total);
    }
    run
}

/// Every receipt of an ablation: its suite and rules, that it covers each
/// labelled edit once, each replay's cascade and outcome under the ablated
/// rules, each edit's verdict and cost, and the figures.
pub fn verify_ablation(
    dir: &str,
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    ablation: &RegressionAblation,
) -> (Vec<Receipt>, Option<AblationRun>) {
    let subject = ablation_path(dir, &ablation.id);
    let subject = subject.as_str();
    let mut receipts = vec![Receipt::new(
        subject,
        "suite",
        &ablation.suite,
        &suite.id,
        ablation.suite == suite.id,
    )];
    let rules = match CascadeRules::ablated(suite, &ablation.rules) {
        Ok(rules) => rules,
        Err(why) => {
            receipts.push(Receipt::new(
                subject,
                "rules.judges",
                ablation.rules.judges.join(", "),
                why,
                false,
            ));
            return (receipts, None);
        }
    };
    receipts.push(coverage(subject, edits, &ablation.edits));
    let by_id: BTreeMap<&str, &SkillEdit> = edits.iter().map(|e| (e.id.as_str(), e)).collect();
    let mut run = AblationRun::new();
    for ablated in &ablation.edits {
        let Some(edit) = by_id.get(ablated.edit.as_str()) else {
            continue;
        };
        let result = verify_edit(subject, &rules, edit, ablated, &mut receipts);
        run.count(edit, result);
        let mut cost = Ok(Cost::ZERO);
        let mut lost = Vec::new();
        for j in ablated.replays.iter().flat_map(|r| &r.judges) {
            if j.call.usage.is_none() {
                lost.push(j.call.request_id.clone());
            }
            cost = match (cost, call_cost(&j.call, &suite.prices)) {
                (Ok(a), Ok(b)) => Ok(a + b),
                (Err(e), _) => Err(e),
                (_, Err(e)) => Err(e.to_string()),
            };
        }
        receipts.push(cost_receipt(
            subject,
            &format!("edits[{}].cost_usd", ablated.edit),
            ablated.cost_usd,
            &cost,
            &lost,
        ));
        run.usage_lost.extend(lost);
        run.add_cost(cost);
    }
    receipts.extend(figure_receipts(subject, ablation, &run));
    (receipts, Some(run))
}

/// Each labelled edit once, and nothing else: an ablation that leaves out
/// the edit it does worst on would flatter itself.
fn coverage(subject: &str, edits: &[SkillEdit], ablated: &[AblatedEdit]) -> Receipt {
    let labelled: BTreeSet<&str> = edits
        .iter()
        .filter(|e| e.label.is_some())
        .map(|e| e.id.as_str())
        .collect();
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    for a in ablated {
        if !seen.insert(a.edit.as_str()) {
            problems.push(format!("{} twice", a.edit));
        } else if !labelled.contains(a.edit.as_str()) {
            problems.push(format!("{} is not a labelled edit of the suite", a.edit));
        }
    }
    for missing in labelled.difference(&seen) {
        problems.push(format!("{missing} is left out"));
    }
    Receipt::new(
        subject,
        "edits",
        format!("{} edits", ablated.len()),
        if problems.is_empty() {
            format!("each of the {} labelled edits once", labelled.len())
        } else {
            problems.join("; ")
        },
        problems.is_empty(),
    )
}

/// An edit's replays under the ablated rules; its verdict when decided.
fn verify_edit(
    subject: &str,
    rules: &CascadeRules<'_>,
    edit: &SkillEdit,
    ablated: &AblatedEdit,
    receipts: &mut Vec<Receipt>,
) -> Option<VerdictResult> {
    let claim = |field: &str| format!("edits[{}].{field}", ablated.edit);
    let tasks = |t: Vec<&str>| t.join(", ");
    let recorded: Vec<&str> = ablated.replays.iter().map(|r| r.task.as_str()).collect();
    let wanted: Vec<&str> = edit.replays.iter().map(|r| r.task.as_str()).collect();
    if recorded != wanted {
        receipts.push(Receipt::new(
            subject,
            claim("replays"),
            tasks(recorded),
            format!("the edit's replays: {}", tasks(wanted)),
            false,
        ));
        return None;
    }
    let mut decisions = Vec::with_capacity(edit.replays.len());
    for (k, (replay, again)) in edit.replays.iter().zip(&ablated.replays).enumerate() {
        let decision = replay_verdict_under(rules, replay, &again.judges);
        let called: Vec<&str> = again.judges.iter().map(|j| j.tier.as_str()).collect();
        receipts.push(show_cascade(
            subject,
            claim(&format!("replays[{k}].judges")),
            &called,
            &decision,
        ));
        let shown = format!(
            "{} by {}",
            result_name(again.outcome.result),
            again.outcome.decided_by
        );
        receipts.push(match decision.result {
            Some(r) => Receipt::new(
                subject,
                claim(&format!("replays[{k}].outcome")),
                shown,
                format!("{} by {}", result_name(r), decision.decided_by),
                r == again.outcome.result && decision.decided_by == again.outcome.decided_by,
            ),
            None => Receipt::unchecked(
                subject,
                claim(&format!("replays[{k}].outcome")),
                shown,
                "the recorded judges do not reach a decision",
            ),
        });
        decisions.push(decision);
    }
    let result = verdict(&decisions);
    receipts.push(match result {
        Some(r) => Receipt::new(
            subject,
            claim("result"),
            result_name(ablated.result),
            result_name(r),
            r == ablated.result,
        ),
        None => Receipt::unchecked(
            subject,
            claim("result"),
            result_name(ablated.result),
            "a replay's outcome cannot be decided",
        ),
    });
    result
}

fn figure_receipts(
    subject: &str,
    ablation: &RegressionAblation,
    run: &AblationRun,
) -> Vec<Receipt> {
    let p = &ablation.figures;
    if !run.undecided.is_empty() {
        return vec![Receipt::unchecked(
            subject,
            "figures",
            format!("recall {}, {} false alarms", p.recall, p.false_alarms),
            format!(
                "the verdicts of {} cannot be decided",
                run.undecided.join(", ")
            ),
        )];
    }
    let mut receipts = Vec::new();
    for (field, a, b) in [
        ("regressions", p.regressions, run.regressions),
        ("held_or_reverted", p.held_or_reverted, run.held_or_reverted),
        ("reverted", p.reverted, run.reverted),
        ("controls", p.controls, run.controls),
        ("false_alarms", p.false_alarms, run.false_alarms),
    ] {
        receipts.push(Receipt::equal(subject, format!("figures.{field}"), a, b));
    }
    for (field, a, b) in [
        ("recall", p.recall, run.recall()),
        ("block_recall", p.block_recall, run.block_recall()),
    ] {
        receipts.push(Receipt::new(
            subject,
            format!("figures.{field}"),
            format!("{a}"),
            format!("{b}"),
            agrees_to(a, b, RATE_DECIMALS),
        ));
    }
    receipts.push(cost_receipt(
        subject,
        "figures.cost_usd",
        p.cost_usd,
        &run.cost,
        &run.usage_lost,
    ));
    receipts
}
