//! The pages of agent runs imported from OpenTelemetry traces: one per
//! trace export, each run with its usage beside the sum over its calls,
//! its model calls, its tool executions and its transcript, shown as
//! inert text.

use serde::Serialize;
use serde_json::Value;

use receipts_verifier::otel::{Attribute, ImportedTraces, TraceRun};
use receipts_verifier::verify::{Receipt, Status};

use super::{label, mark, object_href, receipt_cell, worst, Cell, ReceiptView};
use crate::load::LoadedImport;

pub fn otel_href(dir: &str, name: &str) -> String {
    format!("imports/{dir}/otel/{name}.html")
}

/// Whether every model call of the export went to a server on this
/// machine (a local mock or model), not a provider's API.
pub fn traces_local(traces: &ImportedTraces) -> bool {
    let mut servers = traces
        .runs
        .iter()
        .flat_map(|r| &r.calls)
        .map(|c| c.server.as_deref().unwrap_or(""))
        .peekable();
    servers.peek().is_some() && servers.all(super::loopback)
}

fn title(traces: &ImportedTraces, name: &str) -> String {
    match &traces.service {
        Some(service) => format!("{service} ({name})"),
        None => name.to_string(),
    }
}

/// An imported trace export as the index lists it.
#[derive(Debug, Clone, Serialize)]
pub struct TracesSummary {
    pub title: String,
    pub href: String,
    pub runs: usize,
    pub failed_runs: usize,
    pub calls: usize,
    pub truncated: usize,
    pub tools: usize,
    pub local: bool,
    pub receipts: usize,
    pub verified: String,
    pub mark: String,
}

/// The index's line for each trace export of `loaded`.
pub fn traces_summaries(loaded: &LoadedImport, verified: &[Vec<Receipt>]) -> Vec<TracesSummary> {
    loaded
        .traces
        .iter()
        .zip(verified)
        .map(|((name, traces), receipts)| {
            let status = worst(receipts);
            let calls = traces.runs.iter().flat_map(|r| &r.calls);
            TracesSummary {
                title: title(traces, name),
                href: otel_href(&loaded.dir, name),
                runs: traces.runs.len(),
                failed_runs: traces.runs.iter().filter(|r| r.status == "error").count(),
                calls: calls.clone().count(),
                truncated: calls.filter(|c| c.truncated).count(),
                tools: traces.runs.iter().map(|r| r.tools.len()).sum(),
                local: traces_local(traces),
                receipts: receipts.len(),
                verified: label(&status),
                mark: mark(status).to_string(),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct TracesView {
    pub title: String,
    pub record: ImportedTraces,
    pub local: bool,
    pub source_href: String,
    /// Each kept log export: its file, its link and its receipt that every
    /// event names a span of the trace export.
    pub events: Vec<(String, String, Cell)>,
    pub receipts: usize,
    pub not_passing: Vec<ReceiptView>,
    pub derived: Cell,
    pub runs: Vec<TraceRunView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceRunView {
    pub anchor: String,
    pub run: TraceRun,
    pub timing: Cell,
    /// Each count the root reports, beside the sum over the calls.
    pub usage: Vec<(String, Cell)>,
    pub calls: Vec<TraceCallView>,
    pub tools: Vec<TraceToolView>,
    pub transcript: Vec<TraceMessageView>,
    /// The root's attributes the importer did not read: key, value as text.
    pub attributes: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceCallView {
    pub span_id: String,
    pub model: String,
    pub response_id: String,
    pub finish: String,
    pub truncated: bool,
    pub tokens: String,
    pub duration_ms: f64,
    pub status: String,
    pub error: Option<String>,
    /// Its output read back by the next call, and its events' agreement.
    pub checks: Vec<(String, Cell)>,
    /// Its attributes the importer did not read: key, value as text.
    pub attributes: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceToolView {
    pub name: String,
    pub call_id: String,
    pub arguments: String,
    pub result: String,
    pub duration_ms: f64,
    pub status: String,
    pub error: Option<String>,
    pub checks: Vec<(String, Cell)>,
    /// Its attributes the importer did not read: key, value as text.
    pub attributes: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceMessageView {
    pub role: String,
    pub finish_reason: Option<String>,
    pub parts: Vec<TracePartView>,
}

/// One part of a message: `text`, `reasoning`, `tool_call` (a label with
/// the tool's name and id, the arguments as text), `tool_call_response`
/// or any other kind, as JSON text.
#[derive(Debug, Clone, Serialize)]
pub struct TracePartView {
    pub kind: String,
    pub label: Option<String>,
    pub text: String,
}

/// Attributes as the page lists them: each key with its value as text
/// (a string as it is, anything else as JSON).
fn attribute_rows(attributes: &[Attribute]) -> Vec<(String, String)> {
    attributes
        .iter()
        .map(|a| (a.key.clone(), text_of(Some(&a.value))))
        .collect()
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn message(m: &Value) -> TraceMessageView {
    let parts = m
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|p| {
            let kind = p
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let id = text_of(p.get("id"));
            match kind.as_str() {
                "text" | "reasoning" => TracePartView {
                    label: (kind == "reasoning").then(|| "reasoning".to_string()),
                    text: text_of(p.get("content")),
                    kind,
                },
                "tool_call" => TracePartView {
                    label: Some(format!("calls {} ({id})", text_of(p.get("name")))),
                    text: text_of(p.get("arguments")),
                    kind,
                },
                "tool_call_response" => TracePartView {
                    label: Some(format!("result of {id}")),
                    text: text_of(p.get("response").or_else(|| p.get("result"))),
                    kind,
                },
                _ => TracePartView {
                    label: Some(if kind.is_empty() {
                        "part".into()
                    } else {
                        kind.clone()
                    }),
                    text: p.to_string(),
                    kind,
                },
            }
        })
        .collect();
    TraceMessageView {
        role: m
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string(),
        finish_reason: m
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        parts,
    }
}

/// The receipts present among `claims`, each with a label.
fn present(receipts: &[Receipt], claims: &[(&str, String)]) -> Vec<(String, Cell)> {
    claims
        .iter()
        .filter(|(_, claim)| receipts.iter().any(|r| &r.claim == claim))
        .map(|(label, claim)| (label.to_string(), receipt_cell(receipts, claim)))
        .collect()
}

fn run_view(i: usize, run: &TraceRun, receipts: &[Receipt]) -> TraceRunView {
    let at = format!("runs[{i}]");
    let usage = run
        .usage
        .fields()
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(field, _)| {
            (
                field.replace('_', " "),
                receipt_cell(receipts, &format!("{at}.usage.{field}")),
            )
        })
        .collect();
    let calls = run
        .calls
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let model = match (&c.request_model, &c.response_model) {
                (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
                (a, b) => b.clone().or_else(|| a.clone()).unwrap_or_default(),
            };
            let u = &c.usage;
            let mut tokens = format!(
                "{} in, {} out",
                u.input_tokens.map_or("–".into(), |n| n.to_string()),
                u.output_tokens.map_or("–".into(), |n| n.to_string())
            );
            if let Some(max) = c.max_tokens {
                tokens.push_str(&format!(" of {max}"));
            }
            if let Some(cached) = u.cache_read_input_tokens {
                tokens.push_str(&format!(", {cached} cached"));
            }
            if let Some(reasoning) = u.reasoning_output_tokens {
                tokens.push_str(&format!(", {reasoning} reasoning"));
            }
            TraceCallView {
                span_id: c.span_id.clone(),
                model,
                response_id: c.response_id.clone().unwrap_or_default(),
                finish: c
                    .finish_reasons
                    .iter()
                    .map(receipts_verifier::model::FinishReason::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                truncated: c.truncated,
                tokens,
                duration_ms: c.duration_ms,
                status: c.status.clone(),
                error: c.error.clone(),
                checks: present(
                    receipts,
                    &[
                        (
                            "previous output read back",
                            format!("{at}.calls[{k}].history"),
                        ),
                        ("events agree", format!("{at}.calls[{k}].events")),
                    ],
                ),
                attributes: attribute_rows(&c.attributes),
            }
        })
        .collect();
    let tools = run
        .tools
        .iter()
        .enumerate()
        .map(|(t, tool)| TraceToolView {
            name: tool.name.clone(),
            call_id: tool.call_id.clone().unwrap_or_default(),
            arguments: tool.arguments.clone().unwrap_or_default(),
            result: tool.result.clone().unwrap_or_default(),
            duration_ms: tool.duration_ms,
            status: tool.status.clone(),
            error: tool.error.clone(),
            checks: present(
                receipts,
                &[
                    (
                        "asked for by the model",
                        format!("{at}.tools[{t}].requested"),
                    ),
                    ("result read back", format!("{at}.tools[{t}].result")),
                ],
            ),
            attributes: attribute_rows(&tool.attributes),
        })
        .collect();
    TraceRunView {
        anchor: format!("trace-{}", run.trace_id),
        run: run.clone(),
        timing: receipt_cell(receipts, &format!("{at}.timing")),
        usage,
        calls,
        tools,
        transcript: run.transcript.iter().map(message).collect(),
        attributes: attribute_rows(&run.attributes),
    }
}

/// The page of trace export `name`.
pub fn traces_view(name: &str, traces: &ImportedTraces, receipts: &[Receipt]) -> TracesView {
    TracesView {
        title: title(traces, name),
        record: traces.clone(),
        local: traces_local(traces),
        source_href: object_href(&traces.source.sha256),
        events: traces
            .events
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    s.file.clone(),
                    object_href(&s.sha256),
                    receipt_cell(receipts, &format!("events[{i}].spans")),
                )
            })
            .collect(),
        receipts: receipts.len(),
        not_passing: receipts
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(ReceiptView::from)
            .collect(),
        derived: receipt_cell(receipts, "derived from the export"),
        runs: traces
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| run_view(i, r, receipts))
            .collect(),
    }
}
