//! Calibration: the simulator's provider is scaled so that a sample
//! experiment publishes the figures of the study it imitates. It stays a
//! simulator: every run is still simulated, and the scales are found by
//! simulating, measuring with the verifier's own arithmetic and simulating
//! again, always in the same steps, so the same plan gives the same bytes.
//!
//! Per policy with a target, in three steps:
//! 1. times: completion tokens are scaled so that, at the tiers' served
//!    speeds, the median run takes about as long as the target says;
//! 2. cost: prompt tokens (and completion tokens too, where no time is
//!    targeted) are scaled until the published cost rounds to the target;
//! 3. times again: each run's wall time is pinned to `a · t`, plus `d` for
//!    the runs slower than the median, where `t` is its simulated time (the
//!    order is kept; `a` sets the median and `d` the mean); the provider's
//!    latency in that run is scaled to match. Runs cut at the run limit
//!    keep their time.

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::model::{Experiment, PolicyNumbers, Run};
use receipts_verifier::numbers::compose::compose;
use receipts_verifier::numbers::{analyze, primary_runs, round_to};

use super::publish::Judgement;

/// Figures a policy must publish, as the source study rounded them.
#[derive(Debug, Clone)]
pub struct Target {
    pub policy: String,
    /// Cost per task in USD, low and high ends, to four decimals, where the
    /// source published it.
    pub cost: Option<(f64, f64)>,
    /// Mean time per task in seconds, to one decimal, and the median where
    /// the source published it too.
    pub time: Option<(f64, Option<f64>)>,
    /// For a composed policy (no runs of its own): the tier policies whose
    /// prompt and completion tokens are scaled together for its cost (their
    /// times are pinned afterwards all the same). Its mean time is reached by
    /// exchanging the wall times of its tiers' runs between the cells that
    /// use them and those that do not, which leaves each tier's own figures
    /// as they were.
    pub via: Vec<String>,
    /// The cost's change against another policy's (exact) cost, in percent
    /// as the source printed it, with its decimals: the cost is aimed where
    /// both round as printed.
    pub change: Option<(String, f64, usize)>,
}

impl Target {
    /// A cost and, optionally, the mean and median times.
    pub fn new(policy: &str, cost: (f64, f64), time: Option<(f64, f64)>) -> Target {
        Target {
            policy: policy.to_string(),
            cost: Some(cost),
            time: time.map(|(mean, median)| (mean, Some(median))),
            via: Vec::new(),
            change: None,
        }
    }

    /// A mean time and, optionally, a cost (the source published no median).
    pub fn mean(policy: &str, cost: Option<(f64, f64)>, mean_s: f64) -> Target {
        Target {
            policy: policy.to_string(),
            cost,
            time: Some((mean_s, None)),
            via: Vec::new(),
            change: None,
        }
    }

    /// A composed policy's cost, reached through tier policies `via`, and
    /// its mean time.
    pub fn composed(
        policy: &str,
        via: &[&str],
        cost: Option<(f64, f64)>,
        mean_s: Option<f64>,
    ) -> Target {
        Target {
            policy: policy.to_string(),
            cost,
            time: mean_s.map(|m| (m, None)),
            via: via.iter().map(|v| (*v).to_string()).collect(),
            change: None,
        }
    }

    /// The cost, besides, `percent` above (or, negative, below) the cost of
    /// `policy`, printed with `decimals`.
    pub fn changed_from(self, policy: &str, percent: f64, decimals: usize) -> Target {
        Target {
            change: Some((policy.to_string(), percent, decimals)),
            ..self
        }
    }

    fn is_composed(&self) -> bool {
        !self.via.is_empty()
    }
}

/// How the scripted provider is scaled: prompt and completion token counts
/// and call latency (1.0 leaves each as simulated).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scales {
    pub prompt: f64,
    pub completion: f64,
    pub latency: f64,
}

impl Default for Scales {
    fn default() -> Scales {
        Scales {
            prompt: 1.0,
            completion: 1.0,
            latency: 1.0,
        }
    }
}

/// The scales of an experiment: by policy, and the wall time (ms) each
/// pinned run must take.
#[derive(Debug, Clone, Default)]
pub struct Tuning {
    by_policy: BTreeMap<String, Scales>,
    walls: BTreeMap<String, i64>,
}

impl Tuning {
    pub fn scales(&self, policy: &str) -> Scales {
        self.by_policy.get(policy).copied().unwrap_or_default()
    }

    pub fn wall(&self, run: &str) -> Option<i64> {
        self.walls.get(run).copied()
    }
}

/// A factor searched for by the secant method: the factor to try next and
/// the previous one with its error.
struct Secant {
    k: f64,
    previous: Option<(f64, f64)>,
}

impl Default for Secant {
    fn default() -> Secant {
        Secant {
            k: 1.0,
            previous: None,
        }
    }
}

impl Secant {
    /// Moves on from the error of the current factor; `guess` scales the
    /// factor when there is no previous point to draw a secant through.
    fn step(&mut self, error: f64, guess: f64) {
        let k = self.k;
        let next = match self.previous {
            Some((k0, e0)) if e0 != error => k - error * (k - k0) / (error - e0),
            _ => k * guess,
        };
        self.k = next.clamp(0.05, 20.0);
        self.previous = Some((k, error));
    }
}

/// Half a unit of the fourth decimal: how far a cost may be from its target.
const HALF_COST: f64 = 0.00005;

/// Finds the tuning that makes `simulate` (the whole experiment, with
/// `runs_cut` reaching the run limit) publish `targets`.
pub fn solve(
    experiment: &Experiment,
    targets: &[Target],
    runs_cut: &BTreeSet<String>,
    simulate: &mut dyn FnMut(&Tuning) -> Vec<Run>,
) -> Tuning {
    let mut tuning = Tuning::default();
    if targets.is_empty() {
        return tuning;
    }
    let mut run = |tuning: &Tuning| measure(experiment, &simulate(tuning));
    // 1. Completion tokens for the median time, at the tiers' own speeds.
    for _ in 0..8 {
        let m = run(&tuning);
        let mut settled = true;
        for t in targets.iter().filter(|t| !t.is_composed()) {
            let Some((mean, median)) = t.time else {
                continue;
            };
            let (mut free, cut) = times(&m.1, &t.policy, runs_cut);
            free.sort_by(f64::total_cmp);
            // The median where it is a target, else the mean.
            let (aim, now) = match median {
                Some(median) => {
                    let middle = middle(free.len() + cut.len());
                    let now = middle.iter().map(|&i| free[i]).sum::<f64>() / middle.len() as f64;
                    (median, now)
                }
                None => (
                    mean,
                    (free.iter().sum::<f64>() + cut.iter().sum::<f64>())
                        / (free.len() + cut.len()) as f64,
                ),
            };
            let ratio = aim / now;
            settled &= (ratio - 1.0).abs() < 0.02;
            let s = tuning.by_policy.entry(t.policy.clone()).or_default();
            s.completion *= ratio;
        }
        if settled {
            break;
        }
    }
    // 2. Cost, by one factor per policy found by the secant method.
    let costed: Vec<(&Target, (f64, f64))> =
        targets.iter().filter_map(|t| Some((t, t.cost?))).collect();
    let mut steps: BTreeMap<&str, Secant> = costed
        .iter()
        .map(|(t, _)| (t.policy.as_str(), Secant::default()))
        .collect();
    let base = tuning.clone();
    let mut converged = costed.is_empty();
    for _ in 0..24 {
        if converged {
            break;
        }
        for (t, _) in &costed {
            let k = steps[t.policy.as_str()].k;
            if t.is_composed() {
                for via in &t.via {
                    let mut s = base.scales(via);
                    s.prompt *= k;
                    s.completion *= k;
                    tuning.by_policy.insert(via.clone(), s);
                }
                continue;
            }
            let mut s = base.scales(&t.policy);
            s.prompt *= k;
            if t.time.is_none() {
                s.completion *= k;
            }
            tuning.by_policy.insert(t.policy.clone(), s);
        }
        let m = run(&tuning);
        converged = true;
        for &(t, cost) in &costed {
            let n = numbers(&m.0, &t.policy);
            let (low, high) = (n.cost_per_task_usd.low, n.cost_per_task_usd.high);
            let mut window = cost_window(cost, high - low).unwrap_or_else(|| {
                panic!(
                    "{}: a cost range {:.6} wide cannot round to {cost:?}",
                    t.policy,
                    high - low,
                )
            });
            if let Some((other, percent, decimals)) = &t.change {
                let base = numbers(&m.0, other).cost_per_task_usd.low;
                let half = 0.5 / 10f64.powi(*decimals as i32);
                let both = (
                    window.0.max(base * (1.0 + (percent - half) / 100.0)),
                    window.1.min(base * (1.0 + (percent + half) / 100.0)),
                );
                // Until the other policy's cost has settled the two may not meet.
                if both.0 < both.1 {
                    window = both;
                } else {
                    converged = false;
                }
            }
            let (aim, slack) = ((window.0 + window.1) / 2.0, (window.1 - window.0) / 4.0);
            let error = low - aim;
            if error.abs() <= slack && cost_rounds_to(low, cost.0) && cost_rounds_to(high, cost.1) {
                continue;
            }
            converged = false;
            steps
                .entry(t.policy.as_str())
                .or_default()
                .step(error, aim / low);
        }
    }
    assert!(converged, "the cost calibration did not converge");
    // 3. Each run's wall time, so that the mean and the median are the targets.
    let m = run(&tuning);
    for t in targets.iter().filter(|t| !t.is_composed()) {
        let Some((mean, median)) = t.time else {
            continue;
        };
        let mut free: Vec<(f64, String)> =
            m.1.iter()
                .filter(|(policy, id, _)| *policy == t.policy && !runs_cut.contains(id))
                .map(|(_, id, s)| (*s, id.clone()))
                .collect();
        free.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let (_, cut) = times(&m.1, &t.policy, runs_cut);
        let seconds: Vec<f64> = free.iter().map(|(s, _)| *s).collect();
        let stretched = stretch(&seconds, &cut, mean, median).unwrap_or_else(|| {
            panic!(
                "{}: no stretch of the times {seconds:?} gives mean {mean} s and median {median:?} s",
                t.policy
            )
        });
        for ((_, id), s) in free.into_iter().zip(stretched) {
            tuning.walls.insert(id, (s * 1000.0).round() as i64);
        }
    }
    // 4. A composed policy's mean time, by exchanging wall times.
    for t in targets.iter().filter(|t| t.is_composed()) {
        let Some((mean, _)) = t.time else {
            continue;
        };
        for _ in 0..32 {
            let runs = simulate(&tuning);
            let (numbers_of, _) = measure(experiment, &runs);
            let n = numbers(&numbers_of, &t.policy);
            if round_to(n.mean_time_s, 1) == mean {
                break;
            }
            let wanted = (mean - n.mean_time_s) * n.runs as f64 * 1000.0;
            let Some((a, b)) = best_exchange(experiment, &t.policy, &runs, &tuning, wanted) else {
                panic!(
                    "{}: no exchange of wall times brings its mean to {mean} s",
                    t.policy
                );
            };
            let (wa, wb) = (tuning.walls[&a], tuning.walls[&b]);
            tuning.walls.insert(a, wb);
            tuning.walls.insert(b, wa);
        }
    }
    tuning
}

/// The exchange of two pinned wall times, between a run a composed
/// policy's cells use and a run of the same tier they do not, that moves
/// its total time nearest to `wanted` ms more; `None` when none moves it
/// nearer.
fn best_exchange(
    experiment: &Experiment,
    policy: &str,
    runs: &[Run],
    tuning: &Tuning,
    wanted: f64,
) -> Option<(String, String)> {
    let judgement = Judgement::of(experiment, runs);
    let judged = judgement.runs();
    let primary = primary_runs(&judged);
    let p = experiment.policies.iter().find(|p| p.id == policy)?;
    let composition = compose(experiment, p, &primary).ok()??;
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut unused: BTreeSet<&str> = BTreeSet::new();
    for cell in &composition.cells {
        used.extend(cell.used.iter().map(|j| j.run.place.id.as_str()));
        unused.extend(cell.unused.iter().map(|j| j.run.place.id.as_str()));
    }
    let policy_of: BTreeMap<&str, &str> = primary
        .iter()
        .map(|j| (j.run.place.id.as_str(), j.run.place.policy.as_str()))
        .collect();
    let tier_of = |id: &str| policy_of.get(id).copied();
    let mut best: Option<(f64, String, String)> = None;
    for &a in &used {
        for &b in &unused {
            let (Some(wa), Some(wb)) = (tuning.wall(a), tuning.wall(b)) else {
                continue;
            };
            if tier_of(a) != tier_of(b) {
                continue;
            }
            let miss = (wanted - (wb - wa) as f64).abs();
            if miss < wanted.abs() && best.as_ref().is_none_or(|(m, _, _)| miss < *m) {
                best = Some((miss, a.to_string(), b.to_string()));
            }
        }
    }
    best.map(|(_, a, b)| (a, b))
}

/// Panics unless the runs publish `targets` (rounded as the source rounded them).
pub fn check(experiment: &Experiment, targets: &[Target], runs: &[Run]) {
    let (numbers_of, _) = measure(experiment, runs);
    for t in targets {
        let n = numbers(&numbers_of, &t.policy);
        let cost = n.cost_per_task_usd;
        if let Some(target) = t.cost {
            assert!(
                cost_rounds_to(cost.low, target.0) && cost_rounds_to(cost.high, target.1),
                "{} {}: cost {cost:?}, calibrated to {target:?}",
                experiment.id,
                t.policy,
            );
        }
        if let Some((mean, median)) = t.time {
            let published = (
                round_to(n.mean_time_s, 1),
                median.map(|_| round_to(n.median_time_s, 1)),
            );
            assert!(
                published == (mean, median),
                "{} {}: times {published:?}, calibrated to {:?}",
                experiment.id,
                t.policy,
                (mean, median)
            );
        }
    }
}

/// The primary analysis by policy, and each primary run's (policy, id, seconds).
type Measured = (Vec<PolicyNumbers>, Vec<(String, String, f64)>);

fn measure(experiment: &Experiment, runs: &[Run]) -> Measured {
    let judgement = Judgement::of(experiment, runs);
    let judged = judgement.runs();
    let primary = primary_runs(&judged);
    let analysis = analyze(experiment, &primary)
        .unwrap_or_else(|e| panic!("simulated prices are complete: {e}"));
    let times = primary
        .iter()
        .map(|j| {
            (
                j.run.place.policy.clone(),
                j.run.place.id.clone(),
                j.run.seconds(),
            )
        })
        .collect();
    (analysis.policies, times)
}

fn numbers<'a>(policies: &'a [PolicyNumbers], policy: &str) -> &'a PolicyNumbers {
    policies
        .iter()
        .find(|p| p.policy == policy)
        .unwrap_or_else(|| panic!("a calibrated policy `{policy}` has runs"))
}

/// The times of a policy's runs: those not cut at the run limit, and those cut.
fn times(
    runs: &[(String, String, f64)],
    policy: &str,
    cut: &BTreeSet<String>,
) -> (Vec<f64>, Vec<f64>) {
    let of_policy = runs.iter().filter(|(p, _, _)| p == policy);
    let (c, free): (Vec<_>, Vec<_>) = of_policy.partition(|(_, id, _)| cut.contains(id));
    (
        free.iter().map(|(_, _, s)| *s).collect(),
        c.iter().map(|(_, _, s)| *s).collect(),
    )
}

/// Whether a cost, as published (six decimals), rounds to `target` at four.
fn cost_rounds_to(cost: f64, target: f64) -> bool {
    (round_to(round_to(cost, 6), 4) - target).abs() < HALF_COST / 10.0
}

/// Where the low end of a cost range `width` wide may lie for both its ends
/// to round to `target`.
fn cost_window(target: (f64, f64), width: f64) -> Option<(f64, f64)> {
    let lo = (target.0 - HALF_COST).max(target.1 - HALF_COST - width);
    let hi = (target.0 + HALF_COST).min(target.1 + HALF_COST - width);
    (lo < hi).then_some((lo, hi))
}

/// The positions of the middle value(s) among `n` sorted values.
fn middle(n: usize) -> Vec<usize> {
    if n.is_multiple_of(2) {
        vec![n / 2 - 1, n / 2]
    } else {
        vec![n / 2]
    }
}

/// The times `free` (sorted, fastest first) stretched so that, with the
/// unchanged times `cut` (the slowest), they have this mean and median:
/// each is scaled by `a` (which sets the median), and those above the
/// median are `d` slower besides (which sets the mean). Without a median,
/// each is scaled by the one `a` that sets the mean. `None` when that
/// would reorder them or bring one to the run limit.
fn stretch(free: &[f64], cut: &[f64], mean: f64, median: Option<f64>) -> Option<Vec<f64>> {
    let n = free.len() + cut.len();
    let middle = middle(n);
    let last = *middle.last()?;
    if last >= free.len() {
        return None;
    }
    let a = match median {
        Some(median) => median * middle.len() as f64 / middle.iter().map(|&i| free[i]).sum::<f64>(),
        None => (mean * n as f64 - cut.iter().sum::<f64>()) / free.iter().sum::<f64>(),
    };
    let above = free.len() - last - 1;
    let want = mean * n as f64 - cut.iter().sum::<f64>();
    let d = if above == 0 || median.is_none() {
        0.0
    } else {
        (want - a * free.iter().sum::<f64>()) / above as f64
    };
    let out: Vec<f64> = free
        .iter()
        .enumerate()
        .map(|(i, t)| a * t + if i > last { d } else { 0.0 })
        .collect();
    let ordered = out.windows(2).all(|w| w[0] <= w[1]);
    let limit = cut.iter().copied().fold(175.0, f64::min);
    let total = out.iter().sum::<f64>();
    (ordered && out.last()? < &limit && (total - want).abs() < 1e-6).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_keeps_the_order_and_hits_mean_and_median() {
        let free = [2.0, 3.0, 4.0, 5.0, 8.0, 13.0];
        let t = stretch(&free, &[], 9.0, Some(4.0)).expect("a stretch");
        assert!(((t[2] + t[3]) / 2.0 - 4.0).abs() < 1e-6);
        assert!((t.iter().sum::<f64>() / 6.0 - 9.0).abs() < 1e-3);
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        // Without a median, one scale for all.
        let t = stretch(&free, &[20.0], 10.0, None).expect("a stretch");
        assert!((t.iter().sum::<f64>() + 20.0 - 70.0).abs() < 1e-6);
        assert!((t[5] / t[0] - 6.5).abs() < 1e-9);
    }

    #[test]
    fn a_cost_range_aims_where_both_ends_round_right() {
        let (lo, hi) = cost_window((0.0058, 0.0060), 0.000115).expect("feasible");
        let (aim, slack) = ((lo + hi) / 2.0, (hi - lo) / 4.0);
        assert!(
            cost_rounds_to(aim - slack, 0.0058) && cost_rounds_to(aim + slack + 0.000115, 0.0060)
        );
        assert!(cost_window((0.0073, 0.0078), 0.0002).is_none());
    }
}
