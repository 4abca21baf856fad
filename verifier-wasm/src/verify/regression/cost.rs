//! The judging cost of an edit: every judge call at the suite's prices, by
//! tier, and the all-largest counterfactual.

use std::collections::BTreeMap;

use crate::cost::{call_cost, Cost};
use crate::model::{RegressionSuite, SkillEdit};

/// What an edit's judging cost, recomputed.
#[derive(Debug, Clone, PartialEq)]
pub struct EditCost {
    /// The cost of each tier's judge calls, by tier (every tier of the suite),
    /// or why a call could not be priced.
    pub by_tier: BTreeMap<String, Result<Cost, String>>,
    /// The cost of every judge call, or why a call could not be priced.
    pub total: Result<Cost, String>,
    /// The all-largest counterfactual: each replay with a judge call judged
    /// once by the largest judge; or why it could not be priced.
    pub all_largest: Result<Cost, String>,
    /// Request ids of the calls whose usage was lost.
    pub usage_lost: Vec<String>,
}

/// The cost of every judge call by tier, their total, and the all-largest
/// counterfactual: each replay with a judge call on record, judged once by
/// the largest judge (its own call where the cascade reached it, else the
/// first judge call's tokens at the largest judge's prices).
pub fn edit_cost(suite: &RegressionSuite, edit: &SkillEdit) -> EditCost {
    let add = |acc: Result<Cost, String>, c: Result<Cost, String>| Ok(acc? + c?);
    let mut by_tier: BTreeMap<String, Result<Cost, String>> = suite
        .judges
        .iter()
        .map(|j| (j.tier.clone(), Ok(Cost::ZERO)))
        .collect();
    let mut total = Ok(Cost::ZERO);
    let mut all_largest = Ok(Cost::ZERO);
    let mut usage_lost = Vec::new();
    let largest = suite.judges.last();
    for replay in &edit.replays {
        for j in &replay.judges {
            let cost = call_cost(&j.call, &suite.prices).map_err(|e| e.to_string());
            if j.call.usage.is_none() {
                usage_lost.push(j.call.request_id.clone());
            }
            let tier = by_tier.entry(j.tier.clone()).or_insert(Ok(Cost::ZERO));
            *tier = add(tier.clone(), cost.clone());
            total = add(total, cost);
        }
        let Some(first) = replay.judges.first() else {
            continue;
        };
        let counterfactual = match largest {
            None => Err("the suite names no judge".to_string()),
            Some(l) => {
                let call = match replay.judges.iter().find(|j| j.tier == l.tier) {
                    Some(own) => own.call.clone(),
                    None => {
                        let mut call = first.call.clone();
                        call.model_requested = l.model.clone();
                        call
                    }
                };
                call_cost(&call, &suite.prices).map_err(|e| e.to_string())
            }
        };
        all_largest = add(all_largest, counterfactual);
    }
    EditCost {
        by_tier,
        total,
        all_largest,
        usage_lost,
    }
}
