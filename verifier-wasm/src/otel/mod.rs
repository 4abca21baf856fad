//! Agent runs brought in from OpenTelemetry traces that follow the GenAI
//! semantic conventions (`invoke_agent`, `chat`, `execute_tool` spans).
//!
//! An import is the trace export, kept byte for byte as an object named
//! by its SHA-256 (with the log exports whose events carry the messages,
//! when the instrumentation writes them there), and a record derived from
//! it ([`derive`]): one run per trace, with its model calls, tool
//! executions and transcript. [`verify`] re-derives the record (an edited
//! record fails) and holds the export's parts against each other: what a
//! trace reports cannot be recomputed from anything outside it, but what
//! one span says, another span or event written by the same
//! instrumentation repeats.

pub mod otlp;
mod record;
mod verify;

pub use otlp::{read, Export, ExportKind, OtlpError};
pub use record::*;
pub use verify::{verify, verify_kept};

#[cfg(test)]
mod tests;
