//! Long texts folded: a page shows the first part of a long message, tool
//! result or artifact and keeps the rest behind a control that says how
//! much more there is, so one long text does not bury the rest of the page.
//! Nothing is cut: the head and the rest together are the text.

use serde::Serialize;

use receipts_verifier::claims::{show_figure, Bound, Unit};

/// A text split for the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Folded {
    /// What the page shows at once.
    pub head: String,
    /// The rest, behind a control; `None` when the text is short.
    pub rest: Option<String>,
    /// The rest's length in characters and in lines, in words for the control.
    pub rest_size: String,
    /// The whole text's length in characters.
    pub chars: String,
}

/// Splits `text` after about `at` characters, at a line break or else a
/// space in the second half of that span when there is one. A text up to
/// half as long again as `at` stays whole: folding off a short tail would
/// hide less than the control takes.
pub fn fold(text: &str, at: usize) -> Folded {
    let chars = text.chars().count();
    let count = |n: usize| show_figure(Bound::exact(n as f64), Unit::Count);
    if chars <= at + at / 2 {
        return Folded {
            head: text.to_string(),
            rest: None,
            rest_size: String::new(),
            chars: count(chars),
        };
    }
    let limit = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
    let floor = text.char_indices().nth(at / 2).map_or(0, |(i, _)| i);
    let window = &text[floor..limit];
    let cut = window
        .rfind('\n')
        .or_else(|| window.rfind(' '))
        .map_or(limit, |i| floor + i + 1);
    let (head, rest) = text.split_at(cut);
    let rest_chars = rest.chars().count();
    let rest_lines = rest.lines().count();
    Folded {
        head: head.to_string(),
        rest: Some(rest.to_string()),
        rest_size: format!(
            "{} more character{} on {} line{}",
            count(rest_chars),
            if rest_chars == 1 { "" } else { "s" },
            count(rest_lines),
            if rest_lines == 1 { "" } else { "s" },
        ),
        chars: count(chars),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_stays_whole() {
        let f = fold("hello", 10);
        assert_eq!((f.head.as_str(), f.rest), ("hello", None));
        // Up to half as long again as the fold point.
        assert_eq!(fold(&"x".repeat(15), 10).rest, None);
        assert!(fold(&"x".repeat(16), 10).rest.is_some());
    }

    #[test]
    fn nothing_is_lost_and_the_cut_falls_on_a_line_break() {
        let text: String = (0..400).map(|i| format!("line {i} — ünïcode\n")).collect();
        let f = fold(&text, 1000);
        let rest = f.rest.clone().unwrap();
        assert_eq!(format!("{}{rest}", f.head), text);
        assert!(f.head.ends_with('\n'), "{:?}", &f.head[f.head.len() - 20..]);
        assert!(f.head.chars().count() <= 1000 && f.head.chars().count() > 500);
        assert_eq!(
            f.rest_size,
            format!(
                "{} more characters on {} lines",
                show_figure(Bound::exact(rest.chars().count() as f64), Unit::Count),
                rest.lines().count()
            )
        );
        assert!(f.rest_size.contains(','), "{}", f.rest_size);
    }

    #[test]
    fn without_a_break_the_cut_falls_on_a_space_or_else_at_the_point() {
        let words = "word ".repeat(100);
        let f = fold(&words, 52);
        assert!(f.head.ends_with(' ') && f.head.len() <= 52);
        let solid = "é".repeat(100);
        let f = fold(&solid, 40);
        assert_eq!(f.head.chars().count(), 40);
        assert_eq!(format!("{}{}", f.head, f.rest.unwrap()), solid);
    }
}
