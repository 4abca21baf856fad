//! An attempt's transcript on its run's page: each message as inert text,
//! with the turn and call it names, and the receipt that it agrees with
//! them.

use serde::Serialize;

use receipts_verifier::model::{Attempt, RoleKind, Task};
use receipts_verifier::verify::RunVerification;

use super::attempt::{object_ref, ObjectRefView};
use super::ReceiptView;
use crate::load::Corpus;

#[derive(Debug, Clone, Serialize)]
pub struct TranscriptView {
    pub messages: Vec<MessageView>,
    /// The receipt that the messages agree with the turns and calls.
    pub agreement: Option<ReceiptView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MessageView {
    /// The role as the record writes it.
    pub role: String,
    /// The role's kind (`system`, `user`, `assistant`, `tool` or `other`):
    /// for styling.
    pub kind: &'static str,
    pub text: Option<String>,
    pub reasoning: Option<String>,
    pub call: Option<String>,
    /// The turn the message chose or answers, counted from 1 as the turn
    /// table counts.
    pub turn: Option<usize>,
    /// For an assistant message naming a turn: the action the turn records.
    pub action: Option<String>,
    /// Content kept as an object.
    pub object: Option<ObjectRefView>,
}

/// The transcript of attempt `index`, when it recorded messages.
pub fn transcript_view(
    corpus: &Corpus,
    task: &Task,
    a: &Attempt,
    index: usize,
    verification: &RunVerification,
) -> Option<TranscriptView> {
    if a.messages.is_empty() {
        return None;
    }
    let claim = format!("attempts[{index}].messages");
    let messages = a
        .messages
        .iter()
        .map(|m| {
            let turn = m.turn.and_then(|j| a.turns.get(j));
            MessageView {
                role: m.role.clone(),
                kind: m.role_kind().as_str(),
                text: m.text.clone(),
                reasoning: m.reasoning.clone(),
                call: m.call.clone(),
                turn: m.turn.map(|j| j + 1),
                action: turn
                    .filter(|_| m.role_kind() == RoleKind::Assistant)
                    .map(|t| {
                        if t.action.args.is_null() {
                            t.action.tool.as_str().to_string()
                        } else {
                            format!("{} {}", t.action.tool.as_str(), t.action.args)
                        }
                    }),
                object: m.sha256.as_deref().map(|d| object_ref(corpus, task, d)),
            }
        })
        .collect();
    Some(TranscriptView {
        messages,
        agreement: verification
            .receipts
            .iter()
            .find(|r| r.claim == claim)
            .map(ReceiptView::from),
    })
}
