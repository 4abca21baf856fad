//! The Inspect AI version a log was written with, where the log records it
//! (`eval.packages.inspect_ai`): the built-in scorers changed between
//! versions, and a score is recomputed as the version that gave it would.

use std::fmt;

/// A release of Inspect AI, `major.minor.patch`; a development build
/// (`0.3.140.dev12+g…`) counts as the release it is numbered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// The version `text` names, `None` when it does not start with three numbers.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().splitn(4, '.').map(|p| {
            let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        });
        Some(Version(parts.next()??, parts.next()??, parts.next()??))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn releases_and_development_builds_are_read_and_ordered() {
        assert_eq!(Version::parse("0.3.285"), Some(Version(0, 3, 285)));
        assert_eq!(
            Version::parse("0.3.140.dev12+g3f2a"),
            Some(Version(0, 3, 140))
        );
        assert_eq!(Version::parse("0.3"), None);
        assert_eq!(Version::parse("unknown"), None);
        assert!(Version(0, 3, 99) < Version(0, 3, 160));
    }
}
