//! A skill edit's verdict recomputed: level 0 from the recorded side
//! effects, each replay's outcome from level 0, the control replay, the
//! judges' recorded verdicts and the drift evidence under the suite's
//! agreement rules, the verdict and action from the outcomes, and the cost
//! by tier and the all-largest counterfactual from the judges' calls.

use std::collections::BTreeMap;

use crate::digest::sha256_hex;
use crate::model::{
    AblatedRules, AgreementRules, EditAction, JudgeTier, JudgeVerdict, Judgment, Level0Result,
    RegressionSuite, Replay, SideEffect, Trace, VerdictResult,
};

mod ablation;
mod actions;
mod benchmark;
mod commits;
mod cost;
mod edit;
mod sandbox;
mod summary;

pub use ablation::{ablation_figures, verify_ablation, AblationRun};
pub use actions::verify_actions;
pub use benchmark::{benchmark_rates, verify_benchmark, Rates};
pub use cost::{edit_cost, EditCost};
pub use edit::{
    time_to_verdict_s, verify_regressions, verify_skill_edit, RegressionVerification, SuiteRecords,
};
pub use summary::{edit_figures, edit_unit, judge_edit, summary_receipts};

/// Where level 0 and the control replay decide, as `decided_by` names them.
pub const LEVEL0: &str = "level0";
/// `decided_by` of a replay the control replay passed: the control made the
/// same side effects as the replay.
pub const CONTROL: &str = "control";
/// `decided_by` of a replay the judges blocked or warned that passed as
/// drift: corroborating evidence observed after the golden trace was recorded.
pub const DRIFT: &str = "drift";

/// A side effect as compared: the tool and its arguments as canonical JSON.
fn key(effect: &SideEffect) -> (String, String) {
    (effect.tool.clone(), effect.args.to_string())
}

fn counts(effects: &[SideEffect]) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for e in effects {
        *counts.entry(key(e)).or_insert(0) += 1;
    }
    counts
}

/// The calls of `a` beyond those of `b`, counted as multisets, in `a`'s order.
fn beyond(a: &[SideEffect], b: &[SideEffect]) -> Vec<SideEffect> {
    let mut left = counts(b);
    a.iter()
        .filter(|e| match left.get_mut(&key(e)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// A trace's digest: SHA-256 over its JSON, as serde writes it (fields in
/// the format's order, object keys sorted). A re-bless names the new golden
/// trace by it, and the golden library shows it.
pub fn trace_digest(trace: &Trace) -> String {
    sha256_hex(&serde_json::to_vec(trace).unwrap_or_default())
}

/// Whether two traces made the same calls, in any order.
pub fn same_side_effects(a: &Trace, b: &Trace) -> bool {
    counts(&a.side_effects) == counts(&b.side_effects)
}

/// The level-0 diff of a replay against its golden trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Level0Diff {
    /// Whether the side effects are the same, differ, or add a call to a
    /// hard tool.
    pub result: Level0Result,
    /// The replay's calls beyond the golden trace's, in the replay's order.
    pub added: Vec<SideEffect>,
    /// The golden trace's calls the replay did not make, in the golden order.
    pub removed: Vec<SideEffect>,
}

/// Compares the replay's side effects with the golden trace's, as multisets.
pub fn level0(suite: &RegressionSuite, replay: &Replay) -> Level0Diff {
    let added = beyond(&replay.replay.side_effects, &replay.golden.side_effects);
    let removed = beyond(&replay.golden.side_effects, &replay.replay.side_effects);
    let result = if added.is_empty() && removed.is_empty() {
        Level0Result::Same
    } else if added.iter().any(|e| suite.hard_tools.contains(&e.tool)) {
        Level0Result::HardFail
    } else {
        Level0Result::Differs
    };
    Level0Diff {
        result,
        added,
        removed,
    }
}

/// A replay's outcome under the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// `None` when the recorded judges stop before the rules say the replay
    /// is decided.
    pub result: Option<VerdictResult>,
    /// Where in the cascade the replay was decided: [`LEVEL0`], [`CONTROL`],
    /// a judge's tier or [`DRIFT`]; empty when it was not.
    pub decided_by: String,
    /// The judges' tiers the rules call for, in order.
    pub judges: Vec<String>,
    /// What is wrong with the recorded cascade, if anything.
    pub cascade_error: Option<String>,
}

/// The cascade's rules as applied: the suite's own, or an ablation's with
/// parts switched off.
#[derive(Debug, Clone)]
pub struct CascadeRules<'a> {
    /// The suite whose rules these are.
    pub suite: &'a RegressionSuite,
    /// Level 0 and the control replay.
    pub level0: bool,
    /// Drift: corroborating evidence may pass a replay the judges blocked or warned.
    pub drift: bool,
    /// The judge tiers called, in order.
    pub judges: Vec<&'a JudgeTier>,
    /// A lone judge's `regressed` blocks (an ablation to one judge; the
    /// suite's rules block only on agreement).
    pub alone_blocks: bool,
}

impl<'a> CascadeRules<'a> {
    /// The suite's rules (see [`AgreementRules::CascadeV1`]).
    pub fn full(suite: &'a RegressionSuite) -> Self {
        let AgreementRules::CascadeV1 = suite.rules;
        CascadeRules {
            suite,
            level0: true,
            drift: true,
            judges: suite.judges.iter().collect(),
            alone_blocks: false,
        }
    }

    /// The suite's rules with an ablation's parts off; an error names a
    /// tier the suite does not have, or tiers out of the suite's order.
    pub fn ablated(suite: &'a RegressionSuite, rules: &AblatedRules) -> Result<Self, String> {
        let mut judges = Vec::with_capacity(rules.judges.len());
        let mut from = 0;
        for tier in &rules.judges {
            let Some(k) = suite.judges[from..].iter().position(|j| &j.tier == tier) else {
                return Err(if suite.judges.iter().any(|j| &j.tier == tier) {
                    format!("judge tier {tier} is out of the suite's order, or given twice")
                } else {
                    format!("the suite has no judge tier {tier}")
                });
            };
            judges.push(&suite.judges[from + k]);
            from += k + 1;
        }
        if judges.is_empty() {
            return Err("no judge tier is left".to_string());
        }
        Ok(CascadeRules {
            suite,
            level0: rules.level0,
            drift: rules.drift,
            alone_blocks: judges.len() == 1,
            judges,
        })
    }
}

/// Decides a replay by the suite's rules from what was recorded (see
/// [`AgreementRules::CascadeV1`]).
pub fn replay_verdict(suite: &RegressionSuite, replay: &Replay) -> Decision {
    replay_verdict_under(&CascadeRules::full(suite), replay, &replay.judges)
}

/// Decides a replay by `rules`, with `judges` the judgments recorded
/// under them (the replay's own for the suite's rules).
pub fn replay_verdict_under(
    rules: &CascadeRules<'_>,
    replay: &Replay,
    judges: &[Judgment],
) -> Decision {
    let settled = |result, by: &str| Decision {
        result: Some(result),
        decided_by: by.to_string(),
        judges: Vec::new(),
        cascade_error: None,
    };
    let early = if rules.level0 {
        match level0(rules.suite, replay).result {
            Level0Result::Same => Some(settled(VerdictResult::Pass, LEVEL0)),
            Level0Result::HardFail => Some(settled(VerdictResult::Block, LEVEL0)),
            Level0Result::Differs
                if replay
                    .control
                    .as_ref()
                    .is_some_and(|c| same_side_effects(c, &replay.replay)) =>
            {
                Some(settled(VerdictResult::Pass, CONTROL))
            }
            Level0Result::Differs => None,
        }
    } else {
        None
    };
    let Some(mut decision) = early else {
        return judged(rules, replay, judges);
    };
    if !judges.is_empty() {
        decision.cascade_error = Some(format!(
            "judges were called after {} decided the replay",
            decision.decided_by
        ));
    }
    decision
}

/// The judges' part of the rules, then drift.
fn judged(rules: &CascadeRules<'_>, replay: &Replay, judges: &[Judgment]) -> Decision {
    let suite = rules.suite;
    let mut decision = Decision {
        result: None,
        decided_by: String::new(),
        judges: Vec::new(),
        cascade_error: None,
    };
    let last = rules.judges.len().saturating_sub(1);
    for (k, tier) in rules.judges.iter().enumerate() {
        decision.judges.push(tier.tier.clone());
        let Some(j) = judges.get(k) else {
            decision.cascade_error = Some(format!(
                "the cascade stops before {}, which the rules call next",
                tier.tier
            ));
            return decision;
        };
        if j.tier != tier.tier {
            decision.cascade_error = Some(format!(
                "judge {} is {}, but the rules call {} there",
                k + 1,
                j.tier,
                tier.tier
            ));
            return decision;
        }
        if j.call.model_requested != tier.model {
            // Priced as another model, the call's cost would mislead.
            decision.cascade_error = Some(format!(
                "judge {} ({}) called {}, not the tier's {}",
                k + 1,
                tier.tier,
                j.call.model_requested,
                tier.model
            ));
        }
        let confident = j.confidence >= suite.pass_confidence;
        if k < last {
            if j.verdict == JudgeVerdict::Pass && confident {
                decision.result = Some(VerdictResult::Pass);
                decision.decided_by = tier.tier.clone();
                break;
            }
            continue;
        }
        let before = k.checked_sub(1).and_then(|i| judges.get(i));
        let agreed =
            rules.alone_blocks || before.is_some_and(|b| b.verdict == JudgeVerdict::Regressed);
        decision.result = Some(match j.verdict {
            JudgeVerdict::Regressed if agreed => VerdictResult::Block,
            JudgeVerdict::Pass if confident => VerdictResult::Pass,
            _ => VerdictResult::Warn,
        });
        decision.decided_by = tier.tier.clone();
    }
    if judges.len() > decision.judges.len() {
        decision.cascade_error = Some(format!(
            "judges were called after {} decided the replay",
            decision.decided_by
        ));
    }
    let drifted = rules.drift
        && replay.world_dependent
        && replay
            .drift
            .as_ref()
            .is_some_and(|d| d.corroborates && after(&d.observed_at, &replay.golden.recorded_at));
    if drifted && decision.result.is_some_and(|r| r != VerdictResult::Pass) {
        decision.result = Some(VerdictResult::Pass);
        decision.decided_by = DRIFT.to_string();
    }
    decision
}

/// Whether timestamp `a` is later than `b` (both UTC, RFC 3339).
fn after(a: &str, b: &str) -> bool {
    matches!((crate::time::parse(a), crate::time::parse(b)), (Ok(a), Ok(b)) if a > b)
}

/// The edit's verdict: its worst replay's outcome; PASS for an edit that
/// triggered no replay. `None` when an outcome cannot be decided.
pub fn verdict(outcomes: &[Decision]) -> Option<VerdictResult> {
    outcomes
        .iter()
        .try_fold(VerdictResult::Pass, |worst, d| Some(worst.max(d.result?)))
}

/// The action a verdict calls for.
pub fn action(result: VerdictResult) -> EditAction {
    match result {
        VerdictResult::Pass => EditAction::Merge,
        VerdictResult::Warn => EditAction::Hold,
        VerdictResult::Block => EditAction::Revert,
    }
}

#[cfg(test)]
mod tests;
