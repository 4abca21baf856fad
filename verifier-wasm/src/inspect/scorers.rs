//! Inspect AI's deterministic scorers, recomputed from a sample's output
//! and target: `match`, `includes`, `pattern`, `answer`, `exact`, `f1` and
//! `choice` (with the `multiple_choice` solver's reading of the answer). Each gives
//! the score's value and answer exactly as Inspect writes them, so the
//! recorded score can be compared field by field. Any other scorer
//! (model-graded or custom) is a recorded judgment, not recomputed.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::eras::Era;

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
        "match" | "includes" | "pattern" | "answer" | "exact" | "f1" | "choice"
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
    /// The Inspect AI version that gave the score, where the log says.
    pub inspect: Option<super::version::Version>,
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
    let era = Era(s.inspect);
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
                if numeric && !era.since(221) {
                    // Numbers as versions before 0.3.221 read them; where
                    // they raised, the sample failed and no score is recomputed.
                    let failed = std::cell::RefCell::new(None);
                    let scored = str_match(s, |v, t| {
                        super::numeric_before_221::match_str(v, t, location, ignore_case, era)
                            .unwrap_or_else(|why| {
                                failed.borrow_mut().get_or_insert(why);
                                (String::new(), false)
                            })
                    });
                    return failed.into_inner().map_or(Ok(scored), Err);
                }
                let fold = era.casefolds();
                let numeric = numeric.then(|| Numeric::of(era));
                Ok(str_match(s, |v, t| {
                    match_str(v, t, location, ignore_case.then_some(fold), numeric)
                }))
            }
            "includes" => {
                known(&["ignore_case"])?;
                let ignore_case = flag("ignore_case", true)?;
                Ok(str_match(s, |v, t| {
                    if !era.includes_answer_folded() {
                        // `value.lower().rfind(target.lower())`, the completion as the answer.
                        let hit = if ignore_case {
                            v.to_lowercase().contains(&t.to_lowercase())
                        } else {
                            v.contains(t)
                        };
                        (v.to_string(), hit)
                    } else if ignore_case {
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
                classification_reads_alike(era, s)?;
                let rules = Rules::of(era);
                let answer = normalize(s.completion, rules);
                let words = |t: &str| -> std::collections::BTreeSet<String> {
                    t.split_whitespace().map(str::to_string).collect()
                };
                let hit = targets_scored(s.targets, era, |t| normalize(t, rules).is_empty())
                    .map(|t| normalize(t, rules))
                    .any(|t| {
                        if era.exact_compares_text() {
                            t == answer
                        } else {
                            words(&t) == words(&answer)
                        }
                    });
                Ok(Scored {
                    value: json!(if hit { CORRECT } else { INCORRECT }),
                    answer: Some(s.completion.to_string()),
                })
            }
            "f1" => {
                known(&["stop_words"])?;
                classification_reads_alike(era, s)?;
                let stop_words = match options.get("stop_words") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(words)) => words
                        .iter()
                        .map(|w| w.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or("option `stop_words` is not a list of words")?,
                    Some(other) => return Err(format!("option `stop_words` is {other}")),
                };
                let rules = Rules::of(era);
                let stop: Vec<String> = stop_words.iter().map(|w| normalize(w, rules)).collect();
                let words = |t: &str| word_counts(t, rules, &stop);
                let best = targets_scored(s.targets, era, |t| words(t).is_empty())
                    .map(|t| f1(&words(s.completion), &words(t), era.f1_counts_repeats()))
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
                pattern(
                    p,
                    flag("ignore_case", true)?,
                    flag("match_all", false)?,
                    era,
                    s,
                )
            }
            "answer" => {
                let option = era.answer_option();
                known(&[option])?;
                let kind = match options.get(option) {
                    Some(Value::String(k)) => super::answer::Kind::parse(k),
                    _ => None,
                }
                .ok_or(format!(
                    "option `{option}` is not `letter`, `word` or `line`"
                ))?;
                let found = super::answer::capture(kind, era, s)?;
                Ok(match found {
                    Some(group) => judge(&[Some(group.as_str())], true, false, era, s),
                    None => Scored {
                        value: json!(era.no_match_value()),
                        answer: None,
                    },
                })
            }
            "choice" => {
                known(&[])?;
                super::choice::choice(s, era)
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
/// `ignore_case` is `Some(true)` to compare casefolded, `Some(false)` to
/// compare lowercased (before 0.3.43), `None` to compare as written.
fn match_str(
    value: &str,
    target: &str,
    location: &str,
    ignore_case: Option<bool>,
    numeric: Option<Numeric>,
) -> (String, bool) {
    let mut v = strip(value).to_string();
    let mut t = strip(target).to_string();
    let answer = v.clone();
    match ignore_case {
        Some(true) => {
            v = casefold(&v);
            t = casefold(&t);
        }
        Some(false) => {
            v = v.to_lowercase();
            t = t.to_lowercase();
        }
        None => {}
    }
    if let Some(n) = numeric {
        t = strip_numeric_punctuation(&t, n);
    }
    if let Some(n) = numeric.filter(|&n| is_number(&t, n)) {
        v = strip_numeric_punctuation(&v, n);
        let t = normalize_number(&t, n.trims);
        let mut words: Vec<&str> = v.split(char::is_whitespace).collect();
        let v = match location {
            "begin" => first_number(&words, n),
            "end" => {
                words.reverse();
                first_number(&words, n)
            }
            "exact" => normalize_number(&v, false),
            _ => {
                for w in words.iter().filter(|w| is_number(w, n)) {
                    let n = normalize_number(w, n.trims);
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

fn first_number(words: &[&str], n: Numeric) -> String {
    words
        .iter()
        .find(|w| is_number(w, n))
        .map(|w| normalize_number(w, n.trims))
        .unwrap_or_default()
}

/// How `match(numeric=True)` reads numbers, from 0.3.221.
#[derive(Debug, Clone, Copy)]
struct Numeric {
    /// `!?:;()[]{}'"` and backticks trimmed from a number's ends (0.3.261).
    trims: bool,
    /// `\$`, `\,`, … read as `$`, `,`, … before those are removed (0.3.253).
    unescapes: bool,
}

impl Numeric {
    fn of(era: Era) -> Numeric {
        Numeric {
            trims: era.since(261),
            unescapes: era.since(253),
        }
    }
}

/// `strip_numeric_punctuation`: escaped (from 0.3.253) and bare
/// `$ , £ € * _` removed, and a point not followed by a digit.
fn strip_numeric_punctuation(s: &str, n: Numeric) -> String {
    let drop = |c: char| matches!(c, '$' | ',' | '£' | '€' | '*' | '_');
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if n.unescapes && c == '\\' && chars.get(i + 1).is_some_and(|&n| drop(n)) {
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

fn is_number(s: &str, n: Numeric) -> bool {
    parse_number(s, n.trims).is_some()
}

/// `normalize_number`: five significant digits, or the text as it was.
fn normalize_number(s: &str, trim: bool) -> String {
    parse_number(s, trim).map_or_else(|| s.to_string(), format_g5)
}

/// How a version's classification scorers normalize a token.
#[derive(Debug, Clone, Copy)]
struct Rules {
    /// Only punctuation at a number's ends goes (0.3.253); before, all of it.
    keeps_number_points: bool,
}

impl Rules {
    fn of(era: Era) -> Rules {
        Rules {
            keeps_number_points: era.exact_compares_text(),
        }
    }
}

/// The targets a classification scorer compares with: from 0.3.277 those
/// that are not `empty` once normalized; from 0.3.221 those not blank as
/// written; before, those whose first character is not white space.
fn targets_scored<'a>(
    targets: &'a [String],
    era: Era,
    empty: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = &'a String> + 'a {
    targets.iter().filter(move |t| {
        if era.skips_empty_targets() {
            !empty(t)
        } else if era.since(221) {
            !strip(t).is_empty()
        } else {
            t.chars()
                .next()
                .is_some_and(|c| !strip(&c.to_string()).is_empty())
        }
    })
}

/// `Ok` when `exact` and `f1` of the log's version read `s` as the
/// verifier does. Before 0.3.221 they read `infinity` and numbers past the
/// largest double as `inf`, and an empty target made the sample fail;
/// before 0.3.43 they lowercased instead of case folding.
fn classification_reads_alike(era: Era, s: &Subject) -> Result<(), String> {
    if era.since(221) {
        return Ok(());
    }
    let version = era.0.map_or_else(|| "this".into(), |v| v.to_string());
    let texts = || std::iter::once(s.completion).chain(s.targets.iter().map(String::as_str));
    if s.targets.iter().any(String::is_empty) {
        return Err(format!(
            "an empty target, which Inspect {version}'s `exact` and `f1` could not score"
        ));
    }
    if !era.casefolds() && texts().any(|t| !t.is_ascii()) {
        return Err(format!(
            "text beyond ASCII, which Inspect {version} lowercased where the verifier case folds"
        ));
    }
    let infinite = |token: &str| {
        let bare: String = casefold(token)
            .chars()
            .filter(|c| !c.is_ascii_punctuation())
            .collect();
        let bare = strip(&bare);
        bare == "infinity"
            || (bare.chars().all(|c| c.is_ascii_digit() || c == 'e')
                && bare.parse::<f64>().is_ok_and(f64::is_infinite))
    };
    if texts().flat_map(|t| t.split([' ', '-'])).any(infinite) {
        return Err(format!("a number Inspect {version}'s `exact` and `f1` read as infinity, which the verifier reads as text"));
    }
    Ok(())
}

/// `_normalize` of the classification scorers: split on space and hyphen,
/// punctuation and articles removed, numbers as Python prints floats.
fn normalize(text: &str, rules: Rules) -> String {
    let mut kept = Vec::new();
    for token in text.split([' ', '-']) {
        let token = remove_punctuation(&casefold(token), rules);
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

fn remove_punctuation(token: &str, rules: Rules) -> String {
    if parse_float(token).is_some() {
        return token.to_string();
    }
    let stripped = strip_punctuation(token);
    if rules.keeps_number_points && parse_float(stripped).is_some() {
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

/// The F1 of the words of `answer` against those of `target`: as multisets,
/// or, before 0.3.270, as sets.
fn f1(answer: &BTreeMap<String, u64>, target: &BTreeMap<String, u64>, counts_repeats: bool) -> f64 {
    let (common, total_a, total_t): (u64, u64, u64) = if counts_repeats {
        (
            answer
                .iter()
                .map(|(w, n)| (*n).min(target.get(w).copied().unwrap_or(0)))
                .sum(),
            answer.values().sum(),
            target.values().sum(),
        )
    } else {
        (
            answer.keys().filter(|w| target.contains_key(*w)).count() as u64,
            answer.len() as u64,
            target.len() as u64,
        )
    };
    let precision = if answer.is_empty() {
        1.0
    } else {
        common as f64 / total_a as f64
    };
    let recall = if target.is_empty() {
        1.0
    } else {
        common as f64 / total_t as f64
    };
    if precision == 0.0 && recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// `_to_word_counts`: the normalized words of `text` but the stop words, counted.
fn word_counts(text: &str, rules: Rules, stop: &[String]) -> BTreeMap<String, u64> {
    let mut m: BTreeMap<String, u64> = BTreeMap::new();
    for w in normalize(text, rules).split_whitespace() {
        if !stop.iter().any(|s| s == w) {
            *m.entry(w.to_string()).or_default() += 1;
        }
    }
    m
}

fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

/// `pattern()`: the first match's groups (or the whole match) compared
/// with the targets, ignoring case with `lower()`.
fn pattern(
    p: &str,
    ignore_case: bool,
    match_all: bool,
    era: Era,
    s: &Subject,
) -> Result<Scored, String> {
    if let Some(why) = super::pyre::differs_from_python(p, s.completion) {
        return Err(why);
    }
    let re = regex::RegexBuilder::new(p)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|_| format!("the pattern {p:?} uses syntax the verifier does not read"))?;
    let Some(caps) = re.captures(s.completion) else {
        return Ok(Scored {
            value: json!(era.no_match_value()),
            answer: None,
        });
    };
    let groups: Vec<Option<&str>> = if caps.len() > 1 {
        (1..caps.len())
            .map(|i| caps.get(i).map(|m| m.as_str()))
            .collect()
    } else if era.whole_match_without_groups() {
        vec![Some(caps.get(0).expect("match").as_str())]
    } else {
        Vec::new()
    };
    Ok(judge(&groups, ignore_case, match_all, era, s))
}

/// `pattern()`'s verdict on the groups of its first match.
fn judge(
    groups: &[Option<&str>],
    ignore_case: bool,
    match_all: bool,
    era: Era,
    s: &Subject,
) -> Scored {
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
        let all = (!present.is_empty() || !era.match_all_needs_a_group())
            && present.iter().all(|g| in_targets(g));
        let found = all.then(|| s.targets.concat());
        (found.clone(), found)
    } else {
        let found = present
            .iter()
            .find(|g| in_targets(g))
            .map(std::string::ToString::to_string);
        let answer = match (&found, groups) {
            (None, [only]) => only.map(str::to_string),
            _ => found.clone(),
        };
        (found, answer)
    };
    // Inspect tests the match for truth: an empty one is not correct.
    let correct = found.is_some_and(|f| !f.is_empty());
    Scored {
        value: json!(if correct { CORRECT } else { INCORRECT }),
        answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(scorer: &str, options: Value, completion: &str, targets: &[&str]) -> Scored {
        score_by(None, scorer, options, completion, targets)
    }

    /// The score Inspect 0.3.`patch` (the newest with `None`) gave.
    fn score_by(
        patch: Option<u32>,
        scorer: &str,
        options: Value,
        completion: &str,
        targets: &[&str],
    ) -> Scored {
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
                inspect: patch.map(|p| super::super::version::Version(0, 3, p)),
            },
        ) {
            Recompute::Scored(s) => s,
            Recompute::NotRecomputed(why) => panic!("{why}"),
        }
    }

    // What each version's scorer gave, as its released sources give it
    // (run on Inspect 0.3.40, 0.3.75, 0.3.200, 0.3.250 and 0.3.285).
    #[test]
    fn scores_are_recomputed_as_the_version_that_gave_them_read_the_text() {
        let numeric = || json!({"numeric": true});
        let s = score_by(Some(250), "match", numeric(), "It is 42!", &["42"]);
        assert_eq!((s.value, s.answer.as_deref()), (json!("I"), Some("")));
        let s = score_by(Some(285), "match", numeric(), "It is 42!", &["42"]);
        assert_eq!((s.value, s.answer.as_deref()), (json!("C"), Some("42")));
        // includes: the completion as written up to 0.3.42, folded after.
        let s = score_by(Some(40), "includes", json!({}), "It is PARIS", &["paris"]);
        assert_eq!(
            (s.value, s.answer.as_deref()),
            (json!("C"), Some("It is PARIS"))
        );
        let s = score_by(Some(285), "includes", json!({}), "It is PARIS", &["paris"]);
        assert_eq!(s.answer.as_deref(), Some("it is paris"));
        // exact compared sets of words before 0.3.253; f1 counted each word once before 0.3.270.
        let words = "the cat sat on the mat";
        assert_eq!(
            score_by(Some(200), "exact", json!({}), words, &["mat on sat cat"]).value,
            json!("C")
        );
        assert_eq!(
            score_by(Some(285), "exact", json!({}), words, &["mat on sat cat"]).value,
            json!("I")
        );
        assert_eq!(
            score_by(Some(200), "f1", json!({}), "cat cat", &["cat"]).value,
            json!(1.0)
        );
        assert_eq!(
            score_by(Some(285), "f1", json!({}), "cat cat", &["cat"]).value,
            json!(0.67)
        );
        // pattern's value for no match: N from 0.3.206 to 0.3.260.
        let p = || json!({"pattern": "ANSWER: (\\w+)"});
        assert_eq!(
            score_by(Some(200), "pattern", p(), "nothing", &["x"]).value,
            json!("I")
        );
        assert_eq!(
            score_by(Some(250), "pattern", p(), "nothing", &["x"]).value,
            json!("N")
        );
        assert_eq!(
            score_by(Some(285), "pattern", p(), "nothing", &["x"]).value,
            json!("I")
        );
        // answer() named its kind `type` before 0.3.63.
        let s = score_by(
            Some(40),
            "answer",
            json!({"type": "word"}),
            "ANSWER: yes",
            &["yes"],
        );
        assert_eq!(s.value, json!("C"));
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
                inspect: None,
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
                    inspect: None,
                },
            );
            assert!(
                matches!(&r, Recompute::NotRecomputed(why) if why.contains(words)),
                "{scorer} {completion:?}: {r:?}"
            );
        }
    }
}
