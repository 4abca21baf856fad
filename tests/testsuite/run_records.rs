//! What a run record tells beside its turns: the transcript, shown inert and
//! held to the turns, and the original another tool wrote, kept by digest.

use crate::common;

use std::fs;
use std::path::Path;

use common::{
    assert_exit, built, edit_json, read_json, receipts, reseal, sample_copy, stderr, stdout,
};
use receipts_verifier::digest::sha256_hex;

const RUN: &str = "E01/runs/E01-release-brief-careful-s1-always-large.json";

/// The digest of the release brief's planted document.
fn planted(records: &Path) -> String {
    let task = read_json(&records.join("tasks/release-brief.json"));
    let inputs = task["inputs"].as_array().expect("inputs");
    let input = inputs
        .iter()
        .find(|i| i["role"] == "injected")
        .expect("a planted input");
    input["sha256"].as_str().expect("digest").to_string()
}

/// The index of the first message of attempt 0 that carries `digest`.
fn message_with(run: &serde_json::Value, digest: &str) -> usize {
    run["attempts"][0]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .position(|m| m["sha256"] == digest)
        .expect("a message carries the planted document")
}

#[test]
fn the_run_page_shows_the_transcript_inert_with_the_planted_document_marked() {
    let dir = sample_copy();
    let records = dir.path().join("experiments");
    edit_json(&records.join(RUN), |run| {
        run["attempts"][0]["messages"][1]["text"] =
            "<script>alert('user')</script> Summarize the release.".into();
    });
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert_exit(&out, 0, "a user message is the publisher's to write");
    let page = fs::read_to_string(
        dir.path()
            .join("site/runs/E01-release-brief-careful-s1-always-large.html"),
    )
    .expect("run page");
    let start = page
        .find("<details class=\"transcript\">")
        .expect("a transcript");
    let transcript = &page[start..start + page[start..].find("</details>").expect("end")];
    assert!(
        transcript.contains("&lt;script&gt;alert(&#x27;user&#x27;)&lt;/script&gt;"),
        "{transcript}"
    );
    assert!(!transcript.contains("<script>"), "{transcript}");
    assert!(
        transcript.contains("untrusted input: contains a planted prompt injection"),
        "the planted document is marked where the model read it: {transcript}"
    );
    assert!(
        transcript.contains("class=\"recomputed pass\""),
        "{transcript}"
    );
}

#[test]
fn a_transcript_edited_to_hide_the_planted_document_fails_even_resealed() {
    let dir = built();
    let site = dir.path().join("site");
    let data = site.join("data");
    let digest = planted(&data);
    edit_json(&data.join(RUN), |run| {
        let k = message_with(run, &digest);
        run["attempts"][0]["messages"][k] = serde_json::json!({
            "role": "tool",
            "turn": run["attempts"][0]["messages"][k]["turn"].clone(),
            "text": "Vendor note: nothing to act on."
        });
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a transcript kinder than its turns");
    let text = stdout(&out);
    assert!(
        text.contains(&format!("FAIL data/{RUN}: attempts[0].messages")),
        "{text}"
    );
    assert!(
        text.contains("carries \"Vendor note: nothing to act on.\""),
        "{text}"
    );
}

#[test]
fn a_run_converted_from_another_tool_keeps_its_original_and_says_it_is_not_rederived() {
    let dir = sample_copy();
    let records = dir.path().join("experiments");
    let original = b"{\"trace\": \"as the agent's own logger wrote it\"}\n";
    let digest = sha256_hex(original);
    fs::write(records.join("objects").join(&digest), original).expect("original");
    edit_json(&records.join(RUN), |run| {
        run["source"] = serde_json::json!({
            "tool": "acme-agent-log", "version": "2.1.0",
            "file": "run-17.json", "format": "json", "sha256": digest
        });
    });
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert_exit(&out, 0, "a run with its original kept");
    let page = fs::read_to_string(
        dir.path()
            .join("site/runs/E01-release-brief-careful-s1-always-large.html"),
    )
    .expect("run page");
    assert!(
        page.contains("Converted from"),
        "the page names the original"
    );
    assert!(page.contains("run-17.json"), "the original's file name");
    assert!(
        page.contains("the verifier does not re-derive this run from it"),
        "and says what is not checked"
    );

    let site = dir.path().join("site");
    let out = receipts(&site, &["verify", "."]);
    assert_exit(
        &out,
        3,
        "a run not re-derived from its original is not fully checked",
    );
    let out = receipts(&site, &["verify", ".", "--allow-unchecked"]);
    assert_exit(&out, 0, "the kept original verifies");
    let text = stdout(&out);
    assert!(
        text.contains("could not be checked") && text.contains("not re-derived"),
        "the run is not claimed to be its original: {text}"
    );

    // The original swapped for other bytes, everything resealed.
    fs::write(site.join("data/objects").join(&digest), b"{}\n").expect("swap");
    reseal(&site);
    let out = receipts(&site, &["verify", ".", "--allow-unchecked"]);
    assert_exit(&out, 1, "an original that is not the one named");
    let text = stdout(&out);
    assert!(
        text.contains(&format!("FAIL data/objects/{digest}: original of")),
        "{text}"
    );
}

#[test]
fn a_malformed_message_or_source_is_refused_at_its_place() {
    for (edit, place, words) in [
        (
            Box::new(|run: &mut serde_json::Value| {
                run["attempts"][0]["messages"][0]["sha256"] = "0".repeat(64).into();
            }) as Box<dyn Fn(&mut serde_json::Value)>,
            "attempts[0].messages[0].sha256",
            "not both",
        ),
        (
            Box::new(|run: &mut serde_json::Value| {
                run["attempts"][0]["messages"][2]["role"] = "".into();
            }),
            "attempts[0].messages[2].role",
            "a message's role is a word",
        ),
        (
            Box::new(|run: &mut serde_json::Value| {
                run["attempts"][0]["messages"][0] =
                    serde_json::json!({"role": "system", "sha256": "f".repeat(64)});
            }),
            "attempts[0].messages[0].sha256",
            "no object",
        ),
        (
            Box::new(|run: &mut serde_json::Value| {
                run["source"] = serde_json::json!({
                    "tool": "acme", "version": "1", "file": "a.json",
                    "format": "json", "sha256": "e".repeat(64)
                });
            }),
            "source.sha256",
            "no object",
        ),
        (
            Box::new(|run: &mut serde_json::Value| {
                run["source"] = serde_json::json!({"tool": "acme", "version": "1"});
            }),
            "source",
            "missing field",
        ),
    ] {
        let dir = sample_copy();
        edit_json(&dir.path().join("experiments").join(RUN), edit);
        let out = receipts(dir.path(), &["build", "--quiet"]);
        assert_exit(&out, 2, place);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("experiments/{RUN}")) && err.contains(place),
            "names the file and {place}: {err}"
        );
        assert!(err.contains(words), "{words}: {err}");
        assert!(
            !dir.path().join("site").exists(),
            "nothing written: {place}"
        );
    }
}
