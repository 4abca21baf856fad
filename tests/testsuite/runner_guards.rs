//! The runner's guards the sample registers, beside its turn and time
//! limits: a strict per-call USD stop (no call is sent that could cost more
//! at worst) and an output limit of 32 KiB an attempt. Each is on every run
//! page, in the limits receipt, and each forged past fails on the site with
//! every digest resealed.

use crate::common;

use std::fs;
use std::path::Path;

use common::{
    assert_each_fails, assert_exit, built, edit_json, read_json, receipts, reseal, stdout,
};

const RUN: &str = "E04-invoice-cleanup-careful-s1-ladder";

fn record(site: &Path) -> std::path::PathBuf {
    site.join(format!("data/E04/runs/{RUN}.json"))
}

/// Verifies the site and expects exit 1 with a failing `limits` receipt of
/// the run holding `needle`.
fn limits_fail(site: &Path, needle: &str) {
    let out = receipts(site, &["verify", "."]);
    assert_exit(&out, 1, needle);
    assert_each_fails(&stdout(&out), &[(RUN, "limits", needle)]);
}

/// The SHA-256 of the run's first attempt's artifact.
fn artifact_sha(site: &Path) -> String {
    read_json(&record(site))["attempts"][0]["artifact"]["sha256"]
        .as_str()
        .expect("an artifact")
        .to_string()
}

#[test]
fn the_registered_guards_are_on_the_run_page_and_hold_on_every_run() {
    let dir = built();
    let site = dir.path().join("site");
    let experiment = read_json(&site.join("data/E04/experiment.json"));
    assert_eq!(experiment["limits"]["max_call_usd"], 0.02);
    assert_eq!(experiment["limits"]["max_output_bytes"], 32768);
    let page = fs::read_to_string(site.join(format!("runs/{RUN}.html"))).expect("run page");
    assert!(
        page.contains("$0.02 per call at worst, 32768 bytes of output per attempt"),
        "the run page names the guards"
    );
    assert_exit(&receipts(&site, &["verify", "."]), 0, "the sample holds");
}

#[test]
fn a_reservation_shrunk_to_slip_a_call_under_the_stop_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let mut sent = 0;
    edit_json(&record(&site), |run| {
        let call = &mut run["attempts"][0]["calls"][0];
        sent = call["usage"]["prompt_tokens"].as_u64().expect("usage");
        call["prompt_tokens_reserved"] = 10.into();
    });
    reseal(&site);
    limits_fail(
        &site,
        &format!("attempts[0].calls[0] sent {sent} prompt tokens with 10 reserved"),
    );
}

#[test]
fn a_call_that_could_cost_more_than_the_stop_fails() {
    let dir = built();
    let site = dir.path().join("site");
    // A budget no stop of $0.02 lets through on any tier.
    edit_json(&record(&site), |run| {
        run["attempts"][0]["calls"][0]["prompt_tokens_reserved"] = 2_000_000.into();
    });
    reseal(&site);
    limits_fail(&site, "over the per-call stop of $0.02");
}

#[test]
fn output_past_the_limit_or_a_failure_blamed_on_it_fails() {
    let dir = built();
    let site = dir.path().join("site");
    // The artifact swapped for one of 40,000 bytes, kept as an object
    // under its own digest, as a forger would.
    let mut bigger = fs::read(site.join(format!("data/objects/{}", artifact_sha(&site))))
        .expect("the artifact's object");
    bigger.resize(40_000, b'\n');
    let sha = receipts_verifier::digest::sha256_hex(&bigger);
    fs::write(site.join(format!("data/objects/{sha}")), &bigger).expect("write");
    edit_json(&record(&site), |run| {
        let artifact = &mut run["attempts"][0]["artifact"];
        artifact["sha256"] = sha.clone().into();
        artifact["bytes"] = 40_000.into();
    });
    reseal(&site);
    limits_fail(
        &site,
        "attempts[0] wrote 40000 bytes of output, over the limit of 32768",
    );

    let dir = built();
    let site = dir.path().join("site");
    edit_json(&record(&site), |run| {
        run["attempts"][0]["end"] = serde_json::json!({"reason": "output_limit"});
    });
    reseal(&site);
    limits_fail(
        &site,
        "ended `output_limit`, yet no call stopped on its output budget and its output did not reach the limit",
    );
}
