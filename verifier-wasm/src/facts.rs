//! What the published numbers read of a run: its cell, its attempts' tiers,
//! durations and costs, and counts over its provider calls. A few hundred
//! bytes instead of the whole record, so a caller can verify a run, keep its
//! facts and let the run go: the numbers of 100,000 runs need no more.
//!
//! Every figure here is a sum the numbers would otherwise take over the
//! run's calls, in the same order, so the results are the same to the bit.

use crate::cost::{attempt_cost, Cost, MissingPrice};
use crate::model::{CallStatus, Cell, PriceTable, ProviderCall, Run};
use crate::time::{self, UnixMillis};

/// Where a run sits in its experiment: its id, its cell of the grid and the
/// run it replaces. The facts and the build's run heads both carry one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPlace {
    /// The run's id, unique within its experiment.
    pub id: String,
    /// The task the run attempted.
    pub task: String,
    /// The profile it ran under.
    pub profile: String,
    /// Its seed.
    pub seed: u64,
    /// Its policy (how tiers were tried).
    pub policy: String,
    /// The run this one replaces, when it was a rerun.
    pub replaces: Option<String>,
}

impl RunPlace {
    /// The place of `run`, as its record says.
    pub fn of(run: &Run) -> RunPlace {
        RunPlace {
            id: run.id.clone(),
            task: run.task.clone(),
            profile: run.profile.clone(),
            seed: run.seed,
            policy: run.policy.clone(),
            replaces: run.replaces.clone(),
        }
    }

    /// The run's cell of the grid.
    pub fn cell(&self) -> Cell<'_> {
        Cell {
            task: &self.task,
            profile: &self.profile,
            seed: self.seed,
            policy: &self.policy,
        }
    }
}

/// The facts of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    /// The run's id and cell.
    pub place: RunPlace,
    /// Whether any attempt made a provider call.
    pub reached_provider: bool,
    /// The facts of each attempt, in the record's order.
    pub attempts: Vec<AttemptFacts>,
    /// The earliest provider call start, and as it was recorded.
    pub first_call: Option<(UnixMillis, String)>,
    /// The experiment the record says it belongs to.
    pub experiment: String,
    /// When the run started, as recorded.
    pub started_at: Option<UnixMillis>,
    /// The keys of its provider calls, for finding a call recorded twice
    /// or a run that copies another.
    pub prints: crate::verify::calls::Prints,
    /// The run's wall time: from its start to the end of its last attempt.
    pub wall_ms: u64,
    /// The attempts of the run's last round: those that ran at the same
    /// time as the last one (one attempt, unless tiers were called together).
    pub last_round: Vec<usize>,
}

/// The attempts of `run`'s last round, by index: a round is a set of
/// attempts that ran at the same time; a new one starts with an attempt that
/// starts after every attempt before it ended.
pub fn last_round(run: &Run) -> Vec<usize> {
    let mut round = Vec::new();
    let mut end = i64::MIN;
    for (i, a) in run.attempts.iter().enumerate() {
        let start = time::parse(&a.started_at).map_or(i64::MIN, |t| t.0);
        if start >= end {
            round.clear();
        }
        round.push(i);
        end = end.max(start.saturating_add(i64::try_from(a.duration_ms).unwrap_or(i64::MAX)));
    }
    round
}

/// A run's wall time in milliseconds: from its start to the end of its last
/// attempt; the sum of its attempts' durations when a timestamp does not parse.
pub fn wall_ms(run: &Run) -> u64 {
    try_wall_ms(run).unwrap_or_else(|_| run.attempts.iter().map(|a| a.duration_ms).sum())
}

/// A run's wall time in milliseconds, or which timestamp does not parse.
pub fn try_wall_ms(run: &Run) -> Result<u64, String> {
    let at = |text: &str, field: &dyn Fn() -> String| {
        time::parse(text)
            .map(|t| t.0)
            .map_err(|e| format!("{}: {e}", field()))
    };
    let start = at(&run.started_at, &|| "started_at".to_string())?;
    let mut end = start;
    for (i, a) in run.attempts.iter().enumerate() {
        let s = at(&a.started_at, &|| format!("attempts[{i}].started_at"))?;
        end = end.max(s.saturating_add(i64::try_from(a.duration_ms).unwrap_or(i64::MAX)));
    }
    Ok(end.saturating_sub(start).max(0) as u64)
}

/// The facts of one attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptFacts {
    /// The tier the attempt was made on, by id.
    pub tier: String,
    /// How long the attempt took, in milliseconds, as recorded.
    pub duration_ms: u64,
    /// When it ended (its start plus its duration), `i64::MAX` when its start does not parse.
    pub ended_ms: i64,
    /// The attempt's cost bound, or the model no price was found for.
    pub cost: Result<Cost, MissingPrice>,
    /// Calls that stopped on their output budget ([`ProviderCall::truncated`]).
    pub truncations: u64,
    /// Calls that timed out.
    pub timeouts: u64,
    /// Calls that failed with an error status (refused, or the provider failed).
    pub errors: u64,
    /// Calls that completed with an empty reply ([`crate::model::Attempt::empty_responses`]).
    pub empty_responses: u64,
    /// Calls that repeat an earlier call (`retry_of`).
    pub retries: u64,
    /// Completion tokens, over the calls whose usage is known.
    pub completion_tokens: u64,
    /// Call latency in milliseconds, over the calls whose usage is known.
    pub latency_ms: u64,
    /// Each call's completion tokens per second of its latency, over the
    /// calls whose usage is known and whose latency is not zero, in order.
    pub call_tps: Vec<f64>,
}

impl RunFacts {
    /// The facts of `run`, its costs priced with `prices`.
    pub fn of(run: &Run, prices: &PriceTable) -> RunFacts {
        let attempts = run
            .attempts
            .iter()
            .map(|a| {
                let known = a.calls.iter().filter_map(|c| c.usage.map(|u| (u, c)));
                AttemptFacts {
                    tier: a.tier.clone(),
                    duration_ms: a.duration_ms,
                    ended_ms: time::parse(&a.started_at).map_or(i64::MAX, |t| {
                        t.0.saturating_add(i64::try_from(a.duration_ms).unwrap_or(i64::MAX))
                    }),
                    cost: attempt_cost(a, prices),
                    truncations: count(a.calls.iter(), ProviderCall::truncated),
                    timeouts: count(a.calls.iter(), |c| c.status == CallStatus::Timeout),
                    errors: count(a.calls.iter(), |c| c.status == CallStatus::Error),
                    empty_responses: a.empty_responses().count() as u64,
                    retries: count(a.calls.iter(), |c| c.retry_of.is_some()),
                    completion_tokens: known.clone().map(|(u, _)| u.completion_tokens).sum(),
                    latency_ms: known.clone().map(|(_, c)| c.latency_ms).sum(),
                    call_tps: a
                        .calls
                        .iter()
                        .filter_map(ProviderCall::tokens_per_second)
                        .collect(),
                }
            })
            .collect();
        let first_call = run
            .calls()
            .filter_map(|c| {
                time::parse(&c.started_at)
                    .ok()
                    .map(|t| (t, c.started_at.clone()))
            })
            .min();
        RunFacts {
            experiment: run.experiment.clone(),
            started_at: time::parse(&run.started_at).ok(),
            prints: crate::verify::calls::prints(run),
            wall_ms: wall_ms(run),
            last_round: last_round(run),
            place: RunPlace::of(run),
            reached_provider: run.reached_provider(),
            attempts,
            first_call,
        }
    }

    /// The run's cost: every attempt, failed ones included.
    pub fn cost(&self) -> Result<Cost, MissingPrice> {
        self.attempts
            .iter()
            .try_fold(Cost::ZERO, |acc, a| Ok(acc + a.cost.clone()?))
    }

    /// The run's time in seconds: its wall time, so attempts made at the
    /// same time are not counted twice.
    pub fn seconds(&self) -> f64 {
        self.wall_ms as f64 / 1000.0
    }

    /// Whether the run passed, given whether each attempt passed its checks:
    /// an attempt of its last round passed.
    pub fn passed(&self, attempts_passed: &[bool]) -> bool {
        self.last_round
            .iter()
            .any(|&i| attempts_passed.get(i).copied().unwrap_or(false))
    }

    /// The tier the run passed on: of the attempts of its last round that
    /// passed, the one that ended first (its answer came first), whatever
    /// order the record lists them in; on a tie, the one listed first.
    pub fn passed_tier(&self, attempts_passed: &[bool]) -> Option<&str> {
        self.last_round
            .iter()
            .filter(|&&i| attempts_passed.get(i).copied().unwrap_or(false))
            .filter_map(|&i| self.attempts.get(i).map(|a| (a.ended_ms, i, a)))
            .min_by_key(|&(ended, i, _)| (ended, i))
            .map(|(_, _, a)| a.tier.as_str())
    }

    /// Calls that stopped on their output budget, over every attempt.
    pub fn truncations(&self) -> u64 {
        self.attempts.iter().map(|a| a.truncations).sum()
    }

    /// Calls that timed out, over every attempt.
    pub fn timeouts(&self) -> u64 {
        self.attempts.iter().map(|a| a.timeouts).sum()
    }

    /// The tiers tried, in order.
    pub fn tiers_tried(&self) -> Vec<&str> {
        self.attempts.iter().map(|a| a.tier.as_str()).collect()
    }
}

fn count<'a, T: 'a>(items: impl Iterator<Item = &'a T>, keep: impl Fn(&T) -> bool) -> u64 {
    items.filter(|x| keep(x)).count() as u64
}
