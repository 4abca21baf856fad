//! The study as a whole, for its index: the headline figures of every
//! experiment side by side, every hypothesis with its decision, the study's
//! totals and its named figures; and which experiments a page's claims read.

use std::collections::BTreeSet;

use serde::Serialize;

use receipts_verifier::claims::{show_figure, syntax, Figures, Unit};
use receipts_verifier::decide::{in_words, metrics};
use receipts_verifier::layout;
use receipts_verifier::model::{Metric, Outcome};
use receipts_verifier::model::{Study, STUDY_FILE};
use receipts_verifier::numbers::compose::tier_policy;
use receipts_verifier::verify::{study_figures, Reads};

use super::experiment::{Cell, ExperimentView};
use super::experiment_href;
use crate::load::Corpus;
use crate::verification::Verified;

/// The figures of a built study, for claims on its pages.
pub fn study_claim_figures<'a>(corpus: &'a Corpus, verified: &'a Verified) -> Figures<'a> {
    let experiments: Vec<(&str, &_)> = corpus
        .experiments
        .iter()
        .map(|l| l.dir.as_str())
        .zip(verified.experiments.iter())
        .collect();
    study_figures(&experiments, study(corpus)).0
}

fn study(corpus: &Corpus) -> Option<&Study> {
    corpus.study.as_ref().map(|(s, _)| s)
}

/// The other experiments whose records a page must verify to recompute what
/// `reads` reads: those, and those their own claims and rules read, in turn.
pub fn reads_closure(corpus: &Corpus, reads: Reads, own: Option<&str>) -> Vec<String> {
    let all = || {
        corpus
            .experiments
            .iter()
            .map(|e| e.dir.clone())
            .filter(|d| Some(d.as_str()) != own)
            .collect()
    };
    if reads.all {
        return all();
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut todo: Vec<String> = reads.experiments.into_iter().collect();
    while let Some(id) = todo.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        let Some(e) = corpus.experiments.iter().find(|e| e.dir == id) else {
            continue;
        };
        let more = Reads::of_experiment(&e.experiment, e.summary.as_ref(), study(corpus));
        if more.all {
            return all();
        }
        todo.extend(more.experiments);
    }
    if let Some(own) = own {
        seen.remove(own);
    }
    seen.into_iter().collect()
}

/// The experiments an experiment's page reads besides its own.
pub fn experiment_reads(corpus: &Corpus, dir: &str) -> Vec<String> {
    let Some(e) = corpus.experiments.iter().find(|e| e.dir == dir) else {
        return Vec::new();
    };
    let reads = Reads::of_experiment(&e.experiment, e.summary.as_ref(), study(corpus));
    reads_closure(corpus, reads, Some(dir))
}

/// The experiments a memo reads.
pub fn memo_reads(corpus: &Corpus, markdown: &str) -> Vec<String> {
    reads_closure(corpus, Reads::of_memo(markdown, study(corpus)), None)
}

#[derive(Debug, Clone, Serialize)]
pub struct StudyView {
    /// One per experiment, e.g. `E01 (2,048 output tokens)`.
    pub columns: Vec<Column>,
    /// One per policy of any experiment, in the order first met.
    pub rows: Vec<PolicyRow>,
    pub hypotheses: Vec<StudyHypothesis>,
    pub totals: Vec<StudyFigureRow>,
    /// The study's named figures (`study.json`).
    pub named: Vec<StudyFigureRow>,
    pub study_file: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub id: String,
    pub label: String,
    pub href: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PolicyRow {
    pub policy: String,
    /// Per column: the pass rate and the cost per task, recomputed.
    pub cells: Vec<Option<(String, String)>>,
}

/// One hypothesis of the study, as the index leads with it: the claim, its
/// decision, the rule in words, the figures the rule reads and the runs
/// behind them, each a link one step further down the trail.
#[derive(Debug, Clone, Serialize)]
pub struct StudyHypothesis {
    pub experiment: String,
    /// Its id on the index: `claim-e01-h1`.
    pub anchor: String,
    pub id: String,
    pub statement: String,
    /// Other experiments its rule reads.
    pub reads: Vec<String>,
    /// Its experiment was not pre-registered: the decision is exploratory.
    pub exploratory: bool,
    /// The recomputed decision in words: `supported`, `not supported`,
    /// `undecided`.
    pub decision: &'static str,
    /// The published outcome beside the recomputed one, with its receipt.
    pub cell: Cell,
    /// The rule, in words and at its row on the experiment's page.
    pub words: String,
    pub rule_href: String,
    /// Why it decides as it does, with the recomputed numbers.
    pub why: String,
    pub figures: Vec<ClaimFigure>,
    pub runs: Vec<RunsLink>,
}

/// A figure a hypothesis's rule reads, at its row on its experiment's page.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimFigure {
    /// `ladder's pass rate`, `always-medium's pass rate in E01`.
    pub label: String,
    pub href: String,
    /// Its published value beside the recomputed one; `None` when its
    /// policy has no runs.
    pub cell: Option<Cell>,
}

/// The runs of one policy of one experiment, in the runs index.
#[derive(Debug, Clone, Serialize)]
pub struct RunsLink {
    pub experiment: String,
    pub policy: String,
    pub runs: usize,
    pub href: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StudyFigureRow {
    /// How a claim names it, e.g. `study.total_cost_usd`.
    pub name: String,
    /// What it is, as HTML: a named figure's label is a claim, shown with
    /// each number's mark.
    pub label_html: String,
    /// What it is computed from (named figures).
    pub of: Option<String>,
    pub value: String,
    pub pass: bool,
}

/// `n` as a count, its digits grouped by thousands.
pub(super) fn thousands(n: u64) -> String {
    show_figure(
        receipts_verifier::claims::Bound::exact(n as f64),
        Unit::Count,
    )
}

/// The field of a numbers table that holds `metric`.
fn metric_field(metric: Metric) -> &'static str {
    match metric {
        Metric::PassRate => "pass_rate_pct",
        Metric::CostPerTask => "cost_per_task_usd",
        Metric::MeanTime => "mean_time_s",
        Metric::MedianTime => "median_time_s",
        Metric::Truncations => "truncations",
        Metric::Timeouts => "timeouts",
    }
}

/// A decision in the words a reader uses.
fn decision(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        Some(Outcome::Accepted) => "supported",
        Some(Outcome::Rejected) => "not supported",
        Some(Outcome::NotDecided) | None => "undecided",
    }
}

/// Every hypothesis of the study with its trail, from the experiments'
/// views (`views`, in the corpus's order).
fn hypotheses(
    corpus: &Corpus,
    verified: &Verified,
    views: &[ExperimentView],
) -> Vec<StudyHypothesis> {
    let view = |dir: &str| views.iter().find(|v| v.id == dir);
    let mut out = Vec::new();
    for ((loaded, v), page) in corpus
        .experiments
        .iter()
        .zip(&verified.experiments)
        .zip(views)
    {
        for (h, shown) in loaded.experiment.hypotheses.iter().zip(&page.hypotheses) {
            let outcome = v
                .hypotheses
                .iter()
                .find(|(id, _)| *id == h.id)
                .map(|(_, o)| *o);
            let read = metrics(&h.rule);
            let reads: BTreeSet<String> =
                read.iter().filter_map(|m| m.experiment.clone()).collect();
            let figures = read
                .iter()
                .map(|m| {
                    let dir = m.experiment.as_deref().unwrap_or(&loaded.dir);
                    let table = view(dir)
                        .and_then(|v| v.primary.as_ref())
                        .map(|t| &t.policies);
                    let row = table.and_then(|t| t.row(&m.policy));
                    ClaimFigure {
                        label: in_words(m),
                        href: format!(
                            "{}#policy-{}",
                            experiment_href(dir),
                            crate::anchors::slug(&m.policy)
                        ),
                        cell: table
                            .zip(row)
                            .and_then(|(t, r)| r.cell(t, metric_field(m.metric)))
                            .cloned(),
                    }
                })
                .collect();
            let mut runs: Vec<RunsLink> = Vec::new();
            for m in &read {
                let dir = m.experiment.as_deref().unwrap_or(&loaded.dir);
                let of = corpus.experiments.iter().find(|e| e.dir == dir);
                // A composed policy has no runs: its trail leads to the runs
                // of its tiers it was composed from.
                let policies: Vec<String> = of
                    .and_then(|e| {
                        let p = e
                            .experiment
                            .policies
                            .iter()
                            .find(|p| p.id == m.policy && p.composed)?;
                        Some(
                            p.tiers
                                .iter()
                                .filter_map(|t| tier_policy(&e.experiment, t).map(|q| q.id.clone()))
                                .collect(),
                        )
                    })
                    .unwrap_or_else(|| vec![m.policy.clone()]);
                for policy in policies {
                    if runs
                        .iter()
                        .any(|r| r.experiment == dir && r.policy == policy)
                    {
                        continue;
                    }
                    let count = of.map_or(0, |e| {
                        e.runs.iter().filter(|r| r.place.policy == policy).count()
                    });
                    runs.push(RunsLink {
                        experiment: dir.to_string(),
                        href: format!(
                            "runs/index.html?experiment={}&policy={}",
                            query(dir),
                            query(&policy)
                        ),
                        policy,
                        runs: count,
                    });
                }
            }
            out.push(StudyHypothesis {
                experiment: loaded.dir.clone(),
                anchor: format!(
                    "claim-{}-{}",
                    crate::anchors::slug(&loaded.dir),
                    crate::anchors::slug(&h.id)
                ),
                id: h.id.clone(),
                statement: h.statement.clone(),
                reads: reads.into_iter().collect(),
                exploratory: loaded.experiment.preregistration.is_none(),
                decision: decision(outcome),
                cell: shown.cell.clone(),
                words: shown.words.clone(),
                rule_href: format!("{}#{}", experiment_href(&loaded.dir), shown.anchor),
                why: shown.why.clone(),
                figures,
                runs,
            });
        }
    }
    out
}

/// `text` as a query-string value: everything but unreserved characters
/// percent-encoded.
fn query(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn study_view(corpus: &Corpus, verified: &Verified, views: &[ExperimentView]) -> StudyView {
    let figures = study_claim_figures(corpus, verified);
    let columns = corpus
        .experiments
        .iter()
        .map(|e| Column {
            id: e.dir.clone(),
            label: format!(
                "{} ({} output tokens)",
                e.dir,
                thousands(e.experiment.limits.max_output_tokens)
            ),
            href: experiment_href(&e.dir),
        })
        .collect();
    let mut policies: Vec<String> = Vec::new();
    for v in &verified.experiments {
        for p in &v.primary.policies {
            if !policies.contains(&p.policy) {
                policies.push(p.policy.clone());
            }
        }
    }
    let rows = policies
        .into_iter()
        .map(|policy| PolicyRow {
            cells: verified
                .experiments
                .iter()
                .map(|v| {
                    let p = v.primary.policies.iter().find(|p| p.policy == policy)?;
                    let cost = receipts_verifier::claims::Bound {
                        low: p.cost_per_task_usd.low,
                        high: p.cost_per_task_usd.high,
                    };
                    Some((
                        show_figure(
                            receipts_verifier::claims::Bound::exact(p.pass_rate_pct),
                            Unit::Percent,
                        ),
                        show_figure(cost, Unit::Usd),
                    ))
                })
                .collect(),
            policy,
        })
        .collect();
    let hypotheses = hypotheses(corpus, verified, views);
    let totals = [
        ("runs", "Runs"),
        ("calls", "Provider calls"),
        ("output_tokens", "Output tokens (calls with known usage)"),
        (
            "total_cost_usd",
            "Total spend (a bound where usage was lost)",
        ),
    ]
    .into_iter()
    .map(|(name, label)| figure_row(&figures, name, crate::escape::html(label), None))
    .collect();
    let named = study(corpus)
        .map(|s| {
            s.figures
                .iter()
                .map(|(name, f)| {
                    let label = super::parts_html(&super::claim_parts(&f.label, &figures));
                    figure_row(&figures, name, label, Some(f.of.clone()))
                })
                .collect()
        })
        .unwrap_or_default();
    StudyView {
        columns,
        rows,
        hypotheses,
        totals,
        named,
        study_file: corpus
            .study
            .as_ref()
            .map(|_| layout::published(STUDY_FILE, false)),
    }
}

fn figure_row(
    figures: &Figures<'_>,
    name: &str,
    label_html: String,
    of: Option<String>,
) -> StudyFigureRow {
    let figure = syntax::Figure::Study(name.to_string());
    let value = figures.figure(&figure);
    StudyFigureRow {
        name: figure.to_string(),
        label_html,
        of,
        pass: value.is_ok(),
        value: match value {
            Ok(b) => show_figure(b, figures.unit(&figure)),
            Err(why) => why,
        },
    }
}
