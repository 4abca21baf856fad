//! Copied runs: a failing run replaced by a copy of a passing run of
//! another cell, every request id renamed and every time shifted, its usage,
//! latencies, turns and artifact kept, fails `receipts build --strict`
//! naming both runs, natively and over the records alone as the browser
//! verifies them; an honest rerun that shares the text (the artifact and
//! the model's outputs, so the usage) but makes calls of its own (its own
//! ids and latencies) does not. The same on the wire is in `record::copied`.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use common::{assert_exit, read_json, receipts, sample_copy, stderr, stdout, write_json};
use receipts_verifier::time::{format, parse, UnixMillis};

/// The rows of E01's results table, header left out.
fn rows(root: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(root.join("experiments/E01/results.csv"))
        .expect("results")
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn record(root: &Path, run: &str) -> std::path::PathBuf {
    root.join(format!("experiments/E01/runs/{run}.json"))
}

/// A failing run of E01 and a passing run of the same task and policy in
/// another cell: the run to hide, and the run to copy over it.
fn failing_and_passing(root: &Path) -> (Vec<String>, Vec<String>) {
    let rows = rows(root);
    let related: Vec<&str> = rows
        .iter()
        .filter(|r| !r[12].is_empty())
        .flat_map(|r| [r[0].as_str(), r[12].as_str()])
        .collect();
    rows.iter()
        .filter(|f| f[6] == "false" && !related.contains(&f[0].as_str()))
        .find_map(|f| {
            rows.iter()
                .find(|p| {
                    p[6] == "true"
                        && p[1] == f[1]
                        && p[4] == f[4]
                        && !related.contains(&p[0].as_str())
                })
                .map(|p| (f.clone(), p.clone()))
        })
        .expect("a failing run and a passing run of its task and policy")
}

/// Every timestamp of `run` moved by `ms`.
pub(crate) fn shift(run: &mut Value, ms: i64) {
    let moved = |v: &mut Value| {
        let at = parse(v.as_str().expect("a timestamp")).expect("RFC 3339");
        *v = json!(format(UnixMillis(at.0 + ms)));
    };
    moved(&mut run["started_at"]);
    for attempt in run["attempts"].as_array_mut().expect("attempts") {
        moved(&mut attempt["started_at"]);
        for call in attempt["calls"].as_array_mut().expect("calls") {
            moved(&mut call["started_at"]);
        }
    }
}

/// Every request id of `run` renamed, wherever the run names it.
pub(crate) fn rename(run: &mut Value) {
    let new = |old: &str| format!("renamed-{old}");
    for attempt in run["attempts"].as_array_mut().expect("attempts") {
        for call in attempt["calls"].as_array_mut().expect("calls") {
            call["request_id"] = json!(new(call["request_id"].as_str().expect("an id")));
            if let Some(old) = call["retry_of"].as_str().map(str::to_string) {
                call["retry_of"] = json!(new(&old));
            }
        }
        for turn in attempt["turns"].as_array_mut().expect("turns") {
            turn["call"] = json!(new(turn["call"].as_str().expect("a call")));
        }
        for message in attempt["messages"].as_array_mut().into_iter().flatten() {
            if let Some(old) = message["call"].as_str().map(str::to_string) {
                message["call"] = json!(new(&old));
            }
        }
    }
}

/// The failing run's record replaced by the passing run's, under the
/// failing run's id and cell, renamed and shifted by an hour; each call's
/// latency changed by `latency`.
fn replace(root: &Path, failing: &[String], passing: &[String], latency: impl Fn(u64) -> u64) {
    let mut run = read_json(&record(root, &passing[0]));
    run["id"] = json!(failing[0]);
    run["profile"] = json!(failing[2]);
    run["seed"] = json!(failing[3].parse::<u64>().expect("a seed"));
    shift(&mut run, 3_600_000);
    rename(&mut run);
    for attempt in run["attempts"].as_array_mut().expect("attempts") {
        for call in attempt["calls"].as_array_mut().expect("calls") {
            let ms = call["latency_ms"].as_u64().expect("a latency");
            call["latency_ms"] = json!(latency(ms));
        }
    }
    write_json(&record(root, &failing[0]), &run);
}

/// The failing receipts `receipts build --strict` prints (it exits 1).
fn failing_lines(root: &Path) -> Vec<String> {
    let out = receipts(root, &["build", "--strict"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}");
    text.lines()
        .filter(|l| l.contains("Fail "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_failing_run_replaced_by_a_renamed_and_shifted_copy_of_a_passing_run_fails_naming_both() {
    let dir = sample_copy();
    let (failing, passing) = failing_and_passing(dir.path());
    replace(dir.path(), &failing, &passing, |ms| ms);
    let lines = failing_lines(dir.path());
    // Which is the copy the records cannot say: each run is named, with the other.
    for (run, other) in [(&failing[0], &passing[0]), (&passing[0], &failing[0])] {
        let named = |l: &&String| {
            l.contains(&format!(
                "Fail E01/runs/{run}.json: not a copy of another run: recorded calls 1 to 3 of "
            )) && l.contains(&format!(
                "recomputed one run recorded twice, here and as E01/runs/{other}.json: 3 calls in a row with the same usage and latency"
            ))
        };
        assert!(lines.iter().any(|l| named(&l)), "{lines:#?}");
    }
    // The published site, verified over its records alone as a page's
    // Verify does in the browser, names both runs the same way.
    assert_exit(&receipts(dir.path(), &["build"]), 0, "build");
    let out = receipts(
        &dir.path().join("site"),
        &["verify", ".", "--records-only", "--json"],
    );
    assert_exit(&out, 1, "verify");
    let result: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut copies: Vec<(String, String)> = common::failing(&result)
        .into_iter()
        .filter(|(_, claim)| claim == "not a copy of another run")
        .collect();
    let mut expected: Vec<(String, String)> = [&failing[0], &passing[0]]
        .iter()
        .map(|run| {
            (
                format!("E01/runs/{run}.json"),
                "not a copy of another run".to_string(),
            )
        })
        .collect();
    copies.sort();
    expected.sort();
    assert_eq!(copies, expected);
}

#[test]
fn an_honest_rerun_that_shares_the_text_but_not_the_ids_or_latencies_is_no_copy() {
    let dir = sample_copy();
    let (failing, passing) = failing_and_passing(dir.path());
    // The same artifact, turns, transcript and usage: a deterministic
    // model and tools. Its own calls: new ids, each a millisecond faster.
    replace(dir.path(), &failing, &passing, |ms| ms - 1);
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let copies: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("Fail "))
        .filter(|l| l.contains("not a copy of another run") || l.contains("calls on record once"))
        .collect();
    assert!(copies.is_empty(), "{}", copies.join("\n"));
    // What does fail is what the run now gives: it passes where the
    // published results say it failed.
    assert!(
        text.lines()
            .any(|l| l.contains("Fail ") && l.contains("results.csv")),
        "{text}"
    );
}
