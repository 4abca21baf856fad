//! The record an Inspect AI log is imported as, and its derivation: the
//! same log gives the same record, byte for byte.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::log::{id_text, Log, Sample, Usage};
pub use crate::imported::Source;
use crate::model::FormatVersion;

/// Where an experiment directory keeps its imported Inspect AI evaluations.
pub const INSPECT_DIR: &str = "inspect";

/// The path of evaluation `name` of directory `dir` under the records root.
pub fn inspect_record_path(dir: &str, name: &str) -> String {
    format!("{dir}/{INSPECT_DIR}/{name}.json")
}

/// `experiments/<dir>/inspect/<name>.json`: an evaluation imported from an Inspect AI log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ImportedEval {
    /// The record format's version.
    pub format_version: FormatVersion,
    /// Always `"inspect_eval"`.
    pub kind: ImportedEvalKind,
    /// The original log, kept in `objects/` by its digest.
    pub source: Source,
    /// The task's name, as the log gives it.
    pub task: String,
    /// The model evaluated, as the log names it.
    pub model: String,
    /// `success`, `error`, `cancelled` or `started`, as the log says.
    pub status: String,
    /// When the evaluation was created, as the log writes the time.
    pub created: String,
    /// How many epochs each sample ran (1 when the log does not say).
    pub epochs: u32,
    /// The log format's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_version: Option<u32>,
    /// The dataset's name, where the log gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// When the evaluation started, as the log writes the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When the evaluation completed, as the log writes the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// The tokens the evaluation used, by model, as the log's statistics report them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub usage: BTreeMap<String, Usage>,
    /// The evaluation's error, when it stopped on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// One line per scorer × reducer, with the metrics the log reports.
    pub scorers: Vec<ScorerLine>,
    /// Every sample × epoch, by sample id then epoch.
    pub samples: Vec<SampleRecord>,
}

/// The `kind` of an [`ImportedEval`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImportedEvalKind {
    /// An evaluation imported from an Inspect AI log (`"inspect_eval"`).
    InspectEval,
}

/// One scorer × reducer of an imported evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScorerLine {
    /// The key of the scorer's score in each sample.
    pub name: String,
    /// The scorer's registry name (`match`, `model_graded_qa`, …).
    pub scorer: String,
    /// The epoch reducer (`mean` when the log names none).
    pub reducer: String,
    /// Whether the verifier recomputes this scorer's scores.
    pub deterministic: bool,
    /// The metrics as the log reports them; `null` for NaN.
    pub metrics: BTreeMap<String, Option<f64>>,
}

/// One sample × epoch of an imported evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SampleRecord {
    /// The sample's id in the dataset, as text.
    pub id: String,
    /// Which epoch of the sample this is, counting from 1.
    pub epoch: u32,
    /// The input as text (a list of messages is in `messages`).
    pub input: String,
    /// The sample's targets, one or several.
    pub target: Vec<String>,
    /// The options of a multiple-choice sample; absent for any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// The text of the final output, `""` when there was none.
    pub completion: String,
    /// Why the model stopped generating the final output (`stop`, …), when
    /// the log says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Tokens over every model call of the sample; absent when none was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The error the sample stopped on, if it stopped on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many earlier attempts at the sample failed and were retried.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u32,
    /// What the dataset says of the sample, as it says it.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: serde_json::Map<String, Value>,
    /// When the sample started, as the log writes the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When the sample completed, as the log writes the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// Scores by the scorer's key.
    pub scores: BTreeMap<String, ScoreRecord>,
    /// The transcript.
    pub messages: Vec<Message>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One score of a sample × epoch, as the log records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScoreRecord {
    /// As the log records it: `C`, `I`, a number, …; `null` for unscored.
    pub value: Value,
    /// The answer the scorer read from the output, where it records one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// One message of a transcript. Its text is untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The message's text: its content when that is a string, else its text
    /// parts joined by newlines.
    pub text: String,
    /// Reasoning the provider returned, where it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The tools an assistant message calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers, and the tool's error if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool message whose tool failed: the error's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The type of each part of the content that is neither text nor
    /// reasoning (`image`, `audio`, `tool_use`, …), in order; not shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_parts: Vec<String>,
}

/// A call to a tool, as an assistant message makes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The call's id, which the tool message answering it names.
    pub id: String,
    /// The name of the tool called.
    pub function: String,
    /// The arguments of the call, as the log records them.
    pub arguments: Value,
}

/// The text of a message's content: a string, or the text parts of a list.
pub(super) fn content_text(content: &Value, kind: &str) -> String {
    match content {
        Value::String(s) if kind == "text" => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] == kind)
            .filter_map(|p| p[kind].as_str().or_else(|| p["summary"].as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn message(m: &Value) -> Message {
    let text = |v: &Value| v.as_str().map(String::from);
    let reasoning = content_text(&m["content"], "reasoning");
    Message {
        role: m["role"].as_str().unwrap_or("").to_string(),
        text: content_text(&m["content"], "text"),
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        tool_calls: m["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c["id"].as_str().unwrap_or("").to_string(),
                        function: c["function"].as_str().unwrap_or("").to_string(),
                        arguments: c["arguments"].clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        tool_call_id: text(&m["tool_call_id"]),
        error: m["error"]["message"].as_str().map(String::from),
        other_parts: m["content"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .map(|p| p["type"].as_str().unwrap_or("unknown"))
                    .filter(|t| !matches!(*t, "text" | "reasoning"))
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn sample(s: &Sample) -> SampleRecord {
    let usage = (!s.model_usage.is_empty()).then(|| {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        s.model_usage.values().fold(Usage::default(), |t, u| Usage {
            input_tokens: t.input_tokens + u.input_tokens,
            output_tokens: t.output_tokens + u.output_tokens,
            input_tokens_cache_read: add(t.input_tokens_cache_read, u.input_tokens_cache_read),
            input_tokens_cache_write: add(t.input_tokens_cache_write, u.input_tokens_cache_write),
            reasoning_tokens: add(t.reasoning_tokens, u.reasoning_tokens),
        })
    });
    SampleRecord {
        id: id_text(&s.id),
        epoch: s.epoch,
        input: match &s.input {
            Value::String(text) => text.clone(),
            _ => String::new(),
        },
        target: s.targets(),
        choices: s.choices.clone(),
        completion: s.completion().to_string(),
        stop_reason: s
            .output
            .as_ref()
            .and_then(|o| o.choices.first())
            .and_then(|c| c.stop_reason.clone()),
        usage,
        error: s.error.as_ref().map(|e| e.message.clone()),
        retries: u32::try_from(s.error_retries.len()).unwrap_or(u32::MAX),
        metadata: s.metadata.clone(),
        started_at: s.started_at.clone(),
        completed_at: s.completed_at.clone(),
        scores: s
            .scores
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    ScoreRecord {
                        value: v.value.clone(),
                        answer: v.answer.clone(),
                    },
                )
            })
            .collect(),
        messages: s.messages.iter().map(message).collect(),
    }
}

/// The scorer behind each score key: the results name it (a line's name, or
/// its scorer's for a scorer that gives a dictionary); a key they do not
/// name (a log that stopped before it had results) is the task's scorer of
/// that name.
pub fn scorer_names(log: &Log) -> BTreeMap<String, String> {
    let mut names: BTreeMap<String, String> = log
        .eval
        .scorers
        .iter()
        .map(|s| (s.name.clone(), s.name.clone()))
        .collect();
    for s in log.results.iter().flat_map(|r| &r.scores) {
        names.insert(s.name.clone(), s.scorer.clone());
        // A scorer that gives a dictionary has a line per entry, each named
        // as its entry; its scores are keyed by the scorer.
        names
            .entry(s.scorer.clone())
            .or_insert_with(|| s.scorer.clone());
    }
    names
}

/// The record `log` is imported as, with `source` naming the original.
pub fn derive(log: &Log, source: Source) -> ImportedEval {
    let scorers = log
        .results
        .iter()
        .flat_map(|r| &r.scores)
        .map(|s| ScorerLine {
            name: s.name.clone(),
            scorer: s.scorer.clone(),
            reducer: s.reducer.clone().unwrap_or_else(|| "mean".to_string()),
            deterministic: super::scorers::is_deterministic(&s.scorer),
            metrics: s
                .metrics
                .iter()
                .map(|(k, m)| (k.clone(), m.value.as_f64()))
                .collect(),
        })
        .collect();
    ImportedEval {
        format_version: FormatVersion,
        kind: ImportedEvalKind::InspectEval,
        source,
        task: log.eval.task.clone(),
        model: log.eval.model.clone(),
        status: log.status.clone(),
        created: log.eval.created.clone(),
        epochs: log.eval.config.epochs.unwrap_or(1),
        log_version: Some(log.version),
        dataset: log.eval.dataset.as_ref().and_then(|d| d.name.clone()),
        started_at: log.stats.as_ref().and_then(|s| s.started_at.clone()),
        completed_at: log.stats.as_ref().and_then(|s| s.completed_at.clone()),
        usage: log
            .stats
            .as_ref()
            .map(|s| s.model_usage.clone())
            .unwrap_or_default(),
        error: log.error.as_ref().map(|e| e.message.clone()),
        scorers,
        samples: log.samples.iter().map(sample).collect(),
    }
}
