//! The views of runs: a row of the runs index and the replay page of one run.

use serde::Serialize;

use receipts_verifier::checks::Evidence;
use receipts_verifier::cost::{attempt_cost, call_cost, Cost};
use receipts_verifier::model::{Attempt, Experiment, InputRole, Provenance, Run, Task, Usage};
use receipts_verifier::verify::{Receipt, RunVerification, Status, Tally};

use super::{experiment_href, label, mark, object_href, run_href, ReceiptView};
use crate::head::RunHead;
use crate::load::{Corpus, LoadedExperiment};

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
    /// The recomputed outcome.
    pub passed: bool,
    pub cost: Cost,
    pub time_s: f64,
    pub replaces: String,
    /// Whether every receipt of the run was recomputed and agrees.
    pub verified: String,
    pub mark: String,
    /// Some call stopped at its output budget (`finish_reason` `length`).
    pub truncated: bool,
    /// Some call lost its usage (its cost is a bound).
    pub lost_usage: bool,
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
    /// The recorded outcome against the recomputed one.
    pub outcome: Option<ReceiptView>,
    /// The recomputed outcome.
    pub passed: bool,
    pub tally: Tally,
    pub tiers: String,
    pub cost: Cost,
    pub time_s: f64,
    pub replaces: Option<Link>,
    pub replaced_by: Option<Link>,
    pub record_href: String,
    /// The experiment's directory under `data/`.
    pub experiment_dir: String,
    /// Runs of the same task, profile and seed under other policies.
    pub compare: Vec<CompareLink>,
    pub prev: Option<String>,
    pub next: Option<String>,
    pub attempts: Vec<AttemptView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareLink {
    pub id: String,
    pub label: String,
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
    /// Every input has the task's digest before and after the attempt: the
    /// page lists them in a line instead of a table of equal digests.
    pub inputs_unchanged: bool,
    /// The model every call requested and the provider echoed, when it is
    /// the attempt's model for all of them: then the calls table leaves the
    /// column out.
    pub calls_model: Option<String>,
    /// The output budget every call had, when they all had the same.
    pub calls_budget: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub call: String,
    pub tool: String,
    pub args: Option<Args>,
    pub allowed: bool,
    pub reason: String,
    pub ok: bool,
    pub result_text: Option<String>,
    pub result_ref: Option<ObjectRefView>,
}

/// A turn's arguments as JSON: on one line when short, laid out when long.
#[derive(Debug, Clone, Serialize)]
pub struct Args {
    pub json: String,
    pub block: bool,
}

/// Arguments up to this many characters of compact JSON stay on the turn's line.
const INLINE_ARGS: usize = 100;

fn turn_args(args: &serde_json::Value) -> Option<Args> {
    if args.is_null() {
        return None;
    }
    let json = serde_json::to_string(args).unwrap_or_default();
    Some(if json.chars().count() <= INLINE_ARGS {
        Args { json, block: false }
    } else {
        Args {
            json: serde_json::to_string_pretty(args).unwrap_or_default(),
            block: true,
        }
    })
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
    /// The digest on record against the digest of the published bytes.
    pub digest: Option<ReceiptView>,
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub href: String,
    /// The artifact as text (JSON pretty-printed), or `None` when it is not UTF-8.
    pub text: Option<String>,
    /// A CSV artifact as rows (the first is the header), when it parses.
    pub table: Option<Vec<Vec<String>>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckView {
    pub check: String,
    pub kind: String,
    /// The verdict and detail the harness recorded.
    pub recorded: String,
    /// The verdict and detail recomputed from the artifact.
    pub recomputed: String,
    /// The recomputed verdict.
    pub passed: bool,
    /// Whether recorded and recomputed agree.
    pub status: String,
    pub mark: String,
    pub evidence: Vec<Evidence>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InputView {
    pub path: String,
    pub role: String,
    pub href: String,
    pub before: String,
    pub after: String,
}

/// `pass` when every receipt passed, `fail` when any failed, else `could_not_check`.
fn overall(receipts: &[Receipt]) -> Status {
    let t = Tally::of(receipts);
    if t.fail > 0 {
        Status::Fail
    } else if t.could_not_check > 0 {
        Status::CouldNotCheck
    } else {
        Status::Pass
    }
}

/// Each run's neighbours in an experiment, found once for all its pages:
/// the runs of each cell (task, profile, seed) by index, and which run
/// replaces which.
pub struct Neighbours<'a> {
    cells: std::collections::BTreeMap<(&'a str, &'a str, u64), Vec<usize>>,
    replaced_by: std::collections::BTreeMap<&'a str, &'a str>,
}

pub fn neighbours(loaded: &LoadedExperiment) -> Neighbours<'_> {
    let mut n = Neighbours {
        cells: Default::default(),
        replaced_by: Default::default(),
    };
    for (i, r) in loaded.runs.iter().enumerate() {
        n.cells
            .entry((r.task.as_str(), r.profile.as_str(), r.seed))
            .or_default()
            .push(i);
        if let Some(old) = &r.replaces {
            n.replaced_by.insert(old.as_str(), r.id.as_str());
        }
    }
    n
}

/// Where a run's record is published: `data/<dir>/runs/<run>.json`, with
/// `.gz` when the build compresses records.
pub fn record_href(loaded: &LoadedExperiment, id: &str, gzipped: bool) -> String {
    let gz = if gzipped { crate::gzip::SUFFIX } else { "" };
    format!("data/{}{gz}", loaded.run_path(id))
}

/// The published files a run's receipts are recomputed from: its record, its
/// experiment and task, and every object it names.
pub fn run_files(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    run: &Run,
    gzipped: bool,
) -> Vec<String> {
    let mut files = vec![
        format!("data/{}/experiment.json", loaded.dir),
        format!("data/tasks/{}.json", run.task),
        record_href(loaded, &run.id, gzipped),
    ];
    let mut digests: Vec<&str> = Vec::new();
    if let Some(task) = corpus.tasks.get(&run.task) {
        digests.extend(task.inputs.iter().map(|i| i.sha256.as_str()));
    }
    digests.extend(
        run.attempts
            .iter()
            .filter_map(|a| a.artifact.as_ref())
            .map(|f| f.sha256.as_str()),
    );
    digests.extend(
        run.attempts
            .iter()
            .flat_map(|a| &a.turns)
            .filter_map(|t| t.result.sha256.as_deref()),
    );
    digests.sort_unstable();
    digests.dedup();
    files.extend(digests.into_iter().map(object_href));
    files
}

pub fn run_row(
    loaded: &LoadedExperiment,
    head: &RunHead,
    verification: &RunVerification,
) -> RunRow {
    let status = overall(&verification.receipts);
    let facts = &verification.facts;
    RunRow {
        id: head.id.clone(),
        href: run_href(&head.id),
        experiment: loaded.experiment.id.clone(),
        task: head.task.clone(),
        profile: head.profile.clone(),
        seed: head.seed,
        policy: head.policy.clone(),
        tiers: facts.tiers_tried().join(" → "),
        passed: verification.passed(),
        cost: facts.cost().unwrap_or_default(),
        time_s: facts.seconds(),
        replaces: head.replaces.clone().unwrap_or_default(),
        verified: label(&status),
        mark: mark(status).to_string(),
        truncated: facts.truncations() > 0,
        lost_usage: head.lost_usage,
    }
}

/// The view of `run`, run `index` of `loaded` (runs are sorted by id;
/// prev/next follow that order).
pub fn run_view(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    index: usize,
    run: &Run,
    verification: &RunVerification,
    neighbours: &Neighbours<'_>,
    gzipped: bool,
) -> RunView {
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
        outcome: verification
            .receipts
            .iter()
            .find(|r| r.claim == "outcome")
            .map(ReceiptView::from),
        passed: verification.passed(),
        tally: Tally::of(&verification.receipts),
        tiers: verification.facts.tiers_tried().join(" → "),
        cost: verification.facts.cost().unwrap_or_default(),
        time_s: verification.facts.seconds(),
        replaces: run.replaces.as_deref().map(link),
        replaced_by: neighbours
            .replaced_by
            .get(run.id.as_str())
            .map(|id| link(id)),
        record_href: record_href(loaded, &run.id, gzipped),
        experiment_dir: loaded.dir.clone(),
        compare: neighbours
            .cells
            .get(&(run.task.as_str(), run.profile.as_str(), run.seed))
            .into_iter()
            .flatten()
            .filter(|&&i| i != index)
            .map(|&i| {
                let other = &loaded.runs[i];
                CompareLink {
                    id: other.id.clone(),
                    label: format!("{} ({})", other.policy, other.id),
                }
            })
            .collect(),
        prev: index.checked_sub(1).map(|i| run_href(&loaded.runs[i].id)),
        next: loaded.runs.get(index + 1).map(|r| run_href(&r.id)),
        attempts: run
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| attempt_view(corpus, e, task, a, i, verification))
            .collect(),
    }
}

fn attempt_view(
    corpus: &Corpus,
    e: &Experiment,
    task: &Task,
    a: &Attempt,
    index: usize,
    verification: &RunVerification,
) -> AttemptView {
    let receipt = |claim: &str| verification.receipts.iter().find(|r| r.claim == claim);
    let tier = e.tiers.iter().find(|t| t.id == a.tier);
    let model = tier.map_or_else(String::new, |t| t.model.clone());
    AttemptView {
        tier_label: tier.map_or(a.tier.clone(), |t| t.label.clone()),
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
                    args: turn_args(&t.action.args),
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
            digest: verification
                .receipts
                .iter()
                .find(|r| {
                    r.subject == format!("objects/{}", f.sha256)
                        && r.claim.ends_with(&format!("attempt {}", index + 1))
                })
                .map(ReceiptView::from),
            path: f.path.clone(),
            sha256: f.sha256.clone(),
            bytes: f.bytes,
            href: object_href(&f.sha256),
            text: corpus
                .objects
                .get(&f.sha256)
                .and_then(|b| readable(b, &f.media_type)),
            table: corpus
                .objects
                .get(&f.sha256)
                .filter(|_| f.media_type == "text/csv")
                .and_then(|b| csv_rows(b)),
        }),
        checks: verification
            .checks
            .get(index)
            .into_iter()
            .flatten()
            .map(|outcome| {
                let claim = format!("attempts[{index}].checks[{}]", outcome.check);
                let status = receipt(&claim).map_or(Status::CouldNotCheck, |r| r.status);
                CheckView {
                    check: outcome.check.clone(),
                    kind: outcome.kind.clone(),
                    recorded: receipt(&claim)
                        .map_or_else(|| "not recorded".to_string(), |r| r.recorded.clone()),
                    recomputed: receipt(&claim).map_or_else(String::new, |r| r.recomputed.clone()),
                    passed: outcome.passed,
                    status: label(&status),
                    mark: mark(status).to_string(),
                    evidence: outcome.evidence.clone(),
                }
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
        inputs_unchanged: !a.inputs.is_empty()
            && a.inputs.iter().all(|i| {
                task.inputs
                    .iter()
                    .any(|t| t.path == i.path && t.sha256 == i.sha256_before)
                    && i.sha256_after == i.sha256_before
            }),
        calls_model: a
            .calls
            .iter()
            .all(|c| {
                !model.is_empty()
                    && c.model_requested == model
                    && c.model_echoed.as_deref() == Some(model.as_str())
            })
            .then(|| model.clone()),
        calls_budget: uniform(a.calls.iter().map(|c| c.max_tokens)),
        model,
    }
}

/// The one value every item has, if they all have the same (and there is one).
fn uniform<T: PartialEq>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.all(|x| x == first).then_some(first)
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

/// A CSV file as rows of cells, or `None` when it does not parse.
fn csv_rows(bytes: &[u8]) -> Option<Vec<Vec<String>>> {
    receipts_verifier::csv_rows::read_rows(bytes).ok()
}
