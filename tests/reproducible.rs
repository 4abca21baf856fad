//! The same input gives a byte-identical site whatever the output directory,
//! time zone, locale, order the input files were created in, or number of threads.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{repo, stderr, tree};

/// Copies the sample's files into `to`, creating them in the given order.
fn copy_in_order(to: &Path, reverse: bool) {
    let mut files: Vec<String> = Vec::new();
    for sub in ["experiments", "showcase", "docs"] {
        files.extend(
            tree(&repo().join(sub))
                .into_keys()
                .map(|p| format!("{sub}/{p}")),
        );
    }
    if reverse {
        files.reverse();
    }
    for rel in files {
        let target = to.join(&rel);
        fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        fs::copy(repo().join(&rel), target).expect("copy");
    }
}

fn build(root: &Path, out: &str, tz: &str, lang: &str, threads: &str) {
    let result = Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(["build", "--quiet", "--out", out])
        .current_dir(root)
        .env("TZ", tz)
        .env("LANG", lang)
        .env("LC_ALL", lang)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("receipts runs");
    assert!(result.status.success(), "{}", stderr(&result));
}

#[test]
fn two_builds_in_different_conditions_are_byte_identical() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    let b_root = b.path().join("somewhere/deeper");
    copy_in_order(a.path(), false);
    copy_in_order(&b_root, true);
    build(a.path(), "site", "UTC", "C", "1");
    build(&b_root, "public/out", "Pacific/Chatham", "de_DE.UTF-8", "3");
    let (ta, tb) = (
        tree(&a.path().join("site")),
        tree(&b_root.join("public/out")),
    );
    assert!(ta.len() > 200, "{} files", ta.len());
    let differing: Vec<&String> = ta.keys().filter(|k| ta.get(*k) != tb.get(*k)).collect();
    assert!(differing.is_empty(), "files differ: {differing:?}");
    assert_eq!(ta.len(), tb.len());
}
