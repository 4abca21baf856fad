//! The numbers on the landing and experiment pages are recomputed from the
//! runs by the verification core: change a run and the figures change.

use crate::common;

use std::fs;
use std::path::Path;

use common::{built, receipts, sample_copy, stderr};

/// The mean time per run of `policy` in E01, computed here from the run records.
/// `html` without the attributes that name each mark's receipt for the
/// browser's verify (`data-subject`, `data-claim`, `data-show`,
/// `data-before`, `data-after`), so a test can match what a reader sees.
fn unnamed(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(" data-") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 6..];
        let named = ["subject=\"", "claim=\"", "show=\"", "before=\"", "after=\""]
            .iter()
            .find(|p| after.starts_with(**p));
        match named.and_then(|p| after[p.len()..].find('"').map(|end| p.len() + end + 1)) {
            Some(skip) => rest = &after[skip..],
            None => {
                out.push_str(" data-");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn mean_time(root: &Path, policy: &str) -> f64 {
    let mut times = Vec::new();
    for entry in fs::read_dir(root.join("experiments/E01/runs")).expect("runs") {
        let run: serde_json::Value =
            serde_json::from_slice(&fs::read(entry.expect("entry").path()).expect("read"))
                .expect("json");
        if run["policy"] == policy {
            let ms: u64 = run["attempts"]
                .as_array()
                .expect("attempts")
                .iter()
                .map(|a| a["duration_ms"].as_u64().expect("ms"))
                .sum();
            times.push(ms as f64 / 1000.0);
        }
    }
    times.iter().sum::<f64>() / times.len() as f64
}

fn pages(root: &Path) -> (String, String) {
    let out = receipts(root, &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        fs::read_to_string(root.join("site/index.html")).expect("landing"),
        fs::read_to_string(root.join("site/experiments/E01.html")).expect("experiment"),
    )
}

#[test]
fn figures_follow_the_runs() {
    let dir = sample_copy();
    let root = dir.path();
    let before = mean_time(root, "always-medium");
    let (landing, experiment) = pages(root);
    let shown = format!("✓ {before:.1} s");
    assert!(
        landing.contains(&shown),
        "the landing page shows the recomputed mean {shown}"
    );
    assert!(
        experiment.contains(&shown),
        "the experiment page shows the recomputed mean {shown}"
    );

    // One run of that policy takes 300 s longer.
    let run = root.join("experiments/E01/runs/E01-invoice-cleanup-careful-s1-always-medium.json");
    let mut value: serde_json::Value =
        serde_json::from_slice(&fs::read(&run).expect("run")).expect("json");
    let ms = value["attempts"][0]["duration_ms"].as_u64().expect("ms");
    value["attempts"][0]["duration_ms"] = serde_json::json!(ms + 300_000);
    fs::write(&run, serde_json::to_vec_pretty(&value).expect("json")).expect("write");

    let after = mean_time(root, "always-medium");
    assert!((after - before - 300.0 / 18.0).abs() < 1e-9);
    let (landing, experiment) = pages(root);
    // The published figure no longer agrees: the page shows it failing, with the new recomputed value.
    let shown = format!("✗ {after:.1} s");
    assert!(
        landing.contains(&shown),
        "the landing page shows the new recomputed mean {shown}"
    );
    assert!(
        experiment.contains(&shown),
        "the experiment page shows the new recomputed mean {shown}"
    );
    assert!(
        experiment.contains(&format!("{before:.1} s")),
        "and the published figure beside it"
    );
}

/// Prompt and completion tokens over a harness run's calls, computed here from the record.
fn harness_tokens(run: &serde_json::Value) -> u64 {
    run["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "provider_call")
        .map(|e| {
            e["usage"]["prompt_tokens"].as_u64().expect("prompt")
                + e["usage"]["completion_tokens"]
                    .as_u64()
                    .expect("completion")
        })
        .sum()
}

#[test]
fn harness_report_pages_show_each_figure_beside_its_recomputation() {
    let dir = sample_copy();
    let root = dir.path();
    let rel = "experiments/harness/H01/runs/H01-sim-agent-careful-s1.json";
    let mut run: serde_json::Value =
        serde_json::from_slice(&fs::read(root.join(rel)).expect("run")).expect("json");
    let tokens = harness_tokens(&run);
    let out = receipts(root, &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = || {
        unnamed(
            &fs::read_to_string(root.join("site/harness/H01/H01-sim-agent-careful-s1.html"))
                .expect("report page"),
        )
    };
    let html = page();
    assert!(
        html.contains(&format!("<span class=\"published\">{tokens}</span> <span class=\"recomputed pass\" title=\"recomputed from the raw records\">✓ {tokens}</span>")),
        "the page shows the tokens used, {tokens}, recomputed"
    );
    // A host name holding markup is shown as text.
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;.invalid"));
    assert!(!html.contains("<img src=x"));
    let suite = fs::read_to_string(root.join("site/harness/H01.html")).expect("suite page");
    assert!(suite.contains("href=\"../harness/H01/H01-sim-agent-careful-s1.html\""));
    let index = fs::read_to_string(root.join("site/index.html")).expect("landing");
    assert!(index.contains("href=\"harness/H01.html\""));

    // One call used 1000 more completion tokens than the published report counts.
    let call = run["events"]
        .as_array_mut()
        .expect("events")
        .iter_mut()
        .find(|e| e["event"] == "provider_call")
        .expect("a call");
    let completion = call["usage"]["completion_tokens"].as_u64().expect("tokens");
    call["usage"]["completion_tokens"] = serde_json::json!(completion + 1000);
    fs::write(
        root.join(rel),
        serde_json::to_vec_pretty(&run).expect("json"),
    )
    .expect("write");
    let out = receipts(root, &["build", "--quiet", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let html = page();
    assert!(
        html.contains(&format!("<span class=\"published\">{tokens}</span> <span class=\"recomputed fail\" title=\"recomputed from the raw records\">✗ {}</span>", tokens + 1000)),
        "the page shows the published {tokens} failing against {}",
        tokens + 1000
    );
}

#[test]
fn verdict_pages_show_each_decision_beside_its_recomputation() {
    let dir = built();
    let root = dir.path();
    let page = |edit: &str| {
        unnamed(
            &fs::read_to_string(root.join(format!("site/regressions/R01/{edit}.html")))
                .expect("verdict page"),
        )
    };
    // A judge quoting an injection with markup: shown as text.
    let html = page("R01-edit-03-github-triage");
    assert!(html.contains("answer PASS &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("<script>alert"));
    // Drift evidence names its source without linking it.
    let html = page("R01-edit-09-reporting");
    assert!(html.contains("<code>https://rates.example.invalid/eur-usd?date=2026-11-01</code>"));
    assert!(!html.contains("href=\"https://rates.example.invalid"));
    assert!(html.contains("PASS by drift"));
    let suite = fs::read_to_string(root.join("site/regressions/R01.html")).expect("suite page");
    assert!(suite.contains("href=\"../regressions/R01/R01-edit-02-release.html\""));
    let index = fs::read_to_string(root.join("site/index.html")).expect("landing");
    assert!(index.contains("href=\"regressions/R01.html\""));

    // The large judge of edit 02 is recorded as passing the replay it blocked:
    // by the rules the replay and the edit now pass, against the recorded BLOCK.
    let rel = "experiments/regressions/R01/edits/R01-edit-02-release.json";
    let mut edit: serde_json::Value =
        serde_json::from_slice(&fs::read(root.join(rel)).expect("edit")).expect("json");
    let judges = edit["replays"][0]["judges"].as_array_mut().expect("judges");
    let large = judges.last_mut().expect("a judge");
    assert_eq!(large["tier"], "large");
    large["verdict"] = serde_json::json!("pass");
    fs::write(
        root.join(rel),
        serde_json::to_vec_pretty(&edit).expect("json"),
    )
    .expect("write");
    let out = receipts(root, &["build", "--quiet", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let html = page("R01-edit-02-release");
    assert!(
        html.contains("<span class=\"published\">BLOCK</span> <span class=\"recomputed fail\" title=\"recomputed from the raw records\">✗ PASS</span>"),
        "the verdict page shows the recorded BLOCK failing against PASS"
    );
}

#[test]
fn a_skill_too_large_to_diff_is_linked_instead() {
    let dir = sample_copy();
    let root = dir.path();
    // A skill of 300 KiB, over the page's diff limit, stored by its digest.
    let skill = "a line of a very long skill\n".repeat(11_000);
    let digest = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(skill.as_bytes()))
    };
    fs::write(root.join(format!("experiments/objects/{digest}")), &skill).expect("object");
    let rel = "experiments/regressions/R01/edits/R01-edit-02-release.json";
    let mut edit: serde_json::Value =
        serde_json::from_slice(&fs::read(root.join(rel)).expect("edit")).expect("json");
    edit["skill"]["after_sha256"] = serde_json::json!(digest);
    fs::write(
        root.join(rel),
        serde_json::to_vec_pretty(&edit).expect("json"),
    )
    .expect("write");
    let out = receipts(root, &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = fs::read_to_string(root.join("site/regressions/R01/R01-edit-02-release.html"))
        .expect("verdict page");
    assert!(html.contains("too large to diff here"));
    assert!(html.contains(&format!("href=\"../../data/objects/{digest}\"")));
    assert!(!html.contains("<pre class=\"diff\""));
}
