//! Each rule of [`super`] held to its cases.

use serde_json::{json, Value};

use super::*;
use crate::model::Experiment;
use crate::verify::Status;

type Edit = fn(&mut Value);

fn experiment() -> Experiment {
    serde_json::from_value(json!({
        "format_version": 1, "kind": "experiment", "id": "E", "title": "t",
        "provenance": "simulated", "question": "q",
        "preregistration": {"log": "LOG.md", "end_marker": "x", "sha256": "0", "registered_at": "2026-01-01T00:00:00Z"},
        "grid": {"tasks": ["t"], "profiles": ["p"], "seeds": [1], "policies": ["ladder", "one", "spec", "memory"], "runs_per_cell": 1},
        "tiers": [
            {"id": "small", "label": "S", "model": "m/small"},
            {"id": "medium", "label": "M", "model": "m/medium"},
            {"id": "large", "label": "L", "model": "m/large"}
        ],
        "policies": [
            {"id": "ladder", "label": "L", "kind": "ladder", "tiers": ["small", "large"]},
            {"id": "one", "label": "O", "kind": "single", "tiers": ["large"]},
            {"id": "spec", "label": "S", "kind": "speculative", "tiers": ["small", "medium", "large"]},
            {"id": "memory", "label": "M", "kind": "tier_memory", "tiers": ["small", "medium", "large"]}
        ],
        "prices": {"version": "v", "currency": "USD", "models": {
            "m/small": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            "m/medium": {"input_per_mtok": 2.0, "output_per_mtok": 4.0},
            "m/large": {"input_per_mtok": 3.0, "output_per_mtok": 6.0}
        }},
        "limits": {"max_turns": 3, "max_run_ms": 60000, "max_output_tokens": 1000},
        "hypotheses": []
    }))
    .expect("experiment")
}

/// An attempt on `tier` starting `at` seconds into the run: one call of
/// 2 s and one turn, ending after 3 s.
fn attempt(tier: &str, at: u32, id: &str) -> Value {
    json!({
        "tier": tier,
        "started_at": format!("2026-01-02T00:00:{at:02}Z"),
        "duration_ms": 3000,
        "turns": [{"call": id, "action": {"tool": "finish", "args": {}},
                   "permission": {"decision": "allowed", "reason": "r"},
                   "result": {"ok": true}}],
        "calls": [{"request_id": id, "model_requested": format!("m/{tier}"),
                   "model_echoed": format!("m/{tier}"),
                   "started_at": format!("2026-01-02T00:00:{at:02}Z"), "latency_ms": 2000,
                   "usage": {"prompt_tokens": 100, "completion_tokens": 50, "reasoning_tokens": null,
                             "cache_hit_tokens": null, "cache_miss_tokens": null},
                   "finish_reason": "stop", "max_tokens": 1000, "prompt_tokens_reserved": 100,
                   "status": "ok"}],
        "inputs": [], "artifact": null, "checks": [], "end": {"reason": "finished"}
    })
}

fn run(policy: &str, attempts: Vec<Value>) -> Run {
    serde_json::from_value(json!({
        "format_version": 1, "kind": "run", "id": "r", "experiment": "E", "task": "t",
        "profile": "p", "seed": 1, "policy": policy, "provenance": "simulated",
        "started_at": "2026-01-02T00:00:00Z", "attempts": attempts,
        "outcome": {"passed": false, "passed_tier": null}
    }))
    .expect("run")
}

fn receipts(run: &Run, passed: &[bool]) -> Vec<Receipt> {
    let e = experiment();
    let facts = RunFacts::of(run, &e.prices);
    conduct_receipts("r.json", &e, run, passed, &facts)
}

/// The receipt named `claim`, and whether it passed.
fn status(receipts: &[Receipt], claim: &str) -> (Status, String) {
    let r = receipts
        .iter()
        .find(|r| r.claim.starts_with(claim))
        .expect("receipt");
    (r.status, r.recomputed.clone())
}

#[test]
fn a_well_formed_ladder_run_passes_all_three() {
    let r = run(
        "ladder",
        vec![attempt("small", 0, "a"), attempt("large", 3, "b")],
    );
    for receipt in receipts(&r, &[false, true]) {
        assert_eq!(receipt.status, Status::Pass, "{receipt:?}");
    }
}

#[test]
fn a_single_tier_policy_with_a_retry_fails() {
    let r = run(
        "one",
        vec![attempt("large", 0, "a"), attempt("large", 3, "b")],
    );
    let (s, why) = status(&receipts(&r, &[false, true]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("this run made 2"), "{why}");
}

#[test]
fn a_ladder_escalating_after_a_pass_or_skipping_a_tier_fails() {
    let r = run(
        "ladder",
        vec![attempt("small", 0, "a"), attempt("large", 3, "b")],
    );
    let (s, why) = status(&receipts(&r, &[true, true]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(
        why.contains("passed its checks, yet the run escalated"),
        "{why}"
    );
    let r = run("ladder", vec![attempt("large", 0, "a")]);
    assert_eq!(status(&receipts(&r, &[true]), "policy").0, Status::Fail);
    // Failing on the first tier without escalating, unless a stop ended it.
    let r = run("ladder", vec![attempt("small", 0, "a")]);
    assert_eq!(status(&receipts(&r, &[false]), "policy").0, Status::Fail);
    let mut stopped = attempt("small", 0, "a");
    stopped["end"] = json!({"reason": "budget_stop"});
    let r = run("ladder", vec![stopped]);
    assert_eq!(status(&receipts(&r, &[false]), "policy").0, Status::Pass);
}

#[test]
fn a_call_to_another_tiers_model_fails_the_policy() {
    let mut a = attempt("small", 0, "a");
    a["calls"][0]["model_requested"] = json!("m/large");
    let r = run("ladder", vec![a, attempt("large", 3, "b")]);
    let (s, why) = status(&receipts(&r, &[false, true]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("requested `m/large`"), "{why}");
}

#[test]
fn limits_hold_every_call_attempt_and_run() {
    let over_budget = |a: &mut Value| a["calls"][0]["max_tokens"] = json!(2000);
    let too_long = |a: &mut Value| a["duration_ms"] = json!(61000);
    let many_turns = |a: &mut Value| {
        let turn = a["turns"][0].clone();
        a["turns"] = json!([turn.clone(), turn.clone(), turn.clone(), turn]);
    };
    // A lost call recorded with a small budget would shrink its cost bound.
    let lost_small = |a: &mut Value| {
        let call = &mut a["calls"][0];
        call["usage"] = Value::Null;
        call["finish_reason"] = Value::Null;
        call["status"] = json!("aborted");
        call["max_tokens"] = json!(10);
    };
    for (name, edit) in [
        ("max_tokens", &over_budget as &dyn Fn(&mut Value)),
        ("run took", &too_long),
        ("turns", &many_turns),
        ("under the registered 1000", &lost_small),
    ] {
        let mut a = attempt("large", 0, "a");
        edit(&mut a);
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[true]), "limits");
        assert_eq!(s, Status::Fail, "{name}");
        assert!(why.contains(name), "{name}: {why}");
    }
}

#[test]
fn an_impossible_record_fails() {
    let cases: [(&str, Edit); 7] = [
        ("more cached than sent", |a| {
            a["calls"][0]["usage"]["cache_hit_tokens"] = json!(80);
            a["calls"][0]["usage"]["cache_write_tokens"] = json!(40);
        }),
        // A forger who inflates the hits (cheaper input) and leaves the
        // misses as they were.
        ("hits and misses that do not make the prompt", |a| {
            let prompt = a["calls"][0]["usage"]["prompt_tokens"].as_u64().unwrap();
            a["calls"][0]["usage"]["cache_hit_tokens"] = json!(prompt / 2 + 1);
            a["calls"][0]["usage"]["cache_miss_tokens"] = json!(prompt / 2);
        }),
        ("no tokens", |a| {
            a["calls"][0]["usage"]["completion_tokens"] = json!(0);
        }),
        ("too fast", |a| {
            a["calls"][0]["usage"]["completion_tokens"] = json!(900);
            a["calls"][0]["latency_ms"] = json!(1);
        }),
        ("outlives its attempt", |a| {
            a["calls"][0]["latency_ms"] = json!(5000);
        }),
        ("no request id", |a| a["calls"][0]["request_id"] = json!("")),
        ("turn of another call", |a| {
            a["turns"][0]["call"] = json!("zz");
        }),
    ];
    for (name, edit) in cases {
        let mut a = attempt("large", 0, "a");
        edit(&mut a);
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[true]), "record is possible");
        assert_eq!(s, Status::Fail, "{name}: {why}");
    }
    // Overlapping attempts of a sequential policy.
    let r = run(
        "ladder",
        vec![attempt("small", 0, "a"), attempt("large", 1, "b")],
    );
    let (s, why) = status(&receipts(&r, &[false, true]), "record is possible");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("before attempts[0] ended"), "{why}");
}

#[test]
fn a_speculative_ladder_calls_two_tiers_together_then_the_third() {
    // Together, one passes: the run passes on it, and its time is not the sum.
    let r = run(
        "spec",
        vec![attempt("small", 0, "a"), attempt("medium", 0, "b")],
    );
    for receipt in receipts(&r, &[false, true]) {
        assert_eq!(receipt.status, Status::Pass, "{receipt:?}");
    }
    let facts = RunFacts::of(&r, &experiment().prices);
    assert!(facts.passed(&[true, false]) && facts.passed(&[false, true]));
    assert_eq!(facts.passed_tier(&[false, true]), Some("medium"));
    assert_eq!(facts.wall_ms, 3000);
    // Both failed: the third, after both.
    let r = run(
        "spec",
        vec![
            attempt("small", 0, "a"),
            attempt("medium", 0, "b"),
            attempt("large", 4, "c"),
        ],
    );
    assert_eq!(
        status(&receipts(&r, &[false, false, true]), "policy").0,
        Status::Pass
    );
    // One after the other is not together.
    let r = run(
        "spec",
        vec![attempt("small", 0, "a"), attempt("medium", 4, "b")],
    );
    let (s, why) = status(&receipts(&r, &[false, true]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("did not run together"), "{why}");
    // A third tier though one passed.
    let r = run(
        "spec",
        vec![
            attempt("small", 0, "a"),
            attempt("medium", 0, "b"),
            attempt("large", 4, "c"),
        ],
    );
    assert_eq!(
        status(&receipts(&r, &[true, false, true]), "policy").0,
        Status::Fail
    );
}

#[test]
fn a_tier_memory_run_is_a_ladder_from_where_it_starts() {
    let r = run(
        "memory",
        vec![attempt("medium", 0, "a"), attempt("large", 4, "b")],
    );
    let (s, why) = status(&receipts(&r, &[false, true]), "policy");
    assert_eq!(s, Status::Pass, "{why}");
    assert!(why.contains("from `medium`"), "{why}");
    // Skipping a tier upward is no ladder.
    let r = run(
        "memory",
        vec![attempt("small", 0, "a"), attempt("large", 4, "b")],
    );
    assert_eq!(
        status(&receipts(&r, &[false, true]), "policy").0,
        Status::Fail
    );
}

#[test]
fn a_speculative_run_passed_on_the_tier_whose_answer_came_first() {
    let mut fast = attempt("medium", 0, "b");
    fast["duration_ms"] = json!(2500);
    for attempts in [
        vec![attempt("small", 0, "a"), fast.clone()],
        vec![fast.clone(), attempt("small", 0, "a")],
    ] {
        let facts = RunFacts::of(&run("spec", attempts), &experiment().prices);
        assert_eq!(
            facts.passed_tier(&[true, true]),
            Some("medium"),
            "whatever order the record lists them in"
        );
    }
}

#[test]
fn a_policy_kind_the_verifier_does_not_know_is_never_passed_unseen() {
    let mut e = experiment();
    let mut policy = e.policies[0].clone();
    policy.id = "rr".into();
    policy.kind = serde_json::from_value(json!("round_robin")).expect("an open kind");
    assert_eq!(
        serde_json::to_value(&policy.kind).expect("kind"),
        json!("round_robin")
    );
    e.policies.push(policy);
    let judge = |r: &Run| {
        let facts = RunFacts::of(r, &e.prices);
        conduct_receipts("r.json", &e, r, &[true], &facts)
    };
    let r = run("rr", vec![attempt("small", 0, "a")]);
    let (s, why) = status(&judge(&r), "policy `rr`");
    assert_eq!(s, Status::CouldNotCheck, "{why}");
    assert!(
        why.contains("`round_robin` is not one this verifier knows"),
        "{why}"
    );
    // What holds for every kind is still checked: a call on another tier's model fails.
    let mut a = attempt("small", 0, "a");
    a["calls"][0]["model_requested"] = json!("m/large");
    let (s, why) = status(&judge(&run("rr", vec![a])), "policy `rr`");
    assert_eq!(s, Status::Fail, "{why}");
}

/// An attempt whose first call (`a0`, at second `at`) failed with HTTP
/// `code` and no response, and whose second (`a1`) retries it and finishes.
fn failed_then_retried(tier: &str, at: u32, code: u16) -> Value {
    let mut a = attempt(tier, at, "a1");
    let mut failed = a["calls"][0].clone();
    failed["request_id"] = json!("a0");
    failed["latency_ms"] = json!(300);
    failed["usage"] = Value::Null;
    failed["finish_reason"] = Value::Null;
    failed["model_echoed"] = Value::Null;
    failed["status"] = json!("error");
    failed["http_status"] = json!(code);
    failed["error"] = json!("no");
    let retry = &mut a["calls"][0];
    retry["started_at"] = json!(format!("2026-01-02T00:00:{at:02}.300Z"));
    retry["latency_ms"] = json!(1500);
    retry["retry_of"] = json!("a0");
    let retry = retry.clone();
    a["calls"] = json!([failed, retry]);
    let turn = a["turns"][0].clone();
    let mut none = turn.clone();
    none["call"] = json!("a0");
    none["action"] = json!({"tool": "none", "args": null});
    none["result"] = json!({"ok": false, "text": "no response"});
    a["turns"] = json!([none, turn]);
    a
}

#[test]
fn a_call_retried_after_a_server_error_is_possible() {
    let r = run("one", vec![failed_then_retried("large", 0, 503)]);
    for receipt in receipts(&r, &[true]) {
        assert_eq!(receipt.status, Status::Pass, "{receipt:?}");
    }
    let facts = RunFacts::of(&r, &experiment().prices);
    let a = &facts.attempts[0];
    assert_eq!((a.errors, a.retries, a.empty_responses), (1, 1, 0));
    // The failed call's cost is unknown, so the run's cost is a bound.
    let cost = facts.cost().expect("priced");
    assert!(cost.high > cost.low, "{cost:?}");
}

#[test]
fn a_refused_call_sent_with_a_small_budget_keeps_to_the_limits() {
    // A call the provider refused (HTTP 4xx or 5xx) returned no tokens: the
    // budget it was sent bounds nothing, so a small one is no way to shrink
    // a cost bound. A call whose usage was lost (an abort) still is.
    for code in [400, 429, 500, 503] {
        let mut a = failed_then_retried("large", 0, code);
        a["calls"][0]["max_tokens"] = json!(10);
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[true]), "limits");
        assert_eq!(s, Status::Pass, "{code}: {why}");
    }
    let mut a = failed_then_retried("large", 0, 503);
    a["calls"][0]["max_tokens"] = json!(10);
    a["calls"][0]["status"] = json!("aborted");
    a["calls"][0]["http_status"] = Value::Null;
    a["calls"][0]["error"] = Value::Null;
    let (s, why) = status(&receipts(&run("one", vec![a]), &[true]), "limits");
    assert_eq!(s, Status::Fail, "{why}");
    assert!(why.contains("lost its usage with max_tokens 10"), "{why}");
}

#[test]
fn a_retry_that_repeats_nothing_failed_or_a_status_that_contradicts_fails() {
    let cases: [(&str, Edit); 8] = [
        ("not an earlier call of its attempt", |a| {
            a["calls"][1]["retry_of"] = json!("zz");
        }),
        ("which completed and chose an action", |a| {
            // The call it names completed and acted: not a retry.
            let mut acted = a["calls"][1].clone();
            acted["request_id"] = json!("a0");
            acted["started_at"] = json!("2026-01-02T00:00:00Z");
            acted["latency_ms"] = json!(300);
            acted["retry_of"] = Value::Null;
            a["calls"][0] = acted;
            a["turns"][0]["action"] = json!({"tool": "read", "args": {}});
        }),
        ("with another model", |a| {
            a["calls"][0]["model_requested"] = json!("m/other");
        }),
        ("yet has a response's usage", |a| {
            a["calls"][0]["usage"] = a["calls"][1]["usage"].clone();
            a["calls"][0]["model_echoed"] = json!("m/large");
            a["calls"][0]["finish_reason"] = json!("stop");
        }),
        ("ended `ok` with HTTP status 503", |a| {
            a["calls"][0]["status"] = json!("ok");
            a["calls"][0]["usage"] = a["calls"][1]["usage"].clone();
            a["calls"][0]["model_echoed"] = json!("m/large");
            a["calls"][0]["finish_reason"] = json!("stop");
        }),
        ("ended `error` with HTTP status 200", |a| {
            a["calls"][0]["http_status"] = json!(200);
        }),
        ("not a status", |a| {
            a["calls"][0]["http_status"] = json!(999);
        }),
        ("an earlier call retried already", |a| {
            // A third call retrying the same failure.
            let mut again = a["calls"][1].clone();
            again["request_id"] = json!("a2");
            again["started_at"] = json!("2026-01-02T00:00:01.900Z");
            again["latency_ms"] = json!(100);
            a["calls"].as_array_mut().expect("calls").push(again);
            let mut turn = a["turns"][1].clone();
            turn["call"] = json!("a2");
            a["turns"].as_array_mut().expect("turns").push(turn);
        }),
    ];
    for (name, edit) in cases {
        let mut a = failed_then_retried("large", 0, 503);
        edit(&mut a);
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[true]), "record is possible");
        assert_eq!(s, Status::Fail, "{name}: {why}");
        assert!(why.contains(name), "{name}: {why}");
    }
}

/// A ladder run whose first attempt was refused authentication (HTTP 401)
/// and ended in an error.
fn refused(tier: &str) -> Value {
    let mut a = failed_then_retried(tier, 0, 401);
    a["calls"] = json!([a["calls"][0].clone()]);
    a["turns"] = json!([a["turns"][0].clone()]);
    a["duration_ms"] = json!(400);
    a["end"] = json!({"reason": "error", "message": "key refused"});
    a
}

#[test]
fn a_refused_key_halts_the_run() {
    let r = run("ladder", vec![refused("small")]);
    for receipt in receipts(&r, &[false]) {
        assert_eq!(receipt.status, Status::Pass, "{receipt:?}");
    }
    // Escalating after the refusal, as if another tier could be called.
    let r = run("ladder", vec![refused("small"), attempt("large", 3, "b")]);
    let (s, why) = status(&receipts(&r, &[false, true]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("yet the run went on to attempts[1]"), "{why}");
    // Calling again in the same attempt, or ending it as though it finished.
    let mut again = failed_then_retried("small", 0, 401);
    again["end"] = json!({"reason": "error"});
    let r = run("ladder", vec![again]);
    let (s, why) = status(&receipts(&r, &[false]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("called the provider again"), "{why}");
    let mut finished = refused("small");
    finished["end"] = json!({"reason": "finished"});
    let r = run("ladder", vec![finished]);
    let (s, why) = status(&receipts(&r, &[false]), "policy");
    assert_eq!(s, Status::Fail);
    assert!(why.contains("not `error`"), "{why}");
}

#[test]
fn an_empty_reply_is_counted_and_may_be_retried() {
    let mut a = failed_then_retried("large", 0, 503);
    let empty = &mut a["calls"][0];
    empty["status"] = json!("ok");
    empty["http_status"] = Value::Null;
    empty["error"] = Value::Null;
    empty["model_echoed"] = json!("m/large");
    empty["finish_reason"] = json!("stop");
    empty["usage"] = json!({"prompt_tokens": 100, "completion_tokens": 40, "reasoning_tokens": 40,
                            "cache_hit_tokens": null, "cache_miss_tokens": null});
    let r = run("one", vec![a]);
    for receipt in receipts(&r, &[true]) {
        assert_eq!(receipt.status, Status::Pass, "{receipt:?}");
    }
    let facts = RunFacts::of(&r, &experiment().prices);
    let f = &facts.attempts[0];
    assert_eq!((f.errors, f.retries, f.empty_responses), (0, 1, 1));
    // A reply cut at its budget is a truncation, not an empty reply.
    let mut cut = r.clone();
    cut.attempts[0].calls[0].finish_reason = Some(crate::model::FinishReason::length());
    let f = &RunFacts::of(&cut, &experiment().prices).attempts[0];
    assert_eq!((f.truncations, f.empty_responses), (1, 0));
}

#[test]
fn a_failure_blamed_on_a_limit_it_never_reached_fails() {
    let cases: [(&str, Edit); 3] = [
        (
            "ended `turn_limit` after 1 turns, not at the limit of 3",
            |a| a["end"] = json!({"reason": "turn_limit"}),
        ),
        ("ended `time_limit`, yet no call timed out", |a| {
            a["end"] = json!({"reason": "time_limit"});
        }),
        (
            "ended `output_limit`, yet no call stopped on its output budget",
            |a| a["end"] = json!({"reason": "output_limit"}),
        ),
    ];
    for (needle, edit) in cases {
        let mut a = attempt("large", 0, "a");
        edit(&mut a);
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[false]), "limits");
        assert_eq!(s, Status::Fail, "{needle}");
        assert!(why.contains(needle), "{needle}: {why}");
    }
    // Cut where it says: at the turn limit, by a call that timed out, by a
    // truncated reply.
    let mut turns = attempt("large", 0, "a");
    let turn = turns["turns"][0].clone();
    turns["turns"] = json!([turn.clone(), turn.clone(), turn]);
    turns["end"] = json!({"reason": "turn_limit"});
    let mut timed_out = attempt("large", 0, "a");
    timed_out["calls"][0]["status"] = json!("timeout");
    timed_out["calls"][0]["usage"] = Value::Null;
    timed_out["calls"][0]["finish_reason"] = Value::Null;
    timed_out["calls"][0]["model_echoed"] = Value::Null;
    timed_out["end"] = json!({"reason": "time_limit"});
    let mut truncated = attempt("large", 0, "a");
    truncated["calls"][0]["finish_reason"] = json!("length");
    truncated["end"] = json!({"reason": "output_limit"});
    for a in [turns, timed_out, truncated] {
        let r = run("one", vec![a]);
        let (s, why) = status(&receipts(&r, &[false]), "limits");
        assert_eq!(s, Status::Pass, "{why}");
    }
}

/// The receipts of `run` under the test experiment with `limits` added to
/// its registered limits.
fn receipts_under(run: &Run, passed: &[bool], limits: Value) -> Vec<Receipt> {
    let mut e = serde_json::to_value(experiment()).expect("experiment");
    for (k, v) in limits.as_object().expect("limits") {
        e["limits"][k] = v.clone();
    }
    let e: Experiment = serde_json::from_value(e).expect("experiment");
    let facts = RunFacts::of(run, &e.prices);
    conduct_receipts("r.json", &e, run, passed, &facts)
}

#[test]
fn a_call_past_the_per_call_stop_or_priced_on_an_understated_prompt_fails() {
    // The large tier at $3 and $6 per million: 100 prompt tokens reserved and
    // a budget of 1,000 output tokens come to $0.0063 at worst.
    let r = run("one", vec![attempt("large", 0, "a")]);
    let (s, why) = status(
        &receipts_under(&r, &[false], json!({"max_call_usd": 0.0063})),
        "limits",
    );
    assert_eq!(s, Status::Pass, "a call at the stop was sent: {why}");
    assert!(why.starts_with("within them"), "{why}");

    let (s, why) = status(
        &receipts_under(&r, &[false], json!({"max_call_usd": 0.006})),
        "limits",
    );
    assert_eq!(s, Status::Fail);
    assert!(
        why.contains("attempts[0].calls[0] could cost $0.006300 at worst (100 prompt tokens reserved, max_tokens 1000), over the per-call stop of $0.006"),
        "{why}"
    );

    // The publisher's way past the stop: a reservation smaller than the
    // prompt that was sent, so the worst case on record fits.
    let mut a = attempt("large", 0, "a");
    a["calls"][0]["prompt_tokens_reserved"] = json!(10);
    a["calls"][0]["usage"]["prompt_tokens"] = json!(400);
    let r = run("one", vec![a]);
    let (s, why) = status(
        &receipts_under(&r, &[false], json!({"max_call_usd": 0.0063})),
        "limits",
    );
    assert_eq!(s, Status::Fail);
    assert!(
        why.contains("sent 400 prompt tokens with 10 reserved: the per-call stop was computed on less than was sent"),
        "{why}"
    );
    // Without a stop registered the reservation is only the cost bound's.
    assert_eq!(status(&receipts(&r, &[false]), "limits").0, Status::Pass);
}

#[test]
fn output_past_the_limit_or_a_stop_blamed_on_a_limit_it_did_not_reach_fails() {
    let with_artifact = |bytes: u64, end: &str| {
        let mut a = attempt("large", 0, "a");
        a["artifact"] = json!({"path": "out.txt", "sha256": "0".repeat(64), "bytes": bytes,
                               "media_type": "text/plain"});
        a["end"] = json!({"reason": end});
        run("one", vec![a])
    };
    let limit = json!({"max_output_bytes": 32768});
    let (s, why) = status(
        &receipts_under(&with_artifact(32769, "finished"), &[false], limit.clone()),
        "limits",
    );
    assert_eq!(s, Status::Fail);
    assert!(
        why.contains("attempts[0] wrote 32769 bytes of output, over the limit of 32768"),
        "{why}"
    );
    // Cut at the limit, and said so: it holds.
    let (s, why) = status(
        &receipts_under(
            &with_artifact(32768, "output_limit"),
            &[false],
            limit.clone(),
        ),
        "limits",
    );
    assert_eq!(s, Status::Pass, "{why}");
    // A failure blamed on the output limit by an attempt that wrote less.
    let (s, why) = status(
        &receipts_under(&with_artifact(1200, "output_limit"), &[false], limit),
        "limits",
    );
    assert_eq!(s, Status::Fail);
    assert!(
        why.contains("ended `output_limit`, yet no call stopped on its output budget and its output did not reach the limit"),
        "{why}"
    );
    // The registered limits are named in the receipt.
    let all = receipts_under(
        &with_artifact(10, "finished"),
        &[false],
        json!({"max_output_bytes": 32768, "max_call_usd": 0.01}),
    );
    let limits = all.iter().find(|r| r.claim == "limits").expect("limits");
    assert!(
        limits
            .recorded
            .ends_with(", $0.01 per call at worst, 32768 bytes of output per attempt"),
        "{}",
        limits.recorded
    );
}

#[test]
fn a_run_recorded_under_a_composed_policy_fails_its_policy() {
    let mut e = experiment();
    e.policies[0].composed = true;
    let r = run(
        "ladder",
        vec![attempt("small", 0, "a"), attempt("large", 3, "b")],
    );
    let facts = RunFacts::of(&r, &e.prices);
    let receipts = conduct_receipts("r.json", &e, &r, &[false, true], &facts);
    let (s, why) = status(&receipts, "policy `ladder`");
    assert_eq!(s, Status::Fail, "{why}");
    assert!(why.contains("composed from the runs of its tiers"), "{why}");
}

#[test]
fn a_run_relabelled_against_its_experiments_provenance_fails_its_provenance() {
    let mut e = experiment();
    let mut r = run("one", vec![attempt("large", 0, "a")]);
    let facts = RunFacts::of(&r, &e.prices);
    let (s, why) = status(
        &conduct_receipts("r.json", &e, &r, &[true], &facts),
        "provenance",
    );
    assert_eq!(s, Status::Pass, "{why}");
    // A simulated run relabelled as recorded, in a simulated experiment.
    r.provenance = crate::model::Provenance::Recorded;
    let receipts = conduct_receipts("r.json", &e, &r, &[true], &facts);
    let (s, why) = status(&receipts, "provenance");
    assert_eq!(s, Status::Fail, "{why}");
    assert_eq!(
        why,
        "the experiment is registered simulated: its runs are all simulated"
    );
    let relabelled = receipts
        .iter()
        .find(|x| x.claim == "provenance")
        .expect("provenance");
    assert_eq!(relabelled.recorded, "recorded");
    // Both relabelled agree.
    e.provenance = crate::model::Provenance::Recorded;
    let (s, why) = status(
        &conduct_receipts("r.json", &e, &r, &[true], &facts),
        "provenance",
    );
    assert_eq!(s, Status::Pass, "{why}");
}
