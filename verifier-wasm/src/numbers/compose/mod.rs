//! Composed policies: a ladder, a speculative ladder or tier memory whose
//! figures are computed from the runs of single-tier policies instead of
//! being run. A grid that runs every tier alone in every cell (task ×
//! profile × seed) holds what each tier did there, so what a policy over
//! those tiers would have done in that cell follows from those runs:
//!
//! - a ladder tries its tiers in order until one passes, and pays for and
//!   waits on each tier it tried;
//! - a speculative ladder starts its first two tiers together, pays for
//!   both and waits for the slower, then goes on as a ladder when both
//!   failed;
//! - tier memory is a ladder that starts at the tier where the task last
//!   passed under it, in the grid's run order (at the first tier until the
//!   task has passed).
//!
//! A cell is composed only when every tier of the policy has its run
//! among the counted runs, whether or not the policy would have reached
//! it: counting a cell because its first tier passed, when a later tier's
//! run is missing, would select cells on their outcome.

use std::collections::BTreeMap;

use crate::cost::{Cost, MissingPrice};
use crate::model::{Experiment, Policy, PolicyKind};

use super::JudgedRun;

/// One cell of a composed policy: the tier runs it used, in the order it
/// used them, and what it did with them.
#[derive(Debug, Clone)]
pub struct ComposedCell<'a> {
    /// The cell's task.
    pub task: &'a str,
    /// The cell's agent profile.
    pub profile: &'a str,
    /// The cell's seed.
    pub seed: u64,
    /// The runs the policy used, in order (a speculative start's two first).
    pub used: Vec<JudgedRun<'a>>,
    /// The runs of the policy's tiers it did not need.
    pub unused: Vec<JudgedRun<'a>>,
    /// Whether the last run it used passed.
    pub passed: bool,
    /// The cost of every run it used.
    pub cost: Cost,
    /// Its time: the used runs' wall times, summed, but for a speculative
    /// start, which takes the slower of its two.
    pub seconds: f64,
}

/// A cell that could not be composed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteCell<'a> {
    /// The cell's task.
    pub task: &'a str,
    /// The cell's agent profile.
    pub profile: &'a str,
    /// The cell's seed.
    pub seed: u64,
    /// The first tier with no counted run in the cell.
    pub missing: &'a str,
}

/// A composed policy over the counted runs: its cells in the grid's run
/// order.
#[derive(Debug, Clone, Default)]
pub struct Composition<'a> {
    /// The cells it was composed in.
    pub cells: Vec<ComposedCell<'a>>,
    /// The cells it could not be composed in.
    pub incomplete: Vec<IncompleteCell<'a>>,
}

/// The grid policy whose runs stand for `tier`: the first single-tier
/// policy of the grid on it.
pub fn tier_policy<'a>(e: &'a Experiment, tier: &str) -> Option<&'a Policy> {
    e.grid.policies.iter().find_map(|id| {
        e.policies.iter().find(|p| {
            p.id == *id
                && !p.composed
                && p.kind == PolicyKind::Single
                && p.tiers.len() == 1
                && p.tiers[0] == tier
        })
    })
}

/// Composes `policy` over `runs` (already selected, as the analysis counts
/// them); `None` when the policy is not composed or not of a kind that can
/// be. A cell's `k`-th run on each tier (by run id) makes its `k`-th
/// composition, for grids with several runs per cell.
pub fn compose<'a>(
    e: &'a Experiment,
    policy: &'a Policy,
    runs: &[JudgedRun<'a>],
) -> Result<Option<Composition<'a>>, MissingPrice> {
    if !policy.composed
        || !matches!(
            policy.kind,
            PolicyKind::Ladder | PolicyKind::Speculative | PolicyKind::TierMemory
        )
    {
        return Ok(None);
    }
    let speculative = policy.kind == PolicyKind::Speculative;
    // Each tier's runs by (task, profile, seed), in id order.
    type Key<'k> = (&'k str, &'k str, u64);
    let mut by_tier: Vec<BTreeMap<Key<'a>, Vec<JudgedRun<'a>>>> = Vec::new();
    for tier in &policy.tiers {
        let mut cells: BTreeMap<Key<'a>, Vec<JudgedRun<'a>>> = BTreeMap::new();
        if let Some(p) = tier_policy(e, tier) {
            for j in runs.iter().filter(|j| j.run.place.policy == p.id) {
                let place = &j.run.place;
                cells
                    .entry((place.task.as_str(), place.profile.as_str(), place.seed))
                    .or_default()
                    .push(*j);
            }
        }
        for v in cells.values_mut() {
            v.sort_by(|a, b| a.run.place.id.cmp(&b.run.place.id));
        }
        by_tier.push(cells);
    }
    let mut out = Composition::default();
    // Where each task last passed, as an index into the policy's tiers.
    let mut memory: BTreeMap<&str, usize> = BTreeMap::new();
    for (task, profile, seed) in cells_in_run_order(e) {
        for k in 0..e.grid.runs_per_cell.max(1) as usize {
            let tier_runs: Vec<Option<JudgedRun<'a>>> = by_tier
                .iter()
                .map(|cells| {
                    cells
                        .get(&(task, profile, seed))
                        .and_then(|v| v.get(k))
                        .copied()
                })
                .collect();
            if let Some(i) = tier_runs.iter().position(Option::is_none) {
                out.incomplete.push(IncompleteCell {
                    task,
                    profile,
                    seed,
                    missing: &policy.tiers[i],
                });
                continue;
            }
            let tier_runs: Vec<JudgedRun<'a>> = tier_runs.into_iter().flatten().collect();
            let start = match policy.kind {
                PolicyKind::TierMemory => memory.get(task).copied().unwrap_or(0),
                _ => 0,
            };
            let mut cell = ComposedCell {
                task,
                profile,
                seed,
                used: Vec::new(),
                unused: Vec::new(),
                passed: false,
                cost: Cost::ZERO,
                seconds: 0.0,
            };
            let mut next = start;
            if speculative {
                let pair = &tier_runs[..2];
                for j in pair {
                    cell.cost = cell.cost + j.run.cost()?;
                    cell.used.push(*j);
                }
                cell.seconds = speculative_seconds(pair);
                cell.passed = pair.iter().any(JudgedRun::passed);
                next = 2;
            }
            while !cell.passed && next < tier_runs.len() {
                let j = tier_runs[next];
                cell.cost = cell.cost + j.run.cost()?;
                cell.seconds += j.run.seconds();
                cell.passed = j.passed();
                cell.used.push(j);
                next += 1;
            }
            if cell.passed && policy.kind == PolicyKind::TierMemory {
                memory.insert(task, next - 1);
            }
            // The tiers taken are those from where the cell began to where
            // it stopped; the rest it did not need.
            let began = if speculative { 0 } else { start };
            cell.unused = tier_runs[..began]
                .iter()
                .chain(&tier_runs[next..])
                .copied()
                .collect();
            out.cells.push(cell);
        }
    }
    Ok(Some(out))
}

/// How long a speculative ladder's pair of tiers takes: its answer is the
/// first of the two to pass, so it waits for the quicker passing run (the
/// other is still paid for), or for the slower of the two when both fail.
fn speculative_seconds(pair: &[JudgedRun<'_>]) -> f64 {
    let passing = pair
        .iter()
        .filter(|j| j.passed())
        .map(|j| j.run.seconds())
        .reduce(f64::min);
    passing.unwrap_or_else(|| pair.iter().map(|j| j.run.seconds()).fold(0.0, f64::max))
}

/// The grid's (task, profile, seed) cells in its registered run order,
/// each once: the cells of its first policy.
fn cells_in_run_order(e: &Experiment) -> Vec<(&str, &str, u64)> {
    let Some(first) = e.grid.policies.first() else {
        return Vec::new();
    };
    e.grid
        .run_order()
        .into_iter()
        .filter(|c| c.policy == first)
        .map(|c| (c.task, c.profile, c.seed))
        .collect()
}

#[cfg(test)]
mod tests;
