//! Helpers shared by the integration tests: the `receipts` binary, temp copies
//! of the sample input, tree digests and a link extractor.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};

mod reseal;
#[allow(unused_imports)]
pub use reseal::*;

/// The repository root (the workspace).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Runs the `receipts` binary with `args` in `dir`.
pub fn receipts(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the receipts binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A simulated study of `runs` runs in one experiment (`receipts simulate
/// --scale`), its site built into `site/` with `flags` (such as
/// `--compress-records`).
pub fn simulated_site(runs: usize, flags: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let scale = runs.to_string();
    let out = receipts(
        dir.path(),
        &["simulate", "--quiet", "--out", ".", "--scale", &scale],
    );
    assert_exit(&out, 0, "simulate");
    let build = [&["build", "--quiet", "--out", "site"][..], flags].concat();
    let out = receipts(dir.path(), &build);
    assert_exit(&out, 0, &build.join(" "));
    dir
}

/// A copy of the sample with its site built into `site/`.
pub fn built() -> tempfile::TempDir {
    let dir = sample_copy();
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    dir
}

/// Checks the exit code, showing the output when it is not the one expected.
pub fn assert_exit(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}:\n{}{}",
        stdout(out),
        stderr(out)
    );
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(from).expect("prefix");
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A temp directory holding a copy of the shipped sample input.
pub fn sample_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["experiments", "showcase", "docs"] {
        let from = repo().join(sub);
        if from.is_dir() {
            copy_dir(&from, &dir.path().join(sub));
        }
    }
    dir
}

/// Every file under `root` with the SHA-256 of its bytes, by relative path.
pub fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk");
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(root)
                .expect("prefix")
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = fs::read(entry.path()).expect("read");
            out.insert(rel, receipts_verifier::digest::hex(&Sha256::digest(&bytes)));
        }
    }
    out
}

/// The values of every `href` and `src` attribute in an HTML page, with the
/// entities the templates write decoded.
pub fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            let start = i + attr.len();
            let end = rest[start..].find('"').map_or(rest.len(), |j| start + j);
            // Only real attributes: the character before must be whitespace.
            if rest[..i].ends_with(char::is_whitespace) {
                out.push(decode(&rest[start..end]));
            }
            rest = &rest[end..];
        }
    }
    out
}

/// `s` with the entities the templates write decoded.
pub fn decode(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("json")
}

pub fn write_json(path: &Path, value: &Value) {
    let mut text = serde_json::to_string_pretty(value).expect("json");
    text.push('\n');
    fs::write(path, text).expect("write");
}

pub fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut value = read_json(path);
    edit(&mut value);
    write_json(path, &value);
}

/// Builds with `--strict` and checks it exits 1 with every `needle` among
/// the failing receipts it prints.
pub fn fails_with(root: &Path, needles: &[&str]) {
    let out = receipts(root, &["build", "--strict"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "expected exit 1:\n{text}");
    let failing: Vec<&str> = text.lines().filter(|l| l.contains("Fail ")).collect();
    for needle in needles {
        assert!(
            failing.iter().any(|l| l.contains(needle)),
            "no failing receipt mentions `{needle}`:\n{}",
            failing.join("\n")
        );
    }
}

/// `n` with a comma between each group of three digits, as pages write counts.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
