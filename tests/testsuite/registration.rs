//! Forgeries of a pre-registration: every part it covers edited after the
//! fact (the log, the rules, a task, the recorded digests themselves), each
//! held to fail a receipt naming the file; and what each page says backs the
//! registration time. Time stamps and commits are in `anchors.rs`.

use crate::common;

use std::fs;

use serde_json::json;

use common::{built, edit_json, fails_with, receipts, reseal, sample_copy, stderr};

#[test]
fn a_decision_rule_edited_after_registration_fails_naming_the_file() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E02/experiment.json"), |e| {
        // The ladder's margin against always-large loosened from 5 points to 10.
        e["hypotheses"][1]["rule"]["all"][0]["compare"]["offset"] = json!(-10.0);
    });
    fails_with(
        dir.path(),
        &["E02/experiment.json: registered rules (SHA-256)"],
    );
}

#[test]
fn a_limit_or_price_edited_after_registration_fails() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/experiment.json"), |e| {
        e["limits"]["max_output_tokens"] = json!(8192);
    });
    fails_with(
        dir.path(),
        &["E01/experiment.json: registered rules (SHA-256)"],
    );
}

#[test]
fn a_cache_price_added_after_registration_fails() {
    // Cached input priced at a tenth after the fact would lower every
    // cost that read the cache: the prices are registered rules.
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E02/experiment.json"), |e| {
        for model in e["prices"]["models"]
            .as_object_mut()
            .expect("models")
            .values_mut()
        {
            let input = model["input_per_mtok"].as_f64().expect("a price");
            model["cache_read_per_mtok"] = json!(input / 10.0);
        }
    });
    fails_with(
        dir.path(),
        &["E02/experiment.json: registered rules (SHA-256)"],
    );
}

#[test]
fn a_task_edited_after_registration_fails_naming_the_task_file() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/tasks/shipping-rule.json");
    edit_json(&path, |t| {
        t["title"] = json!("An easier shipping rule");
    });
    fails_with(
        dir.path(),
        &["tasks/shipping-rule.json: registered task `shipping-rule` (SHA-256)"],
    );
}

#[test]
fn the_registered_log_edited_fails_naming_the_log() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E02/LOG.md");
    let text = fs::read_to_string(&path).expect("log");
    fs::write(
        &path,
        text.replacen("## Hypotheses", "## Hypotheses (revised)", 1),
    )
    .expect("write");
    fails_with(dir.path(), &["E02/LOG.md: pre-registered part (SHA-256)"]);
}

#[test]
fn a_registration_without_covers_fails_and_says_what_to_add() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/experiment.json"), |e| {
        e["preregistration"]
            .as_object_mut()
            .expect("object")
            .remove("covers");
    });
    fails_with(
        dir.path(),
        &[
            "registration covers the rules and tasks",
            "add to `preregistration` \"covers\"",
        ],
    );
}

#[test]
fn the_page_says_what_backs_the_registration_time() {
    let dir = built();
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(page.contains("self-asserted: nothing outside the record backs this time"));
}

#[test]
fn a_recorded_part_digest_edited_alone_fails_the_statement() {
    // The log is untouched; only the digest `covers` records for it changes.
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/experiment.json"), |e| {
        e["preregistration"]["covers"]["log"] = json!("0".repeat(64));
    });
    fails_with(
        dir.path(),
        &[
            "E01/LOG.md: pre-registered part (SHA-256)",
            "E01/experiment.json: registration digest (SHA-256)",
        ],
    );
}

#[test]
fn a_run_order_naming_an_axis_twice_fails() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/experiment.json"), |e| {
        e["grid"]["order"] = json!(["seeds", "seeds", "profiles", "policies"]);
    });
    fails_with(dir.path(), &["E01/experiment.json: grid.order"]);
}

#[test]
fn an_experiment_without_a_preregistration_builds_and_says_its_hypotheses_are_exploratory() {
    let dir = sample_copy();
    let root = dir.path().join("experiments/E04");
    edit_json(&root.join("experiment.json"), |e| {
        e.as_object_mut().expect("object").remove("preregistration");
    });
    fs::remove_file(root.join("LOG.md")).expect("rm log");
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = fs::read_to_string(dir.path().join("site/experiments/E04.html")).expect("page");
    assert!(
        page.contains("not pre-registered</strong>"),
        "the page says so"
    );
    assert!(
        page.contains("Hypotheses (exploratory)"),
        "its hypotheses are exploratory"
    );
    assert!(!page.contains("LOG.md"), "no log is linked");
    let index = fs::read_to_string(dir.path().join("site/index.html")).expect("index");
    assert!(
        index.contains("exploratory: not pre-registered"),
        "the study table says so"
    );
    let out = receipts(&dir.path().join("site"), &["verify", "."]);
    assert!(out.status.success(), "{}", stderr(&out));

    // A time stamp kept beside no registration anchors nothing: it fails.
    fs::write(root.join("registration.tsr"), b"not a token").expect("write");
    fs::write(root.join("registration.tsa.pem"), b"not a certificate").expect("write");
    fails_with(
        dir.path(),
        &["E04/registration.tsr: anchors the experiment's registration"],
    );
}

#[test]
fn a_simulated_run_relabelled_recorded_is_refused_and_relabelling_its_experiment_breaks_the_registration(
) {
    const RUN: &str = "E01-invoice-cleanup-careful-s1-always-large";
    let relabel = |path: &std::path::Path| edit_json(path, |r| r["provenance"] = json!("recorded"));
    let said = format!(
        "runs/{RUN}.json: provenance: `recorded` but experiment E01 is registered simulated"
    );
    // The build refuses the relabelled run, naming its file and field.
    let dir = sample_copy();
    relabel(&dir.path().join(format!("experiments/E01/runs/{RUN}.json")));
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&said), "{}", stderr(&out));

    // So does `verify`, on a built site relabelled and resealed.
    let dir = built();
    let site = dir.path().join("site");
    relabel(&site.join(format!("data/E01/runs/{RUN}.json")));
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("data/E01/{said}")),
        "{}",
        stderr(&out)
    );

    // Relabelling the experiment with every run: its provenance is a
    // registered rule.
    let dir = sample_copy();
    let e01 = dir.path().join("experiments/E01");
    relabel(&e01.join("experiment.json"));
    for run in fs::read_dir(e01.join("runs")).expect("runs") {
        relabel(&run.expect("run").path());
    }
    fails_with(
        dir.path(),
        &["E01/experiment.json: registered rules (SHA-256)"],
    );
}
