//! The receipts of a run's tool executions: each asked for by an earlier
//! model call (the same id, or where the execution records none, the same
//! name and arguments), and its result read back by a later call as the
//! tool returned it.

use serde_json::Value;

use super::messages::{parts, same_json_text, text_of};
use super::neutral::{Kind, Step, Trace};
use crate::imported::short;
use crate::verify::Receipt;

/// Per tool execution of `trace` (run `at`): `requested` and `result`.
pub fn receipts(subject: &str, at: &str, trace: &Trace<'_>) -> Vec<Receipt> {
    let turns: Vec<&Step> = trace.of(Kind::Call).collect();
    trace
        .of(Kind::Tool)
        .enumerate()
        .flat_map(|(t, tool)| {
            let at = format!("{at}.tools[{t}]");
            let (requested, id) = requested(subject, &format!("{at}.requested"), tool, &turns);
            [
                requested,
                result(subject, &format!("{at}.result"), tool, id, &turns),
            ]
        })
        .collect()
}

fn text(part: &Value, key: &str) -> String {
    part.get(key).map(text_of).unwrap_or_default()
}

/// The receipt that an earlier call asked for `tool`, and the id of the
/// tool call it executed (its own, else the one it was matched to).
fn requested(
    subject: &str,
    claim: &str,
    tool: &Step<'_>,
    turns: &[&Step<'_>],
) -> (Receipt, Option<String>) {
    let f = &tool.facts;
    let name = f.tool_name.as_deref().unwrap_or(&tool.span.name);
    let ran = format!("{name}({})", f.arguments.as_deref().unwrap_or("…"));
    let asked: Vec<&Value> = turns
        .iter()
        .filter(|t| t.span.start_ns <= tool.span.start_ns)
        .filter_map(|t| t.facts.output.as_deref())
        .flat_map(|o| parts(o, "tool_call"))
        .collect();
    let same_args = |p: &Value| {
        f.arguments
            .as_deref()
            .is_none_or(|r| same_json_text(r, &text(p, "arguments")))
    };
    let as_asked = |p: &Value| format!("{}({})", text(p, "name"), text(p, "arguments"));
    let (part, how) = match (&f.call_id, &f.arguments) {
        (Some(id), _) => {
            let Some(part) = asked.iter().find(|p| text(p, "id") == *id) else {
                let why = "no earlier model call asked for this tool call";
                return (
                    Receipt::new(subject, claim, format!("{name} ({id})"), why, false),
                    None,
                );
            };
            let how = if f.arguments.is_some() {
                ""
            } else {
                "; the execution records no arguments to compare"
            };
            (*part, how)
        }
        (None, Some(_)) => {
            let named: Vec<&&Value> = asked.iter().filter(|p| text(p, "name") == name).collect();
            match named.iter().find(|p| same_args(p)) {
                Some(part) => (
                    **part,
                    ", matched by name and arguments: the execution records no call id",
                ),
                None => {
                    let why = match named.first() {
                        Some(p) => format!("the model asked for {}", as_asked(p)),
                        None => format!("no earlier model call asked for {name}"),
                    };
                    return (Receipt::new(subject, claim, ran, why, false), None);
                }
            }
        }
        (None, None) => {
            let why = "the execution records neither a call id nor arguments to match";
            return (Receipt::unchecked(subject, claim, ran, why), None);
        }
    };
    let ok = text(part, "name") == name && same_args(part);
    let recomputed = if ok {
        format!("asked for as {}{how}", as_asked(part))
    } else {
        format!("the model asked for {}", as_asked(part))
    };
    let id = part.get("id").and_then(Value::as_str).map(str::to_string);
    (Receipt::new(subject, claim, ran, recomputed, ok), id)
}

/// The receipt that a later call read `tool`'s result as it was returned:
/// the first later response to tool call `id`, else (where the calls'
/// inputs name no tool call ids) one of the first later call's responses
/// that name none.
fn result(
    subject: &str,
    claim: &str,
    tool: &Step<'_>,
    id: Option<String>,
    turns: &[&Step<'_>],
) -> Receipt {
    let Some(result) = &tool.facts.result else {
        return Receipt::unchecked(
            subject,
            claim,
            tool.facts.tool_name.as_deref().unwrap_or(&tool.span.name),
            "the execution's result was not recorded",
        );
    };
    let later: Vec<Vec<&Value>> = turns
        .iter()
        .filter(|t| t.span.start_ns >= tool.span.end_ns)
        .filter_map(|t| t.facts.input.as_deref())
        .map(|i| parts(i, "tool_call_response"))
        .collect();
    let response = |p: &Value| p.get("response").or_else(|| p.get("result")).map(text_of);
    let by_id = id.as_deref().and_then(|id| {
        later
            .iter()
            .flatten()
            .find(|p| p.get("id").and_then(Value::as_str) == Some(id))
    });
    let (given, how) = match by_id {
        Some(part) => (vec![response(part).unwrap_or_default()], ""),
        None => {
            let unnamed = later.iter().find_map(|responses| {
                let texts: Vec<String> = responses
                    .iter()
                    .filter(|p| p.get("id").is_none())
                    .filter_map(|p| response(p))
                    .collect();
                (!texts.is_empty()).then_some(texts)
            });
            match unnamed {
                Some(texts) => (texts, ", among the results it read without a call id"),
                None => {
                    let why = "no later model call read this result";
                    return Receipt::unchecked(subject, claim, short(result), why);
                }
            }
        }
    };
    let same = given.iter().any(|g| same_json_text(result, g));
    let recomputed = if same {
        format!("read by the next call as returned{how}")
    } else {
        format!("the next call read {}", short(&given.join(" | ")))
    };
    Receipt::new(subject, claim, short(result), recomputed, same)
}
