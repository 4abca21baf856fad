//! Inspect AI's `choice()` scorer after its `multiple_choice()` solver:
//! the letters a completion gives after `ANSWER:`, read as the solver
//! reads them, compared as a set with the target's.

use serde_json::json;

use super::scorers::{Scored, Subject, CORRECT, INCORRECT, NOANSWER};
use super::text::strip;

/// The letter of choice `i`: `A`…`Z`, then `27`, `28`, … as Inspect numbers them.
fn answer_character(i: usize) -> String {
    if i < 26 {
        char::from(b'A' + i as u8).to_string()
    } else {
        (i + 1).to_string()
    }
}

/// `choice()` after `multiple_choice()`: the letters the completion gives
/// after `ANSWER:`, compared as a set with the target's.
pub(super) fn choice(s: &Subject) -> Result<Scored, String> {
    let Some(choices) = s.choices else {
        return Err("the sample has no choices".into());
    };
    let allowed: Vec<String> = (0..choices.len()).map(answer_character).collect();
    let mut target: Vec<String> = Vec::new();
    for t in s.targets {
        for token in t.replace(',', " ").split_whitespace() {
            if token.chars().all(char::is_numeric) {
                target.push(token.to_string());
            } else {
                target.extend(token.chars().map(String::from));
            }
        }
    }
    if target.iter().any(|t| !allowed.contains(t)) {
        return Err("the target names a choice the sample does not have".into());
    }
    let multiple = target.len() > 1;
    let mut picked = parse_answers(s.completion, multiple, &allowed);
    picked.sort_by_key(|a| allowed.iter().position(|x| x == a));
    picked.dedup();
    if picked.is_empty() {
        let empty = s.completion.is_empty();
        return Ok(Scored {
            value: json!(if empty { NOANSWER } else { INCORRECT }),
            answer: Some(String::new()),
        });
    }
    let mut want = target.clone();
    want.sort_by_key(|a| allowed.iter().position(|x| x == a));
    Ok(Scored {
        value: json!(if picked == want { CORRECT } else { INCORRECT }),
        answer: Some(picked.join(", ")),
    })
}

/// `parse_answers` of the `multiple_choice` solver.
fn parse_answers(completion: &str, multiple: bool, allowed: &[String]) -> Vec<String> {
    let dollar = regex::Regex::new(r"\$\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\$").expect("regex");
    let bold = regex::Regex::new(r"\*\*\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\*\*").expect("regex");
    let text = dollar.replace_all(completion, "$1");
    let text = bold.replace_all(&text, "$1");
    let text = unwrap_parenthesized(&text);
    let strict =
        regex::Regex::new(r"(?im)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)").expect("regex");
    let lenient =
        regex::Regex::new(r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)").expect("regex");
    let last = |re: &regex::Regex| re.captures_iter(&text).last().map(|c| c[1].to_string());
    let Some(matched) = last(&strict).or_else(|| last(&lenient)) else {
        return Vec::new();
    };
    let matched = strip(&matched).trim_end_matches('.').to_uppercase();
    let ok = |set: &[String]| set.iter().all(|a| allowed.contains(a));
    if multiple {
        let joined = matched.replace(" AND ", ",").replace(' ', "");
        let by_comma: Vec<String> = joined
            .split(',')
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        if ok(&by_comma) {
            return by_comma;
        }
        let by_char: Vec<String> = joined.chars().map(String::from).collect();
        if ok(&by_char) {
            return by_char;
        }
    } else {
        let tokens: Vec<String> = matched
            .split(',')
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        if tokens.len() == 1 && ok(&tokens) {
            return tokens;
        }
    }
    Vec::new()
}

/// `(?i)(^|[:,])(\s*)\(([A-Za-z\d])\)(?=\s*(?:,|\.|\n|\Z))` → `\1\2\3`:
/// a single parenthesized letter after the start, a colon or a comma.
fn unwrap_parenthesized(text: &str) -> String {
    let re = regex::Regex::new(r"(^|[:,])(\s*)\(([A-Za-z\d])\)").expect("regex");
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
