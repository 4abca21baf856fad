//! The syntax of a claim: prose in which every measured number is a
//! Markdown link whose target names what it claims, e.g.
//!
//! ```text
//! The ladder passed [83.3%](#E02.ladder.pass_rate_pct) of tasks, at
//! [1.5–5.5% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd))
//! cost than always-large, within a [30 s](#registered) target.
//! ```
//!
//! A link's text is the claim as written; its target, after `#`, is a
//! figure path, a derived figure (`change`, `diff`, `ratio` of two figures)
//! or `registered` for a number that is not measured (a date, a limit, a
//! count of things nobody recomputes). Any other number in the prose is a
//! number typed by hand. Identifiers such as `E02`, `H4` or `R6` are not
//! numbers: a number starts a word.

/// A part of a claim's text.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// Prose, as written.
    Text(String),
    /// A number bound to what it claims: `[text](#target)`.
    Bound {
        /// The link's text: the number as written.
        text: String,
        /// What the number claims.
        target: Target,
    },
    /// A number that is not measured, marked as such: `[text](#registered)`.
    Registered(String),
}

/// What a bound number claims.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A figure as it is.
    Figure(Figure),
    /// `change(a,b)`: the relative change from `b` to `a`, in percent.
    Change(Figure, Figure),
    /// `diff(a,b)`: `a − b`, in `a`'s unit (points for rates).
    Diff(Figure, Figure),
    /// `ratio(a,b)`: `a / b`.
    Ratio(Figure, Figure),
}

impl Target {
    /// The figures the target reads.
    pub fn figures(&self) -> Vec<&Figure> {
        match self {
            Target::Figure(f) => vec![f],
            Target::Change(a, b) | Target::Diff(a, b) | Target::Ratio(a, b) => vec![a, b],
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Figure(x) => write!(f, "{x}"),
            Target::Change(a, b) => write!(f, "change({a},{b})"),
            Target::Diff(a, b) => write!(f, "diff({a},{b})"),
            Target::Ratio(a, b) => write!(f, "ratio({a},{b})"),
        }
    }
}

/// A figure a target reads: one of an experiment's analyses, or one of the
/// study's (`study.<name>`: a total over every experiment, or a derived
/// figure the study names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Figure {
    /// A policy's figure in one of an experiment's analyses.
    Policy(FigurePath),
    /// The study's figure of this name (`study.<name>`).
    Study(String),
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Policy(p) => write!(f, "{p}"),
            Figure::Study(name) => write!(f, "{STUDY}.{name}"),
        }
    }
}

/// The prefix of the study's figures.
pub const STUDY: &str = "study";

/// A figure: `<experiment>[/<analysis>].<policy>.<field>`, the analysis
/// being the primary one when none is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigurePath {
    /// The experiment, by its id (`E02`).
    pub experiment: String,
    /// The secondary analysis's id, or `None` for the primary analysis.
    pub analysis: Option<String>,
    /// The policy's id.
    pub policy: String,
    /// The figure's field in the policy's recomputed numbers (`pass_rate_pct`).
    pub field: String,
}

impl std::fmt::Display for FigurePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.experiment)?;
        if let Some(a) = &self.analysis {
            write!(f, "/{a}")?;
        }
        write!(f, ".{}.{}", self.policy, self.field)
    }
}

use super::words::{self, Form, Found};

/// The target that marks a number as not measured.
pub const REGISTERED: &str = "registered";

/// Parses `text` into segments; the error names the byte offset and what
/// is wrong.
pub fn parse(text: &str) -> Result<Vec<Segment>, (usize, String)> {
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('[') {
        let Some((label, target, used)) = link(&rest[open..]) else {
            prose.push_str(&rest[..=open]);
            offset += open + 1;
            rest = &rest[open + 1..];
            continue;
        };
        prose.push_str(&rest[..open]);
        if !prose.is_empty() {
            out.push(Segment::Text(std::mem::take(&mut prose)));
        }
        let at = offset + open;
        if target == REGISTERED {
            out.push(Segment::Registered(label.to_string()));
        } else {
            let target = parse_target(target).map_err(|e| (at, e))?;
            out.push(Segment::Bound {
                text: label.to_string(),
                target,
            });
        }
        offset += open + used;
        rest = &rest[open + used..];
    }
    prose.push_str(rest);
    if !prose.is_empty() {
        out.push(Segment::Text(prose));
    }
    Ok(out)
}

/// `[label](#target)` at the start of `s`: the label, the target and the bytes used.
fn link(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find(']')?;
    let label = &s[1..close];
    if label.contains('[') {
        return None;
    }
    let after = &s[close + 1..];
    let after = after.strip_prefix("(#")?;
    let end = after.find(')')?;
    // Derived targets hold parentheses of their own: `change(a,b)`.
    let end = if after[..end].contains('(') {
        end + 1 + after[end + 1..].find(')')?
    } else {
        end
    };
    Some((label, &after[..end], close + 1 + 2 + end + 1))
}

/// Parses a target: a figure, or `change`, `diff` or `ratio` of two.
pub fn parse_target(target: &str) -> Result<Target, String> {
    let target = target.trim();
    for (name, make) in [
        ("change", Target::Change as fn(Figure, Figure) -> Target),
        ("diff", Target::Diff),
        ("ratio", Target::Ratio),
    ] {
        if let Some(args) = target
            .strip_prefix(name)
            .and_then(|r| r.strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
        {
            let (a, b) = args
                .split_once(',')
                .ok_or_else(|| format!("`{target}`: {name} takes two figures, `{name}(a,b)`"))?;
            return Ok(make(figure(a)?, figure(b)?));
        }
    }
    figure(target).map(Target::Figure)
}

/// Parses a figure: `study.<name>` or a figure path.
pub fn figure(s: &str) -> Result<Figure, String> {
    let s = s.trim();
    match s.split_once('.') {
        Some((STUDY, name)) if !name.contains('.') => {
            if is_name(name) {
                Ok(Figure::Study(name.to_string()))
            } else {
                Err(format!(
                    "`{s}` is not a figure: names are letters, digits, `-` and `_`"
                ))
            }
        }
        _ => figure_path(s).map(Figure::Policy),
    }
}

/// A name of a policy, a figure or an analysis: letters, digits, `-`, `_`.
pub fn is_name(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Parses `E02.ladder.pass_rate_pct` or `E02/reruns-replace.ladder.pass_rate_pct`.
pub fn figure_path(s: &str) -> Result<FigurePath, String> {
    let s = s.trim();
    let parts: Vec<&str> = s.split('.').collect();
    let [head, policy, field] = parts.as_slice() else {
        return Err(format!(
            "`{s}` is not a figure: write <experiment>.<policy>.<field>, e.g. E02.ladder.pass_rate_pct, or study.<name>"
        ));
    };
    let (experiment, analysis) = match head.split_once('/') {
        Some((e, a)) => (e, Some(a.to_string())),
        None => (*head, None),
    };
    let word = is_name;
    if !word(experiment)
        || !word(policy)
        || !word(field)
        || analysis.as_deref().is_some_and(|a| !word(a))
    {
        return Err(format!(
            "`{s}` is not a figure: names are letters, digits, `-` and `_`"
        ));
    }
    Ok(FigurePath {
        experiment: experiment.to_string(),
        analysis,
        policy: policy.to_string(),
        field: field.to_string(),
    })
}

/// The numbers typed by hand into prose: each word that starts with a digit
/// of any script or a numeric sign such as `¾` (or a sign, a currency
/// symbol or a multiplier `x` before one). `E02`, `H4` and `8B-model` names
/// start with a letter and are not numbers; `x2` is.
pub fn hand_typed(prose: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = prose.char_indices().collect();
    let numeric = |i: usize| chars.get(i).is_some_and(|(_, c)| c.is_numeric());
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        // A word starts after a character that is not a letter or a digit,
        // or a point that follows a letter (`No.3`); `v1.2.3` is one word.
        let starts_word = i == 0
            || !(chars[i - 1].1.is_alphanumeric()
                || (chars[i - 1].1 == '.' && i >= 2 && chars[i - 2].1.is_numeric()));
        let lead = match c {
            '$' | '-' | '+' | '~' | '−' | '×' | 'x' | 'X' => numeric(i + 1),
            c => c.is_numeric(),
        };
        if starts_word && lead {
            i += 1;
            while i < chars.len()
                && (chars[i].1.is_alphanumeric() || matches!(chars[i].1, '.' | ',' | '%' | '/'))
            {
                i += 1;
            }
            let end = chars.get(i).map_or(prose.len(), |(j, _)| *j);
            let word = prose[at..end].trim_end_matches(['.', ',', '/']);
            out.push(word);
        } else {
            i += 1;
        }
    }
    out
}

/// Every number and comparison of `prose` that is not bound, in order:
/// the numbers [`hand_typed`] in digits, and those [`super::words`] finds
/// written otherwise (in words, as Roman numerals, with look-alike
/// letters), and comparison words.
pub fn unbound(prose: &str) -> Vec<Found<'_>> {
    let mut all: Vec<Found<'_>> = hand_typed(prose)
        .into_iter()
        .map(|text| Found {
            text,
            form: Form::Digits,
        })
        .chain(words::found(prose))
        .collect();
    let at = |f: &Found<'_>| f.text.as_ptr() as usize - prose.as_ptr() as usize;
    all.sort_by_key(|f| (at(f), std::cmp::Reverse(f.text.len())));
    let mut out: Vec<Found<'_>> = Vec::new();
    let mut reached = 0;
    for f in all {
        if at(&f) >= reached {
            reached = at(&f) + f.text.len();
            out.push(f);
        }
    }
    out
}

/// Whether a code span is an identifier, which a claim does not read: one
/// word of ASCII letters, digits and `_ . - / : @ +`, starting with a
/// letter or `_` and holding a digit or one of those signs
/// (`study.total_cost_usd`, `gpt-4o-mini`, `E02-release-brief-careful-s2-ladder`),
/// in which nothing reads as a number or a comparison on its own and which
/// is no multiplier (`x2`). Any other code span (`x = 5`, `8192`,
/// `ninety-seven`, `O.5`) is prose.
pub fn is_identifier(code: &str) -> bool {
    const SIGNS: &str = "_.-/:@+";
    let mut chars = code.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let multiplier = matches!(first, 'x' | 'X') && chars.next().is_some_and(|c| c.is_ascii_digit());
    (first.is_ascii_alphabetic() || first == '_')
        && !multiplier
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || SIGNS.contains(c))
        && code
            .chars()
            .any(|c| c.is_ascii_digit() || SIGNS.contains(c))
        && words::found(code).is_empty()
}

/// The prose of a Markdown memo, line for line, with what is not a claim
/// blanked: fenced code blocks, code spans that are identifiers (any other
/// code span is prose, see [`is_identifier`]), the address of a link that
/// is not a claim (its text is kept), and list numbers. An HTML comment is
/// prose: the page shows it as text. Lines keep their numbers, so a receipt
/// can name the line.
pub fn memo_prose(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            out.push(String::new());
            continue;
        }
        if let Some(f) = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f)) {
            fence = Some(f);
            out.push(String::new());
            continue;
        }
        out.push(strip_list_number(&outside_links(&without_code_spans(line))));
    }
    out
}

fn without_code_spans(line: &str) -> String {
    // An escaped backtick opens no code span.
    let unescaped = line.replace("\\`", "\u{0}");
    let mut out = String::new();
    let mut parts = unescaped.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    // Odd parts are inside a code span; an unclosed one stays prose.
    let rest: Vec<&str> = parts.collect();
    let closed = rest.len() - rest.len() % 2;
    for (i, part) in rest.iter().enumerate() {
        if i >= closed {
            out.push('`');
            out.push_str(part);
        } else if i % 2 == 1 || !is_identifier(part) {
            out.push_str(part);
        }
    }
    out.replace('\u{0}', "\\`")
}

/// `[text](address)` with an address that is not `#…` keeps only its text.
fn outside_links(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        if after.starts_with('#') {
            out.push_str(&rest[..i + 2]);
            rest = after;
            continue;
        }
        match after.find(')') {
            Some(end) => {
                out.push_str(&rest[..=i]);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[..i + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `3. item` or `3) item` at the start of a line is a list's numbering.
fn strip_list_number(line: &str) -> String {
    let trimmed = line.trim_start();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0
        && matches!(trimmed.as_bytes().get(digits), Some(b'.' | b')'))
        && matches!(trimmed.as_bytes().get(digits + 1), Some(b' ') | None)
    {
        let indent = line.len() - trimmed.len();
        format!("{}{}", &line[..indent], &trimmed[digits + 1..])
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn links_bind_numbers_and_the_rest_is_prose() {
        let s = parse("The ladder passed [83.3%](#E02.ladder.pass_rate_pct) at [1.6–4.9% lower](#change(E02.ladder.cost_per_task_usd,E02.always-large.cost_per_task_usd)) cost, in [30 s](#registered) [x].").unwrap();
        assert_eq!(s.len(), 7, "{s:?}");
        assert!(
            matches!(&s[1], Segment::Bound { text, target: Target::Figure(f) } if text == "83.3%" && f.to_string() == "E02.ladder.pass_rate_pct")
        );
        assert!(
            matches!(&parse("[$0.72](#study.total_cost_usd)").unwrap()[0], Segment::Bound { target: Target::Figure(Figure::Study(n)), .. } if n == "total_cost_usd")
        );
        assert!(matches!(
            &s[3],
            Segment::Bound {
                target: Target::Change(..),
                ..
            }
        ));
        assert_eq!(s[5], Segment::Registered("30 s".into()));
        assert!(parse("[1](#E02.ladder)").is_err());
    }
    #[test]
    fn a_memo_claims_its_prose_not_its_code_or_addresses() {
        let md = "# Memo\n\n1. Ran [83.3%](#E02.ladder.pass_rate_pct) see [run 7](https://x.test/7).\n```\n42\n```\nCode `x = 5` <!-- 9 --> 3 left \\`8\\`\n";
        let lines = memo_prose(md);
        assert_eq!(
            lines[2],
            " Ran [83.3%](#E02.ladder.pass_rate_pct) see [run 7]."
        );
        assert_eq!(lines[4], "");
        assert_eq!(
            hand_typed(&lines[6]),
            vec!["5", "9", "3", "8"],
            "code spans other than identifiers, comments and escaped backticks are prose"
        );
        let segments = parse(&lines[2]).unwrap();
        let typed: Vec<&str> = segments
            .iter()
            .flat_map(|s| match s {
                Segment::Text(t) => hand_typed(t),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(typed, vec!["7"], "a link's text is prose");
    }

    #[test]
    fn hand_typed_numbers_are_words_that_start_with_a_digit() {
        assert_eq!(
            hand_typed("H4 · E02: 89% of tasks at $0.0051, 2x R6 8B-model 3."),
            vec!["89%", "$0.0051", "2x", "8B", "3"]
        );
        assert_eq!(
            hand_typed("passed .89 of tasks, No.3, _89%_, x2 faster, ８９%, ¾ of it, 1/2, v1.2.3"),
            vec!["89", "3", "89%", "x2", "８９%", "¾", "1/2"]
        );
    }

    #[test]
    fn a_code_span_is_prose_unless_it_is_an_identifier() {
        for id in [
            "study.total_cost_usd",
            "gpt-4o-mini",
            "E02-release-brief-careful-s2-ladder",
            "docs/memos/limitations.md",
            "E02",
        ] {
            assert!(is_identifier(id), "{id}");
        }
        for prose in [
            "x = 5",
            "8192",
            "ninety-seven",
            "O.5",
            "x2",
            "l00%",
            "match",
            "IV",
        ] {
            assert!(!is_identifier(prose), "{prose}");
        }
        let lines = memo_prose("Spent `8192` tokens on `gpt-4o-mini`, `ninety-seven` of them.");
        let found: Vec<&str> = unbound(&lines[0]).iter().map(|f| f.text).collect();
        assert_eq!(found, vec!["8192", "ninety-seven"]);
    }
}
