//! Cost from token usage and a price table. A call whose usage was lost has
//! an unknown cost, carried as a bound: low 0, high as if the reserved prompt
//! and the whole output budget had been billed. Nothing unknown is dropped.

use serde::{Deserialize, Serialize};

use crate::model::{Attempt, PriceTable, ProviderCall, Run};

/// A cost in USD: exact when `low == high`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Cost {
    pub low: f64,
    pub high: f64,
}

impl Cost {
    pub const ZERO: Cost = Cost {
        low: 0.0,
        high: 0.0,
    };

    pub fn exact(usd: f64) -> Cost {
        Cost {
            low: usd,
            high: usd,
        }
    }

    pub fn is_exact(&self) -> bool {
        self.low == self.high
    }

    /// The mean of several costs, bound by bound.
    pub fn mean(costs: &[Cost]) -> Option<Cost> {
        if costs.is_empty() {
            return None;
        }
        let n = costs.len() as f64;
        let total = costs.iter().fold(Cost::ZERO, |acc, c| acc + *c);
        Some(Cost {
            low: total.low / n,
            high: total.high / n,
        })
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;

    fn add(self, other: Cost) -> Cost {
        Cost {
            low: self.low + other.low,
            high: self.high + other.high,
        }
    }
}

/// Why a cost could not be computed at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the price table has no price for model `{0}`")]
pub struct MissingPrice(pub String);

/// The cost of one provider call.
pub fn call_cost(call: &ProviderCall, prices: &PriceTable) -> Result<Cost, MissingPrice> {
    let price = prices
        .models
        .get(&call.model_requested)
        .ok_or_else(|| MissingPrice(call.model_requested.clone()))?;
    let usd = |prompt: u64, completion: u64| {
        (prompt as f64 * price.input_per_mtok + completion as f64 * price.output_per_mtok) / 1e6
    };
    Ok(match &call.usage {
        Some(u) => Cost::exact(usd(u.prompt_tokens, u.completion_tokens)),
        None => Cost {
            low: 0.0,
            high: usd(call.prompt_tokens_reserved, call.max_tokens),
        },
    })
}

/// The cost of one attempt: the sum of its calls.
pub fn attempt_cost(attempt: &Attempt, prices: &PriceTable) -> Result<Cost, MissingPrice> {
    attempt
        .calls
        .iter()
        .try_fold(Cost::ZERO, |acc, call| Ok(acc + call_cost(call, prices)?))
}

/// The cost of one run: every attempt, failed ones included.
pub fn run_cost(run: &Run, prices: &PriceTable) -> Result<Cost, MissingPrice> {
    run.attempts
        .iter()
        .try_fold(Cost::ZERO, |acc, a| Ok(acc + attempt_cost(a, prices)?))
}
