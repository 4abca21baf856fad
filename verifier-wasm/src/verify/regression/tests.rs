use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::*;
use crate::digest::sha256_hex;
use crate::model::{RegressionBenchmark, RegressionSuite, SkillEdit};
use crate::verify::{Receipt, Status, Tally};

const BEFORE: &[u8] = b"skill: triage\nclose: never\n";
const AFTER: &[u8] = b"skill: triage\nclose: when stale\n";

fn suite() -> RegressionSuite {
    serde_json::from_value(json!({
        "format_version": 1,
        "kind": "regression_suite",
        "id": "R01",
        "title": "A suite",
        "provenance": "simulated",
        "prices": {"version": "v1", "currency": "USD", "models": {
            "sim/s": {"input_per_mtok": 0.1, "output_per_mtok": 0.2},
            "sim/m": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            "sim/l": {"input_per_mtok": 10.0, "output_per_mtok": 20.0}
        }},
        "judges": [
            {"tier": "small", "model": "sim/s"},
            {"tier": "medium", "model": "sim/m"},
            {"tier": "large", "model": "sim/l"}
        ],
        "hard_tools": ["github.close_issue"],
        "pass_confidence": 0.8,
        "rules": "cascade-v1"
    }))
    .expect("suite")
}

fn objects() -> BTreeMap<String, Vec<u8>> {
    [BEFORE, AFTER]
        .iter()
        .map(|b| (sha256_hex(b), b.to_vec()))
        .collect()
}

fn effect(tool: &str, n: u64) -> Value {
    json!({"tool": tool, "args": {"issue": n}})
}

fn trace(effects: Vec<Value>) -> Value {
    json!({"recorded_at": "2026-10-01T00:00:00Z", "side_effects": effects})
}

/// A judge's verdict; its call used 1000 prompt and 100 completion tokens.
fn judge(tier: &str, verdict: &str, confidence: f64) -> Value {
    let model = match tier {
        "small" => "sim/s",
        "medium" => "sim/m",
        _ => "sim/l",
    };
    json!({
        "tier": tier,
        "verdict": verdict,
        "confidence": confidence,
        "rationale": "because",
        "call": {
            "request_id": format!("{tier}-{verdict}"),
            "model_requested": model,
            "model_echoed": model,
            "started_at": "2026-11-01T10:00:00Z",
            "latency_ms": 100,
            "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                      "reasoning_tokens": null, "cache_hit_tokens": null, "cache_miss_tokens": null},
            "finish_reason": "stop",
            "max_tokens": 200,
            "prompt_tokens_reserved": 1000,
            "status": "ok"
        }
    })
}

fn replay(golden: Vec<Value>, replayed: Vec<Value>, judges: Vec<Value>) -> Value {
    json!({
        "task": "t1",
        "world_dependent": false,
        "golden": trace(golden),
        "replay": trace(replayed),
        "level0": {"result": "same", "added": [], "removed": []},
        "judges": judges,
        "outcome": {"result": "PASS", "decided_by": "level0"}
    })
}

fn edit(replays: Vec<Value>, verdict: Value) -> SkillEdit {
    serde_json::from_value(json!({
        "format_version": 1,
        "kind": "skill_edit",
        "id": "e1",
        "suite": "R01",
        "provenance": "simulated",
        "edited_at": "2026-11-01T09:00:00Z",
        "skill": {"name": "triage", "before_sha256": sha256_hex(BEFORE), "after_sha256": sha256_hex(AFTER)},
        "label": {"class": "R1", "regression": true},
        "replays": replays,
        "verdict": verdict
    }))
    .expect("edit")
}

fn one(r: Value) -> Replay {
    serde_json::from_value(r).expect("replay")
}

fn decided(r: Value) -> (Option<VerdictResult>, String, Option<String>) {
    let d = replay_verdict(&suite(), &one(r));
    (d.result, d.decided_by, d.cascade_error)
}

#[test]
fn level0_compares_side_effects_as_multisets() {
    let s = suite();
    let a = effect("github.comment", 1);
    let b = effect("github.label", 2);
    // Order alone is not a difference.
    let same = one(replay(
        vec![a.clone(), b.clone()],
        vec![b.clone(), a.clone()],
        vec![],
    ));
    assert_eq!(level0(&s, &same).result, Level0Result::Same);
    // A second identical call is: one added.
    let twice = one(replay(vec![a.clone()], vec![a.clone(), a.clone()], vec![]));
    let d = level0(&s, &twice);
    assert_eq!(
        (d.result, d.added.len(), d.removed.len()),
        (Level0Result::Differs, 1, 0)
    );
    // A call dropped is removed, and not a hard fail.
    let dropped = one(replay(vec![a.clone(), b.clone()], vec![a.clone()], vec![]));
    let d = level0(&s, &dropped);
    assert_eq!(
        (d.result, d.removed[0].tool.as_str()),
        (Level0Result::Differs, "github.label")
    );
    // A new call to a hard tool is a hard fail; the same call in the golden trace is not.
    let close = effect("github.close_issue", 3);
    let hard = one(replay(
        vec![a.clone()],
        vec![a.clone(), close.clone()],
        vec![],
    ));
    assert_eq!(level0(&s, &hard).result, Level0Result::HardFail);
    let kept = one(replay(vec![close.clone()], vec![close.clone(), a], vec![]));
    assert_eq!(level0(&s, &kept).result, Level0Result::Differs);
    // Arguments count: the same tool on another issue differs.
    let other = one(replay(
        vec![effect("github.comment", 1)],
        vec![effect("github.comment", 2)],
        vec![],
    ));
    let d = level0(&s, &other);
    assert_eq!((d.added.len(), d.removed.len()), (1, 1));
}

#[test]
fn level0_and_the_control_replay_decide_without_judges() {
    let a = effect("github.comment", 1);
    let hard = effect("github.close_issue", 9);
    assert_eq!(
        decided(replay(vec![a.clone()], vec![a.clone()], vec![])),
        (Some(VerdictResult::Pass), "level0".into(), None)
    );
    assert_eq!(
        decided(replay(vec![a.clone()], vec![hard.clone()], vec![])),
        (Some(VerdictResult::Block,), "level0".into(), None)
    );
    // A judge called after level 0 decided breaks the rules.
    let (_, _, error) = decided(replay(
        vec![a.clone()],
        vec![hard],
        vec![judge("small", "pass", 0.9)],
    ));
    assert!(error.is_some_and(|e| e.contains("after level0")));
    // The unchanged skill's replay makes the same new call: noise, not the edit.
    let mut r = replay(
        vec![a.clone()],
        vec![a.clone(), effect("github.label", 2)],
        vec![],
    );
    r["control"] = trace(vec![effect("github.label", 2), a.clone()]);
    assert_eq!(
        decided(r.clone()),
        (Some(VerdictResult::Pass), "control".into(), None)
    );
    // A control that matches the golden trace leaves the difference to the judges.
    r["control"] = trace(vec![a]);
    let (result, _, error) = decided(r);
    assert_eq!(result, None);
    assert!(error.is_some_and(|e| e.contains("before small")));
}

#[test]
fn the_judges_decide_by_the_agreement_rules() {
    let g = vec![effect("github.comment", 1)];
    let r = vec![effect("github.comment", 2)];
    let case = |judges: Vec<Value>| decided(replay(g.clone(), r.clone(), judges));
    let pass = Some(VerdictResult::Pass);
    let warn = Some(VerdictResult::Warn);
    let block = Some(VerdictResult::Block);
    // A confident pass below the largest settles the replay.
    assert_eq!(
        case(vec![judge("small", "pass", 0.8)]),
        (pass, "small".into(), None)
    );
    // Not confident enough: on to the next judge.
    assert_eq!(
        case(vec![
            judge("small", "pass", 0.79),
            judge("medium", "pass", 0.95)
        ]),
        (pass, "medium".into(), None)
    );
    // BLOCK needs the medium and large judges to agree.
    let all = |m: &str, l: &str, c: f64| {
        vec![
            judge("small", "regressed", 0.9),
            judge("medium", m, 0.9),
            judge("large", l, c),
        ]
    };
    assert_eq!(
        case(all("regressed", "regressed", 0.9)),
        (block, "large".into(), None)
    );
    assert_eq!(
        case(all("unsure", "regressed", 0.99)),
        (warn, "large".into(), None)
    );
    assert_eq!(
        case(all("regressed", "pass", 0.9)),
        (pass, "large".into(), None)
    );
    assert_eq!(
        case(all("regressed", "pass", 0.5)),
        (warn, "large".into(), None)
    );
    assert_eq!(
        case(all("regressed", "unsure", 0.9)),
        (warn, "large".into(), None)
    );
    // A medium pass below the confidence goes to the largest, which decides.
    let low = vec![
        judge("small", "unsure", 0.2),
        judge("medium", "pass", 0.6),
        judge("large", "regressed", 0.9),
    ];
    assert_eq!(case(low), (warn, "large".into(), None));
}

#[test]
fn a_cascade_out_of_the_rules_order_is_named() {
    let g = vec![effect("github.comment", 1)];
    let r = vec![effect("github.comment", 2)];
    let case = |judges: Vec<Value>| decided(replay(g.clone(), r.clone(), judges));
    // The small judge skipped.
    let (result, _, error) = case(vec![judge("medium", "pass", 0.9)]);
    assert_eq!(result, None);
    assert_eq!(
        error.as_deref(),
        Some("judge 1 is medium, but the rules call small there")
    );
    // A judge called after a confident pass.
    let (result, by, error) = case(vec![
        judge("small", "pass", 0.9),
        judge("medium", "pass", 0.9),
    ]);
    assert_eq!((result, by.as_str()), (Some(VerdictResult::Pass), "small"));
    assert_eq!(
        error.as_deref(),
        Some("judges were called after small decided the replay")
    );
}

#[test]
fn drift_evidence_after_the_golden_trace_passes_a_world_dependent_replay() {
    let judges = vec![
        judge("small", "regressed", 0.9),
        judge("medium", "regressed", 0.9),
        judge("large", "regressed", 0.9),
    ];
    let mut r = replay(
        vec![effect("github.comment", 1)],
        vec![effect("github.comment", 2)],
        judges,
    );
    r["world_dependent"] = json!(true);
    r["drift"] = json!({"source": "https://example.com/rates", "observed_at": "2026-10-20T00:00:00Z",
                        "claim": "the rate changed", "corroborates": true});
    assert_eq!(
        decided(r.clone()),
        (Some(VerdictResult::Pass), "drift".into(), None)
    );
    // Evidence from before the golden trace was blessed shows nothing.
    r["drift"]["observed_at"] = json!("2026-09-30T00:00:00Z");
    assert_eq!(decided(r.clone()).0, Some(VerdictResult::Block));
    // Nor does evidence that does not corroborate, or a task that does not depend on the world.
    r["drift"]["observed_at"] = json!("2026-10-20T00:00:00Z");
    r["drift"]["corroborates"] = json!(false);
    assert_eq!(decided(r.clone()).0, Some(VerdictResult::Block));
    r["drift"]["corroborates"] = json!(true);
    r["world_dependent"] = json!(false);
    assert_eq!(decided(r).0, Some(VerdictResult::Block));
}

/// An edit of three replays: one the same (level 0), one with a new comment
/// passed by a confident small judge, and one blocked by medium and large
/// agreeing. Costs, each call 1000 prompt + 100 completion tokens:
/// small 2 × (1000 × 0.1 + 100 × 0.2) / 1e6 = 0.00024;
/// medium (1000 × 1 + 100 × 2) / 1e6 = 0.0012;
/// large (1000 × 10 + 100 × 20) / 1e6 = 0.012; total 0.01344.
/// All-largest: the second replay's small call at large prices, 0.012, and
/// the third's own large call, 0.012: 0.024.
fn blocked() -> Vec<Value> {
    let a = effect("github.comment", 1);
    let mut second = replay(
        vec![a.clone()],
        vec![a.clone(), effect("github.comment", 2)],
        vec![judge("small", "pass", 0.9)],
    );
    second["level0"] =
        json!({"result": "differs", "added": [effect("github.comment", 2)], "removed": []});
    second["outcome"] = json!({"result": "PASS", "decided_by": "small"});
    let mut third = replay(
        vec![a.clone()],
        vec![effect("github.label", 5)],
        vec![
            judge("small", "regressed", 0.9),
            judge("medium", "regressed", 0.9),
            judge("large", "regressed", 0.9),
        ],
    );
    third["level0"] =
        json!({"result": "differs", "added": [effect("github.label", 5)], "removed": [a.clone()]});
    third["outcome"] = json!({"result": "BLOCK", "decided_by": "large"});
    vec![replay(vec![a.clone()], vec![a], vec![]), second, third]
}

fn blocked_verdict() -> Value {
    json!({
        "result": "BLOCK",
        "action": "revert",
        "cost": {"by_tier": {"small": 0.00024, "medium": 0.0012, "large": 0.012},
                 "total_usd": 0.01344, "all_largest_usd": 0.024}
    })
}

fn failing(receipts: &[Receipt]) -> Vec<String> {
    receipts
        .iter()
        .filter(|r| r.status != Status::Pass)
        .map(|r| format!("{}: {} / {}", r.claim, r.recorded, r.recomputed))
        .collect()
}

#[test]
fn a_true_edit_verifies_every_claim() {
    let e = edit(blocked(), blocked_verdict());
    let receipts = verify_skill_edit("R01", &suite(), &e, &objects());
    assert_eq!(failing(&receipts), Vec::<String>::new());
    // suite, 2 objects, 3 × (level0, judges, outcome), result, action, 3 tiers, total, all-largest.
    assert_eq!(receipts.len(), 1 + 2 + 9 + 2 + 3 + 2);
    assert!(receipts
        .iter()
        .all(|r| r.subject == "regressions/R01/edits/e1.json"));
}

#[test]
fn each_wrong_claim_fails_its_own_receipt() {
    let s = suite();
    let check = |e: SkillEdit| failing(&verify_skill_edit("R01", &s, &e, &objects()));
    // A verdict softened, with its action.
    let mut v = blocked_verdict();
    v["result"] = json!("WARN");
    v["action"] = json!("hold");
    assert_eq!(
        check(edit(blocked(), v)),
        [
            "verdict.result: WARN / BLOCK",
            "verdict.action: hold / revert"
        ]
    );
    // A level-0 diff recorded as the same.
    let mut r = blocked();
    r[2]["level0"] = json!({"result": "same", "added": [], "removed": []});
    let f = check(edit(r, blocked_verdict()));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("replays[2].level0: same / differs, added: github.label {\"issue\":5}"),
        "{f:?}"
    );
    // An outcome that says the small judge blocked.
    let mut r = blocked();
    r[1]["outcome"] = json!({"result": "BLOCK", "decided_by": "small"});
    assert_eq!(
        check(edit(r, blocked_verdict())),
        ["replays[1].outcome: BLOCK by small / PASS by small"]
    );
    // A cost by tier, the total and the counterfactual.
    let mut v = blocked_verdict();
    v["cost"]["by_tier"]["medium"] = json!(0.0013);
    v["cost"]["all_largest_usd"] = json!(0.012);
    assert_eq!(
        check(edit(blocked(), v)),
        [
            "verdict.cost.by_tier[medium]: 0.0013 / 0.001200",
            "verdict.cost.all_largest_usd: 0.012 / 0.024000"
        ]
    );
    // A tier the suite does not have, and one left out.
    let mut v = blocked_verdict();
    v["cost"]["by_tier"] = json!({"small": 0.00024, "medium": 0.0012, "huge": 0.012});
    assert_eq!(
        check(edit(blocked(), v)),
        [
            "verdict.cost.by_tier[huge]: 0.012 / no judge of the suite has this tier",
            "verdict.cost.by_tier[large]: not published / a judge tier of the suite"
        ]
    );
    // Costs written as whole numbers do not pass for small ones.
    let mut v = blocked_verdict();
    v["cost"]["total_usd"] = json!(0);
    assert_eq!(
        check(edit(blocked(), v)),
        ["verdict.cost.total_usd: 0 / 0.013440"]
    );
    // A large judge's call recorded at the small model's price.
    let mut r = blocked();
    r[2]["judges"][2]["call"]["model_requested"] = json!("sim/s");
    let f = check(edit(r, blocked_verdict()));
    assert_eq!(
        f[0],
        "replays[2].judges: small → medium → large / judge 3 (large) called sim/s, not the tier's sim/l"
    );
    assert!(
        f[1..].iter().all(|x| x.starts_with("verdict.cost.")),
        "{f:?}"
    );
    // A skill object that is not in the store.
    let mut e = edit(blocked(), blocked_verdict());
    e.skill.after_sha256 = "0".repeat(64);
    assert_eq!(
        check(e),
        [format!(
            "skill.after_sha256: {} / no such object",
            "0".repeat(64)
        )]
    );
}

#[test]
fn an_undecidable_cascade_cannot_check_the_verdict() {
    let mut r = blocked();
    // The large judge's verdict is missing.
    r[2]["judges"].as_array_mut().expect("judges").pop();
    let receipts = verify_skill_edit("R01", &suite(), &edit(r, blocked_verdict()), &objects());
    let t = Tally::of(&receipts);
    let unchecked: Vec<&str> = receipts
        .iter()
        .filter(|r| r.status == Status::CouldNotCheck)
        .map(|r| r.claim.as_str())
        .collect();
    assert_eq!(
        unchecked,
        ["replays[2].outcome", "verdict.result", "verdict.action"]
    );
    // The cascade fails, and so do the costs that counted the missing call.
    // The counterfactual still holds: the third replay's small call at the
    // large judge's prices costs what its large call did.
    let failed: Vec<&str> = receipts
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| r.claim.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "replays[2].judges",
            "verdict.cost.by_tier[large]",
            "verdict.cost.total_usd"
        ]
    );
    assert_eq!(t.pass + t.fail + t.could_not_check, receipts.len());
}

fn labelled(class: &str, regression: bool, replays: Vec<Value>, result: &str) -> SkillEdit {
    let mut e = edit(replays, blocked_verdict());
    e.label = Some(crate::model::EditLabel {
        class: class.to_string(),
        regression,
    });
    e.verdict.result = serde_json::from_value(json!(result)).expect("result");
    e
}

#[test]
fn benchmark_rates_are_recomputed_from_the_labelled_edits() {
    let s = suite();
    let a = effect("github.comment", 1);
    let hard = effect("github.close_issue", 1);
    let same = || replay(vec![a.clone()], vec![a.clone()], vec![]);
    let blocks = || replay(vec![a.clone()], vec![hard.clone()], vec![]);
    let warns = || {
        replay(
            vec![a.clone()],
            vec![effect("github.comment", 2)],
            vec![
                judge("small", "unsure", 0.5),
                judge("medium", "unsure", 0.5),
                judge("large", "regressed", 0.9),
            ],
        )
    };
    // A control replay that diverged from its golden trace, and one that did not.
    let mut noisy = same();
    noisy["control"] = trace(vec![effect("github.comment", 7)]);
    let mut quiet = same();
    quiet["control"] = trace(vec![a.clone()]);
    let edits = vec![
        // R1: 2 of 3 caught (one BLOCK, one WARN).
        labelled("R1", true, vec![blocks()], "BLOCK"),
        labelled("R1", true, vec![same(), warns()], "WARN"),
        labelled("R1", true, vec![same()], "PASS"),
        // N0: 1 false block, 1 false warn, 1 pass; the controls are here.
        labelled("N0", false, vec![blocks()], "BLOCK"),
        labelled("N0", false, vec![warns(), noisy], "WARN"),
        labelled("N0", false, vec![quiet], "PASS"),
    ];
    let rates = benchmark_rates(&s, &edits);
    assert_eq!(rates.undecided, Vec::<String>::new());
    let rows: Vec<Value> = rates
        .classes
        .iter()
        .map(|c| serde_json::to_value(c).expect("row"))
        .collect();
    assert_eq!(
        rows,
        [
            json!({"class": "N0", "regression": false, "total": 3, "detected": null, "detection_rate": null, "false_blocks": 1, "false_warns": 1}),
            json!({"class": "R1", "regression": true, "total": 3, "detected": 2, "detection_rate": 2.0 / 3.0, "false_blocks": null, "false_warns": null}),
        ]
    );
    assert_eq!(
        (
            rates.noise_floor.pairs,
            rates.noise_floor.diverged,
            rates.noise_floor.rate
        ),
        (2, 1, 0.5)
    );

    let mut published: Value = json!({
        "format_version": 1, "kind": "regression_benchmark", "suite": "R01", "provenance": "simulated",
        "published_at": "2026-11-02T00:00:00Z",
        "classes": rows,
        "noise_floor": {"pairs": 2, "diverged": 1, "rate": 0.5}
    });
    published["classes"][1]["detection_rate"] = json!(0.67);
    let b: RegressionBenchmark = serde_json::from_value(published.clone()).expect("benchmark");
    let receipts = verify_benchmark("R01", &s, &edits, &b);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    // suite; 2 classes × (regression, total, detected, false blocks, false warns, rate); 3 noise figures.
    assert_eq!(receipts.len(), 1 + 2 * 6 + 3);

    // A rate written as 1.0 is checked to two decimals: 0.67 it is not.
    let mut rounded = published.clone();
    rounded["classes"][1]["detection_rate"] = json!(1.0);
    let b: RegressionBenchmark = serde_json::from_value(rounded).expect("benchmark");
    assert_eq!(
        failing(&verify_benchmark("R01", &s, &edits, &b)),
        [format!("classes[R1].detection_rate: 1 / {}", 2.0 / 3.0)]
    );
    // A class given twice would hide its first row.
    let mut twice = published.clone();
    let first = twice["classes"][1].clone();
    twice["classes"]
        .as_array_mut()
        .expect("classes")
        .insert(1, first);
    twice["classes"][1]["detected"] = json!(0);
    let b: RegressionBenchmark = serde_json::from_value(twice).expect("benchmark");
    assert_eq!(
        failing(&verify_benchmark("R01", &s, &edits, &b)),
        ["classes[R1]: published more than once / one row per class"]
    );

    published["classes"][1]["detected"] = json!(3);
    published["noise_floor"]["rate"] = json!(0.4);
    published["classes"]
        .as_array_mut()
        .expect("classes")
        .remove(0);
    let b: RegressionBenchmark = serde_json::from_value(published).expect("benchmark");
    assert_eq!(
        failing(&verify_benchmark("R01", &s, &edits, &b)),
        [
            "classes[N0]: not published / a class of the labelled edits",
            "classes[R1].detected: 3 / 2",
            "noise_floor.rate: 0.4 / 0.5"
        ]
    );
}

#[test]
fn a_verdict_dated_before_the_judge_calls_it_waited_for_fails() {
    let at = |decided: &str| {
        let mut v = blocked_verdict();
        v["decided_at"] = json!(decided);
        let e = edit(blocked(), v);
        let r = verify_skill_edit("R01", &suite(), &e, &objects());
        let receipt = r
            .iter()
            .find(|r| r.claim == "verdict.decided_at")
            .expect("a receipt")
            .clone();
        (receipt.status, receipt.recomputed)
    };
    let (s, why) = at("2026-11-01T10:00:01Z");
    assert_eq!(s, Status::Pass, "{why}");
    assert!(why.starts_with("3601 s after the edit"), "{why}");
    let (s, why) = at("2026-11-01T10:00:00.050Z");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("judges[0]'s call ended"), "{why}");
    let (s, why) = at("2026-11-01T08:00:00Z");
    assert_eq!(s, Status::Fail);
    assert_eq!(why, "before the edit was made");
}

mod guards;
mod history;
