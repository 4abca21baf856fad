//! Messages written one attribute per field, indexed by position
//! (OpenInference's `llm.input_messages.N.message.role`, OpenLLMetry's
//! `gen_ai.prompt.N.role`): each convention names its fields, and the
//! messages are read the same way for both.

use super::attrs::Attrs;
use super::messages::{Chat, ToolCall};

/// The names one convention gives the fields of an indexed message,
/// each after `<list>.N.`.
pub struct Fields {
    /// The message's role.
    pub role: &'static str,
    /// Its text.
    pub content: &'static str,
    /// The tool call a tool message answers.
    pub tool_call_id: &'static str,
    /// Why the model stopped (output messages), when the convention says.
    pub finish_reason: Option<&'static str>,
    /// The list of its tool calls, each `<tool_calls>.M.`.
    pub tool_calls: &'static str,
    /// A tool call's id, name and arguments, after `<tool_calls>.M.`.
    pub call_id: &'static str,
    /// A tool call's name.
    pub call_name: &'static str,
    /// A tool call's arguments.
    pub call_arguments: &'static str,
}

/// The messages of the indexed list `list` (e.g. `llm.input_messages`),
/// by index; `None` when the span carries none. Every field read is
/// marked; a field of a message the convention does not name stays
/// unread and is kept.
pub fn read(a: &mut Attrs<'_>, list: &str, fields: &Fields) -> Option<Vec<Chat>> {
    let indexes = a.indexes(list);
    if indexes.is_empty() {
        return None;
    }
    let messages = indexes
        .into_iter()
        .map(|n| {
            let at = |field: &str| format!("{list}.{n}.{field}");
            let calls = format!("{list}.{n}.{}", fields.tool_calls);
            let tool_calls = a
                .indexes(&calls)
                .into_iter()
                .map(|m| {
                    let key = |field: &str| format!("{calls}.{m}.{field}");
                    ToolCall {
                        id: a.text(&key(fields.call_id)),
                        name: a.text(&key(fields.call_name)),
                        arguments: a.value(&key(fields.call_arguments)).cloned(),
                    }
                })
                .collect();
            Chat {
                role: a.text(&at(fields.role)).unwrap_or_default(),
                content: a.value(&at(fields.content)).cloned(),
                tool_calls,
                tool_call_id: a.text(&at(fields.tool_call_id)),
                finish_reason: fields.finish_reason.and_then(|f| a.text(&at(f))),
            }
        })
        .collect();
    Some(messages)
}
