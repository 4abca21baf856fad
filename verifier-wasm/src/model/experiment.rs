//! An experiment: its pre-registration, grid, tiers, policies, prices and hypotheses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FormatVersion, Provenance};

/// `experiments/<id>/experiment.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"experiment"`.
    pub kind: ExperimentKind,
    /// Short identifier, e.g. `E01`; also the directory name.
    pub id: String,
    /// The experiment's title, as its pages show it.
    pub title: String,
    /// Whether the experiment's runs were recorded or simulated; each run must
    /// say the same.
    pub provenance: Provenance,
    /// The question the experiment answers, in one or two sentences.
    pub question: String,
    /// The registration of the rules before the runs. Without it the
    /// experiment is shown as not pre-registered and its hypotheses as
    /// exploratory: decided by the same rules, fixed by no one in advance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preregistration: Option<Preregistration>,
    /// The cells the experiment runs.
    pub grid: Grid,
    /// The model tiers, cheapest first.
    pub tiers: Vec<Tier>,
    /// The policies: each a way of choosing tiers, named by its id in the grid
    /// and the runs.
    pub policies: Vec<Policy>,
    /// The prices every provider call is costed at, by the model it requested.
    pub prices: PriceTable,
    /// The bounds every run works within.
    pub limits: Limits,
    /// The hypotheses, each decided by its rule.
    pub hypotheses: Vec<Hypothesis>,
}

/// The `kind` of an experiment record: `"experiment"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExperimentKind {
    /// An experiment.
    Experiment,
}

/// What was registered before the first provider call, and the digest
/// committed for it (see `receipts_verifier::prereg`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Preregistration {
    /// The log file, relative to the experiment directory (Markdown).
    pub log: String,
    /// The line that ends the pre-registered part. Everything before the first
    /// line equal to it is hashed; deviations are appended after it.
    pub end_marker: String,
    /// The registration digest: the SHA-256 of the statement listing what
    /// `covers` lists. (Without `covers`, the SHA-256 of the log's
    /// pre-registered part alone: a registration that fails its receipt.)
    pub sha256: String,
    /// When the pre-registration was committed (UTC), as the record says.
    pub registered_at: String,
    /// The digest of each registered part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<Covers>,
}

/// The digest of each part a registration covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Covers {
    /// SHA-256 of the log's pre-registered part.
    pub log: String,
    /// SHA-256 of the rules: `experiment.json` without `preregistration`, in canonical JSON.
    pub rules: String,
    /// SHA-256 of each task of the grid, in canonical JSON, by task id.
    pub tasks: BTreeMap<String, String>,
}

/// The cells the experiment runs: every task × profile × seed × policy,
/// each `runs_per_cell` times. Verification holds the runs on record to it:
/// every cell holds exactly its runs in the primary analysis, and every
/// other run is a rerun declared in `deviations.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// The tasks, by id, each a file of `experiments/tasks/`.
    pub tasks: Vec<String>,
    /// The agent profiles, by name.
    pub profiles: Vec<String>,
    /// The seeds: every task, profile and policy is run under each.
    pub seeds: Vec<u64>,
    /// The policies, by id, each one of the experiment's `policies`.
    pub policies: Vec<String>,
    /// How many runs each cell holds in the primary analysis (usually 1).
    pub runs_per_cell: u32,
    /// The order the cells are run in: the four axes from outermost to
    /// innermost (default: tasks, profiles, seeds, policies). A study stopped
    /// early may leave out only the cells after the last one that ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<GridAxis>>,
}

/// An axis of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum GridAxis {
    /// The tasks (`tasks`).
    Tasks,
    /// The agent profiles (`profiles`).
    Profiles,
    /// The seeds (`seeds`).
    Seeds,
    /// The policies (`policies`).
    Policies,
}

/// The order of the axes when none is registered.
pub const GRID_ORDER: [GridAxis; 4] = [
    GridAxis::Tasks,
    GridAxis::Profiles,
    GridAxis::Seeds,
    GridAxis::Policies,
];

impl Grid {
    /// The number of cells in the grid.
    pub fn cells(&self) -> usize {
        self.tasks.len() * self.profiles.len() * self.seeds.len() * self.policies.len()
    }

    /// The registered run order, when it names each axis once.
    pub fn axes(&self) -> Option<[GridAxis; 4]> {
        let Some(order) = &self.order else {
            return Some(GRID_ORDER);
        };
        let axes: [GridAxis; 4] = order.as_slice().try_into().ok()?;
        let mut sorted = axes;
        sorted.sort();
        (sorted == GRID_ORDER).then_some(axes)
    }

    /// Every cell in the registered run order ([`Grid::axes`]; the grid
    /// order when none is registered or it is not a permutation).
    pub fn run_order(&self) -> Vec<Cell<'_>> {
        let axes = self.axes().unwrap_or(GRID_ORDER);
        let len = |axis: GridAxis| match axis {
            GridAxis::Tasks => self.tasks.len(),
            GridAxis::Profiles => self.profiles.len(),
            GridAxis::Seeds => self.seeds.len(),
            GridAxis::Policies => self.policies.len(),
        };
        let mut out = Vec::with_capacity(self.cells());
        let mut index = [0usize; 4];
        if axes.iter().any(|&a| len(a) == 0) {
            return out;
        }
        loop {
            let at = |axis: GridAxis| index[axes.iter().position(|&a| a == axis).unwrap_or(0)];
            out.push(Cell {
                task: &self.tasks[at(GridAxis::Tasks)],
                profile: &self.profiles[at(GridAxis::Profiles)],
                seed: self.seeds[at(GridAxis::Seeds)],
                policy: &self.policies[at(GridAxis::Policies)],
            });
            // Advance the innermost axis, carrying outwards.
            let mut level = 4;
            loop {
                if level == 0 {
                    return out;
                }
                level -= 1;
                index[level] += 1;
                if index[level] < len(axes[level]) {
                    break;
                }
                index[level] = 0;
            }
        }
    }

    /// Every cell, in grid order (task, then profile, seed and policy).
    pub fn each_cell(&self) -> Vec<Cell<'_>> {
        let mut out = Vec::with_capacity(self.cells());
        for task in &self.tasks {
            for profile in &self.profiles {
                for seed in &self.seeds {
                    for policy in &self.policies {
                        out.push(Cell {
                            task,
                            profile,
                            seed: *seed,
                            policy,
                        });
                    }
                }
            }
        }
        out
    }
}

/// One cell of a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell<'a> {
    /// The cell's task, by id.
    pub task: &'a str,
    /// The cell's agent profile.
    pub profile: &'a str,
    /// The cell's seed.
    pub seed: u64,
    /// The cell's policy, by id.
    pub policy: &'a str,
}

impl std::fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} · {} · seed {} · {}",
            self.task, self.profile, self.seed, self.policy
        )
    }
}

/// A model tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Tier {
    /// Short identifier used by policies and runs, e.g. `small`.
    pub id: String,
    /// The tier's name as pages show it, e.g. `Sim Small (30B)`.
    pub label: String,
    /// The provider's model id requested for this tier.
    pub model: String,
}

/// How a run chooses tiers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Short identifier used by the grid and runs, e.g. `ladder`.
    pub id: String,
    /// The policy's name as pages show it.
    pub label: String,
    /// How the policy picks its tiers.
    pub kind: PolicyKind,
    /// Tiers in the order they are tried.
    pub tiers: Vec<String>,
    /// Composed, not run: no run is recorded under the policy; its figures
    /// are composed cell by cell (task × profile × seed) from the runs of
    /// the grid's single-tier policies on its tiers, as if it had tried
    /// them in its order (`receipts_verifier::numbers::compose`). A ladder,
    /// a speculative ladder or tier memory may be composed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub composed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How a policy picks its tiers. The four kinds the verifier knows are
/// checked run by run; any other name is kept as written and its runs'
/// tier order is shown as could not be checked, never passed unseen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(from = "String", into = "String")]
#[cfg_attr(feature = "schema", schemars(with = "String"))]
pub enum PolicyKind {
    /// Always the one tier listed.
    Single,
    /// Cheapest first; escalate to the next tier when the checks fail.
    Ladder,
    /// The first two tiers called together; the next tier only if both fail.
    Speculative,
    /// A ladder that starts at the tier where the task last passed under
    /// this policy (at the first tier until it has passed).
    TierMemory,
    /// A kind this verifier does not know, as written.
    Other(String),
}

impl PolicyKind {
    /// The kind as written in the record.
    pub fn as_str(&self) -> &str {
        match self {
            PolicyKind::Single => "single",
            PolicyKind::Ladder => "ladder",
            PolicyKind::Speculative => "speculative",
            PolicyKind::TierMemory => "tier_memory",
            PolicyKind::Other(kind) => kind,
        }
    }
}

impl From<String> for PolicyKind {
    fn from(kind: String) -> PolicyKind {
        match kind.as_str() {
            "single" => PolicyKind::Single,
            "ladder" => PolicyKind::Ladder,
            "speculative" => PolicyKind::Speculative,
            "tier_memory" => PolicyKind::TierMemory,
            _ => PolicyKind::Other(kind),
        }
    }
}

impl From<PolicyKind> for String {
    fn from(kind: PolicyKind) -> String {
        kind.as_str().to_string()
    }
}

/// Prices per model, in USD per million tokens, under a named version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    /// The price list's version, e.g. the date it was published.
    pub version: String,
    /// Always `USD`.
    pub currency: String,
    /// Each model's prices, by the provider's model id.
    pub models: BTreeMap<String, ModelPrice>,
}

/// What one model's tokens cost, in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// USD per million prompt (input) tokens.
    pub input_per_mtok: f64,
    /// USD per million completion (output) tokens; reasoning tokens are output tokens.
    pub output_per_mtok: f64,
    /// USD per million input tokens read from the prompt cache
    /// (`cache_hit_tokens`); without it they cost `input_per_mtok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_per_mtok: Option<f64>,
    /// USD per million input tokens written to the prompt cache
    /// (`cache_write_tokens`); without it they cost `input_per_mtok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_per_mtok: Option<f64>,
}

/// The bounds every run of the experiment works within. Verification holds
/// each run to them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Turns per attempt, at most.
    pub max_turns: u32,
    /// A run's wall time, from its start to the end of its last attempt, at most.
    pub max_run_ms: u64,
    /// The output budget (`max_tokens`) of every provider call, at most.
    pub max_output_tokens: u64,
    /// A provider call's time, at most (the client's timeout), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_call_ms: Option<u64>,
    /// A run's cost in USD, at most (a spending cap), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The most one provider call may cost at worst, in USD, when there is
    /// such a stop: its reserved prompt tokens at the input price and its
    /// whole output budget at the output price, as the runner computes it
    /// before it sends the call. A strict stop: a call over it is not sent,
    /// and the reservation may not count fewer prompt tokens than the
    /// provider did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_call_usd: Option<f64>,
    /// An attempt's output (its artifact) in bytes, at most (the runner's
    /// output limit), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<u64>,
}

/// A pre-registered hypothesis with its machine-readable decision rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Hypothesis {
    /// `H1`, `H2`, …
    pub id: String,
    /// The hypothesis in words.
    pub statement: String,
    /// The rule that decides it.
    pub rule: Rule,
}

/// A decision rule: accepted when it holds, rejected when it does not, not
/// decided when a metric it needs cannot be computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Rule {
    /// Every rule holds.
    All(Vec<Rule>),
    /// At least one rule holds.
    Any(Vec<Rule>),
    /// `left op right + offset`. Where a metric is a bound (unknown cost), the
    /// end least favourable to the hypothesis is used.
    Compare {
        /// The metric on the left.
        left: MetricRef,
        /// How the left side must compare with the right.
        op: CompareOp,
        /// The metric or constant on the right.
        right: Operand,
        /// Added to the right side; 0 when absent.
        #[serde(default)]
        offset: f64,
    },
}

/// A metric of one policy, as the summary publishes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MetricRef {
    /// Which of the policy's published figures.
    pub metric: Metric,
    /// The policy, by id.
    pub policy: String,
    /// Another experiment of the study, by id, whose primary analysis holds
    /// the metric; this experiment's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
}

/// The right-hand side of a comparison: another metric or a constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Operand {
    /// A metric of a policy.
    Metric(MetricRef),
    /// A constant.
    Value(Constant),
}

/// A constant operand: `{"value": 30.0}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Constant {
    /// The number, in the unit of the metric it is compared with.
    pub value: f64,
}

/// A figure of a policy that a rule can compare, read from the primary analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Percentage of runs whose final attempt passed every check.
    PassRate,
    /// USD per run (a bound when any cost is unknown).
    CostPerTask,
    /// Seconds per run.
    MeanTime,
    /// Median seconds per run.
    MedianTime,
    /// Provider calls that stopped with `finish_reason` `length`.
    Truncations,
    /// Provider calls with status `timeout`.
    Timeouts,
}

/// How a rule's left side must compare with its right side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CompareOp {
    /// `<`: less than.
    #[serde(rename = "<")]
    Lt,
    /// `<=`: less than or equal to.
    #[serde(rename = "<=")]
    Le,
    /// `>`: greater than.
    #[serde(rename = ">")]
    Gt,
    /// `>=`: greater than or equal to.
    #[serde(rename = ">=")]
    Ge,
}
