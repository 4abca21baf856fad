//! Input errors: what was wrong, in which file, and where in it.

use std::fmt;
use std::path::Path;

/// Exit code for unusable input.
pub const EXIT_INPUT: i32 = 2;

/// A problem with the input that stops the build. It names the file (relative
/// to the input root where possible) and the place in it: a field path, a
/// line and column, or a row.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{}: {}: {}", self.file, place, self.message)?,
            None => write!(f, "{}: {}", self.file, self.message)?,
        }
        match self.line_column {
            Some((line, column)) => write!(f, " (line {line}, column {column})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for InputError {}

/// Why a build, or rendering a site again, failed: bad input (exit 2) or
/// anything else (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0:#}")]
    Other(#[from] anyhow::Error),
}

/// A path for messages: `/`-separated, relative to `root` when inside it.
pub fn display_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
