//! Published numbers as addressable fields, and when a published number
//! agrees with its recomputation.
//!
//! A summary's numbers are named by paths such as
//! `primary.policies[ladder].pass_rate_pct`, `primary.tiers[small].total_cost_usd`,
//! `secondary[reruns-replace].policies[ladder].runs` and `hypotheses[H1].outcome`.
//! Corrections name the number they amend by the same path.

use serde_json::Value;

use crate::cost::Cost;
use crate::model::{Analysis, Summary};

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
                if low == high {
                    low
                } else {
                    format!("{low}–{high}")
                }
            }
            _ => recomputed.to_string(),
        },
        (Value::String(s), _) => s.clone(),
        _ => recomputed.to_string(),
    }
}

/// A published value as written, bounds as `low–high`.
pub fn display(value: &Value) -> String {
    display_like(value, value)
}

/// One published number.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedField {
    pub path: String,
    pub value: Value,
}

/// Every number of an analysis, by path under `prefix` (e.g. `primary`).
pub fn analysis_fields(prefix: &str, analysis: &Analysis) -> Vec<PublishedField> {
    let mut out = Vec::new();
    let value = serde_json::to_value(analysis).unwrap_or(Value::Null);
    for (list, key) in [("policies", "policy"), ("tiers", "tier")] {
        let Some(entries) = value.get(list).and_then(Value::as_array) else {
            continue;
        };
        for entry in entries {
            let Some(obj) = entry.as_object() else {
                continue;
            };
            let name = obj.get(key).and_then(Value::as_str).unwrap_or_default();
            for (field, v) in obj {
                if field != key {
                    out.push(PublishedField {
                        path: format!("{prefix}.{list}[{name}].{field}"),
                        value: v.clone(),
                    });
                }
            }
        }
    }
    out
}

/// Every number and outcome a summary publishes, by path, as first published.
pub fn published_fields(summary: &Summary) -> Vec<PublishedField> {
    let mut out = analysis_fields("primary", &summary.primary);
    for s in &summary.secondary {
        out.extend(analysis_fields(&format!("secondary[{}]", s.id), &s.numbers));
    }
    for h in &summary.hypotheses {
        out.push(PublishedField {
            path: format!("hypotheses[{}].outcome", h.id),
            value: serde_json::to_value(h.outcome).unwrap_or(Value::Null),
        });
    }
    out
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
