use std::path::PathBuf;

use serde_json::{json, Value};

use super::*;
use crate::inspect::{derive, Log, Source};
use crate::verify::Status;

fn record(name: &str, edit: impl Fn(&mut Value)) -> ImportedEval {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/inspect");
    let bytes = std::fs::read(dir.join(format!("{name}.json"))).expect("fixture");
    let mut v: Value = serde_json::from_slice(&bytes).expect("json");
    edit(&mut v);
    let log = Log::from_json(&serde_json::to_vec(&v).expect("json")).expect("log");
    let source = Source {
        tool: "inspect_ai".into(),
        version: "0.3.285".into(),
        file: format!("{name}.json"),
        format: "json".into(),
        sha256: "d".into(),
    };
    derive(&log, source)
}

/// The registration an honest author wrote before running `tools` and
/// `failed` (the fixtures' own datasets, epochs and scorers).
fn registration() -> EvalRegistration {
    serde_json::from_value(json!({
        "format_version": 1,
        "kind": "evaluation_registration",
        "registered_at": "2026-01-01T00:00:00Z",
        "evaluations": [
            {"task": "tools", "samples": ["add-1", "add-2"], "epochs": 1, "scorers": ["includes"]},
            {"task": "failed", "samples": ["ok-1", "ok-2", "boom", "ok-3"], "epochs": 1, "scorers": ["match"]}
        ]
    }))
    .expect("registration")
}

fn failing(per_eval: &[Vec<Receipt>], own: &[Receipt]) -> Vec<String> {
    per_eval
        .iter()
        .flatten()
        .chain(own)
        .filter(|r| r.status != Status::Pass)
        .map(|r| format!("{}: {} | {}", r.claim, r.recorded, r.recomputed))
        .collect()
}

fn check(reg: &EvalRegistration, evals: &[(&str, &ImportedEval)]) -> Vec<String> {
    let (per_eval, own) = registration_receipts("I", reg, evals);
    assert_eq!(per_eval.len(), evals.len());
    failing(&per_eval, &own)
}

#[test]
fn honest_logs_of_registered_tasks_pass_a_stopped_one_without_metrics_included() {
    let tools = record("tools", |_| {});
    let failed = record("failed", |_| {});
    assert_eq!(failed.status, "error");
    let reg = registration();
    let (per_eval, own) = registration_receipts("I", &reg, &[("t", &tools), ("f", &failed)]);
    assert_eq!(failing(&per_eval, &own), Vec::<String>::new());
    // Every evaluation gets its three receipts, the directory its one.
    assert_eq!(per_eval.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3]);
    assert_eq!(own.len(), 1);
    assert!(per_eval[1][1].recomputed.contains("stopped (`error`)"));
    // Integer ids are the same samples as their text.
    let mut reg = registration();
    reg.evaluations[0].samples = vec![SampleId::Text("add-1".into()), SampleId::Integer(7)];
    let f = check(&reg, &[("t", &tools), ("f", &failed)]);
    assert!(f[0].contains("sample add-2, epoch 1 is not among"), "{f:?}");
}

#[test]
fn a_sample_dropped_with_the_header_that_named_it_fails_against_the_registration() {
    // The failing sample dropped from the samples, from the dataset's ids
    // and from the totals, the metrics rewritten: the log agrees with
    // itself, not with what its task registered.
    let forged = record("tools", |v| {
        v["samples"]
            .as_array_mut()
            .expect("samples")
            .retain(|s| s["scores"]["includes"]["value"] != "I");
        v["eval"]["dataset"]["sample_ids"] = json!(["add-1"]);
        v["eval"]["dataset"]["samples"] = json!(1);
        v["results"]["total_samples"] = json!(1);
        v["results"]["completed_samples"] = json!(1);
        v["results"]["scores"][0]["metrics"]["accuracy"]["value"] = json!(1.0);
    });
    assert_eq!(forged.samples.len(), 1);
    let failed = record("failed", |_| {});
    let f = check(&registration(), &[("t", &forged), ("f", &failed)]);
    assert_eq!(
        f,
        ["t: the samples its task registered: 1 sample-epoch | the 2 samples × 1 epoch registered include sample add-2, epoch 1, which the log does not hold (1 missing)"]
    );
    // Marking it stopped does not help while it still reports a metric.
    let stopped = record("tools", |v| {
        v["status"] = json!("error");
        v["samples"].as_array_mut().expect("samples").truncate(1);
    });
    let f = check(&registration(), &[("t", &stopped), ("f", &failed)]);
    assert!(f[0].contains("which the log does not hold"), "{f:?}");
}

#[test]
fn epochs_scorers_tasks_and_times_the_registration_did_not_fix_fail() {
    let tools = record("tools", |_| {});
    let failed = record("failed", |_| {});
    let both = [("t", &tools), ("f", &failed)];
    // Fewer epochs run than registered.
    let mut reg = registration();
    reg.evaluations[0].epochs = 2;
    let f = check(&reg, &both);
    assert!(f[0].contains("include sample add-1, epoch 2"), "{f:?}");
    // A scorer added after the fact, and one registered but not reported.
    let mut reg = registration();
    reg.evaluations[0].scorers = vec!["inspect_ai/match".into()];
    let f = check(&reg, &both);
    assert!(
        f[0].contains("`includes` was not registered: the task registered `match`"),
        "{f:?}"
    );
    let mut reg = registration();
    reg.evaluations[0].scorers.push("f1".into());
    let f = check(&reg, &both);
    assert!(
        f[0].contains("registered `f1`, which the log does not report"),
        "{f:?}"
    );
    // A registration written after the evaluation.
    let mut reg = registration();
    reg.registered_at = "2030-01-01T00:00:00Z".into();
    let f = check(&reg, &both);
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f[0].starts_with("t: registered before it ran: registered 2030-01-01T00:00:00Z"));
    assert!(f[0].contains("the evaluation was created 20"), "{f:?}");
    // A task no log ran (the file drawer), one registered twice, and a
    // log of a task not registered.
    let f = check(&registration(), &[("t", &tools)]);
    assert_eq!(
        f,
        ["each registered task has a log: task `failed` | no log of the directory ran it: a registered evaluation is published, whatever it found"]
    );
    let mut reg = registration();
    reg.evaluations.push(reg.evaluations[0].clone());
    assert!(check(&reg, &both)[0].contains("registered twice"));
    let mut reg = registration();
    reg.evaluations.remove(0);
    let f = check(&reg, &both);
    assert_eq!(
        f,
        ["t: the samples its task registered: task `tools` | not registered: the registration names `failed`"]
    );
}

#[test]
fn a_registration_is_read_strictly() {
    let bad = json!({
        "format_version": 1, "kind": "evaluation_registration", "registered_at": "2026-01-01T00:00:00Z",
        "evaluations": [{"task": "t", "samples": [1], "epochs": 1, "scorers": [], "model": "m"}]
    });
    let e = serde_json::from_value::<EvalRegistration>(bad).expect_err("unknown field");
    assert!(e.to_string().contains("unknown field `model`"), "{e}");
}
