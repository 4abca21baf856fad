//! Runs recorded on the wire, copied: a run whose calls got HTTP 500
//! replaced by a copy of a successful run of another cell, its capture's
//! request id headers renamed and its times shifted, the same request and
//! response bodies kept, fails by the response bodies; the bodies rewritten
//! with new ids, it fails by what its calls did. An honest rerun of the
//! same agent, the same bodies asked and the same text answered, passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::time::{format, parse, UnixMillis};
use receipts_verifier::wire::{derive, Capture};

use super::common;
use super::mock::Mock;

/// `$4` calls to the mock, `$2` seconds apart, asking for model `$3`,
/// then the brief at `$1` (or, without one, an empty brief).
const AGENT: &str = r#"set -e
post() { curl -sS -H 'content-type: application/json' -d "$2" "$1" >/dev/null; }
for n in $(seq "$4"); do
  sleep "$2"
  post "$OPENAI_BASE_URL/chat/completions" "{\"model\":\"$3\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"Write brief.json\"}]}"
done
if [ -n "$1" ]; then cp "$1" brief.json; else echo '{}' > brief.json; fi
"#;

/// Experiment R02 of the sample copy at `root`: task release-brief, two
/// seeds, the mock model.
fn experiment(root: &Path) -> PathBuf {
    let dir = root.join("experiments/R02");
    std::fs::create_dir_all(&dir).expect("mkdir");
    common::write_json(
        &dir.join("experiment.json"),
        &json!({
            "format_version": 1, "kind": "experiment", "id": "R02",
            "title": "A recorded agent, twice", "provenance": "recorded",
            "question": "Does the agent write a brief that passes the task's checks?",
            "grid": {"tasks": ["release-brief"], "profiles": ["default"], "seeds": [1, 2],
                     "policies": ["single"], "runs_per_cell": 1},
            "tiers": [{"id": "mock", "label": "Mock model", "model": "mock-model"}],
            "policies": [{"id": "single", "label": "The mock model", "kind": "single", "tiers": ["mock"]}],
            "prices": {"version": "test", "currency": "USD",
                       "models": {"mock-model": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0},
                                  "fault-500": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}}},
            "limits": {"max_turns": 12, "max_run_ms": 600000, "max_output_tokens": 64},
            "hypotheses": []
        }),
    );
    dir
}

fn run_id(seed: u64) -> String {
    format!("R02-release-brief-default-s{seed}-single")
}

/// Records the agent as seed `seed`'s run: `calls` calls, `pause` seconds
/// before each, model `model`, writing the passing brief when `passes`.
fn record(
    root: &Path,
    mock: &Mock,
    seed: u64,
    calls: &str,
    pause: &str,
    model: &str,
    passes: bool,
) {
    let passing = common::read_json(
        &root.join("experiments/E01/runs/E01-release-brief-careful-s1-always-medium.json"),
    );
    let brief = root.join("experiments/objects").join(
        passing["attempts"][0]["artifact"]["sha256"]
            .as_str()
            .expect("an artifact"),
    );
    let work = tempfile::tempdir().expect("a working directory");
    std::fs::write(work.path().join("agent.sh"), AGENT).expect("write");
    let task = common::read_json(&root.join("experiments/tasks/release-brief.json"));
    for input in task["inputs"].as_array().expect("inputs") {
        std::fs::copy(
            root.join("experiments/objects")
                .join(input["sha256"].as_str().expect("a digest")),
            work.path().join(input["path"].as_str().expect("a path")),
        )
        .expect("an input");
    }
    let into = root.join("experiments/R02").display().to_string();
    let upstream = mock.url();
    let seed = seed.to_string();
    let brief = if passes {
        brief.display().to_string()
    } else {
        String::new()
    };
    let args = [
        "record",
        "--into",
        &into,
        "--upstream",
        &upstream,
        "--seed",
        &seed,
        "--tier",
        "mock",
        "--artifact",
        "brief.json",
        "--",
        "sh",
        "agent.sh",
        &brief,
        pause,
        model,
        calls,
    ];
    let out = common::receipts(work.path(), &args);
    // Calls to a model that is not the tier's fail the run's policy
    // receipt, which the recorder counts as the run's page does.
    let code = if model == "mock-model" { 0 } else { 1 };
    common::assert_exit(&out, code, "record");
}

/// The objects the sample copy keeps, by digest.
fn objects(root: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(root.join("experiments/objects"))
        .expect("objects")
        .map(|e| {
            let e = e.expect("an entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("an object"),
            )
        })
        .collect()
}

fn keep(root: &Path, bytes: &[u8]) -> String {
    let digest = sha256_hex(bytes);
    std::fs::write(root.join("experiments/objects").join(&digest), bytes).expect("write");
    digest
}

/// Seed 2's run replaced by seed 1's, as a publisher would forge it: the
/// capture's request id headers renamed and every time shifted by an hour,
/// each response body passed through `body` (kept as a new object when it
/// changes), and the run derived again from the forged capture, so that
/// every receipt of the capture holds.
fn copy_over(root: &Path, body: impl Fn(&[u8]) -> Vec<u8>) {
    let runs = root.join("experiments/R02/runs");
    let mut run = common::read_json(&runs.join(format!("{}.json", run_id(1))));
    let mut store = objects(root);
    let source = run["source"]["sha256"]
        .as_str()
        .expect("a capture")
        .to_string();
    let mut capture: Value = serde_json::from_slice(&store[&source]).expect("a capture");
    let later = |v: &mut Value| {
        let at = parse(v.as_str().expect("a time")).expect("RFC 3339");
        *v = json!(format(UnixMillis(at.0 + 3_600_000)));
    };
    later(&mut capture["started_at"]);
    later(&mut capture["ended_at"]);
    for e in capture["calls"].as_array_mut().expect("calls") {
        later(&mut e["sent_at"]);
        for header in e["response_headers"].as_array_mut().expect("headers") {
            if header[0] == "x-request-id" || header[0] == "request-id" {
                header[1] = json!(format!("forged-{}", header[1].as_str().expect("a value")));
            }
        }
        if let Some(digest) = e["response"]["sha256"].as_str().map(str::to_string) {
            let forged = body(&store[&digest]);
            let new = keep(root, &forged);
            e["response"] = json!({"sha256": new, "bytes": forged.len()});
            store.insert(new, forged);
        }
    }
    let bytes = serde_json::to_vec_pretty(&capture).expect("json");
    let digest = keep(root, &bytes);
    store.insert(digest.clone(), bytes);
    let parsed: Capture = serde_json::from_value(capture).expect("a capture");
    let derived = derive::attempt(&parsed, &store).expect("the forged capture makes a run");
    run["id"] = json!(run_id(2));
    run["seed"] = json!(2);
    run["source"]["sha256"] = json!(digest);
    run["started_at"] = json!(derived.started_at);
    let attempt = &mut run["attempts"][0];
    attempt["started_at"] = json!(derived.started_at);
    attempt["duration_ms"] = json!(derived.duration_ms);
    attempt["calls"] = serde_json::to_value(&derived.calls).expect("calls");
    attempt["messages"] = serde_json::to_value(&derived.messages).expect("messages");
    attempt["end"] = serde_json::to_value(&derived.end).expect("end");
    common::write_json(&runs.join(format!("{}.json", run_id(2))), &run);
}

/// The lines of a `receipts build --strict` that fail.
fn failing(root: &Path) -> Vec<String> {
    let out = common::receipts(root, &["build", "--strict"]);
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    text.lines()
        .filter(|l| l.contains("Fail "))
        .map(str::to_string)
        .collect()
}

fn copies(failing: &[String]) -> Vec<&String> {
    failing
        .iter()
        .filter(|l| l.contains("calls on record once") || l.contains("not a copy of another run"))
        .collect()
}

#[test]
fn a_failed_run_replaced_by_a_renamed_shifted_copy_of_a_captured_run_fails() {
    let dir = common::sample_copy();
    let root = dir.path();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mock = runtime.block_on(Mock::start());
    experiment(root);
    record(root, &mock, 1, "3", "0", "mock-model", true);
    record(root, &mock, 2, "3", "0", "fault-500", false);
    // As recorded, no call is on record twice: the three 500s' bodies are
    // alike, but a refusal answered nothing.
    let honest = failing(root);
    assert!(copies(&honest).is_empty(), "{honest:#?}");

    // The same bodies under renamed headers, an hour later.
    copy_over(root, <[u8]>::to_vec);
    let forged = failing(root);
    let named = format!(
        "R02/runs/{}.json: calls on record once: recorded call 1 of 3; recomputed same response body (its SHA-256) as a call of R02/runs/{}.json",
        run_id(2),
        run_id(1)
    );
    assert!(forged.iter().any(|l| l.contains(&named)), "{forged:#?}");

    // Every body rewritten under a new reply id: what the calls did is kept.
    copy_over(root, |b| {
        String::from_utf8_lossy(b)
            .replace("reply_", "forged_")
            .into_bytes()
    });
    let forged = failing(root);
    assert!(
        !forged.iter().any(|l| l.contains("calls on record once")),
        "{forged:#?}"
    );
    let named = format!(
        "R02/runs/{}.json: not a copy of another run: recorded calls 1 to 3 of 3; recomputed one run recorded twice, here and as R02/runs/{}.json",
        run_id(2),
        run_id(1)
    );
    assert!(forged.iter().any(|l| l.contains(&named)), "{forged:#?}");
}

#[test]
fn an_honest_rerun_of_a_captured_agent_that_shares_its_text_passes() {
    let dir = common::sample_copy();
    let root = dir.path();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mock = runtime.block_on(Mock::start());
    experiment(root);
    // The same requests, the same replies' text and usage, the same brief:
    // its own request ids, reply ids, bodies and times. (Two calls: the
    // mock answers every call in the same 20 ms, as no provider does, so
    // three calls in a row of two runs could agree to the millisecond.)
    record(root, &mock, 1, "2", "0", "mock-model", true);
    record(root, &mock, 2, "2", "0.2", "mock-model", true);
    let out = common::receipts(root, &["build", "--strict", "--quiet"]);
    common::assert_exit(&out, 0, "build --strict of two honest recorded runs");
}
