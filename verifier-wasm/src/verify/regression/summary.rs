//! An edit's verdict summary: a recorded judgment in words whose facts are
//! bound to the edit's own recomputed figures. It opens with the verdict it
//! summarises, and every number in it is a link to a figure of the edit,
//! `[3](#edit.replays.total)`, judged as a memo's claims are; a number
//! typed by hand fails.

use std::collections::BTreeMap;

use crate::claims::{bound_receipts, judge_text, Bound, Figure, Kind, Target, Unit};
use crate::model::{RegressionSuite, SkillEdit, VerdictResult};

use super::super::Receipt;
use super::edit::result_name;
use super::{edit_cost, time_to_verdict_s, Decision};

/// The prefix of an edit's figures in its summary.
pub const EDIT: &str = "edit";

/// The figures an edit's summary may bind to, recomputed, by
/// `<group>.<field>`: `replays.total`, `replays.pass`, `replays.warn`,
/// `replays.block`, `judges.calls`, `cost.total_usd`,
/// `cost.all_largest_usd` and `verdict.time_s` (each where it can be
/// recomputed).
pub fn edit_figures(
    suite: &RegressionSuite,
    edit: &SkillEdit,
    decisions: &[Decision],
) -> BTreeMap<String, Bound> {
    let mut out = BTreeMap::new();
    let count = |n: usize| Bound::exact(n as f64);
    out.insert("replays.total".to_string(), count(edit.replays.len()));
    for (name, r) in [
        ("pass", VerdictResult::Pass),
        ("warn", VerdictResult::Warn),
        ("block", VerdictResult::Block),
    ] {
        let n = decisions.iter().filter(|d| d.result == Some(r)).count();
        out.insert(format!("replays.{name}"), count(n));
    }
    let calls = edit.replays.iter().map(|r| r.judges.len()).sum();
    out.insert("judges.calls".to_string(), count(calls));
    let cost = edit_cost(suite, edit);
    for (name, c) in [
        ("cost.total_usd", cost.total),
        ("cost.all_largest_usd", cost.all_largest),
    ] {
        if let Ok(c) = c {
            out.insert(
                name.to_string(),
                Bound {
                    low: c.low,
                    high: c.high,
                },
            );
        }
    }
    if let Some(s) = time_to_verdict_s(edit) {
        out.insert("verdict.time_s".to_string(), Bound::exact(s));
    }
    out
}

/// Judges one bound number of a summary against the edit's figures.
pub fn judge_edit(
    text: &str,
    target: &Target,
    figures: &BTreeMap<String, Bound>,
) -> Result<Bound, String> {
    let Target::Figure(Figure::Policy(path)) = target else {
        return Err(format!(
            "`{target}`: a verdict summary binds to the edit's own figures, {EDIT}.<group>.<field>"
        ));
    };
    let name = format!("{}.{}", path.policy, path.field);
    if path.experiment != EDIT || path.analysis.is_some() {
        return Err(format!(
            "`{target}`: a verdict summary binds to the edit's own figures, {EDIT}.<group>.<field>"
        ));
    }
    let Some(figure) = figures.get(&name) else {
        let known: Vec<&str> = figures.keys().map(String::as_str).collect();
        return Err(format!(
            "the edit has no figure {EDIT}.{name}; it has {}",
            known.join(", ")
        ));
    };
    let measures = (Unit::of_name(&path.field), Kind::of_name(&path.field));
    judge_text(text, *figure, measures, false)?;
    Ok(*figure)
}

/// The unit of a summary's target.
pub fn edit_unit(target: &Target) -> Unit {
    match target {
        Target::Figure(Figure::Policy(p)) => Unit::of_name(&p.field),
        _ => Unit::Count,
    }
}

/// The receipts of an edit's summary: it opens with the recomputed verdict,
/// and each number in it is bound to a figure of the edit and agrees.
pub fn summary_receipts(
    subject: &str,
    suite: &RegressionSuite,
    edit: &SkillEdit,
    decisions: &[Decision],
    verdict: Option<VerdictResult>,
) -> Vec<Receipt> {
    let Some(text) = &edit.verdict.summary else {
        return Vec::new();
    };
    let opening = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| !w.is_empty())
        .unwrap_or("");
    let mut out = vec![match verdict {
        Some(r) => Receipt::new(
            subject,
            "verdict.summary",
            format!("opens with {opening}"),
            format!("opens with {}", result_name(r)),
            opening == result_name(r),
        ),
        None => Receipt::unchecked(
            subject,
            "verdict.summary",
            format!("opens with {opening}"),
            "a replay's outcome cannot be decided",
        ),
    }];
    let figures = edit_figures(suite, edit, decisions);
    out.extend(bound_receipts(
        subject,
        "verdict.summary",
        text,
        "edit.<group>.<field>",
        |t, target| judge_edit(t, target, &figures),
    ));
    out
}
