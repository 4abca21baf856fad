//! Hypothesis outcomes from their machine-readable decision rules.
//!
//! A rule reads its own experiment's primary analysis, and another
//! experiment's where a metric names one ([`Analyses`]).
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

/// The primary analyses a rule can read: its own experiment's (`None`) and,
/// by id, the other experiments' of the study.
pub trait Analyses {
    fn analysis(&self, experiment: Option<&str>) -> Option<&Analysis>;
}

/// An analysis alone: a rule naming another experiment is not decided.
impl Analyses for Analysis {
    fn analysis(&self, experiment: Option<&str>) -> Option<&Analysis> {
        experiment.is_none().then_some(self)
    }
}

/// An experiment's primary analysis with the other experiments' by id.
pub struct WithOthers<'a> {
    pub own: &'a Analysis,
    pub others: &'a std::collections::BTreeMap<String, Analysis>,
}

impl Analyses for WithOthers<'_> {
    fn analysis(&self, experiment: Option<&str>) -> Option<&Analysis> {
        match experiment {
            None => Some(self.own),
            Some(id) => self.others.get(id),
        }
    }
}

fn metric<A: Analyses + ?Sized>(analyses: &A, r: &MetricRef) -> Option<Bound> {
    let analysis = analyses.analysis(r.experiment.as_deref())?;
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
pub fn decide<A: Analyses + ?Sized>(rule: &Rule, analysis: &A) -> Outcome {
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

fn metric_name(m: Metric) -> &'static str {
    match m {
        Metric::PassRate => "pass rate",
        Metric::CostPerTask => "cost per task",
        Metric::MeanTime => "mean time",
        Metric::MedianTime => "median time",
        Metric::Truncations => "truncations",
        Metric::Timeouts => "timeouts",
    }
}

/// A metric's policy, with its experiment where it names one.
fn who(m: &MetricRef) -> String {
    match &m.experiment {
        Some(e) => format!("{e} {}", m.policy),
        None => m.policy.clone(),
    }
}

fn op_text(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Lt => "<",
        CompareOp::Le => "≤",
        CompareOp::Gt => ">",
        CompareOp::Ge => "≥",
    }
}

/// Why `rule` decides as it does over `analysis`, in words with the numbers.
pub fn explain<A: Analyses + ?Sized>(rule: &Rule, analysis: &A) -> String {
    match rule {
        Rule::All(rules) => rules
            .iter()
            .map(|r| explain(r, analysis))
            .collect::<Vec<_>>()
            .join("; and "),
        Rule::Any(rules) => rules
            .iter()
            .map(|r| explain(r, analysis))
            .collect::<Vec<_>>()
            .join("; or "),
        Rule::Compare {
            left,
            op,
            right,
            offset,
        } => {
            let Some(l) = metric(analysis, left) else {
                return format!("not decided: no runs of `{}`", who(left));
            };
            let small = matches!(op, CompareOp::Lt | CompareOp::Le);
            // The end of a bound least favourable to the hypothesis.
            let (lv, l_end) = if l.low == l.high {
                (l.low, "")
            } else if small {
                (l.high, " (high end)")
            } else {
                (l.low, " (low end)")
            };
            let (rv, r_text) = match right {
                Operand::Metric(m) => match metric(analysis, m) {
                    None => return format!("not decided: no runs of `{}`", who(m)),
                    Some(b) => {
                        let (v, end) = if b.low == b.high {
                            (b.low, "")
                        } else if small {
                            (b.low, " (low end)")
                        } else {
                            (b.high, " (high end)")
                        };
                        (
                            v,
                            format!("{} {} {}{end}", who(m), metric_name(m.metric), fmt(v)),
                        )
                    }
                },
                Operand::Value(c) => (c.value, fmt(c.value)),
            };
            let offset_text = if *offset == 0.0 {
                String::new()
            } else {
                format!(
                    " {} {}",
                    if *offset < 0.0 { "−" } else { "+" },
                    fmt(offset.abs())
                )
            };
            let holds = decide(rule, analysis) == Outcome::Accepted;
            format!(
                "{} {} {}{l_end} {} {r_text}{offset_text}{}: {}",
                who(left),
                metric_name(left.metric),
                fmt(lv),
                op_text(*op),
                if *offset == 0.0 {
                    String::new()
                } else {
                    format!(" = {}", fmt(rv + offset))
                },
                if holds { "holds" } else { "does not hold" }
            )
        }
    }
}

/// A number with as few decimals as show it (up to six).
fn fmt(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Constant, CostBound, PolicyNumbers};

    fn policy(id: &str, pass: f64, low: f64, high: f64) -> PolicyNumbers {
        PolicyNumbers {
            policy: id.to_string(),
            runs: 18,
            pass_rate_pct: pass,
            pass_rate_sd_pct: 0.0,
            cost_per_task_usd: CostBound { low, high },
            mean_time_s: 10.0,
            median_time_s: 9.0,
            truncations: 0,
            timeouts: 0,
            errors: 0,
            empty_responses: 0,
            retries: 0,
            throughput_tps: 100.0,
        }
    }

    fn cheaper() -> Rule {
        Rule::Compare {
            left: MetricRef {
                metric: Metric::CostPerTask,
                policy: "a".into(),
                experiment: None,
            },
            op: CompareOp::Lt,
            right: Operand::Metric(MetricRef {
                metric: Metric::CostPerTask,
                policy: "b".into(),
                experiment: None,
            }),
            offset: 0.0,
        }
    }

    #[test]
    fn unknown_costs_count_against_the_hypothesis() {
        // a's bound straddles b's cost: only the high end decides.
        let analysis = Analysis {
            policies: vec![
                policy("a", 90.0, 0.004, 0.006),
                policy("b", 90.0, 0.005, 0.005),
            ],
            tiers: vec![],
        };
        assert_eq!(decide(&cheaper(), &analysis), Outcome::Rejected);
        assert!(
            explain(&cheaper(), &analysis)
                .contains("0.006 (high end) < b cost per task 0.005: does not hold"),
            "{}",
            explain(&cheaper(), &analysis)
        );
        let analysis = Analysis {
            policies: vec![
                policy("a", 90.0, 0.004, 0.0045),
                policy("b", 90.0, 0.005, 0.005),
            ],
            tiers: vec![],
        };
        assert_eq!(decide(&cheaper(), &analysis), Outcome::Accepted);
    }

    #[test]
    fn a_missing_policy_is_not_decided() {
        let analysis = Analysis {
            policies: vec![policy("a", 90.0, 0.004, 0.004)],
            tiers: vec![],
        };
        assert_eq!(decide(&cheaper(), &analysis), Outcome::NotDecided);
        assert_eq!(
            explain(&cheaper(), &analysis),
            "not decided: no runs of `b`"
        );
    }

    #[test]
    fn offsets_and_constants_are_explained() {
        let rule = Rule::Compare {
            left: MetricRef {
                metric: Metric::PassRate,
                policy: "a".into(),
                experiment: None,
            },
            op: CompareOp::Ge,
            right: Operand::Value(Constant { value: 95.0 }),
            offset: -5.0,
        };
        let analysis = Analysis {
            policies: vec![policy("a", 90.0, 0.0, 0.0)],
            tiers: vec![],
        };
        assert_eq!(decide(&rule, &analysis), Outcome::Accepted);
        assert_eq!(
            explain(&rule, &analysis),
            "a pass rate 90 ≥ 95 − 5 = 90: holds"
        );
    }
}
