//! The pages other than run pages: the results, the runs index, each
//! experiment, the verify and compare pages, the showcase, the documents
//! and (in `suites`) the harness and regression suites.

use anyhow::Result;
use serde::Serialize;

use receipts_verifier::verify::Scope;

use crate::load::Corpus;
use crate::render::{Renderer, VerifyScope};
use crate::site::{self, doc_href, experiment_href, run_href};
use crate::verification::Verified;
use crate::write::Staging;

mod suites;

#[derive(Serialize)]
struct ShowcasePick {
    run: String,
    note: String,
    href: String,
}

/// Renders and writes every page but the run pages; returns how many.
pub fn render(
    corpus: &Corpus,
    verified: &Verified,
    renderer: &Renderer,
    staging: &Staging,
) -> Result<usize> {
    let any_simulated = corpus
        .experiments
        .iter()
        .any(|e| e.experiment.provenance.is_simulated())
        || corpus.harness.iter().any(site::suite_simulated)
        || corpus.regressions.iter().any(site::regressions_simulated);
    let all = VerifyScope::of(&Scope::All, &[]);
    let none = VerifyScope::of(&Scope::None, &[]);
    let mut out = Pages {
        renderer,
        staging,
        count: 0,
    };
    let experiments: Vec<site::ExperimentView> = corpus
        .experiments
        .iter()
        .zip(&verified.experiments)
        .map(|(loaded, v)| site::experiment_view(loaded, v))
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
    out.write(
        "index.html",
        "index.html",
        any_simulated,
        &all,
        minijinja::context! {
            experiments => &experiments,
            suites => &suites,
            regressions => &regressions,
        },
    )?;
    out.write(
        "verify.html",
        "verify.html",
        any_simulated,
        &all,
        minijinja::context! {
            trust_doc => corpus.docs.iter().any(|d| d.path == "TRUST.md"),
        },
    )?;
    out.write(
        "compare.html",
        "compare.html",
        any_simulated,
        &none,
        minijinja::context! {},
    )?;
    for (view, loaded) in experiments.iter().zip(&corpus.experiments) {
        let scope = VerifyScope::of(
            &Scope::Experiment {
                experiment: loaded.dir.clone(),
            },
            &[],
        );
        out.write(
            "experiment.html",
            &experiment_href(&view.id),
            view.simulated,
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
    let parts: Vec<&[site::RunRow]> = rows.chunks(site::PART_ROWS).collect();
    for (i, part) in parts.iter().enumerate() {
        let compact: Vec<site::Compact> = part.iter().map(site::compact).collect();
        let json = serde_json::json!({ "columns": site::COLUMNS, "rows": compact });
        staging.write(
            &format!("runs/rows-{}.json", i + 1),
            serde_json::to_string(&json)?.as_bytes(),
        )?;
    }
    for index in site::pages(&rows, parts.len()) {
        let path = site::page_href(index.number);
        out.write(
            "runs.html",
            &path,
            any_simulated,
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
                note: r.note.clone(),
                href: run_href(&r.run),
            })
            .collect();
        let ctx = minijinja::context! {
            title => &showcase.showcase.title,
            narrative_html => crate::markdown::render_below(&showcase.narrative, 1),
            picks => picks,
        };
        out.write("showcase.html", "showcase.html", any_simulated, &none, ctx)?;
    }
    if !corpus.docs.is_empty() {
        let ctx = minijinja::context! { docs => site::doc_links(corpus) };
        out.write("docs.html", "documents.html", false, &none, ctx)?;
    }
    for doc in &corpus.docs {
        let ctx = minijinja::context! {
            title => site::doc_title(&doc.markdown, &doc.path),
            source => &doc.path,
            html => crate::markdown::render(&doc.markdown),
        };
        out.write("doc.html", &doc_href(&doc.path), false, &none, ctx)?;
    }
    suites::harness(corpus, verified, &mut out)?;
    suites::regressions(corpus, verified, &mut out)?;
    Ok(out.count)
}

/// Renders pages into the staging directory, counting them.
struct Pages<'a> {
    renderer: &'a Renderer,
    staging: &'a Staging,
    count: usize,
}

impl Pages<'_> {
    /// Renders `template` as the page at `path` and writes it.
    fn write<C: Serialize>(
        &mut self,
        template: &str,
        path: &str,
        simulated: bool,
        verify: &VerifyScope,
        context: C,
    ) -> Result<()> {
        let html = self
            .renderer
            .page(template, path, simulated, verify, context)?;
        self.staging.write(path, html.as_bytes())?;
        self.count += 1;
        Ok(())
    }
}
