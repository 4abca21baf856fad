//! A recorded run's provider calls and transcript, derived from its
//! capture and the bodies it kept. The recorder writes what this derives;
//! the verifier derives it again and holds the run to it.

use serde_json::Value;

use super::{read_reply, read_request, Api, Capture, Exchange, ExchangeEnd};
use crate::model::{
    AttemptEnd, CallStatus, EndReason, FinishReason, Message, ProviderCall, WireCall,
};
use crate::verify::Objects;

/// Why a capture does not make a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Missing(pub String);

/// The earlier exchange each exchange repeats, in order: the latest one
/// with the same method, upstream, target and request bytes that did not
/// end complete with a 2xx status.
pub fn retries(exchanges: &[Exchange]) -> Vec<Option<u32>> {
    exchanges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            exchanges[..i]
                .iter()
                .rev()
                .find(|b| {
                    b.method == e.method
                        && b.upstream == e.upstream
                        && b.target == e.target
                        && b.request.sha256 == e.request.sha256
                        && !(b.end == ExchangeEnd::Complete
                            && b.status.is_some_and(|s| (200..300).contains(&s)))
                })
                .map(|b| b.seq)
        })
        .collect()
}

/// The id a call is known by in the run: the provider's request id header,
/// or else the reply's own id, or else its place in the capture.
fn call_id(e: &Exchange, reply_id: Option<&str>) -> String {
    e.request_id()
        .or(reply_id)
        .map_or_else(|| format!("wire-{}", e.seq), str::to_string)
}

/// The run's provider calls: one per exchange that spoke a wire API
/// understood ([`Api`]), in the order sent. Exchanges with other endpoints
/// stay in the capture as raw calls. A body the capture names and
/// `bodies` lacks is an error.
pub fn calls(exchanges: &[Exchange], bodies: &dyn Objects) -> Result<Vec<ProviderCall>, Missing> {
    let mut out: Vec<ProviderCall> = Vec::new();
    let mut ids: Vec<(u32, String)> = Vec::new();
    for e in exchanges {
        let Some(api) = Api::from_name(&e.api).filter(|api| *api != Api::Other) else {
            continue;
        };
        let request = bodies.object(&e.request.sha256).ok_or_else(|| {
            Missing(format!(
                "call {}: its request body {} is not kept",
                e.seq, e.request.sha256
            ))
        })?;
        let response = match &e.response {
            Some(body) => Some(bodies.object(&body.sha256).ok_or_else(|| {
                Missing(format!(
                    "call {}: its response body {} is not kept",
                    e.seq, body.sha256
                ))
            })?),
            None => None,
        };
        let asked = read_request(api, request);
        let event_stream = e.content_type().is_some_and(super::is_event_stream);
        let reply = response
            .map(|bytes| read_reply(api, event_stream, bytes))
            .unwrap_or_default();
        let mut id = call_id(e, reply.id.as_deref());
        if ids.iter().any(|(_, taken)| *taken == id) {
            // Ids are unique in a run; a provider that repeats one is told
            // apart by the call's place.
            id = format!("{id}#{}", e.seq);
        }
        let ok_status = e.status.is_some_and(|s| (200..300).contains(&s));
        let status = match e.end {
            ExchangeEnd::Complete if ok_status => CallStatus::Ok,
            ExchangeEnd::Complete | ExchangeEnd::Unreachable => CallStatus::Error,
            ExchangeEnd::Cut | ExchangeEnd::ClientGone => CallStatus::Aborted,
        };
        let error = match status {
            CallStatus::Ok => None,
            _ => reply.error.clone().or_else(|| e.error.clone()),
        };
        out.push(ProviderCall {
            request_id: id.clone(),
            model_requested: asked.model.unwrap_or_default(),
            model_echoed: reply.model,
            started_at: e.sent_at.clone(),
            latency_ms: e.done_ms,
            usage: if ok_status { reply.usage } else { None },
            finish_reason: reply
                .finish_reason
                .and_then(|f| FinishReason::try_from(f).ok()),
            max_tokens: asked.max_tokens.unwrap_or(0),
            // No tokenizer makes more tokens of a text than it has bytes:
            // the request's size bounds the prompt of a call whose usage
            // was lost.
            prompt_tokens_reserved: e.request.bytes,
            status,
            http_status: e.status,
            error,
            retry_of: e.retry_of.and_then(|seq| {
                ids.iter()
                    .find(|(s, _)| *s == seq)
                    .map(|(_, id)| id.clone())
            }),
            wire: Some(Box::new(WireCall {
                request_sha256: e.request.sha256.clone(),
                response_sha256: e.response.as_ref().map(|b| b.sha256.clone()),
                first_byte_ms: e.first_byte_ms,
            })),
        });
        ids.push((e.seq, id));
    }
    Ok(out)
}

/// The text of a message's content: a string, or the text of its parts
/// (other parts, such as tool calls and images, as their JSON).
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<String> = parts
                .iter()
                .map(|part| match part.get("text").and_then(Value::as_str) {
                    Some(t) => t.to_string(),
                    None => part.to_string(),
                })
                .collect();
            Some(texts.join("\n"))
        }
        other => Some(other.to_string()),
    }
}

/// One message of a request, as the transcript keeps it, with the
/// reasoning an assistant's message carries back (`reasoning_content` or
/// `reasoning`); `None` for a message with no content.
fn message(role: &str, content: &Value, whole: &Value) -> Option<Message> {
    let (a, b) = super::reply::chat_reasoning(whole);
    let reasoning = super::reply::one_reasoning(a.unwrap_or(""), b.unwrap_or(""));
    Some(Message {
        role: role.to_string(),
        text: Some(content_text(content)?),
        sha256: None,
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        call: None,
        turn: None,
    })
}

/// The transcript: the conversation as the last call that completed sent
/// it, then that call's reply. Each earlier call's conversation is a part
/// of the last in an agent's loop, so it is the whole run's; a run whose
/// calls do not grow one conversation still shows its last.
pub fn transcript(
    exchanges: &[Exchange],
    calls: &[ProviderCall],
    bodies: &dyn Objects,
) -> Vec<Message> {
    let understood = exchanges
        .iter()
        .filter(|e| Api::from_name(&e.api).is_some_and(|api| api != Api::Other));
    let Some((e, call)) = understood
        .zip(calls)
        .filter(|(_, c)| c.status == CallStatus::Ok)
        .last()
    else {
        return Vec::new();
    };
    let api = Api::from_name(&e.api).unwrap_or(Api::Other);
    let Some(request) = bodies
        .object(&e.request.sha256)
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match api {
        Api::OpenAiChat | Api::AnthropicMessages => {
            if let Some(system) = request.get("system") {
                out.extend(message("system", system, &Value::Null));
            }
            for m in request
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("other");
                out.extend(message(role, m.get("content").unwrap_or(&Value::Null), m));
            }
        }
        Api::OpenAiResponses => {
            if let Some(instructions) = request.get("instructions") {
                out.extend(message("system", instructions, &Value::Null));
            }
            match request.get("input") {
                Some(Value::Array(items)) => {
                    for item in items {
                        let role = item.get("role").and_then(Value::as_str).unwrap_or("other");
                        let content = item.get("content").unwrap_or(item);
                        out.extend(message(role, content, item));
                    }
                }
                Some(input) => out.extend(message("user", input, &Value::Null)),
                None => {}
            }
        }
        Api::Other => {}
    }
    let event_stream = e.content_type().is_some_and(super::is_event_stream);
    let reply = e
        .response
        .as_ref()
        .and_then(|b| bodies.object(&b.sha256))
        .map(|bytes| read_reply(api, event_stream, bytes))
        .unwrap_or_default();
    out.push(Message {
        role: "assistant".to_string(),
        text: Some(reply.text),
        sha256: None,
        reasoning: (!reply.reasoning.is_empty()).then_some(reply.reasoning),
        call: Some(call.request_id.clone()),
        turn: None,
    });
    out
}

/// What a capture gives of a recorded run's one attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// When the command started (UTC), as the capture says.
    pub started_at: String,
    /// Milliseconds from the command's start to its end.
    pub duration_ms: u64,
    /// The provider calls ([`calls`]), in the order sent.
    pub calls: Vec<ProviderCall>,
    /// The transcript ([`transcript`]).
    pub messages: Vec<Message>,
    /// How the attempt ended: finished on exit status 0, an error otherwise.
    pub end: AttemptEnd,
}

/// Derives the attempt a capture records: its calls, its transcript, its
/// time, and how it ended (the command's exit).
pub fn attempt(capture: &Capture, bodies: &dyn Objects) -> Result<Derived, Missing> {
    // A call left out of the capture leaves a gap in its numbers.
    if let Some((i, e)) = capture
        .calls
        .iter()
        .enumerate()
        .find(|(i, e)| e.seq as usize != *i)
    {
        return Err(Missing(format!(
            "its calls are numbered from 0 in the order sent, but call {i} is numbered {}",
            e.seq
        )));
    }
    let retries = retries(&capture.calls);
    if let Some(e) = capture
        .calls
        .iter()
        .zip(&retries)
        .find(|(e, r)| e.retry_of != **r)
        .map(|(e, _)| e)
    {
        return Err(Missing(format!(
            "call {} says it repeats {:?}, but the calls before it say {:?}",
            e.seq, e.retry_of, retries[e.seq as usize]
        )));
    }
    let calls = calls(&capture.calls, bodies)?;
    let messages = transcript(&capture.calls, &calls, bodies);
    let duration_ms = match (
        crate::time::parse(&capture.started_at),
        crate::time::parse(&capture.ended_at),
    ) {
        (Ok(a), Ok(b)) if b.0 >= a.0 => (b.0 - a.0) as u64,
        _ => {
            return Err(Missing(format!(
                "its times do not read as a span: {} to {}",
                capture.started_at, capture.ended_at
            )))
        }
    };
    let end = match (capture.exit_code, capture.signal) {
        (Some(0), _) => AttemptEnd {
            reason: EndReason::Finished,
            message: None,
        },
        (Some(code), _) => AttemptEnd {
            reason: EndReason::Error,
            message: Some(format!("the command exited with status {code}")),
        },
        (None, Some(signal)) => AttemptEnd {
            reason: EndReason::Error,
            message: Some(format!("the command was ended by signal {signal}")),
        },
        (None, None) => AttemptEnd {
            reason: EndReason::Error,
            message: Some("the command's exit was not recorded".to_string()),
        },
    };
    Ok(Derived {
        started_at: capture.started_at.clone(),
        duration_ms,
        calls,
        messages,
        end,
    })
}
