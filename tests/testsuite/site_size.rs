//! A site of many runs fits a static host: built with `--compress-records`,
//! each run's page and record together stay under the bytes a run may take
//! when 100,000 runs share GitHub Pages' 1 GB, and the compact page still
//! carries the run's facts and links its record, from which the browser
//! draws the replay.

use crate::common;

use std::fs;
use std::path::Path;

use common::{assert_exit, receipts};

/// GitHub Pages' limit on a site, shared by 100,000 runs.
const BYTES_PER_RUN: u64 = 1_000_000_000 / 100_000;
const RUNS: usize = 1_000;

/// The total size of the files directly in `dir` whose names satisfy `keep`,
/// and how many there are.
fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> (u64, usize) {
    let mut bytes = 0;
    let mut count = 0;
    for entry in fs::read_dir(dir).expect("read dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if keep(&name) {
            bytes += entry.metadata().expect("metadata").len();
            count += 1;
        }
    }
    (bytes, count)
}

#[test]
fn a_thousand_runs_fit_the_per_run_budget_of_a_hundred_thousand() {
    let (dir, _) = site_of(RUNS);
    let site = dir.join("site");
    let (records, record_count) = files(&site.join("data/S01/runs"), |n| n.ends_with(".json.gz"));
    let (pages, page_count) = files(&site.join("runs"), |n| {
        n.starts_with("S01-") && n.ends_with(".html")
    });
    assert_eq!((record_count, page_count), (RUNS, RUNS));
    let per_run = (pages + records) / RUNS as u64;
    assert!(
        per_run < BYTES_PER_RUN,
        "a run takes {per_run} bytes (page {} + record {}); the budget is {BYTES_PER_RUN}",
        pages / RUNS as u64,
        records / RUNS as u64,
    );

    // The runs index offers its seeds (57 here, thousands at 100,000 runs) as
    // a field to type in, not as a list repeated on each of its pages.
    let index = fs::read_to_string(site.join("runs/index.html")).expect("runs index");
    assert!(index.contains("<input type=\"number\" name=\"seed\""));
    assert!(!index.contains("<select name=\"seed\">"));

    // Every compact page keeps what a reader without scripts needs: the
    // run's outcome and receipts, its attempts, and a link to its record,
    // which the replay is drawn from.
    for entry in fs::read_dir(site.join("runs")).expect("runs") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("S01-") {
            continue;
        }
        let id = name.trim_end_matches(".html");
        let page = fs::read_to_string(&path).expect("page");
        let record = format!("../data/S01/runs/{id}.json.gz");
        for needed in [
            "<dt>Outcome</dt>".to_string(),
            "<dt>Receipts</dt>".to_string(),
            "<table class=\"attempts\">".to_string(),
            format!("<a id=\"record-link\" href=\"{record}\">"),
            "<div id=\"replay\"".to_string(),
            "<noscript>".to_string(),
            "assets/replay.js".to_string(),
        ] {
            assert!(page.contains(&needed), "{name} lacks {needed}");
        }
        for dropped in [
            "class=\"transcript\"",
            "class=\"steps\"",
            "svg class=\"chart",
        ] {
            assert!(!page.contains(dropped), "{name} still has {dropped}");
        }
    }
}

/// Every file of a site built from a simulated study of `runs` runs, path
/// relative to the site → bytes; and the folder holding the study and its
/// site (built once per test run: never changed).
fn site_of(runs: usize) -> (std::path::PathBuf, std::collections::BTreeMap<String, u64>) {
    let dir = common::simulated_site(runs, &["--compress-records"]);
    let site = dir.join("site");
    let sizes = walkdir::WalkDir::new(&site)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&site).expect("in the site");
            let bytes = e.metadata().expect("metadata").len();
            (rel.to_string_lossy().replace('\\', "/"), bytes)
        })
        .collect();
    (dir, sizes)
}

/// The whole site, not only its run pages and records: what every further
/// run adds (its page and record, its line in a chunk manifest, its row in
/// the runs index and the experiment's page, its subjects in the statement),
/// measured between 1,000 and 2,000 runs, and what does not grow with runs
/// (the verifier, the assets, the other pages), shared by 100,000 runs,
/// together fit 1 GB.
#[test]
fn a_hundred_thousand_runs_fit_one_gigabyte_whole_site_included() {
    let (_small_dir, small) = site_of(RUNS);
    let (_large_dir, large) = site_of(2 * RUNS);
    let total = |sizes: &std::collections::BTreeMap<String, u64>| sizes.values().sum::<u64>();
    let per_run = (total(&large) - total(&small)) / RUNS as u64;
    let fixed = total(&small) - per_run * RUNS as u64;
    let at_scale = fixed + per_run * 100_000;
    // Where a further run's bytes go, by top-level directory or file.
    let mut growth = std::collections::BTreeMap::<&str, i64>::new();
    for (path, bytes) in &large {
        let top = path.split('/').next().unwrap_or_default();
        *growth.entry(top).or_default() += *bytes as i64;
    }
    for (path, bytes) in &small {
        let top = path.split('/').next().unwrap_or_default();
        *growth.entry(top).or_default() -= *bytes as i64;
    }
    assert!(
        at_scale < 100_000 * BYTES_PER_RUN,
        "100,000 runs would take {at_scale} bytes: {per_run} a run and {fixed} besides; \
         a further 1,000 runs add {growth:?}"
    );
    // The verifier and the assets are the same whatever the study.
    for (path, bytes) in &small {
        if path.starts_with("assets/") || path.starts_with("verifier/") {
            assert_eq!(large.get(path), Some(bytes), "{path}");
        }
    }
}

#[test]
fn a_site_with_plain_records_keeps_full_run_pages() {
    let dir = common::built();
    let page = fs::read_to_string(
        dir.path()
            .join("site/runs/E02-release-brief-fast-s1-always-medium.html"),
    )
    .expect("page");
    for full in [
        "class=\"transcript\"",
        "class=\"steps\"",
        "svg class=\"chart",
    ] {
        assert!(page.contains(full), "the full page has {full}");
    }
    assert!(!page.contains("id=\"replay\""));
    assert!(!page.contains("assets/replay.js"));
}

/// A compact page is held to its records like a full one, and the script
/// that draws its replay to the digest the site was published with.
#[test]
fn a_forged_compact_page_or_a_patched_replay_script_fails() {
    let dir = common::built_with(&["--compress-records"]);
    let site = dir.path().join("site");
    let root = common::stdout(&receipts(dir.path(), &["verify", "site"]));
    let root = root
        .lines()
        .find_map(|l| l.strip_prefix("root digest "))
        .expect("the root digest")
        .to_string();

    // The page, not the record: an attempt that failed three of its checks
    // shown passing them all.
    let page = "runs/E02-release-brief-fast-s1-always-medium.html";
    let text = fs::read_to_string(site.join(page)).expect("page");
    let (from, to) = ("<td>1 of 4 pass</td>", "<td>4 of 4 pass</td>");
    assert!(
        text.contains(from),
        "{page} shows an attempt passing 1 of 4"
    );
    fs::write(site.join(page), text.replacen(from, to, 1)).expect("write");
    let out = receipts(dir.path(), &["verify", "site"]);
    assert_exit(&out, 1, "a forged compact page");
    assert!(
        common::stdout(&out).contains(&format!("FAIL {page}: rendered from the records")),
        "{}",
        common::stdout(&out)
    );
    fs::write(site.join(page), text).expect("restore");

    // A replay script that hides what the record holds: named by its digest
    // in SHA256SUMS.
    let script = site.join("assets/replay.js");
    let mut patched = fs::read_to_string(&script).expect("replay.js");
    patched.push_str("\nwindow.__hide = true;\n");
    fs::write(&script, &patched).expect("write");
    let out = receipts(dir.path(), &["verify", "site"]);
    assert_exit(&out, 1, "a patched replay.js");
    assert!(
        common::stdout(&out).contains("FAIL assets/replay.js"),
        "{}",
        common::stdout(&out)
    );
    let resealed = common::reseal(&site);
    assert_ne!(resealed, root);
    // Resealed, the script still differs from the copy this verifier ships,
    // and the root digest from the one the authors gave.
    let out = receipts(dir.path(), &["verify", "site", "--expect-root", &root]);
    assert_exit(&out, 1, "a patched replay.js, resealed");
    let said = common::stdout(&out);
    assert!(
        said.contains("FAIL assets/replay.js: the copy receipts"),
        "{said}"
    );
    assert!(said.contains(&resealed), "{said}");
}
