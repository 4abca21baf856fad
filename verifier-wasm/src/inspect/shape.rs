//! The Inspect version a log names, held to the log's shape.
//!
//! Scores are recomputed with the rules of the version the log names
//! (`eval.packages.inspect_ai`), and the rules differ: a score rewritten in
//! a recent log may hold under an older version's rules. Naming an older
//! version than the one that wrote the log is then a way around the
//! recomputation, and the log's own fields tell it: each field below was
//! first written by the release given, read from Inspect's released
//! sources (`inspect_ai/log/_log.py`), so a log that carries it and names
//! an earlier release fails. A forger who also strips every such field is
//! not caught here (docs/TRUST.md says so).

use super::log::Log;
use super::version::Version;
use crate::verify::Receipt;

/// Each field and the first release that writes it.
const FIRST_WRITTEN: [(&str, u32); 5] = [
    ("eval.scorers", 64),
    ("samples[].uuid", 70),
    ("eval.eval_id", 95),
    ("invalidated", 154),
    ("samples[].turn_count", 247),
];

/// The fields of [`FIRST_WRITTEN`] that `log` carries.
fn carried(log: &Log) -> Vec<&'static str> {
    let present = |field: &str| match field {
        "eval.scorers" => !log.eval.scorers.is_empty(),
        "samples[].uuid" => log.samples.iter().any(|s| s.uuid.is_some()),
        "eval.eval_id" => log.eval.eval_id.is_some(),
        "invalidated" => log.invalidated.is_some(),
        "samples[].turn_count" => log.samples.iter().any(|s| s.turn_count.is_some()),
        _ => false,
    };
    FIRST_WRITTEN
        .iter()
        .map(|(field, _)| *field)
        .filter(|f| present(f))
        .collect()
}

/// The receipt that the version the log names could have written it; none
/// when it names none (its scores are then read with the newest rules).
pub(super) fn version_receipt(subject: &str, log: &Log) -> Option<Receipt> {
    let version = log.inspect_version()?;
    let claim = "eval.packages.inspect_ai";
    let recorded = format!("inspect_ai {version}");
    let later = carried(log).into_iter().find_map(|field| {
        let (_, patch) = FIRST_WRITTEN.iter().find(|(f, _)| *f == field)?;
        let first = Version(0, 3, *patch);
        (version < first).then_some((field, first))
    });
    Some(match later {
        None => Receipt::new(
            subject,
            claim,
            recorded,
            "the log carries no field a later release first wrote",
            true,
        ),
        Some((field, first)) => Receipt::new(
            subject,
            claim,
            recorded,
            format!(
                "the log carries `{field}`, which Inspect first wrote in {first}: it was not written by {version}, and its scores are not to be read by that version's rules"
            ),
            false,
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::Value;

    use super::*;
    use crate::verify::Status;

    fn corpus_log(version: &str, edit: impl Fn(&mut Value)) -> Log {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/inspect-versions")
            .join(version)
            .join("scorers.json");
        let mut v: Value =
            serde_json::from_slice(&std::fs::read(path).expect("log")).expect("json");
        edit(&mut v);
        Log::from_json(&serde_json::to_vec(&v).expect("json")).expect("log")
    }

    fn claiming(version: &str, claimed: &'static str) -> Receipt {
        let log = corpus_log(version, |v| {
            v["eval"]["packages"]["inspect_ai"] = claimed.into();
        });
        version_receipt("s", &log).expect("a version")
    }

    #[test]
    fn each_real_log_fits_the_version_that_wrote_it() {
        for version in [
            "0.3.40", "0.3.46", "0.3.75", "0.3.130", "0.3.200", "0.3.285",
        ] {
            let r = version_receipt("s", &corpus_log(version, |_| {})).expect("a version");
            assert_eq!(r.status, Status::Pass, "{version}: {}", r.recomputed);
        }
    }

    #[test]
    fn a_log_naming_an_older_version_than_wrote_it_fails_by_the_field_that_tells() {
        // A 0.3.285 log renamed 0.3.200, to have its scores read by 0.3.200's rules.
        let r = claiming("0.3.285", "0.3.200");
        assert_eq!(r.status, Status::Fail);
        assert!(
            r.recomputed.starts_with(
                "the log carries `samples[].turn_count`, which Inspect first wrote in 0.3.247"
            ),
            "{}",
            r.recomputed
        );
        let r = claiming("0.3.200", "0.3.150");
        assert!(r.recomputed.contains("`invalidated`"), "{}", r.recomputed);
        let r = claiming("0.3.130", "0.3.90");
        assert!(r.recomputed.contains("`eval.eval_id`"), "{}", r.recomputed);
        let r = claiming("0.3.75", "0.3.66");
        assert!(
            r.recomputed.contains("`samples[].uuid`"),
            "{}",
            r.recomputed
        );
        // Naming a later version is not what this catches, nor an older
        // one the log's fields cannot tell apart.
        assert_eq!(claiming("0.3.200", "0.3.260").status, Status::Pass);
        assert_eq!(claiming("0.3.40", "0.3.30").status, Status::Pass);
        // A log that names no version is read by the newest rules: no receipt.
        let log = corpus_log("0.3.285", |v| {
            v["eval"]["packages"]
                .as_object_mut()
                .expect("packages")
                .clear();
        });
        assert!(version_receipt("s", &log).is_none());
    }
}
