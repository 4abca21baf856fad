//! The view of an experiment: its pre-registration, hypotheses, published
//! numbers beside their recomputation, corrections and runs.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use receipts_verifier::layout;
use receipts_verifier::model::{
    Analysis, Correction, Experiment, Grid, ModelCheck, PriceTable, Provenance, Summary,
    MODEL_CHECK_FILE,
};
use receipts_verifier::numbers::rounded;
use receipts_verifier::verify::{display, summary_claims, ExperimentVerification, Receipt, Status};

use receipts_verifier::claims::{Figures, Within};

use super::{
    claim_parts, claim_rows, experiment_href, experiment_records, label, mark, parts_html, run_row,
    ClaimPart, ClaimRow, DocLink, Origin, ReceiptView, RunRow,
};
use crate::load::LoadedExperiment;
use crate::markdown;

#[derive(Debug, Clone, Serialize)]
pub struct ExperimentView {
    pub id: String,
    pub title: String,
    pub question: String,
    pub simulated: bool,
    /// Where its runs came from (see [`super::experiment_origin`]).
    pub origin: Origin,
    pub href: String,
    pub registered_at: Option<String>,
    /// What backs the registration time: `self-asserted` when nothing does.
    pub registration_anchor: String,
    pub grid: Grid,
    pub cells: usize,
    pub runs: usize,
    pub max_output_tokens: u64,
    pub prices: PriceTable,
    pub tiers: Vec<TierView>,
    /// The pre-registration hash and time, recorded against recomputed.
    pub preregistration: Vec<ReceiptView>,
    pub hypotheses: Vec<HypothesisView>,
    /// The summary's headline, its claims shown with their receipts.
    pub headline_html: Option<String>,
    /// The summary's key findings, likewise.
    pub findings_html: Vec<String>,
    /// Each bound number of the headline and the findings with its figure.
    pub claims: Vec<ClaimRow>,
    pub published_at: Option<String>,
    /// The primary analysis, per policy and per tier.
    pub primary: Option<AnalysisTables>,
    pub secondary: Vec<SecondaryView>,
    pub corrections: Vec<CorrectionView>,
    /// The model-id smoke test, when the experiment has one.
    pub models: Option<ModelsView>,
    /// Receipts of the results table and the task inputs that did not pass.
    pub other_failures: Vec<ReceiptView>,
    pub results_rows: usize,
    pub log_html: String,
    pub figures: super::Figures,
    /// The first [`RUNS_ON_PAGE`] runs; the runs index lists them all.
    pub run_rows: Vec<RunRow>,
    /// Every cell of the grid against every policy, with its runs.
    pub grid_view: super::CellGrid,
    /// The policies composed from the tier runs, not run.
    pub composed: Vec<super::cell_grid::ComposedPolicyView>,
    /// The experiment's raw files under `data/`.
    pub records: Vec<DocLink>,
}

/// The model-id smoke test: each probe's call, and the receipts.
#[derive(Debug, Clone, Serialize)]
pub struct ModelsView {
    pub listed_at: String,
    pub listed: Vec<String>,
    pub probes: Vec<ProbeView>,
    pub receipts: Vec<ReceiptView>,
}

/// One probe of the smoke test.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeView {
    pub model: String,
    pub catalog_name: Option<String>,
    pub request_id: String,
    pub echoed: Option<String>,
    /// Whether `echoed` is a dated snapshot of the id probed.
    pub snapshot: bool,
    pub started_at: String,
    pub latency_ms: u64,
    pub status: String,
}

/// The log as HTML, its end-of-registration marker shown as a rule with
/// words rather than as the raw comment the file holds.
fn log_html(log: &str, marker: Option<&str>) -> String {
    match marker.filter(|m| !m.is_empty()).and_then(|m| log.find(m).map(|at| (at, m.len()))) {
        Some((at, len)) => format!(
            "{}<hr class=\"end-marker\"><p class=\"legend\">The pre-registered part ends here, at its marker line; what follows was appended after it.</p>\n{}",
            markdown::render_below(&log[..at], 2),
            markdown::render_below(&log[at + len..], 2)
        ),
        None => markdown::render_below(log, 2),
    }
}

fn models_view(check: &ModelCheck, receipts: Vec<ReceiptView>) -> ModelsView {
    ModelsView {
        listed_at: check.listed_at.clone(),
        listed: check.listed.clone(),
        probes: check
            .probes
            .iter()
            .map(|p| ProbeView {
                model: p.model.clone(),
                catalog_name: p.catalog_name.clone(),
                request_id: p.call.request_id.clone(),
                echoed: p.call.model_echoed.clone(),
                snapshot: p.call.model_echoed.as_deref().is_some_and(|echoed| {
                    receipts_verifier::model::answered_as(&p.model, echoed)
                        == receipts_verifier::model::Answered::DatedSnapshot
                }),
                started_at: p.call.started_at.clone(),
                latency_ms: p.call.latency_ms,
                status: super::label(&p.call.status),
            })
            .collect(),
        receipts,
    }
}

/// Runs listed on an experiment's page; a larger experiment links to the runs index.
pub const RUNS_ON_PAGE: usize = 200;

#[derive(Debug, Clone, Serialize)]
pub struct TierView {
    pub id: String,
    pub label: String,
    pub model: String,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct HypothesisView {
    pub id: String,
    /// The id of its row on the experiment's page: `hypothesis-h1`.
    pub anchor: String,
    pub statement: String,
    /// The rule in words, without the numbers it is decided on.
    pub words: String,
    /// The machine-readable rule, as compact JSON.
    pub rule: String,
    pub cell: Cell,
    /// Why the recomputed outcome is what it is, with the numbers.
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SecondaryView {
    pub label: String,
    /// Its description, a claim: HTML with each number's mark.
    pub description_html: String,
    pub tables: AnalysisTables,
}

#[derive(Debug, Clone, Serialize)]
pub struct CorrectionView {
    /// Its anchor on the page: `correction-1`, in the summary's order.
    pub anchor: String,
    /// The number it amends, in words: `Tasks passed, Auto-tier ladder,
    /// primary analysis`.
    pub title: String,
    pub field: String,
    pub original: String,
    pub corrected: String,
    /// Why it was corrected, a claim: HTML with each number's mark.
    pub reason_html: String,
    pub corrected_at: String,
}

/// One published number beside its recomputation.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// As published (after corrections), or `None` when not published.
    pub published: Option<String>,
    /// The first-published value, when a correction amended it.
    pub original: Option<String>,
    pub recomputed: String,
    pub status: String,
    pub mark: String,
    /// The receipt behind the mark, `subject` and `claim` (empty when there
    /// is none): what the browser's verify looks up to update it in place.
    pub subject: String,
    pub claim: String,
    /// What the recomputed value is written between (a unit, a sign).
    pub before: String,
    pub after: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The policy's or tier's id.
    pub key: String,
    /// `key` as an id on the page (the primary policies' rows carry it:
    /// `policy-ladder`).
    pub anchor: String,
    pub label: String,
    pub cells: Vec<Cell>,
}

impl Row {
    /// The cell of `field` (a column of `table`).
    pub fn cell<'t>(&'t self, table: &Table, field: &str) -> Option<&'t Cell> {
        let i = table.fields.iter().position(|f| *f == field)?;
        self.cells.get(i)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub columns: Vec<&'static str>,
    /// The field of each column, in the record's names.
    #[serde(skip)]
    pub fields: Vec<&'static str>,
    pub rows: Vec<Row>,
}

impl Table {
    /// The row of `key`.
    pub fn row(&self, key: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.key == key)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AnalysisTables {
    pub policies: Table,
    pub tiers: Table,
}

/// A column of a numbers table: the field, its header, and how values are written.
struct Column {
    field: &'static str,
    header: &'static str,
    prefix: &'static str,
    suffix: &'static str,
}

const fn col(
    field: &'static str,
    header: &'static str,
    prefix: &'static str,
    suffix: &'static str,
) -> Column {
    Column {
        field,
        header,
        prefix,
        suffix,
    }
}

const POLICY_COLUMNS: [Column; 13] = [
    col("runs", "Runs", "", ""),
    col("pass_rate_pct", "Tasks passed", "", "%"),
    col("pass_rate_sd_pct", "± SD (seeds)", "", ""),
    col("cost_per_task_usd", "Cost per task", "$", ""),
    col("mean_time_s", "Mean time", "", " s"),
    col("median_time_s", "Median time", "", " s"),
    col("truncations", "Truncations", "", ""),
    col("timeouts", "Timeouts", "", ""),
    col("errors", "Call errors", "", ""),
    col("empty_responses", "Empty replies", "", ""),
    col("retries", "Retries", "", ""),
    col("throughput_tps", "Throughput", "", " tok/s"),
    col("median_tps", "Median call", "", " tok/s"),
];

const TIER_COLUMNS: [Column; 10] = [
    col("attempts", "Attempts", "", ""),
    col("pass_rate_pct", "Attempts passed", "", "%"),
    col("total_cost_usd", "Total cost", "$", ""),
    col("truncations", "Truncations", "", ""),
    col("timeouts", "Timeouts", "", ""),
    col("errors", "Call errors", "", ""),
    col("empty_responses", "Empty replies", "", ""),
    col("retries", "Retries", "", ""),
    col("throughput_tps", "Throughput", "", " tok/s"),
    col("median_tps", "Median call", "", " tok/s"),
];

/// The rows of a numbers table: `policies` keyed by `policy`, or `tiers` by `tier`.
struct Kind<'a> {
    list: &'a str,
    key: &'a str,
    columns: &'a [Column],
    labels: &'a BTreeMap<String, String>,
}

/// Builds a numbers table for one analysis.
struct Tables<'a> {
    receipts: BTreeMap<&'a str, &'a Receipt>,
    corrections: BTreeMap<&'a str, &'a Correction>,
}

impl Tables<'_> {
    fn cell(
        &self,
        path: &str,
        published: Option<&Value>,
        recomputed: Option<&Value>,
        column: &Column,
    ) -> Cell {
        let w = |text: String| format!("{}{text}{}", column.prefix, column.suffix);
        let correction = self.corrections.get(path);
        let effective = correction.map(|c| &c.corrected).or(published);
        match self.receipts.get(path) {
            Some(r) => Cell {
                published: effective.map(|v| w(display(v))),
                original: correction.map(|c| w(display(&c.original))),
                recomputed: w(r.recomputed.clone()),
                status: label(&r.status),
                mark: mark(r.status).to_string(),
                subject: r.subject.clone(),
                claim: r.claim.clone(),
                before: column.prefix.to_string(),
                after: column.suffix.to_string(),
            },
            None => Cell {
                subject: String::new(),
                claim: String::new(),
                before: String::new(),
                after: String::new(),
                published: effective.map(|v| w(display(v))),
                original: None,
                recomputed: recomputed.map_or_else(|| "–".to_string(), |v| w(display(v))),
                status: label(&Status::CouldNotCheck),
                mark: if effective.is_some() {
                    mark(Status::CouldNotCheck)
                } else {
                    ""
                }
                .to_string(),
            },
        }
    }

    fn table(
        &self,
        prefix: &str,
        kind: &Kind<'_>,
        published: Option<&Value>,
        recomputed: &Value,
    ) -> Table {
        let Kind {
            list,
            key,
            columns,
            labels,
        } = *kind;
        let entries = |v: Option<&Value>| -> Vec<Value> {
            v.and_then(|v| v.get(list))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (published, recomputed) = (entries(published), entries(Some(recomputed)));
        let name = |v: &Value| {
            v.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        // Published entries first, in their order, then anything only recomputed.
        let mut names: Vec<String> = published.iter().map(name).collect();
        names.extend(
            recomputed
                .iter()
                .map(name)
                .filter(|n| !published.iter().any(|p| name(p) == *n)),
        );
        let find = |list: &[Value], n: &str| list.iter().find(|v| name(v) == n).cloned();
        let rows = names
            .iter()
            .map(|n| {
                let (p, r) = (find(&published, n), find(&recomputed, n));
                Row {
                    key: n.clone(),
                    anchor: crate::anchors::slug(n),
                    label: labels.get(n).cloned().unwrap_or_else(|| n.clone()),
                    cells: columns
                        .iter()
                        .map(|c| {
                            let path = format!("{prefix}.{list}[{n}].{}", c.field);
                            self.cell(
                                &path,
                                p.as_ref().and_then(|v| v.get(c.field)),
                                r.as_ref().and_then(|v| v.get(c.field)),
                                c,
                            )
                        })
                        .collect(),
                }
            })
            .collect();
        Table {
            columns: columns.iter().map(|c| c.header).collect(),
            fields: columns.iter().map(|c| c.field).collect(),
            rows,
        }
    }

    fn analysis(
        &self,
        prefix: &str,
        published: Option<&Analysis>,
        recomputed: &Analysis,
        e: &Experiment,
    ) -> AnalysisTables {
        let published = published.and_then(|a| serde_json::to_value(a).ok());
        // Values nobody published are shown as the summary would round them.
        let recomputed = serde_json::to_value(rounded(recomputed)).unwrap_or(Value::Null);
        let policy_labels: BTreeMap<String, String> = e
            .policies
            .iter()
            .map(|p| (p.id.clone(), p.label.clone()))
            .collect();
        let tier_labels: BTreeMap<String, String> = e
            .tiers
            .iter()
            .map(|t| (t.id.clone(), t.label.clone()))
            .collect();
        let policies = Kind {
            list: "policies",
            key: "policy",
            columns: &POLICY_COLUMNS,
            labels: &policy_labels,
        };
        let tiers = Kind {
            list: "tiers",
            key: "tier",
            columns: &TIER_COLUMNS,
            labels: &tier_labels,
        };
        AnalysisTables {
            policies: self.table(prefix, &policies, published.as_ref(), &recomputed),
            tiers: self.table(prefix, &tiers, published.as_ref(), &recomputed),
        }
    }
}

/// A published number's path in words, from the numbers tables' headers
/// and the experiment's labels: `primary.policies[ladder].pass_rate_pct`
/// reads `Tasks passed, Auto-tier ladder, primary analysis`.
fn field_words(path: &str, e: &Experiment) -> String {
    let mut analysis = None;
    let mut who = None;
    let mut columns: &[Column] = &[];
    let mut last = path;
    for part in path.split('.') {
        let (name, key) = match part.split_once('[') {
            Some((n, k)) => (n, Some(k.trim_end_matches(']'))),
            None => (part, None),
        };
        match (name, key) {
            ("primary", None) => analysis = Some("primary analysis".to_string()),
            ("secondary", Some(k)) => analysis = Some(format!("secondary analysis {k}")),
            ("policies", Some(k)) => {
                columns = &POLICY_COLUMNS;
                who = Some(
                    e.policies
                        .iter()
                        .find(|p| p.id == k)
                        .map_or_else(|| k.to_string(), |p| p.label.clone()),
                );
            }
            ("tiers", Some(k)) => {
                columns = &TIER_COLUMNS;
                who = Some(format!(
                    "tier {}",
                    e.tiers
                        .iter()
                        .find(|t| t.id == k)
                        .map_or_else(|| k.to_string(), |t| t.label.clone())
                ));
            }
            ("hypotheses", Some(k)) => who = Some(format!("hypothesis {k}")),
            _ => last = part,
        }
    }
    let what = columns
        .iter()
        .find(|c| c.field == last)
        .map_or_else(|| last.replace('_', " "), |c| c.header.to_string());
    let mut what: String = {
        let mut chars = what.chars();
        chars
            .next()
            .map(|f| f.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    };
    if let Some(who) = who {
        what.push_str(&format!(", {who}"));
    }
    if let Some(a) = analysis {
        what.push_str(&format!(", {a}"));
    }
    what
}

pub fn experiment_view(
    loaded: &LoadedExperiment,
    v: &ExperimentVerification,
    study: &Figures<'_>,
    origin: Origin,
) -> ExperimentView {
    let e: &Experiment = &loaded.experiment;
    let summary: Option<&Summary> = loaded.summary.as_ref();
    let summary_subject = format!("{}/summary.json", loaded.dir);
    let models_subject = format!("{}/{MODEL_CHECK_FILE}", loaded.dir);
    let tables = Tables {
        receipts: v
            .receipts
            .iter()
            .filter(|r| r.subject == summary_subject)
            .map(|r| (r.claim.as_str(), r))
            .collect(),
        corrections: summary
            .map(|s| {
                s.corrections
                    .iter()
                    .map(|c| (c.field.as_str(), c))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let primary = tables.analysis("primary", summary.map(|s| &s.primary), &v.primary, e);
    let secondary = summary
        .map(|s| {
            s.secondary
                .iter()
                .map(|sec| {
                    let empty = Analysis {
                        policies: Vec::new(),
                        tiers: Vec::new(),
                    };
                    let recomputed = v.secondary.get(&sec.id).unwrap_or(&empty);
                    SecondaryView {
                        label: sec.label.clone(),
                        description_html: parts_html(&claim_parts(&sec.description, study)),
                        tables: tables.analysis(
                            &format!("secondary[{}]", sec.id),
                            Some(&sec.numbers),
                            recomputed,
                            e,
                        ),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let hypothesis_column = col("outcome", "Outcome", "", "");
    let hypotheses = e
        .hypotheses
        .iter()
        .map(|h| {
            let path = format!("hypotheses[{}].outcome", h.id);
            let published = summary
                .and_then(|s| s.hypotheses.iter().find(|p| p.id == h.id))
                .and_then(|p| serde_json::to_value(p.outcome).ok());
            let recomputed = v
                .hypotheses
                .iter()
                .find(|(id, _)| *id == h.id)
                .and_then(|(_, o)| serde_json::to_value(o).ok());
            HypothesisView {
                id: h.id.clone(),
                anchor: format!("hypothesis-{}", crate::anchors::slug(&h.id)),
                statement: h.statement.clone(),
                words: receipts_verifier::decide::describe(&h.rule),
                rule: serde_json::to_string(&h.rule).unwrap_or_default(),
                why: receipts_verifier::decide::explain(
                    &h.rule,
                    &Within {
                        figures: study,
                        own: &v.primary,
                    },
                ),
                cell: tables.cell(
                    &path,
                    published.as_ref(),
                    recomputed.as_ref(),
                    &hypothesis_column,
                ),
            }
        })
        .collect();
    let mut prereg_subjects = vec![
        format!("{}/experiment.json", loaded.dir),
        format!("{}/deviations.json", loaded.dir),
    ];
    if let Some(p) = &e.preregistration {
        prereg_subjects.push(format!("{}/{}", loaded.dir, p.log));
    }
    let results_subject = format!("{}/results.csv", loaded.dir);
    let all_rows: Vec<RunRow> = loaded
        .runs
        .iter()
        .zip(&v.runs)
        .map(|(r, rv)| run_row(loaded, r, rv))
        .collect();
    ExperimentView {
        id: e.id.clone(),
        title: e.title.clone(),
        question: e.question.clone(),
        simulated: e.provenance == Provenance::Simulated,
        origin,
        href: experiment_href(&e.id),
        registered_at: e.preregistration.as_ref().map(|p| p.registered_at.clone()),
        registration_anchor: v.registration_anchor.clone(),
        grid: e.grid.clone(),
        cells: e.grid.cells(),
        runs: loaded.runs.len(),
        max_output_tokens: e.limits.max_output_tokens,
        prices: e.prices.clone(),
        tiers: e
            .tiers
            .iter()
            .map(|t| {
                let price = e.prices.models.get(&t.model).copied();
                TierView {
                    id: t.id.clone(),
                    label: t.label.clone(),
                    model: t.model.clone(),
                    input_per_mtok: price.map_or(0.0, |p| p.input_per_mtok),
                    output_per_mtok: price.map_or(0.0, |p| p.output_per_mtok),
                }
            })
            .collect(),
        preregistration: v
            .receipts
            .iter()
            .filter(|r| prereg_subjects.contains(&r.subject))
            .map(ReceiptView::from)
            .collect(),
        hypotheses,
        headline_html: summary.map(|s| parts_html(&claim_parts(&s.headline, study))),
        findings_html: summary
            .into_iter()
            .flat_map(|s| &s.findings)
            .map(|f| parts_html(&claim_parts(f, study)))
            .collect(),
        claims: summary
            .map(|s| {
                let parts: Vec<ClaimPart> = summary_claims(s)
                    .into_iter()
                    .flat_map(|(_, t)| claim_parts(t, study))
                    .collect();
                claim_rows(&parts)
            })
            .unwrap_or_default(),
        published_at: summary.map(|s| s.published_at.clone()),
        primary: Some(primary),
        secondary,
        corrections: summary
            .into_iter()
            .flat_map(|s| &s.corrections)
            .enumerate()
            .map(|(i, c)| CorrectionView {
                anchor: format!("correction-{}", i + 1),
                title: field_words(&c.field, e),
                field: c.field.clone(),
                original: display(&c.original),
                corrected: display(&c.corrected),
                reason_html: parts_html(&claim_parts(&c.reason, study)),
                corrected_at: c.corrected_at.clone(),
            })
            .collect(),
        models: loaded.models.as_ref().map(|check| {
            let receipts = v
                .receipts
                .iter()
                .filter(|r| r.subject == models_subject)
                .map(ReceiptView::from)
                .collect();
            models_view(check, receipts)
        }),
        other_failures: v
            .receipts
            .iter()
            .filter(|r| {
                r.subject != summary_subject
                    && r.subject != models_subject
                    && !prereg_subjects.contains(&r.subject)
                    && r.status != Status::Pass
            })
            .map(ReceiptView::from)
            .collect(),
        results_rows: v
            .receipts
            .iter()
            .filter(|r| r.subject == results_subject)
            .count(),
        log_html: log_html(
            &loaded.log,
            loaded
                .experiment
                .preregistration
                .as_ref()
                .map(|p| p.end_marker.as_str()),
        ),
        figures: super::figures(loaded, v),
        grid_view: super::cell_grid(loaded, v, &all_rows),
        composed: super::cell_grid::composed_policies(e, &v.primary),
        run_rows: all_rows.into_iter().take(RUNS_ON_PAGE).collect(),
        records: experiment_records(loaded)
            .into_iter()
            .map(|name| DocLink {
                href: layout::published(&format!("{}/{name}", loaded.dir), false),
                title: name,
            })
            .collect(),
    }
}
