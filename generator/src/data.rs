//! Whether a built site's run records are gzipped. Where each record is
//! published is the verification core's layout ([`receipts_verifier::layout`]);
//! [`crate::publish`] writes them.

use receipts_verifier::layout::GZ;

use crate::load::Corpus;

/// Where the records are published inside the site.
pub use receipts_verifier::layout::DATA_DIR;

/// Whether the run records of a built site's `data/` are gzipped (it was
/// built with `--compress-records`): its first run record is.
pub fn records_gzipped(corpus: &Corpus) -> bool {
    corpus
        .experiments
        .iter()
        .find_map(|e| e.runs.first().map(|r| e.run_path(&r.place.id)))
        .is_some_and(|rel| {
            let gz = corpus.sources.file(&format!("{rel}{GZ}"));
            corpus.files.is_file(&gz)
        })
}
