//! A call's messages written one log record per message, as the GenAI
//! conventions' events had them before the messages moved onto the span:
//! `gen_ai.system.message`, `gen_ai.user.message`,
//! `gen_ai.assistant.message`, `gen_ai.tool.message` (the input, in
//! order) and `gen_ai.choice` (the output, by `index`), each with an
//! OpenAI chat message as its body. The record's name is its
//! `eventName` or, from the older Events API, its `event.name` attribute
//! (the reader takes either). Written by the official openai-v2
//! instrumentation and by OpenLLMetry with `use_attributes=False`, which
//! puts a choice's `tool_calls` beside its `message` and records no
//! `tool_call_id` on tool messages.

use serde_json::Value;

use super::messages::{tool_calls_of, Chat};
use super::otlp::Event;

/// The role an input message's record names (`gen_ai.<role>.message`).
fn role(name: &str) -> Option<&str> {
    name.strip_prefix("gen_ai.")?.strip_suffix(".message")
}

/// The input messages and the output messages of a call's log records,
/// each `None` when none of its records holds one.
pub fn messages(events: &[Event]) -> (Option<Vec<Value>>, Option<Vec<Value>>) {
    let input: Vec<Value> = events
        .iter()
        .filter_map(|e| Some(Chat::of_object(&e.body, role(&e.name)?).message()))
        .collect();
    let mut choices: Vec<(u64, Value)> = events
        .iter()
        .filter(|e| e.name == "gen_ai.choice")
        .map(|e| {
            (
                e.body.get("index").and_then(Value::as_u64).unwrap_or(0),
                choice(&e.body),
            )
        })
        .collect();
    choices.sort_by_key(|(index, _)| *index);
    let output: Vec<Value> = choices.into_iter().map(|(_, m)| m).collect();
    (
        (!input.is_empty()).then_some(input),
        (!output.is_empty()).then_some(output),
    )
}

/// A `gen_ai.choice` body (`{index, finish_reason, message, tool_calls}`)
/// as an output message.
fn choice(body: &Value) -> Value {
    let mut chat = Chat::of_object(body.get("message").unwrap_or(&Value::Null), "assistant");
    if chat.tool_calls.is_empty() {
        chat.tool_calls = tool_calls_of(body.get("tool_calls"));
    }
    chat.tool_call_id = None;
    chat.finish_reason = body
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    chat.message()
}

/// The finish reason of each `gen_ai.choice` record of a call, with the
/// choice's index and the record.
pub fn finish_reasons(events: &[Event]) -> Vec<(usize, &str, &Event)> {
    events
        .iter()
        .filter(|e| e.name == "gen_ai.choice")
        .filter_map(|e| {
            let index = e.body.get("index").and_then(Value::as_u64).unwrap_or(0);
            let reason = e.body.get("finish_reason")?.as_str()?;
            Some((usize::try_from(index).ok()?, reason, e))
        })
        .collect()
}
