//! Receipts of one run: the digests of its artifacts and kept files, every recorded check against the
//! check recomputed on the artifact, and the recorded outcome.

use std::collections::BTreeMap;

use crate::checks::{run_all, CheckContext, CheckOutcome};
use crate::digest::sha256_hex;
use crate::facts::RunFacts;
use crate::model::{FileRef, PriceTable, Run, Task};

use super::transcript::{object_receipt, transcript_receipts};
use super::{Objects, Receipt};

/// What verifying a run found.
#[derive(Debug, Clone)]
pub struct RunVerification {
    /// The recomputed checks of each attempt, in attempt order.
    pub checks: Vec<Vec<CheckOutcome>>,
    /// Whether each attempt passed every recomputed check.
    pub attempts_passed: Vec<bool>,
    /// The run's receipts ([`super::ExperimentCheck::verify_run`] adds those
    /// of how the run was conducted).
    pub receipts: Vec<Receipt>,
    /// What the published numbers read of the run.
    pub facts: RunFacts,
}

impl RunVerification {
    /// A run passes when an attempt of its last round passed every
    /// recomputed check.
    pub fn passed(&self) -> bool {
        self.facts.passed(&self.attempts_passed)
    }
}

fn verdict(passed: bool) -> &'static str {
    if passed {
        "pass"
    } else {
        "fail"
    }
}

/// The bytes of each task input, by path, as far as the object store has them.
pub fn task_input_bytes(task: &Task, objects: &dyn Objects) -> BTreeMap<String, Vec<u8>> {
    crate::btree::map(task.inputs.iter().filter_map(|i| {
        objects
            .object(&i.sha256)
            .map(|b| (i.path.clone(), b.to_vec()))
    }))
}

/// Receipts for a task's input files: each object hashes to the digest the task names.
pub fn verify_task_inputs(task: &Task, objects: &dyn Objects) -> Vec<Receipt> {
    task.inputs
        .iter()
        .map(|input| {
            let claim = format!("input `{}` of task `{}`", input.path, task.id);
            object_receipt(objects, &input.sha256, claim)
        })
        .collect()
}

/// The receipts of a run converted from another tool's original: the
/// original is kept, byte for byte. A run recorded on the wire by
/// `receipts record` is derived from its capture again
/// ([`crate::wire::verify`]); that a run is what another tool's original
/// gives is for no receipt here to say, since the verifier re-derives no
/// run from another tool's format, and the page says so.
fn source_receipts(subject: &str, run: &Run, objects: &dyn Objects) -> Vec<Receipt> {
    let Some(source) = &run.source else {
        return Vec::new();
    };
    let from = format!(
        "`{}`, written by {} {} ({})",
        source.file, source.tool, source.version, source.format
    );
    let kept = object_receipt(
        objects,
        &source.sha256,
        format!("original of {}: {from}", run.id),
    );
    if source.format == crate::wire::CAPTURE_FORMAT {
        let mut receipts = vec![kept];
        receipts.extend(crate::wire::verify::verify(subject, run, source, objects));
        return receipts;
    }
    vec![
        kept,
        Receipt::unchecked(
            subject,
            "source",
            format!("converted from {from}"),
            "not re-derived: the verifier reads no run from this tool's format, so the run is held to itself, not to its original",
        ),
    ]
}

/// The claim of the digest receipt of a file attempt `attempt` (from 0)
/// of run `run` kept: its artifact, or another file.
pub fn kept_file_claim(artifact: bool, path: &str, run: &str, attempt: usize) -> String {
    let what = if artifact { "artifact" } else { "file" };
    format!("{what} `{path}` of {run} attempt {}", attempt + 1)
}

/// Pushes the receipt of a kept file's digest and size against the bytes
/// of the object it names; returns those bytes when there are any.
fn kept_file_receipt<'o>(
    receipts: &mut Vec<Receipt>,
    file: &FileRef,
    claim: String,
    objects: &'o dyn Objects,
) -> Option<&'o [u8]> {
    let subject = crate::layout::object_path(&file.sha256);
    let Some(bytes) = objects.object(&file.sha256) else {
        receipts.push(Receipt::new(
            &subject,
            claim,
            &file.sha256,
            "no object holds these bytes",
            false,
        ));
        return None;
    };
    let digest = sha256_hex(bytes);
    let size_ok = bytes.len() as u64 == file.bytes;
    let recomputed = if size_ok {
        digest.clone()
    } else {
        format!("{digest} ({} bytes, not {})", bytes.len(), file.bytes)
    };
    receipts.push(Receipt::new(
        &subject,
        claim,
        &file.sha256,
        recomputed,
        digest == file.sha256 && size_ok,
    ));
    Some(bytes)
}

/// Verifies one run. `subject` is the run record's path; `inputs` the task's input bytes.
pub fn verify_run(
    subject: &str,
    run: &Run,
    task: &Task,
    inputs: &BTreeMap<String, Vec<u8>>,
    objects: &dyn Objects,
    prices: &PriceTable,
) -> RunVerification {
    let mut receipts = source_receipts(subject, run, objects);
    let mut checks = Vec::new();
    let mut attempts_passed = Vec::new();
    for (i, attempt) in run.attempts.iter().enumerate() {
        receipts.extend(transcript_receipts(subject, i, attempt, task, objects));
        let artifact = attempt.artifact.as_ref().and_then(|file| {
            let claim = kept_file_claim(true, &file.path, &run.id, i);
            kept_file_receipt(&mut receipts, file, claim, objects)
        });
        for file in &attempt.files {
            let claim = kept_file_claim(false, &file.path, &run.id, i);
            kept_file_receipt(&mut receipts, file, claim, objects);
        }
        let ctx = CheckContext {
            task,
            inputs,
            recorded_inputs: &attempt.inputs,
            artifact,
        };
        let outcomes = run_all(&ctx);
        for outcome in &outcomes {
            let claim = format!("attempts[{i}].checks[{}]", outcome.check);
            let recomputed = format!("{}: {}", verdict(outcome.passed), outcome.detail);
            let receipt = match attempt.checks.iter().find(|c| c.check == outcome.check) {
                Some(rec) => Receipt::new(
                    subject,
                    claim,
                    format!("{}: {}", verdict(rec.passed), rec.detail),
                    recomputed,
                    rec.passed == outcome.passed,
                ),
                None => Receipt::new(subject, claim, "not recorded", recomputed, false),
            };
            receipts.push(receipt.with_evidence(outcome.evidence.clone()));
        }
        attempts_passed.push(!outcomes.is_empty() && outcomes.iter().all(|o| o.passed));
        checks.push(outcomes);
    }
    let facts = RunFacts::of(run, prices);
    let passed = facts.passed(&attempts_passed);
    let passed_tier = facts.passed_tier(&attempts_passed).map(str::to_string);
    let describe = |passed: bool, tier: &Option<String>| match (passed, tier) {
        (true, Some(t)) => format!("passed on {t}"),
        (true, None) => "passed".to_string(),
        (false, _) => "failed".to_string(),
    };
    receipts.push(Receipt::new(
        subject,
        "outcome",
        describe(run.outcome.passed, &run.outcome.passed_tier),
        describe(passed, &passed_tier),
        run.outcome.passed == passed && run.outcome.passed_tier == passed_tier,
    ));
    RunVerification {
        checks,
        attempts_passed,
        receipts,
        facts,
    }
}
