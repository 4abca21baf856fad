//! What a provider's reply reported, read from its bytes: a JSON body, or
//! a stream of server-sent events.

use serde_json::Value;

use super::{sse, Api};
use crate::model::Usage;

/// The facts a reply reported. Each is `None` when the reply did not
/// report it (a refusal, a stream cut before its final event, a body that
/// is not the API's JSON): unknown is not zero.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The provider's id for the reply (`chatcmpl-…`, `resp_…`, `msg_…`).
    pub id: Option<String>,
    /// The model the provider said answered.
    pub model: Option<String>,
    /// The tokens billed.
    pub usage: Option<Usage>,
    /// Why generation stopped, in the provider's word.
    pub finish_reason: Option<String>,
    /// The text the model returned, joined.
    pub text: String,
    /// The reasoning the provider returned beside the text, joined: Chat
    /// Completions' `reasoning_content` or `reasoning` (OpenAI-compatible
    /// servers use either, some both), the Responses API's reasoning
    /// summaries, Anthropic's thinking blocks. Empty when none came.
    pub reasoning: String,
    /// The provider's error message, for an error body.
    pub error: Option<String>,
}

/// Reads a reply of `api`: a stream of events when `event_stream`, one
/// JSON body otherwise. A body that is neither reports nothing.
pub fn read_reply(api: Api, event_stream: bool, body: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(body);
    if event_stream {
        let mut stream = Stream::default();
        for event in sse::events(&text) {
            if let Ok(data) = serde_json::from_str::<Value>(&event.data) {
                stream.event(api, &data);
            }
        }
        return stream.reply;
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(body) => whole(api, &body),
        Err(_) => Reply::default(),
    }
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn u64_at(v: &Value, pointer: &str) -> Option<u64> {
    v.pointer(pointer).and_then(Value::as_u64)
}

/// The error message of an error body (`{"error": {"message": …}}`, or
/// Anthropic's `{"type": "error", "error": {…}}`).
fn error_of(body: &Value) -> Option<String> {
    match body.get("error")? {
        Value::String(s) => Some(s.clone()),
        e => str_at(e, "/message").or_else(|| Some(e.to_string())),
    }
}

/// OpenAI's usage, in Chat Completions' words (`prompt`, `completion`)
/// or the Responses API's (`input`, `output`): the input count holds every
/// input token; the ones read from the cache are `prompt_cache_hit_tokens`
/// where the provider reports them (with `prompt_cache_miss_tokens`, as
/// DeepSeek-style OpenAI-compatible servers do), else
/// `…_tokens_details.cached_tokens`; the misses, where not reported, are
/// the rest of the input.
fn openai_usage(u: &Value, input: &str, output: &str) -> Option<Usage> {
    let prompt = u64_at(u, &format!("/{input}_tokens"))?;
    let hit = u64_at(u, "/prompt_cache_hit_tokens");
    let miss = u64_at(u, "/prompt_cache_miss_tokens");
    let cached = hit.or_else(|| u64_at(u, &format!("/{input}_tokens_details/cached_tokens")));
    Some(Usage {
        prompt_tokens: prompt,
        completion_tokens: u64_at(u, &format!("/{output}_tokens"))?,
        reasoning_tokens: u64_at(u, &format!("/{output}_tokens_details/reasoning_tokens")),
        cache_hit_tokens: cached.or_else(|| miss.map(|m| prompt.saturating_sub(m))),
        cache_miss_tokens: miss.or_else(|| cached.map(|c| prompt.saturating_sub(c))),
        cache_write_tokens: None,
    })
}

/// The reasoning of a Chat Completions message or delta: its
/// `reasoning_content`, its `reasoning`, or both when they differ (a
/// server that sends both sends the same text twice).
pub(super) fn chat_reasoning(message: &Value) -> (Option<&str>, Option<&str>) {
    (
        message.get("reasoning_content").and_then(Value::as_str),
        message.get("reasoning").and_then(Value::as_str),
    )
}

/// The two fields' texts as one: either alone, one when they are the same,
/// both (content first) when they differ.
pub(super) fn one_reasoning(content: &str, reasoning: &str) -> String {
    match (content.is_empty(), reasoning.is_empty()) {
        (_, true) => content.to_string(),
        (true, false) => reasoning.to_string(),
        (false, false) if content == reasoning => content.to_string(),
        (false, false) => format!("{content}\n\n{reasoning}"),
    }
}

fn chat_usage(u: &Value) -> Option<Usage> {
    openai_usage(u, "prompt", "completion")
}

fn responses_usage(u: &Value) -> Option<Usage> {
    openai_usage(u, "input", "output")
}

/// Anthropic's usage: `input_tokens` leaves out the tokens read from and
/// written to the cache, which the record's `prompt_tokens` counts.
fn anthropic_usage(input: &Value, output_tokens: u64) -> Option<Usage> {
    let uncached = u64_at(input, "/input_tokens")?;
    let read = u64_at(input, "/cache_read_input_tokens");
    let written = u64_at(input, "/cache_creation_input_tokens");
    let prompt = uncached
        .checked_add(read.unwrap_or(0))?
        .checked_add(written.unwrap_or(0))?;
    Some(Usage {
        prompt_tokens: prompt,
        completion_tokens: output_tokens,
        reasoning_tokens: None,
        cache_hit_tokens: read,
        cache_miss_tokens: read.map(|_| prompt - read.unwrap_or(0)),
        cache_write_tokens: written,
    })
}

/// The texts of a Responses body's output items: the `text` of each part
/// of an item's `content` (a `message`), or, with `reasoning`, of each
/// part of an item's `summary` (a `reasoning` item).
fn responses_parts(body: &Value, reasoning: bool) -> impl Iterator<Item = &str> {
    let (kept, parts) = if reasoning {
        (true, "summary")
    } else {
        (false, "content")
    };
    body.get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(move |item| (item.get("type").and_then(Value::as_str) == Some("reasoning")) == kept)
        .flat_map(move |item| {
            item.get(parts)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|part| part.get("text").and_then(Value::as_str))
}

/// The text of Responses output items other than reasoning.
fn responses_text(body: &Value) -> String {
    responses_parts(body, false).collect()
}

/// The reasoning summaries of Responses output items of type `reasoning`,
/// a blank line between two.
fn responses_reasoning(body: &Value) -> String {
    responses_parts(body, true).collect::<Vec<_>>().join("\n\n")
}

/// The finish reason of a Responses body: `incomplete_details.reason`
/// (`max_output_tokens`, …) when it stopped early, its status otherwise.
fn responses_finish(body: &Value) -> Option<String> {
    str_at(body, "/incomplete_details/reason").or_else(|| str_at(body, "/status"))
}

fn whole(api: Api, body: &Value) -> Reply {
    let mut reply = Reply {
        error: error_of(body),
        ..Reply::default()
    };
    match api {
        Api::OpenAiChat => {
            reply.id = str_at(body, "/id");
            reply.model = str_at(body, "/model");
            reply.usage = body.get("usage").and_then(chat_usage);
            reply.finish_reason = str_at(body, "/choices/0/finish_reason");
            reply.text = str_at(body, "/choices/0/message/content").unwrap_or_default();
            let message = body.pointer("/choices/0/message").unwrap_or(&Value::Null);
            let (content, reasoning) = chat_reasoning(message);
            reply.reasoning = one_reasoning(content.unwrap_or(""), reasoning.unwrap_or(""));
        }
        Api::OpenAiResponses => {
            reply.id = str_at(body, "/id");
            reply.model = str_at(body, "/model");
            reply.usage = body.get("usage").and_then(responses_usage);
            reply.finish_reason = responses_finish(body);
            reply.text = responses_text(body);
            reply.reasoning = responses_reasoning(body);
        }
        Api::AnthropicMessages => {
            reply.id = str_at(body, "/id");
            reply.model = str_at(body, "/model");
            reply.usage = body
                .get("usage")
                .and_then(|u| anthropic_usage(u, u64_at(u, "/output_tokens")?));
            reply.finish_reason = str_at(body, "/stop_reason");
            for block in body
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    reply.text.push_str(t);
                }
                if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                    reply.reasoning.push_str(t);
                }
            }
        }
        Api::Other => {}
    }
    reply
}

/// A reply read event by event.
#[derive(Default)]
struct Stream {
    reply: Reply,
    /// Anthropic's input counts, from `message_start`, until
    /// `message_delta` brings the output count.
    anthropic_input: Option<Value>,
    /// Chat Completions' streamed `reasoning_content` and `reasoning`, each
    /// joined, made one when the stream ends ([`one_reasoning`]).
    reasoning_content: String,
    reasoning: String,
}

impl Stream {
    /// Folds one event of the stream in.
    fn event(&mut self, api: Api, data: &Value) {
        let reply = &mut self.reply;
        if let Some(error) = error_of(data) {
            reply.error = Some(error);
        }
        match api {
            Api::OpenAiChat => {
                // Every chunk repeats the id and model; the last may carry
                // usage (with `stream_options.include_usage`).
                reply.id = str_at(data, "/id").or(reply.id.take());
                reply.model = str_at(data, "/model").or(reply.model.take());
                if let Some(usage) = data.get("usage").and_then(chat_usage) {
                    reply.usage = Some(usage);
                }
                if let Some(finish) = str_at(data, "/choices/0/finish_reason") {
                    reply.finish_reason = Some(finish);
                }
                if let Some(t) = data
                    .pointer("/choices/0/delta/content")
                    .and_then(Value::as_str)
                {
                    reply.text.push_str(t);
                }
                let delta = data.pointer("/choices/0/delta").unwrap_or(&Value::Null);
                let (content, reasoning) = chat_reasoning(delta);
                self.reasoning_content.push_str(content.unwrap_or(""));
                self.reasoning.push_str(reasoning.unwrap_or(""));
                reply.reasoning = one_reasoning(&self.reasoning_content, &self.reasoning);
            }
            Api::OpenAiResponses => match data.get("type").and_then(Value::as_str) {
                Some("response.created" | "response.in_progress") => {
                    reply.id = str_at(data, "/response/id");
                    reply.model = str_at(data, "/response/model");
                }
                Some("response.output_text.delta") => {
                    if let Some(t) = data.get("delta").and_then(Value::as_str) {
                        reply.text.push_str(t);
                    }
                }
                Some("response.reasoning_summary_part.added") if !reply.reasoning.is_empty() => {
                    reply.reasoning.push_str("\n\n");
                }
                Some("response.reasoning_summary_text.delta") => {
                    if let Some(t) = data.get("delta").and_then(Value::as_str) {
                        reply.reasoning.push_str(t);
                    }
                }
                Some("response.completed" | "response.incomplete" | "response.failed") => {
                    let response = data.get("response").unwrap_or(&Value::Null);
                    reply.id = str_at(response, "/id").or(reply.id.take());
                    reply.model = str_at(response, "/model").or(reply.model.take());
                    reply.usage = response.get("usage").and_then(responses_usage);
                    reply.finish_reason = responses_finish(response);
                    if let Some(e) = str_at(response, "/error/message") {
                        reply.error = Some(e);
                    }
                }
                _ => {}
            },
            Api::AnthropicMessages => match data.get("type").and_then(Value::as_str) {
                Some("message_start") => {
                    let message = data.get("message").unwrap_or(&Value::Null);
                    reply.id = str_at(message, "/id");
                    reply.model = str_at(message, "/model");
                    reply.usage = None;
                    self.anthropic_input = message.get("usage").cloned();
                }
                Some("content_block_delta") => {
                    if let Some(t) = data.pointer("/delta/text").and_then(Value::as_str) {
                        reply.text.push_str(t);
                    }
                    if let Some(t) = data.pointer("/delta/thinking").and_then(Value::as_str) {
                        reply.reasoning.push_str(t);
                    }
                }
                Some("message_delta") => {
                    if let Some(stop) = str_at(data, "/delta/stop_reason") {
                        reply.finish_reason = Some(stop);
                    }
                    // The output count is the total so far; the input
                    // counts are `message_start`'s unless this event
                    // repeats them.
                    let usage = data.get("usage").unwrap_or(&Value::Null);
                    let input = if usage.get("input_tokens").is_some() {
                        Some(usage)
                    } else {
                        self.anthropic_input.as_ref()
                    };
                    if let (Some(input), Some(output)) = (input, u64_at(usage, "/output_tokens")) {
                        reply.usage = anthropic_usage(input, output);
                    }
                }
                _ => {}
            },
            Api::Other => {}
        }
    }
}
