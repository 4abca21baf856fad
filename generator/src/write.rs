//! Stage 6, write: the site is written into a staging directory beside the
//! output and moved into place only when every file was written. A failed
//! build leaves the previous site as it was.
//!
//! A file whose bytes the previous site already holds, untouched since that
//! site was built, is hard-linked from it instead of written: creating a file
//! costs far more than linking one on many filesystems, and a rebuild after a
//! small change (`receipts serve`) leaves most files as they were.

use std::fs;
use std::path::{Path, PathBuf};

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

use anyhow::{bail, Context, Result};

/// A site being written.
pub struct Staging {
    dir: tempfile::TempDir,
    out: PathBuf,
    /// The SHA-256 of every file written, by site path.
    digests: Mutex<BTreeMap<String, String>>,
    /// The site being replaced, when its manifest could be read.
    previous: Option<Previous>,
    /// The bytes of every file written or linked so far.
    bytes: AtomicU64,
}

/// What the site being replaced says it holds.
struct Previous {
    /// Its files' digests, from its `SHA256SUMS`.
    sums: BTreeMap<String, String>,
    /// When that manifest was written: a file changed since (or in the
    /// same clock tick) is not reused.
    written: SystemTime,
    /// The SHA-256 of that manifest.
    digest: String,
}

impl Previous {
    fn read(out: &Path) -> Option<Previous> {
        let path = out.join(receipts_verifier::manifest::SUMS);
        let written = fs::metadata(&path).and_then(|m| m.modified()).ok()?;
        let text = fs::read_to_string(&path).ok()?;
        let sums = receipts_verifier::manifest::parse_sums(&text).ok()?;
        let digest = receipts_verifier::digest::sha256_hex(text.as_bytes());
        Some(Previous {
            sums,
            written,
            digest,
        })
    }
}

impl Staging {
    /// Prepares to write the site that will replace `out`.
    pub fn new(out: &Path) -> Result<Staging> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
        remove_abandoned(&parent);
        let previous = if out.exists() {
            ensure_replaceable(out)?;
            Previous::read(out)
        } else {
            None
        };
        let dir = tempfile::Builder::new()
            .prefix(".receipts-staging-")
            .tempdir_in(&parent)
            .with_context(|| format!("creating a staging directory in {}", parent.display()))?;
        Ok(Staging {
            dir,
            out: out.to_path_buf(),
            digests: Mutex::new(BTreeMap::new()),
            previous,
            bytes: AtomicU64::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes one file of the site; `rel` is `/`-separated.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.write_with_digest(rel, bytes, receipts_verifier::digest::sha256_hex(bytes))
    }

    /// Writes one file whose SHA-256 the caller already knows.
    pub fn write_with_digest(&self, rel: &str, bytes: &[u8], digest: String) -> Result<()> {
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        if !self.link_unchanged(rel, &digest, Some(bytes.len() as u64), &path) {
            fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.record(rel, digest);
        Ok(())
    }

    /// The SHA-256 of the manifest of the site being replaced, when it has one.
    pub fn previous_manifest(&self) -> Option<&str> {
        self.previous.as_ref().map(|p| p.digest.as_str())
    }

    /// Takes the file at `rel` from the previous site, untouched since it
    /// was built, without making it again; returns whether it did. The caller
    /// knows the file would be the same (a rebuild that kept the run and its
    /// page); `digest`, when given, must be the one the previous site lists.
    pub fn reuse(&self, rel: &str, digest: Option<&str>) -> Result<bool> {
        let Some(listed) = self.previous.as_ref().and_then(|p| p.sums.get(rel)) else {
            return Ok(false);
        };
        if digest.is_some_and(|d| d != listed) {
            return Ok(false);
        }
        let path = self.dir.path().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        if !self.link_unchanged(rel, listed, None, &path) {
            return Ok(false);
        }
        let len = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        self.bytes.fetch_add(len, Ordering::Relaxed);
        self.record(rel, listed.clone());
        Ok(true)
    }

    /// Takes back a file [`Staging::reuse`] took, to be written instead.
    pub fn forget(&self, rel: &str) -> Result<()> {
        let path = self.dir.path().join(rel);
        let len = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        self.bytes.fetch_sub(len, Ordering::Relaxed);
        fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        self.digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(rel);
        Ok(())
    }

    /// Hard-links the previous site's `rel` to `to` when the previous
    /// manifest lists it with `digest` and the file (of `len` bytes, when
    /// given) was not changed after the manifest was written.
    fn link_unchanged(&self, rel: &str, digest: &str, len: Option<u64>, to: &Path) -> bool {
        let Some(previous) = &self.previous else {
            return false;
        };
        if previous.sums.get(rel).map(String::as_str) != Some(digest) {
            return false;
        }
        let from = self.out.join(rel);
        let Ok(meta) = fs::symlink_metadata(&from) else {
            return false;
        };
        let untouched = meta.is_file()
            && len.is_none_or(|n| n == meta.len())
            && meta.modified().is_ok_and(|m| m < previous.written);
        untouched && fs::hard_link(&from, to).is_ok()
    }

    fn record(&self, rel: &str, digest: String) {
        self.digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(rel.to_string(), digest);
    }

    /// The digests of every file written so far, by site path.
    pub fn digests(&self) -> BTreeMap<String, String> {
        self.digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The bytes of every file written or linked so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The number of files written so far.
    pub fn files(&self) -> usize {
        self.digests.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Moves the staged site into place, replacing the previous one, which
    /// is returned to be deleted (when it is dropped, or by
    /// [`PreviousSite::remove_in_background`]).
    pub fn commit(self) -> Result<PreviousSite> {
        let staged = self.dir.keep();
        if self.out.exists() {
            let parent = staged
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            let old = tempfile::Builder::new()
                .prefix(".receipts-previous-")
                .tempdir_in(&parent)
                .context("creating a directory for the previous site")?;
            let old_site = old.path().join("site");
            fs::rename(&self.out, &old_site).with_context(|| {
                format!("moving the previous site {} aside", self.out.display())
            })?;
            if let Err(e) = fs::rename(&staged, &self.out) {
                // Put the previous site back before reporting.
                let _ = fs::rename(&old_site, &self.out);
                let _ = fs::remove_dir_all(&staged);
                return Err(e)
                    .with_context(|| format!("moving the new site into {}", self.out.display()));
            }
            Ok(PreviousSite(Some(old)))
        } else {
            fs::rename(&staged, &self.out)
                .with_context(|| format!("moving the new site into {}", self.out.display()))?;
            Ok(PreviousSite(None))
        }
    }
}

/// The site a commit replaced, moved aside into a directory beside the
/// output; deleted when dropped.
#[must_use = "dropping it deletes the previous site now"]
pub struct PreviousSite(Option<tempfile::TempDir>);

impl PreviousSite {
    /// Deletes the previous site on a thread of its own, so a long-running
    /// process (`receipts serve`) does not wait for it.
    pub fn remove_in_background(self) {
        if self.0.is_some() {
            std::thread::spawn(move || drop(self));
        }
    }
}

/// A replaced site is deleted on a background thread by `receipts serve`; a
/// process stopped meanwhile leaves it behind. One untouched for this long
/// is deleted by the next build beside it.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Deletes replaced sites left behind in `parent` (best effort).
fn remove_abandoned(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let abandoned = entry
            .file_name()
            .to_string_lossy()
            .starts_with(".receipts-previous-")
            && entry.file_type().is_ok_and(|t| t.is_dir())
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|m| m.elapsed().is_ok_and(|age| age > ABANDONED_AFTER));
        if abandoned {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Refuses to replace a directory that is not a site receipts built, so a
/// mistyped `--out` cannot delete unrelated files.
fn ensure_replaceable(out: &Path) -> Result<()> {
    if !out.is_dir() {
        bail!("{} exists and is not a directory", out.display());
    }
    let empty = fs::read_dir(out)
        .map(|mut d| d.next().is_none())
        .unwrap_or(false);
    let ours = out.join(".nojekyll").is_file() && out.join("index.html").is_file();
    if !empty && !ours {
        bail!(
            "refusing to replace {}: it is not empty and does not look like a site receipts built (no .nojekyll and index.html)",
            out.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_site_left_behind_is_deleted_by_a_later_build() {
        let parent = tempfile::tempdir().expect("tempdir");
        let old = parent.path().join(".receipts-previous-old");
        let recent = parent.path().join(".receipts-previous-recent");
        for dir in [&old, &recent] {
            fs::create_dir_all(dir.join("site")).expect("mkdir");
            fs::write(dir.join("site/index.html"), "old").expect("write");
        }
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::open(&old)
            .and_then(|f| f.set_modified(an_hour_ago))
            .expect("set mtime");
        let _staging = Staging::new(&parent.path().join("site")).expect("staging");
        assert!(!old.exists(), "abandoned for an hour: deleted");
        assert!(
            recent.exists(),
            "maybe still being deleted by a running serve: kept"
        );
    }
}
