//! The record an OpenTelemetry trace export is imported as, and its
//! derivation: the same export (and log export) gives the same record,
//! byte for byte. One trace is one run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::otlp::{traces, Event, Export, Span};
use crate::imported::Source;
use crate::model::{FinishReason, FormatVersion};

/// Where an experiment directory keeps its imported traces.
pub const OTEL_DIR: &str = "otel";

/// The path of trace export `name` of directory `dir` under the records root.
pub fn otel_record_path(dir: &str, name: &str) -> String {
    format!("{dir}/{OTEL_DIR}/{name}.json")
}

/// The operations that are a call to a model.
pub const MODEL_CALLS: [&str; 3] = ["chat", "text_completion", "generate_content"];

/// `experiments/<dir>/otel/<name>.json`: agent runs imported from an
/// OpenTelemetry trace export (GenAI semantic conventions), one per trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ImportedTraces {
    /// The record format's version.
    pub format_version: FormatVersion,
    /// Always `"otel_traces"`.
    pub kind: ImportedTracesKind,
    /// The trace export, kept in `objects/` by its digest.
    pub source: Source,
    /// The log exports whose events belong to these spans (the messages,
    /// when the instrumentation records them as events), kept likewise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Source>,
    /// The resource's `service.name`, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// Traces of the export with no GenAI span, not imported.
    pub other_traces: u32,
    /// One run per trace holding a GenAI span, by start time.
    pub runs: Vec<TraceRun>,
}

/// The `kind` of an [`ImportedTraces`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImportedTracesKind {
    /// Agent runs imported from an OpenTelemetry trace export (`"otel_traces"`).
    OtelTraces,
}

/// One trace: its root span's account of the run and every model call
/// and tool execution in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TraceRun {
    /// The trace's id, 32 lowercase hex digits.
    pub trace_id: String,
    /// The root span's name (`invoke_agent demo`).
    pub name: String,
    /// The root span's id, 16 lowercase hex digits.
    pub span_id: String,
    /// The root's `gen_ai.operation.name`, or `""`.
    pub operation: String,
    /// The root's `gen_ai.agent.name`, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The root's `gen_ai.conversation.id`, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// When the root span started, an RFC 3339 time in UTC.
    pub started: String,
    /// When the root span ended, an RFC 3339 time in UTC.
    pub ended: String,
    /// The root span's duration, in milliseconds.
    pub duration_ms: f64,
    /// `ok`, `error` or `unset`, the root span's status.
    pub status: String,
    /// The root's status message or `error.type`, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The run's usage as its root span reports it.
    pub usage: Usage,
    /// Spans of the trace that are neither model calls nor tool executions.
    pub other_spans: u32,
    /// Every model call, by start time.
    pub calls: Vec<Call>,
    /// Every tool execution, by start time.
    pub tools: Vec<ToolExecution>,
    /// The last model call's input messages then its output, as the
    /// GenAI conventions write them (`role`, `parts`).
    pub transcript: Vec<Value>,
}

/// Token counts as a span reports them; a count the span does not report
/// is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Tokens of input (`gen_ai.usage.input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Tokens of output (`gen_ai.usage.output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Input tokens read from the provider's cache
    /// (`gen_ai.usage.cache_read.input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the provider's cache
    /// (`gen_ai.usage.cache_creation.input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
}

/// The usage attributes, by field of [`Usage`].
pub const USAGE_KEYS: [(&str, &str); 4] = [
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
    (
        "cache_read_input_tokens",
        "gen_ai.usage.cache_read.input_tokens",
    ),
    (
        "cache_creation_input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
    ),
];

impl Usage {
    /// The counts `span` reports in its usage attributes ([`USAGE_KEYS`]).
    pub fn of(span: &Span) -> Usage {
        let c = |k| span.count(k);
        Usage {
            input_tokens: c(USAGE_KEYS[0].1),
            output_tokens: c(USAGE_KEYS[1].1),
            cache_read_input_tokens: c(USAGE_KEYS[2].1),
            cache_creation_input_tokens: c(USAGE_KEYS[3].1),
        }
    }

    /// The counts by field name, in [`USAGE_KEYS`] order.
    pub fn fields(&self) -> [(&'static str, Option<u64>); 4] {
        [
            (USAGE_KEYS[0].0, self.input_tokens),
            (USAGE_KEYS[1].0, self.output_tokens),
            (USAGE_KEYS[2].0, self.cache_read_input_tokens),
            (USAGE_KEYS[3].0, self.cache_creation_input_tokens),
        ]
    }
}

/// One model call (`chat`, `text_completion`, `generate_content`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The call span's id, 16 lowercase hex digits.
    pub span_id: String,
    /// The call's `gen_ai.operation.name`: `chat`, `text_completion` or
    /// `generate_content`.
    pub operation: String,
    /// The provider, from `gen_ai.provider.name`, else `gen_ai.system`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `server.address:server.port`, when the span names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The model the call asked for (`gen_ai.request.model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_model: Option<String>,
    /// The model that answered (`gen_ai.response.model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// The provider's id of the response (`gen_ai.response.id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// As the provider sent them, one per choice.
    pub finish_reasons: Vec<FinishReason>,
    /// The output budget the call asked for (`gen_ai.request.max_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Whether the call stopped on its output budget: a finish reason says
    /// so, or it returned every token it was allowed.
    pub truncated: bool,
    /// The call's token counts as its span reports them.
    pub usage: Usage,
    /// When the call started, an RFC 3339 time in UTC.
    pub started: String,
    /// How long the call took, in milliseconds.
    pub duration_ms: f64,
    /// `ok`, `error` or `unset`, the call span's status.
    pub status: String,
    /// The span's status message or `error.type`, when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The messages the call returned.
    pub output: Vec<Value>,
}

/// One tool execution (`execute_tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolExecution {
    /// The tool span's id, 16 lowercase hex digits.
    pub span_id: String,
    /// The tool's name: `gen_ai.tool.name`, else the span's name.
    pub name: String,
    /// The id of the tool call it executes (`gen_ai.tool.call.id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The arguments it was called with (`gen_ai.tool.call.arguments`): a
    /// string as it is, any other value as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// What the tool returned (`gen_ai.tool.call.result`), as text likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// When the execution started, an RFC 3339 time in UTC.
    pub started: String,
    /// How long the execution took, in milliseconds.
    pub duration_ms: f64,
    /// `ok`, `error` or `unset`, the tool span's status.
    pub status: String,
    /// The span's status message or `error.type`, when the execution failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An RFC 3339 time in UTC from nanoseconds since 1970, its fraction
/// as long as it needs to be.
pub fn time_of(ns: u64) -> String {
    let secs = (ns / 1_000_000_000) as i64;
    let frac = ns % 1_000_000_000;
    let base = crate::time::format(crate::time::UnixMillis(secs * 1000));
    let base = base.trim_end_matches('Z');
    if frac == 0 {
        format!("{base}Z")
    } else {
        format!("{base}.{}Z", format!("{frac:09}").trim_end_matches('0'))
    }
}

fn millis_between(start: u64, end: u64) -> f64 {
    end.saturating_sub(start) as f64 / 1e6
}

/// A span's failure, in its own words: the status message, else `error.type`.
fn failure(span: &Span) -> Option<String> {
    if span.status != "error" && span.text("error.type").is_none() {
        return None;
    }
    let message = span.status_message.trim();
    Some(if message.is_empty() {
        span.text("error.type").unwrap_or("error").to_string()
    } else {
        message.to_string()
    })
}

/// A messages attribute (`gen_ai.input.messages`, `gen_ai.output.messages`):
/// a JSON string on spans, structured on events. `None` when absent;
/// text that is not a JSON array is kept as one text message.
pub fn messages(value: Option<&Value>) -> Option<Vec<Value>> {
    match value? {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => Some(items),
            _ => Some(vec![serde_json::json!({
                "role": "unknown",
                "parts": [{ "type": "text", "content": text }],
            })]),
        },
        _ => None,
    }
}

/// The events of `events` by (trace, span), for spans of model calls.
pub fn events_by_span(events: &[&Export]) -> BTreeMap<(String, String), Vec<Event>> {
    let mut out: BTreeMap<(String, String), Vec<Event>> = BTreeMap::new();
    for export in events {
        for event in &export.events {
            out.entry((event.trace_id.clone(), event.span_id.clone()))
                .or_default()
                .push(event.clone());
        }
    }
    out
}

/// A call span's messages attribute, from the span or else from one of
/// its events.
pub fn call_messages(
    span: &Span,
    key: &str,
    events: &BTreeMap<(String, String), Vec<Event>>,
) -> Option<Vec<Value>> {
    messages(span.attributes.get(key)).or_else(|| {
        events
            .get(&(span.trace_id.clone(), span.span_id.clone()))?
            .iter()
            .find_map(|e| messages(e.attributes.get(key)))
    })
}

/// The root of a trace: the earliest span whose parent is not in it.
pub fn root<'s>(spans: &[&'s Span]) -> &'s Span {
    let ids: std::collections::BTreeSet<&str> = spans.iter().map(|s| s.span_id.as_str()).collect();
    spans
        .iter()
        .find(|s| !ids.contains(s.parent_span_id.as_str()))
        .unwrap_or(&spans[0])
}

/// Derives the record of `export` (kept as `source`), with the events of
/// the log exports `events` (kept as `event_sources`).
pub fn derive(
    export: &Export,
    source: Source,
    events: &[&Export],
    event_sources: Vec<Source>,
) -> ImportedTraces {
    let by_span = events_by_span(events);
    let mut runs = Vec::new();
    let mut other_traces = 0;
    for spans in traces(&export.spans) {
        if !spans.iter().any(|s| !s.operation().is_empty()) {
            other_traces += 1;
            continue;
        }
        runs.push(run(&spans, &by_span));
    }
    ImportedTraces {
        format_version: FormatVersion,
        kind: ImportedTracesKind::OtelTraces,
        source,
        events: event_sources,
        service: export
            .spans
            .first()
            .and_then(|s| s.resource.get("service.name"))
            .and_then(Value::as_str)
            .map(str::to_string),
        other_traces,
        runs,
    }
}

fn run(spans: &[&Span], events: &BTreeMap<(String, String), Vec<Event>>) -> TraceRun {
    let root = root(spans);
    let calls: Vec<Call> = spans
        .iter()
        .filter(|s| MODEL_CALLS.contains(&s.operation()))
        .map(|s| call(s, events))
        .collect();
    let tools: Vec<ToolExecution> = spans
        .iter()
        .filter(|s| s.operation() == "execute_tool")
        .map(|s| tool(s))
        .collect();
    let transcript = spans
        .iter()
        .rfind(|s| MODEL_CALLS.contains(&s.operation()))
        .map(|last| {
            let mut all = call_messages(last, "gen_ai.input.messages", events).unwrap_or_default();
            all.extend(call_messages(last, "gen_ai.output.messages", events).unwrap_or_default());
            all
        })
        .unwrap_or_default();
    let text = |k: &str| root.text(k).map(str::to_string);
    let root_is_own =
        !(MODEL_CALLS.contains(&root.operation()) || root.operation() == "execute_tool");
    TraceRun {
        trace_id: root.trace_id.clone(),
        name: root.name.clone(),
        span_id: root.span_id.clone(),
        operation: root.operation().to_string(),
        agent: text("gen_ai.agent.name"),
        conversation: text("gen_ai.conversation.id"),
        started: time_of(root.start_ns),
        ended: time_of(root.end_ns),
        duration_ms: millis_between(root.start_ns, root.end_ns),
        status: root.status.clone(),
        error: failure(root),
        usage: Usage::of(root),
        other_spans: (spans.len() - calls.len() - tools.len() - usize::from(root_is_own)) as u32,
        calls,
        tools,
        transcript,
    }
}

fn call(span: &Span, events: &BTreeMap<(String, String), Vec<Event>>) -> Call {
    let text = |k: &str| span.text(k).map(str::to_string);
    let finish_reasons: Vec<FinishReason> =
        match span.attributes.get("gen_ai.response.finish_reasons") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|s| FinishReason::try_from(s.to_string()).ok())
                .collect(),
            Some(Value::String(s)) => FinishReason::try_from(s.clone()).into_iter().collect(),
            _ => Vec::new(),
        };
    let usage = Usage::of(span);
    let max_tokens = span.count("gen_ai.request.max_tokens");
    let truncated = finish_reasons.iter().any(FinishReason::is_truncation)
        || matches!((usage.output_tokens, max_tokens), (Some(out), Some(max)) if max > 0 && out >= max);
    Call {
        span_id: span.span_id.clone(),
        operation: span.operation().to_string(),
        provider: text("gen_ai.provider.name").or_else(|| text("gen_ai.system")),
        server: text("server.address").map(|host| match span.attributes.get("server.port") {
            Some(port) if port.is_u64() => format!("{host}:{port}"),
            _ => host,
        }),
        request_model: text("gen_ai.request.model"),
        response_model: text("gen_ai.response.model"),
        response_id: text("gen_ai.response.id"),
        finish_reasons,
        max_tokens,
        truncated,
        usage,
        started: time_of(span.start_ns),
        duration_ms: millis_between(span.start_ns, span.end_ns),
        status: span.status.clone(),
        error: failure(span),
        output: call_messages(span, "gen_ai.output.messages", events).unwrap_or_default(),
    }
}

fn tool(span: &Span) -> ToolExecution {
    let text = |k: &str| span.text(k).map(str::to_string);
    ToolExecution {
        span_id: span.span_id.clone(),
        name: text("gen_ai.tool.name").unwrap_or_else(|| span.name.clone()),
        call_id: text("gen_ai.tool.call.id"),
        arguments: attribute_text(span, "gen_ai.tool.call.arguments"),
        result: attribute_text(span, "gen_ai.tool.call.result"),
        started: time_of(span.start_ns),
        duration_ms: millis_between(span.start_ns, span.end_ns),
        status: span.status.clone(),
        error: failure(span),
    }
}

/// An attribute as text: a string as it is, anything else as JSON.
fn attribute_text(span: &Span, key: &str) -> Option<String> {
    match span.attributes.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}
