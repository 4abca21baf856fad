//! Provider calls as they crossed the wire (`receipts record`): what a
//! request asked for and what a reply reported, read from their bytes.
//!
//! Three wire APIs are understood, streaming or not: OpenAI's Chat
//! Completions and Responses, and Anthropic's Messages. The facts read are
//! the ones a receipt states: the model echoed, the reply's id, the token
//! usage the provider billed (for a stream, from its final usage event),
//! and why it stopped. Any other endpoint's call is kept as a raw call:
//! its bytes and timings, no facts.

mod capture;
pub mod derive;
mod reply;
pub mod sse;
pub mod verify;

pub use capture::*;
pub use reply::{read_reply, Reply};

use serde_json::Value;

/// The wire API a call spoke, from the path it was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Api {
    /// OpenAI's `POST …/chat/completions`.
    OpenAiChat,
    /// OpenAI's `POST …/responses`.
    OpenAiResponses,
    /// Anthropic's `POST …/messages`.
    AnthropicMessages,
    /// Anything else: forwarded and kept, not read.
    Other,
}

impl Api {
    /// The API of a `method` request to `path` (its query left out).
    pub fn of(method: &str, path: &str) -> Api {
        if !method.eq_ignore_ascii_case("POST") {
            return Api::Other;
        }
        let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
        if path.ends_with("/chat/completions") {
            Api::OpenAiChat
        } else if path.ends_with("/responses") {
            Api::OpenAiResponses
        } else if path.ends_with("/messages") {
            Api::AnthropicMessages
        } else {
            Api::Other
        }
    }

    /// The API's name in a record.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenAiChat => "openai_chat_completions",
            Api::OpenAiResponses => "openai_responses",
            Api::AnthropicMessages => "anthropic_messages",
            Api::Other => "other",
        }
    }

    /// The API a record names.
    pub fn from_name(name: &str) -> Option<Api> {
        [
            Api::OpenAiChat,
            Api::OpenAiResponses,
            Api::AnthropicMessages,
            Api::Other,
        ]
        .into_iter()
        .find(|api| api.as_str() == name)
    }
}

/// What a request body asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The model requested.
    pub model: Option<String>,
    /// Whether it asked for a stream of events.
    pub stream: bool,
    /// The output budget it set (`max_tokens`, `max_completion_tokens`,
    /// `max_output_tokens`).
    pub max_tokens: Option<u64>,
}

/// Reads what a request body asked for; a body that is not a JSON object
/// asked for nothing that can be read.
pub fn read_request(api: Api, body: &[u8]) -> Request {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(body) else {
        return Request::default();
    };
    let budget = match api {
        Api::OpenAiChat => ["max_completion_tokens", "max_tokens"].as_slice(),
        Api::OpenAiResponses => ["max_output_tokens"].as_slice(),
        Api::AnthropicMessages => ["max_tokens"].as_slice(),
        Api::Other => [].as_slice(),
    };
    Request {
        model: body
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string),
        stream: api != Api::Other && body.get("stream").and_then(Value::as_bool) == Some(true),
        max_tokens: budget
            .iter()
            .find_map(|k| body.get(*k).and_then(Value::as_u64)),
    }
}

/// Whether a response's `Content-Type` is a stream of server-sent events.
pub fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// The names of the response headers providers put their request id in,
/// most specific first: OpenAI's `x-request-id`, Anthropic's `request-id`.
pub const REQUEST_ID_HEADERS: [&str; 2] = ["x-request-id", "request-id"];

/// Whether a header's value is a secret that never reaches a record: any
/// name that speaks of authorization, keys, tokens, secrets, passwords,
/// cookies or sessions (`Authorization`, `x-api-key`, `api-key`,
/// `x-goog-api-key`, `Cookie`, `Set-Cookie`, …), in any case.
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "auth",
        "key",
        "token",
        "secret",
        "password",
        "cookie",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// What a secret header's value is recorded as.
pub const REDACTED: &str = "[redacted]";

#[cfg(test)]
mod tests;
