//! Claims on the page: a headline's, a finding's or a memo's bound numbers
//! shown as written with their receipt (✓, or ✗ and the recomputed value),
//! a number typed by hand marked as such, a figure whose link has no text
//! shown as recomputed. The link itself never reaches the page.

use serde::Serialize;

use receipts_verifier::claims::{self, judge_bound, show_figure, syntax, Figures, Segment};

use crate::escape;

/// One part of a claim's text.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClaimPart {
    /// Prose, as written.
    Text { text: String },
    /// A number bound to a figure.
    Bound {
        /// As written, or the figure shown as recomputed when the link has no text.
        shown: String,
        /// What the link names, e.g. `E02.ladder.pass_rate_pct`.
        target: String,
        pass: bool,
        /// The figure recomputed, or why the claim fails.
        recomputed: String,
        /// The secondary analyses the target reads, shown beside the mark:
        /// a figure true only of another analysis says so on the page.
        analyses: Vec<String>,
    },
    /// A number marked as not measured (a date, a limit).
    Registered { text: String },
    /// A number typed by hand (in digits, in words, as a Roman numeral or
    /// with look-alike letters), or a comparison word bound to nothing.
    Typed {
        text: String,
        /// How it is written, as the page says it: `typed by hand`,
        /// `written in words`, ….
        form: &'static str,
    },
}

/// The parts of claim `text`, judged against `figures`.
pub fn claim_parts(text: &str, figures: &Figures<'_>) -> Vec<ClaimPart> {
    parts_with(text, &|text, target| bound_part(text, target, figures))
}

/// The parts of claim `text`, each bound number judged by `judge` against
/// a figure of unit `unit` (a claim about something other than the
/// study's figures, such as an edit's verdict summary).
pub fn claim_parts_by(
    text: &str,
    judge: &dyn Fn(&str, &claims::Target) -> Result<claims::Bound, String>,
    unit: &dyn Fn(&claims::Target) -> claims::Unit,
) -> Vec<ClaimPart> {
    parts_with(text, &|text, target| {
        let judged = judge(text, target);
        let unit = unit(target);
        ClaimPart::Bound {
            shown: match (&judged, text.trim().is_empty()) {
                (Ok(b), true) => show_figure(*b, unit),
                _ => text.to_string(),
            },
            target: target.to_string(),
            pass: judged.is_ok(),
            recomputed: match judged {
                Ok(b) => format!("recomputed {}", show_figure(b, unit)),
                Err(why) => why,
            },
            analyses: Vec::new(),
        }
    })
}

fn parts_with(text: &str, bound: &dyn Fn(&str, &claims::Target) -> ClaimPart) -> Vec<ClaimPart> {
    let Ok(segments) = syntax::parse(text) else {
        return vec![ClaimPart::Typed {
            text: text.to_string(),
            form: claims::words::Form::Digits.mark(),
        }];
    };
    let mut out = Vec::new();
    for segment in segments {
        match segment {
            Segment::Text(prose) => prose_parts(&prose, &mut out),
            Segment::Registered(text) => out.push(ClaimPart::Registered { text }),
            Segment::Bound { text, target } => out.push(bound(&text, &target)),
        }
    }
    out
}

fn bound_part(text: &str, target: &claims::Target, figures: &Figures<'_>) -> ClaimPart {
    let judged = judge_bound(text, target, figures);
    let mut analyses: Vec<String> = target
        .figures()
        .into_iter()
        .filter_map(|f| match f {
            claims::Figure::Policy(p) => p.analysis.clone(),
            claims::Figure::Study(_) => None,
        })
        .collect();
    analyses.dedup();
    let shown = match (&judged, text.trim().is_empty()) {
        (Ok(b), true) => show_figure(*b, figures.target_unit(target)),
        _ => text.to_string(),
    };
    ClaimPart::Bound {
        shown,
        target: target.to_string(),
        pass: judged.is_ok(),
        recomputed: match judged {
            Ok(b) => format!("recomputed {}", show_figure(b, figures.target_unit(target))),
            Err(why) => why,
        },
        analyses,
    }
}

/// A bound number with its figure, or a number marked as not measured,
/// for the table of a page's claims.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimRow {
    pub shown: String,
    pub target: String,
    /// `pass`, `fail`, or `registered` for a number marked as not measured.
    pub status: &'static str,
    pub recomputed: String,
}

/// The bound numbers of claims, each with what it names, and the numbers
/// marked as not measured.
pub fn claim_rows<'p>(parts: impl IntoIterator<Item = &'p ClaimPart>) -> Vec<ClaimRow> {
    parts
        .into_iter()
        .filter_map(|p| match p {
            ClaimPart::Bound {
                shown,
                target,
                pass,
                recomputed,
                ..
            } => Some(ClaimRow {
                shown: shown.clone(),
                target: target.clone(),
                status: if *pass { "pass" } else { "fail" },
                recomputed: recomputed.clone(),
            }),
            ClaimPart::Registered { text } => Some(ClaimRow {
                shown: text.clone(),
                target: syntax::REGISTERED.to_string(),
                status: "registered",
                recomputed: "marked by the author as not a measured figure: not recomputed"
                    .to_string(),
            }),
            _ => None,
        })
        .collect()
}

/// The bound numbers of a memo, line by line.
pub fn memo_rows(markdown: &str, figures: &Figures<'_>) -> Vec<ClaimRow> {
    let parts: Vec<ClaimPart> = syntax::memo_prose(markdown)
        .iter()
        .flat_map(|line| claim_parts(line, figures))
        .collect();
    claim_rows(&parts)
}

/// Prose split around the numbers and comparisons typed into it by hand.
fn prose_parts(prose: &str, out: &mut Vec<ClaimPart>) {
    let mut rest = prose;
    for found in syntax::unbound(prose) {
        // `unbound` returns slices of `prose`, in order.
        let number = found.text;
        let at = number.as_ptr() as usize - rest.as_ptr() as usize;
        if at > 0 {
            out.push(ClaimPart::Text {
                text: rest[..at].to_string(),
            });
        }
        out.push(ClaimPart::Typed {
            text: number.to_string(),
            form: found.form.mark(),
        });
        rest = &rest[at + number.len()..];
    }
    if !rest.is_empty() {
        out.push(ClaimPart::Text {
            text: rest.to_string(),
        });
    }
}

/// A claim's parts as HTML, every text escaped.
pub fn parts_html(parts: &[ClaimPart]) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            ClaimPart::Text { text } => out.push_str(&escape::html(text)),
            ClaimPart::Registered { text } => out.push_str(&registered_html(text)),
            ClaimPart::Bound {
                shown,
                target,
                pass: true,
                recomputed,
                analyses,
            } => out.push_str(&format!(
                "<span class=\"claim pass\" title=\"{}: {}\">{}<span class=\"mark\"> ✓{}</span></span>",
                escape::html(target),
                escape::html(recomputed),
                escape::html(shown),
                analyses
                    .iter()
                    .map(|a| format!(" ({} analysis)", escape::html(a)))
                    .collect::<String>()
            )),
            ClaimPart::Bound {
                shown,
                target,
                pass: false,
                recomputed,
                ..
            } => out.push_str(&format!(
                "<span class=\"claim fail\" title=\"{}\">{}<span class=\"mark\"> ✗ {}</span></span>",
                escape::html(target),
                escape::html(shown),
                escape::html(recomputed)
            )),
            ClaimPart::Typed { text, form } => out.push_str(&format!(
                "<span class=\"claim fail\">{}<span class=\"mark\"> ✗ {}, not bound to a figure</span></span>",
                escape::html(text),
                escape::html(form)
            )),
        }
    }
    out
}

/// A number its author marked as not measured: shown as such, never
/// passed off as checked.
fn registered_html(text: &str) -> String {
    format!(
        "<span class=\"claim registered\" title=\"marked by the author as not a measured figure: not recomputed\">{}</span>",
        escape::html(text)
    )
}

/// Claims in a memo's Markdown, for [`crate::markdown::render_memo`].
pub struct MemoClaims<'f, 'a> {
    pub figures: &'f Figures<'a>,
}

impl crate::markdown::Claims for MemoClaims<'_, '_> {
    fn bound(&self, text: &str, target: &str) -> Option<String> {
        let target = syntax::parse_target(target).ok()?;
        Some(parts_html(&[bound_part(text, &target, self.figures)]))
    }

    fn prose(&self, text: &str) -> String {
        let mut parts = Vec::new();
        prose_parts(text, &mut parts);
        parts_html(&parts)
    }

    fn registered(&self, text: &str, target: &str) -> Option<String> {
        (target == syntax::REGISTERED).then(|| registered_html(text))
    }
}
