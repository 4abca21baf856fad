//! A transcript's messages are well formed: a role, content kept one way,
//! and content by digest that the object store holds. Whether they agree
//! with the turns is for verification to say (and show).

use receipts_verifier::model::Message;

use super::digest_ref;
use crate::error::InputError;
use crate::load::Corpus;

/// Checks the messages of attempt `i` of the run record `file`.
pub(super) fn messages(
    corpus: &Corpus,
    file: &str,
    i: usize,
    messages: &[Message],
) -> Result<(), InputError> {
    for (k, m) in messages.iter().enumerate() {
        let at = |f: &str| format!("attempts[{i}].messages[{k}].{f}");
        if !m.role_is_word() {
            return Err(InputError::at(
                file,
                at("role"),
                "a message's role is a word in ASCII letters, digits, `_` and `-`: `system`, `user`, `assistant`, `tool`, or any other",
            ));
        }
        if m.text.is_some() && m.sha256.is_some() {
            return Err(InputError::at(
                file,
                at("sha256"),
                "a message keeps its content once: inline as `text`, or as an object by `sha256`, not both",
            ));
        }
        if let Some(d) = &m.sha256 {
            digest_ref(corpus, file, &at("sha256"), d)?;
        }
    }
    Ok(())
}
