//! `receipts verify` and `receipts build --strict`: every published file,
//! number, check and correction is recomputed, and tampering with any of
//! them is found and named.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{assert_exit, built, built_with, receipts, sample_copy, stderr, stdout};

/// Besides the claims a test names, only `rel`'s own receipts (its digests
/// among them) fail, and the files rendered from it: the pages that show
/// it, the manifests and the statement that name its digest.
fn only_this_record_fails(text: &str, rel: &str) {
    let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(
        fails.iter().all(|l| l.starts_with(&format!("FAIL {rel}: "))
            || l.contains(": rendered from the records: ")
            || l.contains(": as the records publish it: ")),
        "{fails:#?}"
    );
}

fn verify(site: &Path) -> Output {
    receipts(site, &["verify", "."])
}

/// Changes one byte of `path`: a lowercase letter in the middle of the file
/// becomes another one.
fn flip_a_byte(path: &Path) {
    let mut bytes = fs::read(path).expect("read");
    let middle = bytes.len() / 2;
    let i = (middle..bytes.len())
        .chain(0..middle)
        .find(|&i| bytes[i].is_ascii_lowercase())
        .expect("a letter");
    bytes[i] = if bytes[i] == b'z' { b'y' } else { bytes[i] + 1 };
    fs::write(path, bytes).expect("write");
}

#[test]
fn the_sample_site_verifies() {
    let dir = built();
    let out = verify(&dir.path().join("site"));
    assert_exit(&out, 0, "verify");
    let text = stdout(&out);
    assert!(text.contains("verified"), "{text}");
    assert!(text.contains(" 0 fail"), "{text}");
}

#[test]
fn sha256sum_accepts_the_manifests() {
    let dir = built();
    for sub in ["site", "site/data"] {
        let out = std::process::Command::new("sha256sum")
            .args(["-c", "--quiet", "SHA256SUMS"])
            .current_dir(dir.path().join(sub))
            .output()
            .expect("sha256sum runs");
        assert!(
            out.status.success(),
            "{sub}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

#[test]
fn one_flipped_byte_in_any_kind_of_file_is_named() {
    let kinds = [
        "data/E04/runs/E04-release-brief-fast-s2-ladder.json",
        "data/E02/summary.json",
        "data/E01/results.csv",
        "data/E02/LOG.md",
        "data/tasks/invoice-cleanup.json",
        "data/harness/H01/harness.json",
        "data/harness/H01/runs/H01-sim-agent-fast-s2.json",
        "harness/H01.html",
        "harness/H01/H01-sim-agent-fast-s2.html",
        "data/regressions/R01/suite.json",
        "data/regressions/R01/edits/R01-edit-04-reporting.json",
        "data/regressions/R01/benchmark.json",
        "regressions/R01.html",
        "regressions/R01/R01-edit-04-reporting.html",
        "experiments/E01.html",
        "runs/E02-release-brief-careful-s3-always-small.html",
        "index.html",
        "assets/style.css",
        "data/I01/inspect/tools.json",
        "imports/I01/tools.html",
        "data/I02/otel/agent.otlp.json",
        "imports/I02/otel/agent.otlp.html",
    ];
    for rel in kinds {
        let dir = built();
        let site = dir.path().join("site");
        flip_a_byte(&site.join(rel));
        let out = verify(&site);
        assert_exit(&out, 1, rel);
        // A record against its manifest, an asset against the root manifest
        // (and the copy this binary ships), a page against its rendering.
        let claim = if rel.starts_with("data/") {
            "SHA-256 in data/SHA256SUMS"
        } else if rel.starts_with("assets/") {
            "SHA-256 in SHA256SUMS"
        } else {
            "rendered from the records"
        };
        assert!(
            stdout(&out).contains(&format!("FAIL {rel}: {claim}")),
            "{rel} not named:\n{}",
            stdout(&out)
        );
    }
}

#[test]
fn a_flipped_byte_in_an_artifact_or_an_input_fails_its_receipts() {
    let dir = built();
    let site = dir.path().join("site");
    let run: serde_json::Value = serde_json::from_slice(
        &fs::read(site.join("data/E04/runs/E04-invoice-cleanup-careful-s1-ladder.json"))
            .expect("run"),
    )
    .expect("json");
    let attempts = run["attempts"].as_array().expect("attempts");
    let artifact = attempts
        .iter()
        .find_map(|a| a["artifact"]["sha256"].as_str())
        .expect("an attempt with an artifact")
        .to_string();
    let task: serde_json::Value = serde_json::from_slice(
        &fs::read(site.join("data/tasks/release-brief.json")).expect("task"),
    )
    .expect("json");
    let input = task["inputs"][0]["sha256"]
        .as_str()
        .expect("an input")
        .to_string();
    for digest in [&artifact, &input] {
        let dir = built();
        let site = dir.path().join("site");
        flip_a_byte(&site.join(format!("data/objects/{digest}")));
        let out = verify(&site);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains(&format!(
                "FAIL data/objects/{digest}: SHA-256 in data/SHA256SUMS"
            )),
            "{text}"
        );
        // The digest the run or task records no longer matches the published bytes.
        let named = if *digest == artifact {
            "artifact `normalized.csv`"
        } else {
            "input `release-plan.md`"
        };
        assert!(
            text.contains(&format!("FAIL data/objects/{digest}: {named}")),
            "{text}"
        );
    }
}

#[test]
fn an_edited_number_fails_showing_both_values() {
    let dir = built();
    let site = dir.path().join("site");
    let path = site.join("data/E01/summary.json");
    let text = fs::read_to_string(&path).expect("summary");
    let mut summary: serde_json::Value = serde_json::from_str(&text).expect("json");
    let original = summary["primary"]["policies"][1]["pass_rate_pct"]
        .as_f64()
        .expect("a number");
    summary["primary"]["policies"][1]["pass_rate_pct"] = serde_json::json!(99.9);
    fs::write(&path, serde_json::to_string_pretty(&summary).expect("json")).expect("write");
    let out = verify(&site);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = format!("FAIL data/E01/summary.json: primary.policies[always-medium].pass_rate_pct: recorded 99.9; recomputed {original}");
    assert!(text.contains(&line), "expected `{line}` in:\n{text}");
}

#[test]
fn a_deleted_run_fails_the_numbers_it_was_part_of() {
    let dir = built();
    let site = dir.path().join("site");
    let run = "data/E01/runs/E01-shipping-rule-fast-s2-always-large.json";
    let digest = receipts_verifier::digest::sha256_hex(&fs::read(site.join(run)).expect("read"));
    fs::remove_file(site.join(run)).expect("delete");
    let out = verify(&site);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "FAIL {run}: SHA-256 in data/SHA256SUMS: recorded {digest}; recomputed the record is missing"
        )),
        "{text}"
    );
    assert!(text.contains("FAIL data/E01/summary.json: primary.policies[always-large].runs: recorded 18; recomputed 17"), "{text}");
    assert!(text.contains("FAIL data/E01/results.csv: line"), "{text}");
}

#[test]
fn the_build_publishes_failing_receipts_and_strict_exits_1() {
    let dir = sample_copy();
    let summary = dir.path().join("experiments/E01/summary.json");
    let text = fs::read_to_string(&summary).expect("summary");
    fs::write(&summary, text.replacen("\"runs\": 18", "\"runs\": 19", 1)).expect("write");
    let lenient = receipts(dir.path(), &["build"]);
    assert!(lenient.status.success(), "{}", stderr(&lenient));
    assert!(stdout(&lenient).contains("1 fail"), "{}", stdout(&lenient));
    let page = fs::read_to_string(dir.path().join("site/experiments/E01.html")).expect("page");
    assert!(
        page.contains("recomputed fail"),
        "the experiment page shows the failing number"
    );
    let strict = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
}

#[test]
fn corrections_are_shown_and_needed() {
    let dir = built();
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains("<del title=\"first published\">88.9%</del> 83.3%"),
        "the original is struck through beside the corrected value"
    );
    // Each correction is titled in words, with an anchor, the path beside.
    assert!(
        page.contains("<li id=\"correction-2\"><strong>Tasks passed, Auto-tier ladder (small → medium → large), primary analysis</strong> <a class=\"anchor\" href=\"#correction-2\""),
        "the second correction's title"
    );
    assert!(page.contains("(<code>primary.policies[ladder].pass_rate_pct</code>): first published"));
    let clean = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert!(
        clean.status.success(),
        "with the corrections on record the sample verifies: {}",
        stderr(&clean)
    );

    let path = dir.path().join("experiments/E02/summary.json");
    let mut summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    summary["corrections"] = serde_json::json!([]);
    fs::write(&path, serde_json::to_string_pretty(&summary).expect("json")).expect("write");
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("primary.policies[ladder].pass_rate_pct: recorded 88.9; recomputed 83.3"),
        "{text}"
    );
    assert!(text.contains("primary.policies[ladder].cost_per_task_usd: recorded 0.005396; recomputed 0.005764–0.006008"), "{text}");
}

#[test]
fn an_exported_report_verifies_on_its_own_and_fails_when_tampered() {
    let dir = built();
    let report = dir.path().join("r.json");
    let out = receipts(
        dir.path(),
        &[
            "export",
            "E02-release-brief-fast-s1-always-medium",
            "--out",
            "r.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let alone = tempfile::tempdir().expect("tempdir");
    let moved = alone.path().join("r.json");
    fs::copy(&report, &moved).expect("copy");
    // Alone, a report is consistent but not anchored: exit 3.
    let alone_out = receipts(alone.path(), &["verify", "r.json"]);
    assert_eq!(
        alone_out.status.code(),
        Some(3),
        "{}{}",
        stdout(&alone_out),
        stderr(&alone_out)
    );
    assert!(
        stdout(&alone_out).contains("consistent, not anchored"),
        "{}",
        stdout(&alone_out)
    );
    let allowed = receipts(alone.path(), &["verify", "r.json", "--allow-unchecked"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stdout(&allowed));
    // Anchored by the site it came from, or by its root digest.
    let site = dir.path().join("site");
    let root =
        receipts_verifier::digest::sha256_hex(&fs::read(site.join("SHA256SUMS")).expect("sums"));
    let ok = receipts(
        alone.path(),
        &["verify", "r.json", "--site", site.to_str().expect("utf-8")],
    );
    assert_eq!(ok.status.code(), Some(0), "{}{}", stdout(&ok), stderr(&ok));
    let ok = receipts(alone.path(), &["verify", "r.json", "--expect-root", &root]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", stdout(&ok), stderr(&ok));

    // The report from the built site's data/ is the same report.
    let from_site = receipts(
        dir.path(),
        &[
            "export",
            "E02-release-brief-fast-s1-always-medium",
            "--root",
            "site",
            "--out",
            "-",
        ],
    );
    assert_eq!(from_site.stdout, fs::read(&report).expect("report"));

    let mut value: serde_json::Value =
        serde_json::from_slice(&fs::read(&moved).expect("read")).expect("json");
    let claims = &mut value["claims"];
    claims["passed"] = serde_json::json!(!claims["passed"].as_bool().expect("bool"));
    fs::write(&moved, serde_json::to_vec(&value).expect("json")).expect("write");
    let bad = receipts(alone.path(), &["verify", "r.json", "--expect-root", &root]);
    assert_eq!(bad.status.code(), Some(1), "{}", stdout(&bad));
    assert!(
        stdout(&bad).contains("FAIL report: claims.passed"),
        "{}",
        stdout(&bad)
    );
}

#[test]
fn json_output_carries_every_receipt() {
    let dir = built();
    let out = receipts(&dir.path().join("site"), &["verify", ".", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["status"], "verified");
    let total = v["tally"]["pass"].as_u64().expect("count");
    assert_eq!(
        v["receipts"].as_array().expect("receipts").len() as u64,
        total
    );
    assert!(total > 1000, "{total} receipts");
    assert_eq!(v["root_digest"].as_str().map(str::len), Some(64));
}

#[test]
fn an_expected_root_digest_is_checked() {
    let dir = built();
    let site = dir.path().join("site");
    let wrong = "0".repeat(64);
    let out = receipts(&site, &["verify", ".", "--expect-root", &wrong]);
    assert_eq!(out.status.code(), Some(1));
    let sums = fs::read(site.join("SHA256SUMS")).expect("sums");
    let right = receipts_verifier::digest::sha256_hex(&sums);
    let out = receipts(&site, &["verify", ".", "--expect-root", &right]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_directory_that_is_not_a_site_is_unusable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = receipts(dir.path(), &["verify", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("SHA256SUMS"), "{}", stderr(&out));
}

#[test]
fn a_site_with_gzipped_records_verifies_and_a_changed_record_inside_fails() {
    let dir = built_with(&["--compress-records"]);
    let site = dir.path().join("site");
    let rel = "data/E04/runs/E04-invoice-cleanup-careful-s1-ladder.json";
    assert!(
        !site.join(rel).exists(),
        "the record is published only gzipped"
    );
    let gz = site.join(format!("{rel}.gz"));

    let out = verify(&site);
    assert_exit(&out, 0, "verify");
    // As many receipts as the same site with plain records ("…: verified: N receipts, …").
    let plain = built();
    let count = |out: &Output| {
        let text = stdout(out);
        let head = text
            .split(" receipts")
            .next()
            .unwrap_or_default()
            .to_string();
        head.rsplit(' ').next().unwrap_or_default().to_string()
    };
    let plain_count = count(&verify(&plain.path().join("site")));
    assert!(
        plain_count.parse::<usize>().is_ok_and(|n| n > 1000),
        "{plain_count}"
    );
    assert_eq!(count(&out), plain_count);

    // The record inside the gzip file changes: the record fails against its
    // manifest, and the pages showing it against their rendering.
    let record = receipts::gzip::decompress(&fs::read(&gz).expect("read"), 1 << 24).expect("gzip");
    let text = String::from_utf8(record).expect("utf-8");
    let changed = text.replacen("\"duration_ms\": ", "\"duration_ms\": 1", 1);
    assert_ne!(changed, text);
    fs::write(&gz, receipts::gzip::compress(changed.as_bytes())).expect("write");
    let out = verify(&site);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = stdout(&out);
    assert!(
        report.contains("runs/index.html: rendered from the records"),
        "{report}"
    );
    assert!(
        report.contains(&format!("{rel}: SHA-256 in data/SHA256SUMS")),
        "{report}"
    );

    // Bytes that are not gzip: a failure that names the file, not a crash.
    fs::write(&gz, b"not gzip").expect("write");
    let out = verify(&site);
    assert_exit(&out, 1, "verify");
    assert!(
        stdout(&out).contains("not a valid gzip file"),
        "{}",
        stdout(&out)
    );
}

/// A forged record set beside the genuine gzipped one (`x.json` beside
/// `x.json.gz`): two files stand for one record, and the second fails
/// rather than either being read in the other's place.
#[test]
fn a_plain_record_beside_its_gzipped_one_fails() {
    let dir = built_with(&["--compress-records"]);
    let site = dir.path().join("site");
    let rel = "data/E04/runs/E04-invoice-cleanup-careful-s1-ladder.json";
    let record = receipts::gzip::decompress(
        &fs::read(site.join(format!("{rel}.gz"))).expect("read"),
        1 << 24,
    )
    .expect("gzip");
    let genuine = record.clone();
    let forged = String::from_utf8(record).expect("utf-8").replacen(
        "\"duration_ms\": ",
        "\"duration_ms\": 1",
        1,
    );
    fs::write(site.join(rel), forged).expect("write");
    let out = verify(&site);
    assert_exit(&out, 1, "verify of a record in two files");
    let report = stdout(&out);
    assert!(
        report.contains(&format!(
            "FAIL {rel}: SHA-256 in data/SHA256SUMS: recorded {}; recomputed a second file holds this record",
            receipts_verifier::digest::sha256_hex(&genuine)
        )),
        "{report}"
    );
}

/// Only an experiment's run record may be published gzipped (the layout the
/// build, `receipts verify` and the browser's worker share): a harness run
/// gzipped in its place stands for no record, so its record is missing and
/// the gzip file is listed nowhere.
#[test]
fn a_harness_run_gzipped_in_place_of_its_record_stands_for_nothing() {
    let dir = built();
    let site = dir.path().join("site");
    let rel = "data/harness/H01/runs/H01-sim-agent-careful-s1.json";
    let bytes = fs::read(site.join(rel)).expect("read");
    let gz = receipts::gzip::compress(&bytes);
    fs::remove_file(site.join(rel)).expect("remove");
    fs::write(site.join(format!("{rel}.gz")), &gz).expect("write");
    let out = verify(&site);
    assert_exit(&out, 1, "verify");
    let report = stdout(&out);
    assert!(
        report.contains(&format!("FAIL {rel}: SHA-256 in data/SHA256SUMS")),
        "{report}"
    );
    assert!(
        report.contains(&format!("FAIL {rel}.gz: listed in data/SHA256SUMS")),
        "{report}"
    );
}

#[test]
fn an_edited_harness_report_figure_fails_showing_both_values() {
    let dir = built();
    let site = dir.path().join("site");
    let rel = "data/harness/H01/runs/H01-sim-agent-thorough-s1.json";
    let path = site.join(rel);
    let mut run: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("run")).expect("json");
    let p95 = run["report"]["latency_p95_ms"].as_u64().expect("a number");
    run["report"]["latency_p95_ms"] = serde_json::json!(p95 - 1);
    fs::write(&path, serde_json::to_string_pretty(&run).expect("json")).expect("write");
    let out = verify(&site);
    let text = stdout(&out);
    assert_exit(&out, 1, "verify");
    let line = format!(
        "FAIL {rel}: report.latency_p95_ms: recorded {}; recomputed {p95}",
        p95 - 1
    );
    assert!(text.contains(&line), "expected `{line}` in:\n{text}");
    only_this_record_fails(&text, rel);
}

#[test]
fn a_softened_regression_verdict_fails_showing_both_values() {
    let dir = built();
    let site = dir.path().join("site");
    let rel = "data/regressions/R01/edits/R01-edit-04-reporting.json";
    let path = site.join(rel);
    let mut edit: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("edit")).expect("json");
    assert_eq!(edit["verdict"]["result"], "BLOCK");
    edit["verdict"]["result"] = serde_json::json!("PASS");
    edit["verdict"]["action"] = serde_json::json!("merge");
    fs::write(&path, serde_json::to_string_pretty(&edit).expect("json")).expect("write");
    let out = verify(&site);
    let text = stdout(&out);
    assert_exit(&out, 1, "verify");
    for line in [
        format!("FAIL {rel}: verdict.result: recorded PASS; recomputed BLOCK"),
        format!("FAIL {rel}: verdict.action: recorded merge; recomputed revert"),
    ] {
        assert!(text.contains(&line), "expected `{line}` in:\n{text}");
    }
    only_this_record_fails(&text, rel);
}

/// Every file under `data/`, as the browser's verify reads the records.
fn records(site: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let data = site.join("data");
    walkdir::WalkDir::new(&data)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&data).expect("prefix");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let bytes = fs::read(e.path()).expect("read");
            // A record published gzipped, as the browser reads it: the record it holds.
            match rel.strip_suffix(".gz") {
                Some(record) => {
                    let mut text = Vec::new();
                    std::io::Read::read_to_end(
                        &mut flate2::read::GzDecoder::new(bytes.as_slice()),
                        &mut text,
                    )
                    .expect("gunzip");
                    (record.to_string(), text)
                }
                None => (rel, bytes),
            }
        })
        .collect()
}

/// The scope each page asks the browser to verify, from its Verify panel.
fn page_scopes(site: &Path) -> Vec<(String, receipts_verifier::verify::Scope)> {
    let mut scopes = Vec::new();
    for e in walkdir::WalkDir::new(site).sort_by_file_name() {
        let e = e.expect("walk");
        if e.path().extension().is_none_or(|x| x != "html")
            || e.path().starts_with(site.join("data"))
        {
            continue;
        }
        let html = fs::read_to_string(e.path()).expect("read");
        let Some(start) = html.find("data-scope=\"") else {
            continue;
        };
        let rest = &html[start + "data-scope=\"".len()..];
        let attr = &rest[..rest.find('"').expect("end of attribute")];
        let rel = e
            .path()
            .strip_prefix(site)
            .expect("prefix")
            .display()
            .to_string();
        // A compact run page: "run", its experiment beside, the run its own
        // (as verify.js reads it).
        let json = if attr == "run" {
            let at = html
                .find("data-experiment=\"")
                .expect("the run's experiment")
                + 17;
            let experiment = &html[at..at + html[at..].find('"').expect("end")];
            let run = rel
                .strip_prefix("runs/")
                .and_then(|r| r.strip_suffix(".html"))
                .expect("a run's page");
            serde_json::json!({ "scope": "run", "experiment": experiment, "run": run }).to_string()
        } else {
            attr.replace("&quot;", "\"").replace("&amp;", "&")
        };
        let scope = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{rel}: {e}: {json}"));
        scopes.push((rel, scope));
    }
    scopes
}

/// A page verifies in the browser exactly the scope its panel names; each
/// page of an honest site must then pass, whatever the other experiments'
/// figures the study names (a page verifying E01 alone once failed the
/// study's figures that read E02).
///
/// Built both ways: with full pages, and with records gzipped and compact
/// run pages, whose scope is "run" and the page's own run.
#[test]
fn every_page_passes_the_scope_it_verifies() {
    for compress in [false, true] {
        let flags: &[&str] = if compress {
            &["--compress-records"]
        } else {
            &[]
        };
        let dir = built_with(flags);
        every_page_passes_its_scope(&dir.path().join("site"), compress);
    }
}

fn every_page_passes_its_scope(site: &Path, compact: bool) {
    let files = records(site);
    let scopes = page_scopes(site);
    assert!(
        scopes.len() > 200,
        "{} pages with a Verify panel",
        scopes.len()
    );
    let runs = scopes
        .iter()
        .filter(|(_, s)| matches!(s, receipts_verifier::verify::Scope::Run { .. }))
        .count();
    assert!(runs > 50, "{runs} run pages");
    let mut experiments = 0;
    for (page, scope) in &scopes {
        if compact && page.starts_with("runs/") && page != "runs/index.html" {
            assert!(
                fs::read_to_string(site.join(page))
                    .expect("page")
                    .contains("data-scope=\"run\" data-experiment="),
                "{page}: not a compact page"
            );
        }
        if matches!(scope, receipts_verifier::verify::Scope::Experiment { .. }) {
            experiments += 1;
        }
        let result = receipts_verifier::verify::verify_files(&files, scope);
        let failing: Vec<String> = result
            .receipts
            .iter()
            .filter(|r| r.status != receipts_verifier::verify::Status::Pass)
            .map(|r| format!("{}: {}: {}", r.subject, r.claim, r.recomputed))
            .collect();
        assert!(failing.is_empty(), "{page} ({scope:?}): {failing:#?}");
        // A run page's scope reaches its run: a scope naming nothing there
        // would pass with nothing recomputed.
        if let receipts_verifier::verify::Scope::Run { run, .. } = scope {
            assert!(
                result
                    .receipts
                    .iter()
                    .any(|r| r.subject.ends_with(&format!("/runs/{run}.json"))),
                "{page}: nothing of run {run} recomputed"
            );
        }
    }
    assert_eq!(experiments, 4, "the four experiment pages");
}

/// The study verified as a whole still fails a named figure that reads an
/// experiment the site does not have: only a page verifying part of the
/// study leaves out the figures of the parts it does not load.
#[test]
fn a_named_figure_reading_a_missing_experiment_fails_the_whole_study() {
    let dir = built();
    let site = dir.path().join("site");
    let mut files = records(&site);
    let mut study: serde_json::Value =
        serde_json::from_slice(&files["study.json"]).expect("study.json");
    study["figures"]["ghost_gain"] = serde_json::json!({
        "label": "A gain over an experiment that was dropped",
        "of": "diff(E09.ladder.pass_rate_pct,E01.ladder.pass_rate_pct)"
    });
    files.insert(
        "study.json".into(),
        serde_json::to_vec(&study).expect("json"),
    );
    let failing = |scope: &receipts_verifier::verify::Scope| -> Vec<String> {
        receipts_verifier::verify::verify_files(&files, scope)
            .receipts
            .into_iter()
            .filter(|r| r.status != receipts_verifier::verify::Status::Pass)
            .map(|r| format!("{}: {}: {}", r.subject, r.claim, r.recomputed))
            .collect()
    };
    let all = failing(&receipts_verifier::verify::Scope::All);
    assert!(
        all.iter()
            .any(|f| f.starts_with("study.json: figures[ghost_gain]")),
        "{all:#?}"
    );
}

/// One account of the totals: the build's count is the receipts recomputed
/// from the records, and `receipts verify` counts the same ones, then the
/// file digests and the check of the pages it adds.
#[test]
fn every_total_is_counted_the_same_way() {
    let dir = sample_copy();
    let out = receipts(dir.path(), &["build"]);
    assert_exit(&out, 0, "build");
    let text = stdout(&out);
    let built: usize = text
        .split_once("receipts: ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        text.contains(&format!(
            "receipts: {built} recomputed from the records, {built} pass"
        )),
        "{text}"
    );
    let site = dir.path().join("site");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&receipts(&site, &["verify", ".", "--json"]))).expect("json");
    let kinds = &json["kinds"];
    assert_eq!(kinds["records"], built, "{kinds}");
    let listed = |manifest: &str| {
        fs::read_to_string(site.join(manifest))
            .expect("manifest")
            .lines()
            .count()
    };
    assert_eq!(
        kinds["files"],
        listed("SHA256SUMS") + listed("data/SHA256SUMS"),
        "a digest for each file the two manifests list"
    );
    assert_eq!(kinds["pages"], 1, "{kinds}");
    assert_eq!(kinds["shown"], 0, "{kinds}");
    let total = json["tally"]["pass"].as_u64().expect("pass");
    assert_eq!(
        ["records", "files", "pages", "shown"]
            .iter()
            .map(|k| kinds[k].as_u64().expect("count"))
            .sum::<u64>(),
        total
    );
    let line = stdout(&verify(&site));
    let commas = |n: u64| {
        let d = n.to_string();
        d.chars()
            .enumerate()
            .flat_map(|(i, c)| {
                ((i > 0 && (d.len() - i).is_multiple_of(3)).then_some(','))
                    .into_iter()
                    .chain([c])
            })
            .collect::<String>()
    };
    assert!(
        line.contains(&format!(
            "{total} receipts ({} recomputed from the records, {} file digests in the manifests, 1 check of the pages against the records)",
            commas(built as u64),
            kinds["files"]
        )),
        "{line}"
    );
}

#[test]
fn records_that_give_no_receipt_are_not_verified() {
    // Every record removed and the manifest emptied: nothing fails, and
    // nothing was recomputed either. That is not "verified".
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("data")).expect("mkdir");
    fs::write(dir.path().join("data/SHA256SUMS"), "").expect("write");
    for extra in [&[][..], &["--allow-unchecked"][..]] {
        let mut args = vec!["verify", ".", "--records-only"];
        args.extend_from_slice(extra);
        let out = receipts(dir.path(), &args);
        assert_exit(&out, 3, "no receipts");
        assert!(
            stderr(&out).contains("no receipt was recomputed: nothing was verified"),
            "{}",
            stderr(&out)
        );
    }
}
