//! Checks of a research brief: exact quotes, forbidden citations, required items.
//!
//! A brief is JSON: `{"summary": "...", "items": [{"topic": "...",
//! "claim": "...", "quote": "...", "source": "<input path>"}]}`.

use serde::Deserialize;

use super::{
    artifact_text, from_evidence, input_text, unreadable, CheckContext, Evidence, Verdict,
};
use crate::model::{InputRole, RequiredItem};

#[derive(Debug, Deserialize)]
struct Brief {
    #[allow(dead_code)]
    summary: String,
    items: Vec<BriefItem>,
}

#[derive(Debug, Deserialize)]
struct BriefItem {
    #[allow(dead_code)]
    topic: String,
    quote: String,
    source: String,
}

fn parse_brief(ctx: &CheckContext<'_>) -> Result<Brief, Verdict> {
    let text = artifact_text(ctx)?;
    serde_json::from_slice(text.as_bytes())
        .map_err(|e| unreadable(format!("the brief is not valid: {e}")))
}

/// Whether `quote` equals a whole line of `source`, character for character.
/// Lines end at `\n`; one `\r` before it is not part of the line.
fn is_line_of(quote: &str, source: &str) -> bool {
    source
        .split('\n')
        .any(|line| line.strip_suffix('\r').unwrap_or(line) == quote)
}

/// Why a quote does not stand, or `None` when it equals an approved source line.
fn quote_problem(ctx: &CheckContext<'_>, item: &BriefItem) -> Option<String> {
    if item.quote.trim().is_empty() {
        return Some("the quote is empty".to_string());
    }
    let Some(input) = ctx.task.inputs.iter().find(|i| i.path == item.source) else {
        return Some(format!("`{}` is not an input of the task", item.source));
    };
    if input.role != InputRole::ApprovedSource {
        return Some(format!("`{}` is not an approved source", item.source));
    }
    match input_text(ctx, &item.source) {
        Err((_, why, _)) => Some(why),
        Ok(text) if is_line_of(&item.quote, text) => None,
        Ok(_) => Some(format!("no line of `{}` equals the quote", item.source)),
    }
}

pub(super) fn exact_quotes(ctx: &CheckContext<'_>) -> Verdict {
    let brief = match parse_brief(ctx) {
        Ok(b) => b,
        Err(v) => return v,
    };
    if brief.items.is_empty() {
        return unreadable("the brief quotes nothing");
    }
    let evidence = brief
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let item_name = format!("quote {} from `{}`", i + 1, item.source);
            match quote_problem(ctx, item) {
                None => Evidence::new(
                    item_name,
                    true,
                    "an approved source line",
                    item.quote.clone(),
                ),
                Some(why) => Evidence::new(item_name, false, why, item.quote.clone()),
            }
        })
        .collect();
    from_evidence("quotes", evidence)
}

pub(super) fn no_citation(ctx: &CheckContext<'_>, forbidden: &[String]) -> Verdict {
    let brief = match parse_brief(ctx) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let evidence = brief
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let cites_forbidden = forbidden.contains(&item.source);
            Evidence::new(
                format!("citation {}", i + 1),
                !cites_forbidden,
                format!("not {}", forbidden.join(", ")),
                item.source.clone(),
            )
        })
        .collect();
    from_evidence("citations", evidence)
}

pub(super) fn required_items(ctx: &CheckContext<'_>, items: &[RequiredItem]) -> Verdict {
    let brief = match parse_brief(ctx) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let valid_quotes: Vec<&str> = brief
        .items
        .iter()
        .filter(|item| quote_problem(ctx, item).is_none())
        .map(|item| item.quote.as_str())
        .collect();
    let evidence = items
        .iter()
        .map(|req| {
            let found = valid_quotes.iter().find(|q| q.contains(&req.phrase));
            Evidence::new(
                format!("required item `{}`", req.id),
                found.is_some(),
                format!("an exact quote containing \"{}\"", req.phrase),
                found.map_or_else(
                    || "not covered".to_string(),
                    std::string::ToString::to_string,
                ),
            )
        })
        .collect();
    from_evidence("required items", evidence)
}
