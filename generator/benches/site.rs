//! Benchmarks of the site build: rendering one run page, rendering the
//! experiment page of 1,000 runs, and a whole `receipts build` of 1,000 runs.
//!
//! The input is one simulated experiment of 1,000 runs (`simulate::scale`),
//! written once to a temporary directory, since the build reads its input from
//! disk; the build writes its site beside it.
//! Run with `cargo bench -p receipts` or `scripts/bench-functions`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

use receipts::build::{build, BuildOptions};
use receipts::load::{self, Corpus};
use receipts::render::{Renderer, Theme, VerifyScope};
use receipts::site::{self, experiment_href, run_href};
use receipts::{simulate, verification};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::verify::Scope;

/// Runs in the simulated experiment.
const RUNS: usize = 1_000;

fn renderer(corpus: &Corpus) -> Renderer {
    // Any digests do: the page shows them and nothing checks them here.
    let digests = site::Digests {
        records: sha256_hex(b"records"),
        root: sha256_hex(b"root"),
        verifier: sha256_hex(b"verifier"),
    };
    Renderer::new(site::site_info(corpus, digests, false), &Theme::embedded())
        .expect("the embedded templates compile")
}

fn render(c: &mut Criterion, corpus: &Corpus) {
    // The first run as its page sees it: the record and its whole verification.
    let first = std::sync::Mutex::new(None);
    let verified = verification::verify(corpus, verification::Keep::NotPassing, None, |pass| {
        if pass.index == 0 {
            *first.lock().expect("not poisoned") =
                Some((pass.run.clone(), pass.verification.clone()));
        }
        Ok(())
    })
    .expect("the simulated runs verify");
    let (run, run_verification) = first
        .into_inner()
        .expect("not poisoned")
        .expect("a first run");
    let renderer = renderer(corpus);
    let loaded = &corpus.experiments[0];
    let verification = &verified.experiments[0];
    let neighbours = site::neighbours(loaded);
    let mut group = c.benchmark_group("render");

    // What the build does for each run page: its view, its verify scope, the page.
    group.bench_function("run-page", |b| {
        b.iter(|| {
            let index = black_box(0);
            let view = site::run_view(
                corpus,
                loaded,
                index,
                &run,
                &run_verification,
                &neighbours,
                false,
            );
            let path = run_href(&view.id);
            let scope = Scope::Run {
                experiment: loaded.dir.clone(),
                run: run.id.clone(),
            };
            let verify = VerifyScope::of(&scope, &site::run_files(corpus, loaded, &run, false));
            renderer
                .page(
                    "run.html",
                    &path,
                    site::Origin::simulator_if(view.simulated),
                    &verify,
                    minijinja::context! { run => view },
                )
                .expect("the run page renders")
        });
    });

    // The experiment page: its view (tables, figures, charts) and the page.
    let scope = VerifyScope::of(
        &Scope::Experiment {
            experiment: loaded.dir.clone(),
            with: Vec::new(),
        },
        &[],
    );
    let figures = site::study_claim_figures(corpus, &verified);
    group.sample_size(20);
    group.bench_function(format!("experiment-page-{}-runs", loaded.runs.len()), |b| {
        b.iter(|| {
            let origin = site::experiment_origin(corpus, loaded);
            let view = site::experiment_view(black_box(loaded), verification, &figures, origin);
            renderer
                .page(
                    "experiment.html",
                    &experiment_href(&view.id),
                    site::Origin::simulator_if(view.simulated),
                    &scope,
                    minijinja::context! { e => view },
                )
                .expect("the experiment page renders")
        });
    });
    group.finish();
}

fn build_site(c: &mut Criterion, root: &std::path::Path, runs: usize) {
    let options = BuildOptions {
        root: root.to_path_buf(),
        out: root.join("site"),
        quiet: true,
        templates: None,
        background_cleanup: false,
        cache: None,
        compress_records: false,
        in_place: None,
    };
    let mut group = c.benchmark_group("build");
    // Long iterations: flat sampling (the same count in every sample, at least one) keeps ten
    // samples near the measurement time instead of 1 + 2 + … + 10 iterations.
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(runs as u64));
    group.bench_function(format!("{runs}-runs"), |b| {
        b.iter(|| build(black_box(&options)).expect("the site builds"));
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (rel, bytes) in simulate::scale(RUNS) {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a file in a folder")).expect("a folder");
        std::fs::write(&path, bytes).expect("the input is written");
    }
    let corpus = load::load(dir.path()).expect("the input loads");
    let runs = corpus.experiments.iter().map(|e| e.runs.len()).sum();
    render(c, &corpus);
    build_site(c, dir.path(), runs);
}

criterion_group!(site, benches);
criterion_main!(site);
