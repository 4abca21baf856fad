//! `receipts export`: one run as a self-contained report file. The report is
//! assembled by the verification core from the published files the run needs,
//! exactly as the browser's Export button assembles it.

use std::collections::BTreeMap;

use receipts_verifier::manifest::chunks::{chunk_for, RecordsManifests};
use receipts_verifier::manifest::parse_sums;
use receipts_verifier::model::Report;
use receipts_verifier::verify::assemble_report;

use crate::error::InputError;
use receipts_verifier::layout;

use crate::load::{read_run, Corpus};

/// The report of run `run_id`, with the records it needs verbatim, anchored
/// to the site's manifests: `site_sums`, the `SHA256SUMS` of the built site
/// the corpus was read from, or else the one a build of it would write.
pub fn export(
    corpus: &Corpus,
    run_id: &str,
    site_sums: Option<&str>,
) -> Result<Report, InputError> {
    let found = corpus.experiments.iter().find_map(|e| {
        e.runs
            .iter()
            .position(|r| r.place.id == run_id)
            .map(|index| (e, index))
    });
    let Some((loaded, index)) = found else {
        return Err(InputError::new(
            corpus.records_name.clone(),
            format!("no run has the id `{run_id}`"),
        ));
    };
    // The record as it holds it: a built site may publish it gzipped.
    let (run, run_bytes) = read_run(corpus, loaded, index)?;
    let run_path = loaded.run_path(&run.id);
    let mut files = BTreeMap::from([(run_path.clone(), run_bytes)]);
    let mut paths = vec![
        format!("{}/experiment.json", loaded.dir),
        layout::task_path(&run.task),
    ];
    if let Some(task) = corpus.tasks.get(&run.task) {
        paths.extend(task.inputs.iter().map(|i| layout::object_path(&i.sha256)));
    }
    paths.extend(run.object_digests().into_iter().map(layout::object_path));
    for path in paths {
        let name = format!("{}/{path}", corpus.records_name);
        let bytes = std::fs::read(corpus.records_dir.join(&path))
            .map_err(|e| InputError::new(&name, e.to_string()))?;
        files.insert(path, bytes);
    }
    let manifests = RecordsManifests::of(&corpus.record_digests);
    let sums = match site_sums {
        Some(sums) => sums.to_string(),
        None => {
            let (code, _) = crate::build::code(&crate::render::Theme::embedded())
                .map_err(|e| InputError::new(corpus.records_name.clone(), format!("{e:#}")))?;
            crate::build::root_manifest(&manifests.digest(), &code)
        }
    };
    let top = parse_sums(&manifests.top).unwrap_or_default();
    let run_sums = chunk_for(&top, &run_path).and_then(|c| manifests.chunks.get(&c));
    assemble_report(
        &files,
        &loaded.dir,
        run_id,
        &sums,
        &manifests.top,
        run_sums.map(String::as_str),
    )
    .map_err(|e| InputError::new(corpus.records_name.clone(), e))
}
