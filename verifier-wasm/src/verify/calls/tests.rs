//! Each rule of [`super`] held to its cases: a copy with every id renamed
//! and every time shifted is caught, an honest rerun that shares text is not.

use serde_json::{json, Value};

use super::*;
use crate::facts::RunFacts;
use crate::model::{PriceTable, Run};

/// A run `id` of seed `seed` whose one attempt starts at `start` (seconds
/// into the day) and makes one call per `(completion tokens, latency)`,
/// with request ids `<prefix>-<n>`; its artifact and transcript are fixed.
fn record(id: &str, seed: u64, start: u32, prefix: &str, calls: &[(u64, u64)]) -> Value {
    let at = |s: u32| {
        format!(
            "2026-01-02T{:02}:{:02}:{:02}Z",
            s / 3600,
            s / 60 % 60,
            s % 60
        )
    };
    let mut t = start;
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(n, (completion, latency))| {
            let call = json!({
                "request_id": format!("{prefix}-{n}"), "model_requested": "m/large",
                "model_echoed": "m/large", "started_at": at(t), "latency_ms": latency,
                "usage": {"prompt_tokens": 1000 + 100 * n as u64, "completion_tokens": completion,
                          "reasoning_tokens": null, "cache_hit_tokens": null, "cache_miss_tokens": null},
                "finish_reason": "stop", "max_tokens": 1000, "prompt_tokens_reserved": 1000,
                "status": "ok"
            });
            t += 10;
            call
        })
        .collect();
    let turns: Vec<Value> = (0..calls.len())
        .map(|n| {
            json!({"call": format!("{prefix}-{n}"), "action": {"tool": "finish", "args": {}},
                   "permission": {"decision": "allowed", "reason": "ok"},
                   "result": {"ok": true, "text": "the same text in every run"}})
        })
        .collect();
    json!({
        "format_version": 1, "kind": "run", "id": id, "experiment": "E", "task": "t",
        "profile": "p", "seed": seed, "policy": "one", "provenance": "simulated",
        "started_at": at(start),
        "attempts": [{
            "tier": "large", "started_at": at(start), "duration_ms": 10_000 * calls.len() as u64,
            "turns": turns, "calls": calls,
            "messages": [{"role": "assistant", "text": "the same reply"}],
            "inputs": [], "artifact": {"path": "out.json", "sha256": "a".repeat(64), "bytes": 10, "media_type": "application/json"},
            "checks": [], "end": {"reason": "finished"}
        }],
        "outcome": {"passed": true, "passed_tier": "large"}
    })
}

fn facts(record: Value) -> RunFacts {
    let run: Run = serde_json::from_value(record).expect("run");
    let prices: PriceTable =
        serde_json::from_value(json!({"version": "v", "currency": "USD", "models": {}}))
            .expect("prices");
    RunFacts::of(&run, &prices)
}

fn found(runs: &[&RunFacts]) -> Vec<String> {
    reused_calls("E", runs.iter().copied())
        .iter()
        .map(|r| {
            format!(
                "{}: {}: {}: {}",
                r.subject, r.claim, r.recorded, r.recomputed
            )
        })
        .collect()
}

const CALLS: [(u64, u64); 4] = [(120, 2_311), (340, 4_102), (95, 1_877), (410, 5_023)];

#[test]
fn a_run_holds_its_ids_its_stretches_and_its_attempts() {
    let a = facts(record("a", 1, 0, "a", &CALLS));
    let count = |held: Held| a.prints.keys.iter().filter(|p| p.held == held).count();
    assert_eq!(a.prints.calls, 4);
    assert_eq!(count(Held::Request), 4);
    assert_eq!(count(Held::Response), 0, "no call was recorded on the wire");
    assert_eq!(count(Held::Stretch), 4 - STRETCH + 1);
    assert_eq!(count(Held::Attempt), 1);
    assert_eq!(std::mem::size_of::<Entry>(), 16);
}

#[test]
fn a_copy_with_every_id_renamed_and_every_time_shifted_fails_naming_both_runs() {
    let a = facts(record("a", 1, 0, "a", &CALLS));
    // Another cell, an hour later, every request id new: what the calls did is the same.
    let copy = facts(record("b", 2, 3600, "forged", &CALLS));
    // Which is the copy the records cannot say: each run is named, with the other.
    assert_eq!(
        found(&[&a, &copy]),
        [
            "E/runs/a.json: not a copy of another run: calls 1 to 3 of 4: one run recorded twice, here and as E/runs/b.json: 3 calls in a row with the same usage and latency, call for call, as its calls from call 1",
            "E/runs/b.json: not a copy of another run: calls 1 to 3 of 4: one run recorded twice, here and as E/runs/a.json: 3 calls in a row with the same usage and latency, call for call, as its calls from call 1"
        ]
    );
    // Ids kept, it is a call on record twice, named first.
    let same_ids = facts(record("b", 2, 3600, "a", &CALLS));
    assert_eq!(
        found(&[&a, &same_ids])[1],
        "E/runs/b.json: calls on record once: call 1 of 4: same request id as a call of E/runs/a.json"
    );
    // A short run (fewer calls than a stretch) copied keeps its attempt.
    let short = facts(record("a", 1, 0, "a", &CALLS[..2]));
    let copy = facts(record("b", 2, 3600, "forged", &CALLS[..2]));
    assert_eq!(
        found(&[&short, &copy])[1],
        "E/runs/b.json: not a copy of another run: attempt 1: one run recorded twice, here and as E/runs/a.json: the same artifact, transcript, usage and latencies as its attempt 1"
    );
}

#[test]
fn a_stretch_of_the_threshold_fails_and_one_call_shorter_passes() {
    let a = facts(record("a", 1, 0, "a", &CALLS));
    // Calls 2 to 4 of a, after a call of its own: three in a row.
    let mut calls = CALLS;
    calls[0] = (777, 3_333);
    let three = facts(record("b", 2, 3600, "b", &calls));
    let three = found(&[&a, &three]);
    assert_eq!(three.len(), 2, "{three:?}");
    assert!(
        three[0].contains("calls 2 to 4 of 4: one run recorded twice, here and as E/runs/b.json"),
        "{three:?}"
    );
    assert!(
        three[1].contains("calls 2 to 4 of 4: one run recorded twice, here and as E/runs/a.json"),
        "{three:?}"
    );
    assert!(three[1].ends_with("from call 2"), "{three:?}");
    // Only two in a row agree (and the attempt is not the same): no copy.
    calls[2] = (96, 1_877);
    let two = facts(record("b", 2, 3600, "b", &calls));
    assert_eq!(found(&[&a, &two]), Vec::<String>::new());
}

#[test]
fn an_honest_deterministic_rerun_that_shares_its_text_passes() {
    // The same artifact, transcript and model outputs (so the same usage),
    // but calls of its own: new ids, other latencies.
    let a = facts(record("a", 1, 0, "a", &CALLS));
    let rerun: Vec<(u64, u64)> = CALLS.iter().map(|(c, l)| (*c, l + 37)).collect();
    let rerun = facts(record("b", 2, 3600, "b", &rerun));
    assert_eq!(found(&[&a, &rerun]), Vec::<String>::new());
    // Nor is a run compared with itself.
    assert_eq!(found(&[&a]), Vec::<String>::new());
}

#[test]
fn a_response_body_is_on_record_once() {
    let wire = |id: &str, prefix: &str, latency: u64| {
        let mut r = record(id, 1, 0, prefix, &[(120, latency)]);
        r["attempts"][0]["calls"][0]["wire"] = json!({
            "request_sha256": "b".repeat(64), "response_sha256": "c".repeat(64), "first_byte_ms": 80
        });
        r["attempts"][0]["artifact"] = json!({"path": "out.json", "sha256": id.repeat(64), "bytes": 10, "media_type": "application/json"});
        facts(r)
    };
    let a = wire("a", "a", 1_000);
    let b = wire("b", "renamed", 1_500);
    assert_eq!(
        found(&[&a, &b]),
        [
            "E/runs/a.json: calls on record once: call 1 of 1: same response body (its SHA-256) as a call of E/runs/b.json",
            "E/runs/b.json: calls on record once: call 1 of 1: same response body (its SHA-256) as a call of E/runs/a.json"
        ]
    );
}

#[test]
fn across_groups_only_repeats_of_another_group_are_named() {
    let a = facts(record("a", 1, 0, "a", &CALLS));
    let b = facts(record("b", 2, 3600, "forged", &CALLS));
    let across = reused_across([("E1", vec![&a]), ("E2", vec![&b])]);
    assert_eq!(across.len(), 2);
    assert_eq!(across[1].subject, "E2/runs/b.json");
    assert!(
        across[1].recomputed.contains("E1/runs/a.json"),
        "{}",
        across[1].recomputed
    );
    assert!(reused_across([("E1", vec![&a, &b])]).is_empty());
}

#[test]
fn prints_cross_as_bytes_and_bad_bytes_are_refused() {
    let a = facts(record("a", 1, 0, "a", &CALLS));
    let site = SitePrints {
        runs: vec![("E/runs/a.json".to_string(), a.prints.clone())],
    };
    let bytes = site.to_bytes();
    assert_eq!(SitePrints::from_bytes(&bytes), Ok(site));
    assert_eq!(SitePrints::from_bytes(&[]), Ok(SitePrints::default()));
    let err = SitePrints::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(err.contains("end early"), "{err}");
}

/// The index a root holds over a million runs in ten shards, each run of
/// twelve answered calls in one attempt (the simulator's runs average
/// twelve turns): its bytes, measured. Run by hand:
/// `cargo nextest run -p receipts-verifier --run-ignored only -E 'test(/a_million_runs/)' --no-capture`.
#[test]
#[ignore = "a million runs, to measure by hand"]
fn a_million_runs_in_ten_shards_fit_the_index() {
    let mut index = CallIndex::default();
    let mut n = 0u64;
    let mut key = || {
        n += 1;
        digest(Held::Request, &n.to_le_bytes())
    };
    for shard in 0..10 {
        let group = format!("shard-{shard}");
        for run in 0..100_000 {
            let mut keys = Vec::with_capacity(23);
            keys.extend((0..12).map(|at| Print {
                held: Held::Request,
                at,
                key: key(),
            }));
            keys.extend((0..10).map(|at| Print {
                held: Held::Stretch,
                at,
                key: key(),
            }));
            keys.push(Print {
                held: Held::Attempt,
                at: 0,
                key: key(),
            });
            let name = format!("{group}/data/E{shard:02}/runs/E{shard:02}-invoice-cleanup-careful-s{run}-ladder.json");
            index.add(&group, &name, &Prints { calls: 12, keys });
        }
        index.seal();
    }
    let bytes = index.bytes();
    eprintln!(
        "{} keys of 1,000,000 runs: {bytes} bytes ({} a run)",
        index.len(),
        bytes / 1_000_000
    );
    assert!(bytes < 512 << 20, "{bytes}");
    assert!(index.finish(|a, b| a != b).is_empty());
}
