//! The receipts of an imported Inspect AI evaluation.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::plural::count;

use super::log::{id_text, Log};
use super::record::{content_text, derive, scorer_names, ImportedEval};
use super::reduce::{metric, to_float, Reducer};
use super::scorers::{recompute, Recompute, Subject};
use crate::imported::derived_receipt;
use crate::verify::Receipt;

/// How near a recomputed figure must be to the log's: the last bits of a
/// double, never a rounding a reader could see.
const TOLERANCE: f64 = 1e-12;

/// How many sample runs a log holds or its results count: each sample once
/// per epoch, `1 sample-epoch`, `8 sample-epochs`.
pub(crate) fn sample_epochs(n: usize) -> String {
    count(n, "sample-epoch", None)
}

fn same_number(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// The same value, numbers compared as numbers (Inspect writes `0` where a
/// reduction gives the integer), lists and dictionaries entry by entry.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| same_value(p, q)))
        }
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => same_number(x, y),
            _ => a == b,
        },
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::Null => "unscored".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every receipt of `record` (published as `subject`) against the kept
/// log's bytes, `None` when the log is not kept: a log that is missing or
/// does not read fails.
pub fn verify_kept(subject: &str, record: &ImportedEval, log: Option<&[u8]>) -> Vec<Receipt> {
    let Some(bytes) = log else {
        return vec![Receipt::new(
            subject,
            "source.sha256",
            &record.source.sha256,
            "no kept log has this digest",
            false,
        )];
    };
    match Log::read(bytes) {
        Ok(log) => verify(subject, record, &log, &crate::digest::sha256_hex(bytes)),
        Err(e) => vec![Receipt::new(
            subject,
            "source",
            &record.source.file,
            format!("the kept log does not read: {e}"),
            false,
        )],
    }
}

/// Every receipt of `record` (published as `subject`) against `log`, the
/// kept original whose bytes have the SHA-256 `log_sha256`.
pub fn verify(subject: &str, record: &ImportedEval, log: &Log, log_sha256: &str) -> Vec<Receipt> {
    let mut out = vec![Receipt::new(
        subject,
        "source.sha256",
        &record.source.sha256,
        log_sha256,
        record.source.sha256 == log_sha256,
    )];
    out.push(derived_receipt(
        subject,
        "derived from the log",
        "the log",
        record,
        &derive(log, record.source.clone()),
    ));
    out.extend(super::shape::version_receipt(subject, log));
    out.extend(completeness(subject, log));
    out.extend(outputs(subject, log));
    out.extend(scorers_named(subject, log));
    out.extend(scores(subject, log));
    out.extend(metrics(subject, log));
    out
}

/// Every sample of the dataset, in every epoch, is in the log, and no
/// other, when the evaluation finished successfully; the results count them as the
/// samples do. A sample dropped from a finished log fails here, whatever
/// its reductions and metrics were rewritten to.
fn completeness(subject: &str, log: &Log) -> Vec<Receipt> {
    let claim = "samples";
    let held: std::collections::BTreeSet<(String, u32)> = log
        .samples
        .iter()
        .map(|s| (id_text(&s.id), s.epoch))
        .collect();
    let recorded = sample_epochs(log.samples.len());
    // A log that stopped (`error`, `cancelled`, `started`) says so on its
    // page and claims no complete set of samples.
    if log.status != "success" {
        return Vec::new();
    }
    if log.samples.is_empty() && log.eval.config.log_samples == Some(false) {
        return vec![Receipt::unchecked(
            subject,
            claim,
            recorded,
            "the evaluation was told not to write its samples (log_samples off): nothing it reports can be recomputed",
        )];
    }
    let Some(ids) = log
        .eval
        .dataset
        .as_ref()
        .and_then(|d| d.sample_ids.as_ref())
    else {
        return vec![Receipt::unchecked(
            subject,
            claim,
            recorded,
            "the log does not list its dataset's sample ids",
        )];
    };
    let epochs = log.eval.config.epochs.unwrap_or(1);
    let expected: std::collections::BTreeSet<(String, u32)> = ids
        .iter()
        .flat_map(|id| (1..=epochs).map(move |e| (id_text(id), e)))
        .collect();
    let problem = if let Some((id, e)) = expected.difference(&held).next() {
        Some(format!(
            "the dataset names sample {id}, epoch {e}, which the log does not hold"
        ))
    } else if let Some((id, e)) = held.difference(&expected).next() {
        Some(format!("sample {id}, epoch {e} is not in the dataset"))
    } else {
        let completed = log.samples.iter().filter(|s| s.error.is_none()).count() as u64;
        match log.results.as_ref() {
            Some(r) if r.total_samples.is_some_and(|t| t != held.len() as u64) => Some(format!(
                "the results count {}; the log holds {}",
                sample_epochs(r.total_samples.unwrap_or_default() as usize),
                held.len()
            )),
            Some(r) if r.completed_samples.is_some_and(|c| c != completed) => Some(format!(
                "the results count {} completed; {completed} finished without an error",
                r.completed_samples.unwrap_or_default()
            )),
            _ => None,
        }
    };
    vec![match problem {
        None => Receipt::new(
            subject,
            claim,
            recorded,
            format!(
                "every one of the dataset's {} samples in each of {epochs} epochs",
                ids.len()
            ),
            true,
        ),
        Some(why) => Receipt::new(subject, claim, recorded, why, false),
    }]
}

/// Each sample's output is the last message of its transcript: an output
/// edited to agree with a rewritten score, and not the transcript, fails.
fn outputs(subject: &str, log: &Log) -> Vec<Receipt> {
    let mut out = Vec::new();
    for s in &log.samples {
        let Some(choice) = s.output.as_ref().and_then(|o| o.choices.first()) else {
            continue;
        };
        let claim = format!("samples[{} epoch {}].output", id_text(&s.id), s.epoch);
        let chosen = content_text(&choice.message["content"], "text");
        let last = s
            .messages
            .iter()
            .rev()
            .find(|m| m["role"] == "assistant")
            .map(|m| content_text(&m["content"], "text"));
        let completion = s.completion();
        let problem = if chosen != completion {
            Some(format!("the output's message reads {chosen:?}"))
        } else if last.as_deref() != Some(completion) {
            Some(format!(
                "the transcript's last assistant message reads {}",
                last.map_or("nothing".into(), |l| format!("{l:?}"))
            ))
        } else {
            None
        };
        if let Some(why) = problem {
            out.push(Receipt::new(
                subject,
                claim,
                format!("{completion:?}"),
                why,
                false,
            ));
        }
    }
    out
}

/// Each scorer the results name is one the task ran: a deterministic
/// scorer relabelled as a judge's, to escape recomputation, fails.
fn scorers_named(subject: &str, log: &Log) -> Vec<Receipt> {
    use super::scorers::base_name;
    if log.eval.scorers.is_empty() {
        // Logs of older Inspect versions name the scorers only in their results.
        return log
            .results
            .iter()
            .flat_map(|r| &r.scores)
            .map(|line| {
                Receipt::unchecked(
                    subject,
                    format!("scorers[{}].scorer", line.name),
                    &line.scorer,
                    "the log's specification does not list the scorers the task ran",
                )
            })
            .collect();
    }
    let ran: Vec<&str> = log
        .eval
        .scorers
        .iter()
        .map(|s| base_name(&s.name))
        .collect();
    log.results
        .iter()
        .flat_map(|r| &r.scores)
        .filter(|line| !ran.contains(&base_name(&line.scorer)))
        .map(|line| {
            Receipt::new(
                subject,
                format!("scorers[{}].scorer", line.name),
                &line.scorer,
                format!("the task ran {}", ran.join(", ")),
                false,
            )
        })
        .collect()
}

/// Each score of a deterministic scorer, recomputed from its sample.
fn scores(subject: &str, log: &Log) -> Vec<Receipt> {
    let names = scorer_names(log);
    let options = log.scorer_options();
    let empty = serde_json::Map::new();
    let mut out = Vec::new();
    for s in &log.samples {
        let targets = s.targets();
        let subject_of = Subject {
            completion: s.completion(),
            targets: &targets,
            choices: s.choices.as_deref(),
            inspect: log.inspect_version(),
        };
        for (key, score) in &s.scores {
            let Some(scorer) = names.get(key) else {
                // An older version's log that stopped before its results
                // names neither the scorer nor its options.
                let why = if log.eval.scorers.is_empty() && log.results.is_none() {
                    "the log records neither the scorers the task ran nor their options".to_string()
                } else {
                    format!("no scorer of the evaluation is named `{key}`")
                };
                out.push(Receipt::unchecked(
                    subject,
                    format!(
                        "samples[{} epoch {}].scores[{key}]",
                        id_text(&s.id),
                        s.epoch
                    ),
                    show(&score.value),
                    why,
                ));
                continue;
            };
            if !super::scorers::is_deterministic(scorer) {
                continue;
            }
            let opts = options.get(scorer.as_str()).copied().unwrap_or(&empty);
            let claim = format!(
                "samples[{} epoch {}].scores[{key}]",
                id_text(&s.id),
                s.epoch
            );
            let recorded = format!(
                "{} (answer {})",
                show(&score.value),
                score
                    .answer
                    .as_deref()
                    .map_or("none".into(), |a| format!("{a:?}"))
            );
            out.push(match recompute(scorer, opts, &subject_of) {
                Recompute::Scored(r) => {
                    let pass = same_value(&r.value, &score.value) && r.answer == score.answer;
                    Receipt::new(
                        subject,
                        claim,
                        recorded,
                        format!(
                            "{} (answer {})",
                            show(&r.value),
                            r.answer
                                .as_deref()
                                .map_or("none".into(), |a| format!("{a:?}"))
                        ),
                        pass,
                    )
                }
                Recompute::NotRecomputed(why) => Receipt::unchecked(subject, claim, recorded, why),
            });
        }
    }
    out
}

/// Each scorer × reducer: every sample's epochs reduced, then each metric
/// over the reduced values, compared with the log's reductions and results.
fn metrics(subject: &str, log: &Log) -> Vec<Receipt> {
    let Some(results) = &log.results else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in &results.scores {
        let reducer_name = line.reducer.clone().unwrap_or_else(|| "mean".to_string());
        let at = format!("scorers[{} {reducer_name}]", line.name);
        let Some(reducer) = Reducer::parse(&reducer_name) else {
            out.push(Receipt::unchecked(
                subject,
                format!("{at}.reduction"),
                &reducer_name,
                format!("the reducer `{reducer_name}` is not one the verifier recomputes"),
            ));
            continue;
        };
        // Samples by id, epochs in order; errored samples never reach the metrics.
        let mut by_id: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for s in log.samples.iter().filter(|s| s.error.is_none()) {
            if let Some(value) = line_value(s, line) {
                by_id.entry(id_text(&s.id)).or_default().push(value);
            }
        }
        let scored_at_all = log.samples.iter().any(|s| line_value(s, line).is_some());
        let reduced: Option<BTreeMap<String, Value>> = by_id
            .iter()
            .map(|(id, values)| Some((id.clone(), reducer.reduce_any(values)?)))
            .collect();
        let reduced = match reduced {
            Some(reduced) if scored_at_all => reduced,
            _ => {
                let why = if scored_at_all {
                    format!("`{}` gives values of several shapes, or lists or dictionaries the `{reducer_name}` reducer does not reduce here", line.name)
                } else {
                    format!("no sample holds a score named `{}`", line.name)
                };
                out.push(Receipt::unchecked(
                    subject,
                    format!("{at}.reduction"),
                    &reducer_name,
                    why.clone(),
                ));
                for (name, recorded) in &line.metrics {
                    out.push(Receipt::unchecked(
                        subject,
                        format!("{at}.{name}"),
                        show(&recorded.value),
                        why.clone(),
                    ));
                }
                continue;
            }
        };
        let reduction = |name: &str| {
            log.reductions.iter().flatten().find(|r| {
                r.scorer == name && r.reducer.as_deref().unwrap_or("mean") == reducer_name
            })
        };
        // A line of its own scorer's, or one entry of a scorer's dict.
        let recorded = reduction(&line.name)
            .map(|r| (r, None))
            .or_else(|| reduction(&line.scorer).map(|r| (r, Some(line.name.as_str()))));
        if let Some((recorded, entry)) = recorded {
            let logged: BTreeMap<String, Value> = recorded
                .samples
                .iter()
                .map(|r| {
                    let value = match entry {
                        Some(key) => r.value.get(key).cloned().unwrap_or(Value::Null),
                        None => r.value.clone(),
                    };
                    (id_text(&r.sample_id), value)
                })
                .collect();
            let differs = logged
                .keys()
                .chain(reduced.keys())
                .find(|id| {
                    !same_value(
                        logged.get(*id).unwrap_or(&Value::Bool(false)),
                        reduced.get(*id).unwrap_or(&Value::Bool(false)),
                    )
                })
                .cloned();
            out.push(match differs {
                None => Receipt::new(
                    subject,
                    format!("{at}.reduction"),
                    format!("{} samples", logged.len()),
                    format!("{} samples, each the same", reduced.len()),
                    true,
                ),
                Some(id) => Receipt::new(
                    subject,
                    format!("{at}.reduction"),
                    format!(
                        "sample {id}: {}",
                        logged.get(&id).map_or("absent".into(), show)
                    ),
                    format!(
                        "sample {id}: {}",
                        reduced.get(&id).map_or("absent".into(), show)
                    ),
                    false,
                ),
            });
        }
        let values: Vec<f64> = reduced.values().filter_map(to_float).collect();
        for (name, recorded) in &line.metrics {
            let claim = format!("{at}.{name}");
            let shown = show(&recorded.value);
            out.push(match (metric(name, &values), recorded.value.as_f64()) {
                (Some(v), Some(r)) => {
                    Receipt::new(subject, claim, shown, v.to_string(), same_number(v, r))
                }
                (Some(v), None) => Receipt::new(subject, claim, shown, v.to_string(), false),
                (None, _) => Receipt::unchecked(
                    subject,
                    claim,
                    shown,
                    format!("the metric `{name}` is not one the verifier recomputes"),
                ),
            });
        }
    }
    out
}

/// The value `line` scores sample `s` with: the sample's score named as the
/// line, or, for a scorer that gives a dictionary (one results line per
/// entry, named as the entry), that entry of its score.
fn line_value(s: &super::log::Sample, line: &super::log::EvalScore) -> Option<Value> {
    if let Some(score) = s.scores.get(&line.name) {
        return Some(score.value.clone());
    }
    let score = s.scores.get(&line.scorer)?;
    score.value.as_object()?.get(&line.name).cloned()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::Value;

    use super::verify;
    use crate::inspect::reduce::Reducer;
    use crate::inspect::{derive, Log, Source};
    use crate::verify::{Receipt, Status};

    fn fixture(name: &str) -> Vec<u8> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/inspect");
        std::fs::read(dir.join(name)).expect("fixture")
    }

    fn source() -> Source {
        Source {
            tool: "inspect_ai".into(),
            version: "0.3.285".into(),
            file: "log.json".into(),
            format: "json".into(),
            sha256: "d".into(),
        }
    }

    fn receipts_of(bytes: &[u8]) -> Vec<Receipt> {
        let log = Log::from_json(bytes).expect("log");
        let record = derive(&log, source());
        verify("x/inspect.json", &record, &log, "d")
    }

    fn failing(receipts: &[Receipt]) -> Vec<String> {
        receipts
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| format!("{}: {} | {}", r.claim, r.recorded, r.recomputed))
            .collect()
    }

    const LOGS: [&str; 6] = ["scorers", "choice", "tools", "errors", "failed", "unscored"];

    #[test]
    fn every_score_reduction_and_metric_of_the_real_logs_is_recomputed_and_agrees() {
        let expected: Value = serde_json::from_slice(&fixture("expected.json")).expect("expected");
        for name in LOGS {
            let file = format!("{name}.json");
            let receipts = receipts_of(&fixture(&file));
            assert_eq!(failing(&receipts), Vec::<String>::new(), "{file}");
            // The metrics the record shows are the ones Inspect reads from the log.
            let log = Log::from_json(&fixture(&file)).expect("log");
            let record = derive(&log, source());
            let reported = expected[&file]["results"]["scores"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(record.scorers.len(), reported.len(), "{file}");
            for (line, want) in record.scorers.iter().zip(&reported) {
                assert_eq!(line.name, want["name"].as_str().expect("name"));
                for (metric, value) in want["metrics"].as_object().expect("metrics") {
                    assert_eq!(line.metrics[metric], value.as_f64(), "{file} {metric}");
                }
            }
            let metrics = receipts
                .iter()
                .filter(|r| r.claim.starts_with("scorers["))
                .count();
            if name != "failed" {
                assert!(metrics >= 2, "{file}: metrics recomputed");
            }
        }
        // The deterministic scorers' scores were each recomputed.
        let receipts = receipts_of(&fixture("scorers.json"));
        let scores = receipts
            .iter()
            .filter(|r| r.claim.contains("].scores["))
            .count();
        assert_eq!(scores, 4 * 2 * 5, "every sample × epoch × scorer");
        let receipts = receipts_of(&fixture("choice.json"));
        assert!(receipts.iter().any(|r| r.claim.contains("scores[choice]")));
    }

    fn edited(name: &str, edit: impl Fn(&mut Value)) -> Vec<u8> {
        let text = String::from_utf8(fixture(name)).expect("utf8");
        let mut v: Value =
            serde_json::from_str(&crate::inspect::log::lenient_json(&text)).expect("json");
        edit(&mut v);
        serde_json::to_vec(&v).expect("json")
    }

    #[test]
    fn a_rewritten_score_a_rounded_metric_or_a_dropped_sample_fails() {
        // A score flipped to correct: the recomputed score disagrees, and so
        // do the reduction and the metric built on it.
        let forged = edited("scorers.json", |v| {
            let s = v["samples"]
                .as_array_mut()
                .expect("samples")
                .iter_mut()
                .find(|s| s["scores"]["match"]["value"] == "I")
                .expect("an incorrect match");
            s["scores"]["match"]["value"] = "C".into();
        });
        let f = failing(&receipts_of(&forged));
        assert!(f.iter().any(|l| l.contains("].scores[match]: C")), "{f:?}");
        assert!(
            f.iter()
                .any(|l| l.starts_with("scorers[match mean].reduction")),
            "{f:?}"
        );
        // An accuracy rounded up until it reads better.
        let forged = edited("scorers.json", |v| {
            v["results"]["scores"][0]["metrics"]["accuracy"]["value"] = 0.63.into();
        });
        let f = failing(&receipts_of(&forged));
        assert_eq!(
            f,
            vec!["scorers[match mean].accuracy: 0.63 | 0.625".to_string()]
        );
        // The inconvenient sample dropped, every epoch of it: the reductions
        // and metrics the log reports no longer follow from its samples.
        let forged = edited("scorers.json", |v| {
            v["samples"]
                .as_array_mut()
                .expect("samples")
                .retain(|s| s["id"] != 4);
        });
        let f = failing(&receipts_of(&forged));
        assert!(f.iter().any(|l| l.contains("reduction: sample 4")), "{f:?}");
        // A model-graded judgment is shown, never recomputed.
        let receipts = receipts_of(&fixture("unscored.json"));
        assert!(!receipts.iter().any(|r| r.claim.contains("scores[judged]")));
    }

    #[test]
    fn a_consistently_dropped_sample_an_edited_output_or_a_relabelled_scorer_fails() {
        // The inconvenient sample dropped, and every reduction and metric
        // rewritten from the samples that are left: only the dataset's
        // list of samples tells.
        let dropped = edited("tools.json", |v| {
            v["samples"]
                .as_array_mut()
                .expect("samples")
                .retain(|s| s["scores"]["includes"]["value"] != "I");
        });
        let log = Log::from_json(&dropped).expect("log");
        let mut consistent: Value = serde_json::from_slice(&dropped).expect("json");
        let kept = log.samples.len();
        consistent["reductions"][0]["samples"]
            .as_array_mut()
            .expect("reduced")
            .retain(|r| log.samples.iter().any(|s| s.id == r["sample_id"]));
        let metrics = &mut consistent["results"]["scores"][0]["metrics"];
        metrics["accuracy"]["value"] = 1.0.into();
        metrics["stderr"]["value"] = 0.0.into();
        consistent["results"]["total_samples"] = kept.into();
        consistent["results"]["completed_samples"] = kept.into();
        let f = failing(&receipts_of(
            &serde_json::to_vec(&consistent).expect("json"),
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].starts_with("samples: 1 sample-epoch | the dataset names sample add-2, epoch 1"),
            "{f:?}"
        );

        // The output rewritten to agree with a flipped score, the transcript left as it was.
        let forged = edited("tools.json", |v| {
            let s = v["samples"]
                .as_array_mut()
                .expect("samples")
                .iter_mut()
                .find(|s| s["scores"]["includes"]["value"] == "I")
                .expect("an incorrect sample");
            let target = s["target"].as_str().expect("target").to_string();
            s["output"]["completion"] = format!("The sum is {target}.").into();
            s["output"]["choices"][0]["message"]["content"] =
                format!("The sum is {target}.").into();
            s["scores"]["includes"]["value"] = "C".into();
        });
        let f = failing(&receipts_of(&forged));
        assert!(
            f.iter().any(|l| l.contains("].output: ")
                && l.contains("the transcript's last assistant message reads")),
            "{f:?}"
        );

        // A deterministic scorer relabelled as a judge's, to escape recomputation.
        let forged = edited("tools.json", |v| {
            v["results"]["scores"][0]["scorer"] = "model_graded_qa".into();
        });
        let f = failing(&receipts_of(&forged));
        assert!(
            f.iter().any(|l| l
                .starts_with("scorers[includes].scorer: model_graded_qa | the task ran includes")),
            "{f:?}"
        );
    }

    #[test]
    fn list_and_dictionary_scores_are_reduced_entry_by_entry() {
        // A scorer giving a dictionary, reduced by `mean` key by key; as a
        // number each reduced dictionary is 0, so its accuracy is 0.
        let log = edited("tools.json", |v| {
            v["eval"]["scorers"]
                .as_array_mut()
                .expect("scorers")
                .push(serde_json::json!({"name": "multi", "options": {}}));
            v["results"]["scores"].as_array_mut().expect("scores").push(serde_json::json!({
                "name": "multi", "scorer": "multi", "metrics": {"accuracy": {"name": "accuracy", "value": 0.0}}
            }));
            for s in v["samples"].as_array_mut().expect("samples") {
                s["scores"]["multi"] = serde_json::json!({"value": {"a": "C", "b": [1, 0.5]}});
            }
        });
        let r = receipts_of(&log);
        assert!(failing(&r).is_empty(), "{:?}", failing(&r));
        assert!(r
            .iter()
            .any(|r| r.claim == "scorers[multi mean].accuracy" && r.status == Status::Pass));
        let reducer = Reducer::Mean;
        let values = [
            serde_json::json!([1, "C", "I"]),
            serde_json::json!([0, "I", "C"]),
        ];
        assert_eq!(
            reducer.reduce_any(&values),
            Some(serde_json::json!([0.5, 0.5, 0.5]))
        );
        assert_eq!(
            reducer.reduce_any(&[serde_json::json!([1]), serde_json::json!([1, 2])]),
            None
        );
    }

    #[test]
    fn scores_the_verifier_cannot_reduce_are_left_unchecked_never_failed() {
        // A custom scorer with a dict of values per sample reduced by `mode`,
        // and a score key no scorer names: shown as could not be checked,
        // with the reason.
        let forged = edited("tools.json", |v| {
            v["eval"]["scorers"]
                .as_array_mut()
                .expect("scorers")
                .push(serde_json::json!({"name": "multi", "options": {}}));
            v["results"]["scores"].as_array_mut().expect("scores").push(serde_json::json!({
                "name": "multi", "scorer": "multi", "reducer": "mode", "metrics": {"accuracy": {"name": "accuracy", "value": 0.5}}
            }));
            for s in v["samples"].as_array_mut().expect("samples") {
                s["scores"]["multi"] = serde_json::json!({"value": {"a": 1, "b": 0}});
                s["scores"]["stray"] = serde_json::json!({"value": "C"});
            }
        });
        let log = Log::from_json(&forged).expect("log");
        let receipts = verify("x/inspect.json", &derive(&log, source()), &log, "d");
        let unchecked: Vec<String> = receipts
            .iter()
            .filter(|r| r.status == Status::CouldNotCheck)
            .map(|r| format!("{}: {}", r.claim, r.recomputed))
            .collect();
        assert!(
            unchecked.iter().any(|u| u.starts_with(
                "scorers[multi mode].accuracy: `multi` gives values of several shapes"
            )),
            "{unchecked:?}"
        );
        assert!(
            unchecked
                .iter()
                .any(|u| u.contains("scores[stray]: no scorer of the evaluation is named `stray`")),
            "{unchecked:?}"
        );
        assert!(
            receipts.iter().all(|r| r.status != Status::Fail),
            "{:?}",
            failing(&receipts)
        );
    }

    #[test]
    fn a_record_edited_after_the_import_fails_against_its_log() {
        let log = Log::from_json(&fixture("tools.json")).expect("log");
        let mut record = derive(&log, source());
        record.samples[1].completion = "The sum is 9.".into();
        let f = failing(&verify("x/inspect.json", &record, &log, "d"));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].starts_with("derived from the log: samples[1].completion: \"The sum is 9.\""),
            "{f:?}"
        );
        let f = failing(&verify(
            "x/inspect.json",
            &derive(&log, source()),
            &log,
            "e",
        ));
        assert_eq!(f, vec!["source.sha256: d | e".to_string()]);
    }

    #[test]
    fn the_eval_and_json_forms_of_one_log_give_the_same_record() {
        for name in LOGS {
            let json = Log::from_json(&fixture(&format!("{name}.json"))).expect("json");
            let eval = Log::read(&fixture(&format!("{name}.eval"))).expect("eval");
            assert_eq!(derive(&json, source()), derive(&eval, source()), "{name}");
            let receipts = verify("x/inspect.json", &derive(&eval, source()), &eval, "d");
            assert_eq!(failing(&receipts), Vec::<String>::new(), "{name}.eval");
        }
        let deflated = Log::read(&fixture("scorers-deflate.eval")).expect("deflate");
        let json = Log::from_json(&fixture("scorers.json")).expect("json");
        assert_eq!(derive(&deflated, source()), derive(&json, source()));
    }

    #[test]
    fn a_truncated_or_damaged_archive_is_named_with_its_member() {
        let eval = fixture("tools.eval");
        let e = Log::read(&eval[..eval.len() - 30]).expect_err("truncated");
        assert!(
            e.to_string()
                .starts_with("the archive: not a zip archive, or truncated"),
            "{e}"
        );
        let mut damaged = eval.clone();
        let at = damaged
            .windows(4)
            .position(|w| w == [0x50, 0x4b, 0x03, 0x04])
            .expect("member");
        let data = at + 30 + usize::from(u16::from_le_bytes([damaged[at + 26], damaged[at + 27]]));
        damaged[data + 8] ^= 0xff;
        damaged[data + 9] ^= 0xff;
        let e = Log::read(&damaged).expect_err("damaged");
        assert!(e.to_string().contains(".json: "), "names the member: {e}");
    }

    #[test]
    fn attachments_and_a_completion_an_older_version_did_not_store_are_derived() {
        let log = Log::from_json(br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "created": "c"},
            "samples": [{"id": 1, "epoch": 1, "input": "attachment://in", "target": "x",
              "messages": [{"role": "user", "content": [{"type": "text", "text": "attachment://in"}, {"type": "image", "image": "attachment://img"}]},
                           {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "hm"}, {"type": "text", "text": "attachment://out"}, {"type": "text", "text": "two"}]}],
              "output": {"choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "attachment://out"}, {"type": "text", "text": "two"}]}}]},
              "attachments": {"in": "the long input", "out": "one"}}]}"#).expect("read");
        let record = derive(&log, source());
        let s = &record.samples[0];
        assert_eq!(s.input, "the long input");
        assert_eq!(s.completion, "one\ntwo");
        assert_eq!(s.messages[0].text, "the long input");
        assert_eq!(s.messages[0].other_parts, ["image"]);
        assert_eq!(s.messages[1].text, "one\ntwo");
        assert_eq!(s.messages[1].reasoning.as_deref(), Some("hm"));
        // A reference to an attachment the sample does not hold stays as written.
        let log = Log::from_json(br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "created": "c"},
            "samples": [{"id": 1, "epoch": 1, "input": "attachment://gone", "target": "x", "attachments": {}}]}"#).expect("read");
        assert_eq!(derive(&log, source()).samples[0].input, "attachment://gone");
    }

    #[test]
    fn a_log_written_without_its_samples_claims_nothing_it_cannot_show() {
        let log = br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "created": "c",
            "config": {"log_samples": false}, "dataset": {"sample_ids": [1, 2]}},
            "results": {"total_samples": 2, "completed_samples": 2, "scores": [{"name": "match", "scorer": "match", "metrics": {"accuracy": {"value": 1.0}}}]}}"#;
        let r = receipts_of(log);
        assert!(!r.iter().any(|r| r.status == Status::Fail), "{r:?}");
        assert!(
            r.iter()
                .any(|r| r.claim == "samples" && r.status == Status::CouldNotCheck),
            "{r:?}"
        );
        // Without that flag, a log missing its samples fails.
        let dropped =
            String::from_utf8_lossy(log).replace(r#""log_samples": false"#, r#""epochs": 1"#);
        let r = receipts_of(dropped.as_bytes());
        assert!(
            r.iter()
                .any(|r| r.claim == "samples" && r.status == Status::Fail),
            "{r:?}"
        );
    }

    #[test]
    fn a_log_that_cannot_be_read_is_named_with_its_place() {
        // Inspect's reader requires a sample's target, and reads a sample
        // without messages (an empty transcript); log format version 3 is read,
        // a version Inspect has not written is not.
        let e = Log::from_json(br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "created": "c"}, "samples": [{"id": 1, "epoch": 1, "input": "", "messages": []}]}"#).expect_err("no target");
        assert!(e.to_string().contains("missing field `target`"), "{e}");
        Log::from_json(br#"{"version": 3, "status": "success", "eval": {"task": "t", "model": "m", "created": "c"}, "samples": [{"id": 1, "epoch": 1, "input": "", "target": "", "messages": null, "scores": null}]}"#).expect("read");
        let e = Log::from_json(br#"{"version": 4, "status": "success", "eval": {"task": "t", "model": "m", "created": "c"}}"#).expect_err("version");
        assert!(
            e.to_string()
                .starts_with("/version: Inspect AI log format version 4"),
            "{e}"
        );
        let e = Log::from_json(b"{\"version\": 2,\n \"status\": 5}").expect_err("type");
        assert!(e.to_string().starts_with("/: line 2 column"), "{e}");
        assert!(!e.to_string().contains("struct"), "{e}");
    }
}
