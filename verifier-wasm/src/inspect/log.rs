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
    pub version: u32,
    pub status: String,
    pub eval: Eval,
    #[serde(default)]
    pub results: Option<Results>,
    #[serde(default)]
    pub samples: Vec<Sample>,
    #[serde(default)]
    pub reductions: Option<Vec<Reduction>>,
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    #[serde(default)]
    pub stats: Option<Stats>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Eval {
    pub task: String,
    pub model: String,
    pub created: String,
    #[serde(default)]
    pub config: Config,
    #[serde(default)]
    pub scorers: Vec<ScorerSpec>,
    #[serde(default)]
    pub packages: BTreeMap<String, String>,
    #[serde(default)]
    pub dataset: Option<Dataset>,
}

/// The dataset the evaluation ran: which samples it holds.
#[derive(Debug, Clone, Deserialize)]
pub struct Dataset {
    #[serde(default)]
    pub sample_ids: Option<Vec<Value>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub epochs: Option<u32>,
    #[serde(default)]
    pub epochs_reducer: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScorerSpec {
    pub name: String,
    #[serde(default)]
    pub options: Map<String, Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Results {
    #[serde(default)]
    pub total_samples: Option<u64>,
    #[serde(default)]
    pub completed_samples: Option<u64>,
    #[serde(default)]
    pub scores: Vec<EvalScore>,
}

/// One scorer × reducer line of the results.
#[derive(Debug, Clone, Deserialize)]
pub struct EvalScore {
    /// The key of the scorer's scores in each sample.
    pub name: String,
    pub scorer: String,
    #[serde(default)]
    pub reducer: Option<String>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricValue>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetricValue {
    pub value: Value,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Stats {
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ErrorInfo {
    pub message: String,
}

/// One sample × epoch.
#[derive(Debug, Clone, Deserialize)]
pub struct Sample {
    pub id: Value,
    pub epoch: u32,
    #[serde(default)]
    pub input: Value,
    #[serde(default)]
    pub target: Value,
    #[serde(default)]
    pub choices: Option<Vec<String>>,
    #[serde(default)]
    pub messages: Vec<Value>,
    #[serde(default)]
    pub output: Option<Output>,
    #[serde(default)]
    pub scores: BTreeMap<String, Score>,
    #[serde(default)]
    pub error: Option<ErrorInfo>,
    #[serde(default)]
    pub model_usage: BTreeMap<String, Usage>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub total_time: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Output {
    #[serde(default)]
    pub completion: String,
    #[serde(default)]
    pub choices: Vec<OutputChoice>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OutputChoice {
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub message: Value,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens_cache_write: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Score {
    #[serde(default)]
    pub value: Value,
    #[serde(default)]
    pub answer: Option<String>,
}

/// The per-sample reduced scores of one scorer × reducer.
#[derive(Debug, Clone, Deserialize)]
pub struct Reduction {
    pub scorer: String,
    #[serde(default)]
    pub reducer: Option<String>,
    pub samples: Vec<ReducedScore>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ReducedScore {
    #[serde(default)]
    pub value: Value,
    pub sample_id: Value,
}

/// Why a log could not be read; `at` is a JSON pointer or an archive member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct LogError {
    pub at: String,
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
