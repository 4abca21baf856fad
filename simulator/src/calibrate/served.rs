//! Step 5 of the calibration: the median call's served throughput. Where a
//! policy's runs have their wall times pinned, a call's speed is its
//! completion tokens over its share of its run's time, so scaling the
//! policy's completion tokens moves its median call's speed in proportion
//! while its times stay as they were (its cost moves with them, and is
//! found again afterwards from its prompt tokens alone). Where they are
//! not pinned, its calls' latency is scaled instead, and its times move.

use std::collections::BTreeMap;

use super::{numbers, Measured, Secant, Target, Tuning};

/// Scales every policy with a served throughput until its median call
/// rounds to it; whether anything had to be scaled. Panics when it cannot
/// be reached.
pub(super) fn throughput(
    targets: &[Target],
    tuning: &mut Tuning,
    run: &mut dyn FnMut(&Tuning) -> Measured,
) -> bool {
    let served: Vec<(&Target, f64)> = targets
        .iter()
        .filter_map(|t| Some((t, t.served?)))
        .collect();
    if served.is_empty() {
        return false;
    }
    let base = tuning.clone();
    let mut steps: BTreeMap<&str, Secant> = served
        .iter()
        .map(|(t, _)| (t.policy.as_str(), Secant::default()))
        .collect();
    for round in 0..24 {
        for (t, _) in &served {
            let mut s = base.policy_scales(&t.policy);
            let k = steps[t.policy.as_str()].k;
            if tuning.pinned.contains(&t.policy) {
                s.completion *= k;
            } else {
                s.latency /= k;
            }
            tuning.by_policy.insert(t.policy.clone(), s);
        }
        let m = run(tuning);
        let mut settled = true;
        for &(t, tps) in &served {
            let now = numbers(&m.0, &t.policy).median_tps.unwrap_or_else(|| {
                panic!(
                    "{}: no call with known usage to serve a throughput",
                    t.policy
                )
            });
            // Aim at the middle of what rounds to the printed figure.
            if (now - tps).abs() < 0.25 {
                continue;
            }
            settled = false;
            steps
                .entry(t.policy.as_str())
                .or_default()
                .step(now - tps, tps / now);
        }
        if settled {
            return round > 0;
        }
    }
    panic!("the served throughput calibration did not converge");
}
