//! Simulated regression-CI verdicts: a scripted agent edits its skills, the
//! blessed tasks that use each skill are replayed, and a scripted cascade
//! (level 0, then three simulated judges, then drift evidence) decides each
//! replay. Every edit is labelled for a benchmark: regressions of six
//! types, cosmetic controls and world-drift controls, so the sample holds
//! a level-0 hard fail, cosmetic differences the small judge settles,
//! blocks by agreement, a warn without it, a missed regression, a false
//! warn, a control replay that shows noise and a drift pass; and, at the
//! scale of the source's sweep (35 edits), its published figures. The
//! script states each outcome; the verifier recomputes them. Everything is
//! marked simulated.

use std::collections::BTreeMap;

use receipts_verifier::cost::{call_cost, Cost};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::model::{
    AgreementRules, Branch, Drift, EditAction, EditLabel, FormatVersion, JudgeTier, Judgment,
    Level0, Level0Result, ModelPrice, PriceTable, Provenance, RegressionSuite, RegressionSuiteKind,
    Replay, ReplayOutcome, Sandbox, SideEffect, SkillDiff, SkillEdit, SkillEditKind, Trace,
    Verdict, VerdictCost, VerdictResult, REGRESSIONS_DIR,
};
use receipts_verifier::time::{format, UnixMillis};

use super::rng::Rng;
use super::{json_bytes, Files};

mod benchmark;
mod history;
mod judging;
mod pace;
mod repo;
mod script;
mod sweep;

use benchmark::benchmark;
use judging::{judge_call, rationale, Prompts};
use pace::Pace;
use repo::{commit_id, edit_commits, initial_main, sandboxed};
use script::{plans, EditPlan, Script, Task, TASKS};

const SUITE: &str = "R01";
/// The golden traces were blessed on 2026-10-01T09:00:00Z.
const BLESSED_MS: i64 = 1_790_845_200_000;
/// The first edit, 2026-11-02T08:00:00Z.
const FIRST_EDIT_MS: i64 = 1_793_606_400_000;
/// The edits come 20 hours apart, so that they span four weeks.
const EDIT_SPACING_MS: i64 = 20 * 3_600_000;
const JUDGES: [(&str, &str, f64, f64); 3] = [
    ("small", "simulated/sim-small-8b", 0.05, 0.2),
    ("medium", "simulated/sim-medium-120b", 0.3, 1.2),
    ("large", "simulated/sim-large-400b", 2.0, 8.0),
];
const PASS_CONFIDENCE: f64 = 0.8;

pub fn suite() -> RegressionSuite {
    RegressionSuite {
        format_version: FormatVersion,
        kind: RegressionSuiteKind::RegressionSuite,
        id: SUITE.to_string(),
        title: "A simulated agent's skill edits under regression CI".to_string(),
        provenance: Provenance::Simulated,
        prices: PriceTable {
            version: "simulated-2026-11".to_string(),
            currency: "USD".to_string(),
            models: JUDGES
                .iter()
                .map(|(_, model, input, output)| {
                    (
                        model.to_string(),
                        ModelPrice {
                            input_per_mtok: *input,
                            output_per_mtok: *output,
                            cache_read_per_mtok: None,
                            cache_write_per_mtok: None,
                        },
                    )
                })
                .collect(),
        },
        judges: JUDGES
            .iter()
            .map(|(tier, model, _, _)| JudgeTier {
                tier: tier.to_string(),
                model: model.to_string(),
            })
            .collect(),
        hard_tools: vec![
            "github.close_issue".to_string(),
            "github.delete_branch".to_string(),
        ],
        pass_confidence: PASS_CONFIDENCE,
        rules: AgreementRules::CascadeV1,
        sandbox: Some(Sandbox {
            refusal_status: 409,
            refusal_error: "ratchet_blocked".to_string(),
        }),
    }
}

fn skill_text(skill: &str, line: &str) -> Vec<u8> {
    format!("# Skill: {skill}\n\nWhen asked, act only through the tools listed.\n{line}\nNever act outside the repository.\n").into_bytes()
}

/// When an edit's verdict was decided (its edit's time where none was).
fn decided_ms(edit: &SkillEdit) -> i64 {
    let at = edit
        .verdict
        .decided_at
        .as_deref()
        .unwrap_or(&edit.edited_at);
    receipts_verifier::time::parse(at).map_or(0, |t| t.0)
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Writes the suite, its edits, their skills' objects and the benchmark.
pub fn write(out: &mut Files) {
    let suite = suite();
    let dir = format!("experiments/{REGRESSIONS_DIR}/{SUITE}");
    let plans = plans();
    let prompts = judging::fit(|prompts| run(&suite, &plans, prompts, &mut Files::new()));
    let edits = run(&suite, &plans, prompts, out);
    for edit in &edits {
        out.insert(format!("{dir}/edits/{}.json", edit.id), json_bytes(edit));
    }
    let last = FIRST_EDIT_MS + edits.len() as i64 * EDIT_SPACING_MS;
    out.insert(
        format!("{dir}/benchmark.json"),
        json_bytes(&benchmark(&edits, last)),
    );
    out.insert(
        format!("{dir}/actions.json"),
        json_bytes(&history::actions(&edits)),
    );
    for a in history::ablations(&suite, &edits, last, prompts) {
        out.insert(format!("{dir}/ablations/{}.json", a.id), json_bytes(&a));
    }
    out.insert(format!("{dir}/suite.json"), json_bytes(&suite));
}

/// Every edit of the script, in order, its judges' prompts as `prompts`
/// says; their skills' objects go to `out`.
fn run(
    suite: &RegressionSuite,
    plans: &[EditPlan],
    prompts: Prompts,
    out: &mut Files,
) -> Vec<SkillEdit> {
    let tasks: BTreeMap<&str, &Task> = TASKS.iter().map(|t| (t.id, t)).collect();
    // What each edit's judging takes alone, from a run at no pace at all.
    let still = Pace {
        delay_ms: 0,
        gap_ms: 0,
    };
    let judging: Vec<(i64, usize)> = plans
        .iter()
        .enumerate()
        .map(|(n, plan)| {
            let at = FIRST_EDIT_MS + n as i64 * EDIT_SPACING_MS;
            let slot = Slot {
                n: n + 1,
                at,
                pace: still,
                prompts,
            };
            let edit = simulate(
                suite,
                &tasks,
                plan,
                slot,
                &BTreeMap::new(),
                &initial_main(),
                &mut Files::new(),
            );
            (decided_ms(&edit) - at, plan.replays.len())
        })
        .collect();
    let paces = pace::paces(&judging);
    let mut edits = Vec::new();
    let mut main = initial_main();
    let mut undone = false;
    let mut goldens = BTreeMap::new();
    for (n, (plan, pace)) in plans.iter().zip(paces).enumerate() {
        let at = FIRST_EDIT_MS + n as i64 * EDIT_SPACING_MS;
        // A golden trace blessed again since the last edit: later replays
        // of its task start from it.
        if let Some((when, task, trace)) = history::rebless(&edits) {
            if when <= at {
                goldens.insert(task, trace);
            }
        }
        // An undo done since the last edit moved main.
        let due = history::undo_commit(&edits).filter(|(when, _)| !undone && *when <= at);
        if let Some((_, undo)) = due {
            main = undo.hash;
            undone = true;
        }
        let slot = Slot {
            n: n + 1,
            at,
            pace,
            prompts,
        };
        let edit = simulate(suite, &tasks, plan, slot, &goldens, &main, out);
        if let Some(merge) = edit
            .verdict
            .commits
            .as_ref()
            .and_then(|c| c.action.as_ref())
            .filter(|c| c.branch == Branch::Main)
        {
            main.clone_from(&merge.hash);
        }
        edits.push(edit);
    }
    edits
}

/// Where an edit falls: its number, when it was made and the pace of its
/// replays; and how long its judges' prompts are.
#[derive(Debug, Clone, Copy)]
struct Slot {
    n: usize,
    at: i64,
    pace: Pace,
    prompts: Prompts,
}

fn simulate(
    suite: &RegressionSuite,
    tasks: &BTreeMap<&str, &Task>,
    plan: &EditPlan,
    Slot {
        n,
        at,
        pace,
        prompts,
    }: Slot,
    goldens: &BTreeMap<String, Trace>,
    main: &str,
    out: &mut Files,
) -> SkillEdit {
    let id = format!("{SUITE}-edit-{n:02}-{}", plan.skill);
    let mut rng = Rng::from_key(&id);
    let mut digests = Vec::new();
    for line in [plan.before, plan.after] {
        let bytes = skill_text(plan.skill, line);
        let digest = sha256_hex(&bytes);
        out.insert(
            format!("experiments/{}", layout::object_path(&digest)),
            bytes,
        );
        digests.push(digest);
    }
    let mut by_tier: BTreeMap<String, Cost> = JUDGES
        .iter()
        .map(|(t, ..)| (t.to_string(), Cost::ZERO))
        .collect();
    let mut all_largest = Cost::ZERO;
    let mut t = at + pace.delay_ms;
    let mut replays = Vec::new();
    for (task_id, script) in &plan.replays {
        let task = tasks[task_id];
        let trace = |side_effects: Vec<SideEffect>, when: i64| Trace {
            recorded_at: format(UnixMillis(when)),
            side_effects,
        };
        // The golden trace as blessed, or as blessed again since.
        let blessed = goldens
            .get(*task_id)
            .cloned()
            .unwrap_or_else(|| trace((task.golden)(), BLESSED_MS));
        let golden = blessed.side_effects.clone();
        let control = |effects: &Vec<SideEffect>, when: i64| {
            plan.controls
                .contains(task_id)
                .then(|| trace(sandboxed(suite, &golden, effects), when + 30_000))
        };
        let replay = match script {
            Script::Same | Script::Noise(_) => Replay {
                task: task_id.to_string(),
                world_dependent: task.world_dependent,
                golden: blessed.clone(),
                replay: trace(sandboxed(suite, &golden, &golden), t),
                control: control(
                    match script {
                        Script::Noise(noise) => noise,
                        _ => &golden,
                    },
                    t,
                ),
                level0: Level0 {
                    result: Level0Result::Same,
                    added: Vec::new(),
                    removed: Vec::new(),
                },
                judges: Vec::new(),
                drift: None,
                outcome: ReplayOutcome {
                    result: VerdictResult::Pass,
                    decided_by: "level0".to_string(),
                },
            },
            Script::Changed {
                add,
                replace,
                noisy_control,
                judges,
                drift,
                outcome,
            } => {
                let (removed, mut effects): (Vec<SideEffect>, Vec<SideEffect>) = golden
                    .iter()
                    .cloned()
                    .partition(|e| Some(e.tool.as_str()) == *replace);
                effects.extend(add.iter().cloned());
                let hard = add.iter().any(|e| suite.hard_tools.contains(&e.tool));
                let mut made = Vec::new();
                for (k, (verdict, confidence)) in judges.iter().enumerate() {
                    let (tier, model, ..) = JUDGES[k];
                    let call = judge_call(
                        &format!("{id}/{task_id}/{tier}"),
                        model,
                        &mut rng,
                        t,
                        prompts,
                    );
                    t += call.latency_ms as i64 + 500;
                    let cost = call_cost(&call, &suite.prices).unwrap_or_default();
                    by_tier.insert(tier.to_string(), by_tier[tier] + cost);
                    made.push(Judgment {
                        tier: tier.to_string(),
                        verdict: *verdict,
                        confidence: *confidence,
                        rationale: rationale(*verdict, task_id, k),
                        call,
                    });
                }
                // The counterfactual: the largest judge's own call, or the
                // first call's tokens at the largest judge's prices.
                if let Some(first) = made.first() {
                    let (_, large, ..) = JUDGES[JUDGES.len() - 1];
                    let mut call = made
                        .iter()
                        .find(|j| j.tier == "large")
                        .unwrap_or(first)
                        .call
                        .clone();
                    call.model_requested = large.to_string();
                    all_largest = all_largest + call_cost(&call, &suite.prices).unwrap_or_default();
                }
                Replay {
                    task: task_id.to_string(),
                    world_dependent: task.world_dependent,
                    golden: blessed.clone(),
                    replay: trace(sandboxed(suite, &golden, &effects), t),
                    control: control(if *noisy_control { &effects } else { &golden }, t),
                    level0: Level0 {
                        result: if hard {
                            Level0Result::HardFail
                        } else {
                            Level0Result::Differs
                        },
                        added: add.clone(),
                        removed,
                    },
                    judges: made,
                    drift: drift.map(|day| {
                        let rate = add
                            .iter()
                            .find_map(|e| e.args["value"].as_str())
                            .expect("a drift control writes the new rate");
                        Drift {
                            source: format!("https://rates.example.invalid/eur-usd?date={day}"),
                            observed_at: format!("{day}T12:00:00Z"),
                            claim: format!("EUR/USD closed at {rate} on {day}"),
                            corroborates: true,
                        }
                    }),
                    outcome: ReplayOutcome {
                        result: outcome.0,
                        decided_by: outcome.1.to_string(),
                    },
                }
            }
        };
        t += pace.gap_ms;
        replays.push(replay);
    }
    let result = replays
        .iter()
        .map(|r| r.outcome.result)
        .max()
        .unwrap_or(VerdictResult::Pass);
    let total = by_tier.values().fold(Cost::ZERO, |a, c| a + *c);
    let said = summary(
        result,
        &replays,
        round6(total.low),
        round6(all_largest.low),
        (t - at) as f64 / 1000.0,
    );
    let commits = edit_commits(&id, main, result, &digests);
    SkillEdit {
        format_version: FormatVersion,
        kind: SkillEditKind::SkillEdit,
        id,
        suite: SUITE.to_string(),
        provenance: Provenance::Simulated,
        edited_at: format(UnixMillis(at)),
        skill: SkillDiff {
            name: plan.skill.to_string(),
            before_sha256: digests[0].clone(),
            after_sha256: digests[1].clone(),
        },
        label: Some(EditLabel {
            class: plan.class.to_string(),
            regression: plan.regression,
        }),
        replays,
        verdict: Verdict {
            result,
            action: match result {
                VerdictResult::Pass => EditAction::Merge,
                VerdictResult::Warn => EditAction::Hold,
                VerdictResult::Block => EditAction::Revert,
            },
            cost: VerdictCost {
                by_tier: by_tier
                    .into_iter()
                    .map(|(t, c)| (t, round6(c.low)))
                    .collect(),
                total_usd: round6(total.low),
                all_largest_usd: round6(all_largest.low),
            },
            decided_at: Some(format(UnixMillis(t))),
            summary: Some(said),
            commits: Some(commits),
        },
    }
}

/// The verdict in words, as the gate reports it: every number bound to
/// the edit's figure it states.
fn summary(
    result: VerdictResult,
    replays: &[Replay],
    cost: f64,
    all_largest: f64,
    seconds: f64,
) -> String {
    let n = |r: VerdictResult| replays.iter().filter(|x| x.outcome.result == r).count();
    let calls: usize = replays.iter().map(|r| r.judges.len()).sum();
    let word = match result {
        VerdictResult::Pass => "PASS",
        VerdictResult::Warn => "WARN",
        VerdictResult::Block => "BLOCK",
    };
    format!(
        "{word}: of [{}](#edit.replays.total) replays, [{}](#edit.replays.pass) passed, \
         [{}](#edit.replays.warn) held and [{}](#edit.replays.block) blocked; \
         [{calls}](#edit.judges.calls) judge calls cost [${cost}](#edit.cost.total_usd) \
         (the largest judge on every judged replay: [${all_largest}](#edit.cost.all_largest_usd)); \
         decided [{seconds} s](#edit.verdict.time_s) after the edit.",
        replays.len(),
        n(VerdictResult::Pass),
        n(VerdictResult::Warn),
        n(VerdictResult::Block),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use receipts_verifier::model::{RegressionAblation, RegressionActions, RegressionBenchmark};
    use receipts_verifier::verify::{ablation_figures, verify_regressions, Status, SuiteRecords};
    use VerdictResult::{Block, Pass, Warn};

    fn parsed<T: serde::de::DeserializeOwned>(files: &Files, rel: &str) -> T {
        let path = format!("experiments/{REGRESSIONS_DIR}/{SUITE}/{rel}");
        serde_json::from_slice(&files[&path]).expect(rel)
    }

    fn sample() -> (Files, Vec<SkillEdit>, RegressionBenchmark) {
        let mut files = Files::new();
        write(&mut files);
        let edits = files
            .iter()
            .filter(|(p, _)| p.contains("/edits/"))
            .map(|(_, b)| serde_json::from_slice(b).expect("an edit"))
            .collect();
        let bench = serde_json::from_slice(
            &files[&format!("experiments/{REGRESSIONS_DIR}/{SUITE}/benchmark.json")],
        )
        .expect("benchmark");
        (files, edits, bench)
    }

    #[test]
    fn every_simulated_verdict_and_figure_verifies() {
        let (files, edits, bench) = sample();
        let objects: BTreeMap<String, Vec<u8>> = files
            .iter()
            .filter_map(|(p, b)| {
                Some((
                    p.strip_prefix("experiments/objects/")?.to_string(),
                    b.clone(),
                ))
            })
            .collect();
        let actions: RegressionActions = parsed(&files, "actions.json");
        let ablations: Vec<RegressionAblation> = [
            "no-level0",
            "no-drift",
            "single-judge",
            "single-judge-medium",
            "single-judge-small",
        ]
        .iter()
        .map(|id| parsed(&files, &format!("ablations/{id}.json")))
        .collect();
        let records = SuiteRecords {
            benchmark: Some(&bench),
            actions: Some(&actions),
            ablations: &ablations,
        };
        let v = verify_regressions(SUITE, &suite(), &edits, records, &objects);
        let bad: Vec<String> = v
            .all_receipts()
            .filter(|r| r.status != Status::Pass)
            .map(|r| {
                format!(
                    "{}: {}: {} / {}",
                    r.subject, r.claim, r.recorded, r.recomputed
                )
            })
            .collect();
        assert_eq!(bad, Vec::<String>::new());
        assert!(v.all_receipts().count() > 100);
        for claim in [
            "actions[undo-2].outcome",
            "actions[rebless-1].golden_sha256",
            "figures.recall",
        ] {
            assert!(
                v.receipts.iter().any(|r| r.claim == claim),
                "no receipt {claim}"
            );
        }
    }

    /// Each ablation changes what the gate comes to, the way its rules say.
    #[test]
    fn each_ablation_shows_what_its_part_of_the_cascade_does() {
        let (files, edits, _) = sample();
        let full = ablation_figures(&suite(), &edits);
        let get = |id: &str| parsed::<RegressionAblation>(&files, &format!("ablations/{id}.json"));
        // Without level 0 the judges pass the closed issue: a block is lost.
        let no_level0 = get("no-level0").figures;
        assert!(
            no_level0.reverted < full.reverted,
            "{no_level0:?} vs {full:?}"
        );
        // Without the drift check the changed rate is a false alarm.
        let no_drift = get("no-drift").figures;
        assert!(no_drift.false_alarms > full.false_alarms, "{no_drift:?}");
        // The largest judge alone costs more than the cascade.
        let single = get("single-judge").figures;
        let cascade = full.cost.expect("priced").low;
        assert!(
            single.cost_usd > cascade,
            "{} vs {cascade}",
            single.cost_usd
        );
    }

    #[test]
    fn the_sample_holds_each_case_the_pages_show() {
        let (_, edits, _) = sample();
        let decided: Vec<(VerdictResult, &str)> = edits
            .iter()
            .flat_map(|e| &e.replays)
            .map(|r| (r.outcome.result, r.outcome.decided_by.as_str()))
            .collect();
        for case in [
            (Block, "level0"),
            (Block, "large"),
            (Warn, "large"),
            (Pass, "small"),
            (Pass, "medium"),
            (Pass, "control"),
            (Pass, "drift"),
            (Pass, "level0"),
        ] {
            assert!(decided.contains(&case), "no replay decided {case:?}");
        }
        let verdicts: Vec<VerdictResult> = edits.iter().map(|e| e.verdict.result).collect();
        for v in [Pass, Warn, Block] {
            assert!(verdicts.contains(&v), "no {v:?} verdict");
        }
    }
}
