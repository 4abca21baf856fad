//! Numbers and comparisons that prose writes without starting a word with a
//! digit: numbers in words (`ninety-seven percent`, `nine in ten`, `a
//! hundred per cent`, `half`, `twice`), Roman numerals where a number
//! stands (`IV of the tasks`), digits written with letters that look like
//! them (`l00%`, `O.5`), and comparison words (`cheaper`, `fewer`). Each is
//! a claim like a number typed in digits, and is found so that it can be
//! bound or fail.
//!
//! Kept out, to leave ordinary prose alone: ordinals (`first`, `second`;
//! `third` and the like only count after a number or `a`, as in `two
//! thirds`), `one` after a determiner (`no one`, `the one`, `each one`),
//! as a pronoun (`one's`, `one another`) or closing a clause (`the
//! scripted one,`), the pronoun `I`, a Roman numeral
//! that no number-like word follows (`CI`, `CLI`, `MIX` stay words), and
//! `up` or `down` except after a form of `be` or `go` or before `by` or
//! `from` (`costs went up`, `down by 3%`; not `set up`, `up to`).

use super::judge::{DOWN, UP};

/// How a number or a comparison that is not bound is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// In digits, or starting with a numeric character (`89%`, `¾`, `x2`).
    Digits,
    /// In words (`ninety-seven percent`, `nine in ten`, `half`).
    Words,
    /// A Roman numeral (`IV of the tasks`).
    Roman,
    /// Digits written with look-alike letters (`l00%`, `O.5`).
    LookAlike,
    /// A comparison word (`cheaper`, `fewer`, `more`).
    Comparison,
}

impl Form {
    /// What the form is, as a receipt says it (`a number written in words`).
    pub fn name(self) -> &'static str {
        match self {
            Form::Digits => "a number typed by hand",
            Form::Words => "a number written in words",
            Form::Roman => "a number written as a Roman numeral",
            Form::LookAlike => "a number written with letters that look like digits",
            Form::Comparison => "a comparison typed by hand",
        }
    }

    /// What the form is, as a page marks it (`written in words`).
    pub fn mark(self) -> &'static str {
        match self {
            Form::Digits => "typed by hand",
            Form::Words => "written in words",
            Form::Roman => "a Roman numeral",
            Form::LookAlike => "written with look-alike letters",
            Form::Comparison => "a comparison typed by hand",
        }
    }
}

/// A number or a comparison found in prose: a slice of it, and its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    /// As written.
    pub text: &'a str,
    /// How it is written.
    pub form: Form,
}

const UNITS: [&str; 28] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
];

/// Words that are numbers wherever they stand (besides [`UNITS`]).
const ALWAYS: [&str; 21] = [
    "hundred",
    "hundreds",
    "thousand",
    "thousands",
    "million",
    "millions",
    "billion",
    "billions",
    "trillion",
    "dozen",
    "dozens",
    "half",
    "halves",
    "halved",
    "quarter",
    "quarters",
    "twice",
    "thrice",
    "double",
    "doubled",
    "triple",
];

/// Denominators that are ordinals elsewhere: a number only after a number
/// word or `a` (`two thirds`, `a fifth`; not `the third call`).
const PARTS: [&str; 18] = [
    "third",
    "thirds",
    "fourth",
    "fourths",
    "fifth",
    "fifths",
    "sixth",
    "sixths",
    "seventh",
    "sevenths",
    "eighth",
    "eighths",
    "ninth",
    "ninths",
    "tenth",
    "tenths",
    "hundredth",
    "hundredths",
];

/// Words before which `one` is a pronoun or after which it is one thing
/// among others, not a count.
const DETERMINERS: [&str; 13] = [
    "the", "no", "each", "every", "any", "this", "that", "which", "such", "another", "a", "an",
    "some",
];

/// Forms of `be` and `go` after which `up` and `down` say which way a
/// figure went.
const WENT: [&str; 16] = [
    "is", "are", "was", "were", "be", "been", "being", "go", "goes", "went", "gone", "going",
    "rose", "fell", "came", "come",
];

/// Words after a Roman numeral that make it a number (`IV of the tasks`,
/// `XII runs`).
const COUNTED: [&str; 26] = [
    "of",
    "in",
    "out",
    "percent",
    "per",
    "pct",
    "times",
    "points",
    "tasks",
    "runs",
    "calls",
    "cells",
    "seeds",
    "tiers",
    "policies",
    "attempts",
    "tokens",
    "seconds",
    "timeouts",
    "truncations",
    "retries",
    "errors",
    "replays",
    "edits",
    "dollars",
    "usd",
];

/// Words, abbreviations and units that read as Roman numerals (in either
/// case) but are not numbers.
const NOT_ROMAN: [&str; 16] = [
    "mix", "mi", "cm", "mm", "ml", "di", "xi", "ci", "cli", "cd", "dc", "md", "mc", "dl", "cv",
    "li",
];

/// Letters that look like `0` or `1`.
const LOOK_ALIKES: [char; 12] = ['O', 'o', 'l', 'I', 'О', 'о', 'Ο', 'ο', 'І', 'і', 'ӏ', 'Ӏ'];

/// A word of letters, by byte range, lowercased.
struct Token<'a> {
    start: usize,
    end: usize,
    text: &'a str,
    lower: String,
}

fn tokens(prose: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in prose
        .char_indices()
        .chain(std::iter::once((prose.len(), ' ')))
    {
        match (start, c.is_alphabetic()) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let text = &prose[s..i];
                out.push(Token {
                    start: s,
                    end: i,
                    text,
                    lower: text.to_lowercase(),
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether the token is a whole word: no digit or letter glued to it.
fn whole(prose: &str, t: &Token<'_>) -> bool {
    let before = prose[..t.start].chars().next_back();
    let after = prose[t.end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Whether only spaces or one hyphen lie between two tokens.
fn joined(prose: &str, a: &Token<'_>, b: &Token<'_>) -> bool {
    let gap = &prose[a.end..b.start];
    !gap.is_empty() && (gap.trim().is_empty() || gap.trim() == "-")
}

/// The numbers and comparisons of `prose` that do not start with a digit,
/// in order; none overlaps another.
pub fn found(prose: &str) -> Vec<Found<'_>> {
    let tokens = tokens(prose);
    let mut spans: Vec<(usize, usize, Form)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some(end) = number_words(prose, &tokens, i) {
            let start = match i.checked_sub(1).map(|p| &tokens[p]) {
                Some(a)
                    if matches!(a.lower.as_str(), "a" | "an") && joined(prose, a, &tokens[i]) =>
                {
                    a.start
                }
                _ => tokens[i].start,
            };
            let (end_byte, next) = extend_number(prose, &tokens, end);
            spans.push((start, end_byte, Form::Words));
            i = next;
            continue;
        }
        let t = &tokens[i];
        if whole(prose, t) && roman(prose, &tokens, i) {
            spans.push((t.start, t.end, Form::Roman));
        } else if whole(prose, t) && comparison(&tokens, i) {
            spans.push((t.start, t.end, Form::Comparison));
        }
        i += 1;
    }
    spans.extend(
        look_alikes(prose)
            .into_iter()
            .map(|(s, e)| (s, e, Form::LookAlike)),
    );
    spans.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
    let mut out = Vec::new();
    let mut reached = 0;
    for (s, e, form) in spans {
        if s >= reached {
            out.push(Found {
                text: &prose[s..e],
                form,
            });
            reached = e;
        }
    }
    out
}

/// Whether token `i` is a number word where it stands.
fn is_number_word(prose: &str, tokens: &[Token<'_>], i: usize, after_number: bool) -> bool {
    let t = &tokens[i];
    if !whole(prose, t) {
        // Glued to a digit: `one2` is not a word of its own.
        return false;
    }
    let w = t.lower.as_str();
    let previous = i.checked_sub(1).map(|p| tokens[p].lower.as_str());
    if w == "one" && !after_number {
        // A pronoun: after a determiner (`no one`), before `another` or a
        // possessive (`one's`), or closing a clause (`the scripted one,`).
        let rest = prose[t.end..].trim_start_matches(' ');
        let pronoun = previous.is_some_and(|p| DETERMINERS.contains(&p))
            || tokens.get(i + 1).is_some_and(|n| n.lower == "another")
            || rest.starts_with(['\'', '’'])
            || rest
                .chars()
                .next()
                .is_none_or(|c| c.is_ascii_punctuation() && c != '-' && c != '%');
        return !pronoun;
    }
    if PARTS.contains(&w) {
        return after_number || matches!(previous, Some("a" | "an"));
    }
    UNITS.contains(&w) || ALWAYS.contains(&w)
}

/// The last token of the run of number words starting at `i`, if token `i`
/// starts one (`one hundred and five`, `ninety-seven`, `two thirds`).
fn number_words(prose: &str, tokens: &[Token<'_>], i: usize) -> Option<usize> {
    if !is_number_word(prose, tokens, i, false) {
        return None;
    }
    let mut end = i;
    loop {
        let next = end + 1;
        if next < tokens.len()
            && joined(prose, &tokens[end], &tokens[next])
            && is_number_word(prose, tokens, next, true)
        {
            end = next;
        } else if next + 1 < tokens.len()
            && tokens[next].lower == "and"
            && joined(prose, &tokens[end], &tokens[next])
            && joined(prose, &tokens[next], &tokens[next + 1])
            && is_number_word(prose, tokens, next + 1, true)
        {
            end = next + 1;
        } else {
            return Some(end);
        }
    }
}

/// A run of number words ending at token `end`, extended by what makes it a
/// proportion (`percent`, `per cent`, `%`, `in ten`, `out of four`): the
/// byte it ends at and the token after it.
fn extend_number(prose: &str, tokens: &[Token<'_>], end: usize) -> (usize, usize) {
    let mut end = end;
    let after = |k: usize| tokens.get(k).filter(|t| joined(prose, &tokens[k - 1], t));
    match after(end + 1).map(|t| t.lower.as_str()) {
        Some("percent" | "pct") => end += 1,
        Some("per") if after(end + 2).is_some_and(|t| t.lower == "cent") => end += 2,
        Some("in") if after(end + 2).is_some() => {
            if let Some(last) = number_words(prose, tokens, end + 2) {
                end = last;
            }
        }
        Some("out")
            if after(end + 2).is_some_and(|t| t.lower == "of") && after(end + 3).is_some() =>
        {
            if let Some(last) = number_words(prose, tokens, end + 3) {
                end = last;
            }
        }
        _ => {}
    }
    let mut byte = tokens[end].end;
    if prose[byte..].trim_start_matches(' ').starts_with('%') {
        byte += prose[byte..].find('%').unwrap_or(0) + 1;
    }
    (byte, end + 1)
}

/// The value of a Roman numeral written canonically (`IV`, `XII`,
/// `MCMXC`), or `None`.
fn roman_value(word: &str) -> Option<u32> {
    let value = |c: char| match c.to_ascii_uppercase() {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        'D' => Some(500),
        'M' => Some(1000),
        _ => None,
    };
    let digits: Vec<u32> = word.chars().map(value).collect::<Option<_>>()?;
    let mut total = 0;
    for (k, d) in digits.iter().enumerate() {
        if digits.get(k + 1).is_some_and(|n| n > d) {
            total -= *d as i64;
        } else {
            total += *d as i64;
        }
    }
    let total = u32::try_from(total)
        .ok()
        .filter(|t| (1..4000).contains(t))?;
    (canonical(total) == word.to_ascii_uppercase()).then_some(total)
}

fn canonical(mut n: u32) -> String {
    let mut out = String::new();
    for (v, s) in [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ] {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

/// Whether token `i` is a Roman numeral standing for a number: all capitals
/// or all lowercase, canonical, and followed by `%` or a word that counts
/// (`of`, `in`, `tasks`, …). A single letter counts only in capitals, and
/// `I` only before `%` or `percent`.
fn roman(prose: &str, tokens: &[Token<'_>], i: usize) -> bool {
    let t = &tokens[i];
    let upper = t.text.chars().all(|c| c.is_ascii_uppercase());
    let lower = t.text.chars().all(|c| c.is_ascii_lowercase());
    if !(upper || lower) || roman_value(t.text).is_none() {
        return false;
    }
    if (lower && t.text.len() == 1) || NOT_ROMAN.contains(&t.lower.as_str()) {
        return false;
    }
    let percent = prose[t.end..].trim_start_matches(' ').starts_with('%');
    let next = tokens
        .get(i + 1)
        .filter(|n| prose[t.end..n.start].trim().is_empty())
        .map(|n| n.lower.as_str());
    if t.text == "I" {
        return percent || next == Some("percent");
    }
    percent || next.is_some_and(|n| COUNTED.contains(&n))
}

/// Whether token `i` is a comparison word.
fn comparison(tokens: &[Token<'_>], i: usize) -> bool {
    let w = tokens[i].lower.as_str();
    if w == "up" || w == "down" {
        let previous = i.checked_sub(1).map(|p| tokens[p].lower.as_str());
        let next = tokens.get(i + 1).map(|n| n.lower.as_str());
        return previous.is_some_and(|p| WENT.contains(&p)) || matches!(next, Some("by" | "from"));
    }
    DOWN.contains(&w) || UP.contains(&w)
}

/// Words made of digits and letters that look like digits (`l00%`, `O.5`,
/// `lOO%`, `lO0`): every letter a look-alike, written as a quantity (with
/// `%`, or a point or `$` and a digit) or with more than one such letter
/// and a digit; a single letter before digits is a name (`I01`, as `E02`).
/// A word that starts with a digit is a number typed by hand already.
fn look_alikes(prose: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = prose.char_indices().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (at, c) = chars[k];
        let starts = k == 0 || !chars[k - 1].1.is_alphanumeric();
        let lead = LOOK_ALIKES.contains(&c)
            || (c == '$'
                && chars
                    .get(k + 1)
                    .is_some_and(|(_, n)| LOOK_ALIKES.contains(n)));
        if !(starts && lead) {
            k += 1;
            continue;
        }
        let mut j = k + 1;
        while j < chars.len()
            && (chars[j].1.is_alphanumeric() || matches!(chars[j].1, '.' | ',' | '%'))
        {
            j += 1;
        }
        let end = chars.get(j).map_or(prose.len(), |(b, _)| *b);
        let word = prose[at..end].trim_end_matches(['.', ',']);
        let letters_look_alike = word
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| LOOK_ALIKES.contains(&c));
        // A letter and then digits is a name (`E02`, `I01`, `o3`): a
        // look-alike writes a quantity (`%`, a point, `$`) or more than one
        // letter for a digit (`lO0`).
        let digit = word.chars().any(char::is_numeric);
        let quantity = c == '$' || word.contains(['%', '.', ',']);
        let letters = word.chars().filter(|c| LOOK_ALIKES.contains(c)).count();
        if letters_look_alike
            && ((quantity && (digit || word.contains('%'))) || (letters > 1 && digit))
        {
            out.push((at, at + word.len()));
        }
        k = j.max(k + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(prose: &str) -> Vec<(&str, Form)> {
        found(prose).into_iter().map(|f| (f.text, f.form)).collect()
    }

    #[test]
    fn numbers_in_words_are_found_whole() {
        assert_eq!(
            texts("Ninety-seven percent of tasks; nine in ten runs; a hundred per cent; three out of four; one hundred and five calls"),
            vec![
                ("Ninety-seven percent", Form::Words),
                ("nine in ten", Form::Words),
                ("a hundred per cent", Form::Words),
                ("three out of four", Form::Words),
                ("one hundred and five", Form::Words),
            ]
        );
        assert_eq!(
            texts("half of the tasks, two thirds of them, twice as many, fifty %"),
            vec![
                ("half", Form::Words),
                ("two thirds", Form::Words),
                ("twice", Form::Words),
                ("fifty %", Form::Words),
            ]
        );
    }

    #[test]
    fn ordinary_words_are_left_alone() {
        for prose in [
            "No one knows; the one that failed; each one; one another; one's own; the scripted one.",
            "The first call, the third call, the second run.",
            "I ran it. CI runs the CLI; a mix of tasks; MIX of tasks.",
            "Set up the proxy, up to the budget, broken down into steps.",
            "always-large and always-medium; single; none; someone; money; often; alone",
            "E02, H4, IO, lol, OK, Ol, I01, o3, O1.",
        ] {
            assert_eq!(texts(prose), vec![], "{prose}");
        }
    }

    #[test]
    fn roman_numerals_count_where_a_number_stands() {
        assert_eq!(
            texts("IV of the tasks, XII runs, LXXX%, I% and iv of them"),
            vec![
                ("IV", Form::Roman),
                ("XII", Form::Roman),
                ("LXXX", Form::Roman),
                ("I%", Form::LookAlike),
                ("iv", Form::Roman),
            ]
        );
        assert_eq!(roman_value("MCMXC"), Some(1990));
        assert_eq!(roman_value("IIII"), None);
        assert_eq!(roman_value("IC"), None);
    }

    #[test]
    fn digits_written_with_look_alike_letters_are_found() {
        assert_eq!(
            texts("passed l00% of tasks, O.5 of them, lOO%, $l.5, lO0 and IO of them"),
            vec![
                ("l00%", Form::LookAlike),
                ("O.5", Form::LookAlike),
                ("lOO%", Form::LookAlike),
                ("$l.5", Form::LookAlike),
                ("lO0", Form::LookAlike),
            ]
        );
    }

    #[test]
    fn comparison_words_are_found() {
        assert_eq!(
            texts("Dearer per task, it passed fewer tasks; costs went up; down by a bit; more or less"),
            vec![
                ("Dearer", Form::Comparison),
                ("fewer", Form::Comparison),
                ("up", Form::Comparison),
                ("down", Form::Comparison),
                ("more", Form::Comparison),
                ("less", Form::Comparison),
            ]
        );
    }
}
