//! The site's digest manifests: `SHA256SUMS` in the format `sha256sum -c`
//! reads, and an in-toto Statement v1 naming every file as a subject.
//!
//! A site carries two manifests. `data/SHA256SUMS` lists the published
//! records; its digest is the *records digest*. `SHA256SUMS` at the root
//! lists what the site is made from: the records, `data/SHA256SUMS` and the
//! assets (see [`check::is_listed`]); its digest is the site's *root
//! digest*, shown in every page's footer. The pages are rendered from those
//! files and bound to them by rendering them again, so the root digest need
//! not (and, shown on them, could not) cover their bytes.

mod check;
pub mod chunks;
mod pin;
pub mod shards;

pub use check::{
    is_listed, is_manifest_claim, Fed, ManifestCheck, ManifestResult, ASSETS_DIR, DATA_DIR,
    RECORDS_SUMS, VERIFIER_DIR,
};
pub use pin::{parse_pin, PinError};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::digest::is_sha256_hex;

/// The name of both manifests.
pub const SUMS: &str = "SHA256SUMS";
/// The in-toto statement at the site root.
pub const STATEMENT: &str = "statement.intoto.json";
/// The statement's `_type`: in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The statement's `predicateType`, naming [`SitePredicate`] as its predicate.
pub const PREDICATE_TYPE: &str = "urn:receipts:predicate:site-verification:v1";

/// `SHA256SUMS` text for `digests` (path → hex digest), one `<digest>  <path>`
/// line per file, sorted by path in byte order (as `LC_ALL=C sort` would).
pub fn format_sums(digests: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(digests.len() * 100);
    for (path, digest) in digests {
        out.push_str(digest);
        out.push_str("  ");
        out.push_str(path);
        out.push('\n');
    }
    out
}

/// A line of a manifest that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SumsError {
    /// The line's number, counted from 1.
    pub line: usize,
    /// What is wrong with the line.
    pub message: String,
}

/// Whether `path` is a site path in its one canonical spelling, as a
/// manifest must name a file: relative, `/`-separated, without empty, `.`
/// or `..` parts, and without a backslash, `%`, `?`, `#` or a control
/// character. Any other spelling could name, once fetched or opened, the
/// same file as another line (`a/./b`, `a/b/.`) or another file than the
/// one hashed under that name (`a%2Fb`, `a?x`), so it is refused.
pub fn check_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() || path.starts_with('/') {
        return Err("the path must be relative");
    }
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err("the path must not have empty, `.` or `..` parts");
    }
    if path
        .chars()
        .any(|c| c.is_control() || matches!(c, '\\' | '%' | '?' | '#'))
    {
        return Err("the path must not hold a backslash, `%`, `?`, `#` or a control character");
    }
    Ok(())
}

/// Parses `SHA256SUMS` text (`<digest>  <path>` or `<digest> *<path>` lines).
pub fn parse_sums(text: &str) -> Result<BTreeMap<String, String>, SumsError> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let err = |message: &str| SumsError {
            line: i + 1,
            message: message.to_string(),
        };
        if line.is_empty() {
            continue;
        }
        let (digest, rest) = line
            .split_at_checked(64)
            .ok_or_else(|| err("too short for a SHA-256 line"))?;
        if !is_sha256_hex(digest) {
            return Err(err("does not start with a lowercase hex SHA-256 digest"));
        }
        let path = rest
            .strip_prefix("  ")
            .or_else(|| rest.strip_prefix(" *"))
            .ok_or_else(|| err("expected two spaces between the digest and the path"))?;
        if let Err(why) = check_path(path) {
            return Err(err(why));
        }
        if out.insert(path.to_string(), digest.to_string()).is_some() {
            return Err(err("the path is listed twice"));
        }
    }
    Ok(out)
}

/// An in-toto Statement v1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement<P> {
    /// The statement's type, [`STATEMENT_TYPE`] (`_type` in JSON).
    #[serde(rename = "_type")]
    pub type_: String,
    /// The files the statement is about, each with its digest.
    pub subject: Vec<Subject>,
    /// The type of [`Statement::predicate`], [`PREDICATE_TYPE`] for a site
    /// (`predicateType` in JSON).
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    /// What the statement asserts about its subjects.
    pub predicate: P,
}

/// A file a statement is about, named by its path and its digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// The file's site path.
    pub name: String,
    /// Algorithm name (`sha256`) → the file's hex digest by that algorithm.
    pub digest: BTreeMap<String, String>,
}

/// What the statement asserts about the site: what built it, from which
/// records, and what verifying them found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SitePredicate {
    /// The program that built the site.
    pub builder: Builder,
    /// SHA-256 of `SHA256SUMS`.
    pub root_digest: String,
    /// SHA-256 of `data/SHA256SUMS`.
    pub records_digest: String,
    /// How many receipts passed, failed and could not be checked.
    pub verification: crate::verify::Tally,
    /// Every receipt that did not pass, as the build found it.
    pub not_passing: Vec<crate::verify::Receipt>,
}

/// The program that built a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Builder {
    /// The program's name.
    pub name: String,
    /// The program's version.
    pub version: String,
}

/// The statement naming every file in `digests` as a subject.
pub fn statement(
    digests: &BTreeMap<String, String>,
    predicate: SitePredicate,
) -> Statement<SitePredicate> {
    Statement {
        type_: STATEMENT_TYPE.to_string(),
        subject: digests
            .iter()
            .map(|(name, d)| Subject {
                name: name.clone(),
                digest: [("sha256".to_string(), d.clone())].into_iter().collect(),
            })
            .collect(),
        predicate_type: PREDICATE_TYPE.to_string(),
        predicate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_round_trip_in_byte_order() {
        let d = "a".repeat(64);
        let digests: BTreeMap<String, String> = ["b.html", "B.html", "a/z.json", "a.html"]
            .iter()
            .map(|p| (p.to_string(), d.clone()))
            .collect();
        let text = format_sums(&digests);
        let paths: Vec<&str> = text.lines().map(|l| &l[66..]).collect();
        assert_eq!(paths, ["B.html", "a.html", "a/z.json", "b.html"]);
        assert_eq!(parse_sums(&text).unwrap(), digests);
    }

    #[test]
    fn malformed_lines_are_named() {
        let d = "0".repeat(64);
        assert_eq!(parse_sums("xyz").unwrap_err().line, 1);
        assert!(parse_sums(&format!("{d}  a\n{d}  a\n")).is_err());
        assert!(parse_sums(&format!("{d}  ../etc/passwd\n")).is_err());
        assert!(parse_sums(&format!("{d} a\n")).is_err());
        assert_eq!(parse_sums(&format!("{d} *a\n")).unwrap()["a"], d);
    }

    #[test]
    fn only_the_canonical_spelling_of_a_path_is_accepted() {
        let d = "0".repeat(64);
        for path in [
            "E01/./experiment.json",
            "E01/LOG.md/.",
            "./E01/LOG.md",
            "E01//LOG.md",
            "E01/LOG.md/",
            "/E01/LOG.md",
            "E01\\LOG.md",
            "E01%2FLOG.md",
            "E01/LOG.md?x",
            "E01/LOG.md#x",
            "E01/LOG\u{7}.md",
        ] {
            assert!(parse_sums(&format!("{d}  {path}\n")).is_err(), "{path}");
            assert!(check_path(path).is_err(), "{path}");
        }
        for path in [
            "E01/runs/a-b_c.json",
            "docs/a note.md",
            ".nojekyll",
            "objects/..x",
        ] {
            assert_eq!(check_path(path), Ok(()), "{path}");
        }
    }
}
