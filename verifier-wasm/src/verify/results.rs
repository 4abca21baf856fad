//! Receipts of a published results table (`results.csv`): one per row,
//! every column against the run it names, numbers judged by their text; and
//! one per run the table leaves out.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::{ResultRow, RESULT_COLUMNS as COLUMNS};
use crate::numbers::{result_row, JudgedRun};
use crate::results_table::ResultsTable;

use super::published::{judge, Precision, Verdict};
use super::Receipt;

pub fn results_receipts(dir: &str, table: &ResultsTable, judged: &[JudgedRun<'_>]) -> Vec<Receipt> {
    let subject = format!("{dir}/results.csv");
    let by_id: BTreeMap<&str, &JudgedRun<'_>> =
        crate::btree::map(judged.iter().map(|j| (j.run.place.id.as_str(), j)));
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, row) in table.rows.iter().enumerate() {
        let written = |column: &str| table.written(i, column);
        // Line 1 is the header.
        let claim = format!("line {} (run {})", i + 2, row.run);
        if !seen.insert(row.run.as_str()) {
            out.push(Receipt::new(
                &subject,
                claim,
                "a row",
                "an earlier row names the same run",
                false,
            ));
            continue;
        }
        let Some(j) = by_id.get(row.run.as_str()) else {
            out.push(Receipt::new(
                &subject,
                claim,
                "a row",
                "no run has this id",
                false,
            ));
            continue;
        };
        let Ok(expected) = result_row(j.run, j.passed()) else {
            out.push(Receipt::unchecked(
                &subject,
                claim,
                "a row",
                "a model of the run has no price",
            ));
            continue;
        };
        let (published, recomputed) = (row_values(row), row_values(&expected));
        let mut differing = Vec::new();
        let mut imprecise = Vec::new();
        for (column, value) in &published {
            let Some(other) = recomputed.get(column) else {
                continue;
            };
            let verdict = match (value, other) {
                (Value::Number(p), Value::Number(r)) => {
                    let text = written(column).map_or_else(|| p.to_string(), str::to_string);
                    judge(&text, r.as_f64().unwrap_or(f64::NAN), Precision::of(column))
                }
                _ if value == other => Verdict::Agrees,
                _ => Verdict::Differs,
            };
            match verdict {
                Verdict::Agrees => {}
                Verdict::Differs => differing.push(*column),
                Verdict::Imprecise(why) => {
                    differing.push(*column);
                    imprecise.push(format!("{column}: {why}"));
                }
            }
        }
        if differing.is_empty() {
            out.push(Receipt::new(
                &subject,
                claim,
                "every column",
                "agrees",
                true,
            ));
            continue;
        }
        let show = |values: &BTreeMap<&str, Value>, as_written: bool| {
            differing
                .iter()
                .map(|k| {
                    let text = match written(k) {
                        Some(t) if as_written => t.to_string(),
                        w => like(&values[k], w, k),
                    };
                    format!("{k}={text}")
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut recomputed_text = show(&recomputed, false);
        if !imprecise.is_empty() {
            recomputed_text = format!("{recomputed_text} ({})", imprecise.join("; "));
        }
        out.push(Receipt::new(
            &subject,
            claim,
            show(&published, true),
            recomputed_text,
            false,
        ));
    }
    for j in judged {
        if !seen.contains(j.run.place.id.as_str()) {
            out.push(Receipt::new(
                &subject,
                format!("run {}", j.run.place.id),
                "no row",
                "a run on record",
                false,
            ));
        }
    }
    out
}

/// A recomputed value written at the decimals of `written`, and at least
/// those its column requires, when it is a number.
fn like(value: &Value, written: Option<&str>, column: &str) -> String {
    let floor = match Precision::of(column) {
        Precision::Whole => 0,
        Precision::Decimals(d) | Precision::DecimalsOrShare(d, _) => d,
    };
    let decimals = written
        .and_then(crate::literals::decimals)
        .map_or(0, |d| d.max(0) as u32)
        .max(floor) as usize;
    match value {
        Value::Number(n) if decimals > 0 => {
            format!("{:.decimals$}", n.as_f64().unwrap_or(f64::NAN))
        }
        Value::String(s) => s.clone(),
        _ => value.to_string(),
    }
}

fn row_values(row: &ResultRow) -> BTreeMap<&'static str, Value> {
    let Value::Object(map) = serde_json::to_value(row).unwrap_or(Value::Null) else {
        return BTreeMap::new();
    };
    crate::btree::map(
        COLUMNS
            .iter()
            .filter_map(|c| map.get(*c).map(|v| (*c, v.clone()))),
    )
}
