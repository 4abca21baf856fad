//! Inspect AI's epoch reducers and metrics, recomputed: a sample's scores
//! over its epochs reduce to one value per reducer (`mean`, `median`,
//! `mode`, `max`, `at_least_k`, `pass_at_k`, `pass_k`), and a scorer's
//! metrics (`accuracy`, `mean`, `stderr`) are computed over the reduced
//! values, with Inspect's arithmetic (numpy's pairwise sums included), so
//! the figures agree with the log to the last bit.

use serde_json::{json, Value};

use super::text::parse_float;

/// `value_to_float`: `C` 1, `P` 0.5, `I` and `N` 0, numbers as they are,
/// `yes`/`true` 1, `no`/`false` 0, numeric text as its number; anything
/// else 0. `None` for a value Inspect treats as unscored (NaN, written
/// `NaN` or `null`).
pub fn to_float(v: &Value) -> Option<f64> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => Some(match s.as_str() {
            "C" => 1.0,
            "P" => 0.5,
            "I" | "N" => 0.0,
            _ => match s.to_lowercase().as_str() {
                "yes" | "true" => 1.0,
                "no" | "false" => 0.0,
                other => parse_float(other).unwrap_or(0.0),
            },
        }),
        _ => Some(0.0),
    }
}

/// numpy's pairwise float64 sum (`np.add.reduce` on a contiguous array).
pub fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |s, x| s + x);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - n % 8 {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &a[i..] {
            res += x;
        }
        return res;
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
}

/// A reducer Inspect names in its log: `mean`, `at_least_2`, …
#[derive(Debug, Clone, PartialEq)]
pub enum Reducer {
    /// `mean`: the mean of the scored epochs' values as numbers.
    Mean,
    /// `median`: the median of the scored epochs' values as numbers.
    Median,
    /// `mode`: the scored value most epochs share, the earliest on a tie.
    Mode,
    /// `max`: the scored value highest as a number, the earliest on a tie.
    Max,
    /// `at_least_k`: 1 when at least k epochs scored 1 or more, else 0.
    AtLeast(u64),
    /// `pass_at_k`: the chance that k epochs drawn from the scored ones include
    /// one scoring 1 or more; `null` with fewer than k.
    PassAt(u64),
    /// `pass_k`: the chance that all k epochs drawn from the scored ones score
    /// 1 or more; `null` with fewer than k.
    PassK(u64),
}

impl Reducer {
    /// Reads a reducer's log name; `None` for one the verifier does not recompute.
    pub fn parse(name: &str) -> Option<Reducer> {
        Some(match name {
            "mean" => Reducer::Mean,
            "median" => Reducer::Median,
            "mode" => Reducer::Mode,
            "max" => Reducer::Max,
            _ => {
                let (base, k) = name.rsplit_once('_')?;
                let k: u64 = k.parse().ok().filter(|k| *k > 0)?;
                match base {
                    "at_least" => Reducer::AtLeast(k),
                    "pass_at" => Reducer::PassAt(k),
                    "pass_k" => Reducer::PassK(k),
                    _ => return None,
                }
            }
        })
    }

    /// Reduces one sample's values over its epochs, in epoch order, where
    /// they are lists or dictionaries too: a list index by index and a
    /// dictionary key by key, as Inspect's `mean` and `median` reduce them.
    /// `None` where the epochs' values differ in shape, or the reducer is
    /// another, which the verifier does not reduce.
    pub fn reduce_any(&self, values: &[Value]) -> Option<Value> {
        let each = |pick: &dyn Fn(&Value) -> Option<Value>| -> Option<Value> {
            let picked: Vec<Value> = values.iter().map(pick).collect::<Option<_>>()?;
            Some(self.reduce(&picked))
        };
        let structured = matches!(self, Reducer::Mean | Reducer::Median);
        match values.first() {
            Some(Value::Array(first)) if structured => {
                if values
                    .iter()
                    .any(|v| v.as_array().map(Vec::len) != Some(first.len()))
                {
                    return None;
                }
                (0..first.len())
                    .map(|i| each(&|v: &Value| v.get(i).cloned()))
                    .collect::<Option<Vec<_>>>()
                    .map(Value::Array)
            }
            Some(Value::Object(first)) if structured => {
                let keys: Vec<&String> = first.keys().collect();
                if values.iter().any(|v| {
                    v.as_object().map(|o| o.keys().collect::<Vec<_>>()) != Some(keys.clone())
                }) {
                    return None;
                }
                keys.iter()
                    .map(|k| Some(((*k).clone(), each(&|v: &Value| v.get(k.as_str()).cloned())?)))
                    .collect::<Option<serde_json::Map<_, _>>>()
                    .map(Value::Object)
            }
            _ if values.iter().any(|v| v.is_array() || v.is_object()) => None,
            _ => Some(self.reduce(values)),
        }
    }

    /// Reduces one sample's values over its epochs, in epoch order.
    pub fn reduce(&self, values: &[Value]) -> Value {
        let scored: Vec<&Value> = values.iter().filter(|v| to_float(v).is_some()).collect();
        if scored.is_empty() {
            return Value::Null;
        }
        let floats: Vec<f64> = scored.iter().filter_map(|v| to_float(v)).collect();
        let n = floats.len() as u64;
        let passing = |threshold: f64| floats.iter().filter(|&&v| v >= threshold).count() as u64;
        match self {
            Reducer::Mean => json!(exact_mean(&floats)),
            Reducer::Median => {
                let mut sorted = floats.clone();
                sorted.sort_by(f64::total_cmp);
                let m = sorted.len() / 2;
                json!(if sorted.len() % 2 == 1 {
                    sorted[m]
                } else {
                    (sorted[m - 1] + sorted[m]) / 2.0
                })
            }
            Reducer::Mode => {
                let mut best: Option<(&Value, usize)> = None;
                for v in &scored {
                    let count = scored.iter().filter(|w| **w == *v).count();
                    if best.is_none_or(|(_, c)| count > c) {
                        best = Some((v, count));
                    }
                }
                best.map_or(Value::Null, |(v, _)| (*v).clone())
            }
            Reducer::Max => {
                let mut best: Option<(&Value, f64)> = None;
                for (v, f) in scored.iter().zip(&floats) {
                    if best.is_none_or(|(_, b)| *f > b) {
                        best = Some((v, *f));
                    }
                }
                best.map_or(Value::Null, |(v, _)| v.clone())
            }
            Reducer::AtLeast(k) => json!(u8::from(passing(1.0) >= *k)),
            Reducer::PassAt(k) => {
                let c = passing(1.0);
                if n < *k {
                    Value::Null
                } else if n - c < *k {
                    json!(1.0)
                } else {
                    let product =
                        (n - c + 1..=n).fold(1.0, |p, i| p * (1.0 - *k as f64 / i as f64));
                    json!(1.0 - product)
                }
            }
            Reducer::PassK(k) => {
                if n < *k {
                    Value::Null
                } else {
                    json!(comb(passing(1.0), *k) / comb(n, *k))
                }
            }
        }
    }
}

/// `statistics.mean`: the exact mean, rounded once. Exact for the sums of
/// up to 2^20 values with at most 30 significant bits each; otherwise the
/// pairwise sum, which may differ in the last bit.
fn exact_mean(values: &[f64]) -> f64 {
    let scale = (1u64 << 30) as f64;
    let exact = values
        .iter()
        .all(|v| (v * scale).fract() == 0.0 && (v * scale).abs() < 2f64.powi(53));
    if exact && values.len() < (1 << 20) {
        let sum: i128 = values.iter().map(|v| (v * scale) as i128).sum();
        (sum as f64 / scale) / values.len() as f64
    } else {
        pairwise_sum(values) / values.len() as f64
    }
}

fn comb(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * u128::from(n - i) / u128::from(i + 1);
    }
    c as f64
}

/// A metric the verifier recomputes over a scorer's reduced values.
pub fn metric(name: &str, values: &[f64]) -> Option<f64> {
    let n = values.len();
    Some(match name.rsplit('/').next().unwrap_or(name) {
        "accuracy" => {
            if n == 0 {
                0.0
            } else {
                values.iter().fold(0.0, |s, v| s + v) / n as f64
            }
        }
        "mean" => {
            if n == 0 {
                0.0
            } else {
                pairwise_sum(values) / n as f64
            }
        }
        "stderr" => {
            if n < 2 {
                0.0
            } else {
                let m = pairwise_sum(values) / n as f64;
                let squares: Vec<f64> = values.iter().map(|x| (x - m) * (x - m)).collect();
                (pairwise_sum(&squares) / (n - 1) as f64).sqrt() / (n as f64).sqrt()
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reducers_follow_inspect() {
        let v = [json!("I"), json!("C")];
        assert_eq!(
            Reducer::parse("mode").expect("mode").reduce(&v),
            json!("I"),
            "ties go to the first"
        );
        assert_eq!(
            Reducer::parse("at_least_1").expect("at least").reduce(&v),
            json!(1)
        );
        assert_eq!(Reducer::parse("mean").expect("mean").reduce(&v), json!(0.5));
        assert_eq!(Reducer::parse("max").expect("max").reduce(&v), json!("C"));
        assert_eq!(
            Reducer::parse("pass_k_2").expect("pass k").reduce(&v),
            json!(0.0)
        );
        assert_eq!(
            Reducer::parse("pass_at_1").expect("pass at").reduce(&v),
            json!(0.5)
        );
        assert_eq!(
            Reducer::parse("mean")
                .expect("mean")
                .reduce(&[Value::Null, json!(1.0)]),
            json!(1.0)
        );
        assert_eq!(
            Reducer::parse("mean").expect("mean").reduce(&[Value::Null]),
            Value::Null
        );
        assert!(Reducer::parse("custom_thing").is_none());
    }

    #[test]
    fn stderr_is_the_sample_deviation_over_root_n() {
        let v = [1.0, 0.0, 1.0, 0.5];
        let s = metric("stderr", &v).expect("stderr");
        assert!((s - 0.23935677693908453).abs() < 1e-15, "{s}");
        assert_eq!(metric("accuracy", &v), Some(0.625));
        assert_eq!(metric("stderr", &[1.0]), Some(0.0));
        assert_eq!(metric("f1_macro", &v), None);
    }
}
