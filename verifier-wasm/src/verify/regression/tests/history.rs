//! Ablated rules decided by hand, and forgeries of the sample's ablations
//! and action history: each must fail its own receipt.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::model::{
    AblatedRules, ActionOutcome, RegressionAblation, RegressionActions, SkillEdit, Trace,
};

fn rules(level0: bool, drift: bool, judges: &[&str]) -> AblatedRules {
    AblatedRules {
        level0,
        drift,
        judges: judges
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
    }
}

fn judgments(list: Vec<Value>) -> Vec<Judgment> {
    serde_json::from_value(Value::Array(list)).expect("judgments")
}

fn under(r: &AblatedRules, replay: &Replay, judges: Vec<Value>) -> (Option<VerdictResult>, String) {
    let s = suite();
    let rules = CascadeRules::ablated(&s, r).expect("rules");
    let d = replay_verdict_under(&rules, replay, &judgments(judges));
    (d.result, d.decided_by)
}

const ALL: [&str; 3] = ["small", "medium", "large"];

#[test]
fn without_level0_a_hard_fail_goes_to_the_judges() {
    let a = effect("github.comment", 1);
    let hard = one(replay(
        vec![a.clone()],
        vec![a, effect("github.close_issue", 9)],
        vec![],
    ));
    let off = rules(false, true, &ALL);
    // The suite's rules block it at level 0; with level 0 off the judges must be called.
    assert_eq!(
        replay_verdict(&suite(), &hard).result,
        Some(VerdictResult::Block)
    );
    let s = suite();
    let d = replay_verdict_under(&CascadeRules::ablated(&s, &off).expect("rules"), &hard, &[]);
    assert_eq!(d.result, None);
    assert!(d.cascade_error.is_some_and(|e| e.contains("before small")));
    // A confident small judge now lets it through; agreement still blocks.
    assert_eq!(
        under(&off, &hard, vec![judge("small", "pass", 0.9)]),
        (Some(VerdictResult::Pass), "small".into())
    );
    assert_eq!(
        under(
            &off,
            &hard,
            vec![
                judge("small", "unsure", 0.5),
                judge("medium", "regressed", 0.9),
                judge("large", "regressed", 0.9)
            ]
        ),
        (Some(VerdictResult::Block), "large".into())
    );
}

#[test]
fn without_the_drift_check_a_changed_world_stays_as_judged() {
    let mut r = replay(
        vec![effect("github.comment", 1)],
        vec![effect("github.comment", 2)],
        vec![],
    );
    r["world_dependent"] = json!(true);
    r["drift"] = json!({"source": "https://example.com/rates", "observed_at": "2026-10-20T00:00:00Z",
                        "claim": "the rate changed", "corroborates": true});
    let r = one(r);
    let judges = || {
        vec![
            judge("small", "unsure", 0.5),
            judge("medium", "unsure", 0.5),
            judge("large", "regressed", 0.9),
        ]
    };
    assert_eq!(
        under(&rules(true, true, &ALL), &r, judges()),
        (Some(VerdictResult::Pass), "drift".into())
    );
    assert_eq!(
        under(&rules(true, false, &ALL), &r, judges()),
        (Some(VerdictResult::Warn), "large".into())
    );
}

#[test]
fn a_lone_judge_blocks_on_its_own_word_and_two_judges_need_agreement() {
    let r = one(replay(
        vec![effect("github.comment", 1)],
        vec![effect("github.comment", 2)],
        vec![],
    ));
    let alone = rules(true, true, &["large"]);
    assert_eq!(
        under(&alone, &r, vec![judge("large", "regressed", 0.9)]),
        (Some(VerdictResult::Block), "large".into())
    );
    assert_eq!(
        under(&alone, &r, vec![judge("large", "unsure", 0.9)]),
        (Some(VerdictResult::Warn), "large".into())
    );
    // Two judges left: the rules' agreement again.
    let two = rules(true, true, &["medium", "large"]);
    assert_eq!(
        under(
            &two,
            &r,
            vec![
                judge("medium", "unsure", 0.5),
                judge("large", "regressed", 0.9)
            ]
        ),
        (Some(VerdictResult::Warn), "large".into())
    );
    // A judge the ablation switched off, called anyway, breaks its rules.
    let s = suite();
    let lone = CascadeRules::ablated(&s, &alone).expect("rules");
    let d = replay_verdict_under(
        &lone,
        &r,
        &judgments(vec![
            judge("small", "pass", 0.9),
            judge("large", "pass", 0.9),
        ]),
    );
    assert!(d
        .cascade_error
        .is_some_and(|e| e.contains("judge 1 is small")));
}

#[test]
fn ablated_rules_keep_the_suites_tiers_in_order() {
    let s = suite();
    let err = |judges: &[&str]| CascadeRules::ablated(&s, &rules(true, true, judges)).err();
    assert!(err(&["huge"]).is_some_and(|e| e.contains("no judge tier huge")));
    assert!(err(&["large", "small"]).is_some_and(|e| e.contains("out of the suite's order")));
    assert!(err(&["small", "small"]).is_some_and(|e| e.contains("given twice")));
    assert!(err(&[]).is_some_and(|e| e.contains("no judge tier is left")));
    assert!(err(&["small", "large"]).is_none());
}

/// The sample suite's records, as published.
struct Sample {
    suite: RegressionSuite,
    edits: Vec<SkillEdit>,
    actions: RegressionActions,
    ablations: Vec<RegressionAblation>,
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    serde_json::from_slice(&std::fs::read(path).expect("sample file")).expect("sample record")
}

fn sample() -> Sample {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/regressions/R01");
    let list = |sub: &str| {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        paths
    };
    Sample {
        suite: read(&dir.join("suite.json")),
        edits: list("edits").iter().map(|p| read(p)).collect(),
        actions: read(&dir.join("actions.json")),
        ablations: list("ablations").iter().map(|p| read(p)).collect(),
    }
}

impl Sample {
    fn receipts(&self) -> Vec<Receipt> {
        let records = SuiteRecords {
            benchmark: None,
            actions: Some(&self.actions),
            ablations: &self.ablations,
        };
        verify_regressions("R01", &self.suite, &self.edits, records, &BTreeMap::new()).receipts
    }

    fn ablation(&mut self, id: &str) -> &mut RegressionAblation {
        self.ablations
            .iter_mut()
            .find(|a| a.id == id)
            .expect("a sample ablation")
    }

    fn action(&mut self, id: &str) -> &mut crate::model::SuiteAction {
        self.actions
            .actions
            .iter_mut()
            .find(|a| a.id == id)
            .expect("a sample action")
    }
}

#[test]
fn the_sample_history_verifies() {
    let s = sample();
    let receipts = s.receipts();
    assert_eq!(failing(&receipts), Vec::<String>::new());
    assert_eq!(s.ablations.len(), 5);
    assert!(receipts.len() > 100, "{}", receipts.len());
}

/// The labelled regression an ablation lets through, which a publisher
/// would rather leave out.
fn missed(a: &RegressionAblation, edits: &[SkillEdit]) -> String {
    a.edits
        .iter()
        .find(|e| {
            e.result == VerdictResult::Pass
                && edits
                    .iter()
                    .any(|x| x.id == e.edit && x.label.as_ref().is_some_and(|l| l.regression))
        })
        .expect("the ablation misses a regression")
        .edit
        .clone()
}

#[test]
fn an_ablation_that_drops_the_regression_it_misses_fails() {
    let mut s = sample();
    let edits = s.edits.clone();
    let suite = s.suite.clone();
    let a = s.ablation("no-level0");
    let gone = missed(a, &edits);
    a.edits.retain(|e| e.edit != gone);
    // Every figure recomputed over what is left, so only the coverage tells.
    let (_, run) = verify_ablation("R01", &suite, &edits, a);
    let run = run.expect("rules hold");
    a.figures.regressions = run.regressions;
    a.figures.held_or_reverted = run.held_or_reverted;
    a.figures.reverted = run.reverted;
    a.figures.recall = run.recall();
    a.figures.block_recall = run.block_recall();
    a.figures.cost_usd = run.cost.expect("priced").low;
    let bad = failing(&s.receipts());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].starts_with("edits: ") && bad[0].contains(&format!("{gone} is left out")),
        "{bad:?}"
    );
}

#[test]
fn an_ablation_that_counts_its_best_edit_twice_fails() {
    let mut s = sample();
    let a = s.ablation("no-level0");
    let best = a
        .edits
        .iter()
        .find(|e| e.result == VerdictResult::Block)
        .expect("a blocked edit")
        .clone();
    a.edits.push(best.clone());
    let bad = failing(&s.receipts()).join("\n");
    assert!(bad.contains(&format!("{} twice", best.edit)), "{bad}");
}

#[test]
fn an_ablation_outcome_flipped_and_its_recall_rounded_up_fail() {
    let mut s = sample();
    let edits = s.edits.clone();
    let a = s.ablation("no-level0");
    let gone = missed(a, &edits);
    let e = a.edits.iter_mut().find(|e| e.edit == gone).expect("edit");
    let k = e
        .replays
        .iter()
        .position(|r| r.outcome.decided_by == "large")
        .expect("a replay the large judge passed");
    e.replays[k].outcome.result = VerdictResult::Block;
    e.result = VerdictResult::Block;
    a.figures.held_or_reverted += 1;
    a.figures.reverted += 1;
    a.figures.recall = 0.83;
    let bad = failing(&s.receipts()).join("\n");
    for claim in [
        format!("edits[{gone}].replays[{k}].outcome"),
        format!("edits[{gone}].result"),
        "figures.held_or_reverted".to_string(),
        "figures.recall".to_string(),
    ] {
        assert!(bad.contains(&claim), "{claim}:\n{bad}");
    }
}

#[test]
fn an_ablation_that_calls_a_judge_it_switched_off_or_shaves_its_cost_fails() {
    let mut s = sample();
    let a = s.ablation("single-judge");
    let (i, k) = a
        .edits
        .iter()
        .enumerate()
        .find_map(|(i, e)| {
            e.replays
                .iter()
                .position(|r| !r.judges.is_empty())
                .map(|k| (i, k))
        })
        .expect("a judged replay");
    let mut small = a.edits[i].replays[k].judges[0].clone();
    small.tier = "small".to_string();
    small.call.model_requested = "simulated/sim-small-8b".to_string();
    a.edits[i].replays[k].judges.insert(0, small);
    let id = a.edits[i].edit.clone();
    a.figures.cost_usd /= 2.0;
    let bad = failing(&s.receipts()).join("\n");
    assert!(
        bad.contains(&format!("edits[{id}].replays[{k}].judges")),
        "{bad}"
    );
    assert!(bad.contains(&format!("edits[{id}].cost_usd")), "{bad}");
    // The edit's verdict is no longer decided, so neither are the figures.
    assert!(bad.contains("figures: "), "{bad}");
}

#[test]
fn a_refused_undo_recorded_as_done_or_without_the_edit_in_its_way_fails() {
    let mut s = sample();
    let undo = s.action("undo-2");
    undo.outcome = ActionOutcome::Done;
    undo.reason = None;
    let bad = failing(&s.receipts()).join("\n");
    assert!(bad.contains("actions[undo-2].outcome"), "{bad}");
    assert!(bad.contains("merged later on the same skill"), "{bad}");
    // Refused, but for a reason that hides the later merge.
    let mut s = sample();
    s.action("undo-2").reason = Some("not allowed".to_string());
    let bad = failing(&s.receipts()).join("\n");
    assert!(bad.contains("actions[undo-2].outcome"), "{bad}");
}

#[test]
fn an_undo_of_an_edit_never_merged_cannot_be_done() {
    let mut s = sample();
    let blocked = s
        .edits
        .iter()
        .find(|e| e.verdict.result == VerdictResult::Block)
        .expect("a blocked edit")
        .id
        .clone();
    let at = s
        .edits
        .iter()
        .filter_map(|e| e.verdict.decided_at.clone())
        .max()
        .expect("times");
    let undo = s.action("undo-1");
    undo.edit = blocked.clone();
    undo.at = at;
    let bad = failing(&s.receipts()).join("\n");
    assert!(bad.contains(&format!("{blocked} was not merged")), "{bad}");
}

#[test]
fn a_rebless_naming_another_trace_or_dated_before_the_verdict_fails() {
    let mut s = sample();
    let edit = s.action("rebless-1").edit.clone();
    let golden = s
        .edits
        .iter()
        .find(|e| e.id == edit)
        .and_then(|e| e.replays.iter().find(|r| r.task == "fx-rate-sheet"))
        .map(|r| trace_digest(&r.golden))
        .expect("the replay");
    let rebless = s.action("rebless-1");
    rebless.golden_sha256 = Some(golden);
    rebless.at = "2026-11-01T00:00:00Z".to_string();
    let bad = failing(&s.receipts()).join("\n");
    assert!(bad.contains("actions[rebless-1].golden_sha256"), "{bad}");
    assert!(bad.contains("actions[rebless-1].at"), "{bad}");
}

#[test]
fn a_replay_after_a_rebless_must_start_from_the_reblessed_trace() {
    let mut s = sample();
    let rebless = s.action("rebless-1").clone();
    let source = s
        .edits
        .iter()
        .find(|e| e.id == rebless.edit)
        .expect("edit")
        .clone();
    // A later edit that replays the rate sheet against the old golden trace.
    let mut later = source.clone();
    later.id = "R01-edit-11-reporting".to_string();
    later.edited_at = "2026-11-20T00:00:00Z".to_string();
    s.edits.push(later.clone());
    let bad = failing(&s.receipts()).join("\n");
    assert!(
        bad.contains("actions[rebless-1].used_by") && bad.contains("R01-edit-11-reporting"),
        "{bad}"
    );
    // Against the re-blessed trace it holds.
    let new: Trace = source
        .replays
        .iter()
        .find(|r| Some(&r.task) == rebless.task.as_ref())
        .expect("replay")
        .replay
        .clone();
    let last = s.edits.last_mut().expect("edit");
    for r in last
        .replays
        .iter_mut()
        .filter(|r| r.task == "fx-rate-sheet")
    {
        r.golden = new.clone();
    }
    let bad = failing(&s.receipts()).join("\n");
    assert!(!bad.contains("used_by"), "{bad}");
}

#[test]
fn a_verdict_summary_is_held_to_the_verdict_and_the_edits_figures() {
    let s = sample();
    let i = s
        .edits
        .iter()
        .position(|e| e.verdict.result == VerdictResult::Block)
        .expect("a blocked edit");
    let edit_receipts =
        |edit: &SkillEdit| verify_skill_edit("R01", &s.suite, edit, &BTreeMap::new());
    let said = s.edits[i].verdict.summary.clone().expect("a summary");
    let summary_failures = |text: String| {
        let mut edit = s.edits[i].clone();
        edit.verdict.summary = Some(text);
        failing(&edit_receipts(&edit))
            .into_iter()
            .filter(|f| f.starts_with("verdict.summary"))
            .collect::<Vec<_>>()
    };
    assert_eq!(summary_failures(said.clone()), Vec::<String>::new());
    // Softened to a pass.
    let bad = summary_failures(said.replacen("BLOCK", "PASS", 1));
    assert_eq!(
        bad,
        vec!["verdict.summary: opens with PASS / opens with BLOCK"]
    );
    // A count changed in the prose, resealing nothing else.
    let total = s.edits[i].replays.len();
    let bad = summary_failures(said.replace(
        &format!("[{total}](#edit.replays.total)"),
        &format!("[{}](#edit.replays.total)", total + 1),
    ));
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("edit.replays.total"), "{bad:?}");
    // A number typed by hand, and one bound to a figure the edit does not have.
    let bad = summary_failures(format!(
        "{said} It would have cost 9 dollars, or [12](#edit.replays.skipped)."
    ));
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].contains("typed by hand"), "{bad:?}");
    assert!(
        bad[1].contains("the edit has no figure edit.replays.skipped"),
        "{bad:?}"
    );
    // A study's figure is not the edit's.
    let bad = summary_failures(format!("{said} [83.3%](#E02.ladder.pass_rate_pct)"));
    assert!(
        bad.iter()
            .any(|f| f.contains("binds to the edit's own figures")),
        "{bad:?}"
    );
}
