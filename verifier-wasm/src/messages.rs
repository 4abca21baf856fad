//! Messages for people who write JSON, not Rust: what a parser expected,
//! in the words of JSON rather than of the types it reads into.

/// A serde message in the words of JSON, not of the Rust types it was
/// read into: `expected struct Usage` is "expected an object", `expected
/// u64` "expected a whole number, 0 or more".
pub fn plain(message: &str) -> String {
    let Some(at) = message.find("expected ") else {
        return message.to_string();
    };
    let (head, expected) = message.split_at(at + "expected ".len());
    let word_end = |s: &str| s.find([',', ';', ' ']).unwrap_or(s.len());
    let replaced = if let Some(rest) = expected.strip_prefix("struct ") {
        Some(("an object", &rest[word_end(rest)..]))
    } else if let Some(rest) = expected.strip_prefix("enum ") {
        Some((
            "one of the names the format defines",
            &rest[word_end(rest)..],
        ))
    } else {
        [
            ("a sequence", "a list"),
            ("a map", "an object"),
            ("u64", "a whole number, 0 or more"),
            ("u32", "a whole number, 0 or more"),
            ("u16", "a whole number, 0 or more"),
            ("u8", "a whole number, 0 or more"),
            ("usize", "a whole number, 0 or more"),
            ("i64", "a whole number"),
            ("i32", "a whole number"),
            ("f64", "a number"),
            ("f32", "a number"),
        ]
        .into_iter()
        .find(|(rust, _)| {
            expected.starts_with(rust)
                && !expected[rust.len()..].starts_with(|c: char| c.is_alphanumeric())
        })
        .map(|(rust, json)| (json, &expected[rust.len()..]))
    };
    match replaced {
        Some((json, rest)) => format!("{head}{json}{rest}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn messages_name_json_kinds_not_rust_types() {
        assert_eq!(
            plain("invalid type: string \"x\", expected struct ArtifactSpec"),
            "invalid type: string \"x\", expected an object"
        );
        assert_eq!(
            plain("invalid value: integer `-3`, expected u64"),
            "invalid value: integer `-3`, expected a whole number, 0 or more"
        );
        assert_eq!(
            plain("invalid type: map, expected a sequence"),
            "invalid type: map, expected a list"
        );
        assert_eq!(
            plain("unknown variant `x`, expected one of `a`, `b`"),
            "unknown variant `x`, expected one of `a`, `b`"
        );
        assert_eq!(plain("expected u64x"), "expected u64x");
    }
}
