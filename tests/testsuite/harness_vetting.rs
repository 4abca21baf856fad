//! Tool-argument vetting in a harness suite: the rules on the suite's
//! page, each call's decisions on its run's page, and a refusal forged
//! away failing even with every digest resealed.

use crate::common;

use std::fs;

use common::{
    assert_each_fails, assert_exit, built, edit_json, read_json, receipts, reseal, stdout,
};

const RUN: &str = "H01-sim-agent-fast-s2";

#[test]
fn the_rules_and_each_decision_are_shown_and_a_forged_approval_fails() {
    let dir = built();
    let site = dir.path().join("site");
    let suite = fs::read_to_string(site.join("harness/H01.html")).expect("suite page");
    assert!(
        suite.contains("Argument rules"),
        "the suite states its rules"
    );
    assert!(suite.contains("<code>read-in-workspace</code>"));
    let page = fs::read_to_string(site.join(format!("harness/H01/{RUN}.html"))).expect("run page");
    assert!(
        page.contains("read-in-workspace denied"),
        "the refusal is on the page"
    );
    assert!(
        page.contains("Arguments refused"),
        "and counted in the report"
    );

    // The publisher rewrites the refusal as an approval the tool ran on, and
    // makes the report agree.
    let record = site.join(format!("data/harness/H01/runs/{RUN}.json"));
    let mut index = None;
    edit_json(&record, |run| {
        let events = run["events"].as_array_mut().expect("events");
        let (i, call) = events
            .iter_mut()
            .enumerate()
            .find(|(_, e)| {
                e["vetting"]
                    .as_array()
                    .is_some_and(|v| v.iter().any(|d| d["decision"] == "denied"))
            })
            .expect("a refused call");
        index = Some(i);
        for d in call["vetting"].as_array_mut().expect("vetting") {
            d["decision"] = "allowed".into();
        }
        call["ok"] = true.into();
        call["error"] = serde_json::Value::Null;
        let report = &mut run["report"];
        report["args_refused"] = (report["args_refused"].as_u64().expect("n") - 1).into();
        report["tool_failures"] = (report["tool_failures"].as_u64().expect("n") - 1).into();
    });
    assert!(read_json(&record)["report"].is_object());
    reseal(&site);
    let out = receipts(&site, &["verify", "."]);
    assert_exit(&out, 1, "a refusal forged into an approval");
    let claim = format!("events[{}].vetting", index.expect("index"));
    assert_each_fails(
        &stdout(&out),
        &[
            ("", &claim, "recorded allowed, recomputed denied"),
            ("", "report.args_refused", ""),
        ],
    );
}
