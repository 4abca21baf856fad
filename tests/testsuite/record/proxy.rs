//! The recording proxy against the mock provider: each call forwarded
//! unchanged and kept as it crossed, streams passed through as they come,
//! secrets kept out of the capture, and every upstream fault passed on as
//! it happened, never answered for.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use receipts::record::{proxy::Kept, Proxy, Upstreams};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::wire::{self, Api, Exchange, ExchangeEnd};
use serde_json::json;

use super::mock::Mock;
use super::SECRET;

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// What the agent got back: the status, and the body's frames as they came,
/// or the error that ended it.
struct Got {
    status: u16,
    frames: Vec<Bytes>,
    error: Option<String>,
}

impl Got {
    fn body(&self) -> Vec<u8> {
        self.frames.concat()
    }
}

async fn call(client: &HttpClient, url: String, body: serde_json::Value) -> Result<Got, String> {
    let request = Request::post(url)
        .header("authorization", format!("Bearer {SECRET}"))
        .header("x-api-key", SECRET)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request");
    let response = client.request(request).await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut got = Got {
        status,
        frames: Vec::new(),
        error: None,
    };
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => got.frames.extend(frame.into_data().ok()),
            Err(e) => {
                got.error = Some(e.to_string());
                break;
            }
        }
    }
    Ok(got)
}

async fn proxy_to(upstream: &str) -> Proxy {
    Proxy::start(Upstreams::new(Some(upstream)).expect("an upstream"))
        .await
        .expect("the proxy starts")
}

fn only(kept: &Kept) -> &Exchange {
    assert_eq!(kept.exchanges.len(), 1, "{:#?}", kept.exchanges);
    &kept.exchanges[0]
}

/// The response body kept for `e`, as bytes.
fn response_bytes<'k>(kept: &'k Kept, e: &Exchange) -> &'k [u8] {
    let body = e.response.as_ref().expect("a response body");
    let bytes = &kept.objects[&body.sha256];
    assert_eq!(sha256_hex(bytes), body.sha256);
    assert_eq!(bytes.len() as u64, body.bytes);
    bytes
}

#[tokio::test]
async fn each_api_is_forwarded_unchanged_and_kept_as_it_crossed() {
    let mock = Mock::start().await;
    let client = client();
    for (path, stream) in [
        ("/openai/v1/chat/completions", false),
        ("/openai/v1/chat/completions", true),
        ("/openai/v1/responses", false),
        ("/openai/v1/responses", true),
        ("/anthropic/v1/messages", false),
        ("/anthropic/v1/messages", true),
    ] {
        let proxy = proxy_to(&mock.url()).await;
        let body = json!({"model": "mock-model", "stream": stream, "max_tokens": 64,
                          "messages": [{"role": "user", "content": "Say hello"}]});
        let direct_path = path
            .split_once("/v1")
            .map(|(_, rest)| format!("/v1{rest}"))
            .expect("v1");
        let direct = call(
            &client,
            format!("{}{direct_path}", mock.url()),
            body.clone(),
        )
        .await
        .expect("direct");
        let got = call(
            &client,
            format!("http://{}{path}", proxy.addr),
            body.clone(),
        )
        .await
        .expect("through the proxy");
        assert_eq!(got.status, 200);
        assert_eq!(got.error, None);
        // The same bytes as a direct call, but for the ids the mock counts.
        let normalize = |b: Vec<u8>| {
            String::from_utf8(b)
                .expect("utf-8")
                .replace(|c: char| c.is_ascii_digit(), "#")
        };
        assert_eq!(normalize(got.body()), normalize(direct.body()), "{path}");
        let kept = proxy.finish().await;
        let e = only(&kept);
        let api = Api::of("POST", path);
        assert_ne!(api, Api::Other);
        assert_eq!(e.api, api.as_str());
        assert_eq!(e.upstream, mock.url());
        assert_eq!(e.target, direct_path);
        assert_eq!(e.status, Some(200));
        assert_eq!(e.end, ExchangeEnd::Complete);
        assert!(
            e.request_id().is_some_and(|id| id.starts_with("req_mock_")),
            "{e:#?}"
        );
        let first = e.first_byte_ms.expect("a first byte");
        assert!(first <= e.done_ms);
        assert_eq!(kept.objects[&e.request.sha256], body.to_string().as_bytes());
        let bytes = response_bytes(&kept, e);
        assert_eq!(bytes, got.body().as_slice(), "kept as passed on");
        let event_stream = e.content_type().is_some_and(wire::is_event_stream);
        assert_eq!(event_stream, stream);
        let reply = wire::read_reply(api, event_stream, bytes);
        let usage = reply
            .usage
            .expect("usage, from the body or the final event");
        assert_eq!(
            (usage.prompt_tokens, usage.completion_tokens),
            (11, 4),
            "{path}"
        );
        assert_eq!(reply.model.as_deref(), Some("mock-model"));
        assert!(reply.finish_reason.is_some());
    }
}

#[tokio::test]
async fn secrets_reach_the_provider_and_never_the_capture() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let url = format!(
        "http://{}/upstream/v1/chat/completions?api_key={SECRET}&mode=x",
        proxy.addr
    );
    call(&client(), url, json!({"model": "m"}))
        .await
        .expect("a reply");
    let kept = proxy.finish().await;
    let e = only(&kept);
    let received = mock.received.lock().expect("lock").clone();
    let header = |name: &str| {
        received[0]
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("authorization"), Some(format!("Bearer {SECRET}")));
    assert_eq!(header("x-api-key").as_deref(), Some(SECRET));
    let capture = serde_json::to_string(e).expect("json");
    assert!(!capture.contains(SECRET), "{capture}");
    assert!(!capture.contains("sk-live"), "{capture}");
    for name in ["authorization", "x-api-key"] {
        assert!(
            e.request_headers
                .iter()
                .any(|(n, v)| n == name && v == wire::REDACTED),
            "{name} is kept, redacted: {:?}",
            e.request_headers
        );
    }
    assert!(e.target.contains("api_key=[redacted]") && e.target.contains("mode=x"));
    for bytes in kept.objects.values() {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(SECRET), "{text}");
    }
}

#[tokio::test]
async fn a_stream_is_passed_on_before_it_ends() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let request = Request::post(format!("http://{}/openai/v1/chat/completions", proxy.addr))
        .body(Full::new(Bytes::from(
            json!({"model": "hold", "stream": true}).to_string(),
        )))
        .expect("a request");
    let response = client().request(request).await.expect("a response");
    let mut body = response.into_body();
    // The mock holds the rest of its stream until the first event has
    // reached the agent: a proxy that buffered would wait here forever.
    let first = tokio::time::timeout(Duration::from_secs(10), body.frame())
        .await
        .expect("the first event arrives while the stream is held")
        .expect("a frame")
        .expect("data");
    assert!(String::from_utf8_lossy(first.data_ref().expect("data")).contains("Hel"));
    mock.release();
    while let Some(frame) = body.frame().await {
        frame.expect("the rest of the stream");
    }
    let kept = proxy.finish().await;
    assert_eq!(only(&kept).end, ExchangeEnd::Complete);
}

#[tokio::test]
async fn an_upstream_error_is_passed_on_as_it_was_and_a_retry_is_marked() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let url = format!("http://{}/openai/v1/chat/completions", proxy.addr);
    let client = client();
    let failed = call(&client, url.clone(), json!({"model": "fault-500"}))
        .await
        .expect("a reply");
    assert_eq!(failed.status, 500);
    assert!(String::from_utf8_lossy(&failed.body()).contains("server_error"));
    call(&client, url.clone(), json!({"model": "fault-500"}))
        .await
        .expect("a reply");
    call(&client, url, json!({"model": "other"}))
        .await
        .expect("a reply");
    let kept = proxy.finish().await;
    let [first, second, third] = kept.exchanges.as_slice() else {
        panic!("three exchanges: {:#?}", kept.exchanges);
    };
    assert_eq!(
        (first.status, first.end),
        (Some(500), ExchangeEnd::Complete)
    );
    let reply = wire::read_reply(Api::OpenAiChat, false, response_bytes(&kept, first));
    assert_eq!(reply.usage, None, "an error bills nothing");
    assert!(reply
        .error
        .is_some_and(|e| e.contains("processing your request")));
    assert_eq!(first.retry_of, None);
    assert_eq!(second.retry_of, Some(first.seq), "the same request again");
    assert_eq!(third.retry_of, None, "another request");
}

#[tokio::test]
async fn an_unreachable_upstream_closes_the_agents_connection_without_a_response() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port();
    let proxy = proxy_to(&format!("http://127.0.0.1:{port}")).await;
    let got = call(
        &client(),
        format!("http://{}/openai/v1/chat/completions", proxy.addr),
        json!({"model": "m"}),
    )
    .await;
    assert!(got.is_err(), "no response is invented");
    let kept = proxy.finish().await;
    let e = only(&kept);
    assert_eq!(e.end, ExchangeEnd::Unreachable);
    assert_eq!(
        (e.status, &e.response, e.first_byte_ms),
        (None, &None, None)
    );
    assert!(e.error.as_deref().is_some_and(|m| !m.is_empty()));
}

#[tokio::test]
async fn a_stream_cut_upstream_is_cut_for_the_agent_at_the_same_byte() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let got = call(
        &client(),
        format!("http://{}/anthropic/v1/messages", proxy.addr),
        json!({"model": "fault-cut", "stream": true}),
    )
    .await
    .expect("a response head");
    assert_eq!(got.status, 200);
    assert!(got.error.is_some(), "the agent sees the cut");
    let kept = proxy.finish().await;
    let e = only(&kept);
    assert_eq!(e.end, ExchangeEnd::Cut);
    let bytes = response_bytes(&kept, e);
    assert_eq!(bytes, got.body().as_slice(), "what arrived, as it arrived");
    assert!(!bytes.is_empty(), "the events before the cut arrived");
    let reply = wire::read_reply(Api::AnthropicMessages, true, bytes);
    assert_eq!(reply.usage, None, "the final usage never came");
    assert_eq!(
        reply.id.as_deref().map(|id| id.starts_with("reply_")),
        Some(true)
    );
}

#[tokio::test]
async fn a_malformed_body_is_passed_on_and_reports_nothing() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let got = call(
        &client(),
        format!("http://{}/openai/v1/chat/completions", proxy.addr),
        json!({"model": "fault-malformed"}),
    )
    .await
    .expect("a reply");
    assert_eq!(got.body(), b"{\"id\": \"x\", \"usage\": {");
    let kept = proxy.finish().await;
    let e = only(&kept);
    assert_eq!((e.status, e.end), (Some(200), ExchangeEnd::Complete));
    let reply = wire::read_reply(Api::OpenAiChat, false, response_bytes(&kept, e));
    assert_eq!(reply, wire::Reply::default());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_streams_are_each_kept_whole() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let client = client();
    let calls = (0..50).map(|i| {
        let client = client.clone();
        let path = [
            "/openai/v1/chat/completions",
            "/openai/v1/responses",
            "/anthropic/v1/messages",
        ][i % 3];
        let url = format!("http://{}{path}", proxy.addr);
        tokio::spawn(async move {
            call(
                &client,
                url,
                json!({"model": format!("m{i}"), "stream": true}),
            )
            .await
            .expect("a stream")
        })
    });
    let mut bodies = Vec::new();
    for call in calls.collect::<Vec<_>>() {
        let got = call.await.expect("the task");
        assert_eq!((got.status, &got.error), (200, &None));
        bodies.push(got.body());
    }
    let kept = proxy.finish().await;
    assert_eq!(kept.exchanges.len(), 50);
    let seqs: Vec<u32> = kept.exchanges.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (0..50).collect::<Vec<u32>>(),
        "in the order sent, each once"
    );
    let mut models = std::collections::BTreeSet::new();
    for e in &kept.exchanges {
        assert_eq!(e.end, ExchangeEnd::Complete);
        let bytes = response_bytes(&kept, e);
        assert!(
            bodies.iter().any(|b| b == bytes),
            "kept as the agent got it"
        );
        let api = Api::from_name(&e.api).expect("an api");
        let reply = wire::read_reply(api, true, bytes);
        assert!(reply.usage.is_some(), "{e:#?}");
        models.insert(reply.model.expect("a model"));
    }
    assert_eq!(models.len(), 50, "no two streams mixed");
}

#[tokio::test]
async fn a_path_under_no_upstream_is_refused_by_the_proxy_and_not_recorded() {
    let proxy = Proxy::start(Upstreams::new(None).expect("defaults"))
        .await
        .expect("the proxy");
    let got = call(
        &client(),
        format!("http://{}/v1/chat/completions", proxy.addr),
        json!({}),
    )
    .await
    .expect("a reply");
    assert_eq!(got.status, 404);
    assert!(String::from_utf8_lossy(&got.body()).contains("/openai"));
    assert!(proxy.finish().await.exchanges.is_empty());
}

#[tokio::test]
async fn an_agent_leaving_a_held_stream_ends_its_relay_at_once() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    let request = Request::post(format!("http://{}/openai/v1/chat/completions", proxy.addr))
        .body(Full::new(Bytes::from(
            json!({"model": "hold", "stream": true}).to_string(),
        )))
        .expect("a request");
    let response = client().request(request).await.expect("a response");
    let mut body = response.into_body();
    let first = body
        .frame()
        .await
        .expect("a frame")
        .expect("data")
        .into_data()
        .expect("data");
    // The agent leaves while the upstream holds the rest of its stream
    // back (it is never released): the relay must not wait for it.
    drop(body);
    let kept = tokio::time::timeout(
        Duration::from_secs(5),
        proxy.finish_within(Duration::from_secs(600)),
    )
    .await
    .expect("the exchange ends when the agent leaves");
    let e = only(&kept);
    assert_eq!(e.end, ExchangeEnd::ClientGone);
    assert_eq!(e.status, Some(200));
    assert_eq!(
        response_bytes(&kept, e),
        &first[..],
        "kept as far as it was relayed"
    );
}

#[tokio::test]
async fn an_exchange_still_waiting_when_the_command_is_done_is_kept_as_it_stood() {
    let mock = Mock::start().await;
    let proxy = proxy_to(&mock.url()).await;
    // The upstream never answers, and this agent never gives up.
    let url = format!("http://{}/openai/v1/chat/completions", proxy.addr);
    let waiting = tokio::spawn(async move {
        call(&client(), url, json!({"model": "stall", "messages": []})).await
    });
    while mock.received.lock().expect("lock").is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = std::time::Instant::now();
    let kept = proxy.finish_within(Duration::from_millis(300)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "finished after its grace: {:?}",
        started.elapsed()
    );
    let e = only(&kept);
    assert_eq!(e.end, ExchangeEnd::ClientGone);
    assert_eq!((e.status, e.response.as_ref()), (None, None));
    assert!(
        e.error
            .as_deref()
            .is_some_and(|m| m.contains("still under way")),
        "{:?}",
        e.error
    );
    assert!(
        kept.objects.contains_key(&e.request.sha256),
        "its request is kept"
    );
    waiting.abort();
}
