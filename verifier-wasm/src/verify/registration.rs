//! Receipts of a pre-registration: each covered part's digest recomputed,
//! the registration digest, its anchors from outside the record, and its
//! time against the first provider call.

use std::collections::BTreeMap;

use crate::anchor::{short, AnchorFiles};
use crate::model::{GIT_ANCHOR_FILE, TIMESTAMP_FILE, TSA_CERTIFICATE_FILE};
use crate::prereg::{preregistration_digest, registration_digest, rules_digest, task_digest};
use crate::time::{self, UnixMillis};

use super::{ExperimentCheck, Receipt, RunVerification};

/// What backs a registration time that nothing outside the record attests.
pub const ANCHOR_NONE: &str = "self-asserted";

/// What a page says of an experiment registered by no one in advance.
pub const NOT_PREREGISTERED: &str =
    "not pre-registered: no rule was fixed before the runs, so its hypotheses are exploratory";

/// The registration's receipts and, in words, what backs its time.
pub(super) fn preregistration(
    input: &ExperimentCheck<'_>,
    runs: &[RunVerification],
) -> (Vec<Receipt>, String) {
    let e = input.experiment;
    let Some(p) = &e.preregistration else {
        return (unregistered_anchors(input), NOT_PREREGISTERED.to_string());
    };
    let log_subject = format!("{}/{}", input.dir, p.log);
    let subject = format!("{}/experiment.json", input.dir);
    let digest_receipt =
        |subject: &str, claim: &str, recorded: &str, recomputed: Option<String>, missing: &str| {
            match recomputed {
                Some(d) => Receipt::new(subject, claim, recorded, &d, d == recorded),
                None => Receipt::new(subject, claim, recorded, missing, false),
            }
        };
    let log_digest = preregistration_digest(input.log, &p.end_marker);
    let rules = rules_digest(e);
    let tasks: BTreeMap<String, String> = crate::btree::map(
        e.grid
            .tasks
            .iter()
            .filter_map(|id| input.tasks.get(id).map(|t| (id.clone(), task_digest(t)))),
    );
    let mut out = Vec::new();
    match &p.covers {
        None => {
            out.push(digest_receipt(
                &log_subject,
                "pre-registered part (SHA-256)",
                &p.sha256,
                log_digest.clone(),
                "the end marker line is missing",
            ));
            let log = log_digest.unwrap_or_default();
            out.push(Receipt::new(
                &subject,
                "registration covers the rules and tasks",
                "the log only",
                format!(
                    "add to `preregistration` \"covers\": {{\"log\": \"{log}\", \"rules\": \"{rules}\", \"tasks\": {}}} and set \"sha256\" to {}",
                    serde_json::to_string(&tasks).unwrap_or_default(),
                    registration_digest(&log, &rules, &tasks)
                ),
                false,
            ));
        }
        Some(covers) => {
            out.push(digest_receipt(
                &log_subject,
                "pre-registered part (SHA-256)",
                &covers.log,
                log_digest,
                "the end marker line is missing",
            ));
            out.push(digest_receipt(
                &subject,
                "registered rules (SHA-256)",
                &covers.rules,
                Some(rules),
                "",
            ));
            for id in &e.grid.tasks {
                let claim = format!("registered task `{id}` (SHA-256)");
                let task_subject = crate::layout::task_path(id);
                match covers.tasks.get(id) {
                    Some(recorded) => out.push(digest_receipt(
                        &task_subject,
                        &claim,
                        recorded,
                        tasks.get(id).cloned(),
                        "no such task",
                    )),
                    None => out.push(Receipt::new(
                        &task_subject,
                        claim,
                        "not covered",
                        "a task of the grid the registration does not cover",
                        false,
                    )),
                }
            }
            out.push(digest_receipt(
                &subject,
                "registration digest (SHA-256)",
                &p.sha256,
                Some(registration_digest(
                    &covers.log,
                    &covers.rules,
                    &covers.tasks,
                )),
                "",
            ));
        }
    }
    let first_call = runs.iter().filter_map(|v| v.facts.first_call.clone()).min();
    let backing = anchors(input, first_call.as_ref().map(|(t, _)| *t), &mut out);
    let claim = "pre-registered before the first provider call";
    let timing = match (time::parse(&p.registered_at), &first_call) {
        (Ok(reg), Some((first, first_text))) => {
            let anchored_late = backing.time.is_some_and(|t| t >= *first);
            Receipt::new(
                &subject,
                claim,
                format!("registered {} ({})", p.registered_at, backing.short),
                if anchored_late {
                    format!("first call {first_text}, before the anchor's time")
                } else {
                    format!("first call {first_text}")
                },
                reg < *first && !anchored_late,
            )
        }
        (Ok(_), None) => Receipt::unchecked(
            &subject,
            claim,
            format!("registered {} ({})", p.registered_at, backing.short),
            "no provider call on record",
        ),
        (Err(e), _) => Receipt::new(&subject, claim, &p.registered_at, e.to_string(), false),
    };
    out.push(timing);
    (out, backing.words)
}

/// An experiment without a pre-registration may not keep anchors: a time
/// stamp or a commit of no registration would lend the page a trust it
/// has not earned.
fn unregistered_anchors(input: &ExperimentCheck<'_>) -> Vec<Receipt> {
    let files = &input.anchors;
    [
        (files.timestamp.is_some(), TIMESTAMP_FILE),
        (files.git.is_some(), GIT_ANCHOR_FILE),
    ]
    .into_iter()
    .filter(|(kept, _)| *kept)
    .map(|(_, file)| {
        Receipt::new(
            &format!("{}/{file}", input.dir),
            "anchors the experiment's registration",
            "an anchor",
            "the experiment has no pre-registration to anchor",
            false,
        )
    })
    .collect()
}

/// What backs the registration time.
struct Backing {
    /// As a receipt names it: `self-asserted`, `git commit …`, `RFC 3161 timestamp …`.
    short: String,
    /// As a page says it, with what a reader needs to check it.
    words: String,
    /// The instant an anchor places the registration at, when one does and
    /// is asserted by the record (a time stamp); a late one fails the timing.
    time: Option<UnixMillis>,
}

/// The receipts of the anchor files, and what backs the time. A time stamp
/// is kept by the publisher: it must verify, and its time must come before
/// the first call. A git commit is found by the build: a commit later than
/// the first call backs nothing, and the page says so.
fn anchors(
    input: &ExperimentCheck<'_>,
    first_call: Option<UnixMillis>,
    out: &mut Vec<Receipt>,
) -> Backing {
    let Some(p) = &input.experiment.preregistration else {
        return Backing {
            short: ANCHOR_NONE.to_string(),
            words: NOT_PREREGISTERED.to_string(),
            time: None,
        };
    };
    let files: &AnchorFiles<'_> = &input.anchors;
    let mut backing = Backing {
        short: ANCHOR_NONE.to_string(),
        words: format!("{ANCHOR_NONE}: nothing outside the record backs this time"),
        time: None,
    };
    if let Some(git) = files.git {
        let subject = format!("{}/{GIT_ANCHOR_FILE}", input.dir);
        out.push(Receipt::new(
            &subject,
            "the commit holds this registration's digest",
            format!("commit {} holds {}", git.commit, git.registration),
            format!("registration digest {}", p.sha256),
            git.registration == p.sha256,
        ));
        match time::parse(&git.committed_at) {
            Err(e) => out.push(Receipt::new(
                &subject,
                "committed_at",
                &git.committed_at,
                e.to_string(),
                false,
            )),
            Ok(at) if git.registration == p.sha256 => {
                let commit = short(&git.commit);
                if first_call.is_none_or(|first| at < first) {
                    backing = Backing {
                        short: format!("git commit {commit}"),
                        words: format!(
                            "git commit {commit}, committed {} by the committer's clock; `git log -S{}` in the repository finds it",
                            git.committed_at, p.sha256
                        ),
                        time: None,
                    };
                } else {
                    backing.words = format!(
                        "{ANCHOR_NONE}: git commit {commit} first holds the registration, but was committed {}, after the first provider call",
                        git.committed_at
                    );
                }
            }
            Ok(_) => {}
        }
    }
    let subject = format!("{}/{TIMESTAMP_FILE}", input.dir);
    let claim = "RFC 3161 time stamp of the registration digest";
    match (files.timestamp, files.tsa_certificate) {
        (None, None) => {}
        (Some(_), None) | (None, Some(_)) => out.push(Receipt::new(
            &subject,
            claim,
            "a time stamp and its TSA's certificate",
            format!("{TIMESTAMP_FILE} and {TSA_CERTIFICATE_FILE} go together; one is missing"),
            false,
        )),
        #[cfg(not(feature = "full"))]
        (Some(_), Some(_)) => out.push(super::left_out(&subject, claim, "a time stamp")),
        #[cfg(feature = "full")]
        (Some(token), Some(certificate)) => {
            let verified = crate::anchor::digest_bytes(&p.sha256)
                .ok_or_else(|| format!("the registration digest `{}` is not a SHA-256", p.sha256))
                .and_then(|imprint| crate::anchor::rfc3161::verify(token, certificate, &imprint));
            match verified {
                Ok(stamp) => {
                    let signed_by = format!(
                        "{} (certificate SHA-256 {}{})",
                        stamp.tsa,
                        stamp.certificate_sha256,
                        if stamp.self_signed {
                            ", self-signed"
                        } else {
                            ""
                        }
                    );
                    out.push(Receipt::new(
                        &subject,
                        claim,
                        format!("stamped {}", stamp.time_text),
                        format!("signature verifies: {signed_by}"),
                        true,
                    ));
                    let mut words = format!(
                        "RFC 3161 timestamp by {signed_by} at {}; it backs the time as far as that certificate is a TSA's you trust",
                        stamp.time_text
                    );
                    if let Some(first) = first_call.filter(|f| stamp.time >= *f) {
                        words = format!(
                            "{words}; it is later than the first provider call at {}",
                            time::format(first)
                        );
                    }
                    backing = Backing {
                        short: format!("RFC 3161 timestamp {}", stamp.time_text),
                        words,
                        time: Some(stamp.time),
                    };
                }
                Err(why) => out.push(Receipt::new(
                    &subject,
                    claim,
                    "a valid time stamp",
                    why,
                    false,
                )),
            }
        }
    }
    backing
}
