//! Cost from token usage and a price table. A call whose usage was lost has
//! an unknown cost, carried as a bound: low 0, high as if the reserved prompt
//! and the whole output budget had been billed. Nothing unknown is dropped.

use serde::{Deserialize, Serialize};

use crate::model::{Attempt, ModelPrice, PriceTable, ProviderCall, Run, Usage};

/// A cost in USD: exact when `low == high`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Cost {
    /// The least the cost can be, in USD.
    pub low: f64,
    /// The most the cost can be, in USD.
    pub high: f64,
}

impl Cost {
    /// No cost, exactly.
    pub const ZERO: Cost = Cost {
        low: 0.0,
        high: 0.0,
    };

    /// A cost known exactly: `usd` at both ends.
    pub fn exact(usd: f64) -> Cost {
        Cost {
            low: usd,
            high: usd,
        }
    }

    /// Whether the cost is known exactly (`low == high`).
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

/// The cost of one provider call: exact from its usage, or for a call whose
/// usage was lost, from nothing up to its [`worst_case`].
pub fn call_cost(call: &ProviderCall, prices: &PriceTable) -> Result<Cost, MissingPrice> {
    Ok(match &call.usage {
        Some(u) => Cost::exact(usage_cost(u, price(call, prices)?)),
        None => Cost {
            low: 0.0,
            high: worst_case(call, prices)?,
        },
    })
}

/// The most a call could cost before it was sent: its reserved prompt
/// tokens at the input price and its whole output budget at the output
/// price (what a per-call stop compares with its limit).
pub fn worst_case(call: &ProviderCall, prices: &PriceTable) -> Result<f64, MissingPrice> {
    let price = price(call, prices)?;
    Ok((call.prompt_tokens_reserved as f64 * price.input_per_mtok
        + call.max_tokens as f64 * price.output_per_mtok)
        / 1e6)
}

/// The price of the model `call` requested.
fn price<'a>(call: &ProviderCall, prices: &'a PriceTable) -> Result<&'a ModelPrice, MissingPrice> {
    prices
        .models
        .get(&call.model_requested)
        .ok_or_else(|| MissingPrice(call.model_requested.clone()))
}

/// The cost of a call's reported usage: input tokens at the input price,
/// except those read from or written to the prompt cache where the table
/// prices them (the rest of the input at the input price); output tokens
/// at the output price.
pub fn usage_cost(u: &Usage, price: &ModelPrice) -> f64 {
    let cached = |tokens: Option<u64>, per_mtok: Option<f64>| match (tokens, per_mtok) {
        (Some(n), Some(p)) => (n, n as f64 * p),
        _ => (0, 0.0),
    };
    let (read, read_usd) = cached(u.cache_hit_tokens, price.cache_read_per_mtok);
    let (written, written_usd) = cached(u.cache_write_tokens, price.cache_write_per_mtok);
    let plain = u.prompt_tokens.saturating_sub(read).saturating_sub(written);
    (plain as f64 * price.input_per_mtok
        + read_usd
        + written_usd
        + u.completion_tokens as f64 * price.output_per_mtok)
        / 1e6
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

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, hit: Option<u64>, write: Option<u64>) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: 100,
            reasoning_tokens: None,
            cache_hit_tokens: hit,
            cache_miss_tokens: None,
            cache_write_tokens: write,
        }
    }

    fn price(read: Option<f64>, write: Option<f64>) -> ModelPrice {
        ModelPrice {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            cache_read_per_mtok: read,
            cache_write_per_mtok: write,
        }
    }

    #[test]
    fn cache_reads_and_writes_cost_their_own_price_where_the_table_gives_one() {
        // 1,000 input tokens: 600 read from the cache, 300 written to it, 100 plain.
        let u = usage(1000, Some(600), Some(300));
        let priced = usage_cost(&u, &price(Some(0.3), Some(3.75)));
        let expected = (100.0 * 3.0 + 600.0 * 0.3 + 300.0 * 3.75 + 100.0 * 15.0) / 1e6;
        assert!((priced - expected).abs() < 1e-15, "{priced} vs {expected}");
        // Without cache prices every input token costs the input price.
        let plain = usage_cost(&u, &price(None, None));
        assert_eq!(plain, (1000.0 * 3.0 + 100.0 * 15.0) / 1e6);
        // A count the provider did not report is priced as plain input.
        let unreported = usage_cost(&usage(1000, None, Some(300)), &price(Some(0.3), None));
        assert_eq!(unreported, plain);
    }

    #[test]
    fn cached_counts_beyond_the_input_never_make_a_cost_negative() {
        let u = usage(100, Some(600), Some(300));
        assert!(usage_cost(&u, &price(Some(0.3), Some(3.75))) > 0.0);
    }
}
