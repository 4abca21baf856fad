//! The sandbox's answers and the commits behind an action, decided by hand:
//! each answer or commit a publisher could forge fails its own receipt.

use serde_json::json;

use super::*;
use crate::model::{ActionOutcome, RegressionActions, Sandbox};

fn sandboxed_suite() -> RegressionSuite {
    let mut s = suite();
    s.sandbox = Some(Sandbox {
        refusal_status: 409,
        refusal_error: "ratchet_blocked".to_string(),
    });
    s
}

fn answered(tool: &str, n: u64, answer: Value) -> Value {
    let mut e = effect(tool, n);
    e["sandbox"] = answer;
    e
}

fn cassette() -> Value {
    json!({"answer": "cassette"})
}

fn refused(status: u16, error: &str) -> Value {
    json!({"answer": "refused", "status": status, "error": error})
}

/// The sandbox receipt of a replay of golden `[comment 1]` that made `calls`.
fn sandbox(s: &RegressionSuite, calls: Vec<Value>) -> Option<Receipt> {
    let golden = vec![effect("github.comment", 1)];
    sandbox::sandbox_receipt("e", s, 0, &one(replay(golden, calls, vec![])))
}

#[test]
fn the_sandbox_answers_each_call_as_it_must() {
    let s = sandboxed_suite();
    let ok = sandbox(
        &s,
        vec![
            answered("github.comment", 1, cassette()),
            answered("github.close_issue", 7, refused(409, "ratchet_blocked")),
            answered("github.label", 3, json!({"answer": "mock"})),
            answered("github.label", 4, refused(409, "ratchet_blocked")),
        ],
    )
    .expect("a receipt");
    assert_eq!(ok.status, Status::Pass, "{ok:?}");
    assert_eq!(
        ok.recorded,
        "replay: 1 cassette, 1 mock, 2 refused 409 ratchet_blocked"
    );
    // Without a sandbox and without answers, nothing is claimed.
    assert_eq!(
        sandbox(&suite(), vec![effect("github.close_issue", 7)]),
        None
    );
}

#[test]
fn a_forged_sandbox_answer_fails() {
    let s = sandboxed_suite();
    let fails = |calls: Vec<Value>, why: &str| {
        let r = sandbox(&s, calls).expect("a receipt");
        assert_eq!(r.status, Status::Fail, "{r:?}");
        assert!(r.recomputed.contains(why), "{why}: {}", r.recomputed);
    };
    let hard = "a hard tool's call that no cassette holds: refused 409 ratchet_blocked";
    // A hard tool's new call passed off as the golden trace's.
    fails(vec![answered("github.close_issue", 7, cassette())], hard);
    // Or as a mock, or with no answer, or refused with another status.
    fails(
        vec![answered("github.close_issue", 7, json!({"answer": "mock"}))],
        hard,
    );
    fails(vec![effect("github.close_issue", 7)], hard);
    fails(
        vec![answered(
            "github.close_issue",
            7,
            refused(200, "ratchet_blocked"),
        )],
        hard,
    );
    // A second call the cassette holds only once.
    fails(
        vec![
            answered("github.comment", 1, cassette()),
            answered("github.comment", 1, cassette()),
        ],
        "replay.side_effects[1] (github.comment {\"issue\":1}), answered cassette: no cassette holds this call",
    );
    // A golden call answered otherwise than from the cassette.
    fails(
        vec![answered("github.comment", 1, json!({"answer": "mock"}))],
        "the golden trace made this call: served from its cassette",
    );
    // Answers on a suite that states no sandbox.
    let r = sandbox(&suite(), vec![answered("github.comment", 1, cassette())]).expect("a receipt");
    assert_eq!(r.status, Status::Fail);
    assert_eq!(r.recomputed, "the suite states no sandbox");
}

#[test]
fn the_control_replay_is_held_to_the_sandbox_too() {
    let s = sandboxed_suite();
    let golden = vec![effect("github.comment", 1)];
    let mut r = replay(
        golden.clone(),
        vec![answered("github.comment", 1, cassette())],
        vec![],
    );
    r["control"] = trace(vec![answered(
        "github.close_issue",
        9,
        json!({"answer": "mock"}),
    )]);
    let receipt = sandbox::sandbox_receipt("e", &s, 0, &one(r)).expect("a receipt");
    assert_eq!(receipt.status, Status::Fail);
    assert!(
        receipt.recomputed.starts_with("control.side_effects[0]"),
        "{}",
        receipt.recomputed
    );
}

const MAIN: &str = "1111111111111111111111111111111111111111";
const CAND: &str = "2222222222222222222222222222222222222222";
const ACT: &str = "3333333333333333333333333333333333333333";

fn commit(hash: &str, parents: &[&str], branch: &str, skill: &[u8]) -> Value {
    json!({"hash": hash, "parents": parents, "branch": branch, "skill_sha256": sha256_hex(skill)})
}

/// The blocked edit with `action` as its action's commit.
fn with_commits(action: Value) -> SkillEdit {
    let mut v = blocked_verdict();
    v["commits"] = json!({
        "base": MAIN,
        "candidate": commit(CAND, &[MAIN], "candidate", AFTER),
        "action": action,
    });
    edit(blocked(), v)
}

fn commit_failures(e: &SkillEdit) -> Vec<String> {
    failing(&verify_skill_edit("R01", &suite(), e, &objects()))
}

#[test]
fn a_revert_is_a_commit_on_candidate_restoring_the_skill() {
    let e = with_commits(commit(ACT, &[CAND], "candidate", BEFORE));
    assert_eq!(commit_failures(&e), Vec::<String>::new());
    // The revert that did not revert, made on main, or with no commit.
    for (action, why) in [
        (
            commit(ACT, &[CAND], "candidate", AFTER),
            "the skill as edited / on candidate, parents [2222222], the skill as before",
        ),
        (
            commit(ACT, &[MAIN, CAND], "main", BEFORE),
            "on main, parents [1111111, 2222222]",
        ),
        (Value::Null, "no commit / a commit on candidate"),
        (
            commit("3333", &[CAND], "candidate", BEFORE),
            "a git object id, 40 or 64 lowercase hex digits",
        ),
    ] {
        let failed = commit_failures(&with_commits(action));
        assert!(
            failed
                .iter()
                .any(|f| f.starts_with("verdict.commits.action") && f.contains(why)),
            "{why}: {failed:?}"
        );
    }
}

#[test]
fn a_candidate_off_its_base_or_a_hold_with_a_commit_fails() {
    let mut e = with_commits(commit(ACT, &[CAND], "candidate", BEFORE));
    let c = e.verdict.commits.as_mut().expect("commits");
    c.candidate.parents = vec![ACT.to_string()];
    let failed = commit_failures(&e);
    assert!(
        failed
            .iter()
            .any(|f| f.starts_with("verdict.commits.candidate")),
        "{failed:?}"
    );
    // The same commit id twice.
    let mut e = with_commits(commit(ACT, &[CAND], "candidate", BEFORE));
    e.verdict.commits.as_mut().expect("commits").base = CAND.to_string();
    let failed = commit_failures(&e);
    assert!(
        failed.iter().any(|f| f.starts_with("verdict.commits.base")),
        "{failed:?}"
    );
    // A merge joins main's head and the candidate.
    let mut e = with_commits(commit(ACT, &[MAIN, CAND], "main", AFTER));
    e.replays.truncate(2);
    let failed = commit_failures(&e);
    assert!(failed.contains(&"verdict.action: revert / merge".to_string()));
    assert!(
        !failed.iter().any(|f| f.starts_with("verdict.commits")),
        "held to the recomputed merge: {failed:?}"
    );
    // A hold makes no commit: the edit waits on candidate.
    let mut e = with_commits(commit(ACT, &[CAND], "candidate", BEFORE));
    e.replays[2].judges[1].verdict = JudgeVerdict::Unsure;
    let failed = commit_failures(&e);
    assert!(
        failed
            .iter()
            .any(|f| f.starts_with("verdict.commits.action")
                && f.ends_with("/ a hold makes no commit: the edit waits on candidate")),
        "{failed:?}"
    );
}

#[test]
fn main_s_history_ties_the_edits_and_the_undo_together() {
    // e1 merged at 10:00; e2 made at 12:00 must start from that merge; an
    // undo of e1 at 11:00 sits on the merge, restoring the skill.
    let merged = |id: &str, at: &str, decided: &str, base: &str, cand: &str, merge: &str| {
        let mut e = edit(
            vec![replay(vec![], vec![], vec![])],
            json!({"result": "PASS", "action": "merge", "decided_at": decided,
                   "cost": {"by_tier": {}, "total_usd": 0.0, "all_largest_usd": 0.0},
                   "commits": {"base": base,
                               "candidate": commit(cand, &[base], "candidate", AFTER),
                               "action": commit(merge, &[base, cand], "main", AFTER)}}),
        );
        e.id = id.to_string();
        e.edited_at = at.to_string();
        e
    };
    const M2: &str = "4444444444444444444444444444444444444444";
    const C2: &str = "5555555555555555555555555555555555555555";
    const U: &str = "6666666666666666666666666666666666666666";
    let history = |parent: &str, skill: &[u8]| -> RegressionActions {
        serde_json::from_value(json!({
            "format_version": 1, "kind": "regression_actions", "suite": "R01",
            "provenance": "simulated",
            "actions": [{"id": "undo-1", "action": "undo", "edit": "e1", "by": "x",
                         "at": "2026-11-01T11:00:00Z", "outcome": "done",
                         "commit": commit(U, &[parent], "main", skill)}]
        }))
        .expect("history")
    };
    let e1 = merged(
        "e1",
        "2026-11-01T09:00:00Z",
        "2026-11-01T10:00:00Z",
        MAIN,
        CAND,
        ACT,
    );
    let good = [
        e1.clone(),
        merged(
            "e2",
            "2026-11-01T12:00:00Z",
            "2026-11-01T13:00:00Z",
            U,
            C2,
            M2,
        ),
    ];
    let (bases, undos) = commits::main_line("R01", &good, Some(&history(ACT, BEFORE)));
    let all: Vec<Receipt> = bases.into_iter().map(|(_, r)| r).chain(undos).collect();
    assert_eq!(all.len(), 3);
    assert_eq!(failing(&all), Vec::<String>::new());
    // e2 claims main's head was e1's merge, as if the undo never happened.
    let forged = [
        e1.clone(),
        merged(
            "e2",
            "2026-11-01T12:00:00Z",
            "2026-11-01T13:00:00Z",
            ACT,
            C2,
            M2,
        ),
    ];
    let (bases, _) = commits::main_line("R01", &forged, Some(&history(ACT, BEFORE)));
    let failed = failing(&bases.into_iter().map(|(_, r)| r).collect::<Vec<_>>());
    assert_eq!(
        failed,
        ["verdict.commits.base: 3333333 / 6666666 (main's head then, undo undo-1)"]
    );
    // An edit whose commits are dropped, while the suite records the rest.
    let mut hidden = good.clone();
    hidden[1].verdict.commits = None;
    let (bases, _) = commits::main_line("R01", &hidden, Some(&history(ACT, BEFORE)));
    let failed = failing(&bases.into_iter().map(|(_, r)| r).collect::<Vec<_>>());
    assert_eq!(
        failed,
        ["verdict.commits: none recorded / the suite records the commits of 1 of its 2 edits: each edit's candidate and action are owed"]
    );
    // An undo that keeps the edited skill, or sits off main's head.
    for (parent, skill) in [(ACT, AFTER), (MAIN, BEFORE)] {
        let (_, undos) = commits::main_line("R01", &good, Some(&history(parent, skill)));
        assert_eq!(failing(&undos).len(), 1, "{parent} {skill:?}");
    }
    // A done undo whose commit is dropped, and a refused one given a commit.
    let mut dropped = history(ACT, BEFORE);
    dropped.actions[0].commit = None;
    let (_, undos) = commits::main_line("R01", &good, Some(&dropped));
    assert!(
        failing(&undos)[0].starts_with("actions[undo-1].commit: no commit / a commit on main"),
        "{:?}",
        failing(&undos)
    );
    let mut refused = history(ACT, BEFORE);
    refused.actions[0].outcome = ActionOutcome::Refused;
    let (_, undos) = commits::main_line("R01", &good, Some(&refused));
    assert_eq!(
        failing(&undos),
        ["actions[undo-1].commit: 6666666 on main, parents [3333333], the skill as before / a refused undo makes no commit"]
    );
}
