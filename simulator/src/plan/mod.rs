//! What the simulator runs: the sample experiments, their tiers, policies,
//! hypotheses and the incidents a real study meets (a truncated reasoning
//! attempt, a timed-out call whose usage is lost, runs stopped by the token
//! ledger and their reruns). The pieces every experiment is built from are
//! in `parts.rs`; each experiment's plan is in a module of its own.

mod e01;
mod e02;
mod latency;
mod parts;

use std::collections::BTreeMap;

use receipts_verifier::model::{Grid, Hypothesis, Limits, ModelPrice, Policy, PriceTable, Tier};

use super::calibrate::Target;
use super::fixtures::TASKS;
use parts::{grid, policies};

/// A simulated model tier: its price and how the scripted provider behaves.
#[derive(Debug, Clone)]
pub struct TierSim {
    pub id: String,
    pub label: String,
    pub model: String,
    pub price: ModelPrice,
    /// Served completion tokens per second at the start of the day.
    pub tokens_per_second: f64,
    /// Whether throughput falls over the afternoon (it did for the smallest tier).
    pub throughput_decays: bool,
    pub reasoning_range: (u64, u64),
    /// Chance that the artifact-writing call runs out of output budget, with
    /// a budget of at most 4,096 tokens and with a larger one.
    pub truncation: (f64, f64),
    pub reports_cache: bool,
    /// Chance the model acts on the planted injection (and is denied).
    pub follows_injection: f64,
    /// Chance per task that an artifact comes out correct.
    pub quality: [f64; 3],
}

impl TierSim {
    /// Chance that the artifact-writing call runs out of output budget.
    pub fn truncation_rate(&self, budget: u64) -> f64 {
        if budget <= 4096 {
            self.truncation.0
        } else {
            self.truncation.1
        }
    }

    pub fn quality(&self, task: &str) -> f64 {
        self.quality[TASKS.iter().position(|t| *t == task).unwrap_or(0)]
    }

    pub fn tokens_per_second(&self, plan: &ExperimentPlan, at: i64) -> f64 {
        if !self.throughput_decays {
            return self.tokens_per_second;
        }
        let hours = (at - plan.start_ms) as f64 / 3_600_000.0;
        (self.tokens_per_second * (1.0 - 0.35 * hours)).max(self.tokens_per_second * 0.3)
    }
}

/// A stop the study was resumed after: it stops after `after` runs (counted
/// from the first), for `reason`, and is taken up again `gap_ms` later, for
/// `resume`, with the next cell of the registered order.
#[derive(Debug, Clone)]
pub struct Pause {
    pub after: usize,
    pub reason: String,
    pub gap_ms: i64,
    pub resume: String,
}

/// Scripted events for one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incident {
    /// The second call of the first attempt times out at the registered
    /// call timeout (45 s without one); its usage is lost.
    CallTimeout,
    /// The ledger stops the run after its first call reached the provider.
    LedgerStopAfterCall,
    /// The ledger stops the run before any call is sent.
    LedgerStopBeforeCall,
    /// The run reaches its time limit while its second tier (a single-tier
    /// policy's one tier) writes the artifact: that call is cut, its usage
    /// is lost, and the run ends.
    RunLimitCut,
    /// The provider refuses the first call's key (HTTP 401): the attempt
    /// ends in an error and the run halts, whatever its policy.
    AuthRefused,
    /// The first call fails with HTTP 503 and no response; it is retried.
    ServerErrorRetried,
    /// The first call completes with reasoning only and no content (finish
    /// reason `stop`); it is retried.
    EmptyReplyRetried,
    /// The artifact-writing call runs out of output budget while the model
    /// reasons, whatever the budget.
    OutOfOutput,
}

impl Incident {
    /// Whether a call of the run loses its usage: cut at the run limit or
    /// past the call timeout. Such a run keeps its time in the calibration,
    /// and its reserved prompt sets how wide its cost bound is.
    pub fn loses_usage(self) -> bool {
        matches!(self, Incident::RunLimitCut | Incident::CallTimeout)
    }
}

/// One cell of the grid (or a rerun of one).
#[derive(Debug, Clone)]
pub struct Cell {
    pub experiment: String,
    pub task: String,
    pub profile: String,
    pub seed: u64,
    pub policy: String,
    pub incident: Option<Incident>,
    pub replaces: Option<String>,
    /// The scripted agent gets it right on every tier (used for reruns).
    pub force_pass: bool,
    /// The run's outcome, where the plan fixes it: a pass on the policy's
    /// last tier at the latest, or a failure on every tier.
    pub forced: Option<bool>,
    /// Where a tier-memory run starts (the tier its task last passed on).
    pub start_tier: usize,
}

impl Cell {
    pub fn run_id(&self) -> String {
        let base = format!(
            "{}-{}-{}-s{}-{}",
            self.experiment, self.task, self.profile, self.seed, self.policy
        );
        if self.replaces.is_some() {
            format!("{base}-rerun")
        } else {
            base
        }
    }
}

/// A whole simulated experiment.
#[derive(Debug, Clone)]
pub struct ExperimentPlan {
    pub id: String,
    pub title: String,
    pub question: String,
    pub max_output_tokens: u64,
    pub registered_at: String,
    pub start_ms: i64,
    pub tiers: Vec<TierSim>,
    pub policies: Vec<Policy>,
    pub grid: Grid,
    pub hypotheses: Vec<Hypothesis>,
    pub incidents: BTreeMap<String, Incident>,
    /// Narrative lines of the pre-registered log (after the generated header).
    pub log_rules: Vec<String>,
    /// Drafts the agent writes and checks before its final artifact: none in
    /// the sample; scale runs revise, as longer agent runs do.
    pub drafts: usize,
    /// The registered limits of a run: its turns (per attempt) and wall time.
    pub max_turns: u32,
    pub max_run_ms: u64,
    /// The registered call timeout, where the runner had a fixed one.
    pub max_call_ms: Option<u64>,
    /// The runner's strict per-call stop, in the experiment's currency.
    pub max_call_usd: f64,
    /// Outcomes the plan fixes, by run id.
    pub forced: BTreeMap<String, bool>,
    /// The study stops after this many runs, for this reason.
    pub stop: Option<(usize, String)>,
    /// Stops the study was taken up again after, in order.
    pub pauses: Vec<Pause>,
    /// The version of the price table the tiers' prices come from.
    pub prices_version: String,
    /// Figures the source study published, which the simulator is scaled to
    /// reproduce (none: the simulator runs as scripted).
    pub calibration: Vec<Target>,
}

impl ExperimentPlan {
    pub fn tier(&self, id: &str) -> &TierSim {
        self.tiers
            .iter()
            .find(|t| t.id == id)
            .unwrap_or(&self.tiers[0])
    }

    pub fn policy(&self, id: &str) -> &Policy {
        self.policies
            .iter()
            .find(|p| p.id == id)
            .unwrap_or(&self.policies[0])
    }

    pub fn tier_records(&self) -> Vec<Tier> {
        self.tiers
            .iter()
            .map(|t| Tier {
                id: t.id.clone(),
                label: t.label.clone(),
                model: t.model.clone(),
            })
            .collect()
    }

    pub fn prices(&self) -> PriceTable {
        PriceTable {
            version: self.prices_version.clone(),
            currency: "USD".to_string(),
            models: self
                .tiers
                .iter()
                .map(|t| (t.model.clone(), t.price))
                .collect(),
        }
    }

    pub fn limits(&self) -> Limits {
        Limits {
            max_turns: self.max_turns,
            max_run_ms: self.max_run_ms,
            max_output_tokens: self.max_output_tokens,
            max_call_ms: self.max_call_ms,
            max_cost_usd: None,
            max_call_usd: Some(self.max_call_usd),
            max_output_bytes: Some(MAX_OUTPUT_BYTES),
        }
    }

    /// Every cell in run order: seed-major, then task, profile, policy.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for &seed in &self.grid.seeds {
            for task in &self.grid.tasks {
                for profile in &self.grid.profiles {
                    for policy in &self.grid.policies {
                        let mut cell = Cell {
                            experiment: self.id.clone(),
                            task: task.clone(),
                            profile: profile.clone(),
                            seed,
                            policy: policy.clone(),
                            incident: None,
                            replaces: None,
                            force_pass: false,
                            forced: None,
                            start_tier: 0,
                        };
                        cell.incident = self.incidents.get(&cell.run_id()).copied();
                        cell.forced = self.forced.get(&cell.run_id()).copied();
                        cells.push(cell);
                    }
                }
            }
        }
        cells
    }
}

/// The sample experiments.
pub fn sample() -> Vec<ExperimentPlan> {
    let e01 = e01::e01();
    let e02 = e02::e02(&e01);
    let (e03, e04) = (latency::e03(&e01), latency::e04(&e01));
    vec![e01, e02, e03, e04]
}

/// One large experiment of `runs` runs for scale tests, with id `id`.
pub fn scale(runs: usize, id: &str) -> ExperimentPlan {
    let seeds = runs.div_ceil(18).max(1) as u64;
    let mut plan = sample().remove(1);
    plan.id = id.to_string();
    plan.title = format!("Scale sample, {runs} runs").to_string();
    plan.incidents = BTreeMap::new();
    plan.forced = BTreeMap::new();
    plan.calibration = Vec::new();
    // Every policy run, the ladder too: a scale study's runs are what it measures.
    plan.policies = policies();
    plan.grid = grid((1..=seeds).collect());
    plan.drafts = SCALE_DRAFTS;
    // Drafting runs take longer: the registered limit is one they keep, as
    // the sample's runs keep theirs, so a scale study passes its own receipts.
    plan.max_turns = SCALE_MAX_TURNS;
    plan.max_run_ms = SCALE_MAX_RUN_MS;
    // Runs the grid does not divide (100,000 of 5,556 seeds' 100,008 cells):
    // the study stops after them, and its log says so, as a study stopped
    // early does; the cells left out are the last in the registered order.
    let cells = plan.grid.tasks.len()
        * plan.grid.profiles.len()
        * plan.grid.seeds.len()
        * plan.grid.policies.len();
    if runs < cells {
        plan.stop = Some((
            runs,
            format!(
                "The scale sample records the {runs} runs it was asked for; the last {} cells of the grid's {cells}, in the registered order, are not run.",
                cells - runs
            ),
        ));
    }
    // A study of one experiment: no rule reads another.
    plan.hypotheses.retain(|h| {
        receipts_verifier::verify::rule_policies(&h.rule)
            .iter()
            .all(|(other, _)| other.is_none())
    });
    plan
}

/// Drafts per attempt in scale runs: with them a run averages about 12 turns.
pub const SCALE_DRAFTS: usize = 3;

/// The runner's strict per-call stop: no call is sent that could cost more
/// than this at worst (its prompt and its whole output budget at the
/// tier's prices), as the source study's benchmark stopped every call.
pub const MAX_CALL_USD: f64 = 0.02;

/// The runner's output limit: 32 KiB an attempt, as the source study's
/// bounded runner allowed.
pub const MAX_OUTPUT_BYTES: u64 = 32 * 1024;

/// The limits scale runs register: 24 turns an attempt, fifteen minutes a
/// run (of 100,000 runs, the longest ladder runs take about eleven).
pub const SCALE_MAX_TURNS: u32 = 24;
pub const SCALE_MAX_RUN_MS: u64 = 900_000;
