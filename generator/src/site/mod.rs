//! Stage 4, model: the pages of the site and the values each shows, built
//! from the validated corpus and its verification. Templates receive these
//! views and nothing else. Every link is relative to the site root; each
//! page adds its own prefix.

mod attempt;
mod cache_use;
mod cell_grid;
mod claims;
mod counts;
mod experiment;
mod figures;
mod harness;
mod index;
mod inspect;
mod library;
mod origin;
mod otel;
mod regression;
mod regression_history;
mod run;
mod skill_edit;
mod study;
mod timeline;
mod transcript;

pub use attempt::*;
pub use cache_use::*;
pub use cell_grid::*;
pub use claims::*;
pub use counts::*;
pub use experiment::*;
pub use figures::*;
pub use harness::*;
pub use index::*;
pub use inspect::*;
pub use library::*;
pub use origin::*;
pub use otel::*;
pub use regression::*;
pub use regression_history::*;
pub use run::*;
pub use skill_edit::*;
pub use study::*;

use serde::Serialize;

use receipts_verifier::layout;
use receipts_verifier::verify::{Receipt, Scope, Status};

use crate::load::{Corpus, LoadedExperiment};

/// Where each kind of page lives.
pub fn run_href(id: &str) -> String {
    format!("runs/{id}.html")
}
pub fn experiment_href(id: &str) -> String {
    format!("experiments/{id}.html")
}
pub fn object_href(digest: &str) -> String {
    layout::published(&layout::object_path(digest), false)
}
pub fn doc_href(path: &str) -> String {
    format!("docs/{}.html", path.strip_suffix(".md").unwrap_or(path))
}

/// Facts every page shows (navigation, footer).
#[derive(Debug, Clone, Serialize)]
pub struct SiteInfo {
    /// How many records of each kind the site holds.
    pub counts: Counts,
    /// The same in words, as the footer names them.
    pub records: String,
    pub has_showcase: bool,
    pub has_docs: bool,
    /// SHA-256 of `data/SHA256SUMS`: which records the site was built from.
    pub records_digest: String,
    /// SHA-256 of `SHA256SUMS`, which lists the records and the assets:
    /// shown in every page's footer, the digest a reader pins.
    pub root_digest: String,
    /// The SHA-256 of the `SHA256SUMS` of the standalone verifier the site
    /// carries under `verifier/`: the same for every site of this version.
    pub verifier_digest: String,
    /// Run records are published gzipped (`--compress-records`).
    pub records_gzipped: bool,
    /// Where the pages' scripts fetch records, spelled by the verification
    /// core's layout: a run's record, with `{experiment}` and `{run}` to
    /// fill in, and the prefix an object's digest follows.
    pub run_record_href: String,
    pub objects_href: String,
    /// The records a page's Verify needs the full verifier for when its
    /// scope reaches them (imports, time stamps); the others load the lean one.
    #[serde(skip)]
    pub full_records: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DocLink {
    pub title: String,
    pub href: String,
}

/// The experiment-level files published under `data/<dir>/`.
pub fn experiment_records(loaded: &LoadedExperiment) -> Vec<String> {
    let mut names = vec!["experiment.json".to_string()];
    if let Some(p) = &loaded.experiment.preregistration {
        names.push(p.log.clone());
    }
    if loaded.summary.is_some() {
        names.push("summary.json".to_string());
    }
    if loaded.results.is_some() {
        names.push("results.csv".to_string());
    }
    if loaded.deviations.is_some() {
        names.push("deviations.json".to_string());
    }
    if loaded.models.is_some() {
        names.push(receipts_verifier::model::MODEL_CHECK_FILE.to_string());
    }
    names.extend(loaded.anchors.names().into_iter().map(String::from));
    names
}

/// A receipt as a page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ReceiptView {
    pub subject: String,
    pub claim: String,
    pub recorded: String,
    pub recomputed: String,
    /// `pass`, `fail` or `could_not_check`.
    pub status: String,
    /// A short word for the status: ✓ recomputed, ✗ differs, ? could not check.
    pub mark: String,
}

impl From<&Receipt> for ReceiptView {
    fn from(r: &Receipt) -> Self {
        ReceiptView {
            subject: r.subject.clone(),
            claim: r.claim.clone(),
            recorded: r.recorded.clone(),
            recomputed: r.recomputed.clone(),
            status: label(&r.status),
            mark: mark(r.status).to_string(),
        }
    }
}

/// The status of a group of receipts: the worst of them.
pub fn worst<'a>(receipts: impl IntoIterator<Item = &'a Receipt>) -> Status {
    receipts
        .into_iter()
        .map(|r| r.status)
        .max_by_key(|s| match s {
            Status::Pass => 0,
            Status::CouldNotCheck => 1,
            Status::Fail => 2,
        })
        .unwrap_or(Status::Pass)
}

/// A claim's receipt as a table cell: the recorded value with its recomputation.
pub fn receipt_cell(receipts: &[Receipt], claim: &str) -> Cell {
    match receipts.iter().find(|r| r.claim == claim) {
        Some(r) => Cell {
            published: Some(r.recorded.clone()),
            original: None,
            recomputed: r.recomputed.clone(),
            status: label(&r.status),
            mark: mark(r.status).to_string(),
            subject: r.subject.clone(),
            claim: r.claim.clone(),
            before: String::new(),
            after: String::new(),
        },
        None => Cell {
            subject: String::new(),
            claim: String::new(),
            before: String::new(),
            after: String::new(),
            published: None,
            original: None,
            recomputed: "–".to_string(),
            status: label(&Status::CouldNotCheck),
            mark: String::new(),
        },
    }
}

pub fn mark(status: Status) -> &'static str {
    match status {
        Status::Pass => "✓",
        Status::Fail => "✗",
        Status::CouldNotCheck => "?",
    }
}

/// A `snake_case` or `kebab-case` enum value as serde writes it.
pub(crate) fn label<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The digests a site's pages show or name.
pub struct Digests {
    /// Of `data/SHA256SUMS`.
    pub records: String,
    /// Of `SHA256SUMS`.
    pub root: String,
    /// Of the standalone verifier's `SHA256SUMS`.
    pub verifier: String,
}

pub fn site_info(corpus: &Corpus, digests: Digests, records_gzipped: bool) -> SiteInfo {
    let counts = Counts::of(corpus);
    SiteInfo {
        counts,
        records: counts.describe(),
        has_showcase: corpus.showcase.is_some(),
        has_docs: !corpus.docs.is_empty(),
        records_digest: digests.records,
        root_digest: digests.root,
        verifier_digest: digests.verifier,
        records_gzipped,
        run_record_href: layout::published(
            &layout::run_path("{experiment}", "{run}"),
            records_gzipped,
        ),
        objects_href: object_href(""),
        full_records: corpus
            .record_digests
            .keys()
            .filter(|r| receipts_verifier::verify::needs_full(&Scope::All, r))
            .cloned()
            .collect(),
    }
}

/// The documents, for the documents index.
pub fn doc_links(corpus: &Corpus) -> Vec<DocLink> {
    corpus
        .docs
        .iter()
        .map(|d| DocLink {
            title: doc_title(&d.markdown, &d.path),
            href: doc_href(&d.path),
        })
        .collect()
}

/// A document's title: its first heading, else its file name.
pub fn doc_title(markdown: &str, path: &str) -> String {
    markdown
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map_or_else(|| path.to_string(), |t| t.trim().to_string())
}

/// Each verified run of an experiment with whether each of its attempts passed.
pub(crate) fn judged(
    v: &receipts_verifier::verify::ExperimentVerification,
) -> Vec<receipts_verifier::numbers::JudgedRun<'_>> {
    v.runs
        .iter()
        .map(|rv| receipts_verifier::numbers::JudgedRun {
            run: &rv.facts,
            attempts_passed: &rv.attempts_passed,
        })
        .collect()
}
