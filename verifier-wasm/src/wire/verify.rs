//! The receipts of a run recorded on the wire: its capture and every body
//! the capture names are kept byte for byte, and the run's calls,
//! transcript, times and end are what the capture gives, derived again.

use super::derive::{attempt, Missing};
use super::Capture;
use crate::imported::derived_receipt;
use crate::model::{Run, Source};
use crate::verify::{Objects, Receipt};

/// The receipts of `run`, recorded on the wire into the capture `source`
/// names. `subject` is the run record's path.
pub fn verify(subject: &str, run: &Run, source: &Source, objects: &dyn Objects) -> Vec<Receipt> {
    let claim = |what: &str| format!("{what} of {}: re-derived from its capture", run.id);
    let Some(bytes) = objects.object(&source.sha256) else {
        // The object receipt says the capture is missing.
        return vec![Receipt::new(
            subject,
            claim("the calls"),
            "derived from the capture",
            "no capture to derive them from",
            false,
        )];
    };
    let capture: Capture = match serde_json::from_slice(bytes) {
        Ok(capture) => capture,
        Err(e) => {
            return vec![Receipt::new(
                subject,
                claim("the calls"),
                "derived from the capture",
                format!("the capture does not read: {e}"),
                false,
            )]
        }
    };
    let mut receipts = Vec::new();
    // The bodies the calls are derived from; a raw call's (another
    // endpoint's) stay in the capture, and no receipt reads them.
    let mut bodies = Vec::new();
    for e in capture
        .calls
        .iter()
        .filter(|e| super::Api::from_name(&e.api).is_some_and(|a| a != super::Api::Other))
    {
        bodies.push(&e.request.sha256);
        bodies.extend(e.response.as_ref().map(|b| &b.sha256));
    }
    bodies.sort();
    bodies.dedup();
    let missing: Vec<&&String> = bodies
        .iter()
        .filter(|d| {
            objects
                .object(d)
                .is_none_or(|b| crate::digest::sha256_hex(b) != ***d)
        })
        .collect();
    receipts.push(Receipt::new(
        subject,
        format!(
            "every request and response body of {}'s calls, kept byte for byte",
            run.id
        ),
        format!("{} bodies", bodies.len()),
        match missing.first() {
            None => format!("{} bodies, each its digest", bodies.len()),
            Some(d) => format!("{} not kept as named, the first {d}", missing.len()),
        },
        missing.is_empty(),
    ));
    let derived = match attempt(&capture, objects) {
        Ok(derived) => derived,
        Err(Missing(why)) => {
            receipts.push(Receipt::new(
                subject,
                claim("the calls"),
                "derived from the capture",
                format!("the capture does not make a run: {why}"),
                false,
            ));
            return receipts;
        }
    };
    let [recorded] = run.attempts.as_slice() else {
        receipts.push(Receipt::new(
            subject,
            claim("the attempt"),
            format!("{} attempts", run.attempts.len()),
            "a capture records one attempt",
            false,
        ));
        return receipts;
    };
    let original = "the capture";
    let no_turns: &[crate::model::Turn] = &[];
    receipts.push(derived_receipt(
        subject,
        &claim("the turns (a capture gives none: it sees calls, not actions)"),
        original,
        &recorded.turns.as_slice(),
        &no_turns,
    ));
    receipts.push(derived_receipt(
        subject,
        &claim("every provider call"),
        original,
        &recorded.calls,
        &derived.calls,
    ));
    receipts.push(derived_receipt(
        subject,
        &claim("the transcript"),
        original,
        &recorded.messages,
        &derived.messages,
    ));
    receipts.push(derived_receipt(
        subject,
        &claim("the start, the time taken and the end"),
        original,
        &(
            &run.started_at,
            &recorded.started_at,
            recorded.duration_ms,
            &recorded.end,
        ),
        &(
            &derived.started_at,
            &derived.started_at,
            derived.duration_ms,
            &derived.end,
        ),
    ));
    receipts
}
