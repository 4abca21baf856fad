//! `receipts build`: load → validate → verify → model → render → write, each
//! stage timed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use sha2::{Digest, Sha256};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::manifest::{
    self, Builder, SitePredicate, RECORDS_SUMS, STATEMENT, SUMS, VERIFIER_DIR,
};
use receipts_verifier::verify::calls::SitePrints;
use receipts_verifier::verify::{Receipt, Status, Tally};

use crate::cache::{self, RunCache};
use crate::data;
use crate::load::{self, Corpus, LoadedExperiment};
use crate::numbers::count;
use crate::pages;
use crate::publish;
use crate::render::{RenderError, Renderer, Theme};
use crate::site::{self, Counts};
use crate::validate;
use crate::verification::{self, Keep};
use crate::write::in_place::InPlace;
use crate::write::{Difference, Staging};

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
    /// Change the site this process wrote last in place instead of
    /// writing a new one (`receipts serve`); see [`crate::write::in_place`].
    pub in_place: Option<Arc<InPlace>>,
}

/// What a build produced.
#[derive(Debug, Clone)]
pub struct Built {
    /// How many records of each kind the site holds.
    pub counts: Counts,
    pub pages: usize,
    pub files: usize,
    /// Runs whose verification was kept from the previous build.
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
    pub not_passing: Vec<Receipt>,
    /// Every receipt kept ([`rebuild`] keeps them all; a build none).
    pub receipts: Vec<Receipt>,
    /// The prints of every run's calls ([`rebuild`] keeps them, for a root
    /// that lists the site as a shard; a build none).
    pub prints: SitePrints,
}

impl Built {
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }
}

use crate::error::BuildError;

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

pub fn build(options: &BuildOptions) -> Result<Built, BuildError> {
    build_site(options).map_err(|e| match e {
        BuildError::Input(input) => BuildError::Input(input.located(&options.root)),
        other => other,
    })
}

/// [`build`], before its input errors are given their line and column.
fn build_site(options: &BuildOptions) -> Result<Built, BuildError> {
    let mut timer = Timer {
        stages: Vec::new(),
        last: Instant::now(),
    };
    let corpus = load::load_with(&options.root, options.cache.as_deref().map(|c| &c.heads))?;
    timer.lap("load");
    validate::validate(&corpus)?;
    timer.lap("validate");
    let in_place = options.in_place.as_deref();
    let staging = match in_place {
        Some(in_place) if !options.compress_records => Staging::update(&options.out, in_place)
            .map_or_else(|| Staging::new(&options.out), Ok)?,
        _ => Staging::new(&options.out)?,
    };
    let (mut report, staging, fresh) =
        render(&corpus, options, staging, None, Keep::NotPassing, timer)?;
    let committing = Instant::now();
    let previous = match in_place {
        Some(in_place) => {
            let page_context = page_context(&corpus, fresh.as_ref().map(|(c, _)| c.as_str()));
            staging.commit_remembered(in_place, &report.root_digest, page_context)?;
            None
        }
        None => Some(staging.commit()?),
    };
    if let (Some(cache), Some((context, fresh))) = (&options.cache, fresh) {
        cache.store(context, report.root_digest.clone(), fresh);
    }
    match previous {
        Some(previous) if options.background_cleanup => previous.remove_in_background(),
        previous => drop(previous),
    }
    report.stages.push(("commit", committing.elapsed()));
    Ok(report)
}

/// What rendering a built site again from its own `data/` found.
pub struct Rebuilt {
    pub report: Built,
    /// Every receipt of the records, passing or not.
    pub receipts: Vec<Receipt>,
    /// Every file of the site that is not what the records render to.
    pub differences: Vec<Difference>,
}

/// Renders the site in `site` again from the records it publishes (`corpus`,
/// read by [`load::load_site`]), with the root digest its `SHA256SUMS` has
/// (`root_digest`), and compares every file with the site's, writing nothing.
pub fn rebuild(site: &Path, corpus: Corpus, root_digest: &str) -> Result<Rebuilt, BuildError> {
    let timer = Timer {
        stages: Vec::new(),
        last: Instant::now(),
    };
    validate::validate_published(&corpus)?;
    let options = BuildOptions {
        root: site.to_path_buf(),
        out: site.to_path_buf(),
        quiet: true,
        templates: None,
        background_cleanup: false,
        cache: None,
        compress_records: data::records_gzipped(&corpus),
        in_place: None,
    };
    let staging = Staging::compare(site);
    let (mut report, staging, _) = render(
        &corpus,
        &options,
        staging,
        Some(root_digest.to_string()),
        Keep::All,
        timer,
    )?;
    let receipts = std::mem::take(&mut report.receipts);
    Ok(Rebuilt {
        report,
        receipts,
        differences: staging.differences()?,
    })
}

/// Files by path, with their bytes.
pub type Files = Vec<(String, Vec<u8>)>;

/// The code a site carries, by path: the theme's assets and a copy of the
/// standalone verifier under `verifier/`; and that copy's manifest digest.
pub fn code(theme: &Theme) -> Result<(Files, String), RenderError> {
    let (verifier, digest) = crate::standalone::with_manifest()?;
    let mut code = theme.assets.clone();
    code.extend(
        verifier
            .into_iter()
            .map(|(name, bytes)| (format!("{VERIFIER_DIR}/{name}"), bytes)),
    );
    Ok((code, digest))
}

/// The root manifest `SHA256SUMS` of a site whose records manifest has
/// `records_digest` and whose code is `code` (see [`code`]): what the site
/// is made from (see [`manifest::is_listed`]).
pub fn root_manifest(records_digest: &str, code: &[(String, Vec<u8>)]) -> String {
    let mut listed: std::collections::BTreeMap<String, String> = code
        .iter()
        .map(|(path, bytes)| (path.clone(), sha256_hex(bytes)))
        .collect();
    listed.insert(RECORDS_SUMS.to_string(), records_digest.to_string());
    listed.insert(NOJEKYLL.to_string(), sha256_hex(b""));
    manifest::format_sums(&listed)
}

/// Asks GitHub Pages to serve the site as it is (no Jekyll).
const NOJEKYLL: &str = ".nojekyll";

/// What a rebuild keeps for the next: its context and every run's verification.
type Fresh = Option<(String, HashMap<String, crate::verification::CachedRun>)>;

/// Verifies, renders and writes `corpus` into `staging`, with the root
/// digest the manifest gives, or `root_digest` when rendering a built site
/// again.
fn render(
    corpus: &Corpus,
    options: &BuildOptions,
    mut staging: Staging,
    root_digest: Option<String>,
    keep: Keep,
    mut timer: Timer,
) -> Result<(Built, Staging, Fresh), BuildError> {
    let records_digest = publish::publish(corpus, &staging)?;
    let theme = match &options.templates {
        Some(dir) => Theme::from_dir(dir)?,
        None => Theme::embedded(),
    };
    let (code, verifier_digest) = code(&theme)?;
    let sums = root_manifest(&records_digest, &code);
    let root_digest = root_digest.unwrap_or_else(|| sha256_hex(sums.as_bytes()));
    if options.in_place.is_some() {
        staging.track(&root_digest);
    }
    let site_info = site::site_info(
        corpus,
        site::Digests {
            records: records_digest.clone(),
            root: root_digest.clone(),
            verifier: verifier_digest,
        },
        options.compress_records,
    );
    let context = cache::context(corpus, &site_info, &theme);
    let kept = match &options.cache {
        Some(cache) => cache.usable(&context, staging.previous_manifest()),
        None => Arc::default(),
    };
    let renderer = Renderer::new(site_info, &theme)?;
    let run_count: usize = corpus.experiments.iter().map(|e| e.runs.len()).sum();
    let progress = progress_bar(run_count, options.quiet);
    let gzipped = options.compress_records;
    // A kept run whose page read nothing that changed: its record and page
    // stay as they are on disk, but for the root digest.
    let last = staging
        .last()
        .filter(|last| last.page_context == page_context(corpus, Some(&context)));
    let unchanged = |loaded: &LoadedExperiment, index: usize| {
        let Some(last) = last else {
            return false;
        };
        let id = &loaded.runs[index].place.id;
        let rel = loaded.run_path(id);
        let unchanged = corpus
            .record_digests
            .get(&rel)
            .is_some_and(|digest| staging.keep(&layout::published(&rel, false), digest))
            && staging.patch(&site::run_href(id), &last.root_digest, &root_digest);
        if unchanged {
            progress.inc(1);
        }
        unchanged
    };
    let reuse = options.cache.as_ref().map(|_| verification::Reuse {
        kept: &kept,
        fresh: Mutex::new(HashMap::new()),
        hits: AtomicUsize::new(0),
        unchanged: Some(&unchanged),
    });
    let verified = pages::runs(
        corpus,
        &renderer,
        &staging,
        keep,
        reuse.as_ref(),
        gzipped,
        |pass| {
            let rel = pass.loaded.run_path(&pass.run.id);
            publish::write_record(corpus, &staging, &rel, pass.bytes, gzipped)?;
            progress.inc(1);
            Ok(())
        },
    )?;
    progress.finish_and_clear();
    let (kept_runs, fresh) = match reuse {
        Some(r) => (
            r.hits.into_inner(),
            Some((
                context,
                r.fresh
                    .into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            )),
        ),
        None => (0, None),
    };
    timer.lap("runs");
    let pages = pages::render(corpus, &verified, &renderer, &staging)? + run_count;
    timer.lap("pages");
    publish::check_published(corpus, &staging)?;
    for (rel, bytes) in &code {
        staging.write(rel, bytes)?;
    }
    staging.write(NOJEKYLL, b"")?;
    staging.write(SUMS, sums.as_bytes())?;
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
        root_digest: root_digest.clone(),
        records_digest: records_digest.clone(),
        verification: tally,
        not_passing: not_passing.clone(),
    };
    let statement = manifest::statement(&staging.digests(), predicate);
    staging.write(STATEMENT, &statement_bytes(&statement)?)?;
    timer.lap("write");
    let (receipts, prints) = match keep {
        Keep::All => (
            verified.receipts().cloned().collect(),
            prints(corpus, &verified),
        ),
        Keep::NotPassing => (Vec::new(), SitePrints::default()),
    };
    let report = Built {
        counts: Counts::of(corpus),
        pages,
        files: staging.files(),
        kept: kept_runs,
        bytes: staging.bytes(),
        stages: timer.stages,
        root_digest,
        records_digest,
        tally,
        not_passing,
        receipts,
        prints,
    };
    Ok((report, staging, fresh))
}

/// The prints of every run's calls, by record path.
fn prints(corpus: &Corpus, verified: &verification::Verified) -> SitePrints {
    SitePrints {
        runs: corpus
            .experiments
            .iter()
            .zip(&verified.experiments)
            .flat_map(|(loaded, v)| {
                v.runs
                    .iter()
                    .map(|r| (loaded.run_path(&r.facts.place.id), r.facts.prints.clone()))
            })
            .collect(),
    }
}

/// What a run page reads besides its own record and verification: the
/// context of its verification (see [`cache::context`]) and, for its links
/// to the runs beside it, every run's cell and what it replaces.
fn page_context(corpus: &Corpus, context: Option<&str>) -> String {
    let mut hash = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    field(context.unwrap_or_default().as_bytes());
    for loaded in &corpus.experiments {
        field(loaded.dir.as_bytes());
        for r in &loaded.runs {
            for part in [
                &r.place.id,
                &r.place.task,
                &r.place.profile,
                &r.place.policy,
            ] {
                field(part.as_bytes());
            }
            field(&r.place.seed.to_le_bytes());
            field(r.place.replaces.as_deref().unwrap_or("\0").as_bytes());
        }
    }
    format!("{:x}", hash.finalize())
}

/// The statement with one subject a line: a site of 100,000 runs names
/// 200,000 files, which pretty-printed take half as many bytes again.
fn statement_bytes(statement: &manifest::Statement<SitePredicate>) -> Result<Vec<u8>, BuildError> {
    fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, BuildError> {
        serde_json::to_string(value).map_err(BuildError::Statement)
    }
    let mut out = String::from("{\n  \"_type\": ");
    out += &json(&statement.type_)?;
    out += ",\n  \"subject\": [";
    for (i, subject) in statement.subject.iter().enumerate() {
        out += if i == 0 { "\n    " } else { ",\n    " };
        out += &json(subject)?;
    }
    out += "\n  ],\n  \"predicateType\": ";
    out += &json(&statement.predicate_type)?;
    out += ",\n  \"predicate\": ";
    // JSON strings hold no raw line breaks: each one is the pretty layout's.
    let predicate =
        serde_json::to_string_pretty(&statement.predicate).map_err(BuildError::Statement)?;
    out += &predicate.replace('\n', "\n  ");
    out += "\n}\n";
    Ok(out.into_bytes())
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

/// A one-line account of the build, for the terminal.
pub fn describe(report: &Built, out: &Path) -> String {
    let stages: Vec<String> = report
        .stages
        .iter()
        .map(|(name, d)| format!("{name} {:.2}s", d.as_secs_f64()))
        .collect();
    let t = report.tally;
    let kept = match report.kept {
        0 => String::new(),
        n => format!(
            "; {} kept their verification from the previous build",
            count(n, "unchanged run", None)
        ),
    };
    format!(
        "built {}: {}, {}, {} in {:.2}s ({}){kept}\nreceipts: {} recomputed from the records, {} pass, {} fail, {} could not be checked (`receipts verify` adds a digest check of each file the manifests list and a check of the pages)\nroot digest {} (SHA-256 of {SUMS})",
        out.display(),
        report.counts.describe(),
        count(report.pages, "page", None),
        count(report.files, "file", None),
        report.total().as_secs_f64(),
        stages.join(", "),
        t.total(),
        t.pass,
        t.fail,
        t.could_not_check,
        report.root_digest,
    )
}
