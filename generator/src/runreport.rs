//! Run reports streamed as JSON lines by a harness's report sink, read for
//! `receipts import runreport`: a line of `"kind": "harness"` with the rules
//! the runs were held to, then a line of `"kind": "run_report"` per run,
//! with everything the harness saw and the figures it reported for it.
//!
//! A line holds what a harness record holds (docs/FORMAT.md, "Harness
//! suites"), so nothing is lost in the conversion: the suite and the runs
//! become `harness/<suite>/harness.json` and `harness/<suite>/runs/<run>.json`,
//! whose every figure a build recomputes from the events. What a sink need
//! not repeat may be left out: `format_version` (1), a run's `suite` (the
//! suite's id) and its `provenance` (the suite's).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use receipts_verifier::model::{HarnessRun, HarnessSuite, FORMAT_VERSION};

use crate::error::InputError;

/// The `kind` of a run's line.
pub const RUN_REPORT: &str = "run_report";
/// The `kind` of the rules' line.
pub const HARNESS: &str = "harness";

/// A stream of run reports, read: the suite its runs were held to, and
/// each run with where it was read.
#[derive(Debug)]
pub struct Stream {
    pub suite: HarnessSuite,
    pub runs: Vec<ReadRun>,
}

/// One run of a stream, and the line it came from.
#[derive(Debug)]
pub struct ReadRun {
    pub run: HarnessRun,
    /// Where the line is: `FILE:LINE`.
    pub at: Line,
}

/// A line of one of the files read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub file: String,
    pub number: usize,
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.number)
    }
}

impl Line {
    /// An error in this line, at `place` (a field path) when there is one.
    pub fn error(&self, place: Option<&str>, message: impl Into<String>) -> InputError {
        let place = match place {
            Some(p) if !p.is_empty() && p != "." => format!("line {}, {p}", self.number),
            _ => format!("line {}", self.number),
        };
        InputError::at(&self.file, place, message)
    }
}

/// Reads the files of one stream, each `(name, bytes)`, in the order given,
/// as one stream of the suite `suite_id` (the directory it is imported
/// into). The rules' line comes first; a file that repeats it (a sink
/// started again) must repeat it exactly. Blank lines are skipped.
pub fn read(files: &[(String, Vec<u8>)], suite_id: &str) -> Result<Stream, InputError> {
    let mut suite: Option<(HarnessSuite, Line)> = None;
    let mut runs: Vec<ReadRun> = Vec::new();
    let mut seen: BTreeMap<String, Line> = BTreeMap::new();
    for (name, bytes) in files {
        let text = crate::parse::utf8(name, bytes.clone())?;
        for (i, raw) in text.lines().enumerate() {
            let at = Line {
                file: name.clone(),
                number: i + 1,
            };
            if raw.trim().is_empty() {
                continue;
            }
            let mut object = object(&at, raw)?;
            match kind(&at, &object)? {
                Kind::Harness => {
                    let read = harness_line(&at, &mut object, suite_id)?;
                    match &suite {
                        None if !runs.is_empty() => {
                            return Err(at.error(
                                None,
                                "the harness's rules come before the first run report",
                            ))
                        }
                        None => suite = Some((read, at)),
                        Some((first, first_at)) if *first != read => {
                            return Err(at.error(
                                None,
                                format!(
                                    "other rules than {first_at} gives: one stream holds one harness's runs; import the other into a directory of its own"
                                ),
                            ))
                        }
                        Some(_) => {}
                    }
                }
                Kind::RunReport => {
                    let Some((s, _)) = &suite else {
                        return Err(at.error(
                            None,
                            format!(
                                "a run report before the harness's rules: the stream starts with a line of \"kind\": \"{HARNESS}\""
                            ),
                        ));
                    };
                    let run = run_line(&at, &mut object, s)?;
                    if let Some(earlier) = seen.get(&run.id) {
                        return Err(at.error(
                            Some("id"),
                            format!("run `{}` is reported twice, here and at {earlier}", run.id),
                        ));
                    }
                    seen.insert(run.id.clone(), at.clone());
                    runs.push(ReadRun { run, at });
                }
            }
        }
    }
    let Some((suite, _)) = suite else {
        let file = files.first().map_or_else(String::new, |(n, _)| n.clone());
        return Err(InputError::new(
            file,
            format!("no line of \"kind\": \"{HARNESS}\": a stream of run reports starts with the harness's rules"),
        ));
    };
    if runs.is_empty() {
        return Err(InputError::new(
            files.last().map_or_else(String::new, |(n, _)| n.clone()),
            format!("no line of \"kind\": \"{RUN_REPORT}\": nothing to import"),
        ));
    }
    Ok(Stream { suite, runs })
}

enum Kind {
    Harness,
    RunReport,
}

fn object(at: &Line, raw: &str) -> Result<Map<String, Value>, InputError> {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(at.error(None, "not a JSON object")),
        Err(e) => Err(at.error(
            None,
            format!(
                "not JSON: {} (column {})",
                strip_position(&e.to_string()),
                e.column()
            ),
        )),
    }
}

fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

fn kind(at: &Line, object: &Map<String, Value>) -> Result<Kind, InputError> {
    match object.get("kind").and_then(Value::as_str) {
        Some(HARNESS) => Ok(Kind::Harness),
        Some(RUN_REPORT) => Ok(Kind::RunReport),
        Some(other) => Err(at.error(
            Some("kind"),
            format!(
                "`{}` is neither \"{HARNESS}\" nor \"{RUN_REPORT}\"",
                other.escape_debug()
            ),
        )),
        None => Err(at.error(
            Some("kind"),
            format!("missing: each line says whether it is the \"{HARNESS}\"'s rules or a \"{RUN_REPORT}\""),
        )),
    }
}

/// Fills what a sink may leave out, without overwriting what it wrote.
fn default(object: &mut Map<String, Value>, key: &str, value: Value) {
    object.entry(key.to_string()).or_insert(value);
}

fn harness_line(
    at: &Line,
    object: &mut Map<String, Value>,
    suite_id: &str,
) -> Result<HarnessSuite, InputError> {
    default(object, "format_version", Value::from(FORMAT_VERSION));
    default(object, "id", Value::from(suite_id));
    let suite: HarnessSuite = typed(at, object)?;
    if suite.id != suite_id {
        return Err(at.error(
            Some("id"),
            format!(
                "the suite `{}` imported into a directory named `{suite_id}`: name the directory after the suite",
                suite.id.escape_debug()
            ),
        ));
    }
    Ok(suite)
}

fn run_line(
    at: &Line,
    object: &mut Map<String, Value>,
    suite: &HarnessSuite,
) -> Result<HarnessRun, InputError> {
    object.insert("kind".into(), Value::from("harness_run"));
    default(object, "format_version", Value::from(FORMAT_VERSION));
    default(object, "suite", Value::from(suite.id.as_str()));
    default(
        object,
        "provenance",
        serde_json::to_value(suite.provenance).unwrap_or(Value::Null),
    );
    let run: HarnessRun = typed(at, object)?;
    if run.suite != suite.id {
        return Err(at.error(
            Some("suite"),
            format!(
                "the run names the suite `{}`, the stream's rules are `{}`'s",
                run.suite.escape_debug(),
                suite.id
            ),
        ));
    }
    if run.provenance != suite.provenance {
        return Err(at.error(
            Some("provenance"),
            "a run's provenance differs from its suite's: a suite's runs are all recorded or all simulated",
        ));
    }
    Ok(run)
}

/// The line as `T`, an error naming the field path where it is not one.
fn typed<T: DeserializeOwned>(at: &Line, object: &Map<String, Value>) -> Result<T, InputError> {
    let value = Value::Object(object.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = receipts_verifier::messages::plain(&e.into_inner().to_string());
        at.error(Some(&path), message)
    })
}

#[cfg(test)]
mod tests;
