//! The sandbox a suite's replays ran in, held to its promise that no replay
//! reached the world: each call of a replay or a control replay that the
//! golden trace made was served from the golden trace's cassette, another
//! call to a tool that is not hard was mocked (or refused), and a call to a
//! hard tool that no cassette holds was refused with the suite's status and
//! error. The answers are recorded per call; which answer each call had to
//! get follows from the golden trace and the suite's hard tools alone.

use std::collections::BTreeMap;

use crate::model::{RegressionSuite, Replay, Sandbox, SandboxAnswer, SideEffect, Trace};

use super::super::Receipt;
use super::{counts, key};

/// A recorded answer, as the receipt shows it.
fn answer_name(answer: Option<&SandboxAnswer>) -> String {
    match answer {
        None => "no answer".to_string(),
        Some(SandboxAnswer::Cassette) => "cassette".to_string(),
        Some(SandboxAnswer::Mock) => "mock".to_string(),
        Some(SandboxAnswer::Refused { status, error }) => format!("refused {status} {error}"),
    }
}

/// Whether the call's recorded answer is one the sandbox may give it; the
/// error says which answer it had to get.
fn held(
    sandbox: &Sandbox,
    hard: bool,
    in_cassette: bool,
    answer: Option<&SandboxAnswer>,
) -> Result<(), String> {
    let refusal = format!(
        "refused {} {}",
        sandbox.refusal_status, sandbox.refusal_error
    );
    let refused_as_stated = |a: Option<&SandboxAnswer>| {
        matches!(a, Some(SandboxAnswer::Refused { status, error })
            if *status == sandbox.refusal_status && *error == sandbox.refusal_error)
    };
    if in_cassette {
        return match answer {
            Some(SandboxAnswer::Cassette) => Ok(()),
            _ => Err("the golden trace made this call: served from its cassette".to_string()),
        };
    }
    if hard {
        return if refused_as_stated(answer) {
            Ok(())
        } else {
            Err(format!(
                "a hard tool's call that no cassette holds: {refusal}"
            ))
        };
    }
    match answer {
        Some(SandboxAnswer::Mock) => Ok(()),
        a if refused_as_stated(a) => Ok(()),
        Some(SandboxAnswer::Cassette) => Err("no cassette holds this call: mock".to_string()),
        _ => Err(format!("a call no cassette holds: mock, or {refusal}")),
    }
}

/// How the calls of one trace were answered, or the first call that was
/// answered otherwise than the sandbox must.
fn trace_answers(
    suite: &RegressionSuite,
    sandbox: &Sandbox,
    golden: &Trace,
    trace: &Trace,
) -> (BTreeMap<String, usize>, Option<(usize, String)>) {
    let mut cassette = counts(&golden.side_effects);
    let mut tally = BTreeMap::new();
    let mut wrong = None;
    for (k, effect) in trace.side_effects.iter().enumerate() {
        let in_cassette = match cassette.get_mut(&key(effect)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        };
        let answer = effect.sandbox.as_ref();
        *tally.entry(answer_name(answer)).or_insert(0) += 1;
        let hard = suite.hard_tools.contains(&effect.tool);
        if let Err(why) = held(sandbox, hard, in_cassette, answer) {
            wrong.get_or_insert((k, why));
        }
    }
    (tally, wrong)
}

fn show_tally(tally: &BTreeMap<String, usize>) -> String {
    if tally.is_empty() {
        return "no call".to_string();
    }
    tally
        .iter()
        .map(|(name, n)| format!("{n} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn answered(trace: &Trace) -> bool {
    trace.side_effects.iter().any(|e| e.sandbox.is_some())
}

fn show(effect: &SideEffect) -> String {
    format!("{} {}", effect.tool, effect.args)
}

/// The receipt `replays[i].sandbox`: under a suite that states a sandbox,
/// every call of the replay and its control was answered as the sandbox
/// must answer it. `None` when the suite states none and no call carries
/// an answer; a recorded answer without a stated sandbox fails.
pub(super) fn sandbox_receipt(
    subject: &str,
    suite: &RegressionSuite,
    i: usize,
    replay: &Replay,
) -> Option<Receipt> {
    let claim = format!("replays[{i}].sandbox");
    let traces: Vec<(&str, &Trace)> = std::iter::once(("replay", &replay.replay))
        .chain(replay.control.as_ref().map(|c| ("control", c)))
        .collect();
    let Some(sandbox) = &suite.sandbox else {
        return traces.iter().any(|(_, t)| answered(t)).then(|| {
            Receipt::new(
                subject,
                claim,
                "sandbox answers recorded",
                "the suite states no sandbox",
                false,
            )
        });
    };
    let mut recorded = Vec::new();
    let mut wrong = Vec::new();
    for (name, trace) in &traces {
        let (tally, bad) = trace_answers(suite, sandbox, &replay.golden, trace);
        recorded.push(format!("{name}: {}", show_tally(&tally)));
        if let Some((k, why)) = bad {
            let effect = &trace.side_effects[k];
            wrong.push(format!(
                "{name}.side_effects[{k}] ({}), answered {}: {why}",
                show(effect),
                answer_name(effect.sandbox.as_ref())
            ));
        }
    }
    let pass = wrong.is_empty();
    Some(Receipt::new(
        subject,
        claim,
        recorded.join("; "),
        if pass {
            "each call answered as the sandbox must: none reached the world".to_string()
        } else {
            wrong.join("; ")
        },
        pass,
    ))
}
