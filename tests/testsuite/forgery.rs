//! Forgeries of a built site and of an exported report, each made the way a
//! publisher with something to hide would make it (edit the page instead of
//! the record, reseal every digest that can be resealed, patch the
//! verifier), and each held to fail `receipts verify`, or to be refused
//! (exit 2) or left unanchored (exit 3), never verified.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{
    assert_exit, built, files_ending, receipts, replace_in, reseal, root_digest, stderr, stdout,
};
use receipts_verifier::digest::sha256_hex;

fn verify(site: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["verify", "."];
    args.extend_from_slice(extra);
    receipts(site, &args)
}

#[test]
fn the_untouched_site_verifies_with_its_root_pinned_in_every_accepted_form() {
    let dir = built();
    let site = dir.path().join("site");
    let root = root_digest(&site);
    for pin in [
        root.clone(),
        root.to_uppercase(),
        format!("sha256:{root}"),
        format!("SHA256:{}", root.to_uppercase()),
    ] {
        assert_exit(&verify(&site, &["--expect-root", &pin]), 0, &pin);
    }
    // Every page shows the root digest the build printed and the pin
    // expects (the standalone verifier's copy is the same for every site).
    for page in files_ending(&site, ".html")
        .into_iter()
        .filter(|p| !p.starts_with(site.join("verifier")))
    {
        let text = fs::read_to_string(&page).expect("page");
        assert!(
            text.contains(&format!("id=\"root-digest\">{root}</code>")),
            "{} does not show the root digest",
            page.display()
        );
    }
}

#[test]
fn a_malformed_pin_is_refused_never_ignored() {
    let dir = built();
    let site = dir.path().join("site");
    let root = root_digest(&site);
    for pin in [
        format!("{root}0"),
        root[..63].to_string(),
        format!("{root}&x"),
        format!("sha512:{root}"),
        format!("sha256: {root}"),
        format!("{}g", &root[..63]),
        String::new(),
    ] {
        let out = verify(&site, &["--expect-root", &pin]);
        assert_exit(&out, 2, &pin);
        assert!(
            stderr(&out).contains("invalid pin"),
            "{pin}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_number_edited_on_a_page_fails_even_with_every_digest_resealed() {
    for (page, from, to) in [
        (
            "index.html",
            "<span class=\"published\">94.4%</span>",
            "<span class=\"published\">99.4%</span>",
        ),
        ("index.html", "✓ 94.4%", "✓ 99.4%"),
        (
            "experiments/E01.html",
            "54 runs on record",
            "55 runs on record",
        ),
        (
            "runs/E04-invoice-cleanup-careful-s1-ladder.html",
            "<dt>Time</dt><dd>26.0 s</dd>",
            "<dt>Time</dt><dd>16.5 s</dd>",
        ),
        ("runs/rows-1.json", "25.955", "15.955"),
        // The small tier's slowdown through E03's day hidden: its last
        // half's median throughput shown as fast as its first half's.
        (
            "experiments/E03.html",
            "<td>78</td><td>82</td><td>68</td>",
            "<td>78</td><td>82</td><td>82</td>",
        ),
        // The cascade's cost per verdict shown lower than its verdicts
        // cost, beside the all-largest counterfactual it is set against.
        (
            "regressions/R01.html",
            "<td>$1.34</td><td>$0.0383</td>",
            "<td>$1.34</td><td>$0.0283</td>",
        ),
        // The planted document, relabelled in a run's transcript.
        (
            "runs/E01-release-brief-careful-s1-always-large.html",
            "\">vendor-note.md</a></p>",
            "\">release-notes.md</a></p>",
        ),
        // An imported evaluation's metric and a trace's time.
        (
            "imports/I01/scorers.html",
            "accuracy <span class=\"published\">0.375</span>",
            "accuracy <span class=\"published\">0.875</span>",
        ),
        (
            "imports/I02/otel/agent.otlp.html",
            "(817.25 ms)",
            "(317.25 ms)",
        ),
    ] {
        let dir = built();
        let site = dir.path().join("site");
        let root = root_digest(&site);
        replace_in(&site.join(page), from, to);
        let resealed = reseal(&site);
        assert_eq!(resealed, root, "pages are not in the root manifest");
        let out = verify(&site, &["--expect-root", &root]);
        assert_exit(&out, 1, page);
        let text = stdout(&out);
        assert!(
            text.contains(&format!(
                "FAIL {page}: rendered from the records: recorded line "
            )),
            "{page} not named:\n{text}"
        );
        assert!(
            text.contains(to) && text.contains(from),
            "both versions shown:\n{text}"
        );
    }
}

/// Replaces the site's asset `path`, which `RECEIPTS_MODULES` names as
/// `module`, with `patched`, and reseals as a forger would: its Subresource
/// Integrity value where verify.js carries it, verify.js's own value on
/// every page, and SHA256SUMS; the resealed root digest.
fn reseal_patched_module(site: &Path, module: &str, path: &str, patched: &[u8]) -> String {
    fs::write(site.join(path), patched).expect("write");
    use base64::Engine;
    let sri = |bytes: &[u8]| {
        use sha2::Digest;
        format!(
            "sha384-{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(bytes))
        )
    };
    let script = site.join("assets/verify.js");
    let original = fs::read(&script).expect("verify.js");
    let sealed = String::from_utf8(original.clone()).expect("utf-8");
    let genuine_module = {
        let start = sealed
            .find(&format!("\"{module}\":{{"))
            .unwrap_or_else(|| panic!("{module} in RECEIPTS_MODULES"));
        let at = start + sealed[start..].find("\"sri\":\"").expect("its sri") + "\"sri\":\"".len();
        sealed[at..at + sealed[at..].find('"').expect("end")].to_string()
    };
    let resealed_script = sealed.replace(&genuine_module, &sri(patched));
    assert_ne!(resealed_script, sealed, "verify.js names {module}'s value");
    fs::write(&script, &resealed_script).expect("write");
    let (old, new) = (sri(&original), sri(resealed_script.as_bytes()));
    for page in files_ending(site, ".html") {
        let text = fs::read_to_string(&page).expect("page");
        fs::write(&page, text.replace(&old, &new)).expect("write");
    }
    reseal(site)
}

#[test]
fn a_patched_verifier_fails_with_its_integrity_values_updated_and_everything_resealed() {
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    let worker = site.join("assets/verify-worker.js");
    let original = fs::read_to_string(&worker).expect("worker");
    let patched = original.replace(
        "var marks = marksFor(job.marks, recomputed);",
        "receipts.forEach(function (r) { r.status = \"pass\"; }); var marks = marksFor(job.marks, recomputed);",
    );
    assert_ne!(patched, original, "the patch applies");
    let resealed = reseal_patched_module(
        &site,
        "worker",
        "assets/verify-worker.js",
        patched.as_bytes(),
    );
    assert_ne!(resealed, genuine, "the assets are in the root manifest");

    // Unpinned: the asset is not the copy this binary ships, and the pages
    // are not what the records render.
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "patched worker");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL assets/verify-worker.js: the copy receipts")
            && text.contains("FAIL assets/verify.js: the copy receipts"),
        "{text}"
    );
    // Pinned to the genuine root digest: the pin fails too.
    let out = verify(&site, &["--expect-root", &genuine]);
    assert_exit(&out, 1, "patched worker, pinned");
    assert!(
        stdout(&out).contains(&format!("FAIL SHA256SUMS: root digest: recorded {genuine}")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_record_edited_without_resealing_fails_against_its_manifest() {
    let dir = built();
    let site = dir.path().join("site");
    let rel = "data/E01/summary.json";
    replace_in(
        &site.join(rel),
        "\"pass_rate_pct\": 83.3",
        "\"pass_rate_pct\": 99.4",
    );
    let out = verify(&site, &[]);
    assert_exit(&out, 1, rel);
    assert!(
        stdout(&out).contains(&format!(
            "FAIL {rel}: SHA-256 in data/SHA256SUMS: recorded "
        )),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_resealed_record_edit_is_caught_by_the_recomputation_and_the_pin() {
    // The published summary says 99.4%: resealed, it is consistent with the
    // manifests, but the runs do not give it, and the root digest moved.
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    replace_in(
        &site.join("data/E01/summary.json"),
        "\"pass_rate_pct\": 83.3",
        "\"pass_rate_pct\": 99.4",
    );
    reseal(&site);
    let out = verify(&site, &["--expect-root", &genuine]);
    assert_exit(&out, 1, "resealed summary");
    let text = stdout(&out);
    assert!(text.contains("FAIL SHA256SUMS: root digest"), "{text}");
    assert!(
        text.contains(
            "FAIL data/E01/summary.json: primary.policies[ladder].pass_rate_pct: recorded 99.4"
        ),
        "{text}"
    );
}

#[test]
fn a_resealed_claim_and_the_page_that_shows_it_fail_together() {
    // The forger rewrites the headline's number in the record and reseals
    // every digest: the recomputation fails the claim, showing both values,
    // natively and over the records alone (as the browser does), and the
    // pin fails the root.
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    replace_in(
        &site.join("data/E02/summary.json"),
        "[83.3%](#E02.ladder.pass_rate_pct)",
        "[88.9%](#E02.ladder.pass_rate_pct)",
    );
    reseal(&site);
    let out = verify(&site, &["--expect-root", &genuine]);
    assert_exit(&out, 1, "resealed claim");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL data/E02/summary.json: headline: [88.9%](#E02.ladder.pass_rate_pct): recorded 88.9%; recomputed the figure is 83.3"),
        "{text}"
    );
    let out = verify(&site, &["--records-only"]);
    assert_exit(&out, 1, "records only");
    assert!(stdout(&out).contains("1 fail"), "{}", stdout(&out));
}

#[test]
fn resealed_words_that_claim_fail_by_their_word() {
    // The forger rewrites the headline's record: the cost change becomes
    // `faster` bound to the change of pass rates (the ladder is slower),
    // and prose claims in words, a Roman numeral, look-alike digits and a
    // comparison bound to nothing, every digest resealed. Each fails by
    // its word, natively and over the records alone (as the browser does).
    let dir = built();
    let site = dir.path().join("site");
    replace_in(
        &site.join("data/E02/summary.json"),
        "[1.5–5.5% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost per task",
        "[faster](#change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct)) per task, passing nine in ten tasks, IV of them l00% right and dearer",
    );
    reseal(&site);
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "resealed words");
    let text = stdout(&out);
    for needle in [
            "FAIL data/E02/summary.json: headline: [faster](#change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct)): recorded faster; recomputed `faster` describes a time, but the figure is a rate",
            "FAIL data/E02/summary.json: headline: nine in ten: recorded nine in ten; recomputed a number written in words",
            "FAIL data/E02/summary.json: headline: IV: recorded IV; recomputed a number written as a Roman numeral",
            "FAIL data/E02/summary.json: headline: l00%: recorded l00%; recomputed a number written with letters that look like digits",
            "FAIL data/E02/summary.json: headline: dearer: recorded dearer; recomputed a comparison typed by hand",
    ] {
        assert!(text.contains(needle), "no `{needle}` in\n{text}");
    }
    let out = verify(&site, &["--records-only"]);
    assert_exit(&out, 1, "records only");
    assert!(stdout(&out).contains("5 fail"), "{}", stdout(&out));
}

#[test]
fn a_resealed_number_in_a_showcase_note_or_a_correction_fails_by_its_field() {
    // Prose outside the headline and findings, rewritten in the records
    // and resealed: a showcase note and a correction's reason each claim a
    // number no figure backs.
    let dir = built();
    let site = dir.path().join("site");
    replace_in(
        &site.join("data/showcase/showcase.json"),
        "A ladder that escalated from small to large",
        "A ladder that passed l00% of tasks, escalated from small to large",
    );
    replace_in(
        &site.join("data/E02/summary.json"),
        "Its cost is now carried as a bound.",
        "Its cost is now carried as a bound, ninety-seven percent of the first.",
    );
    reseal(&site);
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "resealed prose");
    let text = stdout(&out);
    for needle in [
        "FAIL data/showcase/showcase.json: runs[0].note: l00%: recorded l00%; recomputed a number written with letters that look like digits",
        "FAIL data/E02/summary.json: corrections[0].reason: ninety-seven percent: recorded ninety-seven percent; recomputed a number written in words",
    ] {
        assert!(text.contains(needle), "no `{needle}` in\n{text}");
    }
    let out = verify(&site, &["--records-only"]);
    assert_exit(&out, 1, "records only");
    assert!(stdout(&out).contains("2 fail"), "{}", stdout(&out));
}

#[test]
fn a_dropped_run_rebuilt_into_a_consistent_site_is_caught_by_the_pin() {
    // The strongest forgery: the inconvenient run and its results row
    // deleted from the input and the whole site built again. It is
    // consistent; only the root digest the reader was given tells.
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    let run = "E01-shipping-rule-fast-s2-always-large";
    fs::remove_file(dir.path().join(format!("experiments/E01/runs/{run}.json"))).expect("rm");
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = verify(&site, &["--expect-root", &genuine]);
    assert_exit(&out, 1, "dropped run");
    assert!(
        stdout(&out).contains(&format!("FAIL SHA256SUMS: root digest: recorded {genuine}")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn pages_added_or_removed_fail() {
    let dir = built();
    let site = dir.path().join("site");
    fs::write(site.join("erratum.html"), "<p>All runs passed.</p>").expect("write");
    fs::remove_file(site.join("runs/E04-invoice-cleanup-careful-s1-ladder.html")).expect("rm");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "added and removed");
    let text = stdout(&out);
    assert!(text.contains("FAIL erratum.html: rendered from the records: recorded a file; recomputed no such file"), "{text}");
    assert!(text.contains("FAIL runs/E04-invoice-cleanup-careful-s1-ladder.html: rendered from the records: recorded no file"), "{text}");
}

#[test]
fn a_page_replaced_by_a_link_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let page = site.join("experiments/E02.html");
    fs::remove_file(&page).expect("rm");
    #[cfg(unix)]
    std::os::unix::fs::symlink(site.join("experiments/E01.html"), &page).expect("symlink");
    #[cfg(not(unix))]
    fs::write(&page, "x").expect("write");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "a link");
    assert!(
        stdout(&out).contains("FAIL experiments/E02.html: rendered from the records"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_statement_with_a_softened_tally_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let path = site.join("statement.intoto.json");
    let mut statement: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("read")).expect("json");
    statement["predicate"]["verification"]["pass"] = 999_999.into();
    fs::write(&path, serde_json::to_vec_pretty(&statement).expect("json")).expect("write");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "statement");
    assert!(
        stdout(&out).contains("FAIL statement.intoto.json: rendered from the records"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn claiming_another_builder_does_not_dodge_rendering() {
    // A forger edits a page, then names another version of receipts as the
    // builder so that this one would not render the pages again. The
    // statement is not covered by the root digest; the code is, and it is
    // this version's: the pages are rendered and the edit fails.
    let dir = built();
    let site = dir.path().join("site");
    replace_in(&site.join("index.html"), "✓ 94.4%", "✓ 99.4%");
    set_builder(&site, "99.0.0");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "another builder, this version's code");
    assert!(
        stdout(&out).contains("FAIL index.html: rendered from the records"),
        "{}",
        stdout(&out)
    );

    // With other code too, another version may render otherwise: what
    // differs could not be checked (exit 3), and is shown, the forged line
    // included, never verified.
    let dir = built();
    let site = dir.path().join("site");
    let css = site.join("assets/style.css");
    let mut bytes = fs::read(&css).expect("css");
    bytes.extend_from_slice(b"\n/* another version */\n");
    fs::write(&css, bytes).expect("write");
    reseal(&site);
    replace_in(&site.join("index.html"), "✓ 94.4%", "✓ 99.4%");
    set_builder(&site, "99.0.0");
    let out = verify(&site, &[]);
    assert_exit(&out, 3, "another builder, other code");
    let text = stdout(&out);
    assert!(
        text.contains("COULD NOT CHECK assets/style.css: the copy receipts ")
            && text.contains("the statement names receipts 99.0.0, which renders its own way"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l
            .starts_with("COULD NOT CHECK index.html: rendered from the records: served line ")
            && l.contains("99.4%")),
        "{text}"
    );
    // The same site claiming this version's name: every difference fails.
    set_builder(&site, env!("CARGO_PKG_VERSION"));
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "this version, other code");
}

fn set_builder(site: &Path, version: &str) {
    let path = site.join("statement.intoto.json");
    let mut statement: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("read")).expect("json");
    statement["predicate"]["builder"]["version"] = version.into();
    fs::write(&path, serde_json::to_vec_pretty(&statement).expect("json")).expect("write");
}

#[test]
fn a_file_standing_for_a_listed_record_under_another_name_fails() {
    // The genuine bytes of an object moved to `<sha>.gz`, the listed name
    // holding forged bytes, and the statement naming the extra file: only a
    // run record may be read as gzip, and an object is named by its digest.
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    let objects = site.join("data/objects");
    let name = fs::read_dir(&objects)
        .expect("objects")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .min()
        .expect("an object");
    fs::copy(objects.join(&name), objects.join(format!("{name}.gz"))).expect("copy");
    fs::write(objects.join(&name), "FORGED OBJECT\n").expect("write");
    let statement = site.join("statement.intoto.json");
    let mut value: serde_json::Value =
        serde_json::from_slice(&fs::read(&statement).expect("read")).expect("json");
    let gz = format!("data/objects/{name}.gz");
    let digest = sha256_hex(&fs::read(site.join(&gz)).expect("gz"));
    let subjects = value["subject"].as_array_mut().expect("subjects");
    subjects.push(serde_json::json!({ "name": gz, "digest": { "sha256": digest } }));
    subjects.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    fs::write(&statement, serde_json::to_vec_pretty(&value).expect("json")).expect("write");
    for _ in 0..3 {
        let out = verify(&site, &["--expect-root", &genuine]);
        assert_exit(&out, 1, "an object under another name");
        let text = stdout(&out);
        assert!(
            text.contains(&format!("FAIL data/objects/{name}: SHA-256 in data/SHA256SUMS: recorded {name}; recomputed {}", sha256_hex(b"FORGED OBJECT\n"))),
            "{text}"
        );
    }
}

#[test]
fn records_only_refuses_a_pin_it_cannot_check() {
    let dir = built();
    let site = dir.path().join("site");
    let out = verify(
        &site,
        &["--records-only", "--expect-root", &root_digest(&site)],
    );
    assert_exit(&out, 2, "--records-only with a pin");
    assert!(
        stderr(&out).contains("--records-only reads no manifest"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn control_characters_from_a_forged_site_are_shown_escaped() {
    let dir = built();
    let site = dir.path().join("site");
    fs::write(site.join("fake\u{1b}[2K\rline.html"), "x").expect("write");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "a file with control characters in its name");
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    assert!(text.contains("fake\\u{1b}[2K\\u{d}line.html"), "{text}");
}

#[test]
fn a_forged_and_resealed_report_is_never_verified() {
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    let run = "E02-release-brief-fast-s1-always-medium";
    let out = receipts(&site, &["export", run, "--root", ".", "--out", "r.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let path = site.join("r.json");
    let report: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).expect("read")).expect("json");
    assert_eq!(
        report["site"]["root_digest"],
        genuine.as_str(),
        "the report names its site"
    );
    fs::rename(&path, dir.path().join("r.json")).expect("move");
    let path = dir.path().join("r.json");

    // The forger makes the run cheaper: the run record's costs, its digest,
    // the records manifest inside the report, the root manifest, the root
    // digest, and the claims, all consistent.
    let mut forged = report.clone();
    let run_path = format!("E02/runs/{run}.json");
    let text = forged["records"][&run_path]
        .as_str()
        .expect("run")
        .to_string();
    let mut record: serde_json::Value = serde_json::from_str(&text).expect("json");
    for attempt in record["attempts"].as_array_mut().expect("attempts") {
        for call in attempt["calls"].as_array_mut().expect("calls") {
            if call["usage"]["completion_tokens"].is_u64() {
                call["usage"]["completion_tokens"] = 1.into();
            }
        }
    }
    let new_text = serde_json::to_string_pretty(&record).expect("json");
    let new_digest = sha256_hex(new_text.as_bytes());
    let old_digest = forged["record_digests"][&run_path]
        .as_str()
        .expect("d")
        .to_string();
    forged["records"][&run_path] = new_text.into();
    forged["record_digests"][&run_path] = new_digest.clone().into();
    let records_sums = forged["site"]["records_sums"]
        .as_str()
        .expect("records_sums")
        .replace(&old_digest, &new_digest);
    let old_records_digest = forged["records_digest"].as_str().expect("d").to_string();
    let new_records_digest = sha256_hex(records_sums.as_bytes());
    let sums = forged["site"]["sums"]
        .as_str()
        .expect("sums")
        .replace(&old_records_digest, &new_records_digest);
    forged["site"]["records_sums"] = records_sums.into();
    forged["records_digest"] = new_records_digest.into();
    forged["site"]["root_digest"] = sha256_hex(sums.as_bytes()).into();
    forged["site"]["sums"] = sums.into();
    fs::write(&path, serde_json::to_vec_pretty(&forged).expect("json")).expect("write");
    // The claims now disagree with the cheaper run: let the forger fix them
    // from what the verifier itself recomputes.
    let first = receipts(dir.path(), &["verify", "r.json", "--json"]);
    let result: serde_json::Value = serde_json::from_slice(&first.stdout).expect("json");
    for r in result["receipts"].as_array().expect("receipts") {
        if r["claim"] == "claims.cost_usd" && r["status"] == "fail" {
            let (low, high) = r["recomputed"]
                .as_str()
                .expect("range")
                .split_once('–')
                .expect("a range");
            forged["claims"]["cost_usd"]["low"] = low.parse::<f64>().expect("low").into();
            forged["claims"]["cost_usd"]["high"] = high.parse::<f64>().expect("high").into();
        }
    }
    fs::write(&path, serde_json::to_vec_pretty(&forged).expect("json")).expect("write");

    // Rounded to zero, the cost no longer agrees (it must to the micro-dollar).
    let mut rounded = report.clone();
    rounded["claims"]["cost_usd"] = serde_json::json!({ "low": 0, "high": 0 });
    fs::write(&path, serde_json::to_vec_pretty(&rounded).expect("json")).expect("write");
    let out = receipts(dir.path(), &["verify", "r.json", "--expect-root", &genuine]);
    assert_exit(&out, 1, "a cost rounded to 0");
    assert!(
        stdout(&out).contains("FAIL report: claims.cost_usd"),
        "{}",
        stdout(&out)
    );
    fs::write(&path, serde_json::to_vec_pretty(&forged).expect("json")).expect("write");

    // Alone: consistent, not anchored; never "verified".
    let alone = receipts(dir.path(), &["verify", "r.json"]);
    assert_exit(&alone, 3, "forged report alone");
    assert!(
        stdout(&alone).contains("consistent, not anchored"),
        "{}",
        stdout(&alone)
    );
    // Against the genuine root digest, or the site it claims to come from: fails.
    let pinned = receipts(dir.path(), &["verify", "r.json", "--expect-root", &genuine]);
    assert_exit(&pinned, 1, "forged report, pinned");
    let against = receipts(dir.path(), &["verify", "r.json", "--site", "site"]);
    assert_exit(&against, 1, "forged report against its site");
    // The genuine report passes both ways.
    fs::write(&path, serde_json::to_vec_pretty(&report).expect("json")).expect("write");
    assert_exit(
        &receipts(dir.path(), &["verify", "r.json", "--expect-root", &genuine]),
        0,
        "genuine, pinned",
    );
    assert_exit(
        &receipts(dir.path(), &["verify", "r.json", "--site", "site"]),
        0,
        "genuine, its site",
    );
}

#[cfg(unix)]
#[test]
fn links_and_devices_in_a_forged_site_are_never_followed() {
    // A link to a device that never ends and a link out of the site, where a
    // record and an asset should be: named and failed, not read.
    let dir = built();
    let site = dir.path().join("site");
    let secret = dir.path().join("secret.txt");
    fs::write(&secret, "outside the site").expect("write");
    let record = site.join("data/E01/summary.json");
    fs::remove_file(&record).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", &record).expect("symlink");
    let asset = site.join("assets/style.css");
    fs::remove_file(&asset).expect("rm");
    std::os::unix::fs::symlink(&secret, &asset).expect("symlink");
    let sums = site.join("SHA256SUMS");
    fs::remove_file(&sums).expect("rm");
    let out = verify(&site, &[]);
    assert_exit(&out, 2, "no manifest");
    // With the manifest itself a link to a device: refused, not read.
    std::os::unix::fs::symlink("/dev/zero", &sums).expect("symlink");
    let out = verify(&site, &[]);
    assert_exit(&out, 2, "a linked manifest");
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
}

#[cfg(unix)]
#[test]
fn a_linked_record_or_asset_fails_by_name_without_being_read() {
    let dir = built();
    let site = dir.path().join("site");
    let record = site.join("data/E01/summary.json");
    fs::remove_file(&record).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", &record).expect("symlink");
    let asset = site.join("assets/style.css");
    let secret = dir.path().join("secret.txt");
    fs::write(&secret, "outside the site").expect("write");
    fs::remove_file(&asset).expect("rm");
    std::os::unix::fs::symlink(&secret, &asset).expect("symlink");
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "links");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL data/E01/summary.json: SHA-256 in data/SHA256SUMS: recorded ")
            && text.contains("a symbolic link, which is not followed"),
        "{text}"
    );
    assert!(
        text.contains("FAIL assets/style.css: SHA-256 in SHA256SUMS: recorded "),
        "{text}"
    );
    assert!(!text.contains(&sha256_hex(b"outside the site")), "{text}");
}

#[cfg(unix)]
#[test]
fn a_directory_linked_out_of_the_site_is_never_followed() {
    // The runs' pages and the assets moved out of the site, their
    // directories replaced by links to the copies: named and failed, not read.
    let dir = built();
    let site = dir.path().join("site");
    for sub in ["runs", "assets"] {
        let outside = dir.path().join(format!("outside-{sub}"));
        fs::rename(site.join(sub), &outside).expect("move");
        std::os::unix::fs::symlink(&outside, site.join(sub)).expect("symlink");
    }
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "linked directories");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL assets/style.css: SHA-256 in SHA256SUMS: recorded ")
            && text.contains("assets is a symbolic link, which is not followed"),
        "{text}"
    );
    assert!(
        text.contains("FAIL runs/E01-invoice-cleanup-careful-s1-always-large.html: rendered from the records: recorded no file (runs is a symbolic link, which is not followed)"),
        "{text}"
    );
}

#[test]
fn a_manifest_naming_a_file_in_another_spelling_is_refused() {
    // `E01/./experiment.json` and `E01/LOG.md/.` name, once fetched, the
    // files they alias; a verifier keying on the text would skip them.
    for (from, to) in [
        ("  E01/experiment.json\n", "  E01/./experiment.json\n"),
        ("  E01/LOG.md\n", "  E01/LOG.md/.\n"),
    ] {
        let dir = built();
        let site = dir.path().join("site");
        let sums = site.join("data/SHA256SUMS");
        replace_in(&sums, from, to);
        let out = verify(&site, &[]);
        assert_ne!(out.status.code(), Some(0), "{to}");
        assert_ne!(out.status.code(), Some(3), "{to}");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains("data/SHA256SUMS"), "{text}");
    }
}

#[test]
fn a_failing_claim_shown_as_passing_fails_on_its_page_even_resealed() {
    // The headline claims 88.9% where the runs give 83.3%: the build marks
    // it ✗. The forger rewrites the page to show the mark and title of a
    // pass and reseals everything: the claim still fails from the record,
    // and the page fails as not rendered from the records.
    let dir = common::sample_copy();
    common::edit_json(&dir.path().join("experiments/E02/summary.json"), |s| {
        let headline = s["headline"].as_str().expect("headline");
        s["headline"] = headline
            .replace(
                "[83.3%](#E02.ladder.pass_rate_pct)",
                "[88.9%](#E02.ladder.pass_rate_pct)",
            )
            .into();
    });
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let site = dir.path().join("site");
    let root = root_digest(&site);
    let page = "experiments/E02.html";
    let text = fs::read_to_string(site.join(page)).expect("page");
    let start = text
        .find("<span class=\"claim fail\" title=\"E02.ladder.pass_rate_pct\">88.9%")
        .expect("the failing claim is marked");
    let end = start + text[start..].find("</span></span>").expect("end") + "</span></span>".len();
    let forged = "<span class=\"claim pass\" title=\"E02.ladder.pass_rate_pct: recomputed 88.9%\">88.9%<span class=\"mark\"> ✓</span></span>";
    fs::write(
        site.join(page),
        format!("{}{forged}{}", &text[..start], &text[end..]),
    )
    .expect("write");
    assert_eq!(reseal(&site), root, "pages are not in the root manifest");
    let out = verify(&site, &["--expect-root", &root]);
    assert_exit(&out, 1, "flipped mark");
    let text = stdout(&out);
    assert!(
        text.contains(&format!("FAIL {page}: rendered from the records")),
        "{text}"
    );
    assert!(
        text.contains("FAIL data/E02/summary.json: headline: [88.9%](#E02.ladder.pass_rate_pct)"),
        "{text}"
    );
}

/// The core verifier, which every page's Verify loads first and which alone
/// checks a page without records, swapped for another module (here the
/// lean verifier, which exports the same checks) with every value resealed:
/// it is not the copy this binary ships, and the genuine pin fails.
#[test]
fn a_swapped_core_verifier_fails_with_everything_resealed() {
    let dir = built();
    let site = dir.path().join("site");
    let genuine = root_digest(&site);
    let other = fs::read(site.join("assets/receipts_verifier_bg.wasm")).expect("lean");
    let resealed = reseal_patched_module(
        &site,
        "core",
        "assets/receipts_verifier_core_bg.wasm",
        &other,
    );
    assert_ne!(resealed, genuine);
    let out = verify(&site, &[]);
    assert_exit(&out, 1, "swapped core");
    let text = stdout(&out);
    assert!(
        text.contains("FAIL assets/receipts_verifier_core_bg.wasm: the copy receipts")
            && text.contains("FAIL assets/verify.js: the copy receipts"),
        "{text}"
    );
    let out = verify(&site, &["--expect-root", &genuine]);
    assert_exit(&out, 1, "swapped core, pinned");
    assert!(
        stdout(&out).contains(&format!("FAIL SHA256SUMS: root digest: recorded {genuine}")),
        "{}",
        stdout(&out)
    );
}
