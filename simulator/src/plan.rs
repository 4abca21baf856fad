//! What the simulator runs: the sample experiments, their tiers, policies,
//! hypotheses and the incidents a real study meets (a truncated reasoning
//! attempt, a timed-out call whose usage is lost, runs stopped by the token
//! ledger and their reruns).

use std::collections::BTreeMap;

use receipts_verifier::model::{
    CompareOp, Constant, Grid, GridAxis, Hypothesis, Limits, Metric, MetricRef, ModelPrice,
    Operand, Policy, PolicyKind, PriceTable, Rule, Tier,
};
use receipts_verifier::time;

use super::calibrate::Target;
use super::fixtures::{self, TASKS};

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

/// Scripted events for one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incident {
    /// The second call of the first attempt times out; its usage is lost.
    CallTimeout,
    /// The ledger stops the run after its first call reached the provider.
    LedgerStopAfterCall,
    /// The ledger stops the run before any call is sent.
    LedgerStopBeforeCall,
    /// The run reaches its time limit while its second tier writes the
    /// artifact: that call is cut, its usage is lost, and the run ends.
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
    /// Outcomes the plan fixes, by run id.
    pub forced: BTreeMap<String, bool>,
    /// The study stops after this many runs, for this reason.
    pub stop: Option<(usize, String)>,
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
            max_call_ms: None,
            max_cost_usd: None,
            max_call_usd: Some(MAX_CALL_USD),
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

fn tiers() -> Vec<TierSim> {
    let tier = |id: &str, label: &str, model: &str, price: (f64, f64), tps: f64| TierSim {
        id: id.to_string(),
        label: label.to_string(),
        model: model.to_string(),
        price: ModelPrice {
            input_per_mtok: price.0,
            output_per_mtok: price.1,
            cache_read_per_mtok: None,
            cache_write_per_mtok: None,
        },
        tokens_per_second: tps,
        throughput_decays: false,
        reasoning_range: (0, 0),
        truncation: (0.0, 0.0),
        reports_cache: true,
        follows_injection: 0.0,
        quality: [0.0; 3],
    };
    vec![
        TierSim {
            throughput_decays: true,
            reasoning_range: (900, 2600),
            // At 2,048 output tokens it runs out while reasoning whenever
            // it does not pass; with more room, only where a plan says so.
            truncation: (1.0, 0.0),
            follows_injection: 0.35,
            quality: [0.45, 0.7, 0.5],
            ..tier(
                "small",
                "Sim Small (30B)",
                "simulated/sim-small-30b",
                (0.06, 0.24),
                260.0,
            )
        },
        TierSim {
            reasoning_range: (300, 900),
            truncation: (0.08, 0.0),
            follows_injection: 0.15,
            quality: [0.35, 0.85, 0.7],
            ..tier(
                "medium",
                "Sim Medium (120B)",
                "simulated/sim-medium-120b",
                (0.12, 0.48),
                125.0,
            )
        },
        TierSim {
            reasoning_range: (80, 600),
            truncation: (0.12, 0.0),
            reports_cache: false,
            follows_injection: 0.05,
            quality: [0.75, 0.95, 0.9],
            ..tier(
                "large",
                "Sim Large (550B)",
                "simulated/sim-large-550b",
                (0.45, 1.8),
                138.0,
            )
        },
    ]
}

fn policies() -> Vec<Policy> {
    let policy = |id: &str, label: &str, kind: PolicyKind, tiers: &[&str]| Policy {
        id: id.to_string(),
        label: label.to_string(),
        kind,
        tiers: tiers.iter().map(std::string::ToString::to_string).collect(),
        composed: false,
    };
    vec![
        policy(
            "ladder",
            "Auto-tier ladder (small → medium → large)",
            PolicyKind::Ladder,
            &["small", "medium", "large"],
        ),
        policy(
            "always-medium",
            "Always medium",
            PolicyKind::Single,
            &["medium"],
        ),
        policy(
            "always-large",
            "Always large",
            PolicyKind::Single,
            &["large"],
        ),
    ]
}

/// The policies of a grid run on each tier alone, the ladder composed
/// from those runs cell by cell, as the source study computed it.
fn tier_policies() -> Vec<Policy> {
    let always = |tier: &str| Policy {
        id: format!("always-{tier}"),
        label: format!("Always {tier}"),
        kind: PolicyKind::Single,
        tiers: vec![tier.to_string()],
        composed: false,
    };
    let mut out = vec![always("small"), always("medium"), always("large")];
    let mut ladder = policies().remove(0);
    ladder.composed = true;
    out.push(ladder);
    out
}

fn grid(seeds: Vec<u64>) -> Grid {
    Grid {
        tasks: TASKS.iter().map(std::string::ToString::to_string).collect(),
        profiles: vec!["careful".to_string(), "fast".to_string()],
        seeds,
        policies: policies().into_iter().map(|p| p.id).collect(),
        runs_per_cell: 1,
        // The order [`ExperimentPlan::cells`] runs them in.
        order: Some(vec![
            GridAxis::Seeds,
            GridAxis::Tasks,
            GridAxis::Profiles,
            GridAxis::Policies,
        ]),
    }
}

fn metric(metric: Metric, policy: &str) -> MetricRef {
    MetricRef {
        metric,
        policy: policy.to_string(),
        experiment: None,
    }
}

fn compare(left: MetricRef, op: CompareOp, right: Operand, offset: f64) -> Rule {
    Rule::Compare {
        left,
        op,
        right,
        offset,
    }
}

fn hypothesis(id: &str, statement: &str, rule: Rule) -> Hypothesis {
    Hypothesis {
        id: id.to_string(),
        statement: statement.to_string(),
        rule,
    }
}

/// The ladder passes at least as many tasks as always-large (within 5 points) and costs less.
fn ladder_rule() -> Rule {
    Rule::All(vec![
        compare(
            metric(Metric::PassRate, "ladder"),
            CompareOp::Ge,
            Operand::Metric(metric(Metric::PassRate, "always-large")),
            -5.0,
        ),
        compare(
            metric(Metric::CostPerTask, "ladder"),
            CompareOp::Lt,
            Operand::Metric(metric(Metric::CostPerTask, "always-large")),
            0.0,
        ),
    ])
}

fn millis(ts: &str) -> i64 {
    time::parse(ts).map(|t| t.0).unwrap_or_default()
}

/// The two sample experiments.
pub fn sample() -> Vec<ExperimentPlan> {
    let e01 = ExperimentPlan {
        id: "E01".to_string(),
        title: "Output budget 2,048 tokens".to_string(),
        question: "Does an auto-tier ladder pass as many tasks as always using the large tier, at lower cost, with a 2,048-token output budget?".to_string(),
        max_output_tokens: 2048,
        registered_at: "2026-10-27T08:30:00Z".to_string(),
        start_ms: millis("2026-10-27T09:00:00Z"),
        tiers: tiers(),
        policies: tier_policies(),
        grid: Grid {
            policies: ["always-small", "always-medium", "always-large"].map(String::from).to_vec(),
            ..grid(vec![1, 2, 3])
        },
        hypotheses: vec![
            hypothesis("H1", "The ladder passes at least as many tasks as always-large, within 5 points, and costs less per task.", ladder_rule()),
            hypothesis("H2", "Latency rises with the tier: always-small is faster per task than always-medium, and always-medium than always-large.", Rule::All(vec![
                compare(metric(Metric::MeanTime, "always-small"), CompareOp::Lt, Operand::Metric(metric(Metric::MeanTime, "always-medium")), 0.0),
                compare(metric(Metric::MeanTime, "always-medium"), CompareOp::Lt, Operand::Metric(metric(Metric::MeanTime, "always-large")), 0.0),
            ])),
            hypothesis("H3", "Pass rate rises with the tier: always-large passes at least as many tasks as always-medium, and always-medium as always-small.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-large"), CompareOp::Ge, Operand::Metric(metric(Metric::PassRate, "always-medium")), 0.0),
                compare(metric(Metric::PassRate, "always-medium"), CompareOp::Ge, Operand::Metric(metric(Metric::PassRate, "always-small")), 0.0),
            ])),
        ],
        incidents: BTreeMap::new(),
        log_rules: vec![
            "Decision rule: a hypothesis is accepted when its machine-readable rule in experiment.json holds on the primary analysis.".to_string(),
            "Primary analysis: every run that reached the provider counts, failures included; reruns count only for runs that never reached it.".to_string(),
            "Unknown costs are carried as bounds and count against the hypothesis.".to_string(),
            "Stopping rule: the grid runs once; no cell is rerun unless it never reached the provider.".to_string(),
        ],
        drafts: 0,
        max_turns: 12,
        max_run_ms: 180_000,
        forced: BTreeMap::new(),
        stop: None,
        prices_version: "simulated-2026-10".to_string(),
        calibration: vec![
            Target::mean("always-large", Some((0.0078, 0.0078)), 6.1),
            Target::mean("always-medium", None, 14.0),
            Target::mean("always-small", None, 17.9),
            // Composed: its cost from the small tier's, its time from
            // which tier runs its cells use.
            // 34% cheaper, as printed.
            Target::composed("ladder", &["always-small", "always-medium"], Some((0.0051, 0.0051)), Some(32.7))
                .changed_from("always-large", -34.0, 0),
        ],
    };
    // The large tier, too, ran out of output budget while it reasoned in
    // three runs, each a failure: one by chance, two as scripted here.
    let incidents = [
        (fixtures::RESEARCH, "fast", 1),
        (fixtures::PROGRAM, "careful", 2),
    ]
    .map(|(task, profile, seed)| {
        (
            format!("E01-{task}-{profile}-s{seed}-always-large"),
            Incident::OutOfOutput,
        )
    })
    .into_iter()
    .collect();
    let e01 = ExperimentPlan {
        forced: e01_outcomes(&e01.grid),
        incidents,
        ..e01
    };
    let e02 = e02(&e01);
    let (e03, e04) = (e03(&e01), e04(&e01));
    vec![e01, e02, e03, e04]
}

/// E01's outcomes, every tier run's fixed as the source published them:
/// always-large and always-medium pass 12 of 18 tasks each (66.7%), the
/// small tier 1 (5.6%), and the ladder composed from them 15 (83.3%). The
/// large tier skips a required citation in four release briefs and fails
/// two shipping rules; the medium tier's brief does not validate in two
/// cells, and it fails a cleanup and three rules. They fail together in
/// three cells only, so the ladder, escalating, passes more than either.
fn e01_outcomes(grid: &Grid) -> BTreeMap<String, bool> {
    let (research, transform, program) =
        (fixtures::RESEARCH, fixtures::TRANSFORM, fixtures::PROGRAM);
    let failing: [(&str, &str, &str, u64); 12] = [
        ("always-large", research, "careful", 1),
        ("always-large", research, "fast", 1),
        ("always-large", research, "careful", 3),
        ("always-large", research, "fast", 3),
        ("always-large", program, "careful", 2),
        ("always-large", program, "fast", 2),
        ("always-medium", research, "careful", 2),
        ("always-medium", research, "careful", 3),
        ("always-medium", transform, "careful", 1),
        ("always-medium", program, "careful", 2),
        ("always-medium", program, "fast", 2),
        ("always-medium", program, "careful", 3),
    ];
    // The small tier, out of output budget while it reasons, passes one cleanup.
    let small_passes = (transform, "fast", 2);
    outcomes("E01", grid, |policy, task, profile, seed| {
        if policy == "always-small" {
            small_passes == (task, profile, seed)
        } else {
            !failing.contains(&(policy, task, profile, seed))
        }
    })
}

/// Each run of the grid of `experiment`, by id, and whether it `passes`
/// (given its policy, task, profile and seed).
fn outcomes(
    experiment: &str,
    grid: &Grid,
    passes: impl Fn(&str, &str, &str, u64) -> bool,
) -> BTreeMap<String, bool> {
    let mut forced = BTreeMap::new();
    for task in &grid.tasks {
        for profile in &grid.profiles {
            for &seed in &grid.seeds {
                for policy in &grid.policies {
                    forced.insert(
                        format!("{experiment}-{task}-{profile}-s{seed}-{policy}"),
                        passes(policy, task, profile, seed),
                    );
                }
            }
        }
    }
    forced
}

/// E02, E01 again with 8,192 output tokens, as the source ran it: each
/// tier alone in every cell, the ladder composed from those runs. Every
/// tier run's outcome is fixed as the source published them: always-large
/// passes 14 of 18 tasks (77.8%), always-medium 12 (66.7%), and the small
/// tier, with room to reason, 11 (61.1%), out of output budget once. The
/// three fail together on three release briefs, so the ladder passes 15
/// (83.3%). The ledger stops the small tier's run of one of those briefs
/// after its first call, and a rerun passes it: counting the rerun, as the
/// first publication did, gives 16 (88.9%).
fn e02(e01: &ExperimentPlan) -> ExperimentPlan {
    let (research, transform, program) =
        (fixtures::RESEARCH, fixtures::TRANSFORM, fixtures::PROGRAM);
    let id = |task: &str, profile: &str, seed: u64, policy: &str| {
        format!("E02-{task}-{profile}-s{seed}-{policy}")
    };
    let failing: [(&str, &str, &str, u64); 17] = [
        ("always-large", research, "careful", 1),
        ("always-large", research, "fast", 1),
        ("always-large", research, "careful", 3),
        ("always-large", research, "fast", 3),
        ("always-medium", research, "careful", 1),
        ("always-medium", research, "fast", 1),
        ("always-medium", research, "careful", 3),
        ("always-medium", research, "fast", 2),
        ("always-medium", program, "careful", 2),
        ("always-medium", program, "fast", 3),
        ("always-small", research, "careful", 1),
        ("always-small", research, "fast", 1),
        ("always-small", research, "careful", 2),
        ("always-small", research, "careful", 3),
        ("always-small", transform, "careful", 1),
        ("always-small", program, "careful", 2),
        ("always-small", program, "fast", 2),
    ];
    let grid = Grid {
        policies: ["always-small", "always-medium", "always-large"]
            .map(String::from)
            .to_vec(),
        ..grid(vec![1, 2, 3])
    };
    let forced = outcomes("E02", &grid, |policy, task, profile, seed| {
        !failing.contains(&(policy, task, profile, seed))
    });
    let mut incidents = BTreeMap::new();
    // Stopped by the ledger after its first call: kept as a failure by the
    // registered rule, rerun (and passed) for the secondary analysis.
    incidents.insert(
        id(research, "careful", 3, "always-small"),
        Incident::LedgerStopAfterCall,
    );
    // Stopped before any call: its rerun counts in its place.
    incidents.insert(
        id(program, "careful", 1, "always-large"),
        Incident::LedgerStopBeforeCall,
    );
    // A read that timed out and lost its usage, in a cell where the
    // ladder pays for every tier: the cost of the medium tier, and of the
    // ladder, is a bound.
    incidents.insert(
        id(research, "fast", 1, "always-medium"),
        Incident::CallTimeout,
    );
    // The small tier's one run out of output budget while it reasoned.
    incidents.insert(
        id(program, "fast", 2, "always-small"),
        Incident::OutOfOutput,
    );
    // The provider failures the source met, each once, on always-medium
    // runs whose outcome they leave as it was, in cells the small tier
    // passes (so the ladder's figures do not take them): a refused key, a
    // server error retried, an empty reply retried.
    for (task, profile, seed, incident) in [
        (research, "fast", 2, Incident::AuthRefused),
        (transform, "careful", 2, Incident::ServerErrorRetried),
        (program, "careful", 1, Incident::EmptyReplyRetried),
    ] {
        incidents.insert(id(task, profile, seed, "always-medium"), incident);
    }
    let earlier = |m: Metric, policy: &str| {
        Operand::Metric(MetricRef {
            experiment: Some("E01".to_string()),
            ..metric(m, policy)
        })
    };
    ExperimentPlan {
        id: "E02".to_string(),
        title: "Output budget 8,192 tokens".to_string(),
        question: "With room to reason (8,192 output tokens), does the small tier recover, and does the ladder still beat always-large on cost?".to_string(),
        max_output_tokens: 8192,
        registered_at: "2026-10-28T11:50:00Z".to_string(),
        start_ms: millis("2026-10-28T12:30:00Z"),
        grid,
        hypotheses: vec![
            hypothesis("H4", "With 8,192 output tokens the small tier recovers: always-small passes more tasks than it did with 2,048 in E01, and runs out of output budget less often.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-small"), CompareOp::Gt, earlier(Metric::PassRate, "always-small"), 0.0),
                compare(metric(Metric::Truncations, "always-small"), CompareOp::Lt, earlier(Metric::Truncations, "always-small"), 0.0),
            ])),
            hypothesis("H5", "The ladder passes at least as many tasks as always-large, within 5 points, and costs less per task.", ladder_rule()),
            hypothesis("H6", "No regression for the larger tiers: always-medium and always-large each pass at least as many tasks as they did with 2,048 output tokens in E01.", Rule::All(vec![
                compare(metric(Metric::PassRate, "always-medium"), CompareOp::Ge, earlier(Metric::PassRate, "always-medium"), 0.0),
                compare(metric(Metric::PassRate, "always-large"), CompareOp::Ge, earlier(Metric::PassRate, "always-large"), 0.0),
            ])),
        ],
        incidents,
        forced,
        calibration: vec![
            Target::mean("always-large", Some((0.0061, 0.0061)), 7.2),
            // Composed: its cost from the small and medium tiers', its
            // time from which tier runs its cells use.
            Target::composed("ladder", &["always-small", "always-medium"], Some((0.0058, 0.0060)), Some(54.1)),
        ],
        ..e01.clone()
    }
}

/// The policies of the latency studies: the sample's three, a speculative
/// ladder and tier memory.
fn latency_policies() -> Vec<Policy> {
    let mut out = policies();
    let all = ["small", "medium", "large"].map(String::from).to_vec();
    out.push(Policy {
        id: "speculative".to_string(),
        label: "Speculative ladder (small and medium together, large if both fail)".to_string(),
        kind: PolicyKind::Speculative,
        tiers: all.clone(),
        composed: false,
    });
    out.push(Policy {
        id: "tier-memory".to_string(),
        label: "Tier memory (start where the task last passed)".to_string(),
        kind: PolicyKind::TierMemory,
        tiers: all,
        composed: false,
    });
    out
}

/// A policy answers within 30 s on average and costs less per task than always-large.
fn latency_rule(policy: &str) -> Rule {
    Rule::All(vec![
        compare(
            metric(Metric::MeanTime, policy),
            CompareOp::Lt,
            Operand::Value(Constant { value: 30.0 }),
            0.0,
        ),
        compare(
            metric(Metric::CostPerTask, policy),
            CompareOp::Lt,
            Operand::Metric(metric(Metric::CostPerTask, "always-large")),
            0.0,
        ),
    ])
}

/// A study stopped before its grid completed: a call timed out as the small
/// tier slowed, its usage was lost, and the ledger failed closed.
fn e03(base: &ExperimentPlan) -> ExperimentPlan {
    let mut plan = ExperimentPlan {
        id: "E03".to_string(),
        title: "Latency policies, stopped".to_string(),
        question: "Do a speculative ladder and tier memory answer within 30 s on average, for less per task than always-large?".to_string(),
        max_output_tokens: 8192,
        registered_at: "2026-10-28T14:30:00Z".to_string(),
        start_ms: millis("2026-10-28T14:44:00Z"),
        policies: latency_policies(),
        grid: Grid {
            policies: vec!["speculative".into(), "tier-memory".into(), "always-large".into()],
            ..grid(vec![1, 2, 3])
        },
        hypotheses: vec![
            hypothesis("H7", "The speculative ladder answers within 30 s on average and costs less per task than always-large.", latency_rule("speculative")),
            hypothesis("H8", "Tier memory answers within 30 s on average and costs less per task than always-large.", latency_rule("tier-memory")),
        ],
        incidents: BTreeMap::new(),
        forced: BTreeMap::new(),
        calibration: Vec::new(),
        stop: Some((
            6,
            "A call timed out as the small tier's throughput fell and returned no usage; the token ledger failed closed and the study was stopped. The cells not run are reported as not run.".to_string(),
        )),
        ..base.clone()
    };
    // The last run before the stop: its second read timed out.
    if let Some(cell) = plan.cells().get(5) {
        plan.incidents.insert(cell.run_id(), Incident::CallTimeout);
    }
    plan
}

/// The latency study on a fresh grid, every policy side by side. Each
/// cell's outcome is fixed so that the pass rates and their spread across
/// seeds are those the source study published: 94.4% ± 9.6 for the ladder,
/// the speculative ladder and tier memory, 88.9% ± 9.6 for always-large and
/// 55.6% ± 9.6 for always-medium. Its costs and times are calibrated to
/// the source's too (see `calibrate`).
fn e04(base: &ExperimentPlan) -> ExperimentPlan {
    let grid = Grid {
        policies: latency_policies().into_iter().map(|p| p.id).collect(),
        ..grid(vec![1, 2, 3])
    };
    let (research, transform, program) =
        (fixtures::RESEARCH, fixtures::TRANSFORM, fixtures::PROGRAM);
    let failing: [(&str, &str, &str, u64); 13] = [
        ("always-large", research, "careful", 2),
        ("always-large", program, "fast", 3),
        ("always-medium", research, "careful", 1),
        ("always-medium", research, "fast", 1),
        ("always-medium", research, "careful", 2),
        ("always-medium", research, "fast", 2),
        ("always-medium", program, "careful", 2),
        ("always-medium", research, "careful", 3),
        ("always-medium", research, "fast", 3),
        ("always-medium", transform, "fast", 3),
        ("ladder", program, "careful", 3),
        ("speculative", research, "fast", 1),
        ("tier-memory", transform, "careful", 2),
    ];
    let id = |policy: &str, task: &str, profile: &str, seed: u64| {
        format!("E04-{task}-{profile}-s{seed}-{policy}")
    };
    let forced = outcomes("E04", &grid, |policy, task, profile, seed| {
        !failing.contains(&(policy, task, profile, seed))
    });
    // Two runs reach the 180 s run limit while their medium attempt writes
    // the artifact; each cut call bounds its run's cost from 0 to the price
    // of its reservation, which is what makes the published costs ranges.
    let incidents = [
        id("ladder", program, "careful", 3),
        id("speculative", research, "fast", 1),
    ]
    .map(|run| (run, Incident::RunLimitCut))
    .into_iter()
    .collect();
    // This study's price table charges more for the medium tier: one call
    // cut there bounds the cost per task over 18 runs as widely as the
    // source's cut calls did over its 54.
    let mut tiers = tiers();
    tiers[1].price = ModelPrice {
        input_per_mtok: 0.25,
        output_per_mtok: 1.0,
        cache_read_per_mtok: None,
        cache_write_per_mtok: None,
    };
    let time = |mean, median| Some((mean, median));
    ExperimentPlan {
        id: "E04".to_string(),
        title: "Latency policies on a fresh grid".to_string(),
        question: "With each call bounded by the run's remaining time, do a speculative ladder and tier memory answer within 30 s on average, for less per task than always-large?".to_string(),
        max_output_tokens: 8192,
        registered_at: "2026-10-29T08:00:00Z".to_string(),
        start_ms: millis("2026-10-29T08:30:00Z"),
        policies: latency_policies(),
        grid,
        hypotheses: vec![
            hypothesis("H9", "The speculative ladder answers within 30 s on average and costs less per task than always-large.", latency_rule("speculative")),
            hypothesis("H10", "Tier memory answers within 30 s on average and costs less per task than always-large.", latency_rule("tier-memory")),
            hypothesis(
                "H11",
                "No provider call times out under any policy.",
                Rule::All(
                    latency_policies()
                        .iter()
                        .map(|p| compare(metric(Metric::Timeouts, &p.id), CompareOp::Le, Operand::Value(Constant { value: 0.0 }), 0.0))
                        .collect(),
                ),
            ),
        ],
        incidents,
        forced,
        tiers,
        prices_version: "simulated-2026-10-29".to_string(),
        calibration: vec![
            Target::new("ladder", (0.0073, 0.0078), time(71.0, 39.9)),
            Target::new("always-large", (0.0059, 0.0059), time(5.4, 4.5)),
            Target::new("always-medium", (0.0033, 0.0033), time(14.2, 10.0)),
            Target::new("speculative", (0.0084, 0.0089), time(38.6, 13.6)),
            Target::new("tier-memory", (0.0050, 0.0050), time(34.2, 21.2)),
        ],
        ..base.clone()
    }
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
