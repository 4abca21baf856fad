//! The workspace's integration tests, as one test binary with a module per
//! feature: one link of the `receipts` library and its dependencies instead
//! of one per feature, and one home for the fixtures they share
//! (`common/`: the sample, its built site and the large simulated sites,
//! each built once per test run and copied where a test changes it).
//!
//! Run them all with `cargo nextest run` (or `scripts/test`), one feature
//! with a filter on its module: `cargo nextest run -E 'test(/^claims::/)'`.

mod common;

mod anchors;
mod bad_input;
mod build_site;
mod chunks;
mod claims;
mod command_line;
mod composed;
mod copies;
mod first_hour;
mod forgery;
mod harness_vetting;
mod import;
mod import_otel;
mod import_otel_instrumentations;
mod import_runreport;
mod import_versions;
mod integrity;
mod page_check;
mod pages;
mod provider_failures;
mod published_benchmark;
mod published_figures;
mod record;
mod registration;
mod regression_gate;
mod regression_guards;
mod regression_history;
mod reproducible;
mod run_page;
mod run_records;
mod runner_guards;
mod schemas;
mod serve;
mod shards;
mod site_size;
mod throughput;
mod verify_site;
mod wasm_size;
mod workflows;
