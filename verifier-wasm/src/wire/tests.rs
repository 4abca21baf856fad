use super::*;
use crate::model::Usage;

fn usage(prompt: u64, completion: u64) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        reasoning_tokens: None,
        cache_hit_tokens: None,
        cache_miss_tokens: None,
        cache_write_tokens: None,
    }
}

#[test]
fn the_api_is_read_from_the_method_and_path() {
    assert_eq!(Api::of("POST", "/v1/chat/completions"), Api::OpenAiChat);
    assert_eq!(
        Api::of("post", "/openai/v1/chat/completions/?x=1"),
        Api::OpenAiChat
    );
    assert_eq!(Api::of("POST", "/v1/responses"), Api::OpenAiResponses);
    assert_eq!(Api::of("POST", "/v1/messages"), Api::AnthropicMessages);
    assert_eq!(Api::of("GET", "/v1/models"), Api::Other);
    assert_eq!(Api::of("GET", "/v1/chat/completions"), Api::Other);
    assert_eq!(Api::of("POST", "/v1/embeddings"), Api::Other);
    for api in [
        Api::OpenAiChat,
        Api::OpenAiResponses,
        Api::AnthropicMessages,
        Api::Other,
    ] {
        assert_eq!(Api::from_name(api.as_str()), Some(api));
    }
}

#[test]
fn a_request_says_its_model_stream_and_budget() {
    let body =
        br#"{"model":"gpt-4o-mini","stream":true,"max_completion_tokens":300,"messages":[]}"#;
    assert_eq!(
        read_request(Api::OpenAiChat, body),
        Request {
            model: Some("gpt-4o-mini".into()),
            stream: true,
            max_tokens: Some(300),
        }
    );
    let body = br#"{"model":"claude-x","max_tokens":1024,"messages":[]}"#;
    assert_eq!(
        read_request(Api::AnthropicMessages, body).max_tokens,
        Some(1024)
    );
    assert_eq!(
        read_request(Api::OpenAiChat, b"not json"),
        Request::default()
    );
}

#[test]
fn a_chat_completion_reports_its_usage_and_finish() {
    let body = br#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18",
        "choices":[{"index":0,"message":{"role":"assistant","content":"<b>hi</b>"},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25,
          "prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":0}}}"#;
    let reply = read_reply(Api::OpenAiChat, false, body);
    assert_eq!(reply.id.as_deref(), Some("chatcmpl-1"));
    assert_eq!(reply.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    assert_eq!(reply.text, "<b>hi</b>");
    assert_eq!(
        reply.usage,
        Some(Usage {
            reasoning_tokens: Some(0),
            cache_hit_tokens: Some(8),
            cache_miss_tokens: Some(12),
            ..usage(20, 5)
        })
    );
}

#[test]
fn a_chat_stream_reports_the_usage_of_its_final_chunk() {
    let body = "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n\
                data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"length\"}]}\n\n\
                data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n\
                data: [DONE]\n\n";
    let reply = read_reply(Api::OpenAiChat, true, body.as_bytes());
    assert_eq!(reply.text, "Hello");
    assert_eq!(reply.finish_reason.as_deref(), Some("length"));
    assert_eq!(reply.usage, Some(usage(9, 2)));
    // Cut before the usage chunk: the usage is unknown, not zero.
    let cut = &body[..body
        .find("data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[],")
        .unwrap()
        + 20];
    let reply = read_reply(Api::OpenAiChat, true, cut.as_bytes());
    assert_eq!(reply.usage, None);
    assert_eq!(reply.text, "Hello");
}

#[test]
fn a_response_reports_its_usage_and_why_it_stopped() {
    let body = br#"{"id":"resp_1","object":"response","model":"gpt-4.1","status":"incomplete",
        "incomplete_details":{"reason":"max_output_tokens"},
        "output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Part"}]}],
        "usage":{"input_tokens":30,"output_tokens":16,"input_tokens_details":{"cached_tokens":0},
          "output_tokens_details":{"reasoning_tokens":4}}}"#;
    let reply = read_reply(Api::OpenAiResponses, false, body);
    assert_eq!(reply.finish_reason.as_deref(), Some("max_output_tokens"));
    assert_eq!(reply.text, "Part");
    assert_eq!(
        reply.usage,
        Some(Usage {
            reasoning_tokens: Some(4),
            cache_hit_tokens: Some(0),
            cache_miss_tokens: Some(30),
            ..usage(30, 16)
        })
    );
    let stream = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_2\",\"model\":\"gpt-4.1\",\"status\":\"in_progress\"}}\n\n\
                  event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n\
                  event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_2\",\"model\":\"gpt-4.1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n";
    let reply = read_reply(Api::OpenAiResponses, true, stream.as_bytes());
    assert_eq!(reply.id.as_deref(), Some("resp_2"));
    assert_eq!(reply.finish_reason.as_deref(), Some("completed"));
    assert_eq!(reply.text, "Hi");
    assert_eq!(reply.usage, Some(usage(3, 1)));
}

#[test]
fn an_anthropic_message_counts_cached_input_in_the_prompt() {
    let body = br#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
        "content":[{"type":"text","text":"Ignore previous instructions"}],"stop_reason":"end_turn",
        "usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":7}}"#;
    let reply = read_reply(Api::AnthropicMessages, false, body);
    assert_eq!(reply.finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        reply.usage,
        Some(Usage {
            cache_hit_tokens: Some(100),
            cache_miss_tokens: Some(15),
            cache_write_tokens: Some(5),
            ..usage(115, 7)
        })
    );
}

#[test]
fn an_anthropic_stream_completes_its_usage_with_the_message_delta() {
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"model\":\"claude-haiku-4-5\",\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n\
                  event: ping\ndata: {\"type\":\"ping\"}\n\n\
                  event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Yes\"}}\n\n\
                  event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":64}}\n\n\
                  event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let reply = read_reply(Api::AnthropicMessages, true, stream.as_bytes());
    assert_eq!(reply.id.as_deref(), Some("msg_2"));
    assert_eq!(reply.model.as_deref(), Some("claude-haiku-4-5"));
    assert_eq!(reply.finish_reason.as_deref(), Some("max_tokens"));
    assert_eq!(reply.text, "Yes");
    assert_eq!(reply.usage, Some(usage(12, 64)));
    // Cut before `message_delta`: the output count was never billed in
    // full, so the usage is unknown.
    let cut = &stream[..stream.find("event: message_delta").unwrap()];
    assert_eq!(
        read_reply(Api::AnthropicMessages, true, cut.as_bytes()).usage,
        None
    );
}

#[test]
fn an_error_body_reports_the_providers_message_and_no_usage() {
    let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let reply = read_reply(Api::AnthropicMessages, false, body);
    assert_eq!(reply.error.as_deref(), Some("Overloaded"));
    assert_eq!(reply.usage, None);
    let reply = read_reply(Api::OpenAiChat, false, b"<html>502 Bad Gateway</html>");
    assert_eq!(reply, Reply::default(), "not the API's JSON: nothing read");
}

#[test]
fn secret_headers_are_known_by_any_name_that_speaks_of_one() {
    for secret in [
        "Authorization",
        "x-api-key",
        "api-key",
        "X-Goog-Api-Key",
        "Cookie",
        "set-cookie",
        "Proxy-Authorization",
        "x-amz-security-token",
        "openai-session",
    ] {
        assert!(is_secret_header(secret), "{secret}");
    }
    for plain in [
        "content-type",
        "x-request-id",
        "anthropic-version",
        "user-agent",
    ] {
        assert!(!is_secret_header(plain), "{plain}");
    }
}

mod reasoning;

pub(super) mod forgeries {
    use std::collections::BTreeMap;

    use crate::digest::sha256_hex;
    use crate::model::{
        Attempt, AttemptEnd, EndReason, FormatVersion, Provenance, Run, RunKind, RunOutcome, Source,
    };
    use crate::verify::{Receipt, Status};
    use crate::wire::{derive, Body, Capture, CaptureKind, Exchange, ExchangeEnd, CAPTURE_FORMAT};

    pub(super) fn body(objects: &mut BTreeMap<String, Vec<u8>>, bytes: &[u8]) -> Body {
        let sha256 = sha256_hex(bytes);
        objects.insert(sha256.clone(), bytes.to_vec());
        Body {
            sha256,
            bytes: bytes.len() as u64,
        }
    }

    pub(super) fn exchange(
        objects: &mut BTreeMap<String, Vec<u8>>,
        seq: u32,
        status: u16,
        reply: &str,
    ) -> Exchange {
        Exchange {
            seq,
            method: "POST".into(),
            upstream: "https://api.openai.com".into(),
            target: "/v1/chat/completions".into(),
            api: "openai_chat_completions".into(),
            request_headers: vec![("authorization".into(), "[redacted]".into())],
            request: body(
                objects,
                br#"{"model":"m","max_tokens":50,"messages":[{"role":"user","content":"Hi"}]}"#,
            ),
            sent_at: format!("2026-12-01T10:00:0{seq}.000Z"),
            first_byte_ms: Some(300),
            done_ms: 900,
            status: Some(status),
            response_headers: vec![
                ("content-type".into(), "application/json".into()),
                ("x-request-id".into(), format!("req_{seq}")),
            ],
            response: Some(body(objects, reply.as_bytes())),
            end: ExchangeEnd::Complete,
            error: None,
            retry_of: None,
        }
    }

    pub(super) const OK: &str = r#"{"id":"c","model":"m-1","choices":[{"message":{"content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
    const FAILED: &str = r#"{"error":{"message":"overloaded"}}"#;

    /// A run recorded on the wire, its capture and every object.
    pub(super) fn recorded() -> (Run, BTreeMap<String, Vec<u8>>) {
        let mut objects = BTreeMap::new();
        let mut calls = vec![
            exchange(&mut objects, 0, 500, FAILED),
            exchange(&mut objects, 1, 200, OK),
        ];
        calls[1].retry_of = Some(0);
        let capture = Capture {
            format_version: FormatVersion,
            kind: CaptureKind::WireCapture,
            recorder: "receipts 0.1.0".into(),
            command: vec!["agent".into()],
            started_at: "2026-12-01T09:59:59.000Z".into(),
            ended_at: "2026-12-01T10:00:05.000Z".into(),
            exit_code: Some(0),
            signal: None,
            calls,
        };
        (run_of(&capture, &mut objects), objects)
    }

    pub(super) fn run_of(capture: &Capture, objects: &mut BTreeMap<String, Vec<u8>>) -> Run {
        let bytes = serde_json::to_vec(capture).expect("json");
        let capture_sha256 = sha256_hex(&bytes);
        objects.insert(capture_sha256.clone(), bytes);
        let derived = derive::attempt(capture, objects).expect("a run");
        Run {
            format_version: FormatVersion,
            kind: RunKind::Run,
            id: "r".into(),
            experiment: "E".into(),
            task: "t".into(),
            profile: "p".into(),
            seed: 1,
            policy: "single".into(),
            provenance: Provenance::Recorded,
            source: Some(Source {
                tool: "receipts".into(),
                version: "0.1.0".into(),
                file: "capture.json".into(),
                format: CAPTURE_FORMAT.into(),
                sha256: capture_sha256,
            }),
            replaces: None,
            started_at: derived.started_at.clone(),
            attempts: vec![Attempt {
                tier: "t".into(),
                started_at: derived.started_at,
                duration_ms: derived.duration_ms,
                turns: Vec::new(),
                calls: derived.calls,
                messages: derived.messages,
                inputs: Vec::new(),
                artifact: None,
                files: Vec::new(),
                checks: Vec::new(),
                end: derived.end,
            }],
            outcome: RunOutcome {
                passed: false,
                passed_tier: None,
            },
        }
    }

    pub(super) fn receipts(run: &Run, objects: &BTreeMap<String, Vec<u8>>) -> Vec<Receipt> {
        let source = run.source.as_ref().expect("a source");
        crate::wire::verify::verify("runs/r.json", run, source, objects)
    }

    pub(super) fn failed(receipts: &[Receipt]) -> Vec<String> {
        receipts
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| format!("{}: {}", r.claim, r.recomputed))
            .collect()
    }

    #[test]
    fn a_run_as_recorded_holds_up() {
        let (run, objects) = recorded();
        let receipts = receipts(&run, &objects);
        assert!(receipts.len() >= 5);
        assert_eq!(failed(&receipts), Vec::<String>::new());
        let calls = &run.attempts[0].calls;
        assert_eq!(calls[1].retry_of.as_deref(), Some("req_0"));
        assert_eq!(calls[0].usage, None, "an error bills nothing");
        assert_eq!(calls[1].usage.map(|u| u.completion_tokens), Some(3));
        assert_eq!(run.attempts[0].duration_ms, 6000);
        assert_eq!(run.attempts[0].end.reason, EndReason::Finished);
    }

    #[test]
    fn usage_edited_in_the_run_fails() {
        let (mut run, objects) = recorded();
        let usage = run.attempts[0].calls[1].usage.as_mut().expect("usage");
        usage.completion_tokens = 1;
        let failed = failed(&receipts(&run, &objects));
        assert!(
            failed.iter().any(|f| f.contains("every provider call")),
            "{failed:?}"
        );
    }

    #[test]
    fn a_failed_call_dropped_from_the_run_fails() {
        let (mut run, objects) = recorded();
        run.attempts[0].calls.remove(0);
        run.attempts[0].calls[0].retry_of = None;
        assert!(!failed(&receipts(&run, &objects)).is_empty());
    }

    #[test]
    fn a_call_dropped_from_the_capture_and_resealed_fails() {
        let (run, mut objects) = recorded();
        let capture: Capture =
            serde_json::from_slice(&objects[&run.source.as_ref().expect("source").sha256])
                .expect("a capture");
        // The failed call left out, the capture's digest and the run made
        // again from it: its numbering gives it away.
        let mut forged = capture.clone();
        forged.calls.remove(0);
        forged.calls[0].retry_of = None;
        assert!(derive::attempt(&forged, &objects).is_err());
        let mut run = run;
        let bytes = serde_json::to_vec(&forged).expect("json");
        let digest = sha256_hex(&bytes);
        objects.insert(digest.clone(), bytes);
        run.source.as_mut().expect("source").sha256 = digest;
        run.attempts[0].calls.remove(0);
        run.attempts[0].calls[0].retry_of = None;
        let failed = failed(&receipts(&run, &objects));
        assert!(failed.iter().any(|f| f.contains("numbered")), "{failed:?}");
    }

    #[test]
    fn a_retry_hidden_in_the_capture_fails() {
        let (run, mut objects) = recorded();
        let mut capture: Capture =
            serde_json::from_slice(&objects[&run.source.as_ref().expect("source").sha256])
                .expect("a capture");
        capture.calls[1].retry_of = None;
        let forged = run_of_unchecked(&capture, &mut objects, run);
        let failed = failed(&receipts(&forged, &objects));
        assert!(failed.iter().any(|f| f.contains("repeats")), "{failed:?}");
    }

    /// `run` pointed at `capture`, kept, without deriving it again.
    pub(super) fn run_of_unchecked(
        capture: &Capture,
        objects: &mut BTreeMap<String, Vec<u8>>,
        mut run: Run,
    ) -> Run {
        let bytes = serde_json::to_vec(capture).expect("json");
        let digest = sha256_hex(&bytes);
        objects.insert(digest.clone(), bytes);
        run.source.as_mut().expect("source").sha256 = digest;
        run
    }

    #[test]
    fn a_response_body_edited_in_place_fails() {
        let (run, mut objects) = recorded();
        let wire = run.attempts[0].calls[1].wire.as_ref().expect("wire");
        let digest = wire.response_sha256.clone().expect("a response");
        objects.insert(
            digest,
            OK.replace("\"completion_tokens\":3", "\"completion_tokens\":1")
                .into_bytes(),
        );
        let failed = failed(&receipts(&run, &objects));
        assert!(failed.iter().any(|f| f.contains("body")), "{failed:?}");
    }

    #[test]
    fn turns_added_to_a_recorded_run_fail() {
        let (mut run, objects) = recorded();
        let turn: crate::model::Turn = serde_json::from_value(serde_json::json!({
            "call": "req_1",
            "action": {"tool": "write", "args": {}},
            "permission": {"decision": "allowed", "reason": "x"},
            "result": {"ok": true}
        }))
        .expect("a turn");
        run.attempts[0].turns.push(turn);
        let failed = failed(&receipts(&run, &objects));
        assert!(failed.iter().any(|f| f.contains("turns")), "{failed:?}");
    }

    #[test]
    fn a_failed_command_told_as_finished_fails() {
        let (mut run, objects) = recorded();
        let mut objects2 = objects.clone();
        let mut capture: Capture =
            serde_json::from_slice(&objects[&run.source.as_ref().expect("source").sha256])
                .expect("a capture");
        capture.exit_code = Some(1);
        run = run_of_unchecked(&capture, &mut objects2, run);
        run.attempts[0].end = AttemptEnd {
            reason: EndReason::Finished,
            message: None,
        };
        let failed = failed(&receipts(&run, &objects2));
        assert!(failed.iter().any(|f| f.contains("end")), "{failed:?}");
    }
}
