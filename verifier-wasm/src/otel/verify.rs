//! The receipts of imported traces. A trace export is the publisher's own
//! account, so beyond re-deriving the record, each receipt holds one part
//! of the export against another part written independently by the
//! instrumentation: a run's reported usage against its calls, a tool's
//! arguments against the call that asked for it, its result against the
//! call that read it, a call's output against the next call's input, a
//! span against its events, a child against its parent's time. An export
//! edited in one place and resealed fails where the other place remembers.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::otlp::{self, Export, Span};
use super::record::{
    call_messages, derive, events_by_span, root, ImportedTraces, Usage, MODEL_CALLS, USAGE_KEYS,
};
use crate::imported::{derived_receipt, short};
use crate::verify::Receipt;

/// Every receipt of `record` (published as `subject`) against the kept
/// exports' bytes, by digest (`None` where nothing is kept under a digest
/// the record names): a missing or unreadable export fails.
pub fn verify_kept(
    subject: &str,
    record: &ImportedTraces,
    kept: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Vec<Receipt> {
    let mut out = Vec::new();
    let mut read = |claim: String, file: &str, sha256: &str| -> Option<Export> {
        let Some(bytes) = kept(sha256) else {
            out.push(Receipt::new(
                subject,
                format!("{claim}.sha256"),
                sha256,
                "nothing is kept under this digest",
                false,
            ));
            return None;
        };
        let digest = crate::digest::sha256_hex(&bytes);
        out.push(Receipt::new(
            subject,
            format!("{claim}.sha256"),
            sha256,
            &digest,
            digest == sha256,
        ));
        match otlp::read(&bytes) {
            Ok(export) => Some(export),
            Err(e) => {
                out.push(Receipt::new(
                    subject,
                    claim,
                    file,
                    format!("the kept export does not read: {e}"),
                    false,
                ));
                None
            }
        }
    };
    let traces = read("source".into(), &record.source.file, &record.source.sha256);
    let events: Vec<Option<Export>> = record
        .events
        .iter()
        .enumerate()
        .map(|(i, s)| read(format!("events[{i}]"), &s.file, &s.sha256))
        .collect();
    let (Some(traces), Some(events)) = (traces, events.into_iter().collect::<Option<Vec<_>>>())
    else {
        return out;
    };
    let events: Vec<&Export> = events.iter().collect();
    out.extend(verify(subject, record, &traces, &events));
    out
}

/// Every receipt of `record` against the read exports, digests aside.
pub fn verify(
    subject: &str,
    record: &ImportedTraces,
    traces: &Export,
    events: &[&Export],
) -> Vec<Receipt> {
    let mut out = vec![derived_receipt(
        subject,
        "derived from the export",
        "the export",
        record,
        &derive(traces, record.source.clone(), events, record.events.clone()),
    )];
    out.extend(events_have_spans(subject, record, traces, events));
    let by_span = events_by_span(events);
    let mut index = 0;
    for spans in otlp::traces(&traces.spans) {
        if !spans.iter().any(|s| !s.operation().is_empty()) {
            continue;
        }
        let at = format!("runs[{index}]");
        index += 1;
        out.extend(timing(subject, &at, &spans));
        out.extend(usage(subject, &at, &spans));
        out.extend(calls(subject, &at, &spans, &by_span));
    }
    out
}

/// Every event of a kept log export belongs to a span of the trace
/// export: the events of a trace or a call dropped from the export name
/// spans it no longer holds.
fn events_have_spans(
    subject: &str,
    record: &ImportedTraces,
    traces: &Export,
    events: &[&Export],
) -> Vec<Receipt> {
    let spans: BTreeSet<(&str, &str)> = traces
        .spans
        .iter()
        .map(|s| (s.trace_id.as_str(), s.span_id.as_str()))
        .collect();
    events
        .iter()
        .zip(&record.events)
        .enumerate()
        .map(|(i, (export, source))| {
            let claim = format!("events[{i}].spans");
            let orphan = export
                .events
                .iter()
                .find(|e| !spans.contains(&(e.trace_id.as_str(), e.span_id.as_str())));
            match orphan {
                None => Receipt::new(
                    subject,
                    claim,
                    format!("{} events of {}", export.events.len(), source.file),
                    "each names a span of the trace export",
                    true,
                ),
                Some(e) => Receipt::new(
                    subject,
                    claim,
                    format!("{} at {}", e.name, e.at),
                    format!(
                        "names span {} of trace {}, which the trace export does not hold",
                        e.span_id, e.trace_id
                    ),
                    false,
                ),
            }
        })
        .collect()
}

/// Each span ends after it starts and lies within its parent.
fn timing(subject: &str, at: &str, spans: &[&Span]) -> Vec<Receipt> {
    let by_id: BTreeMap<&str, &Span> = spans.iter().map(|s| (s.span_id.as_str(), *s)).collect();
    let claim = format!("{at}.timing");
    for span in spans {
        if span.end_ns < span.start_ns {
            return vec![Receipt::new(
                subject,
                claim,
                format!("span {} ({})", span.span_id, span.name),
                "ends before it starts",
                false,
            )];
        }
        if let Some(parent) = by_id.get(span.parent_span_id.as_str()) {
            if span.start_ns < parent.start_ns || span.end_ns > parent.end_ns {
                return vec![Receipt::new(
                    subject,
                    claim,
                    format!("span {} ({})", span.span_id, span.name),
                    format!(
                        "runs outside its parent {} ({})",
                        parent.span_id, parent.name
                    ),
                    false,
                )];
            }
        }
    }
    vec![Receipt::new(
        subject,
        claim,
        format!("{} spans", spans.len()),
        "each within its parent",
        true,
    )]
}

/// The run's usage as its root reports it, against the sum over its
/// model calls (never over other spans, which would count a call twice).
fn usage(subject: &str, at: &str, spans: &[&Span]) -> Vec<Receipt> {
    let root = root(spans);
    let reported = Usage::of(root);
    let calls: Vec<Usage> = spans
        .iter()
        .filter(|s| MODEL_CALLS.contains(&s.operation()) && s.span_id != root.span_id)
        .map(|s| Usage::of(s))
        .collect();
    let mut out = Vec::new();
    for (i, (field, value)) in reported.fields().into_iter().enumerate() {
        let Some(value) = value else { continue };
        let claim = format!("{at}.usage.{field}");
        let counts: Vec<u64> = calls.iter().filter_map(|u| u.fields()[i].1).collect();
        if counts.is_empty() {
            out.push(Receipt::unchecked(
                subject,
                claim,
                value.to_string(),
                format!("no model call of the trace reports {}", USAGE_KEYS[i].1),
            ));
            continue;
        }
        let sum: u64 = counts.iter().sum();
        let partial = counts.len() < calls.len();
        out.push(Receipt::new(
            subject,
            claim,
            value.to_string(),
            if partial {
                format!(
                    "{sum}, the sum over the {} of {} calls that report it",
                    counts.len(),
                    calls.len()
                )
            } else {
                format!("{sum}, the sum over its {} calls", calls.len())
            },
            sum == value,
        ));
    }
    out
}

/// A message as the next call reads it: its role and parts, without the
/// output-only `finish_reason`, and with a tool call's arguments or a
/// tool's response written as JSON text read as the value it spells (an
/// instrumentation may write one side as text, the other as a value).
fn as_read(message: &Value) -> Value {
    let mut m = message.clone();
    if let Some(obj) = m.as_object_mut() {
        obj.remove("finish_reason");
    }
    if let Some(parts) = m.get_mut("parts").and_then(Value::as_array_mut) {
        for part in parts.iter_mut().filter_map(Value::as_object_mut) {
            for key in ["arguments", "response", "result"] {
                if let Some(Value::String(text)) = part.get(key) {
                    if let Ok(value) = serde_json::from_str::<Value>(text) {
                        part.insert(key.to_string(), value);
                    }
                }
            }
        }
    }
    m
}

/// Two texts the same as JSON values, or else the same text.
fn same_json_text(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The parts of `messages` of `kind` (`tool_call`, `tool_call_response`).
fn parts<'m>(messages: &'m [Value], kind: &str) -> Vec<&'m Value> {
    messages
        .iter()
        .filter_map(|m| m.get("parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(kind))
        .collect()
}

/// Per call: its output carried into the next call's input, its events'
/// account agreeing with its span's; per tool: asked for by an earlier
/// call with these arguments, its result read by a later one as it is.
fn calls(
    subject: &str,
    at: &str,
    spans: &[&Span],
    events: &BTreeMap<(String, String), Vec<otlp::Event>>,
) -> Vec<Receipt> {
    let turns: Vec<Turn> = spans
        .iter()
        .filter(|s| MODEL_CALLS.contains(&s.operation()))
        .map(|s| Turn {
            span: s,
            input: call_messages(s, "gen_ai.input.messages", events),
            output: call_messages(s, "gen_ai.output.messages", events),
        })
        .collect();
    let mut out = Vec::new();
    for (k, turn) in turns.iter().enumerate() {
        let claim = format!("{at}.calls[{k}]");
        out.extend(agrees_with_events(subject, &claim, turn.span, events));
        let Some(previous) = k.checked_sub(1).map(|p| &turns[p]) else {
            continue;
        };
        let Some(said) = previous.output.as_ref().filter(|o| !o.is_empty()) else {
            continue;
        };
        let claim = format!("{claim}.history");
        let Some(input) = &turn.input else {
            out.push(Receipt::unchecked(
                subject,
                claim,
                format!("call {}", turn.span.span_id),
                "the call's input messages were not recorded",
            ));
            continue;
        };
        let read: Vec<Value> = input.iter().map(as_read).collect();
        let missing = said.iter().map(as_read).find(|m| !read.contains(m));
        out.push(match missing {
            None => Receipt::new(
                subject,
                claim,
                format!("the output of call {}", previous.span.span_id),
                "read back as it was returned",
                true,
            ),
            Some(m) => Receipt::new(
                subject,
                claim,
                format!(
                    "call {} returned {}",
                    previous.span.span_id,
                    short(&m.to_string())
                ),
                format!(
                    "call {}'s input does not hold it: one of them was edited",
                    turn.span.span_id
                ),
                false,
            ),
        });
    }
    for (t, tool) in spans
        .iter()
        .filter(|s| s.operation() == "execute_tool")
        .enumerate()
    {
        out.extend(tool_receipts(
            subject,
            &format!("{at}.tools[{t}]"),
            tool,
            &turns,
        ));
    }
    out
}

/// A model call with the messages it read and returned, when recorded.
struct Turn<'s> {
    span: &'s Span,
    input: Option<Vec<Value>>,
    output: Option<Vec<Value>>,
}

fn tool_receipts(subject: &str, at: &str, tool: &Span, turns: &[Turn<'_>]) -> Vec<Receipt> {
    let Some(id) = tool.text("gen_ai.tool.call.id") else {
        return vec![Receipt::unchecked(
            subject,
            format!("{at}.requested"),
            tool.text("gen_ai.tool.name").unwrap_or(&tool.name),
            "the execution names no tool call id to match",
        )];
    };
    let with_id = |p: &&Value| p.get("id").and_then(Value::as_str) == Some(id);
    let mut out = Vec::new();
    // Asked for: an output, of a call that started before the tool, holds
    // a tool call with this id, this name and these arguments.
    let asked = turns
        .iter()
        .filter(|t| t.span.start_ns <= tool.start_ns)
        .filter_map(|t| t.output.as_deref())
        .flat_map(|o| parts(o, "tool_call"))
        .find(with_id);
    let claim = format!("{at}.requested");
    out.push(match asked {
        None => Receipt::new(
            subject,
            claim,
            format!("{} ({id})", tool.name),
            "no earlier model call asked for this tool call",
            false,
        ),
        Some(part) => {
            let name = part.get("name").and_then(Value::as_str).unwrap_or("");
            let args = match part.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            };
            let ran_name = tool.text("gen_ai.tool.name").unwrap_or("");
            let ran_args = tool.text("gen_ai.tool.call.arguments");
            let same_name = name == ran_name;
            let same_args = ran_args.is_none_or(|r| same_json_text(r, &args));
            Receipt::new(
                subject,
                claim,
                format!("{ran_name}({})", ran_args.unwrap_or("…")),
                if same_name && same_args {
                    format!("asked for as {name}({args})")
                } else {
                    format!("the model asked for {name}({args})")
                },
                same_name && same_args,
            )
        }
    });
    // Read back: the first later call whose input answers this id holds
    // the result as the tool returned it.
    let Some(result) = tool.attributes.get("gen_ai.tool.call.result") else {
        return out;
    };
    let result = match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let read = turns
        .iter()
        .filter(|t| t.span.start_ns >= tool.end_ns)
        .filter_map(|t| t.input.as_deref())
        .flat_map(|i| parts(i, "tool_call_response"))
        .find(with_id);
    let claim = format!("{at}.result");
    out.push(match read {
        None => Receipt::unchecked(
            subject,
            claim,
            short(&result),
            "no later model call read this result",
        ),
        Some(part) => {
            let given = match part.get("response").or_else(|| part.get("result")) {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            };
            let same = same_json_text(&result, &given);
            Receipt::new(
                subject,
                claim,
                short(&result),
                if same {
                    "read by the next call as returned".to_string()
                } else {
                    format!("the next call read {}", short(&given))
                },
                same,
            )
        }
    });
    out
}

/// A call's events say what its span says, attribute by attribute, for
/// every attribute both carry.
fn agrees_with_events(
    subject: &str,
    claim: &str,
    span: &Span,
    events: &BTreeMap<(String, String), Vec<otlp::Event>>,
) -> Vec<Receipt> {
    let Some(list) = events.get(&(span.trace_id.clone(), span.span_id.clone())) else {
        return Vec::new();
    };
    let claim = format!("{claim}.events");
    for event in list {
        for (key, said) in &event.attributes {
            let Some(spanned) = span.attributes.get(key) else {
                continue;
            };
            let same = match (key.ends_with(".messages"), spanned, said) {
                (true, _, _) => messages_same(spanned, said),
                _ => spanned == said,
            };
            if !same {
                return vec![Receipt::new(
                    subject,
                    claim,
                    format!("{key} = {}", short(&spanned.to_string())),
                    format!("its event {} says {}", event.at, short(&said.to_string())),
                    false,
                )];
            }
        }
    }
    vec![Receipt::new(
        subject,
        claim,
        format!("{} event(s) of call {}", list.len(), span.span_id),
        "the same account as the span",
        true,
    )]
}

fn messages_same(a: &Value, b: &Value) -> bool {
    super::record::messages(Some(a)) == super::record::messages(Some(b))
}
