//! Reasoning text and cache counters as OpenAI-compatible servers, the
//! Responses API and Anthropic return them: read from the reply, kept in
//! the transcript, and held to the capture.

use std::collections::BTreeMap;

use super::forgeries::{exchange, failed, receipts, run_of};
use super::usage;
use crate::model::Usage;
use crate::wire::{read_reply, Api, Capture, CaptureKind};

#[test]
fn a_chat_completion_keeps_its_reasoning_in_either_field_and_its_cache_counters() {
    // The sources' provider: `reasoning_content`, and DeepSeek-style cache
    // counters beside `prompt_tokens_details`, which they win over.
    let body = br#"{"id":"c","model":"m","choices":[{"message":{"role":"assistant","content":"42",
        "reasoning_content":"<b>six</b> times seven"},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":924,"completion_tokens":30,"prompt_cache_hit_tokens":768,
          "prompt_cache_miss_tokens":156,"prompt_tokens_details":{"cached_tokens":0}}}"#;
    let reply = read_reply(Api::OpenAiChat, false, body);
    assert_eq!(reply.text, "42");
    assert_eq!(reply.reasoning, "<b>six</b> times seven");
    assert_eq!(
        reply.usage,
        Some(Usage {
            cache_hit_tokens: Some(768),
            cache_miss_tokens: Some(156),
            ..usage(924, 30)
        })
    );
    // `reasoning` alone; both with one text; both with two.
    let with = |fields: &str| {
        let body = format!(
            r#"{{"choices":[{{"message":{{"content":"x",{fields}}}}}],"usage":{{"prompt_tokens":5,"completion_tokens":1,"prompt_cache_miss_tokens":5}}}}"#
        );
        read_reply(Api::OpenAiChat, false, body.as_bytes())
    };
    assert_eq!(with(r#""reasoning":"a""#).reasoning, "a");
    assert_eq!(
        with(r#""reasoning":"a","reasoning_content":"a""#).reasoning,
        "a"
    );
    assert_eq!(
        with(r#""reasoning":"b","reasoning_content":"a""#).reasoning,
        "a\n\nb"
    );
    // Only the misses reported: the rest of the prompt hit.
    let u = with(r#""reasoning":null"#).usage.expect("usage");
    assert_eq!(
        (u.cache_hit_tokens, u.cache_miss_tokens),
        (Some(0), Some(5))
    );
    assert_eq!(with(r#""reasoning":null"#).reasoning, "");
}

#[test]
fn a_chat_stream_joins_its_reasoning_deltas() {
    let chunk = |delta: &str| {
        format!("data: {{\"id\":\"c\",\"model\":\"m\",\"choices\":[{{\"delta\":{delta},\"finish_reason\":null}}]}}\n\n")
    };
    let body = [
        chunk(r#"{"reasoning_content":"Think","reasoning":"Think"}"#),
        chunk(r#"{"reasoning_content":"ing.","reasoning":"ing."}"#),
        chunk(r#"{"content":"Done"}"#),
        "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4,\"prompt_cache_hit_tokens\":0,\"prompt_cache_miss_tokens\":9}}\n\n".to_string(),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let reply = read_reply(Api::OpenAiChat, true, body.as_bytes());
    assert_eq!(reply.text, "Done");
    assert_eq!(
        reply.reasoning, "Thinking.",
        "the same text in both fields, once"
    );
    let u = reply.usage.expect("usage");
    assert_eq!(
        (u.cache_hit_tokens, u.cache_miss_tokens),
        (Some(0), Some(9))
    );
}

#[test]
fn responses_summaries_and_anthropic_thinking_are_reasoning_not_text() {
    let body = br#"{"id":"r","model":"o4-mini","status":"completed","output":[
        {"type":"reasoning","summary":[{"type":"summary_text","text":"First."},{"type":"summary_text","text":"Second."}]},
        {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Answer"}]}],
        "usage":{"input_tokens":3,"output_tokens":9}}"#;
    let reply = read_reply(Api::OpenAiResponses, false, body);
    assert_eq!(reply.text, "Answer");
    assert_eq!(reply.reasoning, "First.\n\nSecond.");
    let stream = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"model\":\"o4-mini\"}}\n\n\
                  event: response.reasoning_summary_part.added\ndata: {\"type\":\"response.reasoning_summary_part.added\"}\n\n\
                  event: response.reasoning_summary_text.delta\ndata: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"First.\"}\n\n\
                  event: response.reasoning_summary_part.added\ndata: {\"type\":\"response.reasoning_summary_part.added\"}\n\n\
                  event: response.reasoning_summary_text.delta\ndata: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"Second.\"}\n\n\
                  event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Answer\"}\n\n";
    let reply = read_reply(Api::OpenAiResponses, true, stream.as_bytes());
    assert_eq!(
        (reply.text.as_str(), reply.reasoning.as_str()),
        ("Answer", "First.\n\nSecond.")
    );

    let body = br#"{"id":"msg","type":"message","model":"claude-x","stop_reason":"end_turn",
        "content":[{"type":"thinking","thinking":"Hmm.","signature":"sig"},{"type":"text","text":"Yes"}],
        "usage":{"input_tokens":4,"output_tokens":6}}"#;
    let reply = read_reply(Api::AnthropicMessages, false, body);
    assert_eq!(
        (reply.text.as_str(), reply.reasoning.as_str()),
        ("Yes", "Hmm.")
    );
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"model\":\"claude-x\",\"usage\":{\"input_tokens\":4,\"output_tokens\":1}}}\n\n\
                  event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Hmm.\"}}\n\n\
                  event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Yes\"}}\n\n";
    let reply = read_reply(Api::AnthropicMessages, true, stream.as_bytes());
    assert_eq!(
        (reply.text.as_str(), reply.reasoning.as_str()),
        ("Yes", "Hmm.")
    );
}

/// A run recorded on the wire whose one call answered with reasoning and
/// cache counters, the request carrying an earlier answer's reasoning.
fn reasoned() -> (crate::model::Run, BTreeMap<String, Vec<u8>>) {
    let mut objects = BTreeMap::new();
    let reply = r#"{"id":"c","model":"m","choices":[{"message":{"content":"Hello","reasoning_content":"<script>alert(1)</script> greet"},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":8}}"#;
    let mut call = exchange(&mut objects, 0, 200, reply);
    let request = br#"{"model":"m","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hey","reasoning":"said hey"},{"role":"user","content":"Again"}]}"#;
    let sha256 = crate::digest::sha256_hex(request);
    objects.insert(sha256.clone(), request.to_vec());
    call.request = crate::wire::Body {
        sha256,
        bytes: request.len() as u64,
    };
    let capture = Capture {
        format_version: crate::model::FormatVersion,
        kind: CaptureKind::WireCapture,
        recorder: "receipts 0.1.0".into(),
        command: vec!["agent".into()],
        started_at: "2026-12-01T09:59:59.000Z".into(),
        ended_at: "2026-12-01T10:00:05.000Z".into(),
        exit_code: Some(0),
        signal: None,
        calls: vec![call],
    };
    (run_of(&capture, &mut objects), objects)
}

#[test]
fn the_transcript_keeps_the_reasoning_of_the_reply_and_of_earlier_answers() {
    let (run, objects) = reasoned();
    assert_eq!(failed(&receipts(&run, &objects)), Vec::<String>::new());
    let messages = &run.attempts[0].messages;
    let reasoning: Vec<Option<&str>> = messages.iter().map(|m| m.reasoning.as_deref()).collect();
    assert_eq!(
        reasoning,
        [
            None,
            Some("said hey"),
            None,
            Some("<script>alert(1)</script> greet")
        ]
    );
    let usage = run.attempts[0].calls[0].usage.expect("usage");
    assert_eq!(
        (usage.cache_hit_tokens, usage.cache_miss_tokens),
        (Some(4), Some(8))
    );
}

#[test]
fn reasoning_rewritten_or_dropped_in_the_run_fails_against_the_capture() {
    for forge in [
        |m: &mut crate::model::Message| m.reasoning = Some("nothing to see".into()),
        |m: &mut crate::model::Message| m.reasoning = None,
    ] {
        let (mut run, objects) = reasoned();
        forge(run.attempts[0].messages.last_mut().expect("the reply"));
        let failed = failed(&receipts(&run, &objects));
        assert!(
            failed.iter().any(|f| f.contains("transcript")),
            "{failed:?}"
        );
    }
}

#[test]
fn cache_hits_inflated_in_the_run_fail_against_the_capture() {
    // More cache hits make input look cheaper than it was billed.
    let (mut run, objects) = reasoned();
    let usage = run.attempts[0].calls[0].usage.as_mut().expect("usage");
    usage.cache_hit_tokens = Some(12);
    usage.cache_miss_tokens = Some(0);
    let failed = failed(&receipts(&run, &objects));
    assert!(
        failed.iter().any(|f| f.contains("every provider call")),
        "{failed:?}"
    );
}
