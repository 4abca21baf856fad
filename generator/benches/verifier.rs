//! Benchmarks of the verification core: SHA-256, parsing a run record,
//! verifying a run, each task family's checks, the published numbers over
//! 1,000 runs, the rule-expression language and `SHA256SUMS` parsing.
//!
//! The input is simulated in memory by `receipts::simulate` (one experiment of
//! 1,000 runs over the three task families), so nothing is read from disk.
//! Run with `cargo bench -p receipts-verifier` or `scripts/bench-functions`.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};

use receipts::simulate;
use receipts_verifier::checks::expr::Program;
use receipts_verifier::checks::{run_all, CheckContext};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{format_sums, parse_sums};
use receipts_verifier::model::{CheckSpec, Experiment, Run, Task};
use receipts_verifier::numbers::{analyze, primary_runs, JudgedRun};
use receipts_verifier::verify::{verify_files, verify_run, RunVerification, Scope};

/// Runs in the simulated experiment.
const RUNS: usize = 1_000;

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> T {
    serde_json::from_slice(bytes).expect("a simulated record")
}

/// One simulated experiment, parsed.
struct Sample {
    /// Every file, by path relative to `experiments/` (as `verify_files` takes them).
    files: BTreeMap<String, Vec<u8>>,
    tasks: BTreeMap<String, Task>,
    objects: BTreeMap<String, Vec<u8>>,
    experiment: Experiment,
    /// Runs sorted by id, with their record's path relative to `experiments/`.
    runs: Vec<(String, Run)>,
}

impl Sample {
    fn new(runs: usize) -> Sample {
        let files: BTreeMap<String, Vec<u8>> = simulate::scale(runs)
            .into_iter()
            .filter_map(|(path, bytes)| {
                path.strip_prefix("experiments/")
                    .map(|p| (p.to_string(), bytes))
            })
            .collect();
        let mut tasks = BTreeMap::new();
        let mut objects = BTreeMap::new();
        let mut experiment = None;
        let mut parsed_runs = Vec::new();
        for (path, bytes) in &files {
            if let Some(digest) = path.strip_prefix("objects/") {
                objects.insert(digest.to_string(), bytes.clone());
            } else if path.starts_with("tasks/") {
                let task: Task = parse(bytes);
                tasks.insert(task.id.clone(), task);
            } else if path.ends_with("/experiment.json") {
                experiment = Some(parse(bytes));
            } else if path.contains("/runs/") {
                parsed_runs.push((path.clone(), parse(bytes)));
            }
        }
        Sample {
            files,
            tasks,
            objects,
            experiment: experiment.expect("the simulated experiment"),
            runs: parsed_runs,
        }
    }

    /// The task's input bytes, by path.
    fn inputs(&self, task: &Task) -> BTreeMap<String, Vec<u8>> {
        task.inputs
            .iter()
            .map(|i| (i.path.clone(), self.objects[&i.sha256].clone()))
            .collect()
    }

    fn verify(&self, path: &str, run: &Run) -> RunVerification {
        let task = &self.tasks[&run.task];
        verify_run(
            path,
            run,
            task,
            &self.inputs(task),
            &self.objects,
            &self.experiment.prices,
        )
    }

    /// The first passing run of each task, with the task's family as written in records.
    fn run_per_family(&self) -> Vec<(String, &Task, &str, &Run)> {
        self.tasks
            .values()
            .map(|task| {
                let (path, run) = self
                    .runs
                    .iter()
                    .find(|(_, r)| r.task == task.id && r.outcome.passed)
                    .expect("a passing run of every task");
                let family = serde_json::to_value(&task.family).expect("a family");
                let family = family.as_str().expect("a family name").to_string();
                (family, task, path.as_str(), run)
            })
            .collect()
    }
}

fn sha256(c: &mut Criterion) {
    let bytes: Vec<u8> = (0..1usize << 20).map(|i| (i * 31 % 251) as u8).collect();
    let mut group = c.benchmark_group("digest");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("sha256-1MiB", |b| b.iter(|| sha256_hex(black_box(&bytes))));
    group.finish();
}

fn parse_run(c: &mut Criterion, sample: &Sample) {
    let (path, _) = &sample.runs[0];
    let bytes = &sample.files[path];
    let mut group = c.benchmark_group("model");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse-run", |b| {
        b.iter(|| serde_json::from_slice::<Run>(black_box(bytes)).expect("a run"));
    });
    group.finish();
}

fn verify_one_run(c: &mut Criterion, sample: &Sample) {
    let mut group = c.benchmark_group("verify-run");
    for (family, task, path, run) in sample.run_per_family() {
        let inputs = sample.inputs(task);
        group.bench_function(BenchmarkId::from_parameter(&family), |b| {
            b.iter(|| {
                verify_run(
                    black_box(path),
                    black_box(run),
                    task,
                    &inputs,
                    &sample.objects,
                    &sample.experiment.prices,
                )
            });
        });
    }
    group.finish();
}

fn checks(c: &mut Criterion, sample: &Sample) {
    let mut group = c.benchmark_group("checks");
    for (family, task, _, run) in sample.run_per_family() {
        let inputs = sample.inputs(task);
        let attempt = run.attempts.last().expect("an attempt");
        let artifact = attempt
            .artifact
            .as_ref()
            .map(|f| sample.objects[&f.sha256].as_slice());
        let ctx = CheckContext {
            task,
            inputs: &inputs,
            recorded_inputs: &attempt.inputs,
            artifact,
        };
        group.bench_function(BenchmarkId::from_parameter(&family), |b| {
            b.iter(|| run_all(black_box(&ctx)));
        });
    }
    group.finish();
}

fn numbers(c: &mut Criterion, sample: &Sample) {
    let verified: Vec<RunVerification> = sample
        .runs
        .iter()
        .map(|(path, run)| sample.verify(path, run))
        .collect();
    let judged: Vec<JudgedRun<'_>> = verified
        .iter()
        .map(|v| JudgedRun {
            run: &v.facts,
            attempts_passed: &v.attempts_passed,
        })
        .collect();
    let mut group = c.benchmark_group("numbers");
    group.throughput(Throughput::Elements(judged.len() as u64));
    group.bench_function(format!("analyze-{}-runs", judged.len()), |b| {
        b.iter(|| {
            let runs = primary_runs(black_box(&judged));
            analyze(&sample.experiment, &runs).expect("every tier priced")
        });
    });
    group.finish();
}

fn verify_experiment(c: &mut Criterion, sample: &Sample) {
    let mut group = c.benchmark_group("verify-experiment");
    // Long iterations: flat sampling (the same count in every sample, at least one) keeps ten
    // samples near the measurement time instead of 1 + 2 + … + 10 iterations.
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(sample.runs.len() as u64));
    group.bench_function(format!("{}-runs", sample.runs.len()), |b| {
        b.iter(|| verify_files(black_box(&sample.files), &Scope::All));
    });
    group.finish();
}

fn expr(c: &mut Criterion, sample: &Sample) {
    // The rule program of a passing run of the programming task, and the task's cases.
    let (task, run) = sample
        .run_per_family()
        .into_iter()
        .find_map(|(_, task, _, run)| {
            task.checks
                .iter()
                .any(|s| matches!(s, CheckSpec::RuleCases { .. }))
                .then_some((task, run))
        })
        .expect("a task with rule cases");
    let artifact = run.attempts.last().and_then(|a| a.artifact.as_ref());
    let bytes = &sample.objects[&artifact.expect("a rule program").sha256];
    let program: serde_json::Value = serde_json::from_slice(bytes).expect("a rule program");
    let source = program["expr"].as_str().expect("an expression").to_string();
    let cases: Vec<BTreeMap<String, i64>> = task
        .checks
        .iter()
        .flat_map(|s| match s {
            CheckSpec::RuleCases { cases, .. } => cases.iter().map(|c| c.vars.clone()).collect(),
            _ => Vec::new(),
        })
        .collect();
    let parsed = Program::parse(&source).expect("the program parses");
    let mut group = c.benchmark_group("expr");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| Program::parse(black_box(&source)).expect("the program parses"));
    });
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function(format!("eval-{}-cases", cases.len()), |b| {
        b.iter(|| {
            for env in &cases {
                black_box(parsed.eval(black_box(env)).expect("a value"));
            }
        });
    });
    group.finish();
}

fn sums(c: &mut Criterion, sample: &Sample) {
    let digests: BTreeMap<String, String> = sample
        .files
        .iter()
        .map(|(path, bytes)| (path.clone(), sha256_hex(bytes)))
        .collect();
    let text = format_sums(&digests);
    let mut group = c.benchmark_group("manifest");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function(format!("parse-sums-{}-lines", digests.len()), |b| {
        b.iter(|| parse_sums(black_box(&text)).expect("a manifest"));
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let sample = Sample::new(RUNS);
    sha256(c);
    parse_run(c, &sample);
    verify_one_run(c, &sample);
    checks(c, &sample);
    numbers(c, &sample);
    verify_experiment(c, &sample);
    expr(c, &sample);
    sums(c, &sample);
}

criterion_group!(verifier, benches);
criterion_main!(verifier);
