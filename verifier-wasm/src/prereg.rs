//! What a registration covers, and its digest.
//!
//! The pre-registered part of an experiment log is everything before the
//! first line equal to the end marker; deviations are appended after it. A
//! registration covers that part, the experiment's machine-readable rules
//! (everything in `experiment.json` but the `preregistration` block itself:
//! grid, limits, tiers, policies, prices, hypotheses and their decision
//! rules) and each task of the grid (its inputs by digest, its checks), each
//! by SHA-256. The registration's own digest is the SHA-256 of its
//! *statement*, the text listing those digests:
//!
//! ```text
//! receipts registration 1
//! log <sha256 of the pre-registered part>
//! rules <sha256 of the rules>
//! task <task id> <sha256 of the task>
//! ```
//!
//! one `task` line per task, sorted by id, each line ending in `\n`. The
//! rules and tasks are hashed in a canonical JSON form ([`canonical_json`]),
//! so neither formatting nor key order changes their digest; any change of
//! a value does.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::digest::sha256_hex;
use crate::model::{Experiment, Task};

/// The pre-registered part of `log`: its bytes up to (not including) the first
/// line equal to `end_marker`, or `None` when no line is.
pub fn preregistered_part<'a>(log: &'a str, end_marker: &str) -> Option<&'a str> {
    let mut offset = 0;
    for line in log.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        if bare == end_marker {
            return Some(&log[..offset]);
        }
        offset += line.len();
    }
    None
}

/// The SHA-256 of the pre-registered part, or `None` when the marker is missing.
pub fn preregistration_digest(log: &str, end_marker: &str) -> Option<String> {
    preregistered_part(log, end_marker).map(|part| sha256_hex(part.as_bytes()))
}

/// JSON with object keys sorted, no whitespace, numbers and strings as
/// serde_json writes them: the same text for the same values.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The SHA-256 of an experiment's rules: the experiment without its
/// `preregistration` block, in canonical JSON.
pub fn rules_digest(experiment: &Experiment) -> String {
    let mut value = serde_json::to_value(experiment).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("preregistration");
    }
    sha256_hex(canonical_json(&value).as_bytes())
}

/// The SHA-256 of a task, in canonical JSON.
pub fn task_digest(task: &Task) -> String {
    let value = serde_json::to_value(task).unwrap_or(Value::Null);
    sha256_hex(canonical_json(&value).as_bytes())
}

/// The statement of a registration covering `log`, `rules` and `tasks`
/// (digests, tasks by id).
pub fn statement(log: &str, rules: &str, tasks: &BTreeMap<String, String>) -> String {
    let mut out = format!("receipts registration 1\nlog {log}\nrules {rules}\n");
    for (id, digest) in tasks {
        out.push_str(&format!("task {id} {digest}\n"));
    }
    out
}

/// The registration digest: the SHA-256 of its statement.
pub fn registration_digest(log: &str, rules: &str, tasks: &BTreeMap<String, String>) -> String {
    sha256_hex(statement(log, rules, tasks).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let a: Value = serde_json::from_str(r#"{ "b": [1, {"d": 2.50, "c": "x"}], "a": null }"#)
            .expect("json");
        assert_eq!(
            canonical_json(&a),
            r#"{"a":null,"b":[1,{"c":"x","d":2.5}]}"#
        );
    }

    #[test]
    fn the_statement_lists_each_digest_once_tasks_sorted() {
        let tasks = BTreeMap::from([
            ("b".to_string(), "2".to_string()),
            ("a".to_string(), "1".to_string()),
        ]);
        assert_eq!(
            statement("L", "R", &tasks),
            "receipts registration 1\nlog L\nrules R\ntask a 1\ntask b 2\n"
        );
    }

    #[test]
    fn splits_at_the_first_marker_line() {
        let log = "# Log\nH1: x\n<!-- end -->\nDeviation\n<!-- end -->\n";
        assert_eq!(
            preregistered_part(log, "<!-- end -->"),
            Some("# Log\nH1: x\n")
        );
    }

    #[test]
    fn marker_must_be_a_whole_line() {
        assert_eq!(preregistered_part("a <!-- end -->\n", "<!-- end -->"), None);
        assert_eq!(
            preregistered_part("a\r\n<!-- end -->\r\n", "<!-- end -->"),
            Some("a\r\n")
        );
    }
}
