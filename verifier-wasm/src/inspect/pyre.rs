//! Where Python's `re`, which Inspect's `pattern` scorer searches with, and
//! the verifier's regular expressions may read a pattern differently. The
//! two agree on the syntax scorers use (literals, classes, groups,
//! repetition, alternation, anchors); where they part, a recomputed score
//! could differ from Inspect's without either being wrong, so the score is
//! left as could not be checked instead of passed or failed.

/// Why searching `text` for `pattern` might not find what Python's `re`
/// finds, when it might not.
pub fn differs_from_python(pattern: &str, text: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut word, mut space, mut dollar) = (false, false, false);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after = chars.get(i + 2).copied();
        if c == '\\' {
            match next {
                Some(n @ ('p' | 'P' | 'z' | 'Z')) => {
                    return Some(format!(
                        "the pattern's `\\{n}` is not what Python's re reads (it refuses `\\p`, `\\P` and `\\z`; its `\\Z` is another anchor's name here)"
                    ));
                }
                Some(n @ ('x' | 'u')) if after == Some('{') => {
                    return Some(format!(
                        "the pattern's `\\{n}{{…}}` escape is not Python's syntax"
                    ));
                }
                Some('b') if after == Some('{') => {
                    return Some("the pattern's `\\b{…}` boundary is not Python's syntax".into());
                }
                Some('w' | 'W' | 'b' | 'B') => word = true,
                Some('s' | 'S') => space = true,
                _ => {}
            }
            i += 2;
            continue;
        }
        if in_class {
            match (c, next) {
                (']', _) => in_class = false,
                ('[', _) => {
                    return Some(
                        "a `[` inside a character class nests a class here but is a literal `[` in Python's re"
                            .into(),
                    );
                }
                ('&', Some('&')) | ('-', Some('-')) | ('~', Some('~')) => {
                    return Some(format!(
                        "`{c}{c}` inside a character class is a set operation here but literal characters in Python's re"
                    ));
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                // A `]` first in the class (after an optional `^`) is a literal in both.
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                continue;
            }
            '$' => dollar = true,
            '(' if next == Some('?') => {
                if after == Some('<') && !matches!(chars.get(i + 3), Some('=' | '!')) {
                    return Some(
                        "the pattern names a group as `(?<name>…)`, which Python's re refuses; it writes `(?P<name>…)`"
                            .into(),
                    );
                }
                let flags: String = chars[i + 2..]
                    .iter()
                    .take_while(|f| f.is_ascii_alphabetic() || **f == '-')
                    .collect();
                if flags.contains(['U', 'R']) {
                    return Some(format!(
                        "the pattern's flags `{flags}` mean something else here (`U` swaps greedy and lazy, `R` reads CRLF) than in Python's re"
                    ));
                }
            }
            _ => {}
        }
        i += 1;
    }
    if dollar && text.ends_with('\n') {
        return Some(
            "Python's `$` also matches just before a final newline, which the output ends with"
                .into(),
        );
    }
    if word && !text.is_ascii() {
        return Some(
            "`\\w` and `\\b` count word characters beyond ASCII by different rules in Python's re and here, and the output holds such text"
                .into(),
        );
    }
    if space && text.contains(|c| ('\x1c'..='\x1f').contains(&c)) {
        return Some(
            "Python's `\\s` matches the separators \\x1c–\\x1f, which the output holds and which are not white space here"
                .into(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::differs_from_python;

    #[test]
    fn patterns_both_engines_read_alike_are_recomputed() {
        for (pattern, text) in [
            (r"ANSWER:\s*([A-D])", "ANSWER: B"),
            (r"(?i)answer is (\d+)", "The answer is 42"),
            (r"[^\]a-z]+$", "ABC"),
            (r"(?P<n>\d+)", "12"),
            (r"(?<=x)y", "xy"),
            (r"\bcat\b", "a cat"),
            (r"[a-]x", "-x"),
        ] {
            assert_eq!(differs_from_python(pattern, text), None, "{pattern}");
        }
    }

    #[test]
    fn patterns_the_engines_read_differently_are_named() {
        for (pattern, text, words) in [
            (r"\p{L}+", "abc", "\\p"),
            (r"end\z", "end", "\\z"),
            (r"\x{41}", "A", "\\x{…}"),
            (r"[[:alpha:]]+", "abc", "nests a class"),
            (r"[a-z&&[^aeiou]]", "b", "set operation"),
            (r"[a-z[0-9]]", "b", "nests a class"),
            (r"[a-z--b]", "b", "set operation"),
            (r"(?<n>\d+)", "12", "(?P<name>"),
            (r"(?U)a+", "aaa", "swaps greedy"),
            (r"done$", "done\n", "final newline"),
            (r"\w+", "naïve", "beyond ASCII"),
            (r"a\sb", "a\x1cb", "\\x1c"),
        ] {
            let why = differs_from_python(pattern, text).unwrap_or_default();
            assert!(why.contains(words), "{pattern}: {why:?}");
        }
    }
}
