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
    /// The primary analysis of `experiment` (by id), or of the rule's own
    /// experiment for `None`; `None` when there is none to read.
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
    /// The primary analysis of the rule's own experiment.
    pub own: &'a Analysis,
    /// The other experiments' primary analyses, by experiment id.
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

/// The metric in words, as an outcome's explanation names it (`pass rate`).
pub fn metric_name(m: Metric) -> &'static str {
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
                            format!(
                                "{} {} {}{end}",
                                who(m),
                                metric_name(m.metric),
                                quantity(m.metric, v)
                            ),
                        )
                    }
                },
                Operand::Value(c) => (c.value, quantity(left.metric, c.value)),
            };
            let offset_text = offset_text(left.metric, *offset, ("−", "+"));
            let holds = decide(rule, analysis) == Outcome::Accepted;
            format!(
                "{} {} {}{l_end} {} {r_text}{offset_text}{}: {}",
                who(left),
                metric_name(left.metric),
                quantity(left.metric, lv),
                op_text(*op),
                if *offset == 0.0 {
                    String::new()
                } else {
                    format!(" = {}", quantity(left.metric, rv + offset))
                },
                if holds { "holds" } else { "does not hold" }
            )
        }
    }
}

/// The metrics `rule` reads, each once, in the order it reads them.
pub fn metrics(rule: &Rule) -> Vec<&MetricRef> {
    let mut out: Vec<&MetricRef> = Vec::new();
    fn walk<'r>(rule: &'r Rule, out: &mut Vec<&'r MetricRef>) {
        match rule {
            Rule::All(rules) | Rule::Any(rules) => rules.iter().for_each(|r| walk(r, out)),
            Rule::Compare { left, right, .. } => {
                let mut push = |m: &'r MetricRef| {
                    if !out.contains(&m) {
                        out.push(m);
                    }
                };
                push(left);
                if let Operand::Metric(m) = right {
                    push(m);
                }
            }
        }
    }
    walk(rule, &mut out);
    out
}

/// A metric's value as `rule` reads it: a bound where some cost is unknown;
/// `None` when the analyses have no runs of its policy.
pub fn metric_value<A: Analyses + ?Sized>(analyses: &A, r: &MetricRef) -> Option<(f64, f64)> {
    metric(analyses, r).map(|b| (b.low, b.high))
}

/// A quantity of `metric` in its unit, for a rule in words.
fn quantity(m: Metric, x: f64) -> String {
    match m {
        Metric::PassRate => format!("{}%", fmt(x)),
        Metric::CostPerTask => format!("${}", fmt(x)),
        Metric::MeanTime | Metric::MedianTime => format!("{} s", fmt(x)),
        Metric::Truncations | Metric::Timeouts => fmt(x),
    }
}

/// A rule's offset, ` − 5 points` (`signs` for below and above zero); none
/// when it is zero.
fn offset_text(m: Metric, offset: f64, signs: (&str, &str)) -> String {
    if offset == 0.0 {
        return String::new();
    }
    let sign = if offset < 0.0 { signs.0 } else { signs.1 };
    format!(" {sign} {}", difference(m, offset.abs()))
}

/// A difference of two quantities of `metric`: rates differ in points.
fn difference(m: Metric, x: f64) -> String {
    match m {
        Metric::PassRate => format!("{} points", fmt(x)),
        m => quantity(m, x),
    }
}

/// `rule` in words, as pre-registered, without the numbers it is decided
/// on: e.g. "ladder's pass rate is at least always-large's pass rate minus 5
/// points, and ladder's cost per task is below always-large's cost per task".
pub fn describe(rule: &Rule) -> String {
    match rule {
        Rule::All(rules) if rules.is_empty() => "no condition (never decided)".to_string(),
        Rule::Any(rules) if rules.is_empty() => "no condition (never decided)".to_string(),
        Rule::All(rules) => join_words(rules.iter().map(describe).collect(), "and"),
        Rule::Any(rules) => join_words(rules.iter().map(describe).collect(), "or"),
        Rule::Compare {
            left,
            op,
            right,
            offset,
        } => {
            let plural = matches!(left.metric, Metric::Truncations | Metric::Timeouts);
            let verb = match (op, plural) {
                (CompareOp::Lt, false) => "is below",
                (CompareOp::Lt, true) => "are fewer than",
                (CompareOp::Le, false) => "is at most",
                (CompareOp::Le, true) => "are at most",
                (CompareOp::Gt, false) => "is above",
                (CompareOp::Gt, true) => "are more than",
                (CompareOp::Ge, false) => "is at least",
                (CompareOp::Ge, true) => "are at least",
            };
            let right_text = match right {
                Operand::Metric(m) => in_words(m),
                Operand::Value(c) => quantity(left.metric, c.value),
            };
            let offset_text = offset_text(left.metric, *offset, ("minus", "plus"));
            format!("{} {verb} {right_text}{offset_text}", in_words(left))
        }
    }
}

/// A metric in words: `ladder's pass rate`, `always-medium's pass rate in E01`.
pub fn in_words(m: &MetricRef) -> String {
    let within = m
        .experiment
        .as_ref()
        .map(|e| format!(" in {e}"))
        .unwrap_or_default();
    format!("{}'s {}{within}", m.policy, metric_name(m.metric))
}

/// `a, b and c`; a part that is itself a list is bracketed.
fn join_words(parts: Vec<String>, word: &str) -> String {
    let parts: Vec<String> = parts
        .into_iter()
        .map(|p| {
            if p.contains(", and ") || p.contains(", or ") {
                format!("({p})")
            } else {
                p
            }
        })
        .collect();
    match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{}, {word} {last}", init.join(", ")),
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
            incomplete_cells: 0,
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
            median_tps: Some(100.0),
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
                .contains("$0.006 (high end) < b cost per task $0.005: does not hold"),
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
            "a pass rate 90% ≥ 95% − 5 points = 90%: holds"
        );
    }

    #[test]
    fn a_rule_reads_in_words_with_its_units() {
        let within = Rule::Compare {
            left: MetricRef {
                metric: Metric::PassRate,
                policy: "a".into(),
                experiment: None,
            },
            op: CompareOp::Ge,
            right: Operand::Metric(MetricRef {
                metric: Metric::PassRate,
                policy: "b".into(),
                experiment: Some("E01".into()),
            }),
            offset: -5.0,
        };
        let quick = Rule::Compare {
            left: MetricRef {
                metric: Metric::MeanTime,
                policy: "a".into(),
                experiment: None,
            },
            op: CompareOp::Lt,
            right: Operand::Value(Constant { value: 30.0 }),
            offset: 0.0,
        };
        let none = Rule::Compare {
            left: MetricRef {
                metric: Metric::Timeouts,
                policy: "b".into(),
                experiment: None,
            },
            op: CompareOp::Le,
            right: Operand::Value(Constant { value: 0.0 }),
            offset: 0.0,
        };
        assert_eq!(
            describe(&within),
            "a's pass rate is at least b's pass rate in E01 minus 5 points"
        );
        let rule = Rule::All(vec![
            within.clone(),
            cheaper(),
            Rule::Any(vec![quick, none]),
        ]);
        assert_eq!(
            describe(&rule),
            "a's pass rate is at least b's pass rate in E01 minus 5 points, \
             a's cost per task is below b's cost per task, \
             and (a's mean time is below 30 s, or b's timeouts are at most 0)"
        );
        // Each metric once, in the order the rule reads them.
        let read: Vec<String> = metrics(&rule)
            .iter()
            .map(|m| format!("{}:{}", who(m), metric_name(m.metric)))
            .collect();
        assert_eq!(
            read,
            [
                "a:pass rate",
                "E01 b:pass rate",
                "a:cost per task",
                "b:cost per task",
                "a:mean time",
                "b:timeouts"
            ]
        );
    }
}
