//! A composed policy as the sample publishes it: E01 runs each tier alone
//! in every cell and composes the ladder from those runs, as the source
//! study did. The experiment's page shows, cell by cell, the tier runs the
//! ladder would have used; the build refuses a run recorded under it; and a
//! publisher who forges its figures, or the runs beneath them, and reseals
//! every digest is caught.

use crate::common;

use std::fs;

use common::{
    assert_each_fails, assert_exit, built, edit_json, read_json, receipts, reseal, sample_copy,
    stderr, stdout,
};

/// A cell where every tier failed, so the composed ladder failed too.
const ALL_FAILED: &str = "E01-shipping-rule-careful-s2";

#[test]
fn the_page_shows_each_cell_the_ladder_was_composed_in_with_its_tier_runs() {
    let dir = built();
    let site = dir.path().join("site");
    let page = fs::read_to_string(site.join("experiments/E01.html")).expect("E01 page");
    for text in [
        "<dt>Composed</dt>",
        "<strong>ladder</strong> is not run: in each cell its figures are composed from the runs of always-small, always-medium and always-large there",
        "<th scope=\"col\">ladder (composed)</th>",
        "Auto-tier ladder (small → medium → large) (composed)",
    ] {
        assert!(page.contains(text), "the E01 page lacks {text}");
    }
    // Every step of every composed cell links to the tier run it used, and
    // a cell that failed on every tier shows all three.
    let cells: Vec<&str> = page
        .split("<td class=\"composed\">")
        .skip(1)
        .map(|c| &c[..c.find("</td>").expect("cell end")])
        .collect();
    assert_eq!(
        cells.len(),
        18,
        "one composed cell per task, profile and seed"
    );
    for cell in &cells {
        for href in cell.split("href=\"../").skip(1) {
            let target = &href[..href.find('"').expect("href end")];
            assert!(
                site.join(target).is_file(),
                "{target} is a page of the site"
            );
        }
    }
    let failed = cells
        .iter()
        .find(|c| c.contains(&format!("{ALL_FAILED}-always-small.html")))
        .expect("the all-failed cell");
    assert!(
        failed.starts_with("<span class=\"fail\">✗ failed</span>"),
        "{failed}"
    );
    for tier in ["small", "medium", "large"] {
        assert!(
            failed.contains(&format!("{ALL_FAILED}-always-{tier}.html")),
            "{failed}"
        );
    }
    // The summary publishes the composed figures, which verify.
    let summary = read_json(&site.join("data/E01/summary.json"));
    let ladder = summary["primary"]["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .find(|p| p["policy"] == "ladder")
        .expect("the ladder's figures");
    assert_eq!(ladder["runs"], 18);
    assert!(
        ladder.get("incomplete_cells").is_none(),
        "every cell composed"
    );
}

#[test]
fn resealed_forgeries_of_a_composed_policy_and_its_tier_runs_each_fail() {
    let dir = built();
    let site = dir.path().join("site");
    let summary = site.join("data/E01/summary.json");
    // 1. The ladder's cost published as if only the tier that passed were paid for.
    edit_json(&summary, |s| {
        let ladder = s["primary"]["policies"]
            .as_array_mut()
            .expect("policies")
            .iter_mut()
            .find(|p| p["policy"] == "ladder")
            .expect("ladder");
        ladder["cost_per_task_usd"] = serde_json::json!({"low": 0.0041, "high": 0.0041});
    });
    // 2. A failed cell's large-tier run dropped, so the ladder's failure
    //    there drops out of its figures.
    fs::remove_file(site.join(format!("data/E01/runs/{ALL_FAILED}-always-large.json")))
        .expect("rm");
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "the forgeries");
    let text = stdout(&out);
    assert_each_fails(
        &text,
        &[
            // The forged cost, against the composition over every tier tried.
            (
                "E01/summary.json",
                "primary.policies[ladder].cost_per_task_usd",
                "recorded 0.0041",
            ),
            // Without the dropped run the cell is not composed: the ladder's
            // figures now stand on 17 cells, which the summary does not say.
            (
                "E01/summary.json",
                "primary.policies[ladder].incomplete_cells",
                "not published",
            ),
            ("E01/summary.json", "primary.policies[ladder].runs", "17"),
            (
                "E01/experiment.json",
                "grid cell shipping-rule · careful · seed 2 · always-large",
                "no run",
            ),
        ],
    );

    // A run recorded under the composed policy itself, resealed: the
    // verifier refuses the site's records as it refuses a build's input.
    let dir = built();
    let site = dir.path().join("site");
    let mut run =
        read_json(&site.join("data/E01/runs/E01-invoice-cleanup-careful-s1-always-large.json"));
    run["id"] = "E01-invoice-cleanup-careful-s1-ladder".into();
    run["policy"] = "ladder".into();
    let copy = site.join("data/E01/runs/E01-invoice-cleanup-careful-s1-ladder.json");
    fs::write(&copy, serde_json::to_vec_pretty(&run).expect("json")).expect("write");
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 2, "a run under a composed policy");
    assert!(
        stderr(&out).contains("data/E01/runs/E01-invoice-cleanup-careful-s1-ladder.json: policy: `ladder` is composed from the runs of its tiers"),
        "{}",
        stderr(&out)
    );
}

/// The message of a build of the sample after `edit`, which must refuse it.
fn refused(what: &str, edit: impl FnOnce(&std::path::Path)) -> String {
    let dir = sample_copy();
    edit(dir.path());
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert_exit(&out, 2, what);
    stderr(&out)
}

#[test]
fn the_build_refuses_a_run_under_a_composed_policy_and_a_composed_policy_in_the_grid() {
    let message = refused("a run under a composed policy", |root| {
        let run =
            root.join("experiments/E01/runs/E01-invoice-cleanup-careful-s1-always-large.json");
        edit_json(&run, |r| r["policy"] = "ladder".into());
    });
    assert!(
        message.contains("E01-invoice-cleanup-careful-s1-always-large.json: policy: `ladder` is composed from the runs of its tiers"),
        "{message}"
    );
    let grid = |edit: fn(&mut Vec<serde_json::Value>)| {
        move |root: &std::path::Path| {
            edit_json(&root.join("experiments/E01/experiment.json"), |e| {
                edit(e["grid"]["policies"].as_array_mut().expect("grid policies"));
            });
        }
    };
    let message = refused(
        "a composed policy in the grid",
        grid(|policies| policies.push("ladder".into())),
    );
    assert!(
        message.contains("experiments/E01/experiment.json: grid.policies[3]: `ladder` is composed"),
        "{message}"
    );
    let message = refused(
        "a composed policy with a tier the grid does not run",
        grid(|policies| policies.retain(|p| p != "always-small")),
    );
    assert!(
        message.contains("policies[3].tiers[0]: policy `ladder` is composed, but the grid runs no single-tier policy on `small`"),
        "{message}"
    );
}

#[test]
fn resealed_forgeries_that_unmake_or_speed_up_a_composed_policy_each_fail() {
    // The ladder declared run, not composed, after the fact: the registration
    // no longer matches and the ladder's figures stand on no run at all.
    let dir = built();
    let site = dir.path().join("site");
    edit_json(&site.join("data/E01/experiment.json"), |e| {
        let ladder = e["policies"]
            .as_array_mut()
            .expect("policies")
            .iter_mut()
            .find(|p| p["id"] == "ladder")
            .expect("ladder");
        ladder.as_object_mut().expect("policy").remove("composed");
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "the ladder declared run");
    let text = stdout(&out);
    assert_each_fails(
        &text,
        &[
            (
                "E01/experiment.json",
                "registered rules (SHA-256)",
                "recorded",
            ),
            (
                "E01/summary.json",
                "primary.policies[ladder].pass_rate_pct",
                "nothing to recompute it from",
            ),
            (
                "E01/summary.json",
                "primary.policies[ladder].cost_per_task_usd",
                "nothing to recompute it from",
            ),
            ("E01/summary.json", "hypotheses[H1].outcome", "not_decided"),
        ],
    );

    // A small-tier run the ladder took, made faster: the tier's mean and the
    // ladder's, each recomputed, fall below what the summary publishes.
    let dir = built();
    let site = dir.path().join("site");
    edit_json(
        &site.join(format!("data/E01/runs/{ALL_FAILED}-always-small.json")),
        |r| {
            let ms = r["attempts"][0]["duration_ms"].as_u64().expect("duration");
            r["attempts"][0]["duration_ms"] = (ms / 4).into();
        },
    );
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a faster tier run");
    let text = stdout(&out);
    assert_each_fails(
        &text,
        &[
            (
                "E01/summary.json",
                "primary.policies[ladder].mean_time_s",
                "recorded 32.7",
            ),
            (
                "E01/summary.json",
                "primary.policies[always-small].mean_time_s",
                "recorded 17.9",
            ),
        ],
    );
}
