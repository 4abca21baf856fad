//! Stage 6, write: the site is written into a staging directory beside the
//! output and moved into place only when every file was written. A failed
//! build leaves the previous site as it was.
//!
//! A file whose bytes the previous site already holds (the same SHA-256,
//! read from the file itself) is hard-linked from it instead of written:
//! creating a file costs far more than linking one on many filesystems, and
//! a rebuild after a small change (`receipts serve`) leaves most files as
//! they were.
//!
//! The same pipeline also renders a built site again without writing
//! anything ([`Staging::compare`]): each file is compared with the site's,
//! which is how `receipts verify` binds every page to the records; and
//! `receipts serve` changes the site it wrote in place ([`Staging::update`],
//! see [`in_place`]).

use std::fs;
use std::path::{Path, PathBuf};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{STATEMENT, SUMS};

pub use crate::difference::Difference;
use crate::error::{BuildError, Doing};

pub mod in_place;
mod update;
use in_place::{Change, CommitLock, Generation, Tail};

pub(crate) type Result<T, E = BuildError> = std::result::Result<T, E>;

impl crate::pages::Output for Staging {
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        Staging::write(self, rel, bytes)
    }
}

/// A site being written, or rendered again to be compared with a built one.
pub struct Staging {
    target: Target,
    /// The SHA-256 of every file written, by site path.
    digests: Mutex<BTreeMap<String, String>>,
    /// The bytes of every file written or linked so far.
    bytes: AtomicU64,
    /// The root digest the pages show, when the site will be changed in
    /// place next time (see [`Staging::track`]).
    tracked: Option<String>,
    /// Each page's digest state before the root digest it shows.
    tails: Mutex<HashMap<String, Tail>>,
}

enum Target {
    Write {
        dir: tempfile::TempDir,
        out: PathBuf,
        /// The site being replaced, when its manifest could be read.
        previous: Option<Previous>,
    },
    Compare {
        site: PathBuf,
        differences: Mutex<Vec<Difference>>,
    },
    /// The site in `out`, as `last` remembers it, changed in place.
    Update {
        out: PathBuf,
        last: Arc<Generation>,
        changes: Mutex<Vec<Change>>,
        lock: Option<CommitLock>,
    },
}

/// What the site being replaced says it holds.
struct Previous {
    /// Its files' digests, from its statement or manifest.
    sums: BTreeMap<String, String>,
    /// The SHA-256 of its `SHA256SUMS`.
    digest: String,
}

impl Previous {
    fn read(out: &Path) -> Option<Previous> {
        use receipts_verifier::manifest::{SitePredicate, Statement};
        let sums = fs::read(out.join(SUMS)).ok()?;
        let statement: Statement<SitePredicate> =
            serde_json::from_slice(&fs::read(out.join(STATEMENT)).ok()?).ok()?;
        Some(Previous {
            sums: statement
                .subject
                .into_iter()
                .filter_map(|s| Some((s.name, s.digest.get("sha256")?.clone())))
                .collect(),
            digest: sha256_hex(&sums),
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
        fs::create_dir_all(&parent).doing(|| format!("creating {}", parent.display()))?;
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
            .doing(|| format!("creating a staging directory in {}", parent.display()))?;
        Ok(Staging::with(Target::Write {
            dir,
            out: out.to_path_buf(),
            previous,
        }))
    }

    /// Renders into nothing: every file is compared with the one at the
    /// same path in `site` (see [`Staging::differences`]).
    pub fn compare(site: &Path) -> Staging {
        Staging::with(Target::Compare {
            site: site.to_path_buf(),
            differences: Mutex::new(Vec::new()),
        })
    }

    /// Nothing written yet to `target`.
    fn with(target: Target) -> Staging {
        Staging {
            target,
            digests: Mutex::new(BTreeMap::new()),
            bytes: AtomicU64::new(0),
            tracked: None,
            tails: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps, for the next build to change in place, the state of each
    /// HTML page's digest before the first place it shows `root_digest`.
    pub fn track(&mut self, root_digest: &str) {
        self.tracked = Some(root_digest.to_string());
    }

    /// The digest of `bytes`, to be written at `rel`; its tail kept when
    /// it is a page showing the tracked root digest.
    fn digest(&self, rel: &str, bytes: &[u8]) -> String {
        let tail = match &self.tracked {
            Some(root) if rel.ends_with(".html") => Tail::of(bytes, root),
            _ => None,
        };
        match tail {
            Some(tail) => {
                let digest = tail.digest(&bytes[tail.at..]);
                self.tails
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(rel.to_string(), tail);
                digest
            }
            None => sha256_hex(bytes),
        }
    }

    fn note(&self, rel: &str, len: u64, digest: String) {
        self.bytes.fetch_add(len, Ordering::Relaxed);
        self.digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(rel.to_string(), digest);
    }

    /// Writes one file of the site; `rel` is `/`-separated.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.write_with_digest(rel, bytes, self.digest(rel, bytes))
    }

    /// Writes one file whose SHA-256 the caller already knows.
    pub fn write_with_digest(&self, rel: &str, bytes: &[u8], digest: String) -> Result<()> {
        match &self.target {
            Target::Write { dir, out, previous } => {
                let path = dir.path().join(rel);
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent)
                        .doing(|| format!("creating {}", parent.display()))?;
                }
                if !link_unchanged(previous.as_ref(), out, rel, &digest, &path) {
                    fs::write(&path, bytes).doing(|| format!("writing {}", path.display()))?;
                }
            }
            Target::Update {
                out, last, changes, ..
            } => {
                if last.holds(out, rel, &digest).is_none() {
                    changes
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(Change::Write {
                            rel: rel.to_string(),
                            bytes: bytes.to_vec(),
                        });
                }
            }
            Target::Compare { site, differences } => {
                if let Some(d) = difference(site, rel, bytes) {
                    differences
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(d);
                }
            }
        }
        self.note(rel, bytes.len() as u64, digest);
        Ok(())
    }

    /// Whether writing `rel` would only compare the site's own file at `rel`
    /// with `source`, which is that very file: rendering a site again from
    /// its own `data/`, a record is published from where it was read.
    pub fn is_own(&self, rel: &str, source: &Path) -> bool {
        matches!(&self.target, Target::Compare { site, .. } if site.join(rel) == source)
    }

    /// Notes `rel` as written, with `digest`, when [`Staging::is_own`] holds.
    pub fn own(&self, rel: &str, digest: String) {
        self.digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(rel.to_string(), digest);
    }

    /// The SHA-256 of the manifest of the site being replaced, when it has one.
    pub fn previous_manifest(&self) -> Option<&str> {
        match &self.target {
            Target::Write { previous, .. } => previous.as_ref().map(|p| p.digest.as_str()),
            Target::Update { last, .. } => Some(last.root_digest.as_str()),
            Target::Compare { .. } => None,
        }
    }

    /// The digests of every file written so far, by site path.
    pub fn digests(&self) -> BTreeMap<String, String> {
        self.digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The bytes of every file written or linked so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The number of files written so far.
    pub fn files(&self) -> usize {
        self.digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// What rendering the site again found ([`Staging::compare`]): every file
    /// that differs, then every file of the site rendering did not make, by
    /// path. Empty after [`Staging::new`].
    pub fn differences(self) -> Result<Vec<Difference>> {
        let Target::Compare { site, differences } = self.target else {
            return Ok(Vec::new());
        };
        let mut out = differences
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let made: BTreeSet<String> = self
            .digests
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .into_keys()
            .collect();
        for entry in walkdir::WalkDir::new(&site).sort_by_file_name() {
            let entry = entry.doing(|| format!("reading {}", site.display()))?;
            if entry.file_type().is_dir() {
                continue;
            }
            let rel = crate::error::display_path(&site, entry.path());
            if !made.contains(&rel) {
                out.push(Difference {
                    path: rel,
                    found: "a file".to_string(),
                    expected: "no such file: the records do not make it".to_string(),
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Moves the staged site into place, replacing the previous one, which
    /// is returned to be deleted (when it is dropped, or by
    /// [`PreviousSite::remove_in_background`]).
    pub fn commit(self) -> Result<PreviousSite> {
        let (dir, out) = match self.target {
            Target::Write { dir, out, .. } => (dir, out),
            Target::Update { .. } => {
                self.commit_in_place()?;
                return Ok(PreviousSite(None));
            }
            Target::Compare { .. } => {
                return Err(BuildError::Unsupported(
                    "a site rendered to be compared is not written",
                ))
            }
        };
        let staged = dir.keep();
        if out.exists() {
            let parent = staged
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let old = tempfile::Builder::new()
                .prefix(".receipts-previous-")
                .tempdir_in(&parent)
                .doing(|| "creating a directory for the previous site".to_string())?;
            let old_site = old.path().join("site");
            fs::rename(&out, &old_site)
                .doing(|| format!("moving the previous site {} aside", out.display()))?;
            if let Err(e) = fs::rename(&staged, &out) {
                // Put the previous site back before reporting.
                let _ = fs::rename(&old_site, &out);
                let _ = fs::remove_dir_all(&staged);
                return Err(e)
                    .doing(|| format!("moving the new site into {}", out.display()))
                    .map_err(BuildError::from);
            }
            Ok(PreviousSite(Some(old)))
        } else {
            fs::rename(&staged, &out)
                .doing(|| format!("moving the new site into {}", out.display()))?;
            Ok(PreviousSite(None))
        }
    }
}

/// Hard-links the previous site's `rel` to `to` when the previous site
/// lists it with `digest` and the file still holds bytes of that digest
/// (read and hashed: a file edited in place keeps neither a new size nor a
/// new modification time for certain).
fn link_unchanged(
    previous: Option<&Previous>,
    out: &Path,
    rel: &str,
    digest: &str,
    to: &Path,
) -> bool {
    let Some(previous) = previous else {
        return false;
    };
    if previous.sums.get(rel).map(String::as_str) != Some(digest) {
        return false;
    }
    let from = out.join(rel);
    let is_file = fs::symlink_metadata(&from).is_ok_and(|m| m.is_file());
    is_file
        && fs::read(&from).is_ok_and(|bytes| sha256_hex(&bytes) == digest)
        && fs::hard_link(&from, to).is_ok()
}

/// How the file at `rel` in `site` differs from `expected`, if it does: the
/// first line that differs, with both versions of it.
fn difference(site: &Path, rel: &str, expected: &[u8]) -> Option<Difference> {
    // A forged site's file is read only when it is a regular file of about
    // the size expected: never a link, a device or a huge file.
    const SLACK: u64 = 1 << 20;
    if let Some(link) = linked_dir(site, rel) {
        return Some(Difference {
            path: rel.to_string(),
            found: format!("no file ({link})"),
            expected: format!("{} bytes", expected.len()),
        });
    }
    let found = match fs::symlink_metadata(site.join(rel)) {
        Ok(m) if m.file_type().is_symlink() => Err(std::io::Error::other(
            "a symbolic link, which is not followed",
        )),
        Ok(m) if !m.is_file() => Err(std::io::Error::other("not a regular file")),
        Ok(m) if m.len() > expected.len() as u64 + SLACK => {
            return Some(Difference {
                path: rel.to_string(),
                found: format!("{} bytes", m.len()),
                expected: format!("{} bytes", expected.len()),
            })
        }
        Ok(_) => fs::read(site.join(rel)),
        Err(e) => Err(e),
    };
    let found = match found {
        Ok(found) if found == expected => return None,
        Ok(found) => found,
        Err(e) => {
            return Some(Difference {
                path: rel.to_string(),
                found: format!("no file ({e})"),
                expected: format!("{} bytes", expected.len()),
            })
        }
    };
    Some(Difference::between(rel, &found, expected))
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
        return Err(BuildError::NotADirectory(out.to_path_buf()));
    }
    let empty = fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
    let ours = out.join(".nojekyll").is_file() && out.join("index.html").is_file();
    if !empty && !ours {
        return Err(BuildError::NotASite(out.to_path_buf()));
    }
    Ok(())
}

/// Why file `rel` of the site in `site` cannot be read: a directory on the
/// way to it is a symbolic link; `None` when none is.
pub fn linked_dir(site: &Path, rel: &str) -> Option<String> {
    let mut at = site.to_path_buf();
    for part in Path::new(rel).parent()?.components() {
        at.push(part);
        if fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(format!(
                "{} is a symbolic link, which is not followed",
                crate::error::display_path(site, &at)
            ));
        }
    }
    None
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
