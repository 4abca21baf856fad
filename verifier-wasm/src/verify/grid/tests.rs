//! Each rule of [`super`] held to its cases.

use serde_json::json;

use super::*;
use crate::model::Run;
use crate::verify::{reused_across, Status};

fn experiment(policies: &[&str]) -> Experiment {
    serde_json::from_value(json!({
        "format_version": 1, "kind": "experiment", "id": "E", "title": "t",
        "provenance": "simulated", "question": "q",
        "preregistration": {"log": "LOG.md", "end_marker": "x", "sha256": "0", "registered_at": "2026-01-01T00:00:00Z"},
        "grid": {"tasks": ["t"], "profiles": ["p"], "seeds": [1, 2], "policies": policies, "runs_per_cell": 1},
        "tiers": [
            {"id": "small", "label": "S", "model": "m/small"},
            {"id": "large", "label": "L", "model": "m/large"}
        ],
        "policies": [
            {"id": "ladder", "label": "L", "kind": "ladder", "tiers": ["small", "large"]},
            {"id": "one", "label": "O", "kind": "single", "tiers": ["large"]}
        ],
        "prices": {"version": "v", "currency": "USD", "models": {
            "m/small": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            "m/large": {"input_per_mtok": 3.0, "output_per_mtok": 6.0}
        }},
        "limits": {"max_turns": 3, "max_run_ms": 60000, "max_output_tokens": 1000},
        "hypotheses": []
    }))
    .expect("experiment")
}

/// A run of cell (seed, policy) with one call starting at minute `at`.
fn run(id: &str, seed: u64, policy: &str, at: u32, replaces: Option<&str>) -> RunFacts {
    let mut record = json!({
        "format_version": 1, "kind": "run", "id": id, "experiment": "E", "task": "t",
        "profile": "p", "seed": seed, "policy": policy, "provenance": "simulated",
        "started_at": format!("2026-01-02T00:{at:02}:00Z"),
        "attempts": [{
            "tier": "large", "started_at": format!("2026-01-02T00:{at:02}:00Z"), "duration_ms": 3000,
            "turns": [],
            "calls": [{"request_id": format!("req-{id}"), "model_requested": "m/large",
                       "model_echoed": "m/large", "started_at": format!("2026-01-02T00:{at:02}:00Z"),
                       "latency_ms": 2000 + seed * 31 + u64::from(at),
                       "usage": {"prompt_tokens": 100, "completion_tokens": 50, "reasoning_tokens": null,
                                 "cache_hit_tokens": null, "cache_miss_tokens": null},
                       "finish_reason": "stop", "max_tokens": 1000, "prompt_tokens_reserved": 100,
                       "status": "ok"}],
            "inputs": [], "artifact": null, "checks": [], "end": {"reason": "finished"}
        }],
        "outcome": {"passed": true, "passed_tier": "large"}
    });
    if let Some(old) = replaces {
        record["replaces"] = json!(old);
    }
    let run: Run = serde_json::from_value(record).expect("run");
    RunFacts::of(&run, &experiment(&[]).prices)
}

fn findings(e: &Experiment, runs: &[RunFacts], deviations: Option<&Deviations>) -> GridFindings {
    let passed = [true];
    let judged: Vec<JudgedRun<'_>> = runs
        .iter()
        .map(|run| JudgedRun {
            run,
            attempts_passed: &passed,
        })
        .collect();
    grid_receipts("E", e, &judged, deviations)
}

fn failing(f: &GridFindings) -> Vec<String> {
    f.receipts
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| format!("{}: {}: {}", r.subject, r.claim, r.recomputed))
        .collect()
}

fn deviations(list: serde_json::Value) -> Deviations {
    serde_json::from_value(json!({
        "format_version": 1, "kind": "deviations", "experiment": "E", "deviations": list
    }))
    .expect("deviations")
}

#[test]
fn a_complete_grid_passes_and_a_missing_or_doubled_cell_fails() {
    let e = experiment(&["one"]);
    let full = [run("a", 1, "one", 1, None), run("b", 2, "one", 2, None)];
    let f = findings(&e, &full, None);
    assert!(failing(&f).is_empty(), "{:?}", failing(&f));
    assert!(f.incomplete.is_empty());

    let f = findings(&e, &full[..1], None);
    assert_eq!(failing(&f), ["E/experiment.json: grid cell t · p · seed 2 · one: no run counted in the primary analysis"]);
    assert!(f.incomplete.contains("one"));

    let doubled = [
        full[0].clone(),
        full[1].clone(),
        run("c", 2, "one", 3, None),
    ];
    let f = findings(&e, &doubled, None);
    assert_eq!(
        failing(&f),
        ["E/experiment.json: grid cell t · p · seed 2 · one: 2 counted: b, c"]
    );
}

#[test]
fn a_rerun_needs_a_deviation_logged_before_it_in_its_own_cell() {
    let e = experiment(&["one"]);
    let runs = [
        run("a", 1, "one", 1, None),
        run("b", 2, "one", 2, None),
        run("b-rerun", 2, "one", 5, Some("b")),
    ];
    assert_eq!(
        failing(&findings(&e, &runs, None)),
        ["E/runs/b-rerun.json: declared rerun: no rerun deviation declares it"]
    );
    let declared = deviations(
        json!([{"id": "D1", "logged_at": "2026-01-02T00:04:00Z", "kind": "rerun", "reason": "r", "runs": ["b-rerun"]}]),
    );
    assert!(failing(&findings(&e, &runs, Some(&declared))).is_empty());
    let late = deviations(
        json!([{"id": "D1", "logged_at": "2026-01-02T00:06:00Z", "kind": "rerun", "reason": "r", "runs": ["b-rerun"]}]),
    );
    assert_eq!(
        failing(&findings(&e, &runs, Some(&late))),
        ["E/deviations.json: deviation D1: run `b-rerun` started before it was logged"]
    );
    let elsewhere = [
        runs[0].clone(),
        runs[1].clone(),
        run("b-rerun", 1, "one", 5, Some("b")),
    ];
    let f = findings(&e, &elsewhere, Some(&declared));
    assert!(
        failing(&f)
            .iter()
            .any(|l| l.contains("the replaced run is of another cell")),
        "{:?}",
        failing(&f)
    );
}

#[test]
fn a_stopped_study_lists_the_cells_not_run_and_leaves_them_undecided() {
    let e = experiment(&["one"]);
    let stop = deviations(
        json!([{"id": "D1", "logged_at": "2026-01-02T00:03:00Z", "kind": "stop", "reason": "the ledger failed closed"}]),
    );
    let f = findings(&e, &[run("a", 1, "one", 1, None)], Some(&stop));
    assert!(failing(&f).is_empty(), "{:?}", failing(&f));
    assert!(f.incomplete.contains("one"));
    let grid = f.receipts.iter().find(|r| r.claim == "grid").expect("grid");
    assert!(
        grid.recomputed.contains("D1 stopped the study"),
        "{}",
        grid.recomputed
    );
    assert!(
        grid.recomputed
            .contains("1 of 2 cells ran; ran: t · p · seed 1 · one"),
        "{}",
        grid.recomputed
    );
    // No run after the stop.
    let f = findings(
        &e,
        &[run("a", 1, "one", 1, None), run("b", 2, "one", 9, None)],
        Some(&stop),
    );
    assert!(
        failing(&f)
            .iter()
            .any(|l| l.contains("b.json: started before the study stopped")),
        "{:?}",
        failing(&f)
    );
}

#[test]
fn a_resumed_study_runs_on_after_its_resume_and_only_its_last_stop_excuses_cells() {
    let e = experiment(&["one"]);
    let stop = json!({"id": "D1", "logged_at": "2026-01-02T00:03:00Z", "kind": "stop", "reason": "the ledger failed closed"});
    let resume = json!({"id": "D2", "logged_at": "2026-01-02T00:05:00Z", "kind": "resume", "reason": "a fresh ledger"});
    let again = json!({"id": "D3", "logged_at": "2026-01-02T00:07:00Z", "kind": "stop", "reason": "it failed closed again"});
    let a = run("a", 1, "one", 1, None);
    // Stopped, resumed, and every cell ran: the grid is whole.
    let listed = deviations(json!([stop.clone(), resume.clone()]));
    let f = findings(&e, &[a.clone(), run("b", 2, "one", 6, None)], Some(&listed));
    assert!(failing(&f).is_empty(), "{:?}", failing(&f));
    assert!(f.incomplete.is_empty());
    // A run that started while the study was stopped fails, naming both.
    let f = findings(&e, &[a.clone(), run("b", 2, "one", 4, None)], Some(&listed));
    assert_eq!(
        failing(&f),
        ["E/runs/b.json: started before the study stopped: D1 stopped the study at 2026-01-02T00:03:00Z; D2 resumed it at 2026-01-02T00:05:00Z"],
    );
    // Stopped again after the resume: the last stop excuses the cells not
    // run, and the receipt tells the earlier stop and its resume.
    let listed = deviations(json!([stop.clone(), resume.clone(), again]));
    let f = findings(&e, std::slice::from_ref(&a), Some(&listed));
    assert!(failing(&f).is_empty(), "{:?}", failing(&f));
    assert!(f.incomplete.contains("one"));
    let grid = f.receipts.iter().find(|r| r.claim == "grid").expect("grid");
    assert!(
        grid.recomputed.starts_with("incomplete: D3 stopped the study (it failed closed again); D1 stopped it and D2 resumed it; 1 of 2 cells ran"),
        "{}",
        grid.recomputed
    );
    // Resumed and never stopped again: no stop excuses a cell not run.
    let listed = deviations(json!([stop.clone(), resume.clone()]));
    let f = findings(&e, std::slice::from_ref(&a), Some(&listed));
    assert!(
        failing(&f)
            .iter()
            .any(|l| l.contains("grid cell t · p · seed 2 · one")),
        "{:?}",
        failing(&f)
    );
}

#[test]
fn a_resume_that_takes_up_no_stopped_study_fails_and_reopens_nothing() {
    let e = experiment(&["one"]);
    // A resume logged before the stop, as a publisher would to pass off
    // the runs after the stop.
    let listed = deviations(json!([
        {"id": "D1", "logged_at": "2026-01-02T00:02:00Z", "kind": "resume", "reason": "a fresh ledger"},
        {"id": "D2", "logged_at": "2026-01-02T00:03:00Z", "kind": "stop", "reason": "the ledger failed closed"}
    ]));
    let f = findings(
        &e,
        &[run("a", 1, "one", 1, None), run("b", 2, "one", 9, None)],
        Some(&listed),
    );
    let failed = failing(&f);
    assert!(
        failed.iter().any(|l| l.starts_with("E/deviations.json: deviation D1: a resume takes up a stopped study, and the study was not stopped")),
        "{failed:?}"
    );
    assert!(
        failed
            .iter()
            .any(|l| l.contains("b.json: started before the study stopped")
                && l.ends_with("D2 stopped the study at 2026-01-02T00:03:00Z")),
        "{failed:?}"
    );
    // Two resumes of one stop: the second takes up nothing.
    let listed = deviations(json!([
        {"id": "D1", "logged_at": "2026-01-02T00:03:00Z", "kind": "stop", "reason": "the ledger failed closed"},
        {"id": "D2", "logged_at": "2026-01-02T00:05:00Z", "kind": "resume", "reason": "a fresh ledger"},
        {"id": "D3", "logged_at": "2026-01-02T00:06:00Z", "kind": "resume", "reason": "again"}
    ]));
    let f = findings(
        &e,
        &[run("a", 1, "one", 1, None), run("b", 2, "one", 9, None)],
        Some(&listed),
    );
    assert_eq!(failing(&f).len(), 1, "{:?}", failing(&f));
    assert!(
        failing(&f)[0].starts_with("E/deviations.json: deviation D3:"),
        "{:?}",
        failing(&f)
    );
}

#[test]
fn a_call_on_record_twice_or_a_copied_run_fails_within_and_across_experiments() {
    let e = experiment(&["one"]);
    let a = run("a", 1, "one", 1, None);
    let mut b = run("b", 2, "one", 2, None);
    b.prints = a.prints.clone();
    // Each run of the two is named, with the other.
    let f = findings(&e, &[a.clone(), b.clone()], None);
    assert_eq!(failing(&f).len(), 2, "{:?}", failing(&f));
    assert!(failing(&f)[1].starts_with("E/runs/b.json: calls on record once"));
    // Under another request id, the attempt is still the same: a copy.
    b.prints.keys[0].key = [7; 16];
    let f = findings(&e, &[a.clone(), b.clone()], None);
    assert_eq!(failing(&f).len(), 2, "{:?}", failing(&f));
    assert!(
        failing(&f)[1].starts_with(
            "E/runs/b.json: not a copy of another run: one run recorded twice, here and as E/runs/a.json"
        ),
        "{:?}",
        failing(&f)
    );
    let across = reused_across([("E1", vec![&a]), ("E2", vec![&b])]);
    assert_eq!(across.len(), 2);
    assert!(
        across[1].recomputed.contains("E1/runs/a.json"),
        "{}",
        across[1].recomputed
    );
}

#[test]
fn a_ladder_must_try_its_tiers_cheapest_first() {
    let mut e = experiment(&["ladder"]);
    let order = |e: &Experiment| ladder_order("x", e)[0].status;
    assert_eq!(order(&e), Status::Pass);
    e.policies[0].tiers = vec!["large".into(), "small".into()];
    assert_eq!(order(&e), Status::Fail);
    // Mixed prices (the later tier dearer on output only) have no order to
    // break; a later tier cheaper on one price and equal on the other does.
    let price = |e: &mut Experiment, model: &str, input: f64, output: f64| {
        let p = e.prices.models.get_mut(model).expect("priced");
        (p.input_per_mtok, p.output_per_mtok) = (input, output);
    };
    price(&mut e, "m/small", 1.0, 8.0);
    assert_eq!(order(&e), Status::Pass, "mixed prices");
    price(&mut e, "m/small", 3.0, 2.0);
    assert_eq!(order(&e), Status::Fail, "cheaper on output, equal on input");
}

#[test]
fn tier_memory_starts_where_the_task_last_passed() {
    let mut e = experiment(&["memory"]);
    e.policies.push(crate::model::Policy {
        id: "memory".into(),
        label: "M".into(),
        kind: PolicyKind::TierMemory,
        tiers: vec!["small".into(), "large".into()],
        composed: false,
    });
    let on = |mut facts: RunFacts, tier: &str| {
        facts.attempts[0].tier = tier.into();
        facts
    };
    let memory = |f: &GridFindings| {
        f.receipts
            .iter()
            .find(|r| r.claim.contains("starts where the task last passed"))
            .cloned()
            .expect("memory receipt")
    };
    // The first run starts on the first tier and passes there; so must the next.
    let a = on(run("a", 1, "memory", 1, None), "small");
    let b = on(run("b", 2, "memory", 2, None), "small");
    assert_eq!(
        memory(&findings(&e, &[a.clone(), b], None)).status,
        Status::Pass
    );
    let b = on(run("b", 2, "memory", 2, None), "large");
    let receipt = memory(&findings(&e, &[a, b], None));
    assert_eq!(receipt.status, Status::Fail);
    assert!(
        receipt.recomputed.starts_with("b started on `large`"),
        "{}",
        receipt.recomputed
    );
}

#[test]
fn a_composed_policy_whose_tier_did_not_run_every_cell_is_incomplete_too() {
    let mut e = experiment(&["one"]);
    let mut composed = e.policies[0].clone();
    composed.id = "composed".into();
    composed.tiers = vec!["large".into()];
    composed.composed = true;
    e.policies.push(composed);
    let stop = deviations(
        json!([{"id": "D1", "logged_at": "2026-01-02T00:03:00Z", "kind": "stop", "reason": "the ledger failed closed"}]),
    );
    let f = findings(&e, &[run("a", 1, "one", 1, None)], Some(&stop));
    assert!(f.incomplete.contains("one") && f.incomplete.contains("composed"));
    // Every cell ran: neither is.
    let f = findings(
        &e,
        &[run("a", 1, "one", 1, None), run("b", 2, "one", 2, None)],
        None,
    );
    assert!(f.incomplete.is_empty(), "{:?}", f.incomplete);
}
