//! The calibration's times: completion tokens scaled for the median time
//! at the tiers' speeds (step 1), each run's wall time pinned so that the
//! mean and median are the targets (step 3), and a composed policy's mean
//! reached by exchanging the pinned wall times of its tiers' runs (step 4).

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::model::{Experiment, Run};
use receipts_verifier::numbers::compose::{self, compose};
use receipts_verifier::numbers::{primary_runs, round_to};

use super::super::publish::Judgement;
use super::{measure, numbers, Measured, Target, Tuning};

/// Step 1: completion tokens for the median time, at the tiers' own speeds.
pub(super) fn completion_for_time(
    targets: &[Target],
    runs_cut: &BTreeSet<String>,
    tuning: &mut Tuning,
    run: &mut dyn FnMut(&Tuning) -> Measured,
) {
    for _ in 0..8 {
        let m = run(tuning);
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
}

/// Step 3: each run's wall time, so that the mean and the median are the targets.
pub(super) fn pin_walls(
    targets: &[Target],
    runs_cut: &BTreeSet<String>,
    tuning: &mut Tuning,
    run: &mut dyn FnMut(&Tuning) -> Measured,
) {
    let m = run(tuning);
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
        tuning.pinned.insert(t.policy.clone());
    }
}

/// Step 4: a composed policy's mean time, by exchanging wall times, or by
/// scaling them where none of its tiers has a time target to keep.
pub(super) fn composed_means(
    experiment: &Experiment,
    targets: &[Target],
    runs_cut: &BTreeSet<String>,
    tuning: &mut Tuning,
    simulate: &mut dyn FnMut(&Tuning) -> Vec<Run>,
) {
    for t in targets.iter().filter(|t| t.is_composed()) {
        let Some((mean, _)) = t.time else {
            continue;
        };
        let tiers = tier_policies(experiment, &t.policy);
        let timed = targets
            .iter()
            .any(|o| o.time.is_some() && tiers.contains(&o.policy));
        if !timed {
            // The tiers its cost is reached through carry its time too:
            // a tier outside them keeps its simulated times (and so the
            // completion tokens its own cost and throughput rest on).
            scaled_mean(
                experiment, &t.policy, mean, &t.via, runs_cut, tuning, simulate,
            );
            continue;
        }
        for _ in 0..32 {
            let runs = simulate(tuning);
            let (numbers_of, _) = measure(experiment, &runs);
            let n = numbers(&numbers_of, &t.policy);
            if round_to(n.mean_time_s, 1) == mean {
                break;
            }
            let wanted = (mean - n.mean_time_s) * n.runs as f64 * 1000.0;
            let Some((a, b)) = best_exchange(experiment, &t.policy, &runs, tuning, wanted) else {
                panic!(
                    "{}: no exchange of wall times brings its mean from {:.2} s to {mean} s",
                    t.policy, n.mean_time_s
                );
            };
            let (wa, wb) = (tuning.walls[&a], tuning.walls[&b]);
            tuning.walls.insert(a, wb);
            tuning.walls.insert(b, wa);
        }
    }
}

/// The ids of the tier policies a composed policy stands on.
fn tier_policies(experiment: &Experiment, policy: &str) -> Vec<String> {
    let Some(p) = experiment.policies.iter().find(|p| p.id == policy) else {
        return Vec::new();
    };
    p.tiers
        .iter()
        .filter_map(|tier| compose::tier_policy(experiment, tier).map(|q| q.id.clone()))
        .collect()
}

/// A composed policy's mean time `mean` reached by pinning every run of
/// its tier policies `tiers` (but those a call lost its usage in, which
/// keep their time) to one factor of its time as now simulated.
fn scaled_mean(
    experiment: &Experiment,
    policy: &str,
    mean: f64,
    tiers: &[String],
    runs_cut: &BTreeSet<String>,
    tuning: &mut Tuning,
    simulate: &mut dyn FnMut(&Tuning) -> Vec<Run>,
) {
    let (numbers_of, times) = measure(experiment, &simulate(tuning));
    let now = numbers(&numbers_of, policy).mean_time_s;
    let base: Vec<(String, f64)> = times
        .into_iter()
        .filter(|(p, id, _)| tiers.contains(p) && !runs_cut.contains(id))
        .map(|(_, id, s)| (id, s))
        .collect();
    let mut k = super::Secant::default();
    let mut error = now - mean;
    for _ in 0..24 {
        if round_to(mean + error, 1) == mean && error.abs() < 0.03 {
            break;
        }
        k.step(error, mean / (mean + error));
        for (id, s) in &base {
            tuning
                .walls
                .insert(id.clone(), (s * k.k * 1000.0).round() as i64);
        }
        tuning.pinned.extend(tiers.iter().cloned());
        let (numbers_of, _) = measure(experiment, &simulate(tuning));
        error = numbers(&numbers_of, policy).mean_time_s - mean;
    }
    assert!(
        round_to(mean + error, 1) == mean,
        "{policy}: no scale of its tiers' times brings its mean to {mean} s"
    );
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
}
