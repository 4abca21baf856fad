//! Traceloop's OpenLLMetry, read after the GenAI conventions it mostly
//! follows, for what it writes its own way: the spans its decorators make
//! (`traceloop.span.kind` `agent`, `workflow`, `tool`, `task`, with
//! `traceloop.entity.name`, `.input` — the arguments as
//! `{"args", "kwargs"}` — and `.output`), the request type of older
//! releases (`llm.request.type`), their indexed messages
//! (`gen_ai.prompt.N.role`, `.content`, `.tool_call_id`,
//! `.tool_calls.M.id`, `.name`, `.arguments`; `gen_ai.completion.N.…`
//! with `.finish_reason`) and its own token counts (`llm.usage.*`,
//! `gen_ai.usage.reasoning_tokens`, `gen_ai.usage.cache_read_input_tokens`).
//! Its tool spans record no tool call id.

use serde_json::Value;

use super::attrs::{fill, Attrs};
use super::indexed::{self, Fields};
use super::messages::Chat;
use super::neutral::{Facts, Kind};

const SPAN_KIND: &str = "traceloop.span.kind";
const REQUEST_TYPE: &str = "llm.request.type";

const MESSAGE: Fields = Fields {
    role: "role",
    content: "content",
    tool_call_id: "tool_call_id",
    finish_reason: Some("finish_reason"),
    tool_calls: "tool_calls",
    call_id: "id",
    call_name: "name",
    call_arguments: "arguments",
};

/// What OpenLLMetry's span kind, or its request type, makes a span.
pub fn kind(a: &Attrs<'_>) -> Option<Kind> {
    if let Some(kind) = a.peek(SPAN_KIND).and_then(Value::as_str) {
        return Some(match kind {
            "tool" => Kind::Tool,
            "agent" | "workflow" => Kind::Agent,
            _ => Kind::Other,
        });
    }
    let request = a.peek(REQUEST_TYPE)?.as_str()?;
    Some(match request {
        "chat" | "completion" => Kind::Call,
        _ => Kind::Other,
    })
}

/// Reads what OpenLLMetry writes its own way into `f`, where the GenAI
/// conventions left a fact out.
pub fn read(a: &mut Attrs<'_>, root: bool, f: &mut Facts) {
    fill(&mut f.operation, || {
        a.first_text(&[SPAN_KIND, REQUEST_TYPE])
    });
    let u = &mut f.usage;
    fill(&mut u.cache_read, || {
        a.count("gen_ai.usage.cache_read_input_tokens")
    });
    fill(&mut u.cache_creation, || {
        a.count("gen_ai.usage.cache_creation_input_tokens")
    });
    fill(&mut u.reasoning, || {
        a.first_count(&[
            "gen_ai.usage.reasoning_tokens",
            "llm.usage.reasoning_tokens",
        ])
    });
    if root && f.kind == Some(Kind::Agent) {
        fill(&mut f.agent, || a.text("traceloop.entity.name"));
    }
    match f.kind {
        Some(Kind::Call) => {
            fill(&mut f.input, || {
                let prompts = indexed::read(a, "gen_ai.prompt", &MESSAGE)?;
                Some(prompts.iter().map(Chat::message).collect())
            });
            let completions = match f.output {
                None => indexed::read(a, "gen_ai.completion", &MESSAGE),
                Some(_) => None,
            };
            if let Some(completions) = completions {
                fill(&mut f.finish_reasons, || {
                    let reasons: Vec<String> = completions
                        .iter()
                        .filter_map(|c| c.finish_reason.clone())
                        .collect();
                    (!reasons.is_empty()).then_some(reasons)
                });
                f.output = Some(completions.iter().map(Chat::message).collect());
            }
        }
        Some(Kind::Tool) => {
            fill(&mut f.tool_name, || a.text("traceloop.entity.name"));
            fill(&mut f.arguments, || {
                let text = a.text("traceloop.entity.input")?;
                Some(arguments(&text).unwrap_or(text))
            });
            fill(&mut f.result, || a.text("traceloop.entity.output"));
        }
        _ => {}
    }
}

/// A tool's arguments from the decorator's `{"args": [], "kwargs": {…}}`:
/// the keyword arguments, when there are no positional ones.
fn arguments(entity_input: &str) -> Option<String> {
    let input: Value = serde_json::from_str(entity_input).ok()?;
    let no_args = input.get("args").and_then(Value::as_array)?.is_empty();
    let kwargs = input.get("kwargs").filter(|k| k.is_object())?;
    no_args.then(|| kwargs.to_string())
}
