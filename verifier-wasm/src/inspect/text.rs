//! Python's text and number handling as Inspect AI's scorers use it, so a
//! score recomputed here is the score Inspect computed: `str.strip`,
//! `str.casefold`, `string.punctuation`, `float()`, `repr(float)` and
//! `format(x, ".5g")`.
//!
//! Known difference: `casefold` covers the lowercase mapping and the
//! common full foldings (ß, ﬁ-style ligatures are not folded); a text that
//! differs only there is reported as a mismatch, never as a pass.

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

/// Python's `str.casefold()`, for the foldings listed in the module notes.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            _ => out.extend(c.to_lowercase()),
        }
    }
    out
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
                && chars[i - 1].is_ascii_digit()
                && chars[i + 1].is_ascii_digit();
            if !between {
                return None;
            }
        } else if c.is_ascii() {
            plain.push(c);
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
    }

    #[test]
    fn strip_and_fold_follow_python() {
        assert_eq!(strip_punctuation("  (Paris!) "), "Paris");
        assert_eq!(casefold("Straße"), "strasse");
        assert_eq!(split_words(" a  b\tc "), vec!["a", "b", "c"]);
    }
}
