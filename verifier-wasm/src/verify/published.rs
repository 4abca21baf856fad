//! Published numbers as addressable fields, and when a published number
//! agrees with its recomputation.
//!
//! A summary's numbers are named by paths such as
//! `primary.policies[ladder].pass_rate_pct`, `primary.tiers[small].total_cost_usd`,
//! `secondary[reruns-replace].policies[ladder].runs` and `hypotheses[H1].outcome`.
//! Corrections name the number they amend by the same path.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::cost::Cost;
use crate::model::{Analysis, Summary};
use crate::plural::count;

use super::Receipt;

/// Whether a published number agrees with the recomputed one at the
/// precision it was published with: the recomputed value, rounded to as many
/// decimals as the published one is written with, equals it. (A JSON number
/// keeps no trailing zeros, so `0.50` is read as one decimal.)
pub fn agrees(published: f64, recomputed: f64) -> bool {
    agrees_to(published, recomputed, 0)
}

/// As [`agrees`], but to at least `decimals` decimals however few the
/// published number is written with: for figures a machine records, where a
/// cost written as `0` must not pass for any cost under half a dollar.
pub fn agrees_to(published: f64, recomputed: f64, decimals: usize) -> bool {
    if !published.is_finite() || !recomputed.is_finite() {
        return false;
    }
    let decimals = decimals_of(published).max(decimals);
    let half_unit = 0.5 * 10f64.powi(-(decimals as i32));
    (published - recomputed).abs() <= half_unit * (1.0 + 1e-9)
}

/// The decimals a number is written with in its shortest form.
fn decimals_of(x: f64) -> usize {
    let text = format!("{x}");
    text.split_once('.')
        .map_or(0, |(_, frac)| frac.len())
        .min(12)
}

/// Whether two published values agree: numbers by [`agrees`], objects and
/// arrays member by member, anything else by equality.
pub fn values_agree(published: &Value, recomputed: &Value) -> bool {
    match (published, recomputed) {
        (Value::Number(a), Value::Number(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) => agrees(a, b),
            _ => false,
        },
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| values_agree(v, w)))
        }
        _ => published == recomputed,
    }
}

/// How precisely a kind of published figure must be written, at least.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Precision {
    /// A count: a whole number, equal.
    Whole,
    /// At least this many decimals (a rate in percent to 0.1 point).
    Decimals(u32),
    /// At least this many decimals, or a unit no coarser than this share
    /// of the value (a cost to 4 decimals of the currency or ±1%).
    DecimalsOrShare(u32, f64),
}

impl Precision {
    /// The precision required of a figure named `field` (its last name:
    /// `pass_rate_pct`, `cost_usd_low`, `runs`, …).
    pub fn of(field: &str) -> Precision {
        match field {
            "runs" | "attempts" | "truncations" | "timeouts" | "errors" | "empty_responses"
            | "retries" | "seed" => Precision::Whole,
            f if f.ends_with("_usd") || f.starts_with("cost_usd") || f == "low" || f == "high" => {
                Precision::DecimalsOrShare(4, 0.01)
            }
            f if f.ends_with("_pct") || f.ends_with("_s") => Precision::Decimals(1),
            f if f.ends_with("_tps") => Precision::DecimalsOrShare(1, 0.01),
            _ => Precision::Decimals(0),
        }
    }

    fn required(self) -> String {
        match self {
            Precision::Whole => "a count is written as a whole number".to_string(),
            Precision::Decimals(d) => format!(
                "this figure needs at least {}",
                count(d as usize, "decimal", None)
            ),
            Precision::DecimalsOrShare(d, share) => format!(
                "this figure needs at least {d} decimals, or a last digit worth at most {}% of the value",
                share * 100.0
            ),
        }
    }
}

/// What a published number, as written, says of its recomputation.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The recomputed value rounds to it at the precision it is written with.
    Agrees,
    /// The recomputed value does not round to it at the precision it is
    /// written with.
    Differs,
    /// Written more coarsely than its kind allows (the reason says how
    /// precise it must be), or not a number.
    Imprecise(String),
}

/// Judges a published number by its text (`71.0` claims one decimal, `71`
/// none) against the recomputed value, under the precision its kind requires.
pub fn judge(literal: &str, recomputed: f64, precision: Precision) -> Verdict {
    let (Some(decimals), Ok(published)) = (literal_decimals(literal), literal.parse::<f64>())
    else {
        return Verdict::Imprecise(format!("`{literal}` is not a number"));
    };
    if !published.is_finite() || !recomputed.is_finite() {
        return Verdict::Differs;
    }
    let half_unit = 0.5 * 10f64.powi(-decimals);
    let precise_enough = match precision {
        Precision::Whole => crate::literals::is_integer(literal),
        Precision::Decimals(d) => decimals >= d as i32,
        Precision::DecimalsOrShare(d, share) => {
            decimals >= d as i32 || 2.0 * half_unit <= share * published.abs()
        }
    };
    if !precise_enough {
        return Verdict::Imprecise(format!(
            "`{literal}` is too coarse: {}",
            precision.required()
        ));
    }
    if (published - recomputed).abs() <= half_unit * (1.0 + 1e-9) {
        Verdict::Agrees
    } else {
        Verdict::Differs
    }
}

fn literal_decimals(literal: &str) -> Option<i32> {
    crate::literals::decimals(literal)
}

/// A published value (a number, or a `low`/`high` bound) judged against its
/// recomputation, by the text of each number: `literals` maps JSON
/// Pointers to the numbers as written, `pointer` is the value's. Where a
/// number's text is unknown, it is judged as serde_json writes it.
pub fn judge_value(
    published: &Value,
    recomputed: &Value,
    field: &str,
    literals: Option<&BTreeMap<String, String>>,
    pointer: &str,
) -> Verdict {
    match (published, recomputed) {
        (Value::Number(p), Value::Number(r)) => {
            let text = literals
                .and_then(|l| l.get(pointer))
                .cloned()
                .unwrap_or_else(|| p.to_string());
            match r.as_f64() {
                Some(r) => judge(&text, r, Precision::of(field)),
                None => Verdict::Differs,
            }
        }
        (Value::Object(p), Value::Object(r)) => {
            if p.len() != r.len() {
                return Verdict::Differs;
            }
            let mut verdict = Verdict::Agrees;
            for (key, value) in p {
                let Some(other) = r.get(key) else {
                    return Verdict::Differs;
                };
                match judge_value(value, other, key, literals, &format!("{pointer}/{key}")) {
                    Verdict::Agrees => {}
                    Verdict::Differs => verdict = Verdict::Differs,
                    imprecise @ Verdict::Imprecise(_) => return imprecise,
                }
            }
            verdict
        }
        _ if published == recomputed => Verdict::Agrees,
        _ => Verdict::Differs,
    }
}

/// The text of a published value: each number as written (`literals` by
/// JSON Pointer), bounds as `low–high`.
pub fn display_literal(
    value: &Value,
    literals: Option<&BTreeMap<String, String>>,
    pointer: &str,
) -> String {
    let text = |v: &Value, at: &str| match (v, literals.and_then(|l| l.get(at))) {
        (Value::Number(_), Some(text)) => text.clone(),
        _ => display(v),
    };
    match value {
        Value::Object(map) => match (map.get("low"), map.get("high")) {
            (Some(low), Some(high)) => {
                let (low, high) = (
                    text(low, &format!("{pointer}/low")),
                    text(high, &format!("{pointer}/high")),
                );
                bound(low, high)
            }
            _ => display(value),
        },
        _ => text(value, pointer),
    }
}

/// A recomputed value written like the published one: numbers rounded to the
/// published number's decimals, bounds as `low–high`.
pub fn display_like(recomputed: &Value, published: &Value) -> String {
    match (recomputed, published) {
        (Value::Number(r), Value::Number(p)) => match (r.as_f64(), p.as_f64()) {
            (Some(r), Some(p)) if r.fract() != 0.0 || p.fract() != 0.0 => {
                format!("{r:.*}", decimals_of(p).max(1))
            }
            _ => r.to_string(),
        },
        (Value::Object(r), Value::Object(p)) => match (r.get("low"), r.get("high")) {
            (Some(low), Some(high)) => {
                let low = display_like(low, p.get("low").unwrap_or(low));
                let high = display_like(high, p.get("high").unwrap_or(high));
                bound(low, high)
            }
            _ => recomputed.to_string(),
        },
        (Value::String(s), _) => s.clone(),
        _ => recomputed.to_string(),
    }
}

/// A bound as `low–high`, or one number when its ends are written alike.
fn bound(low: String, high: String) -> String {
    if low == high {
        low
    } else {
        format!("{low}–{high}")
    }
}

/// A published value as written, bounds as `low–high`.
pub fn display(value: &Value) -> String {
    display_like(value, value)
}

/// One published number.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedField {
    /// Its path, as its receipt's claim names it, e.g.
    /// `primary.policies[ladder].pass_rate_pct`.
    pub path: String,
    /// Its value as published: a number, a bound (`low`, `high`) or an outcome.
    pub value: Value,
    /// Where it is written in its file (a JSON Pointer), for its text.
    pub pointer: String,
}

/// Every number of an analysis, by path under `prefix` (e.g. `primary`),
/// written under the JSON Pointer `pointer` of its file.
pub fn analysis_fields(prefix: &str, pointer: &str, analysis: &Analysis) -> Vec<PublishedField> {
    let mut out = Vec::new();
    let value = serde_json::to_value(analysis).unwrap_or(Value::Null);
    for (list, key) in [("policies", "policy"), ("tiers", "tier")] {
        let Some(entries) = value.get(list).and_then(Value::as_array) else {
            continue;
        };
        for (index, entry) in entries.iter().enumerate() {
            let Some(obj) = entry.as_object() else {
                continue;
            };
            let name = obj.get(key).and_then(Value::as_str).unwrap_or_default();
            for (field, v) in obj {
                if field != key {
                    out.push(PublishedField {
                        path: format!("{prefix}.{list}[{name}].{field}"),
                        value: v.clone(),
                        pointer: format!("{pointer}/{list}/{index}/{field}"),
                    });
                }
            }
        }
    }
    out
}

/// Every number and outcome a summary publishes, by path, as first published.
pub fn published_fields(summary: &Summary) -> Vec<PublishedField> {
    let mut out = analysis_fields("primary", "/primary", &summary.primary);
    for (i, s) in summary.secondary.iter().enumerate() {
        out.extend(analysis_fields(
            &format!("secondary[{}]", s.id),
            &format!("/secondary/{i}/numbers"),
            &s.numbers,
        ));
    }
    for (i, h) in summary.hypotheses.iter().enumerate() {
        out.push(PublishedField {
            path: format!("hypotheses[{}].outcome", h.id),
            value: serde_json::to_value(h.outcome).unwrap_or(Value::Null),
            pointer: format!("/hypotheses/{i}/outcome"),
        });
    }
    out
}

/// A recomputed value written like the published one (at the decimals its
/// text has, and at least those its kind requires), bounds as `low–high`.
pub fn display_recomputed(
    recomputed: &Value,
    published: &Value,
    field: &str,
    literals: Option<&BTreeMap<String, String>>,
    pointer: &str,
) -> String {
    match (recomputed, published) {
        (Value::Number(r), Value::Number(p)) => {
            let Some(r) = r.as_f64() else {
                return recomputed.to_string();
            };
            let written = literals
                .and_then(|l| l.get(pointer))
                .and_then(|t| literal_decimals(t))
                .map_or_else(
                    || decimals_of(p.as_f64().unwrap_or(0.0)) as u32,
                    |d| d.max(0) as u32,
                );
            let floor = match Precision::of(field) {
                Precision::Whole => 0,
                Precision::Decimals(d) | Precision::DecimalsOrShare(d, _) => d,
            };
            let decimals = written.max(floor) as usize;
            let text = if decimals == 0 && r.fract() == 0.0 {
                format!("{r}")
            } else {
                format!("{r:.decimals$}")
            };
            // A value that agrees, yet rounds to another last digit here
            // (it lies on the half-way mark): its further digits show why.
            let as_written = literals
                .and_then(|l| l.get(pointer))
                .cloned()
                .unwrap_or_else(|| p.to_string());
            if text != as_written && judge(&as_written, r, Precision::of(field)) == Verdict::Agrees
            {
                let more = format!("{r:.prec$}", prec = decimals + 3);
                let more = more.trim_end_matches('0');
                format!("{more} (rounds to {as_written})")
            } else {
                text
            }
        }
        (Value::Object(r), Value::Object(p)) => match (r.get("low"), r.get("high")) {
            (Some(low), Some(high)) => {
                let side = |v: &Value, key: &str| {
                    display_recomputed(
                        v,
                        p.get(key).unwrap_or(v),
                        key,
                        literals,
                        &format!("{pointer}/{key}"),
                    )
                };
                let (low, high) = (side(low, "low"), side(high, "high"));
                bound(low, high)
            }
            _ => recomputed.to_string(),
        },
        (Value::String(s), _) => s.clone(),
        _ => recomputed.to_string(),
    }
}

/// The decimals a recorded cost in USD is checked to, at least: a micro-dollar.
pub const COST_DECIMALS: usize = 6;

/// A recorded cost against the cost recomputed from the calls: equal to the
/// micro-dollar (or finer, as recorded) when every call's usage is known,
/// within the bound otherwise (`lost` names the calls whose usage was lost).
pub fn cost_receipt(
    subject: &str,
    claim: &str,
    published: f64,
    cost: &Result<Cost, String>,
    lost: &[String],
) -> Receipt {
    match cost {
        Ok(cost) if cost.is_exact() => Receipt::new(
            subject,
            claim,
            format!("{published}"),
            format!("{:.6}", cost.low),
            agrees_to(published, cost.low, COST_DECIMALS),
        ),
        Ok(cost) => Receipt::new(
            subject,
            claim,
            format!("{published}"),
            format!(
                "between {:.6} and {:.6} (usage lost: {})",
                cost.low,
                cost.high,
                lost.join(", ")
            ),
            (agrees_to(published, cost.low, COST_DECIMALS) || published >= cost.low)
                && (agrees_to(published, cost.high, COST_DECIMALS) || published <= cost.high),
        ),
        Err(e) => Receipt::unchecked(subject, claim, format!("{published}"), e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_on_the_half_way_mark_shows_why_it_agrees() {
        let shown = |published: &str, recomputed: f64| {
            let p: Value = serde_json::from_str(published).expect("number");
            let literals = BTreeMap::from([("/x".to_string(), published.to_string())]);
            display_recomputed(
                &serde_json::json!(recomputed),
                &p,
                "cost_per_task_usd",
                Some(&literals),
                "/x",
            )
        };
        // 0.0165225 is stored a hair under the half-way mark: formatted to
        // six decimals it reads 0.016522, yet it agrees with 0.016523.
        assert_eq!(format!("{:.6}", 0.0165225), "0.016522");
        assert_eq!(
            shown("0.016523", 0.0165225),
            "0.0165225 (rounds to 0.016523)"
        );
        // Agreeing in the last digit as written, or differing: as before.
        assert_eq!(shown("0.016523", 0.0165231), "0.016523");
        assert_eq!(shown("0.016523", 0.0165210), "0.016521");
    }

    #[test]
    fn agreement_is_at_the_published_precision() {
        assert!(agrees(94.4, 94.444));
        assert!(agrees(94.4, 94.35));
        assert!(!agrees(94.4, 94.46));
        assert!(agrees(0.0051, 0.00514));
        assert!(!agrees(0.0051, 0.00516));
        assert!(agrees(18.0, 18.0));
        assert!(!agrees(18.0, 17.0));
        assert!(!agrees(f64::NAN, 1.0));
        // A floor on the precision: whole numbers no longer pass for anything near.
        assert!(agrees(0.0, 0.4));
        assert!(!agrees_to(0.0, 0.4, 6));
        assert!(!agrees_to(1.0, 0.5, 2));
        assert!(agrees_to(0.67, 2.0 / 3.0, 2));
        assert!(agrees_to(0.006632, 0.0066324, 6));
        assert!(!agrees_to(0.0066, 0.0066324, 6));
    }

    #[test]
    fn the_text_is_the_precision_claimed() {
        let rate = Precision::of("pass_rate_pct");
        assert_eq!(judge("71.0", 71.04, rate), Verdict::Agrees);
        // Two decimals claim ±0.005, trailing zero or not.
        assert_eq!(judge("71.00", 71.04, rate), Verdict::Differs);
        // A whole number claims ±0.5, too coarse for a rate.
        assert!(matches!(judge("71", 71.04, rate), Verdict::Imprecise(_)));
        let cost = Precision::of("cost_per_task_usd");
        assert!(matches!(judge("0", 0.004, cost), Verdict::Imprecise(_)));
        assert!(matches!(judge("0.004", 0.004, cost), Verdict::Imprecise(_)));
        assert_eq!(judge("0.0040", 0.00404, cost), Verdict::Agrees);
        assert_eq!(judge("0.0040", 0.00406, cost), Verdict::Differs);
        // A large total may be written to the cent: its last digit is under 1%.
        assert_eq!(
            judge("12.35", 12.3461, Precision::of("total_cost_usd")),
            Verdict::Agrees
        );
        // Counts are whole numbers, equal.
        let runs = Precision::of("runs");
        assert_eq!(judge("18", 18.0, runs), Verdict::Agrees);
        assert!(matches!(judge("18.0", 18.0, runs), Verdict::Imprecise(_)));
        assert_eq!(judge("17", 18.0, runs), Verdict::Differs);
        assert!(matches!(judge("x", 1.0, runs), Verdict::Imprecise(_)));
        // An exponent claims what it writes: `1.6e2` is 160 ± 5, over 1% of
        // a throughput; `160` is 160 ± 0.5, under it.
        let tps = Precision::of("throughput_tps");
        assert!(matches!(judge("1.6e2", 159.8, tps), Verdict::Imprecise(_)));
        assert_eq!(judge("160", 159.8, tps), Verdict::Agrees);
        assert_eq!(judge("159.8e0", 159.8, tps), Verdict::Agrees);
    }

    #[test]
    fn bounds_agree_end_by_end() {
        let p = serde_json::json!({"low": 0.0040, "high": 0.0041});
        assert!(values_agree(
            &p,
            &serde_json::json!({"low": 0.00401, "high": 0.00409})
        ));
        assert!(!values_agree(
            &p,
            &serde_json::json!({"low": 0.0040, "high": 0.0047})
        ));
    }

    #[test]
    fn recomputed_values_are_shown_like_the_published_ones() {
        assert_eq!(
            display_like(&serde_json::json!(88.8889), &serde_json::json!(94.4)),
            "88.9"
        );
        assert_eq!(
            display_like(
                &serde_json::json!({"low": 0.0039971, "high": 0.0041123}),
                &serde_json::json!({"low": 0.003964, "high": 0.003964})
            ),
            "0.003997–0.004112"
        );
        assert_eq!(
            display(&serde_json::json!({"low": 0.5, "high": 0.5})),
            "0.5"
        );
        assert_eq!(
            display_like(&serde_json::json!(17), &serde_json::json!(18)),
            "17"
        );
    }
}
