//! Claims bound to figures: headlines, findings and memo sentences whose
//! numbers are receipts. The syntax ([`syntax`]) binds each number a claim
//! writes to the figure it claims; [`judge`] reads the number as written
//! (its sign words and precision included) and holds it to the figure's
//! recomputed bound; [`claim_receipts`] makes one receipt per number, and
//! one failing receipt per number typed by hand.

pub mod check;
mod figures;
pub mod judge;
pub mod kind;
pub mod syntax;
pub mod unit;
pub mod words;

use crate::verify::Receipt;

pub use figures::{nearest, ExperimentFigures, Figures, Within};
pub use judge::Bound;
pub use kind::Kind;
pub use syntax::{Figure, FigurePath, Segment, Target};
pub use unit::Unit;

/// Judges one bound number: the figure its target names, if the text
/// (empty: the figure shown as recomputed) writes it in its unit, agrees
/// with it, and, for a change or a difference, says which way (a sign word
/// or a signed number); a direction alone (`[cheaper](#change(a,b))`) is
/// read only of a change or a difference, and holds only when the whole
/// bound lies on that side of zero. A direction word describes the
/// figure's kind (`faster` a time, `cheaper` a cost).
pub fn judge_bound(text: &str, target: &Target, figures: &Figures<'_>) -> Result<Bound, String> {
    let figure = figures.evaluate(target)?;
    judge_text(
        text,
        figure,
        (figures.target_unit(target), figures.target_kind(target)),
        figures.is_derived(target),
    )?;
    Ok(figure)
}

/// Judges a bound number's text (empty: nothing to judge) against a
/// figure in `unit` of `kind`; `derived` for a change or a difference,
/// whose text must say which way.
pub fn judge_text(
    text: &str,
    figure: Bound,
    (unit, kind): (Unit, Kind),
    derived: bool,
) -> Result<(), String> {
    if text.trim().is_empty() {
        return Ok(());
    }
    kind::describes(text, kind)?;
    if text.chars().any(|c| c.is_numeric() && !c.is_ascii_digit()) {
        return Err(format!(
            "`{text}` writes a number in other than ASCII digits"
        ));
    }
    if let Some(found) = words::found(text)
        .into_iter()
        .find(|f| f.form != words::Form::Comparison)
    {
        return Err(format!(
            "`{text}` holds {} (`{}`): write the figure in digits",
            found.form.name(),
            found.text
        ));
    }
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return match (judge::direction(text)?, derived) {
            (Some(sign), true) => judge::holds_direction(sign, figure),
            (Some(_), false) => Err(format!(
                "`{text}` says a direction of a figure that is not a change or a difference"
            )),
            (None, _) => Err(format!("`{text}` states no number")),
        };
    }
    unit::agrees(text, unit)?;
    let claimed = judge::read(text)?;
    if derived && claimed.sign.is_none() && !claimed.explicit_sign && !claimed.within {
        return Err(format!(
            "`{text}` does not say which way: write `lower` or `higher` (or the like), or a signed number"
        ));
    }
    judge::agrees(&claimed, figure)
}

/// A figure as a claim shows it when its link has no text: rates, points
/// and changes to a tenth (a change wholly on one side of zero in words),
/// costs to four significant digits, counts whole.
pub fn show_figure(figure: Bound, unit: Unit) -> String {
    if unit == Unit::Change && (figure.high < 0.0 || figure.low > 0.0) {
        let (word, near, far) = if figure.high < 0.0 {
            ("lower", -figure.high, -figure.low)
        } else {
            ("higher", figure.low, figure.high)
        };
        let (near, far) = (format!("{near:.1}"), format!("{far:.1}"));
        return if near == far {
            format!("{near}% {word}")
        } else {
            format!("{near}–{far}% {word}")
        };
    }
    let one = |v: f64| match unit {
        Unit::Percent | Unit::Change => format!("{v:.1}%"),
        Unit::Points => format!("{v:.1} points"),
        Unit::Usd => format!("${}", significant(v, 4)),
        Unit::Seconds => format!("{v:.1} s"),
        Unit::PerSecond => format!("{v:.0} tokens/s"),
        Unit::Count => thousands(v),
        Unit::Ratio => format!("{v:.2}×"),
    };
    let (low, high) = (one(figure.low), one(figure.high));
    if low == high {
        low
    } else {
        format!("{low} to {high}")
    }
}

fn significant(v: f64, digits: i32) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let decimals = (digits - 1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

fn thousands(v: f64) -> String {
    let whole = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// The receipts of claim `text`, recorded in `subject` at `place` (e.g.
/// `headline`): one per bound number, held to its figure, and a failing
/// one per number typed by hand.
pub fn claim_receipts(
    subject: &str,
    place: &str,
    text: &str,
    figures: &Figures<'_>,
) -> Vec<Receipt> {
    bound_receipts(
        subject,
        place,
        text,
        "<experiment>.<policy>.<figure>",
        |t, target| judge_bound(t, target, figures),
    )
}

/// As [`claim_receipts`], each bound number judged by `judge`; `example`
/// shows a target in the hint a number typed by hand gets.
pub fn bound_receipts(
    subject: &str,
    place: &str,
    text: &str,
    example: &str,
    judge: impl Fn(&str, &Target) -> Result<Bound, String>,
) -> Vec<Receipt> {
    let segments = match syntax::parse(text) {
        Ok(s) => s,
        Err((at, why)) => {
            return vec![Receipt::new(
                subject,
                place,
                text,
                format!("byte {at}: {why}"),
                false,
            )]
        }
    };
    let mut out = Vec::new();
    for segment in &segments {
        match segment {
            Segment::Text(prose) => {
                for found in syntax::unbound(prose) {
                    let number = found.text;
                    out.push(Receipt::new(
                        subject,
                        format!("{place}: {number}"),
                        number,
                        unbound_hint(found, example),
                        false,
                    ));
                }
            }
            Segment::Registered(_) => {}
            Segment::Bound { text, target } => {
                let claim = format!("{place}: [{text}](#{target})");
                out.push(match judge(text, target) {
                    Ok(figure) => Receipt::new(subject, claim, text, show(figure), true),
                    Err(why) => Receipt::new(subject, claim, text, why, false),
                });
            }
        }
    }
    out
}

/// Why an unbound number or comparison fails, and how to bind it.
fn unbound_hint(found: words::Found<'_>, example: &str) -> String {
    let text = found.text;
    let mark = format!("or mark it not measured, `[{text}](#registered)`");
    match found.form {
        words::Form::Digits => format!(
            "a number typed by hand: bind it to the figure it claims, `[{text}](#{example})`, {mark}"
        ),
        words::Form::Comparison => format!(
            "a comparison typed by hand: bind it to the change or difference it claims, `[{text}](#change(a,b))`, {mark}"
        ),
        form => format!(
            "{}: write it in digits bound to the figure it claims, `[…](#{example})`, {mark}",
            form.name()
        ),
    }
}

/// The receipts of a Markdown memo: each line's claims, named by line.
pub fn memo_receipts(subject: &str, markdown: &str, figures: &Figures<'_>) -> Vec<Receipt> {
    syntax::memo_prose(markdown)
        .iter()
        .enumerate()
        .flat_map(|(i, line)| claim_receipts(subject, &format!("line {}", i + 1), line, figures))
        .collect()
}

pub(crate) fn show(b: Bound) -> String {
    if b.low == b.high {
        format!("{}", b.low)
    } else {
        format!("{} to {}", b.low, b.high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::Value;

    use crate::model::Analysis;
    use crate::verify::Status;

    fn policy(id: &str, pass: f64, low: f64, high: f64) -> Value {
        serde_json::json!({
            "policy": id, "runs": 18, "pass_rate_pct": pass, "pass_rate_sd_pct": 9.6,
            "cost_per_task_usd": {"low": low, "high": high},
            "mean_time_s": 54.1, "median_time_s": 40.0, "truncations": 1, "timeouts": 0,
            "throughput_tps": 150.0
        })
    }

    /// E02 as the sources corrected it, and the secondary analysis that
    /// counted reruns in place of the runs they replaced.
    fn e02() -> (Analysis, BTreeMap<String, Analysis>) {
        let analysis = |ladder: f64| -> Analysis {
            serde_json::from_value(serde_json::json!({
                "policies": [policy("ladder", ladder, 0.0058, 0.0060), policy("always-large", 77.78, 0.0061, 0.0061)],
                "tiers": []
            }))
            .expect("analysis")
        };
        let secondary = BTreeMap::from([("reruns-replace".to_string(), analysis(88.89))]);
        (analysis(83.33), secondary)
    }

    /// The receipts of claim `text` over E02's figures.
    fn judged(
        text: &str,
        primary: &Analysis,
        secondary: &BTreeMap<String, Analysis>,
    ) -> Vec<Receipt> {
        let incomplete = BTreeSet::new();
        let mut figures = Figures::default();
        figures.add(
            "E02",
            ExperimentFigures {
                primary,
                secondary,
                incomplete: &incomplete,
            },
        );
        claim_receipts("E02/summary.json", "headline", text, &figures)
    }

    fn statuses(text: &str) -> Vec<(String, Status, String)> {
        let (primary, secondary) = e02();
        judged(text, &primary, &secondary)
            .into_iter()
            .map(|r| (r.claim, r.status, r.recomputed))
            .collect()
    }

    /// A study figure named as a change says which way as a change does.
    #[test]
    fn a_named_change_takes_a_direction_word() {
        let (primary, secondary) = e02();
        let incomplete = BTreeSet::new();
        let mut figures = Figures::default();
        figures.add(
            "E02",
            ExperimentFigures {
                primary: &primary,
                secondary: &secondary,
                incomplete: &incomplete,
            },
        );
        let change = syntax::parse_target(
            "change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)",
        )
        .expect("target");
        let named = BTreeMap::from([
            ("ladder_saving".to_string(), change),
            (
                "saving_again".to_string(),
                syntax::parse_target("study.ladder_saving").expect("target"),
            ),
        ]);
        figures.set_named(&named);
        let status = |text: &str| {
            claim_receipts("study.json", "claim", text, &figures)
                .into_iter()
                .map(|r| (r.status, r.recomputed))
                .collect::<Vec<_>>()
        };
        for text in [
            "[cheaper](#study.ladder_saving)",
            "[1.6–4.9% lower](#study.ladder_saving)",
            "[lower](#study.saving_again)",
        ] {
            let got = status(text);
            assert!(
                got.iter().all(|(s, _)| *s == Status::Pass),
                "{text}: {got:?}"
            );
        }
        // The wrong way still fails, and a number must still say which way.
        assert_eq!(status("[higher](#study.ladder_saving)")[0].0, Status::Fail);
        let got = status("[3%](#study.ladder_saving)");
        assert!(got[0].1.contains("does not say which way"), "{got:?}");
    }

    /// A direction word says what kind of figure moved: `faster` a time,
    /// `cheaper` a cost; bound to a figure of another kind it fails, naming
    /// the word and the figure's kind.
    #[test]
    fn a_direction_word_bound_to_another_kind_fails() {
        let rates = "(#change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct))";
        let got = statuses(&format!("[faster]{rates}"));
        assert_eq!(got[0].1, Status::Fail, "{got:?}");
        assert_eq!(
            got[0].2, "`faster` describes a time, but the figure is a rate",
            "{got:?}"
        );
        let got = statuses(&format!("[7.1% cheaper]{rates}"));
        assert!(got[0].2.contains("`cheaper` describes a cost"), "{got:?}");
        let times = "(#diff(E02.ladder.mean_time_s,E02.always-large.mean_time_s))";
        let got = statuses(&format!("[dearer]{times}"));
        assert!(
            got[0]
                .2
                .contains("`dearer` describes a cost, but the figure is a time"),
            "{got:?}"
        );
        // A word of any kind, and a word of the figure's own kind, hold.
        for text in [
            format!("[higher]{rates}"),
            format!("[7.1% more]{rates}"),
            "[cheaper](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd))"
                .to_string(),
        ] {
            let got = statuses(&text);
            assert_eq!(got[0].1, Status::Pass, "{text}: {got:?}");
        }
    }

    /// A comparison in prose is a claim: bound to nothing, it fails as a
    /// number typed by hand does.
    #[test]
    fn a_comparison_bound_to_nothing_fails() {
        let got = statuses(
            "Simulated: dearer per task than always-large, the ladder passed fewer tasks.",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, "headline: dearer");
        assert_eq!(got[1].0, "headline: fewer");
        assert!(
            got.iter()
                .all(|(_, s, why)| *s == Status::Fail
                    && why.starts_with("a comparison typed by hand")),
            "{got:?}"
        );
    }

    /// Numbers written otherwise than in digits are numbers: unbound, each
    /// fails naming the word; bound, the text must write the figure in digits.
    #[test]
    fn numbers_in_words_numerals_and_look_alikes_fail_unbound() {
        for (text, number, form) in [
            (
                "passed ninety-seven percent of tasks",
                "ninety-seven percent",
                "a number written in words",
            ),
            (
                "passed nine in ten tasks",
                "nine in ten",
                "a number written in words",
            ),
            (
                "passed a hundred per cent of tasks",
                "a hundred per cent",
                "a number written in words",
            ),
            (
                "passed half of the tasks",
                "half",
                "a number written in words",
            ),
            (
                "passed IV of the tasks",
                "IV",
                "a number written as a Roman numeral",
            ),
            (
                "passed l00% of tasks",
                "l00%",
                "a number written with letters that look like digits",
            ),
            (
                "cost O.5 cents",
                "O.5",
                "a number written with letters that look like digits",
            ),
            ("passed 1OO% of tasks", "1OO%", "a number typed by hand"),
        ] {
            let got = statuses(text);
            assert_eq!(got.len(), 1, "{text}: {got:?}");
            assert_eq!(got[0].0, format!("headline: {number}"), "{text}");
            assert_eq!(got[0].1, Status::Fail, "{text}");
            assert!(got[0].2.starts_with(form), "{text}: {got:?}");
        }
        let got = statuses("[nine in ten, 83.3%](#E02.ladder.pass_rate_pct)");
        assert_eq!(got[0].1, Status::Fail, "{got:?}");
        assert!(
            got[0]
                .2
                .contains("(`nine in ten`): write the figure in digits"),
            "{got:?}"
        );
        // The pronoun and ordinary words are not numbers.
        assert!(statuses("I checked each one; the first run, a mix of tasks, CI.").is_empty());
    }

    #[test]
    fn the_corrected_headline_written_with_references_passes() {
        let got = statuses(
            "In E02 the ladder passed [83.3%](#E02.ladder.pass_rate_pct) of tasks against [77.8%](#E02.always-large.pass_rate_pct), at [1.6–4.9% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost, under a [30 s](#registered) target.",
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|(_, s, _)| *s == Status::Pass), "{got:?}");
    }

    #[test]
    fn the_first_published_headline_fails_typed_or_bound() {
        // Typed by hand: each number fails as such, and so does the
        // comparison.
        let got = statuses("The ladder passed 89% of tasks at 33% lower cost than always-large.");
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got
            .iter()
            .all(|(_, s, why)| *s == Status::Fail && why.contains("typed by hand")));
        assert!(got[..2].iter().all(|(c, _, _)| c.contains('%')));
        assert_eq!(got[2].0, "headline: lower");
        // Bound: the pass rate to the primary analysis, the cost to its change.
        let got = statuses(
            "The ladder passed [89%](#E02.ladder.pass_rate_pct) at [33% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost.",
        );
        assert!(got.iter().all(|(_, s, _)| *s == Status::Fail), "{got:?}");
        assert!(
            got[0].2.contains("the figure is 83.3"),
            "both values shown: {got:?}"
        );
        assert!(got[1].2.contains("between"), "{got:?}");
    }

    #[test]
    fn a_figure_of_another_analysis_is_named_and_checked_there() {
        // 89% is the pass rate counting reruns: true of that analysis, and
        // the claim says so by naming it.
        let got = statuses("[88.9%](#E02/reruns-replace.ladder.pass_rate_pct)");
        assert_eq!(got[0].1, Status::Pass, "{got:?}");
    }

    #[test]
    fn a_comparison_word_is_held_to_the_whole_bound() {
        let change = "(#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd))";
        let got = statuses(&format!("[cheaper]{change}"));
        assert_eq!(
            got[0].1,
            Status::Pass,
            "the whole bound is below zero: {got:?}"
        );
        let got = statuses(&format!("[dearer]{change}"));
        assert_eq!(got[0].1, Status::Fail, "{got:?}");
        // Widen the ladder's bound past always-large's cost: cheaper no longer holds.
        let (mut primary, secondary) = e02();
        primary.policies[0].cost_per_task_usd.high = 0.0063;
        let r = judged(&format!("[cheaper]{change}"), &primary, &secondary);
        assert_eq!(r[0].status, Status::Fail, "{r:?}");
        assert!(r[0].recomputed.contains("not wholly below zero"), "{r:?}");
    }

    #[test]
    fn an_unknown_figure_names_what_there_is() {
        let got = statuses("[83.3%](#E02.ladder.pass_rate)");
        assert_eq!(got[0].1, Status::Fail);
        assert!(got[0].2.contains("`pass_rate_pct`"), "{got:?}");
        let got = statuses("[83.3%](#E09.ladder.pass_rate_pct)");
        assert!(
            got[0]
                .2
                .contains("no experiment `E09` (did you mean `E02`?)"),
            "{got:?}"
        );
    }
}
