//! A mock model provider on 127.0.0.1, OpenAI- and Anthropic-compatible:
//! Chat Completions, Responses and Messages, streaming or not, each reply
//! with a request id header and usage. The requested model picks a fault:
//! `fault-500` answers 500, `fault-cut` cuts its stream after two events,
//! `fault-malformed` answers 200 with a body that is not JSON, `stall`
//! never answers, and `hold` streams one event and waits for
//! [`Mock::release`] before the rest. A request with the header
//! `x-mock-answer-as: ID` is answered as model `ID`, as a provider answers
//! an alias as its dated snapshot.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::sync::Notify;

type Frames = Vec<Result<Frame<Bytes>, std::io::Error>>;

/// What the mock received: each request's headers.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: Vec<(String, String)>,
}

pub struct Mock {
    pub addr: SocketAddr,
    pub received: Arc<Mutex<Vec<Received>>>,
    release: Arc<Notify>,
}

impl Mock {
    /// A mock that takes 20 ms to answer: no faster than a provider could.
    pub async fn start() -> Mock {
        Mock::start_with_delay(Duration::from_millis(20)).await
    }

    /// A mock that takes `delay` to answer each request.
    pub async fn start_with_delay(delay: Duration) -> Mock {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let received = Arc::new(Mutex::new(Vec::new()));
        let release = Arc::new(Notify::new());
        let counter = Arc::new(AtomicU32::new(0));
        let (r, n, c) = (received.clone(), release.clone(), counter);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let (r, n, c) = (r.clone(), n.clone(), c.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let (r, n, c) = (r.clone(), n.clone(), c.clone());
                        async move { Ok::<_, Infallible>(answer(req, r, n, c, delay).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Mock {
            addr,
            received,
            release,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Lets every `hold` stream finish.
    pub fn release(&self) {
        self.release.notify_waiters();
    }
}

fn sse(events: &[(Option<&str>, Value)]) -> Vec<Bytes> {
    events
        .iter()
        .map(|(event, data)| {
            let mut text = String::new();
            if let Some(event) = event {
                text.push_str(&format!("event: {event}\n"));
            }
            text.push_str(&format!("data: {data}\n\n"));
            Bytes::from(text)
        })
        .collect()
}

/// The events of a streamed reply of `api` saying `text`, usage last.
fn stream_events(path: &str, model: &str, id: &str) -> Vec<Bytes> {
    if path.ends_with("/chat/completions") {
        let mut events = sse(&[
            (
                None,
                json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": null}]}),
            ),
            (
                None,
                json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [{"index": 0, "delta": {"content": "lo <script>alert(1)</script>"}, "finish_reason": null}]}),
            ),
            (
                None,
                json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            ),
            (
                None,
                json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}}),
            ),
        ]);
        events.push(Bytes::from("data: [DONE]\n\n"));
        events
    } else if path.ends_with("/responses") {
        sse(&[
            (
                Some("response.created"),
                json!({"type": "response.created", "response": {"id": id, "model": model, "status": "in_progress"}}),
            ),
            (
                Some("response.output_text.delta"),
                json!({"type": "response.output_text.delta", "delta": "Hel"}),
            ),
            (
                Some("response.output_text.delta"),
                json!({"type": "response.output_text.delta", "delta": "lo"}),
            ),
            (
                Some("response.completed"),
                json!({"type": "response.completed", "response": {"id": id, "model": model, "status": "completed", "output": [], "usage": {"input_tokens": 11, "output_tokens": 4}}}),
            ),
        ])
    } else {
        sse(&[
            (
                Some("message_start"),
                json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [], "usage": {"input_tokens": 11, "output_tokens": 1}}}),
            ),
            (
                Some("content_block_start"),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            (
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
            ),
            (
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}}),
            ),
            (
                Some("content_block_stop"),
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                Some("message_delta"),
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
            ),
            (Some("message_stop"), json!({"type": "message_stop"})),
        ])
    }
}

/// The whole reply of `api` saying `text`.
fn whole_reply(path: &str, model: &str, id: &str) -> Value {
    if path.ends_with("/chat/completions") {
        json!({"id": id, "object": "chat.completion", "model": model,
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello <script>alert(1)</script>"}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}})
    } else if path.ends_with("/responses") {
        json!({"id": id, "object": "response", "model": model, "status": "completed",
               "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello"}]}],
               "usage": {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}})
    } else {
        json!({"id": id, "type": "message", "role": "assistant", "model": model,
               "content": [{"type": "text", "text": "Hello"}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 11, "output_tokens": 4}})
    }
}

type Events = tokio_stream::wrappers::ReceiverStream<Result<Frame<Bytes>, std::io::Error>>;
type Reply = Response<http_body_util::Either<Full<Bytes>, StreamBody<Events>>>;

async fn answer(
    req: Request<Incoming>,
    received: Arc<Mutex<Vec<Received>>>,
    release: Arc<Notify>,
    counter: Arc<AtomicU32>,
    delay: Duration,
) -> Reply {
    let path = req.uri().path().to_string();
    received.lock().expect("lock").push(Received {
        headers: req
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
    });
    // As the sources' provider answers a reasoning tier: the reasoning in
    // `reasoning_content`, the cache counters beside the usage.
    let reasoning = req.headers().contains_key("x-mock-reasoning");
    let answer_as = req
        .headers()
        .get("x-mock-answer-as")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = req.into_body().collect().await.expect("a body").to_bytes();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let model = request["model"].as_str().unwrap_or("mock").to_string();
    let answered = answer_as.unwrap_or_else(|| model.clone());
    let stream = request["stream"].as_bool() == Some(true);
    let n = counter.fetch_add(1, Ordering::SeqCst);
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let anthropic = path.ends_with("/messages");
    let id_header = if anthropic {
        "request-id"
    } else {
        "x-request-id"
    };
    let request_id = format!("req_mock_{n:04}");
    let reply_id = format!("reply_{n:04}");
    let builder = Response::builder().header(id_header, &request_id);
    let full = |status: u16, content_type: &str, body: Vec<u8>| -> Reply {
        Response::builder()
            .status(status)
            .header(id_header, &request_id)
            .header("content-type", content_type)
            .body(http_body_util::Either::Left(Full::new(Bytes::from(body))))
            .expect("a response")
    };
    match model.as_str() {
        "stall" => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        "fault-500" => {
            return full(
                500,
                "application/json",
                br#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#.to_vec(),
            )
        }
        "fault-malformed" => return full(200, "application/json", b"{\"id\": \"x\", \"usage\": {".to_vec()),
        _ => {}
    }
    if !stream {
        let mut reply = whole_reply(&path, &answered, &reply_id);
        if reasoning && path.ends_with("/chat/completions") {
            reply["choices"][0]["message"]["reasoning_content"] =
                json!("<img src=x onerror=alert(1)> The user wants a brief.");
            reply["usage"]["prompt_cache_hit_tokens"] = json!(8);
            reply["usage"]["prompt_cache_miss_tokens"] = json!(3);
        }
        return full(
            200,
            "application/json",
            serde_json::to_vec(&reply).expect("json"),
        );
    }
    let events = stream_events(&path, &answered, &reply_id);
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let hold = model == "hold";
    let cut = model == "fault-cut";
    tokio::spawn(async move {
        let mut frames: Frames = Vec::new();
        for (i, event) in events.into_iter().enumerate() {
            if cut && i == 2 {
                frames.push(Err(std::io::Error::other("connection reset by the mock")));
                break;
            }
            frames.push(Ok(Frame::data(event)));
        }
        for (i, frame) in frames.into_iter().enumerate() {
            if hold && i == 1 {
                release.notified().await;
            }
            if frame.is_err() {
                // What was sent reaches the wire before the cut.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            if tx.send(frame).await.is_err() {
                return;
            }
        }
    });
    builder
        .header("content-type", "text/event-stream")
        .body(http_body_util::Either::Right(StreamBody::new(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
        .expect("a response")
}
