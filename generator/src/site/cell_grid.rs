//! An experiment's grid as a table: one row per cell of task, profile and
//! seed, one column per policy, each holding that cell's runs (reruns
//! included) with their recomputed outcomes, each a link to its run; and
//! one column per composed policy, holding what it did in the cell: the
//! tier runs it used, in order, each a link to its run.

use std::collections::BTreeMap;

use serde::Serialize;

use receipts_verifier::numbers::compose::compose;
use receipts_verifier::numbers::primary_runs;
use receipts_verifier::verify::ExperimentVerification;

use super::RunRow;
use crate::load::LoadedExperiment;

/// Rows of the grid shown on an experiment's page; the runs index holds
/// every run of a larger grid.
pub const GRID_ROWS_ON_PAGE: usize = 100;

#[derive(Debug, Clone, Serialize)]
pub struct CellGrid {
    pub policies: Vec<String>,
    /// The composed policies, by id, each a column after the policies run.
    pub composed: Vec<String>,
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
    /// Per composed policy, what it did in the cell (once per run of a
    /// cell), or why it could not be composed there.
    pub composed: Vec<Vec<ComposedView>>,
}

/// A composed policy in one cell.
#[derive(Debug, Clone, Serialize)]
pub struct ComposedView {
    pub passed: bool,
    /// The tier runs it used, in order.
    pub steps: Vec<ComposedStep>,
    /// The first tier without a counted run, where it could not be composed.
    pub missing: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComposedStep {
    pub tier: String,
    pub id: String,
    pub href: String,
    pub passed: bool,
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

/// The grid of `loaded`, from the rows of all its runs and their
/// verification (a composed policy is composed over the counted runs).
pub fn cell_grid(
    loaded: &LoadedExperiment,
    v: &ExperimentVerification,
    rows: &[RunRow],
) -> CellGrid {
    let e = &loaded.experiment;
    let grid = &e.grid;
    let judged = super::judged(v);
    let counted = primary_runs(&judged);
    let href: BTreeMap<&str, &str> = rows
        .iter()
        .map(|r| (r.id.as_str(), r.href.as_str()))
        .collect();
    type Key<'k> = (&'k str, &'k str, u64);
    let mut composed_ids = Vec::new();
    let mut composed: Vec<BTreeMap<Key<'_>, Vec<ComposedView>>> = Vec::new();
    for p in &e.policies {
        let Ok(Some(c)) = compose(e, p, &counted) else {
            continue;
        };
        let mut cells: BTreeMap<Key<'_>, Vec<ComposedView>> = BTreeMap::new();
        for cell in &c.cells {
            let steps = cell
                .used
                .iter()
                .map(|j| ComposedStep {
                    tier: j
                        .run
                        .attempts
                        .first()
                        .map(|a| a.tier.clone())
                        .unwrap_or_default(),
                    id: j.run.place.id.clone(),
                    href: href
                        .get(j.run.place.id.as_str())
                        .map_or(String::new(), |h| (*h).to_string()),
                    passed: j.passed(),
                })
                .collect();
            cells
                .entry((cell.task, cell.profile, cell.seed))
                .or_default()
                .push(ComposedView {
                    passed: cell.passed,
                    steps,
                    missing: String::new(),
                });
        }
        for cell in &c.incomplete {
            cells
                .entry((cell.task, cell.profile, cell.seed))
                .or_default()
                .push(ComposedView {
                    passed: false,
                    steps: Vec::new(),
                    missing: cell.missing.to_string(),
                });
        }
        composed_ids.push(p.id.clone());
        composed.push(cells);
    }
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
                    let key = (task.as_str(), profile.as_str(), seed);
                    out.push(CellRow {
                        task: task.clone(),
                        profile: profile.clone(),
                        seed,
                        runs,
                        composed: composed
                            .iter()
                            .map(|cells| cells.get(&key).cloned().unwrap_or_default())
                            .collect(),
                    });
                }
            }
        }
    }
    CellGrid {
        policies: grid.policies.clone(),
        composed: composed_ids,
        cells: grid.tasks.len() * grid.profiles.len() * grid.seeds.len(),
        rows: out,
        outside: rows.len() - shown,
    }
}

/// A composed policy, as the experiment's facts describe it.
#[derive(Debug, Clone, Serialize)]
pub struct ComposedPolicyView {
    pub id: String,
    /// How its figures are composed, in words.
    pub how: String,
    /// The cells it could not be composed in.
    pub incomplete: u64,
}

/// The experiment's composed policies, each with how it is composed and
/// how many cells the primary analysis could not compose it in.
pub fn composed_policies(
    e: &receipts_verifier::model::Experiment,
    primary: &receipts_verifier::model::Analysis,
) -> Vec<ComposedPolicyView> {
    use receipts_verifier::model::PolicyKind;
    use receipts_verifier::numbers::compose::tier_policy;
    e.policies
        .iter()
        .filter(|p| p.composed)
        .map(|p| {
            let from: Vec<String> = p
                .tiers
                .iter()
                .map(|t| tier_policy(e, t).map_or_else(|| format!("(no policy on {t})"), |q| q.id.clone()))
                .collect();
            let rule = match p.kind {
                PolicyKind::Ladder => "the tiers in order until one passes, paying for and waiting on each it tries",
                PolicyKind::Speculative => "the first two tiers together (paying for both, answering with the first to pass, waiting for the slower when both fail), then the next in order until one passes",
                PolicyKind::TierMemory => "the tiers in order from the one where the task last passed under it, in the grid's run order, until one passes",
                _ => "a kind that cannot be composed",
            };
            ComposedPolicyView {
                id: p.id.clone(),
                how: format!(
                    "in each cell its figures are composed from the runs of {} there: {rule}",
                    and_list(&from)
                ),
                // With no cell composed it has no figures: every cell is incomplete.
                incomplete: primary.policies.iter().find(|n| n.policy == p.id).map_or(
                    (e.grid.cells() / e.grid.policies.len().max(1)) as u64
                        * u64::from(e.grid.runs_per_cell),
                    |n| n.incomplete_cells,
                ),
            }
        })
        .collect()
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
