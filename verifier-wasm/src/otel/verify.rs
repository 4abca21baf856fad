//! The receipts of imported traces. A trace export is the publisher's own
//! account, so beyond re-deriving the record, each receipt holds one part
//! of the export against another part written independently by the
//! instrumentation: a run's reported usage against its calls, a tool's
//! arguments against the call that asked for it, its result against the
//! call that read it, a call's output against the next call's input, a
//! span against its events, a child against its parent's time. An export
//! edited in one place and resealed fails where the other place remembers.

use std::collections::{BTreeMap, BTreeSet};

use super::neutral::{events_by_span, runs, Kind, Trace};
use super::otlp::{self, Export, Span};
use super::record::{derive, ImportedTraces, Usage};
use super::{calls, tools};
use crate::imported::derived_receipt;
use crate::verify::Receipt;

/// Every receipt of `record` (published as `subject`) against the kept
/// exports' bytes, by digest (`None` where nothing is kept under a digest
/// the record names): a missing or unreadable export fails.
pub fn verify_kept(
    subject: &str,
    record: &ImportedTraces,
    kept: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Vec<Receipt> {
    let mut out = Vec::new();
    let mut read = |claim: String, file: &str, sha256: &str| -> Option<Export> {
        let Some(bytes) = kept(sha256) else {
            out.push(Receipt::new(
                subject,
                format!("{claim}.sha256"),
                sha256,
                "nothing is kept under this digest",
                false,
            ));
            return None;
        };
        let digest = crate::digest::sha256_hex(&bytes);
        out.push(Receipt::new(
            subject,
            format!("{claim}.sha256"),
            sha256,
            &digest,
            digest == sha256,
        ));
        match otlp::read(&bytes) {
            Ok(export) => Some(export),
            Err(e) => {
                out.push(Receipt::new(
                    subject,
                    claim,
                    file,
                    format!("the kept export does not read: {e}"),
                    false,
                ));
                None
            }
        }
    };
    let traces = read("source".into(), &record.source.file, &record.source.sha256);
    let events: Vec<Option<Export>> = record
        .events
        .iter()
        .enumerate()
        .map(|(i, s)| read(format!("events[{i}]"), &s.file, &s.sha256))
        .collect();
    let (Some(traces), Some(events)) = (traces, events.into_iter().collect::<Option<Vec<_>>>())
    else {
        return out;
    };
    let events: Vec<&Export> = events.iter().collect();
    out.extend(verify(subject, record, &traces, &events));
    out
}

/// Every receipt of `record` against the read exports, digests aside.
pub fn verify(
    subject: &str,
    record: &ImportedTraces,
    traces: &Export,
    events: &[&Export],
) -> Vec<Receipt> {
    let mut out = vec![derived_receipt(
        subject,
        "derived from the export",
        "the export",
        record,
        &derive(traces, record.source.clone(), events, record.events.clone()),
    )];
    out.extend(events_have_spans(subject, record, traces, events));
    let by_span = events_by_span(events);
    let (runs, _) = runs(traces, &by_span);
    for (index, trace) in runs.iter().enumerate() {
        let at = format!("runs[{index}]");
        let spans: Vec<&Span> = trace.steps.iter().map(|s| s.span).collect();
        out.extend(timing(subject, &at, &spans));
        out.extend(usage(subject, &at, trace));
        out.extend(calls::receipts(subject, &at, trace, &by_span));
        out.extend(tools::receipts(subject, &at, trace));
    }
    out
}

/// Every event of a kept log export belongs to a span of the trace
/// export: the events of a trace or a call dropped from the export name
/// spans it no longer holds.
fn events_have_spans(
    subject: &str,
    record: &ImportedTraces,
    traces: &Export,
    events: &[&Export],
) -> Vec<Receipt> {
    let spans: BTreeSet<(&str, &str)> = traces
        .spans
        .iter()
        .map(|s| (s.trace_id.as_str(), s.span_id.as_str()))
        .collect();
    events
        .iter()
        .zip(&record.events)
        .enumerate()
        .map(|(i, (export, source))| {
            let claim = format!("events[{i}].spans");
            let orphan = export
                .events
                .iter()
                .find(|e| !spans.contains(&(e.trace_id.as_str(), e.span_id.as_str())));
            match orphan {
                None => Receipt::new(
                    subject,
                    claim,
                    format!("{} events of {}", export.events.len(), source.file),
                    "each names a span of the trace export",
                    true,
                ),
                Some(e) => Receipt::new(
                    subject,
                    claim,
                    format!("{} at {}", e.name, e.at),
                    format!(
                        "names span {} of trace {}, which the trace export does not hold",
                        e.span_id, e.trace_id
                    ),
                    false,
                ),
            }
        })
        .collect()
}

/// Each span ends after it starts and lies within its parent.
fn timing(subject: &str, at: &str, spans: &[&Span]) -> Vec<Receipt> {
    let by_id: BTreeMap<&str, &Span> = spans.iter().map(|s| (s.span_id.as_str(), *s)).collect();
    let claim = format!("{at}.timing");
    for span in spans {
        if span.end_ns < span.start_ns {
            return vec![Receipt::new(
                subject,
                claim,
                format!("span {} ({})", span.span_id, span.name),
                "ends before it starts",
                false,
            )];
        }
        if let Some(parent) = by_id.get(span.parent_span_id.as_str()) {
            if span.start_ns < parent.start_ns || span.end_ns > parent.end_ns {
                return vec![Receipt::new(
                    subject,
                    claim,
                    format!("span {} ({})", span.span_id, span.name),
                    format!(
                        "runs outside its parent {} ({})",
                        parent.span_id, parent.name
                    ),
                    false,
                )];
            }
        }
    }
    vec![Receipt::new(
        subject,
        claim,
        format!("{} spans", spans.len()),
        "each within its parent",
        true,
    )]
}

/// The run's usage as its root reports it, against the sum over its
/// model calls (never over other spans, which would count a call twice).
fn usage(subject: &str, at: &str, trace: &Trace<'_>) -> Vec<Receipt> {
    let root = trace.root();
    let reported = Usage::from(root.facts.usage);
    let calls: Vec<Usage> = trace
        .of(Kind::Call)
        .filter(|s| s.span.span_id != root.span.span_id)
        .map(|s| Usage::from(s.facts.usage))
        .collect();
    let mut out = Vec::new();
    for (i, (field, value)) in reported.fields().into_iter().enumerate() {
        let Some(value) = value else { continue };
        let claim = format!("{at}.usage.{field}");
        let counts: Vec<u64> = calls.iter().filter_map(|u| u.fields()[i].1).collect();
        if counts.is_empty() {
            out.push(Receipt::unchecked(
                subject,
                claim,
                value.to_string(),
                format!(
                    "no model call of the trace reports its {}",
                    field.replace('_', " ")
                ),
            ));
            continue;
        }
        let sum: u64 = counts.iter().sum();
        let partial = counts.len() < calls.len();
        out.push(Receipt::new(
            subject,
            claim,
            value.to_string(),
            if partial {
                format!(
                    "{sum}, the sum over the {} of {} calls that report it",
                    counts.len(),
                    calls.len()
                )
            } else {
                format!("{sum}, the sum over its {} calls", calls.len())
            },
            sum == value,
        ));
    }
    out
}
