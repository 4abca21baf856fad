//! A skill edit's verdict recomputed: level 0 from the recorded side
//! effects, each replay's outcome from level 0, the control replay, the
//! judges' recorded verdicts and the drift evidence under the suite's
//! agreement rules, the verdict and action from the outcomes, and the cost
//! by tier and the all-largest counterfactual from the judges' calls.

use std::collections::BTreeMap;

use crate::model::{
    AgreementRules, EditAction, JudgeVerdict, Level0Result, RegressionSuite, Replay, SideEffect,
    Trace, VerdictResult,
};

mod benchmark;
mod cost;
mod edit;

pub use benchmark::{benchmark_rates, verify_benchmark, Rates};
pub use cost::{edit_cost, EditCost};
pub use edit::{time_to_verdict_s, verify_regressions, verify_skill_edit, RegressionVerification};

/// Where level 0 and the control replay decide, as `decided_by` names them.
pub const LEVEL0: &str = "level0";
pub const CONTROL: &str = "control";
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

/// Whether two traces made the same calls, in any order.
pub fn same_side_effects(a: &Trace, b: &Trace) -> bool {
    counts(&a.side_effects) == counts(&b.side_effects)
}

/// The level-0 diff of a replay against its golden trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Level0Diff {
    pub result: Level0Result,
    pub added: Vec<SideEffect>,
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
    pub decided_by: String,
    /// The judges' tiers the rules call for, in order.
    pub judges: Vec<String>,
    /// What is wrong with the recorded cascade, if anything.
    pub cascade_error: Option<String>,
}

/// Decides a replay by the suite's rules from what was recorded (see
/// [`AgreementRules::CascadeV1`]).
pub fn decide(suite: &RegressionSuite, replay: &Replay) -> Decision {
    let AgreementRules::CascadeV1 = suite.rules;
    let settled = |result, by: &str| Decision {
        result: Some(result),
        decided_by: by.to_string(),
        judges: Vec::new(),
        cascade_error: None,
    };
    let mut decision = match level0(suite, replay).result {
        Level0Result::Same => settled(VerdictResult::Pass, LEVEL0),
        Level0Result::HardFail => settled(VerdictResult::Block, LEVEL0),
        Level0Result::Differs
            if replay
                .control
                .as_ref()
                .is_some_and(|c| same_side_effects(c, &replay.replay)) =>
        {
            settled(VerdictResult::Pass, CONTROL)
        }
        Level0Result::Differs => return judged(suite, replay),
    };
    if !replay.judges.is_empty() {
        decision.cascade_error = Some(format!(
            "judges were called after {} decided the replay",
            decision.decided_by
        ));
    }
    decision
}

/// The judges' part of the rules, then drift.
fn judged(suite: &RegressionSuite, replay: &Replay) -> Decision {
    let mut decision = Decision {
        result: None,
        decided_by: String::new(),
        judges: Vec::new(),
        cascade_error: None,
    };
    let last = suite.judges.len().saturating_sub(1);
    for (k, tier) in suite.judges.iter().enumerate() {
        decision.judges.push(tier.tier.clone());
        let Some(j) = replay.judges.get(k) else {
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
        let before = k.checked_sub(1).and_then(|i| replay.judges.get(i));
        decision.result = Some(match j.verdict {
            JudgeVerdict::Regressed
                if before.is_some_and(|b| b.verdict == JudgeVerdict::Regressed) =>
            {
                VerdictResult::Block
            }
            JudgeVerdict::Pass if confident => VerdictResult::Pass,
            _ => VerdictResult::Warn,
        });
        decision.decided_by = tier.tier.clone();
    }
    if replay.judges.len() > decision.judges.len() {
        decision.cascade_error = Some(format!(
            "judges were called after {} decided the replay",
            decision.decided_by
        ));
    }
    let drifted = replay.world_dependent
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
