//! Receipts of an experiment's grid: every registered cell holds exactly its
//! runs in the primary analysis, every other run is a declared rerun, no
//! run stands outside the grid or after a stop, every deviation was logged
//! after the registration and before the runs it names, no provider call is
//! on record twice nor a run a copy of another ([`super::calls`]), and every
//! ladder tries its tiers cheapest first.

use std::collections::{BTreeMap, BTreeSet};

use crate::facts::RunFacts;
use crate::model::{Cell, Deviation, DeviationKind, Deviations, Experiment, PolicyKind};
use crate::numbers::{primary_runs, JudgedRun};
use crate::plural::count;
use crate::time::{self, UnixMillis};

use super::Receipt;

mod pauses;

use pauses::Pauses;

/// What the grid's receipts found, for deciding hypotheses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GridFindings {
    /// The grid's receipts.
    pub receipts: Vec<Receipt>,
    /// Policies with a registered cell that holds fewer runs than registered.
    pub incomplete: BTreeSet<String>,
}

fn key(run: &RunFacts) -> Cell<'_> {
    run.place.cell()
}

/// The receipts of the grid of experiment `e` (directory `dir`) over its
/// runs, with its deviations where it has any.
pub fn grid_receipts(
    dir: &str,
    e: &Experiment,
    runs: &[JudgedRun<'_>],
    deviations: Option<&Deviations>,
) -> GridFindings {
    let subject = format!("{dir}/experiment.json");
    let dev_subject = format!("{dir}/deviations.json");
    let run_subject = |id: &str| crate::layout::run_path(dir, id);
    let listed: &[Deviation] = deviations.map_or(&[], |d| d.deviations.as_slice());
    let mut out = Vec::new();
    let mut findings = GridFindings::default();
    let registered = e
        .preregistration
        .as_ref()
        .and_then(|p| time::parse(&p.registered_at).ok());
    let by_id: BTreeMap<&str, &RunFacts> =
        crate::btree::map(runs.iter().map(|j| (j.run.place.id.as_str(), j.run)));
    let pauses = Pauses::of(listed);
    let stop = pauses.last_stop().map(|p| p.stop);

    if let Some(d) = deviations {
        if d.experiment != e.id {
            out.push(Receipt::new(
                &dev_subject,
                "experiment",
                &d.experiment,
                format!("the deviations are stored under experiment {}", e.id),
                false,
            ));
        }
    }
    for d in listed {
        let stray = pauses.stray.contains(d.id.as_str());
        out.push(deviation_receipt(
            &dev_subject,
            d,
            registered,
            &by_id,
            stray,
        ));
    }

    let in_grid = |r: &RunFacts| {
        e.grid.tasks.contains(&r.place.task)
            && e.grid.profiles.contains(&r.place.profile)
            && e.grid.seeds.contains(&r.place.seed)
            && e.grid.policies.contains(&r.place.policy)
    };
    for j in runs {
        let r = j.run;
        let subject = run_subject(&r.place.id);
        if r.experiment != e.id {
            out.push(Receipt::new(
                &subject,
                "experiment",
                &r.experiment,
                format!("the run is stored under experiment {}", e.id),
                false,
            ));
        }
        if !in_grid(r) {
            out.push(Receipt::new(
                &subject,
                "cell",
                key(r).to_string(),
                "not a cell of the registered grid",
                false,
            ));
        }
        if let Some((started, pause)) = r.started_at.and_then(|t| pauses.during(t).map(|p| (t, p)))
        {
            out.push(Receipt::new(
                &subject,
                "started before the study stopped",
                format!("started {}", time::format(started)),
                pause.describe(),
                false,
            ));
        }
        if let Some(old) = &r.place.replaces {
            out.push(rerun_receipt(&subject, r, old, &by_id, listed));
        }
    }

    // The cells, in the primary analysis.
    let primary = primary_runs(runs);
    let mut counted: BTreeMap<Cell<'_>, Vec<&str>> = BTreeMap::new();
    for j in &primary {
        if in_grid(j.run) {
            counted.entry(key(j.run)).or_default().push(&j.run.place.id);
        }
    }
    let want = e.grid.runs_per_cell as usize;
    let mut missing = Vec::new();
    let mut bad = 0usize;
    let grid_cells = e.grid.run_order();
    // A stop excuses only the cells after the last that ran, in the grid's
    // registered order: a cell left out before it was dropped, not stopped.
    let last_ran = grid_cells.iter().rposition(|c| counted.contains_key(c));
    for (index, k) in grid_cells.into_iter().enumerate() {
        let ids = counted.get(&k).map_or(&[][..], Vec::as_slice);
        if ids.len() > want {
            bad += 1;
            out.push(Receipt::new(
                &subject,
                format!("grid cell {k}"),
                format!("{} registered", count(want, "run", None)),
                format!("{} counted: {}", ids.len(), ids.join(", ")),
                false,
            ));
        } else if ids.len() < want {
            findings.incomplete.insert(k.policy.to_string());
            missing.push(k);
            let before_last = last_ran.is_some_and(|last| index < last);
            if let (Some(d), true) = (stop, before_last) {
                bad += 1;
                out.push(Receipt::new(
                    &subject,
                    format!("grid cell {k}"),
                    format!("{} registered", count(want, "run", None)),
                    format!(
                        "{} counted, though later cells of the registered order ran; {} excuses only the cells after the last that ran",
                        ids.len(),
                        d.id
                    ),
                    false,
                ));
            } else if stop.is_none() {
                bad += 1;
                out.push(Receipt::new(
                    &subject,
                    format!("grid cell {k}"),
                    format!("{} registered", count(want, "run", None)),
                    if ids.is_empty() {
                        "no run counted in the primary analysis".to_string()
                    } else {
                        format!("{} counted: {}", ids.len(), ids.join(", "))
                    },
                    false,
                ));
            }
        }
    }
    // A composed policy stands on its tiers' cells: where one of them did
    // not run every cell, neither did it.
    for p in e.policies.iter().filter(|p| p.composed) {
        let short = p.tiers.iter().any(|t| {
            crate::numbers::compose::tier_policy(e, t)
                .is_some_and(|q| findings.incomplete.contains(&q.id))
        });
        if short {
            findings.incomplete.insert(p.id.clone());
        }
    }
    let cells = e.grid.cells();
    let outside = runs.len() - primary.len();
    let recorded = format!(
        "{} × {}",
        count(cells, "cell", None),
        count(want, "run", None)
    );
    match (stop, bad) {
        (_, 0) if missing.is_empty() => out.push(Receipt::new(
            &subject,
            "grid",
            recorded,
            format!(
                "every cell holds its {} in the primary analysis; {} outside it",
                if want == 1 { "run" } else { "runs" },
                count(outside, "run", None)
            ),
            true,
        )),
        (Some(d), 0) => {
            // Whichever list is shorter: the cells that ran, or those that did not.
            let ran: Vec<Cell<'_>> = e
                .grid
                .each_cell()
                .into_iter()
                .filter(|k| !missing.contains(k))
                .collect();
            let list = |cells: &[Cell<'_>]| {
                cells
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let which = if ran.len() <= missing.len() {
                format!("ran: {}", list(&ran))
            } else {
                format!("not run: {}", list(&missing))
            };
            // The stops the study was taken up again after, as it told them.
            let earlier: String = pauses
                .resumed()
                .filter_map(|p| {
                    p.resumed
                        .map(|(r, _)| format!("{} stopped it and {} resumed it; ", p.stop.id, r.id))
                })
                .collect();
            out.push(Receipt::new(
                &subject,
                "grid",
                recorded,
                format!(
                    "incomplete: {} stopped the study ({}); {earlier}{} of {cells} cells ran; {which}",
                    d.id,
                    d.reason,
                    ran.len(),
                ),
                true,
            ));
        }
        _ => {}
    }

    if e.grid.axes().is_none() {
        out.push(Receipt::new(
            &subject,
            "grid.order",
            format!("{:?}", e.grid.order.as_deref().unwrap_or_default()),
            "the run order names each of tasks, profiles, seeds and policies once",
            false,
        ));
    }
    out.extend(ladder_order(&subject, e));
    out.extend(memory_receipts(&subject, e, runs));
    out.extend(super::calls::reused_calls(dir, runs.iter().map(|j| j.run)));
    findings.receipts = out;
    findings
}

/// A deviation was logged after the registration and before each run it
/// names started, and names runs on record.
fn deviation_receipt(
    subject: &str,
    d: &Deviation,
    registered: Option<UnixMillis>,
    runs: &BTreeMap<&str, &RunFacts>,
    stray: bool,
) -> Receipt {
    let claim = format!("deviation {}", d.id);
    let recorded = format!("logged {}", d.logged_at);
    let fail = |why: String| Receipt::new(subject, &claim, &recorded, why, false);
    let Ok(at) = time::parse(&d.logged_at) else {
        return fail(format!("`{}` is not an RFC 3339 timestamp", d.logged_at));
    };
    if registered.is_some_and(|r| at <= r) {
        return fail("logged before the registration it deviates from".to_string());
    }
    if stray {
        return fail(
            "a resume takes up a stopped study, and the study was not stopped: no `stop` was logged before it since the last resume"
                .to_string(),
        );
    }
    for id in &d.runs {
        let Some(run) = runs.get(id.as_str()) else {
            return fail(format!("names run `{id}`, which is not on record"));
        };
        // A rerun is declared before it starts; a fix or a changed limit
        // may name runs it concerns that came before it.
        if d.kind == DeviationKind::Rerun && run.started_at.is_none_or(|s| s <= at) {
            return fail(format!("run `{id}` started before it was logged"));
        }
    }
    Receipt::new(
        subject,
        claim,
        recorded,
        if d.runs.is_empty() {
            "after the registration".to_string()
        } else {
            format!(
                "after the registration, before the {} it names",
                count(d.runs.len(), "run", None)
            )
        },
        true,
    )
}

/// A rerun replaces a run of its own cell and is declared by a `rerun`
/// deviation.
fn rerun_receipt(
    subject: &str,
    r: &RunFacts,
    old: &str,
    runs: &BTreeMap<&str, &RunFacts>,
    deviations: &[Deviation],
) -> Receipt {
    let claim = "declared rerun";
    let recorded = format!("replaces {old}");
    let Some(original) = runs.get(old) else {
        return Receipt::new(subject, claim, recorded, "no such run on record", false);
    };
    if original.place.id == r.place.id {
        return Receipt::new(
            subject,
            claim,
            recorded,
            "a run cannot replace itself",
            false,
        );
    }
    // A rerun follows the run it replaces: it starts after that run ended.
    let ended = original.started_at.map(|s| {
        s.0.saturating_add(i64::try_from(original.wall_ms).unwrap_or(i64::MAX))
    });
    if r.started_at.map(|s| s.0) <= ended {
        return Receipt::new(
            subject,
            claim,
            recorded,
            "it started before the run it replaces ended",
            false,
        );
    }
    if key(original) != key(r) {
        return Receipt::new(
            subject,
            claim,
            recorded,
            format!("the replaced run is of another cell ({})", key(original)),
            false,
        );
    }
    match deviations
        .iter()
        .find(|d| d.kind == DeviationKind::Rerun && d.runs.contains(&r.place.id))
    {
        Some(d) => Receipt::new(
            subject,
            claim,
            recorded,
            format!("declared by deviation {}: {}", d.id, d.reason),
            true,
        ),
        None => Receipt::new(
            subject,
            claim,
            recorded,
            "no rerun deviation declares it",
            false,
        ),
    }
}

/// Each ladder tries its tiers cheapest first: no tier is cheaper than the
/// one before it on both prices. Tiers whose prices are mixed (one dearer on
/// input, the other on output) have no order to break.
fn ladder_order(subject: &str, e: &Experiment) -> Vec<Receipt> {
    let price = |tier: &str| {
        e.tiers
            .iter()
            .find(|t| t.id == tier)
            .and_then(|t| e.prices.models.get(&t.model))
    };
    e.policies
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                PolicyKind::Ladder | PolicyKind::Speculative | PolicyKind::TierMemory
            )
        })
        .map(|p| {
            let claim = format!("policy `{}` tries its tiers cheapest first", p.id);
            let recorded = p.tiers.join(" > ");
            let dearer = p
                .tiers
                .windows(2)
                .find(|w| match (price(&w[0]), price(&w[1])) {
                    (Some(a), Some(b)) => {
                        a.input_per_mtok >= b.input_per_mtok
                            && a.output_per_mtok >= b.output_per_mtok
                            && (a.input_per_mtok > b.input_per_mtok
                                || a.output_per_mtok > b.output_per_mtok)
                    }
                    _ => true,
                });
            match dearer {
                None => Receipt::new(
                    subject,
                    claim,
                    recorded,
                    "no tier is cheaper on both prices than the one before",
                    true,
                ),
                Some(w) => Receipt::new(
                    subject,
                    claim,
                    recorded,
                    format!(
                        "`{}` is tried before `{}`, which is cheaper or unpriced",
                        w[0], w[1]
                    ),
                    false,
                ),
            }
        })
        .collect()
}

/// Each tier-memory policy starts every run where the run's task last
/// passed under it (its runs taken in the order they started; the first
/// tier before the task has passed), and escalates from there.
fn memory_receipts(subject: &str, e: &Experiment, runs: &[JudgedRun<'_>]) -> Vec<Receipt> {
    e.policies
        .iter()
        .filter(|p| p.kind == PolicyKind::TierMemory)
        .map(|p| {
            let claim = format!("policy `{}` starts where the task last passed", p.id);
            let mut of_policy: Vec<&JudgedRun<'_>> =
                runs.iter().filter(|j| j.run.place.policy == p.id).collect();
            of_policy.sort_by(|a, b| {
                (a.run.started_at, &a.run.place.id).cmp(&(b.run.started_at, &b.run.place.id))
            });
            // What each run could remember: the passes of runs that had
            // ended before it started, the latest per task.
            let end = |j: &JudgedRun<'_>| {
                j.run.started_at.map(|s| {
                    s.0.saturating_add(i64::try_from(j.run.wall_ms).unwrap_or(i64::MAX))
                })
            };
            let mut passes: Vec<(Option<i64>, &str, &str)> = of_policy
                .iter()
                .filter_map(|j| {
                    j.run
                        .passed_tier(j.attempts_passed)
                        .map(|tier| (end(j), j.run.place.task.as_str(), tier))
                })
                .collect();
            passes.sort_by_key(|(end, _, _)| *end);
            let mut memory: BTreeMap<&str, &str> = BTreeMap::new();
            let mut known = 0;
            let first = p.tiers.first().map_or("", String::as_str);
            let mut wrong = None;
            for j in &of_policy {
                let start = j.run.started_at.map(|s| s.0);
                while let Some((_, task, tier)) =
                    passes.get(known).filter(|(end, _, _)| *end <= start)
                {
                    memory.insert(task, tier);
                    known += 1;
                }
                let expected = memory
                    .get(j.run.place.task.as_str())
                    .copied()
                    .unwrap_or(first);
                let started = j
                    .run
                    .attempts
                    .first()
                    .map_or("no attempt", |a| a.tier.as_str());
                if started != expected && wrong.is_none() {
                    wrong = Some(format!(
                        "{} started on `{started}`; task `{}` last passed on `{expected}`",
                        j.run.place.id, j.run.place.task
                    ));
                }
            }
            let recorded = format!(
                "{}, in the order they started",
                count(of_policy.len(), "run", None)
            );
            match wrong {
                None => Receipt::new(
                    subject,
                    claim,
                    recorded,
                    "each run starts on the tier its task last passed on",
                    true,
                ),
                Some(why) => Receipt::new(subject, claim, recorded, why, false),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
