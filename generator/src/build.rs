//! `receipts build`: load → validate → model → render → write, each stage timed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::error::InputError;
use crate::load::{self, Corpus, OBJECTS_DIR, TASKS_DIR};
use crate::render::{Renderer, ASSETS};
use crate::site::{self, doc_href, experiment_href, run_href};
use crate::validate;
use crate::write::Staging;

/// Runs at or above this count get a progress bar.
const PROGRESS_THRESHOLD: usize = 500;

#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The directory holding `experiments/`, `showcase/` and `docs/`.
    pub root: PathBuf,
    /// Where the site goes; replaced only when the build succeeds.
    pub out: PathBuf,
    /// No progress bar.
    pub quiet: bool,
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub experiments: usize,
    pub runs: usize,
    pub pages: usize,
    pub files: usize,
    pub stages: Vec<(&'static str, Duration)>,
}

impl BuildReport {
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }
}

/// Why a build failed: bad input (exit 2) or anything else (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0:#}")]
    Other(#[from] anyhow::Error),
}

struct Timer {
    stages: Vec<(&'static str, Duration)>,
    last: Instant,
}

impl Timer {
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push((name, now - self.last));
        self.last = now;
    }
}

pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildError> {
    let mut timer = Timer {
        stages: Vec::new(),
        last: Instant::now(),
    };
    let corpus = load::load(&options.root)?;
    timer.lap("load");
    validate::validate(&corpus)?;
    timer.lap("validate");
    let renderer = Renderer::new(site::site_info(&corpus))?;
    timer.lap("model");
    let staging = Staging::new(&options.out)?;
    let pages = render_pages(&corpus, &renderer, &staging, options.quiet)?;
    timer.lap("render");
    publish_data(&corpus, &staging)?;
    for (rel, text) in ASSETS {
        staging.write(rel, text.as_bytes())?;
    }
    staging.write(".nojekyll", b"")?;
    let files = staging.files();
    staging.commit()?;
    timer.lap("write");
    Ok(BuildReport {
        experiments: corpus.experiments.len(),
        runs: corpus.experiments.iter().map(|e| e.runs.len()).sum(),
        pages,
        files,
        stages: timer.stages,
    })
}

#[derive(Serialize)]
struct ShowcasePick {
    run: String,
    note: String,
    href: String,
}

/// Renders and writes every page; returns how many.
fn render_pages(
    corpus: &Corpus,
    renderer: &Renderer,
    staging: &Staging,
    quiet: bool,
) -> Result<usize> {
    let any_simulated = corpus
        .experiments
        .iter()
        .any(|e| e.experiment.provenance.is_simulated());
    let mut pages = 0;
    let mut page =
        |template: &str, path: &str, simulated: bool, ctx: minijinja::Value| -> Result<()> {
            staging.write(
                path,
                renderer.page(template, path, simulated, ctx)?.as_bytes(),
            )?;
            pages += 1;
            Ok(())
        };
    let experiments: Vec<site::ExperimentView> = corpus
        .experiments
        .iter()
        .map(site::experiment_view)
        .collect();
    page(
        "index.html",
        "index.html",
        any_simulated,
        minijinja::context! { experiments => &experiments },
    )?;
    for view in &experiments {
        page(
            "experiment.html",
            &experiment_href(&view.id),
            view.simulated,
            minijinja::context! { e => view },
        )?;
    }
    let rows: Vec<site::RunRow> = corpus
        .experiments
        .iter()
        .flat_map(|e| e.runs.iter().map(move |r| site::run_row(e, r)))
        .collect();
    page(
        "runs.html",
        "runs/index.html",
        any_simulated,
        minijinja::context! { runs => rows },
    )?;
    if let Some(showcase) = &corpus.showcase {
        let picks: Vec<ShowcasePick> = showcase
            .showcase
            .runs
            .iter()
            .map(|r| ShowcasePick {
                run: r.run.clone(),
                note: r.note.clone(),
                href: run_href(&r.run),
            })
            .collect();
        let ctx = minijinja::context! {
            title => &showcase.showcase.title,
            narrative_html => crate::markdown::render(&showcase.narrative),
            picks => picks,
        };
        page("showcase.html", "showcase.html", any_simulated, ctx)?;
    }
    if !corpus.docs.is_empty() {
        let ctx = minijinja::context! { docs => site::doc_links(corpus) };
        page("docs.html", "documents.html", false, ctx)?;
    }
    for doc in &corpus.docs {
        let ctx = minijinja::context! {
            title => site::doc_title(&doc.markdown, &doc.path),
            source => &doc.path,
            html => crate::markdown::render(&doc.markdown),
        };
        page("doc.html", &doc_href(&doc.path), false, ctx)?;
    }
    let run_pages: Vec<(usize, usize)> = corpus
        .experiments
        .iter()
        .enumerate()
        .flat_map(|(e, loaded)| (0..loaded.runs.len()).map(move |r| (e, r)))
        .collect();
    let progress = if quiet || run_pages.len() < PROGRESS_THRESHOLD {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(run_pages.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} run pages")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix("rendering");
        bar
    };
    run_pages.par_iter().try_for_each(|&(e, r)| -> Result<()> {
        let loaded = &corpus.experiments[e];
        let view = site::run_view(corpus, loaded, r);
        let path = run_href(&view.id);
        let html = renderer.page(
            "run.html",
            &path,
            view.simulated,
            minijinja::context! { run => view },
        )?;
        staging.write(&path, html.as_bytes())?;
        progress.inc(1);
        Ok(())
    })?;
    progress.finish_and_clear();
    Ok(pages + run_pages.len())
}

/// Publishes the raw records under `data/`, mirroring `experiments/`, so
/// every number can be recomputed from what the site serves.
fn publish_data(corpus: &Corpus, staging: &Staging) -> Result<()> {
    let src = corpus.root.join("experiments");
    let mut files: Vec<String> = Vec::new();
    files.extend(
        corpus
            .tasks
            .keys()
            .map(|id| format!("{TASKS_DIR}/{id}.json")),
    );
    files.extend(corpus.objects.keys().map(|d| format!("{OBJECTS_DIR}/{d}")));
    for e in &corpus.experiments {
        let dir = &e.dir;
        files.extend(
            site::experiment_records(e)
                .into_iter()
                .map(|name| format!("{dir}/{name}")),
        );
        files.extend(e.runs.iter().map(|r| format!("{dir}/runs/{}.json", r.id)));
    }
    files
        .par_iter()
        .try_for_each(|rel| staging.copy(&format!("data/{rel}"), &src.join(rel)))
}

/// A one-line account of the build, for the terminal.
pub fn describe(report: &BuildReport, out: &Path) -> String {
    let stages: Vec<String> = report
        .stages
        .iter()
        .map(|(name, d)| format!("{name} {:.2}s", d.as_secs_f64()))
        .collect();
    format!(
        "built {}: {} experiments, {} runs, {} pages, {} files in {:.2}s ({})",
        out.display(),
        report.experiments,
        report.runs,
        report.pages,
        report.files,
        report.total().as_secs_f64(),
        stages.join(", ")
    )
}
