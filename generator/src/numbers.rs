//! Numbers as a page shows them: metrics at four significant figures (the
//! exact value stays in the receipt and on hover), money with significant
//! figures for small amounts and cents for larger ones, a cost bound as one
//! value when its ends agree at that precision, chart ticks that are round
//! and distinct, and a count with its noun in the singular or plural.
//!
//! Display only: what a claim is compared with (`receipts_verifier::claims`)
//! is read and judged by its own rules, never by these.

use receipts_verifier::claims::{show_figure, Bound, Unit};
pub use receipts_verifier::plural::{count, plural_of};

/// Significant figures a metric is shown with.
pub const METRIC_FIGURES: u32 = 4;

/// Significant figures an amount of money under a dollar is shown with.
const MONEY_FIGURES: u32 = 3;

/// `x` with `figures` significant figures (never fewer than its whole part
/// holds), trailing zeros after the point dropped: `0.7999999999999999` is
/// `0.8`, `2/3` is `0.6667`, `123456.7` is `123457`.
pub fn sig(x: f64, figures: u32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let text = fixed(x, decimals_for(x, figures));
    trim_zeros(&text, 0)
}

/// The decimals that give `x` `figures` significant figures.
fn decimals_for(x: f64, figures: u32) -> usize {
    let magnitude = x.abs().log10().floor() as i64;
    usize::try_from(i64::from(figures) - 1 - magnitude).unwrap_or(0)
}

/// `x` with `decimals` decimals, never `-0`.
fn fixed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => text,
    }
}

/// `text` without the zeros that end its decimals, keeping at least `keep`
/// of them (and the point only when some are kept).
fn trim_zeros(text: &str, keep: usize) -> String {
    let Some(point) = text.find('.') else {
        return text.to_string();
    };
    let digits = text[point + 1..].trim_end_matches('0');
    let digits = if digits.len() >= keep {
        digits
    } else {
        &text[point + 1..point + 1 + keep]
    };
    if digits.is_empty() {
        text[..point].to_string()
    } else {
        format!("{}.{digits}", &text[..point])
    }
}

/// A number written as text (a receipt's recorded or recomputed value), as
/// a page shows it: at [`METRIC_FIGURES`] significant figures when that
/// changes nothing a reader needs and the text is a plain number that
/// holds more, else the text as it is (`1.0`, `54`, `$0.0123`, `pass` stay).
pub fn shown(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    match text.parse::<f64>() {
        Ok(x) if plain && x.is_finite() => {
            let short = sig(x, METRIC_FIGURES);
            // Already as short as it can be said: kept as written.
            if short.parse::<f64>().ok() == Some(x) {
                text.to_string()
            } else {
                short
            }
        }
        _ => text.to_string(),
    }
}

/// An amount in US dollars: three significant figures under a dollar
/// (`$0.0000174`, `$0.0123`, `$0.50`), cents from a dollar up (`$12.35`,
/// `$1,234.50`).
pub fn usd(x: f64) -> String {
    if !x.is_finite() {
        return format!("${x}");
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    let text = if a == 0.0 {
        "0.00".to_string()
    } else if a >= 1.0 {
        let cents = fixed(a, 2);
        let (whole, part) = cents.split_at(cents.len() - 3);
        format!("{}{part}", thousands(whole))
    } else {
        trim_zeros(&fixed(a, decimals_for(a, MONEY_FIGURES).max(2)), 2)
    };
    format!("{sign}${text}")
}

/// Digits of a whole number in groups of three, as a count is written.
/// A count with its thousands separated: `12,345`.
pub fn grouped(n: u64) -> String {
    show_figure(Bound::exact(n as f64), Unit::Count)
}

fn thousands(whole: &str) -> String {
    let n: f64 = whole.parse().unwrap_or(0.0);
    show_figure(Bound::exact(n), Unit::Count)
}

/// A cost from `low` to `high`: one value when both ends read the same at
/// the precision [`usd`] shows (an exact cost, or one whose ends differ by
/// float noise), else the range, `$0.0012–0.0041`.
pub fn usd_range(low: f64, high: f64) -> String {
    let (a, b) = (usd(low), usd(high));
    if a == b {
        a
    } else {
        format!("{a}–{}", b.replacen('$', "", 1))
    }
}

/// Ticks of an axis over `lo`–`hi`: round numbers (1, 2 or 5 times a power
/// of ten apart), three to six of them, and the labels that tell them apart
/// with no more decimals than the step needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ticks {
    pub values: Vec<f64>,
    pub labels: Vec<String>,
    pub step: f64,
}

/// The round step and its power of ten for a span to be cut in about five.
fn nice_step(span: f64) -> (f64, i32) {
    let raw = span / 5.0;
    let power = raw.log10().floor() as i32;
    let magnitude = 10f64.powi(power);
    for m in [1.0, 2.0, 5.0] {
        if m * magnitude >= raw * (1.0 - 1e-9) {
            return (m * magnitude, power);
        }
    }
    (10.0 * magnitude, power + 1)
}

/// A span a chart can divide: `lo`–`hi`, widened around a single value.
fn spread(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else if lo == 0.0 {
        (0.0, 1.0)
    } else {
        let half = lo.abs() / 2.0;
        (lo - half, lo + half)
    }
}

/// The axis range with round ends that covers `lo`–`hi`: each end a tick
/// of [`ticks`] over it.
pub fn axis_range(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = spread(lo, hi);
    let (mut step, _) = nice_step(hi - lo);
    loop {
        let ends = (
            (lo / step + 1e-9).floor() * step,
            (hi / step - 1e-9).ceil() * step,
        );
        // Rounding the ends out can make the span want a longer step.
        let (wider, _) = nice_step(ends.1 - ends.0);
        if wider <= step {
            return ends;
        }
        step = wider;
    }
}

/// The ticks of an axis over `lo`–`hi` (see [`Ticks`]).
pub fn ticks(lo: f64, hi: f64) -> Ticks {
    let (lo, hi) = spread(lo, hi);
    let (step, power) = nice_step(hi - lo);
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let decimals = usize::try_from(-power).unwrap_or(0);
    let values: Vec<f64> = (first..=last).map(|k| k as f64 * step).collect();
    let labels = values.iter().map(|&v| fixed(v, decimals)).collect();
    Ticks {
        values,
        labels,
        step,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_read_at_four_significant_figures() {
        assert_eq!(sig(0.799_999_999_999_999_9, 4), "0.8");
        assert_eq!(sig(2.0 / 3.0, 4), "0.6667");
        assert_eq!(sig(0.239_356_776_939_084_53, 4), "0.2394");
        assert_eq!(sig(123_456.7, 4), "123457");
        assert_eq!(sig(-0.000_012_345_6, 4), "-0.00001235");
        assert_eq!(sig(0.999_96, 4), "1");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(-1e-30, 4), "-0.000000000000000000000000000001");
        assert_eq!(shown("0.7999999999999999"), "0.8");
        assert_eq!(shown("0.33333333333333337"), "0.3333");
        for kept in [
            "1.0", "0.50", "54", "1", "$0.0123", "45.2%", "pass", "", "-", "NaN",
        ] {
            assert_eq!(shown(kept), kept);
        }
    }

    /// The exact value a page keeps beside a shortened one (on hover) is the
    /// receipt's text, which reads back to the same float; and what is shown
    /// is that float at four significant figures.
    #[test]
    fn the_exact_value_round_trips() {
        let mut x = 0.1_f64;
        let mut values = vec![0.799_999_999_999_999_9, 1.0 / 3.0, 0.1 + 0.2, 1e-7 / 3.0];
        for _ in 0..2000 {
            // A deterministic walk over many magnitudes and digit patterns.
            x = (x * 7.123_456_789 + 0.271_828_459).fract()
                * 10f64.powi((values.len() % 13) as i32 - 6);
            values.push(x);
            values.push(-x);
        }
        for v in values {
            let exact = v.to_string();
            assert_eq!(exact.parse::<f64>().unwrap(), v, "{exact}");
            let short = shown(&exact);
            let back: f64 = short.parse().unwrap();
            let tolerance = v.abs() * 5e-4;
            assert!((back - v).abs() <= tolerance, "{exact} shown as {short}");
        }
    }

    #[test]
    fn small_money_keeps_significant_figures() {
        assert_eq!(usd(0.000_017_4), "$0.0000174");
        assert_eq!(usd(0.000_017_43), "$0.0000174");
        assert_eq!(usd(0.012_34), "$0.0123");
        assert_eq!(usd(0.5), "$0.50");
        assert_eq!(usd(0.999), "$0.999");
        assert_eq!(usd(0.9999), "$1.00");
        assert_eq!(usd(12.345_6), "$12.35");
        assert_eq!(usd(1234.5), "$1,234.50");
        assert_eq!(usd(1_234_567.0), "$1,234,567.00");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(-0.0), "$0.00");
        assert_eq!(usd(-0.25), "-$0.25");
        assert_ne!(usd(0.000_1), "$0.0000");
    }

    #[test]
    fn an_exact_cost_is_one_value() {
        assert_eq!(usd_range(0.0001, 0.0001), "$0.0001");
        assert_eq!(usd_range(0.0067, 0.0067), "$0.0067");
        // Ends that differ by float noise only.
        assert_eq!(usd_range(0.1 + 0.2, 0.3), "$0.30");
        assert_eq!(
            usd_range(0.007_047_6, 0.007_047_599_999_999_999),
            "$0.00705"
        );
        // A bound whose ends differ where the page can show it.
        assert_eq!(usd_range(0.0, 0.0041), "$0.00–0.0041");
        assert_eq!(usd_range(0.0012, 0.0041), "$0.0012–0.0041");
        assert_eq!(usd_range(1.5, 1234.5), "$1.50–1,234.50");
    }

    /// Ticks over many ranges, tiny, huge, negative and degenerate: round,
    /// distinct, inside the range and covering most of it, each label read
    /// back to its tick.
    #[test]
    fn ticks_are_round_and_distinct() {
        let mut ranges = vec![
            (0.000_01, 0.000_12),
            (0.0, 0.000_12),
            (0.0, 0.0001),
            (0.0, 100.0),
            (0.0, 0.0),
            (5.0, 5.0),
            (-3.0, -3.0),
            (0.000_05, 0.000_05),
            (1e9, 1e9 + 3.0),
            (-7.5, 2.25),
            (0.1 + 0.2, 0.3),
        ];
        for exp in -9..=9 {
            for m in [1.0, 1.3, 2.0, 2.5, 3.7, 5.0, 7.1, 9.99] {
                let span = m * 10f64.powi(exp);
                for lo in [0.0, span * 0.37, -span * 2.1, span * 40.0] {
                    ranges.push((lo, lo + span));
                }
            }
        }
        for (lo, hi) in ranges {
            for (lo, hi) in [(lo, hi), axis_range(lo, hi)] {
                let t = ticks(lo, hi);
                let n = t.values.len();
                assert!((2..=6).contains(&n), "{lo}–{hi}: {:?}", t.labels);
                let mut labels = t.labels.clone();
                labels.dedup();
                assert_eq!(labels.len(), n, "{lo}–{hi}: {:?}", t.labels);
                let (a, b) = spread(lo, hi);
                for (v, label) in t.values.iter().zip(&t.labels) {
                    let k = v / t.step;
                    assert!((k - k.round()).abs() < 1e-6, "{v} is not round");
                    let slack = t.step * 1e-6;
                    assert!(*v >= a - slack && *v <= b + slack, "{v} outside {lo}–{hi}");
                    let read: f64 = label.parse().unwrap();
                    assert!((read - v).abs() <= t.step * 1e-6, "{label} for {v}");
                }
                let first: f64 = t.values[0];
                assert!(
                    first - a < t.step * (1.0 + 1e-9),
                    "{lo}–{hi}: starts at {first}"
                );
            }
            // The axis's ends are ticks.
            let (a, b) = axis_range(lo, hi);
            let t = ticks(a, b);
            assert_eq!(t.values.first().copied(), Some(a), "{lo}–{hi}");
            let last = *t.values.last().unwrap();
            assert!((last - b).abs() <= t.step * 1e-6, "{lo}–{hi}: {last} ≠ {b}");
        }
        assert_eq!(
            ticks(0.0, 0.000_12).labels,
            ["0.00000", "0.00005", "0.00010"]
        );
        assert_eq!(
            ticks(0.0, 100.0).labels,
            ["0", "20", "40", "60", "80", "100"]
        );
    }
}
