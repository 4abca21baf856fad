//! `receipts import otel` on every export in
//! tests/fixtures/otel-instrumentations/ (three instrumentations of the
//! OpenAI SDK in each of their content modes, see its README.md): each
//! imports with no receipt failing, and its record says, value for value,
//! what the mock served (`<variant>.expected.json`): the runs, each
//! call's models, response, finish reason, usage and output, the messages
//! of the last call, the tool executions. A fact the instrumentation
//! does not record must be absent from the record.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use common::{assert_exit, read_json, receipts, stdout};

fn fixtures() -> PathBuf {
    common::repo().join("tests/fixtures/otel-instrumentations")
}

/// The variants, by their `<variant>.expected.json`.
fn variants() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(fixtures())
        .expect("the fixtures")
        .filter_map(|e| {
            let name = e.expect("entry").file_name().into_string().ok()?;
            Some(name.strip_suffix(".expected.json")?.to_string())
        })
        .collect();
    out.sort();
    out
}

/// What a variant's instrumentation does not record (its README's
/// attribute map), which its record must leave out.
#[derive(Default)]
struct Unrecorded {
    /// Cached input tokens and reasoning tokens (openai-v2).
    cached_and_reasoning: bool,
    /// The tool call id on tool spans (OpenLLMetry).
    tool_call_ids: bool,
    /// A tool's arguments and result (openai-v2 `event_only`).
    tool_content: bool,
    /// The tool call a tool message answers (OpenLLMetry's records).
    tool_result_ids: bool,
}

fn unrecorded(variant: &str) -> Unrecorded {
    Unrecorded {
        cached_and_reasoning: variant.starts_with("openai-v2"),
        tool_call_ids: variant.starts_with("openllmetry"),
        tool_content: variant == "openai-v2-event-only",
        tool_result_ids: variant == "openllmetry-events",
    }
}

/// Imports `variant` (its trace export and its log export, when it has
/// one) into a new directory; the tally line and the record.
fn import(dir: &Path, variant: &str) -> (String, Value) {
    let mut args = vec!["import".to_string(), "otel".to_string()];
    for file in [
        format!("{variant}.otlp.json"),
        format!("{variant}.logs.otlp.json"),
    ] {
        let path = fixtures().join(file);
        if path.is_file() {
            args.push(path.display().to_string());
        }
    }
    args.extend(["--into".into(), format!("experiments/{variant}")]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = receipts(dir, &args);
    // A tool's result the instrumentation did not record cannot be
    // checked: the import says so with exit 3, as `receipts verify` does.
    let code = if unrecorded(variant).tool_content {
        3
    } else {
        0
    };
    assert_exit(&out, code, variant);
    let record = read_json(&dir.join(format!("experiments/{variant}/otel/{variant}.otlp.json")));
    (stdout(&out), record)
}

/// JSON text read as the value it spells; anything else as it is.
fn parsed(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| v.clone()),
        _ => v.clone(),
    }
}

/// A record's message as compared: without `finish_reason`, arguments
/// and responses read as the values they spell.
fn recorded_message(m: &Value) -> Value {
    let parts: Vec<Value> = m["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| {
            let mut p = p.clone();
            for key in ["arguments", "response"] {
                if let Some(v) = p.get(key).map(parsed) {
                    p[key] = v;
                }
            }
            p
        })
        .collect();
    json!({ "role": m["role"], "parts": parts })
}

/// A message as the mock received or sent it (the OpenAI chat form), in
/// the record's form.
fn served_message(m: &Value, un: &Unrecorded) -> Value {
    let mut parts = Vec::new();
    if m["role"] == "tool" {
        let mut part = json!({ "type": "tool_call_response", "response": parsed(&m["content"]) });
        if !un.tool_result_ids {
            part["id"] = m["tool_call_id"].clone();
        }
        parts.push(part);
    } else if let Some(text) = m.get("content").filter(|c| !c.is_null()) {
        parts.push(json!({ "type": "text", "content": text }));
    }
    for call in m["tool_calls"].as_array().into_iter().flatten() {
        let f = call.get("function").unwrap_or(call);
        parts.push(json!({
            "type": "tool_call", "id": call["id"], "name": f["name"],
            "arguments": parsed(&f["arguments"]),
        }));
    }
    json!({ "role": m["role"], "parts": parts })
}

/// The GenAI conventions' `tool_call` is the API's `tool_calls`.
fn folded(reason: &Value) -> Value {
    match reason.as_str() {
        Some("tool_call") => "tool_calls".into(),
        _ => reason.clone(),
    }
}

/// `served`, or absent where the instrumentation does not record it.
fn unless(unrecorded: bool, served: &Value) -> Value {
    if unrecorded {
        Value::Null
    } else {
        served.clone()
    }
}

/// The items of a JSON array, each as `f` makes it.
fn each(list: &Value, f: impl Fn(&Value) -> Value) -> Value {
    Value::Array(list.as_array().expect("an array").iter().map(f).collect())
}

/// The items of two JSON arrays, side by side.
fn side_by_side<'v>(a: &'v Value, b: &'v Value) -> impl Iterator<Item = (&'v Value, &'v Value)> {
    let items = |v: &'v Value| v.as_array().into_iter().flatten();
    items(a).zip(items(b))
}

/// A field of the record, its value and the value served.
type Pair = (&'static str, Value, Value);

/// The value at a dotted path (`usage.input_tokens`) of a record's object.
fn field(record: &Value, path: &str) -> Value {
    path.split('.').fold(record, |v, key| &v[key]).clone()
}

/// Each field of `record` named in `served`, beside its served value.
fn fields<const N: usize>(record: &Value, served: [(&'static str, Value); N]) -> Vec<Pair> {
    served
        .into_iter()
        .map(|(path, value)| (path, field(record, path), value))
        .collect()
}

/// A call's fields beside what the mock received and answered (`served`).
fn call_pairs(call: &Value, served: &Value, un: &Unrecorded) -> Vec<Pair> {
    let (request, response, usage) = (&served["request"], &served["response"], &served["usage"]);
    let unless_cached = |key: &str| unless(un.cached_and_reasoning, &usage[key]);
    let mut pairs = fields(
        call,
        [
            ("request_model", request["model"].clone()),
            ("max_tokens", request["max_tokens"].clone()),
            ("usage.input_tokens", usage["prompt_tokens"].clone()),
            ("usage.output_tokens", usage["completion_tokens"].clone()),
            (
                "usage.cache_read_input_tokens",
                unless_cached("cached_tokens"),
            ),
            (
                "usage.reasoning_output_tokens",
                unless_cached("reasoning_tokens"),
            ),
        ],
    );
    if response.is_null() {
        // A failed call: no answer, and its error names the HTTP status.
        let status = served["http_status"].to_string();
        let named = call["error"].as_str().is_some_and(|e| e.contains(&status));
        pairs.extend(fields(
            call,
            [
                ("finish_reasons", json!([])),
                ("output", json!([])),
                ("response_id", Value::Null),
                ("status", json!("error")),
            ],
        ));
        pairs.push(("error names the HTTP status", json!(named), json!(true)));
    } else {
        pairs.extend(fields(
            call,
            [
                ("response_id", response["id"].clone()),
                ("response_model", response["model"].clone()),
            ],
        ));
        pairs.extend([
            (
                "finish_reasons",
                each(&call["finish_reasons"], folded),
                json!([response["finish_reason"]]),
            ),
            (
                "output",
                each(&call["output"], recorded_message),
                json!([served_message(response, un)]),
            ),
        ]);
    }
    pairs
}

/// Every difference between `record` and what the mock served
/// (`expected`), each as `place: recorded ≠ served`.
fn differences(record: &Value, expected: &Value, un: &Unrecorded) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |at: &str, pairs: Vec<Pair>| {
        for (field, recorded, served) in pairs {
            if recorded != served {
                out.push(format!("{at}.{field}: {recorded} ≠ {served}"));
            }
        }
    };
    let runs = record["runs"].as_array().expect("runs");
    let served_runs = expected["runs"].as_array().expect("runs");
    check(
        "record",
        vec![("runs", json!(runs.len()), json!(served_runs.len()))],
    );
    for (i, (run, served)) in runs.iter().zip(served_runs).enumerate() {
        let at = format!("runs[{i}]");
        let (calls, served_calls) = (&run["calls"], &served["calls"]);
        let (tools, executed) = (&run["tools"], &served["tool_executions"]);
        // The transcript: the last call's input as sent, then its answer.
        let last = served_calls
            .as_array()
            .and_then(|c| c.last())
            .expect("a call");
        let mut messages = each(&last["request"]["messages"], |m| served_message(m, un));
        if !last["response"].is_null() {
            let answer = served_message(&last["response"], un);
            messages.as_array_mut().expect("messages").push(answer);
        }
        let count = |v: &Value| json!(v.as_array().map(Vec::len));
        let mut run_pairs = fields(
            run,
            [
                ("trace_id", served["trace_id"].clone()),
                ("agent", served["agent_name"].clone()),
                ("conversation", served["conversation_id"].clone()),
            ],
        );
        run_pairs.extend([
            (
                "failed",
                json!(run["status"] == "error"),
                json!(served["outcome"] == "error"),
            ),
            ("calls", count(calls), count(served_calls)),
            ("tools", count(tools), count(executed)),
            (
                "transcript",
                each(&run["transcript"], recorded_message),
                messages,
            ),
        ]);
        check(&at, run_pairs);
        for (k, (call, s)) in side_by_side(calls, served_calls).enumerate() {
            check(&format!("{at}.calls[{k}]"), call_pairs(call, s, un));
        }
        for (t, (tool, s)) in side_by_side(tools, executed).enumerate() {
            let mut tool_pairs = fields(
                tool,
                [
                    ("name", s["name"].clone()),
                    ("call_id", unless(un.tool_call_ids, &s["call_id"])),
                ],
            );
            for key in ["arguments", "result"] {
                tool_pairs.push((key, parsed(&tool[key]), unless(un.tool_content, &s[key])));
            }
            check(&format!("{at}.tools[{t}]"), tool_pairs);
        }
    }
    out
}

#[test]
fn every_instrumentation_imports_as_what_the_mock_served() {
    let variants = variants();
    assert_eq!(variants.len(), 9, "{variants:?}");
    let mut wrong = Vec::new();
    for variant in &variants {
        let dir = tempfile::tempdir().expect("tempdir");
        let (tally, record) = import(dir.path(), variant);
        assert!(
            tally.contains(" receipts, ") && tally.contains(" pass, 0 fail, "),
            "{variant}: {tally}"
        );
        let expected = read_json(&fixtures().join(format!("{variant}.expected.json")));
        for d in differences(&record, &expected, &unrecorded(variant)) {
            wrong.push(format!("{variant}: {d}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_value_the_mock_did_not_serve_is_a_difference() {
    let variant = "openllmetry-events";
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, record) = import(dir.path(), variant);
    let expected = read_json(&fixtures().join(format!("{variant}.expected.json")));
    let un = unrecorded(variant);
    assert_eq!(differences(&record, &expected, &un), Vec::<String>::new());
    // Each served value changed in turn: one difference, at its place.
    let edits = [
        (
            "runs[0].calls[1].usage.reasoning_output_tokens",
            "/runs/0/calls/1/usage/reasoning_tokens",
            json!(7),
        ),
        (
            "runs[1].calls[1].output",
            "/runs/1/calls/1/response/content",
            json!("Refunded."),
        ),
        (
            "runs[1].transcript",
            "/runs/1/calls/2/request/messages/5/content",
            json!("Stop."),
        ),
        (
            "runs[0].tools[1].result",
            "/runs/0/tool_executions/1/result/temp_c",
            json!(30),
        ),
        (
            "runs[1].calls[0].finish_reasons",
            "/runs/1/calls/0/response/finish_reason",
            json!("stop"),
        ),
    ];
    for (place, pointer, value) in edits {
        let mut perturbed = expected.clone();
        *perturbed.pointer_mut(pointer).expect(pointer) = value;
        let found = differences(&record, &perturbed, &un);
        assert!(
            found.len() == 1 && found[0].starts_with(place),
            "{place}: {found:?}"
        );
    }
    // A fact the instrumentation does not record, if the record had it,
    // would be a difference too: the tool spans name no call id.
    let mut invented = record.clone();
    invented["runs"][0]["tools"][0]["call_id"] = "call_weather_01".into();
    assert_eq!(differences(&invented, &expected, &un).len(), 1);
}
