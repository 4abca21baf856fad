//! Step 2 of the calibration: each cost target reached by one factor per
//! policy (prompt tokens, and completion tokens where neither a time nor a
//! served throughput holds them), and a cost range's width (printed as a
//! range, or as a change against another policy) through the prompts of
//! the runs a call lost its usage in.

use std::collections::BTreeMap;

use receipts_verifier::numbers::round_to;

use super::{numbers, Measured, Secant, Target, Tuning, HALF_COST};

/// Scales `tuning` until every cost target rounds as printed; panics when
/// it cannot.
pub(super) fn costs(
    targets: &[Target],
    tuning: &mut Tuning,
    run: &mut dyn FnMut(&Tuning) -> Measured,
) {
    let costed: Vec<(&Target, (f64, f64))> =
        targets.iter().filter_map(|t| Some((t, t.cost?))).collect();
    let mut steps: BTreeMap<&str, Secant> = costed
        .iter()
        .map(|(t, _)| (t.policy.as_str(), Secant::default()))
        .collect();
    let base = tuning.clone();
    let mut cut = Secant::default();
    let mut converged = costed.is_empty();
    for _ in 0..24 {
        if converged {
            break;
        }
        tuning.cut_prompt = cut.k;
        for (t, _) in &costed {
            let k = steps[t.policy.as_str()].k;
            if t.is_composed() {
                // Where no tier of it has a time of its own, its tiers'
                // wall times are pinned only with its mean (step 4), and
                // until then their calls' speed does not move with their
                // completion tokens.
                let untimed = !t.via.iter().any(|v| timed(targets, v));
                for via in &t.via {
                    let mut s = base.policy_scales(via);
                    s.prompt *= k;
                    // A tier whose served throughput is a target keeps its
                    // completion tokens: they set that throughput.
                    let keeps = serves(targets, via) && (!untimed || tuning.pinned.contains(via));
                    if !keeps {
                        s.completion *= k;
                    }
                    tuning.by_policy.insert(via.clone(), s);
                }
                continue;
            }
            let mut s = base.policy_scales(&t.policy);
            s.prompt *= k;
            // Completion tokens set a served throughput only where the
            // runs' wall times are pinned (or will be, for a time target).
            if t.time.is_none() && (t.served.is_none() || !tuning.pinned.contains(&t.policy)) {
                s.completion *= k;
            }
            tuning.by_policy.insert(t.policy.clone(), s);
        }
        let m = run(tuning);
        converged = true;
        for &(t, cost) in &costed {
            let n = numbers(&m.0, &t.policy);
            let (low, high) = (n.cost_per_task_usd.low, n.cost_per_task_usd.high);
            let feasible = cost_window(cost, high - low);
            if t.change.is_none() && feasible.is_none() {
                // A range printed as is, as wide as no range that rounds to
                // it: its width, from the reserved prompts of the calls
                // whose usage was lost.
                let (aim, width) = (cost.1 - cost.0, high - low);
                assert!(
                    width > 0.0,
                    "{}: its cost is exact, so no range can be aimed",
                    t.policy
                );
                converged = false;
                cut.step(width - aim, aim / width);
                continue;
            }
            let mut window = feasible.unwrap_or_else(|| {
                panic!(
                    "{}: a cost range {:.6} wide cannot round to {cost:?}",
                    t.policy,
                    high - low,
                )
            });
            if let Some(change) = &t.change {
                let base = numbers(&m.0, &change.policy).cost_per_task_usd.low;
                let (lo, hi) = (
                    change.window(base, change.low),
                    change.window(base, change.high),
                );
                let both = (window.0.max(lo.0), window.1.min(lo.1));
                // Until the other policy's cost has settled the two may not meet.
                if both.0 < both.1 {
                    window = both;
                } else {
                    converged = false;
                }
                if change.high != change.low {
                    // The width, from the cut calls' reserved prompts.
                    let aim = (hi.0 + hi.1 - lo.0 - lo.1) / 2.0;
                    let width = high - low;
                    if !(hi.0..hi.1).contains(&high) || !(lo.0..lo.1).contains(&low) {
                        converged = false;
                        if width <= 0.0 {
                            panic!(
                                "{}: its cost is exact, so no change of its range can be aimed",
                                t.policy
                            );
                        }
                        cut.step(width - aim, aim / width);
                    }
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
}

/// Whether `policy` has a time target.
fn timed(targets: &[Target], policy: &str) -> bool {
    targets
        .iter()
        .any(|t| t.policy == policy && t.time.is_some())
}

/// Whether `policy`'s served throughput is a target.
fn serves(targets: &[Target], policy: &str) -> bool {
    targets
        .iter()
        .any(|t| t.policy == policy && t.served.is_some())
}

/// Whether a cost, as published (six decimals), rounds to `target` at four.
pub(super) fn cost_rounds_to(cost: f64, target: f64) -> bool {
    (round_to(round_to(cost, 6), 4) - target).abs() < HALF_COST / 10.0
}

/// Where the low end of a cost range `width` wide may lie for both its ends
/// to round to `target`.
fn cost_window(target: (f64, f64), width: f64) -> Option<(f64, f64)> {
    let lo = (target.0 - HALF_COST).max(target.1 - HALF_COST - width);
    let hi = (target.0 + HALF_COST).min(target.1 + HALF_COST - width);
    (lo < hi).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

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
