//! `receipts`: builds a verifiable static site from recorded agent
//! experiments. The binary in `main.rs` is a thin shell over these modules,
//! one per pipeline stage, and one per subcommand under `commands`.

pub mod anchors;
#[cfg(feature = "cli")]
pub mod atomic;
#[cfg(feature = "cli")]
pub mod audit;
pub mod browser;
#[cfg(feature = "cli")]
pub mod build;
pub mod cache;
pub mod charts;
#[cfg(feature = "cli")]
pub mod commands;
pub mod data;
pub mod difference;
pub mod error;
pub mod escape;
#[cfg(feature = "cli")]
pub mod export;
pub mod fold;
pub mod gzip;
pub mod head;
/// Logs of other tools made into records: in the verification core.
#[cfg(feature = "cli")]
pub use receipts_verifier::import;
#[cfg(feature = "cli")]
pub mod json_place;
pub mod load;
pub mod markdown;
pub mod numbers;
pub mod pages;
pub mod parse;
#[cfg(feature = "cli")]
pub mod publish;
#[cfg(feature = "cli")]
pub mod record;
pub mod render;
#[cfg(feature = "cli")]
pub mod runreport;
#[cfg(feature = "cli")]
pub mod serve;
#[cfg(feature = "cli")]
pub mod shards;
/// The simulated sample input: its own crate (`simulator/`).
#[cfg(feature = "cli")]
pub use receipts_simulate as simulate;
pub mod site;
#[cfg(feature = "cli")]
pub mod standalone;
pub mod validate;
pub mod verification;
#[cfg(feature = "cli")]
pub mod write;
