//! The pieces the sample's experiments are built from: the tiers, the
//! policies, the grid, a hypothesis and its rule, and fixed outcomes.

use std::collections::BTreeMap;

use receipts_verifier::model::{
    CompareOp, Grid, GridAxis, Hypothesis, Metric, MetricRef, ModelPrice, Operand, Policy,
    PolicyKind, Rule,
};
use receipts_verifier::time;

use super::super::fixtures::TASKS;
use super::TierSim;

pub(super) fn tiers() -> Vec<TierSim> {
    let tier = |id: &str, label: &str, model: &str, price: (f64, f64), tps: f64| TierSim {
        id: id.to_string(),
        label: label.to_string(),
        model: model.to_string(),
        price: ModelPrice {
            input_per_mtok: price.0,
            output_per_mtok: price.1,
            cache_read_per_mtok: None,
            cache_write_per_mtok: None,
        },
        tokens_per_second: tps,
        throughput_decays: false,
        reasoning_range: (0, 0),
        truncation: (0.0, 0.0),
        reports_cache: true,
        follows_injection: 0.0,
        quality: [0.0; 3],
    };
    vec![
        TierSim {
            throughput_decays: true,
            reasoning_range: (900, 2600),
            // At 2,048 output tokens it runs out while reasoning whenever
            // it does not pass; with more room, only where a plan says so.
            truncation: (1.0, 0.0),
            follows_injection: 0.35,
            quality: [0.45, 0.7, 0.5],
            ..tier(
                "small",
                "Sim Small (30B)",
                "simulated/sim-small-30b",
                (0.06, 0.24),
                260.0,
            )
        },
        TierSim {
            reasoning_range: (300, 900),
            truncation: (0.08, 0.0),
            follows_injection: 0.15,
            quality: [0.35, 0.85, 0.7],
            ..tier(
                "medium",
                "Sim Medium (120B)",
                "simulated/sim-medium-120b",
                (0.12, 0.48),
                125.0,
            )
        },
        TierSim {
            reasoning_range: (80, 600),
            truncation: (0.12, 0.0),
            reports_cache: false,
            follows_injection: 0.05,
            quality: [0.75, 0.95, 0.9],
            ..tier(
                "large",
                "Sim Large (550B)",
                "simulated/sim-large-550b",
                (0.45, 1.8),
                138.0,
            )
        },
    ]
}

pub(super) fn policies() -> Vec<Policy> {
    let policy = |id: &str, label: &str, kind: PolicyKind, tiers: &[&str]| Policy {
        id: id.to_string(),
        label: label.to_string(),
        kind,
        tiers: tiers.iter().map(std::string::ToString::to_string).collect(),
        composed: false,
    };
    vec![
        policy(
            "ladder",
            "Auto-tier ladder (small → medium → large)",
            PolicyKind::Ladder,
            &["small", "medium", "large"],
        ),
        policy(
            "always-medium",
            "Always medium",
            PolicyKind::Single,
            &["medium"],
        ),
        policy(
            "always-large",
            "Always large",
            PolicyKind::Single,
            &["large"],
        ),
    ]
}

/// The policies of a grid run on each tier alone, the ladder composed
/// from those runs cell by cell, as the source study computed it.
pub(super) fn tier_policies() -> Vec<Policy> {
    let always = |tier: &str| Policy {
        id: format!("always-{tier}"),
        label: format!("Always {tier}"),
        kind: PolicyKind::Single,
        tiers: vec![tier.to_string()],
        composed: false,
    };
    let mut out = vec![always("small"), always("medium"), always("large")];
    let mut ladder = policies().remove(0);
    ladder.composed = true;
    out.push(ladder);
    out
}

pub(super) fn grid(seeds: Vec<u64>) -> Grid {
    Grid {
        tasks: TASKS.iter().map(std::string::ToString::to_string).collect(),
        profiles: vec!["careful".to_string(), "fast".to_string()],
        seeds,
        policies: policies().into_iter().map(|p| p.id).collect(),
        runs_per_cell: 1,
        // The order [`ExperimentPlan::cells`] runs them in.
        order: Some(vec![
            GridAxis::Seeds,
            GridAxis::Tasks,
            GridAxis::Profiles,
            GridAxis::Policies,
        ]),
    }
}

pub(super) fn metric(metric: Metric, policy: &str) -> MetricRef {
    MetricRef {
        metric,
        policy: policy.to_string(),
        experiment: None,
    }
}

pub(super) fn compare(left: MetricRef, op: CompareOp, right: Operand, offset: f64) -> Rule {
    Rule::Compare {
        left,
        op,
        right,
        offset,
    }
}

pub(super) fn hypothesis(id: &str, statement: &str, rule: Rule) -> Hypothesis {
    Hypothesis {
        id: id.to_string(),
        statement: statement.to_string(),
        rule,
    }
}

/// The ladder passes at least as many tasks as always-large (within 5 points) and costs less.
pub(super) fn ladder_rule() -> Rule {
    Rule::All(vec![
        compare(
            metric(Metric::PassRate, "ladder"),
            CompareOp::Ge,
            Operand::Metric(metric(Metric::PassRate, "always-large")),
            -5.0,
        ),
        compare(
            metric(Metric::CostPerTask, "ladder"),
            CompareOp::Lt,
            Operand::Metric(metric(Metric::CostPerTask, "always-large")),
            0.0,
        ),
    ])
}

pub(super) fn millis(ts: &str) -> i64 {
    time::parse(ts).map(|t| t.0).unwrap_or_default()
}

/// Each run of the grid of `experiment`, by id, and whether it `passes`
/// (given its policy, task, profile and seed).
pub(super) fn outcomes(
    experiment: &str,
    grid: &Grid,
    passes: impl Fn(&str, &str, &str, u64) -> bool,
) -> BTreeMap<String, bool> {
    let mut forced = BTreeMap::new();
    for task in &grid.tasks {
        for profile in &grid.profiles {
            for &seed in &grid.seeds {
                for policy in &grid.policies {
                    forced.insert(
                        format!("{experiment}-{task}-{profile}-s{seed}-{policy}"),
                        passes(policy, task, profile, seed),
                    );
                }
            }
        }
    }
    forced
}
