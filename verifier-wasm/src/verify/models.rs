//! Receipts of an experiment's model-id smoke test (`models.json`): each
//! probe's verdict recomputed from its call and the provider's list, and
//! every model the tiers request confirmed before the first run started.

use crate::model::{Experiment, ModelCheck, MODEL_CHECK_FILE};
use crate::plural::count;
use crate::time::{self, UnixMillis};

use super::Receipt;

/// The receipts of `check`, the smoke test of experiment `e` in `dir`;
/// `first_run` is when its earliest run started, if any run's start parses.
pub fn model_check_receipts(
    dir: &str,
    check: &ModelCheck,
    e: &Experiment,
    first_run: Option<UnixMillis>,
) -> Vec<Receipt> {
    let subject = format!("{dir}/{MODEL_CHECK_FILE}");
    let word = |confirmed: bool| {
        if confirmed {
            "confirmed"
        } else {
            "not confirmed"
        }
    };
    let mut out: Vec<Receipt> = check
        .probes
        .iter()
        .map(|p| {
            let why = p.unconfirmed(&check.listed);
            let recomputed = match &why {
                None => "confirmed: listed, and answered under this id".to_string(),
                Some(why) => format!("not confirmed: {why}"),
            };
            Receipt::new(
                &subject,
                format!("probes[{}].confirmed", p.model),
                word(p.confirmed),
                recomputed,
                p.confirmed == why.is_none(),
            )
        })
        .collect();
    let recorded = format!(
        "{} probed, listed at {}",
        count(check.probes.len(), "model id", None),
        check.listed_at
    );
    out.push(match before_first_run(check, e, first_run) {
        Ok(fine) => Receipt::new(&subject, "tier models confirmed", recorded, fine, true),
        Err(why) => Receipt::new(&subject, "tier models confirmed", recorded, why, false),
    });
    out
}

/// Every model a tier requests has a confirmed probe, and the list and
/// every probe came before the first run.
fn before_first_run(
    check: &ModelCheck,
    e: &Experiment,
    first_run: Option<UnixMillis>,
) -> Result<String, String> {
    if check.experiment != e.id {
        return Err(format!(
            "the smoke test is of experiment `{}`",
            check.experiment
        ));
    }
    for tier in &e.tiers {
        let probe = check.probes.iter().find(|p| p.model == tier.model);
        match probe {
            None => return Err(format!("no probe of `{}` (tier `{}`)", tier.model, tier.id)),
            Some(p) if p.unconfirmed(&check.listed).is_some() => {
                return Err(format!(
                    "`{}` (tier `{}`) is not confirmed",
                    tier.model, tier.id
                ))
            }
            Some(_) => {}
        }
    }
    let Some(UnixMillis(first)) = first_run else {
        return Ok("every tier's model is confirmed; no run to come before".to_string());
    };
    let listed = time::parse(&check.listed_at).map_err(|e| format!("listed_at: {e}"))?;
    if listed.0 > first {
        return Err(format!(
            "the model list was read at {}, after the first run started",
            check.listed_at
        ));
    }
    for p in &check.probes {
        let start = time::parse(&p.call.started_at)
            .map_err(|e| format!("probes[{}].call.started_at: {e}", p.model))?;
        let end = start
            .0
            .saturating_add(i64::try_from(p.call.latency_ms).unwrap_or(i64::MAX));
        if end > first {
            return Err(format!(
                "the probe of `{}` ended after the first run started",
                p.model
            ));
        }
    }
    Ok(format!(
        "every tier's model ({}) confirmed before the first run",
        e.tiers.len()
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::verify::Status;

    fn experiment() -> Experiment {
        serde_json::from_value(json!({
            "format_version": 1, "kind": "experiment", "id": "E", "title": "t",
            "provenance": "simulated", "question": "q",
            "grid": {"tasks": ["t"], "profiles": ["p"], "seeds": [1], "policies": ["one"], "runs_per_cell": 1},
            "tiers": [
                {"id": "small", "label": "S", "model": "m/Small-1B"},
                {"id": "large", "label": "L", "model": "m/large"}
            ],
            "policies": [{"id": "one", "label": "O", "kind": "single", "tiers": ["large"]}],
            "prices": {"version": "v", "currency": "USD", "models": {}},
            "limits": {"max_turns": 3, "max_run_ms": 60000, "max_output_tokens": 1000},
            "hypotheses": []
        }))
        .expect("experiment")
    }

    fn probe(model: &str, at: u32) -> Value {
        json!({
            "model": model, "confirmed": true,
            "call": {"request_id": format!("p-{at}"), "model_requested": model,
                     "model_echoed": model,
                     "started_at": format!("2026-01-02T00:00:{at:02}Z"), "latency_ms": 500,
                     "usage": {"prompt_tokens": 10, "completion_tokens": 2, "reasoning_tokens": 0,
                               "cache_hit_tokens": null, "cache_miss_tokens": null},
                     "finish_reason": "stop", "max_tokens": 16, "prompt_tokens_reserved": 10,
                     "status": "ok", "http_status": 200}
        })
    }

    fn check() -> Value {
        json!({
            "format_version": 1, "kind": "model_check", "experiment": "E",
            "provenance": "simulated", "listed_at": "2026-01-02T00:00:00Z",
            "listed": ["m/Small-1B", "m/large", "m/other"],
            "probes": [probe("m/Small-1B", 1), probe("m/large", 3)]
        })
    }

    /// The first run starts a minute after the list was read.
    const FIRST_RUN: Option<UnixMillis> = Some(UnixMillis(1_767_312_060_000));

    fn failures(check: &Value) -> Vec<String> {
        let check: ModelCheck = serde_json::from_value(check.clone()).expect("check");
        model_check_receipts("E", &check, &experiment(), FIRST_RUN)
            .into_iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| format!("{}: {}", r.claim, r.recomputed))
            .collect()
    }

    #[test]
    fn a_smoke_test_confirming_every_tier_model_before_the_first_run_passes() {
        assert_eq!(
            crate::time::parse("2026-01-02T00:01:00Z").ok(),
            FIRST_RUN,
            "the test's first run"
        );
        assert!(failures(&check()).is_empty(), "{:?}", failures(&check()));
    }

    #[test]
    fn an_id_answered_as_its_dated_snapshot_is_confirmed_and_as_another_model_is_not() {
        let mut c = check();
        c["probes"][1]["call"]["model_echoed"] = json!("m/large-2024-07-18");
        assert!(failures(&c).is_empty(), "{:?}", failures(&c));
        c["probes"][1]["call"]["model_echoed"] = json!("m/large-mini");
        let failed = failures(&c);
        assert!(
            failed
                .iter()
                .any(|f| f.contains("the provider answered as `m/large-mini`")),
            "{failed:?}"
        );
    }

    #[test]
    fn a_forged_smoke_test_fails() {
        type Edit = fn(&mut Value);
        let cases: [(&str, Edit); 7] = [
            ("answered as `m/small-1b`", |c| {
                // The provider answered under another spelling; still "confirmed".
                c["probes"][0]["call"]["model_echoed"] = json!("m/small-1b");
            }),
            ("differs in case", |c| c["listed"][0] = json!("m/small-1b")),
            ("did not complete", |c| {
                let call = &mut c["probes"][1]["call"];
                call["status"] = json!("error");
                call["usage"] = Value::Null;
            }),
            ("no probe of `m/large`", |c| {
                c["probes"].as_array_mut().expect("probes").pop();
            }),
            ("ended after the first run started", |c| {
                c["probes"][1]["call"]["started_at"] = json!("2026-01-02T00:00:59.700Z");
            }),
            ("after the first run started", |c| {
                c["listed_at"] = json!("2026-01-02T00:02:00Z");
            }),
            ("of experiment `F`", |c| c["experiment"] = json!("F")),
        ];
        for (needle, edit) in cases {
            let mut c = check();
            edit(&mut c);
            let failed = failures(&c);
            assert!(
                failed.iter().any(|f| f.contains(needle)),
                "{needle}: {failed:?}"
            );
        }
        // An unconfirmed id honestly recorded as such is the record's truth,
        // but the tiers' model is still not confirmed.
        let mut c = check();
        c["probes"][0]["call"]["model_echoed"] = json!("m/small-1b");
        c["probes"][0]["confirmed"] = json!(false);
        let failed = failures(&c);
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(failed[0].starts_with("tier models confirmed"), "{failed:?}");
    }
}
