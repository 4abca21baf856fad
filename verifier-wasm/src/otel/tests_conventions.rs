//! The same two agent runs as each instrumentation and content mode
//! exports them (`tests/fixtures/otel-instrumentations/`): each imports
//! with no receipt failing, what an instrumentation does not record is
//! absent, the attributes no convention reads are kept, and each
//! convention's other names for a fact are read.

use serde_json::{json, Value};

use super::tests::{attribute, bytes, failing, import, json, spans};
use super::ImportedTraces;
use crate::verify::{Receipt, Status};

const VARIANTS: [&str; 9] = [
    "openai-v2-logs",
    "openai-v2-attributes",
    "openai-v2-event-only",
    "openai-v2-old-events",
    "openinference",
    "openinference-genai",
    "openllmetry",
    "openllmetry-events",
    "openllmetry-indexed",
];

/// A file of the fixtures, when it exists.
fn fixture(name: &str) -> Option<Vec<u8>> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/otel-instrumentations"
    );
    std::fs::read(format!("{dir}/{name}")).ok()
}

/// The trace export and (when the instrumentation writes one) the log
/// export of `variant`.
pub(super) fn exports(variant: &str) -> (Vec<u8>, Option<Vec<u8>>) {
    let traces = fixture(&format!("{variant}.otlp.json")).expect("the trace export");
    (traces, fixture(&format!("{variant}.logs.otlp.json")))
}

fn imported(variant: &str) -> (ImportedTraces, Vec<Receipt>) {
    let (traces, logs) = exports(variant);
    import(&traces, logs.as_deref())
}

fn claims(receipts: &[Receipt], status: Status) -> Vec<&str> {
    receipts
        .iter()
        .filter(|r| r.status == status)
        .map(|r| r.claim.as_str())
        .collect()
}

#[test]
fn every_instrumentation_imports_the_two_runs_with_no_receipt_failing() {
    for variant in VARIANTS {
        let (record, receipts) = imported(variant);
        assert_eq!(failing(&receipts), Vec::<String>::new(), "{variant}");
        let shape: Vec<(usize, usize, &str)> = record
            .runs
            .iter()
            .map(|r| (r.calls.len(), r.tools.len(), r.status.as_str()))
            .collect();
        let ok = if variant.starts_with("openinference") {
            "ok"
        } else {
            "unset"
        };
        assert_eq!(shape, [(2, 2, ok), (3, 1, "error")], "{variant}");
        assert_eq!(record.runs[1].calls[2].status, "error", "{variant}");
        assert_eq!(
            record.runs[1].conversation.as_deref(),
            Some("conv-refund-002")
        );
        assert_eq!(record.runs[0].agent.as_deref(), Some("demo"), "{variant}");
        // Each run's calls read back the previous call's output, and each
        // tool's request was found.
        for claim in ["runs[0].calls[1].history", "runs[1].calls[2].history"] {
            assert!(
                claims(&receipts, Status::Pass).contains(&claim),
                "{variant}: {claim}"
            );
        }
        // The only receipts left unchecked are the results the
        // event-only mode does not record.
        let unchecked = claims(&receipts, Status::CouldNotCheck);
        let expected: &[&str] = if variant == "openai-v2-event-only" {
            &[
                "runs[0].tools[0].result",
                "runs[0].tools[1].result",
                "runs[1].tools[0].result",
            ]
        } else {
            &[]
        };
        assert_eq!(unchecked, expected, "{variant}");
    }
}

#[test]
fn what_an_instrumentation_does_not_record_is_absent() {
    for variant in VARIANTS {
        let (record, _) = imported(variant);
        let calls = record.runs.iter().flat_map(|r| &r.calls);
        let tools: Vec<_> = record.runs.iter().flat_map(|r| &r.tools).collect();
        if variant.starts_with("openai-v2") {
            for call in calls {
                assert_eq!(call.usage.cache_read_input_tokens, None, "{variant}");
                assert_eq!(call.usage.reasoning_output_tokens, None, "{variant}");
            }
        } else {
            let second = &record.runs[0].calls[1].usage;
            assert_eq!(second.cache_read_input_tokens, Some(64), "{variant}");
            assert_eq!(second.reasoning_output_tokens, Some(6), "{variant}");
        }
        let ids: Vec<Option<&str>> = tools.iter().map(|t| t.call_id.as_deref()).collect();
        if variant.starts_with("openllmetry") {
            assert_eq!(ids, [None, None, None], "{variant}");
        } else {
            let named = [
                Some("call_weather_01"),
                Some("call_weather_02"),
                Some("call_order_01"),
            ];
            assert_eq!(ids, named, "{variant}");
        }
        let recorded = variant != "openai-v2-event-only";
        assert!(
            tools.iter().all(|t| t.result.is_some() == recorded),
            "{variant}"
        );
        assert!(
            tools.iter().all(|t| t.arguments.is_some() == recorded),
            "{variant}"
        );
        // OpenLLMetry's message records name no tool call a tool result answers.
        let answered = record.runs[1]
            .transcript
            .iter()
            .find(|m| m["role"] == "tool")
            .map(|m| m["parts"][0].get("id").is_some());
        assert_eq!(answered, Some(variant != "openllmetry-events"), "{variant}");
    }
}

#[test]
fn attributes_no_convention_reads_are_kept_as_they_are() {
    let (traces, _) = exports("openinference");
    let mut doc = json(&traces);
    let chat = span(&mut doc, "f41fcb28e1eca229");
    chat["attributes"].as_array_mut().unwrap().push(json!({
        "key": "acme.reviewed", "value": {"arrayValue": {"values": [{"boolValue": true}]}}
    }));
    let (record, receipts) = import(&bytes(&doc), None);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    let keys = |attributes: &[super::Attribute]| -> Vec<String> {
        attributes.iter().map(|a| a.key.clone()).collect()
    };
    let call = &record.runs[0].calls[0];
    let call_keys = keys(&call.attributes);
    for kept in [
        "acme.reviewed",
        "llm.invocation_parameters",
        "llm.token_count.total",
        "output.value",
    ] {
        assert!(
            call_keys.iter().any(|k| k == kept),
            "{kept} in {call_keys:?}"
        );
    }
    // What the record's own fields hold is not repeated.
    for read in [
        "llm.token_count.prompt",
        "llm.model_name",
        "llm.output_messages.0.message.role",
    ] {
        assert!(
            !call_keys.iter().any(|k| k == read),
            "{read} in {call_keys:?}"
        );
    }
    let reviewed = call
        .attributes
        .iter()
        .find(|a| a.key == "acme.reviewed")
        .unwrap();
    assert_eq!(reviewed.value, json!([true]));
    assert!(keys(&record.runs[0].tools[0].attributes).contains(&"tool.parameters".into()));
    assert!(keys(&record.runs[0].attributes).contains(&"input.value".into()));
}

#[test]
fn the_collector_file_form_reads_as_the_same_runs() {
    let (traces, _) = exports("openinference");
    let lines = fixture("openinference.collector.jsonl").expect("the collector's file");
    assert_eq!(String::from_utf8_lossy(&lines).lines().count(), 2);
    let (whole, _) = import(&traces, None);
    let (mut by_line, receipts) = import(&lines, None);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    assert_ne!(by_line.source, whole.source);
    by_line.source = whole.source.clone();
    assert_eq!(by_line, whole);
}

/// The span `id` of a trace export.
pub(super) fn span<'d>(doc: &'d mut Value, id: &str) -> &'d mut Value {
    spans(doc)
        .into_iter()
        .find(|s| s["spanId"] == id)
        .unwrap_or_else(|| panic!("no span {id}"))
}

/// A string `AnyValue`.
pub(super) fn string(text: &str) -> Value {
    json!({ "stringValue": text })
}

/// Renames attribute `from` of every span of `doc` to `to`.
fn rename(doc: &mut Value, from: &str, to: &str) {
    for span in spans(doc) {
        for kv in span["attributes"].as_array_mut().unwrap() {
            if kv["key"] == from {
                kv["key"] = to.into();
            }
        }
    }
}

fn add(span: &mut Value, key: &str, value: Value) {
    let attributes = span["attributes"].as_array_mut().unwrap();
    attributes.push(json!({ "key": key, "value": value }));
}

#[test]
fn each_conventions_other_names_for_a_fact_are_read() {
    // The GenAI conventions' older token names, and the counts the
    // fixtures' instrumentations do not write.
    let (traces, _) = exports("openai-v2-attributes");
    let mut doc = json(&traces);
    rename(
        &mut doc,
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
    );
    rename(
        &mut doc,
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
    );
    let chat = span(&mut doc, "05840f4ce50ee168");
    add(
        chat,
        "gen_ai.usage.reasoning.output_tokens",
        json!({"intValue": "6"}),
    );
    add(
        chat,
        "gen_ai.usage.cache_creation.input_tokens",
        json!({"intValue": "9"}),
    );
    let (record, receipts) = import(&bytes(&doc), None);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    assert!(claims(&receipts, Status::Pass).contains(&"runs[0].usage.input_tokens"));
    let usage = &record.runs[0].calls[1].usage;
    let counts = (
        usage.input_tokens,
        usage.output_tokens,
        usage.reasoning_output_tokens,
    );
    assert_eq!(counts, (Some(171), Some(22), Some(6)));
    assert_eq!(usage.cache_creation_input_tokens, Some(9));

    // OpenInference's provider, cache writes and newer output budget.
    let (traces, _) = exports("openinference");
    let mut doc = json(&traces);
    rename(&mut doc, "llm.system", "llm.provider");
    let chat = span(&mut doc, "f41fcb28e1eca229");
    add(
        chat,
        "llm.token_count.prompt_details.cache_write",
        json!({"intValue": "12"}),
    );
    *attribute(chat, "llm.invocation_parameters") =
        string("{\"model\": \"gpt-4o-mini\", \"max_completion_tokens\": 36}");
    let (record, receipts) = import(&bytes(&doc), None);
    assert_eq!(failing(&receipts), Vec::<String>::new());
    let call = &record.runs[0].calls[0];
    assert_eq!(call.provider.as_deref(), Some("openai"));
    assert_eq!(call.usage.cache_creation_input_tokens, Some(12));
    assert_eq!(call.max_tokens, Some(36));
    assert!(call.truncated, "every allowed token returned");

    // OpenLLMetry's cache writes.
    let (traces, _) = exports("openllmetry-indexed");
    let mut doc = json(&traces);
    let chat = span(&mut doc, "f41fcb28e1eca229");
    add(
        chat,
        "gen_ai.usage.cache_creation_input_tokens",
        json!({"intValue": "3"}),
    );
    let (record, _) = import(&bytes(&doc), None);
    assert_eq!(
        record.runs[0].calls[0].usage.cache_creation_input_tokens,
        Some(3)
    );
}
