//! A forgery in each convention's own place, in the trace export or its
//! log export resealed, fails where another part of the export remembers
//! (`tests/fixtures/otel-instrumentations/`: span ids name the same step
//! in every variant).

use serde_json::{json, Value};

use super::tests::{attribute, bytes, failing, import, items, json, keyed};
use super::tests_conventions::{exports, span, string};

/// The first log record of span `id` named `name` (by `eventName` or the
/// `event.name` attribute).
fn log_record<'d>(doc: &'d mut Value, id: &str, name: &str) -> &'d mut Value {
    let named = |r: &Value| {
        r["eventName"] == name
            || r["attributes"]
                .as_array()
                .is_some_and(|a| a.iter().any(|kv| kv["value"]["stringValue"] == name))
    };
    items(doc, ["resourceLogs", "scopeLogs", "logRecords"])
        .into_iter()
        .find(|r| r["spanId"] == id && named(r))
        .unwrap_or_else(|| panic!("no {name} of span {id}"))
}

/// Sets the entry at `path` of the body of span `id`'s first log record
/// named `name` (a key-value list, entries within entries) to `text`.
fn set_body(logs: &mut Value, id: &str, name: &str, path: &[&str], text: &str) {
    let record = log_record(logs, id, name);
    let slot = path.iter().fold(&mut record["body"], |kvlist, key| {
        keyed(&mut kvlist["kvlistValue"]["values"], key)
    });
    *slot = string(text);
}

/// The receipts failing when `variant`'s exports, edited by `edit`
/// (the trace export, then the log export or `Null`), are imported.
fn forged(variant: &str, edit: impl FnOnce(&mut Value, &mut Value)) -> Vec<String> {
    let (traces, logs) = exports(variant);
    let mut doc = json(&traces);
    let mut log_doc = logs.as_deref().map_or(Value::Null, json);
    edit(&mut doc, &mut log_doc);
    let log_bytes = logs.map(|_| bytes(&log_doc));
    failing(&import(&bytes(&doc), log_bytes.as_deref()).1)
}

fn fails_once(f: &[String], claim: &str) {
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].starts_with(claim), "{f:?}");
}

/// The receipts failing when attribute `key` of span `id` of `variant`'s
/// trace export is rewritten as `text`.
fn with_attribute(variant: &str, id: &str, key: &str, text: &str) -> Vec<String> {
    forged(variant, |doc, _| {
        *attribute(span(doc, id), key) = string(text);
    })
}

const LOST: &str = "{\"order_id\": \"A-1042\", \"status\": \"lost\"}";
const ANSWER: &str = "Order A-1042 qualifies for a full refund";

#[test]
fn genai_attributes_a_tool_result_rewritten_in_the_tool_span_only_fails() {
    let f = with_attribute(
        "openai-v2-attributes",
        "d01e13be235f461f",
        "gen_ai.tool.call.result",
        LOST,
    );
    fails_once(&f, "runs[1].tools[0].result");
}

#[test]
fn genai_message_records_an_answer_rewritten_in_its_choice_record_fails() {
    for variant in ["openai-v2-logs", "openai-v2-old-events"] {
        let f = forged(variant, |_, logs| {
            let path = ["message", "content"];
            set_body(logs, "5e97f5f843c901ee", "gen_ai.choice", &path, ANSWER);
        });
        fails_once(&f, "runs[1].calls[2].history");
    }
}

#[test]
fn genai_message_records_a_tool_result_rewritten_in_its_record_fails() {
    let f = forged("openai-v2-old-events", |_, logs| {
        let path = ["content"];
        set_body(logs, "5e97f5f843c901ee", "gen_ai.tool.message", &path, LOST);
    });
    fails_once(&f, "runs[1].tools[0].result");
}

#[test]
fn genai_details_record_a_finish_reason_rewritten_on_the_span_fails() {
    let f = forged("openai-v2-event-only", |doc, _| {
        *attribute(
            span(doc, "5e97f5f843c901ee"),
            "gen_ai.response.finish_reasons",
        ) = json!({"arrayValue": {"values": [{"stringValue": "stop"}]}});
    });
    fails_once(
        &f,
        "runs[1].calls[1].events: gen_ai.response.finish_reasons",
    );
}

#[test]
fn openinference_a_tool_result_or_an_answer_rewritten_fails() {
    let f = with_attribute("openinference", "d01e13be235f461f", "output.value", LOST);
    fails_once(&f, "runs[1].tools[0].result");
    let key = "llm.output_messages.0.message.content";
    let f = with_attribute("openinference-genai", "5e97f5f843c901ee", key, ANSWER);
    fails_once(&f, "runs[1].calls[2].history");
}

#[test]
fn openinference_arguments_rewritten_in_the_tool_span_fail() {
    let f = with_attribute(
        "openinference-genai",
        "0cd58cc6f137bdc5",
        "input.value",
        "{\"city\": \"Rome\"}",
    );
    fails_once(&f, "runs[0].tools[0].requested");
}

#[test]
fn openllmetry_a_tool_result_or_arguments_rewritten_in_the_tool_span_fail() {
    for variant in ["openllmetry", "openllmetry-events", "openllmetry-indexed"] {
        let f = with_attribute(variant, "d01e13be235f461f", "traceloop.entity.output", LOST);
        fails_once(&f, "runs[1].tools[0].result");
        let f = with_attribute(
            variant,
            "b7b3ff7b623dd8df",
            "traceloop.entity.input",
            "{\"args\": [], \"kwargs\": {\"city\": \"Rome\"}}",
        );
        fails_once(&f, "runs[0].tools[1].requested");
        assert!(f[0].contains("the model asked for get_weather"), "{f:?}");
    }
}

#[test]
fn openllmetry_a_finish_reason_rewritten_in_a_choice_record_fails() {
    let f = forged("openllmetry-events", |_, logs| {
        let path = ["finish_reason"];
        set_body(logs, "5e97f5f843c901ee", "gen_ai.choice", &path, "stop");
    });
    fails_once(&f, "runs[1].calls[1].events: finish reason of choice 0");
}

#[test]
fn openllmetry_indexed_an_answer_rewritten_in_one_call_fails() {
    let f = with_attribute(
        "openllmetry-indexed",
        "5e97f5f843c901ee",
        "gen_ai.completion.0.content",
        ANSWER,
    );
    fails_once(&f, "runs[1].calls[2].history");
}
