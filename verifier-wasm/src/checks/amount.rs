//! European-format amounts ("1.234,56") to integer cents.

/// Converts a European-format amount to integer cents, or `None` when it is
/// malformed. Accepted: an optional leading `-`; an integer part written
/// either as plain digits or as 1–3 digits followed by `.`-separated groups
/// of exactly three; optionally `,` and one or two decimal digits
/// (`"1.234,5"` is 123450 cents). Surrounding spaces are ignored. Anything
/// else, including US-style `"1,234.56"`, three decimals and overflow, is
/// malformed: it is never guessed.
pub fn parse_euro_cents(text: &str) -> Option<i64> {
    let s = text.trim_matches(' ');
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int_part, frac_part) = match s.split_once(',') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    let digits = integer_digits(int_part)?;
    let mut cents: i64 = 0;
    for d in digits.bytes() {
        cents = cents.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    cents = cents.checked_mul(100)?;
    if let Some(f) = frac_part {
        let frac = match f.as_bytes() {
            [a] if a.is_ascii_digit() => i64::from(a - b'0') * 10,
            [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
                i64::from(a - b'0') * 10 + i64::from(b - b'0')
            }
            _ => return None,
        };
        cents = cents.checked_add(frac)?;
    }
    Some(if negative { -cents } else { cents })
}

/// The digits of an integer part, validating thousands separators.
fn integer_digits(s: &str) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let groups: Vec<&str> = s.split('.').collect();
    let all_digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if groups.len() == 1 {
        return all_digits(s).then(|| s.to_string());
    }
    let (first, rest) = groups.split_first()?;
    if !all_digits(first) || first.len() > 3 || rest.iter().any(|g| g.len() != 3 || !all_digits(g))
    {
        return None;
    }
    Some(groups.concat())
}

#[cfg(test)]
mod tests {
    use super::parse_euro_cents as p;

    #[test]
    fn converts_valid_amounts() {
        assert_eq!(p("1.234,56"), Some(123_456));
        assert_eq!(p("1.234,5"), Some(123_450));
        assert_eq!(p("12"), Some(1_200));
        assert_eq!(p("0,07"), Some(7));
        assert_eq!(p("-45,00"), Some(-4_500));
        assert_eq!(p("1234,56"), Some(123_456));
        assert_eq!(p("1.000.000"), Some(100_000_000));
        assert_eq!(p(" 3,10 "), Some(310));
    }

    #[test]
    fn marks_malformed_amounts() {
        for s in [
            "",
            "-",
            "abc",
            "1,234.56",
            "12,345",
            "1.23",
            "1.2345",
            ",5",
            "1,",
            "+5",
            "1 234,56",
            "12.34,5",
            "--1",
            "1,5a",
            "99999999999999999999",
        ] {
            assert_eq!(p(s), None, "{s:?} must be malformed");
        }
    }
}
