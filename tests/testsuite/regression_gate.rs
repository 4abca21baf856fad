//! The regression gate's figures: recall counting a hold and counting only a
//! revert, and the time from edit to verdict, each recomputed from the
//! edits; a verdict dated before the replays it waited for, or a rounded-up
//! recall, fails even with every digest resealed.

use crate::common;

use std::fs;

use common::{assert_exit, built, edit_json, receipts, reseal, stdout};

fn failing_lines(site: &std::path::Path) -> Vec<String> {
    let out = receipts(site, &["verify", "."]);
    assert_exit(&out, 1, "a forged gate figure");
    stdout(&out)
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_benchmark_shows_block_recall_beside_recall_and_the_time_to_verdict() {
    let dir = built();
    let page =
        fs::read_to_string(dir.path().join("site/regressions/R01.html")).expect("suite page");
    for label in [
        "Recall, a hold counted as a catch",
        "Block recall, only a revert counted",
        "Edit to verdict, p95 (s)",
    ] {
        assert!(page.contains(label), "{label}");
    }
    assert!(page.contains(">R6</th>"), "the under-firing trigger class");
}

#[test]
fn a_block_recall_rounded_up_or_a_verdict_dated_too_early_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let data = site.join("data/regressions/R01");
    edit_json(&data.join("benchmark.json"), |b| {
        b["recall"]["block_recall"] = 0.83.into();
        b["latency"]["p95_s"] = 41.0.into();
    });
    // An edit whose verdict says it came before its last judge call ended.
    edit_json(&data.join("edits/R01-edit-02-release.json"), |e| {
        e["verdict"]["decided_at"] = e["edited_at"].clone();
    });
    reseal(&site);
    let failing = failing_lines(&site);
    for needle in [
        "recall.block_recall: recorded 0.83",
        "latency.p95_s: recorded 41",
        "R01-edit-02-release.json: verdict.decided_at",
    ] {
        assert!(
            failing.iter().any(|l| l.contains(needle)),
            "{needle}:\n{}",
            failing.join("\n")
        );
    }
    assert!(
        failing
            .iter()
            .any(|l| l.contains("verdict.decided_at") && l.contains("recomputed before replays[0]")),
        "{}",
        failing.join("\n")
    );
}
