//! `receipts record` around a command: its exit or signal recorded, and an
//! agent on the official SDKs made a run whose page is built and verified.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use receipts::record::Upstreams;
use receipts_verifier::wire::{derive, Api};
use serde_json::json;

use super::common;
use super::mock::Mock;
use super::SECRET;

/// Whether curl, which the shell agents call with, is installed.
fn has_curl() -> bool {
    let found = std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        eprintln!("skipped: curl is not installed");
    }
    found
}

#[tokio::test]
async fn a_command_is_recorded_with_its_exit_status() {
    if !has_curl() {
        return;
    }
    let mock = Mock::start().await;
    // The key reaches the command through its environment, which is not kept.
    std::env::set_var("RECORD_TEST_KEY", SECRET);
    let script = r#"curl -sS -H "Authorization: Bearer $RECORD_TEST_KEY" -H 'content-type: application/json' \
        -d '{"model":"mock-model","messages":[]}' "$OPENAI_BASE_URL/chat/completions" >/dev/null \
      && curl -sS -d '{"model":"claude","max_tokens":9,"messages":[]}' "$ANTHROPIC_BASE_URL/v1/messages" >/dev/null; exit 3"#.to_string();
    let recording = receipts::record::record_command(
        &["sh".into(), "-c".into(), script],
        Upstreams::new(Some(&mock.url())).expect("an upstream"),
    )
    .await
    .expect("recorded");
    let capture = &recording.capture;
    assert_eq!(capture.exit_code, Some(3));
    assert_eq!(capture.calls.len(), 2);
    assert_eq!(capture.calls[0].api, Api::OpenAiChat.as_str());
    assert_eq!(capture.calls[1].api, Api::AnthropicMessages.as_str());
    assert!(!serde_json::to_string(capture)
        .expect("json")
        .contains(SECRET));
    for call in &capture.calls {
        assert!(recording.objects.contains_key(&call.request.sha256));
    }
}

#[tokio::test]
async fn a_command_ended_by_a_signal_is_recorded_with_it_and_its_calls() {
    if !has_curl() {
        return;
    }
    let mock = Mock::start().await;
    let script = r#"curl -sS -d '{"model":"mock-model","messages":[]}' "$OPENAI_BASE_URL/chat/completions" >/dev/null; kill -TERM $$"#;
    let recording = receipts::record::record_command(
        &["sh".into(), "-c".into(), script.into()],
        Upstreams::new(Some(&mock.url())).expect("an upstream"),
    )
    .await
    .expect("recorded");
    let capture = &recording.capture;
    assert_eq!((capture.exit_code, capture.signal), (None, Some(15)));
    assert_eq!(capture.calls.len(), 1);
    let objects: BTreeMap<String, Vec<u8>> = recording
        .objects
        .iter()
        .map(|(d, b)| (d.clone(), b.to_vec()))
        .collect();
    let derived = derive::attempt(capture, &objects).expect("a run");
    assert_eq!(derived.calls.len(), 1);
    assert!(
        derived
            .end
            .message
            .as_deref()
            .is_some_and(|m| m.contains("signal 15")),
        "{:?}",
        derived.end
    );
}

/// The Python with the official `openai` and `anthropic` SDKs the agent
/// script runs on: `RECEIPTS_TEST_PYTHON`, or the environment
/// `scripts/test` installs them into; `None` when neither has them.
fn python_with_sdks() -> Option<std::path::PathBuf> {
    let candidates = [
        std::env::var_os("RECEIPTS_TEST_PYTHON").map(std::path::PathBuf::from),
        Some(common::repo().join("target/python-sdks/bin/python")),
    ];
    candidates.into_iter().flatten().find(|python| {
        std::process::Command::new(python)
            .args(["-c", "import openai, anthropic"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// An agent that calls each wire API, streaming and not, through the SDKs
/// (or curl, where they are not installed), then writes its brief.
const SDK_AGENT: &str = r#"
import shutil, sys
from openai import OpenAI
from anthropic import Anthropic

openai = OpenAI(api_key="sk-test-openai-key")
openai.chat.completions.create(model="mock-model", max_tokens=64, messages=[
    {"role": "system", "content": "You write release briefs."},
    {"role": "user", "content": "Write brief.json"}])
for _ in openai.chat.completions.create(model="mock-model", max_tokens=64, stream=True,
        stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "Again, streamed"}]):
    pass
openai.responses.create(model="mock-model", input="Summarize it", max_output_tokens=64)
anthropic = Anthropic(api_key="sk-ant-test-anthropic-key")
anthropic.messages.create(model="mock-model", max_tokens=64,
    messages=[{"role": "user", "content": "Check it"}])
with anthropic.messages.stream(model="mock-model", max_tokens=64, messages=[
        {"role": "user", "content": "Check it <script>alert('transcript')</script>"}]) as stream:
    for _ in stream.text_stream:
        pass
shutil.copy(sys.argv[1], "brief.json")
"#;

const CURL_AGENT: &str = r#"set -e
post() { curl -sS -f -H "x-api-key: sk-ant-test-anthropic-key" -H "Authorization: Bearer sk-test-openai-key" \
  -H 'content-type: application/json' -d "$2" "$1" >/dev/null; }
post "$OPENAI_BASE_URL/chat/completions" '{"model":"mock-model","max_tokens":64,"messages":[{"role":"system","content":"You write release briefs."},{"role":"user","content":"Write brief.json"}]}'
post "$OPENAI_BASE_URL/chat/completions" '{"model":"mock-model","max_tokens":64,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Again, streamed"}]}'
post "$OPENAI_BASE_URL/responses" '{"model":"mock-model","input":"Summarize it","max_output_tokens":64}'
post "$ANTHROPIC_BASE_URL/v1/messages" '{"model":"mock-model","max_tokens":64,"messages":[{"role":"user","content":"Check it"}]}'
post "$ANTHROPIC_BASE_URL/v1/messages" '{"model":"mock-model","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Check it <script>alert(1)</script>"}]}'
cp "$1" brief.json
"#;

/// The recorded experiment R01 in the sample copy at `root`: one cell on
/// task release-brief, priced so that each mock call costs cents.
fn recorded_experiment(root: &Path) -> PathBuf {
    let experiment = root.join("experiments/R01");
    std::fs::create_dir_all(&experiment).expect("mkdir");
    let e = json!({
        "format_version": 1, "kind": "experiment", "id": "R01",
        "title": "A recorded agent", "provenance": "recorded",
        "question": "Does the agent write a brief that passes the task's checks?",
        "grid": {"tasks": ["release-brief"], "profiles": ["default"], "seeds": [1],
                 "policies": ["single"], "runs_per_cell": 1},
        "tiers": [{"id": "mock", "label": "Mock model", "model": "mock-model"}],
        "policies": [{"id": "single", "label": "The mock model", "kind": "single", "tiers": ["mock"]}],
        "prices": {"version": "test", "currency": "USD",
                   "models": {"mock-model": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}}},
        "limits": {"max_turns": 12, "max_run_ms": 600000, "max_output_tokens": 64},
        "hypotheses": []
    });
    std::fs::write(
        experiment.join("experiment.json"),
        serde_json::to_vec_pretty(&e).expect("json"),
    )
    .expect("write");
    experiment
}

/// A brief that passes task release-brief's checks: a passing simulated
/// run's, from the sample at `root`.
fn passing_brief(root: &Path) -> PathBuf {
    let passing = common::read_json(
        &root.join("experiments/E01/runs/E01-release-brief-careful-s1-always-medium.json"),
    );
    root.join("experiments/objects").join(
        passing["attempts"][0]["artifact"]["sha256"]
            .as_str()
            .expect("an artifact"),
    )
}

const RUN_ID: &str = "R01-release-brief-default-s1-single";

#[test]
fn a_recorded_agent_becomes_a_verified_run_page() {
    let dir = common::sample_copy();
    let root = dir.path();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mock = runtime.block_on(Mock::start());
    let experiment = recorded_experiment(root);
    let brief = passing_brief(root);
    let brief = brief.to_str().expect("utf-8");
    let work = tempfile::tempdir().expect("a working directory");
    let command: Vec<String> = match python_with_sdks() {
        Some(python) => {
            std::fs::write(work.path().join("agent.py"), SDK_AGENT).expect("write");
            vec![
                python.display().to_string(),
                "agent.py".into(),
                brief.into(),
            ]
        }
        None => {
            eprintln!("the openai and anthropic SDKs are not installed: the agent calls with curl");
            std::fs::write(work.path().join("agent.sh"), CURL_AGENT).expect("write");
            vec!["sh".into(), "agent.sh".into(), brief.into()]
        }
    };
    // The task's inputs, where the agent reads them: the recorder
    // witnesses them before and after the command.
    let task = common::read_json(&root.join("experiments/tasks/release-brief.json"));
    let inputs = task["inputs"].as_array().expect("inputs");
    for input in inputs {
        let digest = input["sha256"].as_str().expect("a digest");
        std::fs::copy(
            root.join("experiments/objects").join(digest),
            work.path().join(input["path"].as_str().expect("a path")),
        )
        .expect("an input");
    }
    // A second file the agent left, kept beside the checked brief.
    std::fs::create_dir_all(work.path().join("out")).expect("mkdir");
    let notes = "the agent's notes <b>not markup</b>\n";
    std::fs::write(work.path().join("out/notes.txt"), notes).expect("write");
    let into = experiment.display().to_string();
    let upstream = mock.url();
    let mut args = vec![
        "record",
        "--into",
        &into,
        "--upstream",
        &upstream,
        "--artifact",
        "brief.json",
        "--artifact",
        "out/notes.txt",
        "--",
    ];
    args.extend(command.iter().map(String::as_str));
    let out = common::receipts(work.path(), &args);
    common::assert_exit(&out, 0, "record");
    let record = std::fs::read_to_string(experiment.join(format!("runs/{RUN_ID}.json")))
        .expect("the run is written");
    for secret in ["sk-test-openai-key", "sk-ant-test-anthropic-key"] {
        assert!(!record.contains(secret));
        for entry in std::fs::read_dir(root.join("experiments/objects")).expect("objects") {
            let bytes = std::fs::read(entry.expect("an entry").path()).expect("an object");
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{secret} kept"
            );
        }
    }
    let run: receipts_verifier::model::Run = serde_json::from_str(&record).expect("a run record");
    let attempt = &run.attempts[0];
    assert!(
        run.outcome.passed,
        "the brief passes the task's checks: {:#?}",
        attempt.checks
    );
    assert_eq!(attempt.inputs.len(), inputs.len(), "every input witnessed");
    assert_eq!(attempt.files.len(), 1);
    assert_eq!(attempt.files[0].path, "out/notes.txt");
    assert_eq!(attempt.files[0].bytes, notes.len() as u64);

    let out = common::receipts(root, &["build", "--quiet"]);
    common::assert_exit(&out, 0, "build");
    let out = common::receipts(root, &["verify", "site"]);
    common::assert_exit(&out, 0, "verify");
    let page_path = root.join(format!("site/runs/{RUN_ID}.html"));
    let page = std::fs::read_to_string(&page_path).expect("the run page");
    assert!(page.contains("Recorded on the wire"));
    assert!(
        page.contains("Check it &lt;script&gt;"),
        "the transcript, escaped"
    );
    assert!(!page.contains("<script>alert"), "never live");
    let calls = &attempt.calls;
    assert_eq!(calls.len(), 5);
    for (n, call) in calls.iter().enumerate() {
        // Each call's row: its request id, bodies, latency, first byte,
        // usage and cost, as the record and the experiment's prices give.
        let row = page
            .split("<tr id=")
            .find(|row| row.contains(&format!("<code>req_mock_{n:04}</code>")))
            .unwrap_or_else(|| panic!("the page shows call req_mock_{n:04}"));
        let usage = call.usage.expect("usage on every call");
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (11, 4));
        let wire = call.wire.as_ref().expect("recorded on the wire");
        let first_byte = wire.first_byte_ms.expect("a response came");
        let cost =
            (usage.prompt_tokens as f64 * 1000.0 + usage.completion_tokens as f64 * 2000.0) / 1e6;
        for shown in [
            format!(
                "<td>{} ms<br><small>first byte {first_byte} ms</small>",
                call.latency_ms
            ),
            format!(
                "<td>{}</td><td>{}</td>",
                usage.prompt_tokens, usage.completion_tokens
            ),
            format!("<td>{}</td>", receipts::numbers::usd(cost)),
            format!("data/objects/{}\">request</a>", wire.request_sha256),
            format!(
                "data/objects/{}\">response</a>",
                wire.response_sha256.as_deref().expect("a response body")
            ),
        ] {
            assert!(row.contains(&shown), "call {n}: {shown} not in\n{row}");
        }
        for digest in [Some(&wire.request_sha256), wire.response_sha256.as_ref()]
            .into_iter()
            .flatten()
        {
            assert!(
                root.join("site/data/objects").join(digest).is_file(),
                "the body {digest} is published"
            );
        }
    }
    let listed = format!(
        "<code>out/notes.txt</code>, {} bytes, SHA-256 <code>{}</code>",
        notes.len(),
        attempt.files[0].sha256
    );
    assert!(page.contains(&listed), "the kept file is listed");

    // A publisher who edits the page rather than the record, and reseals
    // every digest, is caught: the page no longer renders from the record.
    let site = root.join("site");
    let pinned = common::root_digest(&site);
    let latency = format!("<td>{} ms<br>", calls[2].latency_ms);
    common::replace_in(&page_path, &latency, "<td>1 ms<br>");
    assert_eq!(
        common::reseal(&site),
        pinned,
        "pages are not in the root manifest"
    );
    let out = common::receipts(&site, &["verify", ".", "--expect-root", &pinned]);
    common::assert_exit(&out, 1, "verify of an edited page");
    let text = common::stdout(&out);
    assert!(
        text.contains(&format!(
            "FAIL runs/{RUN_ID}.html: rendered from the records"
        )),
        "{text}"
    );
    common::replace_in(&page_path, "<td>1 ms<br>", &latency);

    // A publisher who swaps the bytes of the second file kept for as many
    // others and reseals every manifest (a new root digest, pinned): the
    // object no longer holds the bytes the record names by their digest.
    let notes_digest = &attempt.files[0].sha256;
    let object = site.join("data/objects").join(notes_digest);
    let mut forged = std::fs::read(&object).expect("read");
    forged[0] ^= 0x20;
    std::fs::write(&object, &forged).expect("write");
    let resealed = common::reseal(&site);
    assert_ne!(resealed, pinned);
    let out = common::receipts(&site, &["verify", ".", "--expect-root", &resealed]);
    common::assert_exit(&out, 1, "verify of a swapped kept file");
    let text = common::stdout(&out);
    let claim = receipts_verifier::verify::kept_file_claim(false, "out/notes.txt", RUN_ID, 0);
    assert!(
        text.contains(&format!("FAIL data/objects/{notes_digest}: {claim}")),
        "{text}"
    );
}

/// Ctrl-C in the terminal (SIGINT to the whole process group) ends the
/// agent, and the recorder, which outlives it, records the run with the
/// signal and the calls made before it.
#[cfg(unix)]
#[test]
fn ctrl_c_ends_the_agent_and_its_calls_are_still_recorded() {
    use std::os::unix::process::CommandExt;
    if !has_curl() {
        return;
    }
    let dir = common::sample_copy();
    let root = dir.path();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mock = runtime.block_on(Mock::start());
    let experiment = recorded_experiment(root);
    let work = tempfile::tempdir().expect("a working directory");
    let script = r#"curl -sS -d '{"model":"mock-model","max_tokens":9,"messages":[]}' "$OPENAI_BASE_URL/chat/completions" >/dev/null; touch called; exec sleep 60"#;
    let mut recorder = std::process::Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(["record", "--into"])
        .arg(&experiment)
        .args(["--upstream", &mock.url(), "--", "sh", "-c", script])
        .current_dir(work.path())
        .process_group(0)
        .spawn()
        .expect("the recorder starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !work.path().join("called").exists() {
        assert!(Instant::now() < deadline, "the agent never called");
        std::thread::sleep(Duration::from_millis(20));
    }
    let group = format!("-{}", recorder.id());
    let sent = std::process::Command::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let status = loop {
        if let Some(status) = recorder.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the recorder never ended");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        status.code(),
        Some(0),
        "the recorder outlives the interrupt"
    );
    let run = common::read_json(&experiment.join(format!("runs/{RUN_ID}.json")));
    let attempt = &run["attempts"][0];
    assert_eq!(attempt["calls"].as_array().map(Vec::len), Some(1));
    let message = attempt["end"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("signal 2"), "{message}");
    drop(mock);
}
