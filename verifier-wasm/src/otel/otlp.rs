//! OTLP/JSON as the OpenTelemetry exporters write it: an
//! `ExportTraceServiceRequest` (`resourceSpans`) or an
//! `ExportLogsServiceRequest` (`resourceLogs`), one per file or one per
//! line (the Collector's file exporter). Trace and span ids are hex,
//! 64-bit integers may be strings or numbers, attribute values are
//! `AnyValue`s, read here as plain JSON; keys may be camelCase or
//! snake_case, as the protobuf JSON mapping allows.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::anyvalue::{any_value, attributes};

/// Why an export was not read, with the place: the line (for a file of
/// one request per line) and a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if at.is_empty() { String::new() } else { format!("at {at}: ") })]
pub struct OtlpError {
    /// Where in the export: a byte offset, a line and column, or a JSON pointer
    /// (after `line <n>: ` in a file of one request per line, or `line <n>`
    /// alone for a whole line); empty when the whole export is at fault.
    pub at: String,
    /// What is wrong there, in plain words.
    pub message: String,
}

pub(super) fn error(at: impl Into<String>, message: impl Into<String>) -> OtlpError {
    OtlpError {
        at: at.into(),
        message: message.into(),
    }
}

/// What an export holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// Spans, from `resourceSpans`.
    Traces,
    /// GenAI events of spans, from the log records of `resourceLogs`.
    Logs,
}

/// One span, with its resource's and scope's names.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The span's trace: 32 lowercase hex digits, not all zero.
    pub trace_id: String,
    /// 16 lowercase hex digits, not all zero.
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// The span's name, as written.
    pub name: String,
    /// When the span started, in nanoseconds since 1970.
    pub start_ns: u64,
    /// When the span ended, in nanoseconds since 1970.
    pub end_ns: u64,
    /// `ok`, `error` or `unset`.
    pub status: String,
    /// The status's message, or `""` when it has none.
    pub status_message: String,
    /// The span's attributes by key, their values as plain JSON.
    pub attributes: Map<String, Value>,
    /// The resource's attributes (`service.name`, `telemetry.sdk.version`, …).
    pub resource: Map<String, Value>,
    /// Where the span is in the export, as a JSON pointer.
    pub at: String,
}

/// One GenAI event (`gen_ai.…`) of a span, from a log record: an
/// operation's details, or one message of its input or output.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The trace of the event's span: 32 lowercase hex digits, not all zero.
    pub trace_id: String,
    /// The span the event belongs to: 16 lowercase hex digits, not all zero.
    pub span_id: String,
    /// `eventName`, or the older `event.name` attribute.
    pub name: String,
    /// The log record's attributes by key, their values as plain JSON (less
    /// `event.name` when that gave the name).
    pub attributes: Map<String, Value>,
    /// The log record's body as plain JSON (a message's `content`, a
    /// choice's `message`), `null` when it has none.
    pub body: Value,
    /// Where the log record is in the export, as a JSON pointer.
    pub at: String,
}

/// An export read: its spans or its events, in the order written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Export {
    /// The spans of a trace export; empty in a logs export.
    pub spans: Vec<Span>,
    /// The GenAI events of spans in a logs export (other log records are
    /// left out); empty in a trace export.
    pub events: Vec<Event>,
}

impl Export {
    /// What the export holds: spans, events, or (empty) neither.
    pub fn kind(&self) -> Option<ExportKind> {
        if !self.spans.is_empty() {
            Some(ExportKind::Traces)
        } else if !self.events.is_empty() {
            Some(ExportKind::Logs)
        } else {
            None
        }
    }
}

/// Reads an export: one JSON request, or one per line.
pub fn read(bytes: &[u8]) -> Result<Export, OtlpError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        error(
            format!("byte {}", e.valid_up_to()),
            "the export is not UTF-8 text",
        )
    })?;
    let mut export = Export::default();
    match serde_json::from_str::<Value>(text) {
        Ok(value) => request(&value, "", &mut export)?,
        Err(whole) => {
            let lines: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .collect();
            if lines.len() < 2 {
                return Err(error(
                    format!("line {}, column {}", whole.line(), whole.column()),
                    format!("not JSON: {}", crate::messages::plain(&whole.to_string())),
                ));
            }
            for (n, line) in lines {
                let value: Value = serde_json::from_str(line).map_err(|e| {
                    error(
                        format!("line {}, column {}", n + 1, e.column()),
                        format!("not JSON: {}", crate::messages::plain(&e.to_string())),
                    )
                })?;
                request(&value, &format!("line {}: ", n + 1), &mut export)?;
            }
        }
    }
    if export.kind().is_none() {
        return Err(error(
            "",
            "neither spans (resourceSpans) nor GenAI events of spans (resourceLogs): not an OTLP/JSON export of an agent",
        ));
    }
    if !export.spans.is_empty() && !export.events.is_empty() {
        return Err(error(
            "",
            "holds both spans and log records: export traces and logs to files of their own",
        ));
    }
    Ok(export)
}

/// `field` of `v` under its camelCase or snake_case name.
fn field<'v>(v: &'v Value, camel: &str, snake: &str) -> Option<&'v Value> {
    v.get(camel).or_else(|| v.get(snake))
}

pub(super) fn list<'v>(
    v: &'v Value,
    camel: &str,
    snake: &str,
    at: &str,
) -> Result<&'v [Value], OtlpError> {
    match field(v, camel, snake) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(error(format!("{at}/{camel}"), "expected an array")),
    }
}

fn request(v: &Value, line: &str, out: &mut Export) -> Result<(), OtlpError> {
    if !v.is_object() {
        return Err(error(line.trim_end_matches(": "), "expected an object"));
    }
    for (r, rs) in list(v, "resourceSpans", "resource_spans", "")?
        .iter()
        .enumerate()
    {
        let at = format!("{line}/resourceSpans/{r}");
        let resource = resource(rs, &at)?;
        for (s, ss) in list(rs, "scopeSpans", "scope_spans", &at)?
            .iter()
            .enumerate()
        {
            let at = format!("{at}/scopeSpans/{s}");
            for (i, span) in list(ss, "spans", "spans", &at)?.iter().enumerate() {
                out.spans
                    .push(read_span(span, &format!("{at}/spans/{i}"), &resource)?);
            }
        }
    }
    for (r, rl) in list(v, "resourceLogs", "resource_logs", "")?
        .iter()
        .enumerate()
    {
        let at = format!("{line}/resourceLogs/{r}");
        for (s, sl) in list(rl, "scopeLogs", "scope_logs", &at)?.iter().enumerate() {
            let at = format!("{at}/scopeLogs/{s}");
            for (i, record) in list(sl, "logRecords", "log_records", &at)?
                .iter()
                .enumerate()
            {
                if let Some(event) = read_event(record, &format!("{at}/logRecords/{i}"))? {
                    out.events.push(event);
                }
            }
        }
    }
    Ok(())
}

fn resource(rs: &Value, at: &str) -> Result<Map<String, Value>, OtlpError> {
    match rs.get("resource") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(r) => attributes(r, &format!("{at}/resource")),
    }
}

fn read_span(v: &Value, at: &str, resource: &Map<String, Value>) -> Result<Span, OtlpError> {
    let trace_id = id(v, "traceId", "trace_id", 32, at)?;
    let span_id = id(v, "spanId", "span_id", 16, at)?;
    let parent_span_id = match field(v, "parentSpanId", "parent_span_id") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) if s.is_empty() => String::new(),
        Some(_) => id(v, "parentSpanId", "parent_span_id", 16, at)?,
    };
    let name = match v.get("name") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(error(
                format!("{at}/name"),
                "a span needs its name, a string",
            ))
        }
    };
    let start_ns = nanos(v, "startTimeUnixNano", "start_time_unix_nano", at)?;
    let end_ns = nanos(v, "endTimeUnixNano", "end_time_unix_nano", at)?;
    let status = v.get("status").unwrap_or(&Value::Null);
    let code = match field(status, "code", "code") {
        None | Some(Value::Null) => "unset",
        Some(Value::Number(n)) => match n.as_u64() {
            Some(0) => "unset",
            Some(1) => "ok",
            Some(2) => "error",
            _ => return Err(error(format!("{at}/status/code"), "expected 0, 1 or 2")),
        },
        Some(Value::String(s)) => match s.as_str() {
            "STATUS_CODE_UNSET" => "unset",
            "STATUS_CODE_OK" => "ok",
            "STATUS_CODE_ERROR" => "error",
            _ => {
                return Err(error(
                    format!("{at}/status/code"),
                    format!("`{s}` is not a status code"),
                ))
            }
        },
        Some(_) => return Err(error(format!("{at}/status/code"), "expected a number")),
    };
    Ok(Span {
        trace_id,
        span_id,
        parent_span_id,
        name,
        start_ns,
        end_ns,
        status: code.to_string(),
        status_message: status
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        attributes: attributes(v, at)?,
        resource: resource.clone(),
        at: at.to_string(),
    })
}

fn read_event(v: &Value, at: &str) -> Result<Option<Event>, OtlpError> {
    let mut attributes = attributes(v, at)?;
    let name = match field(v, "eventName", "event_name").and_then(Value::as_str) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => match attributes.remove("event.name") {
            Some(Value::String(n)) => n,
            _ => return Ok(None),
        },
    };
    let named = |camel, snake| -> Result<String, OtlpError> {
        match field(v, camel, snake) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) if s.is_empty() => Ok(String::new()),
            Some(_) => id(
                v,
                camel,
                snake,
                if camel == "traceId" { 32 } else { 16 },
                at,
            ),
        }
    };
    let (trace_id, span_id) = (named("traceId", "trace_id")?, named("spanId", "span_id")?);
    // Only the GenAI events of a span are read; other log records are not
    // the run's account.
    if !name.starts_with("gen_ai.") || span_id.is_empty() || trace_id.is_empty() {
        return Ok(None);
    }
    Ok(Some(Event {
        trace_id,
        span_id,
        name,
        attributes,
        body: any_value(v.get("body").unwrap_or(&Value::Null), &format!("{at}/body"))?,
        at: at.to_string(),
    }))
}

/// A trace or span id: `digits` lowercase hex digits, not all zero.
fn id(v: &Value, camel: &str, snake: &str, digits: usize, at: &str) -> Result<String, OtlpError> {
    let place = format!("{at}/{camel}");
    let Some(Value::String(s)) = field(v, camel, snake) else {
        return Err(error(place, format!("expected {digits} hex digits")));
    };
    let s = s.to_ascii_lowercase();
    if s.len() != digits
        || !s.bytes().all(|b| b.is_ascii_hexdigit())
        || s.bytes().all(|b| b == b'0')
    {
        return Err(error(
            place,
            format!("`{s}` is not an id of {digits} hex digits, not all zero"),
        ));
    }
    Ok(s)
}

/// A time in nanoseconds since 1970, as a decimal string or a number.
fn nanos(v: &Value, camel: &str, snake: &str, at: &str) -> Result<u64, OtlpError> {
    let place = format!("{at}/{camel}");
    match field(v, camel, snake) {
        Some(Value::String(s)) => s
            .parse::<u64>()
            .map_err(|_| error(place, format!("`{s}` is not a count of nanoseconds"))),
        Some(Value::Number(n)) => n
            .as_u64()
            .ok_or_else(|| error(place, "expected a count of nanoseconds")),
        _ => Err(error(place, "expected a count of nanoseconds")),
    }
}

/// The spans of an export by trace, each trace's spans by start time then
/// span id, the traces by their first span's start then id.
pub fn traces(spans: &[Span]) -> Vec<Vec<&Span>> {
    let mut by_trace: BTreeMap<&str, Vec<&Span>> = BTreeMap::new();
    for span in spans {
        by_trace.entry(&span.trace_id).or_default().push(span);
    }
    let mut traces: Vec<Vec<&Span>> = by_trace
        .into_values()
        .map(|mut spans| {
            spans.sort_by(|a, b| (a.start_ns, &a.span_id).cmp(&(b.start_ns, &b.span_id)));
            spans
        })
        .collect();
    traces.sort_by(|a, b| (a[0].start_ns, &a[0].trace_id).cmp(&(b[0].start_ns, &b[0].trace_id)));
    traces
}
