//! E02: E01 again with an 8,192-token output budget.

use std::collections::BTreeMap;

use receipts_verifier::model::{CompareOp, Grid, Metric, MetricRef, Operand, Rule};

use super::super::calibrate::Target;
use super::super::fixtures;
use super::parts::{compare, grid, hypothesis, ladder_rule, metric, millis, outcomes};
use super::{ExperimentPlan, Incident};

/// E02, E01 again with 8,192 output tokens, as the source ran it: each
/// tier alone in every cell, the ladder composed from those runs. Every
/// tier run's outcome is fixed as the source published them: always-large
/// passes 14 of 18 tasks (77.8%), always-medium 12 (66.7%), and the small
/// tier, with room to reason, 11 (61.1%), out of output budget once. The
/// three fail together on three release briefs, so the ladder passes 15
/// (83.3%). The ledger stops the small tier's run of one of those briefs
/// after its first call, and a rerun passes it: counting the rerun, as the
/// first publication did, gives 16 (88.9%).
pub(super) fn e02(e01: &ExperimentPlan) -> ExperimentPlan {
    let (research, transform, program) =
        (fixtures::RESEARCH, fixtures::TRANSFORM, fixtures::PROGRAM);
    let id = |task: &str, profile: &str, seed: u64, policy: &str| {
        format!("E02-{task}-{profile}-s{seed}-{policy}")
    };
    let failing: [(&str, &str, &str, u64); 17] = [
        ("always-large", research, "careful", 1),
        ("always-large", research, "fast", 1),
        ("always-large", research, "careful", 3),
        ("always-large", research, "fast", 3),
        ("always-medium", research, "careful", 1),
        ("always-medium", research, "fast", 1),
        ("always-medium", research, "careful", 3),
        ("always-medium", research, "fast", 2),
        ("always-medium", program, "careful", 2),
        ("always-medium", program, "fast", 3),
        ("always-small", research, "careful", 1),
        ("always-small", research, "fast", 1),
        ("always-small", research, "careful", 2),
        ("always-small", research, "careful", 3),
        ("always-small", transform, "careful", 1),
        ("always-small", program, "careful", 2),
        ("always-small", program, "fast", 2),
    ];
    let grid = Grid {
        policies: ["always-small", "always-medium", "always-large"]
            .map(String::from)
            .to_vec(),
        ..grid(vec![1, 2, 3])
    };
    let forced = outcomes("E02", &grid, |policy, task, profile, seed| {
        !failing.contains(&(policy, task, profile, seed))
    });
    let mut incidents = BTreeMap::new();
    // Stopped by the ledger after its first call: kept as a failure by the
    // registered rule, rerun (and passed) for the secondary analysis.
    incidents.insert(
        id(research, "careful", 3, "always-small"),
        Incident::LedgerStopAfterCall,
    );
    // Stopped before any call: its rerun counts in its place.
    incidents.insert(
        id(program, "careful", 1, "always-large"),
        Incident::LedgerStopBeforeCall,
    );
    // A run the 180 s run limit cut while it wrote its artifact, as the
    // source's E02 lost one call's usage, in a cell where the ladder pays
    // for every tier: the cost of the medium tier, and of the ladder, is a
    // bound.
    incidents.insert(
        id(research, "fast", 1, "always-medium"),
        Incident::RunLimitCut,
    );
    // The small tier's one run out of output budget while it reasoned.
    incidents.insert(
        id(program, "fast", 2, "always-small"),
        Incident::OutOfOutput,
    );
    // The provider failures the source met, each once, on always-medium
    // runs whose outcome they leave as it was, in cells the small tier
    // passes (so the ladder's figures do not take them): a refused key, a
    // server error retried, an empty reply retried.
    for (task, profile, seed, incident) in [
        (research, "fast", 2, Incident::AuthRefused),
        (transform, "careful", 2, Incident::ServerErrorRetried),
        (program, "careful", 1, Incident::EmptyReplyRetried),
    ] {
        incidents.insert(id(task, profile, seed, "always-medium"), incident);
    }
    let earlier = |m: Metric, policy: &str| {
        Operand::Metric(MetricRef {
            experiment: Some("E01".to_string()),
            ..metric(m, policy)
        })
    };
    ExperimentPlan {
        id: "E02".to_string(),
        title: "Output budget 8,192 tokens".to_string(),
        question: "With room to reason (8,192 output tokens), does the small tier recover, and does the ladder still beat always-large on cost?".to_string(),
        max_output_tokens: 8192,
        registered_at: "2026-10-28T11:50:00Z".to_string(),
        start_ms: millis("2026-10-28T12:30:00Z"),
        grid,
        hypotheses: vec![
            hypothesis("H4", "With 8,192 output tokens the small tier recovers: always-small passes more tasks than it did with 2,048 in E01, and runs out of output budget less often.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-small"), CompareOp::Gt, earlier(Metric::PassRate, "always-small"), 0.0),
                compare(metric(Metric::Truncations, "always-small"), CompareOp::Lt, earlier(Metric::Truncations, "always-small"), 0.0),
            ])),
            hypothesis("H5", "The ladder passes at least as many tasks as always-large, within 5 points, and costs less per task.", ladder_rule()),
            hypothesis("H6", "No regression for the larger tiers: always-medium and always-large each pass at least as many tasks as they did with 2,048 output tokens in E01.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-medium"), CompareOp::Ge, earlier(Metric::PassRate, "always-medium"), 0.0),
                compare(metric(Metric::PassRate, "always-large"), CompareOp::Ge, earlier(Metric::PassRate, "always-large"), 0.0),
            ])),
        ],
        incidents,
        forced,
        calibration: vec![
            // Each tier's median call served as fast as the source
            // measured it in E02: 264, 125 and 138 tokens a second.
            Target::mean("always-large", Some((0.0061, 0.0061)), 7.2).serving(138.0),
            // Not a figure the source printed: the small tier's runs as
            // quick as the ladder's mean, with one cell's 180 s cut run in
            // it, leaves them.
            Target::mean("always-small", None, 28.4).serving(264.0),
            Target::throughput("always-medium", 125.0),
            // Composed: its cost from the small and medium tiers', its
            // time from which tier runs its cells use.
            // Its cost 5.5% to 1.5% below always-large's, as printed.
            Target::composed("ladder", &["always-small", "always-medium"], Some((0.0058, 0.0060)), Some(54.1))
                .changed_from_range("always-large", (-5.5, -1.5), 1),
        ],
        ..e01.clone()
    }
}
