//! Regression suites: a suite's page (its rules, the timeline of edits, the
//! cascade sieve, cost by tier against the all-largest counterfactual, the
//! benchmark, the ablations and the actions taken) and each edit's verdict
//! page (see [`super::skill_edit`]); the golden library and the weekly
//! digests are [`super::library`]'s.

use serde::Serialize;

use receipts_verifier::cost::Cost;
use receipts_verifier::model::{EditLabel, VerdictResult, REGRESSIONS_DIR};
use receipts_verifier::verify::{
    edit_cost, replay_verdict, Receipt, RegressionVerification, Status, CONTROL, DRIFT, LEVEL0,
};

use super::library::{golden_href, WeekLink};
use super::regression_history::{
    ablation_rows, action_rows, cascade_figures, AblationRow, ActionRow, CascadeFigures,
};
use super::{label, mark, receipt_cell, worst, Cell, ReceiptView};
use crate::load::LoadedRegressions;

pub fn regressions_href(suite: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}.html")
}
pub fn skill_edit_href(suite: &str, edit: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/{edit}.html")
}

/// A suite on the results page.
#[derive(Debug, Clone, Serialize)]
pub struct RegressionSummary {
    pub id: String,
    pub title: String,
    pub href: String,
    pub simulated: bool,
    pub edits: usize,
    /// Recomputed verdicts: PASS, WARN, BLOCK.
    pub verdicts: [usize; 3],
    pub receipts: usize,
    pub not_passing: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RegressionView {
    pub id: String,
    pub title: String,
    pub simulated: bool,
    pub judges: Vec<JudgeRow>,
    pub hard_tools: Vec<String>,
    pub pass_confidence: f64,
    pub timeline: Vec<TimelineRow>,
    pub sieve: Vec<SieveRow>,
    pub replays: usize,
    pub costs: Vec<TierCost>,
    pub total: Cost,
    pub all_largest: Cost,
    /// The counterfactual over the cascade's cost (lower bounds).
    pub ratio: Option<f64>,
    /// The edits, one verdict each, and the two costs per verdict.
    pub verdicts: usize,
    pub total_per_verdict: Cost,
    pub all_largest_per_verdict: Cost,
    pub benchmark: Option<BenchmarkView>,
    /// The full cascade's figures, beside the ablations' (when there are any).
    pub cascade: Option<CascadeFigures>,
    pub ablations: Vec<AblationRow>,
    pub actions: Vec<ActionRow>,
    pub golden_href: String,
    pub weeks: Vec<WeekLink>,
    pub receipts: usize,
    pub not_passing: Vec<ReceiptView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct JudgeRow {
    pub tier: String,
    pub model: String,
    pub input_per_mtok: Option<f64>,
    pub output_per_mtok: Option<f64>,
}

/// One edit on the timeline, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineRow {
    pub id: String,
    pub href: String,
    pub edited_at: String,
    pub skill: String,
    pub class: Option<String>,
    /// What the label calls for against the recomputed verdict.
    pub gate: Option<Gate>,
    pub replays: usize,
    pub verdict: Cell,
    pub action: Cell,
    pub cost: Cell,
    pub all_largest: Cell,
    pub verified: String,
    pub mark: String,
}

/// Whether the gate did what an edit's label calls for, by its recomputed
/// verdict: a regression must be held (WARN) or reverted (BLOCK), a
/// control must pass. Shown red when it did not, whatever the receipts say.
#[derive(Debug, Clone, Serialize)]
pub struct Gate {
    /// "caught", "missed", "passed", "false warn" or "false block".
    pub word: String,
    /// Whether the gate did what the label calls for.
    pub right: bool,
    /// The label in words, for a legend and a hover.
    pub label: String,
}

/// The gate's outcome for an edit labelled `label`, by the verdict
/// recomputed from its replays (`verdict.result`); `None` when the edit is
/// not labelled or the verdict could not be recomputed.
pub fn gate(label: Option<&EditLabel>, receipts: &[Receipt]) -> Option<Gate> {
    let label = label?;
    let verdict = receipts
        .iter()
        .find(|r| r.claim == "verdict.result" && r.status != Status::CouldNotCheck)?;
    let (word, right) = match (label.regression, verdict.recomputed.as_str()) {
        (true, "PASS") => ("missed", false),
        (true, _) => ("caught", true),
        (false, "PASS") => ("passed", true),
        (false, "WARN") => ("false warn", false),
        (false, _) => ("false block", false),
    };
    Some(Gate {
        word: word.to_string(),
        right,
        label: format!(
            "{}: {}",
            label.class,
            if label.regression {
                "a regression the benchmark planted; the gate must hold it (WARN) or revert it (BLOCK)"
            } else {
                "not a regression (a control); the gate must let it pass"
            }
        ),
    })
}

/// Where in the cascade replays were decided, and what they came to.
#[derive(Debug, Clone, Serialize)]
pub struct SieveRow {
    pub step: String,
    pub what: String,
    pub decided: usize,
    pub pass: usize,
    pub warn: usize,
    pub block: usize,
    /// Judge calls made at this step (judges only).
    pub calls: Option<usize>,
    /// What those calls cost, recomputed (judges only).
    pub cost: Option<Cost>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TierCost {
    pub tier: String,
    pub calls: usize,
    pub cost: Cost,
    /// The cost over the suite's edits, one verdict each.
    pub per_verdict: Cost,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkView {
    pub published_at: String,
    pub rows: Vec<BenchmarkRow>,
    pub noise: Vec<FigureCell>,
    /// Recall counting a hold and counting only a revert, and the time from
    /// edit to verdict, where the benchmark publishes them.
    pub gate: Vec<FigureCell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkRow {
    pub class: String,
    pub regression: bool,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FigureCell {
    pub label: String,
    pub cell: Cell,
}

/// The benchmark's columns: the claim's field and the heading.
pub const BENCHMARK_COLUMNS: &[(&str, &str)] = &[
    ("total", "Edits"),
    ("detected", "Detected (held or reverted)"),
    ("detection_rate", "Detection rate"),
    ("false_blocks", "False blocks"),
    ("false_warns", "False warns"),
];

fn result_index(r: VerdictResult) -> usize {
    match r {
        VerdictResult::Pass => 0,
        VerdictResult::Warn => 1,
        VerdictResult::Block => 2,
    }
}

fn recomputed_verdicts(loaded: &LoadedRegressions) -> [usize; 3] {
    let mut counts = [0; 3];
    for e in &loaded.edits {
        let decisions: Vec<_> = e
            .replays
            .iter()
            .map(|r| replay_verdict(&loaded.suite, r))
            .collect();
        if let Some(v) = receipts_verifier::verify::verdict(&decisions) {
            counts[result_index(v)] += 1;
        }
    }
    counts
}

/// Whether anything of a suite is simulated: the suite, an edit, the
/// benchmark, the action history or an ablation.
pub fn regressions_simulated(loaded: &LoadedRegressions) -> bool {
    loaded.suite.provenance.is_simulated()
        || loaded.edits.iter().any(|e| e.provenance.is_simulated())
        || loaded
            .benchmark
            .as_ref()
            .is_some_and(|b| b.provenance.is_simulated())
        || loaded
            .actions
            .as_ref()
            .is_some_and(|a| a.provenance.is_simulated())
        || loaded.ablations.iter().any(|a| a.provenance.is_simulated())
}

pub fn regression_summary(
    loaded: &LoadedRegressions,
    verified: &RegressionVerification,
) -> RegressionSummary {
    let all: Vec<&Receipt> = verified.all_receipts().collect();
    RegressionSummary {
        id: loaded.suite.id.clone(),
        title: loaded.suite.title.clone(),
        href: regressions_href(&loaded.dir),
        simulated: regressions_simulated(loaded),
        edits: loaded.edits.len(),
        verdicts: recomputed_verdicts(loaded),
        receipts: all.len(),
        not_passing: all.iter().filter(|r| r.status != Status::Pass).count(),
    }
}

fn sieve(loaded: &LoadedRegressions, costs: &[TierCost]) -> Vec<SieveRow> {
    let suite = &loaded.suite;
    let row = |step: &str, what: String| SieveRow {
        step: step.to_string(),
        what,
        decided: 0,
        pass: 0,
        warn: 0,
        block: 0,
        calls: None,
        cost: None,
    };
    let mut rows = vec![
        row(LEVEL0, "the side-effect diff, no model".to_string()),
        row(
            CONTROL,
            "the unchanged skill's replay made the same calls".to_string(),
        ),
    ];
    for j in &suite.judges {
        let mut r = row(&j.tier, format!("judge {}", j.model));
        r.calls = Some(0);
        r.cost = costs.iter().find(|c| c.tier == j.tier).map(|c| c.cost);
        rows.push(r);
    }
    rows.push(row(DRIFT, "evidence that the world changed".to_string()));
    let mut undecided = row(
        "undecided",
        "the recorded judges reach no decision".to_string(),
    );
    for replay in loaded.edits.iter().flat_map(|e| &e.replays) {
        for j in &replay.judges {
            if let Some(r) = rows.iter_mut().find(|r| r.step == j.tier) {
                r.calls = Some(r.calls.unwrap_or(0) + 1);
            }
        }
        let d = replay_verdict(suite, replay);
        let target = match d.result {
            Some(_) => rows.iter_mut().find(|r| r.step == d.decided_by),
            None => None,
        };
        let r = target.unwrap_or(&mut undecided);
        r.decided += 1;
        match d.result {
            Some(VerdictResult::Pass) => r.pass += 1,
            Some(VerdictResult::Warn) => r.warn += 1,
            Some(VerdictResult::Block) => r.block += 1,
            None => {}
        }
    }
    if undecided.decided > 0 {
        rows.push(undecided);
    }
    rows
}

/// Edit `i`'s row on a timeline.
pub fn timeline_row(
    loaded: &LoadedRegressions,
    verified: &RegressionVerification,
    i: usize,
) -> TimelineRow {
    let e = &loaded.edits[i];
    let receipts = &verified.edits[i];
    let status = worst(receipts);
    TimelineRow {
        id: e.id.clone(),
        href: skill_edit_href(&loaded.dir, &e.id),
        edited_at: e.edited_at.clone(),
        skill: e.skill.name.clone(),
        class: e.label.as_ref().map(|l| l.class.clone()),
        gate: gate(e.label.as_ref(), receipts),
        replays: e.replays.len(),
        verdict: receipt_cell(receipts, "verdict.result"),
        action: receipt_cell(receipts, "verdict.action"),
        cost: receipt_cell(receipts, "verdict.cost.total_usd"),
        all_largest: receipt_cell(receipts, "verdict.cost.all_largest_usd"),
        verified: label(&status),
        mark: mark(status).to_string(),
    }
}

pub fn regression_view(
    loaded: &LoadedRegressions,
    verified: &RegressionVerification,
    weeks: Vec<WeekLink>,
) -> RegressionView {
    let suite = &loaded.suite;
    let mut order: Vec<usize> = (0..loaded.edits.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&loaded.edits[a], &loaded.edits[b]);
        x.edited_at.cmp(&y.edited_at).then_with(|| x.id.cmp(&y.id))
    });
    let timeline = order
        .iter()
        .map(|&i| timeline_row(loaded, verified, i))
        .collect();
    let sum = |a: Cost, b: &Result<Cost, String>| b.as_ref().map_or(a, |c| a + *c);
    let costs: Vec<_> = loaded.edits.iter().map(|e| edit_cost(suite, e)).collect();
    let verdicts = loaded.edits.len().max(1) as f64;
    let per_verdict = |c: Cost| Cost {
        low: c.low / verdicts,
        high: c.high / verdicts,
    };
    let tiers: Vec<TierCost> = suite
        .judges
        .iter()
        .map(|j| {
            let cost = costs
                .iter()
                .filter_map(|c| c.by_tier.get(&j.tier))
                .fold(Cost::ZERO, sum);
            TierCost {
                tier: j.tier.clone(),
                calls: loaded
                    .edits
                    .iter()
                    .flat_map(|e| &e.replays)
                    .flat_map(|r| &r.judges)
                    .filter(|x| x.tier == j.tier)
                    .count(),
                cost,
                per_verdict: per_verdict(cost),
            }
        })
        .collect();
    let total = costs.iter().map(|c| &c.total).fold(Cost::ZERO, sum);
    let all_largest = costs.iter().map(|c| &c.all_largest).fold(Cost::ZERO, sum);
    let all: Vec<&Receipt> = verified.all_receipts().collect();
    RegressionView {
        id: suite.id.clone(),
        title: suite.title.clone(),
        simulated: regressions_simulated(loaded),
        judges: suite
            .judges
            .iter()
            .map(|j| {
                let price = suite.prices.models.get(&j.model);
                JudgeRow {
                    tier: j.tier.clone(),
                    model: j.model.clone(),
                    input_per_mtok: price.map(|p| p.input_per_mtok),
                    output_per_mtok: price.map(|p| p.output_per_mtok),
                }
            })
            .collect(),
        hard_tools: suite.hard_tools.clone(),
        pass_confidence: suite.pass_confidence,
        timeline,
        sieve: sieve(loaded, &tiers),
        replays: loaded.edits.iter().map(|e| e.replays.len()).sum(),
        costs: tiers,
        ratio: (total.low > 0.0).then(|| all_largest.low / total.low),
        verdicts: loaded.edits.len(),
        total_per_verdict: per_verdict(total),
        all_largest_per_verdict: per_verdict(all_largest),
        total,
        all_largest,
        benchmark: loaded
            .benchmark
            .as_ref()
            .map(|b| benchmark(loaded, b, verified)),
        cascade: (!loaded.ablations.is_empty()).then(|| cascade_figures(loaded)),
        ablations: ablation_rows(loaded, verified),
        actions: action_rows(loaded, verified, |_| true),
        golden_href: golden_href(&loaded.dir),
        weeks,
        receipts: all.len(),
        not_passing: all
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| ReceiptView::from(*r))
            .collect(),
    }
}

fn benchmark(
    loaded: &LoadedRegressions,
    b: &receipts_verifier::model::RegressionBenchmark,
    verified: &RegressionVerification,
) -> BenchmarkView {
    let subject = loaded.benchmark_path();
    let receipts = verified.receipts_of(&subject);
    BenchmarkView {
        published_at: b.published_at.clone(),
        rows: b
            .classes
            .iter()
            .map(|c| BenchmarkRow {
                class: c.class.clone(),
                regression: c.regression,
                cells: BENCHMARK_COLUMNS
                    .iter()
                    .map(|(field, _)| {
                        let mut cell =
                            receipt_cell(&receipts, &format!("classes[{}].{field}", c.class));
                        // A figure that does not apply to the class, and rightly is not given.
                        if cell.published.as_deref() == Some("null") && cell.recomputed == "null" {
                            cell.published = Some("–".to_string());
                            cell.mark = String::new();
                        }
                        cell
                    })
                    .collect(),
            })
            .collect(),
        noise: [
            ("noise_floor.pairs", "Replays with a control replay"),
            (
                "noise_floor.diverged",
                "Control replays that differ from the golden trace",
            ),
            ("noise_floor.rate", "Noise floor"),
        ]
        .into_iter()
        .map(|(claim, label)| FigureCell {
            label: label.to_string(),
            cell: receipt_cell(&receipts, claim),
        })
        .collect(),
        gate: [
            ("recall.regressions", "Labelled regressions"),
            (
                "recall.held_or_reverted",
                "Held or reverted (WARN or BLOCK)",
            ),
            ("recall.reverted", "Reverted (BLOCK)"),
            ("recall.recall", "Recall, a hold counted as a catch"),
            ("recall.block_recall", "Block recall, only a revert counted"),
            ("latency.edits", "Edits timed"),
            ("latency.mean_s", "Edit to verdict, mean (s)"),
            ("latency.p95_s", "Edit to verdict, p95 (s)"),
            ("latency", "Edit to verdict"),
        ]
        .into_iter()
        .filter(|(claim, _)| receipts.iter().any(|r| r.claim == *claim))
        .map(|(claim, label)| FigureCell {
            label: label.to_string(),
            cell: receipt_cell(&receipts, claim),
        })
        .collect(),
    }
}
