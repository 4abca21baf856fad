//! A site changed in place (`receipts serve`): a rebuild after a small edit
//! writes only the files whose bytes changed, instead of writing every file
//! into a new directory. Creating ten thousand files costs about a second on
//! common filesystems; changing a few and patching the root digest into
//! the rest costs a few tens of milliseconds.
//!
//! The process that wrote the site remembers what it wrote (a
//! [`Generation`]: each file's digest and its size, times and inode as it
//! left them). A file is taken as unchanged only when it still has that
//! stamp; any write to a file changes its status-change time, which no
//! program can set back. A site whose `SHA256SUMS` is not the one
//! remembered was replaced by someone else and is rebuilt whole.
//!
//! Everything a rebuild writes is computed before the site is touched: a
//! failed build changes nothing. The changes are then applied under the
//! server's lock ([`CommitLock`]), so no page is served half-changed, each
//! new file written beside its path and renamed over it, the manifests
//! last. Files a build no longer makes are deleted; files the build never
//! made are left alone.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::error::{BuildError, Doing};

use crate::load::FileStamp;

type Result<T, E = BuildError> = std::result::Result<T, E>;

/// Called before the site is changed in place; the value it returns is
/// held until the change is done (`receipts serve` returns a guard of the
/// lock its requests take).
pub type CommitLock = Arc<dyn Fn() -> Box<dyn std::any::Any> + Send + Sync>;

/// What a process remembers of the site it last wrote, to change it in
/// place next time; shared across rebuilds.
pub struct InPlace {
    last: Mutex<Option<Arc<Generation>>>,
    lock: Option<CommitLock>,
}

impl std::fmt::Debug for InPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InPlace").finish_non_exhaustive()
    }
}

impl InPlace {
    /// Nothing remembered yet; `lock` is taken while the site changes.
    pub fn new(lock: Option<CommitLock>) -> InPlace {
        InPlace {
            last: Mutex::new(None),
            lock,
        }
    }

    /// The site last written, when it is remembered.
    pub fn last(&self) -> Option<Arc<Generation>> {
        self.last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Remembers `generation` (or forgets, with `None`: the next build
    /// writes the whole site).
    pub fn remember(&self, generation: Option<Generation>) {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = generation.map(Arc::new);
    }

    pub(super) fn lock(&self) -> Option<CommitLock> {
        self.lock.clone()
    }
}

/// A site as the process that wrote it left it.
#[derive(Debug)]
pub struct Generation {
    /// Every file, by site path.
    pub(super) files: HashMap<String, Stamp>,
    /// The SHA-256 of its `SHA256SUMS`: its root digest.
    pub root_digest: String,
    /// What its run pages read besides their own record and verification
    /// (see `build`): when it is the same, a kept run's page differs from
    /// the one on disk only by the root digest.
    pub page_context: String,
}

/// A file's digest, and how it was found on disk right after it was written.
#[derive(Debug, Clone)]
pub(super) struct Stamp {
    pub digest: String,
    pub on_disk: FileStamp,
    /// For a page showing the root digest: its digest's state before it.
    pub tail: Option<Tail>,
}

/// A page's SHA-256 computed up to the first place it shows the root
/// digest (near its end): a page that changes only from there is hashed
/// from there.
#[derive(Clone)]
pub struct Tail {
    prefix: sha2::Sha256,
    /// The offset of the first occurrence.
    pub at: usize,
}

impl std::fmt::Debug for Tail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tail")
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

impl Tail {
    /// The tail of `bytes` at the first occurrence of `from`, if any.
    pub fn of(bytes: &[u8], from: &str) -> Option<Tail> {
        use sha2::Digest;
        let at = memchr::memmem::find(bytes, from.as_bytes())?;
        let mut prefix = sha2::Sha256::new();
        prefix.update(&bytes[..at]);
        Some(Tail { prefix, at })
    }

    /// The SHA-256 of the page whose bytes from [`Tail::at`] on are `rest`.
    pub fn digest(&self, rest: &[u8]) -> String {
        use sha2::Digest;
        let mut hash = self.prefix.clone();
        hash.update(rest);
        format!("{:x}", hash.finalize())
    }
}

impl Generation {
    /// The file at `rel` in `out` when it still holds what was written
    /// there with `digest`.
    pub(super) fn holds(&self, out: &Path, rel: &str, digest: &str) -> Option<&Stamp> {
        let stamp = self.files.get(rel)?;
        (stamp.digest == digest && FileStamp::of(&out.join(rel)).as_ref() == Some(&stamp.on_disk))
            .then_some(stamp)
    }

    /// The bytes of the file at `rel` in `out` from `from` on, when it still
    /// holds what was written there, and its stamp.
    pub(super) fn read(&self, out: &Path, rel: &str, from: usize) -> Option<(Vec<u8>, &Stamp)> {
        use std::io::{Read, Seek, SeekFrom};
        let stamp = self.files.get(rel)?;
        let path = out.join(rel);
        if FileStamp::of(&path).as_ref() != Some(&stamp.on_disk) {
            return None;
        }
        let mut file = fs::File::open(&path).ok()?;
        file.seek(SeekFrom::Start(from as u64)).ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        ((from + bytes.len()) as u64 == stamp.on_disk.size()).then_some((bytes, stamp))
    }

    /// The tail kept for the page at `rel`.
    pub(super) fn tail(&self, rel: &str) -> Option<&Tail> {
        self.files.get(rel)?.tail.as_ref()
    }

    /// The site `out` holds, as just written with `digests` (every file, by
    /// path) and `tails` (the pages'): each file's stamp read from disk, or,
    /// after `last` was changed in place, only those of the files it
    /// changed (and any of another digest), the rest as `last` stamped them.
    pub(super) fn stamped(
        out: &Path,
        last: Option<(&Generation, &HashSet<String>)>,
        digests: &std::collections::BTreeMap<String, String>,
        tails: &HashMap<String, Tail>,
        root_digest: String,
        page_context: String,
    ) -> Result<Generation> {
        use rayon::prelude::*;
        let files: Result<HashMap<String, Stamp>> = digests
            .par_iter()
            .map(|(rel, digest)| {
                let kept = last.and_then(|(last, changed)| {
                    last.files
                        .get(rel)
                        .filter(|s| &s.digest == digest && !changed.contains(rel))
                });
                let stamp = match kept {
                    Some(stamp) => stamp.clone(),
                    None => Stamp {
                        digest: digest.clone(),
                        on_disk: FileStamp::of(&out.join(rel))
                            .ok_or_else(|| BuildError::NotWritten(out.join(rel)))?,
                        tail: tails.get(rel).cloned(),
                    },
                };
                Ok((rel.clone(), stamp))
            })
            .collect();
        Ok(Generation {
            files: files?,
            root_digest,
            page_context,
        })
    }
}

/// One change to a site, computed before any is applied.
pub(super) enum Change {
    /// The file's new bytes.
    Write { rel: String, bytes: Vec<u8> },
    /// The file keeps its bytes but for `with` written at each offset.
    Patch {
        rel: String,
        at: Vec<usize>,
        with: String,
    },
}

impl Change {
    pub fn rel(&self) -> &str {
        match self {
            Change::Write { rel, .. } | Change::Patch { rel, .. } => rel,
        }
    }
}

/// The offsets of every occurrence of `needle` in `haystack`, none overlapping.
pub(super) fn occurrences(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(needle);
    let mut at = Vec::new();
    let mut from = 0;
    while let Some(i) = finder.find(&haystack[from..]) {
        at.push(from + i);
        from += i + needle.len();
    }
    at
}

/// Applies `changes` to the site in `out` and deletes `removed`: each new
/// file written beside its path and renamed over it, each patch written
/// into the file, the paths in `last` (the manifests) written after the
/// rest.
pub(super) fn apply(
    out: &Path,
    mut changes: Vec<Change>,
    removed: &[String],
    last: &[&str],
) -> Result<()> {
    use rayon::prelude::*;
    changes.sort_by_key(|c| last.contains(&c.rel()));
    let split = changes
        .iter()
        .position(|c| last.contains(&c.rel()))
        .unwrap_or(changes.len());
    let (first, then) = changes.split_at(split);
    first.par_iter().try_for_each(|c| apply_one(out, c))?;
    for rel in removed {
        let path = out.join(rel);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e)
                    .doing(|| format!("deleting {}", path.display()))
                    .map_err(BuildError::from)
            }
            _ => {}
        }
    }
    then.iter().try_for_each(|c| apply_one(out, c))
}

fn apply_one(out: &Path, change: &Change) -> Result<()> {
    let path = out.join(change.rel());
    match change {
        Change::Write { bytes, .. } => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).doing(|| format!("creating {}", parent.display()))?;
            }
            let mut name = path.file_name().unwrap_or_default().to_os_string();
            name.push(".receipts-new");
            let new = path.with_file_name(name);
            fs::write(&new, bytes).doing(|| format!("writing {}", new.display()))?;
            fs::rename(&new, &path).doing(|| format!("writing {}", path.display()))?;
            Ok(())
        }
        Change::Patch { at, with, .. } => {
            use std::io::{Seek, SeekFrom, Write};
            let mut file = fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .doing(|| format!("opening {}", path.display()))?;
            for &offset in at {
                file.seek(SeekFrom::Start(offset as u64))
                    .and_then(|_| file.write_all(with.as_bytes()))
                    .doing(|| format!("writing {}", path.display()))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occurrence_is_found_and_none_overlaps() {
        assert_eq!(occurrences(b"abcabcab", b"abc"), vec![0, 3]);
        assert_eq!(occurrences(b"aaaa", b"aa"), vec![0, 2]);
        assert!(occurrences(b"abc", b"").is_empty());
        assert!(occurrences(b"ab", b"abc").is_empty());
    }

    #[test]
    fn a_file_written_since_is_not_held() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.html");
        fs::write(&path, "one").expect("write");
        let digests = [("a.html".to_string(), "d1".to_string())].into();
        let g = Generation::stamped(
            dir.path(),
            None,
            &digests,
            &HashMap::new(),
            "r".into(),
            "c".into(),
        )
        .expect("stamp");
        assert!(g.holds(dir.path(), "a.html", "d1").is_some());
        assert!(
            g.holds(dir.path(), "a.html", "d2").is_none(),
            "another digest"
        );
        assert!(g.read(dir.path(), "a.html", 0).is_some());
        // Past the clock's granularity, as any later edit by hand would be.
        std::thread::sleep(std::time::Duration::from_millis(50));
        // The same size and modification time, other bytes: the change time tells.
        let modified = fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime");
        fs::write(&path, "two").expect("write");
        fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(modified))
            .expect("set mtime");
        assert!(g.holds(dir.path(), "a.html", "d1").is_none());
        assert!(g.read(dir.path(), "a.html", 0).is_none());
    }
}
