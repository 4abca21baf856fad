//! Where a corpus is read from: a project's `experiments/`, `showcase/` and
//! `docs/`, or a built site's `data/`, which publishes all three; and the
//! path under `data/` each file read is published at.

use std::path::{Path, PathBuf};

use crate::error::display_path;

use super::{DOCS_DIR, SHOWCASE_DIR};

/// Where a corpus is read from.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The records: `experiments/` in a project, `data/` in a site.
    pub experiments: PathBuf,
    /// `showcase/` in a project, `data/showcase/` in a site.
    pub showcase: PathBuf,
    /// `docs/` in a project, `data/docs/` in a site.
    pub docs: PathBuf,
}

impl Sources {
    /// The file holding published record `rel` (a path under the site's `data/`).
    pub fn file(&self, rel: &str) -> PathBuf {
        if let Some(rest) = rel
            .strip_prefix(SHOWCASE_DIR)
            .and_then(|r| r.strip_prefix('/'))
        {
            return self.showcase.join(rest);
        }
        if let Some(rest) = rel.strip_prefix(DOCS_DIR).and_then(|r| r.strip_prefix('/')) {
            return self.docs.join(rest);
        }
        self.experiments.join(rel)
    }

    /// The published path (under the site's `data/`) of a file read from `path`.
    pub(super) fn published(&self, path: &Path) -> Option<String> {
        let under = |dir: &Path, prefix: Option<&str>| {
            path.strip_prefix(dir).ok().map(|_| {
                let rel = display_path(dir, path);
                match prefix {
                    Some(p) => format!("{p}/{rel}"),
                    None => rel,
                }
            })
        };
        under(&self.showcase, Some(SHOWCASE_DIR))
            .or_else(|| under(&self.docs, Some(DOCS_DIR)))
            .or_else(|| under(&self.experiments, None))
    }
}
