//! The script of the simulated skill edits: the blessed tasks with their
//! golden traces, and each edit's replays with how the scripted cascade
//! decides them.

use serde_json::{json, Value};

use receipts_verifier::model::{JudgeVerdict, SideEffect, VerdictResult};

/// A blessed task and the side effects of its golden trace.
pub(super) struct Task {
    pub(super) id: &'static str,
    pub(super) world_dependent: bool,
    pub(super) golden: fn() -> Vec<SideEffect>,
}

pub(super) fn effect(tool: &str, args: Value) -> SideEffect {
    SideEffect {
        tool: tool.to_string(),
        args,
        sandbox: None,
    }
}

pub(super) const TASKS: [Task; 6] = [
    Task {
        id: "triage-stale-issues",
        world_dependent: false,
        golden: || {
            vec![
                effect("github.label", json!({"issue": 101, "label": "stale"})),
                effect(
                    "github.comment",
                    json!({"issue": 101, "body": "Marked stale after 30 days."}),
                ),
            ]
        },
    },
    Task {
        id: "label-new-bugs",
        world_dependent: false,
        golden: || {
            vec![effect(
                "github.label",
                json!({"issue": 214, "label": "bug"}),
            )]
        },
    },
    Task {
        id: "cut-release",
        world_dependent: false,
        golden: || {
            vec![effect(
                "github.create_release",
                json!({"tag": "v1.4.0", "notes": "Fixes: #101, #214"}),
            )]
        },
    },
    Task {
        id: "weekly-digest",
        world_dependent: false,
        golden: || {
            vec![effect(
                "chat.post",
                json!({"channel": "#eng", "text": "12 issues closed this week"}),
            )]
        },
    },
    Task {
        id: "fx-rate-sheet",
        world_dependent: true,
        golden: || {
            vec![effect(
                "sheets.write",
                json!({"cell": "B2", "value": "1.08", "note": "EUR/USD"}),
            )]
        },
    },
    Task {
        id: "changelog-canary",
        world_dependent: false,
        golden: || {
            vec![effect(
                "github.commit",
                json!({"path": "CHANGELOG.md", "message": "Update changelog"}),
            )]
        },
    },
];

/// What one replay of an edit does, and how the scripted cascade decides it.
#[derive(Clone)]
pub(super) enum Script {
    /// The replay repeats the golden trace.
    Same,
    /// The replay repeats the golden trace; its control replay, of the
    /// unchanged skill, makes these calls instead (noise).
    Noise(Vec<SideEffect>),
    /// The replay adds these calls, in place of the golden trace's calls to
    /// the tool `replace` names.
    Changed {
        add: Vec<SideEffect>,
        replace: Option<&'static str>,
        /// The control replay makes the same change (noise, not the edit).
        noisy_control: bool,
        /// Each judge's verdict and confidence, in cascade order, as far as
        /// the cascade goes.
        judges: Vec<(JudgeVerdict, f64)>,
        /// Corroborating drift evidence, for a world-dependent task: the
        /// day the new value (the one the replay writes) was observed.
        drift: Option<&'static str>,
        outcome: (VerdictResult, &'static str),
    },
}

pub(super) struct EditPlan {
    pub(super) skill: &'static str,
    pub(super) class: &'static str,
    pub(super) regression: bool,
    /// The skill's line before and after the edit.
    pub(super) before: &'static str,
    pub(super) after: &'static str,
    /// (task, script) per replay.
    pub(super) replays: Vec<(&'static str, Script)>,
    /// Which replays get a control replay of the unchanged skill.
    pub(super) controls: Vec<&'static str>,
}

pub(super) use JudgeVerdict::{Pass as P, Regressed as R, Unsure as U};
pub(super) use VerdictResult::{Block, Pass, Warn};

pub(super) fn changed(
    add: Vec<SideEffect>,
    replace: Option<&'static str>,
    judges: Vec<(JudgeVerdict, f64)>,
    outcome: (VerdictResult, &'static str),
) -> Script {
    Script::Changed {
        add,
        replace,
        noisy_control: false,
        judges,
        drift: None,
        outcome,
    }
}

/// A replay of `task` that words or lays out its calls a little
/// differently, which the small judge passes with confidence `confidence`.
pub(super) fn reworded(task: &str, confidence: f64) -> Script {
    let (add, tool) = match task {
        "triage-stale-issues" => (
            effect(
                "github.comment",
                json!({"issue": 101, "body": "Marked as stale after 30 days."}),
            ),
            "github.comment",
        ),
        "label-new-bugs" => (
            effect("github.label", json!({"issue": 214, "label": "Bug"})),
            "github.label",
        ),
        "cut-release" => (
            effect(
                "github.create_release",
                json!({"tag": "v1.4.0", "notes": "Fixes: #101, #214."}),
            ),
            "github.create_release",
        ),
        "weekly-digest" => (
            effect(
                "chat.post",
                json!({"channel": "#eng", "text": "This week: 12 issues closed."}),
            ),
            "chat.post",
        ),
        "fx-rate-sheet" => (
            effect(
                "sheets.write",
                json!({"cell": "B2", "value": "1.11", "note": "EUR / USD"}),
            ),
            "sheets.write",
        ),
        _ => (
            effect(
                "github.commit",
                json!({"path": "CHANGELOG.md", "message": "Update changelog."}),
            ),
            "github.commit",
        ),
    };
    changed(
        vec![add],
        Some(tool),
        vec![(P, confidence)],
        (Pass, "small"),
    )
}

/// The edits the benchmark labels: the ten that show each case on its own,
/// then the sweep that brings every class to the source's count.
pub(super) fn plans() -> Vec<EditPlan> {
    let mut plans = cases();
    plans.extend(super::sweep::plans());
    plans
}

fn cases() -> Vec<EditPlan> {
    vec![
        EditPlan {
            skill: "github-triage",
            class: "R4",
            regression: true,
            before: "Stale issues: label them `stale` and leave a comment.",
            after: "Stale issues: label them `stale`, comment, and close them to keep the tracker clean.",
            replays: vec![
                ("triage-stale-issues", changed(vec![effect("github.close_issue", json!({"issue": 101}))], None, vec![], (Block, "level0"))),
                ("label-new-bugs", Script::Same),
                ("changelog-canary", reworded("changelog-canary", 0.93)),
            ],
            controls: vec!["triage-stale-issues"],
        },
        EditPlan {
            skill: "release",
            class: "R2",
            regression: true,
            before: "Release notes: list every fixed issue.",
            after: "Release notes: keep them short.",
            replays: vec![
                ("cut-release", changed(vec![effect("github.create_release", json!({"tag": "v1.4.0"}))], Some("github.create_release"), vec![(U, 0.55), (R, 0.86), (R, 0.91)], (Block, "large"))),
                ("changelog-canary", Script::Same),
            ],
            controls: vec!["cut-release"],
        },
        EditPlan {
            skill: "github-triage",
            class: "R1",
            regression: true,
            before: "New bugs: label the issue `bug`.",
            after: "New bugs: label the newest open issue `bug`.",
            replays: vec![
                ("label-new-bugs", changed(vec![effect("github.label", json!({"issue": 219, "label": "bug"}))], Some("github.label"), vec![(R, 0.7), (U, 0.6), (R, 0.88)], (Warn, "large"))),
                ("triage-stale-issues", Script::Same),
                ("weekly-digest", Script::Same),
            ],
            controls: vec![],
        },
        EditPlan {
            skill: "reporting",
            class: "R3",
            regression: true,
            before: "Digest: post to #eng.",
            after: "Digest: post to the team's channel.",
            replays: vec![
                ("weekly-digest", changed(vec![effect("chat.post", json!({"channel": "#general", "text": "12 issues closed this week"}))], Some("chat.post"), vec![(R, 0.9), (R, 0.93), (R, 0.97)], (Block, "large"))),
                ("fx-rate-sheet", Script::Same),
                ("changelog-canary", reworded("changelog-canary", 0.91)),
            ],
            controls: vec!["weekly-digest"],
        },
        EditPlan {
            skill: "github-triage",
            class: "R6",
            regression: true,
            before: "Trigger: issues labelled `needs-triage`.",
            after: "Trigger: issues labelled `needs-triage` on weekdays.",
            replays: vec![
                // The narrowed trigger still fires on every blessed task
                // (they were all recorded on weekdays): nothing differs, and
                // the regression is missed.
                ("triage-stale-issues", Script::Same),
                ("label-new-bugs", Script::Same),
            ],
            controls: vec!["triage-stale-issues"],
        },
        EditPlan {
            skill: "reporting",
            class: "N0",
            regression: false,
            before: "Digest: post to #eng.",
            after: "Digest: post to #eng. (Wording only.)",
            replays: vec![
                ("weekly-digest", reworded("weekly-digest", 0.88)),
                ("fx-rate-sheet", Script::Same),
            ],
            controls: vec!["weekly-digest"],
        },
        EditPlan {
            skill: "release",
            class: "N0",
            regression: false,
            before: "Release notes: list every fixed issue.",
            after: "Release notes: list every fixed issue, one per line.",
            replays: vec![
                // The unchanged skill adds the same commit: noise.
                ("changelog-canary", Script::Changed {
                    add: vec![effect("github.commit", json!({"path": "CHANGELOG.md", "message": "Update changelog (retry)"}))],
                    replace: Some("github.commit"),
                    noisy_control: true,
                    judges: vec![],
                    drift: None,
                    outcome: (Pass, "control"),
                }),
                // The notes laid out one issue per line: a change no judge
                // can tie to a diff that changes nothing, held.
                ("cut-release", changed(vec![effect("github.create_release", json!({"tag": "v1.4.0", "notes": "Fixes:\n#101\n#214"}))], Some("github.create_release"), vec![(R, 0.62), (R, 0.66), (U, 0.52)], (Warn, "large"))),
            ],
            controls: vec!["changelog-canary", "cut-release"],
        },
        EditPlan {
            skill: "github-triage",
            class: "N0",
            regression: false,
            before: "Stale issues: label them `stale` and leave a comment.",
            after: "Stale issues: label them `stale` and leave a short comment.",
            replays: vec![
                // A reworded comment the largest judge cannot tie to the edit: a false warn.
                ("triage-stale-issues", changed(vec![
                    effect("github.comment", json!({"issue": 101, "body": "Stale: no activity for 30 days. <b>Reply</b> to keep it open."})),
                ], Some("github.comment"), vec![(U, 0.4), (P, 0.72), (P, 0.74)], (Warn, "large"))),
                ("label-new-bugs", Script::Same),
            ],
            controls: vec!["triage-stale-issues"],
        },
        EditPlan {
            skill: "reporting",
            class: "D1",
            regression: false,
            before: "FX sheet: write today's EUR/USD rate to B2.",
            after: "FX sheet: write today's EUR/USD rate to B2, rounded to two decimals.",
            replays: vec![
                // The rate moved since the golden trace; the evidence says so.
                ("fx-rate-sheet", Script::Changed {
                    add: vec![effect("sheets.write", json!({"cell": "B2", "value": "1.11", "note": "EUR/USD"}))],
                    replace: Some("sheets.write"),
                    noisy_control: false,
                    judges: vec![(R, 0.82), (R, 0.88), (R, 0.9)],
                    drift: Some("2026-11-01"),
                    outcome: (Pass, "drift"),
                }),
                ("weekly-digest", reworded("weekly-digest", 0.95)),
            ],
            controls: vec![],
        },
        EditPlan {
            skill: "github-triage",
            class: "R6",
            regression: true,
            before: "Trigger: issues labelled `needs-triage`.",
            after: "Trigger: issues labelled both `needs-triage` and `confirmed`.",
            replays: vec![
                // The narrowed trigger never fires on the new bug: nothing is labelled.
                ("label-new-bugs", changed(vec![], Some("github.label"), vec![(R, 0.84), (R, 0.9), (R, 0.95)], (Block, "large"))),
                ("triage-stale-issues", Script::Same),
            ],
            controls: vec!["label-new-bugs"],
        },
    ]
}
