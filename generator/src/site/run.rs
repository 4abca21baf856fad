//! The views of runs: a row of the runs index and the replay page of one run.

use serde::Serialize;

use receipts_verifier::cost::Cost;
use receipts_verifier::layout;
use receipts_verifier::model::Run;
use receipts_verifier::verify::{Receipt, RunVerification, Status, Tally};

use super::Origin;
use super::{
    attempt_view, experiment_href, label, mark, object_href, run_href, AttemptView, ReceiptView,
};
use crate::head::RunHead;
use crate::load::{Corpus, LoadedExperiment};

/// One row of a runs table.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: String,
    pub href: String,
    pub experiment: String,
    pub task: String,
    pub profile: String,
    pub seed: u64,
    pub policy: String,
    pub tiers: String,
    /// The recomputed outcome.
    pub passed: bool,
    pub cost: Cost,
    pub time_s: f64,
    pub replaces: String,
    /// Whether every receipt of the run was recomputed and agrees.
    pub verified: String,
    pub mark: String,
    /// Some call stopped at its output budget (`finish_reason` `length`).
    pub truncated: bool,
    /// Some call lost its usage (its cost is a bound).
    pub lost_usage: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    pub id: String,
    pub simulated: bool,
    /// Where the run came from (see [`super::run_origin`]).
    pub origin: Origin,
    pub experiment: String,
    pub experiment_href: String,
    pub task: String,
    pub task_title: String,
    pub profile: String,
    pub seed: u64,
    pub policy_label: String,
    pub started_at: String,
    /// The recorded outcome against the recomputed one.
    pub outcome: Option<ReceiptView>,
    /// How the run was conducted: its policy, the limits, whether its record is possible.
    pub conduct: Vec<ReceiptView>,
    /// The recomputed outcome.
    pub passed: bool,
    pub tally: Tally,
    pub tiers: String,
    pub cost: Cost,
    pub time_s: f64,
    /// The share of the run's prompt tokens read from the cache, over the
    /// calls that report it.
    pub cache: Option<super::CacheUse>,
    pub replaces: Option<Link>,
    pub replaced_by: Option<Link>,
    /// The original another tool wrote, when the run was converted from one.
    pub source: Option<SourceView>,
    pub record_href: String,
    /// The experiment's directory under `data/`.
    pub experiment_dir: String,
    /// Runs of the same task, profile and seed under other policies.
    pub compare: Vec<CompareLink>,
    pub prev: Option<String>,
    pub next: Option<String>,
    /// The compact form of a site of many runs (built with
    /// `--compress-records`): the page keeps the run's facts and a row per
    /// attempt, and the turns, calls and messages are drawn in the browser
    /// from the record (`assets/replay.js`).
    pub compact: bool,
    /// The attempts and their calls on one time axis, as SVG (none on a
    /// compact page).
    pub timeline: Option<String>,
    pub attempts: Vec<AttemptView>,
    /// Each attempt's call names ([`AttemptView::call_names`]) as JSON, for
    /// the replay of a compact page of a run recorded on the wire.
    pub call_names: Option<String>,
}

/// A run's original: what wrote it, and the receipt that its bytes are kept.
#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    pub tool: String,
    pub version: String,
    pub file: String,
    pub format: String,
    pub href: String,
    pub kept: Option<ReceiptView>,
    /// Recorded on the wire by `receipts record`: the verifier derives the
    /// run's calls and transcript from the original again.
    pub wire: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareLink {
    pub id: String,
    pub label: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub id: String,
    pub href: String,
}

/// `pass` when every receipt passed, `fail` when any failed, else `could_not_check`.
fn overall(receipts: &[Receipt]) -> Status {
    let t = Tally::of(receipts);
    if t.fail > 0 {
        Status::Fail
    } else if t.could_not_check > 0 {
        Status::CouldNotCheck
    } else {
        Status::Pass
    }
}

/// Each run's neighbours in an experiment, found once for all its pages:
/// the runs of each cell (task, profile, seed) by index, and which run
/// replaces which.
pub struct Neighbours<'a> {
    cells: std::collections::BTreeMap<(&'a str, &'a str, u64), Vec<usize>>,
    replaced_by: std::collections::BTreeMap<&'a str, &'a str>,
}

pub fn neighbours(loaded: &LoadedExperiment) -> Neighbours<'_> {
    let mut n = Neighbours {
        cells: Default::default(),
        replaced_by: Default::default(),
    };
    for (i, r) in loaded.runs.iter().enumerate() {
        n.cells
            .entry((
                r.place.task.as_str(),
                r.place.profile.as_str(),
                r.place.seed,
            ))
            .or_default()
            .push(i);
        if let Some(old) = &r.place.replaces {
            n.replaced_by.insert(old.as_str(), r.place.id.as_str());
        }
    }
    n
}

/// Where a run's record is published: `data/<dir>/runs/<run>.json`, with
/// `.gz` when the build compresses records.
pub fn record_href(loaded: &LoadedExperiment, id: &str, gzipped: bool) -> String {
    layout::published(&loaded.run_path(id), gzipped)
}

/// The published files a run's receipts are recomputed from: its record, its
/// experiment and task, and every object it names.
pub fn run_files(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    run: &Run,
    gzipped: bool,
) -> Vec<String> {
    let mut files = vec![
        layout::published(&format!("{}/experiment.json", loaded.dir), false),
        layout::published(&layout::task_path(&run.task), false),
        record_href(loaded, &run.id, gzipped),
    ];
    let mut digests: Vec<&str> = Vec::new();
    if let Some(task) = corpus.tasks.get(&run.task) {
        digests.extend(task.inputs.iter().map(|i| i.sha256.as_str()));
    }
    digests.extend(run.object_digests());
    digests.sort_unstable();
    digests.dedup();
    files.extend(digests.into_iter().map(object_href));
    files
}

pub fn run_row(
    loaded: &LoadedExperiment,
    head: &RunHead,
    verification: &RunVerification,
) -> RunRow {
    let status = overall(&verification.receipts);
    let facts = &verification.facts;
    RunRow {
        id: head.place.id.clone(),
        href: run_href(&head.place.id),
        experiment: loaded.experiment.id.clone(),
        task: head.place.task.clone(),
        profile: head.place.profile.clone(),
        seed: head.place.seed,
        policy: head.place.policy.clone(),
        tiers: facts.tiers_tried().join(" → "),
        passed: verification.passed(),
        cost: facts.cost().unwrap_or_default(),
        time_s: facts.seconds(),
        replaces: head.place.replaces.clone().unwrap_or_default(),
        verified: label(&status),
        mark: mark(status).to_string(),
        truncated: facts.truncations() > 0,
        lost_usage: head.lost_usage,
    }
}

/// The view of `run`, run `index` of `loaded` (runs are sorted by id;
/// prev/next follow that order).
pub fn run_view(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    index: usize,
    run: &Run,
    verification: &RunVerification,
    neighbours: &Neighbours<'_>,
    gzipped: bool,
) -> RunView {
    let e = &loaded.experiment;
    let task = &corpus.tasks[&run.task];
    let attempts: Vec<AttemptView> = run
        .attempts
        .iter()
        .enumerate()
        .map(|(i, a)| attempt_view(corpus, e, task, run, a, i, verification))
        .collect();
    let link = |id: &str| Link {
        id: id.to_string(),
        href: run_href(id),
    };
    RunView {
        id: run.id.clone(),
        // A run is shown as simulated when it or its experiment says so: a
        // run's own word cannot lift it out of a simulated experiment.
        simulated: run.provenance.is_simulated() || e.provenance.is_simulated(),
        origin: super::run_origin(corpus, &loaded.runs[index]),
        experiment: e.id.clone(),
        experiment_href: experiment_href(&e.id),
        task: task.id.clone(),
        task_title: task.title.clone(),
        profile: run.profile.clone(),
        seed: run.seed,
        policy_label: e
            .policies
            .iter()
            .find(|p| p.id == run.policy)
            .map_or(run.policy.clone(), |p| p.label.clone()),
        started_at: run.started_at.clone(),
        outcome: verification
            .receipts
            .iter()
            .find(|r| r.claim == "outcome")
            .map(ReceiptView::from),
        conduct: verification
            .receipts
            .iter()
            .filter(|r| receipts_verifier::verify::is_conduct(&r.claim))
            .map(ReceiptView::from)
            .collect(),
        passed: verification.passed(),
        tally: Tally::of(&verification.receipts),
        tiers: verification.facts.tiers_tried().join(" → "),
        cost: verification.facts.cost().unwrap_or_default(),
        time_s: verification.facts.seconds(),
        cache: super::CacheUse::of(run.calls().filter_map(|c| c.usage.as_ref())),
        replaces: run.replaces.as_deref().map(link),
        replaced_by: neighbours
            .replaced_by
            .get(run.id.as_str())
            .map(|id| link(id)),
        source: run.source.as_ref().map(|s| SourceView {
            tool: s.tool.clone(),
            version: s.version.clone(),
            file: s.file.clone(),
            format: s.format.clone(),
            href: object_href(&s.sha256),
            kept: verification
                .receipts
                .iter()
                .find(|r| r.subject == layout::object_path(&s.sha256))
                .map(ReceiptView::from),
            wire: s.format == receipts_verifier::wire::CAPTURE_FORMAT,
        }),
        record_href: record_href(loaded, &run.id, gzipped),
        experiment_dir: loaded.dir.clone(),
        compare: neighbours
            .cells
            .get(&(run.task.as_str(), run.profile.as_str(), run.seed))
            .into_iter()
            .flatten()
            .filter(|&&i| i != index)
            .map(|&i| {
                let other = &loaded.runs[i];
                CompareLink {
                    id: other.place.id.clone(),
                    label: other.place.policy.clone(),
                }
            })
            .collect(),
        prev: index
            .checked_sub(1)
            .map(|i| run_href(&loaded.runs[i].place.id)),
        next: loaded.runs.get(index + 1).map(|r| run_href(&r.place.id)),
        compact: gzipped,
        timeline: if gzipped {
            None
        } else {
            super::timeline::run_timeline(&attempts)
        },
        call_names: (gzipped && attempts.iter().any(|a| !a.call_names.is_empty())).then(|| {
            let names: Vec<&Vec<String>> = attempts.iter().map(|a| &a.call_names).collect();
            serde_json::to_string(&names).unwrap_or_default()
        }),
        attempts,
    }
}
