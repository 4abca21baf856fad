//! The receipts of a run's model calls: each call's output read back by
//! the next call's input, and each call's log records saying what its
//! span says.

use serde_json::Value;

use crate::plural::count;

use super::genai_events;
use super::messages::{as_read, messages_same};
use super::neutral::{EventsBySpan, Kind, Step, Trace};
use super::otlp::Event;
use crate::imported::short;
use crate::verify::Receipt;

/// Per call of `trace` (run `at`): its log records' account against its
/// span's, and the previous call's output against its input.
pub fn receipts(subject: &str, at: &str, trace: &Trace<'_>, events: &EventsBySpan) -> Vec<Receipt> {
    let turns: Vec<&Step> = trace.of(Kind::Call).collect();
    let mut out = Vec::new();
    for (k, turn) in turns.iter().enumerate() {
        let claim = format!("{at}.calls[{k}]");
        let key = (turn.span.trace_id.clone(), turn.span.span_id.clone());
        if let Some(list) = events.get(&key) {
            out.push(agrees_with_events(subject, &claim, turn, list));
        }
        if let Some(previous) = k.checked_sub(1).map(|p| turns[p]) {
            out.extend(history(
                subject,
                &format!("{claim}.history"),
                previous,
                turn,
            ));
        }
    }
    out
}

/// Each output message of `previous` is in `turn`'s input.
fn history(subject: &str, claim: &str, previous: &Step<'_>, turn: &Step<'_>) -> Option<Receipt> {
    let said = previous.facts.output.as_ref().filter(|o| !o.is_empty())?;
    let Some(input) = &turn.facts.input else {
        return Some(Receipt::unchecked(
            subject,
            claim,
            format!("call {}", turn.span.span_id),
            "the call's input messages were not recorded",
        ));
    };
    let read: Vec<Value> = input.iter().map(as_read).collect();
    let missing = said.iter().map(as_read).find(|m| !read.contains(m));
    Some(match missing {
        None => Receipt::new(
            subject,
            claim,
            format!("the output of call {}", previous.span.span_id),
            "read back as it was returned",
            true,
        ),
        Some(m) => Receipt::new(
            subject,
            claim,
            format!(
                "call {} returned {}",
                previous.span.span_id,
                short(&m.to_string())
            ),
            format!(
                "call {}'s input does not hold it: one of them was edited",
                turn.span.span_id
            ),
            false,
        ),
    })
}

/// A finish reason in one spelling: the GenAI conventions' `tool_call`
/// is the OpenAI API's `tool_calls`, which instrumentations translate
/// on one side and not the other.
fn folded(reason: &str) -> &str {
    match reason {
        "tool_call" => "tool_calls",
        other => other,
    }
}

/// A call's log records say what its span says: every attribute a record
/// and the span both carry is the same, and each `gen_ai.choice`'s finish
/// reason is the span's for that choice.
fn agrees_with_events(subject: &str, claim: &str, turn: &Step<'_>, list: &[Event]) -> Receipt {
    let claim = format!("{claim}.events");
    let span = turn.span;
    let fail = |said: String, event: &Event, says: String| {
        Receipt::new(
            subject,
            claim.as_str(),
            said,
            format!("its event {} says {}", event.at, says),
            false,
        )
    };
    for event in list {
        for (key, said) in &event.attributes {
            let Some(spanned) = span.attributes.get(key) else {
                continue;
            };
            let same = if key.ends_with(".messages") {
                messages_same(spanned, said)
            } else {
                spanned == said
            };
            if !same {
                return fail(
                    format!("{key} = {}", short(&spanned.to_string())),
                    event,
                    short(&said.to_string()),
                );
            }
        }
    }
    if let Some(reasons) = &turn.facts.finish_reasons {
        for (index, reason, event) in genai_events::finish_reasons(list) {
            let spanned = reasons.get(index).map(String::as_str);
            if spanned.map(folded) != Some(folded(reason)) {
                return fail(
                    format!(
                        "finish reason of choice {index} = {}",
                        spanned.unwrap_or("none")
                    ),
                    event,
                    reason.to_string(),
                );
            }
        }
    }
    Receipt::new(
        subject,
        claim,
        format!(
            "{} of call {}",
            count(list.len(), "event", None),
            span.span_id
        ),
        "the same account as the span",
        true,
    )
}
