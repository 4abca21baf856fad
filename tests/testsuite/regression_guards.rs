//! The regression suite's guards as the sample publishes them: the sandbox
//! that refused the hard tool's new call (409 ratchet_blocked) and the
//! commits behind every merge, hold, revert and undo. Each is on the edit's
//! page and in its receipts, and a publisher who rewrites them and reseals
//! every digest is still caught, each forgery by its own receipt.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::Value;

use common::{
    assert_each_fails, assert_exit, built, edit_json, read_json, receipts, reseal, stdout,
};

const EDITS: &str = "data/regressions/R01/edits";

fn edit(site: &Path, id: &str) -> std::path::PathBuf {
    site.join(format!("{EDITS}/{id}.json"))
}

#[test]
fn the_sandbox_and_the_commits_are_on_the_pages() {
    let dir = built();
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("regressions/R01/R01-edit-01-github-triage.html"))
        .expect("edit page");
    for text in [
        "github.close_issue {&quot;issue&quot;:101} — refused: 409 ratchet_blocked",
        "replay: 2 cassette, 1 refused 409 ratchet_blocked; control: 2 cassette",
        "each call answered as the sandbox must: none reached the world",
        "The edit's commits, each held to the verdict and to main's history",
        "on candidate, parents [",
        "the skill as before",
    ] {
        assert!(page.contains(text), "the edit page lacks {text}");
    }
    let suite = fs::read_to_string(site.join("regressions/R01.html")).expect("suite page");
    assert!(suite.contains("Commit: "), "the undo's commit is shown");
}

#[test]
fn resealed_forgeries_of_the_sandbox_and_the_commits_each_fail() {
    let dir = built();
    let site = dir.path().join("site");
    // The hard tool's refused call passed off as served from the cassette.
    edit_json(&edit(&site, "R01-edit-01-github-triage"), |e| {
        let call = &mut e["replays"][0]["replay"]["side_effects"][2];
        assert_eq!(call["tool"], "github.close_issue");
        call["sandbox"] = serde_json::json!({"answer": "cassette"});
    });
    // A revert that left the edited skill in place.
    edit_json(&edit(&site, "R01-edit-02-release"), |e| {
        let after = e["skill"]["after_sha256"].clone();
        e["verdict"]["commits"]["action"]["skill_sha256"] = after;
    });
    // A merge shown as a fast-forward, off main's head.
    edit_json(&edit(&site, "R01-edit-06-reporting"), |e| {
        let candidate = e["verdict"]["commits"]["candidate"]["hash"].clone();
        e["verdict"]["commits"]["action"]["parents"] = serde_json::json!([candidate]);
    });
    // An edit moved onto main as it was before the undo, every commit of
    // it agreeing (the edit was held: it has no action commit).
    let undone_head = read_json(&edit(&site, "R01-edit-06-reporting"))["verdict"]["commits"]
        ["action"]["hash"]
        .clone();
    edit_json(&edit(&site, "R01-edit-07-release"), |e| {
        let c = &mut e["verdict"]["commits"];
        assert_ne!(c["base"], undone_head, "edit 07 starts from the undo");
        assert!(
            c.get("action").is_none_or(Value::is_null),
            "edit 07 was held"
        );
        c["base"] = undone_head.clone();
        c["candidate"]["parents"] = serde_json::json!([undone_head]);
    });
    // The undo's commit keeps the edited skill.
    let after =
        read_json(&edit(&site, "R01-edit-05-github-triage"))["skill"]["after_sha256"].clone();
    edit_json(&site.join("data/regressions/R01/actions.json"), |a| {
        a["actions"][0]["commit"]["skill_sha256"] = after.clone();
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "the forgeries");
    let text = stdout(&out);
    assert_each_fails(
        &text,
        &[
            (
                "R01-edit-01-github-triage",
                "replays[0].sandbox",
                "a hard tool's call that no cassette holds: refused 409 ratchet_blocked",
            ),
            (
                "R01-edit-02-release",
                "verdict.commits.action",
                "the skill as before",
            ),
            (
                "R01-edit-06-reporting",
                "verdict.commits.action",
                "on main, parents [",
            ),
            (
                "R01-edit-07-release",
                "verdict.commits.base",
                "main's head then, undo undo-1",
            ),
            (
                "actions.json",
                "actions[undo-1].commit",
                "the skill as before",
            ),
        ],
    );
}

#[test]
fn an_edit_whose_commits_were_dropped_fails_once_its_suite_records_them() {
    let dir = built();
    let site = dir.path().join("site");
    edit_json(&edit(&site, "R01-edit-03-github-triage"), |e| {
        e["verdict"]
            .as_object_mut()
            .expect("verdict")
            .remove("commits");
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "an edit without commits");
    assert_each_fails(
        &stdout(&out),
        &[(
            "R01-edit-03-github-triage",
            "verdict.commits",
            "the suite records the commits of 34 of its 35 edits",
        )],
    );
}
