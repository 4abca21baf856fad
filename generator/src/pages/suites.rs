//! The pages of harness suites (a suite's leaderboard, each run's report)
//! and of regression suites (a suite's timeline, sieve, costs and
//! benchmark, each edit's verdict page). Each page's Verify control names
//! the records it checks; a run's or an edit's page pins its record's digest.

use receipts_verifier::layout;
use receipts_verifier::verify::Scope;

use crate::error::BuildError;
use crate::load::Corpus;
use crate::render::{Pin, VerifyScope};
use crate::site;
use crate::verification::Verified;

use super::Pages;

/// A page of one record (a harness run, a skill edit) states that
/// record's digest: `rel` is its path under the records directory.
fn record_pin(corpus: &Corpus, rel: &str) -> Pin {
    Pin {
        label: "Record digest".to_string(),
        path: layout::published(rel, false),
        digest: corpus.record_digests.get(rel).cloned().unwrap_or_default(),
        gzipped: false,
    }
}

/// Each imported evaluation's page.
pub(super) fn imports(
    corpus: &Corpus,
    verified: &Verified,
    out: &mut Pages<'_>,
) -> Result<(), BuildError> {
    for (loaded, receipts_of) in corpus.imports.iter().zip(&verified.imports) {
        let mut files: Vec<String> = loaded
            .record_paths()
            .iter()
            .map(|path| layout::published(path, false))
            .collect();
        files.extend(loaded.originals().into_iter().map(site::object_href));
        files.sort();
        files.dedup();
        let scope = Scope::Import {
            dir: loaded.dir.clone(),
        };
        for ((name, eval), receipts) in loaded.evals.iter().zip(&receipts_of.evals) {
            let rel = loaded.record_path(name);
            let verify = VerifyScope::of(&scope, &files).pinned(record_pin(corpus, &rel));
            // The directory's registration's own receipts (a registered
            // task no log ran) on each of its evaluations' pages.
            let receipts: Vec<_> = receipts
                .iter()
                .chain(&receipts_of.registration)
                .cloned()
                .collect();
            let view = site::eval_view(eval, loaded.registration.as_ref(), &receipts);
            out.write(
                "inspect.html",
                &site::inspect_href(&loaded.dir, name),
                site::eval_origin(eval),
                &verify,
                minijinja::context! { v => view },
            )?;
        }
        for ((name, traces), receipts) in loaded.traces.iter().zip(&receipts_of.traces) {
            let rel = loaded.traces_path(name);
            let verify = VerifyScope::of(&scope, &files).pinned(record_pin(corpus, &rel));
            let view = site::traces_view(name, traces, receipts);
            out.write(
                "otel.html",
                &site::otel_href(&loaded.dir, name),
                site::traces_origin(traces),
                &verify,
                minijinja::context! { v => view },
            )?;
        }
    }
    Ok(())
}

/// Each harness suite's page and its runs' report pages.
pub(super) fn harness(
    corpus: &Corpus,
    verified: &Verified,
    out: &mut Pages<'_>,
) -> Result<(), BuildError> {
    for (loaded, v) in corpus.harness.iter().zip(&verified.harness) {
        let suite_file = layout::published(&loaded.suite_path(), false);
        let mut files = vec![suite_file.clone()];
        files.extend(
            loaded
                .runs
                .iter()
                .map(|r| layout::published(&loaded.run_path(&r.id), false)),
        );
        let scope = Scope::Harness {
            suite: loaded.dir.clone(),
        };
        let view = site::suite_view(loaded, v);
        let path = site::harness_href(&loaded.dir);
        out.write(
            "harness.html",
            &path,
            site::Origin::simulator_if(view.simulated),
            &VerifyScope::of(&scope, &files),
            minijinja::context! { s => view },
        )?;
        for (index, run) in loaded.runs.iter().enumerate() {
            let rel = loaded.run_path(&run.id);
            let record = layout::published(&rel, false);
            let scope = Scope::HarnessRun {
                suite: loaded.dir.clone(),
                run: run.id.clone(),
            };
            let verify = VerifyScope::of(&scope, &[suite_file.clone(), record])
                .pinned(record_pin(corpus, &rel));
            let view = site::harness_run_view(loaded, index, v);
            let path = site::harness_run_href(&loaded.dir, &run.id);
            out.write(
                "harness-run.html",
                &path,
                site::Origin::simulator_if(view.simulated),
                &verify,
                minijinja::context! { run => view },
            )?;
        }
    }
    Ok(())
}

/// Each regression suite's page and its edits' verdict pages.
pub(super) fn regressions(
    corpus: &Corpus,
    verified: &Verified,
    out: &mut Pages<'_>,
) -> Result<(), BuildError> {
    for (loaded, v) in corpus.regressions.iter().zip(&verified.regressions) {
        let suite_file = layout::published(&loaded.suite_path(), false);
        let edit_file = |id: &str| layout::published(&loaded.edit_path(id), false);
        // The edits' skills, as the verifier reads them.
        let mut objects: Vec<String> = loaded
            .edits
            .iter()
            .flat_map(|e| [&e.skill.before_sha256, &e.skill.after_sha256])
            .map(|d| site::object_href(d))
            .collect();
        objects.sort();
        objects.dedup();
        let mut files = vec![suite_file.clone()];
        files.extend(loaded.edits.iter().map(|e| edit_file(&e.id)));
        files.extend(
            loaded
                .extra_paths()
                .iter()
                .map(|p| layout::published(p, false)),
        );
        files.extend(objects.iter().cloned());
        let scope = Scope::Regressions {
            suite: loaded.dir.clone(),
        };
        let weeks = site::week_views(loaded, v);
        let view = site::regression_view(loaded, v, site::week_links(loaded, &weeks));
        let path = site::regressions_href(&loaded.dir);
        let columns: Vec<&str> = site::BENCHMARK_COLUMNS.iter().map(|(_, h)| *h).collect();
        let verify = VerifyScope::of(&scope, &files);
        out.write(
            "regressions.html",
            &path,
            site::Origin::simulator_if(view.simulated),
            &verify,
            minijinja::context! { s => view, columns => columns },
        )?;
        let golden = site::golden_view(loaded);
        out.write(
            "golden.html",
            &site::golden_href(&loaded.dir),
            site::Origin::simulator_if(golden.simulated),
            &verify,
            minijinja::context! { g => golden },
        )?;
        for week in weeks {
            out.write(
                "week.html",
                &site::week_href(&loaded.dir, &week.week),
                site::Origin::simulator_if(week.simulated),
                &verify,
                minijinja::context! { w => week },
            )?;
        }
        for (index, edit) in loaded.edits.iter().enumerate() {
            let rel = loaded.edit_path(&edit.id);
            let record = edit_file(&edit.id);
            let scope = Scope::SkillEdit {
                suite: loaded.dir.clone(),
                edit: edit.id.clone(),
            };
            let mut files = vec![
                suite_file.clone(),
                record.clone(),
                site::object_href(&edit.skill.before_sha256),
                site::object_href(&edit.skill.after_sha256),
            ];
            files.dedup();
            let verify = VerifyScope::of(&scope, &files).pinned(record_pin(corpus, &rel));
            let view = site::skill_edit_view(corpus, loaded, index, v);
            let path = site::skill_edit_href(&loaded.dir, &edit.id);
            out.write(
                "skill-edit.html",
                &path,
                site::Origin::simulator_if(view.simulated),
                &verify,
                minijinja::context! { e => view },
            )?;
        }
    }
    Ok(())
}
