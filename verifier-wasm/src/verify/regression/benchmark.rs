//! A suite's benchmark recomputed from its labelled edits: per class, the
//! regressions detected (held or reverted) and the controls falsely blocked
//! or held, each by the edit's recomputed verdict; and the noise floor, how
//! often a control replay of the unchanged skill differs from its golden
//! trace.

use std::collections::BTreeMap;

use crate::model::{
    benchmark_path, ClassRates, EditLatency, NoiseFloor, PercentileMethod, Recall,
    RegressionBenchmark, RegressionSuite, SkillEdit, VerdictResult,
};

use super::super::harness::percentile;

use super::super::published::agrees_to;

/// The decimals a recorded rate is checked to, at least.
const RATE_DECIMALS: usize = 2;
use super::super::Receipt;
use super::{replay_verdict, same_side_effects, time_to_verdict_s, verdict};

/// The rates of a suite's labelled edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    /// One row per class, sorted by class.
    pub classes: Vec<ClassRates>,
    /// How often a control replay of the unchanged skill differs from its
    /// golden trace, over every labelled edit's replays.
    pub noise_floor: NoiseFloor,
    /// Labelled edits whose verdict cannot be decided (left out of the rates).
    pub undecided: Vec<String>,
    /// The labelled regressions held or reverted, of those whose verdict is
    /// decided.
    pub recall: Recall,
    /// The time to verdict over the labelled edits, or the edit that has none.
    pub latency: Result<EditLatency, String>,
}

/// Recomputes the rates from the edits' labels and recomputed verdicts.
pub fn benchmark_rates(suite: &RegressionSuite, edits: &[SkillEdit]) -> Rates {
    let mut classes: BTreeMap<&str, ClassRates> = BTreeMap::new();
    let mut undecided = Vec::new();
    let mut recall = Recall {
        regressions: 0,
        held_or_reverted: 0,
        reverted: 0,
        recall: 0.0,
        block_recall: 0.0,
    };
    let mut seconds = Ok(Vec::new());
    let (mut pairs, mut diverged) = (0u64, 0u64);
    for edit in edits {
        let Some(label) = &edit.label else { continue };
        if let Ok(list) = &mut seconds {
            match time_to_verdict_s(edit) {
                Some(s) => list.push(s),
                None => seconds = Err(format!("{} has no time to its verdict", edit.id)),
            }
        }
        for r in &edit.replays {
            if let Some(control) = &r.control {
                pairs += 1;
                if !same_side_effects(control, &r.golden) {
                    diverged += 1;
                }
            }
        }
        let decisions: Vec<_> = edit
            .replays
            .iter()
            .map(|r| replay_verdict(suite, r))
            .collect();
        let Some(result) = verdict(&decisions) else {
            undecided.push(edit.id.clone());
            continue;
        };
        let row = classes.entry(&label.class).or_insert_with(|| ClassRates {
            class: label.class.clone(),
            regression: label.regression,
            total: 0,
            detected: label.regression.then_some(0),
            detection_rate: None,
            false_blocks: (!label.regression).then_some(0),
            false_warns: (!label.regression).then_some(0),
        });
        row.total += 1;
        if label.regression {
            recall.regressions += 1;
            recall.held_or_reverted += u64::from(result != VerdictResult::Pass);
            recall.reverted += u64::from(result == VerdictResult::Block);
        }
        let bump = |n: &mut Option<u64>| {
            if let Some(n) = n {
                *n += 1;
            }
        };
        match result {
            VerdictResult::Pass => {}
            VerdictResult::Warn => {
                bump(&mut row.detected);
                bump(&mut row.false_warns);
            }
            VerdictResult::Block => {
                bump(&mut row.detected);
                bump(&mut row.false_blocks);
            }
        }
    }
    let classes = classes
        .into_values()
        .map(|mut row| {
            row.detection_rate = row.detected.map(|d| d as f64 / row.total as f64);
            row
        })
        .collect();
    let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    recall.recall = share(recall.held_or_reverted, recall.regressions);
    recall.block_recall = share(recall.reverted, recall.regressions);
    let latency = seconds.map(|s| {
        // Whole milliseconds, so the nearest rank is taken exactly.
        let ms: Vec<u64> = s
            .iter()
            .map(|x| (x * 1000.0).round().max(0.0) as u64)
            .collect();
        EditLatency {
            edits: s.len() as u64,
            mean_s: if s.is_empty() {
                0.0
            } else {
                s.iter().sum::<f64>() / s.len() as f64
            },
            p95_s: percentile(PercentileMethod::NearestRank, &ms, 95).unwrap_or(0) as f64 / 1000.0,
        }
    });
    Rates {
        recall,
        latency,
        classes,
        noise_floor: NoiseFloor::of(pairs, diverged),
        undecided,
    }
}

fn count(v: Option<u64>) -> String {
    v.map_or_else(|| "null".to_string(), |n| n.to_string())
}

fn rate(v: Option<f64>) -> String {
    v.map_or_else(|| "null".to_string(), |x| format!("{x}"))
}

/// Every published figure of the benchmark against its recomputation.
pub fn verify_benchmark(
    dir: &str,
    suite: &RegressionSuite,
    edits: &[SkillEdit],
    published: &RegressionBenchmark,
) -> Vec<Receipt> {
    let subject = benchmark_path(dir);
    let subject = subject.as_str();
    let rates = benchmark_rates(suite, edits);
    let mut receipts = vec![Receipt::new(
        subject,
        "suite",
        &published.suite,
        &suite.id,
        published.suite == suite.id,
    )];
    if !rates.undecided.is_empty() {
        receipts.push(Receipt::unchecked(
            subject,
            "classes",
            format!("{} classes", published.classes.len()),
            format!(
                "the verdicts of {} cannot be decided",
                rates.undecided.join(", ")
            ),
        ));
    }
    let recomputed: BTreeMap<&str, &ClassRates> = rates
        .classes
        .iter()
        .map(|c| (c.class.as_str(), c))
        .collect();
    let mut recorded: BTreeMap<&str, &ClassRates> = BTreeMap::new();
    for c in &published.classes {
        // A class given twice would hide one of its rows.
        if recorded.insert(&c.class, c).is_some() {
            receipts.push(Receipt::new(
                subject,
                format!("classes[{}]", c.class),
                "published more than once",
                "one row per class",
                false,
            ));
        }
    }
    let names: std::collections::BTreeSet<&str> =
        recomputed.keys().chain(recorded.keys()).copied().collect();
    for name in names {
        let (Some(p), Some(r)) = (recorded.get(name), recomputed.get(name)) else {
            let (shown, found) = match recorded.get(name) {
                Some(_) => ("published", "no labelled edit has this class"),
                None => ("not published", "a class of the labelled edits"),
            };
            receipts.push(Receipt::new(
                subject,
                format!("classes[{name}]"),
                shown,
                found,
                false,
            ));
            continue;
        };
        let claim = |field: &str| format!("classes[{name}].{field}");
        receipts.push(Receipt::equal(
            subject,
            claim("regression"),
            p.regression,
            r.regression,
        ));
        for (field, a, b) in [
            ("total", Some(p.total), Some(r.total)),
            ("detected", p.detected, r.detected),
            ("false_blocks", p.false_blocks, r.false_blocks),
            ("false_warns", p.false_warns, r.false_warns),
        ] {
            receipts.push(Receipt::new(
                subject,
                claim(field),
                count(a),
                count(b),
                a == b,
            ));
        }
        let rates_agree = match (p.detection_rate, r.detection_rate) {
            (Some(a), Some(b)) => agrees_to(a, b, RATE_DECIMALS),
            (a, b) => a.is_none() && b.is_none(),
        };
        receipts.push(Receipt::new(
            subject,
            claim("detection_rate"),
            rate(p.detection_rate),
            rate(r.detection_rate),
            rates_agree,
        ));
    }
    let (p, r) = (&published.noise_floor, &rates.noise_floor);
    for (field, a, b) in [
        ("noise_floor.pairs", p.pairs, r.pairs),
        ("noise_floor.diverged", p.diverged, r.diverged),
    ] {
        receipts.push(Receipt::equal(subject, field, a, b));
    }
    if let Some(p) = &published.recall {
        let r = &rates.recall;
        for (field, a, b) in [
            ("recall.regressions", p.regressions, r.regressions),
            (
                "recall.held_or_reverted",
                p.held_or_reverted,
                r.held_or_reverted,
            ),
            ("recall.reverted", p.reverted, r.reverted),
        ] {
            receipts.push(Receipt::equal(subject, field, a, b));
        }
        for (field, a, b) in [
            ("recall.recall", p.recall, r.recall),
            ("recall.block_recall", p.block_recall, r.block_recall),
        ] {
            receipts.push(Receipt::new(
                subject,
                field,
                format!("{a}"),
                format!("{b}"),
                agrees_to(a, b, RATE_DECIMALS),
            ));
        }
    }
    if let Some(p) = &published.latency {
        match &rates.latency {
            Ok(r) => {
                receipts.push(Receipt::equal(subject, "latency.edits", p.edits, r.edits));
                for (field, a, b) in [
                    ("latency.mean_s", p.mean_s, r.mean_s),
                    ("latency.p95_s", p.p95_s, r.p95_s),
                ] {
                    receipts.push(Receipt::new(
                        subject,
                        field,
                        format!("{a}"),
                        format!("{b}"),
                        agrees_to(a, b, 1),
                    ));
                }
            }
            Err(why) => receipts.push(Receipt::new(
                subject,
                "latency",
                format!("mean {} s, p95 {} s", p.mean_s, p.p95_s),
                why,
                false,
            )),
        }
    }
    receipts.push(Receipt::new(
        subject,
        "noise_floor.rate",
        format!("{}", p.rate),
        format!("{}", r.rate),
        agrees_to(p.rate, r.rate, RATE_DECIMALS),
    ));
    receipts
}
