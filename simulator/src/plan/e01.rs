//! E01: a 2,048-token output budget.

use std::collections::BTreeMap;

use receipts_verifier::model::{CompareOp, Grid, Metric, Operand, Rule};

use super::super::calibrate::Target;
use super::super::fixtures;
use super::parts::{
    compare, grid, hypothesis, ladder_rule, metric, millis, outcomes, tier_policies, tiers,
};
use super::{ExperimentPlan, Incident};

/// E01, the output budget at 2,048 tokens, as the source ran it: each tier
/// alone in every cell, the ladder composed from those runs.
pub(super) fn e01() -> ExperimentPlan {
    let e01 = ExperimentPlan {
        id: "E01".to_string(),
        title: "Output budget 2,048 tokens".to_string(),
        question: "Does an auto-tier ladder pass as many tasks as always using the large tier, at lower cost, with a 2,048-token output budget?".to_string(),
        max_output_tokens: 2048,
        registered_at: "2026-10-27T08:30:00Z".to_string(),
        start_ms: millis("2026-10-27T09:00:00Z"),
        tiers: tiers(),
        policies: tier_policies(),
        grid: Grid {
            policies: ["always-small", "always-medium", "always-large"].map(String::from).to_vec(),
            ..grid(vec![1, 2, 3])
        },
        hypotheses: vec![
            hypothesis("H1", "The ladder passes at least as many tasks as always-large, within 5 points, and costs less per task.", ladder_rule()),
            hypothesis("H2", "Latency rises with the tier: always-small is faster per task than always-medium, and always-medium than always-large.", Rule::All(vec![
                compare(metric(Metric::MeanTime, "always-small"), CompareOp::Lt, Operand::Metric(metric(Metric::MeanTime, "always-medium")), 0.0),
                compare(metric(Metric::MeanTime, "always-medium"), CompareOp::Lt, Operand::Metric(metric(Metric::MeanTime, "always-large")), 0.0),
            ])),
            hypothesis("H3", "Pass rate rises with the tier: always-large passes at least as many tasks as always-medium, and always-medium as always-small.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-large"), CompareOp::Ge, Operand::Metric(metric(Metric::PassRate, "always-medium")), 0.0),
                compare(metric(Metric::PassRate, "always-medium"), CompareOp::Ge, Operand::Metric(metric(Metric::PassRate, "always-small")), 0.0),
            ])),
        ],
        incidents: BTreeMap::new(),
        log_rules: vec![
            "Decision rule: a hypothesis is accepted when its machine-readable rule in experiment.json holds on the primary analysis.".to_string(),
            "Primary analysis: every run that reached the provider counts, failures included; reruns count only for runs that never reached it.".to_string(),
            "Unknown costs are carried as bounds and count against the hypothesis.".to_string(),
            "Stopping rule: the grid runs once; no cell is rerun unless it never reached the provider.".to_string(),
        ],
        drafts: 0,
        max_turns: 12,
        max_run_ms: 180_000,
        max_call_ms: None,
        max_call_usd: super::MAX_CALL_USD,
        forced: BTreeMap::new(),
        stop: None,
        pauses: Vec::new(),
        prices_version: "simulated-2026-10".to_string(),
        calibration: vec![
            Target::mean("always-large", Some((0.0078, 0.0078)), 6.1),
            Target::mean("always-medium", None, 14.0),
            Target::mean("always-small", None, 17.9),
            // Composed: its cost from the small tier's, its time from
            // which tier runs its cells use.
            // 34% cheaper, as printed.
            Target::composed("ladder", &["always-small", "always-medium"], Some((0.0051, 0.0051)), Some(32.7))
                .changed_from("always-large", -34.0, 0),
        ],
    };
    // The large tier, too, ran out of output budget while it reasoned in
    // three runs, each a failure: one by chance, two as scripted here.
    let incidents = [
        (fixtures::RESEARCH, "fast", 1),
        (fixtures::PROGRAM, "careful", 2),
    ]
    .map(|(task, profile, seed)| {
        (
            format!("E01-{task}-{profile}-s{seed}-always-large"),
            Incident::OutOfOutput,
        )
    })
    .into_iter()
    .collect();
    ExperimentPlan {
        forced: e01_outcomes(&e01.grid),
        incidents,
        ..e01
    }
}

/// E01's outcomes, every tier run's fixed as the source published them:
/// always-large and always-medium pass 12 of 18 tasks each (66.7%), the
/// small tier 1 (5.6%), and the ladder composed from them 15 (83.3%). The
/// large tier skips a required citation in four release briefs and fails
/// two shipping rules; the medium tier's brief does not validate in two
/// cells, and it fails a cleanup and three rules. They fail together in
/// three cells only, so the ladder, escalating, passes more than either.
fn e01_outcomes(grid: &Grid) -> BTreeMap<String, bool> {
    let (research, transform, program) =
        (fixtures::RESEARCH, fixtures::TRANSFORM, fixtures::PROGRAM);
    let failing: [(&str, &str, &str, u64); 12] = [
        ("always-large", research, "careful", 1),
        ("always-large", research, "fast", 1),
        ("always-large", research, "careful", 3),
        ("always-large", research, "fast", 3),
        ("always-large", program, "careful", 2),
        ("always-large", program, "fast", 2),
        ("always-medium", research, "careful", 2),
        ("always-medium", research, "careful", 3),
        ("always-medium", transform, "careful", 1),
        ("always-medium", program, "careful", 2),
        ("always-medium", program, "fast", 2),
        ("always-medium", program, "careful", 3),
    ];
    // The small tier, out of output budget while it reasons, passes one cleanup.
    let small_passes = (transform, "fast", 2);
    outcomes("E01", grid, |policy, task, profile, seed| {
        if policy == "always-small" {
            small_passes == (task, profile, seed)
        } else {
            !failing.contains(&(policy, task, profile, seed))
        }
    })
}
