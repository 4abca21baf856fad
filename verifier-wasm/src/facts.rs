//! What the published numbers read of a run: its cell, its attempts' tiers,
//! durations and costs, and counts over its provider calls. A few hundred
//! bytes instead of the whole record, so a caller can verify a run, keep its
//! facts and let the run go: the numbers of 100,000 runs need no more.
//!
//! Every figure here is a sum the numbers would otherwise take over the
//! run's calls, in the same order, so the results are the same to the bit.

use crate::cost::{attempt_cost, Cost, MissingPrice};
use crate::model::{CallStatus, FinishReason, PriceTable, Run};
use crate::time::{self, UnixMillis};

/// The facts of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    pub id: String,
    pub task: String,
    pub profile: String,
    pub seed: u64,
    pub policy: String,
    pub replaces: Option<String>,
    /// Whether any attempt made a provider call.
    pub reached_provider: bool,
    pub attempts: Vec<AttemptFacts>,
    /// The earliest provider call start, and as it was recorded.
    pub first_call: Option<(UnixMillis, String)>,
}

/// The facts of one attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptFacts {
    pub tier: String,
    pub duration_ms: u64,
    /// The attempt's cost bound, or the model no price was found for.
    pub cost: Result<Cost, MissingPrice>,
    /// Calls that finished for `length`.
    pub truncations: u64,
    /// Calls that timed out.
    pub timeouts: u64,
    /// Completion tokens and latency, over the calls whose usage is known.
    pub completion_tokens: u64,
    pub latency_ms: u64,
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
                    cost: attempt_cost(a, prices),
                    truncations: count(a.calls.iter(), |c| {
                        c.finish_reason == Some(FinishReason::Length)
                    }),
                    timeouts: count(a.calls.iter(), |c| c.status == CallStatus::Timeout),
                    completion_tokens: known.clone().map(|(u, _)| u.completion_tokens).sum(),
                    latency_ms: known.map(|(_, c)| c.latency_ms).sum(),
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
            id: run.id.clone(),
            task: run.task.clone(),
            profile: run.profile.clone(),
            seed: run.seed,
            policy: run.policy.clone(),
            replaces: run.replaces.clone(),
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

    /// The run's time in seconds: the sum of its attempts' durations.
    pub fn seconds(&self) -> f64 {
        self.attempts.iter().map(|a| a.duration_ms).sum::<u64>() as f64 / 1000.0
    }

    pub fn truncations(&self) -> u64 {
        self.attempts.iter().map(|a| a.truncations).sum()
    }

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
