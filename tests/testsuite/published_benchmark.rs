//! The regression benchmark the source published, each figure beside the
//! sample's: its sweep of 35 labelled edits (25 regressions of six types,
//! 8 cosmetic controls, 2 world-drift controls) and its ablations, copied
//! at the precision the source printed them. The sample's records publish
//! these figures and the verifier recomputes each from the edits (the
//! sample builds `--strict` elsewhere); here each is read from the records
//! and set beside the source's.
//!
//! Not reproduced, and why: the source's Level 0 off was cheaper ($0.0339
//! a verdict) and held fewer cosmetic edits (5 of 8), because its Level 0
//! also gated which replays reached the largest judge; in this format Level
//! 0 only settles replays, so switching it off can only send more replays
//! to the judges. The source's $10.62 of spend counts the agent's own
//! replays and two re-runs, which the format does not record; its three
//! seeded scenarios run twice cold are a demo, not part of the sweep.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use common::read_json;

fn suite_dir() -> PathBuf {
    common::repo().join("experiments/regressions/R01")
}

/// Every edit of the sweep, by id.
fn edits() -> BTreeMap<String, Value> {
    std::fs::read_dir(suite_dir().join("edits"))
        .expect("edits")
        .map(|e| read_json(&e.expect("edit").path()))
        .map(|e| (e["id"].as_str().expect("id").to_string(), e))
        .collect()
}

/// A rate as the source printed it, to two decimals.
fn rate(x: &Value) -> String {
    format!("{:.2}", x.as_f64().expect("a rate"))
}

#[test]
fn every_figure_of_the_source_s_sweep_is_the_sample_s() {
    let benchmark = read_json(&suite_dir().join("benchmark.json"));
    let mut sample: Vec<(String, String)> = Vec::new();
    for class in benchmark["classes"].as_array().expect("classes") {
        let name = class["class"].as_str().expect("class");
        let total = class["total"].as_u64().expect("total");
        let figure = if class["regression"] == true {
            format!(
                "{} ({}/{total})",
                rate(&class["detection_rate"]),
                class["detected"]
            )
        } else {
            format!(
                "{total} edits, {} held, {} reverted",
                class["false_warns"], class["false_blocks"]
            )
        };
        sample.push((name.to_string(), figure));
    }
    let recall = &benchmark["recall"];
    sample.push(("detection".into(), rate(&recall["recall"])));
    sample.push(("block recall".into(), rate(&recall["block_recall"])));
    let floor = &benchmark["noise_floor"];
    sample.push((
        "noise floor".into(),
        format!("{} of {} pairs", rate(&floor["rate"]), floor["pairs"]),
    ));
    let latency = &benchmark["latency"];
    sample.push((
        "latency".into(),
        format!(
            "{:.1} s (p95 {:.1} s) over {}",
            latency["mean_s"].as_f64().expect("mean"),
            latency["p95_s"].as_f64().expect("p95"),
            latency["edits"]
        ),
    ));
    // The cost per verdict, from each edit's judging cost (which the
    // verifier recomputes from its judge calls at the suite's prices).
    let edits = edits();
    let per_verdict = |field: &str| {
        edits
            .values()
            .map(|e| e["verdict"]["cost"][field].as_f64().expect("a cost"))
            .sum::<f64>()
            / edits.len() as f64
    };
    let (cascade, all) = (per_verdict("total_usd"), per_verdict("all_largest_usd"));
    sample.push((
        "cost per verdict".into(),
        format!(
            "${cascade:.4}, all-largest ${all:.4} ({:.1}×)",
            all / cascade
        ),
    ));
    let source: Vec<(&str, &str)> = vec![
        // Per type, the cascade: R1 0.60 (3/5) · R2 1.00 (4/4) · R3 0.80
        // (4/5) · R4 1.00 (2/2) · R5 1.00 (5/5) · R6 0.50 (2/4); both
        // world-drift controls passed; 7 of 8 cosmetic edits held, none
        // reverted (the agreement rule keeps false blocks at zero).
        ("D1", "2 edits, 0 held, 0 reverted"),
        ("N0", "8 edits, 7 held, 0 reverted"),
        ("R1", "0.60 (3/5)"),
        ("R2", "1.00 (4/4)"),
        ("R3", "0.80 (4/5)"),
        ("R4", "1.00 (2/2)"),
        ("R5", "1.00 (5/5)"),
        ("R6", "0.50 (2/4)"),
        // Detection 0.80; block recall 0.36.
        ("detection", "0.80"),
        ("block recall", "0.36"),
        // 0.18 of 122 pairs diverged on the control replay.
        ("noise floor", "0.18 of 122 pairs"),
        // Mean latency per edit 99.5 s (p95 161.6 s).
        ("latency", "99.5 s (p95 161.6 s) over 35"),
        // The all-Ultra counterfactual: $0.0766 per verdict (2.0×).
        ("cost per verdict", "$0.0383, all-largest $0.0766 (2.0×)"),
    ];
    let source: Vec<(String, String)> = source
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(sample, source);
}

/// What each ablation comes to by label: controls of each kind held or
/// reverted, and regressions detected.
fn by_label(ablation: &str) -> BTreeMap<String, Vec<String>> {
    let edits = edits();
    let record = read_json(&suite_dir().join(format!("ablations/{ablation}.json")));
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in record["edits"].as_array().expect("edits") {
        let edit = &edits[e["edit"].as_str().expect("edit")];
        let class = edit["label"]["class"].as_str().expect("class");
        let kind = match &class[..1] {
            "R" => "regression",
            "N" => "cosmetic",
            _ => "drift",
        };
        out.entry(kind.to_string())
            .or_default()
            .push(e["result"].as_str().expect("result").to_string());
    }
    out
}

fn count(results: &[String], result: &str) -> usize {
    results.iter().filter(|r| *r == result).count()
}

#[test]
fn every_ablation_the_source_ran_tells_what_the_source_s_did() {
    // Drift off: neither world-drift control passed (0/2), and 7 of 8
    // cosmetic edits were held as before.
    let no_drift = by_label("no-drift");
    assert_eq!(count(&no_drift["drift"], "PASS"), 0, "{no_drift:?}");
    assert_eq!(count(&no_drift["cosmetic"], "WARN"), 7, "{no_drift:?}");
    // Level 0 off: the same detection, 0.80 (20 of 25 held or reverted).
    let no_level0 = by_label("no-level0");
    let caught = no_level0["regression"].len() - count(&no_level0["regression"], "PASS");
    assert_eq!(
        (caught, no_level0["regression"].len()),
        (20, 25),
        "{no_level0:?}"
    );
    // The small and the medium judge alone block most cosmetic edits; the
    // cascade's agreement rule blocks none.
    for alone in ["single-judge-small", "single-judge-medium"] {
        let figures = by_label(alone);
        let blocked = count(&figures["cosmetic"], "BLOCK");
        assert!(
            blocked * 2 > figures["cosmetic"].len(),
            "{alone}: {figures:?}"
        );
    }
    let cascade: Vec<String> = edits()
        .values()
        .filter(|e| e["label"]["class"] == "N0")
        .map(|e| e["verdict"]["result"].as_str().expect("result").to_string())
        .collect();
    assert_eq!(count(&cascade, "BLOCK"), 0, "{cascade:?}");
}
