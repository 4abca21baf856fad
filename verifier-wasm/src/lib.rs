//! `receipts-verifier`: the pure core of `receipts`.
//!
//! It holds the record format (what an experiment, a task, a run, a published
//! summary and a showcase look like on disk), SHA-256 digests, and the
//! deterministic checks that decide whether an agent's artifact passes. It does
//! no I/O: callers hand it bytes and parsed records, and it answers with values.
//! The same code is compiled natively for the `receipts` command and to
//! WebAssembly for the browser, so both recompute identical results.

#![warn(missing_docs)]

pub mod anchor;
mod btree;
pub mod checks;
pub mod claims;
pub mod cost;
pub mod csv_rows;
pub mod decide;
pub mod digest;
pub mod facts;
pub mod import;
pub mod imported;
pub mod inspect;
pub mod layout;
pub mod literals;
pub mod manifest;
pub mod messages;
pub mod model;
pub mod numbers;
pub mod otel;
pub mod plural;
pub mod prereg;
pub mod results_table;
pub mod time;
pub mod verify;
pub mod wire;

pub use model::FORMAT_VERSION;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
