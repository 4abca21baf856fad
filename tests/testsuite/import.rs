//! `receipts import inspect`: Inspect AI logs made by the real tool (see
//! tests/fixtures/inspect/make_logs.py) imported, kept by digest and
//! verified; the figures Inspect reports come out of the import; the same
//! log gives the same bytes; a forged log or a damaged archive is refused.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{assert_exit, read_json, receipts, stderr, stdout, tree};

fn fixture(name: &str) -> PathBuf {
    common::repo().join("tests/fixtures/inspect").join(name)
}

fn import(root: &Path, logs: &[PathBuf]) -> std::process::Output {
    import_with(root, logs, &[])
}

/// `receipts import inspect LOGS --into experiments/evals FLAGS`.
fn import_with(root: &Path, logs: &[PathBuf], flags: &[&str]) -> std::process::Output {
    let mut args: Vec<String> = vec!["import".into(), "inspect".into()];
    args.extend(logs.iter().map(|p| p.display().to_string()));
    args.extend(["--into".into(), "experiments/evals".into()]);
    args.extend(flags.iter().map(ToString::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    receipts(root, &args)
}

/// Flips the first incorrect `includes` score of a log or record to correct.
fn flip_an_incorrect_score(record: &mut Value) {
    let sample = record["samples"]
        .as_array_mut()
        .expect("samples")
        .iter_mut()
        .find(|s| s["scores"]["includes"]["value"] == "I")
        .expect("an incorrect sample");
    sample["scores"]["includes"]["value"] = "C".into();
}

/// `tools.json` with a score flipped, written as `name` in `dir`.
fn forged_log(dir: &Path, name: &str) -> PathBuf {
    let text = fs::read_to_string(fixture("tools.json")).expect("log");
    let mut log: Value = serde_json::from_str(&text).expect("json");
    flip_an_incorrect_score(&mut log);
    let forged = dir.join(name);
    fs::write(&forged, serde_json::to_vec(&log).expect("json")).expect("write");
    forged
}

const LOGS: [&str; 6] = ["scorers", "choice", "tools", "errors", "failed", "unscored"];

#[test]
fn each_log_imports_with_the_metrics_inspect_reports_and_every_receipt_passing() {
    let expected = read_json(&fixture("expected.json"));
    for format in ["eval", "json"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let logs: Vec<PathBuf> = LOGS
            .iter()
            .map(|l| fixture(&format!("{l}.{format}")))
            .collect();
        let out = import(dir.path(), &logs);
        assert_exit(&out, 0, format);
        let text = stdout(&out);
        assert_eq!(
            text.matches(" 0 fail, 0 could not be checked").count(),
            LOGS.len(),
            "{text}"
        );
        for log in LOGS {
            let record = read_json(
                &dir.path()
                    .join(format!("experiments/evals/inspect/{log}.json")),
            );
            // The kept original is the log, byte for byte, under its digest.
            let kept = dir
                .path()
                .join("experiments/objects")
                .join(record["source"]["sha256"].as_str().expect("sha"));
            assert_eq!(
                fs::read(&kept).expect("kept"),
                fs::read(fixture(&format!("{log}.{format}"))).expect("log")
            );
            // Accuracy and every other metric per scorer, as read_eval_log reports them.
            let reported = &expected[format!("{log}.{format}")]["results"]["scores"];
            let reported = reported.as_array().cloned().unwrap_or_default();
            let lines = record["scorers"].as_array().expect("scorers");
            assert_eq!(lines.len(), reported.len(), "{log}.{format}");
            for (line, want) in lines.iter().zip(&reported) {
                assert_eq!(line["name"], want["name"]);
                for (metric, value) in want["metrics"].as_object().expect("metrics") {
                    assert_eq!(&line["metrics"][metric], value, "{log}.{format} {metric}");
                }
            }
        }
    }
}

#[test]
fn importing_twice_is_byte_identical_and_both_forms_give_the_same_records() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    let logs: Vec<PathBuf> = LOGS.iter().map(|l| fixture(&format!("{l}.eval"))).collect();
    assert_exit(&import(a.path(), &logs), 0, "first");
    assert_exit(&import(b.path(), &logs), 0, "second");
    assert_eq!(tree(a.path()), tree(b.path()), "same log, same bytes");
    assert_exit(&import(a.path(), &logs), 0, "again in place");
    assert_eq!(
        tree(a.path()),
        tree(b.path()),
        "importing again changes nothing"
    );
    let j = tempfile::tempdir().expect("tempdir");
    let logs: Vec<PathBuf> = LOGS.iter().map(|l| fixture(&format!("{l}.json"))).collect();
    assert_exit(&import(j.path(), &logs), 0, "json");
    for log in LOGS {
        let strip = |root: &Path| {
            let mut v = read_json(&root.join(format!("experiments/evals/inspect/{log}.json")));
            v.as_object_mut().expect("record").remove("source");
            v
        };
        assert_eq!(strip(a.path()), strip(j.path()), "{log}: .eval and .json");
    }
}

#[test]
fn a_forged_score_fails_and_a_damaged_archive_is_refused_writing_nothing() {
    // A score flipped to correct in the log: the import recomputes it.
    let dir = tempfile::tempdir().expect("tempdir");
    let forged = forged_log(dir.path(), "forged.json");
    let out = import(dir.path(), &[forged]);
    assert_exit(&out, 1, "forged score");
    let text = stdout(&out);
    assert!(text.contains("FAIL experiments/evals/inspect/forged.json: samples[add-2 epoch 1].scores[includes]: recorded C"), "{text}");
    assert!(text.contains("scorers[includes mean].reduction"), "{text}");

    // A truncated archive beside a good log: exit 2 naming the file and
    // the place, and nothing written for either.
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = fs::read(fixture("scorers.eval")).expect("log");
    let truncated = dir.path().join("scorers.eval");
    fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let out = import(dir.path(), &[fixture("tools.json"), truncated]);
    assert_exit(&out, 2, "truncated");
    let err = stderr(&out);
    assert!(
        err.contains("scorers.eval: the archive: not a zip archive, or truncated"),
        "{err}"
    );
    assert!(!dir.path().join("experiments").exists(), "nothing written");

    // A log of a format version Inspect has not written: refused, as
    // Inspect's own reader refuses it.
    let mut log: Value =
        serde_json::from_str(&fs::read_to_string(fixture("tools.json")).expect("log"))
            .expect("json");
    log["version"] = 9.into();
    let newer = dir.path().join("newer.json");
    fs::write(&newer, serde_json::to_vec(&log).expect("json")).expect("write");
    let out = import(dir.path(), &[newer]);
    assert_exit(&out, 2, "version");
    assert!(
        stderr(&out).contains("newer.json: /version: Inspect AI log format version 9"),
        "{}",
        stderr(&out)
    );
    log["version"] = 2.into();

    // A sample without a target, which Inspect's reader refuses: exit 2,
    // naming the file and the place.
    log["samples"][1]
        .as_object_mut()
        .expect("sample")
        .remove("target");
    let untargeted = dir.path().join("untargeted.json");
    fs::write(&untargeted, serde_json::to_vec_pretty(&log).expect("json")).expect("write");
    let out = import(dir.path(), &[untargeted]);
    assert_exit(&out, 2, "no target");
    assert!(
        stderr(&out).contains("untargeted.json: /: line ")
            && stderr(&out).contains("missing field `target`"),
        "{}",
        stderr(&out)
    );
}

/// A copy of the sample with the fixture logs imported into `experiments/evals`.
fn sample_with_imports() -> tempfile::TempDir {
    let dir = common::sample_copy();
    let logs: Vec<PathBuf> = LOGS.iter().map(|l| fixture(&format!("{l}.eval"))).collect();
    assert_exit(&import(dir.path(), &logs), 0, "import");
    dir
}

#[test]
fn an_imported_evaluation_is_published_shown_and_verified_with_the_site() {
    let dir = sample_with_imports();
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_exit(&out, 0, "build");
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("imports/evals/scorers.html")).expect("page");
    // The accuracy Inspect reports, with its recomputation.
    assert!(
        page.contains(
            "accuracy <span class=\"published\">0.625</span> <span class=\"recomputed pass\""
        ),
        "accuracy shown"
    );
    assert!(page.contains("Transcript (2 messages)"), "transcript");
    // Every metric of every scorer that Inspect's `read_eval_log` reports
    // for each fixture, on that fixture's page, recomputed and agreeing.
    let expected = read_json(&fixture("expected.json"));
    let mut shown = 0;
    for log in LOGS {
        let page = fs::read_to_string(site.join(format!("imports/evals/{log}.html"))).expect(log);
        let reported = &expected[format!("{log}.eval")]["results"]["scores"];
        for scorer in reported.as_array().into_iter().flatten() {
            for (metric, value) in scorer["metrics"].as_object().expect("metrics") {
                // At four significant figures, the exact value on hover
                // where that shortened it: the very float Inspect wrote.
                let exact = value.to_string();
                let short = receipts::numbers::shown(&exact);
                let published = if short == exact {
                    exact
                } else {
                    assert_eq!(exact.parse::<f64>().ok(), value.as_f64(), "{log}: {exact}");
                    format!("<data value=\"{exact}\" title=\"{exact}\">{short}</data>")
                };
                let cell = format!(
                    "{metric} <span class=\"published\">{published}</span> <span class=\"recomputed pass\""
                );
                assert!(page.contains(&cell), "{log}: {} {cell}", scorer["name"]);
                shown += 1;
            }
        }
    }
    assert!(shown >= 18, "every fixture's metrics: {shown}");
    // Untrusted text stays inert: the prompt's `<answer>` is text, not markup.
    assert!(
        page.contains("&lt;answer&gt;") && !page.contains("<answer>"),
        "escaped"
    );
    let index = fs::read_to_string(site.join("index.html")).expect("index");
    assert!(
        index.contains("href=\"imports/evals/scorers.html\""),
        "listed on the index"
    );
    // The kept log and the record are published and verified, natively
    // and over the records alone as the browser does.
    let record = read_json(&site.join("data/evals/inspect/tools.json"));
    let sha = record["source"]["sha256"]
        .as_str()
        .expect("sha")
        .to_string();
    assert!(
        site.join("data/objects").join(&sha).is_file(),
        "the log is published"
    );
    for extra in [&[][..], &["--records-only"][..]] {
        let mut args = vec!["verify", "."];
        args.extend_from_slice(extra);
        let out = receipts(&site, &args);
        assert_exit(&out, 0, "verify");
    }
}

#[test]
fn a_record_edited_or_a_log_forged_and_imported_again_fails_the_build() {
    // The record edited after the import: it is no longer what the log gives.
    let dir = sample_with_imports();
    common::edit_json(
        &dir.path().join("experiments/evals/inspect/tools.json"),
        flip_an_incorrect_score,
    );
    common::fails_with(
        dir.path(),
        &["evals/inspect/tools.json: derived from the log"],
    );

    // The forger goes further: the log itself edited to flip the score, its
    // digest renamed and the record derived again from it, so every digest
    // agrees. The score recomputed from the output and target does not.
    let dir = sample_with_imports();
    let forged = forged_log(dir.path(), "tools.json");
    fs::remove_file(dir.path().join("experiments/evals/inspect/tools.json")).expect("rm");
    assert_exit(&import(dir.path(), &[forged]), 1, "forged import");
    common::fails_with(
        dir.path(),
        &["evals/inspect/tools.json: samples[add-2 epoch 1].scores[includes]"],
    );

    // One byte of the kept log changed: it is no longer the log its name
    // and the record name, and the build refuses it as bad input.
    let dir = sample_with_imports();
    let record = read_json(&dir.path().join("experiments/evals/inspect/tools.json"));
    let kept = dir
        .path()
        .join("experiments/objects")
        .join(record["source"]["sha256"].as_str().expect("sha"));
    let mut bytes = fs::read(&kept).expect("log");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&kept, bytes).expect("write");
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_exit(&out, 2, "edited log");
    assert!(
        stderr(&out).contains("not the digest it is named by"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_import_and_an_experiment_never_share_a_directory() {
    let dir = common::sample_copy();
    let out = receipts(
        dir.path(),
        &[
            "import",
            "inspect",
            &fixture("tools.eval").display().to_string(),
            "--into",
            "experiments/E01",
        ],
    );
    assert_exit(&out, 2, "into an experiment");
    assert!(
        stderr(&out).contains("holds an experiment"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_import_outside_the_projects_experiments_is_refused_with_the_path_it_should_be() {
    // A build reads experiments/ alone: `--into quiz2` would write ./quiz2/
    // and ./objects/ that no build reads.
    let dir = tempfile::tempdir().expect("tempdir");
    for into in ["quiz2", "evals/quiz2"] {
        let out = receipts(
            dir.path(),
            &[
                "import",
                "inspect",
                &fixture("tools.eval").display().to_string(),
                "--into",
                into,
            ],
        );
        assert_exit(&out, 2, into);
        assert!(
            stderr(&out).contains(&format!("{into}: --into names a directory of the project's experiments/, which is all a build reads: write --into experiments/quiz2")),
            "{}",
            stderr(&out)
        );
    }
    assert!(tree(dir.path()).is_empty(), "nothing written");
}

#[test]
fn a_log_still_being_written_and_one_without_its_samples_import_as_inspect_reads_them() {
    // tests/fixtures/inspect/make_partial_logs.py: an `.eval` archive as
    // Inspect leaves it mid-run (no header.json), and a real evaluation run
    // with `log_samples=False` (a header alone).
    let expected = read_json(&fixture("partial-expected.json"));
    let dir = tempfile::tempdir().expect("tempdir");
    let out = import(
        dir.path(),
        &[fixture("started.eval"), fixture("headeronly.eval")],
    );
    // What the header-only log reports cannot be recomputed: the records
    // are written, and the import exits as `receipts verify` does on the
    // same state, 3, unless told to accept it.
    assert_exit(&out, 3, "partial logs");
    let text = stdout(&out);
    assert_eq!(text.matches(" 0 fail, ").count(), 2, "{text}");
    assert!(stdout(&out).contains("COULD NOT CHECK experiments/evals/inspect/headeronly.json"));
    assert!(
        stderr(&out).contains("--allow-unchecked"),
        "{}",
        stderr(&out)
    );
    let logs = [fixture("started.eval"), fixture("headeronly.eval")];
    let accepted = import_with(dir.path(), &logs, &["--allow-unchecked"]);
    assert_exit(&accepted, 0, "accepted");
    assert_exit(&receipts(dir.path(), &["build", "--quiet"]), 0, "build");
    let verify = receipts(&dir.path().join("site"), &["verify", "."]);
    assert_exit(&verify, 3, "verify of the same state");
    for name in ["started", "headeronly"] {
        let record = read_json(
            &dir.path()
                .join(format!("experiments/evals/inspect/{name}.json")),
        );
        let want = &expected[format!("{name}.eval")];
        assert_eq!(record["status"], want["status"], "{name}");
        let held: Vec<Value> = record["samples"]
            .as_array()
            .expect("samples")
            .iter()
            .map(|s| serde_json::json!([s["id"], s["epoch"]]))
            .collect();
        let mut held = held;
        held.sort_by_key(std::string::ToString::to_string);
        let mut reported = want["samples"].as_array().cloned().unwrap_or_default();
        reported.sort_by_key(std::string::ToString::to_string);
        assert_eq!(held, reported, "{name}");
        let metrics = &record["scorers"];
        match want["results"].as_object() {
            None => assert_eq!(metrics, &serde_json::json!([]), "{name}"),
            Some(results) => {
                for (scorer, values) in results {
                    let line = metrics
                        .as_array()
                        .expect("scorers")
                        .iter()
                        .find(|l| &l["name"] == scorer)
                        .expect("line");
                    assert_eq!(&line["metrics"], values, "{name} {scorer}");
                }
            }
        }
    }
    // A header alone claims nothing it cannot show: its samples are a
    // receipt that could not be checked, not a failure.
    let line = text
        .lines()
        .find(|l| l.contains("headeronly.json: 0 samples × "))
        .expect("the header-only log's tally");
    assert!(!line.ends_with(" 0 could not be checked"), "{line}");
}

/// What each fixture's task registered before it ran: its dataset's
/// samples, its epochs and its scorers, as `make_logs.py` defines the tasks.
const REGISTRATION: &str = r#"{
  "format_version": 1,
  "kind": "evaluation_registration",
  "registered_at": "2026-01-05T09:00:00Z",
  "evaluations": [
    {"task": "choice", "samples": ["mc-1", "mc-2", "mc-3"], "epochs": 2, "scorers": ["choice"]},
    {"task": "errors", "samples": ["ok-1", "ok-2", "boom"], "epochs": 1, "scorers": ["match"]},
    {"task": "failed", "samples": ["ok-1", "ok-2", "boom"], "epochs": 1, "scorers": ["match"]},
    {"task": "scorers", "samples": [1, 2, 3, 4], "epochs": 2, "scorers": ["match", "includes", "pattern", "exact", "f1"]},
    {"task": "tools", "samples": ["add-1", "add-2"], "epochs": 1, "scorers": ["includes"]},
    {"task": "unscored", "samples": ["u-1", "u-2", "u-3"], "epochs": 2, "scorers": ["judged"]}
  ]
}
"#;

/// `tools.json` with its failing sample dropped, and the dataset's ids,
/// the totals and the metrics rewritten to agree: a log that agrees with
/// itself, accuracy up from 0.5 to 1.0.
fn log_without_its_failing_sample(dir: &Path) -> PathBuf {
    let text = fs::read_to_string(fixture("tools.json")).expect("log");
    let mut log: Value = serde_json::from_str(&text).expect("json");
    log["samples"]
        .as_array_mut()
        .expect("samples")
        .retain(|s| s["scores"]["includes"]["value"] != "I");
    let kept: Vec<Value> = log["samples"]
        .as_array()
        .expect("samples")
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    log["eval"]["dataset"]["samples"] = kept.len().into();
    log["eval"]["dataset"]["sample_ids"] = kept.clone().into();
    log["results"]["total_samples"] = kept.len().into();
    log["results"]["completed_samples"] = kept.len().into();
    log["reductions"][0]["samples"]
        .as_array_mut()
        .expect("reduced")
        .retain(|r| kept.contains(&r["sample_id"]));
    let metrics = &mut log["results"]["scores"][0]["metrics"];
    assert_eq!(metrics["accuracy"]["value"], 0.5);
    metrics["accuracy"]["value"] = 1.0.into();
    metrics["stderr"]["value"] = 0.0.into();
    let forged = dir.join("tools.json");
    fs::write(&forged, serde_json::to_vec(&log).expect("json")).expect("write");
    forged
}

/// Writes the fixtures' registration into the project at `root`.
fn register(root: &Path) {
    let path = root.join("experiments/evals/registration.json");
    fs::write(path, REGISTRATION).expect("write");
}

#[test]
fn imported_evaluations_are_held_to_the_samples_epochs_and_scorers_they_registered() {
    let dir = sample_with_imports();
    register(dir.path());
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_exit(&out, 0, "build");
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("imports/evals/scorers.html")).expect("page");
    assert!(
        page.contains("registered 2026-01-05T09:00:00Z (self-asserted): 4 samples × 2 epochs, scored by match, includes, pattern, exact, f1"),
        "the registration on the page"
    );
    assert!(site.join("data/evals/registration.json").is_file());
    for extra in [&[][..], &["--records-only"][..]] {
        let mut args = vec!["verify", "."];
        args.extend_from_slice(extra);
        assert_exit(&receipts(&site, &args), 0, "verify");
    }

    // Without a registration the consistent forgery imports and builds:
    // the log's own header is all it is held to.
    let dir = sample_with_imports();
    let forged = log_without_its_failing_sample(dir.path());
    fs::remove_file(dir.path().join("experiments/evals/inspect/tools.json")).expect("rm");
    assert_exit(&import(dir.path(), &[forged]), 0, "forged import");
    assert_exit(
        &receipts(dir.path(), &["build", "--strict"]),
        0,
        "unregistered",
    );

    // With one, the sample the log dropped is named.
    register(dir.path());
    common::fails_with(
        dir.path(),
        &["evals/registration.json: tools: the samples its task registered: recorded 1 sample-epoch; recomputed the 2 samples × 1 epoch registered include sample add-2, epoch 1, which the log does not hold"],
    );
    // And where the browser verifies: over the published records alone
    // (a build without --strict publishes the site with its failures).
    let out = receipts(dir.path(), &["build"]);
    let site = dir.path().join("site");
    assert_exit(&out, 0, "build");
    let out = receipts(&site, &["verify", ".", "--records-only", "--json"]);
    assert_exit(&out, 1, "verify");
    let result: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        common::failing(&result),
        [(
            "evals/registration.json".to_string(),
            "tools: the samples its task registered".to_string()
        )]
    );

    // Importing into a registered directory holds the log to it at once.
    let again = log_without_its_failing_sample(&site);
    let out = import(dir.path(), &[again]);
    assert_exit(&out, 1, "import into a registered directory");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains("tools: the samples its task registered: recorded 1 sample-epoch; recomputed the 2 samples × 1 epoch registered include sample add-2"),
        "{text}"
    );

    // A registered task whose log is not published (the file drawer).
    let dir = sample_with_imports();
    fs::remove_file(dir.path().join("experiments/evals/inspect/tools.json")).expect("rm");
    register(dir.path());
    common::fails_with(
        dir.path(),
        &["evals/registration.json: each registered task has a log: recorded task `tools`; recomputed no log of the directory ran it"],
    );
}
