//! Python's text and number handling as Inspect AI's scorers use it, so a
//! score recomputed here is the score Inspect computed: `str.strip`,
//! `str.casefold`, `string.punctuation`, `float()`, `repr(float)` and
//! `format(x, ".5g")`.
//!
//! `casefold` and `float()`'s reading of Unicode digits follow the tables
//! `python_tables.rs` keeps, generated from Python's own `unicodedata`;
//! a test holds the fold to Python's over every code point.

use super::python_tables::{CASEFOLD, DECIMAL_ZEROS, UNASSIGNED};

/// Python's `str.isspace`: Unicode white space plus the ASCII separators
/// `\x1c`–`\x1f`.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python's `str.split()`: runs of white space separate words.
pub fn split_words(s: &str) -> Vec<&str> {
    s.split(is_py_space).filter(|w| !w.is_empty()).collect()
}

/// Python's `str.casefold()`: full case folding, character by character.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match CASEFOLD.binary_search_by_key(&c, |&(k, _)| k) {
            Ok(i) => out.push_str(CASEFOLD[i].1),
            Err(_) => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Whether the tables' Unicode version leaves `c` unassigned: a newer
/// Python may fold it or read it as a digit, so text holding it is not
/// read as Inspect read it with certainty.
pub fn unassigned(c: char) -> bool {
    let c = c as u32;
    let i = UNASSIGNED.partition_point(|&(_, end)| end < c);
    UNASSIGNED.get(i).is_some_and(|&(start, _)| start <= c)
}

/// The ASCII digit a Unicode decimal digit stands for, as `float()` reads it.
fn decimal_digit(c: char) -> Option<char> {
    let zero = match DECIMAL_ZEROS.binary_search(&c) {
        Ok(i) => DECIMAL_ZEROS[i],
        Err(0) => return None,
        Err(i) => DECIMAL_ZEROS[i - 1],
    };
    let d = c as u32 - zero as u32;
    (d < 10).then(|| char::from(b'0' + d as u8))
}

/// `string.whitespace`.
fn is_ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// `s.strip(string.whitespace + string.punctuation)`.
pub fn strip_punctuation(s: &str) -> &str {
    s.trim_matches(|c: char| is_ascii_space(c) || c.is_ascii_punctuation())
}

/// Python's `float(s)` where the result is finite.
pub fn parse_float(s: &str) -> Option<f64> {
    let t = strip(s);
    if t.is_empty() {
        return None;
    }
    // Underscores are allowed only between digits.
    let chars: Vec<char> = t.chars().collect();
    let mut plain = String::with_capacity(t.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            let between = i > 0
                && i + 1 < chars.len()
                && (chars[i - 1].is_ascii_digit() || decimal_digit(chars[i - 1]).is_some())
                && (chars[i + 1].is_ascii_digit() || decimal_digit(chars[i + 1]).is_some());
            if !between {
                return None;
            }
        } else if c.is_ascii() {
            plain.push(c);
        } else if let Some(d) = decimal_digit(c) {
            plain.push(d);
        } else {
            return None;
        }
    }
    let lower = plain.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        return None;
    }
    // Rust accepts what Python accepts here, and nothing Python refuses:
    // digits with an optional point and exponent.
    let ok = body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'));
    if !ok || lower.matches(['+', '-']).count() > 2 {
        return None;
    }
    lower.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The shortest digits that read back as `x`, with the decimal exponent
/// of the first: `1234.5` gives `("12345", 3)`.
fn shortest(x: f64) -> (String, i32) {
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    (mantissa.replace('.', ""), exp.parse().expect("exponent"))
}

/// Python's `repr(x)` of a finite float: `4.0`, `0.5`, `1e+16`, `1e-05`.
pub fn float_repr(x: f64) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    let (digits, exp) = shortest(x);
    let body = if (-4..16).contains(&exp) {
        fixed(&digits, exp, true)
    } else {
        scientific(&digits, exp)
    };
    format!("{sign}{body}")
}

/// Digits placed around the point for exponent `exp`; `point_zero` writes
/// `4.0` rather than `4`.
fn fixed(digits: &str, exp: i32, point_zero: bool) -> String {
    let n = digits.len() as i32;
    if exp < 0 {
        format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else if exp + 1 >= n {
        let whole = format!("{digits}{}", "0".repeat((exp + 1 - n) as usize));
        if point_zero {
            format!("{whole}.0")
        } else {
            whole
        }
    } else {
        let (a, b) = digits.split_at((exp + 1) as usize);
        format!("{a}.{b}")
    }
}

fn scientific(digits: &str, exp: i32) -> String {
    let (first, rest) = digits.split_at(1);
    let mantissa = if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}.{rest}")
    };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// Python's `format(x, ".5g")`: five significant digits, trailing zeros
/// dropped, scientific when the exponent is under -4 or at least 5.
pub fn format_g5(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let sci = format!("{:.4e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent");
    let digits = mantissa.replace('.', "");
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let body = if !(-4..5).contains(&exp) {
        scientific(digits, exp)
    } else {
        fixed(digits, exp, false)
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_prints_them() {
        for (x, repr) in [
            (4.0, "4.0"),
            (0.5, "0.5"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (123.456, "123.456"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
            (1.5e300, "1.5e+300"),
        ] {
            assert_eq!(float_repr(x), repr, "{x}");
        }
        for (x, g) in [
            (10.0, "10"),
            (123456.0, "1.2346e+05"),
            (0.5, "0.5"),
            (1.23456789, "1.2346"),
            (0.00001234, "1.234e-05"),
            (99999.0, "99999"),
            (-7.0, "-7"),
        ] {
            assert_eq!(format_g5(x), g, "{x}");
        }
    }

    #[test]
    fn numbers_parse_as_python_float_does() {
        assert_eq!(parse_float(" 5 "), Some(5.0));
        assert_eq!(parse_float("1_000"), Some(1000.0));
        assert_eq!(parse_float("1__0"), None);
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("nan"), None);
        assert_eq!(parse_float("inf"), None);
        assert_eq!(parse_float("4,0"), None);
        assert_eq!(parse_float("abc"), None);
        // Decimal digits of any script, as Python's `float()` reads them.
        assert_eq!(parse_float("\u{663}.\u{665}"), Some(3.5));
        assert_eq!(parse_float("\u{ff11}\u{ff12}"), Some(12.0));
        assert_eq!(parse_float("\u{661}_\u{662}"), Some(12.0));
        assert_eq!(parse_float("\u{a0}12\u{2003}"), Some(12.0));
        // Digits are read; other characters that look like ASCII are not.
        assert_eq!(parse_float("\u{ff11}\u{ff0e}\u{ff15}"), None);
        assert_eq!(parse_float("\u{b2}"), None);
    }

    /// Every character Python's `str.casefold()` changes, folded as it
    /// folds it, and no other character changed: over every code point.
    #[test]
    fn casefold_is_pythons_over_every_code_point() {
        let table = include_str!("../../../tests/fixtures/inspect/casefold.tsv");
        let mut python = std::collections::BTreeMap::new();
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let (c, folded) = line.split_once('\t').expect("two columns");
            let char_of = |hex: &str| {
                char::from_u32(u32::from_str_radix(hex, 16).expect("hex")).expect("a char")
            };
            let folded: String = folded.split(' ').map(char_of).collect();
            python.insert(char_of(c), folded);
        }
        assert!(python.len() > 1000, "the whole table");
        let differ: Vec<String> = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter_map(|c| {
                let ours = casefold(&c.to_string());
                let theirs = python.get(&c).cloned().unwrap_or_else(|| c.to_string());
                // A letter newer than the tables' Unicode is one a newer
                // Python may fold; scorers leave text holding it unchecked.
                (ours != theirs && !unassigned(c))
                    .then(|| format!("U+{:04X}: {ours:?}, Python {theirs:?}", c as u32))
            })
            .collect();
        assert!(differ.is_empty(), "{} differ: {differ:#?}", differ.len());
    }

    #[test]
    fn strip_and_fold_follow_python() {
        assert_eq!(strip_punctuation("  (Paris!) "), "Paris");
        assert_eq!(casefold("Straße"), "strasse");
        assert_eq!(casefold("\u{fb01}le"), "file");
        assert_eq!(casefold("\u{17f}"), "s");
        assert!(unassigned('\u{a7cb}') && unassigned('\u{378}'));
        assert!(!unassigned('a') && !unassigned('\u{10ffff}') && !unassigned('\u{a7c0}'));
        assert_eq!(split_words(" a  b\tc "), vec!["a", "b", "c"]);
    }
}
