//! Stage 3, model: the pages of the site and the values each shows, built
//! from the validated corpus. Templates receive these views and nothing else.
//! Every link is relative to the site root and each page adds its own prefix.

use std::collections::BTreeMap;

use serde::Serialize;

use receipts_verifier::cost::{attempt_cost, call_cost, run_cost, Cost};
use receipts_verifier::model::{
    Attempt, Experiment, Grid, InputRole, PriceTable, Provenance, Run, Summary, Task, Usage,
};

use crate::load::{Corpus, LoadedExperiment};
use crate::markdown;

/// Where each kind of page lives.
pub fn run_href(id: &str) -> String {
    format!("runs/{id}.html")
}
pub fn experiment_href(id: &str) -> String {
    format!("experiments/{id}.html")
}
pub fn object_href(digest: &str) -> String {
    format!("data/objects/{digest}")
}
pub fn doc_href(path: &str) -> String {
    format!("docs/{}.html", path.strip_suffix(".md").unwrap_or(path))
}

/// Facts every page shows (navigation, footer).
#[derive(Debug, Clone, Serialize)]
pub struct SiteInfo {
    pub experiments: usize,
    pub runs: usize,
    pub has_showcase: bool,
    pub has_docs: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct DocLink {
    pub title: String,
    pub href: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExperimentView {
    pub id: String,
    pub title: String,
    pub question: String,
    pub simulated: bool,
    pub href: String,
    pub registered_at: String,
    pub prereg_sha256: String,
    pub grid: Grid,
    pub cells: usize,
    pub runs: usize,
    pub max_output_tokens: u64,
    pub prices: PriceTable,
    pub tiers: Vec<TierView>,
    pub policy_labels: BTreeMap<String, String>,
    pub hypotheses: Vec<HypothesisView>,
    pub summary: Option<Summary>,
    pub log_html: String,
    pub run_rows: Vec<RunRow>,
    /// The experiment's raw files under `data/`.
    pub records: Vec<DocLink>,
}

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
    pub statement: String,
    /// The machine-readable rule, as compact JSON.
    pub rule: String,
    pub outcome: String,
}

/// One row of a runs table.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: String,
    pub href: String,
    pub experiment: String,
    pub task: String,
    pub profile: String,
    pub seed: u64,
    pub policy: String,
    pub tiers: String,
    pub passed: bool,
    pub cost: Cost,
    pub time_s: f64,
    pub replaces: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    pub id: String,
    pub simulated: bool,
    pub experiment: String,
    pub experiment_href: String,
    pub task: String,
    pub task_title: String,
    pub profile: String,
    pub seed: u64,
    pub policy_label: String,
    pub started_at: String,
    pub passed: bool,
    pub passed_tier: Option<String>,
    pub tiers: String,
    pub cost: Cost,
    pub time_s: f64,
    pub replaces: Option<Link>,
    pub replaced_by: Option<Link>,
    pub record_href: String,
    pub prev: Option<String>,
    pub next: Option<String>,
    pub attempts: Vec<AttemptView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub id: String,
    pub href: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AttemptView {
    pub tier_label: String,
    pub model: String,
    pub started_at: String,
    pub duration_s: f64,
    pub cost: Cost,
    pub end: String,
    pub end_message: Option<String>,
    pub turns: Vec<TurnView>,
    pub calls: Vec<CallView>,
    pub artifact: Option<ArtifactView>,
    pub checks: Vec<CheckView>,
    pub inputs: Vec<InputView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub call: String,
    pub tool: String,
    pub args: Option<String>,
    pub allowed: bool,
    pub reason: String,
    pub ok: bool,
    pub result_text: Option<String>,
    pub result_ref: Option<ObjectRefView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ObjectRefView {
    pub href: String,
    pub label: String,
    pub injected: bool,
    /// The text, shown inline for injected documents so the reader sees what the model saw.
    pub text: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CallView {
    pub request_id: String,
    pub model_requested: String,
    pub model_echoed: Option<String>,
    pub started_at: String,
    pub latency_ms: u64,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
    pub max_tokens: u64,
    pub status: String,
    pub cost: Cost,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArtifactView {
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub href: String,
    /// The artifact as text (JSON pretty-printed), or `None` when it is not UTF-8.
    pub text: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckView {
    pub check: String,
    pub kind: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct InputView {
    pub path: String,
    pub role: String,
    pub href: String,
    pub before: String,
    pub after: String,
}

/// A `snake_case` or `kebab-case` enum value as serde writes it.
fn label<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

pub fn site_info(corpus: &Corpus) -> SiteInfo {
    SiteInfo {
        experiments: corpus.experiments.len(),
        runs: corpus.experiments.iter().map(|e| e.runs.len()).sum(),
        has_showcase: corpus.showcase.is_some(),
        has_docs: !corpus.docs.is_empty(),
    }
}

/// The documents, for the documents index.
pub fn doc_links(corpus: &Corpus) -> Vec<DocLink> {
    corpus
        .docs
        .iter()
        .map(|d| DocLink {
            title: doc_title(&d.markdown, &d.path),
            href: doc_href(&d.path),
        })
        .collect()
}

/// A document's title: its first heading, else its file name.
pub fn doc_title(markdown: &str, path: &str) -> String {
    markdown
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|| path.to_string())
}

pub fn run_row(loaded: &LoadedExperiment, run: &Run) -> RunRow {
    RunRow {
        id: run.id.clone(),
        href: run_href(&run.id),
        experiment: loaded.experiment.id.clone(),
        task: run.task.clone(),
        profile: run.profile.clone(),
        seed: run.seed,
        policy: run.policy.clone(),
        tiers: run.tiers_tried().join(" → "),
        passed: run.outcome.passed,
        cost: run_cost(run, &loaded.experiment.prices).unwrap_or_default(),
        time_s: run_seconds(run),
        replaces: run.replaces.clone().unwrap_or_default(),
    }
}

fn run_seconds(run: &Run) -> f64 {
    run.attempts.iter().map(|a| a.duration_ms).sum::<u64>() as f64 / 1000.0
}

pub fn experiment_view(loaded: &LoadedExperiment) -> ExperimentView {
    let e: &Experiment = &loaded.experiment;
    let outcome = |id: &str| {
        loaded
            .summary
            .as_ref()
            .and_then(|s| s.hypotheses.iter().find(|h| h.id == id))
            .map_or_else(
                || "not published".to_string(),
                |h| label(&h.outcome).replace('_', " "),
            )
    };
    ExperimentView {
        id: e.id.clone(),
        title: e.title.clone(),
        question: e.question.clone(),
        simulated: e.provenance == Provenance::Simulated,
        href: experiment_href(&e.id),
        registered_at: e.preregistration.registered_at.clone(),
        prereg_sha256: e.preregistration.sha256.clone(),
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
        policy_labels: e
            .policies
            .iter()
            .map(|p| (p.id.clone(), p.label.clone()))
            .collect(),
        hypotheses: e
            .hypotheses
            .iter()
            .map(|h| HypothesisView {
                id: h.id.clone(),
                statement: h.statement.clone(),
                rule: serde_json::to_string(&h.rule).unwrap_or_default(),
                outcome: outcome(&h.id),
            })
            .collect(),
        summary: loaded.summary.clone(),
        log_html: markdown::render(&loaded.log),
        run_rows: loaded.runs.iter().map(|r| run_row(loaded, r)).collect(),
        records: experiment_records(loaded)
            .into_iter()
            .map(|name| DocLink {
                href: format!("data/{}/{name}", loaded.dir),
                title: name,
            })
            .collect(),
    }
}

/// The experiment-level files published under `data/<dir>/`.
pub fn experiment_records(loaded: &LoadedExperiment) -> Vec<String> {
    let mut names = vec![
        "experiment.json".to_string(),
        loaded.experiment.preregistration.log.clone(),
    ];
    if loaded.summary.is_some() {
        names.push("summary.json".to_string());
    }
    if loaded.results.is_some() {
        names.push("results.csv".to_string());
    }
    names
}

/// The view of run `index` of `loaded` (runs are sorted by id; prev/next follow that order).
pub fn run_view(corpus: &Corpus, loaded: &LoadedExperiment, index: usize) -> RunView {
    let run = &loaded.runs[index];
    let e = &loaded.experiment;
    let task = &corpus.tasks[&run.task];
    let link = |id: &str| Link {
        id: id.to_string(),
        href: run_href(id),
    };
    RunView {
        id: run.id.clone(),
        simulated: run.provenance == Provenance::Simulated,
        experiment: e.id.clone(),
        experiment_href: experiment_href(&e.id),
        task: task.id.clone(),
        task_title: task.title.clone(),
        profile: run.profile.clone(),
        seed: run.seed,
        policy_label: e
            .policies
            .iter()
            .find(|p| p.id == run.policy)
            .map_or(run.policy.clone(), |p| p.label.clone()),
        started_at: run.started_at.clone(),
        passed: run.outcome.passed,
        passed_tier: run.outcome.passed_tier.clone(),
        tiers: run.tiers_tried().join(" → "),
        cost: run_cost(run, &e.prices).unwrap_or_default(),
        time_s: run_seconds(run),
        replaces: run.replaces.as_deref().map(link),
        replaced_by: loaded
            .runs
            .iter()
            .find(|r| r.replaces.as_deref() == Some(run.id.as_str()))
            .map(|r| link(&r.id)),
        record_href: format!("data/{}/runs/{}.json", loaded.dir, run.id),
        prev: index.checked_sub(1).map(|i| run_href(&loaded.runs[i].id)),
        next: loaded.runs.get(index + 1).map(|r| run_href(&r.id)),
        attempts: run
            .attempts
            .iter()
            .map(|a| attempt_view(corpus, e, task, a))
            .collect(),
    }
}

fn attempt_view(corpus: &Corpus, e: &Experiment, task: &Task, a: &Attempt) -> AttemptView {
    let tier = e.tiers.iter().find(|t| t.id == a.tier);
    AttemptView {
        tier_label: tier.map_or(a.tier.clone(), |t| t.label.clone()),
        model: tier.map_or_else(String::new, |t| t.model.clone()),
        started_at: a.started_at.clone(),
        duration_s: a.duration_ms as f64 / 1000.0,
        cost: attempt_cost(a, &e.prices).unwrap_or_default(),
        end: label(&a.end.reason).replace('_', " "),
        end_message: a.end.message.clone(),
        turns: a
            .turns
            .iter()
            .map(|t| {
                let result_ref = t.result.sha256.as_ref().map(|d| {
                    let input = task.inputs.iter().find(|i| i.sha256 == *d);
                    let injected = input.is_some_and(|i| i.role == InputRole::Injected);
                    ObjectRefView {
                        href: object_href(d),
                        label: input
                            .map_or_else(|| format!("object {}", &d[..12]), |i| i.path.clone()),
                        injected,
                        text: injected
                            .then(|| {
                                corpus
                                    .objects
                                    .get(d)
                                    .map(|b| String::from_utf8_lossy(b).into_owned())
                            })
                            .flatten(),
                    }
                });
                TurnView {
                    call: t.call.clone(),
                    tool: label(&t.action.tool),
                    args: (!t.action.args.is_null())
                        .then(|| serde_json::to_string_pretty(&t.action.args).unwrap_or_default()),
                    allowed: t.permission.decision == receipts_verifier::model::Decision::Allowed,
                    reason: t.permission.reason.clone(),
                    ok: t.result.ok,
                    result_text: t.result.text.clone(),
                    result_ref,
                }
            })
            .collect(),
        calls: a
            .calls
            .iter()
            .map(|c| CallView {
                request_id: c.request_id.clone(),
                model_requested: c.model_requested.clone(),
                model_echoed: c.model_echoed.clone(),
                started_at: c.started_at.clone(),
                latency_ms: c.latency_ms,
                usage: c.usage,
                finish_reason: c.finish_reason.map(|f| label(&f)),
                max_tokens: c.max_tokens,
                status: label(&c.status),
                cost: call_cost(c, &e.prices).unwrap_or_default(),
            })
            .collect(),
        artifact: a.artifact.as_ref().map(|f| ArtifactView {
            path: f.path.clone(),
            sha256: f.sha256.clone(),
            bytes: f.bytes,
            href: object_href(&f.sha256),
            text: corpus
                .objects
                .get(&f.sha256)
                .and_then(|b| readable(b, &f.media_type)),
        }),
        checks: a
            .checks
            .iter()
            .map(|c| CheckView {
                check: c.check.clone(),
                kind: task
                    .checks
                    .iter()
                    .find(|s| s.id() == c.check)
                    .map_or("", |s| s.kind())
                    .to_string(),
                passed: c.passed,
                detail: c.detail.clone(),
            })
            .collect(),
        inputs: a
            .inputs
            .iter()
            .map(|i| {
                let spec = task.inputs.iter().find(|t| t.path == i.path);
                InputView {
                    path: i.path.clone(),
                    role: spec.map_or_else(String::new, |t| label(&t.role)),
                    href: spec.map_or_else(String::new, |t| object_href(&t.sha256)),
                    before: i.sha256_before.clone(),
                    after: i.sha256_after.clone(),
                }
            })
            .collect(),
    }
}

/// An artifact as readable text: JSON pretty-printed, other text as is.
fn readable(bytes: &[u8], media_type: &str) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    if media_type == "application/json" {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            return serde_json::to_string_pretty(&value).ok();
        }
    }
    Some(text.to_string())
}
