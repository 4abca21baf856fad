//! Verifying a report on its own: the record files against their digests,
//! the objects against theirs, the run's checks and outcome recomputed, and
//! the report's claims against the recomputation.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use crate::cost::run_cost;
use crate::digest::sha256_hex;
use crate::manifest::chunks::{chunk_for, run_record};
use crate::manifest::{parse_sums, DATA_DIR, RECORDS_SUMS, SUMS};
use crate::model::{Experiment, Report, ReportSite, Run, Task};

use super::published::{agrees_to, COST_DECIMALS};
use super::run::{task_input_bytes, verify_run};
use super::Receipt;

fn parse<T: DeserializeOwned>(report: &Report, path: &str, out: &mut Vec<Receipt>) -> Option<T> {
    let Some(text) = report.records.get(path) else {
        out.push(Receipt::new(
            path,
            "record",
            "included in the report",
            "missing from the report",
            false,
        ));
        return None;
    };
    super::bundle::parse(path, text.as_bytes(), out)
}

/// Every receipt of a report. Subjects are paths under the records root.
pub fn verify_report(report: &Report) -> Vec<Receipt> {
    let mut out = Vec::new();
    for (path, text) in &report.records {
        let digest = sha256_hex(text.as_bytes());
        match report.record_digests.get(path) {
            Some(d) => out.push(Receipt::new(
                path,
                "SHA-256 as published",
                d,
                &digest,
                *d == digest,
            )),
            None => out.push(Receipt::new(
                path,
                "SHA-256 as published",
                "not listed",
                &digest,
                false,
            )),
        }
    }
    let mut objects: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (digest, object) in &report.objects {
        let subject = crate::layout::object_path(digest);
        match object.decode() {
            None => out.push(Receipt::new(
                &subject,
                "object bytes",
                digest,
                "the hex encoding is malformed",
                false,
            )),
            Some(bytes) => {
                let actual = sha256_hex(&bytes);
                out.push(Receipt::new(
                    &subject,
                    "object bytes",
                    digest,
                    &actual,
                    actual == *digest,
                ));
                objects.insert(digest.clone(), bytes);
            }
        }
    }
    let dir = &report.experiment_dir;
    let experiment: Option<Experiment> = parse(report, &format!("{dir}/experiment.json"), &mut out);
    let run_path = crate::layout::run_path(dir, &report.run);
    let run: Option<Run> = parse(report, &run_path, &mut out);
    let (Some(experiment), Some(run)) = (experiment, run) else {
        return out;
    };
    let task: Option<Task> = parse(report, &crate::layout::task_path(&run.task), &mut out);
    let Some(task) = task else {
        return out;
    };
    let inputs = task_input_bytes(&task, &objects);
    let verification = verify_run(
        &run_path,
        &run,
        &task,
        &inputs,
        &objects,
        &experiment.prices,
    );
    let passed = verification.passed();
    out.extend(verification.receipts);
    let claims = &report.claims;
    out.push(Receipt::equal(
        "report",
        "claims.passed",
        claims.passed,
        passed,
    ));
    match run_cost(&run, &experiment.prices) {
        Ok(cost) => out.push(Receipt::new(
            "report",
            "claims.cost_usd",
            format!("{}–{}", claims.cost_usd.low, claims.cost_usd.high),
            format!("{}–{}", cost.low, cost.high),
            // To the micro-dollar at least: a claim of 0 does not agree with
            // every cost under half a dollar.
            agrees_to(claims.cost_usd.low, cost.low, COST_DECIMALS)
                && agrees_to(claims.cost_usd.high, cost.high, COST_DECIMALS),
        )),
        Err(e) => out.push(Receipt::unchecked(
            "report",
            "claims.cost_usd",
            claims.cost_usd.low.to_string(),
            e.to_string(),
        )),
    }
    let time_s = run.attempts.iter().map(|a| a.duration_ms).sum::<u64>() as f64 / 1000.0;
    out.push(Receipt::new(
        "report",
        "claims.time_s",
        claims.time_s.to_string(),
        time_s.to_string(),
        // To the millisecond the durations are recorded in.
        agrees_to(claims.time_s, time_s, 3),
    ));
    out
}

/// The receipts that anchor `report` to the site it names: its manifests
/// against the root digest it names and against each other, and its records
/// and objects against the records manifest. A report is anchored only by
/// something it does not carry itself: `pin`, the root digest the reader was
/// given, or `site_sums`, the `SHA256SUMS` of the site it is checked
/// against. Without either, a forger could have made the whole report
/// consistent, and a receipt says it could not be checked.
pub fn anchor_report(report: &Report, pin: Option<&str>, site_sums: Option<&[u8]>) -> Vec<Receipt> {
    let mut out = Vec::new();
    let Some(site) = &report.site else {
        out.push(Receipt::unchecked(
            "report",
            "site",
            "not named",
            "the report names no site (written by an older receipts): it is consistent, not anchored",
        ));
        return out;
    };
    let root = sha256_hex(site.sums.as_bytes());
    out.push(Receipt::new(
        "report",
        "site.root_digest",
        &site.root_digest,
        &root,
        site.root_digest == root,
    ));
    let records_digest = sha256_hex(site.records_sums.as_bytes());
    let listed = parse_sums(&site.sums)
        .map_err(|e| format!("site.sums: {e}"))
        .and_then(|s| {
            s.get(RECORDS_SUMS)
                .cloned()
                .ok_or_else(|| format!("site.sums does not list {RECORDS_SUMS}"))
        });
    out.push(match listed {
        Ok(listed) => Receipt::new(
            "report",
            format!("site.records_sums in {SUMS}"),
            &listed,
            &records_digest,
            listed == records_digest,
        ),
        Err(e) => Receipt::new(
            "report",
            format!("site.records_sums in {SUMS}"),
            e,
            &records_digest,
            false,
        ),
    });
    out.push(Receipt::new(
        "report",
        "records_digest",
        &report.records_digest,
        &records_digest,
        report.records_digest == records_digest,
    ));
    match parse_sums(&site.records_sums) {
        Ok(mut records) => {
            let run_path = crate::layout::run_path(&report.experiment_dir, &report.run);
            if let Some(listed) = run_listing(site, &records, &run_path, &mut out) {
                records.insert(run_path, listed);
            }
            let named = report
                .records
                .iter()
                .map(|(path, text)| (path.clone(), sha256_hex(text.as_bytes())))
                .chain(
                    report
                        .objects
                        .keys()
                        .map(|d| (crate::layout::object_path(d), d.clone())),
                );
            for (path, digest) in named {
                let manifest = chunk_for(&records, &path).unwrap_or_else(|| SUMS.to_string());
                let claim = format!("SHA-256 in {DATA_DIR}/{manifest}");
                out.push(match records.get(&path) {
                    Some(listed) => Receipt::new(&path, claim, listed, &digest, *listed == digest),
                    None => Receipt::new(&path, claim, "not listed", &digest, false),
                });
            }
        }
        Err(e) => out.push(Receipt::new(
            "report",
            "site.records_sums",
            "a SHA256SUMS file",
            e.to_string(),
            false,
        )),
    }
    if let Some(pin) = pin {
        out.push(Receipt::new(
            SUMS,
            "root digest",
            pin,
            &site.root_digest,
            pin == site.root_digest,
        ));
    }
    if let Some(sums) = site_sums {
        let theirs = sha256_hex(sums);
        out.push(Receipt::new(
            SUMS,
            "root digest of the site checked against",
            &theirs,
            &site.root_digest,
            theirs == site.root_digest,
        ));
    }
    if pin.is_none() && site_sums.is_none() {
        out.push(Receipt::unchecked(
            "report",
            "anchored",
            &site.root_digest,
            "consistent, not anchored: nothing but the report itself vouches for this root digest; give the site or the root digest you were given",
        ));
    }
    out
}

/// The line of record `run_path` in the chunk manifest the report carries
/// (`site.run_sums`), when `records` (its `data/SHA256SUMS`) lists the run
/// in a chunk: the chunk held to its line there. `None` when the run is
/// listed in `data/SHA256SUMS` itself, or not at all.
fn run_listing(
    site: &ReportSite,
    records: &BTreeMap<String, String>,
    run_path: &str,
    out: &mut Vec<Receipt>,
) -> Option<String> {
    let claim = format!("site.run_sums in {RECORDS_SUMS}");
    let (chunk, text) = match (chunk_for(records, run_path), &site.run_sums) {
        (None, None) => return None,
        (None, Some(_)) => {
            out.push(Receipt::new(
                "report",
                claim,
                "no chunk manifest: the run is listed in data/SHA256SUMS",
                "a chunk manifest",
                false,
            ));
            return None;
        }
        (Some(chunk), None) => {
            out.push(Receipt::new(
                "report",
                claim,
                format!("{DATA_DIR}/{chunk}"),
                "the report carries no chunk manifest",
                false,
            ));
            return None;
        }
        (Some(chunk), Some(text)) => (chunk, text),
    };
    let digest = sha256_hex(text.as_bytes());
    let expected = records.get(&chunk).cloned().unwrap_or_default();
    out.push(Receipt::new(
        "report",
        claim,
        &expected,
        &digest,
        expected == digest,
    ));
    let (_, file) = run_record(run_path)?;
    match parse_sums(text) {
        Ok(mut listed) => listed.remove(file),
        Err(e) => {
            out.push(Receipt::new(
                "report",
                "site.run_sums",
                "a SHA256SUMS file",
                e.to_string(),
                false,
            ));
            None
        }
    }
}

/// Assembles the report of run `run` of experiment directory `dir` from the
/// published files it needs (paths under the records root): the experiment,
/// task and run records and the objects the run names. `records_digest` is
/// `sums` and `records_sums` are the site's `SHA256SUMS` and
/// `data/SHA256SUMS`, which anchor the report to the site's root digest;
/// `run_sums` the chunk manifest listing the run, when there is one.
/// The same function serves `receipts export` and the browser.
pub fn assemble_report(
    files: &BTreeMap<String, Vec<u8>>,
    dir: &str,
    run: &str,
    sums: &str,
    records_sums: &str,
    run_sums: Option<&str>,
) -> Result<Report, String> {
    let text = |path: &str| -> Result<String, String> {
        let bytes = files
            .get(path)
            .ok_or_else(|| format!("{path} is missing"))?;
        String::from_utf8(bytes.clone()).map_err(|_| format!("{path} is not UTF-8"))
    };
    let run_path = crate::layout::run_path(dir, run);
    let experiment_path = format!("{dir}/experiment.json");
    let run_text = text(&run_path)?;
    let experiment_text = text(&experiment_path)?;
    let parsed: Run =
        serde_json::from_slice(run_text.as_bytes()).map_err(|e| format!("{run_path}: {e}"))?;
    let experiment: Experiment = serde_json::from_slice(experiment_text.as_bytes())
        .map_err(|e| format!("{experiment_path}: {e}"))?;
    let task_path = crate::layout::task_path(&parsed.task);
    let task_text = text(&task_path)?;
    let task: Task =
        serde_json::from_slice(task_text.as_bytes()).map_err(|e| format!("{task_path}: {e}"))?;

    let mut digests: Vec<&str> = task.inputs.iter().map(|i| i.sha256.as_str()).collect();
    digests.extend(parsed.object_digests());
    let objects: BTreeMap<String, Vec<u8>> =
        crate::btree::map(digests.into_iter().filter_map(|d| {
            files
                .get(&crate::layout::object_path(d))
                .map(|b| (d.to_string(), b.clone()))
        }));

    let inputs = task_input_bytes(&task, &objects);
    let verification = verify_run(
        &run_path,
        &parsed,
        &task,
        &inputs,
        &objects,
        &experiment.prices,
    );
    let cost = run_cost(&parsed, &experiment.prices).map_err(|e| e.to_string())?;
    let records: BTreeMap<String, String> = crate::btree::map([
        (experiment_path, experiment_text),
        (task_path, task_text),
        (run_path, run_text),
    ]);
    Ok(Report {
        format_version: crate::model::FormatVersion,
        kind: crate::model::ReportKind::Report,
        run: run.to_string(),
        experiment_dir: dir.to_string(),
        record_digests: crate::btree::map(
            records
                .iter()
                .map(|(p, t)| (p.clone(), sha256_hex(t.as_bytes()))),
        ),
        records,
        objects: crate::btree::map(
            objects
                .iter()
                .map(|(d, b)| (d.clone(), crate::model::ReportObject::encode(b))),
        ),
        records_digest: sha256_hex(records_sums.as_bytes()),
        site: Some(ReportSite {
            root_digest: sha256_hex(sums.as_bytes()),
            sums: sums.to_string(),
            records_sums: records_sums.to_string(),
            run_sums: run_sums.map(str::to_string),
        }),
        claims: crate::model::ReportClaims {
            passed: verification.passed(),
            cost_usd: crate::model::CostBound {
                low: cost.low,
                high: cost.high,
            },
            time_s: parsed.attempts.iter().map(|a| a.duration_ms).sum::<u64>() as f64 / 1000.0,
        },
    })
}
