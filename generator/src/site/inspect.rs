//! The pages of evaluations imported from Inspect AI: one per evaluation,
//! with its scorers' metrics beside their recomputation and every sample ×
//! epoch with its scores and its transcript, shown as inert text.

use serde::Serialize;

use receipts_verifier::inspect::{registration_words, EvalRegistration, ImportedEval, Message};
use receipts_verifier::verify::Receipt;

use super::study::thousands;
use super::{
    eval_origin, label, mark, object_href, receipt_cell, worst, Cell, Origin, ReceiptView,
};
use crate::load::LoadedImport;
use crate::numbers::count;

pub fn inspect_href(dir: &str, name: &str) -> String {
    format!("imports/{dir}/{name}.html")
}

/// How many samples ran how often, in words: `8 samples × 2 epochs`, and
/// what the log holds when that is not their product (`(15 in the log)`).
pub fn samples_by_epochs(eval: &ImportedEval) -> String {
    let ids: std::collections::BTreeSet<&str> =
        eval.samples.iter().map(|s| s.id.as_str()).collect();
    let epochs = eval.epochs as usize;
    let mut words = format!(
        "{} × {}",
        count(ids.len(), "sample", None),
        count(epochs, "epoch", None)
    );
    if eval.samples.len() != ids.len() * epochs {
        words.push_str(&format!(" ({} in the log)", eval.samples.len()));
    }
    words
}

/// An imported evaluation as the index lists it.
#[derive(Debug, Clone, Serialize)]
pub struct EvalSummary {
    pub title: String,
    pub href: String,
    pub task: String,
    pub model: String,
    pub status: String,
    pub samples: usize,
    /// The samples and epochs, in words (see [`samples_by_epochs`]).
    pub holds: String,
    pub simulated: bool,
    /// The first scorer's first metric, with its recomputation.
    pub headline: Option<(String, Cell)>,
    pub receipts: usize,
    pub verified: String,
    pub mark: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalView {
    pub title: String,
    pub eval: ImportedEval,
    /// What Inspect's own log viewer shows at the top of a log.
    pub header: EvalHeader,
    pub simulated: bool,
    pub log_href: String,
    pub receipts: usize,
    pub not_passing: Vec<ReceiptView>,
    /// What the evaluation registered before it ran, in words.
    pub registration: String,
    pub derived: Cell,
    pub scorers: Vec<ScorerView>,
    pub samples: Vec<SampleView>,
}

/// The facts at the top of an evaluation's page, as Inspect's log viewer
/// gives them: how many samples ran how often, each scorer's headline
/// metric, the tokens and the time.
#[derive(Debug, Clone, Serialize)]
pub struct EvalHeader {
    /// Distinct samples.
    pub samples: usize,
    /// Samples × epochs the log holds.
    pub runs: usize,
    /// Each scorer's first metric: its line's label and its cell.
    pub headlines: Vec<(String, Cell)>,
    /// Tokens over every model: input, output, cache read, cache write,
    /// reasoning (the last three where counted).
    pub tokens: Option<TokenTotals>,
    /// Per model, where more than one was used.
    pub models: Vec<(String, TokenTotals)>,
    /// How long the evaluation ran, where its start and completion read.
    pub duration: Option<String>,
}

/// Token counts, written with thousands separators.
#[derive(Debug, Clone, Serialize)]
pub struct TokenTotals {
    pub input: String,
    pub output: String,
    pub cache_read: Option<String>,
    pub cache_write: Option<String>,
    pub reasoning: Option<String>,
    pub total: String,
}

impl TokenTotals {
    fn of<'a>(usage: impl Iterator<Item = &'a receipts_verifier::inspect::log::Usage>) -> Self {
        let (mut input, mut output) = (0u64, 0u64);
        let (mut read, mut write, mut reasoning) = (None::<u64>, None::<u64>, None::<u64>);
        let add = |sum: &mut Option<u64>, v: Option<u64>| {
            if let Some(v) = v {
                *sum = Some(sum.unwrap_or(0) + v);
            }
        };
        for u in usage {
            input += u.input_tokens;
            output += u.output_tokens;
            add(&mut read, u.input_tokens_cache_read);
            add(&mut write, u.input_tokens_cache_write);
            add(&mut reasoning, u.reasoning_tokens);
        }
        TokenTotals {
            input: thousands(input),
            output: thousands(output),
            cache_read: read.map(thousands),
            cache_write: write.map(thousands),
            reasoning: reasoning.map(thousands),
            total: thousands(input + output),
        }
    }
}

/// `started` to `completed` as hours, minutes and seconds.
fn duration(started: Option<&str>, completed: Option<&str>) -> Option<String> {
    let parse = |t: Option<&str>| receipts_verifier::time::parse(t?).ok();
    let ms = parse(completed)?.0 - parse(started)?.0;
    if ms < 0 {
        return None;
    }
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    Some(if h > 0 {
        format!("{h} h {m:02} min {s:02} s")
    } else if m > 0 {
        format!("{m} min {s:02} s")
    } else {
        format!("{}.{:01} s", s, (ms % 1000) / 100)
    })
}

fn header(eval: &ImportedEval, receipts: &[Receipt]) -> EvalHeader {
    let ids: std::collections::BTreeSet<&str> =
        eval.samples.iter().map(|s| s.id.as_str()).collect();
    // The log's own statistics where it has them; else the samples' sum.
    let per_model: Vec<(String, receipts_verifier::inspect::log::Usage)> = if eval.usage.is_empty()
    {
        eval.samples
            .iter()
            .filter_map(|s| s.usage)
            .map(|u| (eval.model.clone(), u))
            .collect()
    } else {
        eval.usage.iter().map(|(m, u)| (m.clone(), *u)).collect()
    };
    let mut models: std::collections::BTreeMap<&str, Vec<&receipts_verifier::inspect::log::Usage>> =
        std::collections::BTreeMap::new();
    for (m, u) in &per_model {
        models.entry(m).or_default().push(u);
    }
    EvalHeader {
        samples: ids.len(),
        runs: eval.samples.len(),
        headlines: eval
            .scorers
            .iter()
            .filter_map(|s| {
                let metric = s.metrics.keys().next()?;
                let claim = format!("scorers[{} {}].{metric}", s.name, s.reducer);
                let label = if s.reducer == "mean" {
                    format!("{} {metric}", s.name)
                } else {
                    format!("{} ({}) {metric}", s.name, s.reducer)
                };
                Some((label, receipt_cell(receipts, &claim)))
            })
            .collect(),
        tokens: (!per_model.is_empty()).then(|| TokenTotals::of(per_model.iter().map(|(_, u)| u))),
        models: if models.len() > 1 {
            models
                .into_iter()
                .map(|(m, us)| (m.to_string(), TokenTotals::of(us.into_iter())))
                .collect()
        } else {
            Vec::new()
        },
        duration: duration(eval.started_at.as_deref(), eval.completed_at.as_deref()),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ScorerView {
    pub name: String,
    pub scorer: String,
    pub reducer: String,
    pub deterministic: bool,
    pub reduction: Cell,
    pub metrics: Vec<(String, Cell)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SampleView {
    pub id: String,
    pub epoch: u32,
    pub anchor: String,
    pub target: String,
    pub completion: String,
    pub stop_reason: Option<String>,
    pub error: Option<String>,
    pub retries: u32,
    /// The sample's metadata, each value as JSON text; untrusted.
    pub metadata: Vec<(String, String)>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub scores: Vec<ScoreView>,
    pub messages: Vec<MessageView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScoreView {
    pub name: String,
    pub value: String,
    pub answer: Option<String>,
    /// `pass`, `fail`, `could_not_check`, or `judgment` (not recomputed).
    pub status: String,
    pub mark: String,
    pub recomputed: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct MessageView {
    pub role: String,
    pub text: String,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<(String, String)>,
    pub tool_call_id: Option<String>,
    pub error: Option<String>,
    pub other_parts: Vec<String>,
}

/// How the index lists an evaluation: its task, and the name of its log,
/// which tells apart two evaluations of one task.
fn title(eval: &ImportedEval, name: &str) -> String {
    format!("{} ({name})", eval.task)
}

/// An evaluation's page title: its task and model. The log's file name,
/// Inspect's long one of when it started, the task and an id, is in the
/// page's body.
fn page_title(eval: &ImportedEval) -> String {
    format!("{} ({})", eval.task, eval.model)
}

fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "unscored".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn message(m: &Message) -> MessageView {
    MessageView {
        role: m.role.clone(),
        text: m.text.clone(),
        reasoning: m.reasoning.clone(),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| (c.function.clone(), c.arguments.to_string()))
            .collect(),
        tool_call_id: m.tool_call_id.clone(),
        error: m.error.clone(),
        other_parts: m.other_parts.clone(),
    }
}

/// The index's line for each evaluation of `loaded`.
pub fn eval_summaries(loaded: &LoadedImport, verified: &[Vec<Receipt>]) -> Vec<EvalSummary> {
    loaded
        .evals
        .iter()
        .zip(verified)
        .map(|((name, eval), receipts)| {
            let status = worst(receipts);
            EvalSummary {
                title: title(eval, name),
                href: inspect_href(&loaded.dir, name),
                task: eval.task.clone(),
                model: eval.model.clone(),
                status: eval.status.clone(),
                samples: eval.samples.len(),
                holds: samples_by_epochs(eval),
                simulated: eval_origin(eval) == Origin::MockModel,
                headline: eval.scorers.first().and_then(|s| {
                    let metric = s.metrics.keys().next()?;
                    let claim = format!("scorers[{} {}].{metric}", s.name, s.reducer);
                    Some((
                        format!("{} {metric}", s.name),
                        receipt_cell(receipts, &claim),
                    ))
                }),
                receipts: receipts.len(),
                verified: label(&status),
                mark: mark(status).to_string(),
            }
        })
        .collect()
}

/// The page of an imported evaluation.
pub fn eval_view(
    eval: &ImportedEval,
    registration: Option<&EvalRegistration>,
    receipts: &[Receipt],
) -> EvalView {
    let scorers = eval
        .scorers
        .iter()
        .map(|s| {
            let at = format!("scorers[{} {}]", s.name, s.reducer);
            ScorerView {
                name: s.name.clone(),
                scorer: s.scorer.clone(),
                reducer: s.reducer.clone(),
                deterministic: s.deterministic,
                reduction: receipt_cell(receipts, &format!("{at}.reduction")),
                metrics: s
                    .metrics
                    .keys()
                    .map(|m| (m.clone(), receipt_cell(receipts, &format!("{at}.{m}"))))
                    .collect(),
            }
        })
        .collect();
    let samples = eval
        .samples
        .iter()
        .map(|s| {
            let scores = s
                .scores
                .iter()
                .map(|(key, score)| {
                    let claim = format!("samples[{} epoch {}].scores[{key}]", s.id, s.epoch);
                    let (status, mark, recomputed) =
                        match receipts.iter().find(|r| r.claim == claim) {
                            Some(r) => (
                                label(&r.status),
                                super::mark(r.status).to_string(),
                                r.recomputed.clone(),
                            ),
                            None => (
                                "judgment".to_string(),
                                String::new(),
                                "a recorded judgment, not recomputed".to_string(),
                            ),
                        };
                    ScoreView {
                        name: key.clone(),
                        value: value_text(&score.value),
                        answer: score.answer.clone(),
                        status,
                        mark,
                        recomputed,
                    }
                })
                .collect();
            SampleView {
                id: s.id.clone(),
                epoch: s.epoch,
                anchor: format!(
                    "sample-{}-epoch-{}",
                    s.id.chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                        .collect::<String>(),
                    s.epoch
                ),
                target: s.target.join(" | "),
                completion: s.completion.clone(),
                stop_reason: s.stop_reason.clone(),
                error: s.error.clone(),
                retries: s.retries,
                metadata: s
                    .metadata
                    .iter()
                    .map(|(k, v)| {
                        let text = match v {
                            serde_json::Value::String(t) => t.clone(),
                            other => other.to_string(),
                        };
                        (k.clone(), text)
                    })
                    .collect(),
                input_tokens: s.usage.map(|u| u.input_tokens),
                output_tokens: s.usage.map(|u| u.output_tokens),
                scores,
                messages: s.messages.iter().map(message).collect(),
            }
        })
        .collect();
    EvalView {
        title: page_title(eval),
        header: header(eval, receipts),
        eval: eval.clone(),
        simulated: eval_origin(eval) == Origin::MockModel,
        log_href: object_href(&eval.source.sha256),
        receipts: receipts.len(),
        not_passing: receipts
            .iter()
            .filter(|r| r.status != receipts_verifier::verify::Status::Pass)
            .map(ReceiptView::from)
            .collect(),
        registration: registration_words(registration, &eval.task),
        derived: receipt_cell(receipts, "derived from the log"),
        scorers,
        samples,
    }
}
