//! What every imported record shares: the `source` block naming the
//! original it was derived from, and the receipt that re-derives it.

use serde::Serialize;
use serde_json::Value;

use crate::verify::Receipt;

pub use crate::model::Source;

/// The receipt that `record` is exactly what the original gives
/// (`derived`, from `original`, "the log"): the first field that differs
/// fails it, with both values.
pub fn derived_receipt<T: Serialize>(
    subject: &str,
    claim: &str,
    original: &str,
    record: &T,
    derived: &T,
) -> Receipt {
    let (a, b) = (
        serde_json::to_value(record).expect("a record serializes"),
        serde_json::to_value(derived).expect("a record serializes"),
    );
    match first_difference(&a, &b, "") {
        None => Receipt::new(subject, claim, "the record", "the same record", true),
        Some(at) => Receipt::new(
            subject,
            claim,
            format!("{at}: {}", pointer(&a, &at)),
            format!("{original} gives {}", pointer(&b, &at)),
            false,
        ),
    }
}

/// The first place two JSON values differ, as a path.
pub fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &format!("{at}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]"))),
        _ => (a != b).then(|| at.trim_start_matches('.').to_string()),
    }
}

/// The value at a dotted path of [`first_difference`], as JSON text cut
/// to 80 characters.
pub fn pointer(v: &Value, path: &str) -> String {
    let mut cur = v;
    for part in path.split('.') {
        let (key, indexes) = part.split_once('[').map_or((part, ""), |(k, i)| (k, i));
        if !key.is_empty() {
            cur = &cur[key];
        }
        for i in indexes.split('[').filter(|s| !s.is_empty()) {
            let i: usize = i.trim_end_matches(']').parse().unwrap_or(usize::MAX);
            cur = &cur[i];
        }
    }
    short(&cur.to_string())
}

/// `text` cut to 80 characters, with an ellipsis when cut.
pub fn short(text: &str) -> String {
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text.to_string()
    }
}
