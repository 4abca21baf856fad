//! What a study published: the summary of an experiment and its corrections.
//! The verifier recomputes every number here from the runs.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `experiments/<id>/summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub format_version: FormatVersion,
    /// Always `"summary"`.
    pub kind: SummaryKind,
    pub experiment: String,
    pub published_at: String,
    /// The headline result in one sentence: a claim, whose measured numbers
    /// are bound to figures (see `docs/FORMAT.md`, "Claims").
    pub headline: String,
    /// Key findings, each a claim like the headline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// The pre-registered primary analysis: every run that reached the
    /// provider counts, failures included; a rerun counts only in place of a
    /// run that never reached it.
    pub primary: Analysis,
    /// Labelled secondary analyses (e.g. counting reruns in place of the runs they replace).
    #[serde(default)]
    pub secondary: Vec<SecondaryAnalysis>,
    pub hypotheses: Vec<HypothesisOutcome>,
    /// Published numbers that were later corrected, with the reason.
    #[serde(default)]
    pub corrections: Vec<Correction>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SummaryKind {
    Summary,
}

/// Published numbers per policy and per tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    pub policies: Vec<PolicyNumbers>,
    pub tiers: Vec<TierNumbers>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SecondaryAnalysis {
    pub id: String,
    pub label: String,
    pub description: String,
    pub numbers: Analysis,
}

/// The numbers published for one policy. Percentages are 0–100; times in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyNumbers {
    pub policy: String,
    pub runs: u64,
    pub pass_rate_pct: f64,
    /// Sample standard deviation of the per-seed pass rates, in percentage points.
    pub pass_rate_sd_pct: f64,
    pub cost_per_task_usd: CostBound,
    pub mean_time_s: f64,
    pub median_time_s: f64,
    pub truncations: u64,
    pub timeouts: u64,
    /// Provider calls that failed with an error status (an authentication
    /// refusal, a server error). Absent in a summary written before this
    /// figure existed, and then read as 0, so it is held to the runs too.
    #[serde(default)]
    pub errors: u64,
    /// Provider calls that completed with an empty reply: stopped on their
    /// own, within budget, with no action to run.
    #[serde(default)]
    pub empty_responses: u64,
    /// Provider calls that repeat an earlier call of their attempt.
    #[serde(default)]
    pub retries: u64,
    /// Completion tokens per second of call time, over calls with known usage.
    pub throughput_tps: f64,
}

/// The numbers published for one tier, over every attempt made on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TierNumbers {
    pub tier: String,
    pub attempts: u64,
    pub pass_rate_pct: f64,
    /// The total cost of every attempt on this tier.
    pub total_cost_usd: CostBound,
    pub truncations: u64,
    pub timeouts: u64,
    /// Provider calls that failed with an error status (an authentication
    /// refusal, a server error). Absent in a summary written before this
    /// figure existed, and then read as 0, so it is held to the runs too.
    #[serde(default)]
    pub errors: u64,
    /// Provider calls that completed with an empty reply: stopped on their
    /// own, within budget, with no action to run.
    #[serde(default)]
    pub empty_responses: u64,
    /// Provider calls that repeat an earlier call of their attempt.
    #[serde(default)]
    pub retries: u64,
    pub throughput_tps: f64,
}

/// A cost in USD that is exact when `low == high` and a bound when some usage was lost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CostBound {
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HypothesisOutcome {
    pub id: String,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Accepted,
    Rejected,
    NotDecided,
}

/// A published number that was later corrected. The site shows the original
/// struck through beside the recomputed value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Correction {
    /// Which number: `primary.policies[<policy>].<field>`, e.g.
    /// `primary.policies[ladder].cost_per_task_usd`.
    pub field: String,
    /// The value first published.
    pub original: serde_json::Value,
    /// The value after the correction (what the summary now says).
    pub corrected: serde_json::Value,
    pub reason: String,
    pub corrected_at: String,
    /// The SHA-256 of the summary that published `original` (an object in
    /// `experiments/objects/`): the summary as first published, or as the
    /// correction before this one left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_in: Option<String>,
}

/// The columns of `results.csv`, in the order they are written.
pub const RESULT_COLUMNS: [&str; 13] = [
    "run",
    "task",
    "profile",
    "seed",
    "policy",
    "tiers",
    "passed",
    "cost_usd_low",
    "cost_usd_high",
    "time_s",
    "truncations",
    "timeouts",
    "replaces",
];

/// One row of `experiments/<id>/results.csv`: the published per-run table,
/// failures and reruns included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResultRow {
    pub run: String,
    pub task: String,
    pub profile: String,
    pub seed: u64,
    pub policy: String,
    /// Tiers tried, in order, joined by `>`.
    pub tiers: String,
    pub passed: bool,
    pub cost_usd_low: f64,
    pub cost_usd_high: f64,
    pub time_s: f64,
    pub truncations: u64,
    pub timeouts: u64,
    /// The run this one replaces, or empty.
    pub replaces: String,
}
