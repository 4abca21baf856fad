//! The GenAI semantic conventions, old and new: `gen_ai.operation.name`
//! says what a span is; a call names its provider (`gen_ai.provider.name`,
//! or the older `gen_ai.system`), models, response, finish reasons and
//! token counts; its messages are JSON on the span
//! (`gen_ai.input.messages`, `gen_ai.output.messages`), structured on its
//! `gen_ai.client.inference.operation.details` log record, or one log
//! record per message ([`super::genai_events`]); a tool execution names
//! its tool, call id, arguments and result.

use serde_json::Value;

use super::attrs::{fill, Attrs};
use super::genai_events;
use super::messages;
use super::neutral::{Counts, Facts, Kind};
use super::otlp::Event;

/// The operations that are a call to a model.
pub const MODEL_CALLS: [&str; 3] = ["chat", "text_completion", "generate_content"];

/// What `gen_ai.operation.name` makes a span, when it has one.
pub fn kind(a: &Attrs<'_>) -> Option<Kind> {
    let op = a.peek("gen_ai.operation.name")?.as_str()?;
    Some(if MODEL_CALLS.contains(&op) {
        Kind::Call
    } else if op == "execute_tool" {
        Kind::Tool
    } else if matches!(op, "invoke_agent" | "create_agent") {
        Kind::Agent
    } else {
        Kind::Other
    })
}

/// The token counts, each under its current name, else its older one.
pub fn counts(a: &mut Attrs<'_>) -> Counts {
    Counts {
        input: a.first_count(&["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"]),
        output: a.first_count(&[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
        ]),
        cache_read: a.count("gen_ai.usage.cache_read.input_tokens"),
        cache_creation: a.count("gen_ai.usage.cache_creation.input_tokens"),
        reasoning: a.count("gen_ai.usage.reasoning.output_tokens"),
    }
}

/// Reads the GenAI attributes of a span of kind `f.kind` (the root of its
/// trace when `root`), with its log `events`, into `f`.
pub fn read(a: &mut Attrs<'_>, events: &[Event], root: bool, f: &mut Facts) {
    fill(&mut f.operation, || a.text("gen_ai.operation.name"));
    f.usage = counts(a);
    if root {
        fill(&mut f.agent, || a.text("gen_ai.agent.name"));
        fill(&mut f.conversation, || a.text("gen_ai.conversation.id"));
    }
    match f.kind {
        Some(Kind::Call) => call(a, events, f),
        Some(Kind::Tool) => {
            fill(&mut f.tool_name, || a.text("gen_ai.tool.name"));
            fill(&mut f.call_id, || a.text("gen_ai.tool.call.id"));
            fill(&mut f.arguments, || a.as_text("gen_ai.tool.call.arguments"));
            fill(&mut f.result, || a.as_text("gen_ai.tool.call.result"));
        }
        Some(Kind::Agent | Kind::Other) | None => {}
    }
}

fn call(a: &mut Attrs<'_>, events: &[Event], f: &mut Facts) {
    fill(&mut f.provider, || {
        a.first_text(&["gen_ai.provider.name", "gen_ai.system"])
    });
    fill(&mut f.server, || {
        let host = a.text("server.address")?;
        Some(match a.peek("server.port") {
            Some(port) if port.is_u64() => {
                a.mark("server.port");
                format!("{host}:{port}")
            }
            _ => host,
        })
    });
    fill(&mut f.request_model, || a.text("gen_ai.request.model"));
    fill(&mut f.response_model, || a.text("gen_ai.response.model"));
    fill(&mut f.response_id, || a.text("gen_ai.response.id"));
    fill(&mut f.max_tokens, || a.count("gen_ai.request.max_tokens"));
    fill(&mut f.finish_reasons, || {
        let reasons = match a.peek("gen_ai.response.finish_reasons")? {
            Value::Array(items) => items
                .iter()
                .map(|r| r.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()?,
            Value::String(s) => vec![s.clone()],
            _ => return None,
        };
        a.mark("gen_ai.response.finish_reasons");
        Some(reasons)
    });
    let (by_input, by_output) = genai_events::messages(events);
    fill(&mut f.input, || {
        call_messages(a, "gen_ai.input.messages", events).or(by_input)
    });
    fill(&mut f.output, || {
        call_messages(a, "gen_ai.output.messages", events).or(by_output)
    });
}

/// A call's messages attribute, from the span or else from one of its
/// log records (the operation details record carries them structured).
fn call_messages(a: &mut Attrs<'_>, key: &str, events: &[Event]) -> Option<Vec<Value>> {
    if let Some(on_span) = messages::parse(a.peek(key)) {
        a.mark(key);
        return Some(on_span);
    }
    events
        .iter()
        .find_map(|e| messages::parse(e.attributes.get(key)))
}
