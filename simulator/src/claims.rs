//! What the sample says of its figures, written as claims: every measured
//! number in a headline, a finding or the memo is a link to the figure it
//! claims, formatted from the same recomputation the verifier makes, and
//! every other number (a budget, a target) is marked as not measured.

use std::collections::BTreeMap;

use receipts_verifier::claims::{show_figure, Bound, Unit};
use receipts_verifier::model::{
    Analysis, FormatVersion, NamedFigure, PolicyNumbers, Study, StudyKind,
};
use receipts_verifier::numbers::round_to;

/// A pass rate: `[83.3%](#E02.ladder.pass_rate_pct)`.
fn rate(e: &str, p: &PolicyNumbers) -> String {
    format!("[{:.1}%](#{e}.{}.pass_rate_pct)", p.pass_rate_pct, p.policy)
}

/// A cost per task: `[$0.0058–0.0060](#E02.ladder.cost_per_task_usd)`.
fn cost(e: &str, p: &PolicyNumbers) -> String {
    let c = p.cost_per_task_usd;
    // Four decimals, as the source wrote costs; five under a tenth of a cent,
    // so the figure keeps two significant digits.
    let d = if c.low < 0.001 { 5 } else { 4 };
    let text = if c.low == c.high {
        format!("${:.d$}", c.low)
    } else {
        format!("${:.d$}–{:.d$}", c.low, c.high)
    };
    format!("[{text}](#{e}.{}.cost_per_task_usd)", p.policy)
}

fn bound(p: &PolicyNumbers) -> Bound {
    Bound {
        low: p.cost_per_task_usd.low,
        high: p.cost_per_task_usd.high,
    }
}

/// How `a`'s cost compares with `b`'s: `[1.6–4.9% lower](#change(…))`, or
/// `None` when the bound of the change straddles zero (no direction holds).
fn cost_change(e: &str, a: &PolicyNumbers, b: &PolicyNumbers) -> Option<String> {
    let change = Bound::change(bound(a), bound(b)).ok()?;
    let (word, near, far) = if change.high < 0.0 {
        ("lower", -change.high, -change.low)
    } else if change.low > 0.0 {
        ("higher", change.low, change.high)
    } else {
        return None;
    };
    let text = if format!("{near:.1}") == format!("{far:.1}") {
        format!("{near:.1}% {word}")
    } else {
        format!("{near:.1}–{far:.1}% {word}")
    };
    Some(format!(
        "[{text}](#change({e}.{}.cost_per_task_usd,{e}.{}.cost_per_task_usd))",
        a.policy, b.policy
    ))
}

fn find<'a>(a: &'a Analysis, id: &str) -> Option<&'a PolicyNumbers> {
    a.policies.iter().find(|p| p.policy == id)
}

/// The headline of a study stopped before its grid was complete: its
/// hypotheses not decided, and the first latency policy (or the ladder, or
/// the first other policy) against always-large on the cells that ran,
/// each figure claimed as run.
pub fn stopped_headline(e: &str, a: &Analysis) -> String {
    let stopped = "Simulated: the study was stopped before its grid was complete (see its deviations), and its hypotheses are not decided.";
    let large = find(a, "always-large");
    let other = find(a, "speculative")
        .or_else(|| find(a, "ladder"))
        .or_else(|| a.policies.iter().find(|p| p.policy != "always-large"));
    let (Some(x), Some(l)) = (large, other) else {
        return stopped.to_string();
    };
    let run = format!("{e}/as-run");
    let cells = if l.incomplete_cells > 0 {
        format!(
            "[{}](#{run}.{}.runs) cells with every tier's run",
            l.runs, l.policy
        )
    } else {
        format!(
            "cells that ran, [{}](#{run}.{}.runs) of them",
            l.runs, l.policy
        )
    };
    format!(
        "{stopped} On the {cells}, {} answered in [{:.1} s](#{run}.{}.mean_time_s) on average, at {} a task against {} for always-large.",
        match l.policy.as_str() {
            "speculative" => "the speculative ladder".to_string(),
            "ladder" => "the ladder".to_string(),
            other => other.to_string(),
        },
        l.mean_time_s,
        l.policy,
        cost(&run, l),
        cost(&run, x),
    )
}

/// The headline: the ladder (or the first other policy) against always-large.
pub fn headline(e: &str, a: &Analysis) -> String {
    let large = find(a, "always-large");
    let other =
        find(a, "ladder").or_else(|| a.policies.iter().find(|p| p.policy != "always-large"));
    let (Some(x), Some(l)) = (large, other) else {
        return "Simulated sample experiment.".to_string();
    };
    let compared = match cost_change(e, l, x) {
        Some(change) => format!(
            ", at {change} cost per task ({} against {})",
            cost(e, l),
            cost(e, x)
        ),
        None => format!(
            "; its cost per task, {}, and always-large's, {}, overlap",
            cost(e, l),
            cost(e, x)
        ),
    };
    format!(
        "Simulated: {} passed {} of tasks against {} for always-large{compared}.",
        if l.policy == "ladder" {
            "the ladder".to_string()
        } else {
            l.policy.clone()
        },
        rate(e, l),
        rate(e, x),
    )
}

/// Key findings: each other policy's figures, the ladder's time against
/// its target, what counting reruns would have said, and how a policy
/// fared against the same policy in an earlier experiment.
pub fn findings(
    e: &str,
    a: &Analysis,
    reruns: Option<&Analysis>,
    earlier: Option<(&str, &Analysis, u64, u64)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for p in &a.policies {
        if p.policy == "ladder" || p.policy == "always-large" {
            continue;
        }
        out.push(format!(
            "{} passed {} of tasks at {} per task, in [{:.1} s](#{e}.{}.mean_time_s) on average.",
            p.policy,
            rate(e, p),
            cost(e, p),
            p.mean_time_s,
            p.policy
        ));
    }
    if let Some(l) = find(a, "ladder") {
        out.push(format!(
            "The ladder took [{:.1} s](#{e}.ladder.mean_time_s) per task on average (median [{:.1} s](#{e}.ladder.median_time_s)).",
            l.mean_time_s, l.median_time_s
        ));
        if let Some(r) = reruns.and_then(|r| find(r, "ladder")) {
            out.push(format!(
                "Counting reruns in place of the runs they replace, which the registration does not allow, the ladder's pass rate would read [{:.1}%](#{e}/reruns-replace.ladder.pass_rate_pct).",
                r.pass_rate_pct
            ));
        }
    }
    if let Some((before, b, tokens_before, tokens)) = earlier {
        if let (Some(now), Some(then)) = (find(a, "always-medium"), find(b, "always-medium")) {
            let diff = round_to(now.pass_rate_pct - then.pass_rate_pct, 1);
            // A difference is claimed only where there is one to bind.
            let by = if diff == 0.0 {
                String::new()
            } else {
                let word = if diff > 0.0 { "more" } else { "fewer" };
                format!(
                    ": [{:.1} points {word}](#diff({e}.always-medium.pass_rate_pct,{before}.always-medium.pass_rate_pct))",
                    diff.abs()
                )
            };
            out.push(format!(
                "With [{}](#registered) output tokens always-medium passed {} of tasks, against {} with [{}](#registered) in {before}{by}.",
                thousands(tokens),
                rate(e, now),
                rate(before, then),
                thousands(tokens_before),
            ));
        }
    }
    out
}

fn thousands(n: u64) -> String {
    show_figure(Bound::exact(n as f64), Unit::Count)
}

/// The study's named figures.
pub fn study() -> Study {
    let named = |label: &str, of: &str| NamedFigure {
        label: label.to_string(),
        of: of.to_string(),
    };
    Study {
        format_version: FormatVersion,
        kind: StudyKind::Study,
        figures: BTreeMap::from([
            (
                "e02_ladder_cost_change_pct".to_string(),
                named(
                    "E02: the ladder's cost per task against always-large's, relative change",
                    "change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)",
                ),
            ),
            (
                "medium_recovery_points".to_string(),
                named(
                    "Always-medium's pass rate with E02's output budget against E01's, in points",
                    "diff(E02.always-medium.pass_rate_pct,E01.always-medium.pass_rate_pct)",
                ),
            ),
            (
                "cost_per_run_usd".to_string(),
                named(
                    "Spend per run over the whole study",
                    "ratio(study.total_cost_usd,study.runs)",
                ),
            ),
        ]),
    }
}

/// The corrections memo: what the first summary of `e` got wrong, in
/// claims bound to the figures that correct it.
pub fn corrections_memo(e: &str, a: &Analysis, reruns: &Analysis) -> String {
    let (Some(l), Some(x)) = (find(a, "ladder"), find(a, "always-large")) else {
        return String::new();
    };
    let rerun_rate = find(reruns, "ladder").map_or(0.0, |r| r.pass_rate_pct);
    let change = cost_change(e, l, x).unwrap_or_else(|| "no lower".to_string());
    format!(
        "# Memo: corrections to {e}\n\n\
> Simulated data: this memo belongs to the sample study produced by the receipts simulator. No model was called.\n\n\
Every measured number below is bound to the figure it claims and recomputed from the runs when the site is built and again in the reader's browser.\n\n\
## What the first summary said\n\n\
The first summary of {e} counted each rerun in place of the run it replaced, so the ladder's pass rate read [{rerun_rate:.1}%](#{e}/reruns-replace.ladder.pass_rate_pct). \
The registration counts every run that reached the provider: the ladder passed {} of tasks, against {} for always-large.\n\n\
Its cost per task averaged only the cells whose cost was known. With the cell whose usage was lost carried as a bound, the ladder costs {} per task, {change} than always-large's {}.\n\n\
## The study as a whole\n\n\
The study ran [](#study.runs) runs over [](#study.calls) provider calls and spent [](#study.total_cost_usd) in all, or [](#study.cost_per_run_usd) per run; the named figure `study.e02_ladder_cost_change_pct` is [](#study.e02_ladder_cost_change_pct).\n",
        rate(e, l),
        rate(e, x),
        cost(e, l),
        cost(e, x),
    )
}
