//! An experiment of many runs has its run records listed in chunk manifests
//! (`data/<experiment>/runs/SHA256SUMS-<hex>`), so that verifying one run
//! reads a few hundred lines rather than one per run of the study. Each
//! forgery a publisher could make of them (a chunk edited, dropped, swapped
//! or slipped in, a run moved to another chunk or dropped with every digest
//! resealed) is kept here and must fail `receipts verify`.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{assert_exit, copy_dir, receipts, reseal, root_digest, stdout};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::chunks::{chunk_for, RecordsManifests};
use receipts_verifier::manifest::{format_sums, parse_sums};

/// More runs than one manifest lists: 16 chunks of one hex digit. (Whole
/// seeds of the simulated grid: 3 tasks × 2 profiles × 3 policies each.)
const RUNS: usize = 612;

/// A simulated study of [`RUNS`] runs in one experiment, built once per
/// test run (never changed: see [`forge`]).
fn built() -> &'static Path {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| common::simulated_site(RUNS, &[]).join("site"))
}

/// A copy of the built site to forge.
fn forge() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let site = dir.path().join("site");
    copy_dir(built(), &site);
    (dir, site)
}

fn read(site: &Path, rel: &str) -> String {
    fs::read_to_string(site.join(rel)).expect(rel)
}

/// The failing receipts of `receipts verify` on `site` (with `extra`
/// arguments), as (subject, claim); the exit code must be 1.
fn failures(site: &Path, extra: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["verify", ".", "--json", "--quiet"];
    args.extend_from_slice(extra);
    let out = receipts(site, &args);
    assert_exit(&out, 1, "verify of a forged site");
    let result: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    common::failing(&result)
}

fn has(found: &[(String, String)], subject: &str, claim: &str) -> bool {
    found.iter().any(|(s, c)| s == subject && c == claim)
}

/// Fails unless `found` holds the failure of `claim` about `subject`.
fn assert_has(found: &[(String, String)], subject: &str, claim: &str) {
    assert!(
        has(found, subject, claim),
        "no failing `{claim}` of {subject} among {found:?}"
    );
}

/// The top manifest, parsed.
fn top(site: &Path) -> BTreeMap<String, String> {
    parse_sums(&read(site, "data/SHA256SUMS")).expect("data/SHA256SUMS")
}

/// Writes `data/SHA256SUMS` and `SHA256SUMS` again after manifests changed,
/// as a forger would: the chunks as they are now, then the root.
fn reseal_manifests(site: &Path, mut top: BTreeMap<String, String>) {
    for path in top.clone().keys() {
        if receipts_verifier::manifest::chunks::is_chunk(path) {
            let bytes = fs::read(site.join("data").join(path)).unwrap_or_default();
            top.insert(path.clone(), sha256_hex(&bytes));
        }
    }
    fs::write(site.join("data/SHA256SUMS"), format_sums(&top)).expect("write");
    let mut root = parse_sums(&read(site, "SHA256SUMS")).expect("SHA256SUMS");
    root.insert(
        "data/SHA256SUMS".into(),
        sha256_hex(&fs::read(site.join("data/SHA256SUMS")).expect("read")),
    );
    fs::write(site.join("SHA256SUMS"), format_sums(&root)).expect("write");
}

/// A run of the study and the chunk that lists it.
fn a_run(site: &Path) -> (String, String) {
    let mut names: Vec<String> = fs::read_dir(site.join("data/S01/runs"))
        .expect("runs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let run = format!("S01/runs/{}", names[0]);
    let chunk = chunk_for(&top(site), &run).expect("the run is in a chunk");
    (run, chunk)
}

#[test]
fn the_runs_of_a_large_experiment_are_listed_in_the_chunk_their_name_names() {
    let site = built();
    let top = top(site);
    let chunks: Vec<&String> = top.keys().filter(|p| p.contains("/SHA256SUMS-")).collect();
    assert_eq!(chunks.len(), 16, "{RUNS} runs take 16 chunks");
    assert!(
        !top.keys().any(|p| p.starts_with("S01/runs/S01-")),
        "data/SHA256SUMS lists no run of S01 itself"
    );
    // Every run in exactly one chunk, the one its file name hashes to, and
    // the manifests exactly those the records make.
    let mut records = BTreeMap::new();
    for path in &chunks {
        let text = read(site, &format!("data/{path}"));
        assert_eq!(top[*path], sha256_hex(text.as_bytes()));
        for (file, digest) in parse_sums(&text).expect("chunk") {
            let rel = format!("S01/runs/{file}");
            assert_eq!(chunk_for(&top, &rel).as_ref(), Some(*path));
            let bytes = fs::read(site.join("data").join(&rel)).expect("record");
            assert_eq!(sha256_hex(&bytes), digest);
            assert!(records.insert(rel, digest).is_none());
        }
    }
    assert_eq!(records.len(), RUNS);
    for (path, digest) in &top {
        if !chunks.contains(&path) {
            records.insert(path.clone(), digest.clone());
        }
    }
    let made = RecordsManifests::of(&records);
    assert_eq!(made.top, read(site, "data/SHA256SUMS"));
    // `sha256sum -c` reads a chunk from its directory.
    let check = std::process::Command::new("sha256sum")
        .args(["-c", "--quiet", chunks[0].rsplit('/').next().unwrap()])
        .current_dir(site.join("data/S01/runs"))
        .output()
        .expect("sha256sum (GNU coreutils) runs");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    // Untouched, with its root pinned, the whole study verifies: every
    // manifest, digest, page and recomputed receipt passes.
    let root = root_digest(site);
    let out = receipts(site, &["verify", ".", "--quiet", "--expect-root", &root]);
    assert_exit(&out, 0, "verify of the untouched site");
}

#[test]
fn a_record_or_a_chunk_edited_without_resealing_what_lists_it_fails() {
    let (_dir, site) = forge();
    let (run, chunk) = a_run(&site);
    let path = site.join("data").join(&run);
    let text = fs::read_to_string(&path).expect("run");
    fs::write(&path, text.replacen("\"seed\"", "\"seed\" ", 1)).expect("write");
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{run}"),
        &format!("SHA-256 in data/{chunk}"),
    );
    // The chunk resealed to the edited record, data/SHA256SUMS not.
    let chunk_path = site.join("data").join(&chunk);
    let listed = read(&site, &format!("data/{chunk}"));
    let file = run.rsplit('/').next().unwrap();
    let mut runs = parse_sums(&listed).expect("chunk");
    runs.insert(file.into(), sha256_hex(&fs::read(&path).expect("run")));
    fs::write(&chunk_path, format_sums(&runs)).expect("write");
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{chunk}"),
        "SHA-256 in data/SHA256SUMS",
    );
    assert!(!has(
        &found,
        &format!("data/{run}"),
        &format!("SHA-256 in data/{chunk}")
    ));
}

#[test]
fn a_chunk_dropped_swapped_or_slipped_in_fails() {
    let (_dir, site) = forge();
    let (run, chunk) = a_run(&site);
    let other = top(&site)
        .keys()
        .find(|p| p.contains("/SHA256SUMS-") && **p != chunk)
        .cloned()
        .expect("another chunk");

    // Dropped.
    let saved = fs::read(site.join("data").join(&chunk)).expect("chunk");
    fs::remove_file(site.join("data").join(&chunk)).expect("remove");
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{chunk}"),
        "SHA-256 in data/SHA256SUMS",
    );
    assert_has(
        &found,
        &format!("data/{run}"),
        &format!("SHA-256 in data/{chunk}"),
    );

    // Swapped with another.
    let theirs = fs::read(site.join("data").join(&other)).expect("chunk");
    fs::write(site.join("data").join(&chunk), &theirs).expect("write");
    fs::write(site.join("data").join(&other), &saved).expect("write");
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{chunk}"),
        "SHA-256 in data/SHA256SUMS",
    );
    assert_has(
        &found,
        &format!("data/{other}"),
        "SHA-256 in data/SHA256SUMS",
    );
    fs::write(site.join("data").join(&chunk), &saved).expect("write");
    fs::write(site.join("data").join(&other), &theirs).expect("write");

    // A chunk no manifest lists, listing a record of its own.
    let extra = "S01/runs/SHA256SUMS-0a";
    fs::write(site.join("data").join(extra), &saved).expect("write");
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{extra}"),
        "listed in data/SHA256SUMS",
    );
}

#[test]
fn a_run_moved_to_another_chunk_with_every_manifest_resealed_fails() {
    let (_dir, site) = forge();
    let (run, chunk) = a_run(&site);
    let root = root_digest(&site);
    let top = top(&site);
    let other = top
        .keys()
        .find(|p| p.contains("/SHA256SUMS-") && **p != chunk)
        .cloned()
        .expect("another chunk");
    let file = run.rsplit('/').next().unwrap();
    let mut from = parse_sums(&read(&site, &format!("data/{chunk}"))).expect("chunk");
    let mut to = parse_sums(&read(&site, &format!("data/{other}"))).expect("chunk");
    to.insert(file.into(), from.remove(file).expect("listed"));
    fs::write(site.join("data").join(&chunk), format_sums(&from)).expect("write");
    fs::write(site.join("data").join(&other), format_sums(&to)).expect("write");
    reseal_manifests(&site, top.clone());
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{run}"),
        &format!("listed in data/{other}"),
    );
    assert_has(
        &found,
        &format!("data/{run}"),
        &format!("listed in data/{chunk}"),
    );
    assert!(has(
        &failures(&site, &["--expect-root", &root]),
        "SHA256SUMS",
        "root digest"
    ));

    // Listed in data/SHA256SUMS instead of any chunk.
    let mut direct = top.clone();
    direct.insert(run.clone(), to[file].clone());
    to.remove(file);
    fs::write(site.join("data").join(&other), format_sums(&to)).expect("write");
    reseal_manifests(&site, direct);
    let found = failures(&site, &[]);
    assert_has(
        &found,
        &format!("data/{run}"),
        &format!("listed in data/{chunk}"),
    );
}

#[test]
fn the_inconvenient_run_dropped_and_every_digest_resealed_fails() {
    let (_dir, site) = forge();
    let (run, _) = a_run(&site);
    let root = root_digest(&site);
    fs::remove_file(site.join("data").join(&run)).expect("remove");
    let resealed = reseal(&site);
    assert_ne!(resealed, root);
    // The pages still count the run: they are not what the records now
    // render to.
    let found = failures(&site, &[]);
    assert_has(
        &found,
        "experiments/S01.html",
        receipts_verifier::verify::RENDERED,
    );
    assert!(has(
        &failures(&site, &["--expect-root", &root]),
        "SHA256SUMS",
        "root digest"
    ));
}

#[test]
fn a_report_of_a_run_in_a_chunk_carries_its_chunk_and_is_anchored_by_it() {
    let (dir, site) = forge();
    let (run, chunk) = a_run(&site);
    let id = run.rsplit('/').next().unwrap().trim_end_matches(".json");
    let out = receipts(dir.path(), &["export", id, "--root", "site"]);
    assert_exit(&out, 0, "export");
    let report_path = dir.path().join(format!("{id}.report.json"));
    let mut report: serde_json::Value =
        serde_json::from_slice(&fs::read(&report_path).expect("report")).expect("json");
    assert_eq!(
        report["site"]["run_sums"].as_str(),
        Some(read(&site, &format!("data/{chunk}")).as_str())
    );
    let verify = |dir: &Path| {
        receipts(
            dir,
            &["verify", &format!("{id}.report.json"), "--site", "site"],
        )
    };
    assert_exit(&verify(dir.path()), 0, "verify the report");

    // The chunk left out, or edited to agree with an edited record.
    let saved = report.clone();
    report["site"].as_object_mut().unwrap().remove("run_sums");
    fs::write(&report_path, serde_json::to_vec_pretty(&report).unwrap()).expect("write");
    assert_exit(&verify(dir.path()), 1, "a report without its chunk");
    let mut report = saved;
    let sums = report["site"]["run_sums"].as_str().unwrap().to_string();
    let file = format!("{id}.json");
    let line = sums
        .lines()
        .find(|l| l.ends_with(&format!("  {file}")))
        .unwrap();
    let forged = sums.replace(line, &format!("{}  {file}", "0".repeat(64)));
    report["site"]["run_sums"] = forged.into();
    fs::write(&report_path, serde_json::to_vec_pretty(&report).unwrap()).expect("write");
    assert_exit(&verify(dir.path()), 1, "a report with a forged chunk");
}
