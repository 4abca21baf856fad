//! Malformed input stops the build with exit code 2, a message naming the
//! file and the place in it, and the previous site left as it was.

use crate::common;

use std::fs;
use std::path::Path;

use common::{built, receipts, sample_copy, stderr, tree};

const RUN: &str = "experiments/E04/runs/E04-release-brief-careful-s1-ladder.json";

/// Builds a good site into `site/`, applies `break_input`, builds again and
/// returns the second build's stderr after checking exit 2 and the old site.
fn fails_keeping_the_old_site(break_input: impl FnOnce(&Path)) -> String {
    let input = built();
    let root = input.path();
    let before = tree(&root.join("site"));

    break_input(root);
    let second = receipts(root, &["build", "--quiet"]);
    let message = stderr(&second);
    assert_eq!(
        second.status.code(),
        Some(2),
        "exit code for bad input; stderr: {message}"
    );
    assert!(!message.contains("panicked"), "{message}");
    assert_eq!(
        tree(&root.join("site")),
        before,
        "the previous site was changed by a failed build"
    );
    let leftovers: Vec<_> = fs::read_dir(root)
        .expect("root")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".receipts-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "staging directories left behind: {leftovers:?}"
    );
    message
}

fn edit(root: &Path, rel: &str, f: impl FnOnce(String) -> String) {
    let path = root.join(rel);
    let text = fs::read_to_string(&path).expect("read");
    fs::write(&path, f(text)).expect("write");
}

#[test]
fn truncated_json_names_the_file_and_line() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| t[..t.len() / 2].to_string());
    });
    assert!(message.contains(RUN), "{message}");
    assert!(message.contains("line "), "{message}");
    assert!(message.contains("EOF"), "{message}");
}

#[test]
fn a_missing_required_field_is_named() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| t.replacen("\"seed\": 1,\n", "", 1));
    });
    assert!(message.contains(RUN), "{message}");
    assert!(message.contains("missing field `seed`"), "{message}");
    assert!(message.contains("line "), "{message}");
}

#[test]
fn an_experiment_written_before_the_grid_counted_runs_says_how_to_add_it() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, "experiments/E01/experiment.json", |t| {
            t.replacen(",\n    \"runs_per_cell\": 1", "", 1)
        });
    });
    assert!(
        message.contains("experiments/E01/experiment.json"),
        "{message}"
    );
    assert!(
        message.contains("missing field `runs_per_cell`"),
        "{message}"
    );
    assert!(
        message.contains("add `\"runs_per_cell\": 1` to the grid"),
        "{message}"
    );
}

#[test]
fn a_missing_nested_field_is_named_by_its_path() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen("\"latency_ms\"", "\"latency\"", 1)
        });
    });
    assert!(message.contains(RUN), "{message}");
    assert!(message.contains("attempts[0].calls[0]"), "{message}");
}

#[test]
fn a_wrong_type_is_named_by_its_path() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen("\"seed\": 1,", "\"seed\": \"one\",", 1)
        });
    });
    assert!(
        message.contains(&format!("{RUN}: seed (line ")),
        "{message}"
    );
    assert!(
        message.contains("invalid type: string \"one\", expected a whole number, 0 or more"),
        "{message}"
    );
}

#[test]
fn a_wrong_type_is_named_in_json_words_never_by_a_rust_type() {
    // A call's usage written as a string: the message says an object was
    // expected, not the name of the type the tool reads it into.
    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(RUN), |r| {
            r["attempts"][0]["calls"][0]["usage"] = "lots".into();
        });
    });
    assert!(
        message.contains("attempts[0].calls[0].usage (line "),
        "{message}"
    );
    assert!(message.contains("expected an object"), "{message}");
    assert!(
        !message.contains("struct") && !message.contains("Usage"),
        "{message}"
    );
}

#[test]
fn an_empty_request_id_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(RUN), |r| {
            let call = &mut r["attempts"][0]["calls"][0];
            let id = call["request_id"].as_str().expect("id").to_string();
            call["request_id"] = "".into();
            for t in r["attempts"][0]["turns"].as_array_mut().expect("turns") {
                if t["call"] == id.as_str() {
                    t["call"] = "".into();
                }
            }
        });
    });
    assert!(
        message.contains(&format!("{RUN}: attempts[0].calls[0].request_id: empty")),
        "{message}"
    );
}

#[test]
fn a_bad_timestamp_is_named_by_its_path_line_and_column() {
    let bad = "2026-10-27 09:06:47";
    let mut written = String::new();
    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(RUN), |r| {
            r["attempts"][0]["calls"][0]["started_at"] = bad.into();
        });
        written = fs::read_to_string(root.join(RUN)).expect("run");
    });
    // Where the value stands in the file as written.
    let (n, line) = written
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(bad))
        .expect("the edited line");
    let column = line.find(&format!("\"{bad}\"")).expect("the value") + 1;
    assert!(
        message.contains(&format!(
            "{RUN}: attempts[0].calls[0].started_at: `{bad}` is not an RFC 3339 timestamp"
        )) && message.contains(&format!("(line {}, column {column})", n + 1)),
        "{message}"
    );
}

#[test]
fn a_tool_of_the_agents_own_is_kept_by_name_and_an_empty_one_refused() {
    // Any name: the record keeps it, the site builds strictly and shows it.
    let input = sample_copy();
    common::edit_json(&input.path().join(RUN), |r| {
        r["attempts"][0]["turns"][0]["action"]["tool"] = "search_web".into();
    });
    let out = receipts(input.path(), &["build", "--strict", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let id = RUN
        .rsplit('/')
        .next()
        .expect("name")
        .trim_end_matches(".json");
    let page = fs::read_to_string(input.path().join(format!("site/runs/{id}.html"))).expect("page");
    assert!(page.contains("search_web"), "the tool is shown by its name");

    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(RUN), |r| {
            r["attempts"][0]["turns"][0]["action"]["tool"] = "".into();
        });
    });
    assert!(
        message.contains(&format!("{RUN}: attempts[0].turns[0].action.tool: empty")),
        "{message}"
    );
}

#[test]
fn a_task_family_of_its_own_is_kept_and_an_empty_one_refused() {
    let task = "experiments/tasks/release-brief.json";
    let input = sample_copy();
    common::edit_json(&input.path().join(task), |t| {
        t["family"] = "web-research".into();
    });
    // The task is registered material, so the registrations that cover it
    // fail; the build does not refuse the family.
    let out = receipts(input.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let kept = common::read_json(&input.path().join("site/data/tasks/release-brief.json"));
    assert_eq!(kept["family"], "web-research", "kept as written");

    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(task), |t| t["family"] = " ".into());
    });
    assert!(
        message.contains(&format!("{task}: family: empty")),
        "{message}"
    );
}

#[test]
fn an_unknown_format_version_is_refused() {
    let file = "experiments/E02/experiment.json";
    let message = fails_keeping_the_old_site(|root| {
        edit(root, file, |t| {
            t.replacen("\"format_version\": 1", "\"format_version\": 7", 1)
        });
    });
    assert!(
        message.contains(&format!(
            "{file}: format_version: unsupported format_version 7"
        )),
        "{message}"
    );
}

#[test]
fn an_unknown_version_wins_over_other_problems() {
    // A record from a newer format may differ everywhere; the version is what to report.
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen("\"format_version\": 1", "\"format_version\": 2", 1)
                .replacen("\"seed\": 1,", "\"seed\": [],", 1)
        });
    });
    assert!(
        message.contains("unsupported format_version 2"),
        "{message}"
    );
}

#[test]
fn a_run_naming_an_unknown_task_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen(
                "\"task\": \"release-brief\"",
                "\"task\": \"no-such-task\"",
                1,
            )
        });
    });
    assert!(
        message.contains(&format!("{RUN}: task: `no-such-task` is not a task")),
        "{message}"
    );
}

#[test]
fn an_object_whose_bytes_do_not_match_its_digest_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let objects = root.join("experiments/objects");
        let first = fs::read_dir(&objects)
            .expect("objects")
            .next()
            .expect("an object")
            .expect("entry")
            .path();
        let mut bytes = fs::read(&first).expect("read");
        bytes[0] ^= 1;
        fs::write(&first, bytes).expect("write");
    });
    assert!(message.contains("experiments/objects/"), "{message}");
    assert!(
        message.contains("not the digest it is named by"),
        "{message}"
    );
}

#[test]
fn a_ragged_results_csv_names_the_line() {
    let file = "experiments/E01/results.csv";
    let message = fails_keeping_the_old_site(|root| {
        edit(root, file, |t| {
            let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
            lines[3].push_str(",extra");
            lines.join("\n") + "\n"
        });
    });
    assert!(message.contains(&format!("{file}: line 4")), "{message}");
}

#[test]
fn non_utf8_text_is_refused() {
    let file = "experiments/E01/LOG.md";
    let message = fails_keeping_the_old_site(|root| {
        let path = root.join(file);
        let mut bytes = fs::read(&path).expect("read");
        bytes.splice(10..10, [0xff, 0xfe]);
        fs::write(&path, bytes).expect("write");
    });
    assert!(message.contains(&format!("{file}: line 1")), "{message}");
    assert!(message.contains("not valid UTF-8"), "{message}");
}

#[test]
fn a_missing_experiments_directory_is_explained() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = receipts(dir.path(), &["build"]);
    assert_eq!(result.status.code(), Some(2));
    assert!(
        stderr(&result).contains("no experiments directory"),
        "{}",
        stderr(&result)
    );
}

#[test]
fn an_unrelated_output_directory_is_never_replaced() {
    let input = sample_copy();
    let out = input.path().join("precious");
    fs::create_dir_all(&out).expect("mkdir");
    fs::write(out.join("notes.txt"), "keep me").expect("write");
    let result = receipts(input.path(), &["build", "--out", "precious"]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("refusing to replace"),
        "{}",
        stderr(&result)
    );
    assert_eq!(
        fs::read_to_string(out.join("notes.txt")).expect("kept"),
        "keep me"
    );
}

#[test]
fn a_symbolic_link_in_the_input_is_refused() {
    let outside = tempfile::tempdir().expect("tempdir");
    let message = fails_keeping_the_old_site(|root| {
        let runs = root.join("experiments/E01/runs");
        let moved = outside.path().join("runs");
        fs::rename(&runs, &moved).expect("move runs");
        std::os::unix::fs::symlink(&moved, &runs).expect("symlink");
    });
    assert!(
        message.contains("experiments/E01/runs: symbolic links are not followed"),
        "{message}"
    );
}

#[test]
fn a_run_id_used_twice_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let from = root.join(RUN);
        let text = fs::read_to_string(&from).expect("read");
        let copy = text.replace("\"experiment\": \"E04\"", "\"experiment\": \"E02\"");
        fs::write(
            root.join("experiments/E02/runs/E04-release-brief-careful-s1-ladder.json"),
            copy,
        )
        .expect("write");
    });
    assert!(
        message.contains("duplicate run id `E04-release-brief-careful-s1-ladder`"),
        "{message}"
    );
}

#[test]
fn invalid_json_names_the_line() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen("\"seed\": 1,", "\"seed\": 1,,", 1)
        });
    });
    assert!(message.contains(&format!("{RUN}: ")), "{message}");
    assert!(message.contains("line "), "{message}");
}

#[test]
fn non_utf8_bytes_in_a_record_are_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let path = root.join(RUN);
        let mut bytes = fs::read(&path).expect("read");
        let at = bytes
            .windows(7)
            .position(|w| w == b"careful")
            .expect("a string");
        bytes[at] = 0xff;
        fs::write(&path, bytes).expect("write");
    });
    assert!(message.contains(RUN), "{message}");
    assert!(message.contains("line "), "{message}");
}

#[test]
fn a_run_naming_an_experiment_that_does_not_exist_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, RUN, |t| {
            t.replacen("\"experiment\": \"E04\"", "\"experiment\": \"E99\"", 1)
        });
    });
    assert!(
        message.contains(&format!("{RUN}: experiment: `E99`")),
        "{message}"
    );
}

#[test]
fn path_traversal_in_file_names_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let path = root.join(RUN);
        let mut run: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).expect("read")).expect("json");
        let attempts = run["attempts"].as_array_mut().expect("attempts");
        let with_artifact = attempts
            .iter_mut()
            .find(|a| !a["artifact"].is_null())
            .expect("an artifact");
        with_artifact["artifact"]["path"] = serde_json::json!("../../etc/passwd");
        fs::write(&path, serde_json::to_vec_pretty(&run).expect("json")).expect("write");
    });
    assert!(message.contains(&format!("{RUN}: attempts[")), "{message}");
    assert!(
        message.contains("].artifact.path: `../../etc/passwd` must be a relative path"),
        "{message}"
    );

    let cases = [
        (
            "experiments/tasks/release-brief.json",
            "\"path\": \"runbook.md\"",
            "\"path\": \"/etc/passwd\"",
            "inputs[1].path",
        ),
        (
            "experiments/E01/experiment.json",
            "\"log\": \"LOG.md\"",
            "\"log\": \"../../LOG.md\"",
            "preregistration.log",
        ),
    ];
    for (file, from, to, place) in cases {
        let message = fails_keeping_the_old_site(|root| {
            edit(root, file, |t| {
                assert!(t.contains(from), "{file} has {from}");
                t.replacen(from, to, 1)
            });
        });
        assert!(message.contains(&format!("{file}: {place}: ")), "{message}");
        assert!(
            message.contains("must be a relative path inside the input"),
            "{message}"
        );
    }
}

#[test]
fn a_file_over_the_size_limit_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let file = fs::OpenOptions::new()
            .write(true)
            .open(root.join(RUN))
            .expect("open");
        // A sparse file: large on paper, quick to make.
        file.set_len(65 * 1024 * 1024).expect("grow");
    });
    assert!(message.contains(RUN), "{message}");
    assert!(message.contains("the limit is 67108864"), "{message}");
}

#[test]
fn a_run_recorded_both_plain_and_gzipped_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        let bytes = fs::read(root.join(RUN)).expect("read");
        fs::write(
            root.join(format!("{RUN}.gz")),
            receipts::gzip::compress(&bytes),
        )
        .expect("write");
    });
    assert!(message.contains(&format!("{RUN}.gz")), "{message}");
    assert!(message.contains("also recorded in"), "{message}");
}

#[test]
fn a_gzipped_run_that_is_not_gzip_is_named() {
    let message = fails_keeping_the_old_site(|root| {
        fs::remove_file(root.join(RUN)).expect("remove");
        fs::write(root.join(format!("{RUN}.gz")), b"{\"not\": \"gzip\"}").expect("write");
    });
    assert!(message.contains(&format!("{RUN}.gz")), "{message}");
    assert!(message.contains("not a valid gzip file"), "{message}");
}

const SUITE: &str = "experiments/harness/H01/harness.json";
const HARNESS_RUN: &str = "experiments/harness/H01/runs/H01-sim-agent-careful-s1.json";

#[test]
fn a_harness_run_under_another_suite_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, HARNESS_RUN, |t| {
            t.replacen("\"suite\": \"H01\"", "\"suite\": \"H02\"", 1)
        });
    });
    assert!(message.contains(HARNESS_RUN), "{message}");
    assert!(message.contains("suite"), "{message}");
    assert!(message.contains("`H02`"), "{message}");
}

#[test]
fn a_harness_run_whose_id_differs_from_its_file_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, HARNESS_RUN, |t| {
            t.replacen(
                "\"id\": \"H01-sim-agent-careful-s1\"",
                "\"id\": \"other\"",
                1,
            )
        });
    });
    assert!(message.contains(HARNESS_RUN), "{message}");
    assert!(message.contains("the id `other` differs"), "{message}");
}

#[test]
fn a_harness_suite_whose_id_differs_from_its_directory_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, SUITE, |t| {
            t.replacen("\"id\": \"H01\"", "\"id\": \"H9\"", 1)
        });
    });
    assert!(message.contains(SUITE), "{message}");
    assert!(message.contains("the suite id `H9` differs"), "{message}");
}

#[test]
fn a_harness_call_to_a_model_without_a_price_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, HARNESS_RUN, |t| {
            t.replacen(
                "\"model_requested\": \"simulated/sim-medium-120b\"",
                "\"model_requested\": \"unpriced\"",
                1,
            )
        });
    });
    assert!(message.contains(HARNESS_RUN), "{message}");
    assert!(message.contains("events[0].model_requested"), "{message}");
    assert!(message.contains("no price for `unpriced`"), "{message}");
}

#[test]
fn an_unknown_harness_event_is_named_by_its_path() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, HARNESS_RUN, |t| {
            t.replacen("\"event\": \"tool_call\"", "\"event\": \"teleport\"", 1)
        });
    });
    assert!(message.contains(HARNESS_RUN), "{message}");
    assert!(message.contains("events[1]"), "{message}");
    assert!(message.contains("teleport"), "{message}");
}

#[test]
fn a_harness_directory_without_a_suite_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        fs::create_dir_all(root.join("experiments/harness/H02/runs")).expect("mkdir");
    });
    assert!(message.contains("experiments/harness/H02"), "{message}");
    assert!(message.contains("no harness.json"), "{message}");
}

const REGRESSION_SUITE: &str = "experiments/regressions/R01/suite.json";
const EDIT: &str = "experiments/regressions/R01/edits/R01-edit-02-release.json";

#[test]
fn a_skill_edit_under_another_suite_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen("\"suite\": \"R01\"", "\"suite\": \"R02\"", 1)
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(
        message.contains("`R02` but the edit is stored under the suite R01"),
        "{message}"
    );
}

#[test]
fn a_regression_suite_whose_id_differs_from_its_directory_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, REGRESSION_SUITE, |t| {
            t.replacen("\"id\": \"R01\"", "\"id\": \"R9\"", 1)
        });
    });
    assert!(message.contains(REGRESSION_SUITE), "{message}");
    assert!(message.contains("the suite id `R9` differs"), "{message}");
}

#[test]
fn a_judge_of_a_tier_the_suite_lacks_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen("\"tier\": \"small\"", "\"tier\": \"tiny\"", 1)
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(message.contains("replays[0].judges[0].tier"), "{message}");
    assert!(
        message.contains("`tiny` is not a judge of suite R01"),
        "{message}"
    );
}

#[test]
fn a_confidence_outside_zero_to_one_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen("\"confidence\": 0.86", "\"confidence\": 86", 1)
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(
        message.contains("replays[0].judges[1].confidence"),
        "{message}"
    );
    assert!(message.contains("86 is not between 0 and 1"), "{message}");
}

#[test]
fn an_outcome_decided_nowhere_in_the_cascade_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen(
                "\"decided_by\": \"large\"",
                "\"decided_by\": \"the boss\"",
                1,
            )
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(
        message.contains("replays[0].outcome.decided_by"),
        "{message}"
    );
}

#[test]
fn a_skill_digest_without_its_object_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen("\"before_sha256\": \"c", "\"before_sha256\": \"d", 1)
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(message.contains("skill.before_sha256"), "{message}");
    assert!(message.contains("no object"), "{message}");
}

#[test]
fn a_label_class_that_is_both_a_regression_and_a_control_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen("\"class\": \"R2\"", "\"class\": \"N0\"", 1)
        });
    });
    assert!(message.contains("label.regression"), "{message}");
    assert!(message.contains("class `N0`"), "{message}");
}

#[test]
fn a_regressions_directory_without_a_suite_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        fs::create_dir_all(root.join("experiments/regressions/R02/edits")).expect("mkdir");
    });
    assert!(message.contains("experiments/regressions/R02"), "{message}");
    assert!(message.contains("no suite.json"), "{message}");
}

#[test]
fn a_judge_calling_another_model_than_its_tier_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        edit(root, EDIT, |t| {
            t.replacen(
                "\"model_requested\": \"simulated/sim-large-400b\"",
                "\"model_requested\": \"simulated/sim-small-8b\"",
                1,
            )
        });
    });
    assert!(message.contains(EDIT), "{message}");
    assert!(
        message.contains("replays[0].judges[2].call.model_requested"),
        "{message}"
    );
    assert!(
        message.contains("the suite's large judge is `simulated/sim-large-400b`"),
        "{message}"
    );
}

#[test]
fn a_benchmark_giving_a_class_twice_is_refused() {
    let bench = "experiments/regressions/R01/benchmark.json";
    let message = fails_keeping_the_old_site(|root| {
        edit(root, bench, |t| {
            let mut b: serde_json::Value = serde_json::from_str(&t).expect("json");
            let first = b["classes"][0].clone();
            b["classes"].as_array_mut().expect("classes").push(first);
            serde_json::to_string_pretty(&b).expect("json")
        });
    });
    assert!(message.contains(bench), "{message}");
    assert!(message.contains("duplicate class `D1`"), "{message}");
}

#[test]
fn an_action_on_an_edit_that_is_not_there_is_refused() {
    let file = "experiments/regressions/R01/actions.json";
    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(file), |h| {
            h["actions"][1]["edit"] = "R01-edit-99-nowhere".into();
        });
    });
    assert!(message.contains(file), "{message}");
    assert!(message.contains("actions[1].edit"), "{message}");
    assert!(
        message.contains("`R01-edit-99-nowhere` is not an edit of suite R01"),
        "{message}"
    );
}

#[test]
fn an_ablation_keeping_a_judge_the_suite_lacks_is_refused() {
    let file = "experiments/regressions/R01/ablations/single-judge.json";
    let message = fails_keeping_the_old_site(|root| {
        common::edit_json(&root.join(file), |a| {
            a["rules"]["judges"] = serde_json::json!(["huge"]);
        });
    });
    assert!(message.contains(file), "{message}");
    assert!(message.contains("rules.judges[0]"), "{message}");
    assert!(
        message.contains("`huge` is not a judge of suite R01"),
        "{message}"
    );
}

#[test]
fn markdown_nested_past_the_limit_is_refused_quickly() {
    let start = std::time::Instant::now();
    let message = fails_keeping_the_old_site(|root| {
        let deep = format!("# Deep\n\n{} x\n", ">".repeat(200_000));
        fs::write(root.join("docs/DEEP.md"), deep).expect("write");
    });
    assert!(message.contains("docs/DEEP.md"), "{message}");
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("nested more than 100 levels"), "{message}");
    // Two builds of the sample and the refusal, not minutes of sanitizing.
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn a_reserved_directory_inside_experiments_is_refused() {
    let message = fails_keeping_the_old_site(|root| {
        fs::create_dir_all(root.join("experiments/docs")).expect("mkdir");
    });
    assert!(message.contains("experiments/docs"), "{message}");
    assert!(message.contains("reserved"), "{message}");
}

#[test]
fn a_document_whose_name_cannot_be_published_is_named() {
    // `%`, `?` and `#` would make its manifest line and its page address
    // name another file than the one hashed.
    for name in ["100%.md", "what?.md", "a#b.md"] {
        let message = fails_keeping_the_old_site(|root| {
            fs::write(root.join("docs").join(name), "# A note\n").expect("write");
        });
        assert!(message.contains(&format!("docs/{name}")), "{message}");
        assert!(
            message.contains("cannot be published under this name"),
            "{message}"
        );
    }
}
