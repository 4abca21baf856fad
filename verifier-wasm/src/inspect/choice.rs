//! Inspect AI's `choice()` scorer after its `multiple_choice()` solver:
//! the choices a completion marks after `ANSWER:`, read as the solver of
//! the log's Inspect version read them, compared with the target's.
//!
//! The solver's reading changed often; each generation below is the first
//! release with it:
//!
//! - 0.3.40: the first `ANSWER:` and the letters, spaces and commas after
//!   it, each character a choice where it names one;
//! - 0.3.42: a line that is only `ANSWER: …` is preferred;
//! - 0.3.94: digits too (`1` is choice 27), and choices past the 26th are
//!   numbered so;
//! - 0.3.121: what follows `ANSWER:` must be one choice, or with several
//!   correct a list of them, exactly as the choices are lettered;
//! - 0.3.221: the last `ANSWER:` is read, in either case;
//! - 0.3.259 and 0.3.260: empty items of a list are ignored;
//! - 0.3.264: `$B$`, `**B**` and `(B)` are read as `B`, and an output that
//!   marks nothing is `N` when it is empty.
//!
//! The target changed too: each of its characters a choice up to 0.3.220,
//! commas and spaces skipped from 0.3.221, numbers kept whole from 0.3.261.

use regex::Regex;
use serde_json::json;

use super::eras::Era;
use super::scorers::{Scored, Subject, CORRECT, INCORRECT, NOANSWER};
use super::text::strip;

fn regex(p: &str) -> Regex {
    Regex::new(p).expect("a valid pattern")
}

/// The name of choice `i`: `A`…`Z`, then `1`, `2`, … from 0.3.94; before,
/// the characters after `Z`.
fn answer_character(i: usize, era: Era) -> String {
    if i < 26 || !era.since(94) {
        char::from_u32(65 + i as u32).map_or_else(String::new, String::from)
    } else {
        (i - 25).to_string()
    }
}

/// The choice a character or number names, as `answer_index` reads it:
/// `Err` where Inspect raised (and the sample would have errored).
fn answer_index(token: &str, era: Era) -> Result<i64, String> {
    let mut chars = token.chars();
    let first = chars.next().ok_or("an empty token")?;
    let single = chars.next().is_none();
    let letter = |c: char| i64::from(u32::from(c.to_ascii_uppercase())) - 65;
    if !era.since(94) {
        return Ok(letter(first));
    }
    let alpha = if era.since(221) {
        single && first.is_ascii_alphabetic()
    } else {
        single && (first.is_ascii_alphabetic() || first == ',' || first == ' ')
    };
    if alpha {
        return Ok(letter(first));
    }
    if token.chars().all(|c| c.is_ascii_digit()) {
        let n: i64 = token.parse().map_err(|_| "a number too long")?;
        if n == 0 && era.since(264) {
            return Err("choice 0 (numbered choices start at 1)".into());
        }
        return Ok(25 + n);
    }
    Err(format!("{token:?} names no choice"))
}

/// The target's choices, as the scorer reads them.
fn target_positions(targets: &[String], era: Era) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    if era.since(261) {
        for t in targets {
            for token in t.replace(',', " ").split_whitespace() {
                if token.chars().all(|c| c.is_ascii_digit()) {
                    out.push(answer_index(token, era)?);
                } else {
                    for c in token.chars() {
                        out.push(answer_index(&c.to_string(), era)?);
                    }
                }
            }
        }
    } else {
        for c in targets.concat().chars() {
            if era.since(221) && (c == ',' || c == ' ') {
                continue;
            }
            out.push(answer_index(&c.to_string(), era)?);
        }
    }
    Ok(out)
}

/// `choice()` after `multiple_choice()`.
pub(super) fn choice(s: &Subject, era: Era) -> Result<Scored, String> {
    let Some(choices) = s.choices else {
        return Err("the sample has no choices".into());
    };
    if !era.since(264) && !s.completion.is_ascii() {
        return Err("the output holds text beyond ASCII, which this version's solver matched with Python's `re` rules the verifier does not recompute".into());
    }
    let n = choices.len() as i64;
    let mut want = target_positions(s.targets, era)?;
    if era.since(261) && want.iter().any(|&p| p < 0 || p >= n) {
        return Err("the target names a choice the sample does not have".into());
    }
    want.sort_unstable();
    let marked = marked(s.completion, want.len() > 1, choices.len(), era);
    let answer = marked
        .iter()
        .map(|&i| answer_character(i, era))
        .collect::<Vec<_>>()
        .join(", ");
    let marked: Vec<i64> = marked.into_iter().map(|i| i as i64).collect();
    let value = if marked == want {
        CORRECT
    } else if marked.is_empty() && era.since(264) && strip(s.completion).is_empty() {
        NOANSWER
    } else {
        INCORRECT
    };
    Ok(Scored {
        value: json!(value),
        answer: Some(answer),
    })
}

/// The choices the solver marked, in order.
fn marked(completion: &str, multiple: bool, n: usize, era: Era) -> Vec<usize> {
    if !era.since(121) {
        // Every character after `ANSWER:` that names a choice marks it.
        let class = if era.since(94) {
            r"[A-Za-z\d ,]"
        } else {
            r"[A-Za-z ,]"
        };
        let strict = regex(&format!(r"(?im)^ANSWER\s*:\s*({class}+)\s*(?:$|\n)"));
        let lenient = regex(&format!(r"(?i)ANSWER\s*:\s*({class}+)(?:[^\w]|\n|$)"));
        let found = era
            .since(42)
            .then(|| strict.captures(completion))
            .flatten()
            .or_else(|| lenient.captures(completion));
        let Some(found) = found else {
            return Vec::new();
        };
        let mut out: Vec<usize> = found[1]
            .chars()
            .filter_map(|c| answer_index(&c.to_string(), era).ok())
            .filter_map(|i| usize::try_from(i).ok())
            .filter(|&i| i < n)
            .collect();
        out.sort_unstable();
        out.dedup();
        return out;
    }
    let allowed: Vec<String> = (0..n).map(|i| answer_character(i, era)).collect();
    let picked = parse_answers(completion, multiple, &allowed, era);
    (0..n).filter(|&i| picked.contains(&allowed[i])).collect()
}

/// `parse_answers` of the `multiple_choice` solver, from 0.3.121: the names
/// of the choices given after `ANSWER:`, or none.
fn parse_answers(completion: &str, multiple: bool, allowed: &[String], era: Era) -> Vec<String> {
    let text = if era.since(264) {
        let dollar = regex(r"\$\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\$");
        let bold = regex(r"\*\*\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\*\*");
        let text = dollar.replace_all(completion, "$1");
        let text = bold.replace_all(&text, "$1");
        unwrap_parenthesized(&text)
    } else {
        completion.to_string()
    };
    let strict = regex(r"(?im)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)");
    let lenient = regex(r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)");
    let pick = |re: &Regex| {
        if era.since(221) {
            re.captures_iter(&text).last().map(|c| c[1].to_string())
        } else {
            re.captures(&text).map(|c| c[1].to_string())
        }
    };
    let Some(matched) = pick(&strict).or_else(|| pick(&lenient)) else {
        return Vec::new();
    };
    let matched = strip(&matched).trim_end_matches('.');
    let matched = if era.since(221) {
        matched.to_uppercase()
    } else {
        matched.to_string()
    };
    let ok = |set: &[String]| set.iter().all(|a| allowed.contains(a));
    if multiple {
        let joined = if era.since(221) {
            matched.replace(" AND ", ",").replace(' ', "")
        } else {
            matched.replace(" and ", "").replace(' ', "")
        };
        let by_comma: Vec<String> = joined
            .split(',')
            .filter(|x| !x.is_empty() || !era.since(259))
            .map(String::from)
            .collect();
        if ok(&by_comma) {
            return by_comma;
        }
        let by_char: Vec<String> = joined.chars().map(String::from).collect();
        if ok(&by_char) {
            return by_char;
        }
    } else if era.since(260) {
        let tokens: Vec<String> = matched
            .split(',')
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        if tokens.len() == 1 && ok(&tokens) {
            return tokens;
        }
    } else if allowed.contains(&matched) {
        return vec![matched];
    }
    Vec::new()
}

/// `(?i)(^|[:,])(\s*)\(([A-Za-z\d])\)(?=\s*(?:,|\.|\n|\Z))` → `\1\2\3`:
/// a single parenthesized letter after the start, a colon or a comma.
fn unwrap_parenthesized(text: &str) -> String {
    let re = regex(r"(^|[:,])(\s*)\(([A-Za-z\d])\)");
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for caps in re.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        let after = &text[whole.end()..];
        let rest = after.trim_start_matches(|c: char| c.is_whitespace());
        let followed = rest.is_empty() || rest.starts_with([',', '.', '\n']);
        if !followed {
            continue;
        }
        out.push_str(&text[last..whole.start()]);
        out.push_str(&caps[1]);
        out.push_str(&caps[2]);
        out.push_str(&caps[3]);
        last = whole.end();
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::version::Version;

    fn score(patch: u32, completion: &str, targets: &[&str], n: usize) -> (String, String) {
        let targets: Vec<String> = targets.iter().map(|t| (*t).to_string()).collect();
        let choices: Vec<String> = (0..n).map(|i| format!("option {i}")).collect();
        let era = Era(Some(Version(0, 3, patch)));
        let s = Subject {
            completion,
            targets: &targets,
            choices: Some(&choices),
            inspect: era.0,
        };
        let r = choice(&s, era).expect("scored");
        (r.value.as_str().unwrap().to_string(), r.answer.unwrap())
    }

    // Each expectation is what that version's own scorer gave (the cases
    // Inspect's sources were run on, 0.3.40 to 0.3.285).
    #[test]
    fn each_generation_marks_what_its_solver_marked() {
        // Every letter after ANSWER: up to 0.3.120, "and" included.
        assert_eq!(
            score(75, "ANSWER: A and C", &["A"], 4),
            ("I".into(), "A, C, D".into())
        );
        assert_eq!(
            score(130, "ANSWER: A and C", &["A"], 4),
            ("I".into(), String::new())
        );
        // Lowercase letters: read up to 0.3.120 and again from 0.3.221.
        assert_eq!(score(75, "ANSWER: b", &["B"], 4), ("C".into(), "B".into()));
        assert_eq!(
            score(200, "ANSWER: b", &["B"], 4),
            ("I".into(), String::new())
        );
        assert_eq!(score(285, "ANSWER: b", &["B"], 4), ("C".into(), "B".into()));
        // The first ANSWER: up to 0.3.220, the last from 0.3.221.
        let text = "ANSWER: A\nblah\nANSWER: C";
        assert_eq!(score(200, text, &["C"], 4).1, "A");
        assert_eq!(score(285, text, &["C"], 4).1, "C");
        // A target "A, B": never correct up to 0.3.220.
        assert_eq!(score(200, "ANSWER: A, B", &["A, B"], 4).0, "I");
        assert_eq!(score(285, "ANSWER: A, B", &["A, B"], 4).0, "C");
        // Wrapped letters from 0.3.264; an empty output is N from then.
        assert_eq!(score(260, "ANSWER: **B**", &["B"], 4).0, "I");
        assert_eq!(score(285, "ANSWER: **B**", &["B"], 4).0, "C");
        assert_eq!(score(200, "", &["B"], 4).0, "I");
        assert_eq!(score(285, "", &["B"], 4).0, "N");
    }

    #[test]
    fn choices_past_the_26th_are_numbered_from_0_3_94() {
        assert_eq!(answer_character(26, Era(Some(Version(0, 3, 285)))), "1");
        assert_eq!(answer_character(35, Era(Some(Version(0, 3, 285)))), "10");
        assert_eq!(answer_character(26, Era(Some(Version(0, 3, 75)))), "[");
        assert_eq!(
            score(285, "ANSWER: 10", &["10"], 40),
            ("C".into(), "10".into())
        );
    }
}
