//! Messages in the importer's one form, the GenAI conventions' own
//! (`{"role", "parts": [...], "finish_reason"}`, parts `text`,
//! `tool_call` with `id`, `name`, `arguments`, `tool_call_response` with
//! `id`, `response`), whatever form the instrumentation wrote them in.
//! Every other form is a message of the OpenAI chat API as the
//! instrumentation copied it (a log record's body, indexed attributes),
//! read here as a [`Chat`] and written in the one form; what the
//! instrumentation left out is left out, never filled in.

use serde_json::{json, Map, Value};

/// A message in the OpenAI chat form: its role, its text, the tool calls
/// it makes, the tool call it answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chat {
    /// `system`, `user`, `assistant`, `tool`, …
    pub role: String,
    /// Its text (a tool message's: the tool's result), when recorded.
    pub content: Option<Value>,
    /// The tool calls it makes, in order.
    pub tool_calls: Vec<ToolCall>,
    /// The tool call a tool message answers, when recorded.
    pub tool_call_id: Option<String>,
    /// Why the model stopped, for an output message that says.
    pub finish_reason: Option<String>,
}

/// A tool call a message makes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCall {
    /// The call's id, when recorded.
    pub id: Option<String>,
    /// The tool's name, when recorded.
    pub name: Option<String>,
    /// Its arguments as recorded: JSON text as the model sent it, or a value.
    pub arguments: Option<Value>,
}

fn insert(obj: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        obj.insert(key.to_string(), v);
    }
}

impl Chat {
    /// The message in the GenAI conventions' form. A tool message's text is
    /// its `tool_call_response`; another message's text (when it has any)
    /// comes before its tool calls.
    pub fn message(&self) -> Value {
        let mut parts = Vec::new();
        if self.role == "tool" {
            let mut part = Map::new();
            part.insert("type".into(), "tool_call_response".into());
            insert(&mut part, "id", self.tool_call_id.clone().map(Value::from));
            insert(&mut part, "response", self.content.clone());
            parts.push(Value::Object(part));
        } else if let Some(content) = &self.content {
            parts.push(json!({ "type": "text", "content": content }));
        }
        for call in &self.tool_calls {
            let mut part = Map::new();
            part.insert("type".into(), "tool_call".into());
            insert(&mut part, "id", call.id.clone().map(Value::from));
            insert(&mut part, "name", call.name.clone().map(Value::from));
            insert(&mut part, "arguments", call.arguments.clone());
            parts.push(Value::Object(part));
        }
        let mut m = Map::new();
        m.insert("role".into(), self.role.clone().into());
        m.insert("parts".into(), Value::Array(parts));
        insert(
            &mut m,
            "finish_reason",
            self.finish_reason.clone().map(Value::from),
        );
        Value::Object(m)
    }

    /// A message as an OpenAI chat message object holds it (`role`,
    /// `content`, `tool_calls[].{id, function.{name, arguments}}`,
    /// `tool_call_id`, or a tool message's `id` as the official
    /// instrumentation writes it), with `role` when the object names none.
    pub fn of_object(v: &Value, role: &str) -> Chat {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Chat {
            role: text("role").unwrap_or_else(|| role.to_string()),
            content: v.get("content").filter(|c| !c.is_null()).cloned(),
            tool_calls: tool_calls_of(v.get("tool_calls")),
            tool_call_id: text("tool_call_id").or_else(|| text("id")),
            finish_reason: None,
        }
    }
}

/// The tool calls of an OpenAI `tool_calls` array: `{id, function: {name,
/// arguments}}`, or `name` and `arguments` at the top.
pub fn tool_calls_of(list: Option<&Value>) -> Vec<ToolCall> {
    let Some(Value::Array(items)) = list else {
        return Vec::new();
    };
    items
        .iter()
        .map(|c| {
            let f = c.get("function").unwrap_or(c);
            ToolCall {
                id: c.get("id").and_then(Value::as_str).map(str::to_string),
                name: f.get("name").and_then(Value::as_str).map(str::to_string),
                arguments: f.get("arguments").filter(|a| !a.is_null()).cloned(),
            }
        })
        .collect()
}

/// A messages attribute (`gen_ai.input.messages`, `gen_ai.output.messages`):
/// JSON text on spans, structured on log records. `None` when absent;
/// text that is not a JSON array is kept as one text message of role
/// `unknown`.
pub fn parse(value: Option<&Value>) -> Option<Vec<Value>> {
    match value? {
        Value::Array(items) => Some(items.clone()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => Some(items),
            _ => Some(vec![json!({
                "role": "unknown",
                "parts": [{ "type": "text", "content": text }],
            })]),
        },
        _ => None,
    }
}

/// Two messages attributes holding the same messages, one as JSON text
/// and the other structured or both alike.
pub fn messages_same(a: &Value, b: &Value) -> bool {
    parse(Some(a)) == parse(Some(b))
}

/// A message as the next call reads it: its role and parts, without the
/// output-only `finish_reason`, and with a tool call's arguments or a
/// tool's response written as JSON text read as the value it spells (an
/// instrumentation may write one side as text, the other as a value).
pub fn as_read(message: &Value) -> Value {
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

/// The parts of `messages` of `kind` (`tool_call`, `tool_call_response`).
pub fn parts<'m>(messages: &'m [Value], kind: &str) -> Vec<&'m Value> {
    messages
        .iter()
        .filter_map(|m| m.get("parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some(kind))
        .collect()
}

/// A value as text: a string as it is, anything else as JSON.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Two texts the same as JSON values, or else the same text.
pub fn same_json_text(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
