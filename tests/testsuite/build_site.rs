//! `receipts build` on the shipped sample: every run gets a page, every
//! relative link resolves, the output is a static site that works from any
//! folder, and the sample on disk is exactly what the simulator writes.

use crate::common;

use std::fs;
use std::path::Path;

use common::{links, receipts, repo, sample_copy, stderr, tree};

fn build(root: &Path, out: &Path) {
    let result = receipts(
        root,
        &[
            "build",
            "--quiet",
            "--out",
            out.to_str().expect("utf-8 path"),
        ],
    );
    assert!(result.status.success(), "build failed: {}", stderr(&result));
}

#[test]
fn every_run_has_a_page_and_every_link_resolves() {
    let input = sample_copy();
    let out = input.path().join("public");
    build(input.path(), &out);

    let mut runs = 0;
    for exp in fs::read_dir(input.path().join("experiments")).expect("experiments") {
        let runs_dir = exp.expect("entry").path().join("runs");
        if let Ok(entries) = fs::read_dir(&runs_dir) {
            for run in entries {
                let name = run
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .replace(".json", ".html");
                assert!(
                    out.join("runs").join(&name).is_file(),
                    "no page for run {name}"
                );
                runs += 1;
            }
        }
    }
    assert!(
        runs >= 108,
        "the sample has at least two grids of 54 runs, found {runs}"
    );

    let mut checked = 0;
    for (rel, _) in tree(&out).iter().filter(|(p, _)| p.ends_with(".html")) {
        let page = out.join(rel);
        let html = fs::read_to_string(&page).expect("page");
        for link in links(&html) {
            assert!(!link.starts_with('/'), "{rel}: absolute link {link}");
            if link.starts_with("https:")
                || link.starts_with("http:")
                || link.starts_with("mailto:")
                || link.starts_with('#')
            {
                continue;
            }
            let target = link.split(['#', '?']).next().unwrap_or_default();
            let resolved = page.parent().expect("parent").join(target);
            assert!(resolved.is_file(), "{rel}: broken link {link}");
            checked += 1;
        }
    }
    assert!(checked > 1000, "the link walk checked only {checked} links");
    assert!(out.join(".nojekyll").is_file(), ".nojekyll is written");
}

#[test]
fn shared_indexes_are_not_copied_onto_run_pages() {
    let input = sample_copy();
    let out = input.path().join("site");
    build(input.path(), &out);
    let index = fs::read_to_string(out.join("runs/index.html")).expect("runs index");
    // The run pages, in order (the directory also holds the index's JSON
    // parts, and lists its files in whatever order the file system keeps).
    let mut run_ids: Vec<String> = fs::read_dir(out.join("runs"))
        .expect("runs")
        .filter_map(|e| {
            let name = e.expect("entry").file_name().to_string_lossy().into_owned();
            name.strip_suffix(".html").map(str::to_string)
        })
        .filter(|n| n != "index")
        .collect();
    run_ids.sort();
    assert!(
        run_ids.iter().all(|id| index.contains(id.as_str())),
        "the runs index lists every run"
    );
    let page = fs::read_to_string(out.join("runs").join(format!("{}.html", run_ids[0])))
        .expect("run page");
    let mentioned = run_ids
        .iter()
        .filter(|id| page.contains(&format!("{id}.html")))
        .count();
    assert!(
        mentioned <= 4,
        "a run page links only its neighbours and reruns, not the whole index ({mentioned})"
    );
}

#[test]
fn every_page_of_simulated_data_says_so() {
    let input = sample_copy();
    let out = input.path().join("site");
    build(input.path(), &out);
    // Documents and their index show no receipts, nor does the standalone
    // verifier's page (the same for every site); every other page does.
    let shows_receipts = |p: &str| {
        p.ends_with(".html")
            && !p.starts_with("docs/")
            && !p.starts_with("verifier/")
            && p != "documents.html"
    };
    // Each says where its records came from, and nothing else: the
    // imported evaluations ran against Inspect's mock model, the imported
    // traces against a local server, the rest is the simulator's; a page
    // of all of them says each is marked.
    let banner = |rel: &str| match rel {
        _ if rel.starts_with("imports/I01/") => "Mock model: run against Inspect's mock model",
        _ if rel.starts_with("imports/I02/") => "Local server: these calls were answered",
        "index.html" | "verify.html" => "Some records here are not a provider's answers",
        _ => "Simulated data: produced by the receipts simulator",
    };
    for (rel, _) in tree(&out).iter().filter(|(p, _)| shows_receipts(p)) {
        let html = fs::read_to_string(out.join(rel)).expect("page");
        let said = banner(rel);
        assert!(html.contains(said), "{rel} does not say {said:?}");
        assert_eq!(
            html.matches("role=\"note\">").count(),
            1,
            "{rel}: one banner"
        );
    }
}

/// Every count on every page takes its noun in the right number: no
/// `attempt(s)`, no `1 samples`.
#[test]
fn every_count_on_every_page_takes_its_noun_in_the_right_number() {
    let site = common::built();
    let out = site.path().join("site");
    let nouns = [
        "attempt",
        "call",
        "turn",
        "run",
        "sample",
        "epoch",
        "task",
        "log",
        "receipt",
        "deviation",
        "tier",
        "decimal",
        "event",
        "cell",
        "model id",
        "sample-epoch",
        "evaluation",
        "experiment",
    ];
    let mut pages = 0;
    for (rel, _) in tree(&out).iter().filter(|(p, _)| p.ends_with(".html")) {
        let html = fs::read_to_string(out.join(rel)).expect("page");
        pages += 1;
        for noun in nouns {
            let hedged = format!("{noun}(s)");
            assert!(!html.contains(&hedged), "{rel} writes {hedged:?}");
            for one in [format!(">1 {noun}s"), format!(" 1 {noun}s ")] {
                assert!(!html.contains(&one), "{rel} writes {one:?}");
            }
        }
    }
    assert!(pages > 100, "{pages} pages");
}

#[test]
fn the_published_data_mirrors_the_input() {
    let input = sample_copy();
    let out = input.path().join("site");
    build(input.path(), &out);
    let mut source = tree(&input.path().join("experiments"));
    // The showcase and the documents are published too, so that every page
    // can be rendered again from data/ alone.
    for (dir, files) in [
        ("showcase", tree(&input.path().join("showcase"))),
        ("docs", tree(&input.path().join("docs"))),
    ] {
        source.extend(
            files
                .into_iter()
                .filter(|(p, _)| dir == "showcase" || p.ends_with(".md"))
                .map(|(p, d)| (format!("{dir}/{p}"), d)),
        );
    }
    let mut published = tree(&out.join("data"));
    assert!(
        published.remove("SHA256SUMS").is_some(),
        "data/ has its manifest"
    );
    assert_eq!(
        source, published,
        "data/ holds exactly the input records, byte for byte"
    );
}

#[test]
fn the_shipped_sample_is_what_the_simulator_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = receipts(dir.path(), &["simulate", "--quiet", "--out", "."]);
    assert!(result.status.success(), "{}", stderr(&result));
    for sub in ["experiments", "showcase"] {
        assert_eq!(
            tree(&dir.path().join(sub)),
            tree(&repo().join(sub)),
            "{sub}/ differs from a fresh `receipts simulate`; regenerate it with `cargo run -p receipts -- simulate --force`"
        );
    }
}

#[test]
fn the_simulator_is_deterministic() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    for dir in [&a, &b] {
        let result = receipts(dir.path(), &["simulate", "--quiet", "--out", "."]);
        assert!(result.status.success(), "{}", stderr(&result));
    }
    let (ta, tb) = (tree(a.path()), tree(b.path()));
    assert!(ta.len() > 100);
    assert_eq!(ta, tb, "two simulations wrote different bytes");
}

#[test]
fn the_simulator_writes_large_experiments_that_build() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = receipts(
        dir.path(),
        &["simulate", "--quiet", "--out", ".", "--scale", "600"],
    );
    assert!(result.status.success(), "{}", stderr(&result));
    let runs = fs::read_dir(dir.path().join("experiments/S01/runs"))
        .expect("runs")
        .count();
    assert_eq!(runs, 600);
    build(dir.path(), &dir.path().join("site"));
    assert!(dir.path().join("site/runs/index.html").is_file());
    // A large experiment's page lists the first runs and links to the index for the rest.
    let page = fs::read_to_string(dir.path().join("site/experiments/S01.html")).expect("page");
    assert!(
        page.contains("The first 200 of 600 runs"),
        "the page says how many it lists"
    );
    assert!(
        page.contains("runs/index.html?experiment=S01"),
        "and links to the rest"
    );
    assert_eq!(
        page.matches("<tr><th scope=\"row\"><a href=\"../runs/")
            .count(),
        200
    );
}

#[test]
fn the_build_reports_what_it_built() {
    let input = sample_copy();
    let result = receipts(input.path(), &["build"]);
    assert!(result.status.success(), "{}", stderr(&result));
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(stdout.contains("4 experiments"), "{stdout}");
    assert!(stdout.contains("216 runs"), "{stdout}");
    assert!(stdout.contains("pages"), "{stdout}");
}

#[test]
fn json_schemas_in_docs_are_current() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = receipts(dir.path(), &["schema", "--out", "schema"]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(
        tree(&dir.path().join("schema")),
        tree(&repo().join("docs/schema")),
        "docs/schema is stale; regenerate it with `cargo run -p receipts -- schema`"
    );
}

/// Rewrites each run record of `experiment` in `root` with `f`; returns how
/// many it changed.
fn rewrite_runs(root: &std::path::Path, experiment: &str, f: impl Fn(&str) -> String) -> usize {
    let runs = root.join(format!("experiments/{experiment}/runs"));
    let mut changed = 0;
    for entry in fs::read_dir(&runs).expect("runs") {
        let path = entry.expect("entry").path();
        let text = fs::read_to_string(&path).expect("run");
        let new = f(&text);
        if new != text {
            changed += 1;
            fs::write(&path, new).expect("write");
        }
    }
    changed
}

/// Builds `root` with `--strict`, which must pass.
fn builds_strict(root: &std::path::Path, what: &str) {
    let out = common::receipts(root, &["build", "--strict"]);
    assert!(
        out.status.success(),
        "{what}: {}{}",
        common::stdout(&out),
        common::stderr(&out)
    );
}

/// Every timestamp under `value` written at offset +02:00 (the same instant).
fn at_plus_two(value: &mut serde_json::Value) {
    use receipts_verifier::time::{format, parse, UnixMillis};
    match value {
        serde_json::Value::String(s) => {
            if let (Ok(t), true) = (parse(s), s.ends_with('Z')) {
                let local = format(UnixMillis(t.0 + 2 * 3_600_000));
                *s = format!("{}+02:00", local.trim_end_matches('Z'));
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(at_plus_two),
        serde_json::Value::Object(map) => map.values_mut().for_each(at_plus_two),
        _ => {}
    }
}

#[test]
fn timestamps_with_offsets_are_read_as_their_instants() {
    // Every run of E04 rewritten with its times at +02:00: the same
    // instants, so every receipt and figure is what it was.
    let dir = common::sample_copy();
    let rewritten = rewrite_runs(dir.path(), "E04", |text| {
        let mut run: serde_json::Value = serde_json::from_str(text).expect("json");
        at_plus_two(&mut run);
        serde_json::to_string_pretty(&run).expect("json")
    });
    assert!(rewritten > 50);
    let text = fs::read_to_string(
        dir.path()
            .join("experiments/E04/runs/E04-release-brief-fast-s2-ladder.json"),
    )
    .expect("run");
    assert!(text.contains("+02:00\""), "rewritten");
    builds_strict(dir.path(), "offsets");
    let page = fs::read_to_string(
        dir.path()
            .join("site/runs/E04-release-brief-fast-s2-ladder.html"),
    )
    .expect("page");
    assert!(
        page.contains("+02:00"),
        "the page shows the time as written"
    );
}

#[test]
fn finish_reasons_are_kept_as_the_provider_sent_them() {
    // Anthropic's words for E02's calls: `end_turn` for `stop`, `max_tokens`
    // for `length`. The truncations are the same, so every figure is too,
    // and the run page shows the words as sent.
    let dir = common::sample_copy();
    let renamed = rewrite_runs(dir.path(), "E02", |text| {
        text.replace(
            "\"finish_reason\": \"stop\"",
            "\"finish_reason\": \"end_turn\"",
        )
        .replace(
            "\"finish_reason\": \"length\"",
            "\"finish_reason\": \"max_tokens\"",
        )
    });
    assert!(renamed > 10);
    builds_strict(dir.path(), "provider words");
    let page = fs::read_to_string(
        dir.path()
            .join("site/runs/E02-release-brief-fast-s1-always-medium.html"),
    )
    .expect("page");
    assert!(
        page.contains("end_turn") || page.contains("max_tokens"),
        "shown as sent"
    );
}

#[test]
fn a_truncation_spelled_otherwise_or_worded_as_a_stop_is_still_counted() {
    // A publisher hiding E02's truncations rewrites the provider's `length`
    // in another spelling, or as `stop`: the recomputed count is unchanged
    // (the word is read without case or punctuation, and a call that
    // returned its whole output budget stopped on it whatever it says), so
    // the summary's truncation figures still hold and a lowered one fails.
    for word in ["Length", "max-tokens", "MAX OUTPUT TOKENS", "stop"] {
        let dir = common::sample_copy();
        let renamed = rewrite_runs(dir.path(), "E02", |text| {
            text.replace(
                "\"finish_reason\": \"length\"",
                &format!("\"finish_reason\": \"{word}\""),
            )
        });
        assert!(renamed > 0, "{word}: the sample truncates");
        builds_strict(dir.path(), word);
        common::edit_json(&dir.path().join("experiments/E02/summary.json"), |s| {
            let small = &mut s["primary"]["policies"][0];
            assert_eq!(small["policy"], "always-small");
            let n = small["truncations"].as_u64().expect("truncations");
            assert!(n > 0, "the small tier truncates");
            small["truncations"] = serde_json::json!(0);
        });
        common::fails_with(dir.path(), &["truncations: recorded 0"]);
    }
}

#[test]
fn a_time_written_at_another_offset_is_read_as_its_instant() {
    // The clock reading is kept and only the offset changed, so the text
    // looks as it did while the instant moves: a run that seems to start
    // at 09:00 but starts an hour later, after its first attempt, and a
    // registration that seems to come at 08:30 but comes after the first
    // provider call. Both are read as the instants they name and fail.
    let dir = common::sample_copy();
    let run = dir
        .path()
        .join("experiments/E04/runs/E04-release-brief-fast-s2-ladder.json");
    common::edit_json(&run, |r| {
        let start = r["started_at"].as_str().expect("start").to_string();
        assert!(start.ends_with('Z'), "{start}");
        r["started_at"] = serde_json::json!(format!("{}-01:00", start.trim_end_matches('Z')));
    });
    common::fails_with(dir.path(), &["before the run"]);

    let dir = common::sample_copy();
    common::edit_json(&dir.path().join("experiments/E01/experiment.json"), |e| {
        let at = &mut e["preregistration"]["registered_at"];
        assert_eq!(at, "2026-10-27T08:30:00Z");
        *at = serde_json::json!("2026-10-27T08:30:00-01:00");
    });
    common::fails_with(
        dir.path(),
        &["pre-registered before the first provider call"],
    );
}
