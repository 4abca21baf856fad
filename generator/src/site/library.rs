//! Two more views of a regression suite: the golden library (each blessed
//! task's golden traces with their digests, the edits replayed against
//! each and those it caught) and a weekly digest per ISO week, made from the
//! records of that week alone (its edits, their verdicts, what they cost
//! and the actions taken).

use std::collections::BTreeMap;

use serde::Serialize;

use receipts_verifier::cost::Cost;
use receipts_verifier::model::{ActionKind, ActionOutcome, Trace, VerdictResult, REGRESSIONS_DIR};
use receipts_verifier::time::{format, iso_week, parse, UnixMillis};
use receipts_verifier::verify::{
    edit_cost, replay_verdict, trace_digest, verdict, RegressionVerification,
};

use super::regression_history::{action_rows, ActionRow};
use super::{regressions_href, regressions_simulated, skill_edit_href, timeline_row, TimelineRow};
use crate::load::LoadedRegressions;

pub fn golden_href(suite: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/golden/index.html")
}
pub fn week_href(suite: &str, week: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/weeks/{week}.html")
}

/// The golden library page.
#[derive(Debug, Clone, Serialize)]
pub struct GoldenView {
    pub id: String,
    pub title: String,
    pub simulated: bool,
    pub suite_href: String,
    pub tasks: Vec<GoldenTask>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GoldenTask {
    pub task: String,
    pub world_dependent: bool,
    /// Oldest first.
    pub versions: Vec<GoldenVersion>,
}

/// One golden trace of a task.
#[derive(Debug, Clone, Serialize)]
pub struct GoldenVersion {
    pub digest: String,
    pub recorded_at: String,
    /// How it became golden: blessed with the suite, or re-blessed from an edit.
    pub blessed: String,
    pub side_effects: Vec<String>,
    /// Edits whose replay of the task was compared with this trace.
    pub replayed_by: Vec<EditLink>,
    /// Of those, the edits it held or reverted (recomputed).
    pub caught: Vec<Catch>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EditLink {
    pub id: String,
    pub href: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Catch {
    pub id: String,
    pub href: String,
    /// WARN or BLOCK, recomputed.
    pub result: String,
    /// `a labelled regression`, `a labelled control (a false alarm)`, or `unlabelled`.
    pub label: String,
}

fn effects(trace: &Trace) -> Vec<String> {
    trace
        .side_effects
        .iter()
        .map(|e| format!("{} {}", e.tool, e.args))
        .collect()
}

fn result_word(r: VerdictResult) -> &'static str {
    match r {
        VerdictResult::Pass => "PASS",
        VerdictResult::Warn => "WARN",
        VerdictResult::Block => "BLOCK",
    }
}

/// Every task's golden traces: those the replays were compared with, and
/// those re-blessed since.
pub fn golden_view(loaded: &LoadedRegressions) -> GoldenView {
    let mut tasks: BTreeMap<&str, GoldenTask> = BTreeMap::new();
    let mut edits: Vec<&receipts_verifier::model::SkillEdit> = loaded.edits.iter().collect();
    edits.sort_by(|a, b| a.edited_at.cmp(&b.edited_at).then(a.id.cmp(&b.id)));
    let version = |trace: &Trace, blessed: String| GoldenVersion {
        digest: trace_digest(trace),
        recorded_at: trace.recorded_at.clone(),
        blessed,
        side_effects: effects(trace),
        replayed_by: Vec::new(),
        caught: Vec::new(),
    };
    for edit in edits {
        for replay in &edit.replays {
            let task = tasks.entry(&replay.task).or_insert_with(|| GoldenTask {
                task: replay.task.clone(),
                world_dependent: replay.world_dependent,
                versions: Vec::new(),
            });
            let digest = trace_digest(&replay.golden);
            let at = match task.versions.iter().position(|v| v.digest == digest) {
                Some(i) => i,
                None => {
                    task.versions.push(version(
                        &replay.golden,
                        format!("blessed {}", replay.golden.recorded_at),
                    ));
                    task.versions.len() - 1
                }
            };
            let v = &mut task.versions[at];
            let href = skill_edit_href(&loaded.dir, &edit.id);
            v.replayed_by.push(EditLink {
                id: edit.id.clone(),
                href: href.clone(),
            });
            let outcome = replay_verdict(&loaded.suite, replay).result;
            if let Some(r @ (VerdictResult::Warn | VerdictResult::Block)) = outcome {
                v.caught.push(Catch {
                    id: edit.id.clone(),
                    href,
                    result: result_word(r).to_string(),
                    label: match &edit.label {
                        Some(l) if l.regression => "a labelled regression".to_string(),
                        Some(_) => "a labelled control (a false alarm)".to_string(),
                        None => "unlabelled".to_string(),
                    },
                });
            }
        }
    }
    // Re-blessed traces not yet replayed against.
    for action in loaded.actions.iter().flat_map(|h| &h.actions) {
        if action.action != ActionKind::Rebless || action.outcome != ActionOutcome::Done {
            continue;
        }
        let Some(replay) = loaded
            .edits
            .iter()
            .find(|e| e.id == action.edit)
            .and_then(|e| {
                e.replays
                    .iter()
                    .find(|r| Some(&r.task) == action.task.as_ref())
            })
        else {
            continue;
        };
        let Some(task) = tasks.get_mut(replay.task.as_str()) else {
            continue;
        };
        let digest = trace_digest(&replay.replay);
        let blessed = format!(
            "re-blessed {} by {} from {} ({})",
            action.at, action.by, action.edit, action.id
        );
        match task.versions.iter_mut().find(|v| v.digest == digest) {
            Some(v) => v.blessed = blessed,
            None => task.versions.push(version(&replay.replay, blessed)),
        }
    }
    GoldenView {
        id: loaded.suite.id.clone(),
        title: loaded.suite.title.clone(),
        simulated: regressions_simulated(loaded),
        suite_href: regressions_href(&loaded.dir),
        tasks: tasks.into_values().collect(),
    }
}

/// A week on the suite's page.
#[derive(Debug, Clone, Serialize)]
pub struct WeekLink {
    pub week: String,
    pub href: String,
    pub edits: usize,
    pub actions: usize,
}

/// One week's digest.
#[derive(Debug, Clone, Serialize)]
pub struct WeekView {
    pub id: String,
    pub title: String,
    pub simulated: bool,
    pub suite_href: String,
    pub week: String,
    /// The Monday and the Sunday, as dates.
    pub from: String,
    pub to: String,
    pub edits: Vec<TimelineRow>,
    /// Recomputed verdicts of the week's edits: PASS, WARN, BLOCK.
    pub verdicts: [usize; 3],
    /// Labelled regressions held or reverted, and let through.
    pub caught: usize,
    pub missed: usize,
    /// Labelled controls held or reverted.
    pub false_alarms: usize,
    pub cost: Cost,
    pub actions: Vec<ActionRow>,
    pub previous: Option<WeekLink>,
    pub next: Option<WeekLink>,
}

/// `2026-W45`, for a time that parses.
fn week_of(at: &str) -> Option<String> {
    let (year, week) = iso_week(parse(at).ok()?);
    Some(format!("{year}-W{week:02}"))
}

/// The Monday of the week holding `at`, and the Sunday after it, as dates.
fn week_span(at: &str) -> (String, String) {
    let Ok(t) = parse(at) else {
        return (String::new(), String::new());
    };
    let day = 86_400_000;
    let days = t.0.div_euclid(day);
    let monday = (days - (days + 3).rem_euclid(7)) * day;
    let date = |ms: i64| format(UnixMillis(ms))[..10].to_string();
    (date(monday), date(monday + 6 * day))
}

/// Every week with an edit or an action, oldest first, each with its digest.
pub fn week_views(loaded: &LoadedRegressions, verified: &RegressionVerification) -> Vec<WeekView> {
    let mut weeks: BTreeMap<String, (Vec<usize>, usize, String)> = BTreeMap::new();
    for (i, e) in loaded.edits.iter().enumerate() {
        if let Some(w) = week_of(&e.edited_at) {
            let entry = weeks
                .entry(w)
                .or_insert_with(|| (Vec::new(), 0, e.edited_at.clone()));
            entry.0.push(i);
        }
    }
    for a in loaded.actions.iter().flat_map(|h| &h.actions) {
        if let Some(w) = week_of(&a.at) {
            weeks
                .entry(w)
                .or_insert_with(|| (Vec::new(), 0, a.at.clone()))
                .1 += 1;
        }
    }
    let links: Vec<WeekLink> = weeks
        .iter()
        .map(|(w, (edits, actions, _))| WeekLink {
            week: w.clone(),
            href: week_href(&loaded.dir, w),
            edits: edits.len(),
            actions: *actions,
        })
        .collect();
    weeks
        .into_iter()
        .enumerate()
        .map(|(n, (week, (mut members, _, any)))| {
            members.sort_by(|&a, &b| {
                let (x, y) = (&loaded.edits[a], &loaded.edits[b]);
                x.edited_at.cmp(&y.edited_at).then(x.id.cmp(&y.id))
            });
            let mut view = WeekView {
                id: loaded.suite.id.clone(),
                title: loaded.suite.title.clone(),
                simulated: regressions_simulated(loaded),
                suite_href: regressions_href(&loaded.dir),
                from: week_span(&any).0,
                to: week_span(&any).1,
                week: week.clone(),
                edits: members
                    .iter()
                    .map(|&i| timeline_row(loaded, verified, i))
                    .collect(),
                verdicts: [0; 3],
                caught: 0,
                missed: 0,
                false_alarms: 0,
                cost: Cost::ZERO,
                actions: action_rows(loaded, verified, |at| {
                    week_of(at).as_deref() == Some(week.as_str())
                }),
                previous: n.checked_sub(1).map(|p| links[p].clone()),
                next: links.get(n + 1).cloned(),
            };
            for &i in &members {
                let e = &loaded.edits[i];
                let decisions: Vec<_> = e
                    .replays
                    .iter()
                    .map(|r| replay_verdict(&loaded.suite, r))
                    .collect();
                if let Ok(c) = edit_cost(&loaded.suite, e).total {
                    view.cost = view.cost + c;
                }
                let Some(r) = verdict(&decisions) else {
                    continue;
                };
                view.verdicts[r as usize] += 1;
                let caught = r != VerdictResult::Pass;
                match &e.label {
                    Some(l) if l.regression && caught => view.caught += 1,
                    Some(l) if l.regression => view.missed += 1,
                    Some(_) if caught => view.false_alarms += 1,
                    _ => {}
                }
            }
            view
        })
        .collect()
}

/// The weeks, for the suite's page.
pub fn week_links(loaded: &LoadedRegressions, views: &[WeekView]) -> Vec<WeekLink> {
    views
        .iter()
        .map(|v| WeekLink {
            week: v.week.clone(),
            href: week_href(&loaded.dir, &v.week),
            edits: v.edits.len(),
            actions: v.actions.len(),
        })
        .collect()
}
