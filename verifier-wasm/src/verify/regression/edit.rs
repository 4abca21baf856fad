//! The receipts of a skill edit and of a whole regression suite.

use crate::digest::sha256_hex;
use crate::model::{
    regression_suite_path, skill_edit_path, EditAction, Level0Result, RegressionAblation,
    RegressionActions, RegressionBenchmark, RegressionSuite, SideEffect, SkillEdit, VerdictResult,
};

use super::super::published::cost_receipt;
use super::super::{Objects, Receipt};
use super::commits::{edit_commits, main_line};
use super::sandbox::sandbox_receipt;
use super::{
    action, counts, edit_cost, level0, replay_verdict, summary_receipts, verdict, verify_ablation,
    verify_actions, verify_benchmark, Decision,
};

pub(super) fn result_name(r: VerdictResult) -> &'static str {
    match r {
        VerdictResult::Pass => "PASS",
        VerdictResult::Warn => "WARN",
        VerdictResult::Block => "BLOCK",
    }
}

fn action_name(a: EditAction) -> &'static str {
    match a {
        EditAction::Merge => "merge",
        EditAction::Hold => "hold",
        EditAction::Revert => "revert",
    }
}

fn level0_name(r: Level0Result) -> &'static str {
    match r {
        Level0Result::Same => "same",
        Level0Result::Differs => "differs",
        Level0Result::HardFail => "hard_fail",
    }
}

fn show_level0(result: Level0Result, added: &[SideEffect], removed: &[SideEffect]) -> String {
    let list = |effects: &[SideEffect]| {
        effects
            .iter()
            .map(|e| format!("{} {}", e.tool, e.args))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut text = level0_name(result).to_string();
    if !added.is_empty() {
        text.push_str(&format!(", added: {}", list(added)));
    }
    if !removed.is_empty() {
        text.push_str(&format!(", removed: {}", list(removed)));
    }
    text
}

/// The judges called against those the rules call for.
pub(super) fn show_cascade(
    subject: &str,
    claim: String,
    called: &[&str],
    decision: &Decision,
) -> Receipt {
    let show = |tiers: &[&str]| {
        if tiers.is_empty() {
            "no judge".to_string()
        } else {
            tiers.join(" → ")
        }
    };
    let wanted: Vec<&str> = decision.judges.iter().map(String::as_str).collect();
    Receipt::new(
        subject,
        claim,
        show(called),
        match &decision.cascade_error {
            Some(e) => e.clone(),
            None => show(&wanted),
        },
        decision.cascade_error.is_none(),
    )
}

/// Every receipt of an edit: the suite, the skill's objects, each replay's
/// level 0, cascade and outcome, the verdict, the action and the costs.
pub fn verify_skill_edit(
    dir: &str,
    suite: &RegressionSuite,
    edit: &SkillEdit,
    objects: &dyn Objects,
) -> Vec<Receipt> {
    let subject = skill_edit_path(dir, &edit.id);
    let subject = subject.as_str();
    let mut receipts = vec![Receipt::new(
        subject,
        "suite",
        &edit.suite,
        &suite.id,
        edit.suite == suite.id,
    )];
    for (claim, digest) in [
        ("skill.before_sha256", &edit.skill.before_sha256),
        ("skill.after_sha256", &edit.skill.after_sha256),
    ] {
        let found = objects
            .object(digest)
            .map_or_else(|| "no such object".to_string(), sha256_hex);
        receipts.push(Receipt::new(
            subject,
            claim,
            digest,
            &found,
            &found == digest,
        ));
    }
    let mut decisions = Vec::with_capacity(edit.replays.len());
    for (i, replay) in edit.replays.iter().enumerate() {
        let diff = level0(suite, replay);
        let recorded = &replay.level0;
        receipts.push(Receipt::new(
            subject,
            format!("replays[{i}].level0"),
            show_level0(recorded.result, &recorded.added, &recorded.removed),
            show_level0(diff.result, &diff.added, &diff.removed),
            recorded.result == diff.result
                && counts(&recorded.added) == counts(&diff.added)
                && counts(&recorded.removed) == counts(&diff.removed),
        ));
        let decision = replay_verdict(suite, replay);
        let called: Vec<&str> = replay.judges.iter().map(|j| j.tier.as_str()).collect();
        receipts.push(show_cascade(
            subject,
            format!("replays[{i}].judges"),
            &called,
            &decision,
        ));
        let shown = format!(
            "{} by {}",
            result_name(replay.outcome.result),
            replay.outcome.decided_by
        );
        receipts.push(match decision.result {
            Some(r) => Receipt::new(
                subject,
                format!("replays[{i}].outcome"),
                shown,
                format!("{} by {}", result_name(r), decision.decided_by),
                r == replay.outcome.result && decision.decided_by == replay.outcome.decided_by,
            ),
            None => Receipt::unchecked(
                subject,
                format!("replays[{i}].outcome"),
                shown,
                "the recorded judges do not reach a decision",
            ),
        });
        receipts.extend(sandbox_receipt(subject, suite, i, replay));
        decisions.push(decision);
    }
    let v = &edit.verdict;
    receipts.extend(summary_receipts(
        subject,
        suite,
        edit,
        &decisions,
        verdict(&decisions),
    ));
    match verdict(&decisions) {
        Some(r) => {
            receipts.push(Receipt::new(
                subject,
                "verdict.result",
                result_name(v.result),
                result_name(r),
                v.result == r,
            ));
            receipts.push(Receipt::new(
                subject,
                "verdict.action",
                action_name(v.action),
                action_name(action(r)),
                v.action == action(r),
            ));
        }
        None => {
            for (claim, recorded) in [
                ("verdict.result", result_name(v.result)),
                ("verdict.action", action_name(v.action)),
            ] {
                receipts.push(Receipt::unchecked(
                    subject,
                    claim,
                    recorded,
                    "a replay's outcome cannot be decided",
                ));
            }
        }
    }
    let called_for = verdict(&decisions).map_or(v.action, action);
    receipts.extend(edit_commits(subject, edit, called_for));
    if let Some(at) = &v.decided_at {
        receipts.push(match decided_after_all(edit, at) {
            Ok(fine) => Receipt::new(subject, "verdict.decided_at", at, fine, true),
            Err(why) => Receipt::new(subject, "verdict.decided_at", at, why, false),
        });
    }
    let cost = edit_cost(suite, edit);
    let tiers: std::collections::BTreeSet<&String> =
        cost.by_tier.keys().chain(v.cost.by_tier.keys()).collect();
    for tier in tiers {
        let claim = format!("verdict.cost.by_tier[{tier}]");
        receipts.push(match (v.cost.by_tier.get(tier), cost.by_tier.get(tier)) {
            (Some(&published), Some(c)) => {
                cost_receipt(subject, &claim, published, c, &cost.usage_lost)
            }
            (Some(published), None) => Receipt::new(
                subject,
                claim,
                format!("{published}"),
                "no judge of the suite has this tier",
                false,
            ),
            (None, Some(_)) => Receipt::new(
                subject,
                claim,
                "not published",
                "a judge tier of the suite",
                false,
            ),
            (None, None) => continue,
        });
    }
    receipts.push(cost_receipt(
        subject,
        "verdict.cost.total_usd",
        v.cost.total_usd,
        &cost.total,
        &cost.usage_lost,
    ));
    receipts.push(cost_receipt(
        subject,
        "verdict.cost.all_largest_usd",
        v.cost.all_largest_usd,
        &cost.all_largest,
        &cost.usage_lost,
    ));
    receipts
}

/// The verdict was decided at `at`: after the edit, after every replay
/// was recorded and after every judge call ended. Returns the time from
/// the edit to the verdict.
fn decided_after_all(edit: &SkillEdit, at: &str) -> Result<String, String> {
    let parse = |text: &str, field: &str| {
        crate::time::parse(text)
            .map(|t| t.0)
            .map_err(|e| format!("{field}: {e}"))
    };
    let decided = parse(at, "verdict.decided_at")?;
    let edited = parse(&edit.edited_at, "edited_at")?;
    if decided < edited {
        return Err("before the edit was made".to_string());
    }
    for (i, r) in edit.replays.iter().enumerate() {
        if parse(
            &r.replay.recorded_at,
            &format!("replays[{i}].replay.recorded_at"),
        )? > decided
        {
            return Err(format!("before replays[{i}] was recorded"));
        }
        for (k, j) in r.judges.iter().enumerate() {
            let start = parse(&j.call.started_at, &format!("replays[{i}].judges[{k}]"))?;
            let end = start.saturating_add(i64::try_from(j.call.latency_ms).unwrap_or(i64::MAX));
            if end > decided {
                return Err(format!("before replays[{i}].judges[{k}]'s call ended"));
            }
        }
    }
    Ok(format!(
        "{} s after the edit, after every replay and judge call",
        (decided - edited) as f64 / 1000.0
    ))
}

/// Seconds from the edit to its verdict, when the verdict says when it was
/// decided and both times parse.
pub fn time_to_verdict_s(edit: &SkillEdit) -> Option<f64> {
    let at = edit.verdict.decided_at.as_deref()?;
    let decided = crate::time::parse(at).ok()?.0;
    let edited = crate::time::parse(&edit.edited_at).ok()?.0;
    Some((decided - edited) as f64 / 1000.0)
}

/// What verifying a regression suite found.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressionVerification {
    /// The suite's directory.
    pub dir: String,
    /// Suite-level receipts: a suite id that differs from its directory,
    /// and the benchmark's, the action history's and each ablation's.
    pub receipts: Vec<Receipt>,
    /// Each edit's receipts, in the order the edits were given.
    pub edits: Vec<Vec<Receipt>>,
}

impl RegressionVerification {
    /// Every receipt: each edit's, then the suite's.
    pub fn all_receipts(&self) -> impl Iterator<Item = &Receipt> {
        self.edits.iter().flatten().chain(&self.receipts)
    }

    /// The suite-level receipts of one record, by its path.
    pub fn receipts_of(&self, subject: &str) -> Vec<Receipt> {
        self.receipts
            .iter()
            .filter(|r| r.subject == subject)
            .cloned()
            .collect()
    }
}

/// A suite's records beside its edits, each optional.
#[derive(Debug, Clone, Copy, Default)]
pub struct SuiteRecords<'a> {
    /// The suite's published benchmark over its labelled edits, if any.
    pub benchmark: Option<&'a RegressionBenchmark>,
    /// What was done to the suite's edits and golden traces after their
    /// verdicts, if recorded.
    pub actions: Option<&'a RegressionActions>,
    /// The suite's ablations: its labelled edits judged again with part of
    /// the cascade off.
    pub ablations: &'a [RegressionAblation],
}

/// Verifies a suite's edits, and its benchmark, action history and
/// ablations where it has them. `dir` is the suite's directory.
pub fn verify_regressions(
    dir: &str,
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    records: SuiteRecords<'_>,
    objects: &dyn Objects,
) -> RegressionVerification {
    let mut receipts = Vec::new();
    if suite.id != dir {
        receipts.push(Receipt::new(
            &regression_suite_path(dir),
            "id",
            &suite.id,
            format!("the directory's name, {dir}"),
            false,
        ));
    }
    if let Some(b) = records.benchmark {
        receipts.extend(verify_benchmark(dir, suite, edits, b));
    }
    if let Some(a) = records.actions {
        receipts.extend(verify_actions(dir, suite, edits, a));
    }
    for a in records.ablations {
        receipts.extend(verify_ablation(dir, suite, edits, a).0);
    }
    let mut per_edit: Vec<Vec<Receipt>> = edits
        .iter()
        .map(|e| verify_skill_edit(dir, suite, e, objects))
        .collect();
    let (bases, undos) = main_line(dir, edits, records.actions);
    for (k, receipt) in bases {
        per_edit[k].push(receipt);
    }
    receipts.extend(undos);
    RegressionVerification {
        dir: dir.to_string(),
        receipts,
        edits: per_edit,
    }
}
