//! The limits receipt: a run kept to the limits its experiment registered.
//! Every call within its output budget, its call time and (where one is
//! registered) the per-call USD stop; every attempt within the turn limit
//! and (where one is registered) the output limit; the run within its wall
//! time and spending cap; and an attempt said to end at a limit did reach
//! it.

use crate::facts::RunFacts;
use crate::model::{Attempt, CallStatus, EndReason, Experiment, Limits, ProviderCall, Run};
use crate::verify::Receipt;

use super::{at, millis, reason, verdict};

/// Every call within the output budget and the call time limit, every
/// attempt within the turn limit, the run within its wall-time limit and
/// spending cap.
pub(super) fn limits(subject: &str, e: &Experiment, run: &Run, facts: &RunFacts) -> Receipt {
    let l = &e.limits;
    let mut recorded = format!(
        "at most {} turns, {} output tokens per call, {} s per run",
        l.max_turns,
        l.max_output_tokens,
        l.max_run_ms as f64 / 1000.0
    );
    if let Some(ms) = l.max_call_ms {
        recorded.push_str(&format!(", {} s per call", ms as f64 / 1000.0));
    }
    if let Some(usd) = l.max_cost_usd {
        recorded.push_str(&format!(", ${usd} per run"));
    }
    if let Some(usd) = l.max_call_usd {
        recorded.push_str(&format!(", ${usd} per call at worst"));
    }
    if let Some(bytes) = l.max_output_bytes {
        recorded.push_str(&format!(", {bytes} bytes of output per attempt"));
    }
    let check = || -> Result<String, String> {
        for (i, a) in run.attempts.iter().enumerate() {
            if a.turns.len() as u64 > u64::from(l.max_turns) {
                return Err(format!("attempts[{i}] took {} turns", a.turns.len()));
            }
            if let (Some(max), Some(artifact)) = (l.max_output_bytes, &a.artifact) {
                if artifact.bytes > max {
                    return Err(format!(
                        "attempts[{i}] wrote {} bytes of output, over the limit of {max}",
                        artifact.bytes
                    ));
                }
            }
            for (j, c) in a.calls.iter().enumerate() {
                if c.max_tokens > l.max_output_tokens {
                    return Err(format!(
                        "attempts[{i}].calls[{j}] was sent max_tokens {}",
                        c.max_tokens
                    ));
                }
                // A lost call's cost is bounded by the output budget it was
                // sent: a smaller one on record would shrink the bound. A
                // call the provider refused (HTTP 400 or above) lost
                // nothing: it returned no tokens to bound.
                if c.usage.is_none() && !c.refused() && c.max_tokens < l.max_output_tokens {
                    return Err(format!(
                        "attempts[{i}].calls[{j}] lost its usage with max_tokens {}, under the registered {}: its cost bound must use the registered budget",
                        c.max_tokens, l.max_output_tokens
                    ));
                }
                if let Some(u) = c.usage {
                    if u.completion_tokens > c.max_tokens {
                        return Err(format!(
                            "attempts[{i}].calls[{j}] returned {} completion tokens with max_tokens {}",
                            u.completion_tokens, c.max_tokens
                        ));
                    }
                }
                if let Some(cap) = l.max_call_usd {
                    per_call_stop(e, c, cap)
                        .map_err(|why| format!("attempts[{i}].calls[{j}] {why}"))?;
                }
                if let Some(ms) = l.max_call_ms {
                    if c.latency_ms > ms {
                        return Err(format!("attempts[{i}].calls[{j}] took {} ms", c.latency_ms));
                    }
                }
            }
        }
        let wall = crate::facts::try_wall_ms(run)?;
        if wall > l.max_run_ms {
            return Err(format!("the run took {} s", wall as f64 / 1000.0));
        }
        cut_where_it_says(run, l)?;
        if let (Some(cap), Ok(cost)) = (l.max_cost_usd, facts.cost()) {
            if cost.low > cap {
                return Err(format!("the run cost at least ${:.6}", cost.low));
            }
        }
        Ok(format!(
            "within them (wall time {} s)",
            wall as f64 / 1000.0
        ))
    };
    verdict(subject, "limits", recorded, check())
}

/// A call the per-call stop of `cap` USD let through: its worst case within
/// the stop, computed on a reservation no smaller than the prompt the
/// provider counted.
fn per_call_stop(e: &Experiment, c: &ProviderCall, cap: f64) -> Result<(), String> {
    let worst = crate::cost::worst_case(c, &e.prices).map_err(|m| m.to_string())?;
    // A margin of a billionth of a cent for the floating-point sum.
    if worst > cap + 1e-11 {
        return Err(format!(
            "could cost ${worst:.6} at worst ({} prompt tokens reserved, max_tokens {}), over the per-call stop of ${cap}: it would not have been sent",
            c.prompt_tokens_reserved, c.max_tokens
        ));
    }
    if let Some(u) = c.usage {
        if u.prompt_tokens > c.prompt_tokens_reserved {
            return Err(format!(
                "sent {} prompt tokens with {} reserved: the per-call stop was computed on less than was sent",
                u.prompt_tokens, c.prompt_tokens_reserved
            ));
        }
    }
    Ok(())
}

/// An attempt that says a limit ended it reached that limit: `turn_limit`
/// after the registered number of turns, `time_limit` with a call that
/// timed out or was cut or at the run's time limit, `output_limit` with a
/// call that stopped on its budget or (where an output limit is registered)
/// an artifact at that limit. A failure blamed on a limit it never
/// reached fails here.
fn cut_where_it_says(run: &Run, l: &Limits) -> Result<(), String> {
    let run_start = at(&run.started_at, "started_at")?;
    for (i, a) in run.attempts.iter().enumerate() {
        let said = || format!("attempts[{i}] ended `{}`", reason(a.end.reason));
        match a.end.reason {
            EndReason::TurnLimit if a.turns.len() as u64 != u64::from(l.max_turns) => {
                return Err(format!(
                    "{} after {} turns, not at the limit of {}",
                    said(),
                    a.turns.len(),
                    l.max_turns
                ));
            }
            EndReason::TimeLimit => {
                let cut = a.calls.iter().any(|c| {
                    matches!(c.status, CallStatus::Timeout | CallStatus::Aborted)
                        || l.max_call_ms.is_some_and(|ms| c.latency_ms >= ms)
                });
                let end = at(&a.started_at, &format!("attempts[{i}].started_at"))?
                    .saturating_add(millis(a.duration_ms));
                let limit = run_start.saturating_add(millis(l.max_run_ms));
                if !cut && end < limit {
                    return Err(format!(
                        "{}, yet no call timed out or was cut and it ended {} s before the run's limit",
                        said(),
                        (limit - end) as f64 / 1000.0
                    ));
                }
            }
            EndReason::OutputLimit
                if !a.calls.iter().any(ProviderCall::truncated) && !reached_output_limit(a, l) =>
            {
                return Err(format!(
                    "{}, yet no call stopped on its output budget{}",
                    said(),
                    if l.max_output_bytes.is_some() {
                        " and its output did not reach the limit"
                    } else {
                        ""
                    }
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether attempt `a`'s output reached the registered output limit.
fn reached_output_limit(a: &Attempt, l: &Limits) -> bool {
    matches!((l.max_output_bytes, &a.artifact), (Some(max), Some(artifact)) if artifact.bytes == max)
}
