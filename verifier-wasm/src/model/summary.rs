//! What a study published: the summary of an experiment and its corrections.
//! The verifier recomputes every number here from the runs.

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `experiments/<id>/summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"summary"`.
    pub kind: SummaryKind,
    /// The experiment summarised, by id: the one whose directory holds the file.
    pub experiment: String,
    /// When the summary was first published (UTC); every correction comes after it.
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
    /// The published decision on each hypothesis of the experiment.
    pub hypotheses: Vec<HypothesisOutcome>,
    /// Published numbers that were later corrected, with the reason.
    #[serde(default)]
    pub corrections: Vec<Correction>,
}

/// The `kind` of a summary record: `"summary"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SummaryKind {
    /// A published summary of an experiment.
    Summary,
}

/// Published numbers per policy and per tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// One entry per policy with counted runs, in the experiment's order.
    pub policies: Vec<PolicyNumbers>,
    /// One entry per tier with attempts in the counted runs, in the experiment's order.
    pub tiers: Vec<TierNumbers>,
}

/// A labelled analysis published beside the primary one, over another choice
/// of the runs that count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SecondaryAnalysis {
    /// Which analysis, e.g. `reruns-replace`; only an id the verifier knows is
    /// recomputed.
    pub id: String,
    /// The analysis's name as pages show it.
    pub label: String,
    /// What the analysis counts, in words, as pages show it.
    pub description: String,
    /// Its numbers per policy and per tier.
    pub numbers: Analysis,
}

/// The numbers published for one policy. Percentages are 0–100; times in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyNumbers {
    /// The policy, by id.
    pub policy: String,
    /// How many of its runs the analysis counts; for a composed policy, how
    /// many cells it was composed in.
    pub runs: u64,
    /// A composed policy's cells that could not be composed, for a run of
    /// one of its tiers is not among the counted runs; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub incomplete_cells: u64,
    /// The share of those runs that passed, in percent.
    pub pass_rate_pct: f64,
    /// Sample standard deviation of the per-seed pass rates, in percentage points.
    pub pass_rate_sd_pct: f64,
    /// The mean of the runs' cost bounds, end by end, in USD.
    pub cost_per_task_usd: CostBound,
    /// The mean of the runs' wall times, in seconds.
    pub mean_time_s: f64,
    /// The median of the runs' wall times, in seconds.
    pub median_time_s: f64,
    /// Provider calls that stopped on their output budget.
    pub truncations: u64,
    /// Provider calls that timed out.
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
    /// The median call's completion tokens per second of its own time, over
    /// calls with known usage: the throughput a provider served, which one
    /// slow call does not move as it moves `throughput_tps`. Absent when no
    /// call's usage is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_tps: Option<f64>,
}

/// The numbers published for one tier, over every attempt made on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TierNumbers {
    /// The tier, by id.
    pub tier: String,
    /// How many attempts the counted runs made on this tier.
    pub attempts: u64,
    /// The share of those attempts that passed every check, in percent.
    pub pass_rate_pct: f64,
    /// The total cost of every attempt on this tier.
    pub total_cost_usd: CostBound,
    /// Provider calls that stopped on their output budget.
    pub truncations: u64,
    /// Provider calls that timed out.
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
    /// The median call's completion tokens per second of its own time, over
    /// calls with known usage: the throughput a provider served, which one
    /// slow call does not move as it moves `throughput_tps`. Absent when no
    /// call's usage is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_tps: Option<f64>,
}

/// A cost in USD that is exact when `low == high` and a bound when some usage was lost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CostBound {
    /// The least it can have cost: unknown usage counted as free.
    pub low: f64,
    /// The most it can have cost: unknown usage counted as its whole reserved
    /// prompt and output budget.
    pub high: f64,
}

/// The published decision on one hypothesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HypothesisOutcome {
    /// The hypothesis of the experiment, by id (`H1`, …).
    pub id: String,
    /// How its rule was decided.
    pub outcome: Outcome,
}

/// How a hypothesis's decision rule came out over the primary analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The rule holds, unknown costs counted against it.
    Accepted,
    /// The rule does not hold.
    Rejected,
    /// The rule cannot be decided: a policy it reads has no counted runs, or
    /// cells that did not all run.
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
    /// Why the number was corrected.
    pub reason: String,
    /// When the correction was made (UTC): after the summary's `published_at`
    /// and after any earlier correction of the same number.
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
    /// The run, by id.
    pub run: String,
    /// The task of the run's cell.
    pub task: String,
    /// The profile of the run's cell.
    pub profile: String,
    /// The seed of the run's cell.
    pub seed: u64,
    /// The policy of the run's cell.
    pub policy: String,
    /// Tiers tried, in order, joined by `>`.
    pub tiers: String,
    /// Whether the run passed: an attempt of its last round passed every check.
    pub passed: bool,
    /// The low end of the run's cost bound, in USD, every attempt included.
    pub cost_usd_low: f64,
    /// The high end of the run's cost bound, in USD, every attempt included.
    pub cost_usd_high: f64,
    /// The run's wall time, in seconds.
    pub time_s: f64,
    /// The run's provider calls that stopped on their output budget.
    pub truncations: u64,
    /// The run's provider calls that timed out.
    pub timeouts: u64,
    /// The run this one replaces, or empty.
    pub replaces: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
