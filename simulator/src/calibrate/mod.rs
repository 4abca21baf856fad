//! Calibration: the simulator's provider is scaled so that a sample
//! experiment publishes the figures of the study it imitates. It stays a
//! simulator: every run is still simulated, and the scales are found by
//! simulating, measuring with the verifier's own arithmetic and simulating
//! again, always in the same steps, so the same plan gives the same bytes.
//!
//! Per policy with a target, in these steps:
//! 1. times: completion tokens are scaled so that, at the tiers' served
//!    speeds, the median run takes about as long as the target says;
//! 2. cost: prompt tokens (and completion tokens too, where neither a time
//!    nor a served throughput is targeted) are scaled until the published
//!    cost rounds to the target (`cost.rs`);
//! 3. times again: each run's wall time is pinned to `a · t`, plus `d` for
//!    the runs slower than the median, where `t` is its simulated time (the
//!    order is kept; `a` sets the median and `d` the mean); the provider's
//!    latency in that run is scaled to match. Runs cut at the run limit
//!    keep their time (`time.rs`);
//! 4. a composed policy's mean time, by exchanging pinned wall times
//!    between the tier runs its cells use and those they do not, or, where
//!    no tier of it has a time of its own to keep, by pinning the wall
//!    times of the runs of the tiers its cost is reached through to one
//!    factor of their simulated times;
//! 5. the median call's served throughput, by completion tokens, the wall
//!    times staying pinned; then the costs again, from prompts alone
//!    (`served.rs`).

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::model::{Experiment, PolicyNumbers, Run};
use receipts_verifier::numbers::{analyze, primary_runs, round_to};

use super::publish::Judgement;

mod cost;
mod served;
mod time;

use cost::cost_rounds_to;

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
    pub change: Option<Change>,
    /// The median call's served throughput, in tokens a second as the
    /// source printed it (whole): reached by scaling the policy's completion
    /// tokens while its runs' wall times stay pinned.
    pub served: Option<f64>,
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
            served: None,
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
            served: None,
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
            served: None,
        }
    }

    /// A cost only.
    pub fn cost(policy: &str, cost: (f64, f64)) -> Target {
        Target {
            policy: policy.to_string(),
            cost: Some(cost),
            time: None,
            via: Vec::new(),
            change: None,
            served: None,
        }
    }

    /// The cost, besides, `percent` above (or, negative, below) the cost of
    /// `policy`, printed with `decimals`.
    pub fn changed_from(self, policy: &str, percent: f64, decimals: usize) -> Target {
        self.changed_from_range(policy, (percent, percent), decimals)
    }

    /// A cost range's change against `policy`'s cost, from its low end's to
    /// its high end's, printed with `decimals`. Its width comes from the
    /// calls the run limit cut: their reserved prompts are scaled for it.
    pub fn changed_from_range(self, policy: &str, percent: (f64, f64), decimals: usize) -> Target {
        Target {
            change: Some(Change {
                policy: policy.to_string(),
                low: percent.0,
                high: percent.1,
                decimals,
            }),
            ..self
        }
    }

    /// A served throughput only.
    pub fn throughput(policy: &str, tps: f64) -> Target {
        Target {
            policy: policy.to_string(),
            cost: None,
            time: None,
            via: Vec::new(),
            change: None,
            served: Some(tps),
        }
    }

    /// The median call's served throughput besides, in tokens a second.
    pub fn serving(self, tps: f64) -> Target {
        Target {
            served: Some(tps),
            ..self
        }
    }

    fn is_composed(&self) -> bool {
        !self.via.is_empty()
    }
}

/// A cost's change against another policy's, as printed.
#[derive(Debug, Clone)]
pub struct Change {
    pub policy: String,
    /// The change of the cost's low end, in percent.
    pub low: f64,
    /// The change of its high end (the low end's, for an exact cost).
    pub high: f64,
    /// The decimals the percentages are printed with.
    pub decimals: usize,
}

impl Change {
    /// Where a cost `base` changed by `percent` rounds as printed.
    fn window(&self, base: f64, percent: f64) -> (f64, f64) {
        let half = 0.5 / 10f64.powi(self.decimals as i32);
        (
            base * (1.0 + (percent - half) / 100.0),
            base * (1.0 + (percent + half) / 100.0),
        )
    }
}

/// How the scripted provider is scaled: prompt and completion token counts
/// and call latency (1.0 leaves each as simulated), and the prompt of a
/// call whose usage is lost besides (which sets how much its reservation
/// bounds the run's cost by).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scales {
    pub prompt: f64,
    pub completion: f64,
    pub latency: f64,
    pub lost_prompt: f64,
}

impl Default for Scales {
    fn default() -> Scales {
        Scales {
            prompt: 1.0,
            completion: 1.0,
            latency: 1.0,
            lost_prompt: 1.0,
        }
    }
}

/// The scales of an experiment: by policy, and the wall time (ms) each
/// pinned run must take.
#[derive(Debug, Clone)]
pub struct Tuning {
    by_policy: BTreeMap<String, Scales>,
    walls: BTreeMap<String, i64>,
    /// The policies whose runs' wall times are pinned.
    pinned: BTreeSet<String>,
    /// A further factor on the prompt of the call whose usage a run lost
    /// (cut at the run limit, or past the call timeout): its reservation
    /// sets how wide the cost bound it leaves is.
    cut_prompt: f64,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            by_policy: BTreeMap::new(),
            walls: BTreeMap::new(),
            pinned: BTreeSet::new(),
            cut_prompt: 1.0,
        }
    }
}

impl Tuning {
    /// The scales of a run of `policy`, `cut` when it loses a call's usage.
    pub fn scales(&self, policy: &str, cut: bool) -> Scales {
        let s = self.policy_scales(policy);
        if cut {
            Scales {
                lost_prompt: self.cut_prompt,
                ..s
            }
        } else {
            s
        }
    }

    fn policy_scales(&self, policy: &str) -> Scales {
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
        self.k = next.clamp(0.05, 400.0);
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
    time::completion_for_time(targets, runs_cut, &mut tuning, &mut run);
    cost::costs(targets, &mut tuning, &mut run);
    time::pin_walls(targets, runs_cut, &mut tuning, &mut run);
    // A composed policy's mean moves with its tiers' unpinned times, and
    // its exchanges move its tiers' calls' speeds: each in turn until
    // neither moves the other.
    for _ in 0..4 {
        let mut run = |t: &Tuning| measure(experiment, &simulate(t));
        let moved = served::throughput(targets, &mut tuning, &mut run);
        if moved {
            // A pinned policy's completion tokens, or an unpinned one's
            // latency, moved: the costs again, from prompts alone.
            cost::costs(targets, &mut tuning, &mut run);
        }
        time::composed_means(experiment, targets, runs_cut, &mut tuning, simulate);
        if !moved {
            break;
        }
    }
    tuning
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
        if let Some(tps) = t.served {
            let served = n.median_tps.map(f64::round);
            assert!(
                served == Some(tps),
                "{} {}: median call served at {:?} tok/s, calibrated to {tps}",
                experiment.id,
                t.policy,
                n.median_tps
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
