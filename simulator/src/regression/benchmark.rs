//! The benchmark as the suite publishes it: per label class the edits
//! detected or falsely held, the noise floor of the control replays, recall
//! and block recall, and the time from each edit to its verdict, from the
//! script's verdicts (the verifier recomputes each from the edits).

use std::collections::BTreeMap;

use receipts_verifier::model::Provenance;
use receipts_verifier::model::{
    ClassRates, EditLatency, FormatVersion, NoiseFloor, Recall, RegressionBenchmark,
    RegressionBenchmarkKind, SkillEdit, VerdictResult,
};
use receipts_verifier::time::{format, UnixMillis};
use receipts_verifier::verify::same_side_effects;

use super::SUITE;

/// The benchmark as the suite published it, from the script's verdicts.
pub(super) fn benchmark(edits: &[SkillEdit], at: i64) -> RegressionBenchmark {
    let mut classes: BTreeMap<String, ClassRates> = BTreeMap::new();
    let (mut pairs, mut diverged) = (0, 0);
    for edit in edits {
        let label = edit
            .label
            .as_ref()
            .expect("every simulated edit is labelled");
        let row = classes.entry(label.class.clone()).or_insert(ClassRates {
            class: label.class.clone(),
            regression: label.regression,
            total: 0,
            detected: None,
            detection_rate: None,
            false_blocks: None,
            false_warns: None,
        });
        row.total += 1;
        let caught = edit.verdict.result != VerdictResult::Pass;
        if label.regression {
            row.detected = Some(row.detected.unwrap_or(0) + u64::from(caught));
        } else {
            let block = edit.verdict.result == VerdictResult::Block;
            row.false_blocks = Some(row.false_blocks.unwrap_or(0) + u64::from(block));
            row.false_warns = Some(row.false_warns.unwrap_or(0) + u64::from(caught && !block));
        }
        for r in &edit.replays {
            if let Some(c) = &r.control {
                pairs += 1;
                diverged += u64::from(!same_side_effects(c, &r.golden));
            }
        }
    }
    let regressions: Vec<&SkillEdit> = edits
        .iter()
        .filter(|e| e.label.as_ref().is_some_and(|l| l.regression))
        .collect();
    let n = regressions.len() as u64;
    let held_or_reverted = regressions
        .iter()
        .filter(|e| e.verdict.result != VerdictResult::Pass)
        .count() as u64;
    let reverted = regressions
        .iter()
        .filter(|e| e.verdict.result == VerdictResult::Block)
        .count() as u64;
    let two = |x: f64| (x * 100.0).round() / 100.0;
    let mut seconds: Vec<f64> = edits
        .iter()
        .map(|e| {
            let at = |t: &str| receipts_verifier::time::parse(t).map_or(0, |t| t.0);
            let decided = e.verdict.decided_at.as_deref().map_or(0, at);
            (decided - at(&e.edited_at)) as f64 / 1000.0
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let rank = (95 * seconds.len()).div_ceil(100).max(1);
    let mean = seconds.iter().sum::<f64>() / seconds.len().max(1) as f64;
    for row in classes.values_mut() {
        row.detection_rate = row
            .detected
            .map(|d| (d as f64 / row.total as f64 * 100.0).round() / 100.0);
    }
    RegressionBenchmark {
        format_version: FormatVersion,
        kind: RegressionBenchmarkKind::RegressionBenchmark,
        suite: SUITE.to_string(),
        provenance: Provenance::Simulated,
        published_at: format(UnixMillis(at)),
        classes: classes.into_values().collect(),
        noise_floor: {
            // Published to two decimals.
            let floor = NoiseFloor::of(pairs, diverged);
            NoiseFloor {
                rate: (floor.rate * 100.0).round() / 100.0,
                ..floor
            }
        },
        recall: Some(Recall {
            regressions: n,
            held_or_reverted,
            reverted,
            recall: two(held_or_reverted as f64 / n.max(1) as f64),
            block_recall: two(reverted as f64 / n.max(1) as f64),
        }),
        latency: Some(EditLatency {
            edits: seconds.len() as u64,
            mean_s: (mean * 10.0).round() / 10.0,
            p95_s: seconds.get(rank - 1).copied().unwrap_or(0.0),
        }),
    }
}
