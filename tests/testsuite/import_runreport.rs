//! `receipts import runreport`: a harness's run reports streamed as JSON
//! lines (the rules' line, then one line per run) imported as a suite whose
//! every figure is recomputed from its events, at import and again by the
//! build and the verifier. The streams are written here from the sample's
//! harness suite, as a sink would write them (leaving out what it need not
//! repeat); a report that misstates a figure is imported and fails by name;
//! a bad line is refused with its file and line, writing nothing.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{assert_exit, read_json, receipts, stderr, stdout, tree};

const INTO: &str = "experiments/harness/nightly";

/// The sample's suite H01 as a sink streams it: the rules first, then each
/// run's report, with `edit` applied to the run lines' values (by id).
fn stream(dir: &Path, name: &str, edit: impl Fn(&str, &mut Value)) -> PathBuf {
    let suite_dir = common::repo().join("experiments/harness/H01");
    let mut rules = read_json(&suite_dir.join("harness.json"));
    let object = rules.as_object_mut().expect("suite");
    object.remove("format_version");
    object.remove("id");
    let mut lines = vec![serde_json::to_string(&rules).expect("json")];
    let mut runs: Vec<PathBuf> = fs::read_dir(suite_dir.join("runs"))
        .expect("runs")
        .map(|e| e.expect("entry").path())
        .collect();
    runs.sort();
    for path in runs {
        let mut run = read_json(&path);
        let object = run.as_object_mut().expect("run");
        for key in ["format_version", "suite", "provenance"] {
            object.remove(key);
        }
        object.insert("kind".into(), "run_report".into());
        let id = object["id"].as_str().expect("id").to_string();
        edit(&id, &mut run);
        lines.push(serde_json::to_string(&run).expect("json"));
    }
    let path = dir.join(name);
    fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

fn import(root: &Path, streams: &[PathBuf]) -> std::process::Output {
    let mut args: Vec<String> = vec!["import".into(), "runreport".into()];
    args.extend(streams.iter().map(|p| p.display().to_string()));
    args.extend(["--into".into(), INTO.into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    receipts(root, &args)
}

#[test]
fn a_stream_imports_with_every_figure_recomputed_builds_strict_and_verifies() {
    let project = common::sample_copy();
    let root = project.path();
    let streams = tempfile::tempdir().expect("tempdir");
    let path = stream(streams.path(), "reports.jsonl", |_, _| {});
    let out = import(root, std::slice::from_ref(&path));
    assert_exit(&out, 0, "import");
    let text = stdout(&out);
    assert_eq!(text.matches("imported ").count(), 12, "{text}");
    assert!(
        text.contains(&format!(
            "imported {}:2 as {INTO}/runs/H01-sim-agent-careful-s1.json: ",
            path.display()
        )),
        "{text}"
    );
    assert!(!text.contains("FAIL"), "{text}");
    let suite = read_json(&root.join(INTO).join("harness.json"));
    assert_eq!(suite["id"], "nightly");
    assert_eq!(suite["format_version"], 1);
    let run = read_json(&root.join(INTO).join("runs/H01-sim-agent-fast-s1.json"));
    assert_eq!(run["kind"], "harness_run");
    assert_eq!(run["suite"], "nightly");
    assert_eq!(run["provenance"], "simulated");

    // The same stream again changes nothing.
    let first = tree(root);
    assert_exit(&import(root, std::slice::from_ref(&path)), 0, "again");
    assert_eq!(first, tree(root), "the same bytes");

    let out = receipts(root, &["build", "--strict"]);
    assert_exit(&out, 0, "build --strict");
    let page = fs::read_to_string(root.join("site/harness/nightly.html")).expect("suite page");
    assert!(
        page.contains("H01-sim-agent-careful-s1"),
        "the leaderboard lists the runs"
    );
    assert!(root
        .join("site/harness/nightly/H01-sim-agent-fast-s1.html")
        .is_file());
    assert_exit(&receipts(root, &["verify", "site"]), 0, "verify");
}

#[test]
fn a_report_that_misstates_a_figure_is_imported_and_fails_by_name() {
    // Each a publisher's edit to one report: a blocked fetch not counted,
    // the budget stop denied, a cost shaved, a slow call left out of p95.
    let forgeries: [(&str, &str, Value); 4] = [
        ("H01-sim-agent-careful-s1", "egress_blocked", 0.into()),
        (
            "H01-sim-agent-careful-s1",
            "aborted_on_budget",
            false.into(),
        ),
        ("H01-sim-agent-fast-s2", "total_cost_usd", 0.0159.into()),
        ("H01-sim-agent-careful-s3", "latency_p95_ms", 2416.into()),
    ];
    for (id, figure, value) in forgeries {
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        let path = stream(root, "reports.jsonl", |run_id, run| {
            if run_id == id {
                run["report"][figure] = value.clone();
            }
        });
        let out = import(root, &[path]);
        assert_exit(&out, 1, figure);
        let text = stdout(&out);
        let expected = format!("FAIL harness/nightly/runs/{id}.json: report.{figure}");
        assert!(text.contains(&expected), "expected `{expected}`:\n{text}");
        assert_eq!(text.matches("FAIL ").count(), 1, "{text}");
    }
}

#[test]
fn a_bad_line_is_refused_naming_its_file_and_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // A run's call names a model the rules give no price for.
    let path = stream(root, "reports.jsonl", |id, run| {
        if id == "H01-sim-agent-fast-s2" {
            run["events"][0]["model_requested"] = "unpriced/model".into();
        }
    });
    let out = import(root, std::slice::from_ref(&path));
    assert_exit(&out, 2, "unpriced model");
    let expected = format!(
        "{}: line 7, events[0].model_requested: no price for `unpriced/model`",
        path.display()
    );
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
    assert!(!root.join("experiments").exists(), "nothing written");

    // A line cut short.
    let text = fs::read_to_string(&path).expect("stream");
    let cut: String = text.lines().take(3).collect::<Vec<_>>().join("\n") + "\n{\"kind\":\"run_";
    fs::write(&path, cut).expect("write");
    let out = import(root, std::slice::from_ref(&path));
    assert_exit(&out, 2, "cut short");
    assert!(
        stderr(&out).contains(&format!("{}: line 4: not JSON", path.display())),
        "{}",
        stderr(&out)
    );
    assert!(!root.join("experiments").exists(), "nothing written");

    // Not under experiments/harness/.
    let good = stream(root, "good.jsonl", |_, _| {});
    let out = receipts(
        root,
        &[
            "import",
            "runreport",
            &good.display().to_string(),
            "--into",
            "experiments/nightly",
        ],
    );
    assert_exit(&out, 2, "--into");
    assert!(
        stderr(&out).contains("write --into experiments/harness/nightly"),
        "{}",
        stderr(&out)
    );

    // A run imported before, reported again with other figures.
    assert_exit(&import(root, std::slice::from_ref(&good)), 0, "first");
    let before = tree(root);
    let changed = stream(root, "changed.jsonl", |id, run| {
        if id == "H01-sim-agent-fast-s1" {
            run["agent"] = "someone-else".into();
        }
    });
    let out = import(root, &[changed]);
    assert_exit(&out, 2, "changed run");
    assert!(
        stderr(&out).contains(
            "H01-sim-agent-fast-s1.json: already holds other content than the run reported at"
        ),
        "{}",
        stderr(&out)
    );
    let mut after = tree(root);
    after.remove("changed.jsonl");
    assert_eq!(before, after, "nothing overwritten");
}
