//! Agent runs brought in from OpenTelemetry traces, as the GenAI semantic
//! conventions (old and new), Arize's OpenInference or Traceloop's
//! OpenLLMetry write them.
//!
//! An import is the trace export, kept byte for byte as an object named
//! by its SHA-256 (with the log exports whose records carry the messages,
//! when the instrumentation writes them there), and a record derived from
//! it ([`derive`]): one run per trace, with its model calls, tool
//! executions and transcript. Each convention maps a span to the
//! importer's own account of it ([`neutral`]: an agent, a model call, a
//! tool execution), recognised by the attributes the span carries, so
//! the record and the receipts are the same whichever wrote it; the
//! attributes no convention reads are kept in the record as they are.
//! [`verify`] re-derives the record (an edited record fails) and holds the
//! export's parts against each other: what a trace reports cannot be
//! recomputed from anything outside it, but what one span says, another
//! span or log record written by the same instrumentation repeats.

mod anyvalue;
mod attrs;
mod calls;
mod genai;
mod genai_events;
mod indexed;
mod messages;
pub mod neutral;
mod openinference;
mod openllmetry;
pub mod otlp;
mod record;
mod tools;
mod verify;

pub use attrs::Attribute;
pub use otlp::{read, Export, ExportKind, OtlpError};
pub use record::*;
pub use verify::{verify, verify_kept};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_conventions;
#[cfg(test)]
mod tests_forgeries;
