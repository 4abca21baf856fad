//! The throughput a provider served: the median call's completion tokens
//! per second of its own time, per policy and per tier, beside the pooled
//! figure. Recomputed from the calls, held against the summary, forged and
//! resealed, and left out by a summary written before the figure existed.

use crate::common;

use serde_json::Value;

use common::{
    assert_each_fails, assert_exit, built, edit_json, receipts, reseal, sample_copy, stdout,
};

/// `median_tps` taken out of every policy and tier of an analysis.
fn drop_median(analysis: &mut Value) {
    for list in ["policies", "tiers"] {
        for entry in analysis[list].as_array_mut().expect(list) {
            entry.as_object_mut().expect("entry").remove("median_tps");
        }
    }
}

#[test]
fn a_forged_median_call_speed_fails_and_one_left_out_is_owed_unless_the_summary_predates_it() {
    let dir = built();
    let site = dir.path().join("site");
    let summary = site.join("data/E02/summary.json");
    let published = common::read_json(&summary);
    let small = published["primary"]["policies"]
        .as_array()
        .expect("policies")
        .iter()
        .find(|p| p["policy"] == "always-small")
        .expect("always-small")["median_tps"]
        .as_f64()
        .expect("the sample publishes the small tier's median call speed");
    assert!(small > 0.0, "{small}");

    // 1. The small tier's median call made faster, resealed.
    edit_json(&summary, |s| {
        for p in s["primary"]["policies"].as_array_mut().expect("policies") {
            if p["policy"] == "always-small" {
                p["median_tps"] = serde_json::json!((small + 40.0).round());
            }
        }
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a forged median call speed");
    assert_each_fails(
        &stdout(&out),
        &[(
            "E02/summary.json",
            "primary.policies[always-small].median_tps",
            &format!("recorded {}", (small + 40.0).round()),
        )],
    );

    // 2. Left out of one entry only: owed, like any other figure.
    let dir = built();
    let site = dir.path().join("site");
    let summary = site.join("data/E02/summary.json");
    edit_json(&summary, |s| {
        let tiers = s["primary"]["tiers"].as_array_mut().expect("tiers");
        tiers[0].as_object_mut().expect("tier").remove("median_tps");
    });
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a median call speed left out of one tier");
    assert_each_fails(
        &stdout(&out),
        &[(
            "E02/summary.json",
            "primary.tiers[small].median_tps",
            "not published",
        )],
    );

    // 3. Left out everywhere, as a summary written before the figure
    //    existed: nothing is owed, and the site builds strict and verifies.
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E02/summary.json"), |s| {
        drop_median(&mut s["primary"]);
        for secondary in s["secondary"].as_array_mut().expect("secondary") {
            drop_median(&mut secondary["numbers"]);
        }
    });
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_exit(&out, 0, "a summary written before the median call speed");
    let out = receipts(&dir.path().join("site"), &["verify", ".", "--quiet"]);
    assert_exit(&out, 0, "its site");
}

/// The first and last `half` of an experiment's calls, as the throughput
/// table shows them for each tier of `experiment`: (tier, first, last).
fn halves(site: &std::path::Path, experiment: &str) -> Vec<(String, u64, u64)> {
    let page =
        std::fs::read_to_string(site.join(format!("experiments/{experiment}.html"))).expect("page");
    let start = page
        .find("Served throughput per tier")
        .expect("the throughput table");
    let table = &page[start..start + page[start..].find("</table>").expect("its end")];
    assert!(
        table.contains("<th scope=\"col\">First half</th><th scope=\"col\">Last half</th>"),
        "calls under two hours are split in halves: {table}"
    );
    let cell = |s: &str| {
        s.trim_start_matches("<td>")
            .parse::<u64>()
            .expect("a number")
    };
    table
        .split("<tr><th scope=\"row\">")
        .skip(1)
        .map(|row| {
            let (tier, rest) = row.split_once("</th>").expect("a row");
            let cells: Vec<&str> = rest.split("</td>").collect();
            (tier.to_string(), cell(cells[2]), cell(cells[3]))
        })
        .collect()
}

#[test]
fn the_small_tier_slows_through_the_day_as_the_page_shows() {
    // Every sample experiment's calls span under an hour: a first and a
    // last hour would each cover them all. In halves, the small tier's
    // median call slows within E02 and within E03, while the others hold
    // (within 15%, the spread of a few runs' calls).
    let dir = built();
    let site = dir.path().join("site");
    for experiment in ["E02", "E03"] {
        let rows = halves(&site, experiment);
        let (_, first, last) = rows
            .iter()
            .find(|(t, ..)| t.contains("Small"))
            .expect("small");
        assert!(
            last < first,
            "{experiment}: the small tier from {first} to {last}"
        );
        for (tier, first, last) in rows.iter().filter(|(t, ..)| !t.contains("Small")) {
            let held = (*last as f64 / *first as f64 - 1.0).abs() <= 0.15;
            assert!(held, "{experiment}: {tier} from {first} to {last}");
        }
    }
}
