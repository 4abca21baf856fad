//! Every page of a site, written to an [`Output`]: the run pages as each run
//! is verified ([`runs`]), then the rest ([`render`]): the results, the runs
//! index, each experiment, the verify and compare pages, the showcase, the
//! documents and (in `suites`) the harness and regression suites. A build
//! writes them into its staging directory; the browser's page check renders
//! them into memory (`crate::browser`).

use serde::Serialize;

use receipts_verifier::verify::{Scope, MEMOS_DIR};

use crate::error::BuildError;

type Result<T, E = BuildError> = std::result::Result<T, E>;
use crate::load::{Corpus, DOCS_DIR};
use crate::render::{Pin, Renderer, VerifyScope};
use crate::site::{self, doc_href, experiment_href, run_href, Origin};
use crate::verification::{self, Keep, Reuse, RunPass, Verified};

mod suites;

/// Where rendered files go.
pub trait Output: Sync {
    /// Writes the file at `rel` (relative to the site root, `/`-separated).
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<()>;
}

/// Verifies every run of `corpus` (see [`verification::verify`]) and renders
/// each run's page into `out` as its pass ends; `each` is then called with
/// the pass (a build publishes the record there). Run records are published
/// gzipped when `gzipped`.
pub fn runs<F>(
    corpus: &Corpus,
    renderer: &Renderer,
    out: &dyn Output,
    keep: Keep,
    reuse: Option<&Reuse<'_>>,
    gzipped: bool,
    each: F,
) -> Result<Verified, BuildError>
where
    F: Fn(&RunPass<'_>) -> Result<()> + Sync,
{
    // Each run's neighbours (its cell's other runs, the run replacing it), found once.
    let neighbours: Vec<site::Neighbours<'_>> =
        corpus.experiments.iter().map(site::neighbours).collect();
    verification::verify(corpus, keep, reuse, |pass| {
        run_page(
            corpus,
            renderer,
            out,
            &neighbours[pass.experiment],
            &pass,
            gzipped,
        )?;
        each(&pass)
    })
}

/// Renders and writes the page of the run in `pass`.
fn run_page(
    corpus: &Corpus,
    renderer: &Renderer,
    out: &dyn Output,
    neighbours: &site::Neighbours<'_>,
    pass: &RunPass<'_>,
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
        view.origin,
        &verify,
        minijinja::context! { run => view },
    )?;
    out.write(&path, html.as_bytes())
}

#[derive(Serialize)]
struct ShowcasePick {
    run: String,
    /// Its note, a claim: HTML with each number's mark.
    note_html: String,
    href: String,
}

/// Renders and writes every page but the run pages; returns how many.
pub fn render(
    corpus: &Corpus,
    verified: &Verified,
    renderer: &Renderer,
    staging: &dyn Output,
) -> Result<usize> {
    let site_origin = site::site_origin(corpus);
    let runs_origin = site::experiments_origin(corpus);
    let all = VerifyScope::of(&Scope::All, &[]);
    let none = VerifyScope::of(&Scope::None, &[]);
    let mut out = Pages {
        renderer,
        staging,
        count: 0,
    };
    let figures = site::study_claim_figures(corpus, verified);
    let experiments: Vec<site::ExperimentView> = corpus
        .experiments
        .iter()
        .zip(&verified.experiments)
        .map(|(loaded, v)| {
            let origin = site::experiment_origin(corpus, loaded);
            site::experiment_view(loaded, v, &figures, origin)
        })
        .collect();
    let suites: Vec<site::SuiteSummary> = corpus
        .harness
        .iter()
        .zip(&verified.harness)
        .map(|(loaded, v)| site::suite_summary(loaded, v))
        .collect();
    let regressions: Vec<site::RegressionSummary> = corpus
        .regressions
        .iter()
        .zip(&verified.regressions)
        .map(|(loaded, v)| site::regression_summary(loaded, v))
        .collect();
    let evals: Vec<site::EvalSummary> = corpus
        .imports
        .iter()
        .zip(&verified.imports)
        .flat_map(|(loaded, v)| site::eval_summaries(loaded, &v.evals))
        .collect();
    let traces: Vec<site::TracesSummary> = corpus
        .imports
        .iter()
        .zip(&verified.imports)
        .flat_map(|(loaded, v)| site::traces_summaries(loaded, &v.traces))
        .collect();
    out.write(
        "index.html",
        "index.html",
        site_origin,
        &all,
        minijinja::context! {
            experiments => &experiments,
            evals => &evals,
            traces => &traces,
            study => site::study_view(corpus, verified, &experiments),
            suites => &suites,
            regressions => &regressions,
        },
    )?;
    out.write(
        "verify.html",
        "verify.html",
        site_origin,
        &all,
        minijinja::context! {
            trust_doc => corpus.docs.iter().any(|d| d.path == "TRUST.md"),
        },
    )?;
    // The runs index's parts, as the runs index below writes them: the
    // compare page looks its runs up there.
    let run_count: usize = corpus.experiments.iter().map(|e| e.runs.len()).sum();
    let run_parts: Vec<String> = (1..=run_count.div_ceil(site::PART_ROWS))
        .map(|i| format!("runs/rows-{i}.json"))
        .collect();
    out.write(
        "compare.html",
        "compare.html",
        runs_origin,
        &none,
        minijinja::context! { parts => run_parts },
    )?;
    for (view, loaded) in experiments.iter().zip(&corpus.experiments) {
        let scope = VerifyScope::of(
            &Scope::Experiment {
                experiment: loaded.dir.clone(),
                with: site::experiment_reads(corpus, &loaded.dir),
            },
            &[],
        );
        out.write(
            "experiment.html",
            &experiment_href(&view.id),
            view.origin,
            &scope,
            minijinja::context! { e => view },
        )?;
    }
    let rows: Vec<site::RunRow> = corpus
        .experiments
        .iter()
        .zip(&verified.experiments)
        .flat_map(|(e, v)| {
            e.runs
                .iter()
                .zip(&v.runs)
                .map(move |(r, rv)| site::run_row(e, r, rv))
        })
        .collect();
    // The index in parts for the browser's filters, then in pages for reading.
    // Each part names the model of each tier its runs tried, so the search
    // finds runs by model.
    let models: std::collections::BTreeMap<&str, std::collections::BTreeMap<&str, &str>> = corpus
        .experiments
        .iter()
        .map(|e| {
            let tiers = e.experiment.tiers.iter();
            let by_tier = tiers.map(|t| (t.id.as_str(), t.model.as_str())).collect();
            (e.experiment.id.as_str(), by_tier)
        })
        .collect();
    let parts: Vec<&[site::RunRow]> = rows.chunks(site::PART_ROWS).collect();
    for (i, part) in parts.iter().enumerate() {
        let compact: Vec<site::Compact> = part.iter().map(site::compact).collect();
        let named: std::collections::BTreeMap<&str, _> = part
            .iter()
            .filter_map(|r| models.get_key_value(r.experiment.as_str()))
            .map(|(k, v)| (*k, v))
            .collect();
        let json =
            serde_json::json!({ "columns": site::COLUMNS, "models": named, "rows": compact });
        staging.write(
            &format!("runs/rows-{}.json", i + 1),
            json.to_string().as_bytes(),
        )?;
    }
    for index in site::pages(&rows, parts.len()) {
        let path = site::page_href(index.number);
        out.write(
            "runs.html",
            &path,
            runs_origin,
            &all,
            minijinja::context! { index => index },
        )?;
    }
    if let Some(showcase) = &corpus.showcase {
        let picks: Vec<ShowcasePick> = showcase
            .showcase
            .runs
            .iter()
            .map(|r| ShowcasePick {
                run: r.run.clone(),
                note_html: site::parts_html(&site::claim_parts(&r.note, &figures)),
                href: run_href(&r.run),
            })
            .collect();
        let ctx = minijinja::context! {
            title => &showcase.showcase.title,
            narrative_html => crate::markdown::render_memo(
                &showcase.narrative,
                &site::MemoClaims { figures: &figures },
                1,
            ),
            picks => picks,
        };
        out.write("showcase.html", "showcase.html", runs_origin, &none, ctx)?;
    }
    if !corpus.docs.is_empty() {
        let ctx = minijinja::context! { docs => site::doc_links(corpus) };
        out.write("docs.html", "documents.html", Origin::Recorded, &none, ctx)?;
    }
    for doc in &corpus.docs {
        let memo = doc.path.starts_with(MEMOS_DIR);
        let ctx = minijinja::context! {
            title => site::doc_title(&doc.markdown, &doc.path),
            source => &doc.path,
            memo => memo,
            claims => if memo { site::memo_rows(&doc.markdown, &figures) } else { Vec::new() },
            html => if memo {
                crate::markdown::render_memo(&doc.markdown, &site::MemoClaims { figures: &figures }, 0)
            } else {
                crate::markdown::render(&doc.markdown)
            },
        };
        let scope = if memo {
            VerifyScope::of(
                &Scope::Document {
                    path: format!("{DOCS_DIR}/{}", doc.path),
                    with: site::memo_reads(corpus, &doc.markdown),
                },
                &[],
            )
        } else {
            none.clone()
        };
        out.write(
            "doc.html",
            &doc_href(&doc.path),
            if memo { site_origin } else { Origin::Recorded },
            &scope,
            ctx,
        )?;
    }
    suites::imports(corpus, verified, &mut out)?;
    suites::harness(corpus, verified, &mut out)?;
    suites::regressions(corpus, verified, &mut out)?;
    Ok(out.count)
}

/// Renders pages into an [`Output`], counting them.
struct Pages<'a> {
    renderer: &'a Renderer,
    staging: &'a dyn Output,
    count: usize,
}

impl Pages<'_> {
    /// Renders `template` as the page at `path` and writes it.
    fn write<C: Serialize>(
        &mut self,
        template: &str,
        path: &str,
        origin: Origin,
        verify: &VerifyScope,
        context: C,
    ) -> Result<()> {
        let html = self
            .renderer
            .page(template, path, origin, verify, context)?;
        self.staging.write(path, html.as_bytes())?;
        self.count += 1;
        Ok(())
    }
}
