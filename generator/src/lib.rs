//! `receipts`: builds a verifiable static site from recorded agent
//! experiments. The binary in `main.rs` is a thin shell over these modules,
//! one per pipeline stage, and one per subcommand under `commands`.

pub mod audit;
pub mod build;
pub mod cache;
pub mod charts;
pub mod commands;
pub mod data;
pub mod error;
pub mod escape;
pub mod gzip;
pub mod head;
pub mod load;
pub mod markdown;
pub mod pages;
pub mod parse;
pub mod render;
pub mod report;
pub mod serve;
pub mod simulate;
pub mod site;
pub mod standalone;
pub mod validate;
pub mod verification;
pub mod write;
