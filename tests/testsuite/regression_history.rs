//! A regression suite's history, as published: the ablations beside the
//! full cascade, the actions taken (re-bless, undo, refused undo), the
//! golden library and the weekly digests. A publisher who edits the records
//! of the history and reseals every digest is still caught, and a history
//! that names what is not there is refused as input.

use crate::common;

use std::fs;

use common::{assert_each_fails, assert_exit, built, edit_json, receipts, reseal, stdout};

#[test]
fn the_suite_publishes_its_ablations_actions_golden_library_and_weeks() {
    let dir = built();
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("regressions/R01.html")).expect("suite page");
    for text in [
        "<h2 id=\"ablations\">Ablations <a class=\"anchor\" href=\"#ablations\"",
        "The full cascade",
        "Level 0 off: every replay goes to the judges",
        "The drift check off",
        "One judge: the largest alone",
        "<h2 id=\"actions\">Actions <a class=\"anchor\" href=\"#actions\"",
        "re-bless",
        "refused: R01-edit-09-reporting was merged later on the same skill",
        "regressions/R01/golden/index.html",
        "regressions/R01/weeks/2026-W45.html",
        "regressions/R01/weeks/2026-W46.html",
    ] {
        assert!(page.contains(text), "the suite page lacks {text}");
    }
    let golden =
        fs::read_to_string(site.join("regressions/R01/golden/index.html")).expect("golden library");
    let actions = common::read_json(&site.join("data/regressions/R01/actions.json"));
    let digest = actions["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .find_map(|a| a["golden_sha256"].as_str())
        .expect("a re-bless");
    assert!(
        golden.contains(digest),
        "the re-blessed trace is in the library"
    );
    assert!(golden.contains("re-blessed"), "{golden}");
    assert!(golden.contains("BLOCK, a labelled regression"));
    let week = fs::read_to_string(site.join("regressions/R01/weeks/2026-W46.html")).expect("week");
    assert!(week.contains("2026-11-09") && week.contains("2026-11-15"));
    assert!(week.contains("R01-edit-10-github-triage"));
    // The week holds its own records only.
    assert!(!week.contains(">R01-edit-01-github-triage</a>"));
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 0, "the sample site");
}

#[test]
fn a_resealed_history_that_flatters_the_gate_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let data = site.join("data/regressions/R01");
    // The refused undo recorded as done.
    edit_json(&data.join("actions.json"), |h| {
        let undo = h["actions"]
            .as_array_mut()
            .expect("actions")
            .iter_mut()
            .find(|a| a["outcome"] == "refused")
            .expect("a refused undo");
        undo["outcome"] = "done".into();
        undo.as_object_mut().expect("object").remove("reason");
    });
    // The ablation without level 0 publishes a better recall than its runs give.
    edit_json(&data.join("ablations/no-level0.json"), |a| {
        a["figures"]["recall"] = 0.83.into();
    });
    // The ablation with one judge leaves out an edit.
    edit_json(&data.join("ablations/single-judge.json"), |a| {
        a["edits"].as_array_mut().expect("edits").remove(0);
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a forged history");
    assert_each_fails(
        &stdout(&out),
        &[
            ("actions.json", "actions[undo-2].outcome", ""),
            ("no-level0.json", "figures.recall", "recorded 0.83"),
            ("single-judge.json", "edits", ""),
        ],
    );
}

#[test]
fn a_later_replay_set_back_to_the_trace_before_the_rebless_fails_resealed() {
    // After the rate sheet was re-blessed (edit 09), a later edit's replay
    // of it compared against the first golden trace again, where the old
    // rate hides the drift the re-bless took in: the re-bless's `used_by`
    // names the edit that did not start from it.
    let dir = built();
    let site = dir.path().join("site");
    let edits = site.join("data/regressions/R01/edits");
    let fx = |edit: &serde_json::Value| -> serde_json::Value {
        edit["replays"]
            .as_array()
            .expect("replays")
            .iter()
            .find(|r| r["task"] == "fx-rate-sheet")
            .expect("a replay of the rate sheet")["golden"]
            .clone()
    };
    let before: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(edits.join("R01-edit-04-reporting.json")).expect("edit 04"),
    )
    .expect("json");
    let first = fx(&before);
    let later = edits.join("R01-edit-11-github-triage.json");
    edit_json(&later, |e| {
        assert_ne!(fx(e), first, "edit 11 starts from the re-blessed trace");
        for r in e["replays"].as_array_mut().expect("replays") {
            if r["task"] == "fx-rate-sheet" {
                r["golden"] = first.clone();
            }
        }
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a replay set back to the old golden trace");
    assert_each_fails(
        &stdout(&out),
        &[(
            "actions.json",
            "actions[rebless-1].used_by",
            "R01-edit-11-github-triage",
        )],
    );
}

#[test]
fn the_golden_library_or_a_week_edited_on_the_page_fails_resealed() {
    let dir = built();
    let site = dir.path().join("site");
    // The page says the edit that slipped through was caught, and the
    // week hides its false alarm; the records are left as they are.
    let week = site.join("regressions/R01/weeks/2026-W45.html");
    let text = fs::read_to_string(&week).expect("week");
    let forged = text.replacen(" let through", " let through (none)", 1);
    assert_ne!(forged, text);
    fs::write(&week, forged).expect("write");
    let golden = site.join("regressions/R01/golden/index.html");
    let text = fs::read_to_string(&golden).expect("golden");
    let forged = text.replacen("<span class=\"muted\">nothing</span>", "BLOCK", 1);
    assert_ne!(forged, text);
    fs::write(&golden, forged).expect("write");
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "pages edited after the build");
    let text = stdout(&out);
    for page in [
        "regressions/R01/weeks/2026-W45.html",
        "regressions/R01/golden/index.html",
    ] {
        assert!(
            text.contains(&format!("FAIL {page}: rendered from the records")),
            "{page}:\n{text}"
        );
    }
}
