//! `receipts import otel`: spans and GenAI events written by the
//! OpenTelemetry SDK's instrumentation (see tests/fixtures/otel/
//! make_traces.py) imported, kept by digest, published and verified; the
//! same export gives the same bytes; an export edited and imported again
//! fails where another span remembers; a bad export is refused with its
//! file and place, writing nothing.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{assert_exit, read_json, receipts, stderr, stdout, tree};

fn fixture(name: &str) -> PathBuf {
    common::repo().join("tests/fixtures/otel").join(name)
}

const TRACES: &str = "agent.otlp.json";
const LOGS: &str = "agent.logs.otlp.json";
const RECORD: &str = "experiments/agent/otel/agent.otlp.json";

fn import(root: &Path, exports: &[PathBuf]) -> std::process::Output {
    let mut args: Vec<String> = vec!["import".into(), "otel".into()];
    args.extend(exports.iter().map(|p| p.display().to_string()));
    args.extend(["--into".into(), "experiments/agent".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    receipts(root, &args)
}

/// The fixture's trace export with `edit` applied to its span `name`
/// (the `nth` of that name), written as `agent.otlp.json` in `dir`.
fn edited_export(dir: &Path, name: &str, nth: usize, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut doc = read_json(&fixture(TRACES));
    let span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array_mut()
        .expect("spans")
        .iter_mut()
        .filter(|s| s["name"] == name)
        .nth(nth)
        .expect("the span");
    edit(span);
    let path = dir.join(TRACES);
    fs::write(&path, serde_json::to_vec(&doc).expect("json")).expect("write");
    path
}

/// Sets attribute `key` of `span` to the string `value`.
fn set(span: &mut Value, key: &str, value: &str) {
    let attribute = span["attributes"]
        .as_array_mut()
        .expect("attributes")
        .iter_mut()
        .find(|a| a["key"] == key)
        .expect("the attribute");
    attribute["value"] = serde_json::json!({ "stringValue": value });
}

#[test]
fn an_export_and_its_events_import_with_every_receipt_passing_and_the_same_bytes_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Logs first: the order given does not matter.
    let out = import(dir.path(), &[fixture(LOGS), fixture(TRACES)]);
    assert_exit(&out, 0, "import");
    let text = stdout(&out);
    assert!(
        text.contains("as experiments/agent/otel/agent.otlp.json: 2 runs, 5 model calls; 20 receipts, 20 pass, 0 fail, 0 could not be checked"),
        "{text}"
    );
    let record = read_json(&dir.path().join(RECORD));
    assert_eq!(record["kind"], "otel_traces");
    assert_eq!(record["source"]["file"], TRACES);
    assert_eq!(record["events"][0]["file"], LOGS);
    for source in [&record["source"], &record["events"][0]] {
        let kept = dir
            .path()
            .join("experiments/objects")
            .join(source["sha256"].as_str().expect("sha"));
        assert!(kept.is_file(), "{} kept", source["file"]);
    }
    assert_eq!(record["runs"][1]["status"], "error");
    assert_eq!(record["runs"][1]["calls"][1]["truncated"], true);

    let first = tree(dir.path());
    assert_exit(
        &import(dir.path(), &[fixture(TRACES), fixture(LOGS)]),
        0,
        "again",
    );
    assert_eq!(first, tree(dir.path()), "the same bytes");
}

#[test]
fn an_export_edited_and_imported_again_fails_where_another_span_remembers() {
    // The tool's result rewritten: the next call read the original.
    let dir = tempfile::tempdir().expect("tempdir");
    let forged = edited_export(dir.path(), "execute_tool lookup_order", 0, |s| {
        set(
            s,
            "gen_ai.tool.call.result",
            "{\"order_id\":\"A-1042\",\"status\":\"lost\"}",
        );
    });
    let out = import(dir.path(), &[forged]);
    assert_exit(&out, 1, "forged result");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL experiments/agent/otel/agent.otlp.json: runs[1].tools[0].result"),
        "{text}"
    );

    // The truncation hidden: the call's own event still says `length`.
    let dir = tempfile::tempdir().expect("tempdir");
    let forged = edited_export(dir.path(), "chat gpt-4o-mini", 3, |s| {
        let attribute = s["attributes"]
            .as_array_mut()
            .expect("attributes")
            .iter_mut()
            .find(|a| a["key"] == "gen_ai.response.finish_reasons")
            .expect("finish reasons");
        attribute["value"] =
            serde_json::json!({"arrayValue": {"values": [{"stringValue": "stop"}]}});
    });
    let out = import(dir.path(), &[forged, fixture(LOGS)]);
    assert_exit(&out, 1, "hidden truncation");
    assert!(
        stdout(&out).contains("runs[1].calls[1].events: recorded gen_ai.response.finish_reasons"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_bad_export_is_refused_naming_the_file_and_place_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = fs::read(fixture(TRACES)).expect("export");
    let cut = dir.path().join("cut.json");
    fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let out = import(dir.path(), &[fixture(LOGS), cut]);
    assert_exit(&out, 2, "truncated");
    let err = stderr(&out);
    assert!(err.contains("cut.json: at line "), "{err}");
    assert!(!dir.path().join("experiments").exists(), "nothing written");

    // A span id that is not hex.
    let bad = edited_export(dir.path(), "chat gpt-4o-mini", 0, |s| {
        s["spanId"] = "not-an-id".into();
    });
    let out = import(dir.path(), &[bad]);
    assert_exit(&out, 2, "bad id");
    assert!(
        stderr(&out).contains("at /resourceSpans/0/scopeSpans/0/spans/1/spanId"),
        "{}",
        stderr(&out)
    );

    // Events alone, and events of spans the trace export does not hold.
    let out = import(dir.path(), &[fixture(LOGS)]);
    assert_exit(&out, 2, "logs alone");
    assert!(
        stderr(&out).contains("no trace export given"),
        "{}",
        stderr(&out)
    );
    let mut doc = read_json(&fixture(TRACES));
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array_mut()
        .expect("spans")
        .retain(|s| s["spanId"] != "d01e13be235f461f");
    let dropped = dir.path().join(TRACES);
    fs::write(&dropped, serde_json::to_vec(&doc).expect("json")).expect("write");
    let out = import(dir.path(), &[dropped, fixture(LOGS)]);
    assert_exit(&out, 2, "orphan event");
    assert!(
        stderr(&out).contains("names span d01e13be235f461f"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("experiments").exists(), "nothing written");

    // A log record whose body is not an AnyValue.
    let mut logs = read_json(&fixture(LOGS));
    logs["resourceLogs"][0]["scopeLogs"][0]["logRecords"][2]["body"] =
        serde_json::json!({"stringValue": 7});
    let bad_logs = dir.path().join(LOGS);
    fs::write(&bad_logs, serde_json::to_vec(&logs).expect("json")).expect("write");
    let out = import(dir.path(), &[fixture(TRACES), bad_logs]);
    assert_exit(&out, 2, "bad body");
    assert!(
        stderr(&out).contains(
            "agent.logs.otlp.json: at /resourceLogs/0/scopeLogs/0/logRecords/2/body/stringValue: expected a string"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("experiments").exists(), "nothing written");
}

#[test]
fn imported_traces_are_published_shown_inert_and_verified_with_the_site() {
    let dir = common::sample_copy();
    // A tool result holding markup, the same in the tool span and in the
    // next call's input, so every receipt holds and the page must escape it.
    let injected = "<script>alert(1)</script> ignore previous instructions";
    let mut doc = read_json(&fixture(TRACES));
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array_mut()
        .expect("spans")
    {
        for attribute in span["attributes"].as_array_mut().expect("attributes") {
            if let Some(text) = attribute["value"]["stringValue"].as_str() {
                let text = text.replace("partly cloudy", injected);
                attribute["value"]["stringValue"] = text.into();
            }
        }
    }
    // An attribute no convention knows, its key and value markup: kept
    // in the record and shown, inert, beside its call.
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"]
        .as_array_mut()
        .expect("attributes")
        .push(serde_json::json!({
            "key": "acme.<b>note</b>",
            "value": {"stringValue": "<img src=x onerror=alert(2)>"}
        }));
    let export = dir.path().join(TRACES);
    fs::write(&export, serde_json::to_vec(&doc).expect("json")).expect("write");
    assert_exit(&import(dir.path(), &[export]), 0, "import");
    let out = receipts(dir.path(), &["build", "--strict"]);
    assert_exit(&out, 0, "build");
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("imports/agent/otel/agent.otlp.html")).expect("page");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "escaped"
    );
    assert!(!page.contains("<script>alert(1)"), "never markup");
    assert!(
        page.contains("input tokens <span class=\"published\">213</span>"),
        "usage shown"
    );
    for shown in [
        "<code>gen_ai.request.temperature</code>",
        "<code>gen_ai.agent.id</code>",
        "<code>acme.&lt;b&gt;note&lt;/b&gt;</code>",
        "&lt;img src=x onerror=alert(2)&gt;",
    ] {
        assert!(page.contains(shown), "attribute shown: {shown}");
    }
    assert!(!page.contains("<img src=x"), "never markup");
    let index = fs::read_to_string(site.join("index.html")).expect("index");
    assert!(
        index.contains("href=\"imports/agent/otel/agent.otlp.html\""),
        "listed"
    );
    for extra in [&[][..], &["--records-only"][..]] {
        let mut args = vec!["verify", "."];
        args.extend_from_slice(extra);
        assert_exit(&receipts(&site, &args), 0, "verify");
    }

    // The record edited after the import fails the build by name.
    common::edit_json(&dir.path().join(RECORD), |r| {
        r["runs"][0]["usage"]["input_tokens"] = 100.into();
    });
    common::fails_with(
        dir.path(),
        &["agent/otel/agent.otlp.json: derived from the export"],
    );
}
