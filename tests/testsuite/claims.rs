//! Claims bound to figures: a headline, a finding or a memo whose numbers
//! are links to the figures they claim. Forged the ways a publisher would
//! (a number typed by hand, bound to the analysis that flatters, rounded
//! until it agrees, a comparison the bounds do not carry, a figure that
//! does not exist) and each held to fail; the corrected headline passes.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::json;

use common::{assert_exit, edit_json, fails_with, receipts, sample_copy, stderr, stdout};

const E02_SUMMARY: &str = "experiments/E02/summary.json";
const LADDER_CHANGE: &str =
    "change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)";

fn set_headline(root: &Path, headline: &str) {
    edit_json(&root.join(E02_SUMMARY), |s| s["headline"] = json!(headline));
}

fn build_strict(root: &Path) -> std::process::Output {
    receipts(root, &["build", "--strict"])
}

#[test]
fn the_corrected_headline_written_with_references_renders_its_figures_and_passes() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        &format!("In E02 the ladder passed [83.3%](#E02.ladder.pass_rate_pct) of tasks against [77.8%](#E02.always-large.pass_rate_pct), at [lower](#{LADDER_CHANGE}) cost per task: [1.5–5.5% lower](#{LADDER_CHANGE}), under a [30 s](#registered) target."),
    );
    let out = build_strict(dir.path());
    assert_exit(&out, 0, "the corrected headline");
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    let headline = &page[page.find("<p class=\"headline\">").expect("headline")..];
    let headline = &headline[..headline.find("</p>").expect("end")];
    assert!(
        headline.contains("title=\"E02.ladder.pass_rate_pct: recomputed 83.3%\">83.3%<span class=\"mark\"> ✓</span>"),
        "{headline}"
    );
    assert!(headline.contains("recomputed 1.5–5.5% lower"), "{headline}");
    assert!(
        !headline.contains("](#") && !headline.contains("href=\"#E02"),
        "the link never reaches the page: {headline}"
    );
    assert!(
        headline.contains("not recomputed\">30 s</span> target"),
        "a number marked not measured says so: {headline}"
    );
}

#[test]
fn the_first_published_headline_typed_by_hand_fails_each_number() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "The ladder passed 89% of tasks at 33% lower cost than always-large.",
    );
    fails_with(
        dir.path(),
        &[
            "E02/summary.json: headline: 89%: recorded 89%; recomputed a number typed by hand",
            "E02/summary.json: headline: 33%: recorded 33%",
        ],
    );
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains("89%<span class=\"mark\"> ✗ typed by hand"),
        "the page marks the number"
    );
}

#[test]
fn the_first_published_headline_bound_to_the_figures_fails_showing_both_values() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        &format!("The ladder passed [89%](#E02.ladder.pass_rate_pct) of tasks at [33% lower](#{LADDER_CHANGE}) cost than always-large."),
    );
    fails_with(
        dir.path(),
        &[
            "headline: [89%](#E02.ladder.pass_rate_pct): recorded 89%; recomputed the figure is 83.3",
            &format!("headline: [33% lower](#{LADDER_CHANGE}): recorded 33% lower; recomputed the figure lies between -5.5"),
        ],
    );
}

#[test]
fn a_figure_of_the_flattering_analysis_passes_only_where_it_is_named() {
    // 88.9% is what counting reruns gives: bound to the primary analysis it
    // fails; bound to the analysis that says so, it is true of that analysis.
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "The ladder passed [88.9%](#E02.ladder.pass_rate_pct).",
    );
    fails_with(
        dir.path(),
        &["recorded 88.9%; recomputed the figure is 83.3"],
    );
    set_headline(
        dir.path(),
        "Counting reruns, the ladder passed [88.9%](#E02/reruns-replace.ladder.pass_rate_pct).",
    );
    assert_exit(&build_strict(dir.path()), 0, "named analysis");
    // The page says which analysis the number is true of.
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains("88.9%<span class=\"mark\"> ✓ (reruns-replace analysis)</span>"),
        "the analysis is shown"
    );
}

#[test]
fn a_number_rounded_past_its_precision_fails() {
    // 83.33… written as 83.4% is off by more than half its last digit.
    let dir = sample_copy();
    set_headline(dir.path(), "[83.4%](#E02.ladder.pass_rate_pct)");
    fails_with(
        dir.path(),
        &["recorded 83.4%; recomputed the figure is 83.3"],
    );
    // Coarser is honest: 83% claims 82.5–83.5.
    set_headline(dir.path(), "[83%](#E02.ladder.pass_rate_pct)");
    assert_exit(&build_strict(dir.path()), 0, "83%");
}

#[test]
fn a_comparison_word_the_bounds_do_not_carry_fails() {
    let dir = sample_copy();
    // E02's ladder costs $0.005842–0.005958; E04's always-large $0.0059:
    // the bound of the change straddles zero, so neither word holds.
    let straddles = "change(E02.ladder.cost_per_task_usd,E04.always-large.cost_per_task_usd)";
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!([
            format!("The ladder is [cheaper](#{straddles}) than E04's always-large."),
            format!("The ladder is [dearer](#{LADDER_CHANGE}) than always-large."),
            format!("The ladder is [1.5–5.5% higher](#{LADDER_CHANGE}) in cost."),
        ]);
    });
    fails_with(
        dir.path(),
        &[
            "findings[0]: [cheaper]",
            "not wholly below zero",
            "findings[1]: [dearer]",
            "not wholly above zero",
            "findings[2]: [1.5–5.5% higher]",
        ],
    );
}

#[test]
fn a_hypothesis_reading_another_experiment_is_decided_and_its_outcome_checked() {
    let dir = sample_copy();
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        let h = s["hypotheses"]
            .as_array_mut()
            .expect("hypotheses")
            .iter_mut()
            .find(|h| h["id"] == "H6")
            .expect("H6");
        h["outcome"] = json!("rejected");
    });
    fails_with(
        dir.path(),
        &["E02/summary.json: hypotheses[H6].outcome: recorded rejected; recomputed accepted"],
    );
}

#[test]
fn the_study_index_shows_every_experiment_and_every_hypothesis() {
    let dir = sample_copy();
    assert_exit(&build_strict(dir.path()), 0, "the sample");
    let index = fs::read_to_string(dir.path().join("site/index.html")).expect("index");
    for column in [
        "E01 (2,048 output tokens)",
        "E02 (8,192 output tokens)",
        "E04 (8,192 output tokens)",
    ] {
        assert!(index.contains(column), "{column}");
    }
    for h in 1..=11 {
        assert!(
            index.contains(&format!("<span class=\"claim-id\">H{h} · E0")),
            "H{h} is missing"
        );
    }
    // H6, of E02, reads E01: its card says so and leads to E01's figures.
    let start = index.find("id=\"claim-e02-h6\"").expect("H6's card");
    let card = &index[start..start + index[start..].find("</article>").expect("end")];
    assert!(
        card.contains("<span class=\"badge\">reads E01</span>"),
        "{card}"
    );
    assert!(
        card.contains("href=\"experiments/E01.html#policy-always-medium\""),
        "{card}"
    );
    assert!(
        card.contains("always-medium&#x27;s pass rate in E01"),
        "{card}"
    );
    assert!(card.contains("E01 always-medium pass rate"), "{card}");
    for figure in [
        "study.runs",
        "study.total_cost_usd",
        "study.cost_per_run_usd",
    ] {
        assert!(
            index.contains(&format!("<code>{figure}</code>")),
            "{figure}"
        );
    }
}

#[test]
fn a_memo_is_checked_like_a_headline() {
    let dir = sample_copy();
    let memo = dir.path().join("docs/memos/E02-corrections.md");
    let text = fs::read_to_string(&memo).expect("memo");
    assert_exit(&build_strict(dir.path()), 0, "the sample memo");
    // The sample's three memos render, each measured number recomputed
    // and agreeing, and the documents page lists them.
    let documents = fs::read_to_string(dir.path().join("site/documents.html")).expect("documents");
    for (name, claims) in [
        ("E02-corrections", 6),
        ("limitations", 7),
        ("provider-feedback", 7),
    ] {
        let page = fs::read_to_string(dir.path().join(format!("site/docs/memos/{name}.html")))
            .expect(name);
        assert!(
            page.matches("class=\"claim pass\"").count() >= claims,
            "{name}: {page}"
        );
        assert!(!page.contains("<span class=\"mark\"> ✗"), "{name}: {page}");
        assert!(
            documents.contains(&format!("href=\"docs/memos/{name}.html\"")),
            "{name} listed"
        );
    }
    // A number typed into the memo, and one bound but written wrong.
    fs::write(
        &memo,
        format!(
            "{text}\nThe ladder saved 33% in all.\n\nIt passed [89%](#E02.ladder.pass_rate_pct).\n"
        ),
    )
    .expect("write");
    fails_with(
        dir.path(),
        &[
            "docs/memos/E02-corrections.md: line ",
            ": 33%: recorded 33%; recomputed a number typed by hand",
            "[89%](#E02.ladder.pass_rate_pct): recorded 89%; recomputed the figure is 83.3",
        ],
    );
}

/// Builds and checks exit 2 with every `needle` in the message.
fn refused(root: &Path, needles: &[&str]) {
    let out = receipts(root, &["build"]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}{}", stdout(&out));
    for needle in needles {
        assert!(message.contains(needle), "`{needle}` not in: {message}");
    }
}

#[test]
fn a_reference_to_no_figure_is_bad_input_naming_file_line_and_nearest_names() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "The ladder passed [83.3%](#E02.ladder.pass_rate).",
    );
    refused(
        dir.path(),
        &[
            "experiments/E02/summary.json: line ",
            ", headline: [83.3%](#E02.ladder.pass_rate)",
            "no figure `pass_rate` (did you mean `pass_rate_pct`?)",
        ],
    );
    set_headline(dir.path(), "[83.3%](#E2.ladder.pass_rate_pct)");
    refused(dir.path(), &["no experiment `E2` (did you mean `E02`?)"]);
    set_headline(dir.path(), "[83.3%](#E02.laddr.pass_rate_pct)");
    refused(
        dir.path(),
        &["no policy `laddr` in E02 (did you mean `ladder`?)"],
    );
    set_headline(dir.path(), "[$1](#study.total_cost)");
    refused(
        dir.path(),
        &["no study figure `total_cost` (did you mean `total_cost_usd`"],
    );
}

#[test]
fn a_figure_written_in_another_unit_is_bad_input() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "It cost [0.58%](#E02.ladder.cost_per_task_usd) per task.",
    );
    refused(
        dir.path(),
        &["`0.58%` is written as a percentage, but the figure is a cost in USD"],
    );
    set_headline(dir.path(), "It took [$71](#E02.ladder.mean_time_s).");
    refused(
        dir.path(),
        &["written as a cost, but the figure is a time in seconds"],
    );
}

#[test]
fn a_memo_reference_to_no_figure_names_its_line() {
    let dir = sample_copy();
    let memo = dir.path().join("docs/memos/E02-corrections.md");
    let text = fs::read_to_string(&memo).expect("memo");
    fs::write(&memo, format!("{text}\n[1](#E02.ladder.passes)\n")).expect("write");
    let lines = text.lines().count();
    refused(
        dir.path(),
        &[&format!(
            "docs/memos/E02-corrections.md: line {}: [1](#E02.ladder.passes): no figure `passes`",
            lines + 2
        )],
    );
}

#[test]
fn named_figures_defined_through_each_other_are_bad_input() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/study.json"), |s| {
        s["figures"]["a"] = json!({"label": "a", "of": "ratio(study.b,study.runs)"});
        s["figures"]["b"] = json!({"label": "b", "of": "diff(study.a,study.runs)"});
    });
    refused(
        dir.path(),
        &["experiments/study.json: figures: a named figure is defined through itself: a → b → a"],
    );
    edit_json(&dir.path().join("experiments/study.json"), |s| {
        s["figures"] = json!({"x": {"label": "x", "of": "diff(E02.ladder.pass_rate_pct,E09.ladder.pass_rate_pct)"}});
    });
    refused(
        dir.path(),
        &["experiments/study.json", "no experiment `E09`"],
    );
}

#[test]
fn a_rule_naming_an_experiment_the_study_lacks_is_bad_input() {
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/E02/experiment.json"), |e| {
        let h = e["hypotheses"]
            .as_array_mut()
            .expect("hypotheses")
            .iter_mut()
            .find(|h| h["id"] == "H6")
            .expect("H6");
        h["rule"]["all"][0]["compare"]["right"]["experiment"] = json!("E1");
    });
    refused(
        dir.path(),
        &["experiments/E02/experiment.json: hypotheses[2].rule[0].right.experiment: no experiment `E1` in the study (did you mean `E01`"],
    );
}

#[test]
fn claims_that_bound_hint_or_hide_a_figure_fail_each() {
    // Each a way to get a mark without stating the figure: a direction of
    // a plain figure, a change that does not say which way, a bound instead
    // of the figure, a number too coarse to tell, other digits, numbers
    // outside any link, and a figure of a policy whose cells did not all run.
    let dir = sample_copy();
    let findings = [
        "The ladder passed [more](#E02.ladder.pass_rate_pct) tasks.",
        &format!("It cut cost by [1.5–5.5%](#{LADDER_CHANGE})."),
        "It cost [under $1](#E02.ladder.cost_per_task_usd).",
        "It cost [$0.01](#E02.ladder.cost_per_task_usd) per task.",
        "It passed [８３.３%](#E02.ladder.pass_rate_pct).",
        "It passed x2 as often, on ¾ of the tasks, No.3 of them.",
        "Speculative passed [100.0%](#E03.speculative.pass_rate_pct) of tasks.",
        &format!("It was [−4.3% higher](#{LADDER_CHANGE})."),
    ];
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!(findings);
    });
    fails_with(
        dir.path(),
        &[
            "findings[0]: [more](#E02.ladder.pass_rate_pct): recorded more; recomputed `more` says a direction of a figure that is not a change",
            "findings[1]: [1.5–5.5%]",
            "does not say which way",
            "findings[2]: [under $1]",
            "says `under`: a claim states the figure",
            "findings[3]: [$0.01]",
            "written too coarsely to tell",
            "findings[4]: [８３.３%]",
            "other than ASCII digits",
            "findings[5]: x2: recorded x2",
            "findings[5]: ¾: recorded ¾",
            "findings[5]: 3: recorded 3",
            "did not run all its cells in E03",
            "findings[7]: [−4.3% higher]",
        ],
    );
}

#[test]
fn a_stopped_study_s_figures_are_claimed_as_run_and_held_to_the_cells_that_ran() {
    // The memos claim E03's figures as run, and the sample builds with them.
    let dir = sample_copy();
    let memo = fs::read_to_string(dir.path().join("docs/memos/limitations.md")).expect("memo");
    assert!(
        memo.contains("(#E03/as-run.speculative.mean_time_s)"),
        "{memo}"
    );
    let findings = [
        "On the cells that ran it answered in [26.6 s](#E03/as-run.speculative.mean_time_s).",
        "On the cells that ran it answered in [24.6 s](#E03/as-run.speculative.mean_time_s).",
        "It answered in [26.6 s](#E03.speculative.mean_time_s).",
    ];
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!(findings);
    });
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let failing: Vec<&str> = text.lines().filter(|l| l.contains("Fail ")).collect();
    assert_eq!(failing.len(), 2, "{}", failing.join("\n"));
    assert!(failing[0].contains("findings[1]: [24.6 s](#E03/as-run.speculative.mean_time_s): recorded 24.6 s; recomputed the figure is 26.6"), "{}", failing[0]);
    assert!(
        failing[1].contains("findings[2]: [26.6 s](#E03.speculative.mean_time_s)")
            && failing[1].contains("did not run all its cells in E03"),
        "{}",
        failing[1]
    );
}

#[test]
fn a_unit_no_figure_has_or_a_total_renamed_is_bad_input() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "It took [1.2 minutes](#E02.ladder.mean_time_s).",
    );
    refused(dir.path(), &["`minutes`, a unit no figure has"]);
    set_headline(dir.path(), "It passed [5.6%](#diff(E02.always-medium.pass_rate_pct,E01.always-medium.pass_rate_pct)) more.");
    refused(
        dir.path(),
        &["written as a percentage, but the figure is a difference in percentage points"],
    );
    set_headline(dir.path(), "Simulated.");
    edit_json(&dir.path().join("experiments/study.json"), |s| {
        s["figures"]["runs"] =
            json!({"label": "Total spend", "of": "E02.ladder.cost_per_task_usd"});
    });
    refused(
        dir.path(),
        &["`study.runs` is a total; name the figure otherwise"],
    );
}

#[test]
fn a_memo_comment_or_an_escaped_backtick_hides_no_number() {
    let dir = sample_copy();
    let memo = dir.path().join("docs/memos/E02-corrections.md");
    let text = fs::read_to_string(&memo).expect("memo");
    fs::write(
        &memo,
        format!("{text}\nThe ladder passed <!--89%--> of tasks, \\`say 77%\\`.\n"),
    )
    .expect("write");
    fails_with(
        dir.path(),
        &[": -89%: recorded -89%", ": 77%: recorded 77%"],
    );
    let page =
        fs::read_to_string(dir.path().join("site/docs/memos/E02-corrections.html")).expect("page");
    assert!(
        page.contains("-89%<span class=\"mark\"> ✗ typed by hand"),
        "the page marks it too"
    );
}

#[test]
fn named_figures_resolve_once_however_they_nest() {
    // Thirty names, each the difference of the one before with itself: a
    // naive evaluation makes 2^30 calls; each is resolved once.
    let dir = sample_copy();
    edit_json(&dir.path().join("experiments/study.json"), |s| {
        let figures = s["figures"].as_object_mut().expect("figures");
        figures.insert(
            "f0".into(),
            json!({"label": "f0", "of": "E02.ladder.pass_rate_pct"}),
        );
        for k in 1..30 {
            let prev = format!("study.f{}", k - 1);
            figures.insert(
                format!("f{k}"),
                json!({"label": "f", "of": format!("diff({prev},{prev})")}),
            );
        }
    });
    let started = std::time::Instant::now();
    assert_exit(&build_strict(dir.path()), 0, "nested names");
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

const RATE_CHANGE: &str = "change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct)";
const TIME_CHANGE: &str = "change(E02.ladder.mean_time_s,E02.always-large.mean_time_s)";

#[test]
fn a_direction_word_bound_to_a_figure_of_another_kind_fails_naming_the_kind() {
    // The ladder is slower than always-large (70.6 s against 15.9 s) but
    // passes more tasks: `faster` bound to the change of pass rates once
    // showed "faster ✓".
    let dir = sample_copy();
    set_headline(
        dir.path(),
        &format!(
            "Simulated: the ladder is [faster](#{RATE_CHANGE}), and [cheaper](#{TIME_CHANGE})."
        ),
    );
    fails_with(
        dir.path(),
        &[
            &format!("headline: [faster](#{RATE_CHANGE}): recorded faster; recomputed `faster` describes a time, but the figure is a rate"),
            &format!("headline: [cheaper](#{TIME_CHANGE}): recorded cheaper; recomputed `cheaper` describes a cost, but the figure is a time"),
        ],
    );
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains("faster<span class=\"mark\"> ✗ `faster` describes a time, but the figure is a rate</span>"),
        "the page shows why"
    );
    // The words that describe these kinds hold, as does a word of any kind.
    set_headline(
        dir.path(),
        &format!("Simulated: the ladder is [slower](#{TIME_CHANGE}) and passes [more](#{RATE_CHANGE}) tasks, [7.1% higher](#{RATE_CHANGE}), at [lower](#{LADDER_CHANGE}) cost: [cheaper](#{LADDER_CHANGE})."),
    );
    assert_exit(&build_strict(dir.path()), 0, "words of the figures' kinds");
}

#[test]
fn a_headline_of_comparison_words_bound_to_nothing_fails_under_strict() {
    let dir = sample_copy();
    set_headline(
        dir.path(),
        "Simulated: the ladder is dearer per task than always-large and passed fewer tasks.",
    );
    fails_with(
        dir.path(),
        &[
            "E02/summary.json: headline: dearer: recorded dearer; recomputed a comparison typed by hand: bind it to the change or difference it claims",
            "E02/summary.json: headline: fewer: recorded fewer; recomputed a comparison typed by hand",
        ],
    );
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains(
            "dearer<span class=\"mark\"> ✗ a comparison typed by hand, not bound to a figure"
        ),
        "the page marks the word"
    );
    // In a memo too, by line; marked not measured, the word passes.
    set_headline(dir.path(), "Simulated.");
    let memo = dir.path().join("docs/memos/E02-corrections.md");
    let text = fs::read_to_string(&memo).expect("memo");
    let line = text.lines().count() + 2;
    fs::write(&memo, format!("{text}\nThe ladder is costlier.\n")).expect("write");
    fails_with(
        dir.path(),
        &[&format!(
            "docs/memos/E02-corrections.md: line {line}: costlier: recorded costlier"
        )],
    );
    fs::write(
        &memo,
        format!("{text}\nThe ladder is [costlier](#registered).\n"),
    )
    .expect("write");
    assert_exit(&build_strict(dir.path()), 0, "marked not measured");
}

#[test]
fn numbers_in_words_roman_numerals_and_look_alikes_fail_as_numbers_typed_by_hand() {
    let dir = sample_copy();
    let findings = [
        (
            "The ladder passed ninety-seven percent of tasks.",
            "ninety-seven percent",
            "a number written in words",
        ),
        (
            "Nine in ten runs passed.",
            "Nine in ten",
            "a number written in words",
        ),
        (
            "Always-large passed a hundred per cent of them.",
            "a hundred per cent",
            "a number written in words",
        ),
        (
            "It passed IV of the tasks.",
            "IV",
            "a number written as a Roman numeral",
        ),
        (
            "It passed l00% of tasks.",
            "l00%",
            "a number written with letters that look like digits",
        ),
        (
            "It cost O.5 of always-large's.",
            "O.5",
            "a number written with letters that look like digits",
        ),
        ("It passed 1OO% of tasks.", "1OO%", "a number typed by hand"),
    ];
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!(findings.iter().map(|f| f.0).collect::<Vec<_>>());
    });
    let needles: Vec<String> = findings
        .iter()
        .enumerate()
        .map(|(i, (_, number, form))| {
            format!(
                "E02/summary.json: findings[{i}]: {number}: recorded {number}; recomputed {form}"
            )
        })
        .collect();
    fails_with(
        dir.path(),
        &needles.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let page = fs::read_to_string(dir.path().join("site/experiments/E02.html")).expect("page");
    assert!(
        page.contains(
            "ninety-seven percent<span class=\"mark\"> ✗ written in words, not bound to a figure"
        ),
        "the page marks the words"
    );
    // Bound, a number must be written in digits.
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!(["It passed [five in six, 83.3%](#E02.ladder.pass_rate_pct)."]);
    });
    fails_with(
        dir.path(),
        &["holds a number written in words (`five in six`): write the figure in digits"],
    );
    // Ordinary words are not numbers: the pronoun, ordinals, `one` as a
    // pronoun, a Roman-looking abbreviation.
    edit_json(&dir.path().join(E02_SUMMARY), |s| {
        s["findings"] = json!([
            "I read the first run and the third one; no one set up CI for it, and each one is a mix of tasks."
        ]);
    });
    assert_exit(&build_strict(dir.path()), 0, "ordinary words");
}

#[test]
fn a_number_in_any_prose_a_page_shows_is_a_claim_or_fails_naming_its_field() {
    // Each field a page shows as the study's prose, with a number or a
    // comparison typed into it: a correction's reason, a secondary
    // analysis's description, a named figure's label, a showcase note, the
    // showcase's narrative, and a code span in a memo.
    let dir = sample_copy();
    let root = dir.path();
    edit_json(&root.join(E02_SUMMARY), |s| {
        s["corrections"][0]["reason"] = json!("The first figure was 89%.");
        s["secondary"][0]["description"] = json!("Counting reruns, nine in ten tasks pass.");
    });
    edit_json(&root.join("experiments/study.json"), |s| {
        s["figures"]["cost_per_run_usd"]["label"] = json!("Spend per run, $0.004 or so");
    });
    edit_json(&root.join("showcase/showcase.json"), |s| {
        s["runs"][0]["note"] = json!("A ladder that escalated, dearer than always-large.");
    });
    let narrative = root.join("showcase/NARRATIVE.md");
    let text = fs::read_to_string(&narrative).expect("narrative");
    let narrative_line = text.lines().count() + 2;
    fs::write(
        &narrative,
        format!("{text}\nThe ladder passed 94% of tasks.\n"),
    )
    .expect("write");
    let memo = root.join("docs/memos/E02-corrections.md");
    let text = fs::read_to_string(&memo).expect("memo");
    let memo_line = text.lines().count() + 2;
    fs::write(
        &memo,
        format!("{text}\nThe ladder passed `89%` of tasks on `gpt-4o-mini`.\n"),
    )
    .expect("write");
    fails_with(
        root,
        &[
            "E02/summary.json: corrections[0].reason: 89%: recorded 89%; recomputed a number typed by hand",
            "E02/summary.json: secondary[0].description: nine in ten: recorded nine in ten; recomputed a number written in words",
            "study.json: figures[cost_per_run_usd].label: $0.004: recorded $0.004",
            "showcase/showcase.json: runs[0].note: dearer: recorded dearer; recomputed a comparison typed by hand",
            &format!("showcase/NARRATIVE.md: line {narrative_line}: 94%: recorded 94%"),
            &format!("docs/memos/E02-corrections.md: line {memo_line}: 89%: recorded 89%"),
        ],
    );
    let out = build_strict(root);
    assert!(
        !stdout(&out).contains("4o") && !stderr(&out).contains("4o"),
        "an identifier in a code span is not read"
    );
    // Each page marks what its prose claims.
    let page = |path: &str| fs::read_to_string(root.join("site").join(path)).expect(path);
    let experiment = page("experiments/E02.html");
    assert!(
        experiment.contains("89%<span class=\"mark\"> ✗ typed by hand"),
        "reason"
    );
    assert!(
        experiment.contains("nine in ten<span class=\"mark\"> ✗ written in words"),
        "description"
    );
    assert!(
        page("index.html").contains("$0.004<span class=\"mark\"> ✗ typed by hand"),
        "label"
    );
    let showcase = page("showcase.html");
    assert!(
        showcase.contains("dearer<span class=\"mark\"> ✗ a comparison typed by hand"),
        "note"
    );
    assert!(
        showcase.contains("94%<span class=\"mark\"> ✗ typed by hand"),
        "narrative"
    );
    let memo_page = page("docs/memos/E02-corrections.html");
    assert!(
        memo_page
            .contains("<code><span class=\"claim fail\">89%<span class=\"mark\"> ✗ typed by hand"),
        "a code span's number is marked"
    );
    assert!(
        memo_page.contains("<code>gpt-4o-mini</code>"),
        "an identifier stays code"
    );
}

#[test]
fn bound_numbers_in_that_prose_pass_and_documentation_says_its_numbers_are_not_claims() {
    let dir = sample_copy();
    let root = dir.path();
    edit_json(&root.join(E02_SUMMARY), |s| {
        s["corrections"][1]["reason"] = json!(
            "The first figure counted a rerun; the registration keeps the stopped run, so the ladder passed [83.3%](#E02.ladder.pass_rate_pct)."
        );
    });
    edit_json(&root.join("showcase/showcase.json"), |s| {
        s["runs"][3]["note"] = json!(
            "A call cut at the run's time limit lost its usage: the ladder cost [](#E02.ladder.cost_per_task_usd) per task, a bound."
        );
    });
    assert_exit(&build_strict(root), 0, "bound numbers");
    let doc = fs::read_to_string(root.join("site/docs/FORMAT.html")).expect("doc");
    assert!(
        doc.contains("Documentation: its numbers describe the tool and its formats, not this study's results; they are not claims and are not recomputed."),
        "a documentation page says so"
    );
    // A reference to no figure in a note is bad input naming the field.
    edit_json(&root.join("showcase/showcase.json"), |s| {
        s["runs"][0]["note"] = json!("It passed [83.3%](#E02.ladder.pass_rate).");
    });
    refused(root, &["showcase/showcase.json: runs[0].note: [83.3%](#E02.ladder.pass_rate): no figure `pass_rate`"]);
}
