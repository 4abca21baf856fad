//! Hypothesis outcomes from their machine-readable decision rules.
//!
//! Where a metric is a bound (some cost unknown), the comparison uses the end
//! of the bound least favourable to the hypothesis, so unknown costs count
//! against it. A rule that needs a policy with no runs is not decided.

use crate::model::{Analysis, CompareOp, Metric, MetricRef, Operand, Outcome, PolicyNumbers, Rule};

/// A metric's value as a bound; `low == high` when exact.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    low: f64,
    high: f64,
}

fn metric(analysis: &Analysis, r: &MetricRef) -> Option<Bound> {
    let p: &PolicyNumbers = analysis.policies.iter().find(|p| p.policy == r.policy)?;
    let exact = |v: f64| Bound { low: v, high: v };
    Some(match r.metric {
        Metric::PassRate => exact(p.pass_rate_pct),
        Metric::CostPerTask => Bound {
            low: p.cost_per_task_usd.low,
            high: p.cost_per_task_usd.high,
        },
        Metric::MeanTime => exact(p.mean_time_s),
        Metric::MedianTime => exact(p.median_time_s),
        Metric::Truncations => exact(p.truncations as f64),
        Metric::Timeouts => exact(p.timeouts as f64),
    })
}

/// The outcome of `rule` over the numbers in `analysis`.
pub fn decide(rule: &Rule, analysis: &Analysis) -> Outcome {
    match rule {
        Rule::All(rules) | Rule::Any(rules) if rules.is_empty() => Outcome::NotDecided,
        Rule::All(rules) => {
            let outcomes: Vec<Outcome> = rules.iter().map(|r| decide(r, analysis)).collect();
            if outcomes.contains(&Outcome::Rejected) {
                Outcome::Rejected
            } else if outcomes.contains(&Outcome::NotDecided) {
                Outcome::NotDecided
            } else {
                Outcome::Accepted
            }
        }
        Rule::Any(rules) => {
            let outcomes: Vec<Outcome> = rules.iter().map(|r| decide(r, analysis)).collect();
            if outcomes.contains(&Outcome::Accepted) {
                Outcome::Accepted
            } else if outcomes.contains(&Outcome::NotDecided) {
                Outcome::NotDecided
            } else {
                Outcome::Rejected
            }
        }
        Rule::Compare {
            left,
            op,
            right,
            offset,
        } => {
            let Some(l) = metric(analysis, left) else {
                return Outcome::NotDecided;
            };
            let r = match right {
                Operand::Metric(m) => match metric(analysis, m) {
                    Some(b) => b,
                    None => return Outcome::NotDecided,
                },
                Operand::Value(c) => Bound {
                    low: c.value,
                    high: c.value,
                },
            };
            // The hypothesis wants `left` small for < and <=, large for > and >=;
            // take each side's least favourable end.
            let holds = match op {
                CompareOp::Lt => l.high < r.low + offset,
                CompareOp::Le => l.high <= r.low + offset,
                CompareOp::Gt => l.low > r.high + offset,
                CompareOp::Ge => l.low >= r.high + offset,
            };
            if holds {
                Outcome::Accepted
            } else {
                Outcome::Rejected
            }
        }
    }
}
