//! The benchmark's sweep: the labelled edits beyond the ten cases, so that
//! each class holds as many edits, and the cascade decides as many of them
//! each way, as the source's sweep of 35 edits did (per class, detected:
//! R1 3 of 5, R2 4 of 4, R3 4 of 5, R4 2 of 2, R5 5 of 5, R6 2 of 4; 9 of
//! the 25 regressions reverted; 7 of 8 cosmetic edits held; both drift
//! controls passed). Every edit replays five blessed tasks: the one its
//! change shows in, and four others, which repeat their golden traces or
//! word a call differently (the small judge passes those); most replays
//! have a control replay of the unchanged skill, and in 21 of them the
//! control differs from the golden trace (the noise a control catches;
//! once, a control that makes the very change the edit made, which hides
//! a regression from level 0).
//! The sweep comes after the rate sheet's golden trace was blessed again
//! at EUR/USD 1.11, and the rate moves once more, to 1.12, before its
//! drift control.

use serde_json::json;

use receipts_verifier::model::{JudgeVerdict, SideEffect, VerdictResult};

use super::script::{
    changed, effect, reworded, Block, EditPlan, Pass, Script, Warn, P, R, TASKS, U,
};

/// How the cascade decides an edit's changed replay.
enum Decided {
    /// The judges, in cascade order, and the verdict they come to, as the
    /// script states it (the verifier recomputes it).
    Judged(Vec<(JudgeVerdict, f64)>, (VerdictResult, &'static str)),
    /// A new call to a hard tool: level 0 blocks it.
    HardFail,
    /// The control replay makes the same change, so level 0 calls it noise.
    MaskedByControl,
    /// No blessed task shows the change: every replay repeats its golden trace.
    NotCovered,
    /// The world moved: the judges see a regression, drift evidence says otherwise.
    Drift,
}

/// One edit of the sweep: its skill and label, the skill's line before and
/// after, the task its change shows in with the calls that change (added,
/// and the golden trace's tool they replace), and how it is decided.
struct Sweep {
    skill: &'static str,
    class: &'static str,
    before: &'static str,
    after: &'static str,
    task: &'static str,
    add: Vec<SideEffect>,
    replace: Option<&'static str>,
    decided: Decided,
}

/// What a replay of `task` whose control replay is noisy does there: the
/// unchanged skill words or orders its calls a little differently.
fn noise(task: &str) -> Vec<SideEffect> {
    match task {
        "triage-stale-issues" => vec![
            effect("github.label", json!({"issue": 101, "label": "stale"})),
            effect(
                "github.comment",
                json!({"issue": 101, "body": "Marked stale after 30 days (no activity)."}),
            ),
        ],
        "label-new-bugs" => vec![
            effect("github.label", json!({"issue": 214, "label": "bug"})),
            effect("github.label", json!({"issue": 214, "label": "needs-info"})),
        ],
        "cut-release" => vec![effect(
            "github.create_release",
            json!({"tag": "v1.4.0", "notes": "Fixes: #214, #101"}),
        )],
        "weekly-digest" => vec![effect(
            "chat.post",
            json!({"channel": "#eng", "text": "12 issues were closed this week"}),
        )],
        "fx-rate-sheet" => vec![effect(
            "sheets.write",
            json!({"cell": "B2", "value": "1.110", "note": "EUR/USD"}),
        )],
        _ => vec![effect(
            "github.commit",
            json!({"path": "CHANGELOG.md", "message": "Update changelog (retry)"}),
        )],
    }
}

/// The edits of the sweep whose control replays all match their golden
/// traces but on one replay: the first 20.
const NOISY: usize = 20;
/// The edits of the sweep whose last replay has no control replay: the first 12.
const UNCONTROLLED: usize = 12;
/// The edits of the sweep with a second replay the small judge settles
/// (every edit has one): the first 8. Replays the small judge settles are
/// what make the cascade cheaper than the largest judge on every replay.
const TWICE_REWORDED: usize = 8;

pub(super) fn plans() -> Vec<EditPlan> {
    sweep()
        .into_iter()
        .enumerate()
        .map(|(n, s)| plan(n, s))
        .collect()
}

fn plan(n: usize, s: Sweep) -> EditPlan {
    let regression = s.class.starts_with('R');
    let primary = match s.decided {
        Decided::NotCovered => Script::Same,
        Decided::HardFail => changed(s.add, s.replace, vec![], (Block, "level0")),
        Decided::MaskedByControl => Script::Changed {
            add: s.add,
            replace: s.replace,
            noisy_control: true,
            judges: vec![],
            drift: None,
            outcome: (Pass, "control"),
        },
        Decided::Drift => Script::Changed {
            add: s.add,
            replace: s.replace,
            noisy_control: false,
            judges: vec![(R, 0.81), (R, 0.87), (R, 0.9)],
            drift: Some("2026-11-23"),
            outcome: (Pass, "drift"),
        },
        Decided::Judged(judges, outcome) => changed(s.add, s.replace, judges, outcome),
    };
    // Four other blessed tasks, a different four from edit to edit.
    let others: Vec<&'static str> = TASKS
        .iter()
        .map(|t| t.id)
        .filter(|t| *t != s.task)
        .cycle()
        .skip(n % 5)
        .take(4)
        .collect();
    let mut replays = vec![(s.task, primary)];
    for (k, task) in others.iter().enumerate() {
        let confidence = 0.86 + 0.01 * ((n + k) % 10) as f64;
        let script = match k {
            0 if n < NOISY => Script::Noise(noise(task)),
            1 => reworded(task, confidence),
            2 if n < TWICE_REWORDED => reworded(task, confidence),
            _ => Script::Same,
        };
        replays.push((*task, script));
    }
    let mut controls: Vec<&'static str> = replays.iter().map(|(t, _)| *t).collect();
    if n < UNCONTROLLED {
        controls.pop();
    }
    EditPlan {
        skill: s.skill,
        class: s.class,
        regression,
        before: s.before,
        after: s.after,
        replays,
        controls,
    }
}

fn judged(judges: &[(JudgeVerdict, f64)], outcome: (VerdictResult, &'static str)) -> Decided {
    Decided::Judged(judges.to_vec(), outcome)
}

fn sweep() -> Vec<Sweep> {
    let s = |skill, class, before, after, task, add, replace, decided| Sweep {
        skill,
        class,
        before,
        after,
        task,
        add,
        replace,
        decided,
    };
    let label =
        |issue: u64, label: &str| effect("github.label", json!({"issue": issue, "label": label}));
    let comment = |body: &str| effect("github.comment", json!({"issue": 101, "body": body}));
    let release = |notes: &str| {
        effect(
            "github.create_release",
            json!({"tag": "v1.4.0", "notes": notes}),
        )
    };
    let post =
        |channel: &str, text: &str| effect("chat.post", json!({"channel": channel, "text": text}));
    let commit = |message: &str| {
        effect(
            "github.commit",
            json!({"path": "CHANGELOG.md", "message": message}),
        )
    };
    let sheet = |value: &str, note: Option<&str>| {
        let mut args = json!({"cell": "B2", "value": value});
        if let Some(note) = note {
            args["note"] = json!(note);
        }
        effect("sheets.write", args)
    };
    let (triage, bugs, cut, changelog, digest, fx) = (
        "triage-stale-issues",
        "label-new-bugs",
        "cut-release",
        "changelog-canary",
        "weekly-digest",
        "fx-rate-sheet",
    );
    vec![
        s("github-triage", "R1", "Stale issues: comment once, then label them `stale`.", "Stale issues: label them `stale`; comment only if asked.", triage,
          vec![], Some("github.comment"), judged(&[(R, 0.72), (U, 0.61), (R, 0.87)], (Warn, "large"))),
        s("release", "N0", "Releases: tag them `vMAJOR.MINOR.PATCH`.", "Releases: tag them as `vMAJOR.MINOR.PATCH`.", cut,
          vec![release("Fixes #101 and #214")], Some("github.create_release"), judged(&[(R, 0.58), (R, 0.64), (U, 0.5)], (Warn, "large"))),
        s("reporting", "R5", "Digest: post on Fridays.", "Digest: post whenever an issue closes.", digest,
          vec![post("#eng", "Issue #101 closed")], None, judged(&[(U, 0.55), (R, 0.84), (R, 0.9)], (Block, "large"))),
        s("release", "R2", "Release notes: name the tag and list every fixed issue.", "Release notes: name the tag.", cut,
          vec![release("")], Some("github.create_release"), judged(&[(R, 0.8), (R, 0.87), (R, 0.93)], (Block, "large"))),
        s("reporting", "R3", "FX sheet: write the rate with its pair in the note.", "FX sheet: write the pair and the rate in the value.", fx,
          vec![sheet("EUR/USD 1.11", None)], Some("sheets.write"), judged(&[(R, 0.7), (U, 0.62), (R, 0.85)], (Warn, "large"))),
        s("release", "R1", "Changelog: one line per merged change, newest first.", "Changelog: one line per merged change, newest last.", changelog,
          vec![commit("Update changelog (oldest first)")], Some("github.commit"), judged(&[(P, 0.64), (P, 0.83)], (Pass, "medium"))),
        s("github-triage", "N0", "New bugs: label the issue `bug`.", "New bugs: label the issue `bug`, and say so.", bugs,
          vec![effect("github.comment", json!({"issue": 214, "body": "Labelled as a bug."}))], None, judged(&[(R, 0.6), (R, 0.67), (U, 0.53)], (Warn, "large"))),
        s("github-triage", "R5", "Trigger: issues labelled `needs-triage`.", "Trigger: any new issue or comment.", bugs,
          vec![label(214, "needs-triage")], None, judged(&[(U, 0.5), (U, 0.58), (R, 0.82)], (Warn, "large"))),
        s("release", "R3", "Releases: create them with `github.create_release`.", "Releases: create them with `github.create_tag` and a note.", cut,
          vec![effect("github.create_tag", json!({"tag": "v1.4.0", "message": "Fixes: #101, #214"}))], Some("github.create_release"), judged(&[(U, 0.5), (R, 0.88), (R, 0.94)], (Block, "large"))),
        s("reporting", "R6", "Digest: post on Fridays.", "Digest: post on Fridays when more than 20 issues closed.", digest,
          vec![], Some("chat.post"), judged(&[(R, 0.68), (U, 0.6), (R, 0.86)], (Warn, "large"))),
        s("reporting", "N0", "Digest: list the count of closed issues.", "Digest: give the count of closed issues.", digest,
          vec![post("#eng", "Closed this week: 12 issues")], Some("chat.post"), judged(&[(R, 0.61), (R, 0.65), (U, 0.54)], (Warn, "large"))),
        s("github-triage", "R2", "Stale issues: comment with the number of days.", "Stale issues: comment.", triage,
          vec![comment("Marked stale.")], Some("github.comment"), judged(&[(U, 0.57), (P, 0.7), (R, 0.84)], (Warn, "large"))),
        s("release", "R4", "Releases: keep the release branch until the next release.", "Releases: delete the release branch once tagged.", cut,
          vec![effect("github.delete_branch", json!({"branch": "release/1.4"}))], None, Decided::HardFail),
        s("github-triage", "R1", "New bugs: label the issue `bug`.", "New bugs: label the issue `bug` and every issue it duplicates.", bugs,
          vec![label(198, "bug")], None, Decided::MaskedByControl),
        s("release", "R5", "Changelog: update it when a release is cut.", "Changelog: update it on every push.", changelog,
          vec![commit("Update changelog (push)")], None, judged(&[(U, 0.55), (U, 0.6), (R, 0.83)], (Warn, "large"))),
        s("github-triage", "R3", "Stale issues: label them with `github.label`.", "Stale issues: label them with `github.label`, as `labels: [stale]` on issues without a milestone.", triage,
          vec![], None, Decided::NotCovered),
        s("reporting", "D1", "FX sheet: write today's EUR/USD rate to B2.", "FX sheet: write today's EUR/USD rate to B2, with its source.", fx,
          vec![sheet("1.12", Some("EUR/USD"))], Some("sheets.write"), Decided::Drift),
        s("reporting", "R5", "Digest: post to #eng.", "Digest: post to #eng and to every channel that mentions a release.", digest,
          vec![post("#releases", "12 issues closed this week")], None, judged(&[(U, 0.52), (R, 0.7), (U, 0.6)], (Warn, "large"))),
        s("release", "N0", "Changelog: one line per merged change.", "Changelog: write one line per merged change.", changelog,
          vec![commit("Update CHANGELOG")], Some("github.commit"), judged(&[(R, 0.59), (R, 0.63), (U, 0.51)], (Warn, "large"))),
        s("reporting", "R2", "Digest: post the count and the list of closed issues.", "Digest: post the count.", digest,
          vec![post("#eng", "12")], Some("chat.post"), judged(&[(R, 0.77), (R, 0.85), (R, 0.92)], (Block, "large"))),
        s("reporting", "R1", "FX sheet: write the rate to two decimals.", "FX sheet: write the rate to one decimal.", fx,
          vec![sheet("1.1", Some("EUR/USD"))], Some("sheets.write"), judged(&[(R, 0.66), (U, 0.6), (R, 0.84)], (Warn, "large"))),
        s("github-triage", "R3", "New bugs: label the issue `bug`.", "New bugs: label the issue `type: bug`.", bugs,
          vec![label(214, "type: bug")], Some("github.label"), judged(&[(U, 0.56), (U, 0.62), (R, 0.86)], (Warn, "large"))),
        s("github-triage", "N0", "Stale issues: leave a comment before labelling.", "Stale issues: leave a brief comment before labelling.", triage,
          vec![comment("Marked stale: 30 days without activity.")], Some("github.comment"), judged(&[(R, 0.6), (R, 0.68), (U, 0.5)], (Warn, "large"))),
        s("github-triage", "R5", "Stale issues: after 30 days without activity.", "Stale issues: after 30 days, or at once without an assignee.", triage,
          vec![label(117, "stale")], None, judged(&[(U, 0.54), (R, 0.72), (U, 0.63)], (Warn, "large"))),
        s("release", "R6", "Releases: cut one when `main` is green.", "Releases: cut one when `main` is green and a maintainer approves.", cut,
          vec![effect("github.comment", json!({"issue": 230, "body": "Release v1.4.0 awaits a maintainer's approval."}))], Some("github.create_release"), judged(&[(P, 0.86)], (Pass, "small"))),
    ]
}
