//! Reading an Inspect AI log: the `.json` form whole, or the members of an
//! `.eval` archive (`header.json`, or `_journal/start.json` while the log is
//! still being written; `samples/*.json`, `reductions.json`), which the
//! caller unpacks. Inspect writes NaN and infinities as bare `NaN`/`Infinity`
//! tokens, which are read as `null` (unscored).
//!
//! Every log format version Inspect's own reader reads is read, with the
//! same migrations: version 1's single `score` per sample and `scorer` plus
//! `metrics` in the results become the `scores` of later versions, and
//! reductions kept inside the results are taken from there. What older
//! versions did not store is derived as Inspect derives it: the completion
//! from the first choice's message, `attachment://` references from the
//! sample's attachments.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{Map, Value};

/// An Inspect AI evaluation log, the parts the verifier reads.
#[derive(Debug, Clone, Deserialize)]
pub struct Log {
    /// The log format's version (1, 2 or 3 so far).
    pub version: u32,
    /// How far the evaluation got: `success`, `error`, `cancelled` or
    /// `started` (a log still being written, which has no status yet).
    #[serde(default = "started")]
    pub status: String,
    /// What was evaluated: the task, the model, the configuration and the scorers.
    pub eval: Eval,
    /// The sample counts and each scorer × reducer's metrics; absent when the
    /// evaluation stopped before it had results.
    #[serde(default)]
    pub results: Option<Results>,
    /// Every sample × epoch, in the dataset's order, each sample's epochs in
    /// order; in an `.eval` archive, its `samples/*.json` members.
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
    /// Whether the log was marked invalid; read only for being there
    /// (a field first written by 0.3.154, see `shape.rs`).
    #[serde(default)]
    pub(super) invalidated: Option<IgnoredAny>,
}

/// A field Inspect may write as `null` where it means the field's default.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn started() -> String {
    "started".to_string()
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
    /// The scorers the task ran, with their options; empty in logs from
    /// before the specification listed them.
    #[serde(default, deserialize_with = "null_as_default")]
    pub scorers: Vec<ScorerSpec>,
    /// The version of each Python package the evaluation recorded, by package
    /// name (`inspect_ai`, …).
    #[serde(default)]
    pub packages: BTreeMap<String, String>,
    /// The dataset the evaluation ran, when the log describes it.
    #[serde(default)]
    pub dataset: Option<Dataset>,
    /// The evaluation's id; read only for being there (first written by 0.3.95).
    #[serde(default)]
    pub(super) eval_id: Option<IgnoredAny>,
}

/// The dataset the evaluation ran: which samples it holds.
#[derive(Debug, Clone, Deserialize)]
pub struct Dataset {
    /// The dataset's name, where it has one.
    #[serde(default)]
    pub name: Option<String>,
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
    /// `false` when the evaluation was told not to write its samples
    /// (`--no-log-samples`): the log is its header alone.
    #[serde(default)]
    pub log_samples: Option<bool>,
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
    /// Log format version 1: the one scorer, whose line `scores` holds in
    /// later versions.
    #[serde(default)]
    scorer: Option<LegacyScorer>,
    /// Log format version 1: the one scorer's metrics.
    #[serde(default)]
    metrics: Option<BTreeMap<String, MetricValue>>,
    /// The per-sample reductions, where a log keeps them in its results.
    #[serde(default)]
    sample_reductions: Option<Vec<Reduction>>,
}

/// The one scorer of a version 1 log's results.
#[derive(Debug, Clone, Deserialize)]
struct LegacyScorer {
    name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    params: Map<String, Value>,
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
    /// The scorer's non-default arguments, where the results record them
    /// (versions before the specification listed its scorers).
    #[serde(default, deserialize_with = "null_as_default")]
    pub params: Map<String, Value>,
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
    /// The tokens the evaluation used, by model name.
    #[serde(default, deserialize_with = "null_as_default")]
    pub model_usage: BTreeMap<String, Usage>,
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
    pub input: Value,
    /// The sample's target: a string or a list of strings (see [`Sample::targets`]).
    pub target: Value,
    /// The options of a multiple-choice sample; absent for any other.
    #[serde(default)]
    pub choices: Option<Vec<String>>,
    /// The transcript, each message as the log writes it.
    #[serde(default, deserialize_with = "null_as_default")]
    pub messages: Vec<Value>,
    /// The model's final output, when the log has one.
    #[serde(default)]
    pub output: Option<Output>,
    /// The sample's scores, by the scorer's key.
    #[serde(default, deserialize_with = "null_as_default")]
    pub scores: BTreeMap<String, Score>,
    /// Log format version 1: the sample's one score, keyed in `scores` by
    /// the results' first scorer once read.
    #[serde(default)]
    score: Option<Score>,
    /// Text the log stores once and refers to as `attachment://<key>`.
    #[serde(default)]
    pub attachments: BTreeMap<String, String>,
    /// The error the sample stopped on, if it stopped on one.
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    /// The tokens the sample used, by model name.
    #[serde(default, deserialize_with = "null_as_default")]
    pub model_usage: BTreeMap<String, Usage>,
    /// What the dataset says of the sample, as it says it.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: Map<String, Value>,
    /// The errors of earlier attempts at the sample, each retried.
    #[serde(default, deserialize_with = "null_as_default")]
    pub error_retries: Vec<Value>,
    /// When the sample started, as the log writes the time.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When the sample completed, as the log writes the time.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// How long the sample took, in seconds.
    #[serde(default)]
    pub total_time: Option<f64>,
    /// The sample run's unique id; read only for being there (first written by 0.3.70).
    #[serde(default)]
    pub(super) uuid: Option<IgnoredAny>,
    /// How many turns the sample took; read only for being there (first
    /// written by 0.3.247).
    #[serde(default)]
    pub(super) turn_count: Option<IgnoredAny>,
}

/// A sample's final output from the model.
#[derive(Debug, Clone, Deserialize)]
pub struct Output {
    /// The output's text. Versions that did not store it, or stored it
    /// empty, have it derived from the first choice (see [`Log::validated`]).
    #[serde(default)]
    pub completion: Option<String>,
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

    /// A log in Inspect's `.eval` form, a zip archive: finished (with
    /// `header.json`) or still being written (`_journal/start.json` and the
    /// samples written so far), as Inspect's reader reads either.
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
        let header = last("header.json")
            .map(|h| (h, "header.json"))
            .or_else(|| last(JOURNAL_START).map(|h| (h, JOURNAL_START)))
            .ok_or_else(|| {
                error(
                    "header.json",
                    format!("missing, and so is {JOURNAL_START}: this is not an Inspect AI log"),
                )
            })?;
        let samples: Vec<(String, Vec<u8>)> = members
            .iter()
            .filter(|(n, _)| n.starts_with("samples/") && n.ends_with(".json"))
            .cloned()
            .collect();
        Log::from_members_at(header, &samples, last("reductions.json"))
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
        Log::from_members_at((header, "header.json"), samples, reductions)
    }

    /// [`Log::from_members`] with the header's member named: `header.json`,
    /// or `_journal/start.json` for a log still being written.
    fn from_members_at(
        (header, header_name): (&[u8], &str),
        samples: &[(String, Vec<u8>)],
        reductions: Option<&[u8]>,
    ) -> Result<Log, LogError> {
        let mut log: Log = parse(header, header_name)?;
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
        // Inspect's reader refuses a version later than its own; the
        // latest it has written is 3.
        if !(1..=LATEST_VERSION).contains(&self.version) {
            return Err(error(
                "/version",
                format!(
                    "Inspect AI log format version {} is not one Inspect AI has written (1 to {LATEST_VERSION})",
                    self.version
                ),
            ));
        }
        self.migrate();
        for (i, s) in self.samples.iter().enumerate() {
            if !matches!(s.id, Value::String(_) | Value::Number(_)) {
                return Err(error(
                    format!("/samples/{i}/id"),
                    "a sample id is a string or a number",
                ));
            }
        }
        for s in &mut self.samples {
            s.resolve();
        }
        self.sort_samples();
        Ok(self)
    }

    /// Each scorer's non-default arguments, by the scorer's name: as the
    /// specification lists them, or, in a log from before it did, as the
    /// results record them.
    pub fn scorer_options(&self) -> BTreeMap<&str, &Map<String, Value>> {
        if self.eval.scorers.is_empty() {
            self.results
                .iter()
                .flat_map(|r| &r.scores)
                .map(|s| (s.scorer.as_str(), &s.params))
                .collect()
        } else {
            self.eval
                .scorers
                .iter()
                .map(|s| (s.name.as_str(), &s.options))
                .collect()
        }
    }

    /// The Inspect AI version that wrote the log, where it records one.
    pub fn inspect_version(&self) -> Option<super::version::Version> {
        self.eval
            .packages
            .get("inspect_ai")
            .and_then(|v| super::version::Version::parse(v))
    }

    /// Inspect's migrations of older log format versions, applied as its
    /// reader applies them.
    fn migrate(&mut self) {
        if let Some(results) = &mut self.results {
            if let Some(scorer) = results.scorer.take() {
                results.scores = vec![EvalScore {
                    name: scorer.name.clone(),
                    scorer: scorer.name,
                    reducer: None,
                    params: scorer.params,
                    metrics: results.metrics.take().unwrap_or_default(),
                }];
            }
            if self.reductions.is_none() {
                self.reductions = results.sample_reductions.take();
            }
        }
        // A version 1 sample's one score belongs to the results' first scorer;
        // without results Inspect keeps it under its placeholder key.
        let first = self
            .results
            .as_ref()
            .and_then(|r| r.scores.first())
            .map_or(SCORER_PLACEHOLDER, |s| s.name.as_str())
            .to_string();
        for s in &mut self.samples {
            if let Some(score) = s.score.take() {
                s.scores.insert(first.clone(), score);
            }
        }
    }

    /// The samples in their dataset's order, each sample's epochs in order:
    /// by the dataset's list of sample ids where the log has one, else as
    /// Inspect sorts them (numeric ids as numbers, before text ids compared
    /// as text).
    fn sort_samples(&mut self) {
        let position: BTreeMap<String, usize> = self
            .eval
            .dataset
            .as_ref()
            .and_then(|d| d.sample_ids.as_ref())
            .map(|ids| {
                ids.iter()
                    .enumerate()
                    .map(|(i, id)| (id_text(id), i))
                    .collect()
            })
            .unwrap_or_default();
        self.samples.sort_by(|a, b| {
            let key = |s: &Sample| (position.get(&id_text(&s.id)).copied(), sort_key(&s.id));
            key(a).cmp(&key(b)).then(a.epoch.cmp(&b.epoch))
        });
    }
}

/// The latest log format version Inspect AI has written.
const LATEST_VERSION: u32 = 3;

/// Where an `.eval` archive still being written keeps what `header.json`
/// holds once it is finished.
const JOURNAL_START: &str = "_journal/start.json";

/// The key a version 1 log's sample score has when the log has no results
/// to name its scorer, as Inspect's reader keys it.
const SCORER_PLACEHOLDER: &str = "88F74D2C";

/// How Inspect orders sample ids: a number as its text zero-filled to 20
/// places, a string as it is.
pub fn sort_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => {
            let text = other.to_string();
            match text.strip_prefix('-') {
                Some(digits) => format!("-{digits:0>19}"),
                None => format!("{text:0>20}"),
            }
        }
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
        self.output
            .as_ref()
            .and_then(|o| o.completion.as_deref())
            .unwrap_or("")
    }

    /// The sample as Inspect reads it: `attachment://` references in its
    /// input, messages and output replaced by the attachments they name, and
    /// a completion the log did not store (or stored empty) taken from the
    /// first choice's message, its text parts joined by newlines.
    fn resolve(&mut self) {
        if !self.attachments.is_empty() {
            let attachments = &self.attachments;
            resolve_attachments(&mut self.input, attachments);
            for m in &mut self.messages {
                resolve_attachments(m, attachments);
            }
            if let Some(output) = &mut self.output {
                for c in &mut output.choices {
                    resolve_attachments(&mut c.message, attachments);
                }
                if let Some(text) = &mut output.completion {
                    if let Some(found) = attachment(text, attachments) {
                        *text = found.to_string();
                    }
                }
            }
        }
        if let Some(output) = &mut self.output {
            if output.completion.as_deref().unwrap_or("").is_empty() {
                output.completion = Some(
                    output
                        .choices
                        .first()
                        .map(|c| super::record::content_text(&c.message["content"], "text"))
                        .unwrap_or_default(),
                );
            }
        }
    }
}

/// The attachment `text` refers to, when it is a reference to one the sample holds.
fn attachment<'a>(text: &str, attachments: &'a BTreeMap<String, String>) -> Option<&'a str> {
    text.strip_prefix("attachment://")
        .and_then(|key| attachments.get(key))
        .map(String::as_str)
}

/// Every string of `value` that refers to an attachment replaced by it.
fn resolve_attachments(value: &mut Value, attachments: &BTreeMap<String, String>) {
    match value {
        Value::String(s) => {
            if let Some(found) = attachment(s, attachments) {
                *s = found.to_string();
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| resolve_attachments(v, attachments)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| resolve_attachments(v, attachments)),
        _ => {}
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
