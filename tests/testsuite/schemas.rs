//! The published JSON Schemas (`docs/schema/`) hold every record the tool
//! writes and refuse what it refuses, checked with a standard JSON Schema
//! validator (the `jsonschema` crate, draft 2020-12): every record of the
//! sample and of a built site (git anchors and an exported report included),
//! and records the build refuses.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use common::{built, read_json, receipts, repo};

/// Every schema of `docs/schema/`, by the `kind` its records carry.
fn schemas() -> BTreeMap<String, jsonschema::Validator> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(repo().join("docs/schema")).expect("docs/schema") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let Some(kind) = name.strip_suffix(".schema.json") else {
            continue;
        };
        let schema = read_json(&path);
        let validator = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"));
        out.insert(kind.replace('-', "_"), validator);
    }
    out
}

/// The kind of a record: its `kind` field (a harness suite's is `harness`).
fn kind(record: &Value) -> Option<String> {
    record.get("kind")?.as_str().map(str::to_string)
}

/// Every JSON record under `root`, by path.
fn records(root: &Path) -> BTreeMap<String, Value> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            let rel = e.path().strip_prefix(root).expect("prefix");
            (rel.to_string_lossy().into_owned(), read_json(e.path()))
        })
        .collect()
}

fn problems(
    schemas: &BTreeMap<String, jsonschema::Validator>,
    path: &str,
    record: &Value,
) -> Vec<String> {
    let Some(kind) = kind(record) else {
        return vec![format!("{path}: no kind")];
    };
    let Some(validator) = schemas.get(&kind) else {
        return vec![format!("{path}: no schema for kind `{kind}`")];
    };
    validator
        .iter_errors(record)
        .take(3)
        .map(|e| format!("{path} ({kind}): {} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn every_record_the_tool_writes_is_valid_under_its_schema() {
    let schemas = schemas();
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    let dir = built();
    let site = dir.path().join("site");
    // The records as a site publishes them (the sample's, byte for byte).
    let mut all = records(&site.join("data"));
    all.extend(
        records(&repo().join("showcase"))
            .into_iter()
            .map(|(p, v)| (format!("showcase/{p}"), v)),
    );
    // A report the command exports.
    let run = "E02-release-brief-fast-s1-always-medium";
    let out = receipts(
        &site,
        &["export", run, "--root", ".", "--out", "report.json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    all.insert("report.json".into(), read_json(&site.join("report.json")));
    for (path, record) in &all {
        if path.ends_with("statement.intoto.json") {
            continue;
        }
        *checked.entry(kind(record).unwrap_or_default()).or_default() += 1;
        failed.extend(problems(&schemas, path, record));
    }
    assert_eq!(failed, Vec::<String>::new());
    for kind in [
        "experiment",
        "run",
        "summary",
        "task",
        "study",
        "deviations",
        "model_check",
        "showcase",
        "report",
        "harness_run",
        "skill_edit",
    ] {
        assert!(
            checked.get(kind).is_some_and(|n| *n > 0),
            "no {kind} record checked: {checked:?}"
        );
    }
    assert!(checked.values().sum::<usize>() > 240, "{checked:?}");
}

#[test]
fn records_the_build_refuses_are_refused_by_their_schema() {
    let schemas = schemas();
    let run = read_json(&repo().join("experiments/E04/runs/E04-release-brief-fast-s2-ladder.json"));
    let summary = read_json(&repo().join("experiments/E02/summary.json"));
    let forged: Vec<(&str, Value)> = vec![
        ("an unknown field", {
            let mut r = run.clone();
            r["unexpected"] = json!(1);
            r
        }),
        ("another format version", {
            let mut r = run.clone();
            r["format_version"] = json!(2);
            r
        }),
        ("usage left out rather than null", {
            let mut r = run.clone();
            r["attempts"][0]["calls"][0]
                .as_object_mut()
                .expect("call")
                .remove("usage");
            r
        }),
        ("a negative token count", {
            let mut r = run.clone();
            r["attempts"][0]["calls"][0]["usage"]["prompt_tokens"] = json!(-1);
            r
        }),
        ("a headline that is not text", {
            let mut s = summary.clone();
            s["headline"] = json!(83.3);
            s
        }),
    ];
    for (what, record) in forged {
        assert!(
            !problems(&schemas, what, &record).is_empty(),
            "{what} passes its schema"
        );
    }
}
