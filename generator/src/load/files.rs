//! Where loading reads bytes from: the disk ([`Disk`], `receipts build` and
//! `receipts verify`), or files already in memory ([`Memory`], the browser's
//! page check, which is handed a site's `data/` by the page's script). One
//! loader reads both, so a site is rendered from the same parse either way.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::io;
use std::path::{Path, PathBuf};

/// What a path names. A symbolic link is reported as one, not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Missing,
    /// A regular file of this many bytes.
    File(u64),
    Dir,
    Link,
    /// Anything else (a device, a socket).
    Other,
}

/// A read-only tree of files.
pub trait Files: Debug + Send + Sync {
    /// What `path` names.
    fn kind(&self, path: &Path) -> io::Result<Kind>;
    /// The bytes of the file at `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// The paths of the entries of directory `dir`, in any order.
    fn entries(&self, dir: &Path) -> io::Result<Vec<PathBuf>>;

    /// Whether `path` names a regular file.
    fn is_file(&self, path: &Path) -> bool {
        matches!(self.kind(path), Ok(Kind::File(_)))
    }

    /// How the regular file at `path` stands, when it can be told: a file
    /// whose stamp is the same later was not written in between.
    fn stamp(&self, _path: &Path) -> Option<FileStamp> {
        None
    }
}

/// What `stat` tells of a regular file: its size, its modification time,
/// its status-change time (which any write changes and no program can set
/// back) and its inode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
    #[cfg(unix)]
    inode: (u64, u64),
}

impl FileStamp {
    /// The stamp of the regular file at `path` (not a link).
    pub fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::symlink_metadata(path).ok()?;
        if !m.is_file() {
            return None;
        }
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Some(FileStamp {
            len: m.len(),
            modified: m.modified().ok(),
            #[cfg(unix)]
            changed: (m.ctime(), m.ctime_nsec()),
            #[cfg(unix)]
            inode: (m.dev(), m.ino()),
        })
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }

    /// Whether the file changed so recently that a write in the same tick
    /// of the filesystem's clock would leave the stamp as it is: such a
    /// stamp tells nothing.
    pub fn is_recent(&self) -> bool {
        #[cfg(unix)]
        {
            let changed = std::time::UNIX_EPOCH
                + std::time::Duration::new(self.changed.0.max(0) as u64, self.changed.1 as u32);
            !std::time::SystemTime::now()
                .duration_since(changed)
                .is_ok_and(|age| age > std::time::Duration::from_millis(100))
        }
        #[cfg(not(unix))]
        true
    }
}

/// The file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct Disk;

impl Files for Disk {
    fn kind(&self, path: &Path) -> io::Result<Kind> {
        let meta = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Kind::Missing),
            meta => meta?,
        };
        let kind = meta.file_type();
        Ok(if kind.is_symlink() {
            Kind::Link
        } else if kind.is_file() {
            Kind::File(meta.len())
        } else if kind.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        })
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn stamp(&self, path: &Path) -> Option<FileStamp> {
        FileStamp::of(path).filter(|s| !s.is_recent())
    }

    fn entries(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        std::fs::read_dir(dir)?
            .map(|entry| entry.map(|e| e.path()))
            .collect()
    }
}

/// Files held in memory, by path; a directory is any proper prefix of a
/// file's path.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Adds the file at `path` (`/`-separated, relative).
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(PathBuf::from(path), bytes);
    }

    /// The files under `dir`, in path order.
    fn under<'a>(&'a self, dir: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.files
            .range(dir.to_path_buf()..)
            .map(|(p, _)| p)
            .take_while(move |p| p.starts_with(dir))
            .filter(move |p| p.as_path() != dir)
    }
}

impl Files for Memory {
    fn kind(&self, path: &Path) -> io::Result<Kind> {
        if let Some(bytes) = self.files.get(path) {
            return Ok(Kind::File(bytes.len() as u64));
        }
        Ok(match self.under(path).next() {
            Some(_) => Kind::Dir,
            None => Kind::Missing,
        })
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "No such file or directory"))
    }

    fn entries(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let mut out: Vec<PathBuf> = Vec::new();
        for path in self.under(dir) {
            let Ok(rest) = path.strip_prefix(dir) else {
                continue;
            };
            if let Some(first) = rest.components().next() {
                let entry = dir.join(first);
                if out.last() != Some(&entry) {
                    out.push(entry);
                }
            }
        }
        if out.is_empty() && !self.files.contains_key(dir) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "No such file or directory",
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_lists_directories_from_file_paths() {
        let mut m = Memory::new();
        m.insert("data/a/x.json", b"1".to_vec());
        m.insert("data/a/y.json", b"22".to_vec());
        m.insert("data/ab.json", b"3".to_vec());
        m.insert("data/b/c/z.md", b"4".to_vec());
        let p = Path::new;
        assert_eq!(m.kind(p("data")).unwrap(), Kind::Dir);
        assert_eq!(m.kind(p("data/a/y.json")).unwrap(), Kind::File(2));
        assert_eq!(m.kind(p("data/c")).unwrap(), Kind::Missing);
        assert_eq!(m.kind(p("data/a/x")).unwrap(), Kind::Missing);
        assert_eq!(
            m.entries(p("data")).unwrap(),
            vec![p("data/a"), p("data/ab.json"), p("data/b")]
        );
        assert_eq!(
            m.entries(p("data/b")).unwrap(),
            vec![PathBuf::from("data/b/c")]
        );
        assert!(m.entries(p("nothing")).is_err());
        assert!(m.read(p("data/a")).is_err());
    }
}
