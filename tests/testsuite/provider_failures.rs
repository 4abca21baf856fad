//! The provider failures a study meets, recorded and counted: a refused
//! key that halts the run, a server error retried, an empty reply retried,
//! and the model-id smoke test before the first run. Each is on its run
//! page and in its experiment's figures, and each forged away fails.

use crate::common;

use std::fs;
use std::path::Path;

use common::{assert_exit, built, edit_json, read_json, receipts, reseal, stdout};

const REFUSED: &str = "E02-release-brief-fast-s2-always-medium";
const SERVER_ERROR: &str = "E02-invoice-cleanup-careful-s2-always-medium";
const EMPTY: &str = "E02-shipping-rule-careful-s1-always-medium";

fn run_page(site: &Path, run: &str) -> String {
    fs::read_to_string(site.join(format!("runs/{run}.html"))).expect("run page")
}

fn run_record(site: &Path, run: &str) -> std::path::PathBuf {
    site.join(format!("data/E02/runs/{run}.json"))
}

/// The E02 always-medium figure `field` as the summary publishes it.
fn published(site: &Path, field: &str) -> u64 {
    let summary = read_json(&site.join("data/E02/summary.json"));
    summary["primary"]["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .find(|p| p["policy"] == "always-medium")
        .expect("always-medium")[field]
        .as_u64()
        .expect("a count")
}

/// Verifies the site and expects exit 1 with a failing receipt holding every needle.
fn verify_fails(site: &Path, needles: &[&str]) {
    let out = receipts(site, &["verify", "."]);
    assert_exit(&out, 1, "a forged failure");
    let text = stdout(&out);
    let failing: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        failing
            .iter()
            .any(|l| needles.iter().all(|n| l.contains(n))),
        "no failing receipt has {needles:?}:\n{}",
        failing.join("\n")
    );
}

#[test]
fn each_provider_failure_is_on_its_run_page_and_counted_in_the_figures() {
    let dir = built();
    let site = dir.path().join("site");
    let refused = run_page(&site, REFUSED);
    assert!(
        refused.contains("authentication refused (HTTP 401): invalid or expired API key"),
        "the refused call says why"
    );
    assert!(refused.contains("an authentication error halts the run"));
    let server = run_page(&site, SERVER_ERROR);
    assert!(server.contains("HTTP 503: upstream model unavailable"));
    assert!(
        server.contains("<small>retries <code>"),
        "the retry names the call"
    );
    let empty = run_page(&site, EMPTY);
    assert!(empty.contains("empty reply: finished within budget with no action"));
    assert!(empty.contains("<small>retries <code>"));
    // Counted by the published rules, and shown beside the other figures.
    assert_eq!(
        (
            published(&site, "errors"),
            published(&site, "empty_responses"),
            published(&site, "retries")
        ),
        (2, 1, 2)
    );
    let page = fs::read_to_string(site.join("experiments/E02.html")).expect("page");
    for header in ["Call errors", "Empty replies", "Retries"] {
        assert!(page.contains(&format!(">{header}</th>")), "{header}");
    }
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 0, "the sample verifies");
}

#[test]
fn a_summary_hiding_the_failed_calls_fails_even_resealed() {
    let dir = built();
    let site = dir.path().join("site");
    edit_json(&site.join("data/E02/summary.json"), |s| {
        for p in s["primary"]["policies"].as_array_mut().expect("policies") {
            p["errors"] = 0.into();
            p["retries"] = 0.into();
        }
    });
    reseal(&site);
    verify_fails(
        &site,
        &["primary.policies[always-medium].errors", "recomputed 2"],
    );
}

#[test]
fn a_failed_call_dressed_as_a_success_or_a_retry_of_a_good_call_fails() {
    let dir = built();
    let site = dir.path().join("site");
    // The refused call given a status that says it completed.
    edit_json(&run_record(&site, REFUSED), |run| {
        run["attempts"][0]["calls"][0]["status"] = "ok".into();
    });
    // The empty reply's retry pointed at the call that followed it.
    edit_json(&run_record(&site, EMPTY), |run| {
        let calls = run["attempts"][0]["calls"].as_array_mut().expect("calls");
        let good = calls[1]["request_id"].clone();
        calls[2]["retry_of"] = good;
    });
    reseal(&site);
    verify_fails(
        &site,
        &[REFUSED, "record is possible", "completed but has no usage"],
    );
    verify_fails(
        &site,
        &[
            EMPTY,
            "record is possible",
            "which completed and chose an action",
        ],
    );
}

#[test]
fn a_refused_run_that_escalates_breaks_its_policy() {
    let dir = built();
    let site = dir.path().join("site");
    // A refused key recorded as though the attempt had finished: the run
    // did not halt as its policy requires.
    edit_json(&run_record(&site, REFUSED), |run| {
        run["attempts"][0]["end"]["reason"] = "finished".into();
    });
    reseal(&site);
    verify_fails(&site, &[REFUSED, "policy `always-medium`", "not `error`"]);
}

#[test]
fn the_smoke_test_is_on_each_experiment_page_and_a_forged_confirmation_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("experiments/E02.html")).expect("page");
    assert!(page.contains("Model ids, checked before the first run"));
    assert!(page.contains("tier models confirmed"));
    // The provider answered the small tier under another spelling, and the
    // record still says it confirmed the id.
    edit_json(&site.join("data/E02/models.json"), |check| {
        let probe = &mut check["probes"][0];
        let id = probe["model"].as_str().expect("id").to_uppercase();
        probe["call"]["model_echoed"] = id.into();
    });
    reseal(&site);
    verify_fails(
        &site,
        &["E02/models.json", "confirmed", "the provider answered as"],
    );
}

#[test]
fn a_smoke_test_made_after_the_first_run_fails() {
    let dir = built();
    let site = dir.path().join("site");
    edit_json(&site.join("data/E02/models.json"), |check| {
        check["listed_at"] = "2026-10-28T18:00:00Z".into();
    });
    reseal(&site);
    verify_fails(
        &site,
        &["tier models confirmed", "after the first run started"],
    );
}
