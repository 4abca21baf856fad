//! `receipts record` against a mock provider: the proxy ([`proxy`]) and
//! the command around it ([`command`]).

mod command;
mod copied;
mod mock;
mod proxy;
mod workflow;

use crate::common;

/// A key the agent sends: it must reach the provider and never the record.
const SECRET: &str = "sk-live-0123456789abcdef";
