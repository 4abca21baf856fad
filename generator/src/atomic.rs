//! Files written whole or not at all: through a temporary file beside the
//! target, renamed into place, so a reader or a crash never sees half a
//! file.

use std::path::Path;

use crate::error::{Doing, FileError};

/// Writes `bytes` to `path` through a temporary file in its directory
/// (created if missing), synced before it is renamed into place.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).doing(|| format!("creating {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .doing(|| format!("creating a file in {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, bytes).doing(|| format!("writing {}", path.display()))?;
    tmp.as_file().sync_all().ok();
    tmp.persist(path)
        .doing(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("sub/record.json");
        super::write(&path, b"first").expect("written");
        super::write(&path, b"second, longer").expect("replaced");
        assert_eq!(std::fs::read(&path).expect("read"), b"second, longer");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .expect("list")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(names, ["record.json"]);
    }
}
