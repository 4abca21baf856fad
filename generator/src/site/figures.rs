//! The charts of an experiment, with the tables that carry their numbers,
//! from the recomputed analysis and the runs the primary analysis counts.

use std::collections::BTreeMap;

use serde::Serialize;

use receipts_verifier::numbers::compose::compose;
use receipts_verifier::numbers::{mean, median, primary_runs};
use receipts_verifier::verify::ExperimentVerification;

use crate::charts::{self, CallPoint, PolicyPoint};
use crate::head::RunHead;
use crate::load::LoadedExperiment;

use super::CacheUse;

#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// Inline SVG, made by [`crate::charts`].
    pub pass_against_cost: String,
    pub time_distribution: String,
    pub cost_by_tier: String,
    pub throughput: String,
    pub times: Vec<TimeRow>,
    pub throughput_rows: Vec<ThroughputRow>,
    /// What the first and last throughput columns cover: the first and last
    /// `hour` of a study's calls, or its first and last `half` when they
    /// span under two hours (an hour would cover them all).
    pub throughput_window: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimeRow {
    pub label: String,
    pub runs: usize,
    pub min: f64,
    pub median: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThroughputRow {
    pub label: String,
    pub calls: usize,
    pub median_tps: f64,
    /// The median over the calls in the first window of the study's calls
    /// (see [`Figures::throughput_window`]), and over those in the last.
    pub first_tps: f64,
    pub last_tps: f64,
    /// The share of the tier's prompt tokens read from the cache, over its
    /// calls that report it.
    pub cache: Option<CacheUse>,
}

pub fn figures(loaded: &LoadedExperiment, v: &ExperimentVerification) -> Figures {
    let e = &loaded.experiment;
    let id = &loaded.dir;
    let tier_label = |tier: &str| {
        e.tiers
            .iter()
            .find(|t| t.id == tier)
            .map_or(tier.to_string(), |t| t.label.clone())
    };

    let points: Vec<PolicyPoint> = v
        .primary
        .policies
        .iter()
        .map(|p| PolicyPoint {
            label: p.policy.clone(),
            pass_rate: p.pass_rate_pct,
            spread: p.pass_rate_sd_pct,
            cost_low: p.cost_per_task_usd.low,
            cost_high: p.cost_per_task_usd.high,
        })
        .collect();

    let judged = super::judged(v);
    let counted = primary_runs(&judged);
    let mut time_rows = Vec::new();
    let mut times = Vec::new();
    for p in &e.policies {
        // A composed policy's time in each cell it was composed in.
        let (xs, label): (Vec<f64>, String) = match compose(e, p, &counted) {
            Ok(Some(c)) => (
                c.cells.iter().map(|c| c.seconds).collect(),
                format!("{} (composed)", p.label),
            ),
            _ => (
                counted
                    .iter()
                    .filter(|j| j.run.place.policy == p.id)
                    .map(|j| j.run.seconds())
                    .collect(),
                p.label.clone(),
            ),
        };
        if xs.is_empty() {
            continue;
        }
        times.push(TimeRow {
            label,
            runs: xs.len(),
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            median: median(&xs),
            mean: mean(&xs),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        });
        time_rows.push((p.id.clone(), xs));
    }

    let bars: Vec<(String, f64, f64)> = e
        .tiers
        .iter()
        .filter_map(|t| {
            let mut cost = receipts_verifier::cost::Cost::ZERO;
            let mut any = false;
            for j in &counted {
                for a in j.run.attempts.iter().filter(|a| a.tier == t.id) {
                    cost = cost + a.cost.clone().ok()?;
                    any = true;
                }
            }
            any.then(|| (t.id.clone(), cost.low, cost.high))
        })
        .collect();

    let heads: BTreeMap<&str, &RunHead> = loaded
        .runs
        .iter()
        .map(|r| (r.place.id.as_str(), r))
        .collect();
    let start = counted
        .iter()
        .filter_map(|j| j.run.first_call.as_ref().map(|(t, _)| t.0))
        .min()
        .unwrap_or(0);
    let series: Vec<String> = e.tiers.iter().map(|t| t.id.clone()).collect();
    let mut calls: Vec<CallPoint> = Vec::new();
    let mut cache_counts: Vec<(usize, u64, Option<u64>)> = Vec::new();
    for j in &counted {
        let Some(head) = heads.get(j.run.place.id.as_str()) else {
            continue;
        };
        cache_counts.extend(
            head.calls
                .iter()
                .map(|c| (c.series, c.prompt_tokens, c.cache_hit_tokens)),
        );
        calls.extend(head.calls.iter().map(|c| CallPoint {
            series: c.series,
            minutes: (c.started_ms - start) as f64 / 60_000.0,
            tokens_per_second: c.tokens_per_second,
        }));
    }
    let span = calls.iter().map(|c| c.minutes).fold(0.0, f64::max);
    let (window, throughput_window) = if span >= 120.0 {
        (60.0, "hour")
    } else {
        (span / 2.0, "half")
    };
    let throughput_rows = e
        .tiers
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let of_tier: Vec<&CallPoint> = calls.iter().filter(|c| c.series == i).collect();
            if of_tier.is_empty() {
                return None;
            }
            let tps = |pred: &dyn Fn(&CallPoint) -> bool| {
                let xs: Vec<f64> = of_tier
                    .iter()
                    .filter(|c| pred(c))
                    .map(|c| c.tokens_per_second)
                    .collect();
                median(&xs)
            };
            Some(ThroughputRow {
                label: tier_label(&t.id),
                calls: of_tier.len(),
                median_tps: tps(&|_| true),
                first_tps: tps(&|c| c.minutes < window),
                last_tps: tps(&|c| c.minutes >= span - window),
                cache: CacheUse::of_counts(
                    cache_counts
                        .iter()
                        .filter(|(series, ..)| *series == i)
                        .map(|&(_, prompt, hit)| (prompt, hit)),
                ),
            })
        })
        .collect();

    Figures {
        pass_against_cost: charts::pass_rate_against_cost(&format!("{id}-pass-cost"), &points),
        time_distribution: charts::time_distribution(&format!("{id}-time"), &time_rows),
        cost_by_tier: charts::cost_by_tier(&format!("{id}-cost-tier"), &bars),
        throughput: charts::throughput_over_time(&format!("{id}-throughput"), &series, &calls),
        times,
        throughput_rows,
        throughput_window,
    }
}
