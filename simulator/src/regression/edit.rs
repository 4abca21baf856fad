//! One edit of the script simulated: its skill's two versions stored as
//! objects, each blessed task replayed as its script says (the golden
//! trace repeated, or changed and judged, with a control replay where the
//! plan has one), the judges' calls and their costs, the verdict with its
//! summary in words, and the commits behind its action.

use std::collections::BTreeMap;

use receipts_verifier::cost::{call_cost, Cost};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::model::{
    Drift, EditAction, EditLabel, FormatVersion, Judgment, Level0, Level0Result, Provenance,
    RegressionSuite, Replay, ReplayOutcome, SideEffect, SkillDiff, SkillEdit, SkillEditKind, Trace,
    Verdict, VerdictCost, VerdictResult,
};
use receipts_verifier::time::{format, UnixMillis};

use super::super::rng::Rng;
use super::super::Files;
use super::judging::{judge_call, rationale, Prompts};
use super::pace::Pace;
use super::repo::{edit_commits, sandboxed};
use super::script::{EditPlan, Script, Task};
use super::{round6, skill_text, BLESSED_MS, JUDGES, SUITE};

/// Where an edit falls: its number, when it was made and the pace of its
/// replays; and how long its judges' prompts are.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    pub(super) n: usize,
    pub(super) at: i64,
    pub(super) pace: Pace,
    pub(super) prompts: Prompts,
}

/// The edit `plan` simulated where `slot` places it, its replays starting
/// from `goldens` where a task was blessed again, its commits on `main`;
/// its skills' objects go to `out`.
pub(super) fn simulate(
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
                    let (tier, ..) = JUDGES[k];
                    let call = judge_call(
                        &format!("{id}/{task_id}/{tier}"),
                        tier,
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
