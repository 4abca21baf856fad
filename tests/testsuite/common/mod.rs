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
/// `--compress-records`): made once per test run (see [`shared`]) and
/// never changed. A test that changes it works on a [`copy`].
pub fn simulated_site(runs: usize, flags: &[&str]) -> PathBuf {
    let name = format!("simulated-{runs}{}", flags.concat());
    shared(&name, |dir| {
        let scale = runs.to_string();
        let out = receipts(
            dir,
            &["simulate", "--quiet", "--out", ".", "--scale", &scale],
        );
        assert_exit(&out, 0, "simulate");
        let build = [&["build", "--quiet", "--out", "site"][..], flags].concat();
        let out = receipts(dir, &build);
        assert_exit(&out, 0, &build.join(" "));
    })
}

/// A copy of the sample with its site built into `site/` (`receipts build
/// --quiet`), for the test to change as it likes.
pub fn built() -> tempfile::TempDir {
    built_with(&[])
}

/// A copy of the sample with its site built into `site/` with `flags`
/// (`receipts build --quiet <flags>`), for the test to change as it likes:
/// the build is made once per test run (see [`shared`]) and copied.
pub fn built_with(flags: &[&str]) -> tempfile::TempDir {
    let name = format!("sample-built{}", flags.concat());
    copy(&shared(&name, |dir| {
        copy_sample(dir);
        let build = [&["build", "--quiet"][..], flags].concat();
        let out = receipts(dir, &build);
        assert!(out.status.success(), "{}", stderr(&out));
    }))
}

/// A copy of `dir` (a fixture from [`shared`]) in a new temp directory.
pub fn copy(dir: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().expect("tempdir");
    copy_dir(dir, to.path());
    to
}

/// A fixture shared by every test of this test run: the first test (of any
/// process of the run) that asks for `name` has `make` fill an empty
/// directory, under a lock that makes the others wait; each later call
/// returns that directory at once. Tests only read it: one that changes a
/// fixture changes a [`copy`]. Under nextest (a process per test) the run is
/// `NEXTEST_RUN_ID`; under `cargo test` (one process), this process.
/// Directories of earlier runs are removed once they are an hour old.
pub fn shared(name: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let dir = fixtures().join(name);
    if dir.is_dir() {
        return dir;
    }
    let lock = fs::File::create(fixtures().join(format!("{name}.lock"))).expect("lock file");
    lock.lock().expect("lock");
    if !dir.is_dir() {
        // A test that failed while making it left a partial directory: it
        // is made again from the start, and only a whole one is renamed
        // into place.
        let partial = fixtures().join(format!("{name}.partial"));
        if partial.exists() {
            fs::remove_dir_all(&partial).expect("remove a partial fixture");
        }
        fs::create_dir_all(&partial).expect("mkdir");
        make(&partial);
        fs::rename(&partial, &dir).expect("rename the fixture into place");
    }
    dir
}

/// This test run's fixture directory (see [`shared`]), made on first use.
fn fixtures() -> PathBuf {
    let base = std::env::temp_dir().join("receipts-test-fixtures");
    let run = std::env::var("NEXTEST_RUN_ID")
        .unwrap_or_else(|_| format!("process-{}", std::process::id()));
    let dir = base.join(run);
    if !dir.is_dir() {
        fs::create_dir_all(&dir).expect("fixtures directory");
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for entry in fs::read_dir(&base).into_iter().flatten().flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < hour_ago);
            if old && entry.path() != dir {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
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
    copy_sample(dir.path());
    dir
}

/// Copies the shipped sample input (`experiments/`, `showcase/`, `docs/`)
/// into `dir`.
fn copy_sample(dir: &Path) {
    for sub in ["experiments", "showcase", "docs"] {
        let from = repo().join(sub);
        if from.is_dir() {
            copy_dir(&from, &dir.join(sub));
        }
    }
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

/// The failing receipts of a `receipts verify --json` result, `(subject, claim)`.
pub fn failing(result: &Value) -> Vec<(String, String)> {
    result["receipts"]
        .as_array()
        .expect("receipts")
        .iter()
        .filter(|r| r["status"] == "fail")
        .map(|r| {
            (
                r["subject"].as_str().unwrap_or_default().to_string(),
                r["claim"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `n` with a comma between each group of three digits, as pages write counts.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Asserts that `report` (a `receipts verify` output) holds, for each
/// (subject, claim, words), a failing receipt of that subject and claim
/// whose line says those words.
pub fn assert_each_fails(report: &str, expected: &[(&str, &str, &str)]) {
    let failing: Vec<&str> = report.lines().filter(|l| l.starts_with("FAIL")).collect();
    for (subject, claim, says) in expected {
        assert!(
            failing.iter().any(|l| l.contains(subject)
                && l.contains(&format!(": {claim}:"))
                && l.contains(says)),
            "no failing {claim} of {subject} says `{says}`:\n{}",
            failing.join("\n")
        );
    }
}
