//! Each composition rule held to a cell worked out by hand.

use serde_json::json;

use super::*;
use crate::facts::RunFacts;
use crate::model::Run;
use crate::numbers::analyze;

/// Tiers small, medium and large; the grid runs each alone; the ladder,
/// the speculative ladder and tier memory are composed from those runs.
fn experiment(seeds: &[u64]) -> Experiment {
    serde_json::from_value(json!({
        "format_version": 1, "kind": "experiment", "id": "E", "title": "t",
        "provenance": "simulated", "question": "q",
        "grid": {"tasks": ["t"], "profiles": ["p"], "seeds": seeds,
                 "policies": ["only-small", "only-medium", "only-large"], "runs_per_cell": 1},
        "tiers": [
            {"id": "small", "label": "S", "model": "m/small"},
            {"id": "medium", "label": "M", "model": "m/medium"},
            {"id": "large", "label": "L", "model": "m/large"}
        ],
        "policies": [
            {"id": "only-small", "label": "S", "kind": "single", "tiers": ["small"]},
            {"id": "only-medium", "label": "M", "kind": "single", "tiers": ["medium"]},
            {"id": "only-large", "label": "L", "kind": "single", "tiers": ["large"]},
            {"id": "ladder", "label": "L", "kind": "ladder", "tiers": ["small", "medium", "large"], "composed": true},
            {"id": "spec", "label": "S", "kind": "speculative", "tiers": ["small", "medium", "large"], "composed": true},
            {"id": "memory", "label": "M", "kind": "tier_memory", "tiers": ["small", "medium", "large"], "composed": true}
        ],
        "prices": {"version": "v", "currency": "USD", "models": {
            "m/small": {"input_per_mtok": 1.0, "output_per_mtok": 0.0},
            "m/medium": {"input_per_mtok": 10.0, "output_per_mtok": 0.0},
            "m/large": {"input_per_mtok": 100.0, "output_per_mtok": 0.0}
        }},
        "limits": {"max_turns": 3, "max_run_ms": 600000, "max_output_tokens": 1000},
        "hypotheses": []
    }))
    .expect("experiment")
}

/// The run of `tier` alone in the cell of `seed`: one attempt of `seconds`,
/// 1,000 prompt tokens (so it costs $0.001, $0.01 or $0.1).
fn run(tier: &str, seed: u64, seconds: u64) -> RunFacts {
    let record = json!({
        "format_version": 1, "kind": "run", "id": format!("s{seed}-{tier}"), "experiment": "E",
        "task": "t", "profile": "p", "seed": seed, "policy": format!("only-{tier}"),
        "provenance": "simulated", "started_at": "2026-01-02T00:00:00Z",
        "attempts": [{
            "tier": tier, "started_at": "2026-01-02T00:00:00Z", "duration_ms": seconds * 1000,
            "turns": [],
            "calls": [{"request_id": format!("req-{seed}-{tier}"), "model_requested": format!("m/{tier}"),
                       "model_echoed": format!("m/{tier}"), "started_at": "2026-01-02T00:00:00Z",
                       "latency_ms": 1000,
                       "usage": {"prompt_tokens": 1000, "completion_tokens": 10, "reasoning_tokens": null,
                                 "cache_hit_tokens": null, "cache_miss_tokens": null},
                       "finish_reason": "stop", "max_tokens": 1000, "prompt_tokens_reserved": 1000,
                       "status": "ok"}],
            "inputs": [], "artifact": null, "checks": [], "end": {"reason": "finished"}
        }],
        "outcome": {"passed": false, "passed_tier": null}
    });
    let run: Run = serde_json::from_value(record).expect("run");
    RunFacts::of(&run, &experiment(&[1]).prices)
}

const PASS: &[bool] = &[true];
const FAIL: &[bool] = &[false];

fn judged<'a>(runs: &'a [(RunFacts, &'a [bool])]) -> Vec<JudgedRun<'a>> {
    runs.iter()
        .map(|(run, passed)| JudgedRun {
            run,
            attempts_passed: passed,
        })
        .collect()
}

fn composition<'a>(e: &'a Experiment, policy: &str, runs: &[JudgedRun<'a>]) -> Composition<'a> {
    let p = e.policies.iter().find(|p| p.id == policy).expect("policy");
    compose(e, p, runs).expect("priced").expect("composed")
}

fn used<'a>(cell: &'a ComposedCell<'a>) -> Vec<&'a str> {
    cell.used.iter().map(|j| j.run.place.id.as_str()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn a_ladder_pays_for_and_waits_on_each_tier_it_tries() {
    let e = experiment(&[1]);
    let runs = [
        (run("small", 1, 20), FAIL),
        (run("medium", 1, 10), PASS),
        (run("large", 1, 5), PASS),
    ];
    let runs = judged(&runs);
    let c = composition(&e, "ladder", &runs);
    let cell = &c.cells[0];
    assert_eq!(used(cell), ["s1-small", "s1-medium"]);
    assert_eq!(cell.unused.len(), 1);
    assert!(cell.passed);
    assert!(close(cell.seconds, 30.0), "{}", cell.seconds);
    assert!(
        close(cell.cost.low, 0.011) && cell.cost.is_exact(),
        "{:?}",
        cell.cost
    );
}

#[test]
fn a_speculative_ladder_answers_with_the_first_of_its_two_to_pass_and_pays_for_both() {
    let e = experiment(&[1, 2, 3, 4]);
    let runs = [
        // Seed 1: the small tier passes fast, the medium fails slowly:
        // the small tier's answer, as soon as it came.
        (run("small", 1, 4), PASS),
        (run("medium", 1, 12), FAIL),
        (run("large", 1, 5), PASS),
        // Seed 2: both fail; then the large tier, after the slower.
        (run("small", 2, 20), FAIL),
        (run("medium", 2, 8), FAIL),
        (run("large", 2, 5), FAIL),
        // Seed 3: the small tier reasons until the run limit and fails,
        // the medium passes early: its answer, without the wait.
        (run("small", 3, 180), FAIL),
        (run("medium", 3, 9), PASS),
        (run("large", 3, 5), PASS),
        // Seed 4: both pass; the quicker one answers.
        (run("small", 4, 30), PASS),
        (run("medium", 4, 11), PASS),
        (run("large", 4, 5), PASS),
    ];
    let runs = judged(&runs);
    let c = composition(&e, "spec", &runs);
    assert_eq!(used(&c.cells[0]), ["s1-small", "s1-medium"]);
    assert!(c.cells[0].passed);
    assert!(close(c.cells[0].seconds, 4.0), "{}", c.cells[0].seconds);
    assert!(close(c.cells[0].cost.low, 0.011));
    assert_eq!(used(&c.cells[1]), ["s2-small", "s2-medium", "s2-large"]);
    assert!(!c.cells[1].passed);
    assert!(close(c.cells[1].seconds, 25.0));
    assert!(close(c.cells[1].cost.low, 0.111));
    assert_eq!(used(&c.cells[2]), ["s3-small", "s3-medium"]);
    assert!(c.cells[2].passed);
    assert!(close(c.cells[2].seconds, 9.0), "{}", c.cells[2].seconds);
    assert!(close(c.cells[2].cost.low, 0.011), "both are paid for");
    assert!(close(c.cells[3].seconds, 11.0), "{}", c.cells[3].seconds);
    // The plain ladder waits on every tier it takes.
    let ladder = composition(&e, "ladder", &runs);
    assert!(close(ladder.cells[2].seconds, 189.0));
}

#[test]
fn tier_memory_starts_where_the_task_last_passed_in_the_run_order() {
    let e = experiment(&[1, 2, 3]);
    let runs = [
        (run("small", 1, 20), FAIL),
        (run("medium", 1, 10), PASS),
        (run("large", 1, 5), PASS),
        // Seed 2 starts on medium, so the small tier's pass is not used.
        (run("small", 2, 20), PASS),
        (run("medium", 2, 10), FAIL),
        (run("large", 2, 5), PASS),
        // Seed 3 starts where seed 2 passed: large.
        (run("small", 3, 20), PASS),
        (run("medium", 3, 10), PASS),
        (run("large", 3, 5), FAIL),
    ];
    let runs = judged(&runs);
    let c = composition(&e, "memory", &runs);
    let order: Vec<Vec<&str>> = c.cells.iter().map(used).collect();
    assert_eq!(
        order,
        [
            vec!["s1-small", "s1-medium"],
            vec!["s2-medium", "s2-large"],
            vec!["s3-large"]
        ]
    );
    assert_eq!(
        c.cells.iter().map(|c| c.passed).collect::<Vec<_>>(),
        [true, true, false]
    );
    // The plain ladder, from the small tier each time, passes all three.
    let ladder = composition(&e, "ladder", &runs);
    assert!(ladder.cells.iter().all(|c| c.passed));
}

#[test]
fn a_cell_missing_any_tier_run_is_not_composed_even_where_a_cheaper_tier_passed() {
    let e = experiment(&[1, 2]);
    let runs = [
        (run("small", 1, 20), PASS),
        (run("medium", 1, 10), PASS),
        // Seed 1 has no large run; seed 2 has every tier.
        (run("small", 2, 20), FAIL),
        (run("medium", 2, 10), FAIL),
        (run("large", 2, 5), PASS),
    ];
    let runs = judged(&runs);
    let c = composition(&e, "ladder", &runs);
    assert_eq!(c.cells.len(), 1);
    assert_eq!(c.cells[0].seed, 2);
    assert_eq!(
        c.incomplete,
        [IncompleteCell {
            task: "t",
            profile: "p",
            seed: 1,
            missing: "large"
        }]
    );
    // The analysis counts the composed cells and names how many were not.
    let a = analyze(&e, &runs).expect("priced");
    let ladder = a
        .policies
        .iter()
        .find(|p| p.policy == "ladder")
        .expect("ladder");
    assert_eq!((ladder.runs, ladder.incomplete_cells), (1, 1));
    assert!(close(ladder.pass_rate_pct, 100.0));
    assert!(close(ladder.mean_time_s, 35.0));
    // The tier policies keep their own runs.
    let small = a
        .policies
        .iter()
        .find(|p| p.policy == "only-small")
        .expect("small");
    assert_eq!((small.runs, small.incomplete_cells), (2, 0));
}

#[test]
fn a_composed_policy_with_no_runs_of_a_tier_has_no_figures() {
    let mut e = experiment(&[1]);
    e.grid.policies.retain(|p| p != "only-large");
    let runs = [
        (run("small", 1, 20), PASS),
        (run("medium", 1, 10), PASS),
        (run("large", 1, 5), PASS),
    ];
    let runs = judged(&runs);
    let c = composition(&e, "ladder", &runs);
    assert!(c.cells.is_empty());
    assert_eq!(c.incomplete[0].missing, "large");
    let a = analyze(&e, &runs).expect("priced");
    assert!(a.policies.iter().all(|p| p.policy != "ladder"));
}

#[test]
fn a_policy_not_marked_composed_is_not_composed() {
    let mut e = experiment(&[1]);
    for p in &mut e.policies {
        p.composed = false;
    }
    let runs = [(run("small", 1, 20), PASS)];
    let runs = judged(&runs);
    let p = e
        .policies
        .iter()
        .find(|p| p.id == "ladder")
        .expect("ladder");
    assert!(compose(&e, p, &runs).expect("priced").is_none());
}
