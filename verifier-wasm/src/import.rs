//! Logs of other tools made into records (`receipts import`, and the
//! simulated sample's imported evaluation): each log read, its record
//! derived, and the files to write named. Pure, like the rest of the core:
//! the caller reads the logs and writes the files.

use crate::digest::sha256_hex;
use crate::inspect::{derive, inspect_record_path, ImportedEval, Log, LogError, Source};
use crate::layout;
use crate::otel::{self, otel_record_path, Export, ImportedTraces};
use serde::Serialize;

/// An Inspect AI log read and its record derived.
pub struct Prepared {
    /// The record's file stem, from the log's file name.
    pub name: String,
    /// The record derived from the log.
    pub record: ImportedEval,
    /// The log as read, to check the record against.
    pub log: Log,
}

/// The file stem a record takes from its log's file name: letters, digits,
/// `.`, `_` and `-`, anything else as `-`.
pub fn record_name(file_name: &str) -> String {
    let stem = file_name
        .rsplit_once('.')
        .map_or(file_name, |(stem, _)| stem);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("log{name}")
    } else {
        name
    }
}

/// Reads the Inspect AI log `bytes`, named `file_name`, and derives its record.
pub fn inspect(file_name: &str, bytes: &[u8]) -> Result<Prepared, LogError> {
    let log = Log::read(bytes)?;
    let source = Source {
        tool: "inspect_ai".into(),
        version: log
            .eval
            .packages
            .get("inspect_ai")
            .cloned()
            .unwrap_or_else(|| "unknown".into()),
        file: file_name.to_string(),
        format: if bytes.starts_with(b"PK") {
            "eval"
        } else {
            "json"
        }
        .into(),
        sha256: sha256_hex(bytes),
    };
    Ok(Prepared {
        name: record_name(file_name),
        record: derive(&log, source),
        log,
    })
}

impl Prepared {
    /// The record's path under the records directory, in directory `dir`.
    pub fn record_path(&self, dir: &str) -> String {
        inspect_record_path(dir, &self.name)
    }

    /// The kept log's path under the records directory.
    pub fn object_path(&self) -> String {
        layout::object_path(&self.record.source.sha256)
    }

    /// The record as written: pretty JSON and a newline.
    pub fn record_bytes(&self) -> Vec<u8> {
        pretty(&self.record)
    }
}

/// A record as written: pretty JSON and a newline.
fn pretty<T: Serialize>(record: &T) -> Vec<u8> {
    let mut json = serde_json::to_vec_pretty(record).expect("a record serializes");
    json.push(b'\n');
    json
}

/// An OpenTelemetry export read, with its name and bytes.
pub struct OtelFile {
    /// The export's file name, as given.
    pub file_name: String,
    /// The export's bytes, as read.
    pub bytes: Vec<u8>,
    /// The export parsed: its spans or its log events.
    pub export: Export,
}

impl OtelFile {
    /// Reads the export `bytes`, named `file_name`.
    pub fn read(file_name: &str, bytes: Vec<u8>) -> Result<OtelFile, otel::OtlpError> {
        Ok(OtelFile {
            export: otel::read(&bytes)?,
            file_name: file_name.to_string(),
            bytes,
        })
    }

    fn source(&self) -> Source {
        let resource = self.export.spans.first().map(|s| &s.resource);
        let attribute = |key: &str| {
            resource
                .and_then(|r| r.get(key))
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        Source {
            tool: attribute("telemetry.sdk.name").unwrap_or_else(|| "opentelemetry".into()),
            version: attribute("telemetry.sdk.version").unwrap_or_else(|| "unknown".into()),
            file: self.file_name.clone(),
            format: "otlp-json".into(),
            sha256: sha256_hex(&self.bytes),
        }
    }
}

/// A trace export read and its record derived, with the log exports
/// whose events belong to its spans.
pub struct PreparedTraces<'f> {
    /// The record's file stem, from the trace export's file name.
    pub name: String,
    /// The record derived from the exports.
    pub record: ImportedTraces,
    /// The trace export.
    pub traces: &'f OtelFile,
    /// The log exports whose events belong to the trace export's spans.
    pub events: Vec<&'f OtelFile>,
}

/// Derives the record of the trace export `traces`, with the log exports
/// `events` that belong to it.
pub fn otel<'f>(traces: &'f OtelFile, events: Vec<&'f OtelFile>) -> PreparedTraces<'f> {
    let exports: Vec<&Export> = events.iter().map(|e| &e.export).collect();
    let sources = events
        .iter()
        .map(|e| Source {
            tool: traces.source().tool,
            version: traces.source().version,
            ..e.source()
        })
        .collect();
    PreparedTraces {
        name: record_name(&traces.file_name),
        record: otel::derive(&traces.export, traces.source(), &exports, sources),
        traces,
        events,
    }
}

impl PreparedTraces<'_> {
    /// The record's path under the records directory, in directory `dir`.
    pub fn record_path(&self, dir: &str) -> String {
        otel_record_path(dir, &self.name)
    }

    /// The record as written: pretty JSON and a newline.
    pub fn record_bytes(&self) -> Vec<u8> {
        pretty(&self.record)
    }
}

/// Pairs each log export with the one trace export whose spans its events
/// belong to, and derives each trace export's record, in the order given.
/// A log export whose events name a span no trace export holds, or spans
/// of several, is refused with its file's name.
pub fn otel_all(files: &[OtelFile]) -> Result<Vec<PreparedTraces<'_>>, (String, String)> {
    use crate::otel::ExportKind;
    use std::collections::BTreeSet;
    let traces: Vec<&OtelFile> = files
        .iter()
        .filter(|f| f.export.kind() == Some(ExportKind::Traces))
        .collect();
    if traces.is_empty() {
        let name = files
            .first()
            .map(|f| f.file_name.clone())
            .unwrap_or_default();
        return Err((
            name,
            "no trace export given: the log exports' events belong to spans, so give the trace export too".into(),
        ));
    }
    let spans: Vec<BTreeSet<(&str, &str)>> = traces
        .iter()
        .map(|t| {
            t.export
                .spans
                .iter()
                .map(|s| (s.trace_id.as_str(), s.span_id.as_str()))
                .collect()
        })
        .collect();
    let mut events: Vec<Vec<&OtelFile>> = vec![Vec::new(); traces.len()];
    for logs in files
        .iter()
        .filter(|f| f.export.kind() == Some(ExportKind::Logs))
    {
        let mut owners = BTreeSet::new();
        for event in &logs.export.events {
            let key = (event.trace_id.as_str(), event.span_id.as_str());
            match spans.iter().position(|s| s.contains(&key)) {
                Some(i) => {
                    owners.insert(i);
                }
                None => {
                    return Err((
                        logs.file_name.clone(),
                        format!(
                            "at {}: the event names span {} of trace {}, which no trace export given holds",
                            event.at, event.span_id, event.trace_id
                        ),
                    ))
                }
            }
        }
        if owners.len() > 1 {
            return Err((
                logs.file_name.clone(),
                "its events belong to spans of several trace exports; give one log export per trace export".into(),
            ));
        }
        if let Some(&i) = owners.first() {
            events[i].push(logs);
        }
    }
    Ok(traces
        .into_iter()
        .zip(events)
        .map(|(t, e)| otel(t, e))
        .collect())
}
