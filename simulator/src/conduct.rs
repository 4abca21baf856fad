//! Conducting an experiment as its plan says: every cell in the registered
//! run order, with the plan's pauses (a stop and its resume logged) and its
//! final stop; then the reruns of the cells the ledger stopped before any
//! call; each run scaled by the calibration's tuning and its wall time
//! pinned where the tuning says; and the records written (log, experiment,
//! deviations, runs, summary, objects).

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::layout;
use receipts_verifier::model::{
    Deviation, DeviationKind, Deviations, DeviationsKind, FormatVersion, PolicyKind, Run, Summary,
};

use super::agent::{simulate_run, RunContext};
use super::calibrate::{self, Scales, Tuning};
use super::fixtures::Fixture;
use super::plan::{self, ExperimentPlan, Incident};
use super::{json_bytes, models, publish, Files};

pub(crate) fn write_experiment(
    out: &mut Files,
    plan: &ExperimentPlan,
    fixtures: &[Fixture],
    corrections: bool,
    earlier: &publish::Earlier,
) -> (Vec<Run>, publish::Published) {
    write_experiment_limited(out, plan, fixtures, corrections, None, earlier)
}

pub(crate) fn write_experiment_limited(
    out: &mut Files,
    plan: &ExperimentPlan,
    fixtures: &[Fixture],
    corrections: bool,
    limit: Option<usize>,
    earlier: &publish::Earlier,
) -> (Vec<Run>, publish::Published) {
    let tasks: Vec<&receipts_verifier::model::Task> = fixtures.iter().map(|f| &f.task).collect();
    // The record the calibration measures with (its log is not written yet).
    let draft = publish::experiment(plan, "", &tasks);
    let runs_cut: BTreeSet<String> = plan
        .incidents
        .iter()
        .filter(|(_, i)| i.loses_usage())
        .map(|(id, _)| id.clone())
        .collect();
    let tuning = calibrate::solve(&draft, &plan.calibration, &runs_cut, &mut |tuning| {
        simulate(plan, fixtures, &mut BTreeMap::new(), limit, tuning).runs
    });
    let mut objects = BTreeMap::new();
    let Simulated {
        runs,
        deviations,
        logged,
        t,
    } = simulate(plan, fixtures, &mut objects, limit, &tuning);
    calibrate::check(&draft, &plan.calibration, &runs);
    let log = publish::log(plan, &deviations);
    let deviations = (!logged.is_empty()).then(|| Deviations {
        format_version: FormatVersion,
        kind: DeviationsKind::Deviations,
        experiment: plan.id.clone(),
        deviations: logged,
    });
    if let Some(d) = &deviations {
        out.insert(
            format!("experiments/{}/deviations.json", plan.id),
            json_bytes(d),
        );
    }
    let experiment = publish::experiment(plan, &log, &tasks);
    let dir = format!("experiments/{}", plan.id);
    out.insert(
        format!("{dir}/{}", receipts_verifier::model::MODEL_CHECK_FILE),
        json_bytes(&models::model_check(plan)),
    );
    out.insert(format!("{dir}/LOG.md"), log.into_bytes());
    out.insert(format!("{dir}/experiment.json"), json_bytes(&experiment));
    let mut published = publish::summary(
        &experiment,
        &runs,
        deviations.as_ref(),
        t + 3_600_000,
        corrections,
        earlier,
    );
    let summary = &mut published.summary;
    if !summary.corrections.is_empty() {
        // The summary as first published, kept as an object each correction names.
        let first = Summary {
            corrections: Vec::new(),
            ..summary.clone()
        };
        let bytes = publish::summary_json(&first);
        let digest = receipts_verifier::digest::sha256_hex(&bytes);
        for c in &mut summary.corrections {
            c.published_in = Some(digest.clone());
        }
        objects.insert(digest, bytes);
    }
    out.insert(
        format!("{dir}/summary.json"),
        publish::summary_json(summary),
    );
    out.insert(
        format!("{dir}/results.csv"),
        publish::results_csv(&publish::results(&experiment, &runs)),
    );
    for run in &runs {
        out.insert(layout::run_path(&dir, &run.id), json_bytes(run));
    }
    for (digest, bytes) in objects {
        out.insert(
            format!("experiments/{}", layout::object_path(&digest)),
            bytes,
        );
    }
    (runs, published)
}

/// The runs of an experiment and the deviations logged on the way.
struct Simulated {
    runs: Vec<Run>,
    /// Deviation lines for the log, and the records of `deviations.json`.
    deviations: Vec<String>,
    logged: Vec<Deviation>,
    /// When the last run ended (and the log was last written).
    t: i64,
}

/// Runs every cell of `plan` (the first `limit`), then the reruns of the
/// cells the ledger stopped, scaled by `tuning`.
fn simulate(
    plan: &ExperimentPlan,
    fixtures: &[Fixture],
    objects: &mut BTreeMap<String, Vec<u8>>,
    limit: Option<usize>,
    tuning: &Tuning,
) -> Simulated {
    let mut runs = Vec::new();
    let mut t = plan.start_ms;
    let mut cells = plan.cells();
    if let Some(n) = limit.or(plan.stop.as_ref().map(|(n, _)| *n)) {
        cells.truncate(n);
    }
    let mut reruns = Vec::new();
    let mut deviations = Vec::new();
    let mut logged = Vec::new();
    // Tier memory: the tier each task last passed on, by index.
    let mut memory: BTreeMap<String, usize> = BTreeMap::new();
    for (index, cell) in cells.iter_mut().enumerate() {
        if let Some(pause) = plan.pauses.iter().find(|p| p.after == index) {
            // Stopped after the run before, and taken up again later.
            let mut log = |t: i64, kind: DeviationKind, reason: String| {
                log_deviation(&mut deviations, &mut logged, t, kind, reason, Vec::new());
            };
            log(
                t,
                DeviationKind::Stop,
                format!("The study stopped. {}", pause.reason),
            );
            t += pause.gap_ms;
            log(
                t,
                DeviationKind::Resume,
                format!("The study resumed. {}", pause.resume),
            );
            t += 60_000;
        }
        let policy = plan.policy(&cell.policy);
        let remembers = policy.kind == PolicyKind::TierMemory;
        if remembers {
            cell.start_tier = memory.get(&cell.task).copied().unwrap_or(0);
        }
        let (run, end) = run_tuned(plan, fixtures, objects, cell, t, tuning);
        if let (true, Some(tier)) = (remembers, &run.outcome.passed_tier) {
            if let Some(i) = policy.tiers.iter().position(|t| t == tier) {
                memory.insert(cell.task.clone(), i);
            }
        }
        t = end + 2_000;
        if matches!(
            cell.incident,
            Some(Incident::LedgerStopAfterCall | Incident::LedgerStopBeforeCall)
        ) {
            let mut rerun = cell.clone();
            rerun.incident = None;
            rerun.replaces = Some(run.id.clone());
            rerun.force_pass = true;
            // The rerun's outcome is its own, not the stopped run's.
            rerun.forced = None;
            reruns.push(rerun);
        }
        runs.push(run);
    }
    if let Some((_, reason)) = &plan.stop {
        // The log tells the deviation in the record's own words.
        let reason = format!("The study stopped. {reason}");
        log_deviation(
            &mut deviations,
            &mut logged,
            t,
            DeviationKind::Stop,
            reason,
            Vec::new(),
        );
        t += 60_000;
    }
    for cell in &reruns {
        // Logged a minute before the rerun starts.
        let logged_at = t;
        t += 60_000;
        let (run, end) = run_tuned(plan, fixtures, objects, cell, t, tuning);
        let reason = format!(
            "The token ledger stopped run `{}`; it is rerun as `{}`. Under the pre-registered rule the rerun counts only if the stopped run never reached the provider.",
            cell.replaces.as_deref().unwrap_or_default(),
            run.id
        );
        let rerun = vec![run.id.clone()];
        log_deviation(
            &mut deviations,
            &mut logged,
            logged_at,
            DeviationKind::Rerun,
            reason,
            rerun,
        );
        t = end + 2_000;
        runs.push(run);
    }
    Simulated {
        runs,
        deviations,
        logged,
        t,
    }
}

/// Logs a deviation at `t`: its line for the log, and its record, numbered
/// after those before it.
fn log_deviation(
    lines: &mut Vec<String>,
    records: &mut Vec<Deviation>,
    t: i64,
    kind: DeviationKind,
    reason: String,
    runs: Vec<String>,
) {
    let logged_at = receipts_verifier::time::format(receipts_verifier::time::UnixMillis(t));
    lines.push(format!("{logged_at}: {reason}"));
    records.push(Deviation {
        id: format!("D{}", records.len() + 1),
        logged_at,
        kind,
        reason,
        runs,
    });
}

/// Simulates one cell with its policy's scales; a run whose wall time is
/// pinned is simulated until its provider's latency makes it that long.
fn run_tuned(
    plan: &ExperimentPlan,
    fixtures: &[Fixture],
    objects: &mut BTreeMap<String, Vec<u8>>,
    cell: &plan::Cell,
    t: i64,
    tuning: &Tuning,
) -> (Run, i64) {
    let scales = tuning.scales(
        &cell.policy,
        cell.incident.is_some_and(Incident::loses_usage),
    );
    let Some(target) = tuning.wall(&cell.run_id()) else {
        return run_cell(plan, fixtures, objects, cell, t, scales);
    };
    let prices = plan.prices();
    let mut run = |latency: f64| {
        let (run, end) = run_cell(
            plan,
            fixtures,
            objects,
            cell,
            t,
            Scales { latency, ..scales },
        );
        let wall = receipts_verifier::facts::RunFacts::of(&run, &prices).wall_ms as f64;
        (run, end, wall)
    };
    // The wall time grows with the latency factor, almost in proportion: secant steps.
    let (mut f0, mut w0) = (1.0, run(1.0).2);
    let mut f1 = target as f64 / w0;
    for _ in 0..12 {
        let (r, end, w1) = run(f1);
        if (w1 - target as f64).abs() <= 10.0 {
            return (r, end);
        }
        let next = if w1 == w0 {
            f1 * target as f64 / w1
        } else {
            f1 + (target as f64 - w1) * (f1 - f0) / (w1 - w0)
        };
        (f0, w0, f1) = (f1, w1, next.max(0.01));
    }
    panic!(
        "run {} could not be made to take {target} ms",
        cell.run_id()
    );
}

/// Simulates one cell starting at `t`, writing its artifacts into `objects`.
fn run_cell(
    plan: &ExperimentPlan,
    fixtures: &[Fixture],
    objects: &mut BTreeMap<String, Vec<u8>>,
    cell: &plan::Cell,
    t: i64,
    scales: Scales,
) -> (Run, i64) {
    let fixture = fixtures
        .iter()
        .find(|f| f.task.id == cell.task)
        .unwrap_or(&fixtures[0]);
    let mut ctx = RunContext {
        plan,
        fixture,
        objects,
        scales,
    };
    simulate_run(&mut ctx, cell, t)
}
