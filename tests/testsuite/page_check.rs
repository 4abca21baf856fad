//! The browser's page check (`receipts::browser`, which `render-wasm/`
//! exports to the page's worker), run natively: a built site rendered again
//! in memory from its own `data/` and `assets/` gives every page the build
//! wrote, byte for byte, and an edited page is found and named.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::{built, receipts, stderr};
use receipts::browser::{render_site, Digests, PageCheck, Rendered, SiteFiles};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::parse_sums;

/// Every file of `site` by its `/`-separated path.
fn site_files(site: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(site).sort_by_file_name() {
        let entry = entry.expect("walk");
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(site).expect("prefix");
            let rel = rel.to_string_lossy().replace('\\', "/");
            files.push((rel, fs::read(entry.path()).expect("read")));
        }
    }
    files
}

/// What the page's worker hands the check: `data/` and `assets/`.
fn site_input(site: &Path) -> SiteFiles {
    let mut input = SiteFiles::default();
    for (rel, bytes) in site_files(site) {
        if rel.starts_with("data/") {
            input.data.insert(&rel, bytes);
        } else if rel.starts_with("assets/") {
            input.assets.push((rel, bytes));
        }
    }
    input
}

/// The site rendered again from [`site_input`], with the digests the root manifest gives.
fn render(site: &Path) -> Rendered {
    let input = site_input(site);
    let sums = fs::read_to_string(site.join("SHA256SUMS")).expect("SHA256SUMS");
    let listed = parse_sums(&sums).expect("parses");
    let digests = Digests {
        root: sha256_hex(sums.as_bytes()),
        verifier: listed
            .get("verifier/SHA256SUMS")
            .cloned()
            .expect("the verifier's manifest is listed"),
    };
    render_site(input, &digests).expect("renders")
}

/// The files of `site` that are rendered: not the records, the code or the
/// manifests, but the records manifest as the records publish it.
fn rendered_files(site: &Path) -> Vec<(String, Vec<u8>)> {
    site_files(site)
        .into_iter()
        .filter(|(rel, _)| {
            rel == "data/SHA256SUMS"
                || !["data/", "assets/", "verifier/"]
                    .iter()
                    .any(|dir| rel.starts_with(dir))
                    && !["SHA256SUMS", "statement.intoto.json", ".nojekyll"].contains(&rel.as_str())
        })
        .collect()
}

fn renders_every_page(args: &[&str]) {
    let dir = common::sample_copy();
    let out = receipts(dir.path(), args);
    assert!(out.status.success(), "{}", stderr(&out));
    let site = dir.path().join("site");
    let rendered = render(&site);
    let files = rendered_files(&site);
    assert!(files.len() > 100, "{} pages", files.len());
    for (rel, bytes) in &files {
        assert_eq!(rendered.compare(rel, bytes), None, "{rel}");
    }
    let made: BTreeSet<String> = rendered.paths().into_iter().collect();
    let found: BTreeSet<String> = files.into_iter().map(|(rel, _)| rel).collect();
    assert_eq!(made, found);
}

#[test]
fn a_built_site_renders_again_to_the_same_bytes() {
    renders_every_page(&["build", "--quiet"]);
}

#[test]
fn a_site_with_gzipped_records_renders_again_to_the_same_bytes() {
    renders_every_page(&["build", "--quiet", "--compress-records"]);
}

#[test]
fn an_edited_page_is_named_with_its_first_differing_line() {
    let dir = built();
    let site = dir.path().join("site");
    let rendered = render(&site);
    let page = "runs/E04-invoice-cleanup-careful-s1-ladder.html";
    let text = fs::read_to_string(site.join(page)).expect("read");
    let (from, to) = (
        "<dt>Time</dt><dd>26.0 s</dd>",
        "<dt>Time</dt><dd>16.5 s</dd>",
    );
    assert!(text.contains(from));
    let forged = text.replacen(from, to, 1);
    let difference = rendered.compare(page, forged.as_bytes()).expect("differs");
    assert_eq!(difference.path, page);
    assert!(difference.found.contains("16.5 s"), "{difference:?}");
    assert!(difference.expected.contains("26.0 s"), "{difference:?}");
    assert!(difference.found.starts_with("line "), "{difference:?}");
    let extra = rendered
        .compare("runs/invented.html", b"<p>a run</p>")
        .expect("extra");
    assert!(extra.expected.contains("do not make it"), "{extra:?}");
}

#[test]
fn an_edited_record_renders_a_page_that_no_longer_matches() {
    let dir = built();
    let site = dir.path().join("site");
    let record = site.join("data/E04/runs/E04-invoice-cleanup-careful-s1-ladder.json");
    let text = fs::read_to_string(&record).expect("read");
    fs::write(&record, text.replacen("\"seed\": 1", "\"seed\": 1 ", 1)).expect("write");
    let rendered = render(&site);
    let differs: Vec<String> = rendered_files(&site)
        .into_iter()
        .filter(|(rel, bytes)| rendered.compare(rel, bytes).is_some())
        .map(|(rel, _)| rel)
        .collect();
    // The run's page shows its record's digest, which changed.
    assert!(
        differs.contains(&"runs/E04-invoice-cleanup-careful-s1-ladder.html".to_string()),
        "{differs:?}"
    );
}

#[test]
fn a_records_manifest_that_is_not_what_the_records_publish_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let rendered = render(&site);
    let sums = fs::read_to_string(site.join("data/SHA256SUMS")).expect("read");
    let forged = sums.replacen("\n", "\n\n", 1);
    let difference = rendered
        .compare("data/SHA256SUMS", forged.as_bytes())
        .expect("differs");
    assert!(difference.found.starts_with("line 2: "), "{difference:?}");
}

#[test]
fn records_that_cannot_be_rendered_fail_the_page_check() {
    let dir = built();
    let site = dir.path().join("site");
    let mut input = site_input(&site);
    // A document that is not UTF-8: no build renders it.
    input.data.insert("data/docs/notes.md", vec![0xff, 0xfe]);
    let digests = Digests {
        root: "0".repeat(64),
        verifier: "0".repeat(64),
    };
    let error = render_site(input, &digests).expect_err("refused");
    let receipts = PageCheck::unrendered(&error).finish();
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0].status, receipts_verifier::verify::Status::Fail);
    assert!(
        receipts[0].recomputed.contains("data/docs/notes.md"),
        "{:?}",
        receipts[0]
    );
}
