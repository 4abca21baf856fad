//! Arize's OpenInference conventions: `openinference.span.kind` says what
//! a span is (`LLM`, `TOOL`, `AGENT`, `CHAIN`, …); a model call's
//! messages are indexed attributes (`llm.input_messages.N.message.role`,
//! `.content`, `.tool_call_id`, `.tool_calls.M.tool_call.id`,
//! `.function.name`, `.function.arguments`, likewise
//! `llm.output_messages`), its counts `llm.token_count.*`, its answering
//! model `llm.model_name`; the model it asked for is in
//! `llm.invocation_parameters` and the response's id in `output.value`
//! (the response's JSON), both kept whole since the record holds only
//! part of them. A tool span names `tool.name`, `tool.id` (the tool call
//! id) and carries the arguments and result as `input.value` and
//! `output.value`; the root's `agent.name` and `session.id` name the
//! agent and the conversation.

use serde_json::Value;

use super::attrs::Attrs;
use super::indexed::{self, Fields};
use super::messages::Chat;
use super::neutral::{Counts, Facts, Kind};

const KIND: &str = "openinference.span.kind";

const MESSAGE: Fields = Fields {
    role: "message.role",
    content: "message.content",
    tool_call_id: "message.tool_call_id",
    finish_reason: None,
    tool_calls: "message.tool_calls",
    call_id: "tool_call.id",
    call_name: "tool_call.function.name",
    call_arguments: "tool_call.function.arguments",
};

/// Whether OpenInference wrote the span.
pub fn marks(a: &Attrs<'_>) -> bool {
    a.has(KIND)
}

/// What the span kind makes a span.
pub fn kind(a: &Attrs<'_>) -> Option<Kind> {
    let kind = a.peek(KIND)?.as_str()?;
    Some(match kind.to_ascii_uppercase().as_str() {
        "LLM" => Kind::Call,
        "TOOL" => Kind::Tool,
        "AGENT" | "CHAIN" => Kind::Agent,
        _ => Kind::Other,
    })
}

/// The value of `key` in the JSON object an attribute holds as text.
fn in_json(a: &Attrs<'_>, attribute: &str, key: &str) -> Option<Value> {
    let text = a.peek(attribute)?.as_str()?;
    let doc: Value = serde_json::from_str(text).ok()?;
    doc.get(key).filter(|v| !v.is_null()).cloned()
}

/// Reads an OpenInference span (the root of its trace when `root`) into `f`.
pub fn read(a: &mut Attrs<'_>, root: bool, f: &mut Facts) {
    f.kind = kind(a);
    f.operation = a.text(KIND);
    f.usage = Counts {
        input: a.count("llm.token_count.prompt"),
        output: a.count("llm.token_count.completion"),
        cache_read: a.count("llm.token_count.prompt_details.cache_read"),
        cache_creation: a.count("llm.token_count.prompt_details.cache_write"),
        reasoning: a.count("llm.token_count.completion_details.reasoning"),
    };
    if root {
        f.agent = a.text("agent.name");
        f.conversation = a.text("session.id");
    }
    match f.kind {
        Some(Kind::Call) => call(a, f),
        Some(Kind::Tool) => {
            f.tool_name = a.text("tool.name");
            f.call_id = a.text("tool.id");
            f.arguments = a.as_text("input.value");
            f.result = a.as_text("output.value");
        }
        _ => {}
    }
}

fn call(a: &mut Attrs<'_>, f: &mut Facts) {
    f.provider = a.first_text(&["llm.provider", "llm.system"]);
    f.request_model = in_json(a, "llm.invocation_parameters", "model")
        .and_then(|m| m.as_str().map(str::to_string));
    f.max_tokens = ["max_tokens", "max_completion_tokens"]
        .iter()
        .find_map(|k| in_json(a, "llm.invocation_parameters", k)?.as_u64());
    f.response_model = a.text("llm.model_name");
    f.response_id = in_json(a, "output.value", "id").and_then(|id| id.as_str().map(str::to_string));
    f.finish_reasons = a.text("llm.finish_reason").map(|r| vec![r]);
    let messages = |list: Option<Vec<Chat>>| list.map(|l| l.iter().map(Chat::message).collect());
    f.input = messages(indexed::read(a, "llm.input_messages", &MESSAGE));
    f.output = messages(indexed::read(a, "llm.output_messages", &MESSAGE));
}
