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
    Bound { text: String, target: Target },
    /// A number that is not measured, marked as such: `[text](#registered)`.
    Registered(String),
}

/// What a bound number claims.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Figure(FigurePath),
    /// `change(a,b)`: the relative change from `b` to `a`, in percent.
    Change(FigurePath, FigurePath),
    /// `diff(a,b)`: `a − b`, in `a`'s unit (points for rates).
    Diff(FigurePath, FigurePath),
    /// `ratio(a,b)`: `a / b`.
    Ratio(FigurePath, FigurePath),
}

/// A figure: `<experiment>[/<analysis>].<policy>.<field>`, the analysis
/// being the primary one when none is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigurePath {
    pub experiment: String,
    pub analysis: Option<String>,
    pub policy: String,
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

fn parse_target(target: &str) -> Result<Target, String> {
    let target = target.trim();
    for (name, make) in [
        (
            "change",
            Target::Change as fn(FigurePath, FigurePath) -> Target,
        ),
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
            return Ok(make(figure_path(a)?, figure_path(b)?));
        }
    }
    figure_path(target).map(Target::Figure)
}

/// Parses `E02.ladder.pass_rate_pct` or `E02/reruns-replace.ladder.pass_rate_pct`.
pub fn figure_path(s: &str) -> Result<FigurePath, String> {
    let s = s.trim();
    let parts: Vec<&str> = s.split('.').collect();
    let [head, policy, field] = parts.as_slice() else {
        return Err(format!(
            "`{s}` is not a figure: write <experiment>.<policy>.<field>, e.g. E02.ladder.pass_rate_pct"
        ));
    };
    let (experiment, analysis) = match head.split_once('/') {
        Some((e, a)) => (e, Some(a.to_string())),
        None => (*head, None),
    };
    let word = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
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
/// (or a sign or currency symbol before one). `E02`, `H4` and `8B-model`
/// names start with a letter and are not numbers.
pub fn hand_typed(prose: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = prose.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b'.');
        let lead = match bytes[i] {
            b'$' | b'-' | b'+' | b'~' => bytes.get(i + 1).is_some_and(u8::is_ascii_digit),
            b => b.is_ascii_digit(),
        };
        if starts_word && lead {
            let start = i;
            i += 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'.' | b',' | b'%'))
            {
                i += 1;
            }
            let word = prose[start..i].trim_end_matches(['.', ',']);
            out.push(word);
        } else {
            i += 1;
        }
    }
    out
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
    fn hand_typed_numbers_are_words_that_start_with_a_digit() {
        assert_eq!(
            hand_typed("H4 · E02: 89% of tasks at $0.0051, 2x R6 8B-model 3."),
            vec!["89%", "$0.0051", "2x", "8B", "3"]
        );
    }
}
