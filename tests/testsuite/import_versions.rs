//! `receipts import inspect` on logs written by six Inspect AI versions, from
//! 0.3.40 to 0.3.285 (tests/fixtures/inspect-versions/, made by its
//! `make_corpus.py` with each version installed from PyPI): every log
//! imports with no receipt failing, its record holds exactly what that
//! version's own `read_eval_log` reports (every metric, every sample's
//! scores, completion, target, error and retries, the token totals), its
//! samples come in the dataset's order, and the sample site with all of them
//! imported builds and verifies.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{assert_exit, read_json, receipts, stdout};

fn corpus() -> PathBuf {
    common::repo().join("tests/fixtures/inspect-versions")
}

/// Each version's folder, oldest first.
fn versions() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(corpus())
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    let key = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap_or(0)).collect() };
    out.sort_by_key(|(v, _)| key(v));
    out
}

/// The logs of one form (`eval` or `json`) in a version's folder.
fn logs(dir: &Path, form: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .expect("version")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == form)
                && p.file_name().is_some_and(|n| n != "expected.json")
        })
        .collect();
    out.sort();
    out
}

/// The directory a version's logs of one form are imported into.
fn into(version: &str, form: &str) -> String {
    format!("experiments/inspect-{}-{form}", version.replace('.', "-"))
}

/// `receipts import inspect LOGS --into INTO --allow-unchecked`: the older
/// versions' scores the verifier does not recompute could not be checked,
/// which without the flag exits 3.
fn import(root: &Path, logs: &[PathBuf], into: &str) -> std::process::Output {
    let mut args: Vec<String> = vec!["import".into(), "inspect".into()];
    args.extend(logs.iter().map(|p| p.display().to_string()));
    args.extend(["--into".into(), into.into(), "--allow-unchecked".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    receipts(root, &args)
}

/// The same number, bit for bit, or the same value of another kind; the
/// reports write NaN as the string `nan`, the records as `null`.
fn same(reported: &Value, recorded: &Value) -> bool {
    match (reported, recorded) {
        (Value::String(s), Value::Null) if s == "nan" => true,
        (Value::Number(a), Value::Number(b)) => {
            a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits)
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
        }
        (a, b) => a == b,
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The differences found between what Inspect reported for a log and its record.
struct Differences<'a> {
    log: &'a str,
    found: Vec<String>,
}

impl Differences<'_> {
    fn check(&mut self, what: impl std::fmt::Display, reported: &Value, recorded: &Value) {
        if !same(reported, recorded) {
            self.found.push(format!(
                "{}: {what}: Inspect reports {reported}, the record holds {recorded}",
                self.log
            ));
        }
    }
}

/// Every difference between what Inspect reported for a log and its record.
fn differences(log: &str, want: &Value, record: &Value) -> Vec<String> {
    let mut d = Differences {
        log,
        found: Vec::new(),
    };
    for field in ["status", "task", "model", "error"] {
        d.check(field, &want[field], &record[field]);
    }
    let epochs = if want["epochs"].is_null() {
        Value::from(1)
    } else {
        want["epochs"].clone()
    };
    d.check("epochs", &epochs, &record["epochs"]);

    // Every scorer × reducer line, with every metric.
    let reported = want["results"]["scores"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let lines = record["scorers"].as_array().cloned().unwrap_or_default();
    d.check("scorer lines", &reported.len().into(), &lines.len().into());
    for (want, line) in reported.iter().zip(&lines) {
        let at = format!("scorers[{}]", want["name"]);
        d.check(format!("{at}.name"), &want["name"], &line["name"]);
        d.check(format!("{at}.scorer"), &want["scorer"], &line["scorer"]);
        let reducer = if want["reducer"].is_null() {
            Value::from("mean")
        } else {
            want["reducer"].clone()
        };
        d.check(format!("{at}.reducer"), &reducer, &line["reducer"]);
        d.check(format!("{at}.metrics"), &want["metrics"], &line["metrics"]);
    }

    // Every sample × epoch.
    let reported = want["samples"].as_array().cloned().unwrap_or_default();
    let samples = record["samples"].as_array().cloned().unwrap_or_default();
    d.check(
        "samples × epochs",
        &reported.len().into(),
        &samples.len().into(),
    );
    for want in &reported {
        let id = id_text(&want["id"]);
        let at = format!("samples[{id} epoch {}]", want["epoch"]);
        let Some(sample) = samples
            .iter()
            .find(|s| s["id"] == id && s["epoch"] == want["epoch"])
        else {
            d.found.push(format!("{log}: {at}: not in the record"));
            continue;
        };
        let target = match &want["target"] {
            Value::String(t) => Value::from(vec![t.clone()]),
            other => other.clone(),
        };
        d.check(format!("{at}.target"), &target, &sample["target"]);
        d.check(
            format!("{at}.completion"),
            &want["completion"],
            &sample["completion"],
        );
        d.check(format!("{at}.error"), &want["error"], &sample["error"]);
        let retries = want["error_retries"].as_u64().unwrap_or(0);
        let held = sample["retries"].as_u64().unwrap_or(0);
        d.check(format!("{at}.retries"), &retries.into(), &held.into());
        let scores = want["scores"].as_object().cloned().unwrap_or_default();
        let held = sample["scores"].as_object().cloned().unwrap_or_default();
        d.check(
            format!("{at}.scores"),
            &scores.len().into(),
            &held.len().into(),
        );
        for (key, score) in &scores {
            let held = held.get(key).cloned().unwrap_or_default();
            d.check(
                format!("{at}.scores[{key}].value"),
                &score["value"],
                &held["value"],
            );
            d.check(
                format!("{at}.scores[{key}].answer"),
                &score["answer"],
                &held["answer"],
            );
        }
    }

    // The token totals, model by model.
    let usage = want["model_usage"].as_object().cloned().unwrap_or_default();
    for (model, u) in &usage {
        let held = &record["usage"][model];
        for field in [
            "input_tokens",
            "output_tokens",
            "input_tokens_cache_read",
            "input_tokens_cache_write",
            "reasoning_tokens",
        ] {
            d.check(format!("usage[{model}].{field}"), &u[field], &held[field]);
        }
    }

    // The samples in the dataset's order, where the log lists it.
    if let Some(order) = want["sample_ids_in_dataset_order"].as_array() {
        let mut held: Vec<String> = Vec::new();
        for s in &samples {
            let id = s["id"].as_str().unwrap_or_default().to_string();
            if !held.contains(&id) {
                held.push(id);
            }
        }
        let order: Vec<String> = order
            .iter()
            .map(id_text)
            .filter(|id| held.contains(id))
            .collect();
        if held != order {
            d.found.push(format!(
                "{log}: samples in the order {held:?}, the dataset's is {order:?}"
            ));
        }
    }
    d.found
}

#[test]
fn every_log_of_every_version_imports_and_holds_what_inspect_reads() {
    let versions = versions();
    assert!(versions.len() >= 5, "{} versions", versions.len());
    let dir = tempfile::tempdir().expect("tempdir");
    let mut problems = Vec::new();
    let mut compared = 0;
    for (version, folder) in &versions {
        let expected = read_json(&folder.join("expected.json"));
        for form in ["eval", "json"] {
            let logs = logs(folder, form);
            if logs.is_empty() {
                continue;
            }
            let into = into(version, form);
            let out = import(dir.path(), &logs, &into);
            assert_exit(&out, 0, &format!("{version} {form}"));
            let text = stdout(&out);
            assert_eq!(
                text.matches(" 0 fail, ").count(),
                logs.len(),
                "{version} {form}: {text}"
            );
            for log in &logs {
                let name = log.file_name().unwrap().to_string_lossy().into_owned();
                let stem = log.file_stem().unwrap().to_string_lossy().into_owned();
                let record =
                    read_json(&dir.path().join(&into).join(format!("inspect/{stem}.json")));
                problems.extend(differences(
                    &format!("{version}/{name}"),
                    &expected[&name],
                    &record,
                ));
                compared += 1;
            }
        }
    }
    assert!(compared >= 40, "{compared} logs compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_difference_from_what_inspect_reads_is_found() {
    // The comparison above can fail: a metric off by one bit, a score
    // rewritten, a sample's retries dropped.
    let (version, folder) = versions().pop().expect("a version");
    let expected = read_json(&folder.join("expected.json"));
    let dir = tempfile::tempdir().expect("tempdir");
    let log = folder.join("scorers.eval");
    assert_exit(
        &import(dir.path(), &[log], "experiments/evals"),
        0,
        "import",
    );
    let record = read_json(&dir.path().join("experiments/evals/inspect/scorers.json"));
    let want = &expected["scorers.eval"];
    assert!(differences(&version, want, &record).is_empty());

    let mut nudged = record.clone();
    let metric = nudged["scorers"][0]["metrics"]["accuracy"]
        .as_f64()
        .expect("accuracy");
    nudged["scorers"][0]["metrics"]["accuracy"] = f64::from_bits(metric.to_bits() + 1).into();
    let found = differences(&version, want, &nudged);
    assert!(found.iter().any(|d| d.contains(".metrics")), "{found:?}");

    let mut rewritten = record.clone();
    let score = rewritten["samples"][0]["scores"]
        .as_object_mut()
        .expect("scores");
    let key = score.keys().next().expect("a score").clone();
    score[&key]["value"] = "X".into();
    let found = differences(&version, want, &rewritten);
    assert!(
        found
            .iter()
            .any(|d| d.contains(&format!("scores[{key}].value"))),
        "{found:?}"
    );
}

#[test]
fn the_sample_site_with_every_version_imported_builds_and_verifies() {
    let dir = common::sample_copy();
    for (version, folder) in versions() {
        for form in ["eval", "json"] {
            let logs = logs(&folder, form);
            if !logs.is_empty() {
                assert_exit(
                    &import(dir.path(), &logs, &into(&version, form)),
                    0,
                    &version,
                );
            }
        }
    }
    // Not `--strict`: scores of the older versions' readings the verifier
    // does not recompute are receipts that could not be checked, never passes.
    let out = receipts(dir.path(), &["build", "--out", "site"]);
    assert_exit(&out, 0, "build");
    assert!(stdout(&out).contains(" 0 fail, "), "{}", stdout(&out));
    let out = receipts(dir.path(), &["verify", "site"]);
    assert_exit(
        &out,
        3,
        "verify: nothing fails, some receipts could not be checked",
    );
    let out = receipts(dir.path(), &["verify", "--allow-unchecked", "site"]);
    assert_exit(&out, 0, "verify --allow-unchecked");
    // The oldest version's scorers log has its page, with the header Inspect's
    // viewer shows.
    let (oldest, _) = versions().remove(0);
    let page = fs::read_to_string(
        dir.path()
            .join("site/imports")
            .join(into(&oldest, "json").trim_start_matches("experiments/"))
            .join("scorers.html"),
    )
    .expect("page");
    assert!(page.contains("class=\"facts eval-header\""), "header");
    assert!(page.contains("3 samples × 2 epochs"), "samples × epochs");
}
