//! The numbers a study publishes, recomputed from the runs: per policy and per
//! tier pass rates (with the spread across seeds), cost bounds, times,
//! truncations, timeouts and served throughput; a composed policy's from
//! the runs of its tiers ([`compose`]).
//!
//! Which runs count is the pre-registered primary rule ([`primary_runs`]):
//! every run that reached the provider counts, and a rerun counts only in
//! place of a run that never reached it. Counting reruns in place of every
//! run they replace is a secondary analysis ([`latest_runs`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::cost::{Cost, MissingPrice};
use crate::facts::{AttemptFacts, RunFacts};
use crate::model::{Analysis, CostBound, Experiment, PolicyNumbers, TierNumbers};

pub mod compose;

/// A run's facts with the recomputed verdict of each of its attempts.
#[derive(Debug, Clone, Copy)]
pub struct JudgedRun<'a> {
    /// The run's facts.
    pub run: &'a RunFacts,
    /// Whether each attempt passed every check, in attempt order.
    pub attempts_passed: &'a [bool],
}

impl JudgedRun<'_> {
    /// A run passes when an attempt of its last round passed every check.
    pub fn passed(&self) -> bool {
        self.run.passed(self.attempts_passed)
    }
}

/// The runs the primary analysis counts: every run that reached the provider
/// and is not a rerun, plus each rerun of a run that never reached it.
pub fn primary_runs<'a>(runs: &[JudgedRun<'a>]) -> Vec<JudgedRun<'a>> {
    let by_id: BTreeMap<&str, &RunFacts> =
        crate::btree::map(runs.iter().map(|j| (j.run.place.id.as_str(), j.run)));
    runs.iter()
        .filter(|j| match &j.run.place.replaces {
            None => j.run.reached_provider,
            Some(old) => by_id.get(old.as_str()).is_none_or(|r| !r.reached_provider),
        })
        .copied()
        .collect()
}

/// The runs a rerun-replaces-original analysis counts: every run no other run replaces.
pub fn latest_runs<'a>(runs: &[JudgedRun<'a>]) -> Vec<JudgedRun<'a>> {
    let replaced: BTreeSet<&str> =
        crate::btree::set(runs.iter().filter_map(|j| j.run.place.replaces.as_deref()));
    runs.iter()
        .filter(|j| !replaced.contains(j.run.place.id.as_str()))
        .copied()
        .collect()
}

/// Recomputes the numbers of an analysis over `runs` (already selected): a
/// policy's over its runs, a composed policy's over its cells ([`compose`]).
pub fn analyze(experiment: &Experiment, runs: &[JudgedRun<'_>]) -> Result<Analysis, MissingPrice> {
    let mut policies = Vec::new();
    for policy in &experiment.policies {
        if let Some(composition) = compose::compose(experiment, policy, runs)? {
            if !composition.cells.is_empty() {
                let outcomes: Vec<Outcome<'_>> = composition
                    .cells
                    .iter()
                    .map(|c| Outcome {
                        seed: c.seed,
                        passed: c.passed,
                        cost: c.cost,
                        seconds: c.seconds,
                        attempts: c.used.iter().flat_map(|j| &j.run.attempts).collect(),
                    })
                    .collect();
                let mut n = policy_numbers(&policy.id, &outcomes);
                n.incomplete_cells = composition.incomplete.len() as u64;
                policies.push(n);
            }
            continue;
        }
        let outcomes = runs
            .iter()
            .filter(|j| j.run.place.policy == policy.id)
            .map(|j| {
                Ok(Outcome {
                    seed: j.run.place.seed,
                    passed: j.passed(),
                    cost: j.run.cost()?,
                    seconds: j.run.seconds(),
                    attempts: j.run.attempts.iter().collect(),
                })
            })
            .collect::<Result<Vec<_>, MissingPrice>>()?;
        if !outcomes.is_empty() {
            policies.push(policy_numbers(&policy.id, &outcomes));
        }
    }
    let mut tiers = Vec::new();
    for tier in &experiment.tiers {
        if let Some(n) = tier_numbers(&tier.id, runs)? {
            tiers.push(n);
        }
    }
    Ok(Analysis { policies, tiers })
}

/// What a policy did in one run, or in one cell of a composed policy.
struct Outcome<'a> {
    seed: u64,
    passed: bool,
    cost: Cost,
    seconds: f64,
    attempts: Vec<&'a AttemptFacts>,
}

fn policy_numbers(policy: &str, outcomes: &[Outcome<'_>]) -> PolicyNumbers {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    let mut per_seed: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
    for o in outcomes {
        let e = per_seed.entry(o.seed).or_default();
        e.0 += usize::from(o.passed);
        e.1 += 1;
    }
    let seed_rates: Vec<f64> = per_seed.values().map(|&(p, n)| pct(p, n)).collect();
    let costs: Vec<Cost> = outcomes.iter().map(|o| o.cost).collect();
    let cost = Cost::mean(&costs).unwrap_or(Cost::ZERO);
    let times: Vec<f64> = outcomes.iter().map(|o| o.seconds).collect();
    let attempts: Vec<&AttemptFacts> = outcomes
        .iter()
        .flat_map(|o| o.attempts.iter().copied())
        .collect();
    let counts = CallCounts::of(&attempts);
    PolicyNumbers {
        policy: policy.to_string(),
        runs: outcomes.len() as u64,
        incomplete_cells: 0,
        pass_rate_pct: pct(passed, outcomes.len()),
        pass_rate_sd_pct: sample_sd(&seed_rates),
        cost_per_task_usd: CostBound {
            low: cost.low,
            high: cost.high,
        },
        mean_time_s: mean(&times),
        median_time_s: median(&times),
        truncations: counts.truncations,
        timeouts: counts.timeouts,
        errors: counts.errors,
        empty_responses: counts.empty_responses,
        retries: counts.retries,
        throughput_tps: counts.throughput_tps,
        median_tps: counts.median_tps,
    }
}

fn tier_numbers(tier: &str, runs: &[JudgedRun<'_>]) -> Result<Option<TierNumbers>, MissingPrice> {
    let mut passed = 0usize;
    let mut cost = Cost::ZERO;
    let mut attempts: Vec<&AttemptFacts> = Vec::new();
    for j in runs {
        for (attempt, ok) in j.run.attempts.iter().zip(j.attempts_passed) {
            if attempt.tier != tier {
                continue;
            }
            passed += usize::from(*ok);
            cost = cost + attempt.cost.clone()?;
            attempts.push(attempt);
        }
    }
    if attempts.is_empty() {
        return Ok(None);
    }
    let counts = CallCounts::of(&attempts);
    Ok(Some(TierNumbers {
        tier: tier.to_string(),
        attempts: attempts.len() as u64,
        pass_rate_pct: pct(passed, attempts.len()),
        total_cost_usd: CostBound {
            low: cost.low,
            high: cost.high,
        },
        truncations: counts.truncations,
        timeouts: counts.timeouts,
        errors: counts.errors,
        empty_responses: counts.empty_responses,
        retries: counts.retries,
        throughput_tps: counts.throughput_tps,
        median_tps: counts.median_tps,
    }))
}

/// What went wrong in a set of attempts' calls, and how fast they answered:
/// the figures a policy and a tier both publish.
struct CallCounts {
    truncations: u64,
    timeouts: u64,
    errors: u64,
    empty_responses: u64,
    retries: u64,
    /// Completion tokens per second of call time over the calls whose usage is known.
    throughput_tps: f64,
    /// The median call's completion tokens per second, over those calls.
    median_tps: Option<f64>,
}

impl CallCounts {
    fn of(attempts: &[&AttemptFacts]) -> Self {
        let sum = |f: fn(&AttemptFacts) -> u64| attempts.iter().map(|a| f(a)).sum::<u64>();
        CallCounts {
            truncations: sum(|a| a.truncations),
            timeouts: sum(|a| a.timeouts),
            errors: sum(|a| a.errors),
            empty_responses: sum(|a| a.empty_responses),
            retries: sum(|a| a.retries),
            throughput_tps: per_second(sum(|a| a.completion_tokens), sum(|a| a.latency_ms)),
            median_tps: {
                let speeds: Vec<f64> = attempts
                    .iter()
                    .flat_map(|a| a.call_tps.iter().copied())
                    .collect();
                (!speeds.is_empty()).then(|| median(&speeds))
            },
        }
    }
}

fn per_second(tokens: u64, ms: u64) -> f64 {
    if ms == 0 {
        0.0
    } else {
        tokens as f64 / (ms as f64 / 1000.0)
    }
}

/// The per-run figures of `results.csv`, recomputed (unrounded).
pub fn result_row(run: &RunFacts, passed: bool) -> Result<crate::model::ResultRow, MissingPrice> {
    let cost = run.cost()?;
    Ok(crate::model::ResultRow {
        run: run.place.id.clone(),
        task: run.place.task.clone(),
        profile: run.place.profile.clone(),
        seed: run.place.seed,
        policy: run.place.policy.clone(),
        tiers: run.tiers_tried().join(">"),
        passed,
        cost_usd_low: cost.low,
        cost_usd_high: cost.high,
        time_s: run.seconds(),
        truncations: run.truncations(),
        timeouts: run.timeouts(),
        replaces: run.place.replaces.clone().unwrap_or_default(),
    })
}

/// `part / whole` as a percentage; 0 when `whole` is 0.
pub fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The arithmetic mean; 0 for no values.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// The median; the mean of the two middle values for an even count.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut v = xs.to_vec();
    // Values equal under `total_cmp` have the same bits, so an unstable sort gives the same order.
    v.sort_unstable_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// The sample standard deviation (n − 1); 0 for fewer than two values.
pub fn sample_sd(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (xs.len() - 1) as f64).sqrt()
}

/// Rounds half away from zero to `decimals` places, as published figures are written.
pub fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// The analysis as it is published: percentages, times and throughput to one
/// decimal, costs to six.
pub fn rounded(a: &Analysis) -> Analysis {
    let cost = |c: CostBound| CostBound {
        low: round_to(c.low, 6),
        high: round_to(c.high, 6),
    };
    Analysis {
        policies: a
            .policies
            .iter()
            .map(|p| PolicyNumbers {
                pass_rate_pct: round_to(p.pass_rate_pct, 1),
                pass_rate_sd_pct: round_to(p.pass_rate_sd_pct, 1),
                cost_per_task_usd: cost(p.cost_per_task_usd),
                mean_time_s: round_to(p.mean_time_s, 1),
                median_time_s: round_to(p.median_time_s, 1),
                throughput_tps: round_to(p.throughput_tps, 1),
                median_tps: p.median_tps.map(|v| round_to(v, 1)),
                ..p.clone()
            })
            .collect(),
        tiers: a
            .tiers
            .iter()
            .map(|t| TierNumbers {
                pass_rate_pct: round_to(t.pass_rate_pct, 1),
                total_cost_usd: cost(t.total_cost_usd),
                throughput_tps: round_to(t.throughput_tps, 1),
                median_tps: t.median_tps.map(|v| round_to(v, 1)),
                ..t.clone()
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_matches_the_published_example() {
        // Per-seed pass rates 100, 83.3, 100 → mean 94.4, sample sd 9.6.
        let rates = [100.0, pct(5, 6), 100.0];
        assert_eq!(round_to(mean(&rates), 1), 94.4);
        assert_eq!(round_to(sample_sd(&rates), 1), 9.6);
    }

    /// An attempt's facts from calls of `(completion tokens, latency ms)`,
    /// `None` for a call whose usage was lost.
    fn attempt(calls: &[(Option<u64>, u64)]) -> AttemptFacts {
        let calls: Vec<serde_json::Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (tokens, latency))| {
                serde_json::json!({
                    "request_id": format!("c{i}"), "model_requested": "m", "model_echoed": "m",
                    "started_at": "2026-01-02T00:00:00Z", "latency_ms": latency,
                    "usage": tokens.map(|t| serde_json::json!({
                        "prompt_tokens": 100, "completion_tokens": t, "reasoning_tokens": null,
                        "cache_hit_tokens": null, "cache_miss_tokens": null})),
                    "finish_reason": "stop", "max_tokens": 1000, "prompt_tokens_reserved": 100,
                    "status": if tokens.is_some() { "ok" } else { "timeout" }
                })
            })
            .collect();
        let run: crate::model::Run = serde_json::from_value(serde_json::json!({
            "format_version": 1, "kind": "run", "id": "r", "experiment": "E", "task": "t",
            "profile": "p", "seed": 1, "policy": "one", "provenance": "simulated",
            "started_at": "2026-01-02T00:00:00Z",
            "attempts": [{"tier": "small", "started_at": "2026-01-02T00:00:00Z",
                "duration_ms": 1000, "turns": [], "calls": calls, "inputs": [],
                "artifact": null, "checks": [], "end": {"reason": "finished"}}],
            "outcome": {"passed": false, "passed_tier": null}
        }))
        .expect("run");
        let prices = crate::model::PriceTable {
            version: "v".into(),
            currency: "USD".into(),
            models: BTreeMap::new(),
        };
        RunFacts::of(&run, &prices).attempts.remove(0)
    }

    #[test]
    fn the_median_call_speed_is_not_moved_by_one_slow_call() {
        // Calls at 100, 200, 300 and 5 tokens a second (a call of no time
        // has no speed, a lost one no tokens): pooled, the slow call drags
        // the throughput to 61.4; the median call is at 150.
        let a = attempt(&[(Some(100), 1000), (Some(400), 2000), (Some(300), 1000)]);
        let b = attempt(&[(Some(50), 10_000), (None, 45_000), (Some(10), 0)]);
        let counts = CallCounts::of(&[&a, &b]);
        assert_eq!(counts.median_tps, Some(150.0));
        assert_eq!(round_to(counts.throughput_tps, 1), 61.4);
        // No call with usage and time: no median, never 0.
        let lost = attempt(&[(None, 45_000)]);
        assert_eq!(CallCounts::of(&[&lost]).median_tps, None);
    }

    #[test]
    fn median_even_and_odd() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
