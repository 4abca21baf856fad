//! The study as a whole, for its index: the headline figures of every
//! experiment side by side, every hypothesis with its decision, the study's
//! totals and its named figures; and which experiments a page's claims read.

use std::collections::BTreeSet;

use serde::Serialize;

use receipts_verifier::claims::{show_figure, syntax, Figures, Unit};
use receipts_verifier::decide::explain;
use receipts_verifier::model::{Study, STUDY_FILE};
use receipts_verifier::verify::{study_figures, Reads, Status};

use super::{experiment_href, label, mark};
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

#[derive(Debug, Clone, Serialize)]
pub struct StudyHypothesis {
    pub experiment: String,
    pub href: String,
    pub id: String,
    pub statement: String,
    /// Other experiments its rule reads.
    pub reads: Vec<String>,
    /// Its experiment was not pre-registered: the decision is exploratory.
    pub exploratory: bool,
    pub recomputed: String,
    pub published: Option<String>,
    pub status: String,
    pub mark: String,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StudyFigureRow {
    /// How a claim names it, e.g. `study.total_cost_usd`.
    pub name: String,
    pub label: String,
    /// What it is computed from (named figures).
    pub of: Option<String>,
    pub value: String,
    pub pass: bool,
}

fn thousands(n: u64) -> String {
    show_figure(
        receipts_verifier::claims::Bound::exact(n as f64),
        Unit::Count,
    )
}

pub fn study_view(corpus: &Corpus, verified: &Verified) -> StudyView {
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
    let mut hypotheses = Vec::new();
    for (loaded, v) in corpus.experiments.iter().zip(&verified.experiments) {
        for h in &loaded.experiment.hypotheses {
            let recomputed = v
                .hypotheses
                .iter()
                .find(|(id, _)| *id == h.id)
                .map(|(_, o)| label(o))
                .unwrap_or_default();
            let published = loaded
                .summary
                .as_ref()
                .and_then(|s| s.hypotheses.iter().find(|p| p.id == h.id))
                .map(|p| label(&p.outcome));
            let status = match &published {
                Some(p) if *p == recomputed => Status::Pass,
                Some(_) => Status::Fail,
                None => Status::CouldNotCheck,
            };
            let reads: BTreeSet<String> = receipts_verifier::verify::rule_policies(&h.rule)
                .into_iter()
                .filter_map(|(e, _)| e.map(str::to_string))
                .collect();
            hypotheses.push(StudyHypothesis {
                experiment: loaded.dir.clone(),
                href: experiment_href(&loaded.dir),
                id: h.id.clone(),
                statement: h.statement.clone(),
                reads: reads.into_iter().collect(),
                exploratory: loaded.experiment.preregistration.is_none(),
                recomputed: recomputed.replace('_', " "),
                published: published.map(|p| p.replace('_', " ")),
                status: label(&status),
                mark: mark(status).to_string(),
                why: explain(
                    &h.rule,
                    &receipts_verifier::claims::Within {
                        figures: &figures,
                        own: &v.primary,
                    },
                ),
            });
        }
    }
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
    .map(|(name, label)| figure_row(&figures, name, label, None))
    .collect();
    let named = study(corpus)
        .map(|s| {
            s.figures
                .iter()
                .map(|(name, f)| figure_row(&figures, name, &f.label, Some(f.of.clone())))
                .collect()
        })
        .unwrap_or_default();
    StudyView {
        columns,
        rows,
        hypotheses,
        totals,
        named,
        study_file: corpus.study.as_ref().map(|_| format!("data/{STUDY_FILE}")),
    }
}

fn figure_row(
    figures: &Figures<'_>,
    name: &str,
    label: &str,
    of: Option<String>,
) -> StudyFigureRow {
    let figure = syntax::Figure::Study(name.to_string());
    let value = figures.figure(&figure);
    StudyFigureRow {
        name: figure.to_string(),
        label: label.to_string(),
        of,
        pass: value.is_ok(),
        value: match value {
            Ok(b) => show_figure(b, figures.unit(&figure)),
            Err(why) => why,
        },
    }
}
