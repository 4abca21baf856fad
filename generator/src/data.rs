//! Where a site publishes its records: under `data/`, byte for byte, run
//! records gzipped with `--compress-records` ([`crate::publish`] writes them).

use crate::gzip;
use crate::load::Corpus;

/// Where the records are published inside the site.
pub use receipts_verifier::manifest::DATA_DIR;

/// Where run record `rel` (its path under the records directory) is published.
pub fn record_file(rel: &str, gzipped: bool) -> String {
    let gz = if gzipped { gzip::SUFFIX } else { "" };
    format!("{DATA_DIR}/{rel}{gz}")
}

/// Whether the run records of a built site's `data/` are gzipped (it was
/// built with `--compress-records`): its first run record is.
pub fn records_gzipped(corpus: &Corpus) -> bool {
    corpus
        .experiments
        .iter()
        .find_map(|e| e.runs.first().map(|r| e.run_path(&r.id)))
        .is_some_and(|rel| {
            let gz = corpus.sources.file(&format!("{rel}{}", gzip::SUFFIX));
            corpus.files.is_file(&gz)
        })
}
