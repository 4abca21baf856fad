//! A harness run report recomputed from its events: the cost from the calls'
//! usage and the suite's prices, the latency percentiles by the suite's
//! stated method, the counts of failed tool calls, blocked egress and
//! snapshots, every egress decision against the allowlist, the tokens used
//! against the cap, and whether (and when) the run had to stop on budget.

use crate::cost::{call_cost, Cost};
use crate::model::{
    harness_run_path, harness_suite_path, AbortReason, ArgRule, Decision, HarnessEvent, HarnessRun,
    HarnessSuite, PercentileMethod, ProviderCall, ToolCall,
};

use super::published::cost_receipt;
use super::{Receipt, Status};

/// The `p`th percentile of `values` by `method`; `None` when there are none.
pub fn percentile(method: PercentileMethod, values: &[u64], p: u32) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    match method {
        PercentileMethod::NearestRank => {
            let n = sorted.len();
            // Rank ⌈p/100 × n⌉, 1-based, at least 1.
            let rank = (p as usize * n).div_ceil(100).max(1);
            sorted.get(rank - 1).copied()
        }
    }
}

/// Where a run's token use met its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapReached {
    /// The event index of the call that brought the total to the cap.
    pub at_event: usize,
    /// The total after that call.
    pub tokens: u64,
}

/// The figures a run's events amount to.
#[derive(Debug, Clone, PartialEq)]
pub struct HarnessFigures {
    /// The provider calls' cost at the suite's prices, a bound where usage was
    /// lost; the error when the price table has no price for a call's model.
    pub cost: Result<Cost, String>,
    /// The 50th percentile of the provider calls' latencies, in milliseconds,
    /// by the suite's percentile method; `None` when the run made no call.
    pub latency_p50_ms: Option<u64>,
    /// The 95th percentile of the provider calls' latencies, in milliseconds,
    /// by the suite's percentile method; `None` when the run made no call.
    pub latency_p95_ms: Option<u64>,
    /// Tool calls that failed.
    pub tool_failures: u64,
    /// Egress attempts the harness denied.
    pub egress_blocked: u64,
    /// Tool calls an argument rule of the suite refuses.
    pub args_refused: u64,
    /// Snapshots taken.
    pub snapshots: u64,
    /// Prompt and completion tokens over every call whose usage is known.
    pub tokens_known: u64,
    /// The calls whose usage was lost (their tokens are unknown).
    pub usage_lost: Vec<String>,
    /// The event index of the first call whose usage was lost.
    pub first_lost_at: Option<usize>,
    /// Where the known usage reached the suite's token cap; `None` when it
    /// never did.
    pub cap_reached: Option<CapReached>,
    /// Provider calls made after the cap was reached.
    pub calls_after_cap: Vec<String>,
    /// The event index of the first budget abort.
    pub budget_abort_at: Option<usize>,
}

fn calls(run: &HarnessRun) -> impl Iterator<Item = (usize, &ProviderCall)> {
    run.events.iter().enumerate().filter_map(|(i, e)| match e {
        HarnessEvent::ProviderCall(c) => Some((i, c)),
        _ => None,
    })
}

/// Recomputes a run's figures from its events under the suite's rules.
pub fn figures(suite: &HarnessSuite, run: &HarnessRun) -> HarnessFigures {
    let latencies: Vec<u64> = calls(run).map(|(_, c)| c.latency_ms).collect();
    let cost = calls(run).try_fold(Cost::ZERO, |acc, (_, c)| {
        Ok(acc + call_cost(c, &suite.prices).map_err(|e| e.to_string())?)
    });
    let mut tokens = 0u64;
    let mut usage_lost = Vec::new();
    let mut first_lost_at = None;
    let mut cap_reached = None;
    let mut calls_after_cap = Vec::new();
    for (i, c) in calls(run) {
        if cap_reached.is_some() {
            calls_after_cap.push(c.request_id.clone());
        }
        match c.usage {
            // Saturating: absurd counts must not wrap back under the cap.
            Some(u) => {
                tokens = tokens.saturating_add(u.prompt_tokens.saturating_add(u.completion_tokens));
            }
            None => {
                first_lost_at.get_or_insert(i);
                usage_lost.push(c.request_id.clone());
            }
        }
        if cap_reached.is_none() && tokens >= suite.token_cap {
            cap_reached = Some(CapReached {
                at_event: i,
                tokens,
            });
        }
    }
    let count = |f: &dyn Fn(&HarnessEvent) -> bool| run.events.iter().filter(|e| f(e)).count();
    HarnessFigures {
        cost,
        latency_p50_ms: percentile(suite.percentile_method, &latencies, 50),
        latency_p95_ms: percentile(suite.percentile_method, &latencies, 95),
        tool_failures: count(&|e| matches!(e, HarnessEvent::ToolCall(t) if !t.ok)) as u64,
        egress_blocked: count(
            &|e| matches!(e, HarnessEvent::Egress(g) if g.decision == Decision::Denied),
        ) as u64,
        args_refused: count(
            &|e| matches!(e, HarnessEvent::ToolCall(t) if vet(suite, t).iter().any(|(_, v)| v.is_err())),
        ) as u64,
        snapshots: count(&|e| matches!(e, HarnessEvent::Snapshot(_))) as u64,
        tokens_known: tokens,
        usage_lost,
        first_lost_at,
        cap_reached,
        calls_after_cap,
        budget_abort_at: run
            .events
            .iter()
            .position(|e| matches!(e, HarnessEvent::Abort(a) if a.reason == AbortReason::Budget)),
    }
}

/// The suite's rules for `call`'s tool, each with its decision on the
/// call's arguments.
pub fn vet<'s>(
    suite: &'s HarnessSuite,
    call: &ToolCall,
) -> Vec<(&'s ArgRule, Result<String, String>)> {
    suite
        .arg_rules
        .iter()
        .filter(|r| r.tool == call.tool)
        .map(|r| (r, r.vet(&call.args)))
        .collect()
}

/// The receipt of a tool call's vetting, when the suite has rules for its
/// tool or the call records any: every rule for the tool recorded, each
/// decision as recomputed from the arguments, no other rule named, and a
/// refused call not run.
fn vetting_receipt(
    subject: &str,
    i: usize,
    suite: &HarnessSuite,
    call: &ToolCall,
) -> Option<Receipt> {
    let rules = vet(suite, call);
    if rules.is_empty() && call.vetting.is_empty() {
        return None;
    }
    let recorded = if call.vetting.is_empty() {
        "not vetted".to_string()
    } else {
        call.vetting
            .iter()
            .map(|v| format!("{}: {}", v.rule, decision(v.decision)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let recomputed: Vec<String> = rules
        .iter()
        .map(|(r, v)| match v {
            Ok(why) => format!("{}: allowed ({why})", r.id),
            Err(why) => format!("{}: denied ({why})", r.id),
        })
        .collect();
    let mut problems = Vec::new();
    for v in &call.vetting {
        if !rules.iter().any(|(r, _)| r.id == v.rule) {
            problems.push(format!(
                "`{}` is no rule of the suite for `{}`",
                v.rule, call.tool
            ));
        }
    }
    for (rule, result) in &rules {
        let expected = if result.is_ok() {
            Decision::Allowed
        } else {
            Decision::Denied
        };
        match call.vetting.iter().find(|v| v.rule == rule.id) {
            None => problems.push(format!("`{}` was not recorded", rule.id)),
            Some(v) if v.decision != expected => problems.push(format!(
                "`{}` recorded {}, recomputed {}",
                rule.id,
                decision(v.decision),
                decision(expected)
            )),
            Some(_) => {}
        }
    }
    let refused = rules.iter().any(|(_, v)| v.is_err());
    if refused && call.ok {
        problems.push("refused, yet the tool ran".to_string());
    }
    let mut shown = recomputed.join("; ");
    if !problems.is_empty() {
        shown = format!("{shown}: {}", problems.join("; "));
    }
    Some(Receipt::new(
        subject,
        format!("events[{i}].vetting"),
        recorded,
        shown,
        problems.is_empty(),
    ))
}

/// Whether the allowlist lets a run reach `host` (host names compare
/// without regard to ASCII case).
pub fn allowed(allowlist: &[String], host: &str) -> bool {
    allowlist.iter().any(|h| h.eq_ignore_ascii_case(host))
}

fn decision(d: Decision) -> &'static str {
    match d {
        Decision::Allowed => "allowed",
        Decision::Denied => "denied",
    }
}

/// The receipts of one suite's runs, in the order given, each run's own.
/// `dir` is the suite's directory; a suite whose id differs from it fails
/// its `id` receipt, which comes first.
pub fn verify_suite(dir: &str, suite: &HarnessSuite, runs: &[HarnessRun]) -> SuiteVerification {
    let mut receipts = Vec::new();
    if suite.id != dir {
        receipts.push(Receipt::new(
            &harness_suite_path(dir),
            "id",
            &suite.id,
            format!("the directory's name, {dir}"),
            false,
        ));
    }
    SuiteVerification {
        dir: dir.to_string(),
        receipts,
        runs: runs
            .iter()
            .map(|run| verify_harness_run(&harness_run_path(dir, &run.id), suite, run))
            .collect(),
    }
}

/// What verifying a suite found.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteVerification {
    /// The suite's directory.
    pub dir: String,
    /// Suite-level receipts (none when the suite is sound).
    pub receipts: Vec<Receipt>,
    /// Each run's receipts, in the order the runs were given.
    pub runs: Vec<Vec<Receipt>>,
}

impl SuiteVerification {
    /// Every receipt: the suite's, then each run's.
    pub fn all_receipts(&self) -> impl Iterator<Item = &Receipt> {
        self.receipts.iter().chain(self.runs.iter().flatten())
    }
}

/// Every figure of a run's report, each egress decision and the budget
/// stop, recomputed. `subject` names the run's file.
pub fn verify_harness_run(subject: &str, suite: &HarnessSuite, run: &HarnessRun) -> Vec<Receipt> {
    let f = figures(suite, run);
    let r = &run.report;
    let mut receipts = vec![Receipt::new(
        subject,
        "suite",
        &run.suite,
        &suite.id,
        run.suite == suite.id,
    )];

    receipts.push(cost_receipt(
        subject,
        "report.total_cost_usd",
        r.total_cost_usd,
        &f.cost,
        &f.usage_lost,
    ));

    for (claim, published, recomputed) in [
        ("report.latency_p50_ms", r.latency_p50_ms, f.latency_p50_ms),
        ("report.latency_p95_ms", r.latency_p95_ms, f.latency_p95_ms),
    ] {
        receipts.push(match recomputed {
            Some(v) => Receipt::equal(subject, claim, published, v),
            None => Receipt::unchecked(
                subject,
                claim,
                published.to_string(),
                "the run made no provider call",
            ),
        });
    }
    for (claim, published, recomputed) in [
        ("report.tool_failures", r.tool_failures, f.tool_failures),
        ("report.egress_blocked", r.egress_blocked, f.egress_blocked),
        ("report.args_refused", r.args_refused, f.args_refused),
        ("report.snapshots", r.snapshots, f.snapshots),
    ] {
        receipts.push(Receipt::equal(subject, claim, published, recomputed));
    }
    receipts.push(if f.usage_lost.is_empty() {
        Receipt::equal(subject, "report.tokens_used", r.tokens_used, f.tokens_known)
    } else {
        Receipt::unchecked(
            subject,
            "report.tokens_used",
            r.tokens_used.to_string(),
            format!(
                "at least {}; the usage of {} was lost",
                f.tokens_known,
                f.usage_lost.join(", ")
            ),
        )
    });

    for (i, event) in run.events.iter().enumerate() {
        if let HarnessEvent::ToolCall(t) = event {
            receipts.extend(vetting_receipt(subject, i, suite, t));
        }
        if let HarnessEvent::Egress(g) = event {
            let expected = if allowed(&suite.egress_allowlist, &g.host) {
                Decision::Allowed
            } else {
                Decision::Denied
            };
            receipts.push(Receipt::new(
                subject,
                format!("events[{i}].decision"),
                decision(g.decision),
                format!("{} ({})", decision(expected), g.host),
                g.decision == expected,
            ));
        }
    }

    let cap = suite.token_cap;
    receipts.push(Receipt::equal(
        subject,
        "report.aborted_on_budget",
        r.aborted_on_budget,
        f.budget_abort_at.is_some(),
    ));
    // Abort first: once a call brings the tokens to the cap, the run makes
    // no further provider call (the harness stops it before the next one),
    // and a stop on budget comes only after the cap was reached.
    let stopped = |abort: Option<usize>| {
        abort.map_or_else(
            || "no budget stop".to_string(),
            |a| format!("stopped at events[{a}]"),
        )
    };
    let never = || {
        format!(
            "the cap ({cap}) was never reached: {} tokens",
            f.tokens_known
        )
    };
    let (recomputed, pass) = match (f.cap_reached, f.budget_abort_at) {
        (Some(at), abort) => {
            let after = if f.calls_after_cap.is_empty() {
                "no call after it".to_string()
            } else {
                format!("calls after it: {}", f.calls_after_cap.join(", "))
            };
            let in_order = abort.is_none_or(|a| a > at.at_event);
            (
                format!(
                    "the cap ({cap}) was reached at events[{}] ({} tokens); {after}",
                    at.at_event, at.tokens
                ),
                f.calls_after_cap.is_empty() && in_order,
            )
        }
        (None, Some(_)) => (never(), false),
        (None, None) => (never(), true),
    };
    let mut stop = Receipt::new(
        subject,
        "budget stop",
        stopped(f.budget_abort_at),
        recomputed,
        pass,
    );
    // Usage lost before the known usage reached the cap (or when it never
    // did) could have reached the cap sooner: then only calls after the
    // known point are certain violations, and otherwise the stop cannot be
    // judged.
    let lost_before_cap = f
        .first_lost_at
        .is_some_and(|lost| f.cap_reached.is_none_or(|at| lost < at.at_event));
    if lost_before_cap && f.calls_after_cap.is_empty() {
        stop.status = Status::CouldNotCheck;
    }
    receipts.push(stop);
    receipts
}

#[cfg(test)]
mod tests;
