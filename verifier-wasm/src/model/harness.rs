//! Harness run reports: one agent run under a harness that records every
//! provider call, tool call, egress attempt and snapshot, enforces a token
//! cap and an egress allowlist, and publishes a report of figures for the
//! run. The verifier recomputes every figure from the events.
//!
//! Under the records root (`experiments/`, or a site's `data/`):
//! `harness/<suite>/harness.json` (the suite: its rules) and
//! `harness/<suite>/runs/<run>.json` (one run each).

use serde::{Deserialize, Serialize};

/// The directory under the records root that holds harness suites.
pub const HARNESS_DIR: &str = "harness";

/// The path of suite `suite`'s file under the records root.
pub fn harness_suite_path(suite: &str) -> String {
    format!("{HARNESS_DIR}/{suite}/harness.json")
}

/// The path of run `run` of suite `suite` under the records root.
pub fn harness_run_path(suite: &str, run: &str) -> String {
    crate::layout::run_path(&format!("{HARNESS_DIR}/{suite}"), run)
}

use super::{Decision, FormatVersion, PriceTable, Provenance, ProviderCall};

/// The rules every run of a suite was held to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HarnessSuite {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"harness"`.
    pub kind: HarnessSuiteKind,
    /// The suite's id, also its directory's name.
    pub id: String,
    /// The suite's title, as its pages show it.
    pub title: String,
    /// Whether the suite's runs were recorded or simulated.
    pub provenance: Provenance,
    /// Prices of the models the runs call, for their cost.
    pub prices: PriceTable,
    /// The hosts a run may reach; an attempt to reach any other is blocked.
    pub egress_allowlist: Vec<String>,
    /// The tokens (prompt and completion, as the provider reported them) a
    /// run may use: once a call brings the total to the cap or over it, the
    /// run must stop before its next provider call.
    pub token_cap: u64,
    /// How the reports' latency percentiles are computed.
    pub percentile_method: PercentileMethod,
    /// The rules the harness vets tool arguments by, before a tool runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arg_rules: Vec<ArgRule>,
}

/// A rule the harness holds one argument of one tool's calls to. A call
/// that breaks it is refused: the tool does not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArgRule {
    /// The rule's id, which each vetting it decides names.
    pub id: String,
    /// The tool whose calls it vets.
    pub tool: String,
    /// The argument it reads: a key of the call's `args` object.
    pub arg: String,
    /// What the argument must be.
    pub check: ArgCheck,
}

/// What an argument must be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArgCheck {
    /// A string path that starts with one of `prefixes` and has no `..`
    /// segment, no backslash and no NUL.
    PathUnder {
        /// The path prefixes allowed.
        prefixes: Vec<String>,
    },
    /// One of `values`, as JSON.
    OneOf {
        /// The values allowed.
        values: Vec<serde_json::Value>,
    },
    /// A string of at most `max` characters.
    MaxChars {
        /// The most characters allowed.
        max: u64,
    },
}

impl ArgRule {
    /// Vets a call's `args`: `Ok` with what was found, or `Err` with why the
    /// call is refused. A missing argument is refused.
    pub fn vet(&self, args: &serde_json::Value) -> Result<String, String> {
        let Some(value) = args.get(&self.arg) else {
            return Err(format!("no `{}` argument", self.arg));
        };
        let text = || {
            value
                .as_str()
                .ok_or_else(|| format!("`{}` is not a string", self.arg))
        };
        match &self.check {
            ArgCheck::PathUnder { prefixes } => {
                let path = text()?;
                let escapes = path.contains('\\')
                    || path.contains('\0')
                    || path.split('/').any(|segment| segment == "..");
                if escapes {
                    return Err(format!("`{path}` steps out of its directory"));
                }
                match prefixes.iter().find(|p| path.starts_with(p.as_str())) {
                    Some(p) => Ok(format!("`{path}` is under `{p}`")),
                    None => Err(format!("`{path}` is not under {}", prefixes.join(", "))),
                }
            }
            ArgCheck::OneOf { values } => {
                if values.contains(value) {
                    Ok(format!("{value} is allowed"))
                } else {
                    Err(format!("{value} is not one of the allowed values"))
                }
            }
            ArgCheck::MaxChars { max } => {
                let n = text()?.chars().count() as u64;
                if n <= *max {
                    Ok(format!("{n} characters"))
                } else {
                    Err(format!("{n} characters, over {max}"))
                }
            }
        }
    }
}

/// The `kind` of a harness suite record: `"harness"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HarnessSuiteKind {
    /// A harness suite.
    Harness,
}

/// How a percentile of a list of latencies is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PercentileMethod {
    /// The smallest value with at least p% of the values at or below it:
    /// the value at rank ⌈p/100 × n⌉ of the n values sorted ascending.
    NearestRank,
}

/// One agent run under the harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HarnessRun {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"harness_run"`.
    pub kind: HarnessRunKind,
    /// The run's id, also its file's name.
    pub id: String,
    /// The suite it ran under.
    pub suite: String,
    /// Whether the run was recorded or simulated.
    pub provenance: Provenance,
    /// The agent that ran, as the harness names it.
    pub agent: String,
    /// UTC, RFC 3339 with milliseconds.
    pub started_at: String,
    /// Everything the harness saw, in the order it happened.
    pub events: Vec<HarnessEvent>,
    /// The figures the harness published for the run.
    pub report: RunFigures,
}

/// The `kind` of a harness run record: `"harness_run"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HarnessRunKind {
    /// One run under a harness.
    HarnessRun,
}

/// One thing the harness recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum HarnessEvent {
    /// A model call, with the provider's receipt.
    ProviderCall(ProviderCall),
    /// A tool the agent called.
    ToolCall(ToolCall),
    /// An attempt to reach a host, and the harness's decision.
    Egress(Egress),
    /// A snapshot of the run's workspace.
    Snapshot(Snapshot),
    /// The harness stopped the run.
    Abort(Abort),
}

/// A tool call the agent made, as the harness recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments as the agent sent them (untrusted).
    pub args: serde_json::Value,
    /// Whether the tool call succeeded; a failed one counts in `tool_failures`.
    pub ok: bool,
    /// Why the call failed (untrusted); `null` when it did not.
    #[serde(default)]
    pub error: Option<String>,
    /// The suite's argument rules for this tool, each as the harness
    /// decided it before the tool ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vetting: Vec<Vetting>,
}

/// One argument rule, decided for one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Vetting {
    /// The rule's id.
    pub rule: String,
    /// `allowed`, or `denied`: the call was refused and the tool did not run.
    pub decision: Decision,
}

/// An attempt by the run to reach a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Egress {
    /// The host the run tried to reach (untrusted).
    pub host: String,
    /// `allowed`, or `denied`: the harness blocked it.
    pub decision: Decision,
}

/// A snapshot of the run's workspace, kept by digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// What the snapshot is of, in the harness's words.
    pub label: String,
    /// SHA-256 of the snapshot's bytes, lowercase hex.
    pub sha256: String,
}

/// The harness stopped the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Abort {
    /// Why the harness stopped it.
    pub reason: AbortReason,
}

/// Why a harness stopped a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AbortReason {
    /// The token cap was reached.
    Budget,
    /// Anything else (an error, an operator).
    Other,
}

/// The figures a harness published for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunFigures {
    /// The run's cost in USD: its provider calls at the suite's prices.
    pub total_cost_usd: f64,
    /// The 50th percentile of the provider calls' `latency_ms`, by the
    /// suite's percentile method.
    pub latency_p50_ms: u64,
    /// The 95th percentile of the provider calls' `latency_ms`, by the
    /// suite's percentile method.
    pub latency_p95_ms: u64,
    /// Tool calls that failed.
    pub tool_failures: u64,
    /// Egress attempts the harness blocked.
    pub egress_blocked: u64,
    /// Tool calls refused by an argument rule. Absent in a report written
    /// before the rules existed, and then read as 0.
    #[serde(default)]
    pub args_refused: u64,
    /// Prompt and completion tokens over every call.
    pub tokens_used: u64,
    /// Snapshots taken.
    pub snapshots: u64,
    /// Whether the harness stopped the run on its token cap (an `abort` with
    /// reason `budget`).
    pub aborted_on_budget: bool,
}
