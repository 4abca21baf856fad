//! `receipts build`: load → validate → verify → model → render → write, each
//! stage timed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{self, Builder, SitePredicate, STATEMENT, SUMS};
use receipts_verifier::verify::{Status, Tally};

use crate::cache::{self, RunCache};
use crate::data;
use crate::error::InputError;
use crate::load::{self, Corpus};
use crate::pages;
use crate::render::{Pin, Renderer, Theme, VerifyScope};
use crate::site::{self, run_href};
use crate::validate;
use crate::verification;
use crate::write::Staging;
use receipts_verifier::verify::Scope;

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
    /// Read templates and page assets from this directory instead of the
    /// ones built in (`receipts serve` uses `site-templates/` when present).
    pub templates: Option<PathBuf>,
    /// Delete the replaced site on a background thread instead of before
    /// returning (`receipts serve`, which keeps running).
    pub background_cleanup: bool,
    /// Runs kept from the previous build, and kept for the next
    /// (`receipts serve`); see [`crate::cache`].
    pub cache: Option<Arc<RunCache>>,
    /// Publish run records gzipped (`data/<dir>/runs/<run>.json.gz`): a
    /// site of many runs then fits a host's size limit.
    pub compress_records: bool,
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub experiments: usize,
    pub runs: usize,
    pub pages: usize,
    pub files: usize,
    /// Runs kept from the previous build: not verified or rendered again.
    pub kept: usize,
    /// The size of the site, every file counted once.
    pub bytes: u64,
    pub stages: Vec<(&'static str, Duration)>,
    /// SHA-256 of `SHA256SUMS`.
    pub root_digest: String,
    /// SHA-256 of `data/SHA256SUMS`.
    pub records_digest: String,
    pub tally: Tally,
    /// Every receipt that did not pass.
    pub not_passing: Vec<receipts_verifier::verify::Receipt>,
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

    let staging = Staging::new(&options.out)?;
    let records_digest = data::publish(&corpus, &staging)?;
    let theme = match &options.templates {
        Some(dir) => Theme::from_dir(dir)?,
        None => Theme::embedded(),
    };
    let site_info = site::site_info(&corpus, &records_digest, options.compress_records);
    let context = cache::context(&corpus, &site_info, &theme);
    let kept = match &options.cache {
        Some(cache) => cache.usable(&context, staging.previous_manifest()),
        None => Arc::default(),
    };
    let renderer = Renderer::new(site_info, &theme)?;
    let run_count: usize = corpus.experiments.iter().map(|e| e.runs.len()).sum();
    let progress = progress_bar(run_count, options.quiet);
    // Each run's neighbours (its cell's other runs, the run replacing it), found once.
    let neighbours: Vec<site::Neighbours<'_>> =
        corpus.experiments.iter().map(site::neighbours).collect();
    // A kept run's record and page are the previous site's, linked as they are.
    let kept_runs = AtomicUsize::new(0);
    let take = |loaded: &load::LoadedExperiment, index: usize, rel: &str| -> Result<bool> {
        let page = run_href(&loaded.runs[index].id);
        if !staging.reuse(&page, None)? {
            return Ok(false);
        }
        if !data::reuse_record(&corpus, &staging, rel, options.compress_records)? {
            staging.forget(&page)?;
            return Ok(false);
        }
        progress.inc(1);
        kept_runs.fetch_add(1, Ordering::Relaxed);
        Ok(true)
    };
    let reuse = options.cache.as_ref().map(|_| verification::Reuse {
        kept: &kept,
        take: &take,
        fresh: Mutex::new(HashMap::new()),
    });
    let verified = verification::verify(
        &corpus,
        verification::Keep::NotPassing,
        reuse.as_ref(),
        |pass| {
            let rel = pass.loaded.run_path(&pass.run.id);
            data::write_record(
                &corpus,
                &staging,
                &rel,
                pass.bytes,
                options.compress_records,
            )?;
            run_page(
                &corpus,
                &renderer,
                &staging,
                &neighbours[pass.experiment],
                &pass,
                options.compress_records,
            )?;
            progress.inc(1);
            Ok(())
        },
    )?;
    progress.finish_and_clear();
    let fresh = reuse.map(|r| r.fresh.into_inner().unwrap_or_else(|e| e.into_inner()));
    timer.lap("runs");
    let pages = pages::render(&corpus, &verified, &renderer, &staging)? + run_count;
    timer.lap("pages");
    data::check_published(&corpus, &staging)?;
    for (rel, bytes) in &theme.assets {
        staging.write(rel, bytes)?;
    }
    staging.write(".nojekyll", b"")?;
    let tally = verified.tally();
    let not_passing: Vec<_> = verified
        .receipts()
        .filter(|r| r.status != Status::Pass)
        .cloned()
        .collect();
    let predicate = SitePredicate {
        builder: Builder {
            name: "receipts".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
        records_digest: records_digest.clone(),
        verification: tally,
        not_passing: not_passing.clone(),
    };
    let statement = manifest::statement(&staging.digests(), predicate);
    staging.write(STATEMENT, &json_bytes(&statement)?)?;
    let sums = manifest::format_sums(&staging.digests());
    let root_digest = sha256_hex(sums.as_bytes());
    staging.write(SUMS, sums.as_bytes())?;
    let files = staging.files();
    let bytes = staging.bytes();
    let previous = staging.commit()?;
    if let (Some(cache), Some(fresh)) = (&options.cache, fresh) {
        cache.store(context, root_digest.clone(), fresh);
    }
    if options.background_cleanup {
        previous.remove_in_background();
    } else {
        drop(previous);
    }
    timer.lap("write");
    Ok(BuildReport {
        experiments: corpus.experiments.len(),
        runs: run_count,
        pages,
        files,
        kept: kept_runs.into_inner(),
        bytes,
        stages: timer.stages,
        root_digest,
        records_digest,
        tally,
        not_passing,
    })
}

fn json_bytes<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).context("serializing")?;
    bytes.push(b'\n');
    Ok(bytes)
}

fn progress_bar(runs: usize, quiet: bool) -> ProgressBar {
    if quiet || runs < PROGRESS_THRESHOLD {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} runs")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix("verifying and rendering");
    bar
}

/// Renders and writes the page of the run in `pass`.
fn run_page(
    corpus: &Corpus,
    renderer: &Renderer,
    staging: &Staging,
    neighbours: &site::Neighbours<'_>,
    pass: &verification::RunPass<'_>,
    gzipped: bool,
) -> Result<()> {
    let (loaded, run) = (pass.loaded, pass.run);
    let view = site::run_view(
        corpus,
        loaded,
        pass.index,
        run,
        pass.verification,
        neighbours,
        gzipped,
    );
    let path = run_href(&view.id);
    let scope = Scope::Run {
        experiment: loaded.dir.clone(),
        run: run.id.clone(),
    };
    let record = loaded.run_path(&run.id);
    let files = site::run_files(corpus, loaded, run, gzipped);
    let verify = VerifyScope::of(&scope, &files).pinned(Pin {
        label: "Record digest".to_string(),
        path: site::record_href(loaded, &run.id, gzipped),
        digest: corpus
            .record_digests
            .get(&record)
            .cloned()
            .unwrap_or_default(),
        gzipped,
    });
    let html = renderer.page(
        "run.html",
        &path,
        view.simulated,
        &verify,
        minijinja::context! { run => view },
    )?;
    staging.write(&path, html.as_bytes())
}

/// A one-line account of the build, for the terminal.
pub fn describe(report: &BuildReport, out: &Path) -> String {
    let stages: Vec<String> = report
        .stages
        .iter()
        .map(|(name, d)| format!("{name} {:.2}s", d.as_secs_f64()))
        .collect();
    let t = report.tally;
    let kept = match report.kept {
        0 => String::new(),
        n => format!("; {n} unchanged runs kept from the previous build"),
    };
    format!(
        "built {}: {} experiments, {} runs, {} pages, {} files in {:.2}s ({}){kept}\nreceipts: {} checked, {} pass, {} fail, {} could not be checked\nroot digest {} (SHA-256 of {SUMS})",
        out.display(),
        report.experiments,
        report.runs,
        report.pages,
        report.files,
        report.total().as_secs_f64(),
        stages.join(", "),
        t.total(),
        t.pass,
        t.fail,
        t.could_not_check,
        report.root_digest,
    )
}
