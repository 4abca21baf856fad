//! The recorder's workflow on a project of one recorded experiment: more
//! runs of a cell only as declared reruns, refused before the agent runs
//! otherwise; a dated snapshot of the model answered shown as the same
//! model, another model as a difference; the artifact shown as written;
//! each call named by what it was; one receipt count in the recorder and
//! on the page; a reasoning model's reasoning text and cache counters kept
//! and shown; and a task's input added by its digest.

use std::path::Path;

use serde_json::json;

use super::common;
use super::mock::Mock;

const TASK: &str = "release-brief";
const RUN_ID: &str = "W01-release-brief-default-s1-single";

/// A project holding task release-brief (with its inputs) and experiment
/// W01, not pre-registered: one cell, one run per cell, on gpt-4o-mini.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let sample = common::repo().join("experiments");
    std::fs::create_dir_all(root.join("experiments/tasks")).expect("mkdir");
    std::fs::create_dir_all(root.join("experiments/objects")).expect("mkdir");
    let task_file = format!("tasks/{TASK}.json");
    std::fs::copy(
        sample.join(&task_file),
        root.join("experiments").join(&task_file),
    )
    .expect("the task");
    let task = common::read_json(&sample.join(&task_file));
    for input in task["inputs"].as_array().expect("inputs") {
        let digest = input["sha256"].as_str().expect("a digest");
        std::fs::copy(
            sample.join("objects").join(digest),
            root.join("experiments/objects").join(digest),
        )
        .expect("an input");
    }
    let experiment = root.join("experiments/W01");
    std::fs::create_dir_all(&experiment).expect("mkdir");
    common::write_json(
        &experiment.join("experiment.json"),
        &json!({
            "format_version": 1, "kind": "experiment", "id": "W01",
            "title": "My agent", "provenance": "recorded",
            "question": "Does my agent write a brief that passes the task's checks?",
            "grid": {"tasks": [TASK], "profiles": ["default"], "seeds": [1],
                     "policies": ["single"], "runs_per_cell": 1},
            "tiers": [{"id": "main", "label": "GPT-4o mini", "model": "gpt-4o-mini"}],
            "policies": [{"id": "single", "label": "GPT-4o mini", "kind": "single", "tiers": ["main"]}],
            "prices": {"version": "test", "currency": "USD",
                       "models": {"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}},
            "limits": {"max_turns": 30, "max_run_ms": 600000, "max_output_tokens": 4096},
            "hypotheses": []
        }),
    );
    dir
}

/// An agent that leaves `ran` behind, asks for gpt-4o-mini twice (the
/// provider answering as the model its first argument names), and writes
/// its brief with its keys in its own order and its own spacing. Its
/// prompt names that model: the mock answers every request alike, and
/// two runs alike in every call's timing to the millisecond would be a
/// copy by all their records hold (docs/RECORD-YOUR-AGENT.md).
const AGENT: &str = r#"set -e
touch ran
for turn in 1 2; do
  curl -sS -f -H 'content-type: application/json' -H "x-mock-answer-as: $1" \
    -d '{"model":"gpt-4o-mini","max_tokens":64,"messages":[{"role":"user","content":"Write brief.json, answered as '"$1"'"}]}' \
    "$OPENAI_BASE_URL/chat/completions" >/dev/null
done
printf '%s' '{"zeta": 1,  "alpha": "<b>not markup</b>"}' > brief.json
"#;

/// A project, and a mock provider served by a runtime of its own, which
/// must live as long as the mock is called.
fn project_with_mock() -> (tempfile::TempDir, tokio::runtime::Runtime, Mock) {
    let dir = project();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mock = runtime.block_on(Mock::start());
    (dir, runtime, mock)
}

/// Whether curl, which the agent calls with, is installed.
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

/// Runs `receipts record` in a fresh working directory with `flags`
/// before `--`, the agent answered as `answer_as`; returns the output and
/// whether the agent ran.
fn record(
    root: &Path,
    mock: &Mock,
    flags: &[&str],
    answer_as: &str,
) -> (std::process::Output, bool) {
    record_agent(root, mock, flags, AGENT, answer_as)
}

/// As [`record`], the agent the shell script `agent`.
fn record_agent(
    root: &Path,
    mock: &Mock,
    flags: &[&str],
    agent: &str,
    answer_as: &str,
) -> (std::process::Output, bool) {
    let work = tempfile::tempdir().expect("a working directory");
    std::fs::write(work.path().join("agent.sh"), agent).expect("write");
    let into = root.join("experiments/W01").display().to_string();
    let upstream = mock.url();
    let mut args = vec!["record", "--into", &into, "--upstream", &upstream];
    args.extend(flags);
    args.extend(["--", "sh", "agent.sh", answer_as]);
    let out = common::receipts(work.path(), &args);
    (out, work.path().join("ran").exists())
}

fn page(root: &Path, run: &str) -> String {
    std::fs::read_to_string(root.join(format!("site/runs/{run}.html"))).expect("the run page")
}

/// The number of receipts the recorder printed: `…; N receipts, …`.
fn printed_receipts(out: &std::process::Output) -> usize {
    let text = common::stdout(out);
    let before = text
        .split(" receipts, ")
        .next()
        .expect("a tally")
        .rsplit(' ')
        .next()
        .expect("a number");
    before
        .parse()
        .unwrap_or_else(|_| panic!("a receipt count in {text}"))
}

/// The number of receipts a run's page counts: `Receipts … P of N`.
fn page_receipts(page: &str) -> usize {
    let after = page
        .split("<dt>Receipts</dt><dd>")
        .nth(1)
        .expect("the page counts its receipts");
    after
        .split(" of ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

#[test]
fn another_run_of_a_full_cell_is_refused_before_the_agent_runs_and_a_declared_rerun_builds() {
    if !has_curl() {
        return;
    }
    let (dir, _runtime, mock) = project_with_mock();
    let root = dir.path();

    let (out, ran) = record(root, &mock, &[], "gpt-4o-mini-2024-07-18");
    common::assert_exit(&out, 0, "the first run");
    assert!(ran);
    let recorded = printed_receipts(&out);

    // A second run of the cell under another id would fail the grid: it is
    // refused before the agent runs, naming the file and the way to add it.
    let (out, ran) = record(root, &mock, &["--run", "try2"], "gpt-4o-mini-2024-07-18");
    common::assert_exit(&out, 2, "a second run of a full cell");
    assert!(!ran, "the agent must not run");
    let error = common::stderr(&out);
    for needle in [
        "experiments/W01/experiment.json: grid.runs_per_cell",
        "release-brief · default · seed 1 · single",
        &format!("--rerun-of {RUN_ID}"),
        "raise grid.runs_per_cell",
    ] {
        assert!(error.contains(needle), "{needle} not in {error}");
    }
    assert!(!root.join("experiments/W01/runs/try2.json").exists());

    // The same run as a declared rerun, its provider answering with
    // another model altogether.
    let reason = "The first run's brief was written before the plan changed.";
    let (out, ran) = record(
        root,
        &mock,
        &["--rerun-of", RUN_ID, "--reason", reason],
        "gpt-4o",
    );
    common::assert_exit(&out, 0, "a declared rerun");
    assert!(ran);
    let rerun = format!("{RUN_ID}-rerun");
    let deviations = common::read_json(&root.join("experiments/W01/deviations.json"));
    assert_eq!(deviations["deviations"][0]["id"], "D1");
    assert_eq!(deviations["deviations"][0]["kind"], "rerun");
    assert_eq!(deviations["deviations"][0]["reason"], reason);
    assert_eq!(deviations["deviations"][0]["runs"], json!([rerun]));
    let record = common::read_json(&root.join(format!("experiments/W01/runs/{rerun}.json")));
    assert_eq!(record["replaces"], RUN_ID);

    let out = common::receipts(root, &["build", "--strict"]);
    common::assert_exit(&out, 0, &format!("build\n{}", common::stdout(&out)));
    let out = common::receipts(root, &["verify", "site"]);
    common::assert_exit(&out, 0, "verify");

    let first = page(root, RUN_ID);
    // Every call went to the mock on loopback: the run, its experiment and
    // the index say a local server answered, and nothing says simulated.
    let experiment = std::fs::read_to_string(root.join("site/experiments/W01.html")).unwrap();
    let index = std::fs::read_to_string(root.join("site/index.html")).unwrap();
    for (name, html) in [
        ("run", &first),
        ("experiment", &experiment),
        ("index", &index),
    ] {
        assert_eq!(
            html.matches(
                "Local server: these calls were answered by a server on the recording machine"
            )
            .count(),
            1,
            "{name} page: one local-server banner"
        );
        assert!(
            !html.contains("Simulated data"),
            "{name} page is not simulated"
        );
    }
    assert!(experiment.contains("<span class=\"badge simulated\">local server</span></h1>"));
    // The dated snapshot of the alias is the model asked for: shown, not flagged.
    assert!(
        first.contains(
            "was answered as <code>gpt-4o-mini-2024-07-18</code>, a dated snapshot of the alias"
        ),
        "the snapshot is shown"
    );
    assert!(!first.contains("differs</strong>"), "and not flagged");
    // Another model is a difference, on every call.
    let second = page(root, &rerun);
    assert_eq!(
        second
            .matches("<code>gpt-4o</code> <strong class=\"fail\">differs</strong>")
            .count(),
        2,
        "another model is flagged"
    );
    // The artifact as the agent wrote it, escaped.
    assert!(
        first.contains(
            "{&quot;zeta&quot;: 1,  &quot;alpha&quot;: &quot;&lt;b&gt;not markup&lt;/b&gt;&quot;}"
        ),
        "the artifact's bytes as written"
    );
    assert!(!first.contains("<b>not markup"));
    // Each call named by what it was.
    assert!(!first.contains("a call no turn names"));
    for name in [
        "chat completion 1 (gpt-4o-mini)",
        "chat completion 2 (gpt-4o-mini)",
    ] {
        assert!(first.contains(name), "{name}");
    }
    // Backticked names in the receipts are code, never literal backticks.
    assert!(first.contains("<dt>policy <code>single</code>"));
    for (at, _) in first.match_indices("policy `single`") {
        // Only where it is a key the page's Verify looks up, never as text.
        assert!(
            first[..at].ends_with("data-claim=\""),
            "{}",
            &first[at.saturating_sub(200)..at + 20]
        );
    }
    // One count: the recorder's and the page's.
    assert_eq!(
        recorded,
        page_receipts(&first),
        "the recorder counts as the page"
    );
}

/// The agent, its provider answering as a reasoning tier of the sources'
/// provider does (`reasoning_content`, `prompt_cache_hit_tokens`).
const REASONING_AGENT: &str = r#"set -e
curl -sS -f -H 'content-type: application/json' -H 'x-mock-reasoning: on' \
  -d '{"model":"gpt-4o-mini","max_tokens":64,"messages":[{"role":"user","content":"Write brief.json"}]}' \
  "$OPENAI_BASE_URL/chat/completions" >/dev/null
printf '%s' '{"brief": "short"}' > brief.json
"#;

#[test]
fn a_reasoning_models_reasoning_and_cache_counters_are_kept_and_shown_inert() {
    if !has_curl() {
        return;
    }
    let (dir, _runtime, mock) = project_with_mock();
    let root = dir.path();
    let (out, _) = record_agent(root, &mock, &[], REASONING_AGENT, "gpt-4o-mini");
    assert!(
        common::stdout(&out).contains(" 0 fail, 0 could not be checked"),
        "{}{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    let reasoning = "<img src=x onerror=alert(1)> The user wants a brief.";
    let record = common::read_json(&root.join(format!("experiments/W01/runs/{RUN_ID}.json")));
    let attempt = &record["attempts"][0];
    assert_eq!(
        attempt["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| &m["reasoning"]),
        Some(&json!(reasoning))
    );
    let usage = &attempt["calls"][0]["usage"];
    assert_eq!(
        (&usage["cache_hit_tokens"], &usage["cache_miss_tokens"]),
        (&json!(8), &json!(3))
    );

    let out = common::receipts(root, &["build"]);
    common::assert_exit(&out, 0, "build");
    // The transcript with its reasoning, the calls with their cache
    // counters and the record hold to the capture.
    let out = common::receipts(root, &["verify", "site"]);
    common::assert_exit(&out, 0, "verify");
    let page = page(root, RUN_ID);
    let folded = format!(
        "<details class=\"reasoning\"><summary>Reasoning ({} characters): untrusted text, shown inert</summary>",
        reasoning.chars().count()
    );
    assert!(page.contains(&folded), "{folded}");
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt; The user wants a brief."));
    assert!(!page.contains("<img src=x"), "inert");
    assert!(page.contains(
        "<dt>Prompt cache</dt><dd>8 of 11 prompt tokens read from the cache (72.73%)</dd>"
    ));
    let experiment = std::fs::read_to_string(root.join("site/experiments/W01.html")).unwrap();
    assert!(
        experiment.contains("72.73%</span></td></tr>"),
        "the tier's cache share"
    );
}

#[test]
fn a_rerun_of_a_run_not_on_record_or_of_another_cell_is_refused_before_the_agent_runs() {
    let (dir, _runtime, mock) = project_with_mock();
    let root = dir.path();
    let (out, ran) = record(root, &mock, &["--rerun-of", "nope"], "gpt-4o-mini");
    common::assert_exit(&out, 2, "a rerun of nothing");
    assert!(!ran);
    assert!(common::stderr(&out).contains("--rerun-of nope: no run of that id in"));
    let (out, ran) = record(root, &mock, &["--rerun-of", "x", "--reason", "a\nb"], "m");
    common::assert_exit(&out, 2, "a reason of two lines");
    assert!(!ran);
}

/// `receipts add-input` in `root`.
fn add_input(root: &Path, args: &[&str]) -> std::process::Output {
    common::receipts(root, &[&["add-input"][..], args].concat())
}

#[test]
fn add_input_keeps_a_file_by_its_digest_and_names_it_in_the_task() {
    let dir = project();
    let root = dir.path();
    let task_file = root.join(format!("experiments/tasks/{TASK}.json"));
    let notes = root.join("notes.md");
    let bytes = b"# Notes\n\nThe <b>plan</b> as agreed.\n";
    std::fs::write(&notes, bytes).expect("write");
    let out = add_input(
        root,
        &["notes.md", "--task", TASK, "--role", "approved-source"],
    );
    common::assert_exit(&out, 0, "add-input");
    let digest = format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes));
    assert_eq!(
        std::fs::read(root.join("experiments/objects").join(&digest)).expect("the object"),
        bytes
    );
    let task = common::read_json(&task_file);
    let inputs = task["inputs"].as_array().expect("inputs");
    assert_eq!(
        inputs.last(),
        Some(
            &json!({"path": "notes.md", "sha256": digest, "bytes": bytes.len(),
                     "media_type": "text/markdown", "role": "approved_source"})
        )
    );
    // The same input again changes nothing, byte for byte.
    let written = std::fs::read(&task_file).expect("the task");
    let out = add_input(root, &["notes.md", "--task", TASK]);
    common::assert_exit(&out, 0, "add-input again");
    assert_eq!(std::fs::read(&task_file).expect("the task"), written);
    // The project still builds and verifies.
    let out = common::receipts(root, &["build", "--quiet"]);
    common::assert_exit(&out, 0, "build");

    // Bad input: exit 2 naming the file, nothing written.
    let cases: [(&[&str], &str); 4] = [
        (&["missing.md", "--task", TASK], "missing.md: reading it"),
        (
            &["notes.md", "--task", "nope"],
            "experiments/tasks/nope.json: no task `nope`",
        ),
        (
            &["notes.md", "--task", TASK, "--path", "../up.md"],
            "`../up.md` is no name for an input",
        ),
        (
            &["notes.md", "--task", TASK, "--path", "release-plan.md"],
            "inputs[0]",
        ),
    ];
    for (args, needle) in cases {
        let out = add_input(root, args);
        common::assert_exit(&out, 2, needle);
        let error = common::stderr(&out);
        assert!(error.contains(needle), "{needle} not in {error}");
        assert_eq!(std::fs::read(&task_file).expect("the task"), written);
    }
}

#[test]
fn add_input_refuses_a_task_a_registration_covers() {
    let dir = common::sample_copy();
    let root = dir.path();
    let task_file = root.join(format!("experiments/tasks/{TASK}.json"));
    let before = std::fs::read(&task_file).expect("the task");
    std::fs::write(root.join("extra.md"), "more\n").expect("write");
    let out = add_input(root, &["extra.md", "--task", TASK]);
    common::assert_exit(&out, 2, "add-input to a registered task");
    let error = common::stderr(&out);
    assert!(
        error.contains("experiments/E01/experiment.json: preregistration"),
        "{error}"
    );
    assert_eq!(std::fs::read(&task_file).expect("the task"), before);
}
