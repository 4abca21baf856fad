//! What a new user meets first: a project of one record kind builds and
//! verifies with no folder it does not need, the build line and the footer
//! name what the site holds, and each page's banner says truly where its
//! records came from.

use crate::common;

use std::fs;
use std::path::Path;

use common::{assert_exit, copy_dir, receipts, repo, sample_copy, stderr, stdout};

fn inspect_log(name: &str) -> std::path::PathBuf {
    repo().join("tests/fixtures/inspect").join(name)
}

fn builds_and_verifies(root: &Path, what: &str) -> String {
    let out = receipts(root, &["build"]);
    assert_exit(&out, 0, &format!("build of {what}"));
    let line = stdout(&out);
    let out = receipts(&root.join("site"), &["verify", "."]);
    assert_exit(&out, 0, &format!("verify of {what}"));
    line
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const SIMULATOR: &str = "produced by the receipts simulator";

#[test]
fn a_project_of_imported_evaluations_alone_builds_verifies_and_names_what_it_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let logs = [inspect_log("scorers.eval"), inspect_log("choice.eval")];
    let mut args = vec!["import", "inspect"];
    let names: Vec<String> = logs.iter().map(|l| l.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    args.extend(["--into", "experiments/quiz"]);
    assert_exit(&receipts(dir.path(), &args), 0, "import");
    assert!(
        !dir.path().join("experiments/tasks").exists(),
        "the import made no tasks folder"
    );

    let line = builds_and_verifies(dir.path(), "a project of imports");
    let samples: usize = ["scorers.json", "choice.json"]
        .iter()
        .map(|f| {
            let record = common::read_json(&dir.path().join("experiments/quiz/inspect").join(f));
            record["samples"].as_array().expect("samples").len()
        })
        .sum();
    let held = format!("2 evaluations ({samples} samples)");
    assert!(line.contains(&format!("built site: {held},")), "{line}");
    assert!(!line.contains("0 experiments"), "{line}");

    let index = read(&dir.path().join("site/index.html"));
    assert!(index.contains(&format!("built by receipts from {held}.")));
    assert!(index.contains(&format!("This site holds {held}.")));
    assert!(index.contains("index.html#imports-inspect\">Evaluations</a>"));
    assert!(
        !index.contains("runs/index.html\">Runs</a>") && !index.contains("#experiments\">"),
        "the navigation names no kind the site does not hold"
    );
    // Both logs ran against Inspect's mock model: said so, and not that
    // the simulator made them.
    for page in [
        index.clone(),
        read(&dir.path().join("site/imports/quiz/scorers.html")),
    ] {
        assert!(page.contains("Inspect's mock model"), "the mock is named");
        assert!(!page.contains(SIMULATOR), "nothing here is the simulator's");
    }
}

#[test]
fn a_project_of_harness_reports_or_regression_verdicts_alone_builds_and_verifies() {
    let sample = repo().join("experiments");
    for (kind, held) in [
        ("harness", "1 harness suite (12 runs)"),
        ("regressions", "regression suite"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = dir.path().join("experiments");
        copy_dir(&sample.join(kind), &records.join(kind));
        copy_dir(&sample.join("objects"), &records.join("objects"));
        let line = builds_and_verifies(dir.path(), kind);
        assert!(line.contains(held), "{kind}: {line}");
        assert!(!line.contains("experiment"), "{kind}: {line}");
    }
}

#[test]
fn an_experiment_neither_registered_nor_summarised_shows_its_recomputed_figures_and_no_empty_parts()
{
    let dir = sample_copy();
    let root = dir.path().join("experiments/E04");
    common::edit_json(&root.join("experiment.json"), |e| {
        e.as_object_mut().expect("object").remove("preregistration");
    });
    for file in ["LOG.md", "summary.json"] {
        fs::remove_file(root.join(file)).expect("rm");
    }
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = read(&dir.path().join("site/experiments/E04.html"));
    assert!(
        !page.contains(">not published"),
        "a recomputed figure is shown"
    );
    assert!(!page.contains("pre-registered rule"));
    assert!(!page.contains("<h2>The log"), "no empty log section");
    assert!(!page.contains("Outcome: published"));
    assert!(page.contains("title=\"recomputed from the raw records; not published\""));
}

#[test]
fn a_site_of_simulated_runs_and_a_mock_models_evaluation_says_each_page_apart() {
    let dir = sample_copy();
    let log = inspect_log("scorers.eval").display().to_string();
    let args = ["import", "inspect", &log, "--into", "experiments/quiz"];
    assert_exit(&receipts(dir.path(), &args), 0, "import");
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let site = dir.path().join("site");
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("Some records here are not a provider's answers"),
        "the index holds both kinds and says each is marked"
    );
    assert!(!index.contains(SIMULATOR));
    let eval = read(&site.join("imports/quiz/scorers.html"));
    assert!(eval.contains("Inspect's mock model") && !eval.contains(SIMULATOR));
    let run = read(&site.join("experiments/E04.html"));
    assert!(run.contains(SIMULATOR) && !run.contains("Inspect's mock model"));
}
