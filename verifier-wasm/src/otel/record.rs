//! The record an OpenTelemetry trace export is imported as, and its
//! derivation from the importer's own account of each span
//! ([`super::neutral`]): the same export (and log export) gives the same
//! record, byte for byte. One trace is one run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::attrs::Attribute;
use super::neutral::{events_by_span, runs, Counts, Kind, Step, Trace};
use super::otlp::Export;
use crate::imported::Source;
use crate::model::{FinishReason, FormatVersion};

/// Where an experiment directory keeps its imported traces.
pub const OTEL_DIR: &str = "otel";

/// The path of trace export `name` of directory `dir` under the records root.
pub fn otel_record_path(dir: &str, name: &str) -> String {
    format!("{dir}/{OTEL_DIR}/{name}.json")
}

/// `experiments/<dir>/otel/<name>.json`: agent runs imported from an
/// OpenTelemetry trace export (the GenAI semantic conventions,
/// OpenInference or OpenLLMetry), one per trace.
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
    /// Traces of the export with no span any convention names, not imported.
    pub other_traces: u32,
    /// One run per trace holding a span a convention names, by start time.
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
    /// The root's operation as its convention names it
    /// (`gen_ai.operation.name`, `openinference.span.kind`,
    /// `traceloop.span.kind`), or `""`.
    pub operation: String,
    /// The agent's name (`gen_ai.agent.name`, `agent.name`, OpenLLMetry's
    /// `traceloop.entity.name` of an agent), when the root names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The conversation (`gen_ai.conversation.id`, `session.id`), when
    /// the root names one.
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
    /// The root's attributes the importer did not read, by key (when the
    /// root is neither a model call nor a tool execution).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    /// Spans of the trace that are neither model calls nor tool executions.
    pub other_spans: u32,
    /// Every model call, by start time.
    pub calls: Vec<Call>,
    /// Every tool execution, by start time.
    pub tools: Vec<ToolExecution>,
    /// The last model call's input messages then its output, in the GenAI
    /// conventions' form (`role`, `parts`) whatever form the export used.
    pub transcript: Vec<Value>,
}

/// Token counts as a span reports them; a count the span does not report
/// is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Tokens of input (`gen_ai.usage.input_tokens`,
    /// `llm.token_count.prompt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Tokens of output (`gen_ai.usage.output_tokens`,
    /// `llm.token_count.completion`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Input tokens read from the provider's cache
    /// (`gen_ai.usage.cache_read.input_tokens`,
    /// `llm.token_count.prompt_details.cache_read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the provider's cache
    /// (`gen_ai.usage.cache_creation.input_tokens`,
    /// `llm.token_count.prompt_details.cache_write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    /// Output tokens spent on reasoning
    /// (`gen_ai.usage.reasoning.output_tokens`,
    /// `llm.token_count.completion_details.reasoning`,
    /// `gen_ai.usage.reasoning_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_output_tokens: Option<u64>,
}

impl From<Counts> for Usage {
    fn from(c: Counts) -> Usage {
        Usage {
            input_tokens: c.input,
            output_tokens: c.output,
            cache_read_input_tokens: c.cache_read,
            cache_creation_input_tokens: c.cache_creation,
            reasoning_output_tokens: c.reasoning,
        }
    }
}

impl Usage {
    /// The counts by field name.
    pub fn fields(&self) -> [(&'static str, Option<u64>); 5] {
        [
            ("input_tokens", self.input_tokens),
            ("output_tokens", self.output_tokens),
            ("cache_read_input_tokens", self.cache_read_input_tokens),
            (
                "cache_creation_input_tokens",
                self.cache_creation_input_tokens,
            ),
            ("reasoning_output_tokens", self.reasoning_output_tokens),
        ]
    }
}

/// One model call (`chat`, `text_completion`, `generate_content`, an
/// OpenInference `LLM` span, an OpenLLMetry request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The call span's id, 16 lowercase hex digits.
    pub span_id: String,
    /// The operation as the call's convention names it: `chat`,
    /// `text_completion`, `generate_content` (`gen_ai.operation.name`,
    /// OpenLLMetry's `llm.request.type`) or `LLM` (OpenInference).
    pub operation: String,
    /// The provider: `gen_ai.provider.name`, else `gen_ai.system`
    /// (OpenInference: `llm.provider`, else `llm.system`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `server.address:server.port`, when the span names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The model the call asked for (`gen_ai.request.model`; OpenInference:
    /// `model` of `llm.invocation_parameters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_model: Option<String>,
    /// The model that answered (`gen_ai.response.model`, `llm.model_name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// The provider's id of the response (`gen_ai.response.id`;
    /// OpenInference: `id` of the response JSON in `output.value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// As the span writes them, one per choice.
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
    /// The messages the call returned, in the GenAI conventions' form.
    pub output: Vec<Value>,
    /// The span's attributes the importer did not read, by key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
}

/// One tool execution (`execute_tool`, an OpenInference `TOOL` span, an
/// OpenLLMetry `tool` span).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolExecution {
    /// The tool span's id, 16 lowercase hex digits.
    pub span_id: String,
    /// The tool's name (`gen_ai.tool.name`, `tool.name`,
    /// `traceloop.entity.name`), else the span's name.
    pub name: String,
    /// The id of the tool call it executes (`gen_ai.tool.call.id`,
    /// `tool.id`), when the span records one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The arguments it was called with (`gen_ai.tool.call.arguments`,
    /// `input.value`, the keyword arguments of `traceloop.entity.input`):
    /// a string as it is, any other value as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// What the tool returned (`gen_ai.tool.call.result`, `output.value`,
    /// `traceloop.entity.output`), as text likewise.
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
    /// The span's attributes the importer did not read, by key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
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

/// Derives the record of `export` (kept as `source`), with the events of
/// the log exports `events` (kept as `event_sources`).
pub fn derive(
    export: &Export,
    source: Source,
    events: &[&Export],
    event_sources: Vec<Source>,
) -> ImportedTraces {
    let (traces, other_traces) = runs(export, &events_by_span(events));
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
        runs: traces.iter().map(run).collect(),
    }
}

fn run(trace: &Trace<'_>) -> TraceRun {
    let root = trace.root();
    let (span, f) = (root.span, &root.facts);
    let calls: Vec<Call> = trace.of(Kind::Call).map(call).collect();
    let tools: Vec<ToolExecution> = trace.of(Kind::Tool).map(tool).collect();
    let transcript = trace
        .of(Kind::Call)
        .last()
        .map(|last| {
            let mut all = last.facts.input.clone().unwrap_or_default();
            all.extend(last.facts.output.clone().unwrap_or_default());
            all
        })
        .unwrap_or_default();
    let root_is_own = !(root.is(Kind::Call) || root.is(Kind::Tool));
    TraceRun {
        trace_id: span.trace_id.clone(),
        name: span.name.clone(),
        span_id: span.span_id.clone(),
        operation: f.operation.clone().unwrap_or_default(),
        agent: f.agent.clone(),
        conversation: f.conversation.clone(),
        started: time_of(span.start_ns),
        ended: time_of(span.end_ns),
        duration_ms: millis_between(span.start_ns, span.end_ns),
        status: span.status.clone(),
        error: f.error.clone(),
        usage: f.usage.into(),
        attributes: if root_is_own {
            root.unread.clone()
        } else {
            Vec::new()
        },
        other_spans: (trace.steps.len() - calls.len() - tools.len() - usize::from(root_is_own))
            as u32,
        calls,
        tools,
        transcript,
    }
}

fn call(step: &Step<'_>) -> Call {
    let (span, f) = (step.span, &step.facts);
    let finish_reasons: Vec<FinishReason> = f
        .finish_reasons
        .iter()
        .flatten()
        .filter_map(|s| FinishReason::try_from(s.clone()).ok())
        .collect();
    let usage: Usage = f.usage.into();
    let truncated = finish_reasons.iter().any(FinishReason::is_truncation)
        || matches!((usage.output_tokens, f.max_tokens), (Some(out), Some(max)) if max > 0 && out >= max);
    Call {
        span_id: span.span_id.clone(),
        operation: f.operation.clone().unwrap_or_default(),
        provider: f.provider.clone(),
        server: f.server.clone(),
        request_model: f.request_model.clone(),
        response_model: f.response_model.clone(),
        response_id: f.response_id.clone(),
        finish_reasons,
        max_tokens: f.max_tokens,
        truncated,
        usage,
        started: time_of(span.start_ns),
        duration_ms: millis_between(span.start_ns, span.end_ns),
        status: span.status.clone(),
        error: f.error.clone(),
        output: f.output.clone().unwrap_or_default(),
        attributes: step.unread.clone(),
    }
}

fn tool(step: &Step<'_>) -> ToolExecution {
    let (span, f) = (step.span, &step.facts);
    ToolExecution {
        span_id: span.span_id.clone(),
        name: f.tool_name.clone().unwrap_or_else(|| span.name.clone()),
        call_id: f.call_id.clone(),
        arguments: f.arguments.clone(),
        result: f.result.clone(),
        started: time_of(span.start_ns),
        duration_ms: millis_between(span.start_ns, span.end_ns),
        status: span.status.clone(),
        error: f.error.clone(),
        attributes: step.unread.clone(),
    }
}
