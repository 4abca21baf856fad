//! Forgeries of a study's integrity, each made on a copy of the sample input
//! the way a publisher with a result to hide would make it (drop the
//! inconvenient run, count a run twice, borrow one, round a number until it
//! agrees, break the policy or the limits, rewrite a correction or the
//! deviations), and each held to make `receipts build --strict` exit 1 with
//! a failing receipt that names the cell, run, figure or file.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use common::{edit_json, fails_with, read_json, receipts, sample_copy, stderr, stdout, write_json};

fn run_path(root: &Path, experiment: &str, run: &str) -> std::path::PathBuf {
    root.join(format!("experiments/{experiment}/runs/{run}.json"))
}

/// The rows of a results table (header first).
fn results(root: &Path, experiment: &str) -> Vec<Vec<String>> {
    fs::read_to_string(root.join(format!("experiments/{experiment}/results.csv")))
        .expect("results")
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn drop_result_row(root: &Path, experiment: &str, run: &str) {
    let path = root.join(format!("experiments/{experiment}/results.csv"));
    let text = fs::read_to_string(&path).expect("results");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(&format!("{run},")))
        .collect();
    fs::write(&path, kept.join("\n") + "\n").expect("write");
}

#[test]
fn the_untouched_sample_passes_every_integrity_receipt() {
    let dir = sample_copy();
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn a_dropped_failing_run_leaves_its_cell_empty() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let replaced: Vec<&str> = rows.iter().map(|r| r[12].as_str()).collect();
    let failing = rows
        .iter()
        .find(|r| r[6] == "false" && r[12].is_empty() && !replaced.contains(&r[0].as_str()))
        .expect("a failing run no rerun replaces")
        .clone();
    fs::remove_file(run_path(dir.path(), "E02", &failing[0])).expect("rm");
    drop_result_row(dir.path(), "E02", &failing[0]);
    let cell = format!(
        "grid cell {} · {} · seed {} · {}",
        failing[1], failing[2], failing[3], failing[4]
    );
    fails_with(dir.path(), &[&cell]);
}

#[test]
fn half_the_runs_deleted_fail_cell_by_cell() {
    let dir = sample_copy();
    let runs = dir.path().join("experiments/E01/runs");
    let mut names: Vec<_> = fs::read_dir(&runs)
        .expect("runs")
        .map(|e| e.expect("entry").file_name())
        .collect();
    names.sort();
    // The showcase would name deleted runs (a refusal, not the point here).
    fs::remove_dir_all(dir.path().join("showcase")).expect("rm");
    // Reruns and the runs they replace stay: the rest of the grid goes.
    let rows = results(dir.path(), "E01");
    let related: Vec<&str> = rows
        .iter()
        .filter(|r| !r[12].is_empty())
        .flat_map(|r| [r[0].as_str(), r[12].as_str()])
        .collect();
    names.retain(|n| !related.contains(&n.to_string_lossy().trim_end_matches(".json")));
    for name in names.iter().step_by(2) {
        fs::remove_file(runs.join(name)).expect("rm");
        let run = name.to_string_lossy().trim_end_matches(".json").to_string();
        drop_result_row(dir.path(), "E01", &run);
    }
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let cells = stdout(&out).matches("grid cell ").count();
    assert!(cells >= names.len() / 2, "{}{}", stdout(&out), stderr(&out));
}

/// A run copied under a new id, its calls given new request ids.
fn copy_run(from: &Path, to: &Path, id: &str, experiment: &str, fresh_ids: bool) {
    let mut run = read_json(from);
    run["id"] = json!(id);
    run["experiment"] = json!(experiment);
    if fresh_ids {
        let mut n = 0;
        for attempt in run["attempts"].as_array_mut().expect("attempts") {
            let mut renamed = Vec::new();
            for call in attempt["calls"].as_array_mut().expect("calls") {
                n += 1;
                let new = format!("forged-{n}");
                renamed.push((
                    call["request_id"].as_str().expect("id").to_string(),
                    new.clone(),
                ));
                call["request_id"] = json!(new);
            }
            for turn in attempt["turns"].as_array_mut().expect("turns") {
                let old = turn["call"].as_str().expect("call").to_string();
                if let Some((_, new)) = renamed.iter().find(|(o, _)| *o == old) {
                    turn["call"] = json!(new);
                }
            }
        }
    }
    write_json(to, &run);
}

#[test]
fn two_runs_counted_in_one_cell_fail_the_cell_and_the_repeated_calls() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E04");
    let passing = rows
        .iter()
        .find(|r| r[6] == "true" && r[4] == "ladder" && r[12].is_empty())
        .expect("a passing ladder run")
        .clone();
    let copy = format!("{}-again", passing[0]);
    copy_run(
        &run_path(dir.path(), "E04", &passing[0]),
        &run_path(dir.path(), "E04", &copy),
        &copy,
        "E04",
        true,
    );
    let cell = format!(
        "grid cell {} · {} · seed {} · ladder",
        passing[1], passing[2], passing[3]
    );
    // New request ids do not hide the calls: what they did is the same.
    fails_with(
        dir.path(),
        &[
            &cell,
            &format!("{copy}.json: not a copy of another run"),
            &format!("here and as E04/runs/{}.json", passing[0]),
        ],
    );
}

#[test]
fn a_run_borrowed_from_another_experiment_is_caught_by_its_calls() {
    let dir = sample_copy();
    // E01's run replaces the E02 run of the same cell, under E02's name.
    let rows = results(dir.path(), "E02");
    let row = rows
        .iter()
        .find(|r| r[4] == "always-large" && r[12].is_empty() && r[0].ends_with("-s2-always-large"))
        .expect("an always-large run")
        .clone();
    let borrowed = row[0].replacen("E02-", "E01-", 1);
    copy_run(
        &run_path(dir.path(), "E01", &borrowed),
        &run_path(dir.path(), "E02", &row[0]),
        &row[0],
        "E02",
        false,
    );
    fails_with(
        dir.path(),
        &[&format!("E02/runs/{}.json: calls on record once", row[0])],
    );
}

#[test]
fn deleted_deviations_leave_the_reruns_undeclared() {
    let dir = sample_copy();
    fs::remove_file(dir.path().join("experiments/E02/deviations.json")).expect("rm");
    fails_with(
        dir.path(),
        &[
            "-rerun.json: declared rerun: recorded replaces",
            "no rerun deviation declares it",
        ],
    );
}

#[test]
fn a_deviation_logged_after_the_run_it_declares_fails() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E02/deviations.json");
    edit_json(&path, |d| {
        d["deviations"][0]["logged_at"] = json!("2026-12-31T00:00:00Z");
    });
    fails_with(
        dir.path(),
        &["deviation D1", "started before it was logged"],
    );
}

#[test]
fn a_cost_published_as_zero_fails_as_too_coarse() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E01/summary.json");
    let text = fs::read_to_string(&path).expect("read");
    let literals =
        receipts_verifier::literals::json_number_literals(text.as_bytes()).expect("json");
    let low = &literals["/primary/policies/0/cost_per_task_usd/low"];
    let high = &literals["/primary/policies/0/cost_per_task_usd/high"];
    let forged = text.replacen(
        &format!("\"low\": {low},\n          \"high\": {high}"),
        "\"low\": 0,\n          \"high\": 0",
        1,
    );
    assert_ne!(forged, text, "the cost is where the test expects it");
    fs::write(&path, forged).expect("write");
    fails_with(dir.path(), &["cost_per_task_usd", "too coarse"]);
}

#[test]
fn a_time_rounded_to_whole_seconds_fails_as_too_coarse() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E01/summary.json");
    let text = fs::read_to_string(&path).expect("read");
    let literals =
        receipts_verifier::literals::json_number_literals(text.as_bytes()).expect("json");
    let mean = literals["/primary/policies/0/mean_time_s"].clone();
    let whole: f64 = mean.parse::<f64>().expect("number").round();
    let forged = text.replacen(
        &format!("\"mean_time_s\": {mean}"),
        &format!("\"mean_time_s\": {whole:.0}"),
        1,
    );
    fs::write(&path, forged).expect("write");
    fails_with(dir.path(), &["mean_time_s", "too coarse"]);
}

#[test]
fn a_results_cost_written_as_zero_fails() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E02/results.csv");
    let text = fs::read_to_string(&path).expect("read");
    let line = text.lines().nth(1).expect("a row").to_string();
    let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
    cells[7] = "0".to_string();
    cells[8] = "0".to_string();
    fs::write(&path, text.replacen(&line, &cells.join(","), 1)).expect("write");
    fails_with(dir.path(), &["results.csv: line 2", "too coarse"]);
}

#[test]
fn a_single_tier_run_with_a_retry_fails_its_policy() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let run = rows
        .iter()
        .filter(|r| r[4] == "always-medium" && r[6] == "false" && r[12].is_empty())
        // Not the run a refused key halted: that one may not go on at all.
        .find(|r| {
            let run = read_json(&run_path(dir.path(), "E02", &r[0]));
            run["attempts"][0]["end"]["reason"] != "error"
        })
        .expect("a failing always-medium run")[0]
        .clone();
    edit_json(&run_path(dir.path(), "E02", &run), |r| {
        let attempts = r["attempts"].as_array_mut().expect("attempts");
        let mut retry = attempts[0].clone();
        let start =
            receipts_verifier::time::parse(retry["started_at"].as_str().expect("t")).expect("t");
        let shift = retry["duration_ms"].as_i64().expect("ms") + 1000;
        let moved = |t: &Value| {
            let at = receipts_verifier::time::parse(t.as_str().expect("t")).expect("t");
            json!(receipts_verifier::time::format(
                receipts_verifier::time::UnixMillis(at.0 + shift)
            ))
        };
        retry["started_at"] = moved(&json!(receipts_verifier::time::format(start)));
        for call in retry["calls"].as_array_mut().expect("calls") {
            call["started_at"] = moved(&call["started_at"]);
            let id = format!("{}-retry", call["request_id"].as_str().expect("id"));
            call["request_id"] = json!(id);
        }
        for turn in retry["turns"].as_array_mut().expect("turns") {
            let id = format!("{}-retry", turn["call"].as_str().expect("id"));
            turn["call"] = json!(id);
        }
        attempts.push(retry);
    });
    fails_with(
        dir.path(),
        &[
            &format!("{run}.json: policy `always-medium`"),
            "one attempt; this run made 2",
        ],
    );
}

#[test]
fn a_ladder_attempt_calling_another_tiers_model_fails() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E04");
    let run = rows
        .iter()
        .find(|r| r[4] == "ladder" && r[5].contains('>') && r[12].is_empty())
        .expect("an escalating ladder run")[0]
        .clone();
    edit_json(&run_path(dir.path(), "E04", &run), |r| {
        r["attempts"][0]["calls"][0]["model_requested"] = json!("simulated/sim-large-550b");
    });
    fails_with(
        dir.path(),
        &[
            &format!("{run}.json: policy `ladder`"),
            "requested `simulated/sim-large-550b`",
        ],
    );
}

#[test]
fn a_ladder_registered_dearest_first_fails_its_order() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E04/experiment.json"), |e| {
        e["policies"][0]["tiers"] = json!(["large", "medium", "small"]);
    });
    fails_with(
        dir.path(),
        &["policy `ladder` tries its tiers cheapest first"],
    );
}

#[test]
fn a_call_over_the_token_limit_fails_the_limits() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let run = rows[1][0].clone();
    edit_json(&run_path(dir.path(), "E02", &run), |r| {
        r["attempts"][0]["calls"][0]["max_tokens"] = json!(16384);
    });
    fails_with(
        dir.path(),
        &[&format!("{run}.json: limits"), "max_tokens 16384"],
    );
}

#[test]
fn a_completed_call_with_no_tokens_in_a_millisecond_is_impossible() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let run = rows[1][0].clone();
    edit_json(&run_path(dir.path(), "E02", &run), |r| {
        let call = &mut r["attempts"][0]["calls"][0];
        call["latency_ms"] = json!(1);
        call["usage"]["completion_tokens"] = json!(0);
        call["usage"]["reasoning_tokens"] = json!(0);
        r["attempts"][0]["duration_ms"] = json!(1);
    });
    fails_with(dir.path(), &[&format!("{run}.json: record is possible")]);
}

#[test]
fn a_correction_must_start_from_what_was_published_and_chain() {
    let path = |root: &Path| root.join("experiments/E02/summary.json");
    let dir = sample_copy();
    edit_json(&path(dir.path()), |s| {
        s["corrections"][1]["original"] = json!(97.2);
    });
    fails_with(
        dir.path(),
        &[
            "correction of primary.policies[ladder].pass_rate_pct",
            "says the number was 97.2",
        ],
    );

    // Two corrections of one number, both from the published value.
    let dir = sample_copy();
    edit_json(&path(dir.path()), |s| {
        let mut again = s["corrections"][1].clone();
        again["corrected"] = json!(94.4);
        again["corrected_at"] = json!("2026-10-29T10:00:00Z");
        s["corrections"].as_array_mut().expect("list").push(again);
    });
    fails_with(
        dir.path(),
        &["correction of primary.policies[ladder].pass_rate_pct"],
    );
}

#[test]
fn a_correction_naming_an_earlier_summary_is_held_to_it() {
    let dir = sample_copy();
    let summary = dir.path().join("experiments/E02/summary.json");
    let digest = read_json(&summary)["corrections"][0]["published_in"]
        .as_str()
        .expect("published_in")
        .to_string();
    // Rewrite the number where it stands and in the correction, not in the
    // summary first published.
    edit_json(&summary, |s| {
        s["corrections"][0]["original"] = json!({"low": 0.0039, "high": 0.0039});
        let ladder = s["primary"]["policies"]
            .as_array_mut()
            .expect("policies")
            .iter_mut()
            .find(|p| p["policy"] == "ladder")
            .expect("the ladder");
        ladder["cost_per_task_usd"] = json!({"low": 0.0039, "high": 0.0039});
    });
    fails_with(
        dir.path(),
        &[&format!("the earlier summary {digest} published")],
    );
}

#[test]
fn the_original_seventeen_cell_average_is_caught() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E02/summary.json"), |s| {
        s["corrections"] = json!([]);
    });
    fails_with(dir.path(), &["primary.policies[ladder].cost_per_task_usd"]);
}

#[test]
fn a_stopped_study_is_shown_incomplete_with_its_hypotheses_undecided() {
    let dir = sample_copy();
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = fs::read_to_string(dir.path().join("site/experiments/E03.html")).expect("page");
    assert!(
        page.contains("incomplete: D3 stopped the study"),
        "the grid receipt says why"
    );
    assert!(
        page.contains("D1 stopped it and D2 resumed it; 16 of 54 cells ran; ran: release-brief"),
        "and which cells ran, after which stop"
    );
    let summary = read_json(&dir.path().join("experiments/E03/summary.json"));
    for h in summary["hypotheses"].as_array().expect("hypotheses") {
        assert_eq!(h["outcome"], "not_decided", "{h}");
    }

    // Without the stop on record, the cells not run fail one by one.
    fs::remove_file(dir.path().join("experiments/E03/deviations.json")).expect("rm");
    fails_with(
        dir.path(),
        &["E03/experiment.json: grid cell shipping-rule · fast · seed 3 · always-large"],
    );
}

#[test]
fn the_runs_after_a_stop_need_the_resume_logged_before_them() {
    // E03 was stopped (D1), resumed (D2) and stopped again (D3). Without
    // the resume, or with it logged after the runs it let start, every run
    // after the first stop fails; a resume before any stop takes up nothing.
    let resumed_runs = 6;
    let dir = sample_copy();
    let deviations = dir.path().join("experiments/E03/deviations.json");
    let original = fs::read_to_string(&deviations).expect("deviations");
    edit_json(&deviations, |d| {
        d["deviations"][1]["logged_at"] = json!("2026-10-28T15:30:00Z");
    });
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let after: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("Fail ") && l.contains("started before the study stopped"))
        .collect();
    assert_eq!(after.len(), resumed_runs, "{text}");
    assert!(
        after
            .iter()
            .all(|l| l.contains("D1 stopped the study at 2026-10-28T14:48")
                && l.contains("D2 resumed it at 2026-10-28T15:30:00Z")),
        "{}",
        after.join("\n")
    );
    // The resume moved before the stop: it resumes nothing.
    fs::write(&deviations, &original).expect("restore");
    edit_json(&deviations, |d| {
        d["deviations"][1]["logged_at"] = json!("2026-10-28T14:45:00Z");
    });
    fails_with(
        dir.path(),
        &[
            "E03/deviations.json: deviation D2",
            "a resume takes up a stopped study, and the study was not stopped",
            "started before the study stopped",
        ],
    );
}

#[test]
fn a_cell_left_out_after_the_resume_is_not_excused_by_the_last_stop() {
    // A publisher drops one run that went badly after the resume (D2) and
    // before the last stop (D3): the final stop excuses only the cells after
    // the last that ran, so the hole in the registered order fails.
    let dir = sample_copy();
    let runs = dir.path().join("experiments/E03/runs");
    let mut started: Vec<(String, std::path::PathBuf)> = fs::read_dir(&runs)
        .expect("runs")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            (
                read_json(&p)["started_at"]
                    .as_str()
                    .expect("started_at")
                    .to_string(),
                p,
            )
        })
        .collect();
    started.sort();
    let resume = read_json(&dir.path().join("experiments/E03/deviations.json"))["deviations"][1]
        ["logged_at"]
        .as_str()
        .expect("D2's time")
        .to_string();
    let after: Vec<_> = started.iter().filter(|(t, _)| *t > resume).collect();
    assert!(after.len() >= 3, "runs after the resume: {}", after.len());
    let (_, dropped) = after[1];
    fs::remove_file(dropped).expect("drop the run");
    fails_with(
        dir.path(),
        &["though later cells of the registered order ran; D3 excuses only the cells after the last that ran"],
    );
}

#[test]
fn a_run_after_the_stop_fails() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E03/deviations.json"), |d| {
        d["deviations"][0]["logged_at"] = json!("2026-10-28T14:45:00Z");
    });
    fails_with(dir.path(), &["started before the study stopped"]);
}

/// The runs of `policy` in E04 with their record, in id order.
fn e04_runs(root: &Path, policy: &str) -> Vec<(std::path::PathBuf, Value)> {
    let mut out: Vec<_> = fs::read_dir(root.join("experiments/E04/runs"))
        .expect("runs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(&format!("-{policy}.json")))
        .map(|p| {
            let v = read_json(&p);
            (p, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn a_tier_memory_run_started_elsewhere_fails_the_memory() {
    let dir = sample_copy();
    // A run that escalated from the first tier, its first attempt dropped:
    // it now starts one tier up, as no memory of its task says.
    let (path, run) = e04_runs(dir.path(), "tier-memory")
        .into_iter()
        .find(|(_, r)| {
            r["attempts"].as_array().expect("attempts").len() >= 2
                && r["attempts"][0]["tier"] == "small"
        })
        .expect("an escalating tier-memory run from the first tier");
    let id = run["id"].as_str().expect("id").to_string();
    edit_json(&path, |r| {
        let second = r["attempts"][1]["started_at"].clone();
        r["attempts"].as_array_mut().expect("attempts").remove(0);
        r["started_at"] = second;
    });
    fails_with(
        dir.path(),
        &[
            "policy `tier-memory` starts where the task last passed",
            &id,
        ],
    );
}

#[test]
fn speculative_attempts_made_one_after_the_other_fail() {
    let dir = sample_copy();
    let (path, run) = e04_runs(dir.path(), "speculative").remove(0);
    let id = run["id"].as_str().expect("id").to_string();
    edit_json(&path, |r| {
        // The second attempt moved to start after the first ended.
        let first = &r["attempts"][0];
        let start =
            receipts_verifier::time::parse(first["started_at"].as_str().expect("t")).expect("t");
        let end = start.0 + first["duration_ms"].as_i64().expect("ms") + 1;
        let shift = end - start.0;
        let second = &mut r["attempts"][1];
        let moved = |t: &Value| {
            let at = receipts_verifier::time::parse(t.as_str().expect("t")).expect("t");
            json!(receipts_verifier::time::format(
                receipts_verifier::time::UnixMillis(at.0 + shift)
            ))
        };
        second["started_at"] = moved(&second["started_at"]);
        for call in second["calls"].as_array_mut().expect("calls") {
            call["started_at"] = moved(&call["started_at"]);
        }
    });
    fails_with(
        dir.path(),
        &[
            &format!("{id}.json: policy `speculative`"),
            "did not run together",
        ],
    );
}

/// `summary`'s primary figures of `policy` as the source rounded them:
/// cost ends to four decimals, mean and median time to one.
fn rounded_figures(summary: &Value, policy: &str) -> (String, String, String, String, f64) {
    let p = summary["primary"]["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .find(|p| p["policy"] == policy)
        .expect("the policy");
    let f = |v: &Value, d: usize| format!("{:.d$}", v.as_f64().expect("number"));
    (
        f(&p["cost_per_task_usd"]["low"], 4),
        f(&p["cost_per_task_usd"]["high"], 4),
        f(&p["mean_time_s"], 1),
        f(&p["median_time_s"], 1),
        p["pass_rate_pct"].as_f64().expect("rate"),
    )
}

#[test]
fn the_corrected_budget_study_reproduces_the_published_figures() {
    // E02 as corrected: the ladder 83.3% at $0.0058–0.0060, always-large
    // 77.8% at $0.0061; first published as 88.9% over 17 cells' cost.
    let summary = read_json(&common::repo().join("experiments/E02/summary.json"));
    let corrected = |field: &str| {
        summary["corrections"]
            .as_array()
            .expect("corrections")
            .iter()
            .find(|c| c["field"] == format!("primary.policies[ladder].{field}"))
            .expect("a correction")
            .clone()
    };
    let rate = corrected("pass_rate_pct");
    assert_eq!(
        (rate["original"].as_f64(), rate["corrected"].as_f64()),
        (Some(88.9), Some(83.3))
    );
    let cost = corrected("cost_per_task_usd");
    let end = |v: &Value| format!("{:.4}", v.as_f64().expect("number"));
    assert_eq!(
        (
            end(&cost["corrected"]["low"]),
            end(&cost["corrected"]["high"])
        ),
        ("0.0058".to_string(), "0.0060".to_string())
    );
    assert_eq!(cost["original"]["low"], cost["original"]["high"]);
    let (low, high, _, _, rate) = rounded_figures(&summary, "always-large");
    assert_eq!(
        (low.as_str(), high.as_str(), rate),
        ("0.0061", "0.0061", 77.8)
    );
}

#[test]
fn a_rerun_pointing_back_at_a_later_run_fails() {
    let dir = sample_copy();
    // A failed always-medium run "replaces" the run of its cell made later
    // in the cell order (another seed is another cell, so: its own rerun
    // declared the other way round).
    let rerun = "E02-release-brief-careful-s3-always-small-rerun";
    let original = "E02-release-brief-careful-s3-always-small";
    edit_json(&run_path(dir.path(), "E02", rerun), |r| {
        r.as_object_mut().expect("run").remove("replaces");
    });
    edit_json(&run_path(dir.path(), "E02", original), |r| {
        r["replaces"] = json!(rerun);
    });
    edit_json(&dir.path().join("experiments/E02/deviations.json"), |d| {
        for dev in d["deviations"].as_array_mut().expect("list") {
            if dev["runs"][0] == rerun {
                dev["runs"] = json!([original]);
                dev["logged_at"] = json!("2026-10-28T12:30:00.001Z");
            }
        }
    });
    fails_with(dir.path(), &["started before the run it replaces ended"]);
}

#[test]
fn an_attempt_without_calls_cannot_carry_an_artifact() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let run = rows
        .iter()
        .find(|r| r[4] == "always-large" && r[6] == "true" && r[12].is_empty())
        .expect("a passing always-large run")[0]
        .clone();
    edit_json(&run_path(dir.path(), "E02", &run), |r| {
        r["attempts"][0]["calls"] = json!([]);
        r["attempts"][0]["turns"] = json!([]);
    });
    fails_with(
        dir.path(),
        &[
            &format!("{run}.json: record is possible"),
            "made no provider call",
        ],
    );
}

#[test]
fn a_call_without_its_turn_fails() {
    let dir = sample_copy();
    let rows = results(dir.path(), "E02");
    let run = rows[1][0].clone();
    edit_json(&run_path(dir.path(), "E02", &run), |r| {
        r["attempts"][0]["turns"]
            .as_array_mut()
            .expect("turns")
            .remove(0);
    });
    fails_with(
        dir.path(),
        &[&format!("{run}.json: record is possible"), "chose 0 turns"],
    );
}

#[test]
fn a_summary_leaving_out_a_policy_or_hypothesis_fails() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/summary.json"), |s| {
        s["primary"]["policies"]
            .as_array_mut()
            .expect("policies")
            .remove(1);
        s["hypotheses"]
            .as_array_mut()
            .expect("hypotheses")
            .remove(0);
    });
    fails_with(
        dir.path(),
        &[
            "primary.policies[always-medium].pass_rate_pct: recorded not published",
            "hypotheses[H1].outcome: recorded not published",
        ],
    );
}

#[test]
fn strict_fails_what_could_not_be_checked() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E01/summary.json"), |s| {
        let mut extra = s["primary"].clone();
        extra["policies"] = json!([]);
        s["secondary"] = json!([{"id": "per-protocol", "label": "x", "description": "x", "numbers": {"policies": [], "tiers": extra["tiers"]}}]);
    });
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("could not be checked (--strict)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_stop_does_not_excuse_a_cell_dropped_before_the_last_that_ran() {
    // E03 stopped after its first cells in the registered order (seeds, then
    // tasks, profiles, policies); drop one of those and its results row, as
    // if it had never run.
    let dir = sample_copy();
    let run = "E03-release-brief-careful-s1-always-medium";
    fs::remove_file(run_path(dir.path(), "E03", run)).expect("rm");
    drop_result_row(dir.path(), "E03", run);
    fails_with(
        dir.path(),
        &[
            "grid cell release-brief · careful · seed 1 · always-medium",
            "though later cells of the registered order ran",
        ],
    );
}

#[test]
fn a_throughput_written_in_tens_fails_as_too_coarse() {
    // `1.6e2` reads as 160, but claims only ±5: more than the 1% a
    // throughput must be published to.
    let dir = sample_copy();
    let path = dir.path().join("experiments/E01/summary.json");
    let text = fs::read_to_string(&path).expect("read");
    let literals =
        receipts_verifier::literals::json_number_literals(text.as_bytes()).expect("json");
    let tps = literals["/primary/policies/0/throughput_tps"].clone();
    let tens = (tps.parse::<f64>().expect("number") / 10.0).round() / 10.0;
    let forged = text.replacen(
        &format!("\"throughput_tps\": {tps}"),
        &format!("\"throughput_tps\": {tens:.1}e2"),
        1,
    );
    assert_ne!(forged, text, "the throughput is where the test expects it");
    fs::write(&path, forged).expect("write");
    fails_with(dir.path(), &["throughput_tps", "too coarse"]);
}

#[test]
fn a_lost_call_recorded_with_a_small_budget_fails_the_limits() {
    // The call's usage was lost, so its cost is bounded by its output
    // budget; writing a smaller budget would shrink the bound.
    let dir = sample_copy();
    let run = "E02-release-brief-fast-s1-always-medium";
    edit_json(&run_path(dir.path(), "E02", run), |r| {
        for a in r["attempts"].as_array_mut().expect("attempts") {
            for c in a["calls"].as_array_mut().expect("calls") {
                if c["usage"].is_null() {
                    c["max_tokens"] = json!(16);
                }
            }
        }
    });
    fails_with(
        dir.path(),
        &[run, "limits", "lost its usage with max_tokens 16"],
    );
}
