//! Receipts of an attempt's transcript: its messages against the turns and
//! calls the same attempt records, and the content it keeps by digest.
//!
//! A transcript is shown to the reader as what the model saw, so it must
//! not be a second, kinder account: a tool message carries exactly the
//! result of the turn it names, every turn that ran a tool is answered
//! once and in order, and an assistant message belongs to a call the
//! attempt made (the call that chose the turn it names).

use std::collections::BTreeSet;

use crate::digest::sha256_hex;
use crate::imported::short;
use crate::model::{ActionTool, Attempt, RoleKind, Task};

use super::{Objects, Receipt};

/// The receipts of attempt `index`'s transcript: none when it recorded no
/// messages; otherwise one that the messages agree with the turns and
/// calls, and one for each object a message keeps its content in, except
/// the task's inputs, which have receipts of their own.
pub fn transcript_receipts(
    subject: &str,
    index: usize,
    attempt: &Attempt,
    task: &Task,
    objects: &dyn Objects,
) -> Vec<Receipt> {
    if attempt.messages.is_empty() {
        return Vec::new();
    }
    let recorded = format!(
        "{} message{}",
        attempt.messages.len(),
        if attempt.messages.len() == 1 { "" } else { "s" }
    );
    let agreement = match first_disagreement(attempt) {
        None => Receipt::new(
            subject,
            format!("attempts[{index}].messages"),
            recorded,
            format!(
                "agree with the attempt's {} turns and {} calls",
                attempt.turns.len(),
                attempt.calls.len()
            ),
            true,
        ),
        Some(why) => Receipt::new(
            subject,
            format!("attempts[{index}].messages"),
            recorded,
            why,
            false,
        ),
    };
    let mut seen = BTreeSet::new();
    let kept = attempt
        .messages
        .iter()
        .enumerate()
        .filter_map(|(k, m)| m.sha256.as_deref().map(|d| (k, d)))
        .filter(|(_, d)| !task.inputs.iter().any(|i| i.sha256 == *d))
        .filter(|(_, d)| seen.insert(*d))
        .map(|(k, d)| {
            object_receipt(
                objects,
                d,
                format!("content of attempts[{index}].messages[{k}] in {subject}"),
            )
        });
    std::iter::once(agreement).chain(kept).collect()
}

/// The receipt that the object store holds bytes that hash to `digest`.
pub fn object_receipt(objects: &dyn Objects, digest: &str, claim: String) -> Receipt {
    let subject = crate::layout::object_path(digest);
    match objects.object(digest) {
        None => Receipt::new(
            &subject,
            claim,
            digest,
            "no object holds these bytes",
            false,
        ),
        Some(bytes) => {
            let recomputed = sha256_hex(bytes);
            let pass = recomputed == digest;
            Receipt::new(&subject, claim, digest, recomputed, pass)
        }
    }
}

/// What a message or a turn's result holds, in a few words.
fn content(text: Option<&str>, sha256: Option<&str>) -> String {
    match (text, sha256) {
        (Some(t), None) => format!("{:?}", short(t)),
        (None, Some(d)) => format!("object {}", &d[..d.len().min(12)]),
        (None, None) => "nothing".to_string(),
        (Some(t), Some(d)) => format!("{:?} and object {}", short(t), &d[..d.len().min(12)]),
    }
}

/// The first place the transcript departs from the turns and calls.
fn first_disagreement(a: &Attempt) -> Option<String> {
    let calls: BTreeSet<&str> = a.calls.iter().map(|c| c.request_id.as_str()).collect();
    let mut answered = vec![false; a.turns.len()];
    let mut last: Option<usize> = None;
    for (k, m) in a.messages.iter().enumerate() {
        let at = format!("messages[{k}]");
        if !m.role_is_word() {
            return Some(format!(
                "{at}'s role {:?} is not a protocol word (ASCII letters, digits, `_`, `-`)",
                m.role
            ));
        }
        if m.text.is_some() && m.sha256.is_some() {
            return Some(format!(
                "{at} keeps its content twice, inline and as an object"
            ));
        }
        if let Some(c) = &m.call {
            if !calls.contains(c.as_str()) {
                return Some(format!(
                    "{at} names call `{c}`, which the attempt did not make"
                ));
            }
        }
        let kind = m.role_kind();
        let Some(j) = m.turn else {
            if kind == RoleKind::Tool {
                return Some(format!(
                    "{at} is a tool message that names no turn: no recorded action returned it"
                ));
            }
            continue;
        };
        let Some(t) = a.turns.get(j) else {
            return Some(format!(
                "{at} names turn {j}; the attempt has {} turns",
                a.turns.len()
            ));
        };
        match kind {
            RoleKind::Assistant if m.call.as_deref() != Some(t.call.as_str()) => {
                return Some(format!(
                    "{at} says {} chose turn {j}; the turn was chosen by call `{}`",
                    m.call
                        .as_deref()
                        .map_or("no call".to_string(), |c| format!("call `{c}`")),
                    t.call
                ));
            }
            RoleKind::Assistant => {}
            RoleKind::Tool => {
                if let Some(before) = last.filter(|&l| l >= j) {
                    return Some(format!(
                        "{at} answers turn {j} after a message answering turn {before}"
                    ));
                }
                let (said, was) = (
                    content(m.text.as_deref(), m.sha256.as_deref()),
                    content(t.result.text.as_deref(), t.result.sha256.as_deref()),
                );
                if m.text != t.result.text || m.sha256 != t.result.sha256 {
                    return Some(format!("{at} carries {said}; turn {j}'s result is {was}"));
                }
                last = Some(j);
                answered[j] = true;
            }
            RoleKind::System | RoleKind::User | RoleKind::Other => {
                return Some(format!(
                    "{at} is a `{}` message naming turn {j}; only assistant and tool messages name turns",
                    m.role
                ));
            }
        }
    }
    a.turns
        .iter()
        .zip(&answered)
        .position(|(t, &answered)| t.action.tool != ActionTool::None && !answered)
        .map(|j| {
            let t = &a.turns[j];
            format!(
                "turn {j} ({}) returned {}, which no tool message carries",
                t.action.tool.as_str(),
                content(t.result.text.as_deref(), t.result.sha256.as_deref())
            )
        })
}

#[cfg(test)]
mod tests;
