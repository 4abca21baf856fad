use serde_json::json;

use super::*;
use crate::model::{HarnessRun, HarnessSuite};
use crate::verify::Tally;

fn suite() -> HarnessSuite {
    serde_json::from_value(json!({
        "format_version": 1,
        "kind": "harness",
        "id": "H01",
        "title": "A suite",
        "provenance": "simulated",
        "prices": {"version": "v1", "currency": "USD", "models": {
            "sim/small": {"input_per_mtok": 0.1, "output_per_mtok": 0.4}
        }},
        "egress_allowlist": ["api.example.com", "Docs.Example.com"],
        "token_cap": 1000,
        "percentile_method": "nearest-rank"
    }))
    .expect("suite")
}

fn call(id: &str, latency_ms: u64, prompt: u64, completion: u64) -> serde_json::Value {
    json!({
        "event": "provider_call",
        "request_id": id,
        "model_requested": "sim/small",
        "model_echoed": "sim/small",
        "started_at": "2026-11-01T10:00:00.000Z",
        "latency_ms": latency_ms,
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "reasoning_tokens": null, "cache_hit_tokens": null, "cache_miss_tokens": null},
        "finish_reason": "stop",
        "max_tokens": 512,
        "prompt_tokens_reserved": prompt,
        "status": "ok"
    })
}

fn parse(
    events: Vec<serde_json::Value>,
    report: serde_json::Value,
) -> Result<HarnessRun, serde_json::Error> {
    serde_json::from_value(json!({
        "format_version": 1,
        "kind": "harness_run",
        "id": "H01-a",
        "suite": "H01",
        "provenance": "simulated",
        "agent": "sim-agent",
        "started_at": "2026-11-01T10:00:00.000Z",
        "events": events,
        "report": report
    }))
}

fn run(events: Vec<serde_json::Value>, report: serde_json::Value) -> HarnessRun {
    parse(events, report).expect("run")
}

/// A run of three calls (400, 300 and 350 tokens: the third reaches the
/// cap of 1,000), a failed tool call, one allowed and one blocked egress,
/// a snapshot, and the budget stop; with its true report.
fn capped() -> (Vec<serde_json::Value>, serde_json::Value) {
    let events = vec![
        call("c1", 800, 300, 100),
        json!({"event": "tool_call", "tool": "fetch", "args": {"url": "https://api.example.com/x"}, "ok": true}),
        json!({"event": "egress", "host": "api.example.com", "decision": "allowed"}),
        call("c2", 1200, 200, 100),
        json!({"event": "tool_call", "tool": "shell", "args": {"cmd": "ls"}, "ok": false, "error": "exit 2"}),
        json!({"event": "egress", "host": "evil.example", "decision": "denied"}),
        json!({"event": "snapshot", "label": "after c2", "sha256": "ab".repeat(32)}),
        call("c3", 500, 250, 100),
        json!({"event": "abort", "reason": "budget"}),
    ];
    // Cost: (750 × 0.1 + 300 × 0.4) / 1e6 = 0.000195.
    let report = json!({
        "total_cost_usd": 0.000195,
        "latency_p50_ms": 800,
        "latency_p95_ms": 1200,
        "tool_failures": 1,
        "egress_blocked": 1,
        "tokens_used": 1050,
        "snapshots": 1,
        "aborted_on_budget": true
    });
    (events, report)
}

fn failing(receipts: &[Receipt]) -> Vec<&str> {
    receipts
        .iter()
        .filter(|r| r.status != Status::Pass)
        .map(|r| r.claim.as_str())
        .collect()
}

#[test]
fn nearest_rank_percentiles() {
    let m = PercentileMethod::NearestRank;
    assert_eq!(percentile(m, &[], 50), None);
    assert_eq!(percentile(m, &[7], 95), Some(7));
    // 1..=20: p50 is the 10th value, p95 the 19th.
    let values: Vec<u64> = (1..=20).rev().collect();
    assert_eq!(percentile(m, &values, 50), Some(10));
    assert_eq!(percentile(m, &values, 95), Some(19));
    assert_eq!(percentile(m, &values, 100), Some(20));
    // Three values: ⌈1.5⌉ = 2nd for p50, ⌈2.85⌉ = 3rd for p95.
    assert_eq!(percentile(m, &[500, 1200, 800], 50), Some(800));
    assert_eq!(percentile(m, &[500, 1200, 800], 95), Some(1200));
}

#[test]
fn a_true_report_passes_every_receipt() {
    let (events, report) = capped();
    let receipts = verify_harness_run("H01/reports/H01-a.json", &suite(), &run(events, report));
    assert!(failing(&receipts).is_empty(), "{receipts:#?}");
    // Suite, cost, two percentiles, four counts, tokens, two egress decisions, abort, stop.
    assert_eq!(Tally::of(&receipts).pass, 13);
}

#[test]
fn each_wrong_figure_fails_its_own_receipt() {
    let cases = [
        ("total_cost_usd", json!(0.0003), "report.total_cost_usd"),
        ("latency_p50_ms", json!(1200), "report.latency_p50_ms"),
        ("latency_p95_ms", json!(800), "report.latency_p95_ms"),
        ("tool_failures", json!(0), "report.tool_failures"),
        ("egress_blocked", json!(2), "report.egress_blocked"),
        ("tokens_used", json!(1000), "report.tokens_used"),
        ("snapshots", json!(0), "report.snapshots"),
        (
            "aborted_on_budget",
            json!(false),
            "report.aborted_on_budget",
        ),
    ];
    for (field, value, claim) in cases {
        let (events, mut report) = capped();
        report[field] = value;
        let receipts = verify_harness_run("r", &suite(), &run(events, report));
        assert_eq!(failing(&receipts), vec![claim], "{field}");
    }
}

#[test]
fn the_recorded_cost_agrees_to_the_micro_dollar() {
    // The cost is 0.000195. A recorded cost is checked to six decimals at
    // least (more when written with more), so a rounder figure, or 0, does
    // not pass for it, nor does a finer one that is off at its own precision.
    for (recorded, agrees) in [
        (0.000195, true),
        (0.000196, false),
        (0.0001954, false),
        (0.0002, false),
        (0.0, false),
    ] {
        let (events, mut report) = capped();
        report["total_cost_usd"] = json!(recorded);
        let receipts = verify_harness_run("r", &suite(), &run(events, report));
        let want: Vec<&str> = if agrees {
            vec![]
        } else {
            vec!["report.total_cost_usd"]
        };
        assert_eq!(failing(&receipts), want, "{recorded}");
    }
}

#[test]
fn an_egress_decision_against_the_allowlist_fails() {
    let (mut events, report) = capped();
    // Allowed although the host is not on the list; and a listed host
    // (case aside) that was denied, with the count adjusted to match.
    events[2] = json!({"event": "egress", "host": "other.example", "decision": "allowed"});
    events[5] = json!({"event": "egress", "host": "docs.example.com", "decision": "denied"});
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    assert_eq!(
        failing(&receipts),
        vec!["events[2].decision", "events[5].decision"]
    );
    let r = receipts
        .iter()
        .find(|r| r.claim == "events[2].decision")
        .unwrap();
    assert_eq!(
        (r.recorded.as_str(), r.recomputed.as_str()),
        ("allowed", "denied (other.example)")
    );
}

#[test]
fn a_call_after_the_cap_fails_the_budget_stop() {
    let (mut events, mut report) = capped();
    // The harness let a fourth call through before stopping.
    events.insert(8, call("c4", 600, 10, 10));
    report["tokens_used"] = json!(1070);
    report["total_cost_usd"] = json!(0.000200);
    report["latency_p50_ms"] = json!(600);
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    assert_eq!(failing(&receipts), vec!["budget stop"]);
    let stop = receipts.iter().find(|r| r.claim == "budget stop").unwrap();
    assert!(
        stop.recomputed.contains("calls after it: c4"),
        "{}",
        stop.recomputed
    );
    assert!(
        stop.recomputed.contains("events[7] (1050 tokens)"),
        "{}",
        stop.recomputed
    );
}

#[test]
fn a_budget_stop_below_the_cap_fails_and_a_claimed_one_must_be_recorded() {
    // A report that claims a stop the events do not record.
    let (mut events, report) = capped();
    events.pop();
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    assert_eq!(failing(&receipts), vec!["report.aborted_on_budget"]);

    // A stop although the cap was never reached.
    let (mut events, mut report) = capped();
    events[7] = call("c3", 500, 20, 10);
    report["tokens_used"] = json!(730);
    report["total_cost_usd"] = json!(0.000136);
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    assert_eq!(failing(&receipts), vec!["budget stop"]);
    let stop = receipts.iter().find(|r| r.claim == "budget stop").unwrap();
    assert_eq!(stop.recorded, "stopped at events[8]");
    assert_eq!(
        stop.recomputed,
        "the cap (1000) was never reached: 730 tokens"
    );
}

#[test]
fn lost_usage_bounds_the_cost_and_leaves_tokens_and_the_stop_unjudged() {
    let (mut events, mut report) = capped();
    events[7]["usage"] = serde_json::Value::Null;
    events[7]["status"] = json!("timeout");
    events.pop();
    report["aborted_on_budget"] = json!(false);
    report["tokens_used"] = json!(700);
    // Known: 500 prompt, 200 completion = 0.00013; the lost call is bounded
    // by its reserved prompt (250) and its budget (512): up to 0.0002548 more.
    report["total_cost_usd"] = json!(0.0002);
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    let status = |claim: &str| receipts.iter().find(|r| r.claim == claim).unwrap().status;
    assert_eq!(status("report.total_cost_usd"), Status::Pass);
    assert_eq!(status("report.tokens_used"), Status::CouldNotCheck);
    assert_eq!(status("report.aborted_on_budget"), Status::Pass);
    assert_eq!(status("budget stop"), Status::CouldNotCheck);
}

#[test]
fn a_run_of_another_suite_or_a_model_without_a_price_is_named() {
    let (mut events, report) = capped();
    events[0]["model_requested"] = json!("sim/unpriced");
    let mut r = run(events, report);
    r.suite = "H02".into();
    let receipts = verify_harness_run("r", &suite(), &r);
    assert_eq!(failing(&receipts), vec!["suite", "report.total_cost_usd"]);
    let cost = receipts
        .iter()
        .find(|r| r.claim == "report.total_cost_usd")
        .unwrap();
    assert_eq!(cost.status, Status::CouldNotCheck);
    assert!(
        cost.recomputed.contains("sim/unpriced"),
        "{}",
        cost.recomputed
    );
}

#[test]
fn an_unknown_event_or_field_is_refused() {
    let (mut events, report) = capped();
    events[1]["exit_code"] = json!(0);
    let e = parse(events, report.clone()).unwrap_err();
    assert!(e.to_string().contains("exit_code"), "{e}");
    let e = parse(vec![json!({"event": "teleport"})], report).unwrap_err();
    assert!(e.to_string().contains("teleport"), "{e}");
}

#[test]
fn usage_lost_before_the_cap_leaves_the_stop_unjudged_unless_a_call_follows_the_known_cap() {
    // A first call lost its usage; the three known calls still reach the cap
    // (at events[8]), but the lost one may have reached it sooner.
    let lost = || {
        let mut c = call("c0", 700, 100, 100);
        c["usage"] = serde_json::Value::Null;
        c["status"] = json!("timeout");
        c
    };
    let (mut events, mut report) = capped();
    events.insert(0, lost());
    report["latency_p50_ms"] = json!(700);
    report["total_cost_usd"] = json!(0.0002);
    let receipts = verify_harness_run("r", &suite(), &run(events.clone(), report.clone()));
    let status = |r: &[Receipt], claim: &str| r.iter().find(|x| x.claim == claim).unwrap().status;
    assert_eq!(status(&receipts, "budget stop"), Status::CouldNotCheck);
    // A call after the known cap is a violation whatever the lost call used.
    events.insert(9, call("c4", 600, 10, 10));
    report["total_cost_usd"] = json!(0.000205);
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    assert_eq!(status(&receipts, "budget stop"), Status::Fail);
}

#[test]
fn absurd_token_counts_saturate_instead_of_wrapping() {
    let (mut events, mut report) = capped();
    events[0] = call("c1", 800, u64::MAX, 100);
    report["tokens_used"] = json!(11);
    let receipts = verify_harness_run("r", &suite(), &run(events, report));
    let tokens = receipts
        .iter()
        .find(|r| r.claim == "report.tokens_used")
        .unwrap();
    assert_eq!(tokens.status, Status::Fail);
    assert_eq!(tokens.recomputed, u64::MAX.to_string());
}

/// The suite with argument rules: `read_file`'s path stays in the
/// workspace, `run_tests` names a known target.
fn vetting_suite() -> HarnessSuite {
    let mut s = suite();
    s.arg_rules = serde_json::from_value(json!([
        {"id": "in-workspace", "tool": "read_file", "arg": "path",
         "check": {"kind": "path_under", "prefixes": ["/workspace/"]}},
        {"id": "known-target", "tool": "run_tests", "arg": "target",
         "check": {"kind": "one_of", "values": ["unit", "lint"]}},
        {"id": "short", "tool": "read_file", "arg": "path",
         "check": {"kind": "max_chars", "max": 40}}
    ]))
    .expect("rules");
    s
}

/// One call, then a tool call of `tool` with `args`, its `ok` and its
/// recorded `vetting`; with the report that matches a harness that
/// refused what the rules refuse.
fn vetted(
    tool: &str,
    args: serde_json::Value,
    ok: bool,
    vetting: serde_json::Value,
    refused: u64,
) -> HarnessRun {
    run(
        vec![
            call("c1", 800, 300, 100),
            json!({"event": "tool_call", "tool": tool, "args": args, "ok": ok,
                   "vetting": vetting}),
        ],
        json!({
            "total_cost_usd": 0.00007, "latency_p50_ms": 800, "latency_p95_ms": 800,
            "tool_failures": u64::from(!ok), "egress_blocked": 0, "args_refused": refused,
            "tokens_used": 400, "snapshots": 0, "aborted_on_budget": false
        }),
    )
}

#[test]
fn a_vetted_call_passes_when_every_decision_is_what_its_rule_gives() {
    let s = vetting_suite();
    let allowed = json!([{"rule": "in-workspace", "decision": "allowed"},
                         {"rule": "short", "decision": "allowed"}]);
    let r = vetted(
        "read_file",
        json!({"path": "/workspace/a.py"}),
        true,
        allowed,
        0,
    );
    let receipts = verify_harness_run("r", &s, &r);
    assert_eq!(failing(&receipts), Vec::<&str>::new());
    assert!(receipts.iter().any(|r| r.claim == "events[1].vetting"));
    // A refused call, recorded as refused and not run, counted.
    let denied = json!([{"rule": "in-workspace", "decision": "denied"},
                        {"rule": "short", "decision": "allowed"}]);
    let r = vetted(
        "read_file",
        json!({"path": "/workspace/../etc/shadow"}),
        false,
        denied,
        1,
    );
    assert_eq!(
        failing(&verify_harness_run("r", &s, &r)),
        Vec::<&str>::new()
    );
}

#[test]
fn a_forged_vetting_fails() {
    let s = vetting_suite();
    let both = |a: &str, b: &str| json!([{"rule": "in-workspace", "decision": a}, {"rule": "short", "decision": b}]);
    let escape = json!({"path": "/workspace/../etc/shadow"});
    let cases = [
        // A path that steps out of the workspace, recorded as allowed and run.
        (
            "recorded allowed, recomputed denied",
            vetted(
                "read_file",
                escape.clone(),
                true,
                both("allowed", "allowed"),
                0,
            ),
        ),
        // Refused on record, yet the tool ran.
        (
            "refused, yet the tool ran",
            vetted(
                "read_file",
                escape.clone(),
                true,
                both("denied", "allowed"),
                1,
            ),
        ),
        // One rule's decision left out.
        (
            "`short` was not recorded",
            vetted(
                "read_file",
                json!({"path": "/workspace/a"}),
                true,
                json!([{"rule": "in-workspace", "decision": "allowed"}]),
                0,
            ),
        ),
        // Not vetted at all.
        (
            "`in-workspace` was not recorded",
            vetted(
                "read_file",
                json!({"path": "/workspace/a"}),
                true,
                json!([]),
                0,
            ),
        ),
        // A rule of another tool named to look vetted.
        (
            "`known-target` is no rule of the suite for `read_file`",
            vetted(
                "read_file",
                json!({"path": "/workspace/a"}),
                true,
                json!([{"rule": "in-workspace", "decision": "allowed"}, {"rule": "short", "decision": "allowed"}, {"rule": "known-target", "decision": "allowed"}]),
                0,
            ),
        ),
        // A target smuggling a command, and a missing argument.
        (
            "recorded allowed, recomputed denied",
            vetted(
                "run_tests",
                json!({"target": "unit; rm -rf /"}),
                true,
                json!([{"rule": "known-target", "decision": "allowed"}]),
                0,
            ),
        ),
        (
            "recorded allowed, recomputed denied",
            vetted(
                "run_tests",
                json!({}),
                true,
                json!([{"rule": "known-target", "decision": "allowed"}]),
                0,
            ),
        ),
    ];
    for (needle, r) in cases {
        let receipts = verify_harness_run("r", &s, &r);
        let vetting = receipts
            .iter()
            .find(|r| r.claim == "events[1].vetting")
            .expect("a vetting receipt");
        assert_eq!(vetting.status, Status::Fail, "{needle}");
        assert!(
            vetting.recomputed.contains(needle),
            "{needle}: {}",
            vetting.recomputed
        );
    }
    // The refused count hidden from the report.
    let r = vetted("read_file", escape, false, both("denied", "allowed"), 0);
    assert_eq!(
        failing(&verify_harness_run("r", &s, &r)),
        vec!["report.args_refused"]
    );
}

#[test]
fn a_path_rule_refuses_every_way_out_of_its_directory() {
    let rule: crate::model::ArgRule = serde_json::from_value(json!({
        "id": "w", "tool": "t", "arg": "path",
        "check": {"kind": "path_under", "prefixes": ["/workspace/"]}
    }))
    .expect("rule");
    for (path, ok) in [
        ("/workspace/src/a.py", true),
        ("/workspace/..", false),
        ("/workspace/../etc", false),
        ("/workspace/a/../../b", false),
        ("/workspaces/a", false),
        ("/workspace", false),
        ("/workspace/a\\..\\..\\b", false),
        ("/workspace/a\u{0}", false),
        ("/workspace/..a/b", true),
    ] {
        assert_eq!(rule.vet(&json!({"path": path})).is_ok(), ok, "{path}");
    }
    assert!(rule.vet(&json!({"path": 7})).is_err(), "not a string");
}
