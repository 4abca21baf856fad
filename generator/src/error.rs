//! The errors of building a site: bad input (what was wrong, in which file,
//! and where in it), files that could not be read or written, and the
//! build's own; and [`report`], how one is told to a person.

use std::path::{Path, PathBuf};

/// Exit code for unusable input.
pub const EXIT_INPUT: i32 = 2;

/// A problem with the input that stops the build. It names the file (relative
/// to the input root where possible) and the place in it: a field path, a
/// line and column, or a row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}: {}{message}{}",
    place.as_ref().map_or(String::new(), |p| format!("{p}: ")),
    line_column.map_or(String::new(), |(l, c)| format!(" (line {l}, column {c})"))
)]
pub struct InputError {
    pub file: String,
    pub place: Option<String>,
    pub message: String,
    /// The line and column of `place` in the file, when found.
    pub line_column: Option<(usize, usize)>,
}

impl InputError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            file: file.into(),
            place: None,
            message: message.into(),
            line_column: None,
        }
    }

    pub fn at(
        file: impl Into<String>,
        place: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.into(),
            place: Some(place.into()),
            message: message.into(),
            line_column: None,
        }
    }
}

#[cfg(feature = "cli")]
impl InputError {
    /// The error with the line and column of its place in the file added,
    /// when the file (under `root`) is JSON and the place a field path in
    /// it: `…: started_at: … (line 12, column 17)`.
    pub fn located(mut self, root: &Path) -> Self {
        let Some(place) = &self.place else {
            return self;
        };
        if place.contains("line ") || !self.file.ends_with(".json") {
            return self;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&self.file)) else {
            return self;
        };
        self.line_column = crate::json_place::locate(&text, place);
        self
    }
}

/// Why a build, or rendering a site again, failed: bad input (exit 2) or
/// anything else (exit 1). Its [`report`] names every cause beneath it.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    #[error(transparent)]
    File(#[from] FileError),
    /// `--out` names a file, not a directory.
    #[error("{} exists and is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// `--out` names a directory that is neither empty nor a site this
    /// tool built: replacing it could delete unrelated files.
    #[error("refusing to replace {}: it is not empty and does not look like a site receipts built (no .nojekyll and index.html)", .0.display())]
    NotASite(PathBuf),
    /// A record read while loading was different when it was published.
    #[error("{} changed while the site was being built; build again", .0.display())]
    Changed(PathBuf),
    /// A file the site was just given is not there as a regular file.
    #[error("{} was not written", .0.display())]
    NotWritten(PathBuf),
    /// The records published differ from those loading read.
    #[error(
        "the records published under {}/ differ from the records read; build again",
        receipts_verifier::layout::DATA_DIR
    )]
    Republished,
    /// The site's statement could not be written as JSON.
    #[error("serializing the site's statement")]
    Statement(#[source] serde_json::Error),
    /// A site was asked to do what its kind does not (a caller's mistake):
    /// what was asked.
    #[error("{0}")]
    Unsupported(&'static str),
}

/// A file or directory that could not be read, written, created, moved or
/// deleted: what was being done, naming the path, and the system's reason
/// as its source.
#[derive(Debug, thiserror::Error)]
#[error("{doing}")]
pub struct FileError {
    /// What was being done: `writing site/index.html`.
    pub doing: String,
    #[source]
    pub source: std::io::Error,
}

/// What an I/O result was for: `fs::write(&path, bytes).doing(|| format!("writing {}", path.display()))`
/// turns its error into a [`FileError`] saying so.
pub trait Doing<T> {
    /// The result, its error a [`FileError`] naming what was being done.
    fn doing(self, doing: impl FnOnce() -> String) -> Result<T, FileError>;
}

impl<T, E: Into<std::io::Error>> Doing<T> for Result<T, E> {
    fn doing(self, doing: impl FnOnce() -> String) -> Result<T, FileError> {
        self.map_err(|e| FileError {
            doing: doing(),
            source: e.into(),
        })
    }
}

/// An error and every cause beneath it, `: `-separated, as a message for
/// a person: `writing site/index.html: No space left on device (os error 28)`.
pub fn report(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

/// A path for messages: `/`-separated, relative to `root` when inside it.
pub fn display_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_says_what_was_being_done_and_why_it_failed() {
        let failed: Result<(), std::io::Error> = Err(std::io::Error::other("disk full"));
        let error = BuildError::from(
            failed
                .doing(|| "writing site/index.html".to_string())
                .unwrap_err(),
        );
        assert_eq!(report(&error), "writing site/index.html: disk full");
    }

    #[test]
    fn an_input_error_names_the_file_the_place_and_its_line() {
        let mut error = InputError::at("runs/a.json", "started_at", "not a time");
        assert_eq!(error.to_string(), "runs/a.json: started_at: not a time");
        error.line_column = Some((12, 17));
        assert_eq!(
            report(&BuildError::from(error)),
            "runs/a.json: started_at: not a time (line 12, column 17)"
        );
        assert_eq!(
            InputError::new("site.toml", "empty").to_string(),
            "site.toml: empty"
        );
    }
}
