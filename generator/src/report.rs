//! `receipts export`: one run as a self-contained report file, and reading
//! one back for `receipts verify <report.json>`.

use std::collections::BTreeMap;

use receipts_verifier::cost::run_cost;
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::format_sums;
use receipts_verifier::model::{
    CostBound, FormatVersion, Report, ReportClaims, ReportKind, ReportObject,
};

use crate::error::InputError;
use crate::load::{Corpus, TASKS_DIR};
use crate::verification::Verified;

/// The report of run `run_id`, with the records it needs verbatim.
pub fn export(corpus: &Corpus, verified: &Verified, run_id: &str) -> Result<Report, InputError> {
    let found = corpus
        .experiments
        .iter()
        .enumerate()
        .find_map(|(e, loaded)| {
            loaded
                .runs
                .iter()
                .position(|r| r.id == run_id)
                .map(|r| (e, r))
        });
    let Some((e, r)) = found else {
        return Err(InputError::new(
            corpus.records_name.clone(),
            format!("no run has the id `{run_id}`"),
        ));
    };
    let loaded = &corpus.experiments[e];
    let run = &loaded.runs[r];
    let task = &corpus.tasks[&run.task];
    let paths = [
        format!("{}/experiment.json", loaded.dir),
        format!("{TASKS_DIR}/{}.json", task.id),
        format!("{}/runs/{}.json", loaded.dir, run.id),
    ];
    let mut records = BTreeMap::new();
    let mut record_digests = BTreeMap::new();
    for path in paths {
        let file = corpus.records_dir.join(&path);
        let bytes = std::fs::read(&file).map_err(|err| {
            InputError::new(format!("{}/{path}", corpus.records_name), err.to_string())
        })?;
        let text = crate::parse::utf8(&format!("{}/{path}", corpus.records_name), bytes)?;
        record_digests.insert(path.clone(), sha256_hex(text.as_bytes()));
        records.insert(path, text);
    }
    let mut digests: Vec<&str> = task.inputs.iter().map(|i| i.sha256.as_str()).collect();
    digests.extend(
        run.attempts
            .iter()
            .filter_map(|a| a.artifact.as_ref())
            .map(|f| f.sha256.as_str()),
    );
    digests.extend(
        run.attempts
            .iter()
            .flat_map(|a| &a.turns)
            .filter_map(|t| t.result.sha256.as_deref()),
    );
    let objects = digests
        .into_iter()
        .filter_map(|d| {
            corpus
                .objects
                .get(d)
                .map(|b| (d.to_string(), ReportObject::encode(b)))
        })
        .collect();
    let cost = run_cost(run, &loaded.experiment.prices).unwrap_or_default();
    Ok(Report {
        format_version: FormatVersion,
        kind: ReportKind::Report,
        run: run.id.clone(),
        experiment_dir: loaded.dir.clone(),
        records,
        objects,
        record_digests,
        records_digest: sha256_hex(format_sums(&corpus.record_digests).as_bytes()),
        claims: ReportClaims {
            passed: verified.experiments[e].runs[r].passed(),
            cost_usd: CostBound {
                low: cost.low,
                high: cost.high,
            },
            time_s: run.attempts.iter().map(|a| a.duration_ms).sum::<u64>() as f64 / 1000.0,
        },
    })
}
