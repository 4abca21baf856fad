//! Writes what a study would publish for a simulated experiment: the
//! experiment record, its log with the pre-registration hash, the summary
//! (numbers computed by the verification core) and `results.csv`.

use receipts_verifier::cost::Cost;
use std::collections::BTreeMap;

use receipts_verifier::decide::{decide, WithOthers};
use receipts_verifier::facts::RunFacts;
use receipts_verifier::model::{
    Analysis, Correction, Covers, Deviations, Experiment, ExperimentKind, FormatVersion,
    HypothesisOutcome, Outcome, PolicyKind, Preregistration, Provenance, ResultRow, Run,
    SecondaryAnalysis, Summary, SummaryKind, Task, RESULT_COLUMNS,
};
use receipts_verifier::numbers::compose::compose;
use receipts_verifier::numbers::{
    analyze, latest_runs, primary_runs, result_row, round_to, rounded, JudgedRun,
};
use receipts_verifier::prereg::{
    preregistration_digest, registration_digest, rules_digest, task_digest,
};
use receipts_verifier::time::{format, UnixMillis};
use receipts_verifier::verify::{grid_receipts, rule_policies, Precision};

use super::claims;
use super::plan::ExperimentPlan;

pub const END_MARKER: &str = "<!-- end of pre-registration: deviations are appended below -->";

/// A line of the log's grid for each composed policy: what it is composed of.
fn composed_lines(plan: &ExperimentPlan) -> String {
    plan.policies
        .iter()
        .filter(|p| p.composed)
        .map(|p| {
            let how = match p.kind {
                PolicyKind::Speculative => "the first two together (both paid for, the first to pass answering; the slower waited on when both fail), then the next until a tier passes",
                PolicyKind::TierMemory => "in order from where the task last passed, until a tier passes, each paid for and waited on",
                _ => "in order until a tier passes, each paid for and waited on",
            };
            format!(
                "- Composed, not run: {} ({}), in each cell from the runs of the policies above on its tiers, taken {how}\n",
                p.id,
                p.tiers.join(" → ")
            )
        })
        .collect()
}

/// The log: the pre-registered part, the end marker, then any deviations.
pub fn log(plan: &ExperimentPlan, deviations: &[String]) -> String {
    let mut out = format!(
        "# {}: {}\n\n> Simulated data: this log belongs to a sample experiment produced by the receipts simulator. No model was called.\n\nPre-registered at {} (UTC), before the first provider call.\n\n## Question\n\n{}\n\n## Grid\n\n- Tasks: {}\n- Agent profiles: {}\n- Seeds: {}\n- Policies: {}\n{}- Output budget: {} tokens per call\n\n## Hypotheses\n\n",
        plan.id,
        plan.title,
        plan.registered_at,
        plan.question,
        plan.grid.tasks.join(", "),
        plan.grid.profiles.join(", "),
        plan.grid.seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
        plan.grid.policies.join(", "),
        composed_lines(plan),
        plan.max_output_tokens,
    );
    for h in &plan.hypotheses {
        out.push_str(&format!("- **{}**: {}\n", h.id, h.statement));
    }
    out.push_str("\n## Rules\n\n");
    for rule in &plan.log_rules {
        out.push_str(&format!("- {rule}\n"));
    }
    out.push('\n');
    out.push_str(END_MARKER);
    out.push('\n');
    if !deviations.is_empty() {
        out.push_str("\n## Deviations\n\n");
        for d in deviations {
            out.push_str(&format!("- {d}\n"));
        }
    }
    out
}

/// The experiment record, its registration covering the log, its rules and `tasks`.
pub fn experiment(plan: &ExperimentPlan, log: &str, tasks: &[&Task]) -> Experiment {
    let mut experiment = Experiment {
        format_version: FormatVersion,
        kind: ExperimentKind::Experiment,
        id: plan.id.clone(),
        title: plan.title.clone(),
        provenance: Provenance::Simulated,
        question: plan.question.clone(),
        preregistration: Some(Preregistration {
            log: "LOG.md".to_string(),
            end_marker: END_MARKER.to_string(),
            sha256: String::new(),
            registered_at: plan.registered_at.clone(),
            covers: None,
        }),
        grid: plan.grid.clone(),
        tiers: plan.tier_records(),
        policies: plan.policies.clone(),
        prices: plan.prices(),
        limits: plan.limits(),
        hypotheses: plan.hypotheses.clone(),
    };
    let covers = Covers {
        log: preregistration_digest(log, END_MARKER).unwrap_or_default(),
        rules: rules_digest(&experiment),
        tasks: tasks
            .iter()
            .filter(|t| plan.grid.tasks.contains(&t.id))
            .map(|t| (t.id.clone(), task_digest(t)))
            .collect(),
    };
    if let Some(p) = &mut experiment.preregistration {
        p.sha256 = registration_digest(&covers.log, &covers.rules, &covers.tasks);
        p.covers = Some(covers);
    }
    experiment
}

/// Each run's facts and whether each of its attempts passed: what the
/// verifier's analyses read, as [`Judgement::runs`] lends it.
pub struct Judgement {
    facts: Vec<RunFacts>,
    verdicts: Vec<Vec<bool>>,
}

impl Judgement {
    pub fn of(experiment: &Experiment, runs: &[Run]) -> Judgement {
        Judgement {
            facts: runs
                .iter()
                .map(|r| RunFacts::of(r, &experiment.prices))
                .collect(),
            verdicts: runs.iter().map(attempts_passed).collect(),
        }
    }

    pub fn runs(&self) -> Vec<JudgedRun<'_>> {
        self.facts
            .iter()
            .zip(&self.verdicts)
            .map(|(run, v)| JudgedRun {
                run,
                attempts_passed: v,
            })
            .collect()
    }
}

/// Whether each attempt passed, from the checks recorded with it.
pub fn attempts_passed(run: &Run) -> Vec<bool> {
    run.attempts
        .iter()
        .map(|a| !a.checks.is_empty() && a.checks.iter().all(|c| c.passed))
        .collect()
}

/// The summary a careful study would publish. With `with_corrections`, the
/// mistakes of its first publication (dropping unknown costs, counting
/// reruns) are on record as corrections.
pub fn summary(
    experiment: &Experiment,
    runs: &[Run],
    deviations: Option<&Deviations>,
    published_at: i64,
    with_corrections: bool,
    earlier: &Earlier,
) -> Published {
    let judgement = Judgement::of(experiment, runs);
    let judged = judgement.runs();
    let primary_set = primary_runs(&judged);
    let primary = analyze(experiment, &primary_set)
        .unwrap_or_else(|e| panic!("simulated prices are complete: {e}"));
    let latest = latest_runs(&judged);
    let has_reruns = runs.iter().any(|r| r.replaces.is_some());
    let reruns = has_reruns.then(|| analyze(experiment, &latest).unwrap_or_else(|e| panic!("{e}")));
    let secondary = if has_reruns {
        vec![SecondaryAnalysis {
            id: "reruns-replace".to_string(),
            label: "Secondary: reruns in place of the runs they replace".to_string(),
            description: "Counts each rerun instead of the run it replaces, including runs that had already reached the provider. The pre-registered rule does not allow this; it is shown for comparison only.".to_string(),
            numbers: rounded(reruns.as_ref().unwrap_or(&primary)),
        }]
    } else {
        Vec::new()
    };
    // A hypothesis over a policy whose cells did not all run is not decided.
    let incomplete = grid_receipts(&experiment.id, experiment, &judged, deviations).incomplete;
    let hypotheses = experiment
        .hypotheses
        .iter()
        .map(|h| HypothesisOutcome {
            id: h.id.clone(),
            outcome: if rule_policies(&h.rule)
                .iter()
                .any(|(_, p)| incomplete.contains(*p))
            {
                Outcome::NotDecided
            } else {
                decide(
                    &h.rule,
                    &WithOthers {
                        own: &primary,
                        others: &earlier.analyses,
                    },
                )
            },
        })
        .collect();
    let mut published = rounded(&primary);
    let id = &experiment.id;
    // No claim of a policy that did not run all its cells: its figures
    // stand for part of the grid.
    let complete = Analysis {
        policies: primary
            .policies
            .iter()
            .filter(|p| !incomplete.contains(&p.policy))
            .cloned()
            .collect(),
        tiers: Vec::new(),
    };
    let headline = if incomplete.is_empty() {
        claims::headline(id, &primary)
    } else {
        claims::stopped_headline(id, &primary)
    };
    // The first earlier experiment with another output budget, to compare with.
    let before = earlier.budgets.iter().find_map(|(e, tokens)| {
        (*tokens != experiment.limits.max_output_tokens)
            .then(|| {
                Some((
                    e.as_str(),
                    earlier.analyses.get(e)?,
                    *tokens,
                    experiment.limits.max_output_tokens,
                ))
            })
            .flatten()
    });
    let findings = claims::findings(id, &complete, reruns.as_ref(), before);
    let mut corrections = Vec::new();
    if with_corrections {
        corrections = first_publication_mistakes(
            experiment,
            &primary_set,
            &published,
            &secondary,
            published_at,
        );
        // What was published stays as it was; the corrections amend it.
        published = as_first_published(&published, &corrections);
    }
    Published {
        summary: Summary {
            format_version: FormatVersion,
            kind: SummaryKind::Summary,
            experiment: experiment.id.clone(),
            published_at: format(UnixMillis(published_at)),
            headline,
            findings,
            primary: published,
            secondary,
            hypotheses,
            corrections,
        },
        primary,
        reruns,
    }
}

/// The experiments published before this one: their primary analyses
/// (unrounded, as the verifier recomputes them) and output budgets, by id.
#[derive(Debug, Default)]
pub struct Earlier {
    pub analyses: BTreeMap<String, Analysis>,
    pub budgets: Vec<(String, u64)>,
}

/// A summary with the analyses it was written from.
pub struct Published {
    pub summary: Summary,
    pub primary: Analysis,
    /// Counting reruns in place of the runs they replace, where there are reruns.
    pub reruns: Option<Analysis>,
}

/// The two mistakes the sample's first publication made: the ladder's cost
/// averaged only over runs whose cost was known, and its pass rate counted
/// reruns. Each is recorded as a correction when it changed the number.
fn first_publication_mistakes(
    experiment: &Experiment,
    primary: &[JudgedRun<'_>],
    published: &Analysis,
    secondary: &[SecondaryAnalysis],
    published_at: i64,
) -> Vec<Correction> {
    let mut out = Vec::new();
    let corrected_at = format(UnixMillis(published_at + 6 * 3_600_000));
    let Some(ladder) = published.policies.iter().find(|p| p.policy == "ladder") else {
        return out;
    };
    // A run ladder's runs, or a composed ladder's cells, whose cost is known.
    let composed = experiment
        .policies
        .iter()
        .find(|p| p.id == "ladder")
        .and_then(|p| compose(experiment, p, primary).ok().flatten());
    let costs: Vec<Cost> = match composed {
        Some(c) => c.cells.iter().map(|cell| cell.cost).collect(),
        None => primary
            .iter()
            .filter(|j| j.run.place.policy == "ladder")
            .filter_map(|j| j.run.cost().ok())
            .collect(),
    };
    let known: Vec<Cost> = costs.into_iter().filter(Cost::is_exact).collect();
    if let Some(mean_known) = Cost::mean(&known) {
        let original = round_to(mean_known.low, 6);
        if ladder.cost_per_task_usd.low != ladder.cost_per_task_usd.high {
            out.push(Correction {
                field: "primary.policies[ladder].cost_per_task_usd".to_string(),
                original: serde_json::json!({"low": original, "high": original}),
                corrected: serde_json::to_value(ladder.cost_per_task_usd).unwrap_or_default(),
                reason: "The first figure averaged only the cells whose cost was known and left out the cell whose run was cut at its time limit, losing a call's usage. Its cost is now carried as a bound.".to_string(),
                corrected_at: corrected_at.clone(),
                published_in: None,
            });
        }
    }
    if let Some(rerun_rate) = secondary
        .first()
        .and_then(|s| s.numbers.policies.iter().find(|p| p.policy == "ladder"))
        .map(|p| p.pass_rate_pct)
    {
        if rerun_rate != ladder.pass_rate_pct {
            out.push(Correction {
                field: "primary.policies[ladder].pass_rate_pct".to_string(),
                original: serde_json::json!(rerun_rate),
                corrected: serde_json::json!(ladder.pass_rate_pct),
                reason: "The first figure counted a rerun in place of a run the token ledger had stopped after it reached the provider. The pre-registered rule keeps such runs.".to_string(),
                corrected_at,
                published_in: None,
            });
        }
    }
    out
}

/// The analysis with each corrected number put back to its original value.
fn as_first_published(analysis: &Analysis, corrections: &[Correction]) -> Analysis {
    let mut value = serde_json::to_value(analysis).unwrap_or_default();
    for c in corrections {
        // Paths look like `primary.policies[<policy>].<field>`.
        let Some(rest) = c.field.strip_prefix("primary.policies[") else {
            continue;
        };
        let Some((policy, field)) = rest.split_once("].") else {
            continue;
        };
        let entries = value.get_mut("policies").and_then(|p| p.as_array_mut());
        for entry in entries.into_iter().flatten() {
            if entry.get("policy").and_then(|p| p.as_str()) == Some(policy) {
                entry[field] = c.original.clone();
            }
        }
    }
    serde_json::from_value(value).unwrap_or_else(|_| analysis.clone())
}

/// The published per-run table: every run, reruns and failures included.
pub fn results(experiment: &Experiment, runs: &[Run]) -> Vec<ResultRow> {
    runs.iter()
        .filter_map(|run| {
            let facts = RunFacts::of(run, &experiment.prices);
            let passed = facts.passed(&attempts_passed(run));
            let row = result_row(&facts, passed).ok()?;
            Some(ResultRow {
                cost_usd_low: round_to(row.cost_usd_low, 6),
                cost_usd_high: round_to(row.cost_usd_high, 6),
                time_s: round_to(row.time_s, 1),
                ..row
            })
        })
        .collect()
}

/// `results.csv`: costs written to the micro-dollar and times to the tenth
/// of a second, trailing zeros included (the text is the precision claimed).
pub fn results_csv(rows: &[ResultRow]) -> Vec<u8> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    let _ = csv.write_record(RESULT_COLUMNS);
    for r in rows {
        let _ = csv.write_record([
            r.run.clone(),
            r.task.clone(),
            r.profile.clone(),
            r.seed.to_string(),
            r.policy.clone(),
            r.tiers.clone(),
            r.passed.to_string(),
            format!("{:.6}", r.cost_usd_low),
            format!("{:.6}", r.cost_usd_high),
            format!("{:.1}", r.time_s),
            r.truncations.to_string(),
            r.timeouts.to_string(),
            r.replaces.clone(),
        ]);
    }
    csv.into_inner().unwrap_or_default()
}

/// A summary as JSON, every figure written to the decimals it is published
/// with, trailing zeros kept (the text is the precision a figure claims):
/// costs to the micro-dollar, rates, times and throughput to one decimal.
pub fn summary_json(summary: &Summary) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(summary).unwrap_or_default();
    bytes.push(b'\n');
    let Some(spans) = receipts_verifier::literals::json_number_spans(&bytes) else {
        return bytes;
    };
    for (pointer, range) in spans.into_iter().rev() {
        let key = pointer
            .rsplit('/')
            .find(|part| part.parse::<usize>().is_err())
            .unwrap_or_default();
        let decimals = match Precision::of(key) {
            Precision::Whole | Precision::Decimals(0) => continue,
            Precision::DecimalsOrShare(4, _) => 6,
            Precision::Decimals(d) | Precision::DecimalsOrShare(d, _) => d as usize,
        };
        let Some(value) = std::str::from_utf8(&bytes[range.clone()])
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
        else {
            continue;
        };
        bytes.splice(range, format!("{value:.decimals$}").into_bytes());
    }
    bytes
}
