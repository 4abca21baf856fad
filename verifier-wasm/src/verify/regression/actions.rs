//! A suite's action history checked against its edits: each action names
//! an edit that exists and comes after that edit's verdict; a re-bless
//! names the new golden trace by the digest of the edit's replay, and every
//! later replay of the task starts from it; an undo is refused exactly when
//! the edit was not merged, or a later edit of the same skill was merged
//! before the undo was asked for, and a refusal names that edit.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{
    actions_path, ActionKind, ActionOutcome, RegressionActions, RegressionSuite, SkillEdit,
    SuiteAction, VerdictResult,
};
use crate::time::parse;

use super::super::Receipt;
use super::{replay_verdict, trace_digest, verdict};

fn ms(text: &str) -> Option<i64> {
    parse(text).ok().map(|t| t.0)
}

/// When an edit's verdict was decided (its edit time when not recorded), in ms.
fn decided_ms(edit: &SkillEdit) -> Option<i64> {
    ms(edit
        .verdict
        .decided_at
        .as_deref()
        .unwrap_or(&edit.edited_at))
}

fn outcome_name(o: ActionOutcome) -> &'static str {
    match o {
        ActionOutcome::Done => "done",
        ActionOutcome::Refused => "refused",
    }
}

/// Every receipt of a suite's action history.
pub fn verify_actions(
    dir: &str,
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    history: &RegressionActions,
) -> Vec<Receipt> {
    let subject = actions_path(dir);
    let subject = subject.as_str();
    let mut receipts = vec![Receipt::new(
        subject,
        "suite",
        &history.suite,
        &suite.id,
        history.suite == suite.id,
    )];
    let by_id: BTreeMap<&str, &SkillEdit> = edits.iter().map(|e| (e.id.as_str(), e)).collect();
    let merged: BTreeSet<&str> = edits
        .iter()
        .filter(|e| {
            let decisions: Vec<_> = e.replays.iter().map(|r| replay_verdict(suite, r)).collect();
            verdict(&decisions) == Some(VerdictResult::Pass)
        })
        .map(|e| e.id.as_str())
        .collect();
    let mut seen = BTreeSet::new();
    let mut undone: BTreeSet<&str> = BTreeSet::new();
    let mut previous: Option<i64> = None;
    for action in &history.actions {
        let claim = |field: &str| format!("actions[{}].{field}", action.id);
        if !seen.insert(action.id.as_str()) {
            receipts.push(Receipt::new(
                subject,
                claim("id"),
                &action.id,
                "an id used by an earlier action",
                false,
            ));
            continue;
        }
        let Some(edit) = by_id.get(action.edit.as_str()) else {
            receipts.push(Receipt::new(
                subject,
                claim("edit"),
                &action.edit,
                "no edit of the suite has this id",
                false,
            ));
            continue;
        };
        let at = ms(&action.at);
        receipts.push(timing(subject, claim("at"), action, edit, at, previous));
        if at.is_some() {
            previous = at.max(previous);
        }
        match action.action {
            ActionKind::Rebless => receipts.extend(rebless(subject, edits, action, edit, at)),
            ActionKind::Undo => {
                let expected = undo_outcome(edits, &merged, &undone, edit, at);
                if expected.is_ok() && action.outcome == ActionOutcome::Done {
                    undone.insert(edit.id.as_str());
                }
                receipts.push(undo_receipt(subject, claim("outcome"), action, expected));
            }
        }
    }
    receipts
}

/// The action comes after its edit's verdict, and not before the action
/// recorded before it.
fn timing(
    subject: &str,
    claim: String,
    action: &SuiteAction,
    edit: &SkillEdit,
    at: Option<i64>,
    previous: Option<i64>,
) -> Receipt {
    let found = match (at, decided_ms(edit)) {
        (None, _) => Err("not a UTC time".to_string()),
        (_, None) => Err(format!("{} has no readable verdict time", edit.id)),
        (Some(at), Some(decided)) if at < decided => {
            Err(format!("before {}'s verdict was decided", edit.id))
        }
        (Some(at), _) if previous.is_some_and(|p| at < p) => {
            Err("before the action recorded before it".to_string())
        }
        (Some(_), Some(_)) => Ok(format!("after {}'s verdict", edit.id)),
    };
    match found {
        Ok(text) => Receipt::new(subject, claim, &action.at, text, true),
        Err(why) => Receipt::new(subject, claim, &action.at, why, false),
    }
}

/// A re-bless names a replay of the edit and that replay's digest, and
/// every replay of the task in an edit made after the re-bless, until the
/// next re-bless of the task, starts from that trace.
fn rebless(
    subject: &str,
    edits: &[SkillEdit],
    action: &SuiteAction,
    edit: &SkillEdit,
    at: Option<i64>,
) -> Vec<Receipt> {
    let claim = |field: &str| format!("actions[{}].{field}", action.id);
    let recorded = action
        .golden_sha256
        .clone()
        .unwrap_or_else(|| "none".to_string());
    let Some(task) = &action.task else {
        return vec![Receipt::new(
            subject,
            claim("task"),
            "none",
            "a re-bless names the task whose golden trace it replaces",
            false,
        )];
    };
    let Some(replay) = edit.replays.iter().find(|r| &r.task == task) else {
        return vec![Receipt::new(
            subject,
            claim("task"),
            task,
            format!("{} did not replay this task", edit.id),
            false,
        )];
    };
    let digest = trace_digest(&replay.replay);
    let mut receipts = vec![Receipt::new(
        subject,
        claim("golden_sha256"),
        &recorded,
        &digest,
        recorded == digest,
    )];
    if action.outcome == ActionOutcome::Done {
        let later: Vec<String> = edits
            .iter()
            .filter(|e| ms(&e.edited_at).zip(at).is_some_and(|(t, at)| t > at))
            .flat_map(|e| e.replays.iter().map(move |r| (e, r)))
            .filter(|(_, r)| &r.task == task && trace_digest(&r.golden) != digest)
            .map(|(e, _)| e.id.clone())
            .collect();
        receipts.push(Receipt::new(
            subject,
            claim("used_by"),
            format!("later replays of {task} start from it"),
            if later.is_empty() {
                "every later replay of the task starts from it".to_string()
            } else {
                format!(
                    "later replays start from another trace: {}",
                    later.join(", ")
                )
            },
            later.is_empty(),
        ));
    }
    receipts
}

/// Done, or refused with why: the edit was never merged, is already
/// undone, or a later merged edit of the same skill stands in the way.
fn undo_outcome<'a>(
    edits: &'a [SkillEdit],
    merged: &BTreeSet<&str>,
    undone: &BTreeSet<&str>,
    edit: &SkillEdit,
    at: Option<i64>,
) -> Result<(), (String, Option<&'a str>)> {
    if !merged.contains(edit.id.as_str()) {
        return Err((format!("{} was not merged", edit.id), None));
    }
    if undone.contains(edit.id.as_str()) {
        return Err((format!("{} is already undone", edit.id), None));
    }
    let conflict = edits.iter().find(|e| {
        e.skill.name == edit.skill.name
            && ms(&e.edited_at) > ms(&edit.edited_at)
            && merged.contains(e.id.as_str())
            && !undone.contains(e.id.as_str())
            && decided_ms(e).zip(at).is_some_and(|(d, at)| d <= at)
    });
    match conflict {
        Some(e) => Err((
            format!(
                "{} was merged later on the same skill ({})",
                e.id, edit.skill.name
            ),
            Some(e.id.as_str()),
        )),
        None => Ok(()),
    }
}

fn undo_receipt(
    subject: &str,
    claim: String,
    action: &SuiteAction,
    expected: Result<(), (String, Option<&str>)>,
) -> Receipt {
    let shown = match (&action.outcome, &action.reason) {
        (o, Some(r)) => format!("{}: {r}", outcome_name(*o)),
        (o, None) => outcome_name(*o).to_string(),
    };
    match expected {
        Ok(()) => Receipt::new(
            subject,
            claim,
            shown,
            "done: merged, and no later merged edit of the skill",
            action.outcome == ActionOutcome::Done,
        ),
        Err((why, conflict)) => {
            let names =
                conflict.is_none_or(|id| action.reason.as_deref().is_some_and(|r| r.contains(id)));
            Receipt::new(
                subject,
                claim,
                shown,
                format!("refused: {why}"),
                action.outcome == ActionOutcome::Refused && names,
            )
        }
    }
}
