//! What a rebuild may keep from the build before it (`receipts serve`): each
//! run's verification, when neither the run's record nor anything else its
//! verification read has changed. Such a run is not checked again; its
//! page is rendered again (every page shows the root digest, which changes
//! with any record), or, when serve changes its site in place and nothing
//! else the page reads changed, patched with the new root digest (see
//! `crate::write::in_place`). The heads loading made are kept too
//! ([`crate::load::HeadCache`]).
//!
//! A run's verification and page read its record and its *context*: the
//! other records (experiment, tasks, objects, prices), which runs exist,
//! the facts every page shows and the templates. The context is summed up in
//! one digest; when it changes, nothing is kept. Entries are also tied to
//! the site they were built into: if `SHA256SUMS` in the output is not the
//! one the cached build wrote, another build replaced the site and nothing
//! is kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::load::{Corpus, HARNESS_DIR, REGRESSIONS_DIR};
use crate::render::Theme;
use crate::site::SiteInfo;
use crate::verification::CachedRun;

/// The runs of the last successful build, shared across rebuilds.
#[derive(Debug, Default)]
pub struct RunCache {
    last: Mutex<Option<Generation>>,
    /// Each run's head, kept by loading (see [`crate::load::load_with`]).
    pub heads: crate::load::HeadCache,
}

#[derive(Debug)]
struct Generation {
    context: String,
    /// The SHA-256 of the `SHA256SUMS` that build wrote.
    site: String,
    /// By record path under the records directory.
    runs: Arc<HashMap<String, CachedRun>>,
}

impl RunCache {
    /// The runs a build with `context`, replacing the site whose manifest
    /// digest is `site`, may keep (none when either differs). A failed build
    /// leaves them for the next.
    pub fn usable(&self, context: &str, site: Option<&str>) -> Arc<HashMap<String, CachedRun>> {
        let last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*last {
            Some(g) if g.context == context && Some(g.site.as_str()) == site => g.runs.clone(),
            _ => Arc::default(),
        }
    }

    /// Keeps what a successful build verified, in place of what it replaced.
    pub fn store(&self, context: String, site: String, runs: HashMap<String, CachedRun>) {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Generation {
            context,
            site,
            runs: Arc::new(runs),
        });
    }
}

/// The digest of everything but its own record that a run's verification
/// and page read.
pub fn context(corpus: &Corpus, site: &SiteInfo, theme: &Theme) -> String {
    let mut hash = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    field(env!("CARGO_PKG_VERSION").as_bytes());
    let run_records: std::collections::HashSet<String> = corpus
        .experiments
        .iter()
        .flat_map(|e| e.runs.iter().map(|r| e.run_path(&r.place.id)))
        .collect();
    // No run page reads a harness or regression record (their own pages are
    // made every build): which of them exist counts, not what they hold.
    let suites = [format!("{HARNESS_DIR}/"), format!("{REGRESSIONS_DIR}/")];
    for (path, digest) in &corpus.record_digests {
        field(path.as_bytes());
        // Which runs exist counts; what each holds is its own entry's digest.
        if !run_records.contains(path) && !suites.iter().any(|s| path.starts_with(s)) {
            field(digest.as_bytes());
        }
    }
    let shown = SiteInfo {
        records_digest: String::new(),
        root_digest: String::new(),
        verifier_digest: String::new(),
        ..site.clone()
    };
    field(&serde_json::to_vec(&shown).unwrap_or_default());
    field(theme.digest().as_bytes());
    format!("{:x}", hash.finalize())
}
