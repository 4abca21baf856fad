//! Inspect AI's deterministic scorers, recomputed from a sample's output
//! and target: `match`, `includes`, `pattern`, `exact`, `f1` and `choice`
//! (with the `multiple_choice` solver's reading of the answer). Each gives
//! the score's value and answer exactly as Inspect writes them, so the
//! recorded score can be compared field by field. Any other scorer
//! (model-graded or custom) is a recorded judgment, not recomputed.

use serde_json::{json, Map, Value};

use super::text::{
    casefold, float_repr, format_g5, parse_float, split_words, strip, strip_punctuation, unassigned,
};

/// A score as a scorer gives it: the value and, where it records one, the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// The score's value: `C`, `I` or `N`, or a number for `f1`.
    pub value: Value,
    /// The answer the scorer read from the output, where it records one.
    pub answer: Option<String>,
}

/// What the verifier can say about a scorer.
#[derive(Debug, Clone, PartialEq)]
pub enum Recompute {
    /// The score, recomputed.
    Scored(Scored),
    /// Not a scorer the verifier recomputes, or options it does not read: why.
    NotRecomputed(String),
}

pub(super) const CORRECT: &str = "C";
pub(super) const INCORRECT: &str = "I";
pub(super) const NOANSWER: &str = "N";

/// The scorer's registry name without a package prefix (`inspect_ai/match` → `match`).
pub fn base_name(scorer: &str) -> &str {
    scorer.rsplit('/').next().unwrap_or(scorer)
}

/// Whether `scorer` is one the verifier recomputes.
pub fn is_deterministic(scorer: &str) -> bool {
    matches!(
        base_name(scorer),
        "match" | "includes" | "pattern" | "exact" | "f1" | "choice"
    )
}

/// The inputs a scorer sees.
pub struct Subject<'a> {
    /// The text of the sample's final output.
    pub completion: &'a str,
    /// The sample's targets, one or several.
    pub targets: &'a [String],
    /// The options of a multiple-choice sample; `None` for any other.
    pub choices: Option<&'a [String]>,
}

/// Recomputes `scorer` with `options` (the non-default arguments the log records).
pub fn recompute(scorer: &str, options: &Map<String, Value>, s: &Subject) -> Recompute {
    let texts = std::iter::once(s.completion)
        .chain(s.targets.iter().map(String::as_str))
        .chain(s.choices.into_iter().flatten().map(String::as_str));
    if let Some(c) = texts.flat_map(str::chars).find(|&c| unassigned(c)) {
        if is_deterministic(scorer) {
            return Recompute::NotRecomputed(format!(
                "the text holds U+{:04X}, which the Unicode version of the verifier's Python tables leaves unassigned: a newer Python may fold it or read it as a digit",
                c as u32
            ));
        }
    }
    let flag = |name: &str, default: bool| -> Result<bool, String> {
        match options.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("option `{name}` is {other}, not true or false")),
        }
    };
    let result = (|| -> Result<Scored, String> {
        let known = |names: &[&str]| -> Result<(), String> {
            match options.keys().find(|k| !names.contains(&k.as_str())) {
                Some(k) => Err(format!("option `{k}` is not one the verifier reads")),
                None => Ok(()),
            }
        };
        match base_name(scorer) {
            "match" => {
                known(&["location", "ignore_case", "numeric"])?;
                let location = match options.get("location") {
                    None | Some(Value::Null) => "end",
                    Some(Value::String(l)) => l.as_str(),
                    Some(other) => return Err(format!("option `location` is {other}")),
                };
                if !matches!(location, "begin" | "end" | "any" | "exact") {
                    return Err(format!("location `{location}` is not one Inspect defines"));
                }
                let (ignore_case, numeric) = (flag("ignore_case", true)?, flag("numeric", false)?);
                Ok(str_match(s, |v, t| {
                    match_str(v, t, location, ignore_case, numeric)
                }))
            }
            "includes" => {
                known(&["ignore_case"])?;
                let ignore_case = flag("ignore_case", true)?;
                Ok(str_match(s, |v, t| {
                    if ignore_case {
                        let (v, t) = (casefold(v), casefold(t));
                        let hit = v.contains(&t);
                        (v, hit)
                    } else {
                        (v.to_string(), v.contains(t))
                    }
                }))
            }
            "exact" => {
                known(&[])?;
                let answer = normalize(s.completion);
                let hit = s
                    .targets
                    .iter()
                    .map(|t| normalize(t))
                    .any(|t| !t.is_empty() && t == answer);
                Ok(Scored {
                    value: json!(if hit { CORRECT } else { INCORRECT }),
                    answer: Some(s.completion.to_string()),
                })
            }
            "f1" => {
                known(&[])?;
                let best = s
                    .targets
                    .iter()
                    .filter(|t| normalize(t).split_whitespace().next().is_some())
                    .map(|t| f1(s.completion, t))
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
                    .unwrap_or(0.0);
                Ok(Scored {
                    value: json!(round2(best)),
                    answer: Some(s.completion.to_string()),
                })
            }
            "pattern" => {
                known(&["pattern", "ignore_case", "match_all"])?;
                let Some(Value::String(p)) = options.get("pattern") else {
                    return Err("option `pattern` is missing".into());
                };
                pattern(p, flag("ignore_case", true)?, flag("match_all", false)?, s)
            }
            "choice" => {
                known(&[])?;
                super::choice::choice(s)
            }
            other => Err(format!("`{other}` is a recorded judgment, not recomputed")),
        }
    })();
    match result {
        Ok(scored) => Recompute::Scored(scored),
        Err(why) => Recompute::NotRecomputed(why),
    }
}

/// `str_match_scorer`: the first target that matches wins; the answer is
/// the last one tried.
fn str_match(s: &Subject, matcher: impl Fn(&str, &str) -> (String, bool)) -> Scored {
    let mut answer = None;
    for target in s.targets {
        let (a, hit) = matcher(s.completion, target);
        if hit {
            return Scored {
                value: json!(CORRECT),
                answer: Some(a),
            };
        }
        answer = Some(a);
    }
    Scored {
        value: json!(INCORRECT),
        answer,
    }
}

/// `match_str` with `ignore_punctuation=True`.
fn match_str(
    value: &str,
    target: &str,
    location: &str,
    ignore_case: bool,
    numeric: bool,
) -> (String, bool) {
    let mut v = strip(value).to_string();
    let mut t = strip(target).to_string();
    let answer = v.clone();
    if ignore_case {
        v = casefold(&v);
        t = casefold(&t);
    }
    if numeric {
        t = strip_numeric_punctuation(&t);
    }
    if numeric && is_number(&t) {
        v = strip_numeric_punctuation(&v);
        let t = normalize_number(&t, true);
        let mut words: Vec<&str> = v.split(char::is_whitespace).collect();
        let v = match location {
            "begin" => first_number(&words),
            "end" => {
                words.reverse();
                first_number(&words)
            }
            "exact" => normalize_number(&v, false),
            _ => {
                for w in words.iter().filter(|w| is_number(w)) {
                    let n = normalize_number(w, true);
                    if n == t {
                        return (n, true);
                    }
                }
                return (answer, false);
            }
        };
        let hit = v == t;
        return (v, hit);
    }
    let (v, t) = (strip_punctuation(&v), strip_punctuation(&t));
    let hit = match location {
        "begin" => v.starts_with(t),
        "end" => v.ends_with(t),
        "exact" => v == t,
        _ => v.contains(t),
    };
    (answer, hit)
}

fn first_number(words: &[&str]) -> String {
    words
        .iter()
        .find(|w| is_number(w))
        .map(|w| normalize_number(w, true))
        .unwrap_or_default()
}

/// `strip_numeric_punctuation`: escaped and bare `$ , £ € * _` removed, and
/// a point not followed by a digit.
fn strip_numeric_punctuation(s: &str) -> String {
    let drop = |c: char| matches!(c, '$' | ',' | '£' | '€' | '*' | '_');
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|&n| drop(n)) {
            i += 2;
            continue;
        }
        if !drop(c) {
            out.push(c);
        }
        i += 1;
    }
    let chars: Vec<char> = out.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| c != '.' || chars.get(i + 1).is_some_and(char::is_ascii_digit))
        .map(|(_, &c)| c)
        .collect()
}

/// `_parse_number`: `!?:;()[]{}'"` and backticks trimmed unless told not to.
fn parse_number(s: &str, trim: bool) -> Option<f64> {
    let s = if trim {
        s.trim_matches(|c: char| "!?:;()[]{}'\"`".contains(c))
    } else {
        s
    };
    parse_float(s)
}

fn is_number(s: &str) -> bool {
    parse_number(s, true).is_some()
}

/// `normalize_number`: five significant digits, or the text as it was.
fn normalize_number(s: &str, trim: bool) -> String {
    parse_number(s, trim).map_or_else(|| s.to_string(), format_g5)
}

/// `_normalize` of the classification scorers: split on space and hyphen,
/// punctuation and articles removed, numbers as Python prints floats.
fn normalize(text: &str) -> String {
    let mut kept = Vec::new();
    for token in text.split([' ', '-']) {
        let token = remove_punctuation(&casefold(token));
        let token = match parse_float(&token) {
            Some(v) => float_repr(v),
            None => token,
        };
        let token = remove_articles(&token);
        let token = split_words(&token).join(" ");
        if !strip(&token).is_empty() {
            kept.push(token);
        }
    }
    strip(&kept.join(" ")).to_string()
}

fn remove_punctuation(token: &str) -> String {
    if parse_float(token).is_some() {
        return token.to_string();
    }
    let stripped = strip_punctuation(token);
    if parse_float(stripped).is_some() {
        return stripped.to_string();
    }
    token
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect()
}

/// `re.sub(r"\b(a|an|the)\b", " ", text)`.
fn remove_articles(text: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(word).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
        let w = &rest[..end];
        out.push_str(if matches!(w, "a" | "an" | "the") {
            " "
        } else {
            w
        });
        rest = &rest[end..];
    }
    out
}

/// The F1 of the words of `answer` against those of `target`, as multisets.
fn f1(answer: &str, target: &str) -> f64 {
    use std::collections::BTreeMap;
    let counts = |s: &str| {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for w in normalize(s).split_whitespace() {
            *m.entry(w.to_string()).or_default() += 1;
        }
        m
    };
    let (a, t) = (counts(answer), counts(target));
    let common: u64 = a
        .iter()
        .map(|(w, n)| (*n).min(t.get(w).copied().unwrap_or(0)))
        .sum();
    let total = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
    let precision = if a.is_empty() {
        1.0
    } else {
        common as f64 / total(&a) as f64
    };
    let recall = if t.is_empty() {
        1.0
    } else {
        common as f64 / total(&t) as f64
    };
    if precision == 0.0 && recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// Python's `round(x, 2)`: the nearest two-decimal number to the exact value.
fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

/// `pattern()`: the first match's groups (or the whole match) compared
/// with the targets, ignoring case with `lower()`.
fn pattern(p: &str, ignore_case: bool, match_all: bool, s: &Subject) -> Result<Scored, String> {
    if let Some(why) = super::pyre::differs_from_python(p, s.completion) {
        return Err(why);
    }
    let re = regex::RegexBuilder::new(p)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|_| format!("the pattern {p:?} uses syntax the verifier does not read"))?;
    let Some(caps) = re.captures(s.completion) else {
        return Ok(Scored {
            value: json!(INCORRECT),
            answer: None,
        });
    };
    let groups: Vec<Option<&str>> = if caps.len() > 1 {
        (1..caps.len())
            .map(|i| caps.get(i).map(|m| m.as_str()))
            .collect()
    } else {
        vec![Some(caps.get(0).expect("match").as_str())]
    };
    let fold = |t: &str| {
        if ignore_case {
            t.to_lowercase()
        } else {
            t.to_string()
        }
    };
    let targets: Vec<String> = s.targets.iter().map(|t| fold(t)).collect();
    let in_targets = |g: &str| targets.contains(&fold(g));
    let present: Vec<&str> = groups.iter().flatten().copied().collect();
    let (found, answer) = if match_all {
        let all = !present.is_empty() && present.iter().all(|g| in_targets(g));
        let found = all.then(|| s.targets.concat());
        (found.clone(), found)
    } else {
        let found = present
            .iter()
            .find(|g| in_targets(g))
            .map(std::string::ToString::to_string);
        let answer = match (&found, groups.as_slice()) {
            (None, [only]) => only.map(str::to_string),
            _ => found.clone(),
        };
        (found, answer)
    };
    // Inspect tests the match for truth: an empty one is not correct.
    let correct = found.is_some_and(|f| !f.is_empty());
    Ok(Scored {
        value: json!(if correct { CORRECT } else { INCORRECT }),
        answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(scorer: &str, options: Value, completion: &str, targets: &[&str]) -> Scored {
        let targets: Vec<String> = targets
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let options = options.as_object().cloned().unwrap_or_default();
        match recompute(
            scorer,
            &options,
            &Subject {
                completion,
                targets: &targets,
                choices: None,
            },
        ) {
            Recompute::Scored(s) => s,
            Recompute::NotRecomputed(why) => panic!("{why}"),
        }
    }

    #[test]
    fn match_reads_the_end_ignoring_case_and_punctuation() {
        let s = score(
            "match",
            json!({}),
            "The capital of France is Paris.",
            &["paris"],
        );
        assert_eq!(
            (s.value, s.answer.as_deref()),
            (json!("C"), Some("The capital of France is Paris."))
        );
        let s = score("match", json!({"numeric": true}), "ANSWER: 10", &["10.0"]);
        assert_eq!((s.value, s.answer.as_deref()), (json!("C"), Some("10")));
        let s = score(
            "match",
            json!({"location": "begin"}),
            "Paris, I think",
            &["London", "Rome"],
        );
        assert_eq!(s.value, json!("I"));
    }

    #[test]
    fn f1_and_exact_normalize_words_and_numbers() {
        assert_eq!(
            score("f1", json!({}), "ANSWER: 4", &["4"]).value,
            json!(0.67)
        );
        assert_eq!(
            score("exact", json!({}), "The Answer", &["answer!"]).value,
            json!("C")
        );
        assert_eq!(round2(0.125), 0.12);
        assert_eq!(round2(0.665), 0.67);
    }

    #[test]
    fn model_graded_scorers_are_not_recomputed() {
        let r = recompute(
            "model_graded_qa",
            &Map::new(),
            &Subject {
                completion: "",
                targets: &[],
                choices: None,
            },
        );
        assert!(matches!(r, Recompute::NotRecomputed(why) if why.contains("recorded judgment")));
    }

    /// Cases Inspect's own `match_str` was run on (Inspect AI 0.3.285,
    /// Python 3.11): digits of another script read as numbers, and a
    /// ligature folded as `str.casefold` folds it.
    #[test]
    fn text_beyond_ascii_is_read_as_python_reads_it() {
        let s = score(
            "match",
            json!({"numeric": true}),
            "the answer is \u{661}\u{660}",
            &["10"],
        );
        assert_eq!((s.value, s.answer.as_deref()), (json!("C"), Some("10")));
        let s = score(
            "match",
            json!({"location": "exact"}),
            "\u{fb01}le",
            &["FILE"],
        );
        assert_eq!(
            (s.value, s.answer.as_deref()),
            (json!("C"), Some("\u{fb01}le"))
        );
    }

    /// Where the verifier could read text or a pattern otherwise than
    /// Inspect did, the score is left unchecked, never passed or failed.
    #[test]
    fn text_or_patterns_read_otherwise_than_python_are_not_recomputed() {
        for (scorer, options, completion, words) in [
            ("pattern", json!({"pattern": "(\\p{L}+)"}), "abc", "\\p"),
            (
                "pattern",
                json!({"pattern": "(\\w+)$"}),
                "done\n",
                "final newline",
            ),
            ("includes", json!({}), "a \u{a7cb} b", "U+A7CB"),
        ] {
            let options = options.as_object().cloned().unwrap_or_default();
            let targets = ["abc".to_string()];
            let r = recompute(
                scorer,
                &options,
                &Subject {
                    completion,
                    targets: &targets,
                    choices: None,
                },
            );
            assert!(
                matches!(&r, Recompute::NotRecomputed(why) if why.contains(words)),
                "{scorer} {completion:?}: {r:?}"
            );
        }
    }
}
