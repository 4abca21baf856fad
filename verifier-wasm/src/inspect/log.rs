//! Reading an Inspect AI log: the `.json` form whole, or the members of an
//! `.eval` archive (`header.json`, `samples/*.json`, `reductions.json`),
//! which the caller unpacks. Inspect writes NaN and infinities as bare
//! `NaN`/`Infinity` tokens, which are read as `null` (unscored).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// An Inspect AI evaluation log, the parts the verifier reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Log {
    /// The log format's version; only version 2 is read.
    pub version: u32,
    /// How far the evaluation got: `success`, `error`, `cancelled` or `started`.
    pub status: String,
    /// What was evaluated: the task, the model, the configuration and the scorers.
    pub eval: Eval,
    /// The sample counts and each scorer × reducer's metrics; absent when the
    /// evaluation stopped before it had results.
    #[serde(default)]
    pub results: Option<Results>,
    /// Every sample × epoch, sorted by sample id as text, then epoch; in an `.eval`
    /// archive, its `samples/*.json` members.
    #[serde(default)]
    pub samples: Vec<Sample>,
    /// Each scorer × reducer's scores reduced per sample; in an `.eval`
    /// archive, its `reductions.json`, read only when the log has results.
    #[serde(default)]
    pub reductions: Option<Vec<Reduction>>,
    /// The error the evaluation stopped on, if it stopped on one.
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    /// When the evaluation started and completed.
    #[serde(default)]
    pub stats: Option<Stats>,
}

/// The evaluation's specification: what ran, on which model, with which scorers.
#[derive(Debug, Clone, Deserialize)]
pub struct Eval {
    /// The task's name.
    pub task: String,
    /// The model evaluated, as Inspect names it (`mockllm/model`, …).
    pub model: String,
    /// When the evaluation was created, as the log writes the time.
    pub created: String,
    /// How the evaluation was configured; the default when the log has none.
    #[serde(default)]
    pub config: Config,
    /// The scorers the task ran, with their options.
    #[serde(default)]
    pub scorers: Vec<ScorerSpec>,
    /// The version of each Python package the evaluation recorded, by package
    /// name (`inspect_ai`, …).
    #[serde(default)]
    pub packages: BTreeMap<String, String>,
    /// The dataset the evaluation ran, when the log describes it.
    #[serde(default)]
    pub dataset: Option<Dataset>,
}

/// The dataset the evaluation ran: which samples it holds.
#[derive(Debug, Clone, Deserialize)]
pub struct Dataset {
    /// The ids of the dataset's samples (strings or numbers); absent when the
    /// log does not list them.
    #[serde(default)]
    pub sample_ids: Option<Vec<Value>>,
}

/// The evaluation's configuration, the parts the verifier reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    /// How many epochs each sample ran; absent means one.
    #[serde(default)]
    pub epochs: Option<u32>,
    /// The names of the epoch reducers configured, if any were.
    #[serde(default)]
    pub epochs_reducer: Option<Vec<String>>,
}

/// A scorer the task ran, as the evaluation's specification names it.
#[derive(Debug, Clone, Deserialize)]
pub struct ScorerSpec {
    /// The scorer's registry name (`match`, `includes`, …).
    pub name: String,
    /// The non-default arguments the scorer was created with, by argument name.
    #[serde(default)]
    pub options: Map<String, Value>,
}

/// The evaluation's results: the samples it counted and each scorer's metrics.
#[derive(Debug, Clone, Deserialize)]
pub struct Results {
    /// How many samples × epochs the results count.
    #[serde(default)]
    pub total_samples: Option<u64>,
    /// How many of those samples × epochs the results count as completed.
    #[serde(default)]
    pub completed_samples: Option<u64>,
    /// One line per scorer × reducer, with its metrics.
    #[serde(default)]
    pub scores: Vec<EvalScore>,
}

/// One scorer × reducer line of the results.
#[derive(Debug, Clone, Deserialize)]
pub struct EvalScore {
    /// The key of the scorer's scores in each sample.
    pub name: String,
    /// The scorer's registry name (`match`, `model_graded_qa`, …).
    pub scorer: String,
    /// The epoch reducer applied before the metrics; absent means `mean`.
    #[serde(default)]
    pub reducer: Option<String>,
    /// The metrics over the reduced values, by metric name.
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricValue>,
}

/// One metric as the results report it.
#[derive(Debug, Clone, Deserialize)]
pub struct MetricValue {
    /// The metric's value: a number, or `null` where the log wrote NaN.
    pub value: Value,
}

/// When the evaluation ran.
#[derive(Debug, Clone, Deserialize)]
pub struct Stats {
    /// When the evaluation started, as the log writes the time.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When the evaluation completed, as the log writes the time.
    #[serde(default)]
    pub completed_at: Option<String>,
}

/// An error the log records, the part the verifier reads.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorInfo {
    /// The error's message, as Inspect wrote it.
    pub message: String,
}

/// One sample × epoch.
#[derive(Debug, Clone, Deserialize)]
pub struct Sample {
    /// The sample's id in the dataset, a string or a number.
    pub id: Value,
    /// Which epoch of the sample this is, counting from 1.
    pub epoch: u32,
    /// The sample's input: a string, or a list of messages.
    #[serde(default)]
    pub input: Value,
    /// The sample's target: a string or a list of strings (see [`Sample::targets`]).
    #[serde(default)]
    pub target: Value,
    /// The options of a multiple-choice sample; absent for any other.
    #[serde(default)]
    pub choices: Option<Vec<String>>,
    /// The transcript, each message as the log writes it; never empty.
    #[serde(default)]
    pub messages: Vec<Value>,
    /// The model's final output, when the log has one.
    #[serde(default)]
    pub output: Option<Output>,
    /// The sample's scores, by the scorer's key.
    #[serde(default)]
    pub scores: BTreeMap<String, Score>,
    /// The error the sample stopped on, if it stopped on one.
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    /// The tokens the sample used, by model name.
    #[serde(default)]
    pub model_usage: BTreeMap<String, Usage>,
    /// When the sample started, as the log writes the time.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When the sample completed, as the log writes the time.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// How long the sample took, in seconds.
    #[serde(default)]
    pub total_time: Option<f64>,
}

/// A sample's final output from the model.
#[derive(Debug, Clone, Deserialize)]
pub struct Output {
    /// The output's text; `""` when the log has none.
    #[serde(default)]
    pub completion: String,
    /// The choices the model returned, the first being the output's message.
    #[serde(default)]
    pub choices: Vec<OutputChoice>,
}

/// One choice of a model output.
#[derive(Debug, Clone, Deserialize)]
pub struct OutputChoice {
    /// Why the model stopped generating (`stop`, `max_tokens`, …).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// The choice's assistant message, as the log writes it.
    #[serde(default)]
    pub message: Value,
}

/// Tokens used by model calls, as Inspect counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Usage {
    /// Tokens of input.
    #[serde(default)]
    pub input_tokens: u64,
    /// Tokens of output.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens read from the provider's cache, where counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_read: Option<u64>,
    /// Input tokens written to the provider's cache, where counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_write: Option<u64>,
    /// Tokens of reasoning, where counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

/// One score a scorer gave a sample × epoch.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Score {
    /// The score's value: `C`, `I`, a number, …; `null` for unscored.
    #[serde(default)]
    pub value: Value,
    /// The answer the scorer read from the output, where it records one.
    #[serde(default)]
    pub answer: Option<String>,
}

/// The per-sample reduced scores of one scorer × reducer.
#[derive(Debug, Clone, Deserialize)]
pub struct Reduction {
    /// The key of the scorer's scores, the `name` of its results line.
    pub scorer: String,
    /// The epoch reducer; absent means `mean`.
    #[serde(default)]
    pub reducer: Option<String>,
    /// One reduced score per sample.
    pub samples: Vec<ReducedScore>,
}

/// One sample's score, reduced over its epochs.
#[derive(Debug, Clone, Deserialize)]
pub struct ReducedScore {
    /// The reduced value; `null` for unscored.
    #[serde(default)]
    pub value: Value,
    /// The sample's id in the dataset, a string or a number.
    pub sample_id: Value,
}

/// Why a log could not be read; `at` is a JSON pointer or an archive member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct LogError {
    /// Where reading failed: a JSON pointer into the log (`/samples/0/id`), or a
    /// place in an `.eval` archive (a member's name, or the archive itself).
    pub at: String,
    /// What was wrong there.
    pub message: String,
}

fn error(at: impl Into<String>, message: impl Into<String>) -> LogError {
    LogError {
        at: at.into(),
        message: message.into(),
    }
}

/// `text` with Inspect's bare `NaN`, `Infinity` and `-Infinity` outside
/// strings written as `null`.
pub fn lenient_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        let token = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(t) = token {
            out.push_str("null");
            rest = &rest[t.len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Parses one JSON document of a log, naming `at` and the line and column on error.
fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8], at: &str) -> Result<T, LogError> {
    let text = std::str::from_utf8(bytes).map_err(|e| error(at, format!("not UTF-8: {e}")))?;
    serde_json::from_str(&lenient_json(text)).map_err(|e| {
        error(
            at,
            format!(
                "line {} column {}: {}",
                e.line(),
                e.column(),
                crate::messages::plain(e.to_string().split(" at line ").next().unwrap_or_default())
            ),
        )
    })
}

impl Log {
    /// A log in Inspect's `.json` form.
    pub fn from_json(bytes: &[u8]) -> Result<Log, LogError> {
        let log: Log = parse(bytes, "/")?;
        log.validated()
    }

    /// A log in Inspect's `.eval` form, a zip archive.
    pub fn from_eval(bytes: &[u8]) -> Result<Log, LogError> {
        let members = super::archive::members(bytes)?;
        // A later member of one name replaces an earlier, as Inspect reads them.
        let last = |name: &str| {
            members
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, b)| b.as_slice())
        };
        let header = last("header.json").ok_or_else(|| {
            error(
                "header.json",
                "missing: the evaluation did not finish writing its log",
            )
        })?;
        let samples: Vec<(String, Vec<u8>)> = members
            .iter()
            .filter(|(n, _)| n.starts_with("samples/") && n.ends_with(".json"))
            .cloned()
            .collect();
        Log::from_members(header, &samples, last("reductions.json"))
    }

    /// Either form, told apart by the zip signature.
    pub fn read(bytes: &[u8]) -> Result<Log, LogError> {
        if bytes.starts_with(b"PK") {
            Log::from_eval(bytes)
        } else {
            Log::from_json(bytes)
        }
    }

    /// A log from the members of an `.eval` archive: `header.json`, every
    /// `samples/<id>_epoch_<n>.json` (name and bytes, a later member of one
    /// name replacing an earlier), and `reductions.json` if present.
    pub fn from_members(
        header: &[u8],
        samples: &[(String, Vec<u8>)],
        reductions: Option<&[u8]>,
    ) -> Result<Log, LogError> {
        let mut log: Log = parse(header, "header.json")?;
        let mut by_name: BTreeMap<&str, &[u8]> = BTreeMap::new();
        for (name, bytes) in samples {
            by_name.insert(name, bytes);
        }
        log.samples = by_name
            .into_iter()
            .map(|(name, bytes)| parse(bytes, name))
            .collect::<Result<_, _>>()?;
        if log.results.is_some() {
            log.reductions = reductions
                .map(|r| parse(r, "reductions.json"))
                .transpose()?;
        }
        log.validated()
    }

    fn validated(mut self) -> Result<Log, LogError> {
        if self.version != 2 {
            return Err(error(
                "/version",
                format!(
                    "Inspect AI log version {} is not one this build reads (it reads version 2)",
                    self.version
                ),
            ));
        }
        for (i, s) in self.samples.iter().enumerate() {
            if !matches!(s.id, Value::String(_) | Value::Number(_)) {
                return Err(error(
                    format!("/samples/{i}/id"),
                    "a sample id is a string or a number",
                ));
            }
            if s.messages.is_empty() {
                return Err(error(
                    format!("/samples/{i}/messages"),
                    "the sample has no messages",
                ));
            }
        }
        self.samples.sort_by_key(|s| (id_text(&s.id), s.epoch));
        Ok(self)
    }
}

/// A sample id as text, as Inspect groups samples by it.
pub fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Sample {
    /// The targets, one or several.
    pub fn targets(&self) -> Vec<String> {
        match &self.target {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The text of the final output, `""` when there was none.
    pub fn completion(&self) -> &str {
        self.output.as_ref().map_or("", |o| o.completion.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::lenient_json;

    #[test]
    fn bare_non_finite_numbers_become_null_outside_strings() {
        assert_eq!(
            lenient_json(r#"{"a": NaN, "b": "NaN \" Infinity", "c": [-Infinity, Infinity]}"#),
            r#"{"a": null, "b": "NaN \" Infinity", "c": [null, null]}"#
        );
    }
}
