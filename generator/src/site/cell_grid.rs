//! An experiment's grid as a table: one row per cell of task, profile and
//! seed, one column per policy, each holding that cell's runs (reruns
//! included) with their recomputed outcomes, each a link to its run.

use std::collections::BTreeMap;

use serde::Serialize;

use super::RunRow;
use crate::load::LoadedExperiment;

/// Rows of the grid shown on an experiment's page; the runs index holds
/// every run of a larger grid.
pub const GRID_ROWS_ON_PAGE: usize = 100;

#[derive(Debug, Clone, Serialize)]
pub struct CellGrid {
    pub policies: Vec<String>,
    pub rows: Vec<CellRow>,
    /// Cells of task, profile and seed in the grid, shown or not.
    pub cells: usize,
    /// Runs whose task, profile, seed or policy the grid does not name.
    pub outside: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct CellRow {
    pub task: String,
    pub profile: String,
    pub seed: u64,
    /// Per policy, the cell's runs in the order they were recorded.
    pub runs: Vec<Vec<CellRun>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CellRun {
    pub id: String,
    pub href: String,
    pub passed: bool,
    /// The run it reruns, when it is a rerun.
    pub replaces: String,
    /// Whether its receipts agree: `pass`, `fail`, `could_not_check`.
    pub verified: String,
}

/// The grid of `loaded`, from the rows of all its runs.
pub fn cell_grid(loaded: &LoadedExperiment, rows: &[RunRow]) -> CellGrid {
    let grid = &loaded.experiment.grid;
    let mut by_cell: BTreeMap<(&str, &str, u64, &str), Vec<&RunRow>> = BTreeMap::new();
    for r in rows {
        by_cell
            .entry((&r.task, &r.profile, r.seed, &r.policy))
            .or_default()
            .push(r);
    }
    let mut shown = 0;
    let mut out = Vec::new();
    for task in &grid.tasks {
        for profile in &grid.profiles {
            for &seed in &grid.seeds {
                let runs: Vec<Vec<CellRun>> = grid
                    .policies
                    .iter()
                    .map(|policy| {
                        by_cell
                            .get(&(task.as_str(), profile.as_str(), seed, policy.as_str()))
                            .into_iter()
                            .flatten()
                            .map(|r| CellRun {
                                id: r.id.clone(),
                                href: r.href.clone(),
                                passed: r.passed,
                                replaces: r.replaces.clone(),
                                verified: r.verified.clone(),
                            })
                            .collect()
                    })
                    .collect();
                shown += runs.iter().map(Vec::len).sum::<usize>();
                if out.len() < GRID_ROWS_ON_PAGE {
                    out.push(CellRow {
                        task: task.clone(),
                        profile: profile.clone(),
                        seed,
                        runs,
                    });
                }
            }
        }
    }
    CellGrid {
        policies: grid.policies.clone(),
        cells: grid.tasks.len() * grid.profiles.len() * grid.seeds.len(),
        rows: out,
        outside: rows.len() - shown,
    }
}
