//! What happened to the simulated suite after its verdicts: the actions
//! people took (an undo, a re-bless, and an undo refused because a later
//! edit of the same skill was merged), and five ablations, every labelled
//! edit judged again with level 0 off, with the drift check off, and by
//! each judge alone. An ablation's judges answer as the edit's own
//! did where they were called; where they were not, the script says what
//! they would have answered, and the cascade under the ablated rules calls
//! them in turn until it decides. Everything is marked simulated.

use receipts_verifier::cost::{call_cost, Cost};
use receipts_verifier::model::{
    AblatedEdit, AblatedReplay, AblatedRules, AblationFigures, ActionKind, ActionOutcome, Branch,
    Commit, FormatVersion, JudgeVerdict, Judgment, Level0Result, Provenance, RegressionAblation,
    RegressionAblationKind, RegressionActions, RegressionActionsKind, RegressionSuite, Replay,
    ReplayOutcome, SkillEdit, SuiteAction, Trace, VerdictResult,
};
use receipts_verifier::time::{format, UnixMillis};
use receipts_verifier::verify::{replay_verdict_under, trace_digest, verdict, CascadeRules};

use super::super::rng::Rng;
use super::{
    commit_id, decided_ms, initial_main, judge_call, rationale, round6, Prompts, JUDGES, SUITE,
};

const HOUR_MS: i64 = 3_600_000;

/// Main's head at `at`: the last merge decided by then (no undo is done
/// before the script's one).
fn main_head(edits: &[SkillEdit], at: i64) -> String {
    edits
        .iter()
        .rev()
        .filter(|e| decided_ms(e) <= at)
        .filter_map(|e| e.verdict.commits.as_ref()?.action.as_ref())
        .find(|c| c.branch == Branch::Main)
        .map_or_else(initial_main, |c| c.hash.clone())
}

/// The missed regression is undone this many hours after its verdict.
const UNDO_AFTER_H: i64 = 30;

/// The undo of the missed regression, once its edit is simulated: when it
/// is done, and its commit on main's head then, restoring the skill.
pub(super) fn undo_commit(edits: &[SkillEdit]) -> Option<(i64, Commit)> {
    let missed = script_edit(edits, MISSED)?;
    let at = decided_ms(missed) + UNDO_AFTER_H * HOUR_MS;
    Some((
        at,
        Commit {
            hash: commit_id("undo-1"),
            parents: vec![main_head(edits, at)],
            branch: Branch::Main,
            skill_sha256: missed.skill.before_sha256.clone(),
        },
    ))
}

/// The script's edits the actions are about: the missed regression (undone
/// later), the drifted rate sheet (its replay re-blessed) and the earlier
/// edit of the same skill (whose undo is refused).
const MISSED: &str = "edit-05";
const DRIFTED: &str = "edit-09";
const EARLIER: &str = "edit-06";

/// The script's edit `which`, once it is simulated.
fn script_edit<'a>(edits: &'a [SkillEdit], which: &str) -> Option<&'a SkillEdit> {
    let prefix = format!("{SUITE}-{which}");
    edits.iter().find(|e| e.id.starts_with(&prefix))
}

fn find<'a>(edits: &'a [SkillEdit], which: &str) -> &'a SkillEdit {
    script_edit(edits, which).expect("the script's edit")
}

/// The drifted rate sheet's replay blessed as its new golden trace, once
/// its edit is simulated: when, the task, and the trace.
pub(super) fn rebless(edits: &[SkillEdit]) -> Option<(i64, String, Trace)> {
    let drifted = script_edit(edits, DRIFTED)?;
    let sheet = drifted
        .replays
        .iter()
        .find(|r| r.task == "fx-rate-sheet")
        .expect("edit 9 replays the rate sheet");
    Some((
        decided_ms(drifted) + REBLESS_AFTER_H * HOUR_MS,
        sheet.task.clone(),
        sheet.replay.clone(),
    ))
}

/// The drifted sheet is blessed again this many hours after its verdict.
const REBLESS_AFTER_H: i64 = 1;

/// The missed regression undone; the drifted rate sheet's replay blessed
/// as its new golden trace; an undo of an earlier reporting edit refused,
/// since a later edit of the skill was merged since.
pub(super) fn actions(edits: &[SkillEdit]) -> RegressionActions {
    let missed = find(edits, MISSED);
    let drifted = find(edits, DRIFTED);
    let earlier = find(edits, EARLIER);
    let (_, task, blessed) = rebless(edits).expect("edit 9 is simulated");
    let at = |edit: &SkillEdit, hours: i64| format(UnixMillis(decided_ms(edit) + hours * HOUR_MS));
    RegressionActions {
        format_version: FormatVersion,
        kind: RegressionActionsKind::RegressionActions,
        suite: SUITE.to_string(),
        provenance: Provenance::Simulated,
        actions: vec![
            SuiteAction {
                id: "undo-1".to_string(),
                action: ActionKind::Undo,
                edit: missed.id.clone(),
                by: "a maintainer (simulated)".to_string(),
                at: at(missed, UNDO_AFTER_H),
                task: None,
                golden_sha256: None,
                outcome: ActionOutcome::Done,
                reason: None,
                commit: undo_commit(edits).map(|(_, c)| c),
            },
            SuiteAction {
                id: "rebless-1".to_string(),
                action: ActionKind::Rebless,
                edit: drifted.id.clone(),
                by: "a maintainer (simulated)".to_string(),
                at: at(drifted, REBLESS_AFTER_H),
                task: Some(task),
                golden_sha256: Some(trace_digest(&blessed)),
                outcome: ActionOutcome::Done,
                reason: None,
                commit: None,
            },
            SuiteAction {
                id: "undo-2".to_string(),
                action: ActionKind::Undo,
                edit: earlier.id.clone(),
                by: "a maintainer (simulated)".to_string(),
                at: at(drifted, 2),
                task: None,
                golden_sha256: None,
                outcome: ActionOutcome::Refused,
                reason: Some(format!(
                    "{} was merged later on the same skill ({}); undo it first",
                    drifted.id, drifted.skill.name
                )),
                commit: None,
            },
        ],
    }
}

/// What a judge of `tier` answers about `replay`: what the edit's own judge
/// of that tier said, or, where none was called, the script's answer.
fn answer(replay: &Replay, tier: &str) -> (JudgeVerdict, f64) {
    if let Some(j) = replay.judges.iter().find(|j| j.tier == tier) {
        return (j.verdict, j.confidence);
    }
    match (
        replay.level0.result,
        replay.outcome.decided_by.as_str(),
        tier,
    ) {
        (Level0Result::Same, ..) => (JudgeVerdict::Pass, 0.95),
        // Closing stale issues reads as tidying to every judge but the
        // medium one: without level 0 the hard fail gets through. Any
        // other hard tool's new call reads as the harm it is.
        (Level0Result::HardFail, ..) if !closes_issues(replay) => (JudgeVerdict::Regressed, 0.85),
        (Level0Result::HardFail, _, "medium") => (JudgeVerdict::Regressed, 0.7),
        (Level0Result::HardFail, _, "small") => (JudgeVerdict::Unsure, 0.55),
        (Level0Result::HardFail, ..) => (JudgeVerdict::Pass, 0.85),
        // The control replay's noise looks like a change to every judge.
        (_, "control", "large") => (JudgeVerdict::Regressed, 0.7),
        (_, "control", _) => (JudgeVerdict::Unsure, 0.6),
        _ => (JudgeVerdict::Pass, 0.9),
    }
}

/// Whether the replay's new calls close issues.
fn closes_issues(replay: &Replay) -> bool {
    replay
        .level0
        .added
        .iter()
        .any(|e| e.tool == "github.close_issue")
}

/// The edits judged again under `rules`, each judge called in turn until
/// the cascade decides.
fn ablation(
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    id: &str,
    title: &str,
    rules: AblatedRules,
    at: i64,
    prompts: Prompts,
) -> RegressionAblation {
    let cascade = CascadeRules::ablated(suite, &rules).expect("the script's rules");
    let mut rng = Rng::from_key(&format!("{SUITE}/ablation/{id}"));
    let mut t = at;
    let mut out = Vec::new();
    let mut figures = AblationFigures {
        regressions: 0,
        held_or_reverted: 0,
        reverted: 0,
        recall: 0.0,
        block_recall: 0.0,
        controls: 0,
        false_alarms: 0,
        cost_usd: 0.0,
    };
    let mut total = Cost::ZERO;
    for edit in edits.iter().filter(|e| e.label.is_some()) {
        let mut replays = Vec::new();
        let mut decisions = Vec::new();
        let mut cost = Cost::ZERO;
        for replay in &edit.replays {
            let mut judges: Vec<Judgment> = Vec::new();
            let decision = loop {
                let d = replay_verdict_under(&cascade, replay, &judges);
                if d.result.is_some() || judges.len() >= d.judges.len() {
                    break d;
                }
                let tier = &d.judges[judges.len()];
                let key = format!("{id}/{}/{}/{tier}", edit.id, replay.task);
                let call = judge_call(&key, tier, &mut rng, t, prompts);
                t += call.latency_ms as i64 + 500;
                cost = cost + call_cost(&call, &suite.prices).unwrap_or_default();
                let (verdict, confidence) = answer(replay, tier);
                judges.push(Judgment {
                    tier: tier.clone(),
                    verdict,
                    confidence,
                    rationale: rationale(verdict, &replay.task, judges.len() + 1),
                    call,
                });
            };
            replays.push(AblatedReplay {
                task: replay.task.clone(),
                judges,
                outcome: ReplayOutcome {
                    result: decision.result.expect("the script decides every replay"),
                    decided_by: decision.decided_by.clone(),
                },
            });
            decisions.push(decision);
        }
        let result = verdict(&decisions).expect("decided");
        let label = edit.label.as_ref().expect("labelled");
        let caught = result != VerdictResult::Pass;
        if label.regression {
            figures.regressions += 1;
            figures.held_or_reverted += u64::from(caught);
            figures.reverted += u64::from(result == VerdictResult::Block);
        } else {
            figures.controls += 1;
            figures.false_alarms += u64::from(caught);
        }
        total = total + cost;
        out.push(AblatedEdit {
            edit: edit.id.clone(),
            replays,
            result,
            cost_usd: round6(cost.low),
        });
    }
    let two = |n: u64, of: u64| (n as f64 / of.max(1) as f64 * 100.0).round() / 100.0;
    figures.recall = two(figures.held_or_reverted, figures.regressions);
    figures.block_recall = two(figures.reverted, figures.regressions);
    figures.cost_usd = round6(total.low);
    RegressionAblation {
        format_version: FormatVersion,
        kind: RegressionAblationKind::RegressionAblation,
        id: id.to_string(),
        suite: SUITE.to_string(),
        title: title.to_string(),
        provenance: Provenance::Simulated,
        rules,
        edits: out,
        figures,
    }
}

/// The ablations, run one after another from `at`, their judges' prompts
/// as long as the edits' own.
pub(super) fn ablations(
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    at: i64,
    prompts: Prompts,
) -> Vec<RegressionAblation> {
    let all: Vec<String> = JUDGES.iter().map(|(t, ..)| t.to_string()).collect();
    let alone = |k: usize| vec![JUDGES[k].0.to_string()];
    [
        (
            "no-level0",
            "Level 0 off: every replay goes to the judges",
            AblatedRules {
                level0: false,
                drift: true,
                judges: all.clone(),
            },
        ),
        (
            "no-drift",
            "The drift check off",
            AblatedRules {
                level0: true,
                drift: false,
                judges: all,
            },
        ),
        (
            "single-judge",
            "One judge: the largest alone",
            AblatedRules {
                level0: true,
                drift: true,
                judges: alone(2),
            },
        ),
        (
            "single-judge-medium",
            "One judge: the medium alone",
            AblatedRules {
                level0: true,
                drift: true,
                judges: alone(1),
            },
        ),
        (
            "single-judge-small",
            "One judge: the small alone",
            AblatedRules {
                level0: true,
                drift: true,
                judges: alone(0),
            },
        ),
    ]
    .into_iter()
    .enumerate()
    .map(|(n, (id, title, rules))| {
        ablation(
            suite,
            edits,
            id,
            title,
            rules,
            at + n as i64 * HOUR_MS,
            prompts,
        )
    })
    .collect()
}
