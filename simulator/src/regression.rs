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

use receipts_verifier::model::{
    AgreementRules, Branch, FormatVersion, JudgeTier, ModelPrice, PriceTable, Provenance,
    RegressionSuite, RegressionSuiteKind, Sandbox, SkillEdit, REGRESSIONS_DIR,
};

use super::{json_bytes, Files};

mod benchmark;
mod edit;
mod history;
mod judging;
mod pace;
mod repo;
mod script;
mod sweep;

use benchmark::benchmark;
use edit::{simulate, Slot};
use judging::{judge_call, rationale, Prompts};
use pace::Pace;
use repo::{commit_id, initial_main};
use script::{plans, EditPlan, Task, TASKS};

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

#[cfg(test)]
mod tests {
    use super::*;
    use receipts_verifier::model::{
        RegressionAblation, RegressionActions, RegressionBenchmark, VerdictResult,
    };
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
