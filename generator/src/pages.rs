//! The pages other than run pages: the results, the runs index, each
//! experiment, the verify and compare pages, the showcase, the documents
//! and the harness suites with their runs' reports.

use anyhow::Result;
use serde::Serialize;

use receipts_verifier::verify::Scope;

use crate::data;
use crate::load::Corpus;
use crate::render::{Pin, Renderer, VerifyScope};
use crate::site::{self, doc_href, experiment_href, run_href};
use crate::verification::Verified;
use crate::write::Staging;

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
        .any(|e| e.experiment.provenance.is_simulated());
    let all = VerifyScope::of(&Scope::All, &[]);
    let none = VerifyScope::of(&Scope::None, &[]);
    let mut pages = 0;
    let mut page = |template: &str,
                    path: &str,
                    simulated: bool,
                    verify: &VerifyScope,
                    ctx: minijinja::Value|
     -> Result<()> {
        let html = renderer.page(template, path, simulated, verify, ctx)?;
        staging.write(path, html.as_bytes())?;
        pages += 1;
        Ok(())
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
    page(
        "index.html",
        "index.html",
        any_simulated,
        &all,
        minijinja::context! { experiments => &experiments, suites => &suites },
    )?;
    page(
        "verify.html",
        "verify.html",
        any_simulated,
        &all,
        minijinja::context! {},
    )?;
    page(
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
        page(
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
        page(
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
        page("showcase.html", "showcase.html", any_simulated, &none, ctx)?;
    }
    if !corpus.docs.is_empty() {
        let ctx = minijinja::context! { docs => site::doc_links(corpus) };
        page("docs.html", "documents.html", false, &none, ctx)?;
    }
    for doc in &corpus.docs {
        let ctx = minijinja::context! {
            title => site::doc_title(&doc.markdown, &doc.path),
            source => &doc.path,
            html => crate::markdown::render(&doc.markdown),
        };
        page("doc.html", &doc_href(&doc.path), false, &none, ctx)?;
    }
    pages += harness(corpus, verified, renderer, staging)?;
    Ok(pages)
}

/// Each harness suite's page and its runs' report pages; returns how many.
fn harness(
    corpus: &Corpus,
    verified: &Verified,
    renderer: &Renderer,
    staging: &Staging,
) -> Result<usize> {
    let mut pages = 0;
    for (loaded, v) in corpus.harness.iter().zip(&verified.harness) {
        let suite_file = data::record_file(&loaded.suite_path(), false);
        let mut files = vec![suite_file.clone()];
        files.extend(
            loaded
                .runs
                .iter()
                .map(|r| data::record_file(&loaded.run_path(&r.id), false)),
        );
        let scope = Scope::Harness {
            suite: loaded.dir.clone(),
        };
        let view = site::suite_view(loaded, v);
        let path = site::harness_href(&loaded.dir);
        let html = renderer.page(
            "harness.html",
            &path,
            view.simulated,
            &VerifyScope::of(&scope, &files),
            minijinja::context! { s => view },
        )?;
        staging.write(&path, html.as_bytes())?;
        pages += 1;
        for (index, run) in loaded.runs.iter().enumerate() {
            let rel = loaded.run_path(&run.id);
            let record = data::record_file(&rel, false);
            let scope = Scope::HarnessRun {
                suite: loaded.dir.clone(),
                run: run.id.clone(),
            };
            let verify =
                VerifyScope::of(&scope, &[suite_file.clone(), record.clone()]).pinned(Pin {
                    label: "Record digest".to_string(),
                    path: record,
                    digest: corpus.record_digests.get(&rel).cloned().unwrap_or_default(),
                    gzipped: false,
                });
            let view = site::harness_run_view(loaded, index, v);
            let path = site::harness_run_href(&loaded.dir, &run.id);
            let html = renderer.page(
                "harness-run.html",
                &path,
                view.simulated,
                &verify,
                minijinja::context! { run => view },
            )?;
            staging.write(&path, html.as_bytes())?;
            pages += 1;
        }
    }
    Ok(pages)
}
