//! `match(numeric=True)` as Inspect AI read numbers before 0.3.221, on
//! ASCII text (beyond it, `str.isnumeric` and the superscript and fraction
//! readings of those versions are not recomputed).
//!
//! Those versions compared numbers as text after normalizing them: the
//! first (or, at the end, the last) word that is digits and points, written
//! with five significant digits, is tested with `startswith`, `endswith`,
//! `==` or `in` against the normalized target, so `25` ends with `5`. Where
//! no word is a number the first word stands in. From 0.3.50 a target that
//! is not all digits is compared as text instead; from 0.3.48 words are
//! split at any white space, not only at spaces; from 0.3.123 a number with
//! several points is read to its second; from 0.3.126 `*` and `_` are
//! dropped with the currency signs and commas.

use super::eras::Era;
use super::text::{format_g5, strip, strip_punctuation};

/// `match_str` of a version before 0.3.221 with `numeric=True`; `value`
/// and `target` as given, `fold` whether to compare ignoring case. `Err`
/// where the version raised (the sample would have errored) or read text
/// beyond ASCII.
pub(super) fn match_str(
    value: &str,
    target: &str,
    location: &str,
    fold: bool,
    era: Era,
) -> Result<(String, bool), String> {
    if !value.is_ascii() || !target.is_ascii() {
        return Err("text beyond ASCII, whose numbers this version read by Python's `str.isnumeric` and tables the verifier does not recompute".into());
    }
    let mut v = strip(value).to_string();
    let mut t = strip(target).to_string();
    let answer = v.clone();
    if fold {
        v = v.to_lowercase();
        t = t.to_lowercase();
    }
    let all_digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if era.since(50) && !all_digits(&t) {
        let (v, t) = (strip_punctuation(&v), strip_punctuation(&t));
        return Ok((answer, compare(v, t, location)));
    }
    let v = strip_numeric_punctuation(&v, era);
    let t = normalize_number(&strip_numeric_punctuation(&t, era), era)?;
    let mut words: Vec<&str> = if era.since(48) {
        regex::Regex::new(r"\s+")
            .expect("regex")
            .split(&v)
            .collect()
    } else {
        v.split(' ').collect()
    };
    let v = match location {
        "begin" => first_number(&words, era)?,
        "end" => {
            words.reverse();
            first_number(&words, era)?
        }
        "exact" => normalize_number(&v, era)?,
        _ => v.clone(),
    };
    let hit = compare(&v, &t, location);
    Ok((v, hit))
}

fn compare(v: &str, t: &str, location: &str) -> bool {
    match location {
        "begin" => v.starts_with(t),
        "end" => v.ends_with(t),
        "exact" => v == t,
        _ => v.contains(t),
    }
}

/// Digits and points with at least one digit: `n.replace(".", "").isnumeric()`.
fn numeric(n: &str) -> bool {
    let digits: String = n.chars().filter(|&c| c != '.').collect();
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// The first word that is a number, else the first word, normalized.
fn first_number(words: &[&str], era: Era) -> Result<String, String> {
    let number = words
        .iter()
        .find(|w| numeric(w))
        .or(words.first())
        .copied()
        .unwrap_or("");
    normalize_number(number, era)
}

/// A number with five significant digits (`format(x, ".5g")`); other text
/// as it is.
fn normalize_number(n: &str, era: Era) -> Result<String, String> {
    if !numeric(n) {
        return Ok(n.to_string());
    }
    let read = if era.since(123) {
        // `^([+-]?\d+(?:\.\d+)?)`: digits, then a point and digits.
        let re = regex::Regex::new(r"^\d+(?:\.\d+)?").expect("regex");
        re.find(n).map(|m| m.as_str())
    } else if n.matches('.').count() <= 1 {
        Some(n)
    } else {
        None
    };
    read.and_then(|r| r.parse::<f64>().ok())
        .map(format_g5)
        .ok_or_else(|| format!("{n:?}, which this version could not read as a number"))
}

/// `strip_numeric_punctuation` before 0.3.221: `$ , £ €` (and from 0.3.126
/// `* _`) removed, and a point not followed by a digit.
fn strip_numeric_punctuation(s: &str, era: Era) -> String {
    let drop =
        |c: char| matches!(c, '$' | ',' | '£' | '€') || (era.since(126) && matches!(c, '*' | '_'));
    let kept: Vec<char> = s.chars().filter(|&c| !drop(c)).collect();
    kept.iter()
        .enumerate()
        .filter(|&(i, &c)| c != '.' || kept.get(i + 1).is_some_and(char::is_ascii_digit))
        .map(|(_, &c)| c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::version::Version;

    fn read(
        patch: u32,
        value: &str,
        target: &str,
        location: &str,
    ) -> Result<(String, bool), String> {
        match_str(
            value,
            target,
            location,
            true,
            Era(Some(Version(0, 3, patch))),
        )
    }

    // What each version's `match(numeric=True)` gave (Inspect 0.3.40,
    // 0.3.46, 0.3.75, 0.3.130 and 0.3.200 run on these cases).
    #[test]
    fn numbers_are_compared_as_those_versions_compared_them() {
        let at = |p, v, t, l| read(p, v, t, l).expect("read");
        for p in [40, 46, 75, 130, 200] {
            assert_eq!(
                at(p, "The answer is 25", "5", "end"),
                ("25".into(), true),
                "{p}"
            );
            assert_eq!(
                at(p, "It is 42!", "42", "end"),
                ("42!".into(), false),
                "{p}"
            );
            assert_eq!(
                at(p, "no number here", "42", "end"),
                ("here".into(), false),
                "{p}"
            );
        }
        for p in [40, 75, 200] {
            let any = at(p, "there are 742 items", "42", "any");
            assert_eq!(any, ("there are 742 items".into(), true), "{p}");
            assert_eq!(
                at(p, "$1,000 total", "1000", "begin"),
                ("1000".into(), true),
                "{p}"
            );
        }
        assert_eq!(at(75, "a_1 *5*", "5", "end"), ("*5*".into(), false));
        assert_eq!(at(130, "a_1 *5*", "5", "end"), ("5".into(), true));
        assert_eq!(
            at(46, "The answer is 3.50", "3.5", "end"),
            ("3.5".into(), true)
        );
        assert_eq!(
            at(75, "The answer is 3.50", "3.5", "end"),
            ("The answer is 3.50".into(), false)
        );
        assert!(read(75, "1.2.3", "1", "end").is_err());
        assert_eq!(at(130, "1.2.3", "1", "end"), ("1.2".into(), false));
    }
}
