//! A study published as shards: the sample split in three sites, under a
//! root site (`receipts root`) that lists each by its root digest. Each
//! forgery a publisher could make of it (a shard altered and resealed,
//! swapped for another, dropped, counted twice; the root's page rounding a
//! figure; a shard dropped from a root rebuilt around it) is kept here and
//! must fail `receipts verify` on the root.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{assert_exit, copy_dir, failing, receipts, reseal, root_digest, stderr, stdout};
use receipts_verifier::digest::sha256_hex;

/// The sample's experiments in three shards, so that no claim reads an
/// experiment of another shard.
const SPLIT: [(&str, &[&str]); 3] = [
    ("shard-a", &["E01", "E02", "E04", "study.json"]),
    ("shard-b", &["E03", "I01", "I02"]),
    ("shard-c", &["harness", "regressions"]),
];

/// Each part of `experiments/` a shard leaves out.
const PARTS: [&str; 9] = [
    "E01",
    "E02",
    "E03",
    "E04",
    "I01",
    "I02",
    "harness",
    "regressions",
    "study.json",
];

/// A folder holding the three shards' sites and the root site over them,
/// for the test to change as it likes.
struct Study {
    dir: tempfile::TempDir,
}

impl Study {
    /// A copy of the study, which is built once per test run.
    fn new() -> Study {
        Study {
            dir: common::copy(&common::shared("shards", Study::make)),
        }
    }

    /// Builds the study into `dir`.
    fn make(dir: &Path) {
        let experiments = common::repo().join("experiments");
        for (name, keep) in SPLIT {
            let project = dir.join(format!("project-{name}"));
            copy_dir(&experiments, &project.join("experiments"));
            for part in PARTS.iter().filter(|p| !keep.contains(p)) {
                let path = project.join("experiments").join(part);
                if path.is_dir() {
                    fs::remove_dir_all(&path).expect("remove");
                } else {
                    fs::remove_file(&path).expect("remove");
                }
            }
            let site = format!("../{name}");
            let out = receipts(&project, &["build", "--quiet", "--out", &site]);
            assert_exit(&out, 0, &format!("build {name}"));
        }
        let out = receipts(
            dir,
            &["root", "--out", "root", "shard-a", "shard-b", "shard-c"],
        );
        assert_exit(&out, 0, "root");
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("root")
    }

    /// `receipts verify root --json` with `args`: the exit code and the result.
    fn verify(&self, args: &[&str]) -> (Option<i32>, Value) {
        let out = receipts(
            self.dir.path(),
            &[&["verify", "root", "--json"][..], args].concat(),
        );
        let value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
        (out.status.code(), value)
    }
}

fn assert_fails(result: &Value, subject: &str, claim: &str) {
    let failed = failing(result);
    assert!(
        failed
            .iter()
            .any(|(s, c)| s == subject && c.contains(claim)),
        "no failing receipt `{subject}: {claim}` among {failed:#?}"
    );
}

/// Reseals a root as a forger would: every file its `SHA256SUMS` lists
/// hashed again as it now is.
fn reseal_root(root: &Path) {
    let sums = root.join("SHA256SUMS");
    let resealed: String = fs::read_to_string(&sums)
        .expect("sums")
        .lines()
        .map(|l| {
            let (_, path) = l.split_once("  ").expect("a manifest line");
            let bytes = fs::read(root.join(path)).expect("a listed file");
            format!("{}  {path}\n", sha256_hex(&bytes))
        })
        .collect();
    fs::write(&sums, resealed).expect("write");
}

/// A run record of `shard` with a passing check, the first by path.
fn a_run_record(shard: &Path) -> PathBuf {
    let mut records = common::files_ending(&shard.join("data"), ".json");
    records.sort();
    records
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("runs")))
        .find(|p| fs::read_to_string(p).is_ok_and(|t| t.contains("\"passed\": true")))
        .expect("a run record with a passing check")
}

#[test]
fn a_root_of_three_shards_verifies_every_shard_under_its_pin() {
    let study = Study::new();
    let pin = root_digest(&study.root());
    let (code, result) = study.verify(&["--expect-root", &pin]);
    assert_eq!(code, Some(0), "{:#?}", failing(&result));
    assert_eq!(result["root_digest"], pin.as_str());
    let receipts = result["receipts"].as_array().expect("receipts");
    // Every shard verified whole, its receipts under its name: its records
    // recomputed and its pages checked.
    for (name, _) in SPLIT {
        let prefix = format!("{name}/data/");
        assert!(
            receipts
                .iter()
                .any(|r| r["subject"].as_str().unwrap().starts_with(&prefix)),
            "no receipt of {name}'s records"
        );
        assert!(
            receipts
                .iter()
                .any(|r| r["subject"] == format!("{name}/SHA256SUMS")
                    && r["claim"] == "root digest in SHARDS"
                    && r["status"] == "pass"),
            "{name}'s root digest was not held to SHARDS"
        );
    }
    // The page shows what the shards' manifests list.
    let page = fs::read_to_string(study.root().join("index.html")).expect("page");
    let runs: usize = SPLIT
        .iter()
        .map(|(name, _)| {
            let sums = fs::read_to_string(study.path(name).join("data/SHA256SUMS")).unwrap();
            sums.lines().filter(|l| l.contains("/runs/")).count()
        })
        .sum();
    assert!(page.contains(&format!("with {runs} runs in all")), "{runs}");
    for (name, _) in SPLIT {
        assert!(page.contains(&root_digest(&study.path(name))), "{name}");
    }
    // A pin of another root fails.
    let (code, result) = study.verify(&["--expect-root", &"0".repeat(64)]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "SHA256SUMS", "root digest");
}

#[test]
fn a_shard_altered_and_resealed_or_swapped_or_missing_fails_by_name() {
    let study = Study::new();
    // Altered: a run's record edited and every digest of the shard resealed,
    // so that the shard verifies alone.
    let shard = study.path("shard-b");
    let record = a_run_record(&shard);
    let text = fs::read_to_string(&record).expect("record");
    fs::write(
        &record,
        text.replacen("\"passed\": true", "\"passed\": false", 1),
    )
    .expect("write");
    reseal(&shard);
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "shard-b/SHA256SUMS", "root digest in SHARDS");
    assert_fails(&result, "index.html", "rendered");

    // Swapped: shard-c's site published under shard-b's name.
    let study = Study::new();
    fs::remove_dir_all(study.path("shard-b")).expect("remove");
    fs::rename(study.path("shard-c"), study.path("shard-b")).expect("rename");
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "shard-b/SHA256SUMS", "root digest in SHARDS");
    // Missing: shard-c is no longer published.
    assert_fails(&result, "shard-c/SHA256SUMS", "root digest in SHARDS");
}

#[test]
fn a_shard_counted_twice_fails_and_is_refused() {
    let study = Study::new();
    copy_dir(&study.path("shard-a"), &study.path("shard-d"));
    // `receipts root` will not list a run twice.
    let out = receipts(
        study.dir.path(),
        &["root", "--out", "root2", "shard-a", "shard-b", "shard-d"],
    );
    assert_exit(&out, 2, "root over a copied shard");
    let text = stderr(&out);
    assert!(
        text.contains("shard-d") && text.contains("shard-a"),
        "{text}"
    );
    assert!(!study.path("root2").exists());
    // A forger lists the copy by hand and reseals the root's manifest.
    let shards = study.root().join("SHARDS");
    let mut list = fs::read_to_string(&shards).expect("SHARDS");
    list.push_str(&format!(
        "{}  shard-d\n",
        root_digest(&study.path("shard-d"))
    ));
    fs::write(&shards, &list).expect("write");
    reseal_root(&study.root());
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    let failed = failing(&result);
    assert!(
        failed
            .iter()
            .any(|(s, c)| s.starts_with("shard-d/data/") && c == "published by one shard"),
        "{failed:#?}"
    );
}

#[test]
fn a_root_page_that_rounds_a_figure_or_a_root_that_drops_a_shard_fails() {
    let study = Study::new();
    let pin = root_digest(&study.root());
    // The page, not the record: a shard's run count rounded up.
    let page = study.root().join("index.html");
    let text = fs::read_to_string(&page).expect("page");
    let runs = text
        .split("data-shown=\"runs\">")
        .nth(1)
        .and_then(|t| t.split('<').next())
        .expect("a shown run count")
        .to_string();
    let more = (runs.parse::<usize>().expect("a count") + 10).to_string();
    fs::write(
        &page,
        text.replacen(
            &format!("data-shown=\"runs\">{runs}<"),
            &format!("data-shown=\"runs\">{more}<"),
            1,
        ),
    )
    .expect("write");
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "index.html", "rendered");
    fs::write(&page, text).expect("restore");

    // The inconvenient shard dropped: a root rebuilt over the other two is
    // consistent, and fails the pin of the root that was published.
    let out = receipts(
        study.dir.path(),
        &["root", "--quiet", "--out", "root", "shard-a", "shard-c"],
    );
    assert_exit(&out, 0, "root over two shards");
    let (code, _) = study.verify(&[]);
    assert_eq!(code, Some(0));
    let (code, result) = study.verify(&["--expect-root", &pin]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "SHA256SUMS", "root digest");

    // A file slipped into the root fails too.
    fs::write(study.root().join("extra.html"), "<p>claims</p>").expect("write");
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "extra.html", "made by receipts root");
}

#[test]
fn a_root_whose_verify_script_is_patched_and_resealed_fails() {
    let study = Study::new();
    // The code a reader's browser runs to verify, changed to report success
    // whatever it finds, and the root's manifest resealed over it.
    let script = study.root().join("assets/verify.js");
    let mut code = fs::read_to_string(&script).expect("verify.js");
    code.push_str("\ndocument.title = \"verified\";\n");
    fs::write(&script, code).expect("write");
    reseal_root(&study.root());
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert_fails(&result, "assets/verify.js", "the copy receipts");
    assert_eq!(failing(&result).len(), 1, "{:#?}", failing(&result));

    // The text output keeps only what did not pass, and counts every receipt.
    let out = receipts(study.dir.path(), &["verify", "root"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("FAIL assets/verify.js: the copy receipts"),
        "{text}"
    );
    let total = result["receipts"].as_array().expect("receipts").len();
    let passed = total - 1;
    assert!(
        text.contains(&format!(": failed: {total} receipts ("))
            && text.contains(&format!("{passed} pass, 1 fail, 0 could not be checked")),
        "{total} receipts, {passed} passing, not in {text}"
    );
}

#[test]
fn a_root_over_what_is_not_a_site_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("notes")).expect("mkdir");
    let out = receipts(dir.path(), &["root", "--out", "root", "notes"]);
    assert_exit(&out, 2, "root over a folder that is not a site");
    assert!(
        stderr(&out).contains("notes/SHA256SUMS"),
        "{}",
        stderr(&out)
    );
    fs::create_dir_all(dir.path().join("bad name")).expect("mkdir");
    let out = receipts(dir.path(), &["root", "--out", "root", "bad name"]);
    assert_exit(&out, 2, "a shard whose name is not a folder name");
    assert!(!dir.path().join("root").exists());
    // --shards goes with a root only.
    let out = receipts(dir.path(), &["verify", "notes", "--shards", "."]);
    assert_exit(&out, 2, "--shards on a site");
}

/// Builds shard `name` of the study from a copy of shard-a's project that
/// keeps only E01, changed by `forge`, and a root over the three shards and
/// it: `receipts root` reads manifests alone, so it builds.
fn add_shard(study: &Study, name: &str, forge: impl FnOnce(&Path)) {
    let project = study.path(&format!("project-{name}"));
    copy_dir(&study.path("project-shard-a"), &project);
    let experiments = project.join("experiments");
    for part in ["E02", "E04", "study.json"] {
        let path = experiments.join(part);
        if path.is_dir() {
            fs::remove_dir_all(&path).expect("remove");
        } else {
            fs::remove_file(&path).expect("remove");
        }
    }
    // The showcase and memos read the experiments left behind.
    for dir in ["showcase", "docs"] {
        if project.join(dir).exists() {
            fs::remove_dir_all(project.join(dir)).expect("remove");
        }
    }
    forge(&experiments);
    let out = receipts(
        &project,
        &[
            "build",
            "--quiet",
            "--strict",
            "--out",
            &format!("../{name}"),
        ],
    );
    assert_exit(
        &out,
        0,
        &format!("build {name}, a site that verifies alone"),
    );
    let out = receipts(
        study.dir.path(),
        &[
            "root", "--quiet", "--out", "root", "shard-a", "shard-b", "shard-c", name,
        ],
    );
    assert_exit(&out, 0, "root over the shards and the copy");
}

/// Every run record of an experiment's `runs/` folder, parsed, with its path.
fn each_run(dir: &Path, mut edit: impl FnMut(&Path, &mut Value)) {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir.join("runs"))
        .expect("runs")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    for path in paths {
        let mut run: Value = serde_json::from_slice(&fs::read(&path).expect("read")).expect("run");
        edit(&path, &mut run);
    }
}

/// Whether a failing receipt of `result` has `subject` (a prefix) and a
/// claim and recomputed value holding `claim` and `names`.
fn fails_naming(result: &Value, subject: &str, claim: &str, names: &str) -> bool {
    result["receipts"]
        .as_array()
        .expect("receipts")
        .iter()
        .any(|r| {
            r["status"] == "fail"
                && r["subject"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(subject)
                && r["claim"] == claim
                && r["recomputed"].as_str().unwrap_or_default().contains(names)
        })
}

/// Each run of E01 under `experiments` published again under a new id, its
/// record changed by `forge`, and the results table renamed with it.
fn again_under_new_ids(experiments: &Path, forge: impl Fn(&mut Value)) {
    let e01 = experiments.join("E01");
    each_run(&e01, |path, run| {
        let id = format!("{}-again", run["id"].as_str().expect("an id"));
        run["id"] = serde_json::json!(id);
        if let Some(old) = run["replaces"].as_str().map(|o| format!("{o}-again")) {
            run["replaces"] = serde_json::json!(old);
        }
        forge(run);
        fs::remove_file(path).expect("remove");
        common::write_json(&e01.join(format!("runs/{id}.json")), run);
    });
    let results = e01.join("results.csv");
    let text = fs::read_to_string(&results).expect("results");
    let renamed: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                return format!("{l}\n");
            }
            let cells: Vec<String> = l
                .split(',')
                .enumerate()
                .map(|(c, v)| {
                    if (c == 0 || c == 12) && !v.is_empty() {
                        format!("{v}-again")
                    } else {
                        v.to_string()
                    }
                })
                .collect();
            format!("{}\n", cells.join(","))
        })
        .collect();
    fs::write(&results, renamed).expect("write");
}

#[test]
fn the_same_runs_published_again_under_new_run_ids_fail_by_both_shards() {
    let study = Study::new();
    // Each run under a new id, its calls as they were.
    add_shard(&study, "shard-d", |experiments| {
        again_under_new_ids(experiments, |_| {});
    });
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    // No record is published twice: the runs are, under other names.
    assert!(!failing(&result)
        .iter()
        .any(|(_, c)| c == "published by one shard"));
    assert!(
        fails_naming(
            &result,
            "shard-d/data/E01/runs/",
            "calls on record once",
            "as a call of shard-a/data/E01/runs/"
        ),
        "{:#?}",
        failing(&result)
    );
}

#[test]
fn the_same_runs_renamed_and_shifted_in_another_shard_fail_as_copies_by_both_shards() {
    let study = Study::new();
    // Every request id renamed too, and every time an hour later.
    add_shard(&study, "shard-f", |experiments| {
        again_under_new_ids(experiments, |run| {
            crate::copies::rename(run);
            crate::copies::shift(run, 3_600_000);
        });
    });
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert!(!failing(&result)
        .iter()
        .any(|(_, c)| c == "calls on record once"));
    for (here, there) in [("shard-f", "shard-a"), ("shard-a", "shard-f")] {
        assert!(
            fails_naming(
                &result,
                &format!("{here}/data/E01/runs/"),
                "not a copy of another run",
                &format!("one run recorded twice, here and as {there}/data/E01/runs/")
            ),
            "{:#?}",
            failing(&result)
        );
    }
}

#[test]
fn an_experiment_copied_under_a_new_id_and_registered_again_fails_by_both_places() {
    let study = Study::new();
    add_shard(&study, "shard-e", |experiments| {
        let from = experiments.join("E01");
        let to = experiments.join("E05");
        fs::rename(&from, &to).expect("rename");
        let path = to.join("experiment.json");
        let mut e = common::read_json(&path);
        e["id"] = serde_json::json!("E05");
        // Registered again: the registration's digest made anew over it.
        let parsed: receipts_verifier::model::Experiment =
            serde_json::from_value(e.clone()).expect("an experiment");
        let rules = receipts_verifier::prereg::rules_digest(&parsed);
        let covers = &e["preregistration"]["covers"];
        let tasks: std::collections::BTreeMap<String, String> =
            serde_json::from_value(covers["tasks"].clone()).expect("tasks");
        let log = covers["log"].as_str().expect("log").to_string();
        e["preregistration"]["covers"]["rules"] = serde_json::json!(rules);
        e["preregistration"]["sha256"] = serde_json::json!(
            receipts_verifier::prereg::registration_digest(&log, &rules, &tasks)
        );
        common::write_json(&path, &e);
        // The summary's claims name its figures by experiment.
        let summary = to.join("summary.json");
        let text = fs::read_to_string(&summary).expect("summary");
        fs::write(&summary, text.replace("E01.", "E05.")).expect("write");
        for file in ["models.json", "summary.json"] {
            common::edit_json(&to.join(file), |v| {
                v["experiment"] = serde_json::json!("E05");
            });
        }
        each_run(&to, |path, run| {
            run["experiment"] = serde_json::json!("E05");
            common::write_json(path, run);
        });
    });
    let (code, result) = study.verify(&[]);
    assert_eq!(code, Some(1));
    assert!(
        fails_naming(
            &result,
            "shard-e/data/E05/runs/",
            "calls on record once",
            "as a call of shard-a/data/E01/runs/"
        ),
        "{:#?}",
        failing(&result)
    );
}
