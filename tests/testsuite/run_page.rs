//! What a run's page shows beyond its receipts: the timeline of its
//! attempts and calls, and long texts folded without losing a character.

use crate::common;

use std::fs;

use common::{built, decode as unescape, receipts, sample_copy, stderr};

const RUN: &str = "experiments/E04/runs/E04-invoice-cleanup-careful-s1-ladder.json";
const PAGE: &str = "site/runs/E04-invoice-cleanup-careful-s1-ladder.html";

/// The texts of each `<code>` inside `<pre>` in `html`, in order.
fn blocks(html: &str) -> Vec<String> {
    html.split("<pre class=\"untrusted\"><code>")
        .skip(1)
        .map(|s| unescape(&s[..s.find("</code></pre>").expect("closed")]))
        .collect()
}

#[test]
fn long_texts_are_folded_with_their_size_and_nothing_is_lost() {
    let dir = sample_copy();
    let long: String = (1..=400)
        .map(|i| format!("line {i}: <script>alert('{i}')</script> & more\n"))
        .collect();
    let result: String = "a tool's long answer ".repeat(60);
    common::edit_json(&dir.path().join(RUN), |r| {
        let a = &mut r["attempts"][0];
        a["messages"][1]["text"] = long.clone().into();
        // The last turn's result, and the tool message that reports it.
        a["turns"][3]["result"]["text"] = result.clone().into();
        a["messages"][9]["text"] = result.clone().into();
    });
    let out = receipts(dir.path(), &["build", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = fs::read_to_string(dir.path().join(PAGE)).expect("run page");

    // The message: its first part in a block, the rest folded behind a
    // control that says how much more there is; together, the text.
    assert!(
        !html.contains("<script>alert"),
        "untrusted text stays inert"
    );
    let texts = blocks(&html);
    let at = texts
        .iter()
        .position(|t| long.starts_with(t.as_str()) && t.len() > 100)
        .expect("the message's first part");
    let (head, rest) = (&texts[at], &texts[at + 1]);
    assert!(
        head.len() < long.len() / 4,
        "{} of {}",
        head.len(),
        long.len()
    );
    assert_eq!(format!("{head}{rest}"), long);
    let rest_lines = rest.lines().count();
    assert!(
        html.contains(&format!(
            "<summary>Show the rest: {} more characters on {rest_lines} lines (",
            common::thousands(rest.chars().count())
        )),
        "the control names the rest's size"
    );
    assert!(html.contains(&format!(
        "({} characters in all)",
        common::thousands(long.chars().count())
    )));

    // The tool's answer in the turns table: a short first part in the
    // cell, the rest folded there too.
    let cell = html
        .split("<table class=\"steps\">")
        .nth(1)
        .expect("steps table");
    let cell = &cell[..cell.find("</table>").expect("end")];
    let start = cell
        .find("→ a tool&#x27;s long answer")
        .expect("the result in its cell");
    let folded = &cell[start..];
    let head = &folded[..folded.find("<details class=\"more\">").expect("folded")];
    assert!(unescape(head).len() < 300, "{head}");
    let rest = folded
        .split("</summary>")
        .nth(1)
        .and_then(|s| s.split("</details>").next())
        .expect("the rest");
    assert_eq!(
        format!("{}{}", unescape(&head["→ ".len()..]), unescape(rest)),
        result
    );

    // The run still verifies: folding is the page's, not the record's.
    let out = receipts(&dir.path().join("site"), &["verify", "."]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_timeline_has_a_bar_per_call_linked_to_its_row() {
    let dir = built();
    let runs = dir.path().join("experiments/E02/runs");
    let (mut seen, mut with_calls) = (0, 0);
    for entry in fs::read_dir(&runs).expect("runs") {
        let path = entry.expect("entry").path();
        let run = common::read_json(&path);
        let id = run["id"].as_str().expect("id");
        let html =
            fs::read_to_string(dir.path().join(format!("site/runs/{id}.html"))).expect("page");
        let attempts = run["attempts"].as_array().expect("attempts");
        let calls: usize = attempts
            .iter()
            .map(|a| a["calls"].as_array().map_or(0, Vec::len))
            .sum();
        with_calls += usize::from(calls > 0);
        let failed = attempts
            .iter()
            .flat_map(|a| a["calls"].as_array().into_iter().flatten())
            .filter(|c| {
                c["status"] == "error" || c["http_status"].as_u64().is_some_and(|s| s >= 400)
            })
            .count();
        let svg = html
            .split("<svg class=\"chart timeline\"")
            .nth(1)
            .map(|s| &s[..s.find("</svg>").expect("closed")]);
        let Some(svg) = svg else {
            assert_eq!(calls, 0, "{id}: calls but no timeline");
            continue;
        };
        seen += 1;
        assert_eq!(svg.matches("<rect class=\"call").count(), calls, "{id}");
        assert!(
            svg.matches("<rect class=\"call fail\"").count() >= failed,
            "{id}"
        );
        assert_eq!(
            svg.matches("<g class=\"attempt\">").count(),
            attempts.len(),
            "{id}"
        );
        for href in svg.split("<a href=\"#").skip(1) {
            let anchor = &href[..href.find('"').expect("end")];
            assert!(
                html.contains(&format!("<tr id=\"{anchor}\">")),
                "{id}: #{anchor} names no row"
            );
        }
    }
    assert_eq!(seen, with_calls);
    assert!(seen > 50, "{seen} timelines");
}
