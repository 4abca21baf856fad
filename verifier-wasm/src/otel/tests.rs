//! The committed fixture (spans and events written by the OpenTelemetry
//! SDK's GenAI instrumentation) imports and verifies; each forgery a
//! publisher could make of it, in the record or in the export resealed,
//! fails.

use serde_json::Value;

use super::*;
use crate::imported::Source;
use crate::verify::{Receipt, Status};

const TRACES: &[u8] = include_bytes!("../../../tests/fixtures/otel/agent.otlp.json");
const LOGS: &[u8] = include_bytes!("../../../tests/fixtures/otel/agent.logs.otlp.json");

pub(super) fn source(file: &str, bytes: &[u8]) -> Source {
    Source {
        tool: "opentelemetry".into(),
        version: "1.45.2".into(),
        file: file.into(),
        format: "otlp-json".into(),
        sha256: crate::digest::sha256_hex(bytes),
    }
}

/// The record of `traces` (with `logs`, when given) and its receipts,
/// as an importer would write it and a reader verify it.
pub(super) fn import(traces: &[u8], logs: Option<&[u8]>) -> (ImportedTraces, Vec<Receipt>) {
    let export = read(traces).expect("the traces read");
    let events: Vec<Export> = logs
        .iter()
        .map(|l| read(l).expect("the logs read"))
        .collect();
    let refs: Vec<&Export> = events.iter().collect();
    let sources = logs
        .iter()
        .map(|l| source("agent.logs.otlp.json", l))
        .collect();
    let record = derive(&export, source("agent.otlp.json", traces), &refs, sources);
    let receipts = verify("r", &record, &export, &refs);
    (record, receipts)
}

pub(super) fn failing(receipts: &[Receipt]) -> Vec<String> {
    receipts
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| format!("{}: {} / {}", r.claim, r.recorded, r.recomputed))
        .collect()
}

pub(super) fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

pub(super) fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// Every item of an export, mutable, in file order: `[resource, scope,
/// item]` names the three lists (`resourceSpans`, `scopeSpans`, `spans`).
pub(super) fn items<'d>(
    doc: &'d mut Value,
    [resource, scope, item]: [&str; 3],
) -> Vec<&'d mut Value> {
    doc[resource]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|r| r[scope].as_array_mut().unwrap().iter_mut())
        .flat_map(|s| s[item].as_array_mut().unwrap().iter_mut())
        .collect()
}

/// Every span of a trace export, mutable, in file order.
pub(super) fn spans(doc: &mut Value) -> Vec<&mut Value> {
    items(doc, ["resourceSpans", "scopeSpans", "spans"])
}

/// The value of entry `key` of a list of `{key, value}` (attributes, a
/// key-value list's values).
pub(super) fn keyed<'v>(list: &'v mut Value, key: &str) -> &'v mut Value {
    list.as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["key"] == key)
        .unwrap_or_else(|| panic!("no entry {key}"))
        .get_mut("value")
        .unwrap()
}

pub(super) fn attribute<'v>(span: &'v mut Value, key: &str) -> &'v mut Value {
    keyed(&mut span["attributes"], key)
}

pub(super) fn span_named<'v>(doc: &'v mut Value, name: &str, nth: usize) -> &'v mut Value {
    spans(doc)
        .into_iter()
        .filter(|s| s["name"] == name)
        .nth(nth)
        .unwrap_or_else(|| panic!("no span {name} #{nth}"))
}

#[test]
fn the_fixture_imports_as_two_runs_and_every_receipt_holds() {
    let (record, receipts) = import(TRACES, Some(LOGS));
    assert_eq!(failing(&receipts), Vec::<String>::new());
    assert_eq!(record.runs.len(), 2);
    let [weather, refund] = &record.runs[..] else {
        unreachable!()
    };
    assert_eq!(weather.calls.len(), 2);
    assert_eq!(weather.tools.len(), 1);
    assert_eq!(weather.status, "unset");
    assert_eq!(weather.usage.input_tokens, Some(213));
    assert_eq!(refund.status, "error");
    assert!(refund.error.as_deref().unwrap().contains("Error code: 500"));
    assert_eq!(refund.calls.len(), 3);
    assert!(refund.calls[1].truncated, "a length stop is a truncation");
    assert_eq!(refund.calls[2].status, "error");
    assert_eq!(refund.calls[0].server.as_deref(), Some("127.0.0.1:8000"));
    assert_eq!(weather.started, "2026-01-01T00:00:00.00025Z");
    // The last call's input and output: system, user, assistant, tool, assistant.
    let roles: Vec<&str> = weather
        .transcript
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    // Receipts of each kind were made, not skipped.
    for claim in [
        "derived from the export",
        "events[0].spans",
        "runs[0].timing",
        "runs[0].usage.input_tokens",
        "runs[0].usage.output_tokens",
        "runs[0].calls[1].history",
        "runs[0].calls[0].events",
        "runs[0].tools[0].requested",
        "runs[0].tools[0].result",
        "runs[1].tools[0].result",
    ] {
        assert!(
            receipts
                .iter()
                .any(|r| r.claim == claim && r.status == Status::Pass),
            "no passing {claim}"
        );
    }
    assert!(receipts.iter().all(|r| r.status == Status::Pass));
}

#[test]
fn a_run_total_no_call_reports_could_not_be_checked() {
    let mut doc = json(TRACES);
    let agent = span_named(&mut doc, "invoke_agent demo", 0);
    agent["attributes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "key": "gen_ai.usage.cache_read.input_tokens", "value": {"intValue": "64"}
        }));
    let (record, receipts) = import(&bytes(&doc), None);
    assert_eq!(record.runs[0].usage.cache_read_input_tokens, Some(64));
    assert_eq!(failing(&receipts), Vec::<String>::new());
    let cache = receipts
        .iter()
        .find(|r| r.claim == "runs[0].usage.cache_read_input_tokens")
        .unwrap();
    assert_eq!(cache.status, Status::CouldNotCheck);
}

#[test]
fn the_same_export_gives_the_same_record_with_or_without_events() {
    let (with, _) = import(TRACES, Some(LOGS));
    let (again, _) = import(TRACES, Some(LOGS));
    assert_eq!(
        serde_json::to_string(&with).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
    let (without, receipts) = import(TRACES, None);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    // The spans carry the messages too, so the runs are the same.
    assert_eq!(with.runs, without.runs);
}

#[test]
fn an_edited_record_fails_naming_the_field() {
    let export = read(TRACES).unwrap();
    let (mut record, _) = import(TRACES, None);
    record.runs[1].calls[1].finish_reasons = vec![crate::model::FinishReason::stop()];
    let receipts = verify("r", &record, &export, &[]);
    let f = failing(&receipts);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("derived from the export: runs[1].calls[1].finish_reasons[0]"),
        "{f:?}"
    );
}

/// Reseals `doc` (the export edited) with the fixture's log export, and
/// returns the failing receipts.
fn resealed(doc: &Value, logs: Option<&[u8]>) -> Vec<String> {
    failing(&import(&bytes(doc), logs).1)
}

#[test]
fn a_run_total_rewritten_in_the_export_fails_against_its_calls() {
    let mut doc = json(TRACES);
    *attribute(
        span_named(&mut doc, "invoke_agent demo", 1),
        "gen_ai.usage.output_tokens",
    ) = serde_json::json!({"intValue": "20"});
    let f = resealed(&doc, None);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with(
            "runs[1].usage.output_tokens: 20 / 35, the sum over the 2 of 3 calls that report it"
        ),
        "{f:?}"
    );
}

#[test]
fn a_dropped_call_fails_on_the_run_total_and_on_its_events() {
    let mut doc = json(TRACES);
    if let Some(s) = doc["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array_mut() {
        s.retain(|span| span["spanId"] != "d01e13be235f461f");
    }
    let f = resealed(&doc, None);
    assert!(
        f.iter()
            .any(|f| f.starts_with("runs[1].usage.input_tokens")),
        "{f:?}"
    );
    let f = resealed(&doc, Some(LOGS));
    assert!(f.iter().any(|f| f.starts_with("events[0].spans")), "{f:?}");
}

#[test]
fn a_dropped_run_fails_against_the_kept_events() {
    let mut doc = json(TRACES);
    if let Some(s) = doc["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array_mut() {
        s.retain(|span| span["traceId"].as_str().unwrap().starts_with("f5057fee"));
    }
    let f = resealed(&doc, Some(LOGS));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].contains("which the trace export does not hold"),
        "{f:?}"
    );
}

#[test]
fn an_output_edited_in_the_export_fails_against_the_next_calls_input() {
    let mut doc = json(TRACES);
    let chat = span_named(&mut doc, "chat gpt-4o-mini", 3);
    let output = attribute(chat, "gen_ai.output.messages");
    let text = output["stringValue"].as_str().unwrap().replace(
        "was delivered on 2025-12-20, so it is",
        "qualifies for a full refund",
    );
    output["stringValue"] = Value::String(text);
    let f = resealed(&doc, None);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].starts_with("runs[1].calls[2].history"), "{f:?}");
    // With the events kept, the call's own event disagrees as well.
    let f = resealed(&doc, Some(LOGS));
    assert!(
        f.iter().any(|f| f.starts_with("runs[1].calls[1].events")),
        "{f:?}"
    );
}

#[test]
fn a_finish_reason_edited_in_the_export_fails_against_its_event() {
    let mut doc = json(TRACES);
    let chat = span_named(&mut doc, "chat gpt-4o-mini", 3);
    *attribute(chat, "gen_ai.response.finish_reasons") =
        serde_json::json!({"arrayValue": {"values": [{"stringValue": "stop"}]}});
    let f = resealed(&doc, Some(LOGS));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].starts_with("runs[1].calls[1].events: gen_ai.response.finish_reasons"),
        "{f:?}"
    );
}

#[test]
fn a_tool_result_or_arguments_edited_in_the_export_fails() {
    let mut doc = json(TRACES);
    let tool = span_named(&mut doc, "execute_tool lookup_order", 0);
    *attribute(tool, "gen_ai.tool.call.result") =
        serde_json::json!({"stringValue": "{\"order_id\":\"A-1042\",\"status\":\"lost\"}"});
    let f = resealed(&doc, None);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].starts_with("runs[1].tools[0].result"), "{f:?}");

    let mut doc = json(TRACES);
    let tool = span_named(&mut doc, "execute_tool get_weather", 0);
    *attribute(tool, "gen_ai.tool.call.arguments") =
        serde_json::json!({"stringValue": "{\"city\":\"Rome\"}"});
    let f = resealed(&doc, None);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].starts_with("runs[0].tools[0].requested"), "{f:?}");
}

#[test]
fn a_tool_no_call_asked_for_fails() {
    let mut doc = json(TRACES);
    let tool = span_named(&mut doc, "execute_tool get_weather", 0);
    *attribute(tool, "gen_ai.tool.call.id") = serde_json::json!({"stringValue": "call_invented"});
    let f = resealed(&doc, None);
    assert!(
        f.iter()
            .any(|f| f.contains("no earlier model call asked for this tool call")),
        "{f:?}"
    );
}

#[test]
fn a_call_moved_outside_its_run_fails() {
    let mut doc = json(TRACES);
    let chat = span_named(&mut doc, "chat gpt-4o-mini", 1);
    chat["endTimeUnixNano"] = Value::String("1767225700000000000".into());
    let f = resealed(&doc, None);
    assert!(
        f.iter()
            .any(|f| f.starts_with("runs[0].timing") && f.contains("outside its parent")),
        "{f:?}"
    );
}

#[test]
fn kept_bytes_that_are_not_the_named_digest_fail() {
    let (record, _) = import(TRACES, Some(LOGS));
    let mut doc = json(TRACES);
    *attribute(
        span_named(&mut doc, "invoke_agent demo", 0),
        "gen_ai.usage.input_tokens",
    ) = serde_json::json!({"intValue": "1"});
    let edited = bytes(&doc);
    let kept = |sha: &str| {
        if sha == record.source.sha256 {
            Some(edited.clone())
        } else {
            (sha == record.events[0].sha256).then(|| LOGS.to_vec())
        }
    };
    let f = failing(&verify_kept("r", &record, &kept));
    assert!(f.iter().any(|f| f.starts_with("source.sha256")), "{f:?}");
    let f = failing(&verify_kept("r", &record, &|_| None));
    assert_eq!(f.len(), 2, "{f:?}");
}

#[test]
fn exports_read_one_request_per_line_and_bad_ones_are_refused_with_the_place() {
    let doc = json(TRACES);
    let line = serde_json::to_string(&doc).unwrap();
    let two = format!("{line}\n{line}\n");
    assert_eq!(
        read(two.as_bytes()).unwrap().spans.len(),
        2 * read(TRACES).unwrap().spans.len()
    );

    let mut bad = doc.clone();
    spans(&mut bad)[2]["spanId"] = Value::String("xyz".into());
    let e = read(&bytes(&bad)).unwrap_err();
    assert_eq!(e.at, "/resourceSpans/0/scopeSpans/0/spans/2/spanId");
    assert!(e.to_string().contains("hex digits"), "{e}");

    let e = read(format!("{line}\n{{\"resourceSpans\": [\n").as_bytes()).unwrap_err();
    assert!(e.at.starts_with("line 2"), "{e}");
    let e = read(b"{\"hello\": 1}").unwrap_err();
    assert!(e.message.contains("not an OTLP/JSON export"), "{e}");
    let mut both = doc.clone();
    both["resourceLogs"] = json(LOGS)["resourceLogs"].clone();
    assert!(read(&bytes(&both))
        .unwrap_err()
        .message
        .contains("both spans and log records"));
}
