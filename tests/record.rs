//! `receipts record` against a mock provider: the proxy ([`proxy`]) and
//! the command around it ([`command`]).

#[path = "record/command.rs"]
mod command;
#[path = "common/mod.rs"]
mod common;
#[path = "record/mock.rs"]
mod mock;
#[path = "record/proxy.rs"]
mod proxy;

/// A key the agent sends: it must reach the provider and never the record.
const SECRET: &str = "sk-live-0123456789abcdef";
