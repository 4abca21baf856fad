//! Inspect AI's `answer()` scorer: the `pattern()` scorer with one of three
//! patterns that read what follows `ANSWER:`, a letter, a word or the rest
//! of a line. The patterns changed three times, so the one a log's scores
//! were given with is chosen by the Inspect version the log records:
//!
//! - before 0.3.160: the first `ANSWER:` followed by a letter and a non-word
//!   character, by word characters and a line's end, or by a line;
//! - from 0.3.160: the line must be the output's last (`\s*\Z`);
//! - from 0.3.206: a word is any run of non-space characters that ends,
//!   before optional punctuation, at a line's end (a lookahead);
//! - from 0.3.221: the letter and the word are read after the last
//!   `ANSWER:` (a negative lookahead).
//!
//! The lookaheads of the newest patterns are not regular-expression syntax
//! the verifier's engine reads; they are evaluated here by hand, as Python's
//! backtracking search evaluates them.

use regex::Regex;

use super::eras::Era;
use super::scorers::Subject;

/// Which text the scorer reads after `ANSWER:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Letter,
    Word,
    Line,
}

impl Kind {
    /// The kind the scorer's `pattern` option names.
    pub(super) fn parse(name: &str) -> Option<Kind> {
        match name {
            "letter" => Some(Kind::Letter),
            "word" => Some(Kind::Word),
            "line" => Some(Kind::Line),
            _ => None,
        }
    }
}

fn regex(p: &str) -> Regex {
    Regex::new(p).expect("a valid pattern")
}

/// The text the scorer captures from `s`'s completion, `None` when its
/// pattern does not match; `Err` when Python's `re` may read the output
/// differently from the verifier.
pub(super) fn capture(kind: Kind, era: Era, s: &Subject) -> Result<Option<String>, String> {
    let text = s.completion;
    if text.contains(|c| ('\x1c'..='\x1f').contains(&c)) {
        return Err("Python's `\\s` matches the separators \\x1c–\\x1f, which the output holds and which are not white space here".into());
    }
    if kind != Kind::Line && !text.is_ascii() {
        return Err("`\\w` and `\\S` count characters beyond ASCII by different rules in Python's re and here, and the output holds such text".into());
    }
    let latest = era.reads_last_answer();
    Ok(match kind {
        Kind::Letter if latest => {
            last_answer(text, &regex(r"(?i)ANSWER\s*:\s*([A-Za-z])(?:[^\w]|$)"))
        }
        Kind::Letter => first(text, r"(?i)ANSWER\s*:\s*([A-Za-z])(?:[^\w]|\n|$)"),
        Kind::Word if era.word_is_any_run() => any_run(text, latest),
        Kind::Word => first(text, r"(?i)ANSWER\s*:\s*(\w+)(?:\n|$)"),
        Kind::Line if era.line_ends_output() => first(text, r"(?i)ANSWER\s*:\s*([^\n]+)\s*\z"),
        Kind::Line => first(text, r"(?i)ANSWER\s*:\s*([^\n]+)"),
    })
}

/// The first group of the first match. Python's `$` also matches before a
/// final newline; where these patterns use it, a `\n` or `[^\w]` beside it
/// captures the same group.
fn first(text: &str, pattern: &str) -> Option<String> {
    regex(pattern)
        .captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// Whether an `ANSWER:` follows `at` anywhere (`(?!.*ANSWER\s*:)` with `.`
/// matching newlines fails).
fn answer_follows(text: &str, at: usize) -> bool {
    regex(r"(?i)ANSWER\s*:").is_match(&text[at..])
}

/// The first match of `re` (its group 1) after which no `ANSWER:` follows,
/// trying every start in order as Python's search does.
fn last_answer(text: &str, re: &Regex) -> Option<String> {
    let mut start = 0;
    while start <= text.len() {
        let caps = re.captures_at(text, start)?;
        let whole = caps.get(0).expect("match");
        if !answer_follows(text, whole.end()) {
            return caps.get(1).map(|m| m.as_str().to_string());
        }
        start = whole.start() + 1;
        while !text.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// `(?i)ANSWER\s*:\s*(\S+?)(?=[.,;:!?]?\s*(?:\n|$))`, and with `last` also
/// `(?!.*ANSWER\s*:)` under `(?s)`: after each `ANSWER:` (in order), the
/// shortest run of non-space characters that is followed, after one optional
/// punctuation mark, by white space holding a newline or reaching the end
/// (and, with `last`, by no other `ANSWER:`).
fn any_run(text: &str, last: bool) -> Option<String> {
    let head = regex(r"(?i)ANSWER\s*:\s*");
    let mut start = 0;
    while start <= text.len() {
        let m = head.find_at(text, start)?;
        let word_at = m.end();
        let mut end = word_at;
        for c in text[word_at..].chars() {
            if c.is_whitespace() {
                break;
            }
            end += c.len_utf8();
            if line_ends_after(text, end) && !(last && answer_follows(text, end)) {
                return Some(text[word_at..end].to_string());
            }
        }
        start = m.start() + 1;
        while !text.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// `(?=[.,;:!?]?\s*(?:\n|$))` at `at`.
fn line_ends_after(text: &str, at: usize) -> bool {
    let blank_to_line_end = |from: usize| {
        let rest = &text[from..];
        let blank = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        rest[..blank].contains('\n') || blank == rest.len()
    };
    let rest = &text[at..];
    match rest.chars().next() {
        Some(p @ ('.' | ',' | ';' | ':' | '!' | '?')) => {
            blank_to_line_end(at + p.len_utf8()) || blank_to_line_end(at)
        }
        _ => blank_to_line_end(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::inspect::version::Version;

    fn read(kind: Kind, version: Option<Version>, text: &str) -> Option<String> {
        let targets = Vec::new();
        let s = Subject {
            completion: text,
            targets: &targets,
            choices: None,
            inspect: version,
        };
        capture(kind, Era(version), &s).expect("readable")
    }

    const OLD: Option<Version> = Some(Version(0, 3, 130));
    const MID: Option<Version> = Some(Version(0, 3, 200));
    const NEW: Option<Version> = Some(Version(0, 3, 285));

    // Each expectation below is what Python's `re.search` gives with the
    // pattern of that version (checked with CPython 3.11).
    #[test]
    fn the_letter_is_the_first_before_0_3_221_and_the_last_after() {
        let text = "ANSWER: A\nOn reflection, ANSWER: C";
        assert_eq!(read(Kind::Letter, OLD, text).as_deref(), Some("A"));
        assert_eq!(read(Kind::Letter, NEW, text).as_deref(), Some("C"));
        assert_eq!(read(Kind::Letter, NEW, "answer:b.").as_deref(), Some("b"));
        assert_eq!(read(Kind::Letter, NEW, "ANSWER: AB"), None);
        assert_eq!(
            read(Kind::Letter, None, "ANSWER: D\n").as_deref(),
            Some("D")
        );
    }

    #[test]
    fn a_word_is_word_characters_before_0_3_221_and_any_run_to_a_line_end_after() {
        assert_eq!(
            read(Kind::Word, OLD, "ANSWER: yes\nbecause").as_deref(),
            Some("yes")
        );
        assert_eq!(read(Kind::Word, OLD, "ANSWER: yes."), None);
        assert_eq!(
            read(Kind::Word, NEW, "ANSWER: yes.").as_deref(),
            Some("yes")
        );
        assert_eq!(
            read(Kind::Word, NEW, "ANSWER: 3.14").as_deref(),
            Some("3.14")
        );
        assert_eq!(
            read(Kind::Word, NEW, "ANSWER: no \n\nANSWER: yes!").as_deref(),
            Some("yes")
        );
        assert_eq!(read(Kind::Word, NEW, "ANSWER: two words"), None);
        assert_eq!(
            read(Kind::Word, NEW, "ANSWER: a.b.  \n").as_deref(),
            Some("a.b")
        );
    }

    fn unescape(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some(other) => out.push(other),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    /// Every row of tests/fixtures/inspect/answer_cases.tsv, which Python's
    /// own `re` wrote with each generation's patterns.
    #[test]
    fn every_generated_output_reads_as_pythons_re_reads_it() {
        let table = include_str!("../../../tests/fixtures/inspect/answer_cases.tsv");
        let mut rows = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let [version, kind, text, want] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("row {line:?}");
            };
            let version = Version::parse(version);
            let kind = Kind::parse(kind).expect("kind");
            let text = unescape(text);
            let want = want.strip_prefix('=').map(unescape);
            assert_eq!(
                read(kind, version, &text),
                want,
                "{version:?} {kind:?} {text:?}"
            );
            rows += 1;
        }
        assert!(rows > 4500, "{rows} rows");
    }

    #[test]
    fn a_line_must_end_the_output_from_0_3_160() {
        let text = "ANSWER: the rest\nmore text";
        assert_eq!(read(Kind::Line, OLD, text).as_deref(), Some("the rest"));
        assert_eq!(read(Kind::Line, MID, text), None);
        assert_eq!(
            read(Kind::Line, NEW, "x\nANSWER: the rest  \n").as_deref(),
            Some("the rest  ")
        );
    }
}
