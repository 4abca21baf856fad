//! Claims bound to figures: headlines, findings and memo sentences whose
//! numbers are receipts. The syntax ([`syntax`]) binds each number a claim
//! writes to the figure it claims; [`judge`] reads the number as written
//! (its sign words and precision included) and holds it to the figure's
//! recomputed bound; [`claim_receipts`] makes one receipt per number, and
//! one failing receipt per number typed by hand.

pub mod judge;
pub mod syntax;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::Analysis;
use crate::verify::Receipt;

pub use judge::Bound;
pub use syntax::{FigurePath, Segment, Target};

/// The recomputed analyses of each experiment, by id: the primary one and
/// the secondary ones by id.
#[derive(Debug, Default)]
pub struct Figures<'a> {
    experiments: BTreeMap<&'a str, (&'a Analysis, &'a BTreeMap<String, Analysis>)>,
}

impl<'a> Figures<'a> {
    pub fn add(
        &mut self,
        experiment: &'a str,
        primary: &'a Analysis,
        secondary: &'a BTreeMap<String, Analysis>,
    ) {
        self.experiments.insert(experiment, (primary, secondary));
    }

    /// The figure at `path`, or why there is none (with the names nearby).
    pub fn get(&self, path: &FigurePath) -> Result<Bound, String> {
        let (primary, secondary) =
            self.experiments
                .get(path.experiment.as_str())
                .ok_or_else(|| {
                    format!(
                        "no experiment `{}` (there are {})",
                        path.experiment,
                        list(self.experiments.keys().copied())
                    )
                })?;
        let analysis = match &path.analysis {
            None => *primary,
            Some(id) => secondary.get(id).ok_or_else(|| {
                format!(
                    "no analysis `{id}` in {} (there are {})",
                    path.experiment,
                    list(secondary.keys().map(String::as_str))
                )
            })?,
        };
        let numbers = analysis
            .policies
            .iter()
            .find(|p| p.policy == path.policy)
            .ok_or_else(|| {
                format!(
                    "no policy `{}` in {} (there are {})",
                    path.policy,
                    path.experiment,
                    list(analysis.policies.iter().map(|p| p.policy.as_str()))
                )
            })?;
        let value = serde_json::to_value(numbers).unwrap_or(Value::Null);
        let field = value.get(&path.field).ok_or_else(|| {
            let fields = value
                .as_object()
                .map(|m| list(m.keys().map(String::as_str).filter(|k| *k != "policy")))
                .unwrap_or_default();
            format!("no figure `{}` (there are {fields})", path.field)
        })?;
        match field {
            Value::Number(n) => n.as_f64().map(Bound::exact),
            Value::Object(m) => match (
                m.get("low").and_then(Value::as_f64),
                m.get("high").and_then(Value::as_f64),
            ) {
                (Some(low), Some(high)) => Some(Bound { low, high }),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| format!("`{path}` is not a number"))
    }

    /// The value a target names.
    pub fn evaluate(&self, target: &Target) -> Result<Bound, String> {
        match target {
            Target::Figure(p) => self.get(p),
            Target::Change(a, b) => Bound::change(self.get(a)?, self.get(b)?),
            Target::Diff(a, b) => Ok(Bound::diff(self.get(a)?, self.get(b)?)),
            Target::Ratio(a, b) => Bound::ratio(self.get(a)?, self.get(b)?),
        }
    }
}

fn list<'s>(names: impl Iterator<Item = &'s str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The receipts of claim `text`, recorded in `subject` at `place` (e.g.
/// `headline`): one per bound number, held to its figure, and a failing
/// one per number typed by hand.
pub fn claim_receipts(
    subject: &str,
    place: &str,
    text: &str,
    figures: &Figures<'_>,
) -> Vec<Receipt> {
    let segments = match syntax::parse(text) {
        Ok(s) => s,
        Err((at, why)) => {
            return vec![Receipt::new(
                subject,
                place,
                text,
                format!("byte {at}: {why}"),
                false,
            )]
        }
    };
    let mut out = Vec::new();
    for segment in &segments {
        match segment {
            Segment::Text(prose) => {
                for number in syntax::hand_typed(prose) {
                    out.push(Receipt::new(
                        subject,
                        format!("{place}: `{number}`"),
                        number,
                        format!(
                            "a number typed by hand: bind it to its figure, `[{number}](#E01.ladder.pass_rate_pct)`, or mark it not measured, `[{number}](#registered)`"
                        ),
                        false,
                    ));
                }
            }
            Segment::Registered(_) => {}
            Segment::Bound { text, target } => {
                let claim = format!("{place}: `{text}`");
                let verdict = figures.evaluate(target).and_then(|figure| {
                    match judge::direction(text)? {
                        // A direction alone: `[cheaper](#change(a,b))`.
                        Some(sign) if !text.bytes().any(|b| b.is_ascii_digit()) => {
                            judge::holds_direction(sign, figure)?
                        }
                        _ => judge::agrees(&judge::read(text)?, figure)?,
                    }
                    Ok(figure)
                });
                out.push(match verdict {
                    Ok(figure) => Receipt::new(subject, claim, text, show(figure), true),
                    Err(why) => Receipt::new(subject, claim, text, why, false),
                });
            }
        }
    }
    out
}

fn show(b: Bound) -> String {
    if b.low == b.high {
        format!("{}", b.low)
    } else {
        format!("{} to {}", b.low, b.high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Status;

    fn policy(id: &str, pass: f64, low: f64, high: f64) -> Value {
        serde_json::json!({
            "policy": id, "runs": 18, "pass_rate_pct": pass, "pass_rate_sd_pct": 9.6,
            "cost_per_task_usd": {"low": low, "high": high},
            "mean_time_s": 54.1, "median_time_s": 40.0, "truncations": 1, "timeouts": 0,
            "throughput_tps": 150.0
        })
    }

    /// E02 as the sources corrected it, and the secondary analysis that
    /// counted reruns in place of the runs they replaced.
    fn e02() -> (Analysis, BTreeMap<String, Analysis>) {
        let analysis = |ladder: f64| -> Analysis {
            serde_json::from_value(serde_json::json!({
                "policies": [policy("ladder", ladder, 0.0058, 0.0060), policy("always-large", 77.78, 0.0061, 0.0061)],
                "tiers": []
            }))
            .expect("analysis")
        };
        let secondary = BTreeMap::from([("reruns-replace".to_string(), analysis(88.89))]);
        (analysis(83.33), secondary)
    }

    fn statuses(text: &str) -> Vec<(String, Status, String)> {
        let (primary, secondary) = e02();
        let mut figures = Figures::default();
        figures.add("E02", &primary, &secondary);
        claim_receipts("E02/summary.json", "headline", text, &figures)
            .into_iter()
            .map(|r| (r.claim, r.status, r.recomputed))
            .collect()
    }

    #[test]
    fn the_corrected_headline_written_with_references_passes() {
        let got = statuses(
            "In E02 the ladder passed [83.3%](#E02.ladder.pass_rate_pct) of tasks against [77.8%](#E02.always-large.pass_rate_pct), at [1.6–4.9% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost, under a [30 s](#registered) target.",
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|(_, s, _)| *s == Status::Pass), "{got:?}");
    }

    #[test]
    fn the_first_published_headline_fails_typed_or_bound() {
        // Typed by hand: each number fails as such.
        let got = statuses("The ladder passed 89% of tasks at 33% lower cost than always-large.");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(|(c, s, why)| *s == Status::Fail
            && why.contains("typed by hand")
            && c.contains('%')));
        // Bound: the pass rate to the primary analysis, the cost to its change.
        let got = statuses(
            "The ladder passed [89%](#E02.ladder.pass_rate_pct) at [33% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost.",
        );
        assert!(got.iter().all(|(_, s, _)| *s == Status::Fail), "{got:?}");
        assert!(got[0].2.contains("83.33"), "both values shown: {got:?}");
        assert!(got[1].2.contains("between"), "{got:?}");
    }

    #[test]
    fn a_figure_of_another_analysis_is_named_and_checked_there() {
        // 89% is the pass rate counting reruns: true of that analysis, and
        // the claim says so by naming it.
        let got = statuses("[88.9%](#E02/reruns-replace.ladder.pass_rate_pct)");
        assert_eq!(got[0].1, Status::Pass, "{got:?}");
    }

    #[test]
    fn a_comparison_word_is_held_to_the_whole_bound() {
        let change = "(#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd))";
        let got = statuses(&format!("[cheaper]{change}"));
        assert_eq!(
            got[0].1,
            Status::Pass,
            "the whole bound is below zero: {got:?}"
        );
        let got = statuses(&format!("[dearer]{change}"));
        assert_eq!(got[0].1, Status::Fail, "{got:?}");
        // Widen the ladder's bound past always-large's cost: cheaper no longer holds.
        let (mut primary, secondary) = e02();
        primary.policies[0].cost_per_task_usd.high = 0.0063;
        let mut figures = Figures::default();
        figures.add("E02", &primary, &secondary);
        let r = claim_receipts("s", "headline", &format!("[cheaper]{change}"), &figures);
        assert_eq!(r[0].status, Status::Fail, "{r:?}");
        assert!(r[0].recomputed.contains("not wholly below zero"), "{r:?}");
    }

    #[test]
    fn an_unknown_figure_names_what_there_is() {
        let got = statuses("[83.3%](#E02.ladder.pass_rate)");
        assert_eq!(got[0].1, Status::Fail);
        assert!(got[0].2.contains("`pass_rate_pct`"), "{got:?}");
        let got = statuses("[83.3%](#E09.ladder.pass_rate_pct)");
        assert!(
            got[0].2.contains("no experiment `E09` (there are `E02`)"),
            "{got:?}"
        );
    }
}
