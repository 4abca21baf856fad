use super::*;

const RULES: &str = r#"{"kind":"harness","title":"Nightly","provenance":"recorded","prices":{"version":"p1","currency":"USD","models":{"m":{"input_per_mtok":1.0,"output_per_mtok":2.0}}},"egress_allowlist":["pypi.org"],"token_cap":1000,"percentile_method":"nearest-rank"}"#;

fn run_line(id: &str) -> String {
    format!(
        r#"{{"kind":"run_report","id":"{id}","agent":"a","started_at":"2026-11-01T09:00:00.000Z","events":[{{"event":"egress","host":"evil.example","decision":"denied"}}],"report":{{"total_cost_usd":0.0,"latency_p50_ms":0,"latency_p95_ms":0,"tool_failures":0,"egress_blocked":1,"tokens_used":0,"snapshots":0,"aborted_on_budget":false}}}}"#
    )
}

fn file(name: &str, lines: &[&str]) -> (String, Vec<u8>) {
    (name.to_string(), lines.join("\n").into_bytes())
}

#[test]
fn what_a_sink_leaves_out_is_taken_from_the_rules_and_the_directory() {
    let r1 = run_line("r1");
    let stream = read(&[file("s.jsonl", &[RULES, "", &r1])], "nightly").unwrap();
    assert_eq!(stream.suite.id, "nightly");
    assert_eq!(stream.runs.len(), 1);
    let run = &stream.runs[0];
    assert_eq!(run.run.suite, "nightly");
    assert_eq!(run.run.provenance, stream.suite.provenance);
    assert_eq!(run.at.to_string(), "s.jsonl:3");
}

#[test]
fn a_second_file_may_repeat_the_rules_but_not_change_them() {
    let (r1, r2) = (run_line("r1"), run_line("r2"));
    let ok = read(
        &[
            file("a.jsonl", &[RULES, &r1]),
            file("b.jsonl", &[RULES, &r2]),
        ],
        "nightly",
    )
    .unwrap();
    assert_eq!(ok.runs.len(), 2);

    let other = RULES.replace("\"token_cap\":1000", "\"token_cap\":5000");
    let e = read(
        &[
            file("a.jsonl", &[RULES, &r1]),
            file("b.jsonl", &[&other, &r2]),
        ],
        "nightly",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("b.jsonl: line 1: other rules than a.jsonl:1 gives"),
        "{e}"
    );
}

#[test]
fn each_bad_line_is_named_by_file_line_and_field() {
    let r1 = run_line("r1");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![r1.clone()],
            "s.jsonl: line 1: a run report before the harness's rules",
        ),
        (
            vec![RULES.into(), "{oops".into()],
            "s.jsonl: line 2: not JSON",
        ),
        (
            vec![RULES.into(), "[1]".into()],
            "s.jsonl: line 2: not a JSON object",
        ),
        (
            vec![RULES.into(), r#"{"kind":"span"}"#.into()],
            "s.jsonl: line 2, kind: `span` is neither",
        ),
        (
            vec![RULES.into(), "{}".into()],
            "s.jsonl: line 2, kind: missing",
        ),
        (
            vec![
                RULES.into(),
                r1.replace("\"egress_blocked\":1", "\"egress_blocked\":\"one\""),
            ],
            "s.jsonl: line 2, report.egress_blocked: invalid type",
        ),
        (
            vec![
                RULES.into(),
                r1.replace("\"decision\":\"denied\"", "\"decision\":\"maybe\""),
            ],
            "s.jsonl: line 2, events[0]",
        ),
        (
            vec![RULES.into(), r1.clone(), r1.clone()],
            "s.jsonl: line 3, id: run `r1` is reported twice, here and at s.jsonl:2",
        ),
        (
            vec![RULES.replace(
                "\"kind\":\"harness\"",
                "\"kind\":\"harness\",\"id\":\"other\"",
            )],
            "s.jsonl: line 1, id: the suite `other` imported into a directory named `nightly`",
        ),
        (
            vec![RULES.into()],
            "s.jsonl: no line of \"kind\": \"run_report\"",
        ),
        (vec![], "s.jsonl: no line of \"kind\": \"harness\""),
        (
            vec![
                RULES.into(),
                r1.replace("\"agent\"", "\"provenance\":\"simulated\",\"agent\""),
            ],
            "s.jsonl: line 2, provenance: a run's provenance differs from its suite's",
        ),
        (
            vec![
                RULES.into(),
                r1.replace("\"agent\"", "\"surprise\":1,\"agent\""),
            ],
            "s.jsonl: line 2, surprise: unknown field",
        ),
    ];
    for (lines, expected) in cases {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let e = read(&[file("s.jsonl", &lines)], "nightly")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(expected), "expected `{expected}`, got `{e}`");
    }
}

#[test]
fn a_stream_that_is_not_utf8_is_refused_with_its_line() {
    let mut bytes = format!("{RULES}\n").into_bytes();
    bytes.extend_from_slice(b"{\"kind\":\"run_report\",\"agent\":\"\xff\"}");
    let e = read(&[("s.jsonl".into(), bytes)], "nightly")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("s.jsonl: ") && e.contains("line 2"), "{e}");
}
