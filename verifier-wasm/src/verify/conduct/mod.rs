//! Receipts of how a run was conducted: it followed its policy, stayed
//! within the registered limits, and its record is internally possible.
//! Each is one receipt per run that names the first problem found, by
//! attempt and call, or says what was checked.

use std::collections::{BTreeMap, BTreeSet};

use crate::facts::RunFacts;
use crate::model::{
    ActionTool, Attempt, CallStatus, EndReason, Experiment, PolicyKind, ProviderCall, Run,
};
use crate::plural::count;
use crate::time::{self, UnixMillis};

use super::Receipt;

mod limits;

use limits::limits;

/// No provider serves this many completion tokens per second of call time;
/// a call recorded faster was not made as recorded.
pub const MAX_TOKENS_PER_SECOND: u64 = 10_000;

/// Whether the run's policy starts two attempts together (a speculative ladder).
fn parallel_start(e: &Experiment, run: &Run) -> bool {
    e.policies
        .iter()
        .any(|p| p.id == run.policy && p.kind == PolicyKind::Speculative)
}

/// Whether a run receipt's claim is one of the conduct receipts.
pub fn is_conduct(claim: &str) -> bool {
    claim.starts_with("policy `")
        || claim == "limits"
        || claim == "record is possible"
        || claim == "provenance"
}

/// The four conduct receipts of `run`, given whether each attempt passed
/// its recomputed checks.
pub fn conduct_receipts(
    subject: &str,
    experiment: &Experiment,
    run: &Run,
    attempts_passed: &[bool],
    facts: &RunFacts,
) -> Vec<Receipt> {
    vec![
        policy(subject, experiment, run, attempts_passed),
        limits(subject, experiment, run, facts),
        possible(subject, run, parallel_start(experiment, run)),
        provenance(subject, experiment, run),
    ]
}

/// The run was made the way its experiment registered: a run of a
/// simulated experiment is simulated, and one of a recorded experiment
/// recorded. The experiment's provenance is part of its registered rules,
/// so a simulated run relabelled `recorded` cannot be matched by relabelling
/// the experiment without breaking the registration.
fn provenance(subject: &str, e: &Experiment, run: &Run) -> Receipt {
    let registered = e.provenance.as_str();
    let problem = if run.provenance == e.provenance {
        Ok("as registered".to_string())
    } else {
        Err(format!(
            "the experiment is registered {registered}: its runs are all {registered}"
        ))
    };
    let recorded = run.provenance.as_str().to_string();
    verdict(subject, "provenance", recorded, problem)
}

fn verdict(
    subject: &str,
    claim: &str,
    recorded: String,
    problem: Result<String, String>,
) -> Receipt {
    match problem {
        Ok(fine) => Receipt::new(subject, claim, recorded, fine, true),
        Err(why) => Receipt::new(subject, claim, recorded, why, false),
    }
}

/// The tiers tried follow the policy: one attempt for a single-tier policy;
/// for a ladder its tiers in order from the first, escalating only after an
/// attempt failed its checks, and stopping early only when a limit or an
/// error stopped the run. Every call requests its tier's model.
fn policy(subject: &str, e: &Experiment, run: &Run, passed: &[bool]) -> Receipt {
    let claim = format!("policy `{}`", run.policy);
    let tried = run.tiers_tried().join(" > ");
    let recorded = if tried.is_empty() {
        "no attempt".to_string()
    } else {
        format!("tiers tried: {tried}")
    };
    let Some(policy) = e.policies.iter().find(|p| p.id == run.policy) else {
        return verdict(
            subject,
            &claim,
            recorded,
            Err("the experiment has no such policy".into()),
        );
    };
    if policy.composed {
        return verdict(
            subject,
            &claim,
            recorded,
            Err("the policy is composed from the runs of its tiers: no run is made under it, and its figures count none".into()),
        );
    }
    if let PolicyKind::Other(kind) = &policy.kind {
        return match tiers_and_models(e, run) {
            Err(why) => verdict(subject, &claim, recorded, Err(why)),
            Ok(()) => Receipt::unchecked(
                subject,
                &claim,
                recorded,
                format!(
                    "policy kind `{kind}` is not one this verifier knows (single, ladder, speculative, tier_memory): the order of its tiers is the record's word"
                ),
            ),
        };
    }
    let check = || -> Result<String, String> {
        tiers_and_models(e, run)?;
        halted_on_refusal(run)?;
        let n = run.attempts.len();
        match &policy.kind {
            PolicyKind::Single => {
                if n != 1 {
                    return Err(format!(
                        "a single-tier policy makes one attempt; this run made {n}"
                    ));
                }
                if run.attempts[0].tier != policy.tiers[0] {
                    return Err(format!(
                        "the attempt is on `{}`, not the policy's tier `{}`",
                        run.attempts[0].tier, policy.tiers[0]
                    ));
                }
                Ok(format!("one attempt, on `{}`", policy.tiers[0]))
            }
            PolicyKind::Ladder => ladder(run, &policy.tiers, 0, passed),
            PolicyKind::TierMemory => {
                let Some(start) = run
                    .attempts
                    .first()
                    .and_then(|a| policy.tiers.iter().position(|t| *t == a.tier))
                else {
                    return Err("the run makes no attempt on a tier of the policy".into());
                };
                ladder(run, &policy.tiers, start, passed)
            }
            PolicyKind::Speculative => speculative(run, &policy.tiers, passed),
            PolicyKind::Other(kind) => Err(format!(
                "policy kind `{kind}` is not one this verifier knows"
            )),
        }
    };
    verdict(subject, &claim, recorded, check())
}

/// A refused authentication ends the run: every tier is called with the
/// same key, so no call follows the refused one in its attempt, the attempt
/// ends `error`, and no attempt starts after it.
fn halted_on_refusal(run: &Run) -> Result<(), String> {
    for (i, a) in run.attempts.iter().enumerate() {
        let Some(j) = a
            .calls
            .iter()
            .position(ProviderCall::refused_authentication)
        else {
            continue;
        };
        let call = &a.calls[j];
        let refused = format!(
            "attempts[{i}].calls[{j}] was refused authentication (HTTP {})",
            call.http_status.unwrap_or_default()
        );
        if j + 1 < a.calls.len() {
            return Err(format!(
                "{refused}, yet the attempt called the provider again"
            ));
        }
        if a.end.reason != EndReason::Error {
            return Err(format!(
                "{refused}, yet the attempt ended `{}`, not `error`",
                reason(a.end.reason)
            ));
        }
        let refused_at = at(
            &call.started_at,
            &format!("attempts[{i}].calls[{j}].started_at"),
        )?
        .saturating_add(millis(call.latency_ms));
        for (k, later) in run.attempts.iter().enumerate().skip(i + 1) {
            if at(&later.started_at, &format!("attempts[{k}].started_at"))? >= refused_at {
                return Err(format!(
                    "{refused}, yet the run went on to attempts[{k}] on `{}`",
                    later.tier
                ));
            }
        }
    }
    Ok(())
}

/// Every attempt is on a tier of the experiment, and every call requests
/// its tier's model.
fn tiers_and_models(e: &Experiment, run: &Run) -> Result<(), String> {
    for (i, attempt) in run.attempts.iter().enumerate() {
        let Some(tier) = e.tiers.iter().find(|t| t.id == attempt.tier) else {
            return Err(format!(
                "attempts[{i}] is on `{}`, not a tier of the experiment",
                attempt.tier
            ));
        };
        for (j, call) in attempt.calls.iter().enumerate() {
            if call.model_requested != tier.model {
                return Err(format!(
                    "attempts[{i}].calls[{j}] requested `{}`, but tier `{}` is `{}`",
                    call.model_requested, tier.id, tier.model
                ));
            }
        }
    }
    Ok(())
}

/// Whether the run's last attempt was stopped (a limit, the ledger or an
/// error) rather than finished with failing checks.
fn stopped(run: &Run) -> bool {
    run.attempts.last().is_some_and(|a| {
        matches!(
            a.end.reason,
            EndReason::BudgetStop | EndReason::TimeLimit | EndReason::Error
        )
    })
}

fn reason(end: EndReason) -> String {
    word(end)
}

/// A value's word in the record (`error`, `time_limit`, …).
fn word(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A ladder from `tiers[start]`: the tiers in order, escalating only after a
/// failed attempt, stopping early only when the run was stopped.
fn ladder(run: &Run, tiers: &[String], start: usize, passed: &[bool]) -> Result<String, String> {
    let n = run.attempts.len();
    if n == 0 {
        return Err("a ladder makes at least one attempt".into());
    }
    for (i, attempt) in run.attempts.iter().enumerate() {
        match tiers.get(start + i) {
            Some(t) if *t == attempt.tier => {}
            Some(t) => {
                return Err(format!(
                    "attempts[{i}] is on `{}`; the ladder's step {} is `{t}`",
                    attempt.tier,
                    start + i + 1
                ))
            }
            None => return Err(format!("attempts[{i}] goes past the ladder's last tier")),
        }
        if i + 1 < n && passed.get(i).copied().unwrap_or(false) {
            return Err(format!(
                "attempts[{i}] passed its checks, yet the run escalated to `{}`",
                run.attempts[i + 1].tier
            ));
        }
    }
    let last_passed = passed.get(n - 1).copied().unwrap_or(false);
    let from = if start == 0 {
        String::new()
    } else {
        format!(" from `{}`", tiers[start])
    };
    if !last_passed && start + n < tiers.len() {
        if !stopped(run) {
            return Err(format!(
                "attempts[{}] failed its checks and ended `{}`, yet the run did not escalate to `{}`",
                n - 1,
                reason(run.attempts[n - 1].end.reason),
                tiers[start + n]
            ));
        }
        return Ok(format!(
            "{} of the ladder in order{from}; the run was stopped before the next",
            count(n, "tier", None)
        ));
    }
    Ok(if n == 1 {
        format!("one tier of the ladder{from}")
    } else {
        format!("{n} tiers of the ladder in order{from}, escalating after each failed attempt")
    })
}

/// A speculative ladder: the first two tiers called together (the second
/// attempt starts before the first ends), then the third only if both
/// failed, after both ended; no more.
fn speculative(run: &Run, tiers: &[String], passed: &[bool]) -> Result<String, String> {
    let n = run.attempts.len();
    let on = |i: usize| run.attempts.get(i).map(|a| a.tier.as_str());
    let time = |i: usize| -> Result<(i64, i64), String> {
        let a = &run.attempts[i];
        let s = at(&a.started_at, &format!("attempts[{i}].started_at"))?;
        Ok((s, s.saturating_add(millis(a.duration_ms))))
    };
    if n < 2 {
        if n == 1 && stopped(run) && on(0) == tiers.first().map(String::as_str) {
            return Ok("one attempt; the run was stopped before the second tier".into());
        }
        return Err(format!(
            "a speculative ladder calls its first two tiers together; this run made {}",
            count(n, "attempt", None)
        ));
    }
    for i in 0..n.min(3) {
        if on(i) != tiers.get(i).map(String::as_str) {
            return Err(format!(
                "attempts[{i}] is on `{}`; the speculative ladder's tier {} is `{}`",
                run.attempts[i].tier,
                i + 1,
                tiers.get(i).map_or("none", String::as_str)
            ));
        }
    }
    let (s0, e0) = time(0)?;
    let (s1, e1) = time(1)?;
    if s1 >= e0 || s0 >= e1 {
        return Err("attempts[0] and attempts[1] did not run together".into());
    }
    let either =
        passed.first().copied().unwrap_or(false) || passed.get(1).copied().unwrap_or(false);
    match n {
        2 if either => Ok("its first two tiers together; one passed".into()),
        2 if tiers.len() > 2 && !stopped(run) => Err(format!(
            "both of the first two tiers failed, yet the run did not go on to `{}`",
            tiers[2]
        )),
        2 => Ok("its first two tiers together; both failed".into()),
        3 if either => Err("attempts[2] was made though one of the first two tiers passed".into()),
        3 => {
            let (s2, _) = time(2)?;
            if s2 < e0.max(e1) {
                return Err("attempts[2] started before the first two ended".into());
            }
            Ok(format!(
                "its first two tiers together, then `{}` after both failed",
                tiers[2]
            ))
        }
        _ => Err(format!(
            "a speculative ladder makes at most 3 attempts; this run made {n}"
        )),
    }
}

/// Call `j` of `a` repeats the call `first`: an earlier call of the same
/// attempt, to the same model, that returned no usable action (it did not
/// complete, or the turn it chose runs nothing), retried by no other call.
fn retried(a: &Attempt, j: usize, first: &str) -> Result<(), String> {
    let Some(k) = a.calls[..j].iter().position(|c| c.request_id == first) else {
        return Err(format!(
            "names `{first}` as the call it retries, not an earlier call of its attempt"
        ));
    };
    let earlier = &a.calls[k];
    if earlier.model_requested != a.calls[j].model_requested {
        return Err(format!(
            "retries `{first}` with another model (`{}`, not `{}`)",
            a.calls[j].model_requested, earlier.model_requested
        ));
    }
    let acted = a
        .turns
        .iter()
        .any(|t| t.call == first && t.action.tool != ActionTool::None);
    if earlier.status == CallStatus::Ok && acted {
        return Err(format!(
            "retries `{first}`, which completed and chose an action: a retry repeats a call that returned nothing usable"
        ));
    }
    if a.calls[..j]
        .iter()
        .any(|c| c.retry_of.as_deref() == Some(first))
    {
        return Err(format!(
            "retries `{first}`, which an earlier call retried already"
        ));
    }
    Ok(())
}

/// Milliseconds as a signed count, saturating.
fn millis(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn at(text: &str, field: &str) -> Result<i64, String> {
    time::parse(text)
        .map(|UnixMillis(t)| t)
        .map_err(|e| format!("{field}: {e}"))
}

/// The record could have happened: attempts start after the run and one
/// after another; calls start within their attempt, one after another, and
/// end within it; a completed call has a response with non-zero usage, at
/// a speed a provider can serve; request ids are present and unique; each
/// turn names a call of its attempt.
fn possible(subject: &str, run: &Run, parallel_start: bool) -> Receipt {
    let calls = run.calls().count();
    let recorded = format!(
        "{}, {}, {}",
        count(run.attempts.len(), "attempt", None),
        count(calls, "call", None),
        count(
            run.attempts.iter().map(|a| a.turns.len()).sum::<usize>(),
            "turn",
            None
        )
    );
    // A run recorded on the wire holds the calls as they crossed, not the
    // agent's actions: it has no turns (its capture gives none, and the
    // receipt that derives it again says so), and its artifact is the file
    // the recorder kept when the command ended.
    let on_wire = run
        .source
        .as_ref()
        .is_some_and(|s| s.format == crate::wire::CAPTURE_FORMAT);
    let check = || -> Result<String, String> {
        let run_start = at(&run.started_at, "started_at")?;
        let mut previous_end = run_start;
        let mut ids = BTreeSet::new();
        for (i, a) in run.attempts.iter().enumerate() {
            let start = at(&a.started_at, &format!("attempts[{i}].started_at"))?;
            // A speculative ladder's second attempt runs beside the first.
            let earliest = if parallel_start && i == 1 {
                run_start
            } else {
                previous_end
            };
            if start < earliest {
                return Err(if i == 0 {
                    format!(
                        "attempts[0] starts at {}, before the run ({})",
                        a.started_at, run.started_at
                    )
                } else {
                    format!(
                        "attempts[{i}] starts at {}, before attempts[{}] ended",
                        a.started_at,
                        i - 1
                    )
                });
            }
            let end = start.saturating_add(millis(a.duration_ms));
            if a.calls.is_empty() {
                // No call, so nothing the model did: the attempt was stopped.
                let stopped = matches!(
                    a.end.reason,
                    EndReason::BudgetStop | EndReason::TimeLimit | EndReason::Error
                );
                if !stopped || !a.turns.is_empty() || a.artifact.is_some() || !a.files.is_empty() {
                    return Err(format!(
                        "attempts[{i}] made no provider call, yet it has turns, files or ended `{}`",
                        reason(a.end.reason)
                    ));
                }
            }
            let mut call_end = start;
            for (j, c) in a.calls.iter().enumerate() {
                let place = format!("attempts[{i}].calls[{j}]");
                if c.request_id.trim().is_empty() {
                    return Err(format!("{place} has no request id"));
                }
                if !ids.insert(c.request_id.as_str()) {
                    return Err(format!("{place} repeats request id `{}`", c.request_id));
                }
                let s = at(&c.started_at, &format!("{place}.started_at"))?;
                if s < call_end {
                    return Err(format!(
                        "{place} starts at {}, before {}",
                        c.started_at,
                        if j == 0 {
                            "its attempt".to_string()
                        } else {
                            format!("calls[{}] ended", j - 1)
                        }
                    ));
                }
                call_end = s.saturating_add(millis(c.latency_ms));
                if call_end > end {
                    return Err(format!(
                        "{place} ends {} ms after its attempt's recorded end",
                        call_end - end
                    ));
                }
                if c.status == CallStatus::Ok
                    && (c.usage.is_none() || c.finish_reason.is_none() || c.model_echoed.is_none())
                {
                    return Err(format!(
                        "{place} completed but has no usage, finish reason or echoed model"
                    ));
                }
                if let Some(code) = c.http_status {
                    let ok = (200..300).contains(&code);
                    if !(100..600).contains(&code) {
                        return Err(format!("{place} has HTTP status {code}, not a status"));
                    }
                    if ok != (c.status == CallStatus::Ok) {
                        return Err(format!(
                            "{place} ended `{}` with HTTP status {code}",
                            word(c.status)
                        ));
                    }
                    if code >= 400 && (c.usage.is_some() || c.model_echoed.is_some()) {
                        return Err(format!(
                            "{place} was refused with HTTP status {code}, yet has a response's usage or echoed model"
                        ));
                    }
                }
                if let Some(first) = &c.retry_of {
                    retried(a, j, first).map_err(|why| format!("{place} {why}"))?;
                }
                if c.usage.is_none() && (c.prompt_tokens_reserved == 0 || c.max_tokens == 0) {
                    return Err(format!(
                        "{place} lost its usage but reserved no prompt or output tokens to bound its cost"
                    ));
                }
                if let Some(u) = c.usage {
                    if u.prompt_tokens == 0 || u.completion_tokens == 0 {
                        return Err(format!(
                            "{place} completed with {} prompt and {} completion tokens",
                            u.prompt_tokens, u.completion_tokens
                        ));
                    }
                    if u.reasoning_tokens.is_some_and(|r| r > u.completion_tokens) {
                        return Err(format!(
                            "{place} has more reasoning tokens than completion tokens"
                        ));
                    }
                    // Cache reads and writes are input tokens: more of them
                    // than the input would price input that never was.
                    let cached = u
                        .cache_hit_tokens
                        .unwrap_or(0)
                        .saturating_add(u.cache_write_tokens.unwrap_or(0));
                    if cached > u.prompt_tokens {
                        return Err(format!(
                            "{place} read and wrote {cached} prompt tokens in the cache, more than its {} prompt tokens",
                            u.prompt_tokens
                        ));
                    }
                    // Every prompt token either hit the cache or missed it.
                    if let (Some(hit), Some(miss)) = (u.cache_hit_tokens, u.cache_miss_tokens) {
                        if hit.saturating_add(miss) != u.prompt_tokens {
                            return Err(format!(
                                "{place} has {hit} cache hits and {miss} misses, which do not make its {} prompt tokens",
                                u.prompt_tokens
                            ));
                        }
                    }
                    if u.completion_tokens.saturating_mul(1000)
                        > MAX_TOKENS_PER_SECOND.saturating_mul(c.latency_ms)
                    {
                        return Err(format!(
                            "{place} returned {} completion tokens in {} ms, faster than {MAX_TOKENS_PER_SECOND} tokens/s",
                            u.completion_tokens, c.latency_ms
                        ));
                    }
                }
            }
            // Each call chose one action: one turn per call, none without.
            let mut turns_of: BTreeMap<&str, usize> =
                a.calls.iter().map(|c| (c.request_id.as_str(), 0)).collect();
            for (j, t) in a.turns.iter().enumerate() {
                let Some(n) = turns_of.get_mut(t.call.as_str()) else {
                    return Err(format!(
                        "attempts[{i}].turns[{j}] names call `{}`, not a call of its attempt",
                        t.call
                    ));
                };
                *n += 1;
            }
            if let Some((call, n)) = turns_of.iter().find(|(_, n)| **n != 1 && !on_wire) {
                return Err(format!(
                    "attempts[{i}]: call `{call}` chose {n} turns; each call chooses one"
                ));
            }
            // The artifact is what a write of a completed call produced.
            if let Some(file) = a.artifact.as_ref().filter(|_| !on_wire) {
                let written = a.turns.iter().any(|t| {
                    t.action.tool == ActionTool::Write
                        && t.result.sha256.as_deref() == Some(file.sha256.as_str())
                        && a.calls
                            .iter()
                            .any(|c| c.request_id == t.call && c.status == CallStatus::Ok)
                });
                if !written {
                    return Err(format!(
                        "attempts[{i}].artifact was not written by any turn of a completed call"
                    ));
                }
            }
            previous_end = previous_end.max(end);
        }
        Ok("timestamps in order, usage and speeds possible, request ids unique".to_string())
    };
    verdict(subject, "record is possible", recorded, check())
}

#[cfg(test)]
mod tests;
