//! OTLP/JSON attribute lists and `AnyValue`s, read as plain JSON.

use serde_json::{Map, Value};

use super::otlp::{error, list, OtlpError};

/// The `attributes` list of `v` as a JSON object, key by key.
pub fn attributes(v: &Value, at: &str) -> Result<Map<String, Value>, OtlpError> {
    let mut out = Map::new();
    for (i, kv) in list(v, "attributes", "attributes", at)?.iter().enumerate() {
        let at = format!("{at}/attributes/{i}");
        let Some(key) = kv.get("key").and_then(Value::as_str) else {
            return Err(error(format!("{at}/key"), "an attribute needs its key"));
        };
        out.insert(
            key.to_string(),
            any_value(
                kv.get("value").unwrap_or(&Value::Null),
                &format!("{at}/value"),
            )?,
        );
    }
    Ok(out)
}

/// An `AnyValue` as plain JSON: a string, an integer (written as a
/// string or a number), a double, a boolean, an array, a key-value list
/// (an object) or bytes (their base64 text); an empty value is `null`.
pub fn any_value(v: &Value, at: &str) -> Result<Value, OtlpError> {
    let Some(obj) = v.as_object() else {
        return match v {
            Value::Null => Ok(Value::Null),
            _ => Err(error(at, "expected an AnyValue object")),
        };
    };
    let Some((kind, inner)) = obj.iter().next() else {
        return Ok(Value::Null);
    };
    if obj.len() > 1 {
        return Err(error(at, "an AnyValue holds one value"));
    }
    let bad = |what: &str| error(format!("{at}/{kind}"), format!("expected {what}"));
    Ok(match kind.as_str() {
        "stringValue" | "string_value" | "bytesValue" | "bytes_value" => {
            Value::String(inner.as_str().ok_or_else(|| bad("a string"))?.to_string())
        }
        "boolValue" | "bool_value" => Value::Bool(inner.as_bool().ok_or_else(|| bad("a boolean"))?),
        "intValue" | "int_value" => match inner {
            Value::String(s) => Value::from(s.parse::<i64>().map_err(|_| bad("an integer"))?),
            Value::Number(n) if n.is_i64() || n.is_u64() => inner.clone(),
            _ => return Err(bad("an integer")),
        },
        "doubleValue" | "double_value" => match inner {
            Value::Number(_) => inner.clone(),
            // NaN and the infinities, which JSON numbers cannot hold.
            Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
                inner.clone()
            }
            _ => return Err(bad("a number")),
        },
        "arrayValue" | "array_value" => {
            let values = inner.get("values").unwrap_or(&Value::Null);
            let items: &[Value] = match values {
                Value::Null => &[],
                Value::Array(items) => items,
                _ => return Err(bad("an array of values")),
            };
            Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| any_value(item, &format!("{at}/{kind}/values/{i}")))
                    .collect::<Result<_, _>>()?,
            )
        }
        "kvlistValue" | "kvlist_value" => {
            Value::Object(attributes_of_kvlist(inner, &format!("{at}/{kind}"))?)
        }
        other => return Err(error(at, format!("`{other}` is not a kind of AnyValue"))),
    })
}

fn attributes_of_kvlist(v: &Value, at: &str) -> Result<Map<String, Value>, OtlpError> {
    let renamed =
        serde_json::json!({ "attributes": v.get("values").cloned().unwrap_or(Value::Null) });
    attributes(&renamed, at).map_err(|e| OtlpError {
        at: e
            .at
            .replace(&format!("{at}/attributes"), &format!("{at}/values")),
        message: e.message,
    })
}
