//! The same input gives a byte-identical site whatever the output directory,
//! time zone, locale, order the input files were created in, or number of threads.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{repo, stderr, tree};
use receipts::write::in_place::InPlace;

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

/// Builds `root` into `out` through the library, keeping runs in `cache`
/// when one is given (as `receipts serve` does).
fn build_with(
    root: &Path,
    out: &str,
    cache: Option<&std::sync::Arc<receipts::cache::RunCache>>,
) -> receipts::build::Built {
    build_in_place(root, out, cache, None)
}

/// [`build_with`], changing the site `in_place` remembers in place.
fn build_in_place(
    root: &Path,
    out: &str,
    cache: Option<&std::sync::Arc<receipts::cache::RunCache>>,
    in_place: Option<&std::sync::Arc<InPlace>>,
) -> receipts::build::Built {
    let options = receipts::build::BuildOptions {
        root: root.to_path_buf(),
        out: root.join(out),
        quiet: true,
        templates: None,
        background_cleanup: false,
        cache: cache.cloned(),
        compress_records: false,
        in_place: in_place.cloned(),
    };
    receipts::build::build(&options).expect("build")
}

/// The site a rebuild that kept runs wrote, against a full build of the same input.
fn assert_same_as_full_build(root: &Path, kept_site: &str) {
    let _ = fs::remove_dir_all(root.join("full"));
    build_with(root, "full", None);
    let (kept, full) = (tree(&root.join(kept_site)), tree(&root.join("full")));
    let differing: Vec<&String> = full
        .keys()
        .chain(kept.keys())
        .filter(|k| kept.get(*k) != full.get(*k))
        .collect();
    assert!(differing.is_empty(), "files differ: {differing:?}");
}

/// Rewrites one JSON record under `experiments/` through `edit`.
fn edit_record(root: &Path, rel: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = root.join("experiments").join(rel);
    let mut value: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("read")).expect("json");
    edit(&mut value);
    fs::write(&path, serde_json::to_vec_pretty(&value).expect("json")).expect("write");
}

#[test]
fn a_rebuild_that_keeps_unchanged_runs_writes_what_a_full_build_writes() {
    rebuilds_keeping_unchanged_runs(None);
}

/// As `receipts serve` rebuilds: the site it wrote is changed in place.
#[test]
fn a_site_changed_in_place_is_what_a_full_build_writes() {
    rebuilds_keeping_unchanged_runs(Some(std::sync::Arc::new(InPlace::new(None))));
}

/// The inode of a file, which a file changed in place keeps.
fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).expect("metadata").ino()
}

fn rebuilds_keeping_unchanged_runs(in_place: Option<std::sync::Arc<InPlace>>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    copy_in_order(root, false);
    let cache = std::sync::Arc::new(receipts::cache::RunCache::default());
    let build_with =
        |root: &Path, out: &str, cache| build_in_place(root, out, cache, in_place.as_ref());
    let first = build_with(root, "site", Some(&cache));
    assert_eq!(first.kept, 0, "nothing to keep yet");
    let runs = first.counts.runs;

    // One run changes: every other run is kept, and the site is the full build's.
    let changed = "E04/runs/E04-invoice-cleanup-careful-s1-ladder.json";
    edit_record(root, changed, |run| {
        let d = run["attempts"][0]["duration_ms"]
            .as_u64()
            .expect("duration");
        run["attempts"][0]["duration_ms"] = (d + 1234).into();
    });
    let unchanged_page = root.join("site/runs/E04-invoice-cleanup-fast-s1-ladder.html");
    let before = inode(&unchanged_page);
    let second = build_with(root, "site", Some(&cache));
    assert_eq!(second.kept, runs - 1);
    assert_same_as_full_build(root, "site");
    assert_eq!(
        inode(&unchanged_page) == before,
        in_place.is_some(),
        "a page changed in place keeps its file; a new site has new files"
    );
    // Past the filesystem clock's granularity, as an edit by hand would be.
    std::thread::sleep(std::time::Duration::from_millis(50));

    // Files edited by hand in the served site are made again, not linked:
    // one of another size, and a record of the same size whose modification
    // time is put back (reuse is keyed on content, not size and time).
    let edited = root.join("site/runs/E04-invoice-cleanup-fast-s1-ladder.html");
    fs::write(&edited, "edited by hand").expect("write");
    let record = root.join("site/data/E04/runs/E04-invoice-cleanup-fast-s1-ladder.json");
    let mtime = fs::metadata(&record)
        .and_then(|m| m.modified())
        .expect("mtime");
    let mut bytes = fs::read(&record).expect("read");
    let at = bytes.iter().position(u8::is_ascii_digit).expect("a digit");
    bytes[at] = if bytes[at] == b'9' {
        b'8'
    } else {
        bytes[at] + 1
    };
    fs::write(&record, &bytes).expect("write");
    fs::File::options()
        .write(true)
        .open(&record)
        .and_then(|f| f.set_modified(mtime))
        .expect("set mtime");
    let third = build_with(root, "site", Some(&cache));
    assert_eq!(third.kept, runs, "every run's verification is kept");
    assert_same_as_full_build(root, "site");

    // A harness run and a skill edit change: no run page reads them, so
    // every run is kept, and their own pages are made again.
    edit_record(root, "harness/H01/runs/H01-sim-agent-fast-s1.json", |run| {
        run["agent"] = "sim-agent-renamed".into();
    });
    edit_record(
        root,
        "regressions/R01/edits/R01-edit-02-release.json",
        |edit| {
            edit["verdict"]["result"] = "WARN".into();
        },
    );
    let harness = build_with(root, "site", Some(&cache));
    assert_eq!(harness.kept, runs);
    assert_same_as_full_build(root, "site");
    let page = fs::read_to_string(root.join("site/harness/H01/H01-sim-agent-fast-s1.html"))
        .expect("report page");
    assert!(page.contains("sim-agent-renamed"));

    // A task changes: every run reads it, so none is kept.
    edit_record(root, "tasks/invoice-cleanup.json", |task| {
        task["title"] = "Clean invoices, every row kept".into();
    });
    let fourth = build_with(root, "site", Some(&cache));
    assert_eq!(fourth.kept, 0);
    assert_same_as_full_build(root, "site");

    // Another build replaced the site in between: nothing of the cache is trusted.
    let bump = |by: u64| {
        edit_record(root, changed, |run| {
            let d = run["attempts"][0]["duration_ms"]
                .as_u64()
                .expect("duration");
            run["attempts"][0]["duration_ms"] = (d + by).into();
        });
    };
    bump(1);
    build_in_place(root, "site", None, None);
    bump(1);
    let fifth = build_with(root, "site", Some(&cache));
    assert_eq!(fifth.kept, 0);
    assert_same_as_full_build(root, "site");

    // A document goes: its page and its published copy go with it.
    assert!(root.join("site/docs/TRUST.html").is_file());
    fs::remove_file(root.join("docs/TRUST.md")).expect("remove");
    build_with(root, "site", Some(&cache));
    assert!(!root.join("site/docs/TRUST.html").exists());
    assert_same_as_full_build(root, "site");
}

#[test]
fn gzipped_input_records_build_the_site_plain_ones_build() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    copy_in_order(root, false);
    build_with(root, "plain", None);
    let runs = root.join("experiments/E02/runs");
    for entry in fs::read_dir(&runs).expect("runs") {
        let path = entry.expect("entry").path();
        let bytes = fs::read(&path).expect("read");
        let mut gz = path.clone().into_os_string();
        gz.push(".gz");
        fs::write(gz, receipts::gzip::compress(&bytes)).expect("write");
        fs::remove_file(&path).expect("remove");
    }
    build_with(root, "from-gzip", None);
    let (plain, from_gzip) = (tree(&root.join("plain")), tree(&root.join("from-gzip")));
    assert!(plain.len() > 200, "{} files", plain.len());
    assert_eq!(plain, from_gzip);
}
